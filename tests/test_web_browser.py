"""``burako serve`` in a real browser: headless Chromium driven by Playwright.

The tests start ``burako serve`` (port 0, a records folder of their own, bots 50 ms apart)
and Debian's Chromium (Playwright's own browser download is not used), then play a whole
hand against the bots by clicking, check the message of a refused move, step a recorded
game forward and back, reload a game, and check that screenshots are not blank.

On a machine without Chromium the tests skip and say why; in CI (``CI=true``) a missing
Chromium fails them, since ``.ci/run`` installs it.
"""

from __future__ import annotations

import io
import os
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from PIL import Image
from playwright import sync_api as playwright_api

from burako_env.agents import make_agent
from burako_env.cards import NUM_RANKS
from burako_env.core.game import Game
from burako_env.frontends.narrate import play_and_describe
from burako_env.frontends.playback import check_record
from burako_env.records import GameRecord, read_records, write_records

CHROMIUM_NAMES = ("chromium", "chromium-browser")
ROOT = Path(__file__).resolve().parent.parent
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


@pytest.fixture(scope="module")
def server(records_dir):
    """``burako serve`` in a subprocess; yields its URL."""
    exe = chromium_path()  # skip before starting anything when there is no browser
    proc = subprocess.Popen(
        [sys.executable, "-m", "burako_env.frontends.cli", "serve", "--port", "0"]
        + ["--records", str(records_dir), "--bot-delay", "0.05"],
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
    try:
        if not ready.wait(STARTUP_SECONDS):
            pytest.fail("burako serve did not start:\n" + "".join(lines))
        url = next(x for x in lines if x.startswith("Burako table at ")).split()[-1]
        assert url.startswith("http://127.0.0.1:")
        yield url, exe
    finally:
        proc.terminate()
        proc.wait(timeout=30)


@pytest.fixture(scope="module")
def browser(server):
    _, exe = server
    with playwright_api.sync_playwright() as p:
        # --no-sandbox: CI runs as root, where Chromium's sandbox refuses to start
        # --disable-dev-shm-usage: containers often have a tiny /dev/shm
        b = p.chromium.launch(executable_path=exe, args=["--no-sandbox", "--disable-dev-shm-usage"])
        yield b
        b.close()


@pytest.fixture
def page(browser, server):
    context = browser.new_context(viewport={"width": 1400, "height": 950})
    pg = context.new_page()
    pg.set_default_timeout(WAIT_MS)
    errors: list[str] = []
    pg.on("pageerror", lambda exc: errors.append(str(exc)))
    pg.base_url = server[0]
    yield pg
    context.close()
    assert errors == [], errors  # no script error on the page


def assert_not_blank(png: bytes) -> None:
    """A screenshot of a drawn table: many colours, no colour covering nearly all of it."""
    img = Image.open(io.BytesIO(png)).convert("RGB")
    colours = img.getcolors(maxcolors=1 << 22)
    assert colours is not None
    total = img.width * img.height
    assert len(colours) > 100, f"only {len(colours)} colours"
    assert max(n for n, _ in colours) / total < 0.9


def start_game(page, players=4, seed=3, seat=0, bots="easy") -> str:
    page.goto(page.base_url + "#/")
    page.wait_for_selector("#setup")
    page.select_option("#players", str(players))
    page.select_option("#seat", str(seat))
    page.select_option("#bots-all", bots)
    page.dispatch_event("#bots-all", "change")
    page.fill("#seed", str(seed))
    page.click("#start")
    page.wait_for_selector("#table")
    return page.evaluate("location.hash").split("/")[-1]


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


def test_play_a_whole_hand_by_clicking(page, records_dir):
    game_id = start_game(page, players=4, seed=3)
    assert_not_blank(page.screenshot())
    turns = 0
    while wait_my_turn(page) == "mine":
        turns += 1
        assert turns < 300, "the hand does not end"
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


def recorded_game(seed: int = 4) -> GameRecord:
    game = Game("argentine", seed=seed)
    agent = make_agent("random", seed=seed)
    actions = []
    while not game.is_over():
        obs = game.observe_one(int(game.current_player[0]))[None]
        a = int(agent.act(obs, game.legal_action_mask())[0])
        game.step_one(a)
        actions.append(a)
    return GameRecord(
        variant="argentine",
        num_players=4,
        seed=seed,
        index=0,
        seats=["random"] * 4,
        actions=actions,
        scores=[int(v) for v in game.hand_scores[0]],
        winner=int(game.winner[0]),
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
    words = [play_and_describe(told, a).text for a in rec.actions[:3]]
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
