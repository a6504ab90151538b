"""Heuristic policies compiled with numba: ``random``, ``greedy`` and ``discard_table``.

Every policy decides from one observation row and the legal actions (the indices where
the mask is true, ascending) and nothing else, so it sees only what a player may see
(RULES.md section 10). The same code serves three callers:

* :func:`act_batch`: a batch of observations and masks (``Agent.act``), in parallel;
* :func:`decide`: one decision inside another numba kernel, e.g. the tournament kernel
  that plays whole games without leaving compiled code;
* ``Agent.act_one``: a batch of one.

A policy is a ``kind`` (``POLICY_*``) and a float64 ``weights`` vector (``W_*``, defaults
in :func:`default_weights`), so variants of a heuristic are data, not code.

Observation blocks are read through the layout tuple ``lay`` of
:func:`burako_env.core.constants.obs_layout`; :func:`layout_of_obs` recovers it from an
observation alone (its variant block holds the player count and the deck size).
"""

from __future__ import annotations

import hashlib
import importlib
from pathlib import Path

import numpy as np

from burako_env.core.constants import (
    ADD_BASE,
    DISCARD_BASE,
    DRAW_STOCK,
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
    NUM_ACTIONS,
    NUM_CARD_TYPES,
    NUM_MELD_FIELDS,
    NUM_RANKS,
    NUM_VARIANT_FEATURES,
    OPEN_GROUP_BASE,
    OPEN_RUN_BASE,
    OPEN_WILD_GROUP_BASE,
    PEEK_KEEP,
    PEEK_REJECT,
    PHASE_DRAW,
    PHASE_PEEK,
    RANK_ACE,
    RANK_TWO,
    RUN_CLEAN_TEMPLATES,
    RUN_PAIR_TEMPLATES,
    RUN_TEMPLATES_PER_SUIT,
    TAKE_MUERTO_KEEP_WILDS,
    TAKE_PILE,
    obs_layout,
)
from burako_env.core.melds import (
    GROUP_TEMPLATES,
    WILD_GROUP_COMBOS,
    add_card,
    card_value,
    is_wild_card,
    position_card,
    row_value,
    wild_of_kind,
)
from burako_env.core.nb import njit, njit_kernel, njit_parallel, prange
from burako_env.core.params import (
    CLOSE_ANY_CANASTA,
    CLOSE_CLEAN_CANASTA,
    P_CANASTA_CARD_POINTS,
    P_CLEAN_ACES,
    P_CLEAN_CANASTA,
    P_CLOSE_REQUIRES,
    P_DECKS,
    P_DIRTY_ACES,
    P_DIRTY_CANASTA,
    P_GOING_OUT,
    P_JOKERS_PER_DECK,
    P_MAX_MELD,
    P_MUERTO_NOT_TAKEN,
    P_MUERTO_TAKEN,
    P_MUERTOS,
    P_NO_CANASTA_NEGATIVE,
    P_NUM_PLAYERS,
    P_STOCK_END,
    P_TARGET,
    P_TOTAL_CARDS,
    P_UNIQUE_TABLE,
    P_WILD_CANASTA,
    P_WILD_GROUP,
)
from burako_env.core.rng import randint


def kernel_modules(folder: Path) -> list[Path]:
    """The modules of ``folder`` that define numba kernels. A kernel's machine code depends
    only on numba-typed globals (kernels, constants, arrays), which live in these modules
    and in the core; the others (agent classes, the network, policy files) cannot change
    it, so editing them leaves the compiled kernels cached
    (``tests/test_numba_cache.py`` checks that kernel modules import nothing else)."""
    return [p for p in sorted(folder.glob("*.py")) if "njit" in p.read_text(encoding="utf-8")]


def _install_dependency_cache_locator() -> None:
    """Make numba's on-disk cache of the kernels in ``agents/`` depend on the sources they
    call: numba only checks a cached function's own file, so a kernel here would keep
    running stale core rules (or stale policies) after an edit elsewhere. The stamp of a
    function in this folder becomes its own file's hash plus a hash of every
    ``burako_env/core`` source and of the ``agents`` modules that define kernels
    (:func:`kernel_modules`). The entries live in the core's cache folder
    (``NUMBA_CACHE_DIR`` or the one ``burako_env.core.nb`` picks), so that one folder holds
    every kernel: an empty one is a cold start. Private numba API: skipped if it moved."""
    try:
        from numba.core import caching
    except ImportError:  # pragma: no cover
        return
    # in the core's folder (burako_env.core.nb names it) unless no folder is set
    from numba import config

    kind = "UserProvidedCacheLocator" if config.CACHE_DIR else "InTreeCacheLocator"
    base = getattr(caching, kind, None) or getattr(caching, "_" + kind, None)
    impl = getattr(caching, "CacheImpl", None) or getattr(caching, "_CacheImpl", None)
    if base is None or impl is None or not hasattr(impl, "_locator_classes"):
        return
    if any(getattr(c, "_burako_deps", False) for c in impl._locator_classes):
        return
    here = Path(__file__).resolve().parent
    # the core's folder from its package: installed, burako_env.agents (this folder) sits
    # inside burako_env; in the repository it is agents/, beside burako_env/
    core = Path(importlib.import_module("burako_env.core").__file__).resolve().parent
    digest = hashlib.sha256()
    for path in sorted(core.glob("*.py")) + kernel_modules(here):
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    deps = digest.hexdigest()

    class DependencyCacheLocator(base):
        _burako_deps = True

        def get_source_stamp(self):
            return (super().get_source_stamp(), deps)

        @classmethod
        def from_function(cls, py_func, py_file):
            try:
                if Path(py_file).resolve().parent != here:
                    return None
            except OSError:
                return None
            return super().from_function(py_func, py_file)

    impl._locator_classes.insert(0, DependencyCacheLocator)


_install_dependency_cache_locator()

POLICY_RANDOM = 0  #: the ``kind`` of ``random``: a uniformly random legal action
POLICY_GREEDY = 1  #: the ``kind`` of ``greedy``
POLICY_DISCARD_TABLE = 2  #: the ``kind`` of ``discard_table`` (the ``W_*`` weights)
POLICY_NAMES = ("random", "greedy", "discard_table")  #: the names, by ``kind``

GROUP_RANKS_ARR = np.array(GROUP_RANKS, dtype=np.int64)

