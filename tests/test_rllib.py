"""RLlib (burako_env.rllib, docs/RLLIB.md), in an interpreter of its own.

The cases are tests/rllib_cases.py. Importing RLlib rewires the process's standard
streams (its and torch's loggers, Ray's output handling): a test that ran later in the
same pytest process, the web server's command under a CLI runner, failed with 'I/O
operation on closed file' and took every later test of that worker with it. So one test
here runs those cases in a fresh ``pytest`` and reports their result."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

CASES = Path(__file__).with_name("rllib_cases.py")


def test_rllib_cases_pass_in_their_own_process():
    if importlib.util.find_spec("ray") is None or importlib.util.find_spec("ray.rllib") is None:
        pytest.skip("RLlib is not installed: pip install 'burako[rllib]' (setup installs it)")
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:xdist", "-p", "no:cacheprovider",
         str(CASES)],
        cwd=CASES.parents[1],
        env=dict(os.environ),
        capture_output=True,
        text=True,
        timeout=900,
    )  # fmt: skip
    assert run.returncode == 0, run.stdout[-6000:] + run.stderr[-3000:]
    assert " passed" in run.stdout and " failed" not in run.stdout, run.stdout[-3000:]
