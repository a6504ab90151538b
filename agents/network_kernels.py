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
(``tests/test_network.py`` compares both, values and gradients).
"""

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
)

NUM_RANK = 13
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
    for chunk in prange(POOL_CHUNKS):
        z = np.empty(d, np.float32)
        for n in range(chunk * step, min(n_obs, (chunk + 1) * step)):
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
    for chunk in prange(POOL_CHUNKS):
        z = np.empty(d, np.float32)
        dz = np.empty(d, np.float32)
        g_wf = part_wf[chunk]
        g_pc = part_pc[chunk]
        for n in range(chunk * step, min(n_obs, (chunk + 1) * step)):
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
def count_meld_rows(obs, melds, num_rows, row_fields):
    """How many meld rows of the observations ``obs`` [N, O] are in use (kind > 0)."""
    used = 0
    for n in range(obs.shape[0]):
        for m in range(num_rows):
            if obs[n, melds + m * row_fields + MF_KIND] > 0:
                used += 1
    return used


@njit(cache=True, nogil=True)
def _mark_fits(r, team_row, fits):
    """One meld row's share of the ``fits`` feature (the torch reference:
    ``burako_env.agents.network.meld_fits``, which documents it)."""
    kind, key = r[MF_KIND], r[MF_KEY]
    lo, hi, gap, wild = r[MF_LO], r[MF_HI], r[MF_GAP], r[MF_WILD]
    if r[NUM_MELD_FIELDS + 2] > 0:  # closed: takes nothing
        return
    if kind == 1:
        rank = min(max(key, 0), NUM_RANK - 1)
        for s in range(4):
            fits[team_row, s * NUM_RANK + rank] = 1.0
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
                fits[team_row, suit * NUM_RANK + min(max(rank, 0), NUM_RANK - 1)] = 1.0
    if ((kind == 1 or kind == 2) and wild == 0) or kind == 3:
        for s in range(4):
            fits[team_row, s * NUM_RANK + 1] = 1.0
        fits[team_row, NUM_CARD_TYPES - 1] = 1.0


@njit(cache=True, nogil=True)
def featurize(obs, offsets, num_players, card_context, dense, meld_x, used, meld_of, cards):
    """The network's inputs from observations ``obs`` int16 [N, O], written into
    float32 buffers (the torch reference: ``BurakoNet._reference_inputs``):

    * ``dense`` [N, 53 + 159 + rest]: the hand, the pile block and the rest block, scaled;
    * ``used`` int64 [U]: the meld rows in use (ascending row id ``n * 2 * MAX_MELDS +
      team * MAX_MELDS + slot``); ``meld_x`` [U, MELD_ROW_FEATURES]: the distinct rows
      among them as one-hot and scaled fields, and ``meld_of`` int64 [U] the distinct row
      of each (a meld stays the same over many decisions: a minibatch of 3,000
      observations holds about 17,600 meld rows but 3,200 distinct ones, so the meld
      encoder runs on those only);
    * ``cards`` [N, 53, F] (F = 10, or 16 with ``card_context``; empty: not computed):
      the per-card features.

    ``offsets``: the layout's block starts (:data:`LAYOUT_BLOCKS` order). Returns the
    number of distinct meld rows (the rows of ``meld_x`` written)."""
    c53 = NUM_CARD_TYPES
    o_hand, o_table, o_melds, o_pile, o_top, o_peek = (
        offsets[0],
        offsets[1],
        offsets[2],
        offsets[3],
        offsets[4],
        offsets[5],
    )
    o_known, o_sizes, o_muertos, o_phase, o_misc = (
        offsets[6],
        offsets[7],
        offsets[8],
        offsets[9],
        offsets[10],
    )
    n_known = (num_players - 1) * c53
    n_muerto = 2 * MAX_MUERTOS * MUERTO_OBS_FIELDS
    num_rows = 2 * MAX_MELDS
    with_cards = cards.shape[0] > 0
    fits = np.zeros((2, c53), np.float32)
    r = np.zeros(MELD_OBS_FIELDS, np.int64)
    hand = np.zeros(c53, np.float32)
    pile = np.zeros(c53, np.float32)
    opp = np.zeros(c53, np.float32)
    partner = np.zeros(c53, np.float32)
    t0 = np.zeros(c53, np.float32)
    t1 = np.zeros(c53, np.float32)
    u = 0
    distinct = 0
    meld_x[:] = 0.0
    size = 1
    while size < 2 * used.shape[0]:
        size *= 2
    keys = np.full(size, -1, np.int64)  # open addressing: packed row -> distinct row
    slots = np.empty(size, np.int64)
    for n in range(obs.shape[0]):
        # the dense blocks
        col = 0
        for c in range(c53):
            dense[n, col] = np.float32(obs[n, o_hand + c]) * np.float32(0.5)
            col += 1
        for c in range(c53):
            dense[n, col] = np.float32(obs[n, o_pile + c]) * np.float32(0.5)
            col += 1
        for c in range(c53):
            dense[n, col] = np.float32(obs[n, o_top + c])
            col += 1
        for c in range(c53):
            dense[n, col] = np.float32(obs[n, o_peek + c])
            col += 1
        for c in range(2 * c53):
            dense[n, col] = np.float32(obs[n, o_table + c]) * np.float32(0.5)
            col += 1
        for c in range(n_known):
            dense[n, col] = np.float32(obs[n, o_known + c]) * np.float32(0.5)
            col += 1
        for c in range(num_players):
            dense[n, col] = np.float32(obs[n, o_sizes + c]) / np.float32(11.0)
            col += 1
        for c in range(n_muerto):
            dense[n, col] = np.float32(obs[n, o_muertos + c]) * np.float32(0.25)
            col += 1
        for c in range(NUM_PHASES):
            dense[n, col] = np.float32(obs[n, o_phase + c])
            col += 1
        for c in range(NUM_MISC):
            v = np.float32(obs[n, o_misc + c])
            mag = np.float32(np.log1p(np.float32(abs(v))))
            dense[n, col] = mag if v > 0 else (-mag if v < 0 else np.float32(0.0))
            col += 1
        # the meld rows in use, and which cards fit them
        fits[:] = 0.0
        for m in range(num_rows):
            base = o_melds + m * MELD_OBS_FIELDS
            if obs[n, base + MF_KIND] <= 0:
                continue
            for f in range(MELD_OBS_FIELDS):
                r[f] = obs[n, base + f]
            used[u] = n * num_rows + m
            if with_cards:
                _mark_fits(r, m // MAX_MELDS, fits)
            key = _meld_key(r)
            if key >= 0:
                h = _mix(key) & (size - 1)
                while keys[h] >= 0 and keys[h] != key:
                    h = (h + 1) & (size - 1)
                if keys[h] == key:
                    meld_of[u] = slots[h]
                    u += 1
                    continue
                keys[h] = key
                slots[h] = distinct
            meld_of[u] = distinct
            x = meld_x[distinct]
            distinct += 1
            x[min(max(r[MF_KIND], 0), 3)] = 1.0
            x[4 + min(max(r[MF_KEY], 0), 12)] = 1.0
            x[17 + min(max(r[MF_LO], 0), 14)] = 1.0
            x[32 + min(max(r[MF_HI], 0), 14)] = 1.0
            x[47 + min(max(r[MF_GAP], 0), 14)] = 1.0
            x[62 + min(max(r[MF_WILD], 0), c53)] = 1.0
            k = 62 + c53 + 1
            x[k] = np.float32(r[MF_SIZE]) / np.float32(14.0)
            for s in range(4):
                x[k + 1 + s] = np.float32(r[MF_N0 + s]) / np.float32(2.0)
            x[k + 5] = np.float32(r[MF_NJOKER]) / np.float32(2.0)
            for f in range(3):
                x[k + 6 + f] = np.float32(r[NUM_MELD_FIELDS + f])
            u += 1
        if not with_cards:
            continue
        # the per-card features
        for c in range(c53):
            hand[c] = obs[n, o_hand + c]
            pile[c] = obs[n, o_pile + c]
            t0[c] = obs[n, o_table + c]
            t1[c] = obs[n, o_table + c53 + c]
            opp[c] = 0.0
            partner[c] = 0.0
        for p in range(num_players - 1):
            for c in range(c53):
                if p % 2 == 0:
                    opp[c] += obs[n, o_known + p * c53 + c]
                else:
                    partner[c] += obs[n, o_known + p * c53 + c]
        for c in range(c53):
            f = cards[n, c]
            f[0] = fits[0, c]
            f[1] = fits[1, c]
            f[2] = hand[c] * np.float32(0.5)
            f[3] = pile[c] * np.float32(0.5)
            f[4] = t0[c] * np.float32(0.5)
            f[5] = t1[c] * np.float32(0.5)
            f[6] = opp[c] * np.float32(0.5)
            f[7] = partner[c] * np.float32(0.5)
            f[8] = np.float32(obs[n, o_top + c])
            f[9] = (hand[c] + pile[c] + t0[c] + t1[c] + opp[c] + partner[c]) * np.float32(0.5)
        if not card_context:
            continue
        for s in range(4):
            for rank in range(NUM_RANK):
                c = s * NUM_RANK + rank
                f = cards[n, c]
                for k in range(2):  # run neighbours one and two ranks away
                    dist = k + 1
                    near = 0
                    if rank == 0:  # the ace: next to the 2 (and 3) and to the king (queen)
                        near += _held(hand, s, dist) + _held(hand, s, NUM_RANK - dist)
                    else:
                        for q in (rank - dist, rank + dist):
                            if 0 <= q <= NUM_RANK:  # NUM_RANK: the ace above the king
                                near += _held(hand, s, q % NUM_RANK)
                    f[10 + k] = np.float32(near) * np.float32(0.5)
                copies_hand = np.float32(0.0)
                copies_pile = np.float32(0.0)
                copies_opp = np.float32(0.0)
                copies_table = np.float32(0.0)
                for s2 in range(4):
                    c2 = s2 * NUM_RANK + rank
                    copies_hand += hand[c2]
                    copies_pile += pile[c2]
                    copies_opp += opp[c2]
                    copies_table += t1[c2]
                f[12] = copies_hand * np.float32(0.25)
                f[13] = copies_pile * np.float32(0.25)
                f[14] = copies_opp * np.float32(0.5)
                f[15] = copies_table * np.float32(0.25)
        f = cards[n, c53 - 1]  # the joker: no run neighbours, no rank
        for k in range(10, 16):
            f[k] = 0.0
    return distinct


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


@njit(cache=True, nogil=True)
def _held(hand, suit, rank):
    """1 if the hand holds the card of ``suit`` and ``rank`` (0 = ace ... 12 = king)."""
    return 1 if hand[suit * NUM_RANK + rank] > 0 else 0


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
