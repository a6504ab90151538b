"""The heuristics' scoring tables: how much a card, a meld or a discard is worth to
``greedy`` and ``discard_table`` (RULES.md section 11), and the ``W_*`` weights of
``discard_table`` (defaults in :func:`default_weights`), so variants of the heuristic are
data, not code. The move choice that reads these scores is
:mod:`burako_env.agents.policies`; the workspace they read, :mod:`burako_env.agents.policy_context`.
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

from burako_env.agents.policy_context import (
    GROUP_RANKS_ARR,
    R_TMP2,
    X_HAND,
    X_OPPK,
    X_PARAMS,
    X_PARTK,
    X_PILE,
    X_SC,
    X_UNSEEN,
    XS_HAND_N,
    XS_MATCH_OPP,
    XS_MATCH_OWN,
    XS_N_OPP,
    XS_N_OWN,
    XS_NEXT_N,
    XS_OPP_CANASTA,
    XS_OPP_MIN_N,
    XS_OPP_MUERTOS,
    XS_OPP_N,
    XS_OWN_CANASTA,
    XS_OWN_MUERTOS,
    XS_OWN_WILD_GROUP,
    XS_PARTNER_N,
    XS_PILE_N,
    XS_PROV,
    XS_STOCK,
    action_cards_nb,
    fit_opp_nb,
    fit_own_natural_nb,
    fit_own_nb,
    group_blocked_nb,
    opening_run_span_nb,
    opening_wild_nb,
    rank_count_nb,
    run_neighbours_nb,
    wild_count_nb,
)
from burako_env.core.constants import (
    ADD_BASE,
    DISCARD_BASE,
    GROUP_TEMPLATES_PER_RANK,
    JOKER,
    MAX_MELDS,
    MELD_GROUP,
    MELD_RUN,
    MELD_WILD_GROUP,
    MF_KEY,
    MF_KIND,
    MF_SIZE,
    MF_WILD,
    NUM_CARD_TYPES,
    NUM_RANKS,
    NUM_VARIANT_FEATURES,
    OPEN_GROUP_BASE,
    OPEN_RUN_BASE,
    OPEN_WILD_GROUP_BASE,
    RANK_ACE,
    RANK_TWO,
    TAKE_MUERTO_KEEP_WILDS,
)
from burako_env.core.melds import (
    add_card_nb,
    card_value_nb,
    is_wild_card_nb,
    position_card_nb,
    row_value_nb,
)
from burako_env.core.params import (
    CLOSE_ANY_CANASTA,
    CLOSE_CLEAN_CANASTA,
    P_CANASTA_CARD_POINTS,
    P_CLEAN_ACES,
    P_CLEAN_CANASTA,
    P_CLOSE_REQUIRES,
    P_DIRTY_ACES,
    P_DIRTY_CANASTA,
    P_GOING_OUT,
    P_MAX_MELD,
    P_MUERTO_NOT_TAKEN,
    P_MUERTO_TAKEN,
    P_MUERTOS,
    P_NO_CANASTA_NEGATIVE,
    P_STOCK_END,
    P_TARGET,
    P_UNIQUE_TABLE,
    P_WILD_CANASTA,
)
from burako_env.jit import njit

#: this module defines compiled functions (agents/kernel_cache.py reads the mark)
KERNEL_MODULE = True

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


# ---------------------------------------------------------------- usefulness of a card
@njit
def keep_value_nb(x, rows, c, hand_extra):
    """How much a hand wants to keep card ``c`` (higher: keep). ``hand_extra`` is added
    to the hand counts' view of ``c`` (use -1 to judge a card as if it were gone)."""
    params = x[X_PARAMS : X_PARAMS + NUM_VARIANT_FEATURES]
    sc = x[X_SC : X_SC + 32]
    h = x[X_HAND : X_HAND + NUM_CARD_TYPES]
    if is_wild_card_nb(c):
        return 1000
    v = 0
    if fit_own_natural_nb(x, rows, c):
        v += 400
    r = c % NUM_RANKS
    n_r = rank_count_nb(h, r) + hand_extra
    if n_r >= 2 and not group_blocked_nb(
        rows, sc[XS_N_OWN], sc[XS_N_OPP], 0, r, params[P_UNIQUE_TABLE]
    ):
        v += 60 * (n_r - 1)
        if n_r == 2 and rank_count_nb(x[X_UNSEEN : X_UNSEEN + NUM_CARD_TYPES], r) == 0:
            v -= 30  # the third one is nowhere to be found
    near, far = run_neighbours_nb(h, c)
    v += 40 * near + 20 * far
    return v


