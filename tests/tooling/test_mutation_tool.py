"""scripts/tools/mutation.py's draw of a layer's mutants (docs/TESTING.md): the sample a
seed gives is the same every time, and ``--within`` draws among some modules only."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def mutation():
    spec = importlib.util.spec_from_file_location(
        "mutation_tool", ROOT / "scripts" / "tools" / "mutation.py"
    )
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up there
    try:
        spec.loader.exec_module(module)
        yield module
    finally:
        del sys.modules[spec.name]


NAMES = [f"burako_env.agents.{m}.x_{f}__mutmut_{i}" for m in ("aivat", "pimc", "tournament")
         for f in ("a", "b") for i in range(1, 21)]  # fmt: skip


def test_a_seed_draws_the_same_sorted_sample_every_time(mutation):
    first = mutation.choose(NAMES, 10, seed=1)
    assert first == mutation.choose(list(reversed(NAMES)), 10, seed=1)  # the order given
    assert first == sorted(first) and len(set(first)) == 10 and set(first) <= set(NAMES)
    assert first != mutation.choose(NAMES, 10, seed=2)
    assert mutation.choose(NAMES, None, seed=1) == sorted(NAMES)  # --full: every one
    assert mutation.choose(NAMES, 500, seed=1) == sorted(NAMES)  # more than there are


def test_within_draws_among_the_matching_modules_only(mutation):
    globs = ["burako_env.agents.aivat.*", "burako_env.agents.pimc.x_b__*"]
    pool = [n for n in NAMES if ".aivat." in n or ".pimc.x_b__" in n]
    chosen = mutation.choose(NAMES, 15, seed=1, within=globs)
    assert len(chosen) == 15 and set(chosen) <= set(pool)
    # the same draw as a sample of the matching names: a run can be repeated by --names
    assert chosen == mutation.sample(pool, 15, 1)
    assert mutation.choose(NAMES, None, seed=1, within=globs) == sorted(pool)


def test_within_that_matches_nothing_is_refused_naming_the_globs(mutation):
    with pytest.raises(ValueError, match=r"--within burako_env\.agent\.aivat\.\*: no mutant"):
        mutation.choose(NAMES, 10, seed=1, within=["burako_env.agent.aivat.*"])
