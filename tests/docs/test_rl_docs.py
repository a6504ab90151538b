"""docs/RL.md's examples run as written: every ```python block of the page is executed
(one test per block, named by its line), each in a fresh namespace, and must print. The
RLlib, OpenSpiel and sb3 blocks are skipped, naming what to install, where that library
is missing. The page keeps one example for each door it lists."""

from __future__ import annotations

import contextlib
import importlib.util
import io
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "RL.md"
#: what a block needs (a text in its code -> the module that must be importable)
NEEDS = {
    "burako_env.rllib": "ray.rllib",
    "pyspiel": "pyspiel",
    "sb3_contrib": "sb3_contrib",
}
#: one example per door of the page's table (a text that only that door's code has)
DOORS = (
    'gymnasium.make("Burako-v1"',
    "gymnasium.make_vec(",
    ".state()",
    "BurakoSB3VecEnv(",
    "ppo_config(",
    "vector_ppo_config(",
    'pyspiel.load_game("python_burako',
    "burako_env.evaluate(",
)


def python_blocks(text: str) -> list[tuple[int, str]]:
    """(line of the opening fence, code) of every ```python block of ``text``."""
    blocks, lines = [], text.split("\n")
    start = None
    for i, line in enumerate(lines):
        if start is None and re.fullmatch(r"```python\s*", line):
            start = i
        elif start is not None and line.strip() == "```":
            blocks.append((start + 1, "\n".join(lines[start + 1 : i])))
            start = None
    assert start is None, f"docs/RL.md:{start + 1}: a ```python block is not closed"
    return blocks


BLOCKS = python_blocks(PAGE.read_text(encoding="utf-8"))


def _installed(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except ModuleNotFoundError:  # a parent package is missing
        return False


def test_the_page_has_one_short_example_per_door():
    assert len(BLOCKS) == len(DOORS)
    for door in DOORS:
        having = [line for line, code in BLOCKS if door in code]
        assert len(having) >= 1, f"no example in docs/RL.md uses {door!r}"
    for line, code in BLOCKS:
        assert len(code.strip().split("\n")) <= 20, f"docs/RL.md:{line}: over 20 lines"


@pytest.mark.parametrize("line,code", BLOCKS, ids=[f"RL.md:{line}" for line, _ in BLOCKS])
def test_the_example_runs_as_written(line: int, code: str):
    for text, module in NEEDS.items():
        if text in code and not _installed(module):
            pytest.skip(f"docs/RL.md:{line} needs {module}, which is not installed")
    torch = pytest.importorskip("torch") if "ppo_config" in code or "MaskablePPO" in code else None
    threads = torch.get_num_threads() if torch else None
    if torch:
        torch.set_num_threads(1)
    out = io.StringIO()
    try:
        with contextlib.redirect_stdout(out):
            exec(compile(code, f"docs/RL.md:{line}", "exec"), {"__name__": "__rl_doc__"})
    finally:
        if torch:
            torch.set_num_threads(threads)
        if "ray" in code:  # never leave a Ray instance behind a failed example
            import ray

            ray.shutdown()
    assert out.getvalue().strip(), f"docs/RL.md:{line} printed nothing"


def test_python_blocks_are_found_and_an_open_block_is_refused():
    text = "a\n```python\nprint(1)\n```\n```text\nx\n```\n```python\nprint(2)\n```\n"
    assert python_blocks(text) == [(2, "print(1)"), (8, "print(2)")]
    with pytest.raises(AssertionError, match="not closed"):
        python_blocks("```python\nprint(1)\n")