# ---------------------------------------------------------------- weights (discard_table)
W_TAKE_PILE_USEFUL = 0  #: take a pile holding at least this many cards useful to the hand
W_WILD_OPEN_MELDS = 1  #: open with a wild only while the team has fewer melds than this
W_ENDGAME_STOCK = 2  #: stock size at or below which the hand is ending: dump cards, use wilds
W_GO_OUT_MARGIN = 3  #: go out when the estimated margin is at least this (points)
W_DANGER_FIT = 4  #: cost of discarding a card that fits an opponent's meld (general)
W_DANGER_PILE_PAIR = 5  #: per card of the same rank in the pile
W_DANGER_KNOWN = 6  #: the opponents are known to hold that rank (or run neighbours)
W_DANGER_OPEN = 7  #: the rank can still open a group for them
W_SAFE_1 = 8  #: next opponent holds 1 card: forbidden discards (fit / pile pair)
W_SAFE_2 = 9  #: next opponent holds 2 cards: unsafe discard
W_SAFE_3 = 10  #: next opponent holds 3 cards, pile empty: unsafe discard
W_CLOSED_RANK = 11  #: bonus for a card of a rank whose canasta is closed
W_STUCK = 12  #: bonus (next opponent at 1 card, pile empty) for a card stuck in own team
W_PARTNER_FEED = 13  #: per partner-known card that an opening lets the partner lay
W_DEAD_RUN = 14  #: 1: refuse dead runs outside the endgame
W_PILE_MAX_LATE = 15  #: late in the hand, do not take a pile larger than this unless meldable
W_VALUE_DISCARD = 16  #: per point of a card's value: discard high-value junk first
W_CLEAN_ACES = 17  #: 1: never open aces with a wild outside the endgame
W_THREAT_HAND = 18  #: the hand is ending when an opponent who can go out holds this few cards
W_DUMP_HAND = 19  #: with the muerto still to take, a hand this small lays its wilds too
W_WILD_ADD_MIN_SIZE = 20  #: a wild may go onto a meld that it brings to this size
W_GO_OUT_ENDING = 21  #: 1: go out whenever the hand is ending
NUM_WEIGHTS = 22


def default_weights() -> np.ndarray:
    """The tuned defaults of ``discard_table`` (see docs/STRATEGIES.md)."""
    w = np.zeros(NUM_WEIGHTS, dtype=np.float64)
    w[W_TAKE_PILE_USEFUL] = 2
    w[W_WILD_OPEN_MELDS] = 20
    w[W_ENDGAME_STOCK] = 6
    w[W_GO_OUT_MARGIN] = -60
    w[W_DANGER_FIT] = 30
    w[W_DANGER_PILE_PAIR] = 25
    w[W_DANGER_KNOWN] = 40
    w[W_DANGER_OPEN] = 4
    w[W_SAFE_1] = 3000
    w[W_SAFE_2] = 1500
    w[W_SAFE_3] = 500
    w[W_CLOSED_RANK] = 200
    w[W_STUCK] = 60
    w[W_PARTNER_FEED] = 15
    w[W_DEAD_RUN] = 1
    w[W_PILE_MAX_LATE] = 8
    w[W_VALUE_DISCARD] = 1.0
    w[W_CLEAN_ACES] = 1
    w[W_THREAT_HAND] = 5
    w[W_DUMP_HAND] = 8
    w[W_WILD_ADD_MIN_SIZE] = 5
    w[W_GO_OUT_ENDING] = 1
    return w


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
S_N_OWN = 0  # own team's melds
S_N_OPP = 1
S_HAND_N = 2  # own hand size
S_NEXT_N = 3  # next player's hand size (an opponent)
S_PARTNER_N = 4  # partners' hand sizes together
S_OPP_N = 5  # opponents' hand sizes together
S_STOCK = 6
S_PILE_N = 7
S_OWN_MUERTOS = 8  # own team's untaken muertos
S_OPP_MUERTOS = 9
S_PHASE = 10
S_PILE_TOP = 11  # -1 when empty
S_MATCH_OWN = 12
S_MATCH_OPP = 13
S_NUM_PLAYERS = 14
S_OWN_CANASTA = 15  # own team has a canasta (1) / a clean one (2)
S_PEEK = 16  # peeked card or -1
S_OWN_WILD_GROUP = 17  # own team has an open (not closed) wild group
S_NO_DISCARD = 18  # the card barred from discard, or -1
S_OPP_MIN_N = 19  # the smallest opponent hand
S_OPP_CANASTA = 20  # opponents have a canasta (1) / a clean one (2)
S_MIN_NEED = 21  # own team's minimum first meld while it applies, else 0
S_PROV = 22  # points of the provisional melds laid this turn
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
    """The scratch arrays of ``batch`` decisions (``x``, ``rows`` of :func:`decide`)."""
    return (
        np.zeros((batch, WORKSPACE), np.int64),
        np.zeros((batch, ROWS, NUM_MELD_FIELDS), np.int8),
    )


# ---------------------------------------------------------------- small card helpers
@njit
def rank_count(h, r):
    """Natural cards of rank ``r`` in a counts vector (any suit)."""
    return h[r] + h[NUM_RANKS + r] + h[2 * NUM_RANKS + r] + h[3 * NUM_RANKS + r]


@njit
def wild_count(h):
    n = h[JOKER]
    for s in range(4):
        n += h[s * NUM_RANKS + RANK_TWO]
    return n


@njit
def group_blocked(rows, n_own, n_opp, team_rel, r, unique_table):
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
def fits_team(rows, base, n, c, max_meld, out):
    """Number of the team's melds (rows base..base+n-1) that accept card ``c``."""
    wild = is_wild_card(c)
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
        if add_card(row, c, max_meld, out) == 0:
            k += 1
    return k


@njit
def fits_team_natural(rows, base, n, c, max_meld, out):
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
        if add_card(row, c, max_meld, out) == 0 and not (row[MF_WILD] < 0 and out[MF_WILD] >= 0):
            k += 1
    return k


@njit
def fit_own(x, rows, c):
    """Card ``c`` fits one of the own team's melds (cached per decision)."""
    v = x[X_FIT_OWN + c]
    if v < 0:
        sc = x[X_SC : X_SC + 32]
        mm = x[X_PARAMS + P_MAX_MELD]
        v = 1 if fits_team(rows, np.int64(0), sc[S_N_OWN], c, mm, rows[R_TMP]) > 0 else 0
        x[X_FIT_OWN + c] = v
    return v > 0


