"""The README's picture of the web table (docs/img/web_table.png), made reproducibly.

Starts ``burako serve`` on a free port, deals a 4-player argentine hand (seed 3, greedy
bots), plays by clicking (draw, lay every meld the page offers, discard the last card)
for a few turns, and photographs the table on the person's turn with a card selected, so
the melds it fits glow. Needs Debian's chromium (``apt-get install chromium``)::

    .venv/bin/python scripts/web_screenshot.py                # docs/img/web_table.png
    .venv/bin/python scripts/web_screenshot.py --turns 6 --out /tmp/table.png
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

ROOT = Path(__file__).resolve().parent.parent
MOVED = (
    "n => +document.querySelector('#table').dataset.moves > n"
    " || !!document.getElementById('overlay')"
)


def click_and_wait(page, selector: str) -> None:
    before = int(page.get_attribute("#table", "data-moves"))
    page.click(selector)
    page.wait_for_function(MOVED, arg=before)


def my_turn(page) -> bool:
    page.wait_for_selector("#table[data-state=my-turn], #overlay")
    return page.query_selector("#overlay") is None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(ROOT / "docs/img/web_table.png"))
    parser.add_argument("--seed", type=int, default=3)
    parser.add_argument("--turns", type=int, default=7, help="the person's turns played first")
    args = parser.parse_args()
    exe = shutil.which("chromium")
    if exe is None:
        sys.exit("error: chromium is not installed (apt-get install chromium)")
    with tempfile.TemporaryDirectory() as records:
        proc = subprocess.Popen(
            [sys.executable, "-m", "burako_env.frontends.cli", "serve", "--port", "0"]
            + ["--records", records, "--bot-delay", "0.02"],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            text=True,
        )
        try:
            url = proc.stdout.readline().split()[-1]
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=exe, args=["--no-sandbox"])
                page = browser.new_page(viewport={"width": 1360, "height": 900})
                page.goto(url)
                page.wait_for_selector("#setup")
                page.select_option("#bots-all", "greedy")
                page.dispatch_event("#bots-all", "change")
                page.fill("#seed", str(args.seed))
                page.click("#start")
                for _ in range(args.turns):
                    if not my_turn(page):
                        sys.exit("error: the hand ended before the picture; try fewer --turns")
                    draw = page.query_selector(
                        "#actions button[data-kind=draw], #actions button[data-kind=peek_keep]"
                    )
                    if draw is not None:
                        click_and_wait(
                            page, f"#actions [data-action='{draw.get_attribute('data-action')}']"
                        )
                    while page.query_selector("#suggest .option"):  # lay what can be laid
                        page.click("#suggest summary")
                        click_and_wait(page, "#suggest .option")
                    page.query_selector_all("#hand .card.discardable")[-1].click()
                    click_and_wait(page, "#discard")
                if not my_turn(page):
                    sys.exit("error: the hand ended before the picture; try fewer --turns")
                draw = page.query_selector("#actions button[data-kind=draw]")
                if draw is not None:
                    click_and_wait(page, "#actions button[data-kind=draw]")
                card = page.query_selector("#hand .card.addable") or page.query_selector(
                    "#hand .card"
                )
                card.click()
                png = page.screenshot(full_page=True)
                browser.close()
        finally:
            proc.terminate()
            proc.wait(timeout=30)
    # lossless (a 256-colour palette would turn the blue diamonds grey)
    Image.open(io.BytesIO(png)).convert("RGB").save(args.out, optimize=True)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
