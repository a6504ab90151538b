"""The web table's games, kept in a database as they are played.

Every game the table starts is a row of ``games`` (its options, seats and deal seed), and
every move a row of ``moves`` (the seat, the action, a bot's thinking), written in one
transaction before the move's answer is sent: a move the page was told about is on disk,
and a crash loses at most the move in flight, never a game. The engine is deterministic,
so a game is its options and its moves: :meth:`GameDatabase.load` gives them back and
:class:`~burako_env.frontends.web.sessions.PlaySession` replays them, so a restarted
server, a closed tab or a second device resumes the exact game, mid-hand, from its link.
A bot's decisions depend only on the deal's seed and the position (its generator is
seeded per move), so a resumed game plays on as it would have.

Two backends hold it, behind the same API, schema and migrations:

* SQLite (Python's own ``sqlite3``), the default: one file, created on first start, in WAL
  mode (readers never wait for the writer, several server processes on one machine may
  share the file) with ``synchronous=FULL``;
* PostgreSQL, when ``--db`` is a URL (``postgresql://user:password@host:port/dbname``,
  ``postgres://`` too; :func:`is_database_url`): a server that several server processes,
  on one machine or several, share. It needs the ``postgres`` extra (psycopg 3), imported
  only then.

The seam between them is small (:class:`_SqliteBackend`, :class:`_PostgresBackend`): the
placeholders (the SQL here is written with ``?``), the column types (SQLite's ``REAL`` is
PostgreSQL's ``DOUBLE PRECISION``: ``REAL`` there is 4 bytes, too few for a timestamp),
the question "does this table exist", and how a write transaction starts (SQLite's
``BEGIN IMMEDIATE`` takes the file's write lock; PostgreSQL's migrations take an advisory
lock, so that two processes opening a new database at once create it once). The upserts
are written in the ``INSERT ... ON CONFLICT`` form both read.

The schema carries its version (``meta.schema_version``) and grows by the numbered
migrations of :data:`MIGRATIONS`, applied in order when a database is opened; one from a
newer burako is refused, naming both versions, and left untouched.

History and statistics (:meth:`GameDatabase.history`, :meth:`GameDatabase.stats`) are
read from the same rows: the games of one browser, per opponent level won, lost and tied,
the average margin, the canastas of the person's team (clean and dirty, in all and per
game) and the time played. The canastas are counted as the moves are kept (the column
``canastas``, schema version 2): each hand's canastas on the table when it ended, summed
over the game's hands; a game kept before version 2 has none counted and is left out of
the canasta averages.

A table with friends (schema version 3) keeps the seats persons hold (``people``) and, per
such seat, the sha256 of its link's token and how many times the link was used
(``seat_tokens``): the token itself is never written, so the database gives no seat away.
Schema version 4 keeps which browsers took a seat with its link (``joined``: the browser's
cookie, the game, the seat, when it first joined), written in the same transaction as the
seat's new join count, so that a friend's game is theirs too: History and statistics are a
browser's own games (it started them, seen from the creator's seat) and the games it
joined (seen from the seat it took last). Only a seat's token makes a join, so no browser
can add a game to its history by its id alone. A join made before version 4 was not kept:
the joiner's browser lists that game once it opens its seat's link again.
"""

from __future__ import annotations

import json
import queue
import re
import sqlite3
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from burako_env.extras import require

#: the file name of the default database, beside the records folder
DEFAULT_DB_NAME = "burako-games.sqlite3"