@njit
def fit_own_natural(x, rows, c):
    v = x[X_FIT_OWN_NAT + c]
    if v < 0:
        sc = x[X_SC : X_SC + 32]
        mm = x[X_PARAMS + P_MAX_MELD]
        v = 1 if fits_team_natural(rows, 0, sc[S_N_OWN], c, mm, rows[R_TMP]) > 0 else 0
        x[X_FIT_OWN_NAT + c] = v
    return v > 0


@njit
def fit_opp(x, rows, c):
    """Card ``c`` fits one of the opponents' melds (cached per decision)."""
    v = x[X_FIT_OPP + c]
    if v < 0:
        sc = x[X_SC : X_SC + 32]
        mm = x[X_PARAMS + P_MAX_MELD]
        v = 1 if fits_team(rows, np.int64(MAX_MELDS), sc[S_N_OPP], c, mm, rows[R_TMP]) > 0 else 0
        x[X_FIT_OPP + c] = v
    return v > 0


@njit
def run_neighbours(h, c):
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
            k = h[position_card(s, p)]
            if k > 0:
                if d == -1 or d == 1:
                    near += 1
                else:
                    far += 1
    return near, far


@njit
def team_estimate(rows, base, n, params):
    """(table points, canasta bonuses, has canasta, has clean canasta) of a team's melds."""
    table = 0
    bonus = 0
    any_c = False
    clean_c = False
    for i in range(n):
        row = rows[base + i]
        if row[MF_SIZE] >= 7:
            any_c = True
            kind = row[MF_KIND]
            clean = kind != MELD_WILD_GROUP and row[MF_WILD] < 0
            if clean:
                clean_c = True
            if kind == MELD_WILD_GROUP:
                bonus += params[P_WILD_CANASTA]
            elif kind == MELD_GROUP and row[MF_KEY] == RANK_ACE:
                bonus += params[P_CLEAN_ACES] if clean else params[P_DIRTY_ACES]
            else:
                bonus += params[P_CLEAN_CANASTA] if clean else params[P_DIRTY_CANASTA]
            if params[P_CANASTA_CARD_POINTS]:
                table += row_value(row, params)
        else:
            table += row_value(row, params)
    return table, bonus, any_c, clean_c


# ---------------------------------------------------------------- reading an observation
@njit
def read_context(obs, lay, x, rows):
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
        sc[S_N_OWN + t] = n
    sc[S_HAND_N] = obs[o_sizes]
    sc[S_NEXT_N] = obs[o_sizes + 1]
    part = 0
    opp = 0
    for k in range(1, n_players):
        if k % 2 == 0:
            part += obs[o_sizes + k]
        else:
            opp += obs[o_sizes + k]
    sc[S_PARTNER_N] = part
    sc[S_OPP_N] = opp
    opp_min = 1000
    for k in range(1, n_players, 2):
        if obs[o_sizes + k] < opp_min:
            opp_min = obs[o_sizes + k]
    sc[S_OPP_MIN_N] = opp_min
    sc[S_STOCK] = obs[o_misc + 0]
    sc[S_PILE_N] = obs[o_misc + 1]
    sc[S_NO_DISCARD] = obs[o_misc + 7] - 1
    sc[S_MIN_NEED] = obs[o_misc + 8]
    sc[S_PROV] = obs[o_misc + 11]
    sc[S_MATCH_OWN] = obs[o_misc + 12]
    sc[S_MATCH_OPP] = obs[o_misc + 13]
    sc[S_NUM_PLAYERS] = n_players
    for t in range(2):
        left = 0
        for m in range(MAX_MUERTOS):
            if m < params[P_MUERTOS]:
                if obs[o_muertos + (t * MAX_MUERTOS + m) * MUERTO_OBS_FIELDS] == MUERTO_UNTAKEN:
                    left += 1
        sc[S_OWN_MUERTOS + t] = left
    phase = 0
    for i in range(4):
        if obs[o_phase + i]:
            phase = i
    sc[S_PHASE] = phase
    top = -1
    peek = -1
    for c in range(NUM_CARD_TYPES):
        if obs[o_pile_top + c]:
            top = c
        if obs[o_peek + c]:
            peek = c
    sc[S_PILE_TOP] = top
    sc[S_PEEK] = peek
    for t in range(2):
        flag = 0
        for i in range(sc[S_N_OWN + t]):
            row = rows[t * MAX_MELDS + i]
            if row[MF_SIZE] >= 7:
                clean = row[MF_KIND] != MELD_WILD_GROUP and row[MF_WILD] < 0
                if clean:
                    flag = 2
                elif flag == 0:
                    flag = 1
        sc[S_OWN_CANASTA + 5 * t] = flag
    for i in range(X_FIT_OWN, WORKSPACE):
        x[i] = -1
    wg = 0
    if params[P_WILD_GROUP]:
        limit = params[P_MAX_MELD] if params[P_MAX_MELD] > 0 else 7
        for i in range(sc[S_N_OWN]):
            if rows[i, MF_KIND] == MELD_WILD_GROUP and rows[i, MF_SIZE] < limit:
                wg = 1
    sc[S_OWN_WILD_GROUP] = wg


# ---------------------------------------------------------------- what an action moves
@njit
def action_cards(a, out3):
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
            out3[k] = wild_of_kind(WILD_GROUP_COMBOS[i, k])
        return 3, 3
    if a >= OPEN_RUN_BASE:
        idx = a - OPEN_RUN_BASE
        suit = idx // RUN_TEMPLATES_PER_SUIT
        tpl = idx % RUN_TEMPLATES_PER_SUIT
        if tpl < RUN_CLEAN_TEMPLATES:
            s = tpl + 1
            out3[0] = position_card(suit, s)
            out3[1] = position_card(suit, s + 1)
            out3[2] = position_card(suit, s + 2)
        elif tpl < RUN_CLEAN_TEMPLATES + RUN_PAIR_TEMPLATES:
            k = tpl - RUN_CLEAN_TEMPLATES
            s = k // 5 + 1
            out3[0] = position_card(suit, s)
            out3[1] = position_card(suit, s + 1)
            out3[2] = wild_of_kind(k % 5 + 1)
        else:
            k = tpl - RUN_CLEAN_TEMPLATES - RUN_PAIR_TEMPLATES
            s = k // 5 + 1
            out3[0] = position_card(suit, s)
            out3[1] = position_card(suit, s + 2)
            out3[2] = wild_of_kind(k % 5 + 1)
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
            out3[2] = wild_of_kind(tpl[4])
        return 3, 1
    return 0, 0


