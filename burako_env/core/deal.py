"""The deal (RULES.md section 3): shuffle, the cutter's wilds, hands, muertos, opening."""

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
    HOW_NONE,
    JOKER,
    MAX_MUERTOS,
    MUERTO_ABSENT,
    MUERTO_SIZE,
    MUERTO_UNTAKEN,
    NUM_CARD_TYPES,
    NUM_SCORE_ITEMS,
    PHASE_DRAW,
    PHASE_PEEK,
    S_DEALER,
    S_END_REASON,
    S_FIRST_PLAYER,
    S_HAND_INDEX,
    S_LAST_TURN,
    S_MIN_EXTRA0,
    S_MIN_EXTRA1,
    S_MUERTOS_LEFT,
    S_NO_DISCARD,
    S_OPENED0,
    S_OPENED1,
    S_PEEK_CARD,
    S_PHASE,
    S_PLAYER,
    S_PROV_START,
    S_STEP,
    S_TURN,
    S_WENT_OUT,
)
from burako_env.core.melds import is_wild_card_nb
from burako_env.core.params import (
    P_CUTTER_KEEPS_WILDS,
    P_DECKS,
    P_HAND_SIZE,
    P_JOKERS_PER_DECK,
    P_MUERTOS,
    P_NUM_PLAYERS,
    P_OPENING_FIRST_UPCARD,
    P_OPENING_LATER_UPCARD,
    P_TOTAL_CARDS,
)
from burako_env.core.rng import randint_nb
from burako_env.jit import njit

#: this module defines compiled functions (agents/kernel_cache.py reads the mark)
KERNEL_MODULE = True


@njit
def deal_hand_nb(st, b, params, hand_index):
    """Deal hand ``hand_index`` of game ``b`` from the game's own generator."""
    n = params[P_NUM_PLAYERS]
    total = params[P_TOTAL_CARDS]
    rng = st.rng[b]
    deck = st.stock[b]
    # build the deck in the stock array, then shuffle it in place (Fisher-Yates)
    k = 0
    for _ in range(params[P_DECKS]):
        for c in range(52):
            deck[k] = c
            k += 1
        for _ in range(params[P_JOKERS_PER_DECK]):
            deck[k] = JOKER
            k += 1
    for i in range(total - 1, 0, -1):
        j = randint_nb(rng, i + 1)
        tmp = deck[i]
        deck[i] = deck[j]
        deck[j] = tmp

    for p in range(n):
        for c in range(NUM_CARD_TYPES):
            st.hands[b, p, c] = 0
            st.known[b, p, c] = 0
    dealer = (hand_index - 1) % n
    first = hand_index % n

    # the cutter (the dealer's predecessor) keeps up to two wilds seen at the bottom
    bottom = 0
    cutter = (dealer - 1) % n
    if params[P_CUTTER_KEEPS_WILDS]:
        while bottom < 2 and is_wild_card_nb(np.int64(deck[bottom])):
            st.hands[b, cutter, deck[bottom]] += 1
            st.known[b, cutter, deck[bottom]] += 1
            bottom += 1
    kept = bottom

    top = total  # cards are dealt from the top of the shuffled deck
    for i in range(n):
        p = (first + i) % n
        count = params[P_HAND_SIZE] - (kept if p == cutter else 0)
        for _ in range(count):
            top -= 1
            st.hands[b, p, deck[top]] += 1
    for t in range(2):
        for m in range(MAX_MUERTOS):
            st.muerto_taker[b, t, m] = -1
            st.muerto_how[b, t, m] = HOW_NONE
            if m < params[P_MUERTOS]:
                st.muerto_status[b, t, m] = MUERTO_UNTAKEN
                for i in range(MUERTO_SIZE):
                    top -= 1
                    st.muertos[b, t, m, i] = deck[top]
            else:
                st.muerto_status[b, t, m] = MUERTO_ABSENT
    # what is left (bottom..top) becomes the stock, its top at the end
    size = top - bottom
    for i in range(size):
        deck[i] = deck[bottom + i]
    st.stock_len[b] = size

    st.pile_len[b] = 0
    st.num_melds[b, 0] = 0
    st.num_melds[b, 1] = 0
    for t in range(2):
        for i in range(NUM_SCORE_ITEMS):
            if hand_index == 0:  # later hands keep the last finished hand's items
                st.score_items[b, t, i] = 0
    s = st.scalars[b]
    s[S_DEALER] = dealer
    s[S_FIRST_PLAYER] = first
    s[S_PLAYER] = first
    s[S_HAND_INDEX] = hand_index
    s[S_TURN] = 0
    s[S_STEP] = 0
    s[S_NO_DISCARD] = -1
    s[S_PROV_START] = 0
    s[S_LAST_TURN] = 0
    s[S_END_REASON] = 0
    s[S_WENT_OUT] = -1
    s[S_OPENED0] = 0
    s[S_OPENED1] = 0
    s[S_MIN_EXTRA0] = 0
    s[S_MIN_EXTRA1] = 0
    s[S_MUERTOS_LEFT] = 2 * params[P_MUERTOS]
    upcard = params[P_OPENING_FIRST_UPCARD] if hand_index == 0 else params[P_OPENING_LATER_UPCARD]
    st.stock_len[b] -= 1
    top_card = deck[st.stock_len[b]]
    if upcard:
        st.pile[b, 0] = top_card
        st.pile_len[b] = 1
        s[S_PEEK_CARD] = -1
        s[S_PHASE] = PHASE_DRAW
    else:
        s[S_PEEK_CARD] = top_card
        s[S_PHASE] = PHASE_PEEK
