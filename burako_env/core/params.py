"""A :class:`~burako_env.variants.Variant` as the int64 array that kernels read.

Kernels take ``params`` (one array for the whole batch) and index it with the ``P_*``
names below; strings become small integers.
"""

from __future__ import annotations

import numpy as np

from burako_env.variants import Variant

P_NUM_PLAYERS = 0
P_DECKS = 1
P_JOKERS_PER_DECK = 2
P_HAND_SIZE = 3
P_MUERTOS = 4
P_TARGET = 5
P_VALUE_LOW = 6
P_VALUE_HIGH = 7
P_VALUE_ACE = 8
P_VALUE_TWO = 9
P_VALUE_JOKER = 10
P_CANASTA_CARD_POINTS = 11
P_CLEAN_CANASTA = 12
P_DIRTY_CANASTA = 13
P_CLEAN_ACES = 14
P_DIRTY_ACES = 15
P_WILD_CANASTA = 16
P_GOING_OUT = 17
P_MUERTO_TAKEN = 18
P_MUERTO_NOT_TAKEN = 19
P_UNIQUE_TABLE = 20  # 1: unique_group_rank == "table"
P_MAX_MELD = 21  # 0 for no limit
P_WILD_GROUP = 22
P_PILE_MIN_TOTAL = 23
P_OPENING_FIRST_UPCARD = 24  # 1: upcard, 0: peek
P_OPENING_LATER_UPCARD = 25
P_PILE_NO_REDISCARD = 26
P_PEEK_NO_REDISCARD = 27
P_MIN_FIRST_MELD = 28
P_MIN_FIRST_MELD_HIGH = 29
P_MIN_FIRST_MELD_THRESHOLD = 30
P_MIN_FIRST_MELD_STEP = 31
P_NO_WILD_DISCARD = 32
P_CLOSE_DISCARD_NOT_WILD = 33
P_CLOSE_REQUIRES = 34  # 0 any canasta, 1 clean canasta, 2 none
P_CLOSE_REQUIRES_DISCARD = 35
P_MUERTO_KEEP_WILDS = 36
P_CUTTER_KEEPS_WILDS = 37
P_STOCK_END = 38
P_MUERTO_REFILLS_STOCK = 39
P_NO_CANASTA_NEGATIVE = 40
P_MAX_TURNS = 41
P_TOTAL_CARDS = 42
P_MAX_HANDS = 43
P_MUERTO_POT_SHARED = 44  # 1: muerto_pot == "shared"
NUM_PARAMS = 45

CLOSE_ANY_CANASTA = 0
CLOSE_CLEAN_CANASTA = 1
CLOSE_NONE = 2
_CLOSE_CODES = {
    "any_canasta": CLOSE_ANY_CANASTA,
    "clean_canasta": CLOSE_CLEAN_CANASTA,
    "none": CLOSE_NONE,
}


def variant_params(v: Variant) -> np.ndarray:
    """The kernels' parameter array of a variant."""
    p = np.zeros(NUM_PARAMS, dtype=np.int64)
    p[P_NUM_PLAYERS] = v.num_players
    p[P_DECKS] = v.decks
    p[P_JOKERS_PER_DECK] = v.jokers_per_deck
    p[P_HAND_SIZE] = v.hand_size
    p[P_MUERTOS] = v.muertos_per_team
    p[P_TARGET] = v.target
    p[P_VALUE_LOW] = v.value_low
    p[P_VALUE_HIGH] = v.value_high
    p[P_VALUE_ACE] = v.value_ace
    p[P_VALUE_TWO] = v.value_two
    p[P_VALUE_JOKER] = v.value_joker
    p[P_CANASTA_CARD_POINTS] = v.canasta_card_points
    p[P_CLEAN_CANASTA] = v.clean_canasta
    p[P_DIRTY_CANASTA] = v.dirty_canasta
    p[P_CLEAN_ACES] = v.clean_aces_canasta
    p[P_DIRTY_ACES] = v.dirty_aces_canasta
    p[P_WILD_CANASTA] = v.wild_canasta
    p[P_GOING_OUT] = v.going_out_bonus
    p[P_MUERTO_TAKEN] = v.muerto_taken_bonus
    p[P_MUERTO_NOT_TAKEN] = v.muerto_not_taken
    p[P_UNIQUE_TABLE] = v.unique_group_rank == "table"
    p[P_MAX_MELD] = v.max_meld_size
    p[P_WILD_GROUP] = v.wild_group
    p[P_PILE_MIN_TOTAL] = v.pile_min_total
    p[P_OPENING_FIRST_UPCARD] = v.opening_first == "upcard"
    p[P_OPENING_LATER_UPCARD] = v.opening_later == "upcard"
    p[P_PILE_NO_REDISCARD] = v.pile_no_rediscard
    p[P_PEEK_NO_REDISCARD] = v.peek_no_rediscard
    p[P_MIN_FIRST_MELD] = v.min_first_meld
    p[P_MIN_FIRST_MELD_HIGH] = v.min_first_meld_high
    p[P_MIN_FIRST_MELD_THRESHOLD] = v.min_first_meld_threshold
    p[P_MIN_FIRST_MELD_STEP] = v.min_first_meld_step
    p[P_NO_WILD_DISCARD] = v.no_wild_discard
    p[P_CLOSE_DISCARD_NOT_WILD] = v.close_discard_not_wild
    p[P_CLOSE_REQUIRES] = _CLOSE_CODES[v.close_requires]
    p[P_CLOSE_REQUIRES_DISCARD] = v.close_requires_discard
    p[P_MUERTO_KEEP_WILDS] = v.muerto_keep_wilds
    p[P_CUTTER_KEEPS_WILDS] = v.cutter_keeps_wilds
    p[P_STOCK_END] = v.stock_end
    p[P_MUERTO_REFILLS_STOCK] = v.muerto_refills_stock
    p[P_NO_CANASTA_NEGATIVE] = v.no_canasta_negative
    p[P_MAX_TURNS] = v.max_turns
    p[P_TOTAL_CARDS] = v.total_cards
    p[P_MAX_HANDS] = v.max_hands
    p[P_MUERTO_POT_SHARED] = v.muerto_pot == "shared"
    return p


def _check_layout() -> None:
    from burako_env.core.constants import NUM_VARIANT_FEATURES

    assert NUM_VARIANT_FEATURES == NUM_PARAMS, "the observation's variant block is the params"


_check_layout()
