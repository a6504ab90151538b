"""The rules of a turn (RULES.md sections 4 to 6) for one game of a batch.

OpenSpiel's shape: one error (legality) function and one apply function per kind of
action, a dispatcher for each (:func:`action_error_nb`, :func:`apply_action_nb`), and
:func:`legal_actions_nb` that enumerates candidate actions from the hand and the melds and
keeps those :func:`action_error_nb` accepts, so the mask and the engine cannot disagree.
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
    DRAW_STOCK,
    END_MAX_TURNS,
    END_STOCK,
    END_WENT_OUT,
    ERR_CANNOT_GO_OUT,
    ERR_CARDS_NOT_IN_HAND,
    ERR_CLOSE_WITH_WILD,
    ERR_GAME_OVER,
    ERR_GO_OUT_BY_DISCARD,
    ERR_MIN_FIRST_MELD,
    ERR_NO_MUERTO,
    ERR_NO_SLOT,
    ERR_NO_SUCH_MELD,
    ERR_NOT_ONLY_WILDS,
    ERR_OK,
    ERR_OUT_OF_RANGE,
    ERR_PILE_EMPTY,
    ERR_PILE_TOO_SMALL,
    ERR_POT_EMPTY,
    ERR_RANK_TAKEN,
    ERR_REDISCARD,
    ERR_TURN_UNFINISHABLE,
    ERR_VARIANT_OFF,
    ERR_WILD_DISCARD,
    ERR_WILD_GROUP_OPEN,
    ERR_WRONG_PHASE,
    GROUP_CLEAN_TEMPLATES,
    GROUP_RANKS,
    GROUP_TEMPLATES_PER_RANK,
    HOW_DIRECT,
    HOW_INDIRECT,
    HOW_KEPT_WILDS,
    JOKER,
    MAX_MELDS,
    MAX_MUERTOS,
    MELD_GROUP,
    MELD_RUN,
    MELD_WILD_GROUP,
    MF_GAP,
    MF_HI,
    MF_KEY,
    MF_KIND,
    MF_LO,
    MF_N0,
    MF_NJOKER,
    MF_SIZE,
    MF_WILD,
    MUERTO_PENDING,
    MUERTO_SIZE,
    MUERTO_STOCK,
    MUERTO_TAKEN,
    MUERTO_UNTAKEN,
    NUM_ACTIONS,
    NUM_CARD_TYPES,
    NUM_MELD_FIELDS,
    NUM_RANKS,
    OPEN_GROUP_BASE,
    OPEN_RUN_BASE,
    OPEN_WILD_GROUP_BASE,
    PEEK_KEEP,
    PEEK_REJECT,
    PHASE_DRAW,
    PHASE_OVER,
    PHASE_PEEK,
    PHASE_PLAY,
    RANK_TWO,
    RUN_CLEAN_TEMPLATES,
    RUN_PAIR_TEMPLATES,
    RUN_TEMPLATES_PER_SUIT,
    S_DONE,
    S_END_REASON,
    S_EPISODE_MATCH,
    S_HAND_INDEX,
    S_HAND_JUST_ENDED,
    S_HAND_SCORE0,
    S_HAND_SCORE1,
    S_HANDS_ENDED,
    S_LAST_TURN,
    S_MATCH0,
    S_MIN_EXTRA0,
    S_MUERTOS_LEFT,
    S_NO_DISCARD,
    S_OPENED0,
    S_PEEK_CARD,
    S_PHASE,
    S_PLAYER,
    S_PROV_START,
    S_STEP,
    S_TOTAL_STEPS,
    S_TURN,
    S_WENT_OUT,
    S_WINNER,
    TAKE_MUERTO_KEEP_WILDS,
    TAKE_PILE,
)
from burako_env.core.deal import deal_hand_nb
from burako_env.core.melds import (
    GROUP_TEMPLATES,
    WILD_GROUP_COMBOS,
    add_card_nb,
    build_group_nb,
    build_run_nb,
    build_wild_group_nb,
    card_value_nb,
    copy_row_nb,
    is_wild_card_nb,
    position_card_nb,
    row_is_canasta_nb,
    row_is_clean_nb,
    row_value_nb,
    wild_of_kind_nb,
)
from burako_env.core.params import (
    CLOSE_ANY_CANASTA,
    CLOSE_CLEAN_CANASTA,
    P_CLOSE_DISCARD_NOT_WILD,
    P_CLOSE_REQUIRES,
    P_CLOSE_REQUIRES_DISCARD,
    P_MAX_HANDS,
    P_MAX_MELD,
    P_MAX_TURNS,
    P_MIN_FIRST_MELD,
    P_MIN_FIRST_MELD_HIGH,
    P_MIN_FIRST_MELD_STEP,
    P_MIN_FIRST_MELD_THRESHOLD,
    P_MUERTO_KEEP_WILDS,
    P_MUERTO_POT_SHARED,
    P_MUERTO_REFILLS_STOCK,
    P_MUERTOS,
    P_NO_WILD_DISCARD,
    P_NUM_PLAYERS,
    P_PEEK_NO_REDISCARD,
    P_PILE_MIN_TOTAL,
    P_PILE_NO_REDISCARD,
    P_STOCK_END,
    P_TARGET,
    P_UNIQUE_TABLE,
    P_WILD_GROUP,
)
from burako_env.core.scoring import score_hand_nb
from burako_env.jit import njit

#: this module defines compiled functions (agents/kernel_cache.py reads the mark)
KERNEL_MODULE = True

GROUP_RANKS_ARR = np.array(GROUP_RANKS, dtype=np.int64)

# scratch rows of the state's scratch field
ROW_NEW = 0
#: candidate melds listed at one level of the completable-turn search: at most every
#: opening plus an add of each card type to each slot
MAX_MELD_CANDIDATES = ADD_BASE + MAX_MELDS * NUM_CARD_TYPES
#: after_meld_error_nb's answer when only the completable-turn search can tell (not an ERR_*)
NEEDS_SEARCH = -1


# ------------------------------------------------------------------ small queries
@njit
def hand_size_nb(st, b, p):
    n = 0
    for c in range(NUM_CARD_TYPES):
        n += st.hands[b, p, c]
    return n


@njit
def next_muerto_nb(st, b, t, params):
    """Index of the team's next untaken muerto, or -1."""
    for m in range(params[P_MUERTOS]):
        if st.muerto_status[b, t, m] == MUERTO_UNTAKEN:
            return m
    return -1


