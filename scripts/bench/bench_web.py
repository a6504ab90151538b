"""How long the bots of the web table take a round, measured in a real browser.

Starts ``burako serve`` on a free port and Debian's Chromium (headless, 1366x768), and
for each level deals 4-player argentine hands with the person at seat 0 and that level at
the three other seats, the bots at speed ``fast`` (the page's setting: 40 ms between bot
moves, 100 ms animations). The person plays by clicking: keep the peeked card or draw,
then discard (double-click) the last card of the hand. A round is timed from that
discard to the person's next turn on the page (the table drawn with their moves): the
three bots' turns as the person waits for them, the server's decisions, the requests and
the page's drawing together. The first ``--warmup`` rounds of each level are left out
(a first decision loads a policy, or compiles). A hand that ends starts the next deal.

Prints, per level, the median, the fastest and the slowest round, the bot moves of a
median round and the goal (docs/BENCHMARKS.md, "The web table"): a round of three
discard_table (Normal) or ppo (Hard) bots under 1 s, of three pimc (Expert) bots at
their default budget under 2 s. The machine's cores and load are printed with it: the
server, its bots and Chromium share them. Needs Debian's chromium
(``apt-get install chromium``)::

    .venv/bin/python scripts/bench/bench_web.py                       # 9 rounds per level
    .venv/bin/python scripts/bench/bench_web.py --rounds 15 --levels normal,expert
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parents[2]  # scripts/<folder>/ sits two below the root
VIEWPORT = {"width": 1366, "height": 768}
#: level id -> (agent, the goal of a round in seconds)
LEVELS = {
    "normal": ("discard_table", 1.0),
    "hard": ("ppo", 1.0),
    "expert": ("pimc", 2.0),
}
MOVED = (
    "n => +document.querySelector('#table').dataset.moves > n"
    " || !!document.getElementById('overlay')"
)
#: the person's turn again after move n (or the end of the hand)
MY_TURN_AFTER = (
    "n => !!document.getElementById('overlay') || (+document.querySelector('#table')"
    ".dataset.moves > n && !!document.querySelector('#table[data-state=my-turn]'))"
)
STARTUP_SECONDS = 240  # a cold numba cache compiles the core first
WAIT_MS = 120_000


def cpu_model() -> str:
    """The processor's name (Linux: /proc/cpuinfo), else the machine's architecture."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def start_server(records: str) -> tuple[subprocess.Popen, str]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "burako_env.frontends.cli", "serve", "--port", "0"]
        + ["--records", records],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    found: list[str] = []
    ready = threading.Event()

    def read() -> None:
        for line in proc.stdout:
            if line.startswith("Burako table at "):
                found.append(line.split()[-1])
                ready.set()

    threading.Thread(target=read, daemon=True).start()
    if not ready.wait(STARTUP_SECONDS):
        proc.terminate()
        sys.exit("error: burako serve did not start")
    return proc, found[0]


def new_game(page, url: str, level: str, seed: int) -> None:
    if page.query_selector("#overlay #new-game"):  # a game over: its summary's button
        page.click("#overlay #new-game")
    page.goto(url + "#/")
    page.wait_for_selector("#setup")
    page.select_option("#players", "4")
    page.select_option("#seat", "0")
    page.select_option("#bots-all", level)
    page.dispatch_event("#bots-all", "change")
    page.fill("#seed", str(seed))
    page.click("#start")
    page.wait_for_selector("#table")


def moves(page) -> int:
    return int(page.get_attribute("#table", "data-moves"))


def hand_over(page) -> bool:
    page.wait_for_selector("#table[data-state=my-turn], #overlay")
    return page.query_selector("#overlay") is not None


