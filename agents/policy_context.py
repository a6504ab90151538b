"""What a heuristic decision reads from one observation (:mod:`burako_env.agents.policies`).

A decision works in a workspace row: ``x`` (int64, the ``X_*`` blocks and the ``XS_*``
scalars, :func:`read_context_nb` fills it from the observation) and ``rows`` (the meld rows
of both teams and two scratch rows). The functions here read it: which of the team's melds
take a card, cards of a rank, run neighbours, and which cards an action moves. The
observation's blocks are found through the layout tuple ``lay`` of
:func:`burako_env.core.constants.obs_layout`; :func:`layout_of_obs` recovers it from an
observation alone (its variant block holds the player count and the deck size).
"""

# Kernel module: the rules its kernels follow (burako_env/jit/__init__.py says why).
# - Imports at the top: numpy, numba, burako_env.jit, the core, modules that declare
#   KERNEL_MODULE = True, and classes only: a kernel compiles in the globals it reads,
#   and the cache stamps cover only the core's, the jit's and kernel modules' sources.
# - Constants are module globals, compiled in; constant arguments go as np.int64/np.bool_.
# - @njit is link-only (kernels call it, Python cannot); Python calls @njit_kernel and
#   @njit_parallel. A loop over games names its index np.uint64 on its first line.
# - Whole games: a serial kernel of a slice (first, last) that borrows its arrays
#   (borrowed) and runs under run_sliced; a prange body never writes through an attribute.

from __future__ import annotations

import numpy as np

from burako_env.core.constants import (
    ADD_BASE,
    DISCARD_BASE,
    GROUP_RANKS,
    GROUP_TEMPLATES_PER_RANK,
    JOKER,
    MAX_MELDS,
    MAX_MUERTOS,
    MELD_GROUP,
    MELD_OBS_FIELDS,
    MELD_RUN,
    MELD_WILD_GROUP,
    MF_KEY,
    MF_KIND,
    MF_SIZE,
    MF_WILD,
    MUERTO_OBS_FIELDS,
    MUERTO_UNTAKEN,
    NUM_CARD_TYPES,
    NUM_MELD_FIELDS,
    NUM_RANKS,
    NUM_VARIANT_FEATURES,
    OPEN_GROUP_BASE,
    OPEN_RUN_BASE,
    OPEN_WILD_GROUP_BASE,
    RANK_ACE,
    RANK_TWO,
    RUN_CLEAN_TEMPLATES,
    RUN_PAIR_TEMPLATES,
    RUN_TEMPLATES_PER_SUIT,
    obs_layout,
)
from burako_env.core.melds import (
    GROUP_TEMPLATES,
    WILD_GROUP_COMBOS,
    add_card_nb,
    is_wild_card_nb,
    position_card_nb,
    wild_of_kind_nb,
)
from burako_env.core.params import (
    P_DECKS,
    P_JOKERS_PER_DECK,
    P_MAX_MELD,
    P_MUERTOS,
    P_NUM_PLAYERS,
    P_TOTAL_CARDS,
    P_WILD_GROUP,
)
from burako_env.jit import njit

#: this module defines compiled functions (agents/kernel_cache.py reads the mark)
KERNEL_MODULE = True

GROUP_RANKS_ARR = np.array(GROUP_RANKS, dtype=np.int64)


