"""The web table's games kept in a database (burako_env/frontends/web/db.py): a restarted
server resumes every game from its link, mid-hand, exactly; a kill -9 loses no move the
page was told about; the schema migrates and refuses a newer database; the browser's
history and statistics come from the same rows.

The tests that take the ``backend`` fixture run twice: on SQLite files and on a real
PostgreSQL server that this module starts itself (``initdb`` and ``pg_ctl`` into a
temporary folder, on a free port; as root, as the user ``nobody``, since PostgreSQL
refuses to run as root), skipped with a message where the server's binaries or psycopg
are missing (in CI, where ``.ci/run`` installs them with apt-get, a missing server fails
them). Two server processes share one PostgreSQL database below."""

from __future__ import annotations

import hashlib
import itertools
import json
import os
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import pytest

pytest.importorskip("starlette")
from starlette.testclient import TestClient  # noqa: E402

from burako_env.frontends.web import create_app  # noqa: E402
from burako_env.frontends.web.db import (  # noqa: E402
    SCHEMA_VERSION,
    DatabaseError,
    GameDatabase,
    canastas_of_team,
)
from burako_env.frontends.web.sessions import PlaySession, bot_seed  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
VOLATILE = ("hint", "thinking")
#: the superuser of the test's PostgreSQL server and its password (the TCP logins ask it)
PG_USER, PG_PASSWORD = "burako", "table-secret"


# ------------------------------------------------------------------ the two backends
def _postgres_bin() -> Path | None:
    """The folder of PostgreSQL's server binaries (Debian: /usr/lib/postgresql/N/bin)."""
    for folder in sorted(Path("/usr/lib/postgresql").glob("*/bin"), reverse=True):
        if (folder / "initdb").exists() and (folder / "pg_ctl").exists():
            return folder
    initdb = shutil.which("initdb")
    return Path(initdb).parent if initdb and shutil.which("pg_ctl") else None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def postgres_server():
    """A PostgreSQL server of its own: its admin URL (password logins over TCP on
    127.0.0.1), stopped and deleted at the end."""
    pytest.importorskip(
        "psycopg", reason="psycopg is not installed: pip install 'burako[postgres]'"
    )
    bin_dir = _postgres_bin()
    if bin_dir is None or os.name != "posix":
        if os.environ.get("CI") == "true" and shutil.which("apt-get"):
            pytest.fail("PostgreSQL is not installed: .ci/run installs it with apt-get in CI")
        pytest.skip(
            "PostgreSQL's server (initdb, pg_ctl) is not installed: apt-get install postgresql"
        )
    as_user: list[str] = []
    if os.getuid() == 0:  # PostgreSQL refuses to run as root: run it as nobody
        if shutil.which("runuser") is None:
            pytest.skip("running as root without runuser: cannot start PostgreSQL as another user")
        as_user = ["runuser", "-u", "nobody", "--"]
    # not under pytest's tmp_path: its folders are the owner's only, and nobody must enter
    home = Path(tempfile.mkdtemp(prefix="burako-pg-"))
    (home / "pw").write_text(PG_PASSWORD)
    if as_user:
        import pwd

        nobody = pwd.getpwnam("nobody")
        for path in (home, home / "pw"):
            os.chown(path, nobody.pw_uid, nobody.pw_gid)
    port = _free_port()
    initdb = [str(bin_dir / "initdb"), "-D", str(home / "data"), "-U", PG_USER, "-E", "UTF8"]
    initdb += ["--pwfile", str(home / "pw"), "--auth-local=trust", "--auth-host=scram-sha-256"]
    subprocess.run([*as_user, *initdb], check=True, capture_output=True, timeout=120)
    pg_ctl = [*as_user, str(bin_dir / "pg_ctl"), "-D", str(home / "data")]
    options = f"-p {port} -k {home} -c listen_addresses=127.0.0.1"
    subprocess.run(
        [*pg_ctl, "-l", str(home / "log"), "-w", "-t", "120", "-o", options, "start"],
        check=True,
        capture_output=True,
        timeout=180,
    )
    try:
        yield f"postgresql://{PG_USER}:{PG_PASSWORD}@127.0.0.1:{port}"
    finally:
        subprocess.run([*pg_ctl, "-m", "immediate", "stop"], capture_output=True, timeout=120)
        shutil.rmtree(home, ignore_errors=True)


_database_numbers = itertools.count()


