"""Limits on input: every bound the project puts on what it reads from outside (files,
records, command-line values), and the readers that enforce them (docs/RELIABILITY.md,
"Limits on input").

Untrusted input is checked where it enters, never in the kernels' loops: a file is read
with a bounded read, a document is parsed with a depth bound and no YAML aliases, and a
value is checked against its range here before any kernel sees it. Each reader takes the
error type of its surface (``VariantError`` for variant files, ``ConfigError`` for
training configs, ``ValueError`` for records), so one surface raises one kind of error.
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from typing import Any

import yaml

#: the largest variant (house-rule) or training-config file read: the shipped ones are
#: about 2 KiB; a bounded read never grows past this (a path to /dev/zero, a huge file)
MAX_CONFIG_FILE_BYTES = 64 * 1024
#: the deepest nesting of mappings and lists in a YAML or JSON document: the shipped files
#: nest 3 deep; past a few hundred the parsers recurse out of Python's stack
MAX_NESTING = 32
#: the most files in a training config's chain of ``base:`` files (the file included):
#: the shipped configs use 2; a longer chain would recurse out of Python's stack
MAX_BASE_CHAIN = 16
#: the longest line of a game-record file (one JSON record): a long match is well under
#: 1 MiB; a file with no newline (/dev/zero) stops here instead of filling memory
MAX_RECORD_LINE_BYTES = 16 * 2**20
#: the most characters of a name from outside (a variant's, a seat's) that a terminal
#: is shown; the rest is cut with an ellipsis that says so (a 5 MB name in a record
#: printed 680 MB in ``burako replay``, once in every table)
MAX_PRINTED_NAME = 80
#: the largest ``index`` of a record's deal (game ``index`` of a batch): a batch past
#: this would need over 100 GB; tournaments number their games per chunk, far below
MAX_RECORD_INDEX = 2**24 - 1
#: seeds are 64-bit (numpy's SeedSequence takes any size; the CLI and records take these)
MAX_SEED = 2**64 - 1
#: games per batch of ``burako simulate``: memory stays bounded (6.6 KB a game) whatever
#: ``--games`` says
SIMULATE_BATCH_GAMES = 4096
#: the most games ``burako simulate`` / ``sweep`` / ``bench --min-games`` and the most
#: hands per pairing ``burako tournament`` accept: days of CPU, so that a typo is an error
#: and not a run with no end
MAX_SIMULATE_GAMES = 10**9
MAX_TOURNAMENT_HANDS = 10**9
#: the most games side by side (``sweep --batch``, ``bench --batch``): 6.6 KB each
MAX_BATCH_GAMES = 2**16
#: the longest ``burako bench --seconds``
MAX_BENCH_SECONDS = 7 * 24 * 3600
#: the most iterations ``burako bench --api train --rounds`` measures
MAX_BENCH_ROUNDS = 10**4


#: the web table (``burako serve``, burako_env/frontends/web): the largest request body
#: read, counted as it streams in (a move or a new game's options is a few dozen bytes)
MAX_WEB_BODY_BYTES = 16 * 1024
#: the longest ``--bot-delay`` (seconds the page waits before each bot move)
MAX_BOT_DELAY = 60.0
#: games kept in memory, all browsers together; past it a new game replaces a finished
#: or long-idle one, or is refused (503): never another browser's game in play
MAX_WEB_GAMES = 200
#: games kept per browser (its tabs); its next one replaces its own least recently used
MAX_WEB_GAMES_PER_CLIENT = 8
#: games kept per client address for requests without the server's cookie (a script that
#: drops its cookies): its next one replaces its own least recently used, so such a flood
#: never fills the server for the browsers
MAX_WEB_GAMES_PER_ADDRESS = 8
#: a game untouched this long may make room for another browser's new game
WEB_GAME_IDLE_SECONDS = 30 * 60

#: rule parameters (house rules, overrides, records' inline rules) lie in these ranges:
#: with them a hand's score stays under 2.5e6 points (216 cards and 30 canastas at most,
#: each worth at most MAX_RULE_POINTS) and a match's under 2**31 (MAX_HANDS hands), the
#: range of the core's int32 scores; every value fits the kernels' int64 parameters
MAX_RULE_POINTS = 10_000  # a card value or a bonus (negative down to minus this)
MAX_MATCH_POINTS = 1_000_000  # target, first-meld minimums and threshold
MAX_TURNS = 10_000  # max_turns
MAX_HANDS = 500  # max_hands


#: training configs: the widest network layer (hidden, encoder, meld_dim; the shipped
#: configs use 256 at most: 10**9 asked torch for petabytes) and the most games in flight
MAX_NETWORK_WIDTH = 8192
MAX_TRAIN_ENVS = 2**16
#: the largest weight a policy file may hold (trained weights stay below about 100; a
#: flipped exponent bit gives 1e25 and up)
MAX_WEIGHT = 1e6
#: a training checkpoint's progress counters (issue 59): updates and env steps a run may
#: have made (a run of 2**31 updates is decades of CPU), and the league's Elo ratings
#: (they stay within a few thousand of 1000; past about 1e5 the expected score's
#: 10 ** (difference / 400) overflows)
MAX_TRAIN_UPDATES = 2**31 - 1
MAX_TRAIN_STEPS = 2**62
MAX_ELO_RATING = 50_000.0


class _BoundedSafeLoader(yaml.SafeLoader):
    """yaml's safe loader without aliases or anchors (a few hundred bytes of aliases
    expand to gigabytes), with a nesting bound and no duplicate keys (the second value
    silently won before)."""

    def compose_node(self, parent, index):
        event = self.peek_event()
        if isinstance(event, yaml.AliasEvent) or getattr(event, "anchor", None) is not None:
            raise yaml.constructor.ConstructorError(
                None,
                None,
                "anchors and aliases (& and *) are not allowed: write the values out",
                event.start_mark,
            )
        self._depth = getattr(self, "_depth", 0) + 1
        try:
            if self._depth > MAX_NESTING:
                raise yaml.constructor.ConstructorError(
                    None, None, f"nested deeper than {MAX_NESTING} levels", event.start_mark
                )
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1

    def construct_mapping(self, node, deep=False):
        seen = set()
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=True)
            try:
                duplicate = key in seen
            except TypeError:  # an unhashable key: the base class names it
                break
            if duplicate:
                raise yaml.constructor.ConstructorError(
                    None, None, f"duplicate key {key!r}", key_node.start_mark
                )
            seen.add(key)
        return super().construct_mapping(node, deep=deep)


def read_bounded_text(
    path: str | Path, what: str, error: type[Exception], limit: int = MAX_CONFIG_FILE_BYTES
) -> str:
    """The text of ``path``, a regular file of at most ``limit`` bytes (UTF-8), read with a
    bounded read; else ``error`` saying why. A device, FIFO or folder is refused before
    any byte is read (opened without blocking: a FIFO with no writer would wait)."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except FileNotFoundError:
        raise error(f"{what} {path} does not exist") from None
    except OSError as exc:
        raise error(f"cannot read {what} {path}: {exc.strerror or exc}") from None
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise error(f"{what} {path} is not a regular file")
    with os.fdopen(fd, "rb") as f:
        data = f.read(limit + 1)
    if len(data) > limit:
        raise error(f"{what} {path} is larger than {limit // 1024} KiB")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise error(f"{what} {path} is not UTF-8 text (byte {exc.start})") from None


