"""The web table's games kept in SQLite (burako_env/frontends/web/db.py): a restarted
server resumes every game from its link, mid-hand, exactly; a kill -9 loses no move the
page was told about; the schema migrates and refuses a newer file; the browser's history
and statistics come from the same rows."""

from __future__ import annotations

import os
import signal
import socket
import sqlite3
import subprocess
import sys
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
)
from burako_env.frontends.web.sessions import PlaySession, bot_seed  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
VOLATILE = ("hint", "thinking")


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


def test_a_restarted_server_resumes_the_game_mid_hand_exactly(tmp_path):
    db = tmp_path / "games.sqlite3"
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


def test_a_resumed_game_plays_on_as_the_uninterrupted_one(tmp_path):
    """The bots' generators are seeded by the deal and the position, so a game that went
    through a restart is, move for move, the game that did not."""
    straight = TestClient(create_app(bot_delay=0, db=tmp_path / "a.sqlite3"))
    view = new_game(straight, bots="hard", players=4, seed=77)
    while not view["over"]:
        view = step(straight, view)
    whole = [(e["seat"], e["text"]) for e in view["log"]]

    db = tmp_path / "b.sqlite3"
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


def test_statistics_count_finished_games_by_their_bots(tmp_path):
    client = TestClient(create_app(bot_delay=0, db=tmp_path / "g.sqlite3"))
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
    other = TestClient(create_app(bot_delay=0, db=tmp_path / "g.sqlite3"))
    assert other.get("/api/history").json()["games"] == []  # another browser sees none


def test_a_damaged_move_is_refused_naming_the_game(tmp_path):
    db_path = tmp_path / "g.sqlite3"
    client = TestClient(create_app(bot_delay=0, db=db_path))
    view = new_game(client)
    for _ in range(6):
        view = step(client, view)
    with sqlite3.connect(db_path) as conn:
        conn.execute("UPDATE moves SET action=2540 WHERE n=3")
    db = GameDatabase(db_path)
    options, moves = db.load(view["id"])
    with pytest.raises(Exception, match=r"cannot be replayed at move 3"):
        PlaySession.restore(view["id"], options, moves)
    again = TestClient(create_app(bot_delay=0, db=db_path))
    r = again.get(f"/api/games/{view['id']}")
    assert r.status_code == 500 and "cannot be replayed at move 3" in r.json()["error"]


def test_the_schema_migrates_and_refuses_a_newer_file(tmp_path):
    path = tmp_path / "g.sqlite3"
    db = GameDatabase(path)
    assert db.schema_version() == SCHEMA_VERSION
    db.close()
    assert GameDatabase(path).schema_version() == SCHEMA_VERSION  # opened again: as it was
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE meta SET value=? WHERE key='schema_version'", (SCHEMA_VERSION + 1,))
    before = path.read_bytes()
    with pytest.raises(DatabaseError, match=r"newer than this burako's"):
        GameDatabase(path)
    assert path.read_bytes() == before  # left untouched
    junk = tmp_path / "junk.sqlite3"
    junk.write_bytes(b"this is no database" * 100)
    with pytest.raises(DatabaseError, match="is not a burako game database"):
        GameDatabase(junk)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _server(db: Path, port: int) -> subprocess.Popen:
    cmd = [sys.executable, "-m", "burako_env.frontends.cli", "serve", "--port", str(port)]
    cmd += ["--db", str(db), "--bot-delay", "0", "--records", str(db.parent / "records")]
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
def test_a_kill_9_loses_no_acknowledged_move(tmp_path):
    db = tmp_path / "g.sqlite3"
    port = _free_port()
    proc = _server(db, port)
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
    proc = _server(db, port)
    try:
        again = _Http(f"http://127.0.0.1:{port}", http.jar)
        resumed = again.get(f"/api/games/{view['id']}").json()
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
    assert resumed["log"] == view["log"] and resumed["moves"] == view["moves"]


def test_house_rules_deal_the_engines_variant_and_are_kept(tmp_path):
    from burako_env.frontends.rules_text import rules_summary
    from burako_env.variants import load_variant

    db = tmp_path / "g.sqlite3"
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