# ---------------------------------------------------------------- workspace
# One int64 row per game holds what a decision derives from the observation.
X_HAND = 0  # own hand counts (53)
X_UNSEEN = 53  # copies seen nowhere (stock, muertos, unknown parts of hands)
X_OPPK = 106  # cards known to be in the opponents' hands
X_PARTK = 159  # cards known to be in the partners' hands
X_PILE = 212  # pile counts
X_PARAMS = 265  # the variant's params (NUM_VARIANT_FEATURES)
X_SC = X_PARAMS + NUM_VARIANT_FEATURES  # scalars below, relative to X_SC
X_FIT_OWN = X_SC + 32  # cached per card: fits an own meld (1), not (0), unknown (-1)
X_FIT_OWN_NAT = X_FIT_OWN + NUM_CARD_TYPES  # ... as a natural card
X_FIT_OPP = X_FIT_OWN_NAT + NUM_CARD_TYPES  # ... fits an opponents' meld
WORKSPACE = X_FIT_OPP + NUM_CARD_TYPES
# the workspace's scalars, at ``X_SC + XS_*``: named ``XS_`` apart from the game state's
# ``S_*`` columns (burako_env.core.constants), so that importing one for the other fails
XS_N_OWN = 0  # own team's melds
XS_N_OPP = 1
XS_HAND_N = 2  # own hand size
XS_NEXT_N = 3  # next player's hand size (an opponent)
XS_PARTNER_N = 4  # partners' hand sizes together
XS_OPP_N = 5  # opponents' hand sizes together
XS_STOCK = 6
XS_PILE_N = 7
XS_OWN_MUERTOS = 8  # own team's untaken muertos
XS_OPP_MUERTOS = 9
XS_PHASE = 10
XS_PILE_TOP = 11  # -1 when empty
XS_MATCH_OWN = 12
XS_MATCH_OPP = 13
XS_NUM_PLAYERS = 14
XS_OWN_CANASTA = 15  # own team has a canasta (1) / a clean one (2)
XS_PEEK = 16  # peeked card or -1
XS_OWN_WILD_GROUP = 17  # own team has an open (not closed) wild group
XS_NO_DISCARD = 18  # the card barred from discard, or -1
XS_OPP_MIN_N = 19  # the smallest opponent hand
XS_OPP_CANASTA = 20  # opponents have a canasta (1) / a clean one (2)
XS_MIN_NEED = 21  # own team's minimum first meld while it applies, else 0
XS_PROV = 22  # points of the provisional melds laid this turn
#: meld rows: own team 0..MAX_MELDS-1, opponents MAX_MELDS..2*MAX_MELDS-1, then scratch
ROWS = 2 * MAX_MELDS + 2
R_TMP = 2 * MAX_MELDS
R_TMP2 = 2 * MAX_MELDS + 1


def layout_of_obs(obs_row: np.ndarray) -> tuple:
    """The layout tuple of an observation, read from its own variant block."""
    obs_row = np.asarray(obs_row).reshape(-1)
    size = obs_row.shape[0]
    var = size - NUM_VARIANT_FEATURES
    n = int(obs_row[var + P_NUM_PLAYERS])
    total = int(obs_row[var + P_TOTAL_CARDS])
    lay = obs_layout(n, total)
    if lay.size != size:
        raise ValueError(f"observation of size {size} does not match its own variant block")
    return tuple(lay)


def new_workspace(batch: int) -> tuple[np.ndarray, np.ndarray]:
    """The scratch arrays of ``batch`` decisions (``x``, ``rows`` of
    :func:`~burako_env.agents.policies.decide_nb`)."""
    return (
        np.zeros((batch, WORKSPACE), np.int64),
        np.zeros((batch, ROWS, NUM_MELD_FIELDS), np.int8),
    )


# ---------------------------------------------------------------- small card helpers
@njit
def rank_count_nb(h, r):
    """Natural cards of rank ``r`` in a counts vector (any suit)."""
    return h[r] + h[NUM_RANKS + r] + h[2 * NUM_RANKS + r] + h[3 * NUM_RANKS + r]


@njit
def wild_count_nb(h):
    n = h[JOKER]
    for s in range(4):
        n += h[s * NUM_RANKS + RANK_TWO]
    return n


@njit
def group_blocked_nb(rows, n_own, n_opp, team_rel, r, unique_table):
    """True if team ``team_rel`` (0 own, 1 opponents) may not open a group of rank ``r``."""
    for t in range(2):
        if t != team_rel and not unique_table:
            continue
        base = 0 if t == 0 else MAX_MELDS
        n = n_own if t == 0 else n_opp
        for i in range(n):
            row = rows[base + i]
            if row[MF_KIND] == MELD_GROUP and row[MF_KEY] == r:
                return True
    return False


@njit
def fits_team_nb(rows, base, n, c, max_meld, out):
    """Number of the team's melds (rows base..base+n-1) that accept card ``c``."""
    wild = is_wild_card_nb(c)
    k = 0
    for i in range(n):
        row = rows[base + i]
        kind = row[MF_KIND]
        if kind == MELD_GROUP:
            if not wild and c % NUM_RANKS != row[MF_KEY]:
                continue
        elif kind == MELD_RUN:
            if not wild and c // NUM_RANKS != row[MF_KEY]:
                continue
        elif not wild:
            continue
        if add_card_nb(row, c, max_meld, out) == 0:
            k += 1
    return k


