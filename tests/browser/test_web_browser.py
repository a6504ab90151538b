"""``burako serve`` in a real browser: headless Chromium driven by Playwright.

The tests start ``burako serve`` (port 0, a records folder of their own, bots 50 ms apart)
and Debian's Chromium (Playwright's own browser download is not used), then play a whole
hand against the bots by clicking, check the message of a refused move, step a recorded
game forward and back, reload a game, check that screenshots are not blank, and read the
bots' thinking and the hint as the page shows them (the hint's numbers against
``agents.pimc``'s own), resume a game after the server restarts (and after a kill -9)
and the browser closes, deal a game from the rules and house rules the set-up form
shows, hear the person's first turn chimed (dealt, joined or after the bots), find a
joined game in the friend's "Your games", and read the person's turn in the tab's title.
No test times anything: scripts/bench/bench_web.py does.

On a machine without Chromium the tests skip and say why; in CI (``CI=true``) a missing
Chromium fails them, since ``.ci/run`` installs it.
"""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import sys
import threading
import time
import urllib.request
from collections import Counter
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

import pytest
from PIL import Image
from playwright import sync_api as playwright_api

from burako_env.agents import make_agent
from burako_env.cards import JOKER, NUM_RANKS
from burako_env.core.game import Game
from burako_env.frontends.narrate import action_words, play_and_describe
from burako_env.frontends.playback import check_record, start
from burako_env.frontends.thinking import HINT_AGENT, hint_seed, search_json
from burako_env.frontends.web.table import web_words
from burako_env.records import GameRecord, parse_record, read_records, write_records

CHROMIUM_NAMES = ("chromium", "chromium-browser")
ROOT = Path(__file__).resolve().parents[2]
STARTUP_SECONDS = 240  # a cold numba cache compiles the core first
WAIT_MS = 30_000


def chromium_path() -> str:
    for name in CHROMIUM_NAMES:
        found = shutil.which(name)
        if found:
            return found
    if os.environ.get("CI") == "true":
        pytest.fail("chromium is not installed: .ci/run installs it with apt-get in CI")
    pytest.skip("chromium is not installed (apt-get install chromium); browser tests skipped")