def time_rounds(browser, url: str, level: str, rounds: int, warmup: int, seed: int):
    """``rounds`` timed rounds of ``level``: [(seconds, bot moves)]."""
    context = browser.new_context(viewport=VIEWPORT)
    context.add_init_script("localStorage.setItem('burako-speed', 'fast')")
    page = context.new_page()
    page.set_default_timeout(WAIT_MS)
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    out: list[tuple[float, int]] = []
    seen = 0
    new_game(page, url, level, seed)
    while len(out) < rounds:
        if hand_over(page):
            seed += 1
            new_game(page, url, level, seed)
            continue
        draw = page.query_selector(
            "#actions button[data-kind=draw], #actions button[data-kind=peek_keep]"
        )
        if draw is not None:
            before = moves(page)
            page.click(f"#actions button[data-action='{draw.get_attribute('data-action')}']")
            page.wait_for_function(MOVED, arg=before)
            continue
        cards = page.query_selector_all("#hand .card.discardable")
        if not cards:  # nothing to discard (a rule bars it): a new deal
            seed += 1
            new_game(page, url, level, seed)
            continue
        before = moves(page)
        t0 = time.perf_counter()
        cards[-1].dblclick()  # the last card: on top of a fanned hand
        page.wait_for_function(MY_TURN_AFTER, arg=before)
        seconds = time.perf_counter() - t0
        if page.query_selector("#overlay"):
            continue  # the hand ended during the round: not a whole round
        seen += 1
        if seen > warmup:
            out.append((seconds, moves(page) - before - 1))
    context.close()
    if errors:
        sys.exit(f"error: the page reported script errors: {errors}")
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=9, help="timed rounds per level")
    parser.add_argument("--warmup", type=int, default=1, help="first rounds left out")
    parser.add_argument("--levels", default=",".join(LEVELS), help="normal,hard,expert")
    parser.add_argument("--seed", type=int, default=3, help="the first deal's seed")
    args = parser.parse_args()
    levels = [x.strip() for x in args.levels.split(",") if x.strip()]
    unknown = [x for x in levels if x not in LEVELS]
    if unknown or args.rounds < 1 or args.warmup < 0:
        sys.exit(f"error: levels are {', '.join(LEVELS)}; --rounds >= 1, --warmup >= 0")
    exe = shutil.which("chromium") or shutil.which("chromium-browser")
    if exe is None:
        sys.exit("error: chromium is not installed (apt-get install chromium)")
    cores = os.cpu_count()
    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else cores
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(
        f"{datetime.date.today()} · {cpu_model()} · "
        f"{cores} cores ({usable} usable) · load {load:.2f} at the start · "
        "argentine, 4 players, speed fast, Chromium 1366x768, server and browser on "
        "this machine"
    )
    rows = []
    with tempfile.TemporaryDirectory() as records:
        proc, url = start_server(records)
        try:
            with sync_playwright() as p:
                browser = p.chromium.launch(
                    executable_path=exe, args=["--no-sandbox", "--disable-dev-shm-usage"]
                )
                for level in levels:
                    timed = time_rounds(browser, url, level, args.rounds, args.warmup, args.seed)
                    rows.append((level, timed))
                browser.close()
        finally:
            proc.terminate()
            proc.wait(timeout=30)
    load_end = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"load {load_end:.2f} at the end")
    print()
    print(
        f"{'level':<8} {'agent':<14} {'rounds':>6} {'median s':>9} {'min s':>6} "
        f"{'max s':>6} {'bot moves':>9} {'goal s':>6}  met"
    )
    for level, timed in rows:
        agent, goal = LEVELS[level]
        seconds = [s for s, _ in timed]
        median = statistics.median(seconds)
        bot_moves = statistics.median(n for _, n in timed)
        print(
            f"{level:<8} {agent:<14} {len(timed):>6} {median:>9.2f} {min(seconds):>6.2f} "
            f"{max(seconds):>6.2f} {bot_moves:>9g} {goal:>6.1f}  "
            f"{'yes' if median < goal else 'NO'}"
        )


if __name__ == "__main__":
    main()
