"""Batch kernels: every game of a batch in parallel (``prange``), no Python per game."""

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
from burako_env.core.nb import njit, njit_parallel, prange
from burako_env.core.observe import observe_one
from burako_env.core.rng import randint
from burako_env.core.rules import action_error, apply_action, legal_actions, reset_game


@njit
def refresh_legal(st, b, params):
    st.num_legal[b] = legal_actions(st, b, params, st.legal[b])


@njit_parallel
def reset_kernel(st, params, episode_match, which):
    """Deal a new episode in every game with ``which[b]``; refreshes the legal actions."""
    for b_ in prange(st.scalars.shape[0]):
        # one type for the index in numba's serial typing and in the parallel
        # body (int64, then uint64): every callee compiles once, unsigned
        b = np.uint64(b_)
        if which[b]:
            reset_game(st, b, params, episode_match)
            refresh_legal(st, b, params)


@njit_parallel
def step_kernel(st, params, actions, errors):
    """Apply ``actions[b]`` to each game (negative: skip). Illegal actions leave the game
    untouched and report their ERR_* code in ``errors``."""
    for b_ in prange(st.scalars.shape[0]):
        b = np.uint64(b_)
        a = actions[b]
        if a < 0:
            errors[b] = ERR_OK
            continue
        err = action_error(st, b, a, params)
        errors[b] = err
        if err == ERR_OK:
            apply_action(st, b, a, params)
            refresh_legal(st, b, params)


@njit_parallel
def step_autoreset_kernel(st, params, actions, errors, episode_match, ended, final):
    """:func:`step_kernel` for training: a game whose episode ends reports its result in
    ``ended[b]`` and ``final[b]`` (hand score 0, 1, match points 0, 1, winner) and is dealt
    a new episode at once, from its own generator."""
    for b_ in prange(st.scalars.shape[0]):
        b = np.uint64(b_)
        ended[b] = False
        a = actions[b]
        err = action_error(st, b, a, params)
        errors[b] = err
        if err != ERR_OK:
            continue
        apply_action(st, b, a, params)
        s = st.scalars[b]
        if s[S_DONE]:
            ended[b] = True
            final[b, 0] = s[S_HAND_SCORE0]
            final[b, 1] = s[S_HAND_SCORE1]
            final[b, 2] = s[S_MATCH0]
            final[b, 3] = s[S_MATCH1]
            final[b, 4] = s[S_WINNER]
            reset_game(st, b, params, episode_match)
        refresh_legal(st, b, params)


@njit_parallel
def legal_kernel(st, params):
    for b_ in prange(st.scalars.shape[0]):
        b = np.uint64(b_)
        refresh_legal(st, b, params)


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
        observe_one(st, b, v, params, lay, out[b])


@njit_parallel
def random_playout_kernel(st, params, agent_rng, episode_match, episodes, max_steps, stats):
    """Uniformly random legal play, entirely compiled: each game slot plays ``episodes``
    episodes. ``stats[b]`` gets episodes, steps, hands ended, games hitting max_steps."""
    for b_ in prange(st.scalars.shape[0]):
        b = np.uint64(b_)
        done_eps = 0
        steps = 0
        hands = 0
        capped = 0
        reset_game(st, b, params, episode_match)
        ep_steps = 0
        while done_eps < episodes:
            n = legal_actions(st, b, params, st.legal[b])
            a = st.legal[b, randint(agent_rng[b], n)]
            apply_action(st, b, a, params)
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
                    reset_game(st, b, params, episode_match)
        stats[b, 0] = done_eps
        stats[b, 1] = steps
        stats[b, 2] = hands
        stats[b, 3] = capped


# ------------------------------------------------------------------ one game, no threads
# A batch of one (the PettingZoo env) skips the thread pool: these run game ``b`` alone.
@njit
def step_game(st, params, b, a):
    err = action_error(st, b, a, params)
    if err == ERR_OK:
        apply_action(st, b, a, params)
        refresh_legal(st, b, params)
    return err


@njit
def reset_game_one(st, params, b, episode_match):
    reset_game(st, b, params, episode_match)
    refresh_legal(st, b, params)


@njit
def observe_game(st, params, b, v, lay, out):
    observe_one(st, b, v, params, lay, out)


@njit
def action_error_game(st, params, b, a):
    return action_error(st, b, a, params)