class Backend:
    """Where a test keeps its games: :meth:`db` names a new database (a SQLite file in the
    test's folder, or a new PostgreSQL database), :meth:`execute` writes to it behind the
    server's back (a damaged row, a newer schema)."""

    def __init__(self, name: str, tmp_path: Path, server: str | None) -> None:
        self.name, self.tmp_path, self.server = name, tmp_path, server

    def db(self, name: str):
        if self.server is None:
            return self.tmp_path / f"{name}.sqlite3"
        import psycopg

        database = f"burako_{name}_{next(_database_numbers)}"
        with psycopg.connect(f"{self.server}/postgres", autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{database}"')
        return f"{self.server}/{database}"

    def execute(self, db, sql: str, params: tuple = ()) -> list[tuple]:
        """Run ``sql`` (``?`` placeholders) on ``db``, committed; its rows."""
        if self.server is None:
            with sqlite3.connect(db) as conn:
                return conn.execute(sql, params).fetchall()
        import psycopg

        with psycopg.connect(db, autocommit=True) as conn:
            cur = conn.execute(sql.replace("?", "%s"), params)
            return cur.fetchall() if cur.description else []


@pytest.fixture(params=["sqlite", "postgresql"])
def backend(request, tmp_path) -> Backend:
    server = None if request.param == "sqlite" else request.getfixturevalue("postgres_server")
    return Backend(request.param, tmp_path, server)


def new_game(client, **options) -> dict:
    body = {"seed": 5, "bots": "greedy", "players": 2, **options}
    r = client.post("/api/games", json=body)
    assert r.status_code == 201, r.text
    return r.json()


def step(client, view) -> dict:
    """One move: a bot's, or the person's (a discard where there is one, else the first)."""
    gid = view["id"]
    if view["to_act"] != view["seat"]:
        r = client.post(f"/api/games/{gid}/bot")
    else:
        kinds = [m["kind"] for m in view["moves"]]
        pick = view["moves"][kinds.index("discard")] if "discard" in kinds else view["moves"][0]
        r = client.post(f"/api/games/{gid}/move", json={"action": pick["action"]})
    assert r.status_code == 200, r.text
    return r.json()


def test_a_restarted_server_resumes_the_game_mid_hand_exactly(backend):
    db = backend.db("games")
    first = TestClient(create_app(bot_delay=0, db=db))
    view = new_game(first, bots="normal")
    for _ in range(23):
        view = step(first, view)
    assert not view["over"] and view["log"]
    cookies = dict(first.cookies)
    del first  # the server is gone; its memory with it

    again = TestClient(create_app(bot_delay=0, db=db), cookies=cookies)
    resumed = again.get(f"/api/games/{view['id']}").json()
    for key in VOLATILE:
        resumed.pop(key, None), view.pop(key, None)
    assert resumed == view  # the table, the log, the legal moves, whose turn
    history = again.get("/api/history").json()  # the same browser: its cookie still known
    assert [g["id"] for g in history["games"]] == [view["id"]]
    assert history["games"][0]["moves"] == len(view["log"]) - sum(
        1 for e in view["log"] if e["seat"] is None
    )


def test_a_resumed_game_plays_on_as_the_uninterrupted_one(backend):
    """The bots' generators are seeded by the deal and the position, so a game that went
    through a restart is, move for move, the game that did not."""
    straight = TestClient(create_app(bot_delay=0, db=backend.db("a")))
    view = new_game(straight, bots="hard", players=4, seed=77)
    while not view["over"]:
        view = step(straight, view)
    whole = [(e["seat"], e["text"]) for e in view["log"]]

    db = backend.db("b")
    cut = TestClient(create_app(bot_delay=0, db=db))
    view = new_game(cut, bots="hard", players=4, seed=77)
    for _ in range(40):
        view = step(cut, view)
    cut = TestClient(create_app(bot_delay=0, db=db), cookies=dict(cut.cookies))
    view = cut.get(f"/api/games/{view['id']}").json()
    while not view["over"]:
        view = step(cut, view)
    assert [(e["seat"], e["text"]) for e in view["log"]] == whole


def test_bot_seeds_depend_on_the_position_alone():
    assert bot_seed(5, 10, 1) == bot_seed(5, 10, 1)
    assert (
        len({bot_seed(5, 10, 1), bot_seed(5, 11, 1), bot_seed(5, 10, 3), bot_seed(6, 10, 1)}) == 4
    )
    assert 0 <= bot_seed(2**64 - 1, 10**6, 5) < 2**63


def test_statistics_count_finished_games_by_their_bots(backend):
    db = backend.db("g")
    client = TestClient(create_app(bot_delay=0, db=db))
    finished = []
    for seed in (3, 4):
        view = new_game(client, bots="easy", seed=seed)
        while not view["over"]:
            view = step(client, view)
        finished.append(view)
    live = new_game(client, bots="normal", seed=9)
    data = client.get("/api/history").json()
    assert [g["id"] for g in data["games"]][0] == live["id"]  # most recently played first
    assert {g["id"] for g in data["games"]} == {live["id"], *(v["id"] for v in finished)}
    (entry,) = data["stats"]["by_bots"]  # only finished games count
    assert entry["games"] == 2 and entry["won"] + entry["lost"] + entry["tied"] == 2
    results = [g for g in data["games"] if g["over"]]
    assert entry["won"] == sum(g["result"] == "won" for g in results)
    assert entry["margin"] == round(sum(g["margin"] for g in results) / 2, 1)
    other = TestClient(create_app(bot_delay=0, db=db))
    assert other.get("/api/history").json()["games"] == []  # another browser sees none
    # a finished game the teams tied (winner -1): "tie" in the list, "tied" in the stats
    tied = finished[0]["id"]
    backend.execute(db, "UPDATE games SET winner=-1, scores='[120, 120]' WHERE id=?", (tied,))
    data = client.get("/api/history").json()
    (game,) = [g for g in data["games"] if g["id"] == tied]
    assert game["result"] == "tie" and game["margin"] == 0
    (entry,) = data["stats"]["by_bots"]
    assert entry["tied"] == 1 and entry["won"] + entry["lost"] == 1


def test_statistics_count_the_canastas_of_the_finished_games(tmp_path):
    db_path = tmp_path / "g.sqlite3"
    client = TestClient(create_app(bot_delay=0, db=db_path))
    finals = {}
    for seed in (3, 4, 11):  # 4 players: the person's partner, a bot, lays canastas
        view = new_game(client, bots="normal", seed=seed, players=4)
        while not view["over"]:
            view = step(client, view)
        team = view["seat"] % 2
        canastas = [m for m in view["melds"][team] if m["canasta"]]
        clean = sum(m["clean"] for m in canastas)  # the final table, as the page shows it
        finals[view["id"]] = {"clean": clean, "dirty": len(canastas) - clean}
    data = client.get("/api/history").json()
    assert {g["id"]: g["canastas"] for g in data["games"]} == finals
    assert any(c["clean"] + c["dirty"] for c in finals.values())  # the test counts something
    (entry,) = data["stats"]["by_bots"]
    clean = sum(c["clean"] for c in finals.values())
    dirty = sum(c["dirty"] for c in finals.values())
    assert entry["canasta_games"] == 3
    assert (entry["clean_canastas"], entry["dirty_canastas"]) == (clean, dirty)
    assert entry["clean_per_game"] == round(clean / 3, 2)
    assert entry["dirty_per_game"] == round(dirty / 3, 2)
    # a game kept before the canastas were counted (schema 1) is left out of the averages
    with sqlite3.connect(db_path) as conn:
        conn.execute("UPDATE games SET canastas=NULL WHERE id=?", (next(iter(finals)),))
    data = client.get("/api/history").json()
    (entry,) = data["stats"]["by_bots"]
    assert entry["games"] == 3 and entry["canasta_games"] == 2
    assert sum(g["canastas"] is None for g in data["games"]) == 1


def test_a_match_counts_the_canastas_of_every_hand(tmp_path):
    from burako_env.core.game import Game
    from burako_env.frontends.web.db import canasta_tally, canastas_of_team, canastas_on_table

    game = Game("argentine", num_players=2, episode="match", seed=1)
    tally, hand_last, summed = None, None, [0, 0]
    rng = __import__("numpy").random.default_rng(0)
    while not game.is_over() and game.view().hands_ended < 2:
        before = game.view().hands_ended
        seen = canastas_on_table(game)[0]
        game.step_one(int(rng.choice(game.legal_actions(0))))
        tally = canasta_tally(game, tally)
        if game.view().hands_ended > before and not game.is_over():
            hand_last = seen
            summed = [summed[0] + seen[0], summed[1] + seen[1]]
    now = canastas_on_table(game)[0]
    assert hand_last is not None  # a hand ended inside the loop
    assert canastas_of_team(tally, 0) == (summed[0] + now[0], summed[1] + now[1])


def test_a_damaged_move_is_refused_naming_the_game(backend):
    db_path = backend.db("g")
    client = TestClient(create_app(bot_delay=0, db=db_path))
    view = new_game(client)
    for _ in range(6):
        view = step(client, view)
    backend.execute(db_path, "UPDATE moves SET action=2540 WHERE n=3")
    db = GameDatabase(db_path)
    options, moves = db.load(view["id"])
    db.close()
    with pytest.raises(Exception, match=r"cannot be replayed at move 3"):
        PlaySession.restore(view["id"], options, moves)
    again = TestClient(create_app(bot_delay=0, db=db_path))
    r = again.get(f"/api/games/{view['id']}")
    assert r.status_code == 500 and "cannot be replayed at move 3" in r.json()["error"]


def test_the_schema_migrates_and_refuses_a_newer_file(backend, tmp_path):
    path = backend.db("g")
    db = GameDatabase(path)
    assert db.schema_version() == SCHEMA_VERSION
    db.close()
    db = GameDatabase(path)  # opened again: as it was
    assert db.schema_version() == SCHEMA_VERSION
    db.close()
    newer = str(SCHEMA_VERSION + 1)
    backend.execute(path, "UPDATE meta SET value=? WHERE key='schema_version'", (newer,))

    def contents():
        rows = backend.execute(path, "SELECT key, value FROM meta ORDER BY key")
        return rows, (path.read_bytes() if backend.name == "sqlite" else None)

    before = contents()
    with pytest.raises(DatabaseError, match=r"newer than this burako's"):
        GameDatabase(path)
    assert contents() == before  # left untouched
    foreign = backend.db("foreign")  # another program's tables: refused, not mixed in
    backend.execute(foreign, "CREATE TABLE games (x INTEGER)")
    with pytest.raises(DatabaseError, match="is not a burako game database"):
        GameDatabase(foreign)
    assert backend.execute(foreign, "SELECT count(*) FROM games") == [(0,)]
    if backend.name == "sqlite":
        junk = tmp_path / "junk.sqlite3"
        junk.write_bytes(b"this is no database" * 100)
        with pytest.raises(DatabaseError, match="is not a burako game database"):
            GameDatabase(junk)


def _server(db, port: int, records: Path) -> subprocess.Popen:
    cmd = [sys.executable, "-m", "burako_env.frontends.cli", "serve", "--port", str(port)]
    cmd += ["--db", str(db), "--bot-delay", "0", "--records", str(records)]
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return proc
        except OSError:
            time.sleep(0.2)
    proc.kill()
    raise AssertionError("the server did not start")


class _Http:
    """A browser's requests to a real server (the standard library's, with its cookie)."""

    def __init__(self, base: str, cookies=None) -> None:
        import http.cookiejar
        import urllib.request

        self.base = base
        self.jar = cookies if cookies is not None else http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.jar))

    def _call(self, method: str, path: str, body=None):
        import json
        import urllib.request

        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(self.base + path, data=data, method=method)
        req.add_header("origin", self.base)
        req.add_header("content-type", "application/json")
        with self.opener.open(req, timeout=120) as r:
            return _Answer(r.status, json.loads(r.read()))

    def get(self, path):
        return self._call("GET", path)

    def post(self, path, json=None):
        return self._call("POST", path, {} if json is None else json)


