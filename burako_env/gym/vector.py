"""Burako as a Gymnasium vector env: N single-agent games stepped together in compiled code.

    import gymnasium
    envs = gymnasium.make_vec("burako_env:Burako-v1", num_envs=1024,
                              vectorization_mode="vector_entry_point", opponents="greedy")
    obs, info = envs.reset(seed=0)
    while training:
        actions = policy(obs, info["action_mask"])        # one legal action per game
        obs, reward, terminated, truncated, info = envs.step(actions)

Each of the ``num_envs`` games is the game of :class:`~burako_env.gym.single.BurakoGymEnv`
with the same arguments: the learner plays one seat (``control="seat"``) or its team
(``control="team"``), and the opponents (``opponents``: None for random agents, one agent
or name for every other seat, a sequence per opponent seat, or a mapping seat -> agent)
play until a learner seat is to act again. Same rewards (``"score"``, ``"raw"``,
``"win"``, the learner's team's), episodes (``"hand"`` or ``"match"``) and ``info``
entries. :class:`BurakoVectorEnv` is a :class:`gymnasium.vector.VectorEnv`:

* ``single_observation_space``: ``Box(int16, (obs_size,))``, or ``Box(float32)`` with
  ``normalize_obs=True`` (the observation divided feature by feature by its scale,
  :meth:`~burako_env.envs.observation.ObservationLayout.normalize`; bounds in
  ``observation_layout``); ``observation_space`` its batch ``[N, obs_size]``.
* ``single_action_space``: ``Discrete(NUM_ACTIONS)``; ``action_space``: ``MultiDiscrete``
  of N.
* ``step`` returns ``reward`` float64 [N], ``terminated`` bool [N], ``truncated`` bool [N]
  (never true: episodes end with the hand or the match).
* ``info["action_mask"]`` bool [N, NUM_ACTIONS]: the legal actions of the observation
  returned (at every ``reset`` and ``step``); ``info["seat"]`` int64 [N]: the learner seat
  to act. Where a hand of a match ended and the match goes on: ``hand_scores`` [N, 2],
  ``match_scores`` [N, 2], ``hands_ended`` [N] (teams in table order), each with its
  Gymnasium ``_name`` bool mask of the games it applies to.

**Autoreset: SAME_STEP** (``metadata["autoreset_mode"]`` is
``gymnasium.vector.AutoresetMode.SAME_STEP``). A game whose episode ends in a step is
dealt its next episode in the same step (from its own generator, as
:class:`~burako_env.envs.vector.VectorEnv` does), and the opponents play its first moves:
the step returns ``terminated[b] = True``, the episode's last reward, and **the new
episode's first observation**, with ``info["action_mask"][b]`` **the new episode's first
mask** (the legal actions of the observation returned: every row of every mask returned
has a legal action, so a masked policy never sees an empty row). The ended episode is in
``info["final_obs"]`` (an object array, the learner seat's view of the final table where
``info["_final_obs"]``) and ``info["final_info"]`` (a dict of arrays, each with its ``_``
mask: ``seat``, ``hand_scores``, ``match_scores``, ``hands_ended``, ``winner``,
``illegal_action`` after an illegal action, and ``action_mask``, all False: **a finished
episode has no legal action**, as the single env's ``action_masks()`` is all False at its
terminal step). This is the layout of Gymnasium's own ``SyncVectorEnv`` in SAME_STEP
mode, so Gymnasium's vector wrappers (``RecordEpisodeStatistics``, ...) work.

**Compiled.** The games live in a :class:`~burako_env.envs.vector.VectorEnv`
(``vector_env``: its ``game``, ``get_state`` / ``set_state``) seated at a
:class:`~burako_env.table.Table` (``table``), and a step is one call of the table's
kernel (:func:`burako_env.table.kernel.play_kernel`, on numba's threads): it applies
every game's learner action and plays the opponents whose policy is compiled
(``random``, ``greedy``, ``discard_table`` and its weighted forms) inside numba until a
learner seat is to act. A game where a Python agent is to act (``ppo``, any object with
``act``) waits; that agent decides for all its waiting games in one batch (a search
agent, ``pimc``, through ``act_game`` one game at a time), and the kernel resumes them.
The compiled opponents draw their ties from one generator state per game and seat
(seeded by ``reset(seed)``, as in the tournament), so a game here is not the single
env's move for move, but game ``b`` after ``reset(seed=s)`` is dealt exactly as game
``b`` of ``VectorEnv(seed=s)``, and given the same actions (learner's and opponents')
plays the same episodes.

**Rewards** are the single env's: the sum, over the actions of the step (the learner's
and the opponents' after it), of the hand-end rewards of the learner's team. A step in
which more than one hand of a match ended (only with a ``max_turns`` so small that a
hand can pass without a learner decision) has the margin of those hands together
(clipped once for ``"score"``).

**Seeds.** ``reset(seed=s)`` deals game b from ``(s, b)`` and seeds the opponents (the
compiled ones' generator states, and ``seed(int)`` of the others) and the draws of
``seat="random"`` from ``s``; ``reset()`` without a seed deals from a seed drawn from
the env's generator (a fresh env draws one from the operating system).

``illegal_action="terminate"`` (the default) ends the game of an illegal learner action
with reward -1 (the game untouched, ``final_info["illegal_action"]`` says why) and deals
its next episode; ``"raise"`` raises :class:`~burako_env.core.game.IllegalActionError`
naming the first such game, and moves no game. ``copy=False`` returns the env's own
observation and mask buffers, which the next call overwrites. A pickled env continues
the same games as the original (its opponents pickled with it).
"""

