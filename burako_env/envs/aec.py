# noqa: D212, D415
"""
# Burako

A PettingZoo AEC environment for Burako (Buraco, Burraco), the rummy-family game of
melds, canastas and *muertos*, in four rule variants (``argentine``, ``italian``,
``brazilian``, ``colombian``; RULES.md) or one's own YAML of house rules.

| Import             | `from burako_env import burako_v1`                         |
|--------------------|------------------------------------------------------------|
| Actions            | Discrete                                                   |
| Parallel API       | No                                                         |
| Manual Control     | No (the `burako play` CLI is the human interface)          |
| Agents             | `agents= ['player_0', 'player_1', ...]`                    |
| Agents             | 2, 4 (all variants), 6 or 8 (colombian)                    |
| Action Shape       | Discrete(NUM_ACTIONS) = Discrete(2541)                     |
| Observation Shape  | `{"observation": (obs_size,) int16, "action_mask": (2541,) int8}` |
| Observation Values | int16: counts, table fields, sizes and scores (some negative) |
| State Shape        | `(state_size,)` int32: the whole game, hidden cards included |

    from burako_env import burako_v1

    env = burako_v1.env(variant="argentine", num_players=4, render_mode="ansi")
    env.reset(seed=42)
    for agent in env.agent_iter():
        obs, reward, termination, truncation, info = env.last()
        if termination or truncation:
            action = None
        else:
            action = env.action_space(agent).sample(obs["action_mask"])
        env.step(action)

Agents of `agents/` pick actions with `act_in_env(env, agent)` (from
`burako_env.table`, the layer above: it checks the move and names a broken agent): an
observation agent reads the player's observation, a search agent (`pimc`) the game
itself, which it sees only through determinizations.

Players sit in order; player `p` is on team `p % 2` and partners share every reward.
The environment is the core's :class:`~burako_env.core.game.Game` with a batch of one:
no rule is written twice. The player to act (``agent_selection``) follows the game: a
turn is several decisions (draw, any number of melds, the discard) by the same player.

## Arguments

``burako_v1.env(variant="argentine", num_players=None, episode="hand", reward="score",
render_mode=None, copy_observations=False, render_viewer=None, **overrides)``

* ``variant``: a variant name, a YAML path or a :class:`~burako_env.variants.Variant`.
* ``num_players``: the table size (the variant's default when None).
* ``episode``: ``"hand"`` (one hand, the default) or ``"match"`` (hands until a team
  reaches the variant's target).
* ``reward``: ``"score"``, ``"win"`` or ``"raw"`` (see Rewards).
* ``render_mode``: ``"ansi"`` (``render()`` returns the table as text), ``"human"``
  (prints it after every reset and step) or None.
* ``copy_observations``: return fresh arrays from ``observe`` (see Observation).
* ``render_viewer``: the seat whose hand the rendering shows; None shows every hand.
* ``**overrides``: any variant parameter (``stock_end=2``, ...).

Seeding is through ``reset(seed=...)``: the same seed deals the same cards. A reset
without a seed continues the game's generator (a fresh environment first draws a seed
from the operating system).

## Observation Space

A dict: ``"observation"`` is what the observing player may see (RULES.md section 10) as
one int16 vector, laid out by :func:`burako_env.core.constants.obs_layout` (own hand,
both teams' melds own team first, the pile in order, cards known in others' hands, hand
sizes, muertos, phase, counters and scores, the variant's parameters). Seats and teams
are relative to the viewer. The Box bounds are int16's range.

``"action_mask"`` (int8, NUM_ACTIONS) is 1 exactly where the engine accepts the action;
all zeros for any agent but the one to act, and for everyone once the game is over.

The observation and mask of the current decision are computed once, by the same numba
call that applies the action, into buffers the environment reuses: the arrays returned
by ``observe``/``last`` are overwritten by the next ``step``. Copy what you keep, or
pass ``copy_observations=True``.

### Legal Actions Mask

``raw_env.legal_actions()`` gives the same legal ids as a short int array (a view of the
engine's list, in the engine's order), a cheaper way to sample a random legal move than
a 2541-wide mask.

## State Space

``env.state()`` is the global state, for centralised critics (MAPPO, QMIX): one int32
vector of fixed size (``env.state_space``, a ``Box`` of int32 with each entry's bounds)
holding the whole game, every hidden card included: every hand, the cards known in
hands, the stock in order, the pile in order, the muertos, both teams' melds, the
game's counters and scores (phase, seat to act, turn, match points, the last hand's
scores ...), the last hand's scoring items and the game's own generator. Seats are
absolute (``player_0`` is seat 0). ``env.unwrapped.state_layout`` names the blocks
(:class:`~burako_env.envs.global_state.StateLayout`: ``layout["hands"]`` is
``StateBlock(start, stop, shape, low, high)``); :mod:`burako_env.envs.global_state`
documents each block and bound.

The vector determines the game: two games with equal ``state()`` stay equal under the
same actions, and ``state_layout.restore(game, s)`` puts it back into a
:class:`~burako_env.core.game.Game`, which continues as the game it was read from.
Each call returns a fresh array.

## Action Space

``Discrete(2541)``: draw from the stock, take the pile, keep or reject a peeked card,
take the muerto keeping wilds, open a group / run / wild group (templates; the engine
picks the suits of a group's naturals), add one card to a meld slot, discard a card.
The table of ranges is docs/ACTIONS.md; ``burako_env.core.actions.describe_action``
names any id.

``raw_env.step`` with an illegal action raises :class:`IllegalMoveError` (a
``ValueError``) naming the player, the action and why it is illegal, and leaves the game
untouched; ``raw_env.step`` before the first ``reset`` a ``RuntimeError`` saying to call
``reset()`` first. ``env()`` wraps the raw environment as PettingZoo classic does: an illegal move
warns (naming the move and the reason) and ends the game with -1 for the offender and 0
for everyone else; an action outside the space fails an assertion; calls out of order
raise.

## Rewards

Partners always get the same reward, the opponents its negative.

* ``"score"``: the team's hand score minus the opponents', divided by 1000 and clipped
  to [-1, 1] (:mod:`burako_env.envs.rewards`).
* ``"raw"``: the same margin in points.
* ``"win"``: +1 for the winning team, -1 for the other, 0 for a tie (hand mode: the
  higher hand score wins; match mode: the match winner).

With ``episode="hand"`` the reward comes once, at the end of the hand. With
``episode="match"``, ``"score"`` and ``"raw"`` rewards come at the end of **every hand**
(that hand's margin; the sum over a match of the raw rewards is the margin in match
points), and ``"win"`` comes once, at the end of the match.

When a hand ends every agent's ``info`` holds ``hand_scores`` (team 0, team 1),
``match_scores``, ``hands_ended`` and, once the episode is over, ``winner`` (the winning
team, -1 for a tie). Otherwise infos are empty.

## Episode end

The episode ends when the hand ends (a player goes out, the stock runs down, or the
400-turn bound of RULES.md section 6 is hit), or in match mode when a team reaches the
target with more points than the other. Every agent is then terminated (never
truncated).

## Version History

* v1 (unreleased): ``state()`` and ``state_space``, the global state (nothing else
  changes: the same games, actions and observations).
* v1: Rules v1 (burako 0.2.0): a meld is legal when the turn can still be finished
  (the old "last card must be discardable" rule is withdrawn), the brazilian muerto pot
  (`muerto_pot: shared`), group openings that name their suits. Action space
  Discrete(2541) (group ids 5-844; the other ranges shifted by 768), observation `misc`
  gains the muerto packets left (18 entries) and `variant` the `muerto_pot` flag.
* v0: Initial version (burako 0.1.0), Discrete(1773).
"""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.utils import EzPickle
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from burako_env.core.actions import describe_action
from burako_env.core.constants import (
    ERR_OUT_OF_RANGE,
    ERROR_MESSAGES,
    NUM_ACTIONS,
)
from burako_env.core.game import (
    Game,
    IllegalActionError,
    check_action,
    check_seed,
    game_seeds,
)
from burako_env.core.kernels import (
    ERR_UNLISTED,
    GAME_OBSERVE,
    GAME_RESET_DECISION,
    GAME_STEP_DECISION,
    game_kernel,
    refusal_reasons,
)
from burako_env.envs.global_state import StateLayout
from burako_env.envs.rewards import check_reward, team_rewards
from burako_env.variants import Variant, check_env_keywords