@njit
def group_suit_cost(x, cards, wild):
    """A group names its suits: prefer naturals held twice, then those no run wants.

    Below one point per card, so it only orders the suit choices of one group.
    """
    h = x[X_HAND : X_HAND + NUM_CARD_TYPES]
    cost = 0.0
    for i in range(3 if wild < 0 else 2):
        c = cards[i]
        if h[c] >= 2:
            continue
        s = c // NUM_RANKS
        pos = c % NUM_RANKS + 1
        for d in (-2, -1, 1, 2):
            q = pos + d
            if 1 <= q <= 14 and h[position_card(s, q)] > 0:
                cost += 0.2
    return cost


@njit
def opening_wild(a):
    """The wild card of an opening (-1 for none); a wild group reports the joker."""
    if a >= OPEN_WILD_GROUP_BASE:
        return JOKER
    if a >= OPEN_RUN_BASE:
        tpl = (a - OPEN_RUN_BASE) % RUN_TEMPLATES_PER_SUIT
        if tpl < RUN_CLEAN_TEMPLATES:
            return -1
        if tpl < RUN_CLEAN_TEMPLATES + RUN_PAIR_TEMPLATES:
            return wild_of_kind((tpl - RUN_CLEAN_TEMPLATES) % 5 + 1)
        return wild_of_kind((tpl - RUN_CLEAN_TEMPLATES - RUN_PAIR_TEMPLATES) % 5 + 1)
    kind = GROUP_TEMPLATES[(a - OPEN_GROUP_BASE) % GROUP_TEMPLATES_PER_RANK, 4]
    return wild_of_kind(kind) if kind > 0 else -1


# ---------------------------------------------------------------- usefulness of a card
@njit
def keep_value(x, rows, c, hand_extra):
    """How much a hand wants to keep card ``c`` (higher: keep). ``hand_extra`` is added
    to the hand counts' view of ``c`` (use -1 to judge a card as if it were gone)."""
    params = x[X_PARAMS : X_PARAMS + NUM_VARIANT_FEATURES]
    sc = x[X_SC : X_SC + 32]
    h = x[X_HAND : X_HAND + NUM_CARD_TYPES]
    if is_wild_card(c):
        return 1000
    v = 0
    if fit_own_natural(x, rows, c):
        v += 400
    r = c % NUM_RANKS
    n_r = rank_count(h, r) + hand_extra
    if n_r >= 2 and not group_blocked(rows, sc[S_N_OWN], sc[S_N_OPP], 0, r, params[P_UNIQUE_TABLE]):
        v += 60 * (n_r - 1)
        if n_r == 2 and rank_count(x[X_UNSEEN : X_UNSEEN + NUM_CARD_TYPES], r) == 0:
            v -= 30  # the third one is nowhere to be found
    near, far = run_neighbours(h, c)
    v += 40 * near + 20 * far
    return v


@njit
def greedy_keep_value(x, rows, c):
    h = x[X_HAND : X_HAND + NUM_CARD_TYPES]
    if is_wild_card(c):
        return 1000
    v = 0
    if fit_own(x, rows, c):
        v += 400
    n_r = rank_count(h, c % NUM_RANKS)
    if n_r >= 2:
        v += 60 * (n_r - 1)
    near, far = run_neighbours(h, c)
    v += 40 * near + 20 * far
    return v


# ---------------------------------------------------------------- can the pile be melded
@njit
def pile_meldable(x, rows):
    """True if some pile card could be melded at once with the hand and the pile together
    (laid on an own meld, or in a new group or run)."""
    params = x[X_PARAMS : X_PARAMS + NUM_VARIANT_FEATURES]
    sc = x[X_SC : X_SC + 32]
    hand = x[X_HAND : X_HAND + NUM_CARD_TYPES]
    pile = x[X_PILE : X_PILE + NUM_CARD_TYPES]
    wilds = wild_count(hand) + wild_count(pile)
    n_own = sc[S_N_OWN]
    for c in range(NUM_CARD_TYPES):
        if pile[c] == 0:
            continue
        if fit_own(x, rows, c):
            return True
        if is_wild_card(c):
            # a wild helps open a group from a pair held
            for ri in range(GROUP_RANKS_ARR.shape[0]):
                r = GROUP_RANKS_ARR[ri]
                if rank_count(hand, r) >= 2 and not group_blocked(
                    rows, n_own, sc[S_N_OPP], 0, r, params[P_UNIQUE_TABLE]
                ):
                    return True
            continue
        r = c % NUM_RANKS
        if r != RANK_TWO:
            nat = rank_count(hand, r) + rank_count(pile, r)
            if (nat >= 3 or (nat >= 2 and wilds >= 1)) and not group_blocked(
                rows, n_own, sc[S_N_OPP], 0, r, params[P_UNIQUE_TABLE]
            ):
                return True
        s = c // NUM_RANKS
        for pos0 in (r + 1, 14):
            if pos0 == 14 and r != RANK_ACE:
                continue
            for start in range(pos0 - 2, pos0 + 1):
                if start < 1 or start + 2 > 14:
                    continue
                have = 0
                for p in range(start, start + 3):
                    cc = position_card(s, p)
                    if p == 2:
                        if hand[cc] + pile[cc] > 0:
                            have += 1
                    elif hand[cc] + pile[cc] > 0:
                        have += 1
                if have == 3 or (have == 2 and wilds >= 1):
                    return True
    return False


@njit
def pile_useful_count(x, rows):
    """Pile cards that pair with, extend or fit the hand and the team's melds."""
    hand = x[X_HAND : X_HAND + NUM_CARD_TYPES]
    pile = x[X_PILE : X_PILE + NUM_CARD_TYPES]
    k = 0
    for c in range(NUM_CARD_TYPES):
        if pile[c] == 0:
            continue
        if is_wild_card(c):
            k += 2 * pile[c]
            continue
        if fit_own(x, rows, c):
            k += pile[c]
            continue
        if rank_count(hand, c % NUM_RANKS) >= 1:
            k += pile[c]
            continue
        near, _ = run_neighbours(hand, c)
        if near > 0:
            k += pile[c]
    return k


