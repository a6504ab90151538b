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

import hashlib
import itertools
import json
import os
import stat
import tempfile
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

from burako_env.core.constants import NUM_ACTIONS
from burako_env.core.game import EPISODES, Game, game_seed
from burako_env.limits import (
    MAX_RECORD_INDEX,
    MAX_RECORD_LINE_BYTES,
    MAX_SEED,
    check_whole,
    load_json,
    printable_name,
)
from burako_env.variants import (
    MAX_PLAYERS,
    PARAMETERS,
    VARIANT_NAMES,
    Variant,
    VariantError,
    load_variant,
    variant_from_dict,
)

#: version 2: rules v1 (burako_v1), whose action space has NUM_ACTIONS = 2541 ids; version
#: 1 records were written with the 1,773 ids of rules v0 and cannot be replayed now
RECORD_VERSION = 2
ACTION_SPACE_OF_VERSION = {1: 1773, 2: NUM_ACTIONS}


@dataclass
class GameRecord:
    """One played game (one hand, or a whole match with ``episode="match"``)."""

    variant: str | dict  # a named variant, or every rule inline (never a path)
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
        """The record as one line of JSON (its fields, compact)."""
        return json.dumps(asdict(self), separators=(",", ":"))

    @classmethod
    def from_dict(cls, data: dict) -> GameRecord:
        """The record of ``data`` (a parsed JSON line); ValueError for an unknown field or
        version."""
        known = {f for f in cls.__dataclass_fields__}
        extra = set(data) - known
        if extra:
            raise ValueError(f"unknown record fields: {sorted(extra)}")
        version = data.get("version", 1)
        known_version = isinstance(version, int) and version in ACTION_SPACE_OF_VERSION
        size = data.get("num_actions", ACTION_SPACE_OF_VERSION[version] if known_version else None)
        if version != RECORD_VERSION or size != NUM_ACTIONS:
            raise ValueError(
                f"record format version {version!r} (an action space of {size} ids) cannot "
                f"be replayed by this engine: rules v1 reads version {RECORD_VERSION}, "
                f"{NUM_ACTIONS} ids; record the game again with this version"
            )
        _check_fields(data)
        return cls(**data)


def _check_fields(data: dict) -> None:
    """ValueError naming the field of a record that no writer makes: a record is read
    from outside (a file, a browser), and its fields reach the engine and the disk. Every
    field is checked here, its type and range (a list of action ids, two scores, a seat
    name per player...), so that nothing past the reader meets a value of the wrong type."""
    variant = data.get("variant")
    if isinstance(variant, str):
        if variant not in VARIANT_NAMES:
            raise ValueError(
                f"unknown variant '{printable_name(variant)}': a record names one of "
                f"{', '.join(VARIANT_NAMES)} or carries other rules inline (a mapping of "
                "every parameter); it never names a file to read"
            )
    elif not isinstance(variant, dict):
        raise ValueError(
            f"variant must be a named variant or a mapping of rules, got {variant!r}"[:200]
        )
    check_whole("num_players", data.get("num_players"), 2, MAX_PLAYERS, ValueError)
    check_whole("seed", data.get("seed"), 0, MAX_SEED, ValueError)
    check_whole("index", data.get("index"), 0, MAX_RECORD_INDEX, ValueError)
    for name in ("overrides", "meta"):
        if not isinstance(data.get(name, {}), dict):
            raise ValueError(f"{name} must be a mapping, got {data[name]!r}"[:200])
    # overrides are rule parameters set on top of the variant; the player count is the
    # record's own num_players
    unknown = [k for k in data.get("overrides", {}) if k not in PARAMETERS or k == "num_players"]
    if unknown:
        raise ValueError(
            f"overrides set rule parameters (not num_players, the record's own field), got "
            f"{', '.join(map(repr, sorted(unknown)))}"[:300]
        )
    seats = data.get("seats")
    if not isinstance(seats, list) or not all(isinstance(x, str) for x in seats):
        raise ValueError("seats must be a list of names")
    if len(seats) != data["num_players"]:
        raise ValueError(
            f"seats names {len(seats)} players, num_players says {data['num_players']}"
        )
    agents = data.get("agents", [])
    if not isinstance(agents, list) or not all(isinstance(x, str) for x in agents):
        raise ValueError("agents must be a list of names")
    episode = data.get("episode", "hand")
    if not isinstance(episode, str) or episode not in EPISODES:
        raise ValueError(f"episode must be one of {', '.join(EPISODES)}, got {episode!r}"[:200])
    actions = data.get("actions")
    if not isinstance(actions, list):
        raise ValueError("actions must be a list of action ids")
    if not _plain_action_ids(actions):  # the loop names the first bad entry
        for k, a in enumerate(actions):
            check_whole(f"actions[{k}]", a, 0, NUM_ACTIONS - 1, ValueError)
    scores = data.get("scores")
    if not isinstance(scores, list) or len(scores) != 2:
        raise ValueError("scores must be a list of two whole numbers (team 0, team 1)")
    for t, score in enumerate(scores):
        check_whole(f"scores[{t}]", score, -(2**31), 2**31 - 1, ValueError)
    check_whole("winner", data.get("winner"), -1, 1, ValueError)