#: the schema, one migration per version: (version, statements); never edit a released
#: one, add the next
MIGRATIONS: tuple[tuple[int, tuple[str, ...]], ...] = (
    (
        1,
        (
            "CREATE TABLE games ("
            " id TEXT PRIMARY KEY,"
            " owner TEXT NOT NULL,"  # the browser (its cookie) or the address that started it
            " created REAL NOT NULL,"
            " updated REAL NOT NULL,"
            " options TEXT NOT NULL,"  # the new game's options as JSON, the seed as digits
            " variant TEXT NOT NULL,"
            " players INTEGER NOT NULL,"
            " seat INTEGER NOT NULL,"
            " episode TEXT NOT NULL,"
            " levels TEXT NOT NULL,"  # the bots' levels or agents, JSON
            " moves INTEGER NOT NULL DEFAULT 0,"
            " over INTEGER NOT NULL DEFAULT 0,"
            " scores TEXT,"  # JSON [team 0, team 1] once over
            " winner INTEGER"
            ")",
            "CREATE TABLE moves ("
            " game_id TEXT NOT NULL REFERENCES games(id),"
            " n INTEGER NOT NULL,"  # 1 = the game's first move
            " seat INTEGER NOT NULL,"
            " action INTEGER NOT NULL,"
            " thinking TEXT,"  # a bot's thinking JSON, or NULL
            " PRIMARY KEY (game_id, n)"
            ")",
            "CREATE INDEX games_by_owner ON games(owner, updated)",
        ),
    ),
    (
        2,
        (
            # JSON {"hands_ended": n, "done": [[clean, dirty], [clean, dirty]], "now": ...}:
            # per team the canastas of the hands ended ("done") and of the hand in play
            "ALTER TABLE games ADD COLUMN canastas TEXT",
        ),
    ),
    (
        3,
        (
            # a table with friends: the seats persons hold, JSON [seat, ...] (NULL: the
            # creator's seat alone, as every game kept before version 3)
            "ALTER TABLE games ADD COLUMN people TEXT",
            # JSON {"seat": {"sha256": the seat token's hash, "joins": n}}: never a token
            "ALTER TABLE games ADD COLUMN seat_tokens TEXT",
        ),
    ),
    (
        4,
        (
            # the seats browsers took with a link: a joined game is in the joiner's
            # history, seen from its seat (the latest it took there)
            "CREATE TABLE joined ("
            " client TEXT NOT NULL,"  # the joining browser's cookie
            " game_id TEXT NOT NULL REFERENCES games(id),"
            " seat INTEGER NOT NULL,"
            " joined REAL NOT NULL,"  # the first join's time: the joiner's time played
            " PRIMARY KEY (client, game_id)"
            ")",
        ),
    ),
)
#: the schema version this code writes
SCHEMA_VERSION = MIGRATIONS[-1][0]


#: the URL schemes of a PostgreSQL ``--db``
POSTGRES_SCHEMES = ("postgresql", "postgres")
#: seconds a PostgreSQL connection attempt waits for the server (an unreachable host is
#: an error, not a hang), unless the URL sets ``connect_timeout``
CONNECT_TIMEOUT = 10
#: the most PostgreSQL connections one server process opens (its worker threads' writes
#: of different games commit side by side, each waiting on the server's log write)
POSTGRES_CONNECTIONS = 4
#: the key of the advisory lock PostgreSQL's migrations hold (any constant; "burako")
_MIGRATION_LOCK = 0x6275_7261_6B6F


class DatabaseError(RuntimeError):
    """The database cannot be used: a file that is no SQLite database, one from a newer
    burako, a folder that cannot be written, a PostgreSQL URL that is malformed or whose
    server cannot be reached or refuses the login. The message says what to fix."""


def is_database_url(db: str | Path) -> bool:
    """Whether ``db`` names a PostgreSQL database (``postgresql://...`` or
    ``postgres://...``) rather than a SQLite file."""
    if not isinstance(db, str) or "://" not in db:
        return False
    return db.split("://", 1)[0].lower() in POSTGRES_SCHEMES


