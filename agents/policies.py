"""Heuristic policies compiled with numba: ``random``, ``greedy`` and ``discard_table``.

Every policy decides from one observation row and the legal actions (the indices where
the mask is true, ascending) and nothing else, so it sees only what a player may see
(RULES.md section 10). The same code serves three callers:

* :func:`act_batch`: a batch of observations and masks (``Agent.act``), in parallel;
* :func:`decide_nb`: one decision inside another numba kernel, e.g. the tournament kernel
  that plays whole games without leaving compiled code;
* ``Agent.act_one``: a batch of one.

A policy is a ``kind`` (``POLICY_*``) and a float64 ``weights`` vector (``W_*``, defaults
in :func:`~burako_env.agents.policy_scores.default_weights`), so variants of a heuristic
are data, not code.

This module is the move choice: each policy's phase by phase decision and the batch
acting. What a decision reads from the observation (the workspace,
:func:`~burako_env.agents.policy_context.read_context_nb`) is
:mod:`burako_env.agents.policy_context`; the scores it weighs (the value of keeping a
card, the danger of a discard, the score of a meld, the weights) are
:mod:`burako_env.agents.policy_scores`.
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
    X_PARAMS,
    X_SC,
    XS_MIN_NEED,
    XS_PEEK,
    XS_PHASE,
    XS_PILE_N,
    layout_of_obs,
    new_workspace,
    read_context_nb,
)
from burako_env.agents.policy_scores import (
    W_PILE_MAX_LATE,
    W_TAKE_PILE_USEFUL,
    default_weights,
    going_out_ok_nb,
    greedy_keep_value_nb,
    greedy_meld_score_nb,
    hand_ending_nb,
    keep_value_nb,
    meld_potential_nb,
    pile_meldable_nb,
    pile_useful_count_nb,
    table_discard_cost_nb,
    table_meld_score_nb,
)
from burako_env.core.constants import (
    DISCARD_BASE,
    DRAW_STOCK,
    NUM_ACTIONS,
    NUM_VARIANT_FEATURES,
    PEEK_KEEP,
    PEEK_REJECT,
    PHASE_DRAW,
    PHASE_PEEK,
    TAKE_MUERTO_KEEP_WILDS,
    TAKE_PILE,
)
from burako_env.core.melds import card_value_nb, is_wild_card_nb
from burako_env.core.rng import randint_nb
from burako_env.jit import njit, njit_kernel, njit_parallel, prange

#: this module defines compiled functions (agents/kernel_cache.py reads the mark)
KERNEL_MODULE = True

POLICY_RANDOM = 0  #: the ``kind`` of ``random``: a uniformly random legal action
POLICY_GREEDY = 1  #: the ``kind`` of ``greedy``
POLICY_DISCARD_TABLE = 2  #: the ``kind`` of ``discard_table`` (the ``W_*`` weights)
POLICY_NAMES = ("random", "greedy", "discard_table")  #: the names, by ``kind``


# ---------------------------------------------------------------- greedy
@njit
def greedy_decide_nb(obs, legal, n, lay, rng, w, x, rows):
    read_context_nb(obs, lay, x, rows)
    sc = x[X_SC : X_SC + 32]
    phase = sc[XS_PHASE]
    cards = np.empty(3, np.int64)
    if phase == PHASE_PEEK:
        c = sc[XS_PEEK]
        if c >= 0 and (is_wild_card_nb(c) or greedy_keep_value_nb(x, rows, c) >= 40):
            return PEEK_KEEP
        return PEEK_REJECT
    if phase == PHASE_DRAW:
        can_take = False
        for j in range(n):
            if legal[j] == TAKE_PILE:
                can_take = True
        if can_take and pile_meldable_nb(x, rows):
            return TAKE_PILE
        return DRAW_STOCK
    best = -1
    best_score = -1e18
    for j in range(n):
        a = legal[j]
        if a >= DISCARD_BASE or a < TAKE_MUERTO_KEEP_WILDS:
            continue
        s = greedy_meld_score_nb(x, rows, legal, n, a, cards)
        if s > best_score:
            best_score = s
            best = a
    if best >= 0:
        return best
    # discard the least useful card, the highest value among equals
    params = x[X_PARAMS : X_PARAMS + NUM_VARIANT_FEATURES]
    best_cost = 1e18
    for j in range(n):
        a = legal[j]
        if a < DISCARD_BASE:
            continue
        c = a - DISCARD_BASE
        cost = greedy_keep_value_nb(x, rows, c) * 100.0 - card_value_nb(c, params)
        if cost < best_cost:
            best_cost = cost
            best = a
    if best < 0:
        best = legal[randint_nb(rng, n)]
    return best


# ---------------------------------------------------------------- discard table
@njit
def table_decide_nb(obs, legal, n, lay, rng, w, x, rows):
    read_context_nb(obs, lay, x, rows)
    sc = x[X_SC : X_SC + 32]
    phase = sc[XS_PHASE]
    cards = np.empty(3, np.int64)
    if phase == PHASE_PEEK:
        c = sc[XS_PEEK]
        if c >= 0 and keep_value_nb(x, rows, c, np.int64(1)) >= 40:
            return PEEK_KEEP
        return PEEK_REJECT
    if phase == PHASE_DRAW:
        can_take = False
        for j in range(n):
            if legal[j] == TAKE_PILE:
                can_take = True
        if not can_take:
            return DRAW_STOCK
        if pile_meldable_nb(x, rows):
            return TAKE_PILE
        if hand_ending_nb(x, w) and sc[XS_PILE_N] > w[W_PILE_MAX_LATE]:
            return DRAW_STOCK
        if pile_useful_count_nb(x, rows) >= w[W_TAKE_PILE_USEFUL]:
            return TAKE_PILE
        return DRAW_STOCK
    out_ok = going_out_ok_nb(x, rows, w)
    best = -1
    best_score = 0.0
    # min_first_meld: lay nothing unless this turn can reach the minimum
    can_meld = sc[XS_MIN_NEED] <= 0 or meld_potential_nb(x, legal, n, cards) >= sc[XS_MIN_NEED]
    for j in range(n):
        if not can_meld:
            break
        a = legal[j]
        if a >= DISCARD_BASE or a < TAKE_MUERTO_KEEP_WILDS:
            continue
        s = table_meld_score_nb(x, rows, legal, n, a, cards, w, out_ok)
        if s > best_score:
            best_score = s
            best = a
    if best >= 0:
        return best
    best_cost = 1e18
    for j in range(n):
        a = legal[j]
        if a < DISCARD_BASE:
            continue
        c = a - DISCARD_BASE
        cost = table_discard_cost_nb(x, rows, c, w)
        if cost < best_cost:
            best_cost = cost
            best = a
    if best < 0:
        # only melds we did not want (say: going out while behind): take the best of them
        best_score = -1e18
        for j in range(n):
            a = legal[j]
            s = table_meld_score_nb(x, rows, legal, n, a, cards, w, np.bool_(True))
            if s > best_score:
                best_score = s
                best = a
    return best


# ---------------------------------------------------------------- dispatch
@njit
def decide_nb(kind, obs, legal, n, lay, rng, w, x, rows):
    """One action for policy ``kind`` from an observation and its ``n`` legal actions
    (``legal[:n]``, ascending). ``rng`` (int64[4]) is the decision's generator state;
    ``x`` and ``rows`` a workspace row (:func:`new_workspace`)."""
    if n == 1:
        return int(legal[0])
    # [::1]: layout 'A' like the game state's rows and generator, so the functions of
    # rows (melds.py) and of generators (rng.py) compile once for both
    rows = rows[:, ::1]
    rng = rng[::1]
    if kind == POLICY_GREEDY:
        return int(greedy_decide_nb(obs, legal, n, lay, rng, w, x, rows))
    if kind == POLICY_DISCARD_TABLE:
        return int(table_decide_nb(obs, legal, n, lay, rng, w, x, rows))
    return int(legal[randint_nb(rng, n)])


@njit
def act_row_nb(kind, obs, mask, lay, rng, w, x, rows, legal):
    n = 0
    for a in range(NUM_ACTIONS):
        if mask[a]:
            legal[n] = a
            n += 1
    if n == 0:
        return -1
    return decide_nb(kind, obs, legal, n, lay, rng, w, x, rows)


@njit_parallel
def act_kernel(kind, obs, mask, lay, rng, w, x, rows, out):
    """:func:`decide_nb` for every row of a batch, from the boolean mask."""
    for b_ in prange(obs.shape[0]):
        # one type for the index in numba's serial typing and in the parallel
        # body (int64, then uint64): every callee compiles once, unsigned
        b = np.uint64(b_)
        legal = np.empty(NUM_ACTIONS, np.int64)
        out[b] = act_row_nb(kind, obs[b], mask[b], lay, rng[b], w, x[b], rows[b], legal)


@njit_kernel
def act_serial(kind, obs, mask, lay, rng, w, x, rows, out):
    """:func:`act_kernel` on the calling thread (small batches: no thread pool)."""
    legal = np.empty(NUM_ACTIONS, np.int64)
    for b in range(obs.shape[0]):
        out[b] = act_row_nb(kind, obs[b], mask[b], lay, rng[b], w, x[b], rows[b], legal)


def act_batch(
    kind: int,
    obs: np.ndarray,
    mask: np.ndarray,
    rng: np.ndarray,
    weights=None,
    lay: tuple | None = None,
) -> np.ndarray:
    """Actions of policy ``kind`` for a batch: ``obs`` int16 [B, O], ``mask`` bool [B, A],
    ``rng`` int64 [B, 4] generator states (advanced in place). A row whose mask is all
    false (a finished game) gets -1, which ``Game.step`` reads as "skip"."""
    obs = np.ascontiguousarray(obs, dtype=np.int16)
    mask = np.ascontiguousarray(mask, dtype=np.bool_)
    if obs.ndim != 2 or mask.ndim != 2 or obs.shape[0] != mask.shape[0]:
        raise ValueError(f"obs [B, O] and mask [B, A] must share B: {obs.shape}, {mask.shape}")
    if mask.shape[1] != NUM_ACTIONS:
        raise ValueError(f"the mask must have {NUM_ACTIONS} columns, got {mask.shape[1]}")
    if lay is None:
        lay = layout_of_obs(obs[0])
    w = default_weights() if weights is None else np.ascontiguousarray(weights, np.float64)
    x, rows = new_workspace(obs.shape[0])
    out = np.empty(obs.shape[0], np.int64)
    kernel = act_serial if obs.shape[0] < 8 else act_kernel
    kernel(int(kind), obs, mask, tuple(int(v) for v in lay), rng, w, x, rows, out)
    return out


@njit_kernel
def legal_lists_kernel(mask, ids, counts):
    """Row i's legal ids (``mask[i]`` true) into ``ids[i, :counts[i]]``: the network's
    legal lists (:func:`burako_env.agents.network.legal_lists`). Here, in a kernel module, so that
    the network's module holds no kernel and its edits leave the compiled ones cached."""
    n, a = mask.shape
    for i in range(n):
        k = 0
        for j in range(a):
            if mask[i, j]:
                ids[i, k] = j
                k += 1
        counts[i] = k


# the reference (scripts/tools/build_api_docs.py) documents these; the rest are the kernels'
# internals
__all__ = [
    "POLICY_RANDOM",
    "POLICY_GREEDY",
    "POLICY_DISCARD_TABLE",
    "POLICY_NAMES",
    "decide_nb",
    "act_batch",
    "legal_lists_kernel",
]