class _Answer:
    def __init__(self, status_code: int, data) -> None:
        self.status_code, self._data, self.text = status_code, data, str(data)

    def json(self):
        return self._data


@pytest.mark.skipif(os.name != "posix", reason="kill -9 is POSIX")
def test_a_kill_9_loses_no_acknowledged_move(backend, tmp_path):
    db = backend.db("g")
    port = _free_port()
    proc = _server(db, port, tmp_path / "records")
    try:
        http = _Http(f"http://127.0.0.1:{port}")
        r = http.post("/api/games", json={"seed": 8, "bots": "greedy", "players": 2})
        assert r.status_code == 201, r.text
        view = r.json()
        for _ in range(15):
            view = step(http, view)
    finally:
        proc.send_signal(signal.SIGKILL)  # between two moves: no clean shutdown
        proc.wait(timeout=30)
    port = _free_port()
    proc = _server(db, port, tmp_path / "records")
    try:
        again = _Http(f"http://127.0.0.1:{port}", http.jar)
        resumed = again.get(f"/api/games/{view['id']}").json()
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
    assert resumed["log"] == view["log"] and resumed["moves"] == view["moves"]


def test_house_rules_deal_the_engines_variant_and_are_kept(backend):
    from burako_env.frontends.rules_text import rules_summary
    from burako_env.variants import load_variant

    db = backend.db("g")
    client = TestClient(create_app(bot_delay=0, db=db))
    page = client.get("/api/rules", params={"variant": "italian", "players": 4}).json()
    assert page["text"] == rules_summary(load_variant("italian", num_players=4))  # one source
    offered = {r["name"]: r for r in page["house_rules"]}
    assert offered["target"]["value"] == load_variant("italian").target
    assert offered["close_requires"]["choices"] == ["any_canasta", "clean_canasta", "none"]

    rules = {"target": 1500, "close_requires": "any_canasta", "muertos_per_team": 1}
    view = new_game(client, variant="italian", players=4, bots="normal", rules=rules)
    session = client.app.state.store.get(view["id"])
    assert session.game.variant == load_variant("italian", num_players=4, **rules)
    for _ in range(12):
        view = step(client, view)
    again = TestClient(create_app(bot_delay=0, db=db), cookies=dict(client.cookies))
    resumed = again.get(f"/api/games/{view['id']}").json()
    assert resumed["log"] == view["log"]
    kept = again.app.state.store.get(view["id"])
    assert kept.game.variant == session.game.variant  # the house rules came back with it

    bad = client.post("/api/games", json={"variant": "italian", "rules": {"target": -5}})
    assert bad.status_code == 400 and "target" in bad.json()["error"]
    bad = client.post("/api/games", json={"rules": {"no_such_rule": 1}})
    assert bad.status_code == 400 and "no_such_rule" in bad.json()["error"]
    bad = client.post("/api/games", json={"rules": {"num_players": 6}})
    assert bad.status_code == 400 and "choose the variant and the players" in bad.json()["error"]
    hard = client.post("/api/games", json={"bots": "hard", "rules": {"target": 1500}})
    assert hard.status_code == 400  # the shipped policy plays its own rules only