@njit
def team_canastas_nb(st, b, t, skip_slot):
    """(any canasta, clean canasta) among the team's melds, leaving out ``skip_slot``."""
    any_c = False
    clean_c = False
    for i in range(st.num_melds[b, t]):
        if i == skip_slot:
            continue
        row = st.melds[b, t, i]
        if row_is_canasta_nb(row):
            any_c = True
            if row_is_clean_nb(row):
                clean_c = True
    return any_c, clean_c


@njit
def close_allowed_nb(any_c, clean_c, params):
    req = params[P_CLOSE_REQUIRES]
    if req == CLOSE_ANY_CANASTA:
        return any_c
    if req == CLOSE_CLEAN_CANASTA:
        return clean_c
    return True


@njit
def wild_group_open_nb(st, b, t, params):
    """True while the team has a wild group on the table that has not closed at 7."""
    if not params[P_WILD_GROUP]:
        return False
    limit = params[P_MAX_MELD] if params[P_MAX_MELD] > 0 else 7
    for i in range(st.num_melds[b, t]):
        row = st.melds[b, t, i]
        if row[MF_KIND] == MELD_WILD_GROUP and row[MF_SIZE] < limit:
            return True
    return False


@njit
def min_first_meld_active_nb(st, b, t, params):
    return params[P_MIN_FIRST_MELD] > 0 and st.scalars[b, S_OPENED0 + t] == 0


@njit
def team_minimum_nb(st, b, t, params):
    base = params[P_MIN_FIRST_MELD]
    if st.scalars[b, S_MATCH0 + t] >= params[P_MIN_FIRST_MELD_THRESHOLD]:
        base = params[P_MIN_FIRST_MELD_HIGH]
    return base + st.scalars[b, S_MIN_EXTRA0 + t]


@njit
def provisional_points_nb(st, b, t, params):
    total = 0
    for i in range(st.scalars[b, S_PROV_START], st.num_melds[b, t]):
        total += row_value_nb(st.melds[b, t, i], params)
    return total


@njit
def reverting_nb(st, b, t, params):
    """True if a discard now would send the provisional melds back (below the minimum)."""
    if not min_first_meld_active_nb(st, b, t, params):
        return False
    if st.num_melds[b, t] <= st.scalars[b, S_PROV_START]:
        return False
    return provisional_points_nb(st, b, t, params) < team_minimum_nb(st, b, t, params)


@njit
def plain_discard_error_nb(st, b, c, params):
    """The discard restrictions that the never-stuck rule may lift."""
    if params[P_NO_WILD_DISCARD] and is_wild_card_nb(c):
        return ERR_WILD_DISCARD
    if c == st.scalars[b, S_NO_DISCARD]:
        return ERR_REDISCARD
    return ERR_OK


@njit
def _unique_rank_error_nb(st, b, t, rank, params):
    for tt in range(2):
        if tt != t and not params[P_UNIQUE_TABLE]:
            continue
        for i in range(st.num_melds[b, tt]):
            row = st.melds[b, tt, i]
            if row[MF_KIND] == MELD_GROUP and row[MF_KEY] == rank:
                return ERR_RANK_TAKEN
    return ERR_OK


# ------------------------------------------------------------------ after a meld
@njit
def pot_closed_nb(st, b, t, params):
    """muerto_pot shared: the pot emptied before team ``t`` took a muerto. The team may
    never empty a hand again (RULES.md 5)."""
    return params[P_MUERTO_POT_SHARED] and st.muerto_status[b, t, 0] == MUERTO_STOCK


@njit
def empty_hand_error_nb(st, b, p, params, value_added, row, slot):
    """May the meld that empties the hand stand: a direct muerto, or going out by melding?

    ``value_added``: the points the meld puts on the table (min_first_meld); ``row``: the
    meld as it would stand; ``slot``: the slot it replaces (-1 for a new meld).
    """
    t = p % 2
    if min_first_meld_active_nb(st, b, t, params):
        if provisional_points_nb(st, b, t, params) + value_added < team_minimum_nb(
            st, b, t, params
        ):
            return ERR_MIN_FIRST_MELD
    if next_muerto_nb(st, b, t, params) >= 0:
        return ERR_OK
    if pot_closed_nb(st, b, t, params):
        return ERR_POT_EMPTY
    if params[P_CLOSE_REQUIRES_DISCARD]:
        return ERR_GO_OUT_BY_DISCARD
    any_c, clean_c = team_canastas_nb(st, b, t, slot)
    if row_is_canasta_nb(row):
        any_c = True
        if row_is_clean_nb(row):
            clean_c = True
    if not close_allowed_nb(any_c, clean_c, params):
        return ERR_CANNOT_GO_OUT
    return ERR_OK


@njit
def _used_value_nb(u0, u1, u2, params):
    total = 0
    for c in (u0, u1, u2):
        if c >= 0:
            total += card_value_nb(c, params)
    return total


@njit
def _used_count_nb(u0, u1, u2, c):
    return int(u0 == c) + int(u1 == c) + int(u2 == c)


@njit
def after_meld_error_nb(st, b, p, params, u0, u1, u2, n_used, row, slot, h):
    """Checks on the hand a meld leaves (RULES.md 5, a turn must be completable).

    ``u0..u2``: the cards the meld takes from the hand (-1 unused); ``row``: the meld as
    it would stand; ``slot``: the slot it replaces (-1 for a new meld); ``h``: the hand
    size before the move. An empty hand must be a legal direct muerto or going out.
    Otherwise the turn must still be finishable: a card that may be discarded without
    emptying the hand settles it at once (the usual case, and this sits in the
    enumeration's inner loop); only a last card, or a hand of cards that may not be
    discarded, needs the search: then it returns NEEDS_SEARCH and the caller runs
    :func:`search_meld_nb` outside the enumeration's loop.
    """
    h_after = h - n_used
    if h_after == 0:
        value = 0
        if params[P_MIN_FIRST_MELD] > 0:
            value = _used_value_nb(u0, u1, u2, params)
        return empty_hand_error_nb(st, b, p, params, value, row, slot)
    if h_after >= 2:
        no_wild = params[P_NO_WILD_DISCARD]
        bar = np.int64(st.scalars[b, S_NO_DISCARD])
        if not no_wild and bar < 0:
            return ERR_OK
        restricted = 0
        if no_wild:
            restricted += st.hands[b, p, JOKER] - _used_count_nb(u0, u1, u2, np.int64(JOKER))
            for s in range(4):
                two = s * NUM_RANKS + RANK_TWO
                restricted += st.hands[b, p, two] - _used_count_nb(u0, u1, u2, two)
        if bar >= 0 and not (no_wild and is_wild_card_nb(bar)):
            restricted += st.hands[b, p, bar] - _used_count_nb(u0, u1, u2, bar)
        if h_after > restricted:
            return ERR_OK
    return NEEDS_SEARCH


