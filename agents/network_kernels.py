"""Compiled kernels of the policy network's per-card encoder (CPU only).

The network (:mod:`burako_env.agents.network`) encodes each of the 53 card types of an
observation on its own, ``z[n, c] = relu(per_card[c] + feats[n, c] @ wf)``, and pools the
53 encodings per observation by their sum and their max. Done with torch, that is a
``[N, 53, d]`` tensor written, read by the sum and the max, filled with zeros and
scattered into by the max's backward, and read again by the ReLU's backward: about a
dozen passes over 35 MB per minibatch, memory-bound, 59% of a PPO update.

These kernels compute the pooled values and the layer's gradients without that tensor:
one pass per observation over its cards, skipping the features that are zero (most of a
card's counts are), recomputing ``z`` in the backward instead of storing it. Only the
index of each pooled maximum is kept for the backward (as torch's ``max`` keeps it). The
values are those of the torch path up to the order of float additions
(``tests/agents/test_network_kernels.py`` compares both, values and gradients).
"""

# Kernel module: the rules its kernels follow (burako_env/jit/__init__.py says why).
# - Imports at the top: numpy, numba, burako_env.jit, the core, modules that declare
#   KERNEL_MODULE = True, and classes only: a kernel compiles in the globals it reads,
#   and the cache stamps cover only the core's, the jit's and kernel modules' sources.
# - Constants are module globals, compiled in; constant arguments go as np.int64/np.bool_.
# - @njit here is numba's own (cache=True): Python calls these functions too, so none is
#   link-only (burako_env.jit's njit is). A prange loop names its index np.uint64 first.
# - Whole games: a serial kernel of a slice (first, last) that borrows its arrays
#   (borrowed) and runs under run_sliced; a prange body never writes through an attribute.

from __future__ import annotations

import numpy as np
from numba import njit, prange

from burako_env.core.constants import (
    MAX_MELDS,
    MAX_MUERTOS,
    MELD_OBS_FIELDS,
    MF_GAP,
    MF_HI,
    MF_KEY,
    MF_KIND,
    MF_LO,
    MF_N0,
    MF_NJOKER,
    MF_SIZE,
    MF_WILD,
    MUERTO_OBS_FIELDS,
    NUM_CARD_TYPES,
    NUM_MELD_FIELDS,
    NUM_MISC,
    NUM_PHASES,
    NUM_RANKS,
)

#: this module defines compiled functions (agents/kernel_cache.py reads the mark)
KERNEL_MODULE = True

#: the observation blocks :func:`featurize` reads, in the order of its ``offsets``
LAYOUT_BLOCKS = (
    "hand",
    "table_counts",
    "melds",
    "pile_counts",
    "pile_top",
    "peek_card",
    "known",
    "hand_sizes",
    "muertos",
    "phase",
    "misc",
    "pile_order",
)

#: the pooled maximum's index where every encoding of the column is 0 (after the ReLU):
#: no card gets the max's gradient there, as the ReLU's backward gives none
NO_CARD = -1


#: the card pool's rows are split into this many chunks, run on numba's threads; each
#: chunk's gradients are summed in chunk order, so the results do not depend on how
#: many threads there are
POOL_CHUNKS = 16


@njit(cache=True, nogil=True)
def _encode_card(feats, n, c, wf, per_card, z):
    """``z = per_card[c] + feats[n, c] @ wf`` (before the ReLU), skipping zero features."""
    for j in range(z.shape[0]):
        z[j] = per_card[c, j]
    for k in range(feats.shape[2]):
        v = feats[n, c, k]
        if v != 0.0:
            for j in range(z.shape[0]):
                z[j] += v * wf[k, j]