# ------------------------------------------------------------------ PostgreSQL only
def test_two_server_processes_share_one_postgresql_database(postgres_server, tmp_path):
    """Two servers write the moves of their own games at the same time into one database;
    the second then resumes the first's game from its link, and plays it on."""
    backend = Backend("postgresql", tmp_path, postgres_server)
    db = backend.db("shared")
    servers = []
    try:
        for _ in range(2):
            port = _free_port()
            servers.append((_server(db, port, tmp_path / "records"), f"http://127.0.0.1:{port}"))
        browsers = [_Http(base) for _, base in servers]
        views: list = [None, None]

        def play(i: int) -> None:
            r = browsers[i].post("/api/games", json={"seed": 20 + i, "bots": "greedy"})
            assert r.status_code == 201, r.text
            view = r.json()
            for _ in range(12):
                view = step(browsers[i], view)
            views[i] = view

        threads = [threading.Thread(target=play, args=(i,)) for i in range(2)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=300)
        assert all(views), "a server's game did not finish its moves"
        # the rows are in PostgreSQL, one game per server, every acknowledged move there
        rows = backend.execute(db, "SELECT id, moves FROM games ORDER BY id")
        assert sorted(r[0] for r in rows) == sorted(v["id"] for v in views)
        for gid, moves in rows:
            (count,) = backend.execute(db, "SELECT count(*) FROM moves WHERE game_id=?", (gid,))
            assert count[0] == moves > 0
        # the second server resumes the first's game (the cookie key is in the database)
        second = _Http(servers[1][1], browsers[0].jar)
        resumed = second.get(f"/api/games/{views[0]['id']}").json()
        assert resumed["log"] == views[0]["log"] and resumed["moves"] == views[0]["moves"]
        view = step(second, resumed)
        first_again = browsers[0].get(f"/api/games/{views[0]['id']}").json()
        assert len(view["log"]) > len(resumed["log"])
        assert first_again["id"] == views[0]["id"]
    finally:
        for proc, _ in servers:
            proc.send_signal(signal.SIGKILL)
            proc.wait(timeout=30)