# ---------------------------------------------------------------- go out?
@njit
def scores_if_out(x, rows):
    """Estimated hand scores (own team, opponents) if this player went out now."""
    params = x[X_PARAMS : X_PARAMS + NUM_VARIANT_FEATURES]
    sc = x[X_SC : X_SC + 32]
    t0, b0, c0, _ = team_estimate(rows, np.int64(0), sc[S_N_OWN], params)
    t1, b1, c1, _ = team_estimate(rows, np.int64(MAX_MELDS), sc[S_N_OPP], params)
    avg = 9  # a typical card value in hand
    own = b0 + params[P_GOING_OUT] - sc[S_PARTNER_N] * avg
    opp = b1 - sc[S_OPP_N] * avg + sc[S_OPP_MUERTOS] * params[P_MUERTO_NOT_TAKEN]
    opp += (params[P_MUERTOS] - sc[S_OPP_MUERTOS]) * params[P_MUERTO_TAKEN]
    own += params[P_MUERTOS] * params[P_MUERTO_TAKEN]
    if params[P_NO_CANASTA_NEGATIVE]:
        if c0:
            own += t0
            opp += t1 if c1 else -t1
        else:
            own -= t0
            opp += t1 + 2 * sc[S_OPP_N] * avg  # rule 6: their hand counts positive
    else:
        own += t0
        opp += t1
    return own, opp


@njit
def can_close(canasta_flag, params):
    req = params[P_CLOSE_REQUIRES]
    if req == CLOSE_ANY_CANASTA:
        return canasta_flag >= 1
    if req == CLOSE_CLEAN_CANASTA:
        return canasta_flag >= 2
    return True


@njit
def hand_ending(x, w):
    """The stock is nearly out, or an opponent able to go out holds very few cards."""
    params = x[X_PARAMS : X_PARAMS + NUM_VARIANT_FEATURES]
    sc = x[X_SC : X_SC + 32]
    if sc[S_STOCK] <= params[P_STOCK_END] + w[W_ENDGAME_STOCK]:
        return True
    return (
        sc[S_OPP_MUERTOS] == 0
        and can_close(sc[S_OPP_CANASTA], params)
        and sc[S_OPP_MIN_N] <= w[W_THREAT_HAND]
    )


@njit
def going_out_ok(x, rows, w):
    params = x[X_PARAMS : X_PARAMS + NUM_VARIANT_FEATURES]
    sc = x[X_SC : X_SC + 32]
    own, opp = scores_if_out(x, rows)
    total = sc[S_MATCH_OWN] + own
    if total >= params[P_TARGET] and total > sc[S_MATCH_OPP] + opp:
        return True  # near the target: going out wins the match
    m = own - opp
    if w[W_GO_OUT_ENDING] > 0 and hand_ending(x, w):
        return True  # they are about to go out, or the stock is: better us than them
    return m >= w[W_GO_OUT_MARGIN]


# ---------------------------------------------------------------- runs that cannot grow
@njit
def run_reach(x, rows, suit, lo, hi, used0, used1, used2, clean):
    """The longest the run lo..hi of ``suit`` could grow with the cards not yet seen
    elsewhere (hand, stock, partners); a clean run may still take one wild."""
    h = x[X_HAND : X_HAND + NUM_CARD_TYPES]
    un = x[X_UNSEEN : X_UNSEEN + NUM_CARD_TYPES]
    pk = x[X_PARTK : X_PARTK + NUM_CARD_TYPES]
    n = hi - lo + 1
    gap_left = 1 if clean else 0
    p = lo - 1
    while p >= 1:
        c = position_card(suit, p)
        avail = h[c] - int(used0 == c) - int(used1 == c) - int(used2 == c) + un[c] + pk[c]
        if avail > 0:
            n += 1
        elif gap_left > 0:
            gap_left -= 1
            n += 1
        else:
            break
        p -= 1
    p = hi + 1
    while p <= 14:
        c = position_card(suit, p)
        avail = h[c] - int(used0 == c) - int(used1 == c) - int(used2 == c) + un[c] + pk[c]
        if avail > 0:
            n += 1
        elif gap_left > 0:
            gap_left -= 1
            n += 1
        else:
            break
        p += 1
    return n


@njit
def opening_run_span(a):
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


# ---------------------------------------------------------------- greedy
@njit
def greedy_meld_score(x, rows, legal, n, a, cards):
    """Score of a meld action for greedy: the value it lays, runs ahead of groups."""
    params = x[X_PARAMS : X_PARAMS + NUM_VARIANT_FEATURES]
    if a == TAKE_MUERTO_KEEP_WILDS:
        return 10000.0
    k, kind = action_cards(a, cards)
    val = 0
    for i in range(k):
        val += card_value(cards[i], params)
    score = 1000.0 + val
    if kind == 2:
        score += 1.0
    if kind == 1:
        # runs before groups where a card fits both: does a legal run use this rank?
        r = cards[0] % NUM_RANKS
        for j in range(n):
            b = legal[j]
            if b >= OPEN_RUN_BASE and b < OPEN_WILD_GROUP_BASE:
                suit, lo, hi = opening_run_span(b)
                for p in range(lo, hi + 1):
                    if position_card(suit, p) % NUM_RANKS == r:
                        score -= 500.0
                        break
    if kind == 4:
        slot = (a - ADD_BASE) // NUM_CARD_TYPES
        if rows[slot, MF_KIND] == MELD_RUN:
            score += 1.0
    return score


@njit
def greedy_decide(obs, legal, n, lay, rng, w, x, rows):
    read_context(obs, lay, x, rows)
    sc = x[X_SC : X_SC + 32]
    phase = sc[S_PHASE]
    cards = np.empty(3, np.int64)
    if phase == PHASE_PEEK:
        c = sc[S_PEEK]
        if c >= 0 and (is_wild_card(c) or greedy_keep_value(x, rows, c) >= 40):
            return PEEK_KEEP
        return PEEK_REJECT
    if phase == PHASE_DRAW:
        can_take = False
        for j in range(n):
            if legal[j] == TAKE_PILE:
                can_take = True
        if can_take and pile_meldable(x, rows):
            return TAKE_PILE
        return DRAW_STOCK
    best = -1
    best_score = -1e18
    for j in range(n):
        a = legal[j]
        if a >= DISCARD_BASE or a < TAKE_MUERTO_KEEP_WILDS:
            continue
        s = greedy_meld_score(x, rows, legal, n, a, cards)
        if s > best_score:
            best_score = s
            best = a
    if best >= 0:
        return best
    # discard the least useful card, the highest value among equals
    params = x[X_PARAMS : X_PARAMS + NUM_VARIANT_FEATURES]
    best_cost = 1e18
    for j in range(n):
        a = legal[j]
        if a < DISCARD_BASE:
            continue
        c = a - DISCARD_BASE
        cost = greedy_keep_value(x, rows, c) * 100.0 - card_value(c, params)
        if cost < best_cost:
            best_cost = cost
            best = a
    if best < 0:
        best = legal[randint(rng, n)]
    return best