__all__ = ["IllegalMoveError", "env", "raw_env"]

INT16_MIN = np.iinfo(np.int16).min
INT16_MAX = np.iinfo(np.int16).max


# ------------------------------------------------------------------ one numba call per decision
def compiled(kernel, *args):
    """``kernel``'s machine code for the types of ``args``, compiled or loaded from the
    cache now. Calling it skips numba's dispatcher, which types the arguments again at
    every call; every later call must pass arguments of the same types. Under
    ``NUMBA_DISABLE_JIT`` the kernel is a plain function and comes back as it is."""
    if not hasattr(kernel, "compile"):
        return kernel
    from numba import typeof

    return kernel.compile(tuple(typeof(a) for a in args))


class DecisionKernel:
    """Game 0 of ``game``, one numba call per decision: the core's one-game kernel applies
    the action, refreshes the legal list and writes the next decision (the observation of
    the player to act into ``obs``, the int8 mask into ``mask``) in the same call, which
    skips numba's dispatcher (:func:`compiled`)."""

    def __init__(self, game: Game, obs: np.ndarray, mask: np.ndarray):
        self._st, self._params, self._lay = game.state, game.params, game.kernel_layout
        self._episode_match = game.episode_match
        self.obs, self.mask = obs, mask
        self._call = compiled(
            game_kernel, self._st, self._params, 0, 0, 0, 0, 0, self._lay, obs, mask
        )

    def reset(self) -> None:
        """Deal a new episode (from the game's generator) and write its first decision."""
        self._call(
            self._st,
            self._params,
            GAME_RESET_DECISION,
            0,
            0,
            self._episode_match,
            0,
            self._lay,
            self.obs,
            self.mask,
        )

    def step(self, action: int) -> int:
        """Apply ``action`` if legal and write the next decision; its ERR_* code (an
        illegal action moves nothing)."""
        code = self._call(
            self._st,
            self._params,
            GAME_STEP_DECISION,
            0,
            action,
            0,
            0,
            self._lay,
            self.obs,
            self.mask,
        )
        if code == ERR_UNLISTED:  # refused: the legality checks say why
            games, actions = np.zeros(1, np.int64), np.array([action], np.int64)
            return int(refusal_reasons(self._st, self._params, games, actions)[0])
        return code

    def observe(self, seat: int, out: np.ndarray) -> None:
        """``seat``'s observation into ``out`` (int16, the observation's size)."""
        self._call(self._st, self._params, GAME_OBSERVE, 0, 0, 0, seat, self._lay, out, self.mask)


