"""``burako serve`` without a browser: the routes, bad requests and the path limits.

The app runs in Starlette's TestClient. Every bad request must get a clear error and leave
the game exactly as it was; the records folder is the only place files are read from.
"""

from __future__ import annotations

import asyncio
import json
import re
import socket
import time
from pathlib import Path

import numpy as np
import pytest
from starlette.testclient import TestClient
from typer.testing import CliRunner

from burako_env.agents import make_agent
from burako_env.cards import NUM_CARD_TYPES, NUM_RANKS, parse_cards
from burako_env.core.actions import decode_action, discard_action
from burako_env.core.constants import (
    END_WENT_OUT,
    MELD_GROUP,
    MELD_RUN,
    MF_GAP,
    MF_HI,
    MF_KEY,
    MF_KIND,
    MF_LO,
    MF_N0,
    MF_SIZE,
    MF_WILD,
    NUM_ACTIONS,
    NUM_MELD_FIELDS,
    S_HANDS_ENDED,
    SCORE_ITEMS,
)
from burako_env.core.game import Game
from burako_env.core.state import copy_state, states_equal
from burako_env.frontends.cli import app as cli_app
from burako_env.frontends.narrate import action_words, play_and_describe
from burako_env.frontends.playback import check_record
from burako_env.frontends.thinking import (
    hint_cards,
    hint_seed,
    policy_json,
    public_filter,
    search_json,
)
from burako_env.frontends.web import create_app
from burako_env.frontends.web.app import serve_app
from burako_env.frontends.web.moves import BadMove, RefusedMove, legal_moves
from burako_env.frontends.web.sessions import PlaySession, SessionError, SessionStore
from burako_env.frontends.web.table import (
    DATA_KEYS,
    card_faces,
    meld_cards,
    meld_view,
    running_score,
    table_view,
    web_json,
    web_words,
)
from burako_env.limits import MAX_SEED
from burako_env.records import GameRecord, read_records, write_records
from burako_env.render import render_table

ROOT = Path(__file__).resolve().parents[2]
#: the content type a JSON body must be sent with
JSON = {"content-type": "application/json"}


# ---------------------------------------------------------------- helpers
def play_out(game: Game, seed: int = 0) -> list[int]:
    """Random legal moves to the end of the episode; returns the actions."""
    agent = make_agent("random", seed=seed)
    actions = []
    while not game.is_over():
        a = int(
            agent.act(
                game.observe_one(int(game.current_player[0]))[None], game.legal_action_mask()
            )[0]
        )
        game.step_one(a)
        actions.append(a)
    return actions


def random_record(seed: int = 1, players: int = 4) -> GameRecord:
    game = Game("argentine", num_players=players, seed=seed)
    actions = play_out(game, seed)
    return GameRecord(
        variant="argentine",
        num_players=players,
        seed=seed,
        index=0,
        seats=["random"] * players,
        actions=actions,
        scores=[int(v) for v in game.hand_scores[0]],
        winner=int(game.winner[0]),
    )


@pytest.fixture
def folders(tmp_path):
    records = tmp_path / "records"
    records.mkdir()
    outside = tmp_path / "outside"
    outside.mkdir()
    return records, outside


@pytest.fixture
def client(folders):
    records, _ = folders
    return TestClient(create_app(records_dir=records, bot_delay=0))


def new_game(client, **options) -> dict:
    body = {"seed": 5, "bots": "greedy", **options}
    r = client.post("/api/games", json=body)
    assert r.status_code == 201, r.text
    return r.json()


def my_turn(client, view) -> dict:
    """Let the bots move until it is the person's turn (or the game is over)."""
    while not view["over"] and view["to_act"] != view["seat"]:
        r = client.post(f"/api/games/{view['id']}/bot")
        assert r.status_code == 200, r.text
        view = r.json()
    return view


def hand_of(view) -> list[int]:
    return view["seats"][view["seat"]]["hand"]


# ---------------------------------------------------------------- the page and options
def test_page_script_and_options(client):
    page = client.get("/")
    assert page.status_code == 200 and "text/html" in page.headers["content-type"]
    assert '<script src="/static/app.js">' in page.text
    for name, kind in (("app.js", "javascript"), ("app.css", "css")):
        r = client.get(f"/static/{name}")
        assert r.status_code == 200 and kind in r.headers["content-type"]
    # no outside asset: nothing in the page loads from another host
    for name in ("index.html", "app.js", "app.css"):
        text = (ROOT / "burako_env/frontends/web/static" / name).read_text()
        assert "http://" not in text and "https://" not in text, name
    opts = client.get("/api/options").json()
    assert [v["name"] for v in opts["variants"]] == [
        "argentine",
        "italian",
        "brazilian",
        "colombian",
    ]
    assert {"greedy", "discard_table", "random", "easy", "expert"} <= set(opts["bots"])
    assert [lv["name"] for lv in opts["levels"]] == ["Easy", "Normal", "Hard", "Expert"]
    argentine = opts["variants"][0]
    assert argentine["levels"]["4"] == ["easy", "normal", "hard", "expert"]
    assert argentine["default_level"]["4"] == "hard"  # burako play's default too
    assert len(opts["faces"]) == 53 and opts["faces"][52]["suit"] == "joker"
    assert opts["bot_delay_ms"] == 0 and opts["records"] is True


