"""Moved to :mod:`burako_env.frontends.simulate`: the random-game simulation (``burako simulate``).
Front ends sit in a layer of their own, :mod:`burako_env.frontends`, on top of the library
(docs/ARCHITECTURE.md). This module re-exports the public names so that
``from burako_env.simulate import ...`` keeps working; new code imports
:mod:`burako_env.frontends.simulate`.
"""

from burako_env.frontends.simulate import *  # noqa: F403
from burako_env.frontends.simulate import (
    AGENT_SEED_OFFSET,
    RAY_CHUNK_GAMES,
    SimulationSummary,
    simulate,
    simulate_games_task,
)

__all__ = [
    "AGENT_SEED_OFFSET",
    "RAY_CHUNK_GAMES",
    "SimulationSummary",
    "simulate",
    "simulate_games_task",
]
