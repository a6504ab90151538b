"""Meld rows (RULES.md section 2): building them from templates and adding one card.

A meld is a row of ``NUM_MELD_FIELDS`` int8 (see ``MF_*``). A run keeps its naturals at
positions ``lo..hi`` (A low = 1 ... K = 13, A high = 14) except ``gap``, where the wild
stands; a wild with ``gap == 0`` stands at an end and counts as whichever end the run
needs. Every change ends with :func:`normalize_run_nb`, which sends a suited 2 home.
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
    ERR_DOES_NOT_FIT,
    ERR_MELD_CLOSED,
    ERR_OK,
    GROUP_CLEAN_SUITS,
    GROUP_PAIR_SUITS,
    JOKER,
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
    NUM_MELD_FIELDS,
    NUM_RANKS,
    RANK_ACE,
    RANK_TWO,
)
from burako_env.core.params import (
    P_VALUE_ACE,
    P_VALUE_HIGH,
    P_VALUE_JOKER,
    P_VALUE_LOW,
    P_VALUE_TWO,
)
from burako_env.jit import njit

#: this module defines compiled functions (agents/kernel_cache.py reads the mark)
KERNEL_MODULE = True

#: the 35 multisets of three wild kinds (1 joker, 2..5 the 2 of suit 0..3)
WILD_GROUP_COMBOS = np.array(
    [(a, b, c) for a in range(1, 6) for b in range(a, 6) for c in range(b, 6)], dtype=np.int64
)


def _group_templates() -> np.ndarray:
    """[GROUP_TEMPLATES_PER_RANK, 5]: the naturals of each suit, then the wild kind (0: clean)."""
    rows = []
    for suits in GROUP_CLEAN_SUITS:
        rows.append([suits.count(s) for s in range(4)] + [0])
    for pair in GROUP_PAIR_SUITS:
        for kind in range(1, 6):
            rows.append([pair.count(s) for s in range(4)] + [kind])
    return np.array(rows, dtype=np.int64)


#: group opening templates, in the order of their action ids (constants.OPEN_GROUP_BASE)
GROUP_TEMPLATES = _group_templates()


@njit
def is_wild_card_nb(c):
    return c == JOKER or c % NUM_RANKS == RANK_TWO


@njit
def card_value_nb(c, params):
    if c == JOKER:
        return params[P_VALUE_JOKER]
    r = c % NUM_RANKS
    if r == RANK_TWO:
        return params[P_VALUE_TWO]
    if r == RANK_ACE:
        return params[P_VALUE_ACE]
    if r <= 6:
        return params[P_VALUE_LOW]
    return params[P_VALUE_HIGH]


@njit
def wild_of_kind_nb(kind):
    """Card type of a template's wild kind: 1 joker, 2..5 the 2 of suit 0..3."""
    if kind == 1:
        return JOKER
    return (kind - 2) * NUM_RANKS + RANK_TWO


@njit
def position_card_nb(suit, pos):
    """The natural card at a run position (1 and 14 are both the ace)."""
    if pos == 14:
        return suit * NUM_RANKS + RANK_ACE
    return suit * NUM_RANKS + pos - 1


@njit
def clear_row_nb(row):
    for i in range(NUM_MELD_FIELDS):
        row[i] = 0
    row[MF_WILD] = -1


@njit
def copy_row_nb(src, dst):
    for i in range(NUM_MELD_FIELDS):
        dst[i] = src[i]


@njit
def row_is_canasta_nb(row):
    return row[MF_SIZE] >= 7


@njit
def row_is_clean_nb(row):
    return row[MF_KIND] != MELD_WILD_GROUP and row[MF_WILD] < 0


@njit
def row_is_closed_nb(row, max_meld):
    return max_meld > 0 and row[MF_SIZE] >= max_meld


@njit
def normalize_run_nb(row):
    """A wild 2 of the run's suit that can stand at position 2 is natural there."""
    w = row[MF_WILD]
    if w < 0 or w != row[MF_KEY] * NUM_RANKS + RANK_TWO:
        return
    if row[MF_GAP] == 2:
        row[MF_GAP] = 0
        row[MF_WILD] = -1
    elif row[MF_GAP] == 0 and row[MF_LO] == 3:
        row[MF_LO] = 2
        row[MF_WILD] = -1


@njit
def build_group_nb(row, rank, template, wild):
    """A group of ``rank`` with ``template[s]`` naturals of suit s and a wild (or -1)."""
    clear_row_nb(row)
    row[MF_KIND] = MELD_GROUP
    row[MF_KEY] = rank
    n = 0
    for s in range(4):
        row[MF_N0 + s] = template[s]
        n += template[s]
    row[MF_WILD] = wild
    row[MF_SIZE] = n + (1 if wild >= 0 else 0)


@njit
def build_run_nb(row, suit, lo, hi, gap, wild):
    clear_row_nb(row)
    row[MF_KIND] = MELD_RUN
    row[MF_KEY] = suit
    row[MF_LO] = lo
    row[MF_HI] = hi
    row[MF_GAP] = gap
    row[MF_WILD] = wild
    row[MF_SIZE] = hi - lo + 1 + (1 if wild >= 0 and gap == 0 else 0)
    normalize_run_nb(row)


