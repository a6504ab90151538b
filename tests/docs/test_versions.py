"""Every package version the documentation names is a release of CHANGELOG.md.

The releases are CHANGELOG.md's ``## [X.Y.Z] - YYYY-MM-DD`` sections (Keep a Changelog);
the package's version (``pyproject.toml``, ``burako_env.__version__``) is the newest of
them. A version is named in the README, CHANGELOG.md, docs/*.md, the configs, the
notebooks and the package's and scripts' sources (docstrings and comments) as ``0.3.0``,
``v0.4``, ``version 0.4``, ``since 0.5``, ``until 0.5``, ``before 0.4``, ``at 0.5``,
``0.4's``, or a heading's or bold lead's ``(0.4)``; a short ``0.4`` means ``0.4.0``. Other
programs' versions (``numba 0.68.1``) and the environments' ids (``burako_v1``,
``Burako-v1``) are not the package's.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

#: the releases this changelog has had: history is never deleted
RELEASED = ("0.1.0", "0.2.0", "0.3.0", "0.4.0", "0.5.0", "0.6.0", "0.7.0", "0.8.0", "0.9.0")

_RELEASE_HEADING = re.compile(r"^## \[(\d+\.\d+\.\d+)\] - (\d{4}-\d{2}-\d{2})$", re.M)
_SECTION_KINDS = ("Added", "Changed", "Deprecated", "Removed", "Fixed", "Security")

_NUM = r"0\.\d{1,2}(?:\.\d+)?"  # 0.4, 0.12, 0.4.1: not a fraction such as 0.937
_END = r"(?![\w%]|\.\d)"  # not 0.5x, 0.5%, 0.55 or 0.5.1's start
#: another program's version just before the number (its name, maybe ``==`` or ``(``)
_OTHER_PROGRAM = re.compile(
    r"\b(?:numba|llvmlite|torch|ray|c?python|gymnasium|pettingzoo|open_spiel|setuptools|"
    r"pdoc|ruff|mutmut|hypothesis|playwright|chromium|tbb|starlette|uvicorn|httpx2?|pip|"
    r"numpy|cuda|sb3|stable-baselines3)[\s=<>~!(]*$",
    re.I,
)
_PATTERNS = (
    # 0.3.0 anywhere (not an address such as 127.0.0.1, not numba 0.68.1: checked below)
    re.compile(r"(?<![\w.])(0\.\d+\.\d+)" + _END),
    re.compile(r"\bv(" + _NUM + ")" + _END),
    # "since 0.5", not the ratio "after/before 0.937"
    re.compile(
        r"(?<![/\w])(?:versions?|releases?|released|since|until|before|after|burako)\s+("
        + _NUM
        + ")"
        + _END,
        re.I,
    ),
    # "shipped in 0.5", "profiled again at 0.5", "(at 0.4)"; not "lambda at 0.8"
    re.compile(
        r"\b(?:shipped|removed|added|again|measured|redone)\s+(?:in|at)\s+(" + _NUM + ")" + _END,
        re.I,
    ),
    re.compile(r"\((?:at|since|until|before)\s+(" + _NUM + r")\)", re.I),
    re.compile(r"(?<![\w.])(" + _NUM + r")'s\b"),
    re.compile(r"^#+ [^\n]*\((?:at\s+)?(" + _NUM + r")\)", re.M),
    re.compile(r"\*\*\s*\((?:at\s+)?(" + _NUM + r")\)"),
)


def named_versions(text: str) -> list[tuple[int, str]]:
    """The package versions ``text`` names, as (line, ``X.Y.Z``), in order."""
    found: dict[int, tuple[int, str]] = {}
    for pattern in _PATTERNS:
        for match in pattern.finditer(text):
            before = " ".join(text[max(0, match.start(1) - 40) : match.start(1)].split())
            if _OTHER_PROGRAM.search(before):
                continue
            version = match.group(1)
            if version.count(".") == 1:
                version += ".0"
            found[match.start(1)] = (text.count("\n", 0, match.start(1)) + 1, version)
    return [found[at] for at in sorted(found)]


def releases() -> list[tuple[str, str]]:
    """CHANGELOG.md's released sections, (version, date), in the file's order."""
    return _RELEASE_HEADING.findall((ROOT / "CHANGELOG.md").read_text(encoding="utf-8"))


def _documents() -> list[Path]:
    paths = [ROOT / "README.md", ROOT / "CHANGELOG.md", *sorted((ROOT / "docs").glob("*.md"))]
    paths += sorted((ROOT / "notebooks").glob("*.ipynb"))
    paths += sorted((ROOT / "burako_env" / "configs").rglob("*.yaml"))
    for folder in ("burako_env", "agents", "training", "scripts"):
        paths += sorted((ROOT / folder).rglob("*.py"))
    return paths


def _version(v: str) -> tuple[int, ...]:
    return tuple(int(part) for part in v.split("."))


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("shipped since 0.5; run G's", ["0.5.0"]),
        ("removed in 0.3.0.", ["0.3.0"]),
        ("the tag v0.4 and version 0.6", ["0.4.0", "0.6.0"]),
        ("### The faster network (0.4)\n", ["0.4.0"]),
        ("**The goals, honestly** (at 0.4). *40,000", ["0.4.0"]),
        ("the recipe, at 0.4's speed; profiled again at 0.5 (cProfile)", ["0.4.0", "0.5.0"]),
        ("### Before 0.4\n", ["0.4.0"]),
        ("Rules v1 (burako 0.2.0): a meld", ["0.2.0"]),
        ("## [0.5.0] - 2026-12-05", ["0.5.0"]),
    ],
)
def test_named_versions_finds_the_package_versions(text, expected):
    assert [v for _, v in named_versions(text)] == expected


@pytest.mark.parametrize(
    "text",
    [
        "CPython 3.11.7, numba 0.68.1, torch 2.11.0",
        "numba\n0.68.1) shared with other sessions",
        "listening on 127.0.0.1:8000",
        "2000 hands in 0.98 s; a ppo pairing at 0.5x greedy's",
        "`--meld-bias` (0.5) uniformly; `random` (0.05) in the league",
        "discard_table at 0.45 of the seats, pimc won in 0.542 of 400 hands",
        "the heuristics' share cut from 0.5 to 0.2; in 0.5 of the hands",
        "burako_v1 / Burako-v1 and burako_v0; lr 3.0e-4",
        "after/before 0.937; from about 19 decisions at 0.95 to about 5 at 0.8, with gamma",
    ],
)
def test_named_versions_leaves_other_numbers(text):
    assert named_versions(text) == []


def test_the_changelog_keeps_every_release_newest_first():
    text = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    headings = re.findall(r"^## (.+)$", text, re.M)
    assert headings[0] == "[Unreleased]", "the first section is ## [Unreleased]"
    found = releases()
    assert len(found) == len(headings) - 1, "every other section is ## [X.Y.Z] - YYYY-MM-DD"
    versions = [v for v, _ in found]
    assert set(RELEASED) <= set(versions), "a released section was deleted"
    assert versions == sorted(versions, key=_version, reverse=True), "newest first"
    dates = [d for _, d in found]
    assert dates == sorted(dates, reverse=True), "a newer release has an older date"
    for kind in re.findall(r"^### (.+)$", text, re.M):
        assert kind in _SECTION_KINDS, f"### {kind}: use one of {', '.join(_SECTION_KINDS)}"


def test_every_version_the_docs_name_was_released():
    released = {v for v, _ in releases()}
    wrong = []
    for path in _documents():
        for line, version in named_versions(path.read_text(encoding="utf-8")):
            if version not in released:
                wrong.append(f"{path.relative_to(ROOT)}:{line}: {version}")
    assert not wrong, "versions that CHANGELOG.md never released:\n" + "\n".join(wrong)


def test_the_package_version_is_the_newest_release():
    import burako_env

    newest = max((v for v, _ in releases()), key=_version)
    # the [project] table's version line (tomllib is Python 3.11's; 3.10 is supported)
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    project = pyproject.split("\n[project]\n", 1)[1].split("\n[", 1)[0]
    assert re.findall(r'^version = "([^"]+)"$', project, re.M) == [newest]
    assert burako_env.__version__ == newest
