"""Words and thinking (issue 35): one description of every move for the web log,
``burako play`` and ``burako replay``; levels; refusals in the rule's words; how the bots
think, and that a client never reads another seat's hidden cards in it.

The web table runs in Starlette's TestClient, ``burako play`` and ``burako replay`` in
typer's CliRunner: each interface is read as a person would read it.
"""

from __future__ import annotations

import re

import numpy as np
import pytest
from starlette.testclient import TestClient
from typer.testing import CliRunner

from burako_env.agents import make_agent
from burako_env.cards import parse_cards
from burako_env.core.actions import add_action, decode_action, discard_action, open_actions_for
from burako_env.core.constants import ERR_DOES_NOT_FIT, ERROR_MESSAGES
from burako_env.core.game import Game
from burako_env.frontends.cli import app as cli_app
from burako_env.frontends.levels import LEVELS, default_level, levels_for
from burako_env.frontends.narrate import play_and_describe, refusal_words
from burako_env.frontends.play import (
    WIDTH,
    MoveError,
    bot_turn_line,
    card_move,
    default_bot,
    make_bots,
    play_game,
)
from burako_env.frontends.thinking import HINT_AGENT, hint_seed, search_json
from burako_env.frontends.web import create_app
from burako_env.frontends.web.app import save_message
from burako_env.frontends.web.sessions import PlaySession
from burako_env.frontends.web.table import web_words
from burako_env.records import GameRecord, write_records
from burako_env.scenario import build_game

runner = CliRunner()
REPLAY_LINE = re.compile(r"^move \d+/\d+: P\d+ \([^)]*\): (.*)$")
EVENT_LINE = re.compile(r"^Hand \d+ is over")
#: the names the engine and its variants use inside, never shown to a person
INTERNAL = re.compile(
    r"no_wild_discard|table_cards|canasta_bonus|pile_min_total|unique_group_rank|"
    r"max_meld_size|close_requires|close_discard_not_wild|episode|muerto_keep_wilds"
)


def human_choice(game: Game) -> int:
    """The scripted person: draws (or keeps a peek), then discards their last card."""
    legal = [int(a) for a in game.legal_actions()]
    return legal[0] if legal[0] <= 4 else legal[-1]


@pytest.fixture
def client(tmp_path):
    return TestClient(create_app(records_dir=tmp_path / "records", bot_delay=0))


def play_web(client, **options) -> dict:
    """A whole game through the HTTP API, the person playing :func:`human_choice`."""
    r = client.post("/api/games", json=options)
    assert r.status_code == 201, r.text
    view = r.json()
    session = client.app.state.store.get(view["id"])
    while not view["over"]:
        if view["to_act"] == view["seat"]:
            r = client.post(
                f"/api/games/{view['id']}/move", json={"action": human_choice(session.game)}
            )
        else:
            r = client.post(f"/api/games/{view['id']}/bot")
        assert r.status_code == 200, r.text
        view = r.json()
    return view


def terminal_telling(log: list[dict], seat: int) -> list[str]:
    """The web log as ``burako play`` tells it: the person's moves one by one, each bot's
    turn in one line (:func:`bot_turn_line`), the events (a hand over) as they come."""
    told: list[str] = []
    turn: list[str] = []
    turn_seat = None

    def end_turn() -> None:
        if turn:
            told.append(bot_turn_line(turn_seat, "Easy", turn))
            turn.clear()

    for entry in log:
        if entry["seat"] is None:
            end_turn()
            told.append(entry["text"])
        elif entry["seat"] == seat:
            end_turn()
            told.append(f"P{seat} (you): {entry['text']}")
        else:
            if entry["seat"] != turn_seat:
                end_turn()
            turn_seat = entry["seat"]
            turn.append(entry["text"])
    end_turn()
    return told


