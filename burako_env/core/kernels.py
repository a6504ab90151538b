"""The core's kernels: every game of a batch in parallel (``prange``), no Python per game,
and one game alone without the thread pool (a batch of one)."""

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
    ERR_OK,
    S_DONE,
    S_HAND_JUST_ENDED,
    S_HAND_SCORE0,
    S_HAND_SCORE1,
    S_MATCH0,
    S_MATCH1,
    S_PLAYER,
    S_WINNER,
)
from burako_env.core.observe import observe_one_nb
from burako_env.core.rng import randint_nb
from burako_env.core.rules import action_error_nb, apply_action_nb, legal_actions_nb, reset_game_nb
from burako_env.jit import borrowed, njit, njit_kernel, njit_parallel, prange, run_sliced

#: this module defines compiled functions (agents/kernel_cache.py reads the mark)
KERNEL_MODULE = True

# One kernel per family. numba links a kernel's whole call tree into the kernel's own
# machine code, so each kernel that reaches the rules compiles the rule set once more
# (docs/BENCHMARKS.md, "Compile time"): the batch operations share one parallel kernel,
# the one-game operations one serial kernel, each picking its operation by a number.
#: what :func:`batch_kernel` does to every game
BATCH_RESET = 0  # deal a new episode where which[b], refresh the legal actions
BATCH_STEP = 1  # apply actions[b] if listed (negative: skip); ERR_UNLISTED in errors[b] if not
BATCH_STEP_AUTORESET = 2  # the same, dealing again a game whose episode ended
BATCH_CHECK = 3  # only whether actions[b] is listed (negative: ERR_OK), nothing moves
BATCH_LEGAL = 4  # refresh the legal actions (a position set up by hand)
#: what :func:`game_kernel` does to game ``b``
GAME_STEP = 0  # apply ``a`` if listed, refresh the legal actions; ERR_OK or ERR_UNLISTED
GAME_RESET = 1  # deal a new episode, refresh the legal actions
GAME_OBSERVE = 3  # the observation of ``viewer`` into ``obs``
GAME_LEGAL = 4  # refresh the legal actions
GAME_STEP_DECISION = 5  # GAME_STEP, then the next decision (obs of the player to act, mask)
GAME_RESET_DECISION = 6  # GAME_RESET, then the first decision

# The stepping kernels accept an action when it is in the game's legal list (kept current
# by every kernel that moves a game), which the mask tests hold equal to what
# ``rules.action_error_nb`` accepts. Only a refused action needs its reason, and only then
# is ``action_error_nb`` run, in a kernel of its own (:func:`error_kernel`): the stepping
# kernels, and so every command that only plays legal moves, never compile the legality
# checks a second time beside the enumeration (docs/BENCHMARKS.md, "Compile time").
#: a kernel's code for "not in the legal list"; the Python wrappers below replace it by
#: the reason (an ERR_* code), so it never reaches a caller
ERR_UNLISTED = -1


@njit
def listed_nb(st, b, a):
    """True when ``a`` is one of game ``b``'s legal actions."""
    for i in range(st.num_legal[b]):
        if st.legal[b, i] == a:
            return True
    return False


@njit
def refresh_legal_nb(st, b, params):
    st.num_legal[b] = legal_actions_nb(st, b, params, st.legal[b])


@njit
def sorted_legal_nb(st, b, params, legal):
    """Refresh game ``b``'s legal list and write its actions ascending into ``legal`` (as
    a mask would list them, which the policies expect); returns their count, which the
    caller stores in ``st.num_legal[b]``.

    It does not store the count itself, so that no kernel relies on a write through an
    attribute of the state from a ``prange`` body, which numba may lose (issues 5872,
    7135 and 10338; see ``burako_env.table.kernel.play_kernel``).
    """
    n = legal_actions_nb(st, b, params, st.legal[b])
    for i in range(n):
        a = np.int64(st.legal[b, i])
        m = i
        while m > 0 and legal[m - 1] > a:
            legal[m] = legal[m - 1]
            m -= 1
        legal[m] = a
    return n


