"""``openspiel_ismcts``: OpenSpiel's information-set Monte Carlo tree search as an agent.

The agent wraps ``open_spiel.python.algorithms.ismcts.ISMCTSBot`` (Cowling et al.
2012) on the OpenSpiel game of :mod:`burako_env.openspiel` (``pip install
'burako[openspiel]'``; without it the agent raises
:class:`~burako_env.extras.MissingExtra`). At each decision with more than one legal
action it wraps a copy of the engine's game in a ``python_burako`` state and runs the bot:
each simulation samples a world with the state's ``resample_from_infostate`` (every card
hidden from the player to act dealt again, consistently with what they know:
:meth:`Game.determinize <burako_env.core.game.Game.determinize>`), walks the tree of
information sets by UCT, expands one node and values it with random rollouts to the end of
the hand (:class:`RandomRolloutEvaluator`: uniformly random legal moves on every seat,
played on the engine; a value is +1 / -1 / 0 for the hand won / lost / tied by each seat's
team). The search sees hidden cards only through those samples.

Settings, in the agent's name (``openspiel_ismcts:sims=100,uct_c=2``) or as keywords:

* ``sims``: simulations per decision (default 100);
* ``uct_c``: the UCT exploration constant (default 2.0);
* ``rollouts``: random rollouts per evaluation (default 1);
* ``worlds``: at most this many sampled worlds per decision, reused (default 0: a fresh
  one every simulation).

The agent needs the game, not only an observation: it decides
:class:`~burako_env.agents.base.PerGame`, and the table calls
:meth:`OpenSpielISMCTSAgent.act_game`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from burako_env.agents.base import Agent, PerGame
from burako_env.agents.settings import parse_settings as parse_agent_settings
from burako_env.extras import require

NAME = "openspiel_ismcts"
DEFAULTS: dict[str, Any] = {"sims": 100, "uct_c": 2.0, "rollouts": 1, "worlds": 0}


def parse_settings(text: str) -> dict:
    """``"sims=50,uct_c=1.5"`` -> settings (ValueError naming a bad one)."""
    return parse_agent_settings(text, NAME, DEFAULTS, f"{NAME}:sims=100")


def _number(key: str, value, kind, minimum):
    try:
        number = kind(value)
    except (TypeError, ValueError):
        number = None
    if number is None or isinstance(value, bool) or number < minimum:
        raise ValueError(f"openspiel_ismcts: {key} must be a number >= {minimum}, got {value!r}")
    if kind is int and str(number) != str(value).strip():
        raise ValueError(f"openspiel_ismcts: {key} must be a whole number, got {value!r}")
    return number


class RandomRolloutEvaluator:
    """An OpenSpiel MCTS evaluator: uniformly random legal play to the end of the hand on
    the state's engine game (faster than stepping OpenSpiel states); uniform priors."""

    def __init__(self, n_rollouts: int = 1, random_state: np.random.RandomState | None = None):
        self.n_rollouts = n_rollouts
        self._random = random_state or np.random.RandomState()

    def evaluate(self, state):
        """The players' mean returns over ``n_rollouts`` random playouts of ``state`` (its returns,
        when it is terminal)."""
        from burako_env.openspiel import _team_returns

        total = np.zeros(state.num_players())
        for _ in range(self.n_rollouts):
            if state.is_terminal():
                return np.asarray(state.returns(), np.float64)
            engine = state.engine.clone()
            if state.pending >= 0:  # the draw: a sampled world's stock is shuffled already
                engine.step_one(state.pending)
            while not engine.is_over():
                legal = engine.legal_actions(0)
                engine.step_one(int(legal[self._random.randint(legal.size)]))
            total += _team_returns(engine, state.num_players())
        return total / self.n_rollouts

    def prior(self, state):
        """Uniform priors over the legal actions (a chance node's own outcome probabilities)."""
        if state.is_chance_node():
            return state.chance_outcomes()
        legal = state.legal_actions(state.current_player())
        return [(a, 1.0 / len(legal)) for a in legal]