# ---------------------------------------------------------------- one description
@pytest.mark.parametrize("seed", [0, 1])  # 0: a muerto taken by melding, 1: by the discard
def test_web_terminal_and_replay_tell_a_game_in_the_same_words(client, tmp_path, seed):
    view = play_web(client, seed=seed, bots="easy", players=2)
    web = [entry["text"] for entry in view["log"]]
    assert any("take the muerto (11 cards)" in t for t in web), web  # the muerto is told
    how = "and play on" if seed == 0 else "to play from the next turn"
    assert any(how in t for t in web)
    assert any(t.startswith("Hand 1 is over") for t in web)
    session = client.app.state.store.get(view["id"])

    # burako play: the same deal and bots, the person typing the same moves (as ids)
    mine = [session.actions[e["move"] - 1] for e in session.log if e["seat"] == session.seat]
    typed = "\n".join(str(a) for a in mine) + "\n"
    res = runner.invoke(
        cli_app, ["play", "--players", "2", "--bots", "easy", "--seed", str(seed)], input=typed
    )
    assert res.exit_code == 0, res.output
    # the terminal tells the same moves, each bot's turn in one line (its moves' words in
    # the past), wrapped at 80 columns: each told item is in the output, in order
    told = [" ".join(t.split()) for t in terminal_telling(view["log"], session.seat)]
    output = " ".join(web_words(res.output).split())  # the page writes 10♥ (and ★)
    at = 0
    for item in map(web_words, told):
        found = output.find(item, at)
        assert found >= 0, (item, output[at : at + 400])
        at = found + len(item)
    assert "P1 (Easy): " in res.output and "greedy" not in res.output
    assert max(len(line) for line in res.output.splitlines()) <= WIDTH

    # burako replay --moves-only of the game the server saved
    path = tmp_path / "game.jsonl"
    write_records(path, [session.record()])
    res = runner.invoke(cli_app, ["replay", str(path), "--moves-only"])
    assert res.exit_code == 0, res.output
    replayed = [
        m[1] if (m := REPLAY_LINE.match(line)) else line
        for line in res.output.splitlines()
        if REPLAY_LINE.match(line) or EVENT_LINE.match(line)
    ]
    assert [web_words(t) for t in replayed] == web


def test_a_wild_at_an_end_names_the_cards_it_stands_for():
    game = build_game(
        "argentine",
        hands={0: "5h 6h 2c Kd Ks", 1: "3c 4c 9d"},
        melds={0: [], 1: []},
        pile="Qd",
        player=0,
        phase="play",
    )
    (opening,) = [a for a in open_actions_for(parse_cards("5h 6h 2c")) if not game.why_illegal(a)]
    told = play_and_describe(game, opening)
    assert told.text == "lay a run 5♥ 6♥ 2♣ (meld 0): the 2♣ stands for 4♥ or 7♥ (at either end)"