# ---------------------------------------------------------------- discard table
@njit
def discard_danger(x, rows, c, w):
    """(cost of giving ``c`` to the opponents, fits their melds, is safe)."""
    params = x[X_PARAMS : X_PARAMS + NUM_VARIANT_FEATURES]
    sc = x[X_SC : X_SC + 32]
    pile = x[X_PILE : X_PILE + NUM_CARD_TYPES]
    un = x[X_UNSEEN : X_UNSEEN + NUM_CARD_TYPES]
    ok = x[X_OPPK : X_OPPK + NUM_CARD_TYPES]
    fits = fit_opp(x, rows, c)
    cost = 0.0
    if fits:
        cost += w[W_DANGER_FIT]
    if is_wild_card(c):
        return cost + 3 * w[W_DANGER_FIT], fits, False
    r = c % NUM_RANKS
    blocked = group_blocked(rows, sc[S_N_OWN], sc[S_N_OPP], 1, r, params[P_UNIQUE_TABLE])
    avail = rank_count(un, r) + rank_count(ok, r)
    if not blocked:
        cost += w[W_DANGER_PILE_PAIR] * rank_count(pile, r)
        if rank_count(ok, r) > 0:
            cost += w[W_DANGER_KNOWN]
        cost += w[W_DANGER_OPEN] * avail
    near, _ = run_neighbours(ok, c)
    if near > 0:
        cost += w[W_DANGER_KNOWN]
    safe = (not fits) and (blocked or avail == 0)
    return cost, fits, safe


@njit
def closed_rank(x, rows, r):
    """True if a group of rank ``r`` stands closed (max_meld_size) on the table."""
    params = x[X_PARAMS : X_PARAMS + NUM_VARIANT_FEATURES]
    sc = x[X_SC : X_SC + 32]
    mm = params[P_MAX_MELD]
    if mm <= 0:
        return False
    for t in range(2):
        base = 0 if t == 0 else MAX_MELDS
        for i in range(sc[S_N_OWN + t]):
            row = rows[base + i]
            if row[MF_KIND] == MELD_GROUP and row[MF_KEY] == r and row[MF_SIZE] >= mm:
                return True
    return False


@njit
def stuck_in_team(x, rows, c):
    """A card the own team cannot use: no meld takes it, its group is barred or hopeless,
    and it has no run neighbours."""
    params = x[X_PARAMS : X_PARAMS + NUM_VARIANT_FEATURES]
    sc = x[X_SC : X_SC + 32]
    h = x[X_HAND : X_HAND + NUM_CARD_TYPES]
    if is_wild_card(c):
        return False
    if fit_own(x, rows, c):
        return False
    r = c % NUM_RANKS
    if rank_count(h, r) >= 2 and not group_blocked(
        rows, sc[S_N_OWN], sc[S_N_OPP], 0, r, params[P_UNIQUE_TABLE]
    ):
        return False
    near, far = run_neighbours(h, c)
    return near + far == 0


@njit
def partner_pairs(x, c):
    """The partners are known to hold a card that pairs with ``c`` or neighbours it."""
    pk = x[X_PARTK : X_PARTK + NUM_CARD_TYPES]
    if is_wild_card(c):
        return False
    if rank_count(pk, c % NUM_RANKS) > 0:
        return True
    near, _ = run_neighbours(pk, c)
    return near > 0


@njit
def table_discard_cost(x, rows, c, w):
    """The discard table of seed 000 (RULES.md section 11) as a cost: lower is better."""
    params = x[X_PARAMS : X_PARAMS + NUM_VARIANT_FEATURES]
    sc = x[X_SC : X_SC + 32]
    pile = x[X_PILE : X_PILE + NUM_CARD_TYPES]
    danger, fits, safe = discard_danger(x, rows, c, w)
    keep = float(keep_value(x, rows, c, np.int64(0)))
    cost = keep + danger - w[W_VALUE_DISCARD] * card_value(c, params)
    k1 = sc[S_NEXT_N]
    pile_empty = sc[S_PILE_N] == 0
    r = c % NUM_RANKS
    if k1 == 1:
        if fits or is_wild_card(c):
            cost += w[W_SAFE_1]
        if pile_empty:
            if stuck_in_team(x, rows, c):
                cost -= w[W_STUCK]
            if partner_pairs(x, c):
                cost -= w[W_STUCK] / 2
        elif not is_wild_card(c) and rank_count(pile, r) > 0:
            cost += w[W_SAFE_1]  # a pair with the pile opens something for them
    elif k1 == 2:
        if not safe:
            cost += w[W_SAFE_2]
    elif k1 == 3 and pile_empty:
        if not safe:
            cost += w[W_SAFE_3]
    if not is_wild_card(c) and closed_rank(x, rows, r):
        cost -= w[W_CLOSED_RANK]
    return cost


