"""Moved to :mod:`burako_env.frontends.playback`: saved games played back (``burako replay``).
Front ends sit in a layer of their own, :mod:`burako_env.frontends`, on top of the library
(docs/ARCHITECTURE.md). This module re-exports the public names so that
``from burako_env.playback import ...`` keeps working; new code imports
:mod:`burako_env.frontends.playback`.
"""

from burako_env.frontends.playback import *  # noqa: F403
from burako_env.frontends.playback import (
    Line,
    check_record,
    header,
    load_lines,
    replay_frames,
    start,
)

__all__ = [
    "Line",
    "check_record",
    "header",
    "load_lines",
    "replay_frames",
    "start",
]