def _serve_error(args: list[str]) -> str:
    """``burako serve ARGS``'s output, checked to be one ``error:`` line and exit 2."""
    from typer.testing import CliRunner

    from burako_env.frontends.cli import app as cli_app

    r = CliRunner().invoke(cli_app, ["serve", "--port", "0", *args])
    assert r.exit_code == 2, r.output
    lines = r.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), r.output
    assert "Traceback" not in r.output
    return lines[0]


def test_a_postgresql_url_that_cannot_be_used_is_one_error_line(postgres_server, tmp_path):
    records = ["--records", str(tmp_path)]
    good = Backend("postgresql", tmp_path, postgres_server).db("login")
    wrong = good.replace(f":{PG_PASSWORD}@", ":not-the-password@")
    line = _serve_error(["--db", wrong, *records])
    assert "cannot connect to the game database" in line and "password" in line
    assert "not-the-password" not in line  # never printed
    nowhere = f"postgresql://{PG_USER}:x@127.0.0.1:{_free_port()}/burako"
    line = _serve_error(["--db", nowhere, *records])
    assert "cannot connect" in line and "server is running" in line
    line = _serve_error(["--db", "postgres://u@localhost:notaport/db", *records])
    assert "is not a valid PostgreSQL URL" in line and "postgresql://user:password@host" in line
    no_database = good.rsplit("/", 1)[0] + "/no_such_database"
    line = _serve_error(["--db", no_database, *records])
    assert "no_such_database" in line and "database name" in line


def test_a_missing_driver_names_the_extra(monkeypatch, tmp_path):
    from burako_env.extras import MissingExtra

    monkeypatch.setitem(sys.modules, "psycopg", None)  # import psycopg raises ImportError
    url = "postgresql://me:secret@127.0.0.1:5432/games"
    with pytest.raises(MissingExtra, match=r"pip install 'burako\[postgres\]'"):
        GameDatabase(url)
    line = _serve_error(["--db", url, "--records", str(tmp_path)])
    assert "needs psycopg: pip install 'burako[postgres]'" in line and "secret" not in line
    assert not (ROOT / "postgresql:").exists()  # the URL was never taken for a file name


def test_database_urls_are_told_from_files_and_their_passwords_hidden():
    from burako_env.frontends.web.db import is_database_url, redact_url

    assert is_database_url("postgresql://u@h:5432/d") and is_database_url("postgres://h/d")
    assert is_database_url("PostgreSQL://h/d")
    assert not is_database_url("games.sqlite3") and not is_database_url(Path("postgres://h"))
    assert not is_database_url("mysql://h/d") and not is_database_url("postgresql:games")
    assert redact_url("postgresql://u:pw@h:5/d") == "postgresql://u:***@h:5/d"
    assert redact_url("postgres://u@h/d") == "postgres://u@h/d"
    # an @ inside the password: the host is what follows the last @
    assert redact_url("postgresql://u:p@ss@h:5/d") == "postgresql://u:***@h:5/d"