# ---------------------------------------------------------------- refusals
def test_refusals_name_the_rule_in_plain_words():
    game = build_game(
        "argentine",
        hands={0: "2c 9d Kd Ks 8s", 1: "3c 4c 9c"},
        melds={0: ["5h 6h *", "8c 8d 8h"], 1: []},
        pile="Qd",
        player=0,
        phase="play",
    )
    second_wild = add_action(parse_cards("2c")[0], 0)
    assert game.why_illegal(second_wild) == ERROR_MESSAGES[ERR_DOES_NOT_FIT]  # the engine's
    assert "already has a wild" in refusal_words(game, second_wild)
    other_rank = add_action(parse_cards("9d")[0], 1)
    assert refusal_words(game, other_rank) == "the group is of 8s: 9♦ is not one of them"
    off_suit = add_action(parse_cards("Kd")[0], 0)
    assert refusal_words(game, off_suit) == "the run is in hearts: K♦ is not"
    assert refusal_words(game, discard_action(parse_cards("8s")[0])) is None

    runs = build_game(
        "argentine",
        hands={0: "Jh 2h 9d", 1: "3c 4c 9c"},
        melds={0: ["5h 6h 7h"], 1: []},
        pile="Qd",
        player=0,
        phase="play",
    )
    far = add_action(parse_cards("Jh")[0], 0)
    assert refusal_words(runs, far) == (
        "J♥ does not join the run: the cards it takes are 4♥ or 8♥, or a wild"
    )
    # the 2 of the run's own suit is a natural there (position 2), not a second wild
    wild_run = build_game(
        "argentine",
        hands={0: "Jh 2h 9d", 1: "3c 4c 9c"},
        melds={0: ["5h 6h *"], 1: []},
        pile="Qd",
        player=0,
        phase="play",
    )
    two = add_action(parse_cards("2h")[0], 0)
    assert refusal_words(wild_run, two) == "the 2♥ has no place in this run"
    # a run from its natural 2 (position 2) takes the ace below it (position 1)
    from_two = build_game(
        "argentine",
        hands={0: "Jh 9d 8c", 1: "3c 4c 9c"},
        melds={0: ["2h 3h 4h"], 1: []},
        pile="Qd",
        player=0,
        phase="play",
    )
    assert refusal_words(from_two, far) == (
        "J♥ does not join the run: the cards it takes are A♥ or 5♥, or a wild"
    )

    colombian = build_game(
        "colombian",
        hands={0: "2c 9d Kd Ks", 1: "3c 4c 9c"},
        melds={0: [], 1: []},
        pile="Qd",
        player=0,
        phase="play",
    )
    words = refusal_words(colombian, discard_action(parse_cards("2c")[0]))
    assert words == "a wild card (joker or 2) may never be discarded here"
    assert not INTERNAL.search(words)


def test_the_terminal_speaks_plain_words():
    """A refused move, the end of the hand and the final table: no internal names."""
    game = Game("colombian", seed=4)
    bots = make_bots(game, 0, ["easy"] * 3, 4)
    held = int(np.flatnonzero(game.state.hands[0, 0])[0])
    script = iter([str(discard_action(held)), "quit"])  # a discard before the draw
    out: list[str] = []
    play_game(game, 0, bots, lambda prompt: next(script, None), out.append)
    text = "\n".join(out)
    assert "You cannot discard" in text and not INTERNAL.search(text), text

    game = Game("argentine", num_players=2, seed=0)
    bots = make_bots(game, 0, ["easy"], 0)
    out = []

    def read(prompt):
        return str(human_choice(game))

    result = play_game(game, 0, bots, read, out.append)
    assert result.finished
    text = "\n".join(out)
    assert "The hand is over." in text and "cards on the table" in text
    assert "Hand 1 is over (team 1 went out)" in text
    assert not INTERNAL.search(text), [line for line in out if INTERNAL.search(line)]


def test_web_errors_speak_the_pages_words(client):
    view = client.post("/api/games", json={"seed": 5, "bots": "easy", "players": 2}).json()
    session = client.app.state.store.get(view["id"])
    while session.to_act != session.seat:
        session.bot_move()
    hand = client.get(f"/api/games/{view['id']}").json()["seats"][0]["hand"]
    for body in (
        {"kind": "open", "cards": hand[:4]},
        {"kind": "add", "cards": hand[:2], "slot": 0},
        {"kind": "discard", "cards": hand[:2]},
    ):
        error = client.post(f"/api/games/{view['id']}/move", json=body).json()["error"]
        assert "'" not in error and "CARD" not in error and "SLOT" not in error, error


def test_the_save_message_names_the_real_folder(tmp_path):
    records = tmp_path / "records"
    assert save_message("g.jsonl", records / "mine", records).endswith("(Watch lists it).")
    elsewhere = save_message("g.jsonl", tmp_path / "saves", records)
    assert str(tmp_path / "saves") in elsewhere and "Watch does not list it" in elsewhere