def _plain_action_ids(actions: list) -> bool:
    """Whether every entry of ``actions`` is a Python int in 0..NUM_ACTIONS-1, found in C
    loops (a type set, min and max): a record of millions of actions is read in a fraction
    of a second where :func:`check_whole` on each entry took seconds. False sends the caller
    to the entry-by-entry check, which names the first bad one (a numpy integer, fine
    there, also takes that path)."""
    if not actions:
        return True
    # type() and not isinstance: a bool is an int subclass, and True is no action id
    return set(map(type, actions)) == {int} and min(actions) >= 0 and max(actions) < NUM_ACTIONS


def variant_fields(variant: Variant, overrides: dict | None = None) -> tuple[str | dict, dict]:
    """A record's ``variant`` and ``overrides`` for a game of ``variant``: the named
    variant's name and the overrides when they give exactly these rules, else every rule
    inline (a house-rule file's path is never written: a record does not name a file)."""
    overrides = dict(overrides or {})
    if variant.name in VARIANT_NAMES:
        try:
            if load_variant(variant.name, variant.num_players, **overrides) == variant:
                return variant.name, overrides
        except VariantError:
            pass
    return variant.to_dict(), {}


def record_variant(record: GameRecord) -> Variant:
    """The rules of a record's game (its named variant or inline rules, the overrides
    on top), read without opening any file but the named variants'."""
    source = "the record's variant"
    if isinstance(record.variant, dict):
        n = record.num_players  # the recorded count is the one the rules are played at
        base = variant_from_dict({**record.variant, "num_players": n, "players": [n]}, source)
        return load_variant(base, **record.overrides)
    # the fields as they are, not asdict(): that deep-copies the action list, an int at a
    # time (seconds for a record of millions of actions); the check only reads them
    _check_fields(vars(record))
    return load_variant(record.variant, num_players=record.num_players, **record.overrides)


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


def record_lines(path: str | Path) -> Iterator[tuple[int, str]]:
    """``(line number, text)`` of every line of a record file, each line read with a
    bounded read (a line past MAX_RECORD_LINE_BYTES, a file with no newline such as
    /dev/zero, raises ValueError instead of filling memory; so does text not UTF-8). A
    FIFO with no writer reads as empty, at once."""
    # opened without blocking: a FIFO with no writer made open() wait for ever; reads
    # block again (a pipe being written, as from ``<(...)``, is read to its end)
    nonblocking = getattr(os, "O_NONBLOCK", 0)  # POSIX only
    fd = os.open(path, os.O_RDONLY | nonblocking)
    if stat.S_ISDIR(os.fstat(fd).st_mode):
        os.close(fd)
        raise ValueError(f"{path} is a folder: give a file of game records")
    if nonblocking:
        os.set_blocking(fd, True)
    with os.fdopen(fd, "rb") as f:
        for lineno in itertools.count(1):
            raw = f.readline(MAX_RECORD_LINE_BYTES + 1)
            if not raw:
                return
            if len(raw) > MAX_RECORD_LINE_BYTES:
                raise ValueError(
                    f"{path}:{lineno}: a line longer than {MAX_RECORD_LINE_BYTES // 2**20} MiB "
                    "is no game record"
                )
            try:
                yield lineno, raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise ValueError(
                    f"{path} is not a text file of JSON-lines game records (line {lineno}, "
                    f"byte {exc.start} is not UTF-8): give a file written by tournament "
                    "--save-games or play --save"
                ) from None


def parse_record(text: str) -> GameRecord:
    """One JSON line as a record (ValueError saying why it is not one)."""
    data = load_json(text)
    if not isinstance(data, dict):
        raise ValueError("a record is a JSON object")
    return GameRecord.from_dict(data)


def iter_records(path: str | Path) -> Iterator[GameRecord]:
    """The records of a JSON-lines file, one by one (blank lines skipped); a line that is no record
    raises ValueError naming its line."""
    for lineno, line in record_lines(path):
        line = line.strip()
        if not line:
            continue
        try:
            yield parse_record(line)
        except (TypeError, ValueError) as exc:
            raise ValueError(f"{path}:{lineno}: not a game record: {exc}") from exc


def read_records(path: str | Path) -> list[GameRecord]:
    """Every record of a JSON-lines file."""
    return list(iter_records(path))


def file_sha256(path: str | Path) -> str:
    """The sha256 of a file's bytes, hex (what names a policy or label file a run or a
    value file was made from)."""
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def deal_game(
    variant: str | Path | Variant,
    num_players: int,
    seed: int,
    index: int,
    episode: str = "hand",
    **overrides,
) -> Game:
    """A batch-of-one Game holding the deal of game ``index`` of a batch seeded ``seed``
    (``index`` at most MAX_RECORD_INDEX)."""
    seed = check_whole("seed", seed, 0, MAX_SEED, ValueError)
    index = check_whole("index", index, 0, MAX_RECORD_INDEX, ValueError)
    game = Game(variant, num_players=num_players, batch_size=1, episode=episode, **overrides)
    game.state.rng[0] = game_seed(seed, index)  # as game_seeds(seed, index + 1)[index]
    game.reset()
    return game


def replay(record: GameRecord, check: bool = True) -> Game:
    """The record's game replayed action by action (each checked by the engine).

    With ``check``, the final scores and winner must match the record (ValueError if not).
    """
    game = deal_game(record_variant(record), None, record.seed, record.index, record.episode)
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