def entropy_seed() -> int:
    """A seed from the operating system, for a first reset without one."""
    entropy = np.random.SeedSequence().entropy
    assert isinstance(entropy, int)  # drawn from the system when none is given: an int
    return entropy % (2**63)


def hand_info(view) -> dict:
    """What the infos say after a hand ends: scores, hands ended, the winner once over
    (``view``: the game's scalars by name, a :class:`~burako_env.core.view.GameView` or
    ``LiveView``)."""
    info = {
        "hand_scores": (int(view.hand_scores[0]), int(view.hand_scores[1])),
        "match_scores": (int(view.match_scores[0]), int(view.match_scores[1])),
        "hands_ended": int(view.hands_ended),
    }
    if view.done:
        info["winner"] = int(view.winner)
    return info


def hand_end_reward(view, reward: str, episode: str) -> float | None:
    """Team 0's reward after an action that ended a hand (``view``: the game's scalars by
    name), team 1's being its negative; None when this hand end brings no reward (a hand
    inside a match with ``reward="win"``). See the module doc, Rewards."""
    done = view.done
    if reward == "win":
        if not done:
            return None
        w = view.winner
        return 0.0 if w < 0 else (1.0 if w == 0 else -1.0)
    if episode == "hand" and not done:  # cannot happen: a hand ends a hand episode
        return None
    scores = np.array([view.hand_scores[0], view.hand_scores[1]])
    return float(team_rewards(scores, reward)[0])


class IllegalMoveError(IllegalActionError):
    """An illegal action given to :meth:`raw_env.step`: names the player, the action and
    why; the game is left as it was. A ``ValueError``."""

    def __init__(self, action: int, code: int, agent: str):
        super().__init__(action, code, 0)
        self.agent = agent
        try:
            name = describe_action(action)
        except ValueError:
            name = "not an action"
        self.args = (f"{agent} cannot play action {action} ({name}): {ERROR_MESSAGES[code]}",)