# ---------------------------------------------------------------- levels
def test_levels_are_offered_where_they_play_and_default_alike(client):
    names = [lv.name for lv in LEVELS]
    assert names == ["Easy", "Normal", "Hard", "Expert"]
    assert [lv.agent for lv in LEVELS] == ["greedy", "discard_table", "ppo", "pimc"]
    opts = client.get("/api/options").json()
    for v in opts["variants"]:
        for n, ids in v["levels"].items():
            assert ids == [lv.id for lv in levels_for(v["name"], int(n))]
            assert "expert" in ids  # the search plays every table
            level = default_level(v["name"], int(n))
            assert v["default_level"][n] == level.id
            assert default_bot(v["name"], int(n))[0] == level.agent  # burako play's default
    assert "hard" not in levels_for("argentine", 2)  # no network ships for 2 players
    r = client.post("/api/games", json={"players": 2, "bots": "hard"})
    assert r.status_code == 400 and "Hard cannot play argentine with 2 players" in r.json()["error"]
    view = client.post("/api/games", json={"players": 2, "seed": 1}).json()
    assert view["names"] == ["you", "Normal"]  # the default where Hard does not play


# ---------------------------------------------------------------- how the bots think
def _public_counts(seat_view: dict) -> np.ndarray:
    counts = np.zeros(53, np.int64)
    for c in seat_view.get("known", []):
        counts[c] += 1
    return counts


def test_thinking_shows_no_hidden_card_of_another_seat(client):
    """Expert and Hard partners and opponents at a 4-player table: every candidate a
    bot's thinking names moves only cards the person's view showed in that bot's hand (or
    is the move played); a hint names only the person's own cards; thinking comes only
    after a bot's move."""
    r = client.post(
        "/api/games", json={"seed": 7, "bots": ["expert", "hard", "expert"], "players": 4}
    )
    view = r.json()
    gid = view["id"]
    assert view["names"] == ["you", "Expert", "Hard", "Expert"]
    kinds, hints, checked = set(), 0, 0
    for _ in range(70):
        if view["over"]:
            break
        if view["to_act"] == view["seat"]:
            assert view["thinking"] is None or view["log"][-1]["seat"] != view["seat"]
            if hints < 3:
                hint = client.post(f"/api/games/{gid}/hint").json()
                hand = np.bincount(view["seats"][0]["hand"], minlength=53)
                for c in hint["candidates"]:
                    moved = np.bincount(decode_action(c["action"]).cards, minlength=53)
                    assert (moved <= hand).all()  # the person's own cards only
                assert {c["action"] for c in hint["candidates"]} <= {
                    m["action"] for m in view["moves"]
                }
                assert client.get(f"/api/games/{gid}").json()["hint"] == hint
                hints += 1
            session = client.app.state.store.get(gid)
            view = client.post(
                f"/api/games/{gid}/move", json={"action": human_choice(session.game)}
            ).json()
            assert view["thinking"] is None  # the person moved last
            continue
        p = view["to_act"]
        public = _public_counts(view["seats"][p])  # what the person saw of that hand
        before = len(view["log"])
        r = client.post(f"/api/games/{gid}/hint")
        assert r.status_code == 409  # hints are for the person's own decisions only
        view = client.post(f"/api/games/{gid}/bot").json()
        entry = next(e for e in view["log"][before:] if e["seat"] == p)
        thinking = view["thinking"]
        if thinking is None:
            continue
        assert entry.get("thinking") is True and thinking["move"] == entry["move"]
        assert thinking["seat"] == p and thinking["who"] == view["names"][p]
        assert client.get(f"/api/games/{gid}/thinking", params={"move": entry["move"]}).json() == (
            thinking
        )
        kinds.add(thinking["kind"])
        played = thinking["choice"]["action"]
        for c in thinking["candidates"]:
            if c["action"] == played:
                continue
            moved = np.bincount(decode_action(c["action"]).cards, minlength=53)
            assert (moved <= public).all(), (c, view["seats"][p])
            checked += 1
        later = client.get(f"/api/games/{gid}/thinking", params={"move": entry["move"] + 1})
        assert later.status_code == 404  # nothing for a move not yet played
    assert kinds == {"search", "policy"} and hints == 3


