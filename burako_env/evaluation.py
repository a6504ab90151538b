"""One evaluation for every kind of player: :func:`evaluate` (``burako_env.evaluate``).

    from burako_env import evaluate

    res = evaluate("ppo:runs/x/policy.pt")                  # an agent name
    res = evaluate(MyAgent())                               # an Agent
    res = evaluate(lambda obs, mask: mask.argmax(axis=1))   # a function on a batch
    res = evaluate(MaskablePPO.load("model.zip"))           # an sb3(-contrib) model
    print(res.table())                                      # a TournamentResult
    res.pairing(res.agents[0], "greedy").win_rate

The player meets each opponent on the tournament's deals, each deal played twice with
the seats swapped (:func:`burako_env.agents.tournament.run_tournament`,
``pairings="first"``): win rates with ties half, 95% Wilson intervals, score margins,
Elo ratings. Its pairings are the ones ``burako tournament PLAYER OPPONENT ...`` plays
with the same seed and hands, game for game.

**One set of defaults.** ``burako tournament``, ``python -m
burako_env.training.evaluate`` and this function share them: the deals of seed
:data:`EVAL_SEED` (0), learned policies playing their most likely legal action
(``ppo``, ``ppo:PATH``, and sb3 models here: ``deterministic=True``), opponents seeded
``seed + 1``, ``seed + 2``, ... by their place, a player given by name ``seed``.

The player may be

* an :class:`~burako_env.agents.base.Agent` (five lines make one: the README's "Your
  own agent"),
* a name for :func:`~burako_env.agents.make_agent` (``"greedy"``, ``"ppo:PATH"``, ...),
* an object with ``predict(obs, action_masks=mask, deterministic=True)`` returning
  ``(actions, state)``: a Stable-Baselines3 / sb3-contrib model
  (:class:`~burako_env.agents.adapters.PredictAgent`); when its observation space is
  float it was trained on ``normalize_obs=True`` observations and gets them,
* a function ``(obs, mask) -> actions`` on a batch: ``obs`` int16 [B, obs_size],
  ``mask`` bool [B, 2541], one legal action id per row back
  (:class:`~burako_env.agents.adapters.FunctionAgent`).

What a function or a model returns is checked: another dtype or shape, an id outside
the action space or an illegal action raises a ValueError naming the action and why.

**Until decided.** ``evaluate(player, ["greedy"], until_decided=(0.50, 0.55))`` plays
each opponent only until a sequential test decides between "the player scores at most
0.50 per hand" and "at least 0.55" (:mod:`burako_env.sequential`, docs/EVALUATION.md);
``hands`` is then the most per opponent (default :data:`EVAL_HANDS_UNTIL_DECIDED`) and
``res.pairings[k].sequential`` the verdict.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from burako_env.agents.base import Agent
    from burako_env.agents.tournament_results import TournamentResult
    from burako_env.variants import Variant

#: the seed of every evaluation's deals by default (``burako tournament --seed``,
#: ``python -m burako_env.training.evaluate --seed``)
EVAL_SEED = 0
#: the opponents of an evaluation by default: the three heuristics
EVAL_OPPONENTS = ("random", "greedy", "discard_table")
#: hands per opponent by default (each deal played twice, seats swapped)
EVAL_HANDS = 1000
#: the most hands per opponent by default with ``until_decided``
EVAL_HANDS_UNTIL_DECIDED = 4000
#: the table when neither the call nor the player names one
DEFAULT_VARIANT = "argentine"


def as_agent(player: Any, variant: Variant | None = None, seed: int = EVAL_SEED) -> Agent:
    """``player`` (see the module doc) as an :class:`~burako_env.agents.base.Agent`: an
    agent as it is, a name through :func:`~burako_env.agents.make_agent` (seeded
    ``seed``), a model with ``predict`` as a
    :class:`~burako_env.agents.adapters.PredictAgent` (float observations normalised for
    ``variant``'s table when its observation space is float), a function as a
    :class:`~burako_env.agents.adapters.FunctionAgent`. Anything else is a TypeError
    that lists what is accepted."""
    from burako_env.agents import make_agent
    from burako_env.agents.adapters import FunctionAgent, PredictAgent
    from burako_env.agents.base import Agent

    if isinstance(player, Agent):
        return player
    if isinstance(player, str):
        return make_agent(player, seed=seed)
    if isinstance(player, type):
        raise TypeError(
            f"evaluate takes a player, not the class {player.__name__}: pass an instance "
            f"({player.__name__}(...))"
        )
    if callable(getattr(player, "predict", None)):
        return PredictAgent(player, transform=_model_transform(player, variant))
    if callable(player):
        name = getattr(player, "__name__", "") or ""
        return FunctionAgent(player, name="player" if name in ("", "<lambda>") else name)
    raise TypeError(
        f"cannot evaluate a {type(player).__name__}: give an Agent, an agent name, a model "
        f"with predict(obs, action_masks=mask, deterministic=True) or a function "
        f"(obs, mask) -> actions"
    )


def _model_transform(model, variant: Variant | None):
    """What a ``predict`` model reads: the int16 observations, or the normalised float32
    ones when its observation space is float; a ValueError when its size is not the
    table's."""
    import numpy as np

    space = getattr(model, "observation_space", None)
    shape = getattr(space, "shape", None)
    dtype = getattr(space, "dtype", None)
    if variant is None or shape is None:
        return None
    from burako_env.envs.observation import ObservationLayout

    layout = ObservationLayout(variant)
    if tuple(shape) != (layout.size,):
        raise ValueError(
            f"the model reads observations of shape {tuple(shape)}; this table "
            f"({variant.name}, {variant.num_players} players) has ({layout.size},): "
            f"it was trained for another table"
        )
    if dtype is not None and np.issubdtype(np.dtype(dtype), np.floating):
        return layout.normalize
    return None


def _recorded_table(agent: Agent) -> tuple[str | None, int | None]:
    """The variant name and player count a learned agent's policy file records."""
    info = getattr(agent, "info", None)
    recorded = info.get("variant") if isinstance(info, dict) else None
    if not isinstance(recorded, dict):
        return None, None
    return recorded.get("name"), recorded.get("num_players")


def evaluate(
    player: Any,
    opponents: tuple[str | Agent, ...] | list[str | Agent] = EVAL_OPPONENTS,
    hands: int | None = None,
    seed: int = EVAL_SEED,
    variant: str | Path | Variant | None = None,
    num_players: int | None = None,
    *,
    episode: str = "hand",
    workers: int = 2,
    progress: bool = False,
    until_decided: tuple[float, float] | None = None,
    alpha: float = 0.05,
    beta: float = 0.05,
    ray: bool = False,
    ray_address: str | None = None,
    estimator: str = "plain",
    value: Any = None,
) -> TournamentResult:
    """``player`` (an Agent, an agent name, an sb3 model, a function: see the module doc)
    against each of ``opponents`` (names or agents) for ``hands`` hands each (default
    :data:`EVAL_HANDS`), on the deals of ``seed``; the
    :class:`~burako_env.agents.tournament_results.TournamentResult` of those pairings
    (``res.pairings[k]`` is the player against ``opponents[k]``, from the player's side;
    ``res.table()`` prints them).

    ``variant`` / ``num_players``: the table; None plays the one the player's policy
    file records (``ppo:PATH``), else 4-player argentine (the variant's own count).
    ``episode``: ``"hand"`` or ``"match"``; ``workers``: numba's threads (the results do
    not depend on it); ``progress``: a progress bar on stderr. A player that cannot play
    the table (a policy of another) is refused with a ValueError naming both, before any
    game.

    ``until_decided=(p0, p1)``: each opponent is played until a sequential test decides
    between H0 "the player's score per hand is at most ``p0``" and H1 "at least ``p1``"
    (error rates ``alpha`` and ``beta``), ``hands`` at most (default
    :data:`EVAL_HANDS_UNTIL_DECIDED`); see
    :func:`~burako_env.agents.tournament.run_tournament`. ``ray`` / ``ray_address``:
    play on Ray, with the same results.

    ``estimator="aivat"``: each pairing also carries its margin and win rate corrected
    for the luck of the draws (``res.pairings[k].estimate``, an
    :class:`~burako_env.agents.aivat.Estimate`), by ``value`` (a value file; default: the
    one shipped for the table); docs/EVALUATION.md."""
    from burako_env.agents.base import Agent
    from burako_env.agents.tournament import run_tournament
    from burako_env.variants import load_variant

    if hands is None:
        hands = EVAL_HANDS if until_decided is None else EVAL_HANDS_UNTIL_DECIDED
    if not isinstance(hands, int) or isinstance(hands, bool) or hands < 1:
        raise ValueError(f"hands must be a whole number of at least 1, got {hands!r}")
    if isinstance(opponents, str):
        opponents = (opponents,)
    opponents = list(opponents)
    if not opponents:
        raise ValueError("evaluate needs at least one opponent")
    # a model reads the table's observations (normalised or not): it is wrapped once the
    # table is known; anything else first, as a policy file records its own table
    model = not isinstance(player, (str, Agent)) and callable(getattr(player, "predict", None))
    agent = None if model else as_agent(player, None, seed)
    if variant is None:
        recorded, players = _recorded_table(agent) if agent is not None else (None, None)
        variant = recorded or DEFAULT_VARIANT
        if num_players is None and recorded:
            num_players = players
    table = load_variant(variant, num_players=num_players)
    if agent is None:
        agent = as_agent(player, table, seed)
    return run_tournament(
        [agent, *opponents],
        table,
        hands_per_pairing=hands,
        seed=seed,
        workers=workers,
        progress=progress,
        episode=episode,
        pairings="first",
        until_decided=until_decided,
        alpha=alpha,
        beta=beta,
        ray=ray,
        ray_address=ray_address,
        estimator=estimator,
        value=value,
    )


__all__ = [
    "DEFAULT_VARIANT",
    "EVAL_HANDS",
    "EVAL_HANDS_UNTIL_DECIDED",
    "EVAL_OPPONENTS",
    "EVAL_SEED",
    "as_agent",
    "evaluate",
]