def redact_url(url: str) -> str:
    """``url`` with its password replaced by ``***``: for messages and logs."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return re.sub(r"(://[^:/@]*:)[^@]*@", r"\1***@", url)
    if parts.password is None:
        return url
    user = parts.username or ""
    host = parts.netloc.rsplit("@", 1)[1]
    return urlunsplit(parts._replace(netloc=f"{user}:***@{host}"))


class _SqliteBackend:
    """SQLite: the file ``path``, one connection in autocommit mode (the transactions are
    explicit)."""

    name = "SQLite"
    errors: tuple[type[BaseException], ...] = (sqlite3.Error,)

    def __init__(self, path: Path) -> None:
        self.where = str(path)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            self.conn = sqlite3.connect(
                str(path), check_same_thread=False, isolation_level=None, timeout=30
            )
        except (OSError, sqlite3.Error) as exc:
            raise DatabaseError(f"cannot open the game database {self.where!r}: {exc}") from exc
        try:
            self.conn.execute("PRAGMA journal_mode=WAL")
            self.conn.execute("PRAGMA synchronous=FULL")
            self.conn.execute("PRAGMA foreign_keys=ON")
        except sqlite3.DatabaseError as exc:
            self.conn.close()
            raise DatabaseError(self.not_ours(exc)) from exc

    def not_ours(self, exc: BaseException) -> str:
        return (
            f"{self.where!r} is not a burako game database ({exc}): give another --db file, "
            "or move this one away"
        )

    def execute(self, sql: str, params: tuple = ()) -> Any:
        return self.conn.execute(sql, params)

    def ddl(self, sql: str) -> str:
        return sql

    def has_table(self, name: str) -> bool:
        row = self.execute(
            "SELECT 1 FROM sqlite_master WHERE type='table' AND name=?", (name,)
        ).fetchone()
        return row is not None

    @contextmanager
    def transaction(self, schema: bool = False) -> Iterator[None]:
        # IMMEDIATE: the write lock at once, so that a reader-turned-writer never fails
        # on another process's write in between
        self.conn.execute("BEGIN IMMEDIATE")
        try:
            yield
        except BaseException:
            self.conn.execute("ROLLBACK")
            raise
        self.conn.execute("COMMIT")

    def close(self) -> None:
        self.conn.close()


class _PostgresBackend:
    """PostgreSQL at ``url``: one psycopg connection in autocommit mode (the transactions
    are explicit), the server's own durability (a commit is on its disk before it
    returns, with the server's default ``synchronous_commit``)."""

    name = "PostgreSQL"

    def __init__(self, url: str) -> None:
        self.where = redact_url(url)
        psycopg = require("psycopg", f"--db {self.where}", "postgres")
        self.errors: tuple[type[BaseException], ...] = (psycopg.Error,)
        try:
            parts = urlsplit(url)
            parts.port  # noqa: B018 (a port that is no number raises here)
            options = psycopg.conninfo.conninfo_to_dict(url)
        except (ValueError, psycopg.Error) as exc:
            raise DatabaseError(
                f"--db {self.where!r} is not a valid PostgreSQL URL ({_one_line(exc)}): "
                "write it as postgresql://user:password@host:port/dbname"
            ) from exc
        extra = {} if "connect_timeout" in options else {"connect_timeout": CONNECT_TIMEOUT}
        try:
            self.conn = psycopg.connect(url, autocommit=True, **extra)
        except psycopg.Error as exc:
            raise DatabaseError(
                f"cannot connect to the game database {self.where}: {_one_line(exc)}; check "
                "the host, port, user, password and database name of --db, and that the "
                "server is running"
            ) from exc

    def not_ours(self, exc: BaseException) -> str:
        return (
            f"{self.where} is not a burako game database ({_one_line(exc)}): give another "
            "--db database, or empty this one"
        )

    def execute(self, sql: str, params: tuple = ()) -> Any:
        return self.conn.execute(sql.replace("?", "%s"), params)

    def ddl(self, sql: str) -> str:
        return re.sub(r"\bREAL\b", "DOUBLE PRECISION", sql)

    def has_table(self, name: str) -> bool:
        # a scan of the catalog under the statement's snapshot, not to_regclass: that one
        # reads the session's catalog cache, which a table another server committed while
        # this one waited on the migration lock may not have reached yet
        row = self.execute(
            "SELECT EXISTS (SELECT 1 FROM pg_catalog.pg_tables"
            " WHERE schemaname = current_schema() AND tablename = ?)",
            (name,),
        ).fetchone()
        return bool(row[0])

    @contextmanager
    def transaction(self, schema: bool = False) -> Iterator[None]:
        with self.conn.transaction():
            if schema:  # one process migrates at a time; the lock ends with the transaction
                self.execute("SELECT pg_advisory_xact_lock(?)", (_MIGRATION_LOCK,))
            yield

    def close(self) -> None:
        self.conn.close()


def _one_line(exc: BaseException) -> str:
    """An exception's message on one line (psycopg's span several)."""
    return " ".join(str(exc).split()) or type(exc).__name__


def _schema_version(db: _SqliteBackend | _PostgresBackend) -> int:
    """The schema version of the database behind ``db`` (0 for an empty one)."""
    if not db.has_table("meta"):
        return 0
    row = db.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()
    return int(row[0]) if row else 0


