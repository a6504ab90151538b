"""Compile notices, ``burako warmup`` and the cold-compile benchmark."""

from __future__ import annotations

import os
import sys

import numba
import pytest
from typer.testing import CliRunner

from burako_env import jit as nb
from burako_env.frontends import bench, warmup
from burako_env.frontends.cli import app

JIT = os.environ.get("NUMBA_DISABLE_JIT") != "1"


@pytest.mark.skipif(not JIT, reason="nothing compiles without jit")
def test_cold_kernels_names_an_uncompiled_kernel_until_it_runs(tmp_path, monkeypatch):
    module = tmp_path / "fresh_kernel_mod.py"
    module.write_text(
        "from burako_env.jit import njit_kernel\n\n@njit_kernel\n"
        "def fresh_kernel(x):\n    return x + 1\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(numba.config, "CACHE_DIR", str(tmp_path / "cache"))
    import fresh_kernel_mod

    try:
        assert nb.cold_kernels(fresh_kernel_mod.fresh_kernel) == ["fresh_kernel"]
        lines: list[str] = []
        monkeypatch.setitem(
            warmup.COMMAND_KERNELS, "probe", (lambda: (fresh_kernel_mod.fresh_kernel,),)
        )
        assert warmup.announce_compile("probe", lines.append) == ["fresh_kernel"]
        assert len(lines) == 1 and "compiling" in lines[0] and "burako warmup" in lines[0]
        assert fresh_kernel_mod.fresh_kernel(1) == 2
        assert nb.cold_kernels(fresh_kernel_mod.fresh_kernel) == []  # compiled now
        lines.clear()
        assert warmup.announce_compile("probe", lines.append) == []
        assert lines == []  # nothing said when nothing compiles
    finally:
        sys.modules.pop("fresh_kernel_mod", None)


def test_cold_kernels_ignores_plain_functions():
    assert nb.cold_kernels(len, lambda x: x) == []


def test_every_command_lists_kernels_that_exist():
    for command, groups in warmup.COMMAND_KERNELS.items():
        for group in groups:
            kernels = group()
            assert kernels, command
            if JIT:
                assert all(isinstance(k, numba.core.registry.CPUDispatcher) for k in kernels)


def test_warmup_runs_every_job_and_leaves_nothing_cold():
    result = CliRunner().invoke(app, ["warmup"])
    assert result.exit_code == 0, result.output
    for name, _, _ in warmup.WARMUP_JOBS:
        assert f"{name}: " in result.output
    assert "warm:" in result.output
    # where the cache is, and how to clear it
    assert f"cached in {nb.numba_cache_folder()}: delete that folder" in result.output
    for command in warmup.COMMAND_KERNELS:
        lines: list[str] = []
        assert warmup.announce_compile(command, lines.append) == [], command


def test_cold_compile_times_a_fresh_process(monkeypatch):
    monkeypatch.setitem(bench.COMPILE_JOBS, "probe", "import burako_env.jit")
    row = bench.cold_compile("probe")
    assert row["job"] == "probe" and row["wall_s"] > 0 and row["cpu_s"] > 0
    assert "| probe |" in bench.format_compile_rows([row])
    monkeypatch.setitem(bench.COMPILE_JOBS, "broken", "raise SystemExit('no such kernel')")
    with pytest.raises(RuntimeError, match="'broken' compile job failed: no such kernel"):
        bench.cold_compile("broken")


def test_the_compile_jobs_are_valid_python():
    for job, code in bench.COMPILE_JOBS.items():
        compile(code, job, "exec")


def test_a_command_says_when_it_is_about_to_compile(monkeypatch):
    monkeypatch.setattr(warmup, "cold_kernels", lambda *kernels: ["random_playout_kernel"])
    result = CliRunner().invoke(app, ["simulate", "--games", "2"])
    assert result.exit_code == 0, result.output
    assert "compiling the game's kernels for this machine (a first run" in result.stderr
    monkeypatch.setattr(warmup, "cold_kernels", lambda *kernels: [])
    result = CliRunner().invoke(app, ["simulate", "--games", "2"])
    assert result.exit_code == 0 and "compiling" not in result.stderr


def test_warmup_deals_every_table_size_the_web_table_offers():
    from burako_env.core.game import Game
    from burako_env.frontends.web.sessions import variant_choices

    sizes = warmup.web_table_sizes()
    assert sizes == [(v["name"], n) for v in variant_choices() for n in v["players"]]
    assert {n for _, n in sizes} == {2, 4, 6, 8}
    # why each size is warmed: the kernels are compiled for the types of a game's state,
    # whose arrays are sized by the players (a warm 4 compiled again at 2, 6 or 8)
    layouts = {
        n: warmup._layout(Game("colombian" if n > 4 else "argentine", num_players=n))
        for n in (2, 4, 6)
    }
    assert len(set(layouts.values())) == 3
    assert any(job is warmup.job_web_table for _, _, job in warmup.WARMUP_JOBS)


_FIRST_WEB_GAMES = """
from burako_env.frontends.warmup import web_table_sizes
from burako_env.frontends.web.sessions import PlaySession

for variant, players in web_table_sizes():  # the page's default bots, a deal seed of its own
    s = PlaySession.new({"variant": variant, "players": players, "seat": 1, "seed": 2**63 + 7})
    while s.to_act != s.seat:
        s.bot_move()
    s.view()
    s.ask_hint()
    print(variant, players, "dealt and hinted")
"""


@pytest.mark.skipif(not JIT, reason="nothing compiles without jit")
@pytest.mark.slow
def test_after_warmup_a_first_deal_and_hint_at_every_size_compile_nothing(tmp_path):
    """The first deal at 2, 6 or 8 players took about 50 s after ``burako warmup`` (its
    jobs dealt 4 only), and the first hint as long again: on a cache that only warmup
    filled, a fresh process deals, plays the bots and asks a hint at every size the web
    table offers, and nothing compiles."""
    import subprocess
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "cache"), PYTHONPATH=str(root))

    def run(*args: str) -> subprocess.CompletedProcess:
        out = subprocess.run(
            [sys.executable, *args],
            env=env,
            cwd=root,
            capture_output=True,
            text=True,
            timeout=3000,
        )
        assert out.returncode == 0, out.stdout[-2000:] + out.stderr[-3000:]
        return out

    warm = run("-m", "burako_env.frontends.cli", "warmup")
    assert "web table and burako play, every table size: compiled" in warm.stdout
    first = run("-c", _FIRST_WEB_GAMES)
    assert first.stdout.count("dealt and hinted") == len(warmup.web_table_sizes())
    assert "compiling" not in first.stderr + first.stdout, first.stderr[-3000:]
