"""Game records: what is needed to replay a played game, as JSON lines.

A record names the variant, the deal (``seed`` and ``index``: the deal of game ``index``
of a :class:`~burako_env.core.game.Game` batch created with that seed), who sat where,
every action in order and the result. :func:`deal_game` rebuilds the starting position and
:func:`replay` steps it through the actions, so a record is checked by replaying it.

    write_records("games.jsonl", records)        # one JSON object per line
    for rec in read_records("games.jsonl"):
        game = replay(rec)                       # a batch-of-one Game at the end
        assert game.hand_scores[0].tolist() == rec.scores
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

from burako_env.core.constants import NUM_ACTIONS
from burako_env.core.game import Game, game_seeds

#: version 2: rules v1 (burako_v1), whose action space has NUM_ACTIONS = 2541 ids; version
#: 1 records were written with the 1,773 ids of rules v0 and cannot be replayed now
RECORD_VERSION = 2
ACTION_SPACE_OF_VERSION = {1: 1773, 2: NUM_ACTIONS}


@dataclass
class GameRecord:
    """One played game (one hand, or a whole match with ``episode="match"``)."""

    variant: str
    num_players: int
    seed: int  # the deal's batch seed
    index: int  # the game's index within that batch
    seats: list[str]  # agent name at each seat
    actions: list[int]
    scores: list[int]  # team 0, team 1: last hand's scores (a match: match points)
    winner: int  # winning team, -1 for a tie
    episode: str = "hand"
    agents: list[str] = field(default_factory=list)  # team 0's agent, team 1's agent
    overrides: dict = field(default_factory=dict)  # variant parameters set on top
    meta: dict = field(default_factory=dict)  # free-form (tournament, pairing, ...)
    version: int = RECORD_VERSION
    num_actions: int = NUM_ACTIONS

    def to_json(self) -> str:
        return json.dumps(asdict(self), separators=(",", ":"))

    @classmethod
    def from_dict(cls, data: dict) -> GameRecord:
        known = {f for f in cls.__dataclass_fields__}
        extra = set(data) - known
        if extra:
            raise ValueError(f"unknown record fields: {sorted(extra)}")
        version = data.get("version", 1)
        size = data.get("num_actions", ACTION_SPACE_OF_VERSION.get(version))
        if version != RECORD_VERSION or size != NUM_ACTIONS:
            raise ValueError(
                f"record format version {version!r} (an action space of {size} ids) cannot "
                f"be replayed by this engine: rules v1 reads version {RECORD_VERSION}, "
                f"{NUM_ACTIONS} ids; record the game again with this version"
            )
        return cls(**data)


def write_records(path: str | Path, records: Iterable[GameRecord], append: bool = False) -> int:
    """Write records as JSON lines (appending with ``append``); returns how many."""
    n = 0
    with open(path, "a" if append else "w", encoding="utf-8") as f:
        for rec in records:
            f.write(rec.to_json())
            f.write("\n")
            n += 1
    return n


@contextmanager
def output_file(path: str | Path) -> Iterator[Path]:
    """A temporary file beside ``path`` to write the output in; when the block ends
    normally it replaces ``path`` in one step (``os.replace``), so ``path`` is never half
    written. On an error or Ctrl-C only the temporary file is removed: ``path``, whether it
    existed or not, is left as it was. The new file gets the old one's permissions (or
    the usual ones for a new file); a link is followed, its target is replaced."""
    target = Path(os.path.realpath(path))
    # the same suffix, so writers that go by the name (savefig) write the same format
    fd, name = tempfile.mkstemp(
        prefix=f".{target.stem}.", suffix=f".tmp{target.suffix}", dir=target.parent
    )
    os.close(fd)
    tmp = Path(name)
    try:
        yield tmp
        if target.exists():
            mode = target.stat().st_mode & 0o7777
        else:
            umask = os.umask(0)
            os.umask(umask)
            mode = 0o666 & ~umask
        os.chmod(tmp, mode)  # mkstemp made it 0600
        os.replace(tmp, target)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def iter_records(path: str | Path) -> Iterator[GameRecord]:
    with open(path, encoding="utf-8") as f:
        for lineno, line in enumerate(f, 1):
            line = line.strip()
            if not line:
                continue
            try:
                yield GameRecord.from_dict(json.loads(line))
            except (json.JSONDecodeError, TypeError, ValueError) as exc:
                raise ValueError(f"{path}:{lineno}: not a game record: {exc}") from exc


def read_records(path: str | Path) -> list[GameRecord]:
    """Every record of a JSON-lines file."""
    return list(iter_records(path))


def deal_game(
    variant: str,
    num_players: int,
    seed: int,
    index: int,
    episode: str = "hand",
    **overrides,
) -> Game:
    """A batch-of-one Game holding the deal of game ``index`` of a batch seeded ``seed``."""
    game = Game(variant, num_players=num_players, batch_size=1, episode=episode, **overrides)
    game.state.rng[0] = game_seeds(seed, index + 1)[index]
    game.reset()
    return game


def replay(record: GameRecord, check: bool = True) -> Game:
    """The record's game replayed action by action (each checked by the engine).

    With ``check``, the final scores and winner must match the record (ValueError if not).
    """
    game = deal_game(
        record.variant,
        record.num_players,
        record.seed,
        record.index,
        record.episode,
        **record.overrides,
    )
    for a in record.actions:
        game.step_one(int(a))
    if check:
        scores = game.match_scores[0] if record.episode == "match" else game.hand_scores[0]
        got = [int(v) for v in np.asarray(scores)]
        if not game.is_over() or got != list(record.scores) or int(game.winner[0]) != record.winner:
            raise ValueError(
                f"replay of game {record.seed}/{record.index} does not match its record: "
                f"over={game.is_over()}, scores {got} vs {record.scores}, "
                f"winner {int(game.winner[0])} vs {record.winner}"
            )
    return game
