"""Hostile input never crashes, hangs or deletes (issue 34): saved state re-entering the
core, variant files and records, YAML, batch sizes, tracebacks, silent rounding and
terminal escapes. Every test here failed on the code before that issue's fixes; the
cases that crashed the interpreter or ate memory run in a subprocess (under a memory cap
where memory was the harm), so that the old code fails the test and not the session.
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from burako_env.checks import InvalidStateError
from burako_env.envs.vector import VectorEnv
from burako_env.frontends.cli import app

ROOT = Path(__file__).resolve().parents[1]
runner = CliRunner()
MEMORY_CAP = 3 * 2**30  # bytes: the interpreter, numpy and numba fit with room to spare


def cli(*args, input: str | None = None):
    return runner.invoke(app, [str(a) for a in args], input=input)


def assert_cli_error(result, *words: str) -> None:
    assert result.exit_code == 2, result.output
    assert "error:" in result.output
    assert "Traceback" not in result.output
    for word in words:
        assert word in result.output, result.output


def _cap_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_CAP, MEMORY_CAP))


def run_python(code: str, timeout: float = 240, cap: bool = False, cwd=ROOT):
    """``code`` in a fresh interpreter running this checkout (a crash there fails the
    test, not the session); under :data:`MEMORY_CAP` with ``cap``."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=cwd,
        env=env,
        preexec_fn=_cap_memory if cap else None,
    )


def played_env(variant="argentine", num_players=None, num_envs=16, steps=120, **kw):
    """A VectorEnv after ``steps`` uniformly random legal actions per game."""
    env = VectorEnv(variant, num_players=num_players, num_envs=num_envs, seed=3, **kw)
    _, _, info = env.reset()
    rng = np.random.default_rng(0)
    rows = np.arange(num_envs)
    for _ in range(steps):
        pick = (rng.random(num_envs) * info["num_legal"]).astype(np.int64)
        _, _, info = env.step(info["legal"][rows, pick].astype(np.int64))
    return env


# ------------------------------------------------------------------ 1. saved state values
CORRUPTIONS = [  # (array, index, value, words of the error): the adversarial pass's cases
    ("num_melds", (0, 0), 100, "num_melds[0] is 100"),
    ("pile_len", (3,), 30000, "pile_len is 30000"),
    ("num_legal", (5,), 30000, "num_legal is 30000"),
    ("scalars", (2, 1), 7, "S_PLAYER"),
    ("hands", (1, 0, 4), 3, "hands[0][4] is 3"),
    ("stock", (4, 0), 60, "stock[0] is 60"),
    ("rng", (0,), 0, "generator is all zero"),
    ("muerto_taker", (1, 0, 0), 9, "muerto_taker"),
]


def test_set_state_refuses_out_of_range_values_before_any_kernel():
    """Right shapes and dtypes, values out of range: SIGSEGV / double free before."""
    code = f"""
        import numpy as np
        from burako_env.envs.vector import VectorEnv
        env = VectorEnv("argentine", num_envs=8, seed=0)
        saved = env.get_state()
        for name, index, value, words in {CORRUPTIONS!r}:
            bad = {{k: v.copy() for k, v in saved.items()}}
            bad[name][index] = value
            try:
                env.set_state(bad)
            except ValueError as exc:
                assert type(exc).__name__ == "InvalidStateError", exc
                assert words in str(exc), (words, str(exc))
            else:
                raise SystemExit(f"{{name}}={{value}} accepted")
            env.step(env.game.state.legal[:, 0].astype(np.int64))  # the games still play
        print("refused all")
    """
    done = run_python(code)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "refused all" in done.stdout


def test_set_state_refuses_cards_not_conserved():
    env = played_env(num_envs=4, steps=20)
    saved = env.get_state()
    b = 2
    n = saved["stock_len"][b]
    card = saved["stock"][b, n - 1]
    saved["stock"][b, n - 1] = (card + 1) % 52  # one card type more, another less
    before = env.get_state()
    with pytest.raises(InvalidStateError, match="game 2: cards not accounted for"):
        env.set_state(saved)
    after = env.get_state()
    assert all(np.array_equal(before[k], after[k]) for k in before)  # nothing changed


@pytest.mark.parametrize(
    "variant, players, episode",
    [
        ("argentine", 2, "hand"),
        ("argentine", 4, "match"),
        ("brazilian", 4, "hand"),
        ("colombian", 6, "match"),
        ("italian", 4, "hand"),
    ],
)
def test_set_state_accepts_every_reachable_state(variant, players, episode):
    env = played_env(variant, players, num_envs=32, steps=150, episode=episode)
    saved = env.get_state()
    obs, mask, _ = env.set_state(saved)
    assert obs.shape[0] == 32 and mask.any(axis=1).all()


def test_set_state_refuses_another_episode_kind():
    saved = VectorEnv("argentine", num_envs=2, episode="match").get_state()
    with pytest.raises(InvalidStateError, match="S_EPISODE_MATCH"):
        VectorEnv("argentine", num_envs=2, episode="hand").set_state(saved)


def test_resume_of_a_corrupted_env_state_is_a_checkpoint_error():
    """``burako train --resume`` hands the checkpoint's arrays to load_env_state."""
    code = """
        import torch
        from burako_env.envs.vector import VectorEnv
        from training.checkpoint import CheckpointError
        from training.ppo import env_state, load_env_state
        env = VectorEnv("argentine", num_envs=4, seed=0)
        state = env_state(env)
        state["num_melds"][0, 1] = 100
        try:
            load_env_state(env, state)
        except CheckpointError as exc:
            print("refused:", exc)
    """
    done = run_python(code)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "refused: the checkpoint's games do not fit this run" in done.stdout
    assert "num_melds[1] is 100" in done.stdout