class GameDatabase:
    """The games of the web table in the SQLite file ``db`` (created with its folder on
    first use), or in the PostgreSQL database ``db`` names when it is a URL
    (:func:`is_database_url`). Safe to call from the server's worker threads, one
    transaction per write: SQLite through one connection under a lock (SQLite writes one
    transaction at a time anyway), PostgreSQL through a pool of up to
    :data:`POSTGRES_CONNECTIONS` connections opened as needed, so that the moves of
    different games commit side by side (each game's own moves come in order: the web
    table plays a game's moves under that game's lock). Several processes may share one
    database (a file on one machine, a PostgreSQL server on any)."""

    def __init__(self, db: str | Path) -> None:
        self._backend: _SqliteBackend | _PostgresBackend
        if is_database_url(db):
            self.path: Path | None = None
            self._backend = _PostgresBackend(str(db))
        else:
            self.path = Path(db)
            self._backend = _SqliteBackend(self.path)
        #: what the database is, for messages: the file, or the URL without its password
        self.where = self._backend.where
        self._lock = threading.Lock()
        #: idle connections (PostgreSQL's pool; SQLite's one connection is used under the
        #: lock), how many are open, and whether close() was called
        self._idle: queue.LifoQueue = queue.LifoQueue()
        self._opened = 1
        self._closed = False
        self._url = None if self.path is not None else str(db)
        try:
            self._migrate()
        except self._backend.errors as exc:
            self._backend.close()
            raise DatabaseError(self._backend.not_ours(exc)) from exc
        except BaseException:
            self._backend.close()
            raise
        self._idle.put(self._backend)

    @contextmanager
    def _use(self) -> Iterator[_SqliteBackend | _PostgresBackend]:
        """A connection for one read or one transaction: SQLite's under the lock, or an
        idle PostgreSQL connection (a new one while fewer than
        :data:`POSTGRES_CONNECTIONS` are open; else the next one given back). A
        connection an error broke is closed, not given back."""
        if self._url is None:
            with self._lock:
                yield self._backend
            return
        backend = self._take()
        try:
            yield backend
        finally:
            if backend.conn.closed or backend.conn.broken or self._closed:
                backend.close()
                with self._lock:
                    self._opened -= 1
            else:
                self._idle.put(backend)

    def _take(self) -> _PostgresBackend:
        while True:
            try:
                return self._idle.get_nowait()
            except queue.Empty:
                pass
            with self._lock:
                if self._closed:
                    raise DatabaseError(f"the game database {self.where} is closed")
                opening = self._opened < POSTGRES_CONNECTIONS
                if opening:
                    self._opened += 1
            if opening:
                try:
                    return _PostgresBackend(self._url)
                except BaseException:
                    with self._lock:
                        self._opened -= 1
                    raise
            try:  # every connection in use: the next one given back
                return self._idle.get(timeout=1.0)
            except queue.Empty:
                continue  # one may have been closed meanwhile: room to open another

    # ------------------------------------------------------------ schema
    def schema_version(self) -> int:
        """The schema version of the database (0 for an empty one)."""
        with self._use() as db:
            return _schema_version(db)

    def _migrate(self) -> None:
        with self._lock:
            for number, statements in ((0, ()), *MIGRATIONS):
                # the version is read inside the transaction: another process may have
                # migrated since (the transaction's lock orders them)
                with self._backend.transaction(schema=True):
                    version = _schema_version(self._backend)
                    if version > SCHEMA_VERSION:
                        raise DatabaseError(
                            f"{self.where!r} has schema version {version}, newer than this "
                            f"burako's {SCHEMA_VERSION}: upgrade burako, or give another "
                            "--db database"
                        )
                    if number == 0 or number <= version:
                        continue
                    if number == 1:
                        self._backend.execute(
                            "CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT)"
                        )
                    for sql in statements:
                        self._backend.execute(self._backend.ddl(sql))
                    self._backend.execute(
                        "INSERT INTO meta (key, value) VALUES ('schema_version', ?)"
                        " ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                        (str(number),),
                    )

    def secret(self, name: str, size: int = 32) -> bytes:
        """A random key kept in the file (made on first use): the server's cookie key, so
        that a browser is known again after a restart."""
        import secrets

        key = f"secret:{name}"
        with self._use() as db:
            row = db.execute("SELECT value FROM meta WHERE key=?", (key,)).fetchone()
            if row is None:
                value = secrets.token_hex(size)
                db.execute(
                    "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO NOTHING",
                    (key, value),
                )
                row = db.execute("SELECT value FROM meta WHERE key=?", (key,)).fetchone()
        return bytes.fromhex(row[0])

    # ------------------------------------------------------------ writing
    def add_game(self, session, owner: str, options: dict) -> None:
        """Keep a new game: its options (``options``, the seed included) and seats."""
        now = time.time()
        levels = [a for a in session.agents if a != "human"]
        people = list(session.people)
        with self._use() as db:
            db.execute(
                "INSERT INTO games (id, owner, created, updated, options, variant, players,"
                " seat, episode, levels, people, seat_tokens)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    session.id,
                    owner,
                    now,
                    now,
                    json.dumps(options, sort_keys=True),
                    session.variant,
                    session.game.num_players,
                    session.seat,
                    session.game.episode,
                    json.dumps(levels),
                    json.dumps(people) if len(people) > 1 else None,
                    _tokens_json(session.seat_tokens),
                ),
            )

    def join_seat(
        self, game_id: str, seat_tokens: dict, seat: int, client: str | None = None
    ) -> None:
        """Keep a join of ``seat`` with its link, in one transaction: the game's seat
        tokens as they are now (the seat's join count), and that browser ``client`` (its
        cookie; None: none to keep) holds the game at ``seat``, so that it is in the
        browser's history. A browser that joins one game twice keeps one row: its latest
        seat, its first join's time."""
        with self._use() as db, db.transaction():
            db.execute(
                "UPDATE games SET seat_tokens=? WHERE id=?", (_tokens_json(seat_tokens), game_id)
            )
            if client is not None:
                db.execute(
                    "INSERT INTO joined (client, game_id, seat, joined) VALUES (?, ?, ?, ?)"
                    " ON CONFLICT (client, game_id) DO UPDATE SET seat = excluded.seat",
                    (client, game_id, int(seat), time.time()),
                )

    def add_move(self, session, seat: int, action: int, thinking: dict | None) -> None:
        """Keep the move just played (the session's last), with the game's result when
        it ended the game, in one transaction."""
        n = len(session.actions)
        game = session.game
        over = bool(game.is_over())
        scores = winner = None
        if over:
            final = game.match_scores[0] if game.episode == "match" else game.hand_scores[0]
            scores, winner = json.dumps([int(v) for v in final]), int(game.winner[0])
        with self._use() as db:
            row = db.execute("SELECT canastas FROM games WHERE id=?", (session.id,)).fetchone()
            kept = json.loads(row[0]) if row and row[0] else None
            tally = json.dumps(canasta_tally(game, kept))
            with db.transaction():
                db.execute(
                    "INSERT INTO moves (game_id, n, seat, action, thinking) VALUES (?, ?, ?, ?, ?)",
                    (
                        session.id,
                        n,
                        int(seat),
                        int(action),
                        None if thinking is None else json.dumps(thinking),
                    ),
                )
                db.execute(
                    "UPDATE games SET moves=?, updated=?, over=?, scores=?, winner=?, canastas=?"
                    " WHERE id=?",
                    (n, time.time(), int(over), scores, winner, tally, session.id),
                )

    # ------------------------------------------------------------ reading
    def load(self, game_id: str) -> tuple[dict, list[tuple[int, int, dict | None]]] | None:
        """``(options, moves)`` of a kept game, each move ``(seat, action, thinking)`` in
        order; None when there is no such game."""
        with self._use() as db:
            row = db.execute("SELECT options FROM games WHERE id=?", (game_id,)).fetchone()
            if row is None:
                return None
            moves = db.execute(
                "SELECT seat, action, thinking FROM moves WHERE game_id=? ORDER BY n", (game_id,)
            ).fetchall()
        return json.loads(row[0]), [
            (int(s), int(a), None if t is None else json.loads(t)) for s, a, t in moves
        ]

    def seats(self, game_id: str) -> tuple[list[int] | None, dict]:
        """``(people, seat_tokens)`` of a kept game: the seats persons hold (None: the
        creator's alone) and each one's token hash and joins, seats as numbers."""
        with self._use() as db:
            row = db.execute(
                "SELECT people, seat_tokens FROM games WHERE id=?", (game_id,)
            ).fetchone()
        if row is None:
            return None, {}
        people = json.loads(row[0]) if row[0] else None
        tokens = json.loads(row[1]) if row[1] else {}
        return people, {int(p): kept for p, kept in tokens.items()}

    def _games_of(
        self, db, client: str, columns: tuple[str, ...], tail: str = "", extra: tuple = ()
    ) -> list[tuple]:
        """The rows of browser ``client``'s games, ``columns`` of ``games`` each, and
        three more as named: ``seat`` (the seat it plays), ``since`` (when it came: the
        game's start, or its first join) and ``joined`` (0 or 1). Those it started, and
        those it joined with a seat's link and did not start; ``tail`` (an ORDER BY, a
        LIMIT) is appended with its parameters ``extra``."""
        own = {"since": "created", "joined": "0"}
        other = {"seat": "j.seat", "since": "j.joined", "joined": "1"}
        started = ", ".join(f"{own.get(c, c)} AS {c}" for c in columns)
        took = ", ".join(f"{other.get(c, 'g.' + c)} AS {c}" for c in columns)
        return db.execute(
            f"SELECT {started} FROM games WHERE owner=?"
            f" UNION ALL SELECT {took} FROM games g JOIN joined j ON j.game_id = g.id"
            f" WHERE j.client=? AND g.owner <> ?{tail}",
            (client, client, client, *extra),
        ).fetchall()

    def history(self, owner: str, limit: int = 50) -> list[dict]:
        """The games of browser ``owner``, the most recently played first: those it
        started and those it joined with a seat's link, each seen from its own seat
        (``joined``: true for a joined one; ``people``: the seats persons hold)."""
        with self._use() as db:
            rows = self._games_of(
                db,
                owner,
                (
                    *("id", "created", "updated", "variant", "players", "seat", "episode"),
                    *("levels", "moves", "over", "scores", "winner", "canastas", "people"),
                    "joined",
                ),
                " ORDER BY updated DESC LIMIT ?",
                (int(limit),),
            )
        out = []
        for row in rows:
            gid, created, updated, variant, players, seat, episode, levels = row[:8]
            moves, over, sc, w, tally, people, joined = row[8:]
            scores = json.loads(sc) if sc else None
            team = seat % 2
            clean_dirty = canastas_of_team(json.loads(tally), team) if tally else None
            out.append(
                {
                    "id": gid,
                    "started": created,
                    "last_move": updated,
                    "variant": variant,
                    "players": players,
                    "seat": seat,
                    "people": json.loads(people) if people else [seat],
                    "joined": bool(joined),
                    "episode": episode,
                    "bots": json.loads(levels),
                    "moves": moves,
                    "over": bool(over),
                    "scores": scores,
                    "result": None if not over else _result(w, team),
                    "margin": None if not scores else scores[team] - scores[1 - team],
                    # the person's team's canastas so far (None: kept before they were)
                    "canastas": None
                    if clean_dirty is None
                    else {"clean": clean_dirty[0], "dirty": clean_dirty[1]},
                }
            )
        return out

    def stats(self, owner: str) -> dict:
        """Browser ``owner``'s finished games (started or joined: :meth:`history`'s) by
        the bots they played: games, won, lost, tied, the average margin of the person's
        team (its seat's), its canastas (``clean_canastas`` and ``dirty_canastas`` in all,
        ``clean_per_game`` and ``dirty_per_game`` on average over ``canasta_games``, the
        games whose canastas were counted; None without any), and the time played
        (seconds, from the start or the first join to the last move) over every game."""
        by_level: dict[str, dict] = {}
        played = 0.0
        with self._use() as db:
            rows = self._games_of(
                db,
                owner,
                ("seat", "levels", "over", "scores", "winner", "since", "updated", "canastas"),
            )
        for seat, levels, over, sc, winner, since, updated, tally in rows:
            played += max(0.0, updated - since)
            if not over or not sc:
                continue
            team = seat % 2
            scores = json.loads(sc)
            key = ", ".join(sorted(set(json.loads(levels))))
            entry = by_level.setdefault(
                key,
                {
                    "bots": key,
                    "games": 0,
                    "won": 0,
                    "lost": 0,
                    "tied": 0,
                    "margin": 0.0,
                    "canasta_games": 0,
                    "clean_canastas": 0,
                    "dirty_canastas": 0,
                },
            )
            entry["games"] += 1
            entry[{"won": "won", "lost": "lost", "tie": "tied"}[_result(winner, team)]] += 1
            entry["margin"] += scores[team] - scores[1 - team]
            if tally:
                clean, dirty = canastas_of_team(json.loads(tally), team)
                entry["canasta_games"] += 1
                entry["clean_canastas"] += clean
                entry["dirty_canastas"] += dirty
        for entry in by_level.values():
            entry["margin"] = round(entry["margin"] / entry["games"], 1)
            counted = entry["canasta_games"]
            for kind in ("clean", "dirty"):
                total = entry[f"{kind}_canastas"]
                entry[f"{kind}_per_game"] = round(total / counted, 2) if counted else None
        return {"by_bots": sorted(by_level.values(), key=lambda e: e["bots"]), "seconds": played}

    def close(self) -> None:
        """Close the file or the connections (the object is not used again)."""
        with self._lock:
            self._closed = True
            while True:
                try:
                    self._idle.get_nowait().close()
                except queue.Empty:
                    break