@njit
def fits_team_natural_nb(rows, base, n, c, max_meld, out):
    """Melds that take ``c`` as a natural card (a suited 2 coming home in a run counts)."""
    k = 0
    for i in range(n):
        row = rows[base + i]
        kind = row[MF_KIND]
        if kind == MELD_GROUP:
            if c == JOKER or c % NUM_RANKS != row[MF_KEY]:
                continue
        elif kind == MELD_RUN:
            if c == JOKER or c // NUM_RANKS != row[MF_KEY]:
                continue
        else:
            continue
        if add_card_nb(row, c, max_meld, out) == 0 and not (row[MF_WILD] < 0 and out[MF_WILD] >= 0):
            k += 1
    return k


@njit
def fit_own_nb(x, rows, c):
    """Card ``c`` fits one of the own team's melds (cached per decision)."""
    v = x[X_FIT_OWN + c]
    if v < 0:
        sc = x[X_SC : X_SC + 32]
        mm = x[X_PARAMS + P_MAX_MELD]
        v = 1 if fits_team_nb(rows, np.int64(0), sc[XS_N_OWN], c, mm, rows[R_TMP]) > 0 else 0
        x[X_FIT_OWN + c] = v
    return v > 0


@njit
def fit_own_natural_nb(x, rows, c):
    v = x[X_FIT_OWN_NAT + c]
    if v < 0:
        sc = x[X_SC : X_SC + 32]
        mm = x[X_PARAMS + P_MAX_MELD]
        v = 1 if fits_team_natural_nb(rows, 0, sc[XS_N_OWN], c, mm, rows[R_TMP]) > 0 else 0
        x[X_FIT_OWN_NAT + c] = v
    return v > 0


@njit
def fit_opp_nb(x, rows, c):
    """Card ``c`` fits one of the opponents' melds (cached per decision)."""
    v = x[X_FIT_OPP + c]
    if v < 0:
        sc = x[X_SC : X_SC + 32]
        mm = x[X_PARAMS + P_MAX_MELD]
        v = (
            1
            if fits_team_nb(rows, np.int64(MAX_MELDS), sc[XS_N_OPP], c, mm, rows[R_TMP]) > 0
            else 0
        )
        x[X_FIT_OPP + c] = v
    return v > 0


@njit
def run_neighbours_nb(h, c):
    """(cards at distance 1, at distance 2) of the same suit in ``h`` around natural ``c``."""
    s = c // NUM_RANKS
    r = c % NUM_RANKS
    near = 0
    far = 0
    for pos0 in (r + 1, 14):
        if pos0 == 14 and r != RANK_ACE:
            continue
        for d in (-2, -1, 1, 2):
            p = pos0 + d
            if p < 1 or p > 14 or p == 2:  # a 2 in hand is a wild, not a neighbour
                continue
            k = h[position_card_nb(s, p)]
            if k > 0:
                if d == -1 or d == 1:
                    near += 1
                else:
                    far += 1
    return near, far


