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
