"""``scripts/setup.sh``: the README's two commands set up only what they need, once.

``bash scripts/run.sh`` (the main job) installs the core and the ppo agent's torch (the
``train`` extra); ``bash scripts/test.sh`` (CI) every extra and the test tools. A second
call with nothing changed runs no installer and prints nothing (a stamp in ``.venv``); a
changed pyproject.toml, torch requirement or a new extra installs again. The tests run the
real script in a copy of the repository whose ``.venv/bin/python`` is a stand-in that
writes down its arguments: no pip, no download.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

FAKE_PYTHON = """#!/bin/sh
echo "$@" >> "$(dirname "$0")/../../calls.log"
case " $* " in
  *" -e "*) [ -f "$(dirname "$0")/../../pip-fails" ] && exit 1 ;;
esac
echo "Successfully installed burako"
"""


@pytest.fixture
def checkout(tmp_path: Path) -> Path:
    """A copy of the repository's setup script and pyproject.toml, with a .venv whose
    python records each call in calls.log."""
    if shutil.which("bash") is None or shutil.which("python3") is None:
        pytest.skip("needs bash and python3")
    (tmp_path / "scripts").mkdir()
    shutil.copy(ROOT / "scripts" / "setup.sh", tmp_path / "scripts" / "setup.sh")
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    python = tmp_path / ".venv" / "bin" / "python"
    python.parent.mkdir(parents=True)
    python.write_text(FAKE_PYTHON)
    python.chmod(0o755)
    return tmp_path


def setup(checkout: Path, *extras: str, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        ["bash", str(checkout / "scripts" / "setup.sh"), *extras],
        capture_output=True,
        text=True,
        env={k: v for k, v in os.environ.items() if k != "BURAKO_TORCH"} | env,
        timeout=60,
    )


def installs(checkout: Path) -> list[str]:
    """The pip installs of burako the script ran so far (its pip upgrades left out)."""
    log = checkout / "calls.log"
    lines = log.read_text().splitlines() if log.exists() else []
    return [line for line in lines if "-e" in line.split()]


def test_the_main_job_installs_train_once_and_a_second_run_prints_nothing(checkout):
    first = setup(checkout)  # run.sh's call: the default extra
    assert first.returncode == 0, first.stderr
    assert installs(checkout) == ["-m pip install -e .[train] torch==2.13.0"]
    # it says what it installs and about how long, before pip's own progress
    assert "installing burako[train] and torch==2.13.0" in first.stderr
    assert "GB" in first.stderr and "minutes" in first.stderr
    again = setup(checkout, "train")
    assert again.returncode == 0
    assert again.stdout == again.stderr == ""  # no installer output, no word
    assert len(installs(checkout)) == 1


def test_the_tests_install_the_rest_and_the_main_job_then_needs_nothing(checkout):
    assert setup(checkout, "train").returncode == 0
    assert setup(checkout, "all,dev").returncode == 0
    # the extras installed so far stay in: what is there and what is asked for
    assert installs(checkout)[
        -1
    ] == "-m pip install -e .[dev,openspiel,postgres,ray,rllib,train,web] " + ("torch==2.13.0")
    for extras in ("train", "all,dev", "web", "dev"):  # all installed: nothing to do
        done = setup(checkout, extras)
        assert done.returncode == 0 and done.stdout == done.stderr == "", extras
    assert len(installs(checkout)) == 2


def test_a_changed_pyproject_or_torch_installs_again(checkout):
    assert setup(checkout).returncode == 0
    pyproject = checkout / "pyproject.toml"
    pyproject.write_text(pyproject.read_text() + "\n# a new dependency\n")
    assert setup(checkout).returncode == 0
    assert len(installs(checkout)) == 2
    assert setup(checkout, BURAKO_TORCH="torch").returncode == 0
    assert installs(checkout)[-1] == "-m pip install -e .[train] torch"
    assert setup(checkout, BURAKO_TORCH="torch").stderr == ""
    assert len(installs(checkout)) == 3


def test_a_failed_install_says_so_and_tries_again_next_time(checkout):
    (checkout / "pip-fails").touch()
    failed = setup(checkout)
    assert failed.returncode == 1
    assert "setup: pip install failed (above); the next run tries again" in failed.stderr
    assert not (checkout / ".venv" / ".burako-setup").exists()
    (checkout / "pip-fails").unlink()
    assert setup(checkout).returncode == 0
    assert len(installs(checkout)) == 2
    assert setup(checkout).stderr == ""


def test_run_sh_asks_for_train_and_test_sh_for_everything():
    run = (ROOT / "scripts" / "run.sh").read_text()
    test = (ROOT / "scripts" / "test.sh").read_text()
    assert "bash scripts/setup.sh train\n" in run
    assert "bash scripts/setup.sh all,dev\n" in test