@njit
def _push_meld_nb(st, b, t, p, u0, u1, u2, row, slot, saved):
    """Lay a meld in place for the search (``saved`` keeps the row it overwrites)."""
    target = slot if slot >= 0 else st.num_melds[b, t]
    copy_row_nb(st.melds[b, t, target], saved)
    copy_row_nb(row, st.melds[b, t, target])
    if slot < 0:
        st.num_melds[b, t] += 1
    for c in (u0, u1, u2):
        if c >= 0:
            st.hands[b, p, c] -= 1


@njit
def _pop_meld_nb(st, b, t, p, u0, u1, u2, slot, saved):
    """Undo :func:`_push_meld_nb` exactly."""
    if slot < 0:
        st.num_melds[b, t] -= 1
        target = st.num_melds[b, t]
    else:
        target = slot
    copy_row_nb(saved, st.melds[b, t, target])
    for c in (u0, u1, u2):
        if c >= 0:
            st.hands[b, p, c] += 1


@njit
def _meld_basic_nb(st, b, a, params):
    """The basic check of open / add ``a`` (:func:`open_basic_error_nb`,
    :func:`add_basic_error_nb`; the new row in scratch row ROW_NEW), returning (error, used
    card 0, 1, 2). One compiled copy for the rare search paths (:func:`search_meld_nb`,
    :func:`_finishable_nb`): each place a check is inlined compiles it once more."""
    if a >= ADD_BASE:
        err = add_basic_error_nb(st, b, a, params)
        return err, np.int64((a - ADD_BASE) % NUM_CARD_TYPES), np.int64(-1), np.int64(-1)
    err, u0, u1, u2 = open_basic_error_nb(st, b, a, params)
    return err, np.int64(u0), np.int64(u1), np.int64(u2)


@njit
def search_meld_nb(st, b, a, params):
    """The completable-turn verdict on meld ``a``, whose other checks passed: ERR_OK if,
    after it, the turn can still be finished; else ERR_TURN_UNFINISHABLE.

    The meld is laid in place, :func:`_finishable_nb` searches, and everything is put back
    as it was, the scratch row (the meld under test, which callers then lay) included.
    """
    p = st.scalars[b, S_PLAYER]
    t = p % 2
    _, u0, u1, u2 = _meld_basic_nb(st, b, a, params)
    slot = (a - ADD_BASE) // NUM_CARD_TYPES if a >= ADD_BASE else -1
    # [::1]: layout 'A' like the state's rows, so the row functions compile once
    trial = np.empty(NUM_MELD_FIELDS, np.int8)[::1]
    saved = np.empty(NUM_MELD_FIELDS, np.int8)[::1]
    copy_row_nb(st.scratch[b, ROW_NEW], trial)
    _push_meld_nb(st, b, t, p, u0, u1, u2, trial, slot, saved)
    ok = _finishable_nb(st, b, params)
    _pop_meld_nb(st, b, t, p, u0, u1, u2, slot, saved)
    copy_row_nb(trial, st.scratch[b, ROW_NEW])
    return ERR_OK if ok else ERR_TURN_UNFINISHABLE


@njit
def _is_open_wild_group_nb(st, b, t, slot, params):
    row = st.melds[b, t, slot]
    limit = params[P_MAX_MELD] if params[P_MAX_MELD] > 0 else 7
    return row[MF_KIND] == MELD_WILD_GROUP and row[MF_SIZE] < limit


@njit
def _settles_nb(st, b, params, buf):
    """The turn ends from here without another meld: a legal discard (its restrictions not
    lifted), or taking the muerto keeping wilds. ``buf`` is scratch for the discards.

    The discards are listed by the enumeration's own (compiled, not inlined) function: the
    search is a rare path, and a call costs far less compile than another inlined copy of
    the discard check."""
    if _enumerate_discards_nb(st, b, params, buf, np.int64(0), np.bool_(False)) > 0:
        return True
    return params[P_MUERTO_KEEP_WILDS] and muerto_keep_error_nb(st, b, params) == ERR_OK


@njit
def _finishable_nb(st, b, params):
    """Can the player to act finish the turn from here (RULES.md 5)?

    Yes if the position settles (:func:`_settles_nb`), or some meld empties the hand legally
    (a direct muerto, going out by melding), or some meld leads to a position that can be
    finished. A direct muerto ends the search: the player goes on with a new hand (and
    never-stuck guards it). A depth-first search over melds laid in place and taken back,
    with an explicit stack (numba cannot load a recursive function from its cache).

    Melds on different slots commute (what each accepts depends only on its own cards,
    and on whether the team's wild group is open), so the search lays them in canonical
    order: adds by non-decreasing slot, an opening counting as the next slot, adds to an
    open wild group (which bars wilds elsewhere until it closes) at any time. The search
    runs only on the rare hands that no plain discard settles: a last card, or cards none
    of which may be discarded, so it looks only as far ahead as those cards need.
    """
    p = st.scalars[b, S_PLAYER]
    t = p % 2
    depth = hand_size_nb(st, b, p) + 1  # every level lays at least one card
    # [::1]: layout 'A' like the state's arrays, so their functions compile once
    cand = np.empty((depth, MAX_MELD_CANDIDATES), np.int16)[:, ::1]
    cand_end = np.zeros(depth, np.int64)
    cand_next = np.zeros(depth, np.int64)
    min_slot = np.zeros(depth, np.int64)
    laid = np.zeros((depth, 4), np.int64)  # per level: the cards used and the slot
    saved = np.empty((depth, NUM_MELD_FIELDS), np.int8)[:, ::1]
    trial = np.empty(NUM_MELD_FIELDS, np.int8)[::1]
    discards = np.empty(NUM_CARD_TYPES, np.int16)[::1]
    level = 0
    entering = True  # a level is entered once: does its position settle, which melds next
    found = False
    while level >= 0 and not found:
        if entering:
            # one place for the settle check (the start, and after every meld laid): an
            # inlined check compiles once per place it is written
            entering = False
            if _settles_nb(st, b, params, discards):
                found = True
                continue
            cand_end[level] = _meld_candidates_nb(st, b, params, cand[level], np.int64(0))
            cand_next[level] = 0
            continue
        if cand_next[level] >= cand_end[level]:
            level -= 1  # every meld of this level tried: take back the one below
            if level >= 0:
                lv = laid[level]
                _pop_meld_nb(st, b, t, p, lv[0], lv[1], lv[2], lv[3], saved[level])
            continue
        a = np.int64(cand[level, cand_next[level]])  # one signature for the callees
        cand_next[level] += 1
        if a >= ADD_BASE:
            slot = (a - ADD_BASE) // NUM_CARD_TYPES
            exempt = _is_open_wild_group_nb(st, b, t, slot, params)
            if slot < min_slot[level] and not exempt:
                continue
            n_used = 1
            next_min = min_slot[level] if exempt else slot
        else:
            slot = -1
            n_used = 3
            next_min = st.num_melds[b, t]
        err, u0, u1, u2 = _meld_basic_nb(st, b, a, params)
        if err != ERR_OK:
            continue
        copy_row_nb(st.scratch[b, ROW_NEW], trial)
        if hand_size_nb(st, b, p) == n_used:
            value = _used_value_nb(u0, u1, u2, params) if params[P_MIN_FIRST_MELD] > 0 else 0
            found = empty_hand_error_nb(st, b, p, params, value, trial, slot) == ERR_OK
            continue
        lv = laid[level]
        lv[0] = u0
        lv[1] = u1
        lv[2] = u2
        lv[3] = slot
        _push_meld_nb(st, b, t, p, u0, u1, u2, trial, slot, saved[level])
        level += 1  # entered at the loop's top (and unwound below like any other level)
        min_slot[level] = next_min
        entering = True
    # take back every meld still laid
    for k in range(level - 1, -1, -1):
        lv = laid[k]
        _pop_meld_nb(st, b, t, p, lv[0], lv[1], lv[2], lv[3], saved[k])
    return found


