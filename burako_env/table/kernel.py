"""The table's compiled play loop: :func:`play_kernel` deals games and plays each inside
numba until it ends or waits for a seat whose agent decides outside the kernel (a Python
agent, or a learner that the caller plays). :class:`burako_env.table.Table` runs it; no
other module calls it.

Rules for a kernel author here (the cache and the compile depend on them):

* a kernel module of this folder imports from the agents only kernel modules
  (``policies``, ``policy_context``, ...) and classes: its cache entries are stamped
  with the core's sources and the kernel modules of ``agents/`` and of this folder
  (``burako_env.agents.kernel_cache``), and nothing else can change its machine code;
* the loop is serial over a slice ``first..last`` of the batch and takes its arrays as
  :func:`~burako_env.jit.borrowing.borrowed` (``run_sliced`` runs slices on threads: a
  ``prange`` would compile the rules twice);
* every game index is ``np.uint64`` so that callees compile once.
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

from burako_env.agents.policies import POLICY_RANDOM, decide_nb
from burako_env.core.constants import NUM_ACTIONS, S_DONE, S_PLAYER
from burako_env.core.kernels import sorted_legal_nb
from burako_env.core.observe import observe_one_nb
from burako_env.core.rules import apply_action_nb, reset_game_nb
from burako_env.jit import borrowed, njit_kernel

#: this module defines compiled functions (agents/kernel_cache.py reads the mark)
KERNEL_MODULE = True

#: ``kinds`` entry of a seat whose agent decides outside the kernel (a torch policy, a
#: search, a learner): the kernel stops a game where such a seat is to act, and resumes
#: it with its move
POLICY_EXTERNAL = -1
#: what :func:`play_kernel` does
PLAY_DEAL = 0  # deal every game and play it until it ends or waits for an external seat
PLAY_RESUME = 1  # apply moves[b] to each waiting game, then play on as PLAY_DEAL does


@njit_kernel
def play_kernel(
    st,
    params,
    episode_match,
    op,
    lay,
    seat_agent,
    kinds,
    weights,
    agent_rng,
    obs,
    x,
    rows,
    moves,
    waiting,
    mask,
    record,
    actions,
    n_actions,
    max_steps,
    first,
    last,
):
    """Deal games ``first`` to ``last - 1`` of the batch (each from its own generator)
    and play each inside numba until it ends, or until a seat whose agent is
    ``POLICY_EXTERNAL`` is to act: then ``waiting[b]`` is set, ``obs[b]`` holds that
    seat's observation and ``mask[b]`` its legal actions, and a ``PLAY_RESUME`` call
    applies ``moves[b]`` (legal: the caller checks it) and plays on. One kernel for
    every pairing, so a tournament compiles no other kernel that reaches the rules.
    Serial: :func:`~burako_env.jit.slicing.run_sliced` plays slices of the batch on numba's
    thread count (a ``prange`` would compile the rules twice).

    ``seat_agent[b, p]`` indexes ``kinds`` / ``weights`` (the policy of seat p in game b);
    ``agent_rng[b, p]`` is that seat's generator. With ``record``, ``actions[b, i]`` gets
    the i-th action of game b; ``n_actions[b]`` the count so far (-1 if max_steps cut it
    off).
    """
    st = borrowed(st)
    seat_agent, kinds, weights, agent_rng = borrowed((seat_agent, kinds, weights, agent_rng))
    obs, x, rows, moves, waiting, mask = borrowed((obs, x, rows, moves, waiting, mask))
    actions, n_actions = borrowed((actions, n_actions))
    for b_ in range(first, last):
        b = np.uint64(b_)  # the index type of every kernel: callees compile once
        if op == PLAY_DEAL:
            steps = 0
            reset_game_nb(st, b, params, episode_match)
        else:
            if not waiting[b]:
                continue
            waiting[b] = False
            steps = n_actions[b]
            a = moves[b]
            if record:
                if steps < actions.shape[1]:
                    actions[b, steps] = a
            apply_action_nb(st, b, a, params)
            steps += 1
        legal = np.empty(NUM_ACTIONS, np.int64)
        n = sorted_legal_nb(st, b, params, legal)
        while st.scalars[b, S_DONE] == 0:
            if steps >= max_steps:
                steps = -1
                break
            p = st.scalars[b, S_PLAYER]
            ag = seat_agent[b, p]
            kind = kinds[ag]
            if kind == POLICY_EXTERNAL:
                observe_one_nb(st, b, np.int64(p), params, lay, obs[b])
                row = mask[b]
                row[:] = False
                for i in range(n):
                    row[legal[i]] = True
                waiting[b] = True
                break
            if kind != POLICY_RANDOM and n > 1:
                observe_one_nb(st, b, np.int64(p), params, lay, obs[b])
            a = decide_nb(kind, obs[b], legal, n, lay, agent_rng[b, p], weights[ag], x[b], rows[b])
            if record:
                if steps < actions.shape[1]:
                    actions[b, steps] = a
            apply_action_nb(st, b, a, params)
            n = sorted_legal_nb(st, b, params, legal)
            steps += 1
        st.num_legal[b] = n
        n_actions[b] = steps


__all__ = ["POLICY_EXTERNAL", "PLAY_DEAL", "PLAY_RESUME", "play_kernel"]
