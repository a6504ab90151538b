"""Saved games played back (``burako replay``): shown move by move, or checked.

A game-record file holds one JSON :class:`~burako_env.records.GameRecord` per line
(``burako tournament --save-games``, ``burako play --save``).

* :func:`load_lines` reads every line on its own, so one broken line is reported with its
  line number and does not hide the others.
* :func:`check_record` re-plays a record through the engine: every action must be legal
  when it comes, the game must end with the last action, and its scores and winner must
  equal the recorded ones. It returns the problem in words, or None.
* :func:`replay_frames` yields the table after each move, for display, each move told in
  the words of the web log and ``burako play`` (:mod:`burako_env.frontends.narrate`).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from burako_env.core.actions import describe_action
from burako_env.core.constants import NUM_ACTIONS
from burako_env.core.game import Game
from burako_env.frontends.levels import agent_for, bot_label
from burako_env.frontends.narrate import play_and_describe
from burako_env.limits import printable_name
from burako_env.records import (
    GameRecord,
    deal_game,
    parse_record,
    record_lines,
    record_variant,
)
from burako_env.render import render_table


@dataclass
class Line:
    """One line of a record file: its record, or why it is not one."""

    lineno: int
    record: GameRecord | None
    error: str | None = None


def load_lines(path: str | Path) -> list[Line]:
    """Every non-empty line of a JSON-lines record file (OSError if it cannot be read,
    ValueError if it is not text or a line is past the bounded read's limit)."""
    out = []
    for lineno, text in list(record_lines(path)):
        text = text.strip()
        if not text:
            continue
        try:
            out.append(Line(lineno, parse_record(text)))
        except (TypeError, ValueError) as exc:
            out.append(Line(lineno, None, f"not a game record: {exc}"))
    return out


def start(record: GameRecord) -> Game:
    """The record's deal, before the first action."""
    return deal_game(record_variant(record), None, record.seed, record.index, record.episode)


def _final(game: Game, record: GameRecord) -> list[int]:
    scores = game.match_scores[0] if record.episode == "match" else game.hand_scores[0]
    return [int(v) for v in np.asarray(scores)]


def check_record(record: GameRecord) -> str | None:
    """None if the record replays exactly, else what went wrong (the first problem)."""
    try:
        return _check(record)
    except Exception as exc:  # noqa: BLE001 - fields of the wrong type, say
        return f"cannot replay the record: {type(exc).__name__}: {exc}"


def _check(record: GameRecord) -> str | None:
    if not isinstance(record.actions, list) or not isinstance(record.scores, list):
        return "actions and scores must be lists"
    try:
        game = start(record)
    except Exception as exc:  # noqa: BLE001 - a bad variant, player count, episode...
        return f"cannot deal the game: {exc}"
    if len(record.seats) != game.num_players:
        return f"{len(record.seats)} seats recorded for {game.num_players} players"
    for k, a in enumerate(record.actions, 1):
        if isinstance(a, bool) or not isinstance(a, int) or not 0 <= a < NUM_ACTIONS:
            return f"move {k}: {a!r} is not an action id (0..{NUM_ACTIONS - 1})"
        if game.is_over():
            return f"the game ended after move {k - 1} but the record goes on to move {k}"
        why = game.why_illegal(a)
        if why is not None:
            p = int(game.current_player[0])
            return f"move {k}: P{p} plays {a} ({describe_action(a)}), which is illegal: {why}"
        game.step_one(a)
    if not game.is_over():
        return f"the record stops after move {len(record.actions)} but the game is not over"
    got = _final(game, record)
    if got != list(record.scores):
        return f"the replayed scores are {got}, the record says {list(record.scores)}"
    winner = int(game.winner[0])
    if winner != record.winner:
        return f"the replayed winner is team {winner}, the record says team {record.winner}"
    return None


def header(record: GameRecord) -> str:
    """A record's first line in a replay: its seats, variant and result."""
    # every text of a record is printed through printable_name(): a name could hold an
    # escape, or be megabytes long
    seats = ", ".join(f"P{p} {printable_name(name)}" for p, name in enumerate(record.seats))
    result = "a tie" if record.winner < 0 else f"team {record.winner} wins"
    rules = record.variant
    variant = printable_name(rules.get("name", "custom") if isinstance(rules, dict) else rules)
    return (
        f"{variant}, {record.num_players} players, {record.episode}, deal "
        f"{record.seed}/{record.index}; seats: {seats}; {len(record.actions)} moves; "
        f"recorded result: {record.scores[0]} – {record.scores[1]}, {result}"
    )


def seat_label(name) -> str:
    """A recorded seat's name as a person reads it: a level's name for its agent
    (``discard_table``: Normal), else as recorded."""
    return bot_label(agent_for(name)) if isinstance(name, str) else str(name)


def replay_frames(record: GameRecord, viewer: int | None = None) -> Iterator[tuple[str, str]]:
    """``(move line, table)`` for the deal (move line "start") and after each move. A
    move line is ``move K/N: P1 (Normal): <the move in words>``, followed, when the move
    ended a hand, by the hand's summary on lines of their own.

    Raises ValueError at an illegal action (with the move number and the reason).
    """
    game = start(record)
    yield "start", render_table(game, viewer=viewer)
    n = len(record.actions)
    for k, a in enumerate(record.actions, 1):
        p = int(game.current_player[0])
        why = game.why_illegal(int(a))
        if why is not None:
            raise ValueError(f"move {k}: action {a} is illegal: {why}")
        told = play_and_describe(game, int(a))
        name = printable_name(seat_label(record.seats[p])) if p < len(record.seats) else "?"
        line = "\n".join([f"move {k}/{n}: P{p} ({name}): {told.text}", *told.events])
        yield line, render_table(game, viewer=viewer)
    got = _final(game, record)
    if got != list(record.scores) or int(game.winner[0]) != record.winner:
        raise ValueError(
            f"the replay ends with scores {got} (winner {int(game.winner[0])}), the record "
            f"says {list(record.scores)} (winner {record.winner})"
        )


__all__ = [
    "Line",
    "check_record",
    "header",
    "load_lines",
    "replay_frames",
    "seat_label",
    "start",
]