@njit
def build_wild_group_nb(row, w1, w2, w3):
    clear_row_nb(row)
    row[MF_KIND] = MELD_WILD_GROUP
    for w in (w1, w2, w3):
        if w == JOKER:
            row[MF_NJOKER] += 1
        else:
            row[MF_N0 + w // NUM_RANKS] += 1
    row[MF_SIZE] = 3


@njit
def _place_natural_nb(row, pos, out):
    """Try the card at run position ``pos``: gap fill, then extension, then wild into gap.

    Returns the level that worked (1, 2, 3) or 0, writing the new row to ``out``.
    """
    lo = row[MF_LO]
    hi = row[MF_HI]
    gap = row[MF_GAP]
    has_wild = row[MF_WILD] >= 0
    floating = has_wild and gap == 0
    span = hi - lo + 1
    copy_row_nb(row, out)
    if gap > 0 and pos == gap:
        if span > 13:  # the wild sent to the ends would have no place left
            return 0
        out[MF_GAP] = 0
        out[MF_SIZE] = row[MF_SIZE] + 1
        return 1
    if pos == lo - 1 or pos == hi + 1:
        if span + 1 > (13 if floating else 14):
            return 0
        if pos == lo - 1:
            out[MF_LO] = pos
        else:
            out[MF_HI] = pos
        out[MF_SIZE] = row[MF_SIZE] + 1
        return 2
    if floating and (pos == lo - 2 or pos == hi + 2):
        if pos == lo - 2:
            out[MF_GAP] = lo - 1
            out[MF_LO] = pos
        else:
            out[MF_GAP] = hi + 1
            out[MF_HI] = pos
        out[MF_SIZE] = row[MF_SIZE] + 1
        return 3
    return 0


@njit
def add_card_nb(row, c, max_meld, out):
    """Add card ``c`` to the meld ``row``, writing the result to ``out``; an ERR_* code."""
    if max_meld > 0 and row[MF_SIZE] >= max_meld:
        return ERR_MELD_CLOSED
    kind = row[MF_KIND]
    wild = is_wild_card_nb(c)
    copy_row_nb(row, out)
    if kind == MELD_GROUP:
        if c != JOKER and c % NUM_RANKS == row[MF_KEY]:
            out[MF_N0 + c // NUM_RANKS] += 1
        elif wild and row[MF_WILD] < 0:
            out[MF_WILD] = c
        else:
            return ERR_DOES_NOT_FIT
        out[MF_SIZE] = row[MF_SIZE] + 1
        return ERR_OK
    if kind == MELD_WILD_GROUP:
        if not wild:
            return ERR_DOES_NOT_FIT
        if c == JOKER:
            out[MF_NJOKER] += 1
        else:
            out[MF_N0 + c // NUM_RANKS] += 1
        out[MF_SIZE] = row[MF_SIZE] + 1
        return ERR_OK
    if kind != MELD_RUN:
        return ERR_DOES_NOT_FIT
    suit = row[MF_KEY]
    if c != JOKER and c // NUM_RANKS == suit:
        r = c % NUM_RANKS
        # the clean reading wins: try the natural places first, by level then low before high
        for level in range(1, 4):
            for k in range(2):
                if r == RANK_ACE:
                    pos = 1 if k == 0 else 14
                elif k == 0:
                    pos = r + 1
                else:
                    continue
                got = _place_natural_nb(row, pos, out)
                if got == level:
                    normalize_run_nb(out)
                    return ERR_OK
        copy_row_nb(row, out)
    if not wild or row[MF_WILD] >= 0:
        return ERR_DOES_NOT_FIT
    if row[MF_HI] - row[MF_LO] + 1 > 13:
        return ERR_DOES_NOT_FIT
    out[MF_WILD] = c
    out[MF_GAP] = 0
    out[MF_SIZE] = row[MF_SIZE] + 1
    normalize_run_nb(out)
    return ERR_OK


@njit
def row_value_nb(row, params):
    """Sum of the values of the meld's cards."""
    kind = row[MF_KIND]
    total = 0
    if kind == MELD_GROUP:
        n = 0
        for s in range(4):
            n += row[MF_N0 + s]
        total = n * card_value_nb(np.int64(row[MF_KEY]), params)
    elif kind == MELD_RUN:
        suit = row[MF_KEY]
        for pos in range(row[MF_LO], row[MF_HI] + 1):
            if pos != row[MF_GAP]:
                total += card_value_nb(position_card_nb(suit, pos), params)
    elif kind == MELD_WILD_GROUP:
        twos = 0
        for s in range(4):
            twos += row[MF_N0 + s]
        total = twos * card_value_nb(np.int64(RANK_TWO), params) + row[MF_NJOKER] * card_value_nb(
            np.int64(JOKER), params
        )
    if kind != MELD_WILD_GROUP and row[MF_WILD] >= 0:
        total += card_value_nb(np.int64(row[MF_WILD]), params)
    return total


@njit
def row_add_counts_nb(row, counts, sign):
    """Add (sign 1) or remove (sign -1) the meld's cards to a 53-counts vector."""
    kind = row[MF_KIND]
    if kind == MELD_GROUP:
        for s in range(4):
            counts[s * NUM_RANKS + row[MF_KEY]] += sign * row[MF_N0 + s]
    elif kind == MELD_RUN:
        for pos in range(row[MF_LO], row[MF_HI] + 1):
            if pos != row[MF_GAP]:
                counts[position_card_nb(np.int64(row[MF_KEY]), pos)] += sign
    elif kind == MELD_WILD_GROUP:
        for s in range(4):
            counts[s * NUM_RANKS + RANK_TWO] += sign * row[MF_N0 + s]
        counts[JOKER] += sign * row[MF_NJOKER]
    if kind != MELD_WILD_GROUP and row[MF_WILD] >= 0:
        counts[row[MF_WILD]] += sign