@njit
def greedy_keep_value_nb(x, rows, c):
    h = x[X_HAND : X_HAND + NUM_CARD_TYPES]
    if is_wild_card_nb(c):
        return 1000
    v = 0
    if fit_own_nb(x, rows, c):
        v += 400
    n_r = rank_count_nb(h, c % NUM_RANKS)
    if n_r >= 2:
        v += 60 * (n_r - 1)
    near, far = run_neighbours_nb(h, c)
    v += 40 * near + 20 * far
    return v


# ---------------------------------------------------------------- can the pile be melded
@njit
def pile_meldable_nb(x, rows):
    """True if some pile card could be melded at once with the hand and the pile together
    (laid on an own meld, or in a new group or run)."""
    params = x[X_PARAMS : X_PARAMS + NUM_VARIANT_FEATURES]
    sc = x[X_SC : X_SC + 32]
    hand = x[X_HAND : X_HAND + NUM_CARD_TYPES]
    pile = x[X_PILE : X_PILE + NUM_CARD_TYPES]
    wilds = wild_count_nb(hand) + wild_count_nb(pile)
    n_own = sc[XS_N_OWN]
    for c in range(NUM_CARD_TYPES):
        if pile[c] == 0:
            continue
        if fit_own_nb(x, rows, c):
            return True
        if is_wild_card_nb(c):
            # a wild helps open a group from a pair held
            for ri in range(GROUP_RANKS_ARR.shape[0]):
                r = GROUP_RANKS_ARR[ri]
                if rank_count_nb(hand, r) >= 2 and not group_blocked_nb(
                    rows, n_own, sc[XS_N_OPP], 0, r, params[P_UNIQUE_TABLE]
                ):
                    return True
            continue
        r = c % NUM_RANKS
        if r != RANK_TWO:
            nat = rank_count_nb(hand, r) + rank_count_nb(pile, r)
            if (nat >= 3 or (nat >= 2 and wilds >= 1)) and not group_blocked_nb(
                rows, n_own, sc[XS_N_OPP], 0, r, params[P_UNIQUE_TABLE]
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
                    cc = position_card_nb(s, p)
                    if p == 2:
                        if hand[cc] + pile[cc] > 0:
                            have += 1
                    elif hand[cc] + pile[cc] > 0:
                        have += 1
                if have == 3 or (have == 2 and wilds >= 1):
                    return True
    return False


@njit
def pile_useful_count_nb(x, rows):
    """Pile cards that pair with, extend or fit the hand and the team's melds."""
    hand = x[X_HAND : X_HAND + NUM_CARD_TYPES]
    pile = x[X_PILE : X_PILE + NUM_CARD_TYPES]
    k = 0
    for c in range(NUM_CARD_TYPES):
        if pile[c] == 0:
            continue
        if is_wild_card_nb(c):
            k += 2 * pile[c]
            continue
        if fit_own_nb(x, rows, c):
            k += pile[c]
            continue
        if rank_count_nb(hand, c % NUM_RANKS) >= 1:
            k += pile[c]
            continue
        near, _ = run_neighbours_nb(hand, c)
        if near > 0:
            k += pile[c]
    return k


# ---------------------------------------------------------------- go out?
@njit
def team_estimate_nb(rows, base, n, params):
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
                table += row_value_nb(row, params)
        else:
            table += row_value_nb(row, params)
    return table, bonus, any_c, clean_c


@njit
def scores_if_out_nb(x, rows):
    """Estimated hand scores (own team, opponents) if this player went out now."""
    params = x[X_PARAMS : X_PARAMS + NUM_VARIANT_FEATURES]
    sc = x[X_SC : X_SC + 32]
    t0, b0, c0, _ = team_estimate_nb(rows, np.int64(0), sc[XS_N_OWN], params)
    t1, b1, c1, _ = team_estimate_nb(rows, np.int64(MAX_MELDS), sc[XS_N_OPP], params)
    avg = 9  # a typical card value in hand
    own = b0 + params[P_GOING_OUT] - sc[XS_PARTNER_N] * avg
    opp = b1 - sc[XS_OPP_N] * avg + sc[XS_OPP_MUERTOS] * params[P_MUERTO_NOT_TAKEN]
    opp += (params[P_MUERTOS] - sc[XS_OPP_MUERTOS]) * params[P_MUERTO_TAKEN]
    own += params[P_MUERTOS] * params[P_MUERTO_TAKEN]
    if params[P_NO_CANASTA_NEGATIVE]:
        if c0:
            own += t0
            opp += t1 if c1 else -t1
        else:
            own -= t0
            opp += t1 + 2 * sc[XS_OPP_N] * avg  # rule 6: their hand counts positive
    else:
        own += t0
        opp += t1
    return own, opp


@njit
def can_close_nb(canasta_flag, params):
    req = params[P_CLOSE_REQUIRES]
    if req == CLOSE_ANY_CANASTA:
        return canasta_flag >= 1
    if req == CLOSE_CLEAN_CANASTA:
        return canasta_flag >= 2
    return True


@njit
def hand_ending_nb(x, w):
    """The stock is nearly out, or an opponent able to go out holds very few cards."""
    params = x[X_PARAMS : X_PARAMS + NUM_VARIANT_FEATURES]
    sc = x[X_SC : X_SC + 32]
    if sc[XS_STOCK] <= params[P_STOCK_END] + w[W_ENDGAME_STOCK]:
        return True
    return (
        sc[XS_OPP_MUERTOS] == 0
        and can_close_nb(sc[XS_OPP_CANASTA], params)
        and sc[XS_OPP_MIN_N] <= w[W_THREAT_HAND]
    )


@njit
def going_out_ok_nb(x, rows, w):
    params = x[X_PARAMS : X_PARAMS + NUM_VARIANT_FEATURES]
    sc = x[X_SC : X_SC + 32]
    own, opp = scores_if_out_nb(x, rows)
    total = sc[XS_MATCH_OWN] + own
    if total >= params[P_TARGET] and total > sc[XS_MATCH_OPP] + opp:
        return True  # near the target: going out wins the match
    m = own - opp
    if w[W_GO_OUT_ENDING] > 0 and hand_ending_nb(x, w):
        return True  # they are about to go out, or the stock is: better us than them
    return m >= w[W_GO_OUT_MARGIN]


# ---------------------------------------------------------------- runs that cannot grow
@njit
def run_reach_nb(x, rows, suit, lo, hi, used0, used1, used2, clean):
    """The longest the run lo..hi of ``suit`` could grow with the cards not yet seen
    elsewhere (hand, stock, partners); a clean run may still take one wild."""
    h = x[X_HAND : X_HAND + NUM_CARD_TYPES]
    un = x[X_UNSEEN : X_UNSEEN + NUM_CARD_TYPES]
    pk = x[X_PARTK : X_PARTK + NUM_CARD_TYPES]
    n = hi - lo + 1
    gap_left = 1 if clean else 0
    p = lo - 1
    while p >= 1:
        c = position_card_nb(suit, p)
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
        c = position_card_nb(suit, p)
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


# ---------------------------------------------------------------- greedy
@njit
def greedy_meld_score_nb(x, rows, legal, n, a, cards):
    """Score of a meld action for greedy: the value it lays, runs ahead of groups."""
    params = x[X_PARAMS : X_PARAMS + NUM_VARIANT_FEATURES]
    if a == TAKE_MUERTO_KEEP_WILDS:
        return 10000.0
    k, kind = action_cards_nb(a, cards)
    val = 0
    for i in range(k):
        val += card_value_nb(cards[i], params)
    score = 1000.0 + val
    if kind == 2:
        score += 1.0
    if kind == 1:
        # runs before groups where a card fits both: does a legal run use this rank?
        r = cards[0] % NUM_RANKS
        for j in range(n):
            b = legal[j]
            if b >= OPEN_RUN_BASE and b < OPEN_WILD_GROUP_BASE:
                suit, lo, hi = opening_run_span_nb(b)
                for p in range(lo, hi + 1):
                    if position_card_nb(suit, p) % NUM_RANKS == r:
                        score -= 500.0
                        break
    if kind == 4:
        slot = (a - ADD_BASE) // NUM_CARD_TYPES
        if rows[slot, MF_KIND] == MELD_RUN:
            score += 1.0
    return score


# ---------------------------------------------------------------- discard table
@njit
def group_suit_cost_nb(x, cards, wild):
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
            if 1 <= q <= 14 and h[position_card_nb(s, q)] > 0:
                cost += 0.2
    return cost


@njit
def discard_danger_nb(x, rows, c, w):
    """(cost of giving ``c`` to the opponents, fits their melds, is safe)."""
    params = x[X_PARAMS : X_PARAMS + NUM_VARIANT_FEATURES]
    sc = x[X_SC : X_SC + 32]
    pile = x[X_PILE : X_PILE + NUM_CARD_TYPES]
    un = x[X_UNSEEN : X_UNSEEN + NUM_CARD_TYPES]
    ok = x[X_OPPK : X_OPPK + NUM_CARD_TYPES]
    fits = fit_opp_nb(x, rows, c)
    cost = 0.0
    if fits:
        cost += w[W_DANGER_FIT]
    if is_wild_card_nb(c):
        return cost + 3 * w[W_DANGER_FIT], fits, False
    r = c % NUM_RANKS
    blocked = group_blocked_nb(rows, sc[XS_N_OWN], sc[XS_N_OPP], 1, r, params[P_UNIQUE_TABLE])
    avail = rank_count_nb(un, r) + rank_count_nb(ok, r)
    if not blocked:
        cost += w[W_DANGER_PILE_PAIR] * rank_count_nb(pile, r)
        if rank_count_nb(ok, r) > 0:
            cost += w[W_DANGER_KNOWN]
        cost += w[W_DANGER_OPEN] * avail
    near, _ = run_neighbours_nb(ok, c)
    if near > 0:
        cost += w[W_DANGER_KNOWN]
    safe = (not fits) and (blocked or avail == 0)
    return cost, fits, safe


@njit
def closed_rank_nb(x, rows, r):
    """True if a group of rank ``r`` stands closed (max_meld_size) on the table."""
    params = x[X_PARAMS : X_PARAMS + NUM_VARIANT_FEATURES]
    sc = x[X_SC : X_SC + 32]
    mm = params[P_MAX_MELD]
    if mm <= 0:
        return False
    for t in range(2):
        base = 0 if t == 0 else MAX_MELDS
        for i in range(sc[XS_N_OWN + t]):
            row = rows[base + i]
            if row[MF_KIND] == MELD_GROUP and row[MF_KEY] == r and row[MF_SIZE] >= mm:
                return True
    return False


@njit
def stuck_in_team_nb(x, rows, c):
    """A card the own team cannot use: no meld takes it, its group is barred or hopeless,
    and it has no run neighbours."""
    params = x[X_PARAMS : X_PARAMS + NUM_VARIANT_FEATURES]
    sc = x[X_SC : X_SC + 32]
    h = x[X_HAND : X_HAND + NUM_CARD_TYPES]
    if is_wild_card_nb(c):
        return False
    if fit_own_nb(x, rows, c):
        return False
    r = c % NUM_RANKS
    if rank_count_nb(h, r) >= 2 and not group_blocked_nb(
        rows, sc[XS_N_OWN], sc[XS_N_OPP], 0, r, params[P_UNIQUE_TABLE]
    ):
        return False
    near, far = run_neighbours_nb(h, c)
    return near + far == 0


@njit
def partner_pairs_nb(x, c):
    """The partners are known to hold a card that pairs with ``c`` or neighbours it."""
    pk = x[X_PARTK : X_PARTK + NUM_CARD_TYPES]
    if is_wild_card_nb(c):
        return False
    if rank_count_nb(pk, c % NUM_RANKS) > 0:
        return True
    near, _ = run_neighbours_nb(pk, c)
    return near > 0


@njit
def table_discard_cost_nb(x, rows, c, w):
    """The discard table of seed 000 (RULES.md section 11) as a cost: lower is better."""
    params = x[X_PARAMS : X_PARAMS + NUM_VARIANT_FEATURES]
    sc = x[X_SC : X_SC + 32]
    pile = x[X_PILE : X_PILE + NUM_CARD_TYPES]
    danger, fits, safe = discard_danger_nb(x, rows, c, w)
    keep = float(keep_value_nb(x, rows, c, np.int64(0)))
    cost = keep + danger - w[W_VALUE_DISCARD] * card_value_nb(c, params)
    k1 = sc[XS_NEXT_N]
    pile_empty = sc[XS_PILE_N] == 0
    r = c % NUM_RANKS
    if k1 == 1:
        if fits or is_wild_card_nb(c):
            cost += w[W_SAFE_1]
        if pile_empty:
            if stuck_in_team_nb(x, rows, c):
                cost -= w[W_STUCK]
            if partner_pairs_nb(x, c):
                cost -= w[W_STUCK] / 2
        elif not is_wild_card_nb(c) and rank_count_nb(pile, r) > 0:
            cost += w[W_SAFE_1]  # a pair with the pile opens something for them
    elif k1 == 2:
        if not safe:
            cost += w[W_SAFE_2]
    elif k1 == 3 and pile_empty:
        if not safe:
            cost += w[W_SAFE_3]
    if not is_wild_card_nb(c) and closed_rank_nb(x, rows, r):
        cost -= w[W_CLOSED_RANK]
    return cost


@njit
def table_meld_score_nb(x, rows, legal, n, a, cards, w, go_out_ok):
    """Score of a meld action for discard_table; negative: do not play it now."""
    params = x[X_PARAMS : X_PARAMS + NUM_VARIANT_FEATURES]
    sc = x[X_SC : X_SC + 32]
    h = x[X_HAND : X_HAND + NUM_CARD_TYPES]
    pk = x[X_PARTK : X_PARTK + NUM_CARD_TYPES]
    endgame = hand_ending_nb(x, w)
    # with the muerto to take, a small hand lays everything it can to empty itself
    dumping = sc[XS_OWN_MUERTOS] > 0 and sc[XS_HAND_N] <= w[W_DUMP_HAND]
    loose = endgame or dumping
    if a == TAKE_MUERTO_KEEP_WILDS:
        return 5000.0
    k, kind = action_cards_nb(a, cards)
    left = sc[XS_HAND_N] - k
    if left == 0 and sc[XS_OWN_MUERTOS] > 0:
        return 4000.0  # the muerto, at once
    if left == 0:
        return 4500.0 if go_out_ok else -1.0
    if left == 1 and sc[XS_OWN_MUERTOS] == 0 and not go_out_ok:
        return -1.0  # the last card's discard would go out
    val = 0
    for i in range(k):
        val += card_value_nb(cards[i], params)
    if kind == 4:
        slot = (a - ADD_BASE) // NUM_CARD_TYPES
        c = cards[0]
        row = rows[slot]
        out = rows[R_TMP2]
        add_card_nb(row, c, params[P_MAX_MELD], out)
        natural = not (row[MF_WILD] < 0 and out[MF_WILD] >= 0)
        completes = row[MF_SIZE] < 7 and out[MF_SIZE] >= 7
        if row[MF_KIND] == MELD_WILD_GROUP:
            return 900.0 + val + (300.0 if completes else 0.0)
        if not is_wild_card_nb(c) or natural:
            score = 800.0 + val + (100.0 if completes else 0.0)
            if row[MF_KIND] == MELD_RUN:
                score += 2.0
            return score
        # a wild onto a meld: to complete a canasta, or to get rid of it at the end
        if sc[XS_OWN_WILD_GROUP]:
            return -1.0
        if completes and (sc[XS_OWN_CANASTA] == 0 or loose):
            return 600.0 + val
        if loose or out[MF_SIZE] >= w[W_WILD_ADD_MIN_SIZE]:
            return 300.0 + val + row[MF_SIZE]
        return -1.0
    wild = opening_wild_nb(a)
    score = 500.0 + val
    # feed the partner: openings the partners' known cards can be laid on
    if kind == 1:
        r = cards[0] % NUM_RANKS
        score += w[W_PARTNER_FEED] * rank_count_nb(pk, r)
        score -= group_suit_cost_nb(x, cards, wild)
        if r == RANK_ACE:
            score += 20.0
            if wild >= 0 and w[W_CLEAN_ACES] > 0 and not loose:
                return -1.0  # aces are opened clean
        for j in range(n):
            b = legal[j]
            if b >= OPEN_RUN_BASE and b < OPEN_WILD_GROUP_BASE and opening_wild_nb(b) < 0:
                suit, lo, hi = opening_run_span_nb(b)
                for p in range(lo, hi + 1):
                    cc = position_card_nb(suit, p)
                    if cc % NUM_RANKS == r and rank_count_nb(h, r) - (3 if wild < 0 else 2) < 1:
                        score -= 300.0  # the run goes first: equal cards are limited
                        break
        if wild >= 0:
            # a clean opening of the same rank is better: wait for it
            for j in range(n):
                b = legal[j]
                if b >= OPEN_GROUP_BASE and b < OPEN_RUN_BASE and opening_wild_nb(b) < 0:
                    if GROUP_RANKS_ARR[(b - OPEN_GROUP_BASE) // GROUP_TEMPLATES_PER_RANK] == r:
                        return -1.0
    elif kind == 2:
        suit, lo, hi = opening_run_span_nb(a)
        score += 30.0
        for p in range(lo - 1, hi + 2):
            if 1 <= p <= 14 and p != 2:
                score += w[W_PARTNER_FEED] * pk[position_card_nb(suit, p)]
        reach = run_reach_nb(x, rows, suit, lo, hi, cards[0], cards[1], cards[2], wild < 0)
        if reach < 7 and w[W_DEAD_RUN] > 0 and not loose:
            return -1.0  # a dead run: its missing cards are already on the table
        if wild >= 0:
            if wild != JOKER and wild // NUM_RANKS == suit:
                score += 40.0  # the suited 2 may come home and make the run clean
            # a clean opening of the same run cards would be better: wait
            for j in range(n):
                b = legal[j]
                if b >= OPEN_RUN_BASE and b < OPEN_WILD_GROUP_BASE and opening_wild_nb(b) < 0:
                    s2, lo2, hi2 = opening_run_span_nb(b)
                    if s2 == suit and lo2 <= hi and hi2 >= lo:
                        return -1.0
    else:
        return 1500.0 + val  # a wild group: its canasta is worth 700
    if wild >= 0:
        if sc[XS_OWN_WILD_GROUP]:
            return -1.0
        if not loose and sc[XS_N_OWN] >= w[W_WILD_OPEN_MELDS]:
            return -1.0  # keep wilds for canastas once the team is on the table
        score -= 200.0
        if wild == JOKER:
            score -= 10.0
    return score


@njit
def meld_potential_nb(x, legal, n, cards):
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
        k, kind = action_cards_nb(a, cards)
        for i in range(k):
            c = cards[i]
            if kind == 1 and not is_wild_card_nb(c):
                for s in range(4):
                    used[s * NUM_RANKS + c % NUM_RANKS] = True
            else:
                used[c] = True
    total = sc[XS_PROV]
    for c in range(NUM_CARD_TYPES):
        if used[c]:
            total += h[c] * card_value_nb(c, params)
    return total


# the reference (scripts/tools/build_api_docs.py) documents the weights; the scoring
# functions are the kernels' internals
__all__ = [
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
]