@njit
def table_meld_score(x, rows, legal, n, a, cards, w, go_out_ok):
    """Score of a meld action for discard_table; negative: do not play it now."""
    params = x[X_PARAMS : X_PARAMS + NUM_VARIANT_FEATURES]
    sc = x[X_SC : X_SC + 32]
    h = x[X_HAND : X_HAND + NUM_CARD_TYPES]
    pk = x[X_PARTK : X_PARTK + NUM_CARD_TYPES]
    endgame = hand_ending(x, w)
    # with the muerto to take, a small hand lays everything it can to empty itself
    dumping = sc[S_OWN_MUERTOS] > 0 and sc[S_HAND_N] <= w[W_DUMP_HAND]
    loose = endgame or dumping
    if a == TAKE_MUERTO_KEEP_WILDS:
        return 5000.0
    k, kind = action_cards(a, cards)
    left = sc[S_HAND_N] - k
    if left == 0 and sc[S_OWN_MUERTOS] > 0:
        return 4000.0  # the muerto, at once
    if left == 0:
        return 4500.0 if go_out_ok else -1.0
    if left == 1 and sc[S_OWN_MUERTOS] == 0 and not go_out_ok:
        return -1.0  # the last card's discard would go out
    val = 0
    for i in range(k):
        val += card_value(cards[i], params)
    if kind == 4:
        slot = (a - ADD_BASE) // NUM_CARD_TYPES
        c = cards[0]
        row = rows[slot]
        out = rows[R_TMP2]
        add_card(row, c, params[P_MAX_MELD], out)
        natural = not (row[MF_WILD] < 0 and out[MF_WILD] >= 0)
        completes = row[MF_SIZE] < 7 and out[MF_SIZE] >= 7
        if row[MF_KIND] == MELD_WILD_GROUP:
            return 900.0 + val + (300.0 if completes else 0.0)
        if not is_wild_card(c) or natural:
            score = 800.0 + val + (100.0 if completes else 0.0)
            if row[MF_KIND] == MELD_RUN:
                score += 2.0
            return score
        # a wild onto a meld: to complete a canasta, or to get rid of it at the end
        if sc[S_OWN_WILD_GROUP]:
            return -1.0
        if completes and (sc[S_OWN_CANASTA] == 0 or loose):
            return 600.0 + val
        if loose or out[MF_SIZE] >= w[W_WILD_ADD_MIN_SIZE]:
            return 300.0 + val + row[MF_SIZE]
        return -1.0
    wild = opening_wild(a)
    score = 500.0 + val
    # feed the partner: openings the partners' known cards can be laid on
    if kind == 1:
        r = cards[0] % NUM_RANKS
        score += w[W_PARTNER_FEED] * rank_count(pk, r)
        score -= group_suit_cost(x, cards, wild)
        if r == RANK_ACE:
            score += 20.0
            if wild >= 0 and w[W_CLEAN_ACES] > 0 and not loose:
                return -1.0  # aces are opened clean
        for j in range(n):
            b = legal[j]
            if b >= OPEN_RUN_BASE and b < OPEN_WILD_GROUP_BASE and opening_wild(b) < 0:
                suit, lo, hi = opening_run_span(b)
                for p in range(lo, hi + 1):
                    cc = position_card(suit, p)
                    if cc % NUM_RANKS == r and rank_count(h, r) - (3 if wild < 0 else 2) < 1:
                        score -= 300.0  # the run goes first: equal cards are limited
                        break
        if wild >= 0:
            # a clean opening of the same rank is better: wait for it
            for j in range(n):
                b = legal[j]
                if b >= OPEN_GROUP_BASE and b < OPEN_RUN_BASE and opening_wild(b) < 0:
                    if GROUP_RANKS_ARR[(b - OPEN_GROUP_BASE) // GROUP_TEMPLATES_PER_RANK] == r:
                        return -1.0
    elif kind == 2:
        suit, lo, hi = opening_run_span(a)
        score += 30.0
        for p in range(lo - 1, hi + 2):
            if 1 <= p <= 14 and p != 2:
                score += w[W_PARTNER_FEED] * pk[position_card(suit, p)]
        reach = run_reach(x, rows, suit, lo, hi, cards[0], cards[1], cards[2], wild < 0)
        if reach < 7 and w[W_DEAD_RUN] > 0 and not loose:
            return -1.0  # a dead run: its missing cards are already on the table
        if wild >= 0:
            if wild != JOKER and wild // NUM_RANKS == suit:
                score += 40.0  # the suited 2 may come home and make the run clean
            # a clean opening of the same run cards would be better: wait
            for j in range(n):
                b = legal[j]
                if b >= OPEN_RUN_BASE and b < OPEN_WILD_GROUP_BASE and opening_wild(b) < 0:
                    s2, lo2, hi2 = opening_run_span(b)
                    if s2 == suit and lo2 <= hi and hi2 >= lo:
                        return -1.0
    else:
        return 1500.0 + val  # a wild group: its canasta is worth 700
    if wild >= 0:
        if sc[S_OWN_WILD_GROUP]:
            return -1.0
        if not loose and sc[S_N_OWN] >= w[W_WILD_OPEN_MELDS]:
            return -1.0  # keep wilds for canastas once the team is on the table
        score -= 200.0
        if wild == JOKER:
            score -= 10.0
    return score


@njit
def meld_potential(x, legal, n, cards):
    """Points the hand could lay this turn: the provisional melds plus every hand card that
    some legal meld action uses (an upper bound, for min_first_meld)."""
    params = x[X_PARAMS : X_PARAMS + NUM_VARIANT_FEATURES]
    sc = x[X_SC : X_SC + 32]
    h = x[X_HAND : X_HAND + NUM_CARD_TYPES]
    used = np.zeros(NUM_CARD_TYPES, np.bool_)
    for j in range(n):
        a = legal[j]
        if a >= DISCARD_BASE or a < OPEN_GROUP_BASE:
            continue
        k, kind = action_cards(a, cards)
        for i in range(k):
            c = cards[i]
            if kind == 1 and not is_wild_card(c):
                for s in range(4):
                    used[s * NUM_RANKS + c % NUM_RANKS] = True
            else:
                used[c] = True
    total = sc[S_PROV]
    for c in range(NUM_CARD_TYPES):
        if used[c]:
            total += h[c] * card_value(c, params)
    return total


@njit
def table_decide(obs, legal, n, lay, rng, w, x, rows):
    read_context(obs, lay, x, rows)
    sc = x[X_SC : X_SC + 32]
    phase = sc[S_PHASE]
    cards = np.empty(3, np.int64)
    if phase == PHASE_PEEK:
        c = sc[S_PEEK]
        if c >= 0 and keep_value(x, rows, c, np.int64(1)) >= 40:
            return PEEK_KEEP
        return PEEK_REJECT
    if phase == PHASE_DRAW:
        can_take = False
        for j in range(n):
            if legal[j] == TAKE_PILE:
                can_take = True
        if not can_take:
            return DRAW_STOCK
        if pile_meldable(x, rows):
            return TAKE_PILE
        if hand_ending(x, w) and sc[S_PILE_N] > w[W_PILE_MAX_LATE]:
            return DRAW_STOCK
        if pile_useful_count(x, rows) >= w[W_TAKE_PILE_USEFUL]:
            return TAKE_PILE
        return DRAW_STOCK
    out_ok = going_out_ok(x, rows, w)
    best = -1
    best_score = 0.0
    # min_first_meld: lay nothing unless this turn can reach the minimum
    can_meld = sc[S_MIN_NEED] <= 0 or meld_potential(x, legal, n, cards) >= sc[S_MIN_NEED]
    for j in range(n):
        if not can_meld:
            break
        a = legal[j]
        if a >= DISCARD_BASE or a < TAKE_MUERTO_KEEP_WILDS:
            continue
        s = table_meld_score(x, rows, legal, n, a, cards, w, out_ok)
        if s > best_score:
            best_score = s
            best = a
    if best >= 0:
        return best
    best_cost = 1e18
    for j in range(n):
        a = legal[j]
        if a < DISCARD_BASE:
            continue
        c = a - DISCARD_BASE
        cost = table_discard_cost(x, rows, c, w)
        if cost < best_cost:
            best_cost = cost
            best = a
    if best < 0:
        # only melds we did not want (say: going out while behind): take the best of them
        best_score = -1e18
        for j in range(n):
            a = legal[j]
            s = table_meld_score(x, rows, legal, n, a, cards, w, np.bool_(True))
            if s > best_score:
                best_score = s
                best = a
    return best


# ---------------------------------------------------------------- dispatch
@njit
def decide(kind, obs, legal, n, lay, rng, w, x, rows):
    """One action for policy ``kind`` from an observation and its ``n`` legal actions
    (``legal[:n]``, ascending). ``rng`` (int64[4]) is the decision's generator state;
    ``x`` and ``rows`` a workspace row (:func:`new_workspace`)."""
    if n == 1:
        return int(legal[0])
    # [::1]: layout 'A' like the game state's rows and generator, so the functions of
    # rows (melds.py) and of generators (rng.py) compile once for both
    rows = rows[:, ::1]
    rng = rng[::1]
    if kind == POLICY_GREEDY:
        return int(greedy_decide(obs, legal, n, lay, rng, w, x, rows))
    if kind == POLICY_DISCARD_TABLE:
        return int(table_decide(obs, legal, n, lay, rng, w, x, rows))
    return int(legal[randint(rng, n)])


@njit
def act_row(kind, obs, mask, lay, rng, w, x, rows, legal):
    n = 0
    for a in range(NUM_ACTIONS):
        if mask[a]:
            legal[n] = a
            n += 1
    if n == 0:
        return -1
    return decide(kind, obs, legal, n, lay, rng, w, x, rows)


@njit_parallel
def act_kernel(kind, obs, mask, lay, rng, w, x, rows, out):
    """:func:`decide` for every row of a batch, from the boolean mask."""
    for b_ in prange(obs.shape[0]):
        # one type for the index in numba's serial typing and in the parallel
        # body (int64, then uint64): every callee compiles once, unsigned
        b = np.uint64(b_)
        legal = np.empty(NUM_ACTIONS, np.int64)
        out[b] = act_row(kind, obs[b], mask[b], lay, rng[b], w, x[b], rows[b], legal)


@njit_kernel
def act_serial(kind, obs, mask, lay, rng, w, x, rows, out):
    """:func:`act_kernel` on the calling thread (small batches: no thread pool)."""
    legal = np.empty(NUM_ACTIONS, np.int64)
    for b in range(obs.shape[0]):
        out[b] = act_row(kind, obs[b], mask[b], lay, rng[b], w, x[b], rows[b], legal)


def act_batch(
    kind: int,
    obs: np.ndarray,
    mask: np.ndarray,
    rng: np.ndarray,
    weights=None,
    lay: tuple | None = None,
) -> np.ndarray:
    """Actions of policy ``kind`` for a batch: ``obs`` int16 [B, O], ``mask`` bool [B, A],
    ``rng`` int64 [B, 4] generator states (advanced in place). A row whose mask is all
    false (a finished game) gets -1, which ``Game.step`` reads as "skip"."""
    obs = np.ascontiguousarray(obs, dtype=np.int16)
    mask = np.ascontiguousarray(mask, dtype=np.bool_)
    if obs.ndim != 2 or mask.ndim != 2 or obs.shape[0] != mask.shape[0]:
        raise ValueError(f"obs [B, O] and mask [B, A] must share B: {obs.shape}, {mask.shape}")
    if mask.shape[1] != NUM_ACTIONS:
        raise ValueError(f"the mask must have {NUM_ACTIONS} columns, got {mask.shape[1]}")
    if lay is None:
        lay = layout_of_obs(obs[0])
    w = default_weights() if weights is None else np.ascontiguousarray(weights, np.float64)
    x, rows = new_workspace(obs.shape[0])
    out = np.empty(obs.shape[0], np.int64)
    kernel = act_serial if obs.shape[0] < 8 else act_kernel
    kernel(int(kind), obs, mask, tuple(int(v) for v in lay), rng, w, x, rows, out)
    return out


@njit_kernel
def legal_lists_kernel(mask, ids, counts):
    """Row i's legal ids (``mask[i]`` true) into ``ids[i, :counts[i]]``: the network's
    legal lists (:func:`burako_env.agents.network.legal_lists`). Here, in a kernel module, so that
    the network's module holds no kernel and its edits leave the compiled ones cached."""
    n, a = mask.shape
    for i in range(n):
        k = 0
        for j in range(a):
            if mask[i, j]:
                ids[i, k] = j
                k += 1
        counts[i] = k


# the reference (scripts/build_api_docs.py) documents these; the rest are the kernels'
# internals (the workspace layout and the helpers of the decisions)
__all__ = [
    "POLICY_RANDOM",
    "POLICY_GREEDY",
    "POLICY_DISCARD_TABLE",
    "POLICY_NAMES",
    "W_TAKE_PILE_USEFUL",
    "W_WILD_OPEN_MELDS",
    "W_ENDGAME_STOCK",
    "W_GO_OUT_MARGIN",
    "W_DANGER_FIT",
    "W_DANGER_PILE_PAIR",
    "W_DANGER_KNOWN",
    "W_DANGER_OPEN",
    "W_SAFE_1",
    "W_SAFE_2",
    "W_SAFE_3",
    "W_CLOSED_RANK",
    "W_STUCK",
    "W_PARTNER_FEED",
    "W_DEAD_RUN",
    "W_PILE_MAX_LATE",
    "W_VALUE_DISCARD",
    "W_CLEAN_ACES",
    "W_THREAT_HAND",
    "W_DUMP_HAND",
    "W_WILD_ADD_MIN_SIZE",
    "W_GO_OUT_ENDING",
    "NUM_WEIGHTS",
    "default_weights",
    "layout_of_obs",
    "new_workspace",
    "decide",
    "act_batch",
    "legal_lists_kernel",
    "kernel_modules",
]
