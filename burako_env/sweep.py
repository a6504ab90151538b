"""Moved to :mod:`burako_env.frontends.sweep`: the reliability sweep's command side
(``burako sweep``; its kernel stays in the library, :mod:`burako_env.core.sweep`). Front ends
sit in a layer of their own, :mod:`burako_env.frontends`, on top of the library
(docs/ARCHITECTURE.md). This module re-exports the public names so that
``from burako_env.sweep import ...`` keeps working; new code imports
:mod:`burako_env.frontends.sweep`.
"""

from burako_env.frontends.sweep import *  # noqa: F403
from burako_env.frontends.sweep import (
    CHUNK_HANDS,
    SweepReport,
    SweepResult,
    player_counts,
    sweep,
)

__all__ = [
    "CHUNK_HANDS",
    "SweepReport",
    "SweepResult",
    "player_counts",
    "sweep",
]
