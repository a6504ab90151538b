"""Burako as a single-agent Gymnasium environment: the learner against fixed opponents.

The learner plays one seat (``control="seat"``) or every seat of its team
(``control="team"``); the other seats are played by opponent agents, any objects with the
interface of :class:`burako_env.agents.base.Agent` (``act(obs[B, O], mask[B, A]) -> actions[B]``),
:class:`~burako_env.agents.base.RandomAgent` by default. ``step`` applies the learner's action, then
lets the opponents play until the learner is to act again or the episode ends.

    import gymnasium, burako_env
    env = gymnasium.make("Burako-v1", variant="italian", num_players=4)
    obs, info = env.reset(seed=0)
    obs, reward, terminated, truncated, info = env.step(env.unwrapped.action_masks().argmax())

With sb3-contrib: ``MaskablePPO("MlpPolicy", BurakoGymEnv())`` finds ``action_masks()``.

* Observation: ``Box(int16, (obs_size,))``, the acting learner seat's view (layout:
  :func:`burako_env.core.constants.obs_layout`; its named blocks with their bounds:
  ``env.unwrapped.observation_layout``, an
  :class:`~burako_env.envs.observation.ObservationLayout`). With ``normalize_obs=True``
  it is ``Box(float32)``: every feature divided by its scale
  (:meth:`~burako_env.envs.observation.ObservationLayout.normalize`: counts and flags in
  [0, 1], points / 1000), bounded by the layout's ``normalized_low`` / ``normalized_high``.
  Returned arrays are fresh copies.
* Action: ``Discrete(NUM_ACTIONS)``; ``action_masks()`` gives the legal ones (bool).
* Reward: the learner's team's, as in the AEC environment (:mod:`burako_env.envs.aec`,
  Rewards): ``"score"`` (hand margin / 1000 clipped to [-1, 1]), ``"raw"`` or ``"win"``;
  in match mode the score rewards come at every hand end.
* An illegal action (``illegal_action="terminate"``, the default) ends the episode with
  reward -1 and ``info["illegal_action"]`` naming it (the observation is the one it was
  refused at); ``"raise"`` raises
  :class:`~burako_env.core.game.IllegalActionError` instead. The game is untouched.
* ``info``: ``seat`` (the learner seat to act), ``action_mask`` (bool [NUM_ACTIONS], a
  copy of ``action_masks()``: the legal actions of the returned observation, at reset and
  every step; all False once the episode is over, as the vector env's), and after a hand
  ends ``hand_scores``, ``match_scores``, ``hands_ended`` (and ``winner`` at the end),
  teams in table order.
* Episodes end (terminated) with the hand or the match; they are never truncated. At
  the terminal step the returned observation is the learner seat's view of the final
  table and ``action_masks()`` is all False (no action is legal until ``reset``; after an
  illegal action too).
* Pickling: ``pickle.dumps(env)`` holds the constructor's settings, the game's state
  arrays (its generator included), the opponents and the env's generator; the unpickled
  env continues the same game identically (its compiled kernel is bound again on load).
* Many games at once: ``gymnasium.make_vec("burako_env:Burako-v1", num_envs=N,
  vectorization_mode="vector_entry_point")`` plays N of these games in compiled code
  (:mod:`burako_env.gym.vector`).
"""

from __future__ import annotations

from pathlib import Path

import gymnasium
import numpy as np
from gymnasium import spaces

from burako_env.core.constants import (
    ERR_OK,
    ERR_OUT_OF_RANGE,
    NUM_ACTIONS,
)
from burako_env.core.game import (
    Game,
    IllegalActionError,
    check_action,
    check_seed,
    game_seeds,
)
from burako_env.envs.aec import (
    INT16_MAX,
    INT16_MIN,
    DecisionKernel,
    hand_end_reward,
    hand_info,
)
from burako_env.envs.observation import ObservationLayout
from burako_env.envs.rewards import check_reward
from burako_env.table import IllegalAgentMove, next_move
from burako_env.table.seating import (
    check_settings,
    learner_seats,
    named_opponents,
    random_opponents,
    seat_opponents,
)
from burako_env.table.table import decision_of
from burako_env.variants import Variant, check_env_keywords


