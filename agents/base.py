"""The agents' interface: every agent acts on a batch, and on one PettingZoo observation.

An agent sees only what a player may see: the observation vector (layout in
:func:`burako_env.core.constants.obs_layout`) and the legal-action mask.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

import numpy as np

from burako_env.core.constants import NUM_ACTIONS


def checked_actions(actions, batch: int, who: str) -> np.ndarray:
    """``actions``, what ``who`` (an agent, a policy: named in the errors) chose for
    ``batch`` observations, as int64 ``[batch]``. A ValueError says what is wrong when
    they are not one whole number per row (floats, bools, strings: nothing is rounded;
    another shape: nothing is reshaped) or one lies outside the action space. Whether
    an action is legal is the caller's check: it holds the game, and can say why not."""
    arr = np.asarray(actions)
    if arr.dtype == np.bool_ or not np.issubdtype(arr.dtype, np.integer):
        raise ValueError(
            f"{who} returned actions of dtype {arr.dtype}: an action is a whole number "
            f"0..{NUM_ACTIONS - 1}, one per row (nothing is rounded)"
        )
    if arr.shape != (batch,):
        raise ValueError(
            f"{who} returned actions of shape {arr.shape} for {batch} observations: one "
            f"action per row, shape ({batch},)"
        )
    bad = (arr < 0) | (arr >= NUM_ACTIONS)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise ValueError(
            f"{who} chose action {int(arr[i])} for row {i}: outside the action space "
            f"0..{NUM_ACTIONS - 1}"
        )
    return arr.astype(np.int64, copy=False)


# ---------------------------------------------------------------- how an agent decides
# An agent says how it decides with one of three small frozen kinds
# (:meth:`Agent.decides`); the table (:mod:`burako_env.table`) is the one place that
# dispatches on them. The kinds hold what the table needs and nothing else.


@dataclass(frozen=True)
class Compiled:
    """Decides inside compiled kernels: one of the numba policies of
    :mod:`burako_env.agents.policies` (``kind``, a ``POLICY_*`` number) tuned by
    ``weights`` (float64 ``[NUM_WEIGHTS]``). The table plays its seats inside the play
    kernel, drawing its ties from a generator state per game and seat."""

    #: the policy's ``POLICY_*`` number
    kind: int
    #: its weights, float64 ``[NUM_WEIGHTS]``
    weights: np.ndarray


@dataclass(frozen=True)
class Batched:
    """Decides in Python for a batch of games at once: ``act_lists(obs, mask, ids,
    counts)`` (see :meth:`Agent.act_lists`) returns one action per row."""

    #: ``(obs, mask, ids, counts) -> actions``, one per row
    act_lists: Callable[[np.ndarray, np.ndarray, np.ndarray, np.ndarray], Any]


@dataclass(frozen=True)
class PerGame:
    """Decides from the game itself, one game at a time: ``act_game(game, b)`` (a search
    agent such as ``pimc``, which looks at hidden cards only through determinizations)."""

    #: ``(game, b) -> action`` for the player to act in game ``b``
    act_game: Callable[[Any, int], int]


#: what :meth:`Agent.decides` returns
Decision = Compiled | Batched | PerGame


@runtime_checkable
class Thinks(Protocol):
    """An agent that can show its reasoning (``pimc``, ``ppo``): ``think(game, b)`` takes
    the decision :meth:`Agent.act_game` would take (the same action, the same random
    draws) and returns a report of it (the web table's "how the bot thinks")."""

    def think(self, game, b: int = 0) -> Any:
        """The decision of the player to act in game ``b``, with its reasons."""
        ...