def test_card_faces_match_the_notation():
    faces = card_faces()
    for c in range(52):
        assert parse_cards(faces[c]["text"]) == [c]
        assert faces[c]["suit"] == ("clubs", "diamonds", "hearts", "spades")[c // NUM_RANKS]
    assert faces[52] == {"id": 52, "rank": "★", "suit": "joker", "symbol": "", "text": "*"}
    # the page draws a ten as 10 (the notation's T stays in the text)
    assert [f["rank"] for f in faces[:NUM_RANKS]] == [
        *"A23456789",
        "10",
        *"JQK",
    ]
    assert faces[parse_cards("Th")[0]]["text"] == "Th"


# ---------------------------------------------------------------- the table as JSON
def _row(**fields) -> np.ndarray:
    row = np.zeros(NUM_MELD_FIELDS, np.int8)
    row[MF_WILD] = -1
    names = {"kind": MF_KIND, "key": MF_KEY, "lo": MF_LO, "hi": MF_HI, "gap": MF_GAP}
    names |= {"wild": MF_WILD, "size": MF_SIZE}
    for k, v in fields.items():
        row[names[k]] = v
    return row


def test_meld_cards_show_where_the_wild_stands():
    joker = 52
    gap_run = _row(kind=MELD_RUN, key=2, lo=7, hi=9, gap=8, wild=joker, size=3)
    assert meld_cards(gap_run) == [
        {"card": parse_cards("7h")[0], "wild": None, "stands_for": None},
        {"card": joker, "wild": "gap", "stands_for": parse_cards("8h")},
        {"card": parse_cards("9h")[0], "wild": None, "stands_for": None},
    ]
    assert meld_view(gap_run, 0, 0)["wild_text"] == "the joker stands for 8♥"
    end_run = _row(kind=MELD_RUN, key=2, lo=5, hi=6, gap=0, wild=parse_cards("2c")[0], size=3)
    assert [c["wild"] for c in meld_cards(end_run)] == [None, None, "end"]
    assert meld_cards(end_run)[2]["card"] == parse_cards("2c")[0]
    # a wild at an end counts as whichever end the run needs: both cards are named
    assert meld_cards(end_run)[2]["stands_for"] == parse_cards("4h 7h")
    assert meld_view(end_run, 0, 0)["wild_text"] == "the 2♣ stands for 4♥ or 7♥ (at either end)"
    top = _row(kind=MELD_RUN, key=2, lo=12, hi=14, gap=0, wild=joker, size=4)  # Q K A + *
    assert meld_cards(top)[3]["stands_for"] == parse_cards("Jh")
    clean = _row(kind=MELD_RUN, key=0, lo=1, hi=3, size=3)  # A 2 3 of clubs: the 2 is natural
    assert [c["wild"] for c in meld_cards(clean)] == [None, None, None]
    group = _row(kind=MELD_GROUP, key=6, wild=joker, size=3)
    group[MF_N0 + 1] = 1
    group[MF_N0 + 3] = 1
    assert meld_cards(group) == [
        {"card": parse_cards("7d")[0], "wild": None, "stands_for": None},
        {"card": parse_cards("7s")[0], "wild": None, "stands_for": None},
        {"card": joker, "wild": "group", "stands_for": None},
    ]
    assert meld_view(group, 0, 0)["wild_text"] == "the joker stands for a 7"


def test_view_hides_other_hands_and_shows_public_things():
    game = Game("argentine", seed=3)
    play = 0
    while not game.is_over() and play < 40:  # some way into the hand: melds, a pile
        a = int(game.legal_actions()[-1 if play % 3 else 0])
        game.step_one(a)
        play += 1
    viewer = int(game.current_player[0])
    view = table_view(game, viewer=viewer)
    for seat in view["seats"]:
        assert ("hand" in seat) == (seat["seat"] == viewer)
        assert seat["team"] == seat["seat"] % 2
        assert seat["cards"] == int(game.state.hands[0, seat["seat"]].sum())
    mine = view["seats"][viewer]["hand"]
    assert sorted(mine) == [c for c in range(53) for _ in range(game.state.hands[0, viewer, c])]
    assert view["pile"] == [int(c) for c in game.state.pile[0, : game.state.pile_len[0]]]
    assert view["stock"] == int(game.state.stock_len[0])
    json.dumps(view)  # JSON-ready
    everything = table_view(game, viewer=None)
    assert all("hand" in s for s in everything["seats"])
    with pytest.raises(ValueError, match="viewer must be a seat"):
        table_view(game, viewer=9)


def _thinking_seen_by(game: Game, seat: int, played: int) -> str:
    """The thinking panel of the decision of the player to act, as ``seat`` reads it (the
    session's :func:`public_filter`): every legal move a candidate with the same numbers
    (an agent's numbers come from its own information), ``played`` the move played
    (public once played); empty for the player's own seat (its decision is its own)."""
    from burako_env.agents.pimc import CandidateReport, SearchReport
    from burako_env.agents.ppo_agent import PolicyReport

    player = int(game.current_player[0])
    if game.is_over() or seat == player:
        return ""
    legal = [int(a) for a in game.legal_actions()]
    rows = tuple(CandidateReport(a, 4, 0.0, 1.0, 0.5, 0.0, 1.0) for a in legal)
    search = SearchReport(played, played, "margin", 4, rows, False)
    policy = PolicyReport(played, 0.0, tuple((a, 0.1) for a in legal))
    shown = public_filter(game, player)
    panels = [search_json(search, player, "Expert", shown)]
    panels.append(policy_json(policy, player, "Hard", shown))
    return json.dumps(panels, sort_keys=True)


def _seen_by(game: Game, seat: int, played: int = -1) -> tuple[str, str, str]:
    """Everything the web table, the text render and the thinking panel (of the move
    ``played`` next, -1: none) draw for ``seat``."""
    thinking = "" if played < 0 else _thinking_seen_by(game, seat, played)
    table = json.dumps(table_view(game, viewer=seat), sort_keys=True)
    return table, render_table(game, 0, seat), thinking


def test_views_show_a_seat_only_what_its_observation_holds():
    """Two games a seat cannot tell apart (the same observation) look the same to it in
    every field of the web table's JSON, of the text render and of a bot's thinking panel
    (the candidates shown to the person: a discard of the card just taken, shown once
    the pile had made it public, told that the taker held another copy). The pairs: the
    italian rediscard bar after a one-card pile (it appears only when the taker held no
    copy: issue 59, the views once showed it to every seat), and re-deals of every card hidden
    from a seat along a game (Game.determinize keeps that seat's observation)."""
    from burako_env.core.constants import TAKE_PILE
    from burako_env.scenario import build_game

    pairs = []  # (game, game, seat): the seat's observations must be equal
    bar = []
    for hand in ("7h 8c 9d Kd", "6d 8c 9d Kd"):  # the taker held a 7h, or not
        game = build_game(
            "italian", hands={0: "3c 4c 5c", 1: hand}, pile="7h", player=1, phase="draw"
        )
        game.step_one(TAKE_PILE)
        bar.append(game)
    pairs += [(bar[0], bar[1], seat) for seat in (0, 2, 3)]
    # the taker is told of its bar, in both views
    assert table_view(bar[1], viewer=1)["no_discard"] == parse_cards("7h")[0]
    assert "P1 may not discard 7♥ this turn" in render_table(bar[1], 0, 1)
    assert table_view(bar[0], viewer=1)["no_discard"] is None
    game = Game("italian", seed=7)
    agent = make_agent("greedy", seed=7)
    for move in range(400):
        if game.is_over():
            break
        if move % 9 == 0:
            for seat in range(game.num_players):
                pairs.append((game.clone(), game.determinize(seat, move + seat), seat))
        game.step_one(int(agent.act_game(game)))
    assert len(pairs) > 20
    for one, other, seat in pairs:
        assert np.array_equal(one.observe_one(seat), other.observe_one(seat)), seat
        # the thinking panel of the next move, the same move played in both games
        common = np.intersect1d(one.legal_actions(), other.legal_actions())
        played = int(common[0]) if len(common) and not one.is_over() else -1
        assert _seen_by(one, seat, played) == _seen_by(other, seat, played), seat


def test_legal_moves_come_from_the_engine():
    """The page's moves are exactly the engine's legal actions, with its words; each
    opening names the hand cards it moves, read back from the meld it lays."""
    game = Game("argentine", seed=3)
    checked_openings = 0
    for _ in range(200):
        if game.is_over():
            break
        moves = legal_moves(game)
        assert [m["action"] for m in moves] == [int(a) for a in game.legal_actions()]
        assert all(m["text"] == action_words(m["action"]) for m in moves)
        hand = game.state.hands[0, int(game.current_player[0])]
        for m in moves:
            counts = np.bincount(m["cards"], minlength=53) if m["cards"] else np.zeros(53)
            assert (counts <= hand).all(), m  # only cards the player holds
            if m["kind"] == "open":
                assert sorted(c["card"] for c in m["meld"]) == m["cards"]
                assert len(m["cards"]) == len(decode_action(m["action"]).cards)
                checked_openings += 1
        before = copy_state(game.state)
        legal_moves(game)
        assert states_equal(before, game.state)  # trying openings never moves the game
        game.step_one(int(game.legal_actions()[0]))
    assert checked_openings > 0


def test_running_score_is_the_engines_scoring():
    """The score as the hand goes (``running``): the engine's score items of the table
    (``score_hand_nb``), so at the end of a hand they are the hand's own table items; the
    brazilian opening minimum and what is still needed; nothing from hidden hands."""
    for seed in (3, 5):
        game = Game("argentine", seed=seed)
        play_out(game, seed)
        running = running_score(game)  # the melds still lie on the table at the end
        items = game.state.score_items[0]
        for t in range(2):
            assert running[t]["table_cards"] == int(items[t, SCORE_ITEMS.index("table_cards")])
            assert running[t]["canasta_bonus"] == int(items[t, SCORE_ITEMS.index("canasta_bonus")])
            melds = table_view(game)["melds"][t]
            assert running[t]["clean_canastas"] == sum(m["canasta"] and m["clean"] for m in melds)
            assert running[t]["dirty_canastas"] == sum(
                m["canasta"] and not m["clean"] for m in melds
            )
            assert running[t]["to_open"] is None  # argentine has no opening minimum
    fresh = Game("brazilian", seed=1)
    view = table_view(fresh, viewer=0)
    assert [(r["minimum"], r["to_open"], r["total"]) for r in view["running"]] == [(50, 50, 0)] * 2
    before = json.dumps(table_view(fresh, viewer=0)["running"])
    fresh.state.hands[0, 1, :] = 0  # another seat's hidden cards change nothing shown
    assert json.dumps(table_view(fresh, viewer=0)["running"]) == before
    assert table_view(game)["running"] is None  # the game is over: last_hand says it


# ---------------------------------------------------------------- playing through the API
def test_new_game_options_are_checked(client):
    bad = [
        ({"variant": "poker"}, "unknown variant 'poker'"),
        ({"players": 3}, "3 players is not allowed"),
        ({"seat": 4}, "seat must be 0..3"),
        ({"seat": "one"}, "seat must be a whole number"),
        ({"bots": "shark"}, "unknown bot 'shark'"),
        ({"bots": ["greedy"]}, "a list of 3 names"),
        ({"episode": "forever"}, "episode must be one of"),
        ({"seed": -1}, "seed must be 0..18446744073709551615"),
        ({"colour": "red"}, "unknown game options: colour"),
    ]
    for options, message in bad:
        r = client.post("/api/games", json=options)
        assert r.status_code == 400, (options, r.text)
        assert message in r.json()["error"], (options, r.json())
    r = client.post("/api/games", content=b"{not json", headers=JSON)
    assert r.status_code == 400 and "not JSON" in r.json()["error"]
    r = client.post("/api/games", json=[1, 2])
    assert r.status_code == 400 and "JSON object" in r.json()["error"]


def test_unknown_game_id_is_a_clear_404(client):
    for method, path in (
        ("GET", "/api/games/nosuch"),
        ("POST", "/api/games/nosuch/move"),
        ("POST", "/api/games/nosuch/bot"),
        ("POST", "/api/games/nosuch/save"),
        ("GET", "/api/games/nosuch/record"),
    ):
        r = client.request(method, path, json={"action": 0} if path.endswith("move") else None)
        assert r.status_code == 404, (path, r.text)
        assert "no game 'nosuch'" in r.json()["error"] and "start a new game" in r.json()["error"]
    r = client.get("/api/no/such/route")
    assert r.status_code == 404 and "error" in r.json()
    r = client.get("/api/games")  # POST only
    assert r.status_code == 405 and "error" in r.json()


def test_bad_and_illegal_moves_leave_the_game_as_it_was(client):
    view = my_turn(client, new_game(client, seat=0))
    gid = view["id"]
    hand = hand_of(view)
    legal = {m["action"] for m in view["moves"]}
    held_not_legal = next(
        discard_action(c) for c in hand if discard_action(c) not in legal
    )  # the first turn is a peek or a draw: no discard is legal yet
    not_held = next(c for c in range(52) if c not in hand)
    cases = [
        ({"action": held_not_legal}, 409, "You cannot discard"),
        ({"action": NUM_ACTIONS}, 400, "outside the action space"),
        ({"action": -1}, 400, "outside the action space"),
        ({"action": "draw"}, 400, "must be an action id"),
        ({"action": True}, 400, "must be an action id"),
        ({"kind": "fly"}, 400, "unknown move kind 'fly'"),
        ({"kind": "discard"}, 400, "needs 'cards'"),
        ({"kind": "discard", "cards": [99]}, 400, "99 is not a card id"),
        ({"kind": "discard", "cards": [not_held]}, 400, "you do not hold"),
        ({"kind": "discard", "cards": hand[:2]}, 400, "discard one card"),
        ({"kind": "add", "cards": hand[:1]}, 400, "needs 'slot'"),
        ({"kind": "add", "cards": hand[:1], "slot": 0}, 409, "You cannot add"),
        ({"kind": "open", "cards": hand[:2]}, 400, "exactly 3 cards"),
        ("discard", 400, "a move is a JSON object"),
    ]
    for body, status, message in cases:
        r = client.post(f"/api/games/{gid}/move", json=body)
        assert r.status_code == status, (body, r.text)
        assert message in r.json()["error"], (body, r.json())
        assert client.get(f"/api/games/{gid}").json() == view  # nothing moved
    refused = client.post(f"/api/games/{gid}/move", json={"action": held_not_legal}).json()
    # the rule in the words of the page: this part of the turn (a peek or a draw) comes first
    assert refused["reason"].startswith("first ") and "phase" not in refused["reason"]
    assert refused["action"] == held_not_legal
    r = client.post(f"/api/games/{gid}/move", content=b"\xff\xfe", headers=JSON)
    assert r.status_code == 400 and "not JSON" in r.json()["error"]
    r = client.post(f"/api/games/{gid}/bot")
    assert r.status_code == 409 and "your turn" in r.json()["error"]
    assert client.get(f"/api/games/{gid}").json() == view


def test_a_refused_move_leaves_the_state_untouched():
    session = PlaySession.new({"seed": 2, "bots": "random"})
    while session.to_act != session.seat:
        session.bot_move()
    before = copy_state(session.game.state)
    hand = session.view()["seats"][0]["hand"]
    with pytest.raises(RefusedMove, match="now: first "):
        session.move({"kind": "discard", "cards": hand[:1]})
    naturals = [c for c in hand if c != 52 and c % NUM_RANKS != 1]  # no joker, no 2
    three = []
    for c in naturals:  # three ranks far apart: neither a group nor a run
        if all(abs(c % NUM_RANKS - d % NUM_RANKS) > 2 for d in three):
            three.append(c)
    assert len(three) >= 3
    with pytest.raises(BadMove, match="is not a meld"):
        session.move({"kind": "open", "cards": three[:3]})
    assert states_equal(before, session.game.state) and session.actions == []


def test_move_on_a_bots_turn_is_refused(client):
    view = new_game(client, seat=1)  # P0 plays first
    assert view["to_act"] == 0 and view["moves"] == []
    r = client.post(f"/api/games/{view['id']}/move", json={"action": 0})
    assert r.status_code == 409 and "it is P0's turn (Easy), not yours" in r.json()["error"]


def test_tabs_play_separate_games(client):
    a = new_game(client, seed=1)
    b = new_game(client, seed=1)
    assert a["id"] != b["id"]
    assert a["names"][a["seat"]] == "you" and a["names"].count("Easy") == len(a["names"]) - 1
    a = my_turn(client, a)
    first = a["moves"][0]["action"]
    after = client.post(f"/api/games/{a['id']}/move", json={"action": first}).json()
    assert len(after["log"]) == len(a["log"]) + 1
    assert client.get(f"/api/games/{b['id']}").json() == b  # the other tab's game did not move


def play_hand(client, view) -> dict:
    """The person draws and discards (or plays the first legal move) until the end."""
    while True:
        view = my_turn(client, view)
        if view["over"]:
            return view
        kinds = [m["kind"] for m in view["moves"]]
        pick = view["moves"][kinds.index("discard")] if "discard" in kinds else view["moves"][0]
        r = client.post(f"/api/games/{view['id']}/move", json={"action": pick["action"]})
        assert r.status_code == 200, r.text
        view = r.json()


def test_whole_hand_then_save_and_watch(client, folders):
    records, _ = folders
    view = new_game(client, players=2, seed=11)
    gid = view["id"]
    r = client.post(f"/api/games/{gid}/save")
    assert r.status_code == 409 and "not over yet" in r.json()["error"]
    view = play_hand(client, view)
    assert view["over"] and view["result"]["text"]
    assert all("hand" in s for s in view["seats"])  # the end shows every hand
    teams = view["last_hand"]["teams"]
    assert [[i["name"] for i in t["items"]] for t in teams] == [list(SCORE_ITEMS)] * 2
    assert [t["total"] for t in teams] == [sum(i["points"] for i in t["items"]) for t in teams]
    r = client.post(f"/api/games/{gid}/move", json={"action": 0})
    assert r.status_code == 409 and "the game is over" in r.json()["error"]

    saved = client.post(f"/api/games/{gid}/save").json()
    assert saved["file"] == f"game-{gid}.jsonl" and saved["view"]["saved_as"] == saved["file"]
    (rec,) = read_records(records / saved["file"])
    assert check_record(rec) is None and rec.meta["human_seat"] == 0
    assert rec.seats == ["human", "greedy"]
    assert rec.scores == [t["total"] for t in teams]
    download = client.get(f"/api/games/{gid}/record")
    assert download.status_code == 200 and "attachment" in download.headers["content-disposition"]
    assert GameRecord.from_dict(json.loads(download.text)) == rec

    listing = client.get("/api/records").json()["files"]
    assert [f["file"] for f in listing] == [saved["file"]]
    games = client.get("/api/records/games", params={"file": saved["file"]}).json()["games"]
    assert len(games) == 1 and "human" in games[0]["header"]
    n = len(rec.actions)
    start = client.get("/api/records/view", params={"file": saved["file"], "step": 0}).json()
    assert start["step"] == 0 and start["steps"] == n and not start["over"]
    end = client.get("/api/records/view", params={"file": saved["file"], "step": n}).json()
    assert end["over"] and end["last_hand"]["teams"] == teams


def _whole_numbers(value) -> set[int]:
    """Every whole number a JSON answer holds: its numbers and every run of digits in its
    texts and keys (a seed sent as a string, or named in a sentence)."""
    if isinstance(value, bool) or value is None:
        return set()
    if isinstance(value, int):
        return {value}
    if isinstance(value, float):
        return {int(value)} if value.is_integer() else set()
    if isinstance(value, str):
        return {int(run) for run in re.findall(r"\d+", value)}
    items = list(value.items()) if isinstance(value, dict) else list(value)
    return set().union(set(), *(_whole_numbers(item) for item in items))


def _hidden_deal(game: Game, seat: int) -> tuple[np.ndarray, np.ndarray]:
    """The cards dealt that ``seat`` cannot see: the other hands and the stock."""
    st = game.state
    others = [p for p in range(game.num_players) if p != seat]
    return st.hands[0, others].copy(), st.stock[0, : int(st.stock_len[0])].copy()


def test_no_answer_of_a_live_game_gives_away_the_deal(folders, monkeypatch):
    """Issue 59.5: the deal's seed deals every hidden card, and every answer carried it.
    Now a game dealt at random keeps its seed on the server while it is live: no whole
    number of any answer (views, bot moves, thinking, a hint, a refusal), for any seat,
    deals the hidden hands and the stock again. Once the game ends the seed is shown
    (as digits: a record can be replayed) and it does deal them."""
    import random
    import secrets

    # the server's random seeds, drawn from a fixed generator: the same games every run
    draws = random.Random(59)
    monkeypatch.setattr(secrets, "randbelow", lambda n: draws.randrange(n))
    records, _ = folders
    app = create_app(records_dir=records, bot_delay=0)
    client = TestClient(app)
    checked = 0
    deals: dict[int, Game] = {}
    for seat in range(4):
        r = client.post("/api/games", json={"seat": seat, "bots": ["hard", "greedy", "greedy"]})
        assert r.status_code == 201, r.text
        view = r.json()
        gid = view["id"]
        session = app.state.store.get(gid)
        truth = Game("argentine", num_players=4, seed=session.seed)
        assert sorted(hand_of(view)) == [
            c for c in range(53) for _ in range(truth.state.hands[0, seat, c])
        ]
        hidden = _hidden_deal(truth, seat)
        answers = [view]
        hinted = False
        while not view["over"]:
            answers.append(client.get(f"/api/games/{gid}").json())
            if view["to_act"] != seat:
                view = client.post(f"/api/games/{gid}/bot").json()
                if view["thinking"] is not None:
                    move = view["thinking"]["move"]
                    answers.append(client.get(f"/api/games/{gid}/thinking?move={move}").json())
            else:
                if not hinted:  # Expert's search from the person's seat (seeded by the deal)
                    answers.append(client.post(f"/api/games/{gid}/hint").json())
                    hinted = True
                legal = {m["action"] for m in view["moves"]}
                refused = min(set(range(NUM_ACTIONS)) - legal)  # a refusal answers too
                r = client.post(f"/api/games/{gid}/move", json={"action": refused})
                assert r.status_code == 409, r.text
                answers.append(r.json())
                kinds = [m["kind"] for m in view["moves"]]
                pick = view["moves"][kinds.index("discard") if "discard" in kinds else 0]
                view = client.post(f"/api/games/{gid}/move", json={"action": pick["action"]}).json()
            if not view["over"]:
                answers.append(view)
        assert hinted and any(a.get("kind") == "policy" for a in answers)  # Hard thought
        numbers = set().union(*(_whole_numbers(a) for a in answers))
        assert session.seed not in numbers
        for number in sorted(numbers):
            if 0 <= number <= MAX_SEED:
                if number not in deals:  # one deal a number, read from every seat
                    deals[number] = Game("argentine", num_players=4, seed=number)
                dealt = _hidden_deal(deals[number], seat)
                assert not all(np.array_equal(x, y) for x, y in zip(dealt, hidden, strict=True)), (
                    number
                )
                checked += 1
        # the end: every hand is open, and the seed, as digits, deals the game again
        assert view["seed"] == str(session.seed)
        assert all(
            np.array_equal(x, y)
            for x, y in zip(
                _hidden_deal(Game("argentine", num_players=4, seed=int(view["seed"])), seat),
                hidden,
                strict=True,
            )
        )
    assert checked > 100


def test_any_64_bit_seed_deals_plays_and_thinks(client, folders):
    """Issue 57.7: a 64-bit deal seed works everywhere: a new game names it as digits (a
    page's numbers round past 2**53) and Hard bots play it (their seeds once overflowed
    torch); Watch sends it as digits, shown exactly; how a recorded Hard seat thinks once
    answered 500 for such a seed (``hint_seed`` overflowed torch's ``manual_seed``)."""
    records, _ = folders
    for seed in (2**63 - 1, 2**64 - 1):
        view = new_game(client, seed=str(seed), bots="hard", players=4)
        assert view["seed"] is None  # kept on the server while the game is live
        view = my_turn(client, view)
        assert view["thinking"] is None or view["thinking"]["kind"] == "policy"
        game = Game("argentine", seed=seed)
        actions = play_out(game, 1)
        rec = GameRecord(
            variant="argentine",
            num_players=4,
            seed=seed,
            index=0,
            seats=["ppo"] * 4,
            actions=actions,
            scores=[int(v) for v in game.hand_scores[0]],
            winner=int(game.winner[0]),
        )
        name = f"big-{seed}.jsonl"
        write_records(records / name, [rec])
        watched = client.get("/api/records/view", params={"file": name, "step": 1})
        assert watched.status_code == 200 and watched.json()["seed"] == str(seed)
        for step in (0, 1):
            r = client.get("/api/records/thinking", params={"file": name, "step": step})
            assert r.status_code == 200, r.text
            assert r.json()["thinking"]["kind"] == "policy"
    assert hint_seed(2**64 - 1, 10**6) < 2**64 and hint_seed(5, 7) == 5 * 100_003 + 7
    r = client.post("/api/games", json={"seed": str(2**64)})
    assert r.status_code == 400 and "seed must be 0..18446744073709551615" in r.json()["error"]


def _texts(value, key: str = "") -> list[str]:
    """Every text of a JSON answer the page shows (not its data: file names, ids)."""
    if key in DATA_KEYS:
        return []
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [t for k, v in value.items() for t in _texts(v, k)]
    if isinstance(value, list):
        return [t for v in value for t in _texts(v)]
    return []


def test_the_web_writes_cards_as_the_page_shows_them(client, folders):
    """Issue 57.7: the log wrote tens "T♥" and a refusal named cards in the terminal's
    codes ("3c Th Js is not a meld"); every text of every answer now writes cards as the
    page draws them (10♥, suit symbols, ★ for the joker). The terminal keeps its own."""
    records, _ = folders
    ten_of_hearts = parse_cards("Th")[0]
    assert action_words(discard_action(ten_of_hearts)) == "discard T♥"  # burako play's
    assert web_words("run 9♥ T♥ * (meld 0); T♠, *") == "run 9♥ 10♥ ★ (meld 0); 10♠, ★"
    view = my_turn(client, new_game(client, players=2, bots="random", seed=5))
    gid = view["id"]
    r = client.post(
        f"/api/games/{gid}/move", json={"kind": "open", "cards": parse_cards("3c Th Js")}
    )
    assert r.status_code == 400 and r.json()["error"].startswith("3♣ 10♥ J♠ is not a meld"), r.text
    missing = next(c for c in parse_cards("Tc Td Th Ts") if c not in hand_of(view))
    r = client.post(f"/api/games/{gid}/move", json={"kind": "discard", "cards": [missing]})
    assert (
        r.status_code == 400
        and r.json()["error"] == f"you do not hold 10{'♣♦♥♠'[missing // NUM_RANKS]}"
    )
    answers = [r.json()]
    while not view["over"]:
        view = my_turn(client, view)
        answers.append(view)
        if view["over"]:
            break
        kinds = [m["kind"] for m in view["moves"]]
        pick = view["moves"][kinds.index("discard") if "discard" in kinds else 0]
        view = client.post(f"/api/games/{gid}/move", json={"action": pick["action"]}).json()
        answers.append(view)
    write_records(records / "tens.jsonl", [random_record(seed=1)])
    watched = client.get("/api/records/view", params={"file": "tens.jsonl", "step": 40}).json()
    answers.append(watched)
    texts = [t for a in answers for t in _texts(a)]
    assert any(re.search("10[♣♦♥♠]", t) for t in texts)  # tens were shown
    assert not [
        t for t in texts if re.search("T[♣♦♥♠]|(?<!\\S)\\*(?!\\S)|\\b[2-9TJQKA][cdhs]\\b", t)
    ]


def test_match_mode_reports_each_hand(client):
    view = new_game(client, players=2, seed=4, episode="match")
    hands_seen = 0
    for _ in range(3000):
        view = my_turn(client, view)
        if view["hands_ended"] > hands_seen:
            hands_seen = view["hands_ended"]
            assert view["last_hand"]["number"] == hands_seen
        if view["over"] or hands_seen >= 2:
            break
        kinds = [m["kind"] for m in view["moves"]]
        pick = view["moves"][kinds.index("discard")] if "discard" in kinds else view["moves"][0]
        view = client.post(f"/api/games/{view['id']}/move", json={"action": pick["action"]}).json()
    assert hands_seen >= 2 or view["over"]
    assert view["episode"] == "match" and sum(view["match_points"]) != 0


def test_a_matchs_hand_end_keeps_the_table_as_it_ended():
    """A match deals the next hand in the move that ends one: the view still carries the
    ended hand's final table, every hand open (``hand_end``), the same as the first hand
    played alone from the same seed (a single hand ends without a next deal)."""
    session = PlaySession.new({"seed": 4, "players": 2, "bots": "greedy", "episode": "match"})
    assert session.view()["hand_end"] is None
    while session.game.view(0).hands_ended == 0:
        if session.to_act == session.seat:
            moves = legal_moves(session.game)
            kinds = [m["kind"] for m in moves]
            pick = moves[kinds.index("discard")] if "discard" in kinds else moves[0]
            session.move({"action": pick["action"]})
        else:
            session.bot_move()
    view = session.view()
    assert not view["over"] and view["hand_number"] == 2  # the next hand is dealt
    end = view["hand_end"]
    assert end["number"] == 1 and end == session.hand_ends[1]
    alone = Game("argentine", num_players=2, seed=4, episode="hand")
    for action in session.actions:
        alone.step_one(action)
    assert alone.is_over()
    table = table_view(alone)
    assert end["melds"] == table["melds"]
    assert end["hands"] == [s["hand"] for s in table["seats"]]
    v = alone.view(0)
    if end["went_out"] is None:
        assert v.end_reason != END_WENT_OUT and end["reason"]
    else:
        seat = end["went_out"]["seat"]
        assert end["hands"][seat] == [] and end["went_out"]["team"] == seat % 2 == v.went_out
    assert sum(len(h) for h in end["hands"]) > 0  # the other hands, open
    # a restored session (the moves played again) keeps the same final table
    again = PlaySession.restore(
        session.id,
        session.options,
        [
            (p, a, None)
            for p, a in zip(
                [e["seat"] for e in session.log if e["seat"] is not None],
                session.actions,
                strict=True,
            )
        ],
    )
    assert again.view()["hand_end"] == end


# ---------------------------------------------------------------- watching records
def test_watch_steps_and_viewers(client, folders):
    records, _ = folders
    rec = random_record(seed=1)
    sub = records / "tournament"
    sub.mkdir()
    write_records(sub / "games.jsonl", [rec, random_record(seed=2)])
    name = "tournament/games.jsonl"
    assert [f["file"] for f in client.get("/api/records").json()["files"]] == [name]
    game = Game("argentine", seed=1)
    done = 0
    for step in (0, 1, 5, len(rec.actions)):
        for a in rec.actions[done:step]:
            game.step_one(a)
        done = step
        r = client.get("/api/records/view", params={"file": name, "game": 0, "step": step})
        assert r.status_code == 200, r.text
        view = r.json()
        assert (view["step"], view["steps"], view["file"]) == (step, len(rec.actions), name)
        expected = web_json(table_view(game))  # cards in the page's words: 10♥
        assert view["seats"] == expected["seats"] and view["melds"] == expected["melds"]
        assert view["pile"] == expected["pile"] and view["to_act"] == expected["to_act"]
        texts = [(m["text"], m["events"]) for m in view["moves_played"]]
        told = Game("argentine", seed=1)  # the moves in the words of burako replay
        expected = []
        for a in rec.actions:
            narration = play_and_describe(told, a)
            expected.append((web_words(narration.text), [web_words(e) for e in narration.events]))
        assert texts == expected and expected[-1][1][0].startswith("Hand 1 is over")
    seat_view = client.get(
        "/api/records/view", params={"file": name, "step": 3, "viewer": "2"}
    ).json()
    assert [("hand" in s) for s in seat_view["seats"]] == [False, False, True, False]
    assert (view["seed"], view["hand_starts"]) == (str(rec.seed), [0])  # one hand, from move 0
    second = client.get("/api/records/view", params={"file": name, "game": 1}).json()
    assert second["steps"] == len(random_record(seed=2).actions)
    for params, status, message in (
        ({"file": name, "step": len(rec.actions) + 1}, 400, "step must be 0.."),
        ({"file": name, "step": "x"}, 400, "step must be a whole number"),
        ({"file": name, "viewer": "7"}, 400, "viewer must be a seat 0..3"),
        ({"file": name, "viewer": "me"}, 400, "viewer must be 'all' or a seat"),
        ({"file": name, "game": 2}, 404, "holds 2 game(s)"),
        ({}, 400, "name a record file"),
    ):
        r = client.get("/api/records/view", params=params)
        assert r.status_code == status, (params, r.text)
        assert message in r.json()["error"], (params, r.json())


def test_watch_names_where_each_hand_of_a_match_begins(client, folders):
    records, _ = folders
    game = Game("argentine", num_players=2, seed=6, episode="match")
    actions = play_out(game, 6)
    rec = GameRecord(
        variant="argentine",
        num_players=2,
        seed=6,
        index=0,
        seats=["random"] * 2,
        actions=actions,
        scores=[int(v) for v in game.match_scores[0]],
        winner=int(game.winner[0]),
        episode="match",
    )
    write_records(records / "match.jsonl", [rec])
    view = client.get("/api/records/view", params={"file": "match.jsonl"}).json()
    starts = view["hand_starts"]
    assert len(starts) == int(game.state.scalars[0, S_HANDS_ENDED]) > 1 and starts[0] == 0
    for number, step in enumerate(starts, 1):  # hand N begins at its start step
        at = client.get("/api/records/view", params={"file": "match.jsonl", "step": step})
        assert at.json()["hand_number"] == number and at.json()["hands_ended"] == number - 1


def test_corrupt_records_get_a_clear_error(client, folders):
    records, _ = folders
    good = random_record(seed=3)
    after_one = Game("argentine", seed=3)
    after_one.step_one(good.actions[0])
    illegal = next(a for a in range(NUM_ACTIONS) if after_one.why_illegal(a) is not None)
    bad_move = GameRecord(
        **{**good.__dict__, "actions": [good.actions[0], illegal] + good.actions[2:]}
    )
    wrong_score = GameRecord(**{**good.__dict__, "scores": [1, 2]})
    (records / "mixed.jsonl").write_text(
        good.to_json()
        + "\n{broken json\n"
        + bad_move.to_json()
        + "\n"
        + json.dumps({"variant": "argentine", "oops": 1})
        + "\n"
        + wrong_score.to_json()
        + "\n"
    )
    (records / "binary.jsonl").write_bytes(b"\xff\xfe\x00garbage")
    games = client.get("/api/records/games", params={"file": "mixed.jsonl"}).json()["games"]
    assert "header" in games[0]
    assert games[1]["line"] == 2 and "not a game record" in games[1]["error"]
    assert "unknown record fields" in games[3]["error"]
    expect = {
        1: "line 2): not a game record",
        2: f"move 2: P{int(after_one.current_player[0])} plays {illegal} (",
        3: "unknown record fields: ['oops']",
        4: "the replayed scores are",
    }
    for game, message in expect.items():
        r = client.get("/api/records/view", params={"file": "mixed.jsonl", "game": game})
        assert r.status_code == 422, r.text
        assert message in r.json()["error"], (game, r.json())
    assert client.get("/api/records/view", params={"file": "mixed.jsonl"}).status_code == 200
    r = client.get("/api/records/games", params={"file": "binary.jsonl"})
    assert r.status_code == 422 and "cannot read binary.jsonl" in r.json()["error"]


def test_nothing_outside_the_folders_is_served(client, folders, tmp_path):
    records, outside = folders
    write_records(outside / "secret.jsonl", [random_record(seed=4)])
    (records / "link.jsonl").symlink_to(outside / "secret.jsonl")  # a link leading out
    (records / "linked_dir").symlink_to(outside, target_is_directory=True)
    write_records(records / "mine.jsonl", [random_record(seed=4)])
    (records / "notes.txt").write_text("not a record file")
    assert [f["file"] for f in client.get("/api/records").json()["files"]] == ["mine.jsonl"]
    for name in (
        "../outside/secret.jsonl",
        str(outside / "secret.jsonl"),
        "link.jsonl",
        "linked_dir/secret.jsonl",
        "notes.txt",
        "./mine.jsonl",
        "mine.jsonl/../mine.jsonl",
        "/etc/passwd",
    ):
        for route in ("/api/records/games", "/api/records/view"):
            r = client.get(route, params={"file": name})
            assert r.status_code == 404, (name, r.text)
            assert "no record file" in r.json()["error"]
    for path in (
        "/static/../app.py",
        "/static/%2e%2e/app.py",
        "/static/..%2fapp.py",
        "/static/%2e%2e%2f%2e%2e%2fcli.py",
        "/static/__init__.py",
        "/static/",
        "/../pyproject.toml",
        "/static/%2fetc%2fpasswd",
    ):
        r = client.get(path)
        assert r.status_code == 404, path
        assert "import " not in r.text, path  # no source file came back
    assert client.get("/static/app.js").status_code == 200


def test_saving_writes_only_in_the_save_folder(tmp_path):
    save = tmp_path / "saved"
    client = TestClient(create_app(records_dir=None, save_dir=save, bot_delay=0))
    view = play_hand(client, new_game(client, players=2, seed=8))
    name = client.post(f"/api/games/{view['id']}/save").json()["file"]
    assert [p.name for p in save.iterdir()] == [name]  # no temporary file left
    assert client.get("/api/records").json() == {"files": [], "folder": False}
    off = TestClient(create_app(records_dir=None, save_dir=None, bot_delay=0))
    view = play_hand(off, new_game(off, players=2, seed=8))
    r = off.post(f"/api/games/{view['id']}/save")
    assert r.status_code == 409 and "without a folder to save games" in r.json()["error"]


def test_only_local_host_names_are_answered():
    local = TestClient(
        create_app(allowed_hosts=["127.0.0.1", "localhost"]), base_url="http://localhost"
    )
    assert local.get("/api/options").status_code == 200
    other = TestClient(
        create_app(allowed_hosts=["127.0.0.1", "localhost"]), base_url="http://evil.test"
    )
    assert other.get("/api/options").status_code == 400


#: Host headers a page elsewhere sends when its own name is pointed at this machine (DNS
#: rebinding): the browser sends the page's name, never a loopback one
FOREIGN_HOSTS = (
    "evil.example",
    "evil.example:8000",
    "localhost.evil.example:8000",
    "127.0.0.1.evil.example",
    "[::2]:8000",
    "::1",  # an IPv6 address without brackets is no Host header
)


def own_names(host: str) -> list[str]:
    """The Host headers a browser sends for the URL ``burako serve --host host`` prints,
    and for the other local names."""
    own = f"[{host.strip('[]')}]" if ":" in host else host
    return [own, f"{own}:8000", "localhost", "LOCALHOST:8000", "127.0.0.1:8000", "[::1]:8000"]


def assert_only_local_names(app, host: str) -> None:
    client = TestClient(app)
    for name in FOREIGN_HOSTS:
        r = client.get("/api/options", headers={"host": name})
        assert r.status_code == 400, (host, name)
    for name in own_names(host):
        r = client.get("/api/options", headers={"host": name})
        assert r.status_code == 200, (host, name)


@pytest.mark.parametrize("host", ["127.0.0.1", "localhost", "::1", "[::1]", "127.0.0.2"])
def test_serve_on_a_loopback_address_answers_only_local_names(host):
    # the app as `burako serve --host HOST` builds it, without a socket: every form of a
    # loopback address gets the Host check (--host ::1 once had none)
    assert_only_local_names(serve_app(host, records_dir=None, bot_delay=0), host)


@pytest.mark.parametrize("host", ["0.0.0.0", "::", "192.0.2.7"])
def test_serve_opened_to_a_network_answers_any_name(host):
    # README: --host other than a local address opens the server on purpose; it answers
    # whatever name it is reached by
    client = TestClient(serve_app(host, records_dir=None, bot_delay=0))
    for name in ("evil.example:8000", "burako.lan", "192.0.2.7:8000"):
        assert client.get("/api/options", headers={"host": name}).status_code == 200


@pytest.mark.parametrize("host", ["127.0.0.1", "localhost", "::1"])
def test_serve_command_checks_the_host_header(host, tmp_path, monkeypatch):
    """`burako serve --host HOST --port 0` itself: the app it hands to uvicorn refuses a
    foreign Host and answers its own (uvicorn's loop is replaced, nothing is served)."""
    import uvicorn

    if host == "::1" and not socket.has_ipv6:
        pytest.skip("no IPv6 on this machine")
    apps = []

    def run(self, sockets=None):
        apps.append(self.config.app)
        for sock in sockets or ():
            sock.close()

    monkeypatch.setattr(uvicorn.Server, "run", run)
    r = CliRunner().invoke(
        cli_app, ["serve", "--host", host, "--port", "0", "--records", str(tmp_path)]
    )
    if host == "::1" and "cannot listen" in r.output:
        pytest.skip("cannot bind ::1 here")
    assert r.exit_code == 0, r.output
    assert_only_local_names(apps[0], host)


def test_serve_leaves_the_host_programs_log_handlers_open(tmp_path, monkeypatch):
    """uvicorn's own log config (dictConfig) closes every handler the process has, and
    absl's handler (OpenSpiel's, RLlib's) closes its stream when closed: the host
    program's stderr, seen as 'I/O operation on closed file' after `burako serve` ran in
    a process that had imported OpenSpiel. serve configures no logging of its own."""
    import io
    import logging

    import uvicorn

    class ClosesItsStream(logging.StreamHandler):  # as absl.logging.PythonHandler does
        def close(self):
            self.stream.close()
            super().close()

    stream = io.StringIO()
    handler = ClosesItsStream(stream)
    logging.getLogger("burako-test-host").addHandler(handler)
    monkeypatch.setattr(uvicorn.Server, "run", lambda self, sockets=None: None)
    try:
        r = CliRunner().invoke(cli_app, ["serve", "--port", "0", "--records", str(tmp_path)])
        assert r.exit_code == 0, r.output
        assert not stream.closed
    finally:
        logging.getLogger("burako-test-host").removeHandler(handler)


def test_store_drops_only_a_clients_own_games():
    """A browser's new game drops its own oldest past per_client, never another's; past
    max_games a new game takes a finished or idle game's place, else it is a 503."""
    now = [0.0]
    store = SessionStore(max_games=3, per_client=2, idle_seconds=60, clock=lambda: now[0])
    games = [PlaySession.new({"seed": s, "bots": "random", "players": 2}) for s in range(6)]
    store.add(games[0], "alice")
    store.add(games[1], "bob")
    store.add(games[2], "bob")
    store.add(games[3], "bob")  # bob's own oldest goes
    with pytest.raises(SessionError, match="no game") as err:
        store.get(games[1].id)
    assert err.value.status == 404
    assert store.get(games[0].id) is games[0]
    with pytest.raises(SessionError, match="most games") as err:  # all 3 in play
        store.add(games[4], "carol")
    assert err.value.status == 503
    assert len(store) == 3 and store.get(games[2].id) is games[2]
    now[0] = 30.0
    store.get(games[2].id)  # bob plays on; alice's game and bob's other wait
    store.get(games[3].id)
    now[0] = 75.0  # alice's game idle 75 s: carol's takes its place
    store.add(games[4], "carol")
    with pytest.raises(SessionError, match="no game"):
        store.get(games[0].id)
    assert store.get(games[2].id) is games[2] and store.get(games[3].id) is games[3]
    play_out(games[2].game)  # a finished game makes room at once
    store.add(games[5], "dave")
    with pytest.raises(SessionError, match="no game"):
        store.get(games[2].id)


def test_another_browser_cannot_drop_my_game(folders):
    """Over the app: each browser gets an HttpOnly SameSite=Strict cookie; a flood of new
    games from other browsers is refused (503) instead of ending my game in play."""
    records, _ = folders
    app = create_app(records_dir=records, bot_delay=0, max_games=3)
    me, other = TestClient(app), TestClient(app)
    r = me.post("/api/games", json={"seed": 1, "bots": "random", "players": 2})
    assert r.status_code == 201
    cookie = r.headers.get("set-cookie", "").lower()
    mine = r.json()["id"]
    for seed in range(10):  # one browser: it keeps its own games (up to 8)
        r = other.post("/api/games", json={"seed": seed, "bots": "random", "players": 2})
        assert r.status_code in (201, 503), r.text
    assert r.status_code == 503 and "most games" in r.json()["error"]
    for seed in range(3):  # cookieless clients, each a new browser
        r = TestClient(app).post("/api/games", json={"seed": seed, "players": 2})
        assert r.status_code == 503, r.text
    assert me.get(f"/api/games/{mine}").status_code == 200
    assert "burako_client=" in cookie and "httponly" in cookie and "samesite=strict" in cookie


def test_store_drops_the_least_recently_used_game_not_the_oldest():
    """Using a game (``get``) makes it the most recently used: past ``per_client`` (and
    ``per_address``) the owner's least recently used goes, and past ``max_games`` the
    least recently used idle one, whatever order the games were started in."""
    now = [0.0]
    store = SessionStore(
        max_games=5, per_client=3, idle_seconds=60, clock=lambda: now[0], per_address=2
    )
    games = [PlaySession.new({"seed": s, "bots": "random", "players": 2}) for s in range(9)]

    def kept() -> set[int]:
        return {k for k, g in enumerate(games) if g.id in store._games}

    for k in (0, 1, 2):
        store.add(games[k], "alice")
    store.get(games[0].id)  # alice's oldest played last: 1 is her least recently used now
    store.add(games[3], "alice")
    assert kept() == {0, 2, 3}
    store.get(games[2].id)
    store.add(games[4], "alice")  # 0 is least recently used: 3 was started after it
    assert kept() == {2, 3, 4}
    store.add(games[5], "given-5", address="10.0.0.9")  # cookie-less: the address's own
    store.add(games[6], "given-6", address="10.0.0.9")
    store.get(games[5].id)  # no cookie: still the address's, now its most recently used
    store.add(games[7], "given-7", address="10.0.0.9")
    assert kept() == {2, 3, 4, 5, 7}
    now[0] = 100.0  # every game idle; the least recently used of them makes room
    for k in (3, 7, 2, 4):
        store.get(games[k].id)
    store.add(games[8], "bob")
    assert kept() == {2, 3, 4, 7, 8}  # 5 went: used at 0 s, the others at 100 s


def test_a_cookieless_flood_cannot_block_the_browser(folders):
    """Issue 59.6: requests without a cookie were each a new browser, so a script that
    drops its cookies filled the server (198 games, then 503s for 30 minutes). Now they
    count per address, apart from the browsers: the flood replaces its own games, and the
    browser on the same address (a loopback server) keeps its games and starts new ones.
    A cookie the server did not give (made up, or from before a restart) is no cookie."""
    records, _ = folders
    app = create_app(records_dir=records, bot_delay=0, max_games=20)
    store = app.state.store
    me = TestClient(app)
    r = me.post("/api/games", json={"seed": 1, "bots": "random", "players": 2})
    assert r.status_code == 201 and me.cookies.get("burako_client")
    mine = r.json()["id"]
    assert me.get(f"/api/games/{mine}").status_code == 200  # the page reads it back
    flood = []
    for k in range(3 * store.max_games):
        made_up = {"burako_client": f"{k:048x}"} if k % 2 else {}  # forged, or none at all
        r = TestClient(app, cookies=made_up).post("/api/games", json={"players": 2})
        assert r.status_code == 201, (k, r.text)
        flood.append(r.json()["id"])
    assert len(store) == 1 + store.per_address  # the flood holds its address's share only
    assert TestClient(app).get(f"/api/games/{flood[0]}").status_code == 404
    assert me.get(f"/api/games/{mine}").status_code == 200
    for seed in range(store.per_client - 1):  # my browser's own room is all there
        r = me.post("/api/games", json={"seed": seed, "bots": "random", "players": 2})
        assert r.status_code == 201, r.text
    assert me.get(f"/api/games/{mine}").status_code == 200


# ---------------------------------------------------------------- hostile clients
def test_a_page_of_another_site_cannot_post(client):
    """A cross-site "simple" POST (text/plain, no preflight) used to start games; now a
    foreign Origin or Sec-Fetch-Site is a 403 and a body not sent as JSON a 415."""
    view = new_game(client, players=2, bots="random")
    body = json.dumps({"seed": 1}).encode()
    for headers in (
        {"origin": "http://evil.example", "content-type": "text/plain"},
        {"origin": "http://evil.example", **JSON},
        {"origin": "null", **JSON},  # a sandboxed frame, a file:// page
        {"origin": "http://testserver:8080", **JSON},  # another port: another origin
        {"origin": "https://testserver", **JSON},
        {"sec-fetch-site": "cross-site", **JSON},
        {"sec-fetch-site": "same-site", **JSON},
    ):
        for path in ("/api/games", f"/api/games/{view['id']}/bot"):
            r = client.post(path, content=body, headers=headers)
            assert r.status_code == 403, (headers, path, r.text)
            assert "another site" in r.json()["error"]
    assert client.get(f"/api/games/{view['id']}").json() == view  # nothing moved
    for kind in ("text/plain", "application/x-www-form-urlencoded", "multipart/form-data"):
        r = client.post("/api/games", content=body, headers={"content-type": kind})
        assert r.status_code == 415 and "application/json" in r.json()["error"], kind
    for headers in (  # the page itself: its own origin, same-origin fetch metadata
        {"origin": "http://testserver", **JSON},
        {"origin": "http://TestServer:80", "sec-fetch-site": "same-origin", **JSON},
        {"content-type": "application/json; charset=utf-8"},
    ):
        r = client.post("/api/games", content=body, headers=headers)
        assert r.status_code == 201, (headers, r.text)
    # the page's script sends its bodies as JSON, and reads only same-origin URLs
    script = (ROOT / "burako_env/frontends/web/static/app.js").read_text()
    assert 'init.headers["Content-Type"] = "application/json"' in script
    assert "init.body = JSON.stringify(body)" in script


async def asgi_call(app, method: str, path: str, chunks=(), headers=None) -> tuple:
    """One request straight through the ASGI app, its body sent in ``chunks``; returns
    ``(status, JSON answer, how many chunks the app read)``."""
    sent = []
    pending = list(chunks)
    read = 0

    async def receive():
        nonlocal read
        if pending:
            read += 1
            return {"type": "http.request", "body": pending.pop(0), "more_body": bool(pending)}
        if read == 0:
            read = -1
            return {"type": "http.request", "body": b"", "more_body": False}
        await asyncio.sleep(3600)  # the client waits for the answer

    async def send(message):
        sent.append(message)

    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": method,
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "root_path": "",
        "headers": [(b"host", b"testserver")]
        + [(k.encode(), v.encode()) for k, v in (headers or {}).items()],
        "client": ("127.0.0.1", 5000),
        "server": ("testserver", 80),
    }
    await app(scope, receive, send)
    status = next(m["status"] for m in sent if m["type"] == "http.response.start")
    body = b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")
    return status, json.loads(body) if body else None, max(read, 0)