@njit(cache=True, nogil=True, parallel=True)
def card_pool_forward(feats, wf, per_card, total, top, arg):
    """``total[n] = sum_c z[n, c]``, ``top[n] = max_c z[n, c]`` and ``arg[n]`` the first
    card of each column's maximum (:data:`NO_CARD` where the column is all 0), for
    ``z[n, c] = relu(per_card[c] + feats[n, c] @ wf)``; feats [N, C, F], wf [F, D],
    per_card [C, D] float32; total, top float32 [N, D], arg int8 [N, D]."""
    n_obs, n_cards = feats.shape[0], feats.shape[1]
    d = wf.shape[1]
    step = (n_obs + POOL_CHUNKS - 1) // POOL_CHUNKS
    for chunk_ in prange(POOL_CHUNKS):
        chunk = np.uint64(chunk_)  # one index type in numba's serial and parallel typing
        lo = np.int64(chunk) * step
        z = np.empty(d, np.float32)
        for n in range(lo, min(n_obs, lo + step)):
            for j in range(d):
                total[n, j] = 0.0
                top[n, j] = 0.0
                arg[n, j] = NO_CARD
            for c in range(n_cards):
                _encode_card(feats, n, c, wf, per_card, z)
                for j in range(d):
                    if z[j] > 0.0:
                        total[n, j] += z[j]
                        if z[j] > top[n, j]:
                            top[n, j] = z[j]
                            arg[n, j] = c


@njit(cache=True, nogil=True, parallel=True)
def card_pool_backward(feats, wf, per_card, arg, grad_total, grad_top, grad_wf, grad_per_card):
    """The gradients of :func:`card_pool_forward`'s pooled values with respect to ``wf``
    and ``per_card``, into ``grad_wf`` [F, D] and ``grad_per_card`` [C, D] from
    ``grad_total``, ``grad_top`` [N, D]. ``z`` is computed again: only where it is
    positive does a gradient pass the ReLU."""
    n_obs, n_cards, n_feats = feats.shape
    d = wf.shape[1]
    step = (n_obs + POOL_CHUNKS - 1) // POOL_CHUNKS
    part_wf = np.zeros((POOL_CHUNKS, n_feats, d), np.float32)
    part_pc = np.zeros((POOL_CHUNKS, n_cards, d), np.float32)
    for chunk_ in prange(POOL_CHUNKS):
        chunk = np.uint64(chunk_)  # one index type in numba's serial and parallel typing
        lo = np.int64(chunk) * step
        z = np.empty(d, np.float32)
        dz = np.empty(d, np.float32)
        g_wf = part_wf[chunk]
        g_pc = part_pc[chunk]
        for n in range(lo, min(n_obs, lo + step)):
            for c in range(n_cards):
                _encode_card(feats, n, c, wf, per_card, z)
                for j in range(d):
                    g = np.float32(0.0)
                    if z[j] > 0.0:
                        g = grad_total[n, j]
                        if arg[n, j] == c:
                            g += grad_top[n, j]
                    dz[j] = g
                    g_pc[c, j] += g
                for k in range(n_feats):
                    v = feats[n, c, k]
                    if v != 0.0:
                        for j in range(d):
                            g_wf[k, j] += v * dz[j]
    grad_wf[:] = 0.0
    grad_per_card[:] = 0.0
    for chunk in range(POOL_CHUNKS):  # in chunk order: the same sums on any thread count
        grad_wf += part_wf[chunk]
        grad_per_card += part_pc[chunk]


# ---------------------------------------------------------------- the network's inputs
@njit(cache=True, nogil=True)
def count_meld_rows(obs, melds, num_rows, row_fields, starts):
    """The meld rows of the observations ``obs`` [N, O] in use (kind > 0): observation
    n's are rows ``starts[n]:starts[n + 1]`` of the flat list (``starts`` int64 [N + 1]);
    returns their total."""
    used = 0
    for n in range(obs.shape[0]):
        starts[n] = used
        for m in range(num_rows):
            if obs[n, melds + m * row_fields + MF_KIND] > 0:
                used += 1
    starts[obs.shape[0]] = used
    return used