def canastas_on_table(game, b: int = 0) -> list[list[int]]:
    """Each team's ``[clean, dirty]`` canastas on the table of game ``b`` now, as the table
    shows them (:func:`~burako_env.frontends.web.table.meld_view`: a canasta of wilds
    counts as dirty)."""
    from burako_env.frontends.web.table import meld_view

    st = game.state
    counts = []
    for t in range(2):
        views = [meld_view(st.melds[b, t, i], i, 0) for i in range(int(st.num_melds[b, t]))]
        canastas = [m for m in views if m["canasta"]]
        clean = sum(m["clean"] for m in canastas)
        counts.append([clean, len(canastas) - clean])
    return counts


def canasta_tally(game, tally: dict | None, b: int = 0) -> dict:
    """The canasta count of a game after a move, from the count before it (``tally``,
    None for the first move): a hand that ended since adds its last canastas seen to
    ``done``, and ``now`` is the table's now. The melds of an ended hand are gone once the
    next is dealt, so a canasta made by the very move that ends a hand of a match is not
    seen; a game's last hand stays on the table and is counted whole."""
    hands_ended = int(game.view(b).hands_ended)
    if tally is None:
        tally = {"hands_ended": 0, "done": [[0, 0], [0, 0]], "now": [[0, 0], [0, 0]]}
    done = [list(pair) for pair in tally["done"]]
    now = canastas_on_table(game, b)
    if hands_ended > tally["hands_ended"] and not game.is_over(b):
        done = [[d + n for d, n in zip(done[t], tally["now"][t], strict=True)] for t in range(2)]
    return {"hands_ended": hands_ended, "done": done, "now": now}


def canastas_of_team(tally: dict, team: int) -> tuple[int, int]:
    """``(clean, dirty)``: team ``team``'s canastas over the hands of a :func:`canasta_tally`."""
    return (
        tally["done"][team][0] + tally["now"][team][0],
        tally["done"][team][1] + tally["now"][team][1],
    )


def _tokens_json(seat_tokens: dict) -> str | None:
    """Seat tokens as kept: ``{"seat": {"sha256", "joins"}}``, None for a game without."""
    if not seat_tokens:
        return None
    return json.dumps(
        {str(p): {"sha256": k["sha256"], "joins": int(k["joins"])} for p, k in seat_tokens.items()},
        sort_keys=True,
    )


def _result(winner: int, team: int) -> str:
    return "tie" if winner < 0 else "won" if winner == team else "lost"


__all__ = [
    "CONNECT_TIMEOUT",
    "DEFAULT_DB_NAME",
    "DatabaseError",
    "GameDatabase",
    "MIGRATIONS",
    "POSTGRES_SCHEMES",
    "SCHEMA_VERSION",
    "canasta_tally",
    "canastas_of_team",
    "canastas_on_table",
    "is_database_url",
    "redact_url",
]
