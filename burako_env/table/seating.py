"""Who sits where: the agents of a table and the seat each plays in each game.

A :class:`Seating` is a list of agents (index ``k``; ``None`` is an external seat, one
whose moves the caller brings: a learner) and ``seat_agent`` int64 ``[B, P]``, the agent
index of seat ``p`` in game ``b``. Its builders are the tables the project plays:

* :meth:`Seating.duplicate`: two agents on the same deals with the sides swapped (the
  tournament's pairings);
* :class:`OpponentSeating`: a learner (a seat, or its team) against opponent agents, the
  learner seat fixed or drawn per episode (the Gymnasium envs).

The agents' names are resolved here too (:func:`named_opponents`), and an agent that
cannot play the table is refused before any game (:func:`check_agent`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from burako_env.variants import Variant

#: the agent index of the external (learner) seats in a seating's agent list
LEARNER = 0
#: how a learner plays: its own seat, or every seat of its team
CONTROLS = ("seat", "team")
#: what an env does with a learner's illegal action
ILLEGAL = ("terminate", "raise")


@dataclass
class Seating:
    """``agents`` (an agent, or None for an external seat, at each index) and
    ``seat_agent`` int64 ``[B, P]``: the index into ``agents`` of each seat of each game."""

    #: an agent, or None for an external seat, at each index
    agents: list
    #: int64 ``[B, P]``: the index into ``agents`` of each seat of each game
    seat_agent: np.ndarray

    @classmethod
    def duplicate(cls, a, b, deals: int, num_players: int) -> Seating:
        """``a`` and ``b`` on ``deals`` deals played twice: games ``0..deals-1`` seat
        ``a`` (index 0) on team 0's seats and ``b`` (index 1) on team 1's, games
        ``deals..2*deals-1`` the same deals with the sides swapped."""
        seat_team = np.arange(num_players) % 2
        sa = np.empty((2 * deals, num_players), np.int64)
        sa[:deals] = seat_team
        sa[deals:] = 1 - seat_team
        return cls([a, b], sa)


def check_settings(control: str, illegal_action: str, seat, num_players: int) -> None:
    """ValueError naming the argument for a ``control``, ``illegal_action`` or ``seat``
    that the learner cannot have."""
    if control not in CONTROLS:
        raise ValueError(f"control must be one of {CONTROLS}, got {control!r}")
    if illegal_action not in ILLEGAL:
        raise ValueError(f"illegal_action must be one of {ILLEGAL}, got {illegal_action!r}")
    n = num_players
    if seat != "random" and not (isinstance(seat, (int, np.integer)) and 0 <= seat < n):
        raise ValueError(f"seat must be 0..{n - 1} or 'random', got {seat!r}")


def named_opponents(spec, num_players: int):
    """``spec`` with every agent name replaced by an agent (one per seat, seeded by it)."""
    from burako_env.agents import make_agent

    def build(name: str, seat: int):
        try:
            return make_agent(name, seed=seat)
        except (ValueError, OSError) as exc:
            raise ValueError(f"opponent {name!r}: {exc}") from exc

    if isinstance(spec, str):
        return {p: build(spec, p) for p in range(num_players)}
    if isinstance(spec, Mapping):
        return {p: build(a, p) if isinstance(a, str) else a for p, a in spec.items()}
    if isinstance(spec, Sequence):
        return [build(a, i + 1) if isinstance(a, str) else a for i, a in enumerate(spec)]
    return spec


def check_agent(agent, variant: Variant):
    """``agent`` if it can play ``variant``'s table; TypeError / ValueError if not."""
    if not callable(getattr(agent, "act", None)):
        raise TypeError(f"an opponent needs an act(obs, mask) method, got {agent!r}")
    check = getattr(agent, "check_table", None)
    if callable(check):
        check(variant)
    return agent


def learner_seats(seat: int, control: str, num_players: int) -> frozenset:
    """The seats the learner plays: ``seat``, or with ``control="team"`` its team's."""
    if control == "team":
        return frozenset(range(seat % 2, num_players, 2))
    return frozenset((seat,))


def seat_opponents(spec, learner: frozenset, variant: Variant, random_agents) -> list:
    """The agent of every seat, None for the learner's seats: ``spec`` is the opponents
    as :func:`named_opponents` left them (None: ``random_agents[p]`` at seat p)."""
    n = variant.num_players
    others = [p for p in range(n) if p not in learner]
    agents = [None] * n
    if spec is None:
        for p in others:
            agents[p] = random_agents[p]
    elif isinstance(spec, Mapping):
        for p in others:
            if p not in spec:
                raise ValueError(f"no opponent agent given for seat {p}")
            agents[p] = check_agent(spec[p], variant)
    elif isinstance(spec, Sequence) and not isinstance(spec, str):
        if len(spec) != len(others):
            raise ValueError(
                f"{len(spec)} opponents given for the {len(others)} opponent seats {others}"
            )
        for p, agent in zip(others, spec, strict=True):
            agents[p] = check_agent(agent, variant)
    else:
        for p in others:
            agents[p] = check_agent(spec, variant)
    return agents


def random_opponents(num_players: int) -> list:
    """The default opponents: a random agent per seat, seeded by its seat."""
    from burako_env.agents.base import RandomAgent

    return [RandomAgent(seed=p) for p in range(num_players)]


class OpponentSeating:
    """A learner against opponent agents: ``agents`` is the learner (None, index
    :data:`LEARNER`) and then every distinct opponent once; :meth:`rows` gives the
    seating row of each learner seat.

    ``opponents`` is as the Gymnasium envs take it (None for random agents, one agent or
    name for every other seat, a sequence per opponent seat, a mapping seat -> agent);
    ``seat`` the learner's seat or ``"random"`` (every seat gets its row)."""

    def __init__(self, opponents, variant: Variant, seat, control: str) -> None:
        n = variant.num_players
        self.opponents = named_opponents(opponents, n)
        self.random_agents = random_opponents(n) if opponents is None else None
        self.agents: list = [None]
        self._rows = np.zeros((n, n), np.int64)  # learner seat -> each seat's agent
        for s in range(n) if seat == "random" else [int(seat)]:
            seated = seat_opponents(
                self.opponents, learner_seats(s, control, n), variant, self.random_agents
            )
            for p, agent in enumerate(seated):
                if agent is None:
                    continue
                k = next((i for i, a in enumerate(self.agents) if a is agent), None)
                if k is None:
                    k = len(self.agents)
                    self.agents.append(agent)
                self._rows[s, p] = k

    def rows(self, learner_seat: np.ndarray) -> np.ndarray:
        """int64 ``[len(learner_seat), P]``: the seating of games whose learner plays
        ``learner_seat``."""
        return self._rows[learner_seat]


__all__ = [
    "CONTROLS",
    "ILLEGAL",
    "LEARNER",
    "OpponentSeating",
    "Seating",
    "check_agent",
    "check_settings",
    "learner_seats",
    "named_opponents",
    "random_opponents",
    "seat_opponents",
]