# ------------------------------------------------------------------ openings
@njit
def open_basic_error_nb(st, b, a, params):
    """Legality of an opening without the checks on the hand it leaves; on success the
    new meld is in scratch row ROW_NEW. Returns (error, used card 0, 1, 2).
    """
    p = st.scalars[b, S_PLAYER]
    t = p % 2
    row = st.scratch[b, ROW_NEW]
    if st.num_melds[b, t] >= MAX_MELDS:
        return ERR_NO_SLOT, -1, -1, -1
    u0 = -1
    u1 = -1
    u2 = -1
    wild = -1
    if a < OPEN_RUN_BASE:
        idx = a - OPEN_GROUP_BASE
        rank = GROUP_RANKS_ARR[idx // GROUP_TEMPLATES_PER_RANK]
        tpl = GROUP_TEMPLATES[idx % GROUP_TEMPLATES_PER_RANK]
        for s in range(4):
            for _ in range(tpl[s]):
                c = s * NUM_RANKS + rank
                if u0 < 0:
                    u0 = c
                elif u1 < 0:
                    u1 = c
                else:
                    u2 = c
        if tpl[4] > 0:
            wild = wild_of_kind_nb(tpl[4])
            u2 = wild
        err = _unique_rank_error_nb(st, b, t, rank, params)
        if err != ERR_OK:
            return err, -1, -1, -1
        build_group_nb(row, rank, tpl, wild)
    elif a < OPEN_WILD_GROUP_BASE:
        idx = a - OPEN_RUN_BASE
        suit = idx // RUN_TEMPLATES_PER_SUIT
        tpl_i = idx % RUN_TEMPLATES_PER_SUIT
        if tpl_i < RUN_CLEAN_TEMPLATES:
            start = tpl_i + 1
            u0 = position_card_nb(suit, start)
            u1 = position_card_nb(suit, start + 1)
            u2 = position_card_nb(suit, start + 2)
            build_run_nb(row, suit, start, start + 2, np.int64(0), np.int64(-1))
        elif tpl_i < RUN_CLEAN_TEMPLATES + RUN_PAIR_TEMPLATES:
            k = tpl_i - RUN_CLEAN_TEMPLATES
            start = k // 5 + 1
            wild = wild_of_kind_nb(k % 5 + 1)
            u0 = position_card_nb(suit, start)
            u1 = position_card_nb(suit, start + 1)
            u2 = wild
            build_run_nb(row, suit, start, start + 1, np.int64(0), wild)
        else:
            k = tpl_i - RUN_CLEAN_TEMPLATES - RUN_PAIR_TEMPLATES
            start = k // 5 + 1
            wild = wild_of_kind_nb(k % 5 + 1)
            u0 = position_card_nb(suit, start)
            u1 = position_card_nb(suit, start + 2)
            u2 = wild
            build_run_nb(row, suit, start, start + 2, start + 1, wild)
    else:
        if not params[P_WILD_GROUP]:
            return ERR_VARIANT_OFF, -1, -1, -1
        combo = WILD_GROUP_COMBOS[a - OPEN_WILD_GROUP_BASE]
        u0 = wild_of_kind_nb(combo[0])
        u1 = wild_of_kind_nb(combo[1])
        u2 = wild_of_kind_nb(combo[2])
        build_wild_group_nb(row, u0, u1, u2)
    # the three cards must be in hand, with multiplicity
    for c in (u0, u1, u2):
        if st.hands[b, p, c] < _used_count_nb(u0, u1, u2, c):
            return ERR_CARDS_NOT_IN_HAND, -1, -1, -1
    has_wild = row[MF_KIND] == MELD_WILD_GROUP or row[MF_WILD] >= 0
    if has_wild and wild_group_open_nb(st, b, t, params):
        return ERR_WILD_GROUP_OPEN, -1, -1, -1
    return ERR_OK, u0, u1, u2


# ------------------------------------------------------------------ adding a card
@njit
def add_basic_error_nb(st, b, a, params):
    """Legality of adding a card without the checks on the hand it leaves; on success
    the new row is in scratch row ROW_NEW."""
    p = st.scalars[b, S_PLAYER]
    t = p % 2
    idx = a - ADD_BASE
    slot = idx // NUM_CARD_TYPES
    c = idx % NUM_CARD_TYPES
    if slot >= st.num_melds[b, t]:
        return ERR_NO_SUCH_MELD
    if st.hands[b, p, c] < 1:
        return ERR_CARDS_NOT_IN_HAND
    row = st.melds[b, t, slot]
    out = st.scratch[b, ROW_NEW]
    err = add_card_nb(row, c, params[P_MAX_MELD], out)
    if err != ERR_OK:
        return err
    added_wild = row[MF_KIND] != MELD_WILD_GROUP and row[MF_WILD] < 0 and out[MF_WILD] >= 0
    if added_wild and wild_group_open_nb(st, b, t, params):
        return ERR_WILD_GROUP_OPEN
    return ERR_OK


# ------------------------------------------------------------------ discards
@njit
def discard_error_nb(st, b, c, params, lifted, h, revert):
    """Legality of discarding ``c``; ``lifted`` drops the restrictions never-stuck lifts.

    ``h``: the hand size; ``revert``: whether the discard sends provisional melds back.
    """
    p = st.scalars[b, S_PLAYER]
    t = p % 2
    held = st.hands[b, p, c]
    if revert:
        for i in range(st.scalars[b, S_PROV_START], st.num_melds[b, t]):
            held += _row_count_nb(st.melds[b, t, i], c)
            h += st.melds[b, t, i, MF_SIZE]
    if held < 1:
        return ERR_CARDS_NOT_IN_HAND
    if not lifted:
        err = plain_discard_error_nb(st, b, c, params)
        if err != ERR_OK:
            return err
    if h == 1 and next_muerto_nb(st, b, t, params) < 0:
        if pot_closed_nb(st, b, t, params):
            return ERR_POT_EMPTY
        any_c, clean_c = team_canastas_nb(st, b, t, np.int64(-1))
        if not close_allowed_nb(any_c, clean_c, params):
            return ERR_CANNOT_GO_OUT
        if params[P_CLOSE_DISCARD_NOT_WILD] and is_wild_card_nb(c):
            return ERR_CLOSE_WITH_WILD
    return ERR_OK


@njit
def _row_count_nb(row, c):
    """How many cards of type ``c`` the meld holds."""
    n = 0
    kind = row[MF_KIND]
    if kind != MELD_WILD_GROUP and row[MF_WILD] == c:
        n += 1
    if kind == MELD_GROUP:
        if c != JOKER and c % NUM_RANKS == row[MF_KEY]:
            n += row[MF_N0 + c // NUM_RANKS]
    elif kind == MELD_RUN:
        if c != JOKER and c // NUM_RANKS == row[MF_KEY]:
            for pos in range(row[MF_LO], row[MF_HI] + 1):
                if pos != row[MF_GAP] and position_card_nb(np.int64(row[MF_KEY]), pos) == c:
                    n += 1
    elif kind == MELD_WILD_GROUP:
        if c == JOKER:
            n += row[MF_NJOKER]
        elif c % NUM_RANKS == RANK_TWO:
            n += row[MF_N0 + c // NUM_RANKS]
    return n


@njit
def muerto_keep_error_nb(st, b, params):
    """Legality of keeping the muerto's wilds (a rare action: compiled once and called,
    where an inlined copy compiled it again in each of three places)."""
    if not params[P_MUERTO_KEEP_WILDS]:
        return ERR_VARIANT_OFF
    p = st.scalars[b, S_PLAYER]
    t = p % 2
    if next_muerto_nb(st, b, t, params) < 0:
        return ERR_NO_MUERTO
    h = 0
    for c in range(NUM_CARD_TYPES):
        if st.hands[b, p, c] > 0:
            if not is_wild_card_nb(c):
                return ERR_NOT_ONLY_WILDS
            h += st.hands[b, p, c]
    if h < 1 or h > 2:
        return ERR_NOT_ONLY_WILDS
    if min_first_meld_active_nb(st, b, t, params):
        if provisional_points_nb(st, b, t, params) < team_minimum_nb(st, b, t, params):
            return ERR_MIN_FIRST_MELD
    return ERR_OK


# ------------------------------------------------------------------ dispatcher: legality
@njit
def take_pile_error_nb(st, b, params):
    """Legality of taking the pile in the draw phase: its own function, so that the
    enumeration asks it without compiling all of :func:`action_error_nb` into every kernel
    that lists legal actions (docs/BENCHMARKS.md, "Compile time")."""
    if st.pile_len[b] == 0:
        return ERR_PILE_EMPTY
    if st.pile_len[b] + hand_size_nb(st, b, st.scalars[b, S_PLAYER]) < params[P_PILE_MIN_TOTAL]:
        return ERR_PILE_TOO_SMALL
    return ERR_OK


@njit
def play_action_error_nb(st, b, a, params, h):
    """Legality of a meld-phase action other than a discard (``h``: the hand size).

    The basic check of an opening or an add, then the checks on the hand it leaves
    (:func:`after_meld_error_nb`), written once for both: this is inlined into the
    enumeration, and an inlined check compiles once per place it is written."""
    if a == TAKE_MUERTO_KEEP_WILDS:
        return muerto_keep_error_nb(st, b, params)
    if a < ADD_BASE:
        err, u0, u1, u2 = open_basic_error_nb(st, b, a, params)
        n_used = 3
        slot = -1
    else:
        err = add_basic_error_nb(st, b, a, params)
        u0 = (a - ADD_BASE) % NUM_CARD_TYPES
        u1 = -1
        u2 = -1
        n_used = 1
        slot = (a - ADD_BASE) // NUM_CARD_TYPES
    if err != ERR_OK:
        return err
    p = st.scalars[b, S_PLAYER]
    return after_meld_error_nb(
        st, b, p, params, u0, u1, u2, n_used, st.scratch[b, ROW_NEW], slot, h
    )


@njit
def action_error_nb(st, b, a, params):
    """ERR_OK if action ``a`` is legal in game ``b``, else the reason (an ERR_* code)."""
    if a < 0 or a >= NUM_ACTIONS:
        return ERR_OUT_OF_RANGE
    phase = st.scalars[b, S_PHASE]
    if phase == PHASE_OVER:
        return ERR_GAME_OVER
    if a == PEEK_KEEP or a == PEEK_REJECT:
        return ERR_OK if phase == PHASE_PEEK else ERR_WRONG_PHASE
    if a == DRAW_STOCK or a == TAKE_PILE:
        if phase != PHASE_DRAW:
            return ERR_WRONG_PHASE
        return take_pile_error_nb(st, b, params) if a == TAKE_PILE else ERR_OK
    if phase != PHASE_PLAY:
        return ERR_WRONG_PHASE
    h = hand_size_nb(st, b, st.scalars[b, S_PLAYER])
    if a >= DISCARD_BASE:
        c = a - DISCARD_BASE
        revert = reverting_nb(st, b, st.scalars[b, S_PLAYER] % 2, params)
        err = discard_error_nb(st, b, c, params, False, h, revert)
        if (err == ERR_WILD_DISCARD or err == ERR_REDISCARD) and is_stuck_nb(st, b, params):
            return discard_error_nb(st, b, c, params, True, h, revert)
        return err
    err = play_action_error_nb(st, b, a, params, h)
    if err == NEEDS_SEARCH:
        return search_meld_nb(st, b, a, params)
    return err


# ------------------------------------------------------------------ enumeration
@njit
def _meld_candidates_nb(st, b, params, out, n):
    """Append every open / add id whose cards are in hand and could fit (no full check)."""
    p = st.scalars[b, S_PLAYER]
    t = p % 2
    hand = st.hands[b, p]
    n_wilds = hand[JOKER]
    for s in range(4):
        n_wilds += hand[s * NUM_RANKS + RANK_TWO]
    if st.num_melds[b, t] < MAX_MELDS:
        for ri in range(GROUP_RANKS_ARR.shape[0]):
            r = GROUP_RANKS_ARR[ri]
            n0 = hand[r]
            n1 = hand[NUM_RANKS + r]
            n2 = hand[2 * NUM_RANKS + r]
            n3 = hand[3 * NUM_RANKS + r]
            if n0 + n1 + n2 + n3 < 2:
                continue
            base = OPEN_GROUP_BASE + ri * GROUP_TEMPLATES_PER_RANK
            # only the templates the suits held allow: clean ones need 3 naturals, the
            # pair + wild ones a wild (this loop runs at every meld-phase enumeration)
            if n0 + n1 + n2 + n3 >= 3:
                for k in range(GROUP_CLEAN_TEMPLATES):
                    tpl = GROUP_TEMPLATES[k]
                    if tpl[0] <= n0 and tpl[1] <= n1 and tpl[2] <= n2 and tpl[3] <= n3:
                        out[n] = base + k
                        n += 1
            if n_wilds == 0:
                continue
            for k in range(GROUP_CLEAN_TEMPLATES, GROUP_TEMPLATES_PER_RANK, 5):
                tpl = GROUP_TEMPLATES[k]
                if tpl[0] > n0 or tpl[1] > n1 or tpl[2] > n2 or tpl[3] > n3:
                    continue
                for kind in range(1, 6):
                    if hand[wild_of_kind_nb(kind)] > 0:
                        out[n] = base + k + kind - 1
                        n += 1
        for s in range(4):
            base = OPEN_RUN_BASE + s * RUN_TEMPLATES_PER_SUIT
            have = 0  # bit ``pos`` set when the natural of that run position is held
            for pos in range(1, 15):
                if hand[position_card_nb(s, pos)] > 0:
                    have |= 1 << pos
            for start in range(1, 13):
                if (have >> start) & 7 == 7:
                    out[n] = base + start - 1
                    n += 1
            if n_wilds == 0:
                continue
            for kind in range(1, 6):
                if hand[wild_of_kind_nb(kind)] == 0:
                    continue
                for start in range(1, 14):
                    if (have >> start) & 3 == 3:
                        out[n] = base + RUN_CLEAN_TEMPLATES + (start - 1) * 5 + kind - 1
                        n += 1
                gap_base = base + RUN_CLEAN_TEMPLATES + RUN_PAIR_TEMPLATES + kind - 1
                for start in range(1, 13):
                    if (have >> start) & 5 == 5:
                        out[n] = gap_base + (start - 1) * 5
                        n += 1
        if params[P_WILD_GROUP] and n_wilds >= 3:
            for i in range(WILD_GROUP_COMBOS.shape[0]):
                out[n] = OPEN_WILD_GROUP_BASE + i
                n += 1
    # adds: only cards that can fit (the meld's rank / suit, or a wild)
    for slot in range(st.num_melds[b, t]):
        kind = st.melds[b, t, slot, MF_KIND]
        key = st.melds[b, t, slot, MF_KEY]
        for c in range(NUM_CARD_TYPES):
            if hand[c] == 0:
                continue
            wild = c == JOKER or c % NUM_RANKS == RANK_TWO
            if kind == MELD_WILD_GROUP:
                fits = wild
            elif kind == MELD_GROUP:
                fits = wild or c % NUM_RANKS == key
            else:
                fits = wild or c // NUM_RANKS == key
            if fits:
                out[n] = ADD_BASE + slot * NUM_CARD_TYPES + c
                n += 1
    return n


# Callers of the large functions (the enumeration, search_meld_nb, action_error_nb, end_hand_nb,
# deal_hand_nb, _take_muerto_nb) pass their constant arguments as np.int64 /
# np.bool_: numba compiles a function once per literal value it is called with, so a
# literal 0 or True compiled these bodies again (docs/BENCHMARKS.md, "Compile time").
@njit
def _enumerate_melds_nb(st, b, params, out, n, stop_at_first):
    """Append the legal open / add / keep-wilds actions to ``out``; returns the new count.

    Candidates are listed first and then checked in one loop.
    """
    h = hand_size_nb(st, b, st.scalars[b, S_PLAYER])
    start = n
    end = _meld_candidates_nb(st, b, params, out, n)
    searched = False
    for i in range(start, end):
        a = np.int64(out[i])
        err = play_action_error_nb(st, b, a, params, h)
        if err == ERR_OK:
            out[n] = a
            n += 1
            if stop_at_first:
                return n
        elif err == NEEDS_SEARCH:
            out[n] = -1 - a  # kept in order, settled by the search below
            n += 1
            searched = True
    if searched:
        k = start
        for i in range(start, n):
            a = out[i]
            if a < 0:
                a = -1 - a
                if search_meld_nb(st, b, a, params) != ERR_OK:
                    continue
            out[k] = a
            k += 1
            if stop_at_first:
                return k
        n = k
    if params[P_MUERTO_KEEP_WILDS] and muerto_keep_error_nb(st, b, params) == ERR_OK:
        out[n] = TAKE_MUERTO_KEEP_WILDS
        n += 1
    return n


@njit
def _enumerate_discards_nb(st, b, params, out, n, lifted):
    p = st.scalars[b, S_PLAYER]
    t = p % 2
    revert = reverting_nb(st, b, t, params)
    h = hand_size_nb(st, b, p)
    for c in range(NUM_CARD_TYPES):
        if st.hands[b, p, c] == 0 and not revert:
            continue
        if discard_error_nb(st, b, c, params, lifted, h, revert) == ERR_OK:
            out[n] = DISCARD_BASE + c
            n += 1
    return n


@njit
def is_stuck_nb(st, b, params):
    """True when no meld and no discard is legal: never-stuck then lifts the restrictions."""
    # a rare path: only for a restricted discard; [::1]: layout 'A' like st.legal[b]
    buf = np.empty(NUM_ACTIONS, np.int16)[::1]
    n = _enumerate_melds_nb(st, b, params, buf, np.int64(0), np.bool_(True))
    if n == 0:
        n = _enumerate_discards_nb(st, b, params, buf, np.int64(0), np.bool_(False))
    return n == 0


@njit
def legal_actions_nb(st, b, params, out):
    """Write the legal action ids of game ``b`` into ``out``; returns how many."""
    phase = st.scalars[b, S_PHASE]
    n = 0
    if phase == PHASE_OVER:
        return 0
    if phase == PHASE_PEEK:
        out[0] = PEEK_KEEP
        out[1] = PEEK_REJECT
        return 2
    if phase == PHASE_DRAW:
        out[n] = DRAW_STOCK
        n += 1
        if take_pile_error_nb(st, b, params) == ERR_OK:
            out[n] = TAKE_PILE
            n += 1
        return n
    n = _enumerate_melds_nb(st, b, params, out, np.int64(0), np.bool_(False))
    n_before = n
    n = _enumerate_discards_nb(st, b, params, out, n, np.bool_(False))
    if n == 0 and n_before == 0:
        n = _enumerate_discards_nb(st, b, params, out, np.int64(0), np.bool_(True))
    return n


# ------------------------------------------------------------------ applying actions
@njit
def _forget_played_nb(st, b, p, c):
    """A card leaves the hand: nobody can tell which copy went, so one known copy of its
    type is forgotten (capping at the count held would show a hidden copy)."""
    if st.known[b, p, c] > 0:
        st.known[b, p, c] -= 1


@njit
def _pot_packet_nb(st, b, t):
    """muerto_pot shared: where the pot's next packet lies for team ``t`` to take.

    The two packets of the pot start at muertos[b, 0, 0] and muertos[b, 1, 0]; a team's
    own index holds the packet it took. When one packet is left and neither team has
    taken one, it lies at index 0 (the stock takes index 1 first); otherwise at the
    index of the team that has not taken one.
    """
    if st.scalars[b, S_MUERTOS_LEFT] == 2:
        return t
    both_untaken = (
        st.muerto_status[b, 0, 0] == MUERTO_UNTAKEN and st.muerto_status[b, 1, 0] == MUERTO_UNTAKEN
    )
    if both_untaken:
        return 0
    return 0 if st.muerto_status[b, 0, 0] == MUERTO_UNTAKEN else 1


@njit
def _packet_left_nb(st, b, params):
    """One muerto packet fewer in play; an emptied shared pot closes the teams without one."""
    st.scalars[b, S_MUERTOS_LEFT] -= 1
    if params[P_MUERTO_POT_SHARED] and st.scalars[b, S_MUERTOS_LEFT] == 0:
        for t in range(2):
            if st.muerto_status[b, t, 0] == MUERTO_UNTAKEN:
                st.muerto_status[b, t, 0] = MUERTO_STOCK


@njit
def _take_muerto_nb(st, b, p, params, how):
    t = p % 2
    m = next_muerto_nb(st, b, t, params)
    if params[P_MUERTO_POT_SHARED]:
        k = _pot_packet_nb(st, b, t)
        if k != t:
            for i in range(MUERTO_SIZE):
                st.muertos[b, t, 0, i] = st.muertos[b, k, 0, i]
    st.muerto_status[b, t, m] = MUERTO_PENDING if how == HOW_INDIRECT else MUERTO_TAKEN
    st.muerto_how[b, t, m] = how
    st.muerto_taker[b, t, m] = p
    for i in range(MUERTO_SIZE):
        st.hands[b, p, st.muertos[b, t, m, i]] += 1
    _packet_left_nb(st, b, params)


@njit
def _after_draw_from_stock_nb(st, b, params):
    if st.stock_len[b] == 0 and params[P_MUERTO_REFILLS_STOCK]:
        if params[P_MUERTO_POT_SHARED]:
            if st.scalars[b, S_MUERTOS_LEFT] > 0:
                # the pot's next packet becomes the stock and belongs to no team
                k = 1 if st.scalars[b, S_MUERTOS_LEFT] == 2 else _pot_packet_nb(st, b, np.int64(0))
                for i in range(MUERTO_SIZE):
                    st.stock[b, i] = st.muertos[b, k, 0, i]
                st.stock_len[b] = MUERTO_SIZE
                _packet_left_nb(st, b, params)
        else:
            for t in range(2):
                m = next_muerto_nb(st, b, t, params)
                if m >= 0:
                    for i in range(MUERTO_SIZE):
                        st.stock[b, i] = st.muertos[b, t, m, i]
                    st.stock_len[b] = MUERTO_SIZE
                    st.muerto_status[b, t, m] = MUERTO_STOCK
                    _packet_left_nb(st, b, params)
                    break
    if st.stock_len[b] <= params[P_STOCK_END]:
        st.scalars[b, S_LAST_TURN] = 1


@njit
def _draw_top_nb(st, b, p):
    st.stock_len[b] -= 1
    c = st.stock[b, st.stock_len[b]]
    st.hands[b, p, c] += 1
    return c


@njit
def begin_turn_nb(st, b, p, params):
    s = st.scalars[b]
    s[S_PLAYER] = p
    s[S_PHASE] = PHASE_DRAW
    s[S_NO_DISCARD] = -1
    s[S_PROV_START] = st.num_melds[b, p % 2]
    t = p % 2
    for m in range(MAX_MUERTOS):
        if st.muerto_status[b, t, m] == MUERTO_PENDING and st.muerto_taker[b, t, m] == p:
            st.muerto_status[b, t, m] = MUERTO_TAKEN


@njit
def end_hand_nb(st, b, params, reason, went_out):
    s = st.scalars[b]
    s[S_END_REASON] = reason
    s[S_WENT_OUT] = went_out
    t0, t1 = score_hand_nb(st, b, params, went_out)
    s[S_HAND_SCORE0] = t0
    s[S_HAND_SCORE1] = t1
    s[S_MATCH0] += t0
    s[S_MATCH0 + 1] += t1
    s[S_HANDS_ENDED] += 1
    s[S_HAND_JUST_ENDED] = 1
    if s[S_EPISODE_MATCH]:
        m0 = s[S_MATCH0]
        m1 = s[S_MATCH0 + 1]
        reached = (m0 >= params[P_TARGET] or m1 >= params[P_TARGET]) and m0 != m1
        if reached or s[S_HANDS_ENDED] >= params[P_MAX_HANDS]:
            # max_hands bounds matches that drift away from the target (colombian random
            # play scores negative hand after hand); the higher total wins, -1 on a tie
            s[S_WINNER] = -1 if m0 == m1 else (0 if m0 > m1 else 1)
            s[S_DONE] = 1
            s[S_PHASE] = PHASE_OVER
        else:
            deal_hand_nb(st, b, params, s[S_HAND_INDEX] + 1)
            begin_turn_nb(st, b, np.int64(s[S_PLAYER]), params)
            if st.scalars[b, S_PEEK_CARD] >= 0:
                s[S_PHASE] = PHASE_PEEK
    else:
        s[S_WINNER] = -1 if t0 == t1 else (0 if t0 > t1 else 1)
        s[S_DONE] = 1
        s[S_PHASE] = PHASE_OVER


@njit
def _after_meld_nb(st, b, p, params):
    """The hand a meld leaves: empty means a direct muerto or going out."""
    if hand_size_nb(st, b, p) > 0:
        return
    t = p % 2
    if next_muerto_nb(st, b, t, params) >= 0:
        _take_muerto_nb(st, b, p, params, np.int64(HOW_DIRECT))
    else:
        end_hand_nb(st, b, params, np.int64(END_WENT_OUT), t)


@njit
def _discard_nb(st, b, c, params):
    s = st.scalars[b]
    p = s[S_PLAYER]
    t = p % 2
    if reverting_nb(st, b, t, params):
        for i in range(s[S_PROV_START], st.num_melds[b, t]):
            row = st.melds[b, t, i]
            for cc in range(NUM_CARD_TYPES):
                k = _row_count_nb(row, cc)
                if k > 0:
                    st.hands[b, p, cc] += k
                    st.known[b, p, cc] += k
        st.num_melds[b, t] = s[S_PROV_START]
        s[S_MIN_EXTRA0 + t] += params[P_MIN_FIRST_MELD_STEP]
    elif st.num_melds[b, t] > 0:
        s[S_OPENED0 + t] = 1
    st.hands[b, p, c] -= 1
    _forget_played_nb(st, b, p, c)
    st.pile[b, st.pile_len[b]] = c
    st.pile_len[b] += 1
    s[S_TURN] += 1
    if hand_size_nb(st, b, p) == 0:
        if next_muerto_nb(st, b, t, params) >= 0:
            _take_muerto_nb(st, b, p, params, np.int64(HOW_INDIRECT))
        else:
            end_hand_nb(st, b, params, np.int64(END_WENT_OUT), t)
            return
    if s[S_LAST_TURN]:
        end_hand_nb(st, b, params, np.int64(END_STOCK), np.int64(-1))
    elif s[S_TURN] >= params[P_MAX_TURNS]:
        end_hand_nb(st, b, params, np.int64(END_MAX_TURNS), np.int64(-1))
    else:
        begin_turn_nb(st, b, (p + 1) % params[P_NUM_PLAYERS], params)


@njit
def apply_action_nb(st, b, a, params):
    """Apply a legal action (check it with :func:`action_error_nb` first)."""
    s = st.scalars[b]
    p = s[S_PLAYER]
    t = p % 2
    s[S_STEP] += 1
    s[S_TOTAL_STEPS] += 1
    s[S_HAND_JUST_ENDED] = 0
    if a == DRAW_STOCK:
        _draw_top_nb(st, b, p)
        _after_draw_from_stock_nb(st, b, params)
        s[S_PHASE] = PHASE_PLAY
    elif a == TAKE_PILE:
        single = st.pile_len[b] == 1
        first = st.pile[b, 0]
        had = st.hands[b, p, first]
        for i in range(st.pile_len[b]):
            c = st.pile[b, i]
            st.hands[b, p, c] += 1
            st.known[b, p, c] += 1
        st.pile_len[b] = 0
        if single and params[P_PILE_NO_REDISCARD] and had == 0:
            s[S_NO_DISCARD] = first
        s[S_PHASE] = PHASE_PLAY
    elif a == PEEK_KEEP or a == PEEK_REJECT:
        c = s[S_PEEK_CARD]
        s[S_PEEK_CARD] = -1
        if a == PEEK_KEEP:
            had = st.hands[b, p, c]
            st.hands[b, p, c] += 1
            if params[P_PEEK_NO_REDISCARD] and had == 0:
                s[S_NO_DISCARD] = c
        else:
            st.pile[b, st.pile_len[b]] = c
            st.pile_len[b] += 1
            _draw_top_nb(st, b, p)
        _after_draw_from_stock_nb(st, b, params)
        s[S_PHASE] = PHASE_PLAY
    elif a == TAKE_MUERTO_KEEP_WILDS:
        for c in range(NUM_CARD_TYPES):
            st.known[b, p, c] = st.hands[b, p, c]  # the kept wilds are shown
        _take_muerto_nb(st, b, p, params, np.int64(HOW_KEPT_WILDS))
    elif a >= DISCARD_BASE:
        _discard_nb(st, b, a - DISCARD_BASE, params)
    elif a >= ADD_BASE:
        # the action is legal: the basic check builds the new row in scratch (the checks
        # on the hand it leaves would only compile another copy of themselves here)
        add_basic_error_nb(st, b, a, params)
        idx = a - ADD_BASE
        slot = idx // NUM_CARD_TYPES
        c = idx % NUM_CARD_TYPES
        copy_row_nb(st.scratch[b, ROW_NEW], st.melds[b, t, slot])
        st.hands[b, p, c] -= 1
        _forget_played_nb(st, b, p, c)
        _after_meld_nb(st, b, p, params)
    else:
        _, u0, u1, u2 = open_basic_error_nb(st, b, a, params)
        slot = st.num_melds[b, t]
        copy_row_nb(st.scratch[b, ROW_NEW], st.melds[b, t, slot])
        st.num_melds[b, t] = slot + 1
        for c in (u0, u1, u2):
            st.hands[b, p, c] -= 1
        for c in (u0, u1, u2):
            _forget_played_nb(st, b, p, c)
        _after_meld_nb(st, b, p, params)


@njit
def reset_game_nb(st, b, params, episode_match):
    """Start a new episode in game ``b`` (the generator in ``st.rng[b]`` must be seeded)."""
    s = st.scalars[b]
    for i in range(s.shape[0]):
        s[i] = 0
    s[S_EPISODE_MATCH] = episode_match
    s[S_WINNER] = -1
    deal_hand_nb(st, b, params, np.int64(0))
    begin_turn_nb(st, b, np.int64(s[S_PLAYER]), params)
    if s[S_PEEK_CARD] >= 0:
        s[S_PHASE] = PHASE_PEEK
