"""A batch of games for training and tournaments: B games in one object, auto-reset.

Each call returns, for every game, the acting player's observation and mask, its seat
and team; :meth:`VectorEnv.step` takes one action per game (every game has a player to
act at every step: there are no idle games), and a game whose episode ends reports its
result in the info dict and is dealt a new episode at once, from its own generator.

    env = VectorEnv("argentine", num_envs=1024, seed=0)
    obs, mask, info = env.reset()
    while training:
        actions = policy(obs, mask)            # one legal action per game
        obs, mask, info = env.step(actions)
        info["ended"], info["team_rewards"]    # episodes that just ended, their rewards

Returned values (B = ``num_envs``, O = observation size, A = NUM_ACTIONS):

* ``obs`` int16 [B, O]: each game seen by its player to act (after an auto-reset, the
  new episode's first player).
* ``mask`` bool [B, A]: that player's legal actions.
* ``info`` (a dict, same keys at every call):
  ``seat`` int64 [B] the player to act, ``team`` [B] its team (``seat % 2``),
  ``legal`` int16 [B, A] / ``num_legal`` int32 [B] the legal ids (row b's first
  ``num_legal[b]`` entries, in the engine's order: the cheap way to pick a random legal
  action), ``ended`` bool [B] the episode ended with the last action,
  ``hand_ended`` bool [B] a hand ended with it (``ended`` included),
  ``final_scores`` [B, 2] the last hand's scores of an ended episode (team 0, team 1),
  ``final_match`` [B, 2] its match points, ``winner`` [B] its winning team (-1 tie),
  ``hand_scores`` [B, 2] the scores of the hand that just ended (wherever
  ``hand_ended``), ``team_rewards`` float64 [B, 2] the rewards of team 0 and team 1 for
  the last action (zero except where it ended a hand).

Rewards follow the AEC environment (:mod:`burako_env.envs.aec`, Rewards): in hand mode
the episode's end carries the hand's reward (``"score"``: margin / 1000 clipped to
[-1, 1]; ``"raw"``: the margin; ``"win"``: +1 / -1 / 0). In match mode ``"score"`` and
``"raw"`` rewards come at every hand end (that hand's margin) and ``"win"`` at the
match's end. A learner credits ``team_rewards[b, t]`` to the decisions its team ``t``
made in game b since the last reward.

``get_state()`` copies every game's state arrays (each game's generator included) and
``set_state(state)`` restores them, in this env or another of the same shape: the games
then continue exactly as from the saved point (training checkpoints use it). A pickled
env, too, continues exactly as the original.

The arrays returned, but ``seat`` and ``team``, are buffers reused by the next call
(``legal`` and ``num_legal`` are the engine's own): copy what you keep.

Seeds: game b of ``VectorEnv(seed=s)`` plays the same episodes as game b of
``Game(batch_size=B, seed=s)`` given the same actions, a finished game being reset from
its own generator (``Game.reset(games=done)``). The kernels run on numba's thread pool
(``numba.set_num_threads`` caps it); the games do not depend on the thread count.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from burako_env.checks import check_state_values
from burako_env.core import kernels
from burako_env.core.constants import (
    NUM_ACTIONS,
)
from burako_env.core.game import Game, IllegalActionError, check_actions
from burako_env.core.state import allocate_state, state_fields
from burako_env.envs.rewards import check_reward, team_rewards
from burako_env.variants import Variant, check_env_keywords


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
        check_env_keywords(overrides, VectorEnv.__init__, "VectorEnv")
        self.reward = check_reward(reward)
        self.game = Game(
            variant, num_players, batch_size=num_envs, episode=episode, seed=seed, **overrides
        )
        self.variant = self.game.variant
        self.episode = episode
        self.num_envs = num_envs
        self.num_players = self.game.num_players
        self.observation_size = self.game.layout.size
        self.num_actions = NUM_ACTIONS
        self._seed = seed
        b = num_envs
        self._obs = np.zeros((b, self.observation_size), np.int16)
        self._mask = np.zeros((b, NUM_ACTIONS), bool)
        self._errors = np.zeros(b, np.int32)
        self._ended = np.zeros(b, bool)
        self._hand_ended = np.zeros(b, bool)
        self._final = np.zeros((b, 5), np.int32)
        self._hand_scores = np.zeros((b, 2), np.int32)
        self._rewards = np.zeros((b, 2), np.float64)
        self._viewers = np.full(b, -1, np.int64)
        self._rows = np.arange(b)
        self._bind_info()
        self._observe()  # the games Game dealt are ready to step

    def _bind_info(self) -> None:
        """The info dict: views of the env's buffers and of the games' legal lists."""
        st = self.game.state
        self._info = {
            "seat": None,
            "team": None,
            "legal": st.legal,
            "num_legal": st.num_legal,
            "ended": self._ended,
            "hand_ended": self._hand_ended,
            "final_scores": self._final[:, 0:2],
            "final_match": self._final[:, 2:4],
            "winner": self._final[:, 4],
            "hand_scores": self._hand_scores,
            "team_rewards": self._rewards,
        }

    def __getstate__(self) -> dict:
        # the info dict's views would come back as copies apart from their buffers
        state = self.__dict__.copy()
        del state["_info"]
        return state

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self._bind_info()
        seat = self.game.columns().player.astype(np.int64)
        self._info["seat"], self._info["team"] = seat, seat % 2

    def reset(self, seed: int | None = None):
        """Deal every game anew (game b from ``(seed, b)``; the constructor's seed when
        None). Returns ``(obs, mask, info)``."""
        self.game.reset(self._seed if seed is None else seed)
        self._ended[:] = False
        self._hand_ended[:] = False
        self._rewards[:] = 0.0
        return self._observe()

    def get_state(self) -> dict[str, np.ndarray]:
        """A copy of every game's state arrays (cards, melds, counters, each game's own
        generator): with :meth:`set_state`, a checkpoint of the whole batch."""
        return {name: arr.copy() for name, arr in state_fields(self.game.state)}

    def set_state(self, state: dict[str, np.ndarray]):
        """Restore the games from :meth:`get_state`'s arrays; returns ``(obs, mask,
        info)`` as :meth:`reset` does, and the games continue exactly as they would have
        from the saved point. Arrays of another batch size, player count or variant
        raise a ValueError naming the array, and values no game can hold (a corrupted
        checkpoint: a length, count, card or seat out of range, cards not conserved) an
        :class:`~burako_env.checks.InvalidStateError` (a ValueError) naming the game and
        the value, before any kernel reads them; nothing is changed then."""
        current = dict(state_fields(self.game.state))
        missing = sorted(set(current) - set(state))
        if missing:
            raise ValueError(f"state lacks arrays {missing} (not from VectorEnv.get_state?)")
        for name, arr in current.items():
            src = np.asarray(state[name])
            if src.shape != arr.shape or src.dtype != arr.dtype:
                raise ValueError(
                    f"state array {name!r} is {src.dtype}{list(src.shape)}, this env's is "
                    f"{arr.dtype}{list(arr.shape)} (another num_envs, num_players or variant?)"
                )
        # the kernels index with these values unchecked: check them on a copy first
        trial = allocate_state(self.num_envs, self.num_players)
        for name, _ in state_fields(trial):
            getattr(trial, name)[...] = state[name]
        check_state_values(trial, self.variant, self.game.episode_match)
        self.game.state[...] = trial
        self._ended[:] = False
        self._hand_ended[:] = False
        self._rewards[:] = 0.0
        return self._observe()

    def _observe(self):
        st = self.game.state
        kernels.observe_kernel(
            st, self.game.params, self._viewers, self.game.kernel_layout, self._obs
        )
        kernels.mask_kernel(st, self._mask)
        seat = self.game.columns().player.astype(np.int64)  # fresh: callers keep the seats
        info = self._info
        info["seat"] = seat
        info["team"] = seat % 2
        return self._obs, self._mask, info

    def _collect_rewards(self) -> None:
        """Hand ends and team rewards of the last step (see the module doc)."""
        cols = self.game.columns()
        ended = self._ended
        hand_ended = self._hand_ended
        np.not_equal(cols.hand_just_ended, 0, out=hand_ended)
        hand_ended |= ended
        rewards = self._rewards
        if not hand_ended.any():
            rewards[:] = 0.0
            return
        scores = self._hand_scores
        np.copyto(scores, cols.hand_scores)
        np.copyto(scores, self._final[:, 0:2], where=ended[:, None])
        if self.episode == "match" and self.reward == "win":
            rewards[:] = np.where(ended[:, None], team_rewards(self._final[:, 2:4], "win"), 0.0)
        else:
            rewards[:] = np.where(hand_ended[:, None], team_rewards(scores, self.reward), 0.0)

    def step(self, actions: np.ndarray):
        """One action per game: an integer array of shape ``(num_envs,)`` (a float, a
        string or another shape raises TypeError/ValueError; nothing is rounded or
        reshaped). An illegal action raises IllegalActionError naming the first game, the
        action and why, and moves no game."""
        actions = check_actions(actions, self.num_envs)
        bad = ~self._mask[self._rows, np.clip(actions, 0, NUM_ACTIONS - 1)]
        bad |= (actions < 0) | (actions >= NUM_ACTIONS)
        if bad.any():
            b = int(np.flatnonzero(bad)[0])
            raise IllegalActionError(actions[b], self.game.action_error(actions[b], b), b)
        kernels.step_games_autoreset(
            self.game.state,
            self.game.params,
            actions,
            self._errors,
            self.game.episode_match,
            self._ended,
            self._final,
        )
        if self._errors.any():  # the mask and the engine disagree: a core bug
            b = int(np.flatnonzero(self._errors)[0])
            raise RuntimeError(
                f"game {b}: action {actions[b]} was in the mask but the engine refused it "
                f"(error {self._errors[b]})"
            )
        self._collect_rewards()
        return self._observe()