class BurakoGymEnv(gymnasium.Env):
    """One learner (a seat or a team) against opponent agents; see the module doc.

    ``seat`` is the learner's seat (its team is ``seat % 2``) or ``"random"`` for a seat
    drawn at each reset. ``opponents`` is None (random agents), one agent for every other
    seat, a sequence with one agent per opponent seat (in seat order), or a mapping
    seat -> agent. Wherever an agent goes, its registry name may go instead
    (``opponents="greedy"``, ``["ppo", "discard_table", "ppo"]``, ``"ppo:PATH"``: see
    :func:`burako_env.agents.make_agent`), so ``gymnasium.make("Burako-v1", opponents="greedy")``
    works; a name builds one agent per seat, seeded by its seat. A learned agent whose
    policy was trained for another variant or player count is refused (ValueError naming
    both). Opponents with a ``seed(int)`` method are reseeded by a seeded reset.
    ``normalize_obs=True`` returns float32 observations scaled feature by feature (see
    the module doc).
    """

    metadata = {"render_modes": ["ansi", "human"], "render_fps": 1}

    def __init__(
        self,
        variant: str | Path | Variant | None = "argentine",
        num_players: int | None = None,
        episode: str = "hand",
        reward: str = "score",
        seat: int | str = 0,
        control: str = "seat",
        opponents=None,
        illegal_action: str = "terminate",
        render_mode: str | None = None,
        normalize_obs: bool = False,
        **overrides,
    ) -> None:
        check_env_keywords(overrides, BurakoGymEnv.__init__, "Burako-v1 (BurakoGymEnv)")
        if render_mode not in (None, *self.metadata["render_modes"]):
            raise ValueError(
                f"render_mode must be one of {self.metadata['render_modes']} or None, "
                f"got {render_mode!r}"
            )
        self.reward_kind = check_reward(reward)
        self.game = Game(variant, num_players, batch_size=1, episode=episode, seed=0, **overrides)
        self.variant = self.game.variant
        self.episode = episode
        self.num_players = n = self.game.num_players
        check_settings(control, illegal_action, seat, n)
        self.seat_option = seat
        self.control = control
        self.illegal_action = illegal_action
        self.render_mode = render_mode
        self.normalize_obs = bool(normalize_obs)
        self.opponents = named_opponents(opponents, n)
        if opponents is None:
            self._random_agents = random_opponents(n)

        self.observation_layout = ObservationLayout(self.variant)
        size = self.game.layout.size
        if self.normalize_obs:
            lay = self.observation_layout
            self.observation_space = spaces.Box(
                lay.normalized_low, lay.normalized_high, (size,), np.float32
            )
        else:
            self.observation_space = spaces.Box(INT16_MIN, INT16_MAX, (size,), np.int16)
        self.action_space = spaces.Discrete(NUM_ACTIONS)

        self._obs = np.zeros(size, np.int16)
        self._mask = np.zeros(NUM_ACTIONS, np.int8)
        self._bind()
        self._set_seat(0 if seat == "random" else int(seat))
        self._over = True

    def _bind(self) -> None:
        """The views of the env's arrays and its compiled kernel (again after unpickling)."""
        self._st = self.game.state
        self._view = self.game.live_view(0)  # the game's scalars by name, live
        self._mask_bool = self._mask.view(bool)  # the same bytes, for agents
        self._obs_batch = self._obs[None]
        self._mask_batch = self._mask_bool[None]
        self._decisions = DecisionKernel(self.game, self._obs, self._mask)

    #: rebuilt by _bind: views (a pickle would copy them apart) and the compiled kernel
    _BOUND = ("_st", "_view", "_mask_bool", "_obs_batch", "_mask_batch", "_decisions")

    def __getstate__(self) -> dict:
        state = self.__dict__.copy()
        for name in self._BOUND:
            state.pop(name, None)
        return state

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self._bind()

    # ------------------------------------------------------------------ set-up
    def _seat_agents(self) -> list:
        """The agent of every seat, None for the learner's seats."""
        return seat_opponents(
            self.opponents, self._learner, self.variant, getattr(self, "_random_agents", None)
        )

    def _learner_seats(self, seat: int) -> frozenset:
        return learner_seats(seat, self.control, self.num_players)

    def _set_seat(self, seat: int) -> None:
        self.seat = seat
        self._learner = self._learner_seats(seat)
        self._agents = self._seat_agents()
        self._decisions_of = [None if a is None else decision_of(a) for a in self._agents]

    # ------------------------------------------------------------------ gymnasium API
    def reset(self, *, seed: int | None = None, options: dict | None = None):
        """Deal a new episode (from ``seed``, else from the env's generator); the others play
        until the learner is to act. Returns the observation and the info (``seat``,
        ``action_mask``)."""
        if seed is not None:
            check_seed(seed)  # True or 2**70: an error, as 1.5 is
        super().reset(seed=seed)
        rng = self.np_random
        self._st.rng[0] = game_seeds(int(rng.integers(2**62)), 1)[0]
        if self.seat_option == "random":
            self._set_seat(int(rng.integers(self.num_players)))
        if seed is not None:
            seen = set()
            for agent in self._agents:
                if agent is not None and id(agent) not in seen and hasattr(agent, "seed"):
                    agent.seed(int(rng.integers(2**62)))
                    seen.add(id(agent))
        while True:
            self._decisions.reset()
            self._over = False
            self._play_opponents()
            if not self._over:
                break
            # an episode cannot end before every seat has played in practice; if it
            # ever does, deal again rather than hand back a finished game
        if self.render_mode == "human":
            self.render()
        info = {"seat": int(self._view.player), "action_mask": self.action_masks()}
        return self._observation(), info

    def step(self, action):
        """Play the learner's ``action``, then the others' moves until the learner is to act or
        the episode ends: ``(observation, reward, terminated, truncated, info)``."""
        if self._over:
            raise RuntimeError("the episode is over: call reset() before step()")
        a = check_action(action)
        err = self._decisions.step(a) if 0 <= a < NUM_ACTIONS else ERR_OUT_OF_RANGE
        if err != ERR_OK:
            exc = IllegalActionError(a, err)
            if self.illegal_action == "raise":
                raise exc
            self._over = True
            self._mask[:] = 0  # the episode is over: no action is legal
            info = {"seat": int(self._view.player), "illegal_action": str(exc)}
            info["action_mask"] = self.action_masks()
            return self._observation(), -1.0, True, False, info
        info = {}
        reward = self._after_action(info)
        reward += self._play_opponents(info)
        if self._over:
            # the final view is the learner's, not that of whoever ended the hand
            self._decisions.observe(self.seat, self._obs)
            self._mask[:] = 0
        info["seat"] = int(self._view.player) if not self._over else self.seat
        info["action_mask"] = self.action_masks()
        if self.render_mode == "human":
            self.render()
        return self._observation(), reward, self._over, False, info

    def action_masks(self) -> np.ndarray:
        """bool [NUM_ACTIONS]: the learner's legal actions now (sb3-contrib's hook)."""
        return self._mask_bool.copy()

    def legal_actions(self) -> np.ndarray:
        """The learner's legal action ids now (a view, in the engine's order)."""
        return self._st.legal[0, : self._st.num_legal[0]]

    # gymnasium types render() by a type variable of its module (RenderFrame) that no
    # env class binds: any concrete return type reads as an incompatible override
    def render(self) -> str | None:  # type: ignore[override]
        """The table as text, from the learner's seat (every hand with ``control="all"``):
        returned with ``render_mode="ansi"``, printed with ``"human"``."""
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without a render_mode")
            return None
        from burako_env.render import render_table

        viewer = self.seat if self.control == "seat" else None
        text = render_table(self.game, 0, viewer=viewer)
        if self.render_mode == "ansi":
            return text
        print(text + "\n")
        return None

    # ------------------------------------------------------------------ internals
    def _observation(self) -> np.ndarray:
        """A fresh copy of the observation: int16, or float32 with ``normalize_obs``."""
        if self.normalize_obs:
            return self.observation_layout.normalize(self._obs)
        return self._obs.copy()

    def _after_action(self, info: dict | None = None) -> float:
        """The learner team's reward for the action just applied; marks the episode over."""
        s = self._view
        if not s.hand_just_ended:
            return 0.0
        if info is not None:
            info.update(hand_info(s))
        if s.done:
            self._over = True
        r0 = hand_end_reward(s, self.reward_kind, self.episode)
        if r0 is None:
            return 0.0
        return r0 if self.seat % 2 == 0 else -r0

    def _play_opponents(self, info: dict | None = None) -> float:
        """Opponents act until a learner seat is to act or the episode ends."""
        reward = 0.0
        s = self._view
        while not self._over:
            p = s.player
            agent = self._agents[p]
            if agent is None:  # a learner seat
                break
            # the table's move (unchecked: the kernel's step below refuses an illegal one)
            a = next_move(
                agent, self.game, 0, self._obs_batch, self._mask_batch,
                self._decisions_of[p], check=False,
            )  # fmt: skip
            err = self._decisions.step(a)
            if err != ERR_OK:  # the opponent agent is broken
                raise IllegalAgentMove(agent.name, a, err)
            reward += self._after_action(info)
        return reward


__all__ = ["BurakoGymEnv"]