@njit_parallel
def batch_kernel(st, params, op, which, actions, errors, episode_match, ended, final):
    """Operation ``op`` (BATCH_*) on every game of the batch in parallel. The arrays an
    operation does not read may be empty: ``which`` (bool, RESET), ``actions`` and
    ``errors`` (STEP, STEP_AUTORESET, CHECK), ``ended`` and ``final`` (STEP_AUTORESET:
    a game whose episode ends reports ``ended[b]`` and ``final[b]``, hand score 0, 1,
    match points 0, 1, winner, and is dealt a new episode at once, from its own
    generator). Illegal actions leave their game untouched and get ERR_UNLISTED.

    Parallel with ``prange``, which compiles the rules twice
    (:func:`~burako_env.jit.slicing.run_sliced` says why), and not on Python threads: a
    ``VectorEnv`` steps it between the observation and mask kernels, and with it on
    Python threads beside those on numba's a step of 1,024 games ran at 0.71 times the
    speed (docs/BENCHMARKS.md)."""
    for b_ in prange(st.scalars.shape[0]):
        # one type for the index in numba's serial typing and in the parallel
        # body (int64, then uint64): every callee compiles once, unsigned
        b = np.uint64(b_)
        if op == BATCH_RESET:
            if which[b]:
                reset_game_nb(st, b, params, episode_match)
                refresh_legal_nb(st, b, params)
            continue
        if op == BATCH_LEGAL:
            refresh_legal_nb(st, b, params)
            continue
        a = actions[b]
        if op == BATCH_STEP_AUTORESET:
            ended[b] = False
        elif a < 0:  # STEP and CHECK skip a game; the autoreset step plays them all
            errors[b] = ERR_OK
            continue
        err = ERR_OK if listed_nb(st, b, a) else ERR_UNLISTED
        errors[b] = err
        if err != ERR_OK or op == BATCH_CHECK:
            continue
        apply_action_nb(st, b, a, params)
        if op == BATCH_STEP_AUTORESET:
            s = st.scalars[b]
            if s[S_DONE]:
                ended[b] = True
                final[b, 0] = s[S_HAND_SCORE0]
                final[b, 1] = s[S_HAND_SCORE1]
                final[b, 2] = s[S_MATCH0]
                final[b, 3] = s[S_MATCH1]
                final[b, 4] = s[S_WINNER]
                reset_game_nb(st, b, params, episode_match)
        refresh_legal_nb(st, b, params)


# the arrays an operation does not read (never indexed: one shared empty array each)
_NO_WHICH = np.zeros(0, np.bool_)
_NO_ACTIONS = np.zeros(0, np.int64)
_NO_ERRORS = np.zeros(0, np.int32)
_NO_ENDED = np.zeros(0, np.bool_)
_NO_FINAL = np.zeros((0, 5), np.int32)


def reset_games(st, params, episode_match: int, which: np.ndarray) -> None:
    """Deal a new episode in every game with ``which[b]``; refreshes the legal actions."""
    batch_kernel(
        st,
        params,
        BATCH_RESET,
        which,
        _NO_ACTIONS,
        _NO_ERRORS,
        episode_match,
        _NO_ENDED,
        _NO_FINAL,
    )


@njit_kernel
def error_kernel(st, params, games, actions, errors, first, last):
    """``errors[i]``, i = ``first`` to ``last - 1``: the ERR_* code of ``actions[i]`` in
    game ``games[i]`` (ERR_OK when legal), from the legality checks themselves; nothing
    moves."""
    st = borrowed(st)
    games, actions, errors = borrowed((games, actions, errors))
    for i_ in range(first, last):
        i = np.uint64(i_)
        errors[i] = action_error_nb(st, np.uint64(games[i]), actions[i], params)


