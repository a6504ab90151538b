"""The reliability sweep's kernel: random hands with the cheap invariants checked in
compiled code at every step (docs/RELIABILITY.md; ``burako sweep``).

Each game slot plays hand after hand, choosing uniformly among the legal actions (or,
with ``meld_bias_permille``, among the melds and pile takes when there are some) from a
generator of its own, and counts what it sees in ``counters[b]`` (the ``C_*`` columns).
A violation is counted, never raised: the sweep reports them all at the end.
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
    DISCARD_BASE,
    DRAW_STOCK,
    END_MAX_TURNS,
    END_STOCK,
    END_WENT_OUT,
    JOKER,
    MAX_MUERTOS,
    MF_SIZE,
    MUERTO_PENDING,
    MUERTO_SIZE,
    MUERTO_TAKEN,
    MUERTO_UNTAKEN,
    NUM_CARD_TYPES,
    PHASE_OVER,
    S_DONE,
    S_END_REASON,
    S_MUERTOS_LEFT,
    S_PEEK_CARD,
    S_PHASE,
    S_PLAYER,
    S_TURN,
    S_WENT_OUT,
    TAKE_PILE,
)
from burako_env.core.melds import row_add_counts_nb
from burako_env.core.params import (
    P_CLOSE_REQUIRES_DISCARD,
    P_DECKS,
    P_JOKERS_PER_DECK,
    P_MAX_TURNS,
    P_MUERTO_POT_SHARED,
    P_NUM_PLAYERS,
    P_TOTAL_CARDS,
)
from burako_env.core.rng import randint_nb
from burako_env.core.rules import (
    _pot_packet_nb,
    apply_action_nb,
    close_allowed_nb,
    legal_actions_nb,
    next_muerto_nb,
    reset_game_nb,
    team_canastas_nb,
)
from burako_env.jit import borrowed, njit, njit_kernel

#: this module defines compiled functions (agents/kernel_cache.py reads the mark)
KERNEL_MODULE = True

C_HANDS = 0  # complete hands played
C_STEPS = 1
C_WENT_OUT = 2  # hands ended by going out
C_OUT_BY_MELD = 3  # ... whose last move was a meld (going out by melding)
C_STOCK_END = 4
C_MAX_TURNS = 5
C_BAD_CARDS = 6  # violations: cards not conserved
C_NO_LEGAL = 7  # violations: a live game with no legal action
C_TOO_LONG = 8  # violations: a hand past max_turns or past its step bound
C_BAD_GO_OUT = 9  # violations: a team out without its conditions
C_DIRECT_MUERTOS = 10  # muertos taken by melding the hand empty (not a violation)
NUM_COUNTERS = 11
COUNTER_NAMES = (
    "hands",
    "steps",
    "went_out",
    "went_out_by_melding",
    "stock_end",
    "max_turns_end",
    "cards_not_conserved",
    "no_legal_action",
    "hand_too_long",
    "went_out_without_conditions",
    "direct_muertos",
)
VIOLATIONS = (C_BAD_CARDS, C_NO_LEGAL, C_TOO_LONG, C_BAD_GO_OUT)


@njit_kernel
def _cards_on_table(st, b, params):
    """Cards in play by a cheap count: hands, melds, pile, stock, packets face down, peek."""
    total = st.pile_len[b] + st.stock_len[b] + MUERTO_SIZE * st.scalars[b, S_MUERTOS_LEFT]
    for p in range(params[P_NUM_PLAYERS]):
        for c in range(NUM_CARD_TYPES):
            total += st.hands[b, p, c]
    for t in range(2):
        for i in range(st.num_melds[b, t]):
            total += st.melds[b, t, i, MF_SIZE]
    if st.scalars[b, S_PEEK_CARD] >= 0:
        total += 1
    return total


@njit_kernel
def _cards_by_type_ok(st, b, params, counts):
    """Every card type accounted for, packets face down included (at a hand's end)."""
    for c in range(NUM_CARD_TYPES):
        counts[c] = 0
    for p in range(params[P_NUM_PLAYERS]):
        for c in range(NUM_CARD_TYPES):
            counts[c] += st.hands[b, p, c]
    for t in range(2):
        for i in range(st.num_melds[b, t]):
            row_add_counts_nb(st.melds[b, t, i], counts, 1)
    for i in range(st.pile_len[b]):
        counts[st.pile[b, i]] += 1
    for i in range(st.stock_len[b]):
        counts[st.stock[b, i]] += 1
    if st.scalars[b, S_PEEK_CARD] >= 0:
        counts[st.scalars[b, S_PEEK_CARD]] += 1
    left = st.scalars[b, S_MUERTOS_LEFT]
    if params[P_MUERTO_POT_SHARED]:
        if left == 2:
            for t in range(2):
                for i in range(MUERTO_SIZE):
                    counts[st.muertos[b, t, 0, i]] += 1
        elif left == 1:
            k = _pot_packet_nb(st, b, np.int64(0))
            for i in range(MUERTO_SIZE):
                counts[st.muertos[b, k, 0, i]] += 1
    else:
        n = 0
        for t in range(2):
            for m in range(MAX_MUERTOS):
                if st.muerto_status[b, t, m] == MUERTO_UNTAKEN:
                    n += 1
                    for i in range(MUERTO_SIZE):
                        counts[st.muertos[b, t, m, i]] += 1
        if n != left:
            return False
    for c in range(JOKER):
        if counts[c] != params[P_DECKS]:
            return False
    return counts[JOKER] == params[P_DECKS] * params[P_JOKERS_PER_DECK]


@njit_kernel
def _went_out_ok(st, b, params, last_action):
    """The team that went out met every condition of RULES.md 5."""
    t = st.scalars[b, S_WENT_OUT]
    if t < 0 or t > 1:
        return False
    emptied = False
    for p in range(t, params[P_NUM_PLAYERS], 2):
        h = 0
        for c in range(NUM_CARD_TYPES):
            h += st.hands[b, p, c]
        if h == 0:
            emptied = True
    if not emptied or next_muerto_nb(st, b, t, params) >= 0:
        return False
    if params[P_MUERTO_POT_SHARED]:
        status = st.muerto_status[b, t, 0]
        if status != MUERTO_TAKEN and status != MUERTO_PENDING:
            return False  # out without ever taking a muerto from the pot
    any_c, clean_c = team_canastas_nb(st, b, t, -1)
    if not close_allowed_nb(any_c, clean_c, params):
        return False
    return not (params[P_CLOSE_REQUIRES_DISCARD] and last_action < DISCARD_BASE)


@njit
def _choose_nb(st, b, n, agent_rng, meld_bias_permille):
    """A uniform legal action, or with the bias a uniform meld / pile take when any."""
    if meld_bias_permille > 0 and randint_nb(agent_rng, 1000) < meld_bias_permille:
        k = 0
        for i in range(n):
            a = st.legal[b, i]
            if a == TAKE_PILE or (a > TAKE_PILE and a < DISCARD_BASE):
                k += 1
        if k > 0:
            pick = randint_nb(agent_rng, k)
            for i in range(n):
                a = st.legal[b, i]
                if a == TAKE_PILE or (a > TAKE_PILE and a < DISCARD_BASE):
                    if pick == 0:
                        return a
                    pick -= 1
    return st.legal[b, randint_nb(agent_rng, n)]


@njit_kernel
def sweep_kernel(
    st, params, agent_rng, hands, meld_bias_permille, max_steps, counters, first, last
):
    """Each game slot from ``first`` to ``last - 1`` plays ``hands`` complete hands
    (episode: one hand), checking the invariants at every step and every hand's end;
    counts go to ``counters[b]``. :func:`~burako_env.jit.slicing.run_sliced` runs slices of
    the batch on threads."""
    st = borrowed(st)
    agent_rng, counters = borrowed((agent_rng, counters))
    total = params[P_TOTAL_CARDS]
    for b_ in range(first, last):
        b = np.uint64(b_)  # the index type of every kernel: callees compile once
        counts = np.zeros(NUM_CARD_TYPES, np.int64)
        c = counters[b]
        for _ in range(hands):
            reset_game_nb(st, b, params, 0)
            steps = 0
            last = DRAW_STOCK
            while st.scalars[b, S_PHASE] != PHASE_OVER:
                n = legal_actions_nb(st, b, params, st.legal[b])
                if n == 0:
                    c[C_NO_LEGAL] += 1
                    break
                a = _choose_nb(st, b, n, agent_rng[b][::1], meld_bias_permille)  # as st.rng[b]
                t_index = st.scalars[b, S_PLAYER] % 2
                before = next_muerto_nb(st, b, t_index, params)
                apply_action_nb(st, b, a, params)
                if before >= 0 and a < DISCARD_BASE and a > TAKE_PILE:
                    if st.muerto_status[b, t_index, before] == MUERTO_TAKEN:
                        c[C_DIRECT_MUERTOS] += 1
                last = a
                steps += 1
                if _cards_on_table(st, b, params) != total:
                    c[C_BAD_CARDS] += 1
                if steps > max_steps or st.scalars[b, S_TURN] > params[P_MAX_TURNS]:
                    c[C_TOO_LONG] += 1
                    break
            c[C_STEPS] += steps
            if not st.scalars[b, S_DONE]:
                continue
            c[C_HANDS] += 1
            if not _cards_by_type_ok(st, b, params, counts):
                c[C_BAD_CARDS] += 1
            reason = st.scalars[b, S_END_REASON]
            if reason == END_WENT_OUT:
                c[C_WENT_OUT] += 1
                if last < DISCARD_BASE:
                    c[C_OUT_BY_MELD] += 1
                if not _went_out_ok(st, b, params, last):
                    c[C_BAD_GO_OUT] += 1
            elif reason == END_STOCK:
                c[C_STOCK_END] += 1
            elif reason == END_MAX_TURNS:
                c[C_MAX_TURNS] += 1