def test_a_body_is_read_only_up_to_the_limit():
    """A big body used to be read whole before the 16 KiB check (200 MB: +380 MB RSS):
    now reading stops past the limit, whether Content-Length is absent (chunked), lies
    or tells the truth."""
    app = create_app(records_dir=None, bot_delay=0)
    chunk = b" " * 4096
    for headers in (
        JSON,  # chunked: no length
        {**JSON, "content-length": "20"},  # a lie
        {**JSON, "transfer-encoding": "chunked"},
    ):
        status, answer, read = asyncio.run(
            asgi_call(app, "POST", "/api/games", [chunk] * 1000, headers)
        )
        assert status == 413 and "over 16384 bytes" in answer["error"], headers
        assert read <= 16384 // 4096 + 1, (headers, read)
    status, answer, read = asyncio.run(  # an honest large length: nothing read at all
        asgi_call(app, "POST", "/api/games", [chunk] * 1000, {**JSON, "content-length": "4096000"})
    )
    assert status == 413 and read == 0


def test_hostile_json_gets_a_400_not_a_500(client):
    """Deep nesting, numbers of thousands of digits, a seed past 64 bits: each a 400
    with a message (they were 500s with tracebacks)."""
    client = TestClient(client.app, raise_server_exceptions=False)
    view = new_game(client, players=2, bots="random")
    move = f"/api/games/{view['id']}/move"
    for path, body in (
        ("/api/games", b"[" * 10_000),
        ("/api/games", b'{"seed": ' + b"[" * 5000 + b"]" * 5000 + b"}"),
        ("/api/games", b'{"seed": 1' + b"0" * 5000 + b"}"),
        ("/api/games", b'{"seed": 1' + b"0" * 4000 + b"}"),
        ("/api/games", b'{"seed": 18446744073709551616}'),
        (move, b"[" * 10_000),
        (move, b'{"action": 1' + b"0" * 5000 + b"}"),
        (move, b'{"kind": "open", "cards": ' + b"[" * 1000 + b"]" * 1000 + b"}"),
    ):
        r = client.post(path, content=body, headers=JSON)
        assert r.status_code == 400, (path, body[:40], r.status_code, r.text[:200])
        assert r.json()["error"], body[:40]
    assert client.get(f"/api/games/{view['id']}").json() == view