def test_the_hint_is_what_agents_pimc_finds_for_that_position_and_seed():
    session = PlaySession.new({"seed": 3, "bots": "easy", "players": 2})
    for _ in range(12):  # some way into the hand, at the person's decision
        while session.to_act != session.seat:
            session.bot_move()
        session.move({"action": human_choice(session.game)})
    while session.to_act != session.seat:
        session.bot_move()
    hint = session.ask_hint()
    assert hint["hint"] is True and hint["seat"] == session.seat
    moves = len(session.actions)
    agent = make_agent(HINT_AGENT, seed=hint_seed(session.seed, moves))
    report = agent.think(session.game)
    expected = search_json(report, session.seat, "Expert")
    for key in ("choice", "candidates", "redeals", "objective", "withheld"):
        assert hint[key] == expected[key], key
    assert len(hint["candidates"]) > 1 and all(c["redeals"] > 0 for c in hint["candidates"])
    # the same seed plays the same action through act_game
    again = make_agent(HINT_AGENT, seed=hint_seed(session.seed, moves))
    assert again.act_game(session.game) == report.action == hint["choice"]["action"]
    assert again.last_report == report


def test_watch_thinking_of_a_recorded_expert_seat(client, tmp_path):
    game = Game("argentine", num_players=2, seed=2)
    bots = {0: make_agent("pimc:budget_ms=0", seed=1), 1: make_agent("greedy", seed=2)}
    actions = []
    while not game.is_over() and len(actions) < 400:
        a = bots[int(game.current_player[0])].act_game(game)
        game.step_one(a)
        actions.append(a)
    assert game.is_over()
    rec = GameRecord(
        variant="argentine",
        num_players=2,
        seed=2,
        index=0,
        seats=["pimc", "greedy"],
        actions=actions,
        scores=[int(v) for v in game.hand_scores[0]],
        winner=int(game.winner[0]),
    )
    folder = tmp_path / "records"
    folder.mkdir(exist_ok=True)
    write_records(folder / "g.jsonl", [rec])
    replay = Game("argentine", num_players=2, seed=2)
    steps = []  # positions where the Expert seat chose among several moves
    for k, a in enumerate(actions):
        if int(replay.current_player[0]) == 0 and replay.legal_actions().size > 1:
            steps.append(k)
        replay.step_one(a)
    step = steps[len(steps) // 2]
    r = client.get("/api/records/thinking", params={"file": "g.jsonl", "step": step})
    assert r.status_code == 200, r.text
    answer = r.json()
    assert (answer["seat"], answer["who"], answer["step"]) == (0, "Expert", step)
    assert answer["played"]["action"] == actions[step]
    thinking = answer["thinking"]
    assert thinking["kind"] == "search" and thinking["who"] == "Expert"
    assert len(thinking["candidates"]) > 1 and thinking["withheld"] is False  # all shown
    easy = next(k for k in range(len(actions)) if k not in steps and k > step)
    r = client.get("/api/records/thinking", params={"file": "g.jsonl", "step": easy})
    if r.json()["seat"] == 1:
        assert r.json()["thinking"] is None and "fixed rules" in r.json()["why_none"]
    bad = client.get("/api/records/thinking", params={"file": "../g.jsonl", "step": 0})
    assert bad.status_code == 404  # records only from the records folder


def test_ppo_thinks_as_it_acts():
    """``PPOAgent.think`` is ``act_game`` with its probabilities and value: the same
    action and the same generator draw, for the greedy and the sampling agent."""
    pytest.importorskip("torch")
    for greedy in (True, False):
        game = Game("argentine", seed=4)
        for _ in range(9):
            game.step_one(int(game.legal_actions()[0]))
        a = make_agent("ppo", seed=3, greedy=greedy)
        b = make_agent("ppo", seed=3, greedy=greedy)
        for _ in range(3):
            report = a.think(game)
            assert report.action == b.act_game(game)
            probs = [q for _, q in report.actions]
            assert abs(sum(probs) - 1) < 1e-4 and probs == sorted(probs, reverse=True)
            assert {x for x, _ in report.actions} == {int(x) for x in game.legal_actions()}
            assert -1.5 < report.value < 1.5


def test_the_search_reads_only_the_searchers_information():
    """Expert's report (candidates, margins, choice) is the same on the real game and on
    a game whose cards hidden from the searching seat were dealt again: it is a function of
    that seat's information alone, so what it shows cannot carry another seat's hidden
    cards (the bot's thinking reveals nothing of the person's hand, the hint nothing of the
    bots')."""
    game = Game("argentine", num_players=2, seed=3)
    searched = 0
    for i in range(40):
        if game.is_over():
            break
        p = int(game.current_player[0])
        if game.legal_actions().size > 1 and i % 4 == 0:
            other = game.determinize(p, 1000 + i)
            assert not np.array_equal(other.state.hands[0, 1 - p], game.state.hands[0, 1 - p])
            real = make_agent(HINT_AGENT, seed=i).think(game)
            redealt = make_agent(HINT_AGENT, seed=i).think(other)
            assert real == redealt
            searched += 1
        game.step_one(make_agent("greedy", seed=i).act_game(game))
    assert searched >= 3


def test_an_add_or_discard_of_several_cards_says_one_card_at_a_time():
    game = Game("argentine", 2, seed=0)
    two = [int(c) for c in np.flatnonzero(game.state.hands[0, 0])[:2]]
    for kind in ("add", "discard"):
        with pytest.raises(MoveError, match=rf"^{kind} one card at a time \(got 2\)$"):
            card_move(kind, two, game, 0, slot=0)


def test_the_end_of_input_abandons_the_game_and_says_so():
    """``burako play`` with its input closed (a pipe that ends, Ctrl-D) stops at the
    next prompt with a line that says the game is abandoned."""
    game = Game("argentine", num_players=2, seed=0)
    out: list[str] = []
    result = play_game(game, 0, make_bots(game, 0, ["easy"], 0), lambda prompt: None, out.append)
    assert not result.finished and result.reason == "eof"
    # a blank line, then the words (each line fitted to the terminal's width)
    assert out[-2:] == ["", "End of input: the game is abandoned."]


def test_a_meld_that_empties_the_hand_where_going_out_needs_a_discard_says_so():
    """Italian rules: a team with its muerto taken goes out only by a discard; a meld of
    the whole hand is refused in those words."""
    from burako_env.scenario import build_game

    game = build_game(
        "italian", hands={0: "6h 7h 8h"}, melds={0: ["3s 4s 5s 6s 7s 8s 9s"]}, muertos_taken={0: 1}
    )
    (whole_hand,) = open_actions_for(parse_cards("6h 7h 8h"))
    assert refusal_words(game, whole_hand) == (
        "this would empty your hand: going out must be done with a discard"
    )


def test_a_move_and_its_consequence_read_as_one_sentence():
    """A meld that empties the hand takes the muerto: the move, then what followed it,
    joined by a semicolon."""
    from burako_env.frontends.narrate import play_and_describe
    from burako_env.scenario import build_game

    game = build_game("argentine", hands={0: "6h 7h 8h"}, melds={0: ["3s 4s 5s 6s 7s 8s 9s"]})
    (whole_hand,) = open_actions_for(parse_cards("6h 7h 8h"))
    told = play_and_describe(game, whole_hand)
    assert told.text == (
        "lay a run 6♥ 7♥ 8♥ (meld 1); the hand is empty: take the muerto (11 cards) and play on"
    )
