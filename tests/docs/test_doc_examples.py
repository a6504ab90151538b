"""The documents' examples are run: every ``<!-- checked -->`` example of README.md and
docs/*.md (scripts/tools/regen_doc_examples.py; the convention is in docs/TESTING.md, "Checked
examples") prints what the document shows, timings and the machine aside.

One test per example, named by file and line (``README.md:287``); a changed figure fails
until the documents are regenerated with ``python scripts/tools/regen_doc_examples.py``. Each
document's examples run once, in order, in one scratch folder (a later one may read what
an earlier one wrote): a test runs the examples before its own first, except slow ones.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location(
    "regen_doc_examples", ROOT / "scripts" / "tools" / "regen_doc_examples.py"
)
regen = importlib.util.module_from_spec(_spec)
sys.modules[_spec.name] = regen  # dataclasses look their module up
_spec.loader.exec_module(regen)

EXAMPLES = regen.collect()


_RUNS: dict[str, regen.DocumentRun] = {}


@pytest.fixture(scope="module", autouse=True)
def _scratch_folders():
    yield
    for run in _RUNS.values():
        run.close()


def _result(example):
    if example.path not in _RUNS:
        _RUNS[example.path] = regen.DocumentRun([ex for ex in EXAMPLES if ex.path == example.path])
    return _RUNS[example.path].result(example)


@pytest.mark.parametrize(
    "example",
    [pytest.param(ex, id=ex.id, marks=[pytest.mark.slow] if ex.slow else []) for ex in EXAMPLES],
)
def test_example_prints_what_the_document_shows(example):
    result = _result(example)
    regenerate = "\n\nregenerate with: python scripts/tools/regen_doc_examples.py"
    assert result.ok, result.report() + regenerate


def test_every_example_that_shows_output_is_checked_or_says_why_not():
    unmarked = [f"{m.path}:{m.line}" for m in regen.marked_blocks() if m.checked is None]
    assert not unmarked, (
        "these blocks show output but carry neither <!-- checked --> nor "
        f"<!-- unchecked: why -->: {unmarked}"
    )
    assert all(m.reason for m in regen.marked_blocks() if m.checked is False)


def test_the_readme_and_the_docs_have_checked_examples():
    paths = {ex.path for ex in EXAMPLES}
    assert {"README.md", "docs/TRAINING.md"} <= paths
    commands = {ex.source.split()[1] for ex in EXAMPLES if ex.kind == "command"}
    assert {"rules", "tournament", "play", "replay", "simulate", "bench", "train"} <= commands
    assert any(ex.kind == "python" for ex in EXAMPLES)


# ------------------------------------------------------------------ the checker itself
def test_ellipsis_stands_for_any_lines_in_order():
    actual = ["head", "a", "b", "c", "tail"]
    assert regen.matches(["head", "...", "tail"], actual)
    assert regen.matches(["head", "...", "b", "...", "tail"], actual)
    assert regen.matches(["...", "c", "tail"], actual)
    assert regen.matches(["head", "a", "..."], actual)
    assert not regen.matches(["head", "..."], ["other"])
    assert not regen.matches(["head", "...", "c", "...", "b", "..."], actual)  # order
    assert not regen.matches(["head", "...", "a"], actual)  # the end is anchored
    assert not regen.matches(["head", "a"], actual)  # no ... : the whole output


def test_timings_and_machine_lines_are_normalised_but_figures_are_not():
    documented = [
        "2000 random 4-player argentine hands in 0.98 s: 2,031 games/s (354,511 steps/s)",
        "  hands ended by going out:   0.7%",
    ]
    timed = [
        "2000 random 4-player argentine hands in 0.32 s: 6,272 games/s (1,097,999 steps/s)",
        "  hands ended by going out:   0.7%",
    ]
    assert regen.matches(documented, timed)
    changed = [timed[0], "  hands ended by going out:   1.0%"]
    assert not regen.matches(documented, changed)
    assert regen.matches(["x86_64, 2 cores, CPython 3.11.7, numba 0.68.1"], ["<machine>"])
    assert regen.matches(
        ["| vector | argentine | 4 | 256 | 2 | legal | 176,159 | 896.6 |"],
        ["| vector | argentine | 4 | 256 | 2 | legal | 313,615 | 1,672.3 |"],
    )
    assert not regen.matches(
        ["| vector | argentine | 4 | 256 |"], ["| vector | argentine | 4 | 512 |"]
    )
    assert regen.matches(
        ["run runs/tiny-20261129-164306: 37,330 parameters", "update 1/4 sps 498 score 7"],
        ["run runs/tiny-20261204-140632: 37,330 parameters", "update 1/4 sps 1,936 score 7"],
    )
    assert not regen.matches(
        ["run runs/tiny-20261129-164306: 37,330 parameters"],
        ["run runs/tiny-20261204-140632: 62,690 parameters"],
    )


def test_a_run_is_cleaned_of_the_compile_and_the_progress_bar():
    printed = (
        "compiling the game's kernels for this machine (a first run, ...)\n"
        "argentine 4p:  33%|###  | 200/600\rargentine 4p: 100%|#####| 600/600\r\n"
        "argentine, 4 players, seed 0: 964 hands/s (10.0 s of compiling left out)\n"
        "in 0.32 s: 6,272 games/s (1,097,999 steps/s; 17.6 s of compiling left out)\n"
        "row with trailing spaces   \n\n"
    )
    assert regen.clean(printed) == [
        "argentine, 4 players, seed 0: 964 hands/s",
        "in 0.32 s: 6,272 games/s (1,097,999 steps/s)",
        "row with trailing spaces",
    ]


def test_regeneration_keeps_the_trim_and_the_old_timings():
    documented = [
        "run at 1,000 hands/s",
        "  moves: 65,472",
        "...",
        "Legal moves:",
        "...",
        "    211  meld Qc 2d Ac",
        "...",
    ]
    actual = [
        "run at 2,000 hands/s",
        "  moves: 65,900",
        "table",
        "Legal moves:",
        "     32  meld Ac Ad 2d",
        "    979  meld Qc 2d Ac",
        "   2488  discard Ac",
    ]
    new = regen.regenerate(documented, actual)
    assert new == [
        "run at 1,000 hands/s",  # only the rate differs: the old line stays
        "  moves: 65,900",
        "...",
        "Legal moves:",
        "...",
        "    979  meld Qc 2d Ac",  # the actual line most like the documented one
        "...",
    ]
    assert regen.matches(new, actual)
    whole = regen.regenerate(["a", "b at 1 s"], ["a", "b at 2 s", "c"])
    assert whole == ["a", "b at 1 s", "c"]


def test_markers_and_options_are_read(tmp_path):
    (tmp_path / "doc.md").write_text(
        "\n".join(
            [
                "<!-- checked: exit=2 stdin='keep\\nlegal' slow -->",
                "```text",
                "$ burako play --seed 2",
                "line",
                "",
                "$ burako rules",
                "...",
                "```",
                "",
                "<!-- checked -->",
                "```python",
                "print(1)",
                "```",
                "",
                "```text",
                "1",
                "```",
                "",
                "<!-- unchecked: a server -->",
                "```text",
                "$ burako serve",
                "serving",
                "```",
                "",
                "```text",
                "$ burako sweep",
                "```",
                "",
                "```python",
                "print(2)",
                "```",
                "```text",
                "2",
                "```",
            ]
        ),
        encoding="utf-8",
    )
    examples = regen.collect(["doc.md"], root=tmp_path)
    assert [(ex.line, ex.kind, ex.source) for ex in examples] == [
        (3, "command", "burako play --seed 2"),
        (6, "command", "burako rules"),
        (11, "python", "print(1)\n"),
    ]
    play, rules, code = examples
    assert play.expected == ["line"] and rules.expected == ["..."] and code.expected == ["1"]
    assert play.options == {"exit": 2, "stdin": "keep\nlegal\n", "slow": True}
    assert (play.out_start, play.out_end) == (3, 4)  # the blank separator stays outside
    assert [(m.line, m.checked, m.reason) for m in regen.marked_blocks(["doc.md"], tmp_path)] == [
        (2, True, "exit=2 stdin='keep\\nlegal' slow"),
        (11, True, ""),
        (20, False, "a server"),
        (29, None, ""),  # a Python block with its output and no marker
    ]
    with pytest.raises(ValueError, match="unknown option"):
        regen.parse_options("retries=3")


def test_a_stale_output_fails_with_its_place_and_the_rewrite_fixes_it(tmp_path):
    doc = tmp_path / "doc.md"
    doc.write_text(
        "Intro.\n\n<!-- checked -->\n```python\nprint(6 * 7)\nprint('took 0.5 s')\n```\n\n"
        "```text\n41\ntook 9.0 s\n```\n\nEnd.\n",
        encoding="utf-8",
    )
    (example,) = regen.collect(["doc.md"], root=tmp_path)
    (result,) = regen.run_examples([example]).values()
    assert not result.ok
    assert result.report().startswith("doc.md:4: Python block")
    assert "-41" in result.report() and "+42" in result.report()
    assert regen.rewrite([result], root=tmp_path) == ["doc.md:4"]
    assert "```text\n42\ntook 9.0 s\n```\n\nEnd.\n" in doc.read_text(encoding="utf-8")
    (example,) = regen.collect(["doc.md"], root=tmp_path)
    assert regen.run_examples([example])["doc.md:4"].ok
