"""The documentation's shape: reference pages say what is, experiment records say what
happened (docs/TESTING.md).

* Every page of ``docs/`` is either **reference** (``docs/*.md``: no dated run log, no
  internal run codename) or an **experiment record** (``docs/experiments/``, named
  ``YYYY-MM-DD-topic.md``, opening with ``*Experiment record*``). A reference page may
  name a date only in a link to a record.
* The README and the reference pages name no internal run codename (a shipped policy is
  named by its file and recipe).
* Every relative link of the README and the docs reaches a file, and an anchor of it
  where it names one.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
#: pages a command writes, measured tables that say when and where they were measured
#: (``burako leaderboard --markdown``): regenerated, never edited as reference
GENERATED = ("LEADERBOARD.md",)
REFERENCE = sorted(p for p in DOCS.glob("*.md") if p.name not in GENERATED)
RECORDS = sorted((DOCS / "experiments").glob("*.md"))
RECORD_NAME = re.compile(r"^\d{4}-\d{2}-\d{2}-[a-z0-9-]+\.md$")
DATE = re.compile(r"\b20\d\d-\d\d-\d\d\b")
#: links to a record carry its date in the file name
RECORD_LINK = re.compile(r"experiments/20\d\d-\d\d-\d\d-[a-z0-9-]+\.md(#[a-z0-9_-]*)?")
#: the internal names the runs were given while they were measured
CODENAME = re.compile(r"\b(runs? (?![NKM]\b)[A-Z][a-z]?\d?|G\d|I\d|Co\d|Br\d)\b")
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
FENCE = re.compile(r"^(`{3,}|~{3,})")


def prose(path: Path) -> list[tuple[int, str]]:
    """``(line number, line)`` of ``path`` outside fenced code blocks."""
    out, fence = [], None
    for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        m = FENCE.match(line.strip())
        if m:
            fence = None if fence and m.group(1)[0] == fence[0] else (fence or m.group(1))
            continue
        if fence is None:
            out.append((i, line))
    return out


def slug(heading: str) -> str:
    """GitHub's anchor of a Markdown heading."""
    text = heading.strip().lstrip("#").strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    seen: dict[str, int] = {}
    out = set()
    for _, line in prose(path):
        if re.match(r"^#{1,6} ", line):
            base = slug(line)
            n = seen.get(base, 0)
            seen[base] = n + 1
            out.add(base if n == 0 else f"{base}-{n}")
    return out


def test_the_readme_is_short():
    """What it is, the two commands, install, a tour, links: under 350 lines."""
    lines = (ROOT / "README.md").read_text(encoding="utf-8").count("\n")
    assert lines < 350, f"README.md has {lines} lines: move detail to a page of docs/"


def test_records_are_named_by_their_date_and_say_what_they_are():
    assert RECORDS, "docs/experiments/ holds the dated records"
    for path in RECORDS:
        assert RECORD_NAME.match(path.name), f"{path.name}: name it YYYY-MM-DD-topic.md"
        head = path.read_text(encoding="utf-8").split("\n\n")[:2]
        assert "*Experiment record*" in "\n".join(head), f"{path.name}: say it is a record"


@pytest.mark.parametrize("path", [ROOT / "README.md", *REFERENCE], ids=lambda p: p.name)
def test_reference_pages_hold_no_dated_run_log_and_no_codename(path):
    found = []
    for i, line in prose(path):
        bare = RECORD_LINK.sub("", line)
        if DATE.search(bare):
            found.append(f"{path.name}:{i}: a date: {line.strip()[:100]}")
        if CODENAME.search(bare):
            found.append(f"{path.name}:{i}: a run codename: {line.strip()[:100]}")
    assert not found, "move dated measurements to docs/experiments/:\n" + "\n".join(found)


@pytest.mark.parametrize("path", [ROOT / "README.md", *REFERENCE, *RECORDS], ids=lambda p: p.name)
def test_every_relative_link_reaches_its_file_and_anchor(path):
    broken = []
    for i, line in prose(path):
        for target in LINK.findall(line):
            if re.match(r"^[a-z]+:", target) or target.startswith("#") and not target[1:]:
                continue  # a URL (https:, mailto:)
            file, _, anchor = target.partition("#")
            dest = (path.parent / file).resolve() if file else path
            if not dest.exists():
                broken.append(f"{path.name}:{i}: {target}: no such file")
            elif anchor and dest.suffix == ".md" and anchor not in anchors(dest):
                broken.append(f"{path.name}:{i}: {target}: no such anchor")
    assert not broken, "\n".join(broken)


def test_the_checks_catch_what_they_are_for(tmp_path):
    page = tmp_path / "page.md"
    page.write_text(
        "# Title\n\nRun G3 won, 2026-12-05.\n\n```\nrun G3 in code 2026-12-05\n```\n"
        "[ok](experiments/2026-12-05-x.md) [self](#title) [gone](#nothing)\n",
        encoding="utf-8",
    )
    lines = dict(prose(page))
    assert 3 in lines and 6 not in lines  # fenced code is not prose
    assert DATE.search(lines[3]) and CODENAME.search(lines[3])
    assert not DATE.search(RECORD_LINK.sub("", lines[8]))
    assert not CODENAME.search("it runs N clients") and CODENAME.search("run Br2 and runs G")
    assert anchors(page) == {"title"}