@pytest.mark.parametrize("delay", [float("nan"), float("inf"), -1.0, 61.0, "1"])
def test_bot_delay_must_be_finite_and_bounded(delay):
    """--bot-delay nan made every page's options a 500; now it is refused at once."""
    with pytest.raises(ValueError, match="bot delay must be"):
        create_app(records_dir=None, bot_delay=delay)
    if isinstance(delay, float):
        r = CliRunner().invoke(cli_app, ["serve", "--bot-delay", str(delay)])
        assert r.exit_code == 2 and "--bot-delay must be 0..60 seconds" in r.output, r.output


def test_bots_move_off_the_event_loop_one_request_per_game(monkeypatch):
    """A slow bot (ppo, pimc) used to run on the event loop and stall every page: now
    bot moves of two games run at once in worker threads, and two requests on one game
    still never overlap (its lock)."""
    import threading

    app = create_app(records_dir=None, bot_delay=0)
    loop_thread = threading.get_ident()
    threads, inside, most = set(), [0], [0]
    both_started = threading.Barrier(2, timeout=5)
    met = []
    guard = threading.Lock()
    real_bot_move = PlaySession.bot_move

    def slow_bot_move(self, after=None):
        threads.add(threading.get_ident())
        with guard:
            inside[0] += 1
            most[0] = max(most[0], inside[0])
        try:
            if self.seed in (1, 2):  # games 1 and 2 wait for each other: only threads meet
                try:
                    both_started.wait()
                    met.append(self.seed)
                except threading.BrokenBarrierError:
                    pass
            else:
                time.sleep(0.2)
            return real_bot_move(self, after)
        finally:
            with guard:
                inside[0] -= 1

    monkeypatch.setattr(PlaySession, "bot_move", slow_bot_move)

    async def scenario():
        ids = {}
        for seed in (1, 2, 3):
            body = json.dumps({"seed": seed, "bots": "random", "players": 2, "seat": 1})
            status, view, _ = await asgi_call(app, "POST", "/api/games", [body.encode()], JSON)
            assert status == 201 and view["to_act"] == 0, view
            ids[seed] = view["id"]
        await asyncio.gather(*(asgi_call(app, "POST", f"/api/games/{ids[s]}/bot") for s in (1, 2)))
        most[0] = 0  # now the same game twice, and a read while its bot moves
        answers = await asyncio.gather(
            asgi_call(app, "POST", f"/api/games/{ids[3]}/bot"),
            asgi_call(app, "POST", f"/api/games/{ids[3]}/bot"),
            asgi_call(app, "GET", f"/api/games/{ids[3]}"),
        )
        return answers

    answers = asyncio.run(scenario())
    assert sorted(met) == [1, 2], "the two games' bots did not run at the same time"
    assert loop_thread not in threads
    assert most[0] == 1, "two requests moved one game at once"
    assert answers[0][0] == 200 and answers[1][0] in (200, 409)