@njit(cache=True, nogil=True)
def _mark_fits(obs, n, base, team, fits):
    """One meld row's share of the ``fits`` feature [2, 53] (the torch reference:
    ``burako_env.agents.network.meld_fits``, which documents it); the row's fields start
    at ``obs[n, base]``."""
    kind, key = obs[n, base + MF_KIND], obs[n, base + MF_KEY]
    lo, hi, gap, wild = (
        obs[n, base + MF_LO],
        obs[n, base + MF_HI],
        obs[n, base + MF_GAP],
        obs[n, base + MF_WILD],
    )
    if obs[n, base + NUM_MELD_FIELDS + 2] > 0:  # closed: takes nothing
        return
    if kind == 1:
        rank = min(max(key, 0), NUM_RANKS - 1)
        for s in range(4):
            fits[team, s * NUM_RANKS + rank] = 1.0
    elif kind == 2:
        end_wild = wild > 0 and gap == 0
        suit = min(max(key, 0), 3)
        for i in range(5):
            if i == 0:
                pos = lo - 1
            elif i == 1:
                pos = hi + 1
            elif i == 2:
                pos = lo - 2
            elif i == 3:
                pos = hi + 2
            else:
                pos = gap
            ok = 1 <= pos <= 14
            if i == 2 or i == 3:
                ok = ok and end_wild
            if i == 4:
                ok = ok and gap > 0
            if ok:
                rank = 0 if pos >= 14 else pos - 1
                fits[team, suit * NUM_RANKS + min(max(rank, 0), NUM_RANKS - 1)] = 1.0
    if ((kind == 1 or kind == 2) and wild == 0) or kind == 3:
        for s in range(4):
            fits[team, s * NUM_RANKS + 1] = 1.0
        fits[team, NUM_CARD_TYPES - 1] = 1.0


@njit(cache=True, nogil=True)
def _dense_row(obs, n, offsets, num_players, dense):
    """Observation n's hand, pile and rest blocks, scaled, into ``dense[n]``."""
    c53 = NUM_CARD_TYPES
    col = 0
    for block, width, scale in (
        (0, c53, 0.5),  # hand
        (3, c53, 0.5),  # pile counts
        (4, c53, 1.0),  # pile top
        (5, c53, 1.0),  # peeked card
        (1, 2 * c53, 0.5),  # table counts
        (6, (num_players - 1) * c53, 0.5),  # known cards
        (8, 2 * MAX_MUERTOS * MUERTO_OBS_FIELDS, 0.25),  # muertos (after the sizes)
        (9, NUM_PHASES, 1.0),  # phase
    ):
        if block == 8:  # the hand sizes come first, divided (not multiplied) by 11
            for c in range(num_players):
                dense[n, col] = np.float32(obs[n, offsets[7] + c]) / np.float32(11.0)
                col += 1
        start = offsets[block]
        for c in range(width):
            dense[n, col] = np.float32(obs[n, start + c]) * np.float32(scale)
            col += 1
    for c in range(NUM_MISC):  # counters and scores: sign(x) log(1 + |x|)
        v = np.float32(obs[n, offsets[10] + c])
        mag = np.float32(np.log1p(np.float32(abs(v))))
        dense[n, col] = mag if v > 0 else (-mag if v < 0 else np.float32(0.0))
        col += 1


@njit(cache=True, nogil=True)
def _pile_history(obs, n, start, length, num_players, cards, col):
    """Observation n's ``card_history`` features into ``cards[n, :, col:col + 4]``: the
    copies of each card type in the pile discarded by the viewer, the next seat, the
    partners and the other opponents, halved. Read from the pile's order (card + 1 from
    the bottom up, 0 past the top): the top card is the discard of the seat before the
    viewer, the one below it of the seat before that, and so on, since each turn ends
    with one discard and the pile is only ever taken whole. A feature, not the rules: a
    peeked card laid as the first discard, or the dealer's upcard, shifts it. The pile
    ends at the first entry below 1; an entry past the card ids counts for no one."""
    for c in range(NUM_CARD_TYPES):
        for g in range(4):
            cards[n, c, col + g] = 0.0
    top = 0
    while top < length and obs[n, start + top] > 0:
        top += 1
    for i in range(top):
        card = obs[n, start + i] - 1
        if card >= NUM_CARD_TYPES:  # no card a game deals: read as no one's discard
            continue
        depth = top - 1 - i
        rel = (num_players - 1 - depth % num_players) % num_players
        if rel == 0:
            g = 0  # the viewer's own discard
        elif rel == 1:
            g = 1  # the next seat's: the opponent who may take the viewer's discard
        elif rel % 2 == 0:
            g = 2  # a partner's
        else:
            g = 3  # another opponent's
        cards[n, card, col + g] += np.float32(0.5)