# ---------------------------------------------------------------- reading an observation
@njit
def read_context_nb(obs, lay, x, rows):
    """Fill the workspace ``x`` and meld ``rows`` from one observation."""
    o_hand = lay[0]
    o_table = lay[1]
    o_melds = lay[2]
    o_pile_counts = lay[3]
    o_pile_top = lay[4]
    o_peek = lay[6]
    o_known = lay[7]
    o_sizes = lay[8]
    o_muertos = lay[9]
    o_phase = lay[10]
    o_misc = lay[11]
    o_var = lay[12]
    for i in range(NUM_VARIANT_FEATURES):
        x[X_PARAMS + i] = obs[o_var + i]
    params = x[X_PARAMS : X_PARAMS + NUM_VARIANT_FEATURES]
    n_players = params[P_NUM_PLAYERS]
    sc = x[X_SC : X_SC + 32]
    decks = params[P_DECKS]
    for c in range(NUM_CARD_TYPES):
        h = obs[o_hand + c]
        x[X_HAND + c] = h
        x[X_PILE + c] = obs[o_pile_counts + c]
        total = decks * params[P_JOKERS_PER_DECK] if c == JOKER else decks
        x[X_UNSEEN + c] = (
            total
            - h
            - obs[o_table + c]
            - obs[o_table + NUM_CARD_TYPES + c]
            - obs[o_pile_counts + c]
        )
        x[X_OPPK + c] = 0
        x[X_PARTK + c] = 0
    for k in range(1, n_players):
        base = o_known + (k - 1) * NUM_CARD_TYPES
        dst = X_PARTK if k % 2 == 0 else X_OPPK
        for c in range(NUM_CARD_TYPES):
            kc = obs[base + c]
            if kc > 0:
                x[dst + c] += kc
                x[X_UNSEEN + c] -= kc
    for c in range(NUM_CARD_TYPES):
        if x[X_UNSEEN + c] < 0:
            x[X_UNSEEN + c] = 0
    # melds
    for t in range(2):
        n = 0
        for i in range(MAX_MELDS):
            base = o_melds + (t * MAX_MELDS + i) * MELD_OBS_FIELDS
            if obs[base + MF_KIND] == 0:
                break
            row = rows[t * MAX_MELDS + i]
            for f in range(NUM_MELD_FIELDS):
                row[f] = obs[base + f]
            row[MF_WILD] = obs[base + MF_WILD] - 1
            n += 1
        sc[XS_N_OWN + t] = n
    sc[XS_HAND_N] = obs[o_sizes]
    sc[XS_NEXT_N] = obs[o_sizes + 1]
    part = 0
    opp = 0
    for k in range(1, n_players):
        if k % 2 == 0:
            part += obs[o_sizes + k]
        else:
            opp += obs[o_sizes + k]
    sc[XS_PARTNER_N] = part
    sc[XS_OPP_N] = opp
    opp_min = 1000
    for k in range(1, n_players, 2):
        if obs[o_sizes + k] < opp_min:
            opp_min = obs[o_sizes + k]
    sc[XS_OPP_MIN_N] = opp_min
    sc[XS_STOCK] = obs[o_misc + 0]
    sc[XS_PILE_N] = obs[o_misc + 1]
    sc[XS_NO_DISCARD] = obs[o_misc + 7] - 1
    sc[XS_MIN_NEED] = obs[o_misc + 8]
    sc[XS_PROV] = obs[o_misc + 11]
    sc[XS_MATCH_OWN] = obs[o_misc + 12]
    sc[XS_MATCH_OPP] = obs[o_misc + 13]
    sc[XS_NUM_PLAYERS] = n_players
    for t in range(2):
        left = 0
        for m in range(MAX_MUERTOS):
            if m < params[P_MUERTOS]:
                if obs[o_muertos + (t * MAX_MUERTOS + m) * MUERTO_OBS_FIELDS] == MUERTO_UNTAKEN:
                    left += 1
        sc[XS_OWN_MUERTOS + t] = left
    phase = 0
    for i in range(4):
        if obs[o_phase + i]:
            phase = i
    sc[XS_PHASE] = phase
    top = -1
    peek = -1
    for c in range(NUM_CARD_TYPES):
        if obs[o_pile_top + c]:
            top = c
        if obs[o_peek + c]:
            peek = c
    sc[XS_PILE_TOP] = top
    sc[XS_PEEK] = peek
    for t in range(2):
        flag = 0
        for i in range(sc[XS_N_OWN + t]):
            row = rows[t * MAX_MELDS + i]
            if row[MF_SIZE] >= 7:
                clean = row[MF_KIND] != MELD_WILD_GROUP and row[MF_WILD] < 0
                if clean:
                    flag = 2
                elif flag == 0:
                    flag = 1
        sc[XS_OWN_CANASTA + 5 * t] = flag
    for i in range(X_FIT_OWN, WORKSPACE):
        x[i] = -1
    wg = 0
    if params[P_WILD_GROUP]:
        limit = params[P_MAX_MELD] if params[P_MAX_MELD] > 0 else 7
        for i in range(sc[XS_N_OWN]):
            if rows[i, MF_KIND] == MELD_WILD_GROUP and rows[i, MF_SIZE] < limit:
                wg = 1
    sc[XS_OWN_WILD_GROUP] = wg


