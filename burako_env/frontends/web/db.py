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

SQLite (Python's own ``sqlite3``) holds it: one file, created on first start, in WAL mode
(readers never wait for the writer, several server processes may share the file) with
``synchronous=FULL``. The schema carries its version (``meta.schema_version``) and grows
by the numbered migrations of :data:`MIGRATIONS`, applied in order when a file is opened;
a file from a newer burako is refused, naming both versions, and left untouched.

History and statistics (:meth:`GameDatabase.history`, :meth:`GameDatabase.stats`) are
read from the same rows: the games of one browser, per opponent level won, lost and tied,
the average margin, the canastas of the person's team (clean and dirty, in all and per
game) and the time played. The canastas are counted as the moves are kept (the column
``canastas``, schema version 2): each hand's canastas on the table when it ended, summed
over the game's hands; a game kept before version 2 has none counted and is left out of
the canasta averages.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from pathlib import Path

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
)
#: the schema version this code writes
SCHEMA_VERSION = MIGRATIONS[-1][0]


class DatabaseError(RuntimeError):
    """The database cannot be used: a file that is no SQLite database, one from a newer
    burako, a folder that cannot be written. The message says what to fix."""


class GameDatabase:
    """The games of the web table in the SQLite file ``path`` (created with its folder
    on first use). Safe to call from the server's worker threads: one connection, one
    lock, one transaction per write."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._conn = sqlite3.connect(
                str(self.path), check_same_thread=False, isolation_level=None, timeout=30
            )
        except (OSError, sqlite3.Error) as exc:
            raise DatabaseError(f"cannot open the game database {str(self.path)!r}: {exc}") from exc
        self._lock = threading.Lock()
        try:
            self._conn.execute("PRAGMA journal_mode=WAL")
            self._conn.execute("PRAGMA synchronous=FULL")
            self._conn.execute("PRAGMA foreign_keys=ON")
            self._migrate()
        except sqlite3.DatabaseError as exc:
            self._conn.close()
            raise DatabaseError(
                f"{str(self.path)!r} is not a burako game database ({exc}): give another "
                "--db file, or move this one away"
            ) from exc

    # ------------------------------------------------------------ schema
    def schema_version(self) -> int:
        """The schema version of the file (0 for an empty one)."""
        has_meta = self._conn.execute(
            "SELECT 1 FROM sqlite_master WHERE type='table' AND name='meta'"
        ).fetchone()
        if not has_meta:
            return 0
        row = self._conn.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()
        return int(row[0]) if row else 0

    def _migrate(self) -> None:
        with self._lock:
            version = self.schema_version()
            if version > SCHEMA_VERSION:
                raise DatabaseError(
                    f"{str(self.path)!r} has schema version {version}, newer than this "
                    f"burako's {SCHEMA_VERSION}: upgrade burako, or give another --db file"
                )
            for number, statements in MIGRATIONS:
                if number <= version:
                    continue
                self._conn.execute("BEGIN IMMEDIATE")
                try:
                    if number == 1:
                        self._conn.execute(
                            "CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT)"
                        )
                    for sql in statements:
                        self._conn.execute(sql)
                    self._conn.execute(
                        "INSERT OR REPLACE INTO meta (key, value) VALUES ('schema_version', ?)",
                        (str(number),),
                    )
                    self._conn.execute("COMMIT")
                except BaseException:
                    self._conn.execute("ROLLBACK")
                    raise

    def secret(self, name: str, size: int = 32) -> bytes:
        """A random key kept in the file (made on first use): the server's cookie key, so
        that a browser is known again after a restart."""
        import secrets

        key = f"secret:{name}"
        with self._lock:
            row = self._conn.execute("SELECT value FROM meta WHERE key=?", (key,)).fetchone()
            if row is None:
                value = secrets.token_hex(size)
                self._conn.execute(
                    "INSERT OR IGNORE INTO meta (key, value) VALUES (?, ?)", (key, value)
                )
                row = self._conn.execute("SELECT value FROM meta WHERE key=?", (key,)).fetchone()
        return bytes.fromhex(row[0])

    # ------------------------------------------------------------ writing
    def add_game(self, session, owner: str, options: dict) -> None:
        """Keep a new game: its options (``options``, the seed included) and seats."""
        now = time.time()
        levels = [a for a in session.agents if a != "human"]
        with self._lock:
            self._conn.execute(
                "INSERT INTO games (id, owner, created, updated, options, variant, players,"
                " seat, episode, levels) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
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
                ),
            )

    def add_move(self, session, seat: int, action: int, thinking: dict | None) -> None:
        """Keep the move just played (the session's last), with the game's result when
        it ended the game, in one transaction."""
        n = len(session.actions)
        game = session.game
        over = bool(game.is_over())
        scores = winner = None
        with self._lock:
            row = self._conn.execute(
                "SELECT canastas FROM games WHERE id=?", (session.id,)
            ).fetchone()
        tally = json.dumps(canasta_tally(game, json.loads(row[0]) if row and row[0] else None))
        if over:
            final = game.match_scores[0] if game.episode == "match" else game.hand_scores[0]
            scores, winner = json.dumps([int(v) for v in final]), int(game.winner[0])
        with self._lock:
            self._conn.execute("BEGIN IMMEDIATE")
            try:
                self._conn.execute(
                    "INSERT INTO moves (game_id, n, seat, action, thinking) VALUES (?, ?, ?, ?, ?)",
                    (
                        session.id,
                        n,
                        int(seat),
                        int(action),
                        None if thinking is None else json.dumps(thinking),
                    ),
                )
                self._conn.execute(
                    "UPDATE games SET moves=?, updated=?, over=?, scores=?, winner=?, canastas=?"
                    " WHERE id=?",
                    (n, time.time(), int(over), scores, winner, tally, session.id),
                )
                self._conn.execute("COMMIT")
            except BaseException:
                self._conn.execute("ROLLBACK")
                raise

    # ------------------------------------------------------------ reading
    def load(self, game_id: str) -> tuple[dict, list[tuple[int, int, dict | None]]] | None:
        """``(options, moves)`` of a kept game, each move ``(seat, action, thinking)`` in
        order; None when there is no such game."""
        with self._lock:
            row = self._conn.execute("SELECT options FROM games WHERE id=?", (game_id,)).fetchone()
            if row is None:
                return None
            moves = self._conn.execute(
                "SELECT seat, action, thinking FROM moves WHERE game_id=? ORDER BY n", (game_id,)
            ).fetchall()
        return json.loads(row[0]), [
            (int(s), int(a), None if t is None else json.loads(t)) for s, a, t in moves
        ]

    def history(self, owner: str, limit: int = 50) -> list[dict]:
        """The games of ``owner``, the most recently played first."""
        with self._lock:
            rows = self._conn.execute(
                "SELECT id, created, updated, variant, players, seat, episode, levels, moves,"
                " over, scores, winner, canastas FROM games WHERE owner=?"
                " ORDER BY updated DESC LIMIT ?",
                (owner, int(limit)),
            ).fetchall()
        out = []
        for row in rows:
            gid, created, updated, variant, players, seat, episode, levels = row[:8]
            moves, over, sc, w, tally = row[8:]
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
        """``owner``'s finished games by the bots they played: games, won, lost, tied, the
        average margin of the person's team, its canastas (``clean_canastas`` and
        ``dirty_canastas`` in all, ``clean_per_game`` and ``dirty_per_game`` on average over
        ``canasta_games``, the games whose canastas were counted; None without any), and
        the time played (seconds, first move to last) over every game."""
        by_level: dict[str, dict] = {}
        played = 0.0
        with self._lock:
            rows = self._conn.execute(
                "SELECT seat, levels, over, scores, winner, created, updated, canastas"
                " FROM games WHERE owner=?",
                (owner,),
            ).fetchall()
        for seat, levels, over, sc, winner, created, updated, tally in rows:
            played += max(0.0, updated - created)
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
        """Close the file (the object is not used again)."""
        with self._lock:
            self._conn.close()


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


def _result(winner: int, team: int) -> str:
    return "tie" if winner < 0 else "won" if winner == team else "lost"


__all__ = [
    "DEFAULT_DB_NAME",
    "DatabaseError",
    "GameDatabase",
    "MIGRATIONS",
    "SCHEMA_VERSION",
    "canasta_tally",
    "canastas_of_team",
    "canastas_on_table",
]