from __future__ import annotations

from pathlib import Path

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode
from gymnasium.vector.utils import batch_space

from burako_env.core.constants import (
    ERR_OUT_OF_RANGE,
    NUM_ACTIONS,
)
from burako_env.core.game import (
    IllegalActionError,
    check_actions,
    check_seed,
    game_seeds,
    generator_words,
)
from burako_env.envs.aec import INT16_MAX, INT16_MIN
from burako_env.envs.observation import ObservationLayout
from burako_env.envs.rewards import check_reward, played_rewards
from burako_env.envs.vector import VectorEnv
from burako_env.table import OpponentSeating, Seating, Table
from burako_env.table.seating import check_settings
from burako_env.variants import Variant, check_env_keywords


class BurakoVectorEnv(gymnasium.vector.VectorEnv):
    """``num_envs`` learner games against opponent agents, in compiled code; see the
    module doc. The other arguments are :class:`~burako_env.gym.single.BurakoGymEnv`'s
    (``render_mode`` must be None)."""

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP, "render_modes": []}

    def __init__(
        self,
        num_envs: int = 8,
        variant: str | Path | Variant | None = "argentine",
        num_players: int | None = None,
        episode: str = "hand",
        reward: str = "score",
        seat: int | str = 0,
        control: str = "seat",
        opponents=None,
        illegal_action: str = "terminate",
        normalize_obs: bool = False,
        copy: bool = True,
        render_mode: str | None = None,
        **overrides,
    ) -> None:
        check_env_keywords(overrides, BurakoVectorEnv.__init__, "Burako-v1 vector env")
        from burako_env.limits import MAX_TRAIN_ENVS, check_whole

        # training's env.num_envs bound: 10**6 games asked for 6.3 GiB before any check
        check_whole("num_envs", num_envs, 1, MAX_TRAIN_ENVS, ValueError)
        if render_mode is not None:
            raise ValueError(
                f"the vector env does not render: render_mode must be None, got {render_mode!r}"
            )
        self.reward_kind = check_reward(reward)
        self.vector_env = VectorEnv(
            variant,
            num_players,
            num_envs=num_envs,
            seed=0,
            episode=episode,
            reward=reward,
            **overrides,
        )
        self.game = self.vector_env.game
        self.variant = self.game.variant
        self.episode = episode
        self.num_envs = n_envs = self.vector_env.num_envs
        self.num_players = n = self.game.num_players
        check_settings(control, illegal_action, seat, n)
        self.seat_option = seat
        self.control = control
        self.illegal_action = illegal_action
        self.normalize_obs = bool(normalize_obs)
        self.copy = bool(copy)
        self.render_mode = None
        self.seating = OpponentSeating(opponents, self.variant, seat, control)
        self.opponents = self.seating.opponents
        #: the table's agents: the learner (None, index ``LEARNER``), then every opponent
        self.agents = self.seating.agents

        self.observation_layout = ObservationLayout(self.variant)
        size = self.game.layout.size
        if self.normalize_obs:
            lay = self.observation_layout
            single = spaces.Box(lay.normalized_low, lay.normalized_high, (size,), np.float32)
        else:
            single = spaces.Box(INT16_MIN, INT16_MAX, (size,), np.int16)
        self.single_observation_space = single
        self.single_action_space = spaces.Discrete(NUM_ACTIONS)
        self.observation_space = batch_space(single, n_envs)
        self.action_space = batch_space(self.single_action_space, n_envs)

        #: the compiled opponents' generator states, one per game and seat (the
        #: tournament's layout: :func:`burako_env.agents.policies.act_batch` reads them)
        self.opponent_rng = generator_words(0, n_envs * n).reshape(n_envs, n, 4)
        seated = Seating(self.agents, np.zeros((n_envs, n), np.int64))
        #: the games' table: the learner's seats are its external seats
        self.table = Table(self.game, seated, self.opponent_rng)
        self._obs_norm = np.zeros((n_envs, size), np.float32)
        self._moves = np.full(n_envs, -1, np.int64)
        #: each game's learner seat in its current episode (its team: ``% 2``)
        self.learner_seat = np.zeros(n_envs, np.int64)
        self._rows = np.arange(n_envs)
        self._needs_reset = True

    # ------------------------------------------------------------------ gymnasium API
    def reset(
        self, *, seed: int | None = None, options: dict | None = None
    ) -> tuple[np.ndarray, dict]:
        """Deal every game anew (game b from ``(seed, b)``); returns ``(obs, info)``."""
        if seed is not None:
            check_seed(seed)
        super().reset(seed=seed)
        rng = self.np_random
        deal_seed = seed if seed is not None else int(rng.integers(2**62))
        st = self.game.state
        st.rng[:] = game_seeds(deal_seed, self.num_envs)
        self.opponent_rng[...] = generator_words(
            rng, self.opponent_rng.shape[0] * self.num_players
        ).reshape(self.opponent_rng.shape)
        if seed is not None:
            for agent in self.agents[1:]:
                if hasattr(agent, "seed"):
                    agent.seed(int(rng.integers(2**62)))
        self._deal(self._rows)
        self._needs_reset = False
        return self._observations(), {"action_mask": self._masks(), "seat": self._seats()}

    def step(
        self, actions: np.ndarray, *, hold: np.ndarray | None = None
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict]:
        """One learner action per game (int array [N]); see the module doc.

        ``hold`` (bool [N], optional) names games that do not move in this step: their
        actions are ignored, and they return their observation and mask again with reward
        0, not terminated (an adapter with NEXT_STEP autoreset, such as RLlib's, holds a
        game whose next episode it has not handed out yet)."""
        if self._needs_reset:
            raise RuntimeError("call reset() before step()")
        actions = check_actions(actions, self.num_envs)
        held = np.zeros(self.num_envs, np.bool_)
        if hold is not None:
            held = np.asarray(hold)
            if held.dtype != np.bool_ or held.shape != (self.num_envs,):
                raise ValueError(
                    f"hold must be a bool array of shape ({self.num_envs},), "
                    f"got {held.dtype} {held.shape}"
                )
        cols = self.game.columns()
        inside = (actions >= 0) & (actions < NUM_ACTIONS)
        legal = inside & self.table.mask[self._rows, np.clip(actions, 0, NUM_ACTIONS - 1)]
        legal &= ~held
        illegal = ~legal & ~held
        if illegal.any() and self.illegal_action == "raise":
            b = int(np.flatnonzero(illegal)[0])
            code = self.game.action_error(int(actions[b]), b) if inside[b] else ERR_OUT_OF_RANGE
            raise IllegalActionError(actions[b], code, b)
        hands_before = cols.hands_ended.astype(np.int64)
        match_before = cols.match_scores.astype(np.int64)
        self._moves[:] = np.where(legal, actions, -1)
        self.table.resume(self._moves, legal)

        done = legal & (cols.done != 0)
        hands = cols.hands_ended.astype(np.int64) - hands_before
        hands[~legal] = 0
        reward = self._rewards(done, hands, match_before)
        reward[illegal] = -1.0
        terminated = done | illegal
        info: dict = {}
        going_on = (hands > 0) & ~done
        if going_on.any():
            self._hand_info(info, going_on)
        if terminated.any():
            ended = np.flatnonzero(terminated)
            self._final(info, ended, done, illegal, actions)
            self._deal(ended)
        info["action_mask"] = self._masks()
        info["seat"] = self._seats()
        return (
            self._observations(),
            reward,
            terminated,
            np.zeros(self.num_envs, np.bool_),
            info,
        )

    def action_masks(self) -> np.ndarray:
        """bool [N, NUM_ACTIONS]: the learner's legal actions now (a copy)."""
        return self.table.mask.copy()

    # ------------------------------------------------------------------ internals
    def _deal(self, games: np.ndarray) -> None:
        """Deal the next episode of ``games`` (each from its own generator) and play the
        opponents' moves before the learner's first decision."""
        while games.size:
            if self.seat_option == "random":
                seats = self.np_random.integers(self.num_players, size=games.size)
            else:
                seats = np.full(games.size, int(self.seat_option), np.int64)
            self.learner_seat[games] = seats
            self.table.seat_agent[games] = self.seating.rows(seats)
            self.table.deal(games)
            # an episode cannot end before the learner's first decision in practice; if
            # it ever does, deal again rather than hand back a finished game (as the
            # single env does)
            games = games[self.game.columns().done[games] != 0]

    def _rewards(self, done: np.ndarray, hands: np.ndarray, match_before: np.ndarray):
        """The learner team's reward of the step (see the module doc)."""
        r0 = played_rewards(self.game.columns(), done, hands, match_before, self.reward_kind)
        return np.where(self.learner_seat % 2 == 0, r0, -r0)

    def _hand_info(self, info: dict, games: np.ndarray) -> None:
        """``hand_scores``, ``match_scores``, ``hands_ended`` where a hand of a match
        ended and the match goes on, with their ``_`` masks."""
        cols = self.game.columns()
        g = games[:, None]
        info["hand_scores"] = np.where(g, cols.hand_scores, 0).astype(np.int64)
        info["match_scores"] = np.where(g, cols.match_scores, 0).astype(np.int64)
        info["hands_ended"] = np.where(games, cols.hands_ended, 0).astype(np.int64)
        for key in ("hand_scores", "match_scores", "hands_ended"):
            info[f"_{key}"] = games.copy()

    def _final(self, info, ended, done, illegal, actions) -> None:
        """``final_obs`` and ``final_info`` of the games in ``ended`` (see the module doc)."""
        n_envs = self.num_envs
        cols = self.game.columns()
        final_obs = np.full(n_envs, None, dtype=object)
        for g in ended:
            obs = self.game.observe_one(int(self.learner_seat[g]), int(g))
            final_obs[g] = self.observation_layout.normalize(obs) if self.normalize_obs else obs
        where = np.zeros(n_envs, np.bool_)
        where[ended] = True
        final: dict = {
            "seat": np.where(where, self.learner_seat, 0),
            "_seat": where,
            "action_mask": np.zeros((n_envs, NUM_ACTIONS), np.bool_),
            "_action_mask": where.copy(),
        }
        if done.any():
            d = done[:, None]
            scores = cols.hand_scores
            final["hand_scores"] = np.where(d, scores, 0).astype(np.int64)
            final["match_scores"] = np.where(d, cols.match_scores, 0).astype(np.int64)
            final["hands_ended"] = np.where(done, cols.hands_ended, 0).astype(np.int64)
            final["winner"] = np.where(done, cols.winner, 0).astype(np.int64)
            for key in ("hand_scores", "match_scores", "hands_ended", "winner"):
                final[f"_{key}"] = done.copy()
        if illegal.any():
            why = np.full(n_envs, None, dtype=object)
            for g in np.flatnonzero(illegal):
                a = int(actions[g])
                code = (
                    self.game.action_error(a, int(g)) if 0 <= a < NUM_ACTIONS else ERR_OUT_OF_RANGE
                )
                why[g] = str(IllegalActionError(a, code, int(g)))
            final["illegal_action"] = why
            final["_illegal_action"] = illegal.copy()
        info["final_obs"] = final_obs
        info["_final_obs"] = where
        info["final_info"] = final
        info["_final_info"] = where.copy()

    def _observations(self) -> np.ndarray:
        if self.normalize_obs:
            out = None if self.copy else self._obs_norm
            return self.observation_layout.normalize(self.table.obs, out=out)
        return self.table.obs.copy() if self.copy else self.table.obs

    def _masks(self) -> np.ndarray:
        return self.table.mask.copy() if self.copy else self.table.mask

    def _seats(self) -> np.ndarray:
        return self.game.columns().player.astype(np.int64)

    def __repr__(self) -> str:
        v = self.variant
        return f"BurakoVectorEnv({v.name!r}, {v.num_players} players, num_envs={self.num_envs})"


__all__ = ["BurakoVectorEnv"]