def env(**kwargs) -> AECEnv:
    """The Burako AEC environment with PettingZoo's usual wrappers (see the module doc)."""
    e = raw_env(**kwargs)
    e = TerminateIllegalWrapper(e, illegal_reward=-1)
    e = AssertOutOfBoundsWrapper(e)
    e = OrderEnforcingWrapper(e)
    return e


# PettingZoo's wrappers reach the raw environment's attributes through a chain of
# ``__getattr__`` calls, one per wrapper, and a loop of ``last()`` and ``step()`` reads
# about thirty of them a step. The subclasses below keep the wrappers' behaviour and read
# the hot attributes from the raw environment directly.
def _raw_attribute(name: str) -> property:
    def get(self):
        if not self._has_reset:  # as OrderEnforcingWrapper.__getattr__ says
            raise AttributeError(f"{name} cannot be accessed before reset")
        return getattr(self._raw, name)

    return property(get, doc=f"the raw environment's ``{name}``")


class TerminateIllegalWrapper(wrappers.TerminateIllegalWrapper):
    """PettingZoo's TerminateIllegalWrapper whose warning names the move and the reason."""

    #: set by PettingZoo's __init__ and reset (declared here for the type checker)
    _terminated: bool

    def __init__(self, env: raw_env, illegal_reward: float):
        super().__init__(env, illegal_reward)
        self._raw = env.unwrapped

    def observe(self, agent: str) -> dict:
        obs = self.env.observe(agent)
        raw = self._raw
        if agent == raw.agent_selection:
            self._prev_obs = obs
            self._prev_info = raw.infos.get(agent, {})
        return obs

    def step(self, action) -> None:
        raw = self._raw
        current = raw.agent_selection
        if self._prev_obs is None:
            self.observe(current)
        mask = self._prev_obs["action_mask"]
        self._prev_obs = None
        self._prev_info = None
        dead = raw.terminations[current] or raw.truncations[current]
        if not dead and type(action) is not int:
            # a float, a string or a bool is no action: refused, never rounded or parsed
            action = check_action(action, f"{current}'s action")
        if self._terminated and dead:
            raw._was_dead_step(action)
        elif not dead and not (0 <= action < NUM_ACTIONS and mask[action]):
            warnings.warn(
                f"illegal move by {current}: {raw.explain_illegal(action)}; the game ends "
                f"with {self._illegal_value} for {current}",
                stacklevel=2,
            )
            raw._cumulative_rewards[current] = 0
            raw.terminations = dict.fromkeys(raw.agents, True)
            raw.truncations = dict.fromkeys(raw.agents, True)
            raw.rewards = dict.fromkeys(raw.agents, 0)
            raw.rewards[current] = float(self._illegal_value)
            raw._accumulate_rewards()
            raw._deads_step_first()
            self._terminated = True
        else:
            self.env.step(action)


class AssertOutOfBoundsWrapper(wrappers.AssertOutOfBoundsWrapper):
    """PettingZoo's AssertOutOfBoundsWrapper, with a fast path for a plain int."""

    def __init__(self, env: AECEnv):
        super().__init__(env)
        self._raw = env.unwrapped

    def step(self, action) -> None:
        """Play the current agent's ``action`` (an illegal one raises ValueError, naming the
        reason, unless a wrapper handles it), then move to the next agent to act."""
        if not (type(action) is int and 0 <= action < NUM_ACTIONS):
            raw = self._raw
            agent = raw.agent_selection
            if action is not None:  # a float, str or bool: a TypeError that says so
                check_action(action, f"{agent}'s action")
            assert (
                action is None and (raw.terminations[agent] or raw.truncations[agent])
            ) or raw.action_space(agent).contains(action), "action is not in action space"
        self.env.step(action)


class OrderEnforcingWrapper(wrappers.OrderEnforcingWrapper):
    """PettingZoo's OrderEnforcingWrapper; after reset, the hot attributes come straight
    from the raw environment (before it, they raise AttributeError as PettingZoo's do)."""

    def __init__(self, env: AECEnv):
        super().__init__(env)
        self._raw = env.unwrapped

    def __str__(self) -> str:
        return str(self.env)

    agent_selection = _raw_attribute("agent_selection")
    agents = _raw_attribute("agents")
    rewards = _raw_attribute("rewards")
    terminations = _raw_attribute("terminations")
    truncations = _raw_attribute("truncations")
    infos = _raw_attribute("infos")
    _cumulative_rewards = _raw_attribute("_cumulative_rewards")