def test_ppo_bots_share_one_loaded_policy(monkeypatch):
    """Each new game used to load the policy again (RSS 251 -> 731 MB over a few games):
    the bots of every game now read one network per policy file, in eval mode."""
    pytest.importorskip("torch")
    from burako_env.agents import ppo_agent

    loads = []
    real_load = ppo_agent.load_network

    def counted_load(path):
        loads.append(str(path))
        return real_load(path)

    monkeypatch.setattr(ppo_agent, "load_network", counted_load)
    app = create_app(records_dir=None, bot_delay=0)
    client = TestClient(app)
    for seed in (1, 2, 3):
        r = client.post("/api/games", json={"seed": seed, "bots": "ppo"})
        assert r.status_code == 201, r.text
        view = my_turn(client, r.json())  # the bots play
    assert len(loads) == 1, f"the policy was loaded {len(loads)} times for 3 games"
    nets = [
        agent.net
        for session, *_ in app.state.store._games.values()
        for agent in session.bots.values()
    ]
    assert len(nets) == 9 and all(net is nets[0] for net in nets)
    assert not nets[0].training and view["id"]


def test_load_script_smoke():
    """scripts/bench/web_load.py: a few clients against a real server, games in memory and
    in SQLite side by side; the comparison's medians and ratios."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "web_load", ROOT / "scripts" / "bench" / "web_load.py"
    )
    web_load = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(web_load)
    runs = web_load.main(
        "--clients 3 --seconds 1.5 --bots random --players 2 --store memory sqlite".split()
    )
    assert [figures["store"] for figures in runs] == ["memory", "sqlite"]
    for figures in runs:
        assert figures["requests"] > 0 and figures["requests_per_s"] > 0
        assert set(figures["statuses"]) <= {200, 201}, figures
        assert 0 < figures["p50_ms"] <= figures["p99_ms"] <= figures["max_ms"]
        assert figures["rss_peak_mb"] >= figures["rss_before_mb"] > 0
    table = web_load.compare(runs + [{**runs[1], "p99_ms": 3 * runs[1]["p99_ms"]}])
    assert table["memory"]["p99_ratio"] == 1.0
    # the median of the sqlite store's two p99s (x1 and x3): twice its own
    want = round(2 * runs[1]["p99_ms"] / runs[0]["p99_ms"], 3)
    assert table["sqlite"]["p99_ratio"] == pytest.approx(want, abs=0.002)
    with pytest.raises(ValueError, match="--store postgres needs --db"):
        web_load.store_options("postgres", None)


# ----------------------------------------------------------------------------- the command
def test_serve_command_errors(tmp_path):
    runner = CliRunner()
    a_file = tmp_path / "file.jsonl"
    a_file.write_text("")
    for args, message in (
        (["--records", str(a_file)], "--records"),
        (["--port", "70000"], "--port must be 0..65535"),
        (["--bot-delay", "-1"], "--bot-delay must be 0..60 seconds"),
    ):
        r = runner.invoke(cli_app, ["serve", *args])
        assert r.exit_code == 2, (args, r.output)
        assert "error:" in r.output and message in r.output
    r = runner.invoke(cli_app, ["serve", "--help"])
    assert r.exit_code == 0 and "--records" in r.output
    assert "serve" in runner.invoke(cli_app, ["--help"]).output
    with socket.socket() as busy:  # a port already taken: a clear error, not a traceback
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        r = runner.invoke(cli_app, ["serve", "--port", str(port), "--records", str(tmp_path)])
    assert r.exit_code == 2 and f"error: cannot listen on 127.0.0.1:{port}" in r.output


# ---------------------------------------------------------------- friends at the table
def _observed_hand(game: Game, seat: int) -> list[int]:
    """The hand in ``seat``'s observation (the engine's own, what an agent reads)."""
    obs = game.observe_one(seat)
    counts = obs[game.layout.hand : game.layout.hand + NUM_CARD_TYPES]
    return sorted(c for c in range(NUM_CARD_TYPES) for _ in range(int(counts[c])))


def _check_seen_by(answer: dict, session: PlaySession, seat: int) -> None:
    """An answer to the browser at ``seat`` is the table as that seat sees it: its own
    hand, the one in its observation, and no other hand while the game is live; every
    field of the table the one :func:`table_view` draws for that seat."""
    game = session.game
    assert answer["seat"] == seat and answer["move_count"] == len(session.actions)
    assert sorted(answer["seats"][seat]["hand"]) == _observed_hand(game, seat)
    if game.is_over():
        return
    assert [("hand" in s) for s in answer["seats"]] == [p == seat for p in range(game.num_players)]
    drawn = web_json(table_view(game, viewer=seat))
    assert {k: answer[k] for k in drawn} == drawn
    assert answer["moves"] == ([] if session.to_act != seat else web_json(legal_moves(game)))
    assert answer["names"][seat] == "you"


def _friends_table(app, people: list[int], seat: int = 0, **options):
    """A game of ``people`` started by a browser at ``seat``, every other person seat
    joined by a browser of its own: ``(view, {seat: client})``."""
    creator = TestClient(app)
    body = {"seed": 5, "bots": "greedy", "seat": seat, "people": people, **options}
    r = creator.post("/api/games", json=body)
    assert r.status_code == 201, r.text
    view = r.json()
    links = {link["seat"]: link for link in view["links"]}
    assert sorted(links) == sorted(people) and links[seat]["yours"]
    assert all(len(link["token"]) == 32 for link in links.values())
    browsers = {seat: creator}
    for p in people:
        if p != seat:
            browsers[p] = TestClient(app)
            r = browsers[p].post(f"/api/games/{view['id']}/join", json={"token": links[p]["token"]})
            assert r.status_code == 200, r.text
            assert r.json()["seat"] == p
    return view, browsers


@pytest.mark.parametrize(
    "people", [[0, 2], [1, 0], [0, 1, 2, 3]], ids=["partners", "opponents", "four"]
)
def test_friends_each_see_only_their_own_hand_on_every_answer(people):
    """Issue 57.2: people at one table, partners or opponents, each by a browser of its
    own; every answer of every seat (its moves, the bots' moves, its reloads) is that
    seat's view: its own hand, the one its observation holds, other hands as counts.
    The bots' moves are asked with ``after=N`` by whichever browser comes first."""
    app = create_app(records_dir=None, bot_delay=0)
    view, browsers = _friends_table(app, people, seat=people[0])
    gid = view["id"]
    session = app.state.store.get(gid)
    assert session.people == tuple(sorted(people))
    checked = 0
    while not session.game.is_over():
        p = session.to_act
        for seat, browser in browsers.items():  # every seat reloads: its own view
            _check_seen_by(browser.get(f"/api/games/{gid}").json(), session, seat)
            checked += 1
        if p in browsers:
            mine = browsers[p].get(f"/api/games/{gid}").json()
            kinds = [m["kind"] for m in mine["moves"]]
            pick = mine["moves"][kinds.index("discard") if "discard" in kinds else 0]
            r = browsers[p].post(f"/api/games/{gid}/move", json={"action": pick["action"]})
            assert r.status_code == 200, r.text
            _check_seen_by(r.json(), session, p)
        else:
            asker = sorted(browsers)[len(session.actions) % len(browsers)]
            r = browsers[asker].post(f"/api/games/{gid}/bot?after={len(session.actions)}")
            assert r.status_code == 200, r.text
            _check_seen_by(r.json(), session, asker)
        checked += 1
    for browser in browsers.values():  # the end: every hand open, to every seat
        final = browser.get(f"/api/games/{gid}").json()
        assert final["over"] and all("hand" in s for s in final["seats"])
    assert checked > 100
    assert sum(e.get("seat") in browsers for e in session.log) > 5  # the people moved


def test_a_hint_is_seen_only_by_the_seat_that_asked():
    """A hint is read from the asking seat's hand: a partner's answers never carry it."""
    app = create_app(records_dir=None, bot_delay=0)
    view, browsers = _friends_table(app, [0, 2], bots="greedy")
    gid = view["id"]
    session = app.state.store.get(gid)
    while session.to_act != 0:  # the bots, and the partner, move until P0 is to act
        asker = 2 if session.to_act == 2 else 0
        if session.to_act == 2:
            moves = browsers[2].get(f"/api/games/{gid}").json()["moves"]
            kinds = [m["kind"] for m in moves]
            pick = moves[kinds.index("discard") if "discard" in kinds else 0]
            r = browsers[2].post(f"/api/games/{gid}/move", json={"action": pick["action"]})
        else:
            r = browsers[asker].post(f"/api/games/{gid}/bot?after={len(session.actions)}")
        assert r.status_code == 200, r.text
    r = browsers[2].post(f"/api/games/{gid}/hint")
    assert r.status_code == 409 and "not your turn" in r.json()["error"]
    hint = browsers[0].post(f"/api/games/{gid}/hint")
    assert hint.status_code == 200, hint.text
    assert browsers[0].get(f"/api/games/{gid}").json()["hint"] == hint.json()
    assert browsers[2].get(f"/api/games/{gid}").json()["hint"] is None


def test_friends_options_are_checked():
    client = TestClient(create_app(records_dir=None, bot_delay=0))
    cases = {
        "people must be a list": {"people": 2},
        "people must be a list of the seats persons hold (1 to 4": {"people": []},
        "people must be a list of the seats persons hold (1 to 4 seats": {"people": [0] * 5},
        "each seat must be 0..3 for 4 players, got 4": {"people": [0, 4]},
        "each seat must be 0..3 for 4 players, got True": {"people": [0, True]},
        "seat 2 is named twice": {"people": [0, 2, 2]},
        "people must include your own seat 1": {"seat": 1, "people": [0, 2]},
        "a list of 2 names (one for each seat no person holds: P1, P3)": {
            "people": [0, 2],
            "bots": ["greedy"] * 3,
        },
    }
    for message, options in cases.items():
        r = client.post("/api/games", json={"seed": 5, "bots": "greedy", **options})
        assert r.status_code == 400, (options, r.text)
        assert message in r.json()["error"], (options, r.text)
    # every seat a person's: no bot at all
    r = client.post("/api/games", json={"seed": 5, "players": 2, "people": [0, 1]})
    assert r.status_code == 201, r.text
    assert r.json()["names"] == ["you", "friend"]


def test_a_wrong_seat_token_or_no_seat_is_refused():
    """The game's id opens no seat of a table with friends: a request needs a seat's
    cookie, given for a seat's token only (a made-up cookie is none)."""
    app = create_app(records_dir=None, bot_delay=0)
    view, browsers = _friends_table(app, [0, 2])
    gid = view["id"]
    other, _ = _friends_table(app, [0, 1])
    stranger = TestClient(app)
    for token in ("0" * 32, "", other["links"][1]["token"], 7):
        r = stranger.post(f"/api/games/{gid}/join", json={"token": token})
        assert r.status_code in (400, 403), r.text
        assert "token" in r.json()["error"]
    for method, path in (
        ("GET", ""),
        ("POST", "/move"),
        ("POST", "/bot"),
        ("POST", "/hint"),
        ("GET", "/thinking?move=1"),
    ):
        r = stranger.request(method, f"/api/games/{gid}{path}", json={"action": 0})
        assert r.status_code == 403, (path, r.text)
        assert "open your seat's link" in r.json()["error"]
    # a forged cookie: a seat and a count, signed by nobody
    stranger.cookies.set(f"burako_seat_{gid}", "2.1." + "0" * 24, path=f"/api/games/{gid}")
    assert stranger.get(f"/api/games/{gid}").status_code == 403
    # a game of one person is as before: its id is its key
    solo = new_game(TestClient(app))
    assert stranger.get(f"/api/games/{solo['id']}").status_code == 200
    r = stranger.post(f"/api/games/{solo['id']}/join", json={"token": "0" * 32})
    assert r.status_code == 403


def _first_to_act(seed: int = 5, players: int = 4) -> int:
    return int(Game("argentine", num_players=players, seed=seed).current_player[0])


def test_a_move_by_the_wrong_seat_is_refused_and_changes_nothing():
    first = _first_to_act()
    other = (first + 1) % 4  # an opponent of the seat to act
    app = create_app(records_dir=None, bot_delay=0)
    view, browsers = _friends_table(app, [first, other], seat=first)
    gid = view["id"]
    session = app.state.store.get(gid)
    assert session.to_act == first
    before = copy_state(session.game.state)
    moves_before, log_before = list(session.actions), list(session.log)
    legal = [m["action"] for m in browsers[first].get(f"/api/games/{gid}").json()["moves"]]
    assert legal and browsers[other].get(f"/api/games/{gid}").json()["moves"] == []
    for body in ({"action": legal[0]}, {"kind": "draw"}):
        r = browsers[other].post(f"/api/games/{gid}/move", json=body)
        assert r.status_code == 409, r.text
        assert f"it is P{first}'s turn (a friend), not yours" in r.json()["error"]
    r = TestClient(app).post(f"/api/games/{gid}/move", json={"action": legal[0]})
    assert r.status_code == 403
    r = browsers[other].post(f"/api/games/{gid}/bot")  # a person is to act: no bot moves
    assert r.status_code == 409 and "a person" in r.json()["error"]
    assert states_equal(before, session.game.state)
    assert session.actions == moves_before and session.log == log_before
    r = browsers[first].post(f"/api/games/{gid}/move", json={"action": legal[0]})
    assert r.status_code == 200, r.text


def test_a_seat_left_and_taken_again_from_another_device():
    """A seat's link used again (another device) moves the seat there: the browser that
    held it is refused, and takes it back with the link; the creator's own link moves
    the creator's seat the same way."""
    app = create_app(records_dir=None, bot_delay=0)
    view, browsers = _friends_table(app, [0, 2])
    gid = view["id"]
    links = {link["seat"]: link["token"] for link in view["links"]}
    phone = TestClient(app)
    r = phone.post(f"/api/games/{gid}/join", json={"token": links[2]})
    assert r.status_code == 200 and r.json()["seat"] == 2
    assert phone.get(f"/api/games/{gid}").json()["seat"] == 2
    r = browsers[2].get(f"/api/games/{gid}")
    assert r.status_code == 403 and "taken with its link on another device" in r.json()["error"]
    assert browsers[2].post(f"/api/games/{gid}/join", json={"token": links[2]}).status_code == 200
    assert browsers[2].get(f"/api/games/{gid}").json()["seat"] == 2
    assert phone.get(f"/api/games/{gid}").status_code == 403
    laptop = TestClient(app)  # the creator comes back elsewhere with their own link
    assert laptop.post(f"/api/games/{gid}/join", json={"token": links[0]}).json()["seat"] == 0
    assert browsers[0].get(f"/api/games/{gid}").status_code == 403
    assert browsers[2].get(f"/api/games/{gid}").json()["seat"] == 2  # the partner kept theirs


def test_a_bot_move_after_n_is_played_once():
    """Browsers at one table poll for the same bot move: ``after=N`` plays it only when
    the game has N moves, so two requests never play two moves."""
    bot = _first_to_act()
    a, b = (bot + 1) % 4, (bot + 3) % 4  # partners, the bot to act between them
    app = create_app(records_dir=None, bot_delay=0)
    view, browsers = _friends_table(app, [a, b], seat=a)
    gid = view["id"]
    session = app.state.store.get(gid)
    assert session.to_act == bot
    first = browsers[a].post(f"/api/games/{gid}/bot?after=0")
    second = browsers[b].post(f"/api/games/{gid}/bot?after=0")
    assert first.status_code == second.status_code == 200
    assert len(session.actions) == 1
    assert first.json()["move_count"] == second.json()["move_count"] == 1
    assert second.json()["seat"] == b and "hand" not in second.json()["seats"][a]
    r = browsers[a].post(f"/api/games/{gid}/bot?after=7")  # not this position: no move
    assert r.status_code == 200 and len(session.actions) == 1
    r = browsers[a].post(f"/api/games/{gid}/bot?after=x")
    assert r.status_code == 400 and "after must be a whole number" in r.json()["error"]


def test_serve_public_listens_on_every_address(tmp_path, monkeypatch):
    """--public binds 0.0.0.0 (any Host name answered, the same-origin check kept) and
    says what it exposes; it and --host contradict each other."""
    import burako_env.frontends.web as web

    seen = {}
    monkeypatch.setattr(web, "serve", lambda **kw: seen.update(kw))
    records = ["--records", str(tmp_path), "--memory"]
    r = CliRunner().invoke(cli_app, ["serve", "--public", *records])
    assert r.exit_code == 0, r.output
    assert seen["host"] == "0.0.0.0"
    assert "no TLS" in r.output and "keep the links secret" in r.output
    seen.clear()
    r = CliRunner().invoke(cli_app, ["serve", *records])
    assert r.exit_code == 0 and seen["host"] == "127.0.0.1"
    r = CliRunner().invoke(cli_app, ["serve", "--public", "--host", "10.0.0.1", *records])
    assert r.exit_code == 2 and "give --public or --host, not both" in r.output
    app = serve_app("0.0.0.0", records_dir=None)
    client = TestClient(app, base_url="http://192.0.2.7:8000")
    assert client.get("/api/options").status_code == 200
    r = client.post("/api/games", json={}, headers={"origin": "http://evil.example"})
    assert r.status_code == 403


def test_every_seats_session_view_is_what_its_observation_holds():
    """The JSON-vs-observation check of ``test_views_show_a_seat_only_what_its_observation_holds``
    on the answers themselves (:meth:`PlaySession.view`, the log, names, moves and hint
    included), for every seat of a table where every seat is a person's: a re-deal of
    every card hidden from a seat (the same observation) gives that seat the same answer;
    and a game replayed from its stored moves (a restart) answers every seat alike."""
    session = PlaySession.new({"seed": 9, "players": 4, "people": [0, 1, 2, 3]})
    agent = make_agent("greedy", seed=9)
    stored = []
    compared = 0
    for move in range(300):
        game = session.game
        if game.is_over():
            break
        if move % 7 == 0:
            live = game
            for seat in range(4):
                seen = session.view(seat)
                session.game = live.determinize(seat, move + seat)
                assert np.array_equal(live.observe_one(seat), session.game.observe_one(seat)), seat
                assert session.view(seat) == seen, (move, seat)
                session.game = live
                compared += 1
            again = PlaySession.restore(session.id, session.options, stored)
            assert [again.view(p) for p in range(4)] == [session.view(p) for p in range(4)]
        seat = session.to_act
        action = int(agent.act_game(game))
        session.move({"action": action}, seat)
        stored.append((seat, action, None))
    assert compared > 40


# ---------------------------------------------------------------- the hint for a player
def test_the_hint_answers_advice_cards_and_the_turns_plan(client):
    """``POST /hint`` carries the advice in words (the pick first), the cards of the
    person's hand it moves, and Expert's plan for the turn: played move by move, each
    next hint is the plan's next move; the table's ``hint`` is gone after a move."""
    from collections import Counter

    view = my_turn(client, new_game(client, seed=3, bots="easy", players=2))
    gid = view["id"]
    followed = 0
    for _ in range(30):
        if view["over"] or followed >= 3:
            break
        hint = client.post(f"/api/games/{gid}/hint").json()
        choice = hint["choice"]["text"]
        assert hint["advice"].startswith(choice[:1].upper() + choice[1:] + ": ")
        assert "points for your team" in hint["advice"] or "only move" in hint["advice"]
        assert "deals of the cards you cannot see" in hint["advice_note"] or not hint["candidates"]
        assert not Counter(hint["cards"]) - Counter(hand_of(view))  # cards of the hand only
        assert hint["cards"] == hint_cards(hint["choice"]["action"])
        plan = hint["plan"]
        assert plan[0] == {
            "action": hint["choice"]["action"],
            "text": choice,
            "cards": hint["cards"],
        }
        assert isinstance(hint["plan_end"], str) and hint["plan_end"]
        assert client.get(f"/api/games/{gid}").json()["hint"] == hint
        view = client.post(f"/api/games/{gid}/move", json={"action": plan[0]["action"]}).json()
        assert view["hint"] is None  # the hint goes with the move
        if len(plan) > 1 and view["to_act"] == view["seat"]:
            nxt = client.post(f"/api/games/{gid}/hint").json()
            assert nxt["choice"]["action"] == plan[1]["action"]
            assert nxt["plan"] == plan[1:]
            followed += 1
        view = my_turn(client, view)
    assert followed >= 1


@pytest.mark.parametrize("value", ["no", 0, 1, None, "false", [False]])
def test_bot_estimates_must_be_a_bool(client, value):
    r = client.post("/api/games", json={"seed": 5, "bots": "easy", "bot_estimates": value})
    assert r.status_code == 400, r.text
    assert "bot_estimates must be true" in r.json()["error"]
    assert repr(value) in r.json()["error"]


def _bot_turns(client, **options) -> tuple[PlaySession, list[dict]]:
    """An Expert table played by the person's first legal moves for a few rounds; the
    views the person was sent."""
    view = new_game(client, seed=5, bots="expert", players=2, **options)
    views = [view]
    for _ in range(30):
        if view["over"]:
            break
        if view["to_act"] != view["seat"]:
            view = client.post(f"/api/games/{view['id']}/bot").json()
        else:
            view = client.post(
                f"/api/games/{view['id']}/move", json={"action": view["moves"][0]["action"]}
            ).json()
        views.append(view)
    return client.app.state.store.get(view["id"]), views


def test_hidden_bot_estimates_are_never_sent(client):
    """``bot_estimates: false``: no answer carries a bot's thinking (the table's, the log's
    marks, ``/thinking``), none is kept; the same game with the setting on has them. The
    person's hint is no bot's: it stays."""
    shown, views_on = _bot_turns(client)
    assert any(v["thinking"] for v in views_on) and shown.thinking
    assert all(v["bot_estimates"] is True for v in views_on)
    hidden, views_off = _bot_turns(client, bot_estimates=False)
    bots = [e for e in views_off[-1]["log"] if e["seat"] is not None and e["seat"] != 0]
    assert len(bots) > 3  # (Expert's time budget may play other moves than with it on)
    assert hidden.options["bot_estimates"] is False and hidden.thinking == {}
    for v in views_off:
        assert v["thinking"] is None and v["bot_estimates"] is False
        assert not any("thinking" in e for e in v["log"])
    gid = views_off[-1]["id"]
    for move in [e["move"] for e in bots]:
        r = client.get(f"/api/games/{gid}/thinking", params={"move": move})
        assert r.status_code == 404
        assert r.json()["error"].startswith("this table hides the bots' estimates")
    view = my_turn(client, views_off[-1])
    if not view["over"]:
        assert client.post(f"/api/games/{gid}/hint").json()["advice"]


def test_the_rules_page_reads_the_players_asked_for(client):
    """``/api/rules?players=N``: the rules of the variant at that table size, in the
    words of ``burako rules``; without it, the variant's default size."""
    six = client.get("/api/rules", params={"variant": "colombian", "players": 6}).json()
    assert six["players"] == 6 and "6 players in two teams of 3" in six["text"]
    default = client.get("/api/rules", params={"variant": "colombian"}).json()
    assert default["players"] == 4 and "4 players in two teams of 2" in default["text"]
    bad = client.get("/api/rules", params={"variant": "colombian", "players": "six"})
    assert bad.status_code == 400 and "players must be a whole number" in bad.json()["error"]