def test_servers_opening_a_new_postgresql_database_at_once_create_it_once(
    postgres_server, tmp_path
):
    """The migrations hold an advisory lock and read the version inside it: handles
    opened at the same moment on an empty database create its tables once, none fails."""
    url = Backend("postgresql", tmp_path, postgres_server).db("race")
    opened: list = []
    failed: list = []
    start = threading.Barrier(4)

    def open_it() -> None:
        start.wait()
        try:
            opened.append(GameDatabase(url))
        except Exception as exc:  # noqa: BLE001 (the test reports it)
            failed.append(exc)

    threads = [threading.Thread(target=open_it) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert not failed and len(opened) == 4
    assert {db.schema_version() for db in opened} == {SCHEMA_VERSION}
    assert {db.secret("cookie") for db in opened} == {opened[0].secret("cookie")}
    for db in opened:
        db.close()


# ------------------------------------------------------------------ friends at the table
def _hand_seen(client, gid: str) -> tuple[int, list[int], list[bool]]:
    """The seat a browser holds, its hand, and which seats' hands it was sent."""
    r = client.get(f"/api/games/{gid}")
    assert r.status_code == 200, r.text
    view = r.json()
    return view["seat"], view["seats"][view["seat"]]["hand"], ["hand" in s for s in view["seats"]]


def test_a_table_with_friends_is_kept_and_resumed_seat_by_seat(backend):
    """Partners at one table through two restarts: every stored view, read back by each
    seat's browser, is that seat's (its hand as its observation holds it, no other); a
    seat's link used again is kept (the browser it left is refused after a restart
    too); the database holds each token's sha256, never the token."""
    db = backend.db("friends")
    app = create_app(bot_delay=0, db=db)
    creator, partner = TestClient(app), TestClient(app)
    view = new_game(creator, players=4, people=[0, 2])
    gid = view["id"]
    links = {link["seat"]: link["token"] for link in view["links"]}
    assert partner.post(f"/api/games/{gid}/join", json={"token": links[2]}).status_code == 200
    for _ in range(12):  # the bots' moves, asked by the partner's browser
        session = app.state.store.get(gid)
        if session.to_act in (0, 2):
            break
        r = partner.post(f"/api/games/{gid}/bot?after={len(session.actions)}")
        assert r.status_code == 200, r.text
    moves = len(app.state.store.get(gid).actions)
    cookies = {0: dict(creator.cookies), 2: dict(partner.cookies)}
    del app, creator, partner  # the server is gone

    app = create_app(bot_delay=0, db=db)
    browsers = {seat: TestClient(app, cookies=c) for seat, c in cookies.items()}
    for seat, browser in browsers.items():
        held, hand, sent = _hand_seen(browser, gid)
        session = app.state.store.get(gid)
        assert len(session.actions) == moves and session.people == (0, 2)
        game = session.game
        counts = game.observe_one(seat)[game.layout.hand : game.layout.hand + 53]
        assert held == seat and sent == [p == seat for p in range(4)]
        assert sorted(hand) == sorted(c for c in range(53) for _ in range(int(counts[c])))
    phone = TestClient(app)
    assert phone.post(f"/api/games/{gid}/join", json={"token": links[2]}).status_code == 200
    phone_cookies = dict(phone.cookies)
    del app, browsers, phone

    app = create_app(bot_delay=0, db=db)
    left = TestClient(app, cookies=cookies[2])
    r = left.get(f"/api/games/{gid}")
    assert r.status_code == 403 and "another device" in r.json()["error"]
    assert _hand_seen(TestClient(app, cookies=phone_cookies), gid)[0] == 2
    assert _hand_seen(TestClient(app, cookies=cookies[0]), gid)[0] == 0
    assert TestClient(app).get(f"/api/games/{gid}").status_code == 403  # the id alone
    rows = backend.execute(db, "SELECT people, seat_tokens FROM games WHERE id=?", (gid,))
    people, kept = rows[0]
    assert people == "[0, 2]"
    assert all(token not in kept for token in links.values())
    stored = json.loads(kept)
    assert {p: s["sha256"] for p, s in stored.items()} == {
        str(p): hashlib.sha256(t.encode()).hexdigest() for p, t in links.items()
    }
    assert stored["2"]["joins"] == 2 and stored["0"]["joins"] == 0


def test_a_version_2_database_migrates_and_its_games_resume(backend):
    """A database kept before friends came (schema 2: no ``people``, no ``seat_tokens``)
    is migrated when a server opens it: its game resumes, the creator's alone as before,
    and a table with friends is kept beside it."""
    db = backend.db("old")
    app = create_app(bot_delay=0, db=db)
    client = TestClient(app)
    view = new_game(client)
    for _ in range(5):
        view = step(client, view)
    cookies = dict(client.cookies)
    del app, client
    # back to version 2, as a burako of then left it
    backend.execute(db, "DROP TABLE joined")
    backend.execute(db, "ALTER TABLE games DROP COLUMN people")
    backend.execute(db, "ALTER TABLE games DROP COLUMN seat_tokens")
    backend.execute(db, "UPDATE meta SET value='2' WHERE key='schema_version'")
    columns_before = _columns(backend, db)
    assert "people" not in columns_before and "canastas" in columns_before

    again = TestClient(create_app(bot_delay=0, db=db), cookies=cookies)
    assert {"people", "seat_tokens"} <= set(_columns(backend, db))
    opened = GameDatabase(db)
    assert opened.schema_version() == SCHEMA_VERSION == 4
    assert opened.seats(view["id"]) == (None, {})
    opened.close()
    resumed = again.get(f"/api/games/{view['id']}").json()
    assert resumed["people"] == [0] and resumed["log"] == view["log"]
    assert step(again, resumed)["move_count"] == resumed["move_count"] + 1
    friends = new_game(again, players=4, people=[0, 1])
    assert [link["seat"] for link in friends["links"]] == [0, 1]
    rows = backend.execute(db, "SELECT people FROM games WHERE id=?", (friends["id"],))
    assert rows == [("[0, 1]",)]


def _columns(backend, db) -> list[str]:
    if backend.name == "sqlite":
        return [row[1] for row in backend.execute(db, "PRAGMA table_info(games)")]
    rows = backend.execute(
        db, "SELECT column_name FROM information_schema.columns WHERE table_name = 'games'"
    )
    return [row[0] for row in rows]


def test_postgresql_writes_of_many_games_share_a_bounded_pool(postgres_server):
    """The moves of different games commit side by side on up to POSTGRES_CONNECTIONS
    connections of one server process, never more, and a connection an error broke is
    replaced, not given back: every game's moves are all kept, in order."""
    import threading

    import psycopg

    from burako_env.frontends.web import db as db_module

    url = Backend("postgresql", Path("."), postgres_server).db("pool")
    games = TestClient(create_app(bot_delay=0, db=url))
    views = [new_game(games, seed=100 + k) for k in range(8)]
    database = games.app.state.store.get(views[0]["id"]).db
    assert database._opened == 1  # the migration's connection, given back
    errors: list[BaseException] = []

    def play(view: dict) -> None:
        try:
            for _ in range(12):
                if view["over"]:
                    return
                view = step(games, view)
        except BaseException as exc:  # noqa: BLE001 (the main thread reports it)
            errors.append(exc)

    threads = [threading.Thread(target=play, args=(v,)) for v in views]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert not errors, errors
    assert 1 <= database._opened <= db_module.POSTGRES_CONNECTIONS
    with psycopg.connect(url, autocommit=True) as conn:
        rows = conn.execute("SELECT game_id, n FROM moves ORDER BY game_id, n").fetchall()
    for view in views:
        kept = [n for gid, n in rows if gid == view["id"]]
        assert kept == list(range(1, len(kept) + 1)) and kept, view["id"]

    # a broken connection (the server ended it) is closed and replaced
    with database._use() as backend:
        victim = backend.conn.info.backend_pid
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("SELECT pg_terminate_backend(%s)", (victim,))
    opened = database._opened
    failed = 0
    for _ in range(db_module.POSTGRES_CONNECTIONS + 1):  # reach the dead one, whichever
        try:
            database.history("nobody")
        except psycopg.OperationalError:
            failed += 1  # the query on the dead connection fails once; it is not given back
    assert failed == 1
    assert database.history("nobody") == []
    assert database._opened <= max(opened, db_module.POSTGRES_CONNECTIONS)


def test_hidden_bot_estimates_are_kept_with_the_game(backend):
    """``bot_estimates: false`` is kept with the game's options and no move's thinking
    is stored: the resumed game still sends none."""
    db = backend.db("est")
    first = TestClient(create_app(bot_delay=0, db=db))
    view = new_game(first, bots="expert", bot_estimates=False)
    for _ in range(12):
        view = step(first, view)
    again = TestClient(create_app(bot_delay=0, db=db), cookies=dict(first.cookies))
    resumed = again.get(f"/api/games/{view['id']}").json()
    assert resumed["bot_estimates"] is False and resumed["thinking"] is None
    assert resumed["log"] == view["log"] and not any("thinking" in e for e in resumed["log"])
    kept = again.app.state.store.get(view["id"])
    assert kept.options["bot_estimates"] is False
    (options,) = backend.execute(db, "SELECT options FROM games WHERE id=?", (view["id"],))
    assert json.loads(options[0])["bot_estimates"] is False
    stored = backend.execute(
        db, "SELECT COUNT(*) FROM moves WHERE game_id=? AND thinking IS NOT NULL", (view["id"],)
    )
    assert stored == [(0,)]


# ------------------------------------------------------------------ a joined game's history
def _play_out(browsers: dict, gid: str) -> dict:
    """Play game ``gid`` to its end: each person's move from their own browser (a discard
    where there is one, else the first move), the bots' asked for by any of them; the
    final table as the first browser sees it."""
    first = next(iter(browsers.values()))
    view = first.get(f"/api/games/{gid}").json()
    while not view["over"]:
        p = view["to_act"]
        if p in browsers:
            view = step(browsers[p], browsers[p].get(f"/api/games/{gid}").json())
        else:
            r = first.post(f"/api/games/{gid}/bot?after={view['move_count']}")
            assert r.status_code == 200, r.text
            view = r.json()
    return first.get(f"/api/games/{gid}").json()


def test_a_joined_game_is_in_the_joiners_history_from_its_seat(backend):
    """A friend who takes a seat with its link finds the game in their browser's "Your
    games" (a browser without the server's cookie is given one at the join), resumes it
    from there after a restart, and has it tallied from their seat's side: the result,
    the margin and the canastas of their team, not the creator's. The creator's list
    holds it once, from the creator's seat."""
    db = backend.db("joined")
    app = create_app(bot_delay=0, db=db)
    creator, friend = TestClient(app), TestClient(app)
    view = new_game(creator, players=4, people=[0, 1], bots="greedy")  # opponents
    gid, tokens = view["id"], {link["seat"]: link["token"] for link in view["links"]}
    assert friend.get("/api/history").json()["games"] == []
    r = friend.post(f"/api/games/{gid}/join", json={"token": tokens[1]})
    assert r.status_code == 200 and r.json()["seat"] == 1
    assert "burako_client" in r.cookies  # a browser without one is given one, as at a deal
    (entry,) = friend.get("/api/history").json()["games"]
    assert (entry["id"], entry["seat"], entry["joined"], entry["people"]) == (gid, 1, True, [0, 1])
    assert not entry["over"] and entry["result"] is None
    again = friend.post(f"/api/games/{gid}/join", json={"token": tokens[1]})
    assert again.status_code == 200 and "burako_client" not in again.cookies  # kept, not new
    assert len(friend.get("/api/history").json()["games"]) == 1  # joined twice: listed once

    final = _play_out({0: creator, 1: friend}, gid)
    scores = final["match_points"] if final["episode"] == "match" else final["last_hand"]["scores"]
    winner = final["result"]["winner"]
    app = create_app(bot_delay=0, db=db)  # a restart: the joiner's cookies still open it
    friend = TestClient(app, cookies=dict(friend.cookies))
    creator = TestClient(app, cookies=dict(creator.cookies))
    mine, theirs = creator.get("/api/history").json(), friend.get("/api/history").json()
    (own,), (joined,) = mine["games"], theirs["games"]
    assert (own["seat"], own["joined"], joined["seat"], joined["joined"]) == (0, False, 1, True)
    assert own["scores"] == joined["scores"] == [int(s) for s in scores]
    assert joined["margin"] == -own["margin"] == scores[1] - scores[0]
    assert joined["result"] == ("tie" if winner < 0 else "won" if winner == 1 else "lost")
    assert own["result"] == ("tie" if winner < 0 else "won" if winner == 0 else "lost")
    (tally,) = backend.execute(db, "SELECT canastas FROM games WHERE id=?", (gid,))
    kept = json.loads(tally[0])
    for entry, team in ((own, 0), (joined, 1)):
        clean, dirty = canastas_of_team(kept, team)
        assert entry["canastas"] == {"clean": clean, "dirty": dirty}
    (by_bots,) = theirs["stats"]["by_bots"]
    assert by_bots["games"] == 1 and by_bots["margin"] == joined["margin"]
    assert by_bots[{"won": "won", "lost": "lost", "tie": "tied"}[joined["result"]]] == 1
    assert by_bots["clean_canastas"] == joined["canastas"]["clean"]
    resumed = friend.get(f"/api/games/{gid}")  # resumable from the list, after the restart
    assert resumed.status_code == 200 and resumed.json()["seat"] == 1


def test_no_browser_adds_a_game_to_its_history_without_the_seats_token(backend):
    """Only a seat's token puts a game in a browser's history: a wrong token, another
    game's token, or the game's id alone add nothing, for a browser with the server's
    cookie or without (which is then given none)."""
    db = backend.db("refused")
    app = create_app(bot_delay=0, db=db)
    creator = TestClient(app)
    view = new_game(creator, players=4, people=[0, 2])
    gid = view["id"]
    other = new_game(creator, players=4, people=[0, 1])
    known = TestClient(app)
    new_game(known)  # a browser with a cookie of this server and a game of its own
    before = known.get("/api/history").json()["games"]
    for browser in (known, TestClient(app)):
        for token in ("0" * 32, other["links"][1]["token"]):
            r = browser.post(f"/api/games/{gid}/join", json={"token": token})
            assert r.status_code == 403 and "token" in r.json()["error"], r.text
            assert "burako_client" not in r.cookies
        assert browser.get(f"/api/games/{gid}").status_code == 403  # the id alone
        listed = [g["id"] for g in browser.get("/api/history").json()["games"]]
        assert gid not in listed and other["id"] not in listed
    assert known.get("/api/history").json()["games"] == before
    assert backend.execute(db, "SELECT COUNT(*) FROM joined") == [(0,)]


def test_a_version_3_database_migrates_and_a_join_is_then_kept(backend):
    """A database kept before joins were (schema 3: no ``joined`` table) is migrated when
    a server opens it: its games resume and the creator's list is as it was; a join made
    then was not kept, so the friend's browser lists the game once it opens its seat's
    link again, and from then on."""
    db = backend.db("v3")
    app = create_app(bot_delay=0, db=db)
    creator, friend = TestClient(app), TestClient(app)
    view = new_game(creator, players=4, people=[0, 2])
    gid, tokens = view["id"], {link["seat"]: link["token"] for link in view["links"]}
    assert friend.post(f"/api/games/{gid}/join", json={"token": tokens[2]}).status_code == 200
    for _ in range(6):
        view = step(creator, creator.get(f"/api/games/{gid}").json())
        if view["to_act"] != 0:
            break
    history = creator.get("/api/history").json()
    cookies = {"creator": dict(creator.cookies), "friend": dict(friend.cookies)}
    del app, creator, friend
    # back to version 3, as a burako of then left it
    backend.execute(db, "DROP TABLE joined")
    backend.execute(db, "UPDATE meta SET value='3' WHERE key='schema_version'")

    app = create_app(bot_delay=0, db=db)
    opened = GameDatabase(db)
    assert opened.schema_version() == SCHEMA_VERSION == 4
    opened.close()
    creator = TestClient(app, cookies=cookies["creator"])
    friend = TestClient(app, cookies=cookies["friend"])
    assert creator.get("/api/history").json() == history
    assert friend.get("/api/history").json()["games"] == []  # the old join was not kept
    assert friend.get(f"/api/games/{gid}").json()["seat"] == 2  # its seat still opens
    assert friend.post(f"/api/games/{gid}/join", json={"token": tokens[2]}).status_code == 200
    (entry,) = friend.get("/api/history").json()["games"]
    assert (entry["id"], entry["seat"], entry["joined"]) == (gid, 2, True)
    assert backend.execute(db, "SELECT client, seat FROM joined") == [
        (friend.cookies["burako_client"], 2)
    ]
