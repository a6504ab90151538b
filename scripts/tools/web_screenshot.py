"""The README's pictures of the web table at three screen sizes, made reproducibly.

Starts ``burako serve`` on a free port and, for each size, deals a 4-player argentine hand
(seed 3, Easy bots (the greedy agent), at instant speed), plays by clicking (draw, lay every meld
the page offers, discard the last card) for a few turns, and photographs the screen as
the person sees it on their turn, a card selected so that the melds it fits glow:

* ``docs/img/web_table_phone.png``: a phone, 390x844 (the board stacked, the hand fanned
  in the bar at the bottom);
* ``docs/img/web_table_laptop.png``: a laptop, 1366x768;
* ``docs/img/web_table_desktop.png``: a desktop, 1920x1080.

Each one also checks what the browser tests check: no sideways scrolling, the hand's top
on the screen. Needs Debian's chromium (``apt-get install chromium``)::

    .venv/bin/python scripts/tools/web_screenshot.py                 # the three, in docs/img/
    .venv/bin/python scripts/tools/web_screenshot.py --turns 6 --out /tmp   # elsewhere
"""

from __future__ import annotations

import argparse
import io
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from PIL import Image
from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parents[2]  # scripts/<folder>/ sits two below the root
#: name, viewport, whether the screen is touch
SIZES = (
    ("phone", {"width": 390, "height": 844}, True),
    ("laptop", {"width": 1366, "height": 768}, False),
    ("desktop", {"width": 1920, "height": 1080}, False),
)
MOVED = (
    "n => +document.querySelector('#table').dataset.moves > n"
    " || !!document.getElementById('overlay')"
)
FITS = (
    "() => document.scrollingElement.scrollWidth <= innerWidth"
    " && document.querySelector('#hand').getBoundingClientRect().top < innerHeight"
    " && document.querySelector('#hand').getBoundingClientRect().top >= 0"
)


def click_and_wait(page, selector: str) -> None:
    before = int(page.get_attribute("#table", "data-moves"))
    page.click(selector)
    page.wait_for_function(MOVED, arg=before)


def my_turn(page) -> bool:
    page.wait_for_selector("#table[data-state=my-turn], #overlay")
    return page.query_selector("#overlay") is None


def picture(browser, url: str, size: dict, touch: bool, seed: int, turns: int) -> bytes:
    context = browser.new_context(viewport=size, has_touch=touch, is_mobile=touch)
    context.add_init_script("localStorage.setItem('burako-speed', 'instant')")
    page = context.new_page()
    page.goto(url)
    page.wait_for_selector("#setup")
    page.select_option("#bots-all", "easy")  # the Easy level: the greedy agent
    page.dispatch_event("#bots-all", "change")
    page.fill("#seed", str(seed))
    page.click("#start")
    for _ in range(turns):
        if not my_turn(page):
            sys.exit("error: the hand ended before the picture; try fewer --turns")
        draw = page.query_selector(
            "#actions button[data-kind=draw], #actions button[data-kind=peek_keep]"
        )
        if draw is not None:
            click_and_wait(page, f"#actions [data-action='{draw.get_attribute('data-action')}']")
        while page.query_selector("#suggest .option"):  # lay what can be laid
            if not page.is_visible("#suggest .option"):
                page.click("#suggest summary")
            click_and_wait(page, "#suggest .option")
        page.query_selector_all("#hand .card.discardable")[-1].click()
        click_and_wait(page, "#discard")
    if not my_turn(page):
        sys.exit("error: the hand ended before the picture; try fewer --turns")
    click_and_wait(page, "#stock")  # draw by clicking the stock: the drawn card glows
    card = page.query_selector("#hand .card.addable") or page.query_selector("#hand .card")
    card.click()
    page.evaluate("window.scrollTo(0, 0)")
    if not page.evaluate(FITS):
        sys.exit(f"error: at {size} the page scrolls sideways or the hand is off the screen")
    png = page.screenshot()
    context.close()
    return png


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(ROOT / "docs/img"), help="the folder written")
    parser.add_argument("--seed", type=int, default=3)
    parser.add_argument("--turns", type=int, default=7, help="the person's turns played first")
    args = parser.parse_args()
    exe = shutil.which("chromium") or shutil.which("chromium-browser")
    if exe is None:
        sys.exit("error: chromium is not installed (apt-get install chromium)")
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as records:
        proc = subprocess.Popen(
            [sys.executable, "-m", "burako_env.frontends.cli", "serve", "--port", "0"]
            + ["--records", records],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            text=True,
        )
        try:
            url = proc.stdout.readline().split()[-1]
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=exe, args=["--no-sandbox"])
                for name, size, touch in SIZES:
                    png = picture(browser, url, size, touch, args.seed, args.turns)
                    path = out / f"web_table_{name}.png"
                    # lossless (a 256-colour palette would turn the blue diamonds grey)
                    Image.open(io.BytesIO(png)).convert("RGB").save(path, optimize=True)
                    print(f"wrote {path}")
                browser.close()
        finally:
            proc.terminate()
            proc.wait(timeout=30)


if __name__ == "__main__":
    main()
