"""The bots' levels in plain words, the same in the terminal (``burako play``) and the
browser (``burako serve``).

=======  ===================  ===========================================================
Level    Agent                How it plays
=======  ===================  ===========================================================
Easy     ``greedy``           lays every meld it can at once, throws its least useful card
Normal   ``discard_table``    keeps cards that fit, reads the table before it discards
Hard     ``ppo``              a neural network trained by self-play (a shipped policy
                              of this variant and player count is needed)
Expert   ``pimc``             searches: deals the unseen cards again many times and plays
                              each move out to the end of the hand
=======  ===================  ===========================================================

Each level is offered only where it can play the table (:func:`levels_for`): Hard needs
the policy shipped for the variant at that player count (and torch); the others play any
table. The default (:func:`default_level`) is Hard where it plays, else Normal, in both
front ends. Agent names (``discard_table``, ``pimc:k=64``, ...) are still accepted where
a level is (:func:`agent_for`); a bot is shown by its level's name where it has one
(:func:`bot_label`).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass


@dataclass(frozen=True)
class Level:
    """A bot level of the terminal and web tables: its id, its name, the agent that plays it and how
    it plays."""

    id: str  # what a client sends: easy, normal, hard, expert
    name: str  # what a person reads
    agent: str  # the agent that plays it (burako_env.agents.make_agent)
    text: str  # how it plays, in a sentence


LEVELS = (
    Level(
        "easy",
        "Easy",
        "greedy",
        "takes the pile when it can meld from it, lays every meld it can at once and "
        "throws its least useful card",
    ),
    Level(
        "normal",
        "Normal",
        "discard_table",
        "keeps the cards that fit its melds and reads the table before it discards",
    ),
    Level(
        "hard",
        "Hard",
        "ppo",
        "a neural network trained by playing itself millions of hands",
    ),
    Level(
        "expert",
        "Expert",
        "pimc",
        "deals the cards it cannot see again many times and plays every move it is "
        "considering out to the end of the hand, then picks the best on average",
    ),
)
LEVEL_IDS = tuple(level.id for level in LEVELS)
_BY_ID = {level.id: level for level in LEVELS}
_BY_AGENT = {level.agent: level for level in LEVELS}
#: the level whose search answers "what would Expert play here?"
EXPERT = _BY_ID["expert"]


def level(level_id: str) -> Level:
    """The level of an id (easy, normal, hard, expert); KeyError else."""
    return _BY_ID[level_id]


def agent_for(name: str) -> str:
    """The agent name of a level id or level name (``expert``, ``Expert``: ``pimc``); any
    other name is an agent name and comes back as it is."""
    found = _BY_ID.get(name.strip().lower()) if isinstance(name, str) else None
    return found.agent if found else name


def bot_label(agent_name: str) -> str:
    """What a person reads for a bot: its level's name (``discard_table``: ``Normal``),
    or the agent's own name for an agent that is no level (``random``, ``pimc:k=64``)."""
    found = _BY_AGENT.get(agent_name)
    return found.name if found else agent_name


@functools.cache
def _hard_why_not(variant: str, players: int) -> str:
    """Why Hard cannot play this table ("" when it can): the shipped policy of the table,
    loaded and checked against it by the agent itself (as ``burako play`` seats it)."""
    try:
        from burako_env.agents import make_agent
        from burako_env.variants import load_variant

        make_agent("ppo").check_table(load_variant(variant, num_players=players))
    except Exception as exc:  # noqa: BLE001 - any failure means: not offered
        text = str(exc)
        if "no shipped PPO policy" in text:
            return f"no trained network ships for {variant} with {players} players"
        return f"the trained network cannot be loaded here ({text})"
    return ""


def why_not(level_id: str, variant: str, players: int) -> str:
    """Why a level cannot play a named variant at ``players`` ("" when it can)."""
    if level(level_id).agent == "ppo":
        return _hard_why_not(variant, int(players))
    return ""


def levels_for(variant: str, players: int) -> list[Level]:
    """The levels offered at a named variant with ``players`` players."""
    return [lv for lv in LEVELS if not why_not(lv.id, variant, players)]


def default_level(variant: str, players: int) -> Level:
    """Hard where it plays this table, else Normal (both front ends)."""
    return _BY_ID["hard"] if not why_not("hard", variant, players) else _BY_ID["normal"]


__all__ = [
    "EXPERT",
    "LEVELS",
    "LEVEL_IDS",
    "Level",
    "agent_for",
    "bot_label",
    "default_level",
    "level",
    "levels_for",
    "why_not",
]
