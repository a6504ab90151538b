"""The habits as tools (docs/TESTING.md, "Habits as tools"): pre-commit's hooks run the
venv's tools offline, CI runs each of them, the dev extra installs them, and their
settings catch what they are there for (a missing docstring in the public API, a typo).
Also what the type checker's fixes rely on: GameState's fields declared for it."""

from __future__ import annotations

import inspect
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import yaml

from burako_env.core.state import FIELD_NAMES, GameState, _Field, allocate_state

ROOT = Path(__file__).resolve().parents[2]
#: each hook of .pre-commit-config.yaml and the command scripts/test.sh runs for it (in
#: its checking mode: CI rewrites nothing)
CI_COMMANDS = {
    "ruff-check": ".venv/bin/python -m ruff check .",
    "ruff-format": ".venv/bin/python -m ruff format --check .",
    "codespell": ".venv/bin/python -m codespell_lib",
    "mypy": ".venv/bin/python -m mypy",
}


def _hooks() -> list[dict]:
    config = yaml.safe_load((ROOT / ".pre-commit-config.yaml").read_text(encoding="utf-8"))
    return [hook for repo in config["repos"] for hook in repo["hooks"]]


def _pyproject() -> dict:
    tomllib = pytest.importorskip("tomllib")  # Python 3.11
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


# ------------------------------------------------------------------ pre-commit and CI
def test_the_hooks_are_local_and_run_the_venv_tools():
    config = yaml.safe_load((ROOT / ".pre-commit-config.yaml").read_text(encoding="utf-8"))
    # a hook repository would be cloned from GitHub, which the machines cannot reach
    assert [repo["repo"] for repo in config["repos"]] == ["local"]
    hooks = _hooks()
    assert sorted(hook["id"] for hook in hooks) == sorted(CI_COMMANDS)
    for hook in hooks:
        # the dev extra's tool in .venv: no environment of pre-commit's to download
        assert hook["language"] == "system", hook["id"]
        assert hook["entry"].startswith(".venv/bin/python -m "), hook["id"]


def test_ci_runs_every_hook_in_its_checking_mode():
    test_sh = (ROOT / "scripts" / "test.sh").read_text(encoding="utf-8")
    lines = test_sh.splitlines()
    pytest_line = next(i for i, line in enumerate(lines) if "-m pytest" in line)
    for hook in _hooks():
        command = CI_COMMANDS[hook["id"]]
        # the hook's tool, as the hook runs it (the format hook rewrites: CI checks)
        tool = hook["entry"].split()[2]
        assert f" -m {tool}" in command
        assert command in lines, f"scripts/test.sh does not run {command!r}"
        # before the tests, so that a finding fails the run at once; `set -e` fails it
        assert lines.index(command) < pytest_line
    assert "set -euo pipefail" in test_sh


def test_the_dev_extra_installs_the_tools_pinned_to_a_major_version():
    dev = _pyproject()["project"]["optional-dependencies"]["dev"]
    names = {d.split(">")[0].split("[")[0]: d for d in dev}
    for tool in ("pre-commit", "codespell", "mypy"):
        assert ">=" in names[tool] and ",<" in names[tool], names[tool]
    # codespell reads pyproject.toml with tomllib, or tomli (its toml extra) before 3.11
    assert names["codespell"].startswith("codespell[toml]>=")


# ------------------------------------------------------------------ the tools' settings
def _ruff_on(text: str, path: str) -> set[str]:
    """The rule codes ruff reports for ``text`` as if it were the file at ``path``."""
    done = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "--output-format", "concise", "--no-cache"]
        + ["--stdin-filename", path, "-"],
        input=text,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    return {word for word in done.stdout.split() if word[:1] == "D" and word[1:].isdigit()}


UNDOCUMENTED = (
    "class Thing:\n    def method(self):\n        return 1\n\n\ndef helper():\n    return 2\n"
)


@pytest.mark.parametrize("path", ["burako_env/envs/x.py", "agents/x.py", "training/x.py"])
def test_ruff_asks_the_public_api_for_docstrings(path):
    assert _ruff_on(UNDOCUMENTED, path) == {"D100", "D101", "D102", "D103"}


@pytest.mark.parametrize("path", ["tests/test_x.py", "scripts/x.py", "burako_env/_x.py"])
def test_ruff_asks_no_docstring_of_tests_scripts_or_private_modules(path):
    assert _ruff_on(UNDOCUMENTED, path) == set()


def test_ruff_asks_no_docstring_of_magic_methods_or_init():
    text = (
        '"""A module."""\n\n\nclass Thing:\n    """A thing."""\n\n'
        "    def __init__(self):\n        self.x = 1\n\n"
        "    def __repr__(self):\n        return 'thing'\n"
    )
    assert _ruff_on(text, "burako_env/x.py") == set()


def _codespell(path: Path) -> subprocess.CompletedProcess:
    # from the repository: codespell reads [tool.codespell] in its pyproject.toml
    return subprocess.run(
        [sys.executable, "-m", "codespell_lib", str(path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )


TYPO = "teh"  # misspelt on purpose: codespell:ignore teh


def test_codespell_reads_the_projects_settings(tmp_path):
    prose = tmp_path / "notes.md"
    prose.write_text(f"The behaviour of {TYPO} game.\n", encoding="utf-8")
    done = _codespell(prose)
    # the typo found, the project's British spelling accepted
    assert done.returncode != 0 and f"{TYPO} ==> the" in done.stdout, done.stdout
    assert "behaviour" not in done.stdout
    record = tmp_path / "games.jsonl"  # game records: skipped
    record.write_text(f'{{"note": "{TYPO}"}}\n', encoding="utf-8")
    assert _codespell(record).returncode == 0


def test_mypy_checks_the_public_api_with_numbas_config_as_any():
    mypy = _pyproject()["tool"]["mypy"]
    assert {"burako_env/envs", "burako_env/gym", "agents", "training"} <= set(mypy["files"])
    assert mypy["ignore_missing_imports"] and mypy["follow_imports"] == "silent"
    assert not mypy.get("strict", False)
    (override,) = mypy["overrides"]
    assert override["module"] == ["numba.core.config"]


# ------------------------------------------------------------------ what mypy relies on
def test_game_state_declares_every_field_for_the_type_checker():
    declared = inspect.get_annotations(GameState)
    assert list(declared) == list(FIELD_NAMES)
    # annotations only: each field is still the _Field the module sets, a view of the state
    state = allocate_state(2, 4)
    for name in FIELD_NAMES:
        assert isinstance(GameState.__dict__[name], _Field), name
        view = getattr(state, name)
        assert type(view) is np.ndarray and np.shares_memory(view, state), name


def test_net_inputs_move_to_a_device_keeping_their_missing_parts():
    torch = pytest.importorskip("torch")
    from burako_env.agents.network import NetInputs

    tensors = [torch.arange(3), torch.ones(2, 2), torch.zeros(4, dtype=torch.int64)]
    for meld_of, cards in [(None, None), (torch.arange(2), torch.ones(1, 53, 3))]:
        moved = NetInputs(*tensors, meld_of, cards).to(torch.device("meta"))
        assert isinstance(moved, NetInputs)
        for before, after in zip(NetInputs(*tensors, meld_of, cards), moved, strict=True):
            if before is None:
                assert after is None
            else:
                assert after.device.type == "meta" and after.shape == before.shape
                assert after.dtype == before.dtype
