"""Moved to :mod:`burako_env.frontends.rules_text`: a variant's rules in words (``burako rules``).
Front ends sit in a layer of their own, :mod:`burako_env.frontends`, on top of the library
(docs/ARCHITECTURE.md). This module re-exports the public names so that
``from burako_env.rules_text import ...`` keeps working; new code imports
:mod:`burako_env.frontends.rules_text`.
"""

from burako_env.frontends.rules_text import *  # noqa: F403
from burako_env.frontends.rules_text import (
    rules_summary,
)

__all__ = [
    "rules_summary",
]