def load_yaml(text: str, source: str, error: type[Exception]) -> Any:
    """``text`` parsed as YAML by the bounded safe loader; ``error`` naming ``source``
    and the problem on bad YAML, aliases, deep nesting, duplicate keys or a huge number."""
    try:
        return yaml.load(text, Loader=_BoundedSafeLoader)  # noqa: S506 - a SafeLoader
    except yaml.YAMLError as exc:
        raise error(f"{source} is not valid YAML: {exc}") from None
    except (ValueError, RecursionError) as exc:  # an integer of too many digits, say
        raise error(f"{source} cannot be read: {exc}") from None


def read_yaml_file(path: str | Path, what: str, error: type[Exception]) -> Any:
    """A YAML file of at most :data:`MAX_CONFIG_FILE_BYTES`, parsed by :func:`load_yaml`."""
    return load_yaml(read_bounded_text(path, what, error), str(path), error)


#: the scalar types JSON and YAML give, which hold nothing nested
_JSON_SCALARS = frozenset({int, float, str, bool, type(None)})


def nesting_depth(value: Any) -> int:
    """How deep lists and dicts nest in ``value`` (a scalar: 0), without recursion."""
    depth, stack = 0, [(value, 1)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, dict):
            item = list(item.values())
        if isinstance(item, list):
            depth = max(depth, level)
            # only containers go on the stack; a list of plain scalars (a record's million
            # action ids) is seen as one in a C loop over its types
            if not _JSON_SCALARS.issuperset(map(type, item)):
                stack.extend((x, level + 1) for x in item if isinstance(x, (dict, list)))
    return depth


def load_json(text: str | bytes, error: type[Exception] = ValueError) -> Any:
    """``text`` parsed as JSON, nested at most :data:`MAX_NESTING` deep; else ``error``."""
    try:
        data = json.loads(text)
    except RecursionError:
        raise error(f"nested deeper than {MAX_NESTING} levels") from None
    except ValueError as exc:  # JSONDecodeError, or an integer of too many digits
        raise error(str(exc)) from None
    if nesting_depth(data) > MAX_NESTING:
        raise error(f"nested deeper than {MAX_NESTING} levels")
    return data


def check_whole(name: str, value: Any, low: int, high: int, error: type[Exception]) -> int:
    """``value`` as an int in ``low..high``: a Python or numpy integer, not a bool (True is
    no count) and not a float (1.5 is not rounded); else ``error`` naming ``name``."""
    import numpy as np

    if isinstance(value, np.ndarray) and value.ndim == 0:
        value = value[()]
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise error(f"{name} must be a whole number {low}..{high}, got {value!r}")
    if not low <= value <= high:
        raise error(f"{name} must lie in {low}..{high}, got {value}")
    return int(value)


def printable(text: Any, limit: int | None = None) -> str:
    """``text`` safe to print on a terminal: every control character (ESC, BEL, CR, the
    C1 range...) written as a ``\\xNN`` escape, so a name read from a record cannot move
    the cursor, retitle the window or send an OSC sequence (an escape injection).

    With ``limit``, a text of more characters is cut to its first ``limit`` and an
    ellipsis says how long it was (``…[5,000,000 characters, cut]``): a name that is
    printed on every line of a replay prints a few lines, not gigabytes."""
    text = str(text)
    cut = ""
    if limit is not None and len(text) > limit:
        text, cut = text[:limit], f"…[{len(text):,} characters, cut]"
    return (
        "".join(
            ch if ch.isprintable() or ch == " " else ch.encode("unicode_escape").decode("ascii")
            for ch in text
        )
        + cut
    )


def printable_name(name: Any) -> str:
    """A name from outside (a variant's, a seat's) as a terminal prints it:
    :func:`printable`, at most :data:`MAX_PRINTED_NAME` characters of it."""
    return printable(name, MAX_PRINTED_NAME)
