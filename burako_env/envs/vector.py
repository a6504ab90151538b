"""A batch of games for training and tournaments: B games in one object, auto-reset.

Each call returns, for every game, the acting player's observation and mask, its seat
and team; :meth:`VectorEnv.step` takes one action per game, and a game whose episode
ends reports its result in the info dict and is dealt a new episode at once.

    env = VectorEnv("argentine", num_envs=1024, seed=0)
    obs, mask, info = env.reset()
    while training:
        actions = policy(obs, mask)            # one legal action per game
        obs, mask, info = env.step(actions)
        info["ended"], info["team_rewards"]    # episodes that just ended, their rewards

The arrays returned are buffers reused by the next call: copy what you keep.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from burako_env.core import kernels
from burako_env.core.constants import ERR_OK, NUM_ACTIONS, S_PLAYER
from burako_env.core.game import Game, IllegalActionError
from burako_env.envs.rewards import check_reward, team_rewards
from burako_env.variants import Variant


class VectorEnv:
    """``num_envs`` games of one variant stepped in lockstep inside numba kernels."""

    def __init__(
        self,
        variant: str | Path | Variant | None = None,
        num_players: int | None = None,
        num_envs: int = 1024,
        seed: int = 0,
        episode: str = "hand",
        reward: str = "score",
        **overrides,
    ) -> None:
        self.reward = check_reward(reward)
        self.game = Game(variant, num_players, batch_size=num_envs, episode=episode, seed=seed,
                         **overrides)
        self.variant = self.game.variant
        self.num_envs = num_envs
        self.num_players = self.game.num_players
        self.observation_size = self.game.layout.size
        self.num_actions = NUM_ACTIONS
        self._seed = seed
        self._obs = np.zeros((num_envs, self.observation_size), np.int16)
        self._mask = np.zeros((num_envs, NUM_ACTIONS), bool)
        self._errors = np.zeros(num_envs, np.int32)
        self._ended = np.zeros(num_envs, bool)
        self._final = np.zeros((num_envs, 5), np.int32)
        self._viewers = np.full(num_envs, -1, np.int64)

    def reset(self, seed: int | None = None):
        self.game.reset(self._seed if seed is None else seed)
        self._ended[:] = False
        return self._observe()

    def _observe(self):
        st = self.game.state
        kernels.observe_kernel(st, self.game.params, self._viewers, self.game._lay, self._obs)
        kernels.mask_kernel(st, self._mask)
        seat = st.scalars[:, S_PLAYER].astype(np.int64)
        scores = self._final[:, 0:2]
        if self.game.episode == "match":
            scores = self._final[:, 2:4]
        rewards = np.where(self._ended[:, None], team_rewards(scores, self.reward), 0.0)
        info = {
            "seat": seat,
            "team": seat % 2,
            "ended": self._ended,
            "final_scores": self._final[:, 0:2],
            "final_match": self._final[:, 2:4],
            "winner": self._final[:, 4],
            "team_rewards": rewards,
        }
        return self._obs, self._mask, info

    def step(self, actions: np.ndarray):
        """One action per game. An illegal action raises IllegalActionError and moves
        no game."""
        actions = np.ascontiguousarray(np.asarray(actions, dtype=np.int64).reshape(-1))
        if actions.shape != (self.num_envs,):
            raise ValueError(f"step needs {self.num_envs} actions, got shape {actions.shape}")
        bad = ~self._mask[np.arange(self.num_envs), np.clip(actions, 0, NUM_ACTIONS - 1)]
        bad |= (actions < 0) | (actions >= NUM_ACTIONS)
        if bad.any():
            b = int(np.flatnonzero(bad)[0])
            raise IllegalActionError(actions[b], self.game.action_error(actions[b], b), b)
        kernels.step_autoreset_kernel(
            self.game.state, self.game.params, actions, self._errors,
            self.game.episode_match, self._ended, self._final,
        )
        assert (self._errors == ERR_OK).all()
        return self._observe()
