"""Moved to :mod:`burako_env.frontends.play`: the terminal game (``burako play``). Front ends sit
in a layer of their own, :mod:`burako_env.frontends`, on top of the library
(docs/ARCHITECTURE.md). This module re-exports the public names so that
``from burako_env.play import ...`` keeps working; new code imports
:mod:`burako_env.frontends.play`.
"""

from burako_env.frontends.play import *  # noqa: F403
from burako_env.frontends.play import (
    HELP,
    MoveError,
    PlayResult,
    default_bot,
    legal_text,
    make_bots,
    parse_move,
    play_game,
    score_text,
    typed_form,
)

__all__ = [
    "HELP",
    "MoveError",
    "PlayResult",
    "default_bot",
    "legal_text",
    "make_bots",
    "parse_move",
    "play_game",
    "score_text",
    "typed_form",
]