@pytest.fixture(scope="module")
def records_dir(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("records")


def start_serve(*args: str) -> tuple[subprocess.Popen, str]:
    """``burako serve --port 0 ARGS`` in a subprocess, bots 50 ms apart; the process and
    its URL once it listens."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "burako_env.frontends.cli", "serve", "--port", "0"]
        + ["--bot-delay", "0.05", *args],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    lines: list[str] = []
    ready = threading.Event()

    def read() -> None:
        for line in proc.stdout:
            lines.append(line)
            if line.startswith("Burako table at "):
                ready.set()

    threading.Thread(target=read, daemon=True).start()
    if not ready.wait(STARTUP_SECONDS):
        proc.kill()
        pytest.fail("burako serve did not start:\n" + "".join(lines))
    url = next(x for x in lines if x.startswith("Burako table at ")).split()[-1]
    assert url.startswith("http://127.0.0.1:")
    deadline = time.monotonic() + STARTUP_SECONDS
    while True:  # the URL is printed before the socket listens
        try:
            with urllib.request.urlopen(url + "api/options", timeout=5) as answer:
                if answer.status == 200:
                    return proc, url
        except OSError:
            pass
        if time.monotonic() > deadline or proc.poll() is not None:
            proc.kill()
            pytest.fail("burako serve did not answer:\n" + "".join(lines))
        time.sleep(0.2)


def stop_serve(proc: subprocess.Popen, kill: bool = False) -> None:
    """Stop a server of :func:`start_serve`: politely, or ``kill`` -9 (nothing flushed)."""
    proc.kill() if kill else proc.terminate()
    proc.wait(timeout=30)


@pytest.fixture(scope="module")
def server(records_dir):
    """``burako serve`` in a subprocess; yields its URL."""
    exe = chromium_path()  # skip before starting anything when there is no browser
    proc, url = start_serve("--records", str(records_dir))
    try:
        yield url, exe
    finally:
        stop_serve(proc)


@pytest.fixture(scope="module")
def browser(server):
    _, exe = server
    with playwright_api.sync_playwright() as p:
        # --no-sandbox: CI runs as root, where Chromium's sandbox refuses to start
        # --disable-dev-shm-usage: containers often have a tiny /dev/shm
        b = p.chromium.launch(executable_path=exe, args=["--no-sandbox", "--disable-dev-shm-usage"])
        yield b
        b.close()


#: the screens the layout is tested on: a phone, a laptop, a desktop
PHONE = {"width": 390, "height": 844}
LAPTOP = {"width": 1366, "height": 768}
DESKTOP = {"width": 1920, "height": 1080}


@pytest.fixture
def open_page(browser, server):
    """A factory of pages: ``open_page(viewport, touch=False, speed="instant")``. The bots
    play at ``speed`` (the page's setting, kept in localStorage); every page must end
    without a script error."""
    made = []

    def make(viewport=None, touch=False, speed="instant"):
        context = browser.new_context(
            viewport=viewport or {"width": 1400, "height": 950}, has_touch=touch, is_mobile=touch
        )
        context.add_init_script(f"localStorage.setItem('burako-speed', {speed!r})")
        pg = context.new_page()
        pg.set_default_timeout(WAIT_MS)
        errors: list[str] = []
        pg.on("pageerror", lambda exc: errors.append(str(exc)))
        pg.base_url = server[0]
        made.append((context, errors))
        return pg

    yield make
    for context, errors in made:
        context.close()
        assert errors == [], errors  # no script error on the page


@pytest.fixture
def page(open_page):
    return open_page()


def assert_not_blank(png: bytes) -> None:
    """A screenshot of a drawn table: many colours, no colour covering nearly all of it."""
    img = Image.open(io.BytesIO(png)).convert("RGB")
    colours = img.getcolors(maxcolors=1 << 22)
    assert colours is not None
    total = img.width * img.height
    assert len(colours) > 100, f"only {len(colours)} colours"
    assert max(n for n, _ in colours) / total < 0.9


def fill_setup(page, players=4, seed=3, seat=0, bots="easy") -> None:
    """The set-up form opened and filled: the table's size, the person's seat, every
    bot's level and the deal's seed."""
    page.goto(page.base_url + "#/")
    page.wait_for_selector("#setup")
    page.select_option("#players", str(players))
    page.select_option("#seat", str(seat))
    page.select_option("#bots-all", bots)
    page.dispatch_event("#bots-all", "change")
    page.fill("#seed", str(seed))


def deal(page) -> str:
    """Start the game the set-up form holds; its id once the table shows."""
    page.click("#start")
    page.wait_for_selector("#table")
    return page.evaluate("location.hash").split("/")[-1]


def start_game(page, players=4, seed=3, seat=0, bots="easy") -> str:
    fill_setup(page, players, seed, seat, bots)
    return deal(page)


def moves_count(page) -> int:
    return int(page.get_attribute("#table", "data-moves"))


def wait_my_turn(page) -> str:
    page.wait_for_selector("#table[data-state=my-turn], #overlay")
    return "over" if page.query_selector("#overlay") else "mine"


#: true once the table shows more moves than ``n``, or the end-of-hand summary is open
MOVED = (
    "n => +document.querySelector('#table').dataset.moves > n"
    " || !!document.getElementById('overlay')"
)


def click_and_wait(page, selector: str) -> None:
    before = moves_count(page)
    page.click(selector)
    page.wait_for_function(MOVED, arg=before)


def hand_cards(page) -> list[int]:
    return [
        int(x) for x in page.eval_on_selector_all("#hand .card", "e => e.map(c => c.dataset.card)")
    ]


#: the layout's promises on every screen: no sideways scrolling, the hand's top on screen
LAYOUT = """() => {
  const top = document.querySelector('#hand').getBoundingClientRect().top;
  return {scroll: document.scrollingElement.scrollWidth, width: innerWidth,
          top, height: innerHeight};
}"""


def assert_layout(page) -> None:
    got = page.evaluate(LAYOUT)
    assert got["scroll"] <= got["width"], f"the page scrolls sideways: {got}"
    assert 0 <= got["top"] < got["height"], f"the hand's top is off the screen: {got}"


def sent_moves(page) -> list:
    """Collects the bodies of the moves the page sends (the list grows as it plays)."""
    bodies: list = []

    def seen(request) -> None:
        if request.method == "POST" and request.url.endswith("/move"):
            bodies.append(json.loads(request.post_data))

    page.on("request", seen)
    return bodies


def test_play_a_whole_hand_by_clicking(open_page, records_dir):
    page = open_page(DESKTOP)
    game_id = start_game(page, players=4, seed=3)
    assert_not_blank(page.screenshot())
    turns = 0
    while wait_my_turn(page) == "mine":
        turns += 1
        assert turns < 300, "the hand does not end"
        assert_layout(page)
        draw = page.query_selector(
            "#actions button[data-kind=draw], #actions button[data-kind=peek_keep]"
        )
        if draw is not None:
            click_and_wait(
                page, f"#actions button[data-action='{draw.get_attribute('data-action')}']"
            )
            continue
        discardable = page.query_selector_all("#hand .card.discardable")
        if discardable:
            discardable[-1].click()  # select it: the discard button appears
            click_and_wait(page, "#discard")
            continue
        if page.query_selector("#suggest .option"):  # no discard is legal: meld
            page.click("#suggest summary")
            click_and_wait(page, "#suggest .option")
            continue
        addable = page.query_selector("#hand .card.addable")
        if addable is not None:
            addable.click()
            click_and_wait(page, ".meld.can-add")
            continue
        click_and_wait(page, "#actions button[data-kind]")  # e.g. take the muerto
    assert turns > 3

    # the end of the hand: every score item of both teams
    summary = page.inner_text("#summary")
    assert "Game over" in summary and ("wins the hand" in summary or "a tie" in summary)
    rows = page.query_selector_all("#score-table tr[data-item]")
    assert len(rows) == 6
    assert page.query_selector_all("#score-table tr")[0].inner_text().split("\t")[1:] == [
        "team 0",
        "team 1",
    ]
    assert_not_blank(page.screenshot())
    page.click("#save")
    page.wait_for_selector("#save-status.info")
    assert f"game-{game_id}.jsonl" in page.inner_text("#save-status")
    (rec,) = read_records(records_dir / f"game-{game_id}.jsonl")
    assert check_record(rec) is None and rec.seats == ["human", "greedy", "greedy", "greedy"]
    page.click("#close-summary")
    assert page.query_selector("#overlay") is None
    # at the end every hand is open
    assert len(page.query_selector_all("#seats .seat .card:not(.back)")) > 0
    assert_not_blank(page.screenshot(full_page=True))


def mouse_drag(page, source, target) -> None:
    """Drag ``source`` (an element handle) onto ``target`` with the mouse, in steps; the
    target is first scrolled to the middle of the screen (clear of the hand's bar)."""
    target.evaluate("e => e.scrollIntoView({block: 'center'})")
    a, b = source.bounding_box(), target.bounding_box()
    page.mouse.move(a["x"] + 8, a["y"] + a["height"] / 2)
    page.mouse.down()
    page.mouse.move(b["x"] + b["width"] / 2, b["y"] + b["height"] / 2, steps=8)
    page.mouse.up()


def touch_drag(page, source, target) -> None:
    """Drag ``source`` onto ``target`` with a finger (Chromium's touch events, which the
    page receives as pointer events of type touch)."""
    target.evaluate("e => e.scrollIntoView({block: 'center'})")
    cdp = page.context.new_cdp_session(page)
    a, b = source.bounding_box(), target.bounding_box()
    x0, y0 = a["x"] + 6, a["y"] + a["height"] / 2  # a fanned card shows its left edge
    x1, y1 = b["x"] + b["width"] / 2, b["y"] + b["height"] / 2
    cdp.send(
        "Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [{"x": x0, "y": y0}]}
    )
    for k in range(1, 9):
        x, y = x0 + (x1 - x0) * k / 8, y0 + (y1 - y0) * k / 8
        cdp.send(
            "Input.dispatchTouchEvent", {"type": "touchMove", "touchPoints": [{"x": x, "y": y}]}
        )
        page.wait_for_timeout(16)  # a finger's pace: a frame a step, then a rest
    page.wait_for_timeout(100)
    cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})
    cdp.detach()


def tap_card(page, card) -> None:
    box = card.bounding_box()
    page.touchscreen.tap(box["x"] + 6, box["y"] + box["height"] / 2)


def wait_moved(page, before: int, what: str) -> None:
    """Wait for the move ``what`` to show; if it does not, fail with the page's message."""
    try:
        page.wait_for_function(MOVED, arg=before)
    except playwright_api.TimeoutError:
        pytest.fail(f"{what}: no move; the page says {page.inner_text('#message')!r}")


def test_play_a_whole_hand_with_gestures_and_keys_on_a_laptop(open_page):
    """1366x768: the stock and the peeked card clicked, the D key, a drag onto a meld, a
    double-click to discard; the hand's top stays on the screen every turn, and every
    gesture sends a legal action id (the same as the buttons)."""
    page = open_page(LAPTOP)
    bodies = sent_moves(page)
    start_game(page, players=4, seed=3)
    turns = 0
    while wait_my_turn(page) == "mine":
        turns += 1
        assert turns < 300, "the hand does not end"
        assert_layout(page)
        before = moves_count(page)
        state = page.get_attribute("#table", "data-state")
        assert state == "my-turn"
        what = "the rest"
        if page.query_selector("#peek.takeable"):
            what = "keep the peeked card"
            page.click("#peek")
        elif page.query_selector("#stock.takeable"):
            what = "draw"
            if turns % 2:
                page.click("#stock")
            else:
                page.keyboard.press("d")
            page.wait_for_selector("#hand .card.drawn")  # the card drawn is marked
        elif page.query_selector("#suggest .option"):
            what = "open a meld"
            if not page.is_visible("#suggest .option"):
                page.click("#suggest summary")
            page.click("#suggest .option")
        elif page.query_selector("#hand .card.addable"):
            what = "drag onto a meld"
            page.click("#hand .card.addable")
            mouse_drag(
                page,
                page.query_selector("#hand .card.selected"),
                page.query_selector(".meld.can-add"),
            )
        elif page.query_selector("#hand .card.discardable"):
            what = "double-click to discard"
            page.dblclick("#hand .card.discardable >> nth=-1")
        else:
            page.click("#actions button[data-kind]")
        wait_moved(page, before, what)
    assert turns > 3
    kinds = [set(b) for b in bodies]
    assert kinds and all(k == {"action"} for k in kinds), bodies  # the engine's ids only
    assert "Game over" in page.inner_text("#summary")


def test_play_a_whole_hand_by_touch_on_a_phone(open_page):
    """390x844 with a touch screen: taps on the buttons, the stock and the cards, a
    finger drag of a card onto the pile to discard; the board stacks, the moves go into a
    drawer, the hand stays in the bar at the bottom, nothing scrolls sideways."""
    page = open_page(PHONE, touch=True)
    bodies = sent_moves(page)
    start_game(page, players=4, seed=5)
    assert page.is_hidden("#log")  # in the closed drawer
    page.tap("#log-toggle")
    page.wait_for_selector("#log", state="visible")
    assert_layout(page)
    page.tap("#drawer-close")
    page.wait_for_selector("#log", state="hidden")
    turns = 0
    dragged = 0
    while wait_my_turn(page) == "mine":
        turns += 1
        assert turns < 300, "the hand does not end"
        assert_layout(page)
        before = moves_count(page)
        what = "the rest"
        draw = page.query_selector(
            "#actions button[data-kind=draw], #actions button[data-kind=peek_keep]"
        )
        if draw is not None:
            what = "draw"
            # the first: keep the peeked card, a tap on the button that the hand once covered
            page.tap(f"#actions button[data-action='{draw.get_attribute('data-action')}']")
        elif page.query_selector("#suggest .option"):
            if not page.is_visible("#suggest .option"):
                page.tap("#suggest summary")
            page.tap("#suggest .option")
        elif page.query_selector("#hand .card.addable"):
            what = "tap a card, tap its meld"
            tap_card(page, page.query_selector("#hand .card.addable"))
            meld = page.query_selector(".meld.can-add")
            meld.evaluate("e => e.scrollIntoView({block: 'center'})")  # clear of the bar
            meld.tap()
        elif page.query_selector("#hand .card.discardable"):
            card = page.query_selector_all("#hand .card.discardable")[-1]
            what = "drag onto the pile"
            touch_drag(page, card, page.query_selector("#pile"))
            dragged += 1
        else:
            page.tap("#actions button[data-kind]")
        wait_moved(page, before, what)
    assert turns > 3 and dragged > 3
    assert all(set(b) == {"action"} for b in bodies), bodies
    assert "Game over" in page.inner_text("#summary")
    assert page.evaluate("document.scrollingElement.scrollWidth <= innerWidth")


def test_hand_tools_keys_and_help(open_page):
    """Sort by rank and by suit, drag a card to reorder the hand, clear the selection,
    the keys, the help panel (H: the hint); the thinking switch starts off, and the one
    function drawing the server's thinking draws both kinds of bot."""
    page = open_page(LAPTOP)
    start_game(page, players=2, seed=9)
    wait_my_turn(page)
    by_suit = hand_cards(page)
    page.click("#sort-rank")
    by_rank = hand_cards(page)
    assert sorted(by_rank) == sorted(by_suit) and by_rank != by_suit
    ranks = [(wild_rank(c), (c % 13) * 4 + c // 13) for c in by_rank]
    assert ranks == sorted(ranks)
    page.keyboard.press("s")
    assert hand_cards(page) == by_suit
    cards = page.query_selector_all("#hand .card")
    mouse_drag(page, cards[0], cards[3])  # the first card, dropped after the fourth
    moved = hand_cards(page)
    assert moved == by_suit[1:4] + by_suit[:1] + by_suit[4:]
    page.keyboard.press("1")
    page.keyboard.press("2")
    assert len(page.query_selector_all("#hand .card.selected")) == 2
    page.keyboard.press("Escape")
    assert page.query_selector("#hand .card.selected") is None
    page.keyboard.press("?")
    help_text = page.inner_text("#help")
    assert "Keys and gestures" in help_text and "double-click" in help_text
    assert "a hint: what Expert would play in your seat" in help_text
    page.keyboard.press("Escape")
    assert page.query_selector("#help") is None
    # the thinking switch is off at first: no panel until it is turned on
    assert page.query_selector("#think-toggle") and not page.is_checked("#think-toggle")
    assert page.query_selector("#thinking") is None
    # the one drawing function, on the server's shapes (frontends/thinking.py)
    search = {
        "seat": 1, "who": "Expert", "kind": "search", "move": 7,
        "choice": {"action": 9, "text": "discard 5♥"}, "summary": "Expert dealt ...",
        "redeals": 64, "objective": "margin", "budget_hit": True, "withheld": True,
        "candidates": [
            {"action": 9, "text": "discard 5♥", "choice": True, "baseline": True,
             "redeals": 64, "margin": 12.5, "margin_low": 3.0, "margin_high": 20.0,
             "win": 0.6, "gain": 0.0, "gain_low": 0.0, "gain_high": 0.0},
            {"action": 8, "text": "discard K♦", "choice": False, "baseline": False,
             "redeals": 1, "margin": -4.0, "margin_low": None, "margin_high": None,
             "win": 0.0, "gain": -16.5, "gain_low": None, "gain_high": None},
        ],
    }  # fmt: skip
    policy = {
        "seat": 2, "who": "Hard", "kind": "policy", "move": 3,
        "choice": {"action": 0, "text": "draw a card from the stock"}, "summary": "...",
        "value": 0.25, "value_text": "its own estimate", "withheld": False,
        "candidates": [{"action": 0, "text": "draw a card from the stock", "choice": True,
                        "probability": 0.8}],
    }  # fmt: skip
    drawn = page.evaluate(
        """([a, b]) => [renderThinking(a).innerText, renderThinking(b).innerText,
                        renderThinking(null, {note: "nothing yet"}).innerText]""",
        [search, policy],
    )
    assert "P1 (Expert), move 7: discard 5♥" in drawn[0]
    assert "+12.5 [3.0, 20.0]" in drawn[0] and "64" in drawn[0]
    assert "-4.0" in drawn[0] and "-4.0 [" not in drawn[0]  # one re-deal: no interval
    assert "played" in drawn[0] and "stopped by its time budget" in drawn[0]
    assert "cards of its hand you cannot see" in drawn[0]
    assert "80.0%" in drawn[1] and "value +0.25: its own estimate" in drawn[1]
    assert "nothing yet" in drawn[2]


def wild_rank(card: int) -> int:
    """Where a card goes among the wilds held at the end of a hand: 0 a natural card, 1 a
    2 (every 2 is wild, RULES.md 1), 2 the joker."""
    return 2 if card == JOKER else 1 if card % NUM_RANKS == 1 else 0


def test_wilds_are_sorted_with_the_jokers(open_page):
    """By suit and by rank, the 2s stand just before the jokers at the end of the hand; the
    other cards keep their order (seed 17 deals P0 2♣ and a joker)."""
    page = open_page(LAPTOP)
    start_game(page, players=4, seed=17)
    wait_my_turn(page)
    page.click("#sort-suit")
    by_suit = hand_cards(page)
    assert JOKER in by_suit and any(c % NUM_RANKS == 1 for c in by_suit if c != JOKER)
    page.click("#sort-rank")
    by_rank = hand_cards(page)
    for cards in (by_suit, by_rank):
        wilds = [wild_rank(c) for c in cards]
        assert wilds == sorted(wilds), cards  # the naturals, then the 2s, then the jokers
    naturals = [c for c in by_suit if not wild_rank(c)]
    assert naturals == sorted(naturals)  # by suit: the server's order (suit, then rank)
    ranked = [c for c in by_rank if not wild_rank(c)]
    assert ranked == sorted(ranked, key=lambda c: ((c % NUM_RANKS), c // NUM_RANKS))


def test_running_score_on_the_table(open_page):
    """The points each team has on the table, its canastas, and on a brazilian table the
    points still needed to open, as the state JSON gives them."""
    page = open_page(DESKTOP)
    page.goto(page.base_url + "#/")
    page.wait_for_selector("#setup")
    page.select_option("#variant", "brazilian")
    page.dispatch_event("#variant", "change")
    page.select_option("#players", "2")
    page.fill("#seed", "2")
    page.click("#start")
    wait_my_turn(page)
    for t in (0, 1):
        text = page.inner_text(f"#running-{t}")
        assert "0 pts" in text and "50 to open" in text
    assert page.query_selector("#muertos .pack .card.back")  # a muerto: a face-down pack


def test_fast_bots_play_rounds_to_the_persons_turn(open_page):
    """Three discard_table bots at "fast" play round after round back to the person's
    turn. How long a round takes is a benchmark (scripts/bench/bench_web.py), not a test."""
    page = open_page(LAPTOP, speed="fast")
    start_game(page, players=4, seed=3, bots="normal")
    rounds = []
    while wait_my_turn(page) == "mine" and len(rounds) < 8:
        draw = page.query_selector(
            "#actions button[data-kind=draw], #actions button[data-kind=peek_keep]"
        )
        if draw is not None:
            click_and_wait(
                page, f"#actions button[data-action='{draw.get_attribute('data-action')}']"
            )
            continue
        card = page.query_selector("#hand .card.discardable")
        if card is None:
            break
        before = moves_count(page)
        card.dblclick()
        t0 = time.perf_counter()
        page.wait_for_function(MOVED, arg=before)
        page.wait_for_selector("#table[data-state=my-turn], #overlay")
        if page.query_selector("#overlay"):
            break
        rounds.append(time.perf_counter() - t0)
    assert len(rounds) >= 3


def test_a_refused_move_shows_the_engines_reason(page):
    start_game(page, players=4, seed=3)
    assert wait_my_turn(page) == "mine"  # P0 plays first: the peek
    assert page.query_selector("#actions button[data-kind=peek_keep]") is not None
    hand = hand_cards(page)
    before = moves_count(page)
    page.click("#hand .card >> nth=0")
    page.click("#pile")  # discarding before the peek is decided
    page.wait_for_selector("#message.error")
    text = page.inner_text("#message")
    # the rule in the page's words: this part of the turn comes first
    assert "You cannot discard" in text and "first keep the card drawn" in text
    assert hand_cards(page) == hand and moves_count(page) == before
    # three cards that make no meld: the attempt is explained
    page.click("#hand .card >> nth=0")  # unselect
    picks: list[int] = []
    for i, c in enumerate(hand):
        if (
            c != 52
            and c % NUM_RANKS != 1
            and all(abs(c % NUM_RANKS - hand[j] % NUM_RANKS) > 2 for j in picks)
        ):
            picks.append(i)
    for i in picks[:3]:
        page.click(f"#hand .card >> nth={i}")
    page.click("#meld-try")
    page.wait_for_function("document.querySelector('#message').textContent.includes('not a meld')")
    assert hand_cards(page) == hand and moves_count(page) == before
    assert_not_blank(page.screenshot())
    # the game goes on: a legal move is played
    click_and_wait(page, "#actions button[data-kind=peek_keep]")
    assert moves_count(page) == before + 1
    assert page.inner_text("#message") == ""


def test_reload_resumes_and_tabs_are_separate(page, browser, server):
    first = start_game(page, players=2, seed=9)
    wait_my_turn(page)
    hand = hand_cards(page)
    count = moves_count(page)
    other = browser.new_context().new_page()
    other.base_url = server[0]
    second = start_game(other, players=2, seed=9)
    assert second != first
    wait_my_turn(other)
    click_and_wait(other, "#actions button[data-kind]")  # a move in the other tab only
    page.reload()
    page.wait_for_selector("#table")
    assert page.evaluate("location.hash") == f"#/play/{first}"
    wait_my_turn(page)
    assert hand_cards(page) == hand and moves_count(page) == count
    page.goto(page.base_url + "#/play/nosuchgame")
    page.wait_for_selector("#message.error")
    assert "no game 'nosuchgame'" in page.inner_text("#message")
    other.context.close()


def test_a_game_resumes_mid_hand_after_a_server_restart_and_a_closed_browser(browser, tmp_path):
    """The games are kept in SQLite as they are played: the server stopped (politely,
    then by kill -9 between two moves) and started again on the same file, and the
    browser closed and opened again with its cookies, the link shows the same table, the
    same hand and every acknowledged move, and the game plays on."""
    db = tmp_path / "games.sqlite3"
    proc, url = start_serve("--records", str(tmp_path / "records"), "--db", str(db))
    context = browser.new_context(viewport=LAPTOP)
    try:
        pg = context.new_page()
        pg.set_default_timeout(WAIT_MS)
        pg.base_url = url
        game_id = start_game(pg, players=2, seed=21)
        for _ in range(3):
            assert wait_my_turn(pg) == "mine"
            play_one_move(pg)
        assert wait_my_turn(pg) == "mine"
        hand, count = hand_cards(pg), moves_count(pg)
        log = pg.inner_text("#log")
        cookies = context.cookies()
    finally:
        context.close()  # the browser closed
        stop_serve(proc)  # and the server stopped

    stops = iter(("kill -9", "terminate"))  # how each server below ends
    for after in ("a restart", "a kill -9 between two moves"):
        proc, url = start_serve("--records", str(tmp_path / "records"), "--db", str(db))
        stop = next(stops)
        context = browser.new_context(viewport=LAPTOP)
        try:
            # the cookies a browser keeps on disk (a new port is the same host for them)
            context.add_cookies(cookies)
            pg = context.new_page()
            pg.set_default_timeout(WAIT_MS)
            pg.goto(f"{url}#/play/{game_id}")
            pg.wait_for_selector("#table")
            assert wait_my_turn(pg) == "mine", after
            assert hand_cards(pg) == hand and moves_count(pg) == count, after
            assert pg.inner_text("#log") == log, after
            play_one_move(pg)  # acknowledged: the table shows it, and the bots' replies
            assert wait_my_turn(pg) == "mine", after
            hand, count = hand_cards(pg), moves_count(pg)
            log = pg.inner_text("#log")
            cookies = context.cookies()
        finally:
            context.close()
            stop_serve(proc, kill=stop == "kill -9")


def test_the_rules_page_and_house_rules_make_the_engines_variant(browser, tmp_path):
    """The rules the set-up form shows are ``burako rules``' own words; the house rules
    chosen there are kept with the game and deal the variant the engine builds from
    them, parameter for parameter."""
    import sqlite3
    from dataclasses import asdict

    from typer.testing import CliRunner

    from burako_env.frontends.cli import app as cli_app
    from burako_env.variants import load_variant

    db = tmp_path / "games.sqlite3"
    proc, url = start_serve("--records", str(tmp_path / "records"), "--db", str(db))
    context = browser.new_context(viewport=LAPTOP)
    try:
        pg = context.new_page()
        pg.set_default_timeout(WAIT_MS)
        pg.goto(url + "#/")
        pg.wait_for_selector("#setup")
        pg.select_option("#variant", "italian")
        pg.dispatch_event("#variant", "change")
        pg.select_option("#players", "4")
        pg.dispatch_event("#players", "change")
        pg.click("#show-rules")
        pg.wait_for_function(
            "() => document.querySelector('#rules-text').textContent.startsWith('italian: 4')"
        )
        shown = pg.inner_text("#rules-text")
        printed = CliRunner().invoke(cli_app, ["rules", "italian", "--players", "4"]).output
        assert shown.strip() and printed.startswith(shown.strip()), (shown[:200], printed[:200])

        pg.click("#house summary")
        pg.fill("[data-rule=target]", "1500")
        pg.select_option("[data-rule=close_requires]", "clean_canasta")
        pg.uncheck("[data-rule=pile_no_rediscard]")
        pg.fill("[data-rule=min_first_meld]", "50")
        pg.select_option("#seat", "0")
        pg.select_option("#bots-all", "easy")
        pg.dispatch_event("#bots-all", "change")
        pg.fill("#seed", "8")
        game_id = deal(pg)
    finally:
        context.close()
        stop_serve(proc)
    with sqlite3.connect(db) as conn:
        (options,) = conn.execute("SELECT options FROM games WHERE id=?", (game_id,)).fetchone()
    kept = json.loads(options)
    chosen = {
        "target": 1500,
        "close_requires": "clean_canasta",
        "pile_no_rediscard": False,
        "min_first_meld": 50,
    }
    assert kept["rules"] == chosen  # only what the player changed
    engine = load_variant("italian", num_players=4, **chosen)
    plain = load_variant("italian", num_players=4)
    assert {k: getattr(engine, k) for k in chosen} == chosen
    # the game as the server deals it from the kept options plays the engine's variant
    from burako_env.frontends.web.sessions import PlaySession

    session = PlaySession.restore(game_id, kept, [])
    assert asdict(session.game.variant) == asdict(engine) != asdict(plain)


def recorded_game(
    seed: int = 4,
    num_players: int = 4,
    seats: list[str] | None = None,
    episode: str = "hand",
    choices: list[int] | None = None,
) -> GameRecord:
    """An argentine game the random agent plays, recorded with the seat names ``seats``
    (all "random" by default); ``choices``, a list, gets the steps where seat 0 has more
    than two legal moves."""
    game = Game("argentine", num_players=num_players, seed=seed, episode=episode)
    agent = make_agent("random", seed=seed)
    actions = []
    while not game.is_over():
        seat = int(game.current_player[0])
        if choices is not None and seat == 0 and game.legal_actions().size > 2:
            choices.append(len(actions))
        obs = game.observe_one(int(game.current_player[0]))[None]
        a = int(agent.act(obs, game.legal_action_mask())[0])
        game.step_one(a)
        actions.append(a)
    scores = game.match_scores if episode == "match" else game.hand_scores
    return GameRecord(
        variant="argentine",
        num_players=num_players,
        seed=seed,
        index=0,
        seats=seats or ["random"] * num_players,
        actions=actions,
        scores=[int(v) for v in scores[0]],
        winner=int(game.winner[0]),
        episode=episode,
    )


def test_step_a_recorded_game_forward_and_back(page, records_dir):
    rec = recorded_game()
    write_records(records_dir / "watched.jsonl", [rec])
    n = len(rec.actions)
    page.goto(page.base_url + "#/watch")
    page.click("a[data-file='watched.jsonl']")
    page.click("a[data-game='0']")
    page.wait_for_selector("#counter")
    assert page.inner_text("#counter") == f"move 0 / {n}"
    for k in (1, 2, 3):
        page.click("#forward")
        page.wait_for_selector(f"#table[data-step='{k}']")
    assert page.inner_text("#counter") == f"move 3 / {n}"
    told = Game("argentine", seed=rec.seed)  # the moves in the words of burako replay
    words = [web_words(play_and_describe(told, a).text) for a in rec.actions[:3]]
    assert words[2] in page.inner_text("#last-move")
    page.click("#back")
    page.wait_for_selector("#table[data-step='2']")
    assert words[1] in page.inner_text("#last-move")
    page.keyboard.press("ArrowRight")
    page.wait_for_selector("#table[data-step='3']")
    # every hand open, then one seat's view
    assert len(page.query_selector_all("#seats .seat .card.back")) == 0
    page.select_option("#viewer", "1")
    page.wait_for_function("location.hash.includes('viewer=1')")
    page.wait_for_selector("#seats .seat[data-seat='0'] .card.back")
    assert page.query_selector("#seats .seat[data-seat='1'] .card.back") is None
    page.click("#last")
    page.wait_for_selector(f"#table[data-step='{n}']")
    assert "team" in page.inner_text("#score-table")
    assert_not_blank(page.screenshot(full_page=True))
    page.reload()  # the step is in the URL
    page.wait_for_selector(f"#table[data-step='{n}']")
    # a corrupt file is explained, not shown
    (records_dir / "broken.jsonl").write_text("{not a record\n")
    page.goto(page.base_url + "#/watch?file=broken.jsonl&game=0&step=0&viewer=all")
    page.wait_for_selector("#message.error")
    assert "line 1): not a game record" in page.inner_text("#message")
    page.goto(page.base_url + "#/watch?file=..%2Fsecret.jsonl&game=0")
    page.wait_for_selector("#message.error")
    assert "no record file '../secret.jsonl'" in page.inner_text("#message")


def test_watch_auto_play_jumps_and_the_replay_command(open_page, records_dir):
    """Watch on a phone: nothing scrolls sideways; auto-play at the fastest speed moves
    on by itself and pauses; "next hand" and "next turn of" a seat jump to where the
    record says; the seed, the seats and a `burako replay` command are shown."""
    rec = recorded_game(6, num_players=2, seats=["random", "greedy"], episode="match")
    write_records(records_dir / "match.jsonl", [rec])
    page = open_page(PHONE, touch=True)
    page.goto(page.base_url + "#/watch?file=match.jsonl&game=0&step=0&viewer=all")
    page.wait_for_selector("#table[data-step='0']")
    assert page.evaluate("document.scrollingElement.scrollWidth <= innerWidth")
    assert page.input_value("#replay-cmd") == "burako replay match.jsonl --game 0 --step"
    assert "seed 6" in page.inner_text("#record-seats") and "P1 Easy" in page.inner_text(
        "#record-seats"
    )
    # the next hand: where the second hand's deal begins
    page.click("#next-hand-jump")
    page.wait_for_function("+document.querySelector('#table').dataset.step > 0")
    step = int(page.get_attribute("#table", "data-step"))
    assert "hand 2" in page.inner_text("#status")
    assert "hand 1" in page.evaluate(
        "fetch('/api/records/view?file=match.jsonl&step=' + (" + str(step) + " - 1))"
        ".then(r => r.json()).then(v => 'hand ' + v.hand_number)"
    )
    # the next turn of P1: the table as P1 is about to act
    page.select_option("#turn-seat", "1")
    page.click("#next-turn")
    page.wait_for_function(f"+document.querySelector('#table').dataset.step > {step}")
    assert page.inner_text("#status").startswith("P1 (Easy) to act")
    # auto-play at 20 moves a second, then a pause
    page.eval_on_selector(
        "#watch-speed", "e => { e.value = 20; e.dispatchEvent(new Event('input')); }"
    )
    at = int(page.get_attribute("#table", "data-step"))
    page.click("#auto")
    page.wait_for_function(f"+document.querySelector('#table').dataset.step >= {at + 5}")
    page.click("#auto")
    paused = int(page.get_attribute("#table", "data-step"))
    page.wait_for_timeout(400)
    assert int(page.get_attribute("#table", "data-step")) <= paused + 1  # one in flight at most
    assert page.evaluate("document.scrollingElement.scrollWidth <= innerWidth")


# ---------------------------------------------------------------- how the bots think
def js_fixed(x: float, digits: int) -> str:
    """``x.toFixed(digits)`` as JavaScript writes it: the double's exact value, a tie
    rounded away from zero (Python's own format rounds a tie to even)."""
    text = str(Decimal(abs(x)).quantize(Decimal(1).scaleb(-digits), rounding=ROUND_HALF_UP))
    return ("-" if x < 0 else "") + text


def js_signed(x: float, digits: int) -> str:
    """The page's ``signed``: a + before a number >= 0."""
    return ("+" if x >= 0 else "") + js_fixed(x, digits)


#: the rows of a thinking panel: [action, move, numbers, re-deals, chosen]
THINK_ROWS = """rows => rows.map(r => [+r.dataset.action,
  r.querySelector('.think-move').firstChild.textContent,
  r.querySelector('.think-num').textContent,
  (r.querySelector('.think-redeals') || {}).textContent || null,
  r.classList.contains('chosen')])"""


def test_the_hint_shows_what_agents_pimc_finds_on_a_laptop(open_page):
    """At 1366x768, H asks for a hint on the person's turn: the panel lists Expert's
    candidates with the mean margins, intervals and re-deals that ``agents.pimc``'s
    ``think`` finds for the same position and seed (the server's fixed hint seed), in
    the same order, its pick marked, on the screen."""
    page = open_page(LAPTOP)
    start_game(page, players=4, seed=3, bots="easy")
    assert wait_my_turn(page) == "mine"  # seat 0 acts first: the peek
    assert page.query_selector("#hint-panel") is None
    keep = page.get_attribute("#actions button[data-kind=peek_keep]", "data-action")
    click_and_wait(page, f"#actions button[data-action='{keep}']")
    assert wait_my_turn(page) == "mine"
    page.keyboard.press("h")
    page.wait_for_selector("#hint-advice", timeout=120_000)
    page.click("#hint-details > summary")  # the numbers behind "details"
    page.wait_for_selector("#hint-panel .think-table")
    shown = page.eval_on_selector_all("#hint-panel tr.cand", THINK_ROWS)
    # the same position through the Python API: the deal, the peeked card kept
    game = Game("argentine", num_players=4, episode="hand", seed=3)
    game.step_one(int(keep))
    assert sorted(hand_cards(page)) == sorted(
        c for c in range(53) for _ in range(int(game.state.hands[0, 0, c]))
    )
    report = make_agent(HINT_AGENT, seed=hint_seed(3, 1)).think(game)
    expected = search_json(report, 0, "Expert")
    assert len(expected["candidates"]) > 2
    assert [row[0] for row in shown] == [c["action"] for c in expected["candidates"]]
    for row, c in zip(shown, expected["candidates"], strict=True):
        interval = f" [{js_fixed(c['margin_low'], 1)}, {js_fixed(c['margin_high'], 1)}]"
        assert row[1:] == [
            web_words(c["text"]),
            js_signed(c["margin"], 1) + (interval if c["margin_low"] is not None else ""),
            str(c["redeals"]),
            c["choice"],
        ], (row, c)
    assert sum(row[4] for row in shown) == 1
    summary = page.inner_text("#hint-panel .think-summary")
    assert f"in your seat, dealt the cards it cannot see again {report.redeals} times" in summary
    assert web_words(action_words(report.action)) in summary
    # on the screen, above the hand held at the bottom
    box = page.eval_on_selector("#hint-panel", "e => e.getBoundingClientRect().toJSON()")
    assert 0 <= box["top"] < LAPTOP["height"] / 2, box
    assert_layout(page)
    # the hint stays until the next move, then goes
    discard = page.query_selector("#hand .card.discardable")
    before = moves_count(page)
    discard.dblclick()
    page.wait_for_function(MOVED, arg=before)
    assert page.query_selector("#hint-panel") is None


def test_the_hint_for_a_player_advice_first_cards_marked_numbers_behind_details(open_page):
    """The hint button on the person's turn: the advice in words comes first (the
    server's words), Expert's plan for the turn under it, the cards of the pick outlined
    in the hand, the research table behind "details", closed until it is opened; playing
    the pick clears the outline and the panel."""
    page = open_page(LAPTOP)
    gid = start_game(page, players=2, seed=3, bots="easy")
    assert wait_my_turn(page) == "mine"
    keep = page.query_selector("#actions button[data-kind=peek_keep]")
    if keep is not None:  # the first turn's peek: keep the card, then the play phase
        click_and_wait(page, f"#actions button[data-action='{keep.get_attribute('data-action')}']")
        assert wait_my_turn(page) == "mine"
    assert page.query_selector("#hand .card.hint-card") is None
    page.click("#hint")
    page.wait_for_selector("#hint-advice", timeout=120_000)
    hint = page.evaluate(f"fetch('/api/games/{gid}').then(r => r.json())")["hint"]
    # the advice first, under the title: the move and its number in words
    first = page.eval_on_selector("#hint-panel", "e => [e.children[0].tagName, e.children[1].id]")
    assert first == ["H3", "hint-advice"]
    advice = page.inner_text("#hint-advice")
    assert advice == hint["advice"] and "points for your team by the end of the hand" in advice
    assert advice.lower().startswith(hint["choice"]["text"].lower() + ":")
    if len(hint["plan"]) > 1:
        plan = page.eval_on_selector_all("#hint-plan li", "e => e.map(x => x.textContent)")
        assert plan == [m["text"] for m in hint["plan"]]
        assert page.inner_text("#hint-plan .hint-plan-end") == hint["plan_end"]
    # the pick's cards outlined, in the hand
    marked = page.eval_on_selector_all("#hand .card.hint-card", "e => e.map(c => +c.dataset.card)")
    assert marked and sorted(marked) == sorted(hint["cards"])
    assert not Counter(marked) - Counter(hand_cards(page))
    # the numbers behind "details": closed, then open on a click
    assert page.eval_on_selector("#hint-details", "e => e.open") is False
    assert not page.is_visible("#hint-panel .think-table")
    page.click("#hint-details > summary")
    assert page.eval_on_selector("#hint-details", "e => e.open") is True
    assert page.is_visible("#hint-panel .think-table")
    rows = page.eval_on_selector_all("#hint-panel tr.cand", THINK_ROWS)
    assert [r[0] for r in rows] == [c["action"] for c in hint["candidates"]]
    # the pick played by clicking its marked cards: the outline and the panel go, and
    # the hand is short of just those cards
    action = hint["choice"]["action"]
    held = Counter(hand_cards(page))
    before = moves_count(page)
    if len(marked) == 1:
        page.dblclick("#hand .card.hint-card")  # a discard
    else:
        for _ in marked:  # each click draws the hand again: look it up anew
            page.click("#hand .card.hint-card:not(.selected) >> nth=0")
        page.click(f"#actions button[data-action='{action}']")
    page.wait_for_function(MOVED, arg=before)
    assert page.query_selector("#hand .card.hint-card") is None
    assert page.query_selector("#hint-panel") is None
    view = page.evaluate(f"fetch('/api/games/{gid}').then(r => r.json())")
    if view["to_act"] == 0 or len(marked) > 1:  # a meld keeps the turn; nothing drawn yet
        assert Counter(view["seats"][0]["hand"]) == held - Counter(marked)


def test_a_table_that_hides_the_bots_estimates(open_page):
    """The set-up form's "show the bots' estimates" unticked: the game is dealt with
    ``bot_estimates: false``, the server sends no bot's thinking and the panel says why."""
    page = open_page(LAPTOP)
    page.goto(page.base_url + "#/")
    page.wait_for_selector("#setup")
    assert page.is_checked("#bot-estimates")  # on by default
    page.select_option("#players", "2")
    page.select_option("#bots-all", "expert")
    page.dispatch_event("#bots-all", "change")
    page.fill("#seed", "5")
    page.uncheck("#bot-estimates")
    with page.expect_request(lambda r: r.url.endswith("/api/games") and r.method == "POST") as req:
        page.click("#start")
    assert json.loads(req.value.post_data)["bot_estimates"] is False
    page.wait_for_selector("#table")
    gid = page.evaluate("location.hash").split("/")[-1]
    page.check("#think-toggle")
    page.wait_for_selector("#thinking .think-none")
    assert "hides the bots' estimates" in page.inner_text("#thinking .think-none")
    view = page.evaluate(f"fetch('/api/games/{gid}').then(r => r.json())")
    assert view["bot_estimates"] is False and view["thinking"] is None
    page.uncheck("#think-toggle")  # the browser remembers the switch: leave it off


def play_a_turn(page, discard) -> None:
    """The person's turn: keep or draw until no draw is offered, then ``discard()``; back
    when the bots have played and it is the person's turn again."""
    while True:
        draw = page.query_selector(
            "#actions button[data-kind=draw], #actions button[data-kind=peek_keep]"
        )
        if draw is None:
            break
        click_and_wait(page, f"#actions button[data-action='{draw.get_attribute('data-action')}']")
        assert wait_my_turn(page) == "mine"
    before = moves_count(page)
    discard()
    page.wait_for_function(MOVED, arg=before)
    assert wait_my_turn(page) == "mine"


def test_the_thinking_toggle_shows_an_expert_bots_move(open_page):
    """Off at first; switched on after an Expert bot's turn, the panel shows the search
    behind its last move, as the server keeps it for the person (its move marked, moves
    with cards hidden from the person left out and said so); "why?" in the log shows an
    earlier move's."""
    page = open_page(LAPTOP, speed="fast")
    start_game(page, players=2, seed=5, bots="expert")
    assert wait_my_turn(page) == "mine"
    assert not page.is_checked("#think-toggle")
    assert page.inner_html("#think-slot") == ""
    play_a_turn(page, lambda: page.query_selector("#hand .card.discardable").dblclick())
    gid = page.evaluate("location.hash").split("/")[-1]
    view = page.evaluate(f"fetch('/api/games/{gid}').then(r => r.json())")
    thought = [e for e in view["log"] if e.get("thinking")]
    assert thought and all(e["seat"] == 1 for e in thought)
    last = thought[-1]
    page.check("#think-toggle")
    page.wait_for_selector("#thinking .think-summary")
    expected = page.evaluate(
        f"fetch('/api/games/{gid}/thinking?move={last['move']}').then(r => r.json())"
    )
    assert expected["kind"] == "search" and expected["choice"]["text"] == last["text"]
    who = page.inner_text("#thinking .think-who")
    assert who.startswith(f"P1 (Expert), move {last['move']}: {last['text']}")
    assert page.inner_text("#thinking .think-summary") == expected["summary"]
    shown = page.eval_on_selector_all("#thinking tr.cand", THINK_ROWS)
    assert [(r[0], r[1], r[4]) for r in shown] == [
        (c["action"], c["text"], c["choice"]) for c in expected["candidates"]
    ]
    assert (page.query_selector("#thinking .think-withheld") is not None) == expected["withheld"]
    # an earlier move of the bot, from the log
    if len(thought) > 1:
        first = thought[0]
        page.click(f"#log button.why[data-move='{first['move']}']")
        page.wait_for_function(
            "m => (document.querySelector('#thinking .think-who') || {}).textContent"
            "?.includes('move ' + m + ':')",
            arg=first["move"],
        )
    # remembered by the browser, and switched off again
    page.reload()
    page.wait_for_selector("#thinking .think-summary")
    page.uncheck("#think-toggle")
    assert page.inner_html("#think-slot") == ""


def test_on_a_phone_the_logs_why_buttons_are_40_px(open_page):
    """The drawer's "why?" beside an Expert bot's move is a control for a finger, 40 px
    each way like every other on a phone."""
    page = open_page(PHONE, touch=True, speed="fast")
    start_game(page, players=2, seed=5, bots="expert")
    assert wait_my_turn(page) == "mine"
    play_a_turn(  # a finger's discard: the last card dragged onto the pile
        page,
        lambda: touch_drag(
            page,
            page.query_selector_all("#hand .card.discardable")[-1],
            page.query_selector("#pile"),
        ),
    )
    page.tap("#log-toggle")
    page.wait_for_selector("#log", state="visible")
    sizes = page.eval_on_selector_all(
        "#log button.why", "bs => bs.map(b => [b.offsetWidth, b.offsetHeight])"
    )
    assert sizes and all(w >= 40 and h >= 40 for w, h in sizes), sizes


def test_watch_shows_a_recorded_expert_seat_thinking(page, records_dir):
    """Watching a record whose seat 0 is Expert (pimc): at a step where it acts, the
    panel shows the search of that position and the move the record plays next; at the
    other seat's step it says why there is nothing to show."""
    steps: list[int] = []
    rec = recorded_game(8, num_players=2, seats=["pimc", "random"], choices=steps)
    actions = rec.actions
    write_records(records_dir / "expert.jsonl", [rec])
    step = steps[len(steps) // 2]
    page.goto(page.base_url + f"#/watch?file=expert.jsonl&game=0&step={step}&viewer=all")
    page.wait_for_selector(f"#table[data-step='{step}']")
    assert page.inner_html("#think-slot") == ""
    page.check("#think-toggle")
    page.wait_for_selector("#thinking .think-table")
    who = page.inner_text("#thinking .think-who")
    assert who == (
        f"P0 (Expert) to act; the record plays next: {web_words(action_words(actions[step]))}"
    )
    assert len(page.query_selector_all("#thinking tr.cand")) > 2
    assert len(page.query_selector_all("#thinking tr.cand.chosen")) == 1
    assert page.query_selector("#thinking .think-withheld") is None  # a record's hands are open
    replay = Game("argentine", num_players=2, seed=8)
    for k, a in enumerate(actions):  # the next step where the random seat acts
        if k > step and int(replay.current_player[0]) == 1:
            break
        replay.step_one(a)
    page.goto(page.base_url + f"#/watch?file=expert.jsonl&game=0&step={k}&viewer=all")
    page.wait_for_selector(f"#table[data-step='{k}'] #thinking .think-none")
    assert "P1 (random) to act" in page.inner_text("#thinking .think-who")
    assert "fixed rules" in page.inner_text("#thinking .think-none")


def play_one_move(page) -> None:
    """The page's person to act plays one move: draws (or keeps the peeked card), else
    discards the last discardable card, else lays the first opening offered, else the
    first button (the muerto)."""
    draw = page.query_selector(
        "#actions button[data-kind=draw], #actions button[data-kind=peek_keep]"
    )
    if draw is not None:
        click_and_wait(page, f"#actions button[data-action='{draw.get_attribute('data-action')}']")
        return
    discardable = page.query_selector_all("#hand .card.discardable")
    if discardable:
        discardable[-1].click()
        click_and_wait(page, "#discard")
        return
    if page.query_selector("#suggest .option"):
        page.click("#suggest summary")
        click_and_wait(page, "#suggest .option")
        return
    click_and_wait(page, "#actions button[data-kind]")


def test_two_friends_at_one_table_as_partners(open_page):
    """Issue 57.2: two browser contexts (two people, each with their own cookies) at one
    table as partners, P0 and P2, the bots at P1 and P3: the creator's page shows the
    partner's link once, the partner opens it, and both play the hand to its end, the
    bots' moves asked by both pages (``bot?after=N``). Every answer either page received
    about the game is checked against the seat's observation at that move of the game
    (replayed from its record): its own hand, and no other hand while it was live."""
    creator = open_page(LAPTOP)
    partner = open_page(LAPTOP)
    answers: dict[int, list] = {0: [], 2: []}
    for seat, pg in ((0, creator), (2, partner)):
        pg.on(
            "response",
            lambda r, seat=seat: answers[seat].append(r) if "/api/games/" in r.url else None,
        )
    fill_setup(creator, players=4, seed=11)
    creator.select_option("#bots select.bot[data-seat='2']", "friend")
    game_id = deal(creator)
    link = creator.input_value("#links .seat-link[data-seat='2']")
    assert link.startswith(creator.base_url) and f"#/join/{game_id}/" in link
    assert creator.query_selector("#links .copy-link[data-seat='2']") is not None
    assert_layout(creator)  # the links' panel scrolls nothing sideways
    creator.set_viewport_size(PHONE)
    assert_layout(creator)
    creator.set_viewport_size(LAPTOP)
    partner.goto(link)
    partner.wait_for_selector("#table")
    assert partner.evaluate("location.hash") == f"#/play/{game_id}"  # the token left the bar
    assert "P2 (team 0)" in partner.inner_text("#mine h3")
    creator.click("#links-done")
    assert creator.query_selector("#links") is None  # shown once
    moves = 0
    deadline = time.monotonic() + 600
    while True:
        states = [pg.get_attribute("#table", "data-state") for pg in (creator, partner)]
        if all(s == "over" for s in states):
            break
        assert time.monotonic() < deadline, f"the hand does not end: {states}"
        mover = [pg for pg, s in zip((creator, partner), states, strict=True) if s == "my-turn"]
        if mover:
            play_one_move(mover[0])
            moves += 1
        else:
            creator.wait_for_timeout(50)
    assert moves > 6
    record_text = creator.request.get(f"{creator.base_url}api/games/{game_id}/record").text()
    record = parse_record(record_text.strip())
    assert check_record(record) is None
    assert record.seats[0::2] == ["human", "human"] and record.meta["people"] == [0, 2]
    checked = 0
    for seat, responses in answers.items():
        for response in responses:
            if response.request.method == "GET" and response.url.endswith("/record"):
                continue
            if response.status != 200 and response.status != 201:
                continue
            view = response.json()
            if "seats" not in view:
                continue
            assert view["seat"] == seat
            if view["over"]:
                continue
            game = start(record)
            for a in record.actions[: view["move_count"]]:
                game.step_one(int(a))
            counts = game.observe_one(seat)[game.layout.hand : game.layout.hand + 53]
            own = sorted(c for c in range(53) for _ in range(int(counts[c])))
            assert sorted(view["seats"][seat]["hand"]) == own
            assert ["hand" in s for s in view["seats"]] == [p == seat for p in range(4)]
            checked += 1
    assert checked > 20


# ---------------------------------------------------------------- the phone, finished
#: what a phone must keep in reach on the person's turn: the hand's cards in one row (their
#: layout tops, a selected card's lift aside), the stock, the pile and the peeked card on
#: the screen and not covered (elementFromPoint at each centre is inside it), and every
#: visible control 40 px or more each way (a checkbox or radio counts as its label)
REACH = """() => {
  const tops = [...document.querySelectorAll('#hand .card')].map(c => c.offsetTop);
  const stacks = {};
  for (const id of ['stock', 'pile', 'peek']) {
    const e = document.getElementById(id);
    if (!e) continue;
    const b = e.getBoundingClientRect();
    const x = b.left + b.width / 2, y = b.top + b.height / 2;
    const under = document.elementFromPoint(x, y);
    const onScreen = b.top >= 0 && b.bottom <= innerHeight && b.left >= 0 && b.right <= innerWidth;
    stacks[id] = {on_screen: onScreen, uncovered: !!under && e.contains(under)};
  }
  const small = [...document.querySelectorAll('button, select, input, summary, a[href]')]
    .map(e => (e.matches('input[type=checkbox], input[type=radio]') && e.closest('label')) || e)
    .filter(e => e.checkVisibility({visibilityProperty: true}))
    .map(e => [e, e.getBoundingClientRect()])
    .filter(([e, b]) => b.right > 0 && b.left < innerWidth && (b.width < 40 || b.height < 40))
    .map(([e, b]) => `${e.id || e.textContent.trim().slice(0, 20)} ${b.width}x${b.height}`);
  return {cards: tops.length, rows: new Set(tops).size, stacks, small};
}"""


def test_phone_keeps_the_hand_stock_and_pile_in_reach_for_a_whole_hand(open_page):
    """Issue 57.5 at 390x844, a whole hand of a match by touch: on every decision of the
    person the hand (11 cards at the deal) is one row, the stock, the pile and the peeked
    card are on the screen and uncovered by the hand's bar (though the page scrolled to
    reach a meld), no control is under 40 px; the stock and the pile are tapped to draw
    and discard. The hand's end then shows who went out, the table as it ended and every
    hand (the server's ``hand_end``), before the next deal is played."""
    page = open_page(PHONE, touch=True)
    start_game_with(page, players=4, seed=3, episode="match")
    turns = 0
    tapped = {"stock": 0, "pile": 0}
    while wait_my_turn(page) == "mine":
        turns += 1
        assert turns < 300, "the hand does not end"
        got = page.evaluate(REACH)
        if turns == 1:
            assert got["cards"] == 11
        assert got["rows"] == 1, f"decision {turns}: {got['cards']} cards in {got['rows']} rows"
        assert got["stacks"]["stock"] == {"on_screen": True, "uncovered": True}, (turns, got)
        assert got["stacks"]["pile"] == {"on_screen": True, "uncovered": True}, (turns, got)
        if "peek" in got["stacks"]:
            assert got["stacks"]["peek"] == {"on_screen": True, "uncovered": True}, (turns, got)
        assert got["small"] == [], f"decision {turns}: controls under 40 px: {got['small']}"
        assert_layout(page)
        before = moves_count(page)
        what = "the rest"
        if page.query_selector("#peek.takeable"):
            what = "tap the peeked card"
            page.tap("#peek")
        elif page.query_selector("#stock.takeable"):
            what = "tap the stock"
            page.tap("#stock")
            tapped["stock"] += 1
        elif page.query_selector("#suggest .option"):
            what = "open a meld"
            if not page.is_visible("#suggest .option"):
                page.tap("#suggest summary")
            page.tap("#suggest .option")
        elif page.query_selector("#hand .card.addable"):
            what = "tap a card, tap its meld"
            tap_card(page, page.query_selector("#hand .card.addable"))
            meld = page.query_selector(".meld.can-add")
            meld.evaluate("e => e.scrollIntoView({block: 'center'})")  # the page scrolls
            meld.tap()
        elif page.query_selector("#hand .card.discardable"):
            what = "tap a card, tap the pile"
            tap_card(page, page.query_selector_all("#hand .card.discardable")[-1])
            page.tap("#pile")
            tapped["pile"] += 1
        else:
            page.tap("#actions button[data-kind]")
        wait_moved(page, before, what)
    assert turns > 3 and tapped["stock"] > 3 and tapped["pile"] > 3
    end = page.evaluate("view.hand_end")
    assert page.evaluate("view.hand_number") == 2 and end["number"] == 1  # dealt, not played
    went = page.inner_text("#went-out")
    if end["went_out"] is None:
        assert went == f"Nobody went out: {end['reason']}."
    else:
        assert f"P{end['went_out']['seat']} " in went and "went out" in went
    for t in (0, 1):
        shown = page.eval_on_selector_all(
            f"#end-table .end-team[data-team='{t}'] .meld",
            "ms => ms.map(m => [...m.querySelectorAll('.card')].map(c => +c.dataset.card))",
        )
        assert shown == [[x["card"] for x in m["cards"]] for m in end["melds"][t]]
    for seat, cards in enumerate(end["hands"]):
        row = f"#end-hands .end-hand[data-seat='{seat}']"
        assert (
            page.eval_on_selector_all(row + " .card", "e => e.map(c => +c.dataset.card)") == cards
        )
    assert sum(map(len, end["hands"])) > 0 and end["melds"] != [[], []]
    page.tap("#next-hand")
    assert page.query_selector("#overlay") is None
    assert wait_my_turn(page) == "mine" and page.evaluate(REACH)["rows"] == 1


def test_phone_set_up_form_and_watch_controls_are_40_px(open_page, records_dir):
    """At 390x844 the set-up form (its house rules open) and Watch have no control under
    40 px either (the table's own are checked turn by turn above)."""
    page = open_page(PHONE, touch=True)
    page.goto(page.base_url + "#/")
    page.wait_for_selector("#setup")
    page.tap("#house summary")
    page.wait_for_selector("#house-rules [data-rule]")
    assert page.evaluate(REACH)["small"] == []
    write_records(records_dir / "phone.jsonl", [recorded_game()])
    page.goto(page.base_url + "#/watch?file=phone.jsonl&game=0&step=5&viewer=all")
    page.wait_for_selector("#table[data-step='5']")
    assert page.evaluate(REACH)["small"] == []


def start_game_with(page, players: int, seed: int, episode: str = "hand") -> str:
    """start_game, for one hand or a whole match."""
    fill_setup(page, players, seed)
    page.check(f"#ep-{episode}")
    return deal(page)


#: each seat's last-move line and each meld's wild words, as the page shows them
LINES = """() => ({
  last: Object.fromEntries([...document.querySelectorAll('.last-move')].map(e => [e.dataset.seat,
    {text: e.textContent, one_line: e.getBoundingClientRect().height < 24,
     on_screen: e.checkVisibility({visibilityProperty: true})}])),
  wilds: [...document.querySelectorAll('#table .meld')].map(m => {
    const w = m.querySelector('.meld-wild');
    const shown = !!w && w.checkVisibility({visibilityProperty: true})
      && w.getBoundingClientRect().height > 0;
    return {title: m.title, text: w ? w.textContent : null, shown};
  }),
})"""


def test_each_seats_last_move_and_each_wild_in_words_on_every_screen(open_page, records_dir):
    """Issue 57.5: on a phone, a laptop and a desktop, every seat shows its last move of
    the hand in the log's words on one line, and every meld with a wild says what the wild
    stands for under it (not only in its tooltip)."""
    page = open_page(PHONE, touch=True)
    start_game(page, players=4, seed=3)
    while True:  # play until a meld with a wild is on the table and every seat has moved
        assert wait_my_turn(page) == "mine"
        melds = page.evaluate("view.melds.flat()")
        seats = {e["seat"] for e in page.evaluate("view.log")}
        if any(m["wild_text"] for m in melds) and seats >= {0, 1, 2, 3}:
            break
        play_one_move(page)
    log = page.evaluate("view.log")
    expected = {}
    for e in log:
        expected[str(e["seat"])] = "last: " + e["text"]
    for size in (PHONE, LAPTOP, DESKTOP):
        page.set_viewport_size(size)
        got = page.evaluate(LINES)
        assert {k: v["text"] for k, v in got["last"].items()} == expected, size
        assert all(v["one_line"] and v["on_screen"] for v in got["last"].values()), (size, got)
        wilds = [w for w in got["wilds"] if w["title"]]
        assert wilds and all(w["shown"] and w["text"] == w["title"] for w in wilds), (size, got)
    # a recorded game in Watch: every seat's line, up to the step shown
    rec = recorded_game()
    write_records(records_dir / "last_moves.jsonl", [rec])
    page.set_viewport_size(PHONE)
    page.goto(page.base_url + "#/watch?file=last_moves.jsonl&game=0&step=9&viewer=all")
    page.wait_for_selector("#table[data-step='9']")
    told = Game("argentine", seed=rec.seed)
    expected = {}
    for a in rec.actions[:9]:
        seat = int(told.current_player[0])
        expected[str(seat)] = "last: " + web_words(play_and_describe(told, a).text)
    got = page.evaluate(LINES)["last"]
    assert {k: v["text"] for k, v in got.items() if k in expected} == expected
    assert all(v["text"] == "no move yet this hand" for k, v in got.items() if k not in expected)


def test_a_turn_chime_card_sounds_and_a_mute_kept_by_the_browser(open_page):
    """Issue 57.5: Web Audio tones (no files): a chime when the person's turn begins, a
    tick for other moves; the mute switch silences both and the browser keeps it."""
    page = open_page(LAPTOP)
    start_game(page, players=4, seed=3)
    assert wait_my_turn(page) == "mine"
    assert (
        page.inner_text("#sound") == "♪ sound"
        and page.get_attribute("#sound", "aria-pressed") == "true"
    )
    for _ in range(4):  # the person's moves and the bots' round back to the person
        play_one_move(page)
        assert wait_my_turn(page) == "mine"
    played = page.evaluate("soundsPlayed.slice()")
    assert "turn" in played and "card" in played, played
    assert page.evaluate("audio !== null")  # made at the first click: a browser's rule
    page.click("#sound")
    assert (
        page.inner_text("#sound") == "♪ muted"
        and page.get_attribute("#sound", "aria-pressed") == "false"
    )
    assert page.evaluate("localStorage.getItem('burako-sound')") == "off"
    page.evaluate("soundsPlayed.length = 0")
    for _ in range(4):
        play_one_move(page)
        assert wait_my_turn(page) == "mine"
    assert page.evaluate("soundsPlayed.length") == 0
    page.reload()
    page.wait_for_selector("#sound")
    assert page.inner_text("#sound") == "♪ muted"
    page.click("#sound")
    assert page.evaluate("localStorage.getItem('burako-sound')") == "on"


def first_to_act(seed: int, players: int = 4) -> int:
    """The seat that makes the first move of the deal ``seed`` (the set-up form's variant)."""
    return int(Game("argentine", num_players=players, seed=seed).current_player[0])


def test_the_first_turn_chimes_once_dealt_after_the_bots_and_joined(open_page):
    """The chime of the person's first turn: once as the table shows when a game opens on
    their turn (dealt, or joined with a seat's link), once when the bots before them have
    played; not again for a reload mid-turn, nor muted. The joined game is then in the
    friend's "Your games", from their seat, and resumes from there."""
    seed = 3
    first = first_to_act(seed)
    at_once = open_page(LAPTOP)
    start_game(at_once, seed=seed, seat=first)
    assert wait_my_turn(at_once) == "mine"
    at_once.wait_for_timeout(300)  # nothing more follows
    assert at_once.evaluate("soundsPlayed.slice()") == ["turn"]
    at_once.reload()
    at_once.wait_for_selector("#table[data-state=my-turn]")
    at_once.wait_for_timeout(300)
    assert at_once.evaluate("soundsPlayed.slice()") == []  # this tab chimed it already

    after_bots = open_page(LAPTOP)
    start_game(after_bots, seed=seed, seat=(first + 2) % 4)  # two bots play first
    assert wait_my_turn(after_bots) == "mine"
    played = after_bots.evaluate("soundsPlayed.slice()")
    assert played.count("turn") == 1 and played[-1] == "turn" and "card" in played, played

    muted = open_page(LAPTOP)
    muted.context.add_init_script("localStorage.setItem('burako-sound', 'off')")
    start_game(muted, seed=seed, seat=first)
    assert wait_my_turn(muted) == "mine"
    muted.wait_for_timeout(300)
    assert muted.evaluate("soundsPlayed.length") == 0

    creator, friend = open_page(LAPTOP), open_page(LAPTOP)
    fill_setup(creator, players=4, seed=seed, seat=(first + 3) % 4)  # the creator acts last
    creator.select_option(f"#bots select.bot[data-seat='{first}']", "friend")
    game_id = deal(creator)
    friend.goto(creator.input_value(f"#links .seat-link[data-seat='{first}']"))
    friend.wait_for_selector("#table[data-state=my-turn]")
    friend.wait_for_timeout(300)
    assert friend.evaluate("soundsPlayed.slice()") == ["turn"]
    assert creator.evaluate("soundsPlayed.slice()") == []  # not the creator's turn
    friend.goto(friend.base_url + "#/watch")
    listed = friend.wait_for_selector(f"#history-games a[data-game='{game_id}']")
    assert listed.get_attribute("data-joined") == "true"
    assert f"you at P{first} (joined with a link)" in listed.inner_text()
    listed.click()
    friend.wait_for_selector("#table[data-state=my-turn]")
    assert f"P{first} (team {first % 2})" in friend.inner_text("#mine h3")
    assert friend.evaluate("soundsPlayed.slice()") == ["turn"]  # resumed: no second chime


#: every write of the tab's title, with the table it was written for: a MutationObserver
#: (set before the page loads) on the <title> element's text
TITLE_LOG = """
window.titleWrites = [];
new MutationObserver(records => {
  for (const r of records) {
    if (r.target.nodeName !== "TITLE") continue;
    const v = typeof view === "undefined" ? null : view;
    const mine = !!v && !watch && !v.over && v.to_act === v.seat && v.moves.length > 0;
    titleWrites.push({title: document.title, mine, over: !!v && !!v.over});
  }
}).observe(document, {childList: true, subtree: true, characterData: true});
"""
TURN_TITLE = "(Your turn) Burako"


def test_the_tab_title_says_when_it_is_the_persons_turn(open_page):
    """The tab's title starts with "(Your turn)" while the person is to act in a live game,
    sound off (a title needs no click on the page): it goes when they have moved and the
    bots play, comes back with their turn, is written once per change (no flicker), and
    is the page's own title on the records page, the set-up form and in a finished game."""
    page = open_page(LAPTOP)
    page.context.add_init_script("localStorage.setItem('burako-sound', 'off')")
    page.context.add_init_script(TITLE_LOG)
    game_id = start_game(page, players=4, seed=3)
    decisions = 0
    turns = set()  # the person's turns (a turn is several decisions: draw, meld, discard)
    while wait_my_turn(page) == "mine":
        decisions += 1
        assert decisions < 300, "the hand does not end"
        assert page.title() == TURN_TITLE, decisions
        turns.add(page.evaluate("turnKey(view)"))
        if decisions == 3:  # the records page and the set-up form mid-turn, then back
            page.goto(page.base_url + "#/watch")
            page.wait_for_selector("#history-games")
            assert page.title() == "Burako"
            page.goto(page.base_url + "#/")
            page.wait_for_selector("#setup")
            assert page.title() == "Burako"
            page.goto(page.base_url + f"#/play/{game_id}")
            page.wait_for_selector("#table[data-state=my-turn]")
            assert page.title() == TURN_TITLE
        play_one_move(page)
    assert page.evaluate("view.over") and page.title() == "Burako"
    page.click("#close-summary")
    assert page.title() == "Burako"
    page.goto(page.base_url + "#/watch")  # the finished game is in "Your games"
    page.click(f"#history-games a[data-game='{game_id}']")
    page.wait_for_selector("#table[data-state=over]")
    assert page.title() == "Burako"
    assert page.evaluate("soundsPlayed.length") == 0  # muted all along

    writes = page.evaluate("titleWrites")
    titles = [w["title"] for w in writes]
    # every write is the title of the table it was written for, and none repeats the last
    assert all((w["title"] == TURN_TITLE) == w["mine"] for w in writes), writes
    assert all(a != b for a, b in zip(titles, titles[1:], strict=False)), titles
    # the mark came with each turn (the bots' turns between them took it away), once
    # more for the return from the records page, and went with the last move
    assert len(turns) > 3 and titles.count(TURN_TITLE) == len(turns) + 1, titles
    assert titles[-1] == "Burako" and not any(w["mine"] for w in writes if w["over"])