def action_errors_of(st, params, games: np.ndarray, actions: np.ndarray) -> np.ndarray:
    """The ERR_* codes (int32) of ``actions[i]`` in game ``games[i]``."""
    errors = np.empty(len(games), np.int32)
    games = np.ascontiguousarray(games, np.int64)
    actions = np.ascontiguousarray(actions, np.int64)
    run_sliced(error_kernel, len(games), st, params, games, actions, errors)
    return errors


def refusal_reasons(st, params, games: np.ndarray, actions: np.ndarray) -> np.ndarray:
    """The ERR_* codes of actions a stepping kernel refused (not in the legal list). A
    legal one among them means the list is out of date, which no kernel leaves behind:
    a position edited by hand without ``Game.refresh_legal()``; that raises."""
    errors = action_errors_of(st, params, games, actions)
    stale = np.flatnonzero(errors == ERR_OK)
    if stale.size:
        b, a = int(np.asarray(games)[stale[0]]), int(np.asarray(actions)[stale[0]])
        raise RuntimeError(
            f"game {b}: action {a} is legal but missing from the game's legal list, which "
            "is out of date (a position edited by hand? call Game.refresh_legal() after "
            "editing the state)"
        )
    return errors


def _explain(st, params, actions: np.ndarray, errors: np.ndarray) -> None:
    """Replace each ERR_UNLISTED in ``errors`` by the action's reason."""
    refused = np.flatnonzero(errors == ERR_UNLISTED)
    if refused.size:
        errors[refused] = refusal_reasons(st, params, refused, actions[refused])


def step_games(st, params, actions: np.ndarray, errors: np.ndarray) -> None:
    """Apply ``actions[b]`` to each game (negative: skip). Illegal actions leave the game
    untouched and report their ERR_* code in ``errors``."""
    batch_kernel(st, params, BATCH_STEP, _NO_WHICH, actions, errors, 0, _NO_ENDED, _NO_FINAL)
    _explain(st, params, actions, errors)


def check_games(st, params, actions: np.ndarray, errors: np.ndarray) -> None:
    """The ERR_* code of ``actions[b]`` in each game into ``errors`` (negative: ERR_OK);
    no game moves."""
    batch_kernel(st, params, BATCH_CHECK, _NO_WHICH, actions, errors, 0, _NO_ENDED, _NO_FINAL)
    _explain(st, params, actions, errors)


def step_games_autoreset(st, params, actions, errors, episode_match: int, ended, final) -> None:
    """:func:`step_games` for training: every game plays ``actions[b]``; a game whose
    episode ends reports its result in ``ended[b]`` and ``final[b]`` (hand score 0, 1,
    match points 0, 1, winner) and is dealt a new episode at once, from its own
    generator."""
    batch_kernel(
        st, params, BATCH_STEP_AUTORESET, _NO_WHICH, actions, errors, episode_match, ended, final
    )
    _explain(st, params, actions, errors)


def refresh_legal_games(st, params) -> None:
    """Recompute every game's legal actions (after a position was set up by hand)."""
    batch_kernel(
        st, params, BATCH_LEGAL, _NO_WHICH, _NO_ACTIONS, _NO_ERRORS, 0, _NO_ENDED, _NO_FINAL
    )


@njit_parallel
def mask_kernel(st, mask):
    """The boolean mask [B, NUM_ACTIONS] from the cached legal actions."""
    for b_ in prange(st.scalars.shape[0]):
        b = np.uint64(b_)
        row = mask[b]
        row[:] = False
        for i in range(st.num_legal[b]):
            row[st.legal[b, i]] = True


@njit_parallel
def observe_kernel(st, params, viewers, lay, out):
    """Observation of ``viewers[b]`` (-1: the player to act) for each game."""
    for b_ in prange(st.scalars.shape[0]):
        b = np.uint64(b_)
        v = viewers[b]
        if v < 0:
            v = st.scalars[b, S_PLAYER]
        observe_one_nb(st, b, v, params, lay, out[b])


