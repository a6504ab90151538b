"""Copies and determinizations of games, compiled (the tools of search agents).

A **determinization** of game ``b`` for ``viewer`` deals every card hidden from that
player again, uniformly among the deals consistent with what they know:

* the stock's cards and their order;
* the untaken muerto packets (with ``muerto_pot: shared``, the pot's packets where
  :func:`burako_env.core.rules._pot_packet_nb` says they lie: :func:`hidden_packets_nb`);
* the peeked card, unless ``viewer`` is the player peeking at it;
* the cards of the other hands (the partner's too) except their ``known`` counts.

Every hand keeps its size and its known cards, every packet its place, the stock its
length; what the viewer sees (their hand, the table, the pile, sizes, statuses, scalars)
is untouched, so their observation is the same. The hidden cards are gathered into one
pool, shuffled (Fisher-Yates) and put back into the same places: every assignment of the
physical cards to the hidden places is equally likely. Where a deck holds two copies of a
card, "a deal" counts the copies apart (as a real shuffle does), so two deals that differ
only by which copy went where are one outcome seen twice as often. The pool is gathered
in card order, so for one seed the new deal depends on what the viewer knows alone.

Side information that would betray the real deal is cleaned too: a packet taken with the
last discard (still unplayed, ``MUERTO_PENDING``) is the taker's whole hand, so it is
rewritten from the new hand; the contents of the other packets no longer face down
(played, or turned into the stock) are zeroed; the kernels' scratch rows are zeroed (the
refresh of the legal actions then works in them from the new deal); the
game's own generator (later deals of a match) is reseeded from the determinization's seed.
One thing is kept as it is: the acting player's bar on discarding the card just taken
(``S_NO_DISCARD``), which depends on whether they held that card before; it is the
viewer's own knowledge whenever the viewer is the player to act (the search agents' case).

Kernels take a source state and a game index, and fill slots of a destination state
(``dst`` may be the source itself only when the slots differ).
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
    MAX_CARDS,
    MAX_MUERTOS,
    MAX_PLAYERS,
    MUERTO_PENDING,
    MUERTO_SIZE,
    MUERTO_UNTAKEN,
    NUM_CARD_TYPES,
    PHASE_PEEK,
    S_MUERTOS_LEFT,
    S_PEEK_CARD,
    S_PHASE,
    S_PLAYER,
)
from burako_env.core.params import P_MUERTO_POT_SHARED, P_NUM_PLAYERS
from burako_env.core.rng import randint_nb
from burako_env.core.rules import legal_actions_nb
from burako_env.jit import borrowed, njit, njit_kernel, njit_parallel, prange

#: this module defines compiled functions (agents/kernel_cache.py reads the mark)
KERNEL_MODULE = True


@njit
def copy_game_nb(src, i, dst, j):
    """Copy game ``i`` of ``src`` into slot ``j`` of ``dst`` (both states of one variant
    and player count); the legal actions come along, so ``dst`` can be stepped at once."""
    dst.hands[j, :, :] = src.hands[i, :, :]
    dst.known[j, :, :] = src.known[i, :, :]
    dst.stock[j, :] = src.stock[i, :]
    dst.stock_len[j] = src.stock_len[i]
    dst.pile[j, :] = src.pile[i, :]
    dst.pile_len[j] = src.pile_len[i]
    dst.muertos[j, :, :, :] = src.muertos[i, :, :, :]
    dst.muerto_status[j, :, :] = src.muerto_status[i, :, :]
    dst.muerto_how[j, :, :] = src.muerto_how[i, :, :]
    dst.muerto_taker[j, :, :] = src.muerto_taker[i, :, :]
    dst.melds[j, :, :, :] = src.melds[i, :, :, :]
    dst.num_melds[j, :] = src.num_melds[i, :]
    dst.scalars[j, :] = src.scalars[i, :]
    dst.score_items[j, :, :] = src.score_items[i, :, :]
    dst.rng[j, :] = src.rng[i, :]
    dst.scratch[j, :, :] = src.scratch[i, :, :]
    n = src.num_legal[i]
    dst.legal[j, :n] = src.legal[i, :n]
    dst.num_legal[j] = n


@njit
def hidden_packets_nb(st, b, params, out):
    """Write the (team, index) of every muerto packet of game ``b`` still face down into
    ``out`` (int64 [2 * MAX_MUERTOS, 2]) and return their count; the compiled twin of
    :func:`burako_env.core.state.untaken_packets`."""
    n = 0
    if params[P_MUERTO_POT_SHARED]:
        left = st.scalars[b, S_MUERTOS_LEFT]
        if left == 2:
            out[0, 0] = 0
            out[0, 1] = 0
            out[1, 0] = 1
            out[1, 1] = 0
            n = 2
        elif left == 1:
            # rules._pot_packet_nb: index 0 while team 0 may still take one, else index 1
            out[0, 0] = 0 if st.muerto_status[b, 0, 0] == MUERTO_UNTAKEN else 1
            out[0, 1] = 0
            n = 1
        return n
    for t in range(2):
        for m in range(MAX_MUERTOS):
            if st.muerto_status[b, t, m] == MUERTO_UNTAKEN:
                out[n, 0] = t
                out[n, 1] = m
                n += 1
    return n


@njit
def peek_hidden_nb(st, b, viewer):
    """True when a peeked card exists and ``viewer`` is not the player looking at it."""
    s = st.scalars[b]
    if s[S_PEEK_CARD] < 0:
        return False
    return not (s[S_PHASE] == PHASE_PEEK and s[S_PLAYER] == viewer)


@njit
def determinize_game_nb(st, b, viewer, params, pool, packets, unknown, counts):
    """Deal the cards hidden from ``viewer`` in game ``b`` again, in place, drawing from
    the game's own generator ``st.rng[b]`` (seed it first). ``pool`` (int8 [MAX_CARDS]),
    ``packets`` (int64 [2 * MAX_MUERTOS, 2]), ``unknown`` (int64 [MAX_PLAYERS]) and
    ``counts`` (int64 [NUM_CARD_TYPES]) are work space. Returns the number of cards dealt
    again. The legal actions are left to the caller (they change when the player to act
    is not ``viewer``)."""
    n_players = params[P_NUM_PLAYERS]
    # count the hidden cards by type: stock, face-down packets, peeked card, unknown cards
    for c in range(NUM_CARD_TYPES):
        counts[c] = 0
    for i in range(st.stock_len[b]):
        counts[st.stock[b, i]] += 1
    n_packets = hidden_packets_nb(st, b, params, packets)
    for j in range(n_packets):
        for i in range(MUERTO_SIZE):
            counts[st.muertos[b, packets[j, 0], packets[j, 1], i]] += 1
    peek = peek_hidden_nb(st, b, viewer)
    if peek:
        counts[st.scalars[b, S_PEEK_CARD]] += 1
    for q in range(n_players):
        unknown[q] = 0
        if q == viewer:
            continue
        for c in range(NUM_CARD_TYPES):
            u = st.hands[b, q, c] - st.known[b, q, c]
            counts[c] += u
            unknown[q] += u
            st.hands[b, q, c] = st.known[b, q, c]
    # the pool in card order, not in the order the real deal holds them: for one seed the
    # new deal is then a function of what the viewer knows alone (two real deals the
    # viewer cannot tell apart give the same determinizations)
    k = 0
    for c in range(NUM_CARD_TYPES):
        for _ in range(counts[c]):
            pool[k] = c
            k += 1
    # Fisher-Yates: every order of the pool equally likely
    rng = st.rng[b]
    for i in range(k - 1, 0, -1):
        j = randint_nb(rng, i + 1)
        tmp = pool[i]
        pool[i] = pool[j]
        pool[j] = tmp
    # deal the shuffled pool into the hidden places: stock, packets, peeked card, hands
    r = 0
    for i in range(st.stock_len[b]):
        st.stock[b, i] = pool[r]
        r += 1
    for j in range(n_packets):
        t = packets[j, 0]
        m = packets[j, 1]
        for i in range(MUERTO_SIZE):
            st.muertos[b, t, m, i] = pool[r]
            r += 1
    if peek:
        st.scalars[b, S_PEEK_CARD] = pool[r]
        r += 1
    for q in range(n_players):
        for _ in range(unknown[q]):
            st.hands[b, q, pool[r]] += 1
            r += 1
    _clean_side_information_nb(st, b, viewer, params, packets, n_packets)
    return k


@njit
def _clean_side_information_nb(st, b, viewer, params, packets, n_packets):
    """Packets no longer face down: a pending one is its taker's whole (unplayed) hand,
    so it is rewritten from the new hand; the others are history that could betray the
    real deal (a packet that became the stock lists the stock), so they are zeroed."""
    for t in range(2):
        for m in range(MAX_MUERTOS):
            face_down = False
            for j in range(n_packets):
                if packets[j, 0] == t and packets[j, 1] == m:
                    face_down = True
            if face_down:
                continue
            taker = st.muerto_taker[b, t, m]
            if st.muerto_status[b, t, m] == MUERTO_PENDING and taker >= 0 and taker != viewer:
                i = 0
                for c in range(NUM_CARD_TYPES):
                    for _ in range(st.hands[b, taker, c]):
                        if i < MUERTO_SIZE:
                            st.muertos[b, t, m, i] = c
                        i += 1
            elif st.muerto_status[b, t, m] != MUERTO_PENDING:
                for i in range(MUERTO_SIZE):
                    st.muertos[b, t, m, i] = 0
    st.scratch[b, :, :] = 0


@njit_kernel
def new_work():
    """The work space of :func:`determinize_game_nb` for one thread."""
    return (
        np.empty(MAX_CARDS, np.int8),
        np.empty((2 * MAX_MUERTOS, 2), np.int64),
        np.empty(MAX_PLAYERS, np.int64),
        np.empty(NUM_CARD_TYPES, np.int64),
    )


@njit
def determinize_into_nb(src, i, viewer, params, dst, j, seed_words):
    """Slot ``j`` of ``dst`` becomes a determinization of game ``i`` of ``src`` for
    ``viewer``, from the generator state ``seed_words`` (int64 [4], nonzero), with its
    legal actions refreshed. Also the game's own generator continues from there."""
    copy_game_nb(src, i, dst, j)
    dst.rng[j, :] = seed_words
    pool, packets, unknown, counts = new_work()
    determinize_game_nb(dst, j, viewer, params, pool, packets, unknown, counts)
    dst.num_legal[j] = legal_actions_nb(dst, j, params, dst.legal[j])


@njit_kernel
def determinize_kernel(src, src_index, viewers, params, dst, seed_words, first, last):
    """Slots k = ``first`` to ``last - 1`` of ``dst`` become determinizations of games
    ``src_index[k]`` of ``src`` for ``viewers[k]`` from ``seed_words[k]``
    (:func:`~burako_env.jit.slicing.run_sliced` runs slices of them on threads)."""
    src, dst = borrowed((src, dst))
    src_index, viewers, seed_words = borrowed((src_index, viewers, seed_words))
    for k_ in range(first, last):
        k = np.uint64(k_)  # the index type of every kernel: callees compile once
        determinize_into_nb(src, src_index[k], viewers[k], params, dst, k, seed_words[k])


@njit_parallel
def copy_kernel(src, src_index, dst):
    """Slot k of ``dst`` becomes a copy of game ``src_index[k]`` of ``src``."""
    for k_ in prange(dst.scalars.shape[0]):
        k = np.uint64(k_)
        copy_game_nb(src, src_index[k], dst, k)