class OpenSpielISMCTSAgent(Agent):
    """OpenSpiel's IS-MCTS bot (module doc); ``act_game`` decides."""

    def __init__(
        self,
        seed: int = 0,
        sims: int | str = DEFAULTS["sims"],
        uct_c: float | str = DEFAULTS["uct_c"],
        rollouts: int | str = DEFAULTS["rollouts"],
        worlds: int | str = DEFAULTS["worlds"],
    ) -> None:
        require("pyspiel", "the openspiel_ismcts agent")
        self.sims = _number("sims", sims, int, 1)
        self.uct_c = _number("uct_c", uct_c, float, 0.0)
        self.rollouts = _number("rollouts", rollouts, int, 1)
        self.worlds = _number("worlds", worlds, int, 0)
        settings = {"sims": self.sims, "uct_c": self.uct_c, "rollouts": self.rollouts}
        settings["worlds"] = self.worlds
        changed = [
            f"{k}={v:g}" if isinstance(v, float) else f"{k}={v}"
            for k, v in settings.items()
            if v != DEFAULTS[k]
        ]
        self.name = "openspiel_ismcts" + (":" + ",".join(changed) if changed else "")
        self._games: dict = {}
        self.decisions = 0
        self.searched = 0
        super().__init__(seed)

    def act(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """Refused (TypeError): the search needs the game, :meth:`act_game`."""
        raise TypeError(
            "openspiel_ismcts searches the game itself and cannot act on an observation "
            "alone: call act_game(game, b) (the tournament, burako play and "
            "burako_env.table.act_in_env do)"
        )

    def _spiel_game(self, game):
        from burako_env.openspiel import BurakoGame

        key = (id(game.variant), game.num_players)
        if key not in self._games:
            self._games = {key: BurakoGame({"players": game.num_players}, variant=game.variant)}
        return self._games[key]

    def decides(self) -> PerGame:
        """From the game, one at a time (OpenSpiel's search needs the game itself)."""
        return PerGame(self.act_game)

    def act_game(self, game, b: int = 0) -> int:
        """The action of the player to act in game ``b`` of ``game`` (a
        :class:`~burako_env.core.game.Game`), after an IS-MCTS search."""
        from open_spiel.python.algorithms import ismcts

        from burako_env.openspiel import BurakoState

        legal = game.legal_actions(b)
        if legal.size == 0:
            raise ValueError(f"game {b} has no legal action (is it over?)")
        self.decisions += 1
        if legal.size == 1:
            return int(legal[0])
        self.searched += 1
        spiel_game = self._spiel_game(game)
        seed = int(self.rng.integers(2**31))
        state = BurakoState.from_engine(spiel_game, game, b, seed=seed)
        random_state = np.random.RandomState(seed)
        bot = ismcts.ISMCTSBot(
            spiel_game,
            RandomRolloutEvaluator(self.rollouts, random_state),
            self.uct_c,
            self.sims,
            max_world_samples=self.worlds if self.worlds > 0 else -1,
            random_state=random_state,
            allow_inconsistent_action_sets=True,
        )
        action = int(bot.step(state))
        if action not in set(legal.tolist()):  # never expected: the bot picks a legal one
            raise RuntimeError(f"openspiel_ismcts chose an illegal action {action}")
        return action


def make_openspiel_ismcts(settings: str = "", seed: int = 0, **kw) -> OpenSpielISMCTSAgent:
    """``openspiel_ismcts`` / ``openspiel_ismcts:sims=100``: the agent with its settings."""
    parsed = parse_settings(settings)
    clash = set(parsed) & set(kw)
    if clash:
        raise ValueError(
            f"openspiel_ismcts: {', '.join(sorted(clash))} given both in the name and as keywords"
        )
    return OpenSpielISMCTSAgent(seed=seed, **parsed, **kw)


__all__ = [
    "DEFAULTS",
    "OpenSpielISMCTSAgent",
    "RandomRolloutEvaluator",
    "make_openspiel_ismcts",
    "parse_settings",
]