@njit_kernel
def random_playout_kernel(
    st, params, agent_rng, episode_match, episodes, max_steps, stats, first, last
):
    """Uniformly random legal play, entirely compiled: each game slot from ``first`` to
    ``last - 1`` plays ``episodes`` episodes. ``stats[b]`` gets episodes, steps, hands
    ended, games hitting max_steps. :func:`random_playout` runs it over a batch."""
    st = borrowed(st)
    agent_rng, stats = borrowed((agent_rng, stats))
    for b_ in range(first, last):
        b = np.uint64(b_)
        done_eps = 0
        steps = 0
        hands = 0
        capped = 0
        reset_game_nb(st, b, params, episode_match)
        ep_steps = 0
        while done_eps < episodes:
            n = legal_actions_nb(st, b, params, st.legal[b])
            a = st.legal[b, randint_nb(agent_rng[b][::1], n)]  # [::1]: layout as st.rng[b]
            apply_action_nb(st, b, a, params)
            steps += 1
            ep_steps += 1
            if st.scalars[b, S_HAND_JUST_ENDED]:
                hands += 1
            if st.scalars[b, S_DONE] or ep_steps >= max_steps:
                if ep_steps >= max_steps and not st.scalars[b, S_DONE]:
                    capped += 1
                done_eps += 1
                ep_steps = 0
                if done_eps < episodes:
                    reset_game_nb(st, b, params, episode_match)
        stats[b, 0] = done_eps
        stats[b, 1] = steps
        stats[b, 2] = hands
        stats[b, 3] = capped


def random_playout(st, params, agent_rng, episode_match, episodes, max_steps, stats) -> None:
    """:func:`random_playout_kernel` over every game of the batch, on numba's thread
    count (:func:`~burako_env.jit.slicing.run_sliced`)."""
    args = (st, params, agent_rng, episode_match, episodes, max_steps, stats)
    run_sliced(random_playout_kernel, st.scalars.shape[0], *args)


# ------------------------------------------------------------------ one game, no threads
# A batch of one (the PettingZoo env, burako play, the web table) skips the thread pool.
@njit
def write_decision_nb(st, params, b, lay, obs, mask):
    """Observation of the player to act and the mask (int8) of game ``b``."""
    for i in range(mask.shape[0]):
        mask[i] = 0
    for i in range(st.num_legal[b]):
        mask[st.legal[b, i]] = 1
    observe_one_nb(st, b, np.int64(st.scalars[b, S_PLAYER]), params, lay, obs)


@njit_kernel
def game_kernel(st, params, op, b, a, episode_match, viewer, lay, obs, mask):
    """Operation ``op`` (GAME_*) on game ``b`` alone; returns ERR_OK, or ERR_UNLISTED for
    an ``a`` not in the legal list (nothing moves; :func:`action_errors_of` says why).
    ``obs`` and ``mask`` may be empty where ``op`` writes no observation; a decision
    writes the player to act's observation and mask (int8)."""
    # the batch kernel's index type: the rule functions it reaches are the same
    # compilations here (numba compiles a function once per argument types)
    g = np.uint64(b)
    st = borrowed(st)  # one game's whole life in compiled code: no counting of its arrays
    lay, obs, mask = borrowed((lay, obs, mask))
    if op == GAME_OBSERVE:
        observe_one_nb(st, g, viewer, params, lay, obs)
        return ERR_OK
    if op == GAME_RESET or op == GAME_RESET_DECISION:
        reset_game_nb(st, g, params, episode_match)
    elif op == GAME_STEP or op == GAME_STEP_DECISION:
        if not listed_nb(st, g, a):
            return ERR_UNLISTED
        apply_action_nb(st, g, a, params)
    refresh_legal_nb(st, g, params)
    if op == GAME_STEP_DECISION or op == GAME_RESET_DECISION:
        write_decision_nb(st, params, g, lay, obs, mask)
    return ERR_OK


#: what :func:`game_kernel` takes for ``obs`` and ``mask`` where it writes none
NO_OBS = np.zeros(0, np.int16)
NO_MASK = np.zeros(0, np.int8)