class Agent(ABC):
    """Base class. Subclasses implement :meth:`act`; randomness comes from ``seed``.

    What an agent is: :meth:`act` on a batch of observations and masks, :meth:`act_one`
    on one PettingZoo observation, :meth:`act_game` on a game, and :meth:`decides`, how
    the table (:mod:`burako_env.table`) should call it."""

    #: :func:`checked_actions` from the class: kernel modules take only classes from
    #: modules outside the kernels' cache stamp (tests/core/test_numba_cache.py)
    checked_actions = staticmethod(checked_actions)

    name: str = "agent"

    def __init__(self, seed: int = 0) -> None:
        self.seed(seed)

    def seed(self, seed: int) -> None:
        """Reseed the agent's generator (a seeded reset of an env reseeds its opponents)."""
        self.rng = np.random.default_rng(seed)

    @abstractmethod
    def act(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """One legal action id per row: ``obs`` int16 [B, O], ``mask`` bool [B, A]."""

    def act_lists(
        self, obs: np.ndarray, mask: np.ndarray, ids: np.ndarray, counts: np.ndarray
    ) -> np.ndarray:
        """:meth:`act` given the rows' legal lists besides their masks (``ids`` int64
        [B, K] ascending, padded with the row's first id, ``counts`` [B], as
        :func:`~burako_env.agents.network.legal_lists` gives them): a caller that holds
        the games' own lists (the tournament) passes them, and an agent that reads lists
        (``ppo``) skips rebuilding them from the masks. The same actions as :meth:`act`."""
        return self.act(obs, mask)

    def decides(self) -> Decision:
        """How the table calls this agent: :class:`Compiled` (a numba policy, played
        inside the kernel), :class:`Batched` (Python, a batch of games per call: the
        default, through :meth:`act_lists`) or :class:`PerGame` (from the game, one at a
        time: a search agent)."""
        return Batched(self.act_lists)

    def kernels(self) -> tuple:
        """The numba kernels this agent's decisions are sure to call from Python (its
        :meth:`act`, or :meth:`act_game` for a search agent), which a tournament runs
        besides its own: the compile notice checks them before the games start
        (``burako_env.frontends.warmup.announce_compile``). A compiled policy decides
        inside the table's kernel and adds none; a compile none foresaw is said as it
        starts."""
        return ()

    def check_table(self, variant) -> None:
        """Raise ValueError if this agent cannot play ``variant`` (a
        :class:`~burako_env.variants.Variant`). Heuristics play any table; a learned
        policy only the variant, player count and action space it was trained on."""
        return None

    def act_game(self, game, b: int = 0) -> int:
        """The action of the player to act in game ``b`` of ``game`` (a
        :class:`~burako_env.core.game.Game`): what a table of one game asks
        (:func:`burako_env.table.next_move`). An observation agent acts on that player's
        observation and mask, a search agent overrides it."""
        p = int(game.current_player[b])
        obs = game.observe_one(p, b)[None]
        mask = game.legal_action_mask()[b : b + 1]
        return int(np.asarray(self.act(obs, mask)).reshape(-1)[0])

    def act_one(self, observation: dict) -> int:
        """One action for a PettingZoo observation ``{"observation", "action_mask"}``."""
        obs = np.asarray(observation["observation"])[None]
        mask = np.asarray(observation["action_mask"]).astype(bool)[None]
        return int(self.act(obs, mask)[0])

    def __repr__(self) -> str:
        return f"{type(self).__name__}(name={self.name!r})"


class RandomAgent(Agent):
    """Uniform over the legal actions."""

    name = "random"

    def act(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """A uniformly random legal action of each row, from this agent's generator."""
        mask = np.asarray(mask, bool)
        u = self.rng.random(mask.shape)
        return np.argmax(np.where(mask, u, -1.0), axis=1).astype(np.int64)

    def decides(self) -> Compiled:
        """Compiled: the kernel's random policy (uniform over the legal actions, from the game's
        own generator: the same distribution as :meth:`act`, another stream)."""
        # inside compiled kernels: uniform over the legal actions, from the kernel's own
        # per-game generator (the same distribution, another stream than ``act``)
        from burako_env.agents.policies import POLICY_RANDOM
        from burako_env.agents.policy_scores import default_weights

        return Compiled(POLICY_RANDOM, default_weights())