@njit(cache=True, nogil=True)
def _card_rows(obs, n, offsets, num_players, card_context, fits, cards, tmp):
    """Observation n's per-card features into ``cards[n]`` [53, F] (the first 10, and
    16 with ``card_context``); ``tmp`` [6, 53] is scratch (hand, pile, each team's
    table, opponents' and partner's known cards)."""
    c53 = NUM_CARD_TYPES
    hand, pile, t0, t1, opp, partner = tmp[0], tmp[1], tmp[2], tmp[3], tmp[4], tmp[5]
    for c in range(c53):
        hand[c] = obs[n, offsets[0] + c]
        pile[c] = obs[n, offsets[3] + c]
        t0[c] = obs[n, offsets[1] + c]
        t1[c] = obs[n, offsets[1] + c53 + c]
        opp[c] = 0.0
        partner[c] = 0.0
    for p in range(num_players - 1):  # seats viewer+1, +3, ...: the other team
        for c in range(c53):
            if p % 2 == 0:
                opp[c] += obs[n, offsets[6] + p * c53 + c]
            else:
                partner[c] += obs[n, offsets[6] + p * c53 + c]
    half = np.float32(0.5)
    for c in range(c53):
        f = cards[n, c]
        f[0] = fits[0, c]
        f[1] = fits[1, c]
        f[2] = hand[c] * half
        f[3] = pile[c] * half
        f[4] = t0[c] * half
        f[5] = t1[c] * half
        f[6] = opp[c] * half
        f[7] = partner[c] * half
        f[8] = np.float32(obs[n, offsets[4] + c])
        f[9] = (hand[c] + pile[c] + t0[c] + t1[c] + opp[c] + partner[c]) * half
    if not card_context:
        return
    for s in range(4):
        for rank in range(NUM_RANKS):
            f = cards[n, s * NUM_RANKS + rank]
            for k in range(2):  # run neighbours one and two ranks away
                dist = k + 1
                near = 0
                if rank == 0:  # the ace: next to the 2 (and 3) and to the king (queen)
                    near += _held(hand, s, dist) + _held(hand, s, NUM_RANKS - dist)
                else:
                    for q in (rank - dist, rank + dist):
                        if 0 <= q <= NUM_RANKS:  # NUM_RANKS: the ace above the king
                            near += _held(hand, s, q % NUM_RANKS)
                f[10 + k] = np.float32(near) * half
            copies_hand = np.float32(0.0)
            copies_pile = np.float32(0.0)
            copies_opp = np.float32(0.0)
            copies_table = np.float32(0.0)
            for s2 in range(4):
                c2 = s2 * NUM_RANKS + rank
                copies_hand += hand[c2]
                copies_pile += pile[c2]
                copies_opp += opp[c2]
                copies_table += t1[c2]
            f[12] = copies_hand * np.float32(0.25)
            f[13] = copies_pile * np.float32(0.25)
            f[14] = copies_opp * half
            f[15] = copies_table * np.float32(0.25)
    f = cards[n, c53 - 1]  # the joker: no run neighbours, no rank
    for k in range(10, 16):
        f[k] = 0.0


@njit(cache=True, nogil=True)
def _meld_row_x(obs, n, base, x):
    """A meld row's one-hot and scaled fields into ``x`` [MELD_ROW_FEATURES] (zeroed)."""
    c53 = NUM_CARD_TYPES
    x[min(max(obs[n, base + MF_KIND], 0), 3)] = 1.0
    x[4 + min(max(obs[n, base + MF_KEY], 0), 12)] = 1.0
    x[17 + min(max(obs[n, base + MF_LO], 0), 14)] = 1.0
    x[32 + min(max(obs[n, base + MF_HI], 0), 14)] = 1.0
    x[47 + min(max(obs[n, base + MF_GAP], 0), 14)] = 1.0
    x[62 + min(max(obs[n, base + MF_WILD], 0), c53)] = 1.0
    k = 62 + c53 + 1
    x[k] = np.float32(obs[n, base + MF_SIZE]) / np.float32(14.0)
    for s in range(4):
        x[k + 1 + s] = np.float32(obs[n, base + MF_N0 + s]) / np.float32(2.0)
    x[k + 5] = np.float32(obs[n, base + MF_NJOKER]) / np.float32(2.0)
    for f in range(3):
        x[k + 6 + f] = np.float32(obs[n, base + NUM_MELD_FIELDS + f])


