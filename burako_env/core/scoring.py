"""Scoring a finished hand (RULES.md section 7), item by item, as the referee does."""

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
    MAX_MUERTOS,
    MELD_GROUP,
    MELD_WILD_GROUP,
    MF_KEY,
    MF_KIND,
    MUERTO_PENDING,
    MUERTO_SIZE,
    MUERTO_STOCK,
    MUERTO_TAKEN,
    MUERTO_UNTAKEN,
    NUM_CARD_TYPES,
    RANK_ACE,
)
from burako_env.core.melds import card_value_nb, row_is_canasta_nb, row_is_clean_nb, row_value_nb
from burako_env.core.params import (
    P_CANASTA_CARD_POINTS,
    P_CLEAN_ACES,
    P_CLEAN_CANASTA,
    P_DIRTY_ACES,
    P_DIRTY_CANASTA,
    P_GOING_OUT,
    P_MUERTO_NOT_TAKEN,
    P_MUERTO_TAKEN,
    P_NO_CANASTA_NEGATIVE,
    P_NUM_PLAYERS,
    P_WILD_CANASTA,
)
from burako_env.jit import njit

#: this module defines compiled functions (agents/kernel_cache.py reads the mark)
KERNEL_MODULE = True

I_TABLE = 0
I_CANASTA = 1
I_GOING_OUT = 2
I_MUERTOS_TAKEN = 3
I_MUERTOS_NOT_TAKEN = 4
I_HAND = 5


@njit
def canasta_bonus_nb(row, params):
    if row[MF_KIND] == MELD_WILD_GROUP:
        return params[P_WILD_CANASTA]
    aces = row[MF_KIND] == MELD_GROUP and row[MF_KEY] == RANK_ACE
    if row_is_clean_nb(row):
        return params[P_CLEAN_ACES] if aces else params[P_CLEAN_CANASTA]
    return params[P_DIRTY_ACES] if aces else params[P_DIRTY_CANASTA]


@njit
def team_hand_value_nb(st, b, t, params):
    """Value of the cards in team ``t``'s hands, less any muerto still pending (unplayed)."""
    total = 0
    for p in range(t, params[P_NUM_PLAYERS], 2):
        for c in range(NUM_CARD_TYPES):
            if st.hands[b, p, c] > 0:
                total += st.hands[b, p, c] * card_value_nb(c, params)
    for m in range(MAX_MUERTOS):
        if st.muerto_status[b, t, m] == MUERTO_PENDING:
            for i in range(MUERTO_SIZE):
                total -= card_value_nb(np.int64(st.muertos[b, t, m, i]), params)
    return total


@njit
def score_hand_nb(st, b, params, went_out):
    """Fill ``st.score_items[b]`` and return the two teams' totals."""
    items = st.score_items[b]
    has_canasta = [False, False]
    for t in range(2):
        table = 0
        bonus = 0
        for i in range(st.num_melds[b, t]):
            row = st.melds[b, t, i]
            if row_is_canasta_nb(row):
                has_canasta[t] = True
                bonus += canasta_bonus_nb(row, params)
                if params[P_CANASTA_CARD_POINTS]:
                    table += row_value_nb(row, params)
            else:
                table += row_value_nb(row, params)
        taken = 0
        not_taken = 0
        for m in range(MAX_MUERTOS):
            status = st.muerto_status[b, t, m]
            if status == MUERTO_TAKEN:
                taken += 1
            elif status == MUERTO_UNTAKEN or status == MUERTO_PENDING or status == MUERTO_STOCK:
                not_taken += 1
        items[t, I_TABLE] = table
        items[t, I_CANASTA] = bonus
        items[t, I_GOING_OUT] = params[P_GOING_OUT] if went_out == t else 0
        items[t, I_MUERTOS_TAKEN] = taken * params[P_MUERTO_TAKEN]
        items[t, I_MUERTOS_NOT_TAKEN] = not_taken * params[P_MUERTO_NOT_TAKEN]
        items[t, I_HAND] = -team_hand_value_nb(st, b, t, params)
    if params[P_NO_CANASTA_NEGATIVE]:
        # seed 000 rule 6 wins over rule 1: when the team that goes out has no canasta,
        # the other team scores its table and its hand cards positive
        rule6 = went_out >= 0 and not has_canasta[went_out]
        for t in range(2):
            if rule6 and t != went_out:
                items[t, I_HAND] = -items[t, I_HAND]
            elif not has_canasta[t]:
                items[t, I_TABLE] = -items[t, I_TABLE]
    totals0 = 0
    totals1 = 0
    for i in range(items.shape[1]):
        totals0 += items[0, i]
        totals1 += items[1, i]
    return totals0, totals1