class raw_env(AECEnv, EzPickle):  # noqa: N801 (PettingZoo's name)
    """The Burako AEC environment without wrappers (see the module doc)."""

    metadata: dict[str, Any] = {
        "render_modes": ["human", "ansi"],
        "name": "burako_v1",
        "is_parallelizable": False,
        "render_fps": 1,
    }

    def __init__(
        self,
        variant: str | Path | Variant | None = "argentine",
        num_players: int | None = None,
        episode: str = "hand",
        reward: str = "score",
        render_mode: str | None = None,
        copy_observations: bool = False,
        render_viewer: int | None = None,
        **overrides,
    ) -> None:
        EzPickle.__init__(
            self,
            variant=variant,
            num_players=num_players,
            episode=episode,
            reward=reward,
            render_mode=render_mode,
            copy_observations=copy_observations,
            render_viewer=render_viewer,
            **overrides,
        )
        super().__init__()
        check_env_keywords(overrides, raw_env.__init__, "burako_v1 (PettingZoo)")
        if render_mode not in (None, *self.metadata["render_modes"]):
            raise ValueError(
                f"render_mode must be one of {self.metadata['render_modes']} or None, "
                f"got {render_mode!r}"
            )
        self.reward_kind = check_reward(reward)
        self.game = Game(variant, num_players, batch_size=1, episode=episode, seed=0, **overrides)
        self.variant = self.game.variant
        self.episode = episode
        self.render_mode = render_mode
        self.render_viewer = render_viewer
        self.copy_observations = bool(copy_observations)
        n = self.game.num_players
        self.num_players = n
        self.possible_agents = [f"player_{i}" for i in range(n)]
        self.agent_name_mapping = {a: i for i, a in enumerate(self.possible_agents)}
        size = self.game.layout.size
        self.observation_spaces = {
            a: spaces.Dict(
                {
                    "observation": spaces.Box(INT16_MIN, INT16_MAX, (size,), np.int16),
                    "action_mask": spaces.Box(0, 1, (NUM_ACTIONS,), np.int8),
                }
            )
            for a in self.possible_agents
        }
        self.action_spaces: dict[str, spaces.Space] = {
            a: spaces.Discrete(NUM_ACTIONS) for a in self.possible_agents
        }
        #: the global state's blocks (see State Space) and its space
        self.state_layout = StateLayout(self.variant)
        self.state_space = spaces.Box(self.state_layout.low, self.state_layout.high, dtype=np.int32)

        # the engine's arrays and the decision cache (never reallocated)
        self._st = self.game.state
        self._view = self.game.live_view(0)  # the game's scalars by name, live
        self._obs = np.zeros(size, np.int16)  # the player to act's observation
        self._mask = np.zeros(NUM_ACTIONS, np.int8)  # ... and mask
        self._zero_mask = np.zeros(NUM_ACTIONS, np.int8)
        self._other_obs = np.zeros((n, size), np.int16)  # anyone else asked for
        self._decision: dict[str, np.ndarray] = {
            "observation": self._obs,
            "action_mask": self._mask,
        }
        self._others: list[dict[str, np.ndarray]] = [
            {"observation": self._other_obs[i], "action_mask": self._zero_mask} for i in range(n)
        ]
        self._decisions = DecisionKernel(self.game, self._obs, self._mask)
        self._seat = 0  # seat of the player to act
        self._rewarded = False  # rewards holds nonzero values from the last step
        self._seeded = False

    # ------------------------------------------------------------------ spaces
    def observation_space(self, agent: str) -> spaces.Space:
        """``agent``'s observation space (the same for every agent)."""
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        """``agent``'s action space: ``Discrete(NUM_ACTIONS)``, masked by the observation."""
        return self.action_spaces[agent]

    # ------------------------------------------------------------------ episode control
    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """Deal a new episode: from ``seed``, or from the operating system's entropy on a first
        reset without one (later resets without a seed continue the game's generator)."""
        if seed is None and not self._seeded:
            seed = entropy_seed()
        if seed is not None:
            self._st.rng[0] = game_seeds(check_seed(seed), 1)[0]  # 1.5 or True: an error
            self._seeded = True
        self._decisions.reset()
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict] = {a: {} for a in self.agents}
        self._rewarded = False
        self._skip_agent_selection = None
        self._seat = int(self._view.player)
        self.agent_selection = self.possible_agents[self._seat]
        if self.render_mode == "human":
            self.render()

    def step(self, action) -> None:
        """Play the current agent's ``action`` (an illegal one raises ValueError, naming the
        reason, unless a wrapper handles it), then move to the next agent to act."""
        try:
            agent = self.agent_selection
        except AttributeError:  # set by reset(): no hand is dealt yet
            raise RuntimeError("call reset() before step(): no hand is dealt yet") from None
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if action is None:
            raise ValueError(f"{agent} is to act: step needs an action, got None")
        a = action if type(action) is int else check_action(action, f"{agent}'s action")
        if not 0 <= a < NUM_ACTIONS:
            raise IllegalMoveError(a, ERR_OUT_OF_RANGE, agent)
        err = self._decisions.step(a)
        if err:
            raise IllegalMoveError(a, err, agent)
        self._cumulative_rewards[agent] = 0.0
        if self._rewarded:
            for name in self.rewards:
                self.rewards[name] = 0.0
            self._rewarded = False
        s = self._view
        if s.hand_just_ended:
            self._hand_ended()
        self._seat = seat = int(s.player)
        self.agent_selection = self.possible_agents[seat]
        if self.render_mode == "human":
            self.render()

    def _hand_ended(self) -> None:
        """Rewards, infos and terminations after an action that ended a hand."""
        s = self._view
        done = bool(s.done)
        info = hand_info(s)
        r0 = hand_end_reward(s, self.reward_kind, self.episode)
        for name in self.agents:
            seat = self.agent_name_mapping[name]
            self.infos[name] = dict(info)
            if r0 is not None:
                self.rewards[name] = r0 if seat % 2 == 0 else -r0
        if r0 is not None:
            self._rewarded = True
            self._accumulate_rewards()
        if done:
            for name in self.agents:
                self.terminations[name] = True

    # ------------------------------------------------------------------ observing
    def observe(self, agent: str) -> dict:
        """``agent``'s ``{"observation", "action_mask"}`` (the mask is all zeros unless it is
        ``agent``'s turn; copies with ``copy_observations``); a KeyError for an unknown agent."""
        seat = self.agent_name_mapping.get(agent) if isinstance(agent, str) else None
        if seat is None:
            raise KeyError(f"unknown agent {agent!r}; the agents are {self.possible_agents}")
        if seat == self._seat:
            d = self._decision
        else:
            self._decisions.observe(seat, self._other_obs[seat])
            d = self._others[seat]
        if self.copy_observations:
            return {"observation": d["observation"].copy(), "action_mask": d["action_mask"].copy()}
        return d

    def state(self) -> np.ndarray:
        """The global state: the whole game as a fresh int32 vector in ``state_space``
        (see the module doc, State Space)."""
        return self.state_layout.encode(self._st, 0)

    def legal_actions(self) -> np.ndarray:
        """The legal action ids of the decision (a view, in the engine's order)."""
        return self._st.legal[0, : self._st.num_legal[0]]

    def explain_illegal(self, action) -> str:
        """``action N (what it does): why it is illegal`` (``...: legal`` if it is)."""
        try:
            a = check_action(action)
        except TypeError:
            return f"{action!r} is not an action id (a whole number 0..{NUM_ACTIONS - 1})"
        code = self.game.action_error(a) if 0 <= a < NUM_ACTIONS else ERR_OUT_OF_RANGE
        try:
            name = describe_action(a)
        except ValueError:
            name = "not an action"
        return f"action {a} ({name}): {ERROR_MESSAGES[code]}"

    # ------------------------------------------------------------------ rendering
    def render(self) -> str | None:
        """The table as text: returned with ``render_mode="ansi"``, printed with ``"human"``."""
        if self.render_mode is None:
            warnings.warn(
                "render() called without a render_mode; pass render_mode='ansi' or 'human'",
                stacklevel=2,
            )
            return None
        from burako_env.render import render_table

        text = render_table(self.game, 0, viewer=self.render_viewer)
        if self.render_mode == "ansi":
            return text
        print(text + "\n")
        return None

    def close(self) -> None:
        """Nothing to release (PettingZoo's API)."""
        pass