@njit(cache=True, nogil=True, parallel=True)
def featurize(
    obs,
    offsets,
    num_players,
    card_context,
    pile_length,
    starts,
    dense,
    meld_x,
    used,
    meld_of,
    cards,
):
    """The network's inputs from observations ``obs`` int16 [N, O], written into
    float32 buffers (the torch reference: ``BurakoNet.reference_inputs``):

    * ``dense`` [N, 53 + 159 + rest]: the hand, the pile block and the rest block, scaled;
    * ``used`` int64 [U]: the meld rows in use (ascending row id ``n * 2 * MAX_MELDS +
      team * MAX_MELDS + slot``; ``starts`` from :func:`count_meld_rows`); ``meld_x``
      [U, MELD_ROW_FEATURES]: the distinct rows among them as one-hot and scaled fields,
      and ``meld_of`` int64 [U] the distinct row of each (a meld stays the same over many
      decisions: a minibatch of 3,000 observations holds about 17,600 meld rows but 3,200
      distinct ones, so the meld encoder runs on those only);
    * ``cards`` [N, 53, F] (F = 10, or 16 with ``card_context``, 4 more with a
      ``pile_length`` above 0, the ``card_history`` read from the first ``pile_length``
      entries of the pile's order; empty: not computed): the per-card features.

    ``offsets``: the layout's block starts (:data:`LAYOUT_BLOCKS` order). The rows are
    read on numba's threads, each on its own; the distinct meld rows are then numbered
    in order, so the results do not depend on the thread count. Returns the number of
    distinct meld rows (the rows of ``meld_x`` written)."""
    n_obs = obs.shape[0]
    num_rows = 2 * MAX_MELDS
    with_cards = cards.shape[0] > 0
    keys = np.empty(used.shape[0], np.int64)
    step = (n_obs + POOL_CHUNKS - 1) // POOL_CHUNKS
    for chunk_ in prange(POOL_CHUNKS):
        chunk = np.uint64(chunk_)  # one index type in numba's serial and parallel typing
        lo = np.int64(chunk) * step
        fits = np.zeros((2, NUM_CARD_TYPES), np.float32)
        tmp = np.zeros((6, NUM_CARD_TYPES), np.float32)
        r = np.zeros(MELD_OBS_FIELDS, np.int64)
        for n in range(lo, min(n_obs, lo + step)):
            _dense_row(obs, n, offsets, num_players, dense)
            fits[:] = 0.0
            u = starts[n]
            for m in range(num_rows):
                base = offsets[2] + m * MELD_OBS_FIELDS
                if obs[n, base + MF_KIND] <= 0:
                    continue
                used[u] = n * num_rows + m
                for f in range(MELD_OBS_FIELDS):
                    r[f] = obs[n, base + f]
                keys[u] = _meld_key(r)
                if with_cards:
                    _mark_fits(obs, n, base, m // MAX_MELDS, fits)
                u += 1
            if with_cards:
                _card_rows(obs, n, offsets, num_players, card_context, fits, cards, tmp)
                if pile_length > 0:
                    col = 16 if card_context else 10
                    _pile_history(obs, n, offsets[11], pile_length, num_players, cards, col)
    # the distinct meld rows, numbered in row order (open addressing: key -> number)
    size = 1
    while size < 2 * used.shape[0]:
        size *= 2
    table = np.full(size, -1, np.int64)
    slots = np.empty(size, np.int64)
    distinct = 0
    for u in range(used.shape[0]):
        key = keys[u]
        if key >= 0:
            h = _mix(key) & (size - 1)
            while table[h] >= 0 and table[h] != key:
                h = (h + 1) & (size - 1)
            if table[h] == key:
                meld_of[u] = slots[h]
                continue
            table[h] = key
            slots[h] = distinct
        meld_of[u] = distinct
        n, m = used[u] // num_rows, used[u] % num_rows
        meld_x[distinct] = 0.0
        _meld_row_x(obs, n, offsets[2] + m * MELD_OBS_FIELDS, meld_x[distinct])
        distinct += 1
    return distinct


@njit(cache=True, nogil=True)
def _held(hand, suit, rank):
    """1 if the hand holds the card of ``suit`` and ``rank`` (0 = ace ... 12 = king)."""
    return 1 if hand[suit * NUM_RANKS + rank] > 0 else 0


#: the multiplier of :func:`_mix` (2^64 / the golden ratio, as a signed int64)
_GOLDEN = np.int64(-7046029254386353131)


@njit(cache=True, nogil=True)
def _mix(key):
    """Spread a packed key's bits over the low bits (a hash table's slot)."""
    h = key ^ (key >> 29)
    h = h * _GOLDEN
    return h ^ (h >> 32)


#: bits of each field in :func:`_meld_key`'s packing (60 in all)
_KEY_BITS = ((MF_KIND, 2, 3), (MF_KEY, 4, 12), (MF_LO, 4, 14), (MF_HI, 4, 14), (MF_GAP, 4, 14))


@njit(cache=True, nogil=True)
def _meld_key(r):
    """The meld row's features packed in one int64 (-1 when a raw field is out of the
    packing's range: that row is then encoded on its own). The categorical fields are
    clamped as the one-hots clamp them, so two rows with one key have equal features."""
    key = 0
    for field, bits, top in _KEY_BITS:
        key = (key << bits) | min(max(r[field], 0), top)
    key = (key << 6) | min(max(r[MF_WILD], 0), NUM_CARD_TYPES)
    for field, bits in ((MF_SIZE, 8), (MF_N0, 5), (MF_N0 + 1, 5), (MF_N0 + 2, 5)):
        if r[field] < 0 or r[field] >= (1 << bits):
            return -1
        key = (key << bits) | r[field]
    for field, bits in ((MF_N0 + 3, 5), (MF_NJOKER, 5)):
        if r[field] < 0 or r[field] >= (1 << bits):
            return -1
        key = (key << bits) | r[field]
    for f in range(3):
        flag = r[NUM_MELD_FIELDS + f]
        if flag < 0 or flag > 1:
            return -1
        key = (key << 1) | flag
    return key


# ---------------------------------------------------------------- legal lists
@njit(cache=True, nogil=True)
def env_lists_kernel(legal, num_legal, rows, ids, counts):
    """The legal lists of games ``rows`` from the env's own (``legal`` [B, A] with
    ``num_legal`` [B] entries, in the engine's order) into ``ids`` [R, K], ascending as
    :func:`~burako_env.agents.network.legal_lists` gives them, padded with the row's first
    id; ``counts`` [R]. Reading the few listed ids instead of a [R, 2541] mask."""
    width = ids.shape[1]
    for i in range(rows.shape[0]):
        b = rows[i]
        k = num_legal[b]
        for j in range(k):  # insertion sort: a handful of ids, nearly in order
            v = np.int64(legal[b, j])
            p = j
            while p > 0 and ids[i, p - 1] > v:
                ids[i, p] = ids[i, p - 1]
                p -= 1
            ids[i, p] = v
        for j in range(k, width):
            ids[i, j] = ids[i, 0]
        counts[i] = k


def env_legal_lists(
    legal: np.ndarray, num_legal: np.ndarray, rows: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """:func:`~burako_env.agents.network.legal_lists` of the games ``rows``, read from the
    games' own legal lists (``info["legal"]``, ``info["num_legal"]`` of
    :class:`~burako_env.envs.vector.VectorEnv`, or a game's ``state.legal`` and
    ``state.num_legal``) instead of their masks: the same ids and counts."""
    rows = np.ascontiguousarray(rows, dtype=np.int64)
    counts = np.empty(len(rows), np.int64)
    sel = num_legal[rows]
    width = max(1, int(sel.max())) if len(rows) else 1
    if len(rows) and (sel <= 0).any():
        raise ValueError(f"rows without a legal action: {rows[sel <= 0][:10]}")
    ids = np.empty((len(rows), width), np.int64)
    env_lists_kernel(legal, num_legal, rows, ids, counts)
    return ids, counts