# ---------------------------------------------------------------- what an action moves
@njit
def action_cards_nb(a, out3):
    """Cards an opening / add / discard takes from the hand, written to ``out3``; returns
    (count, kind) with kind 1 group, 2 run, 3 wild group, 4 add, 5 discard, 0 other.
    Groups report the cards they name."""
    if a >= DISCARD_BASE:
        out3[0] = a - DISCARD_BASE
        return 1, 5
    if a >= ADD_BASE:
        out3[0] = (a - ADD_BASE) % NUM_CARD_TYPES
        return 1, 4
    if a >= OPEN_WILD_GROUP_BASE:
        i = a - OPEN_WILD_GROUP_BASE
        for k in range(3):
            out3[k] = wild_of_kind_nb(WILD_GROUP_COMBOS[i, k])
        return 3, 3
    if a >= OPEN_RUN_BASE:
        idx = a - OPEN_RUN_BASE
        suit = idx // RUN_TEMPLATES_PER_SUIT
        tpl = idx % RUN_TEMPLATES_PER_SUIT
        if tpl < RUN_CLEAN_TEMPLATES:
            s = tpl + 1
            out3[0] = position_card_nb(suit, s)
            out3[1] = position_card_nb(suit, s + 1)
            out3[2] = position_card_nb(suit, s + 2)
        elif tpl < RUN_CLEAN_TEMPLATES + RUN_PAIR_TEMPLATES:
            k = tpl - RUN_CLEAN_TEMPLATES
            s = k // 5 + 1
            out3[0] = position_card_nb(suit, s)
            out3[1] = position_card_nb(suit, s + 1)
            out3[2] = wild_of_kind_nb(k % 5 + 1)
        else:
            k = tpl - RUN_CLEAN_TEMPLATES - RUN_PAIR_TEMPLATES
            s = k // 5 + 1
            out3[0] = position_card_nb(suit, s)
            out3[1] = position_card_nb(suit, s + 2)
            out3[2] = wild_of_kind_nb(k % 5 + 1)
        return 3, 2
    if a >= OPEN_GROUP_BASE:
        idx = a - OPEN_GROUP_BASE
        rank = GROUP_RANKS_ARR[idx // GROUP_TEMPLATES_PER_RANK]
        tpl = GROUP_TEMPLATES[idx % GROUP_TEMPLATES_PER_RANK]
        k = 0
        for s in range(4):
            for _ in range(tpl[s]):
                out3[k] = s * NUM_RANKS + rank
                k += 1
        if tpl[4] > 0:
            out3[2] = wild_of_kind_nb(tpl[4])
        return 3, 1
    return 0, 0


@njit
def opening_wild_nb(a):
    """The wild card of an opening (-1 for none); a wild group reports the joker."""
    if a >= OPEN_WILD_GROUP_BASE:
        return JOKER
    if a >= OPEN_RUN_BASE:
        tpl = (a - OPEN_RUN_BASE) % RUN_TEMPLATES_PER_SUIT
        if tpl < RUN_CLEAN_TEMPLATES:
            return -1
        if tpl < RUN_CLEAN_TEMPLATES + RUN_PAIR_TEMPLATES:
            return wild_of_kind_nb((tpl - RUN_CLEAN_TEMPLATES) % 5 + 1)
        return wild_of_kind_nb((tpl - RUN_CLEAN_TEMPLATES - RUN_PAIR_TEMPLATES) % 5 + 1)
    kind = GROUP_TEMPLATES[(a - OPEN_GROUP_BASE) % GROUP_TEMPLATES_PER_RANK, 4]
    return wild_of_kind_nb(kind) if kind > 0 else -1


@njit
def opening_run_span_nb(a):
    """(suit, lo, hi) of the naturals of a run opening."""
    idx = a - OPEN_RUN_BASE
    suit = idx // RUN_TEMPLATES_PER_SUIT
    tpl = idx % RUN_TEMPLATES_PER_SUIT
    if tpl < RUN_CLEAN_TEMPLATES:
        s = tpl + 1
        return suit, s, s + 2
    if tpl < RUN_CLEAN_TEMPLATES + RUN_PAIR_TEMPLATES:
        s = (tpl - RUN_CLEAN_TEMPLATES) // 5 + 1
        return suit, s, s + 1
    s = (tpl - RUN_CLEAN_TEMPLATES - RUN_PAIR_TEMPLATES) // 5 + 1
    return suit, s, s + 2


# the reference (scripts/tools/build_api_docs.py) documents these; the rest are the kernels'
# internals (the workspace layout and the helpers of the decisions)
__all__ = ["layout_of_obs", "new_workspace"]
