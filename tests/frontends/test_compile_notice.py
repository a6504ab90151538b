"""True messages about compiling: the compile notice is said exactly when something
compiles, and the rates the commands print leave the compile out (or say it is in).

The fast tests compile a one-line kernel in this process. The slow ones (marked ``slow``)
run commands in fresh processes on an empty numba cache of their own (``NUMBA_CACHE_DIR``
in a temporary folder), then again on the cache that run left: cold, the notice; warm,
nothing. Each cold run compiles real kernels (15 to 40 s on 2 cores); they are the
smallest commands that reach them.
"""

from __future__ import annotations

import logging
import os
import re
import subprocess
import sys
from pathlib import Path

import numba
import pytest

from burako_env.frontends import warmup
from burako_env.jit import notices

ROOT = Path(__file__).resolve().parents[2]
JIT = os.environ.get("NUMBA_DISABLE_JIT") != "1"
NOTICE = "compiling the game's kernels for this machine"
needs_jit = pytest.mark.skipif(not JIT, reason="nothing compiles without jit")


# ---------------------------------------------------------------- in this process
@pytest.fixture
def fresh_kernel(tmp_path, monkeypatch):
    """A kernel of a module of burako's (for the notice) that nothing has compiled, in a
    cache folder of its own; the notice not said yet in this process."""
    module = tmp_path / "burako_probe_mod.py"
    module.write_text(
        "from burako_env.jit import njit_kernel\n\n@njit_kernel\n"
        "def probe_kernel(x):\n    return x + 1\n\n@njit_kernel\n"
        "def other_kernel(x):\n    return x * 2\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(numba.config, "CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(notices, "NOTICE_PACKAGES", (*notices.NOTICE_PACKAGES, "burako_probe_mod"))
    monkeypatch.setattr(notices._WATCH, "said", False)
    import burako_probe_mod

    yield burako_probe_mod
    sys.modules.pop("burako_probe_mod", None)


@needs_jit
def test_a_first_compile_is_said_once_through_the_burako_env_logger(fresh_kernel, caplog):
    assert notices.COMPILES_WATCHED
    with caplog.at_level(logging.WARNING, logger="burako_env"):
        assert fresh_kernel.probe_kernel(1) == 2  # compiles: said as it starts
        assert fresh_kernel.probe_kernel(2) == 3  # compiled: nothing
        assert fresh_kernel.other_kernel(2) == 4  # another compile: said once per process
    said = [r for r in caplog.records if r.name == "burako_env"]
    assert len(said) == 1, said
    assert said[0].levelno == logging.WARNING
    assert said[0].getMessage() == notices.compile_notice()
    assert "burako warmup" in said[0].getMessage()


@needs_jit
def test_a_cached_kernel_says_nothing(fresh_kernel, caplog):
    fresh_kernel.probe_kernel(1)  # compiled and saved in the cache folder
    from numba.core.registry import CPUDispatcher

    loaded = CPUDispatcher(fresh_kernel.probe_kernel.py_func, targetoptions={"nopython": True})
    loaded.enable_caching()
    notices._WATCH.said = False
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="burako_env"):
        assert loaded(1) == 2  # loaded from the cache: no compile, no word
    assert sum(loaded.stats.cache_hits.values()) == 1
    assert [r for r in caplog.records if r.name == "burako_env"] == []


def test_a_user_s_own_numba_function_is_not_announced(caplog, monkeypatch):
    monkeypatch.setattr(notices._WATCH, "said", False)

    @numba.njit
    def users_own(x):
        return x - 1

    with caplog.at_level(logging.WARNING, logger="burako_env"):
        assert users_own(3) == 2
    assert [r for r in caplog.records if r.name == "burako_env"] == []


@needs_jit
def test_compile_time_is_kept_and_left_out_of_a_timed_block(fresh_kernel):
    # the process's first cache save (after the compile, so not compile time) costs
    # more than this tiny kernel's compile: a float version first pays it, so the test
    # holds when run alone as in the whole suite
    fresh_kernel.probe_kernel(1.0)
    before = notices.seconds_compiling()
    with notices.timed_without_compile() as timing:
        fresh_kernel.probe_kernel(1)
    grown = notices.seconds_compiling() - before
    assert grown > 0 and timing["compile_seconds"] == pytest.approx(grown)
    assert 0 <= timing["seconds"] < grown  # a call of x + 1 is far quicker than its compile
    with notices.timed_without_compile() as timing:
        fresh_kernel.probe_kernel(2)
    assert timing["compile_seconds"] == 0


def test_the_front_end_notice_is_said_per_command_and_silences_the_log(
    fresh_kernel, monkeypatch, caplog
):
    lines: list[str] = []
    monkeypatch.setitem(warmup.COMMAND_KERNELS, "probe", (lambda: (fresh_kernel.probe_kernel,),))
    if JIT:
        assert warmup.announce_compile("probe", lines.append) == ["probe_kernel"]
        assert lines == [notices.compile_notice()]
        # what the command did not foresee compiles under the notice already said
        with caplog.at_level(logging.WARNING, logger="burako_env"):
            fresh_kernel.other_kernel(1)
        assert [r for r in caplog.records if r.name == "burako_env"] == []
        # a kernel the command adds for its arguments counts as its own
        lines.clear()
        found = warmup.announce_compile("probe", lines.append, [fresh_kernel.other_kernel])
        assert found == ["probe_kernel"] and len(lines) == 1
    else:
        assert warmup.announce_compile("probe", lines.append) == [] and lines == []


def test_each_command_lists_only_kernels_it_calls():
    """The lists that the notice checks are the kernels each command was seen to compile
    from an empty cache (warmup.COMMAND_KERNELS): the tournament and training never call
    the core's Game kernels from Python."""
    names = {
        command: {k.py_func.__name__ for group in groups for k in group()}
        for command, groups in warmup.COMMAND_KERNELS.items()
    }
    if not JIT:
        return
    assert names["tournament"] == {"play_kernel"}
    assert names["simulate"] == {"random_playout_kernel"}
    assert names["sweep"] == {"sweep_kernel"}
    assert names["replay"] == names["distill"] == {"game_kernel"}
    # play's status line: the points on the table (the web table's running score)
    assert names["play"] == {"game_kernel", "_running_score_kernel"}
    assert names["train"] == {"observe_kernel", "mask_kernel"} | {
        "count_meld_rows",
        "featurize",
        "card_pool_forward",
        "card_pool_backward",
        "env_lists_kernel",
    }
    assert "serve" not in names  # nothing compiles before a browser starts a game
    assert [k.py_func.__name__ for k in warmup.deal_kernels(1)] == ["game_kernel"]
    assert [k.py_func.__name__ for k in warmup.deal_kernels(2)] == ["batch_kernel"]


def test_agents_name_the_kernels_they_call_from_python():
    from burako_env.agents import make_agent

    assert make_agent("greedy").kernels() == ()  # decides inside the tournament's kernel
    assert make_agent("random").kernels() == ()
    pimc = {k.py_func.__name__ for k in make_agent("pimc:k=2").kernels()}
    assert pimc == {"search_kernel", "act_serial", "game_kernel", "mask_kernel"}
    pytest.importorskip("torch")
    ppo = [k.py_func.__name__ for k in make_agent("ppo").kernels()]
    # what a tournament calls (act_lists on the games' lists); legal_lists_kernel, which
    # only act calls, was listed: cold on every warm tournament, the notice said each time
    assert ppo == ["env_lists_kernel", "count_meld_rows", "featurize", "card_pool_forward"]


def _name(kernel) -> str:
    return getattr(kernel, "py_func", kernel).__name__


def test_burako_warmup_compiles_every_kernel_a_command_checks():
    """The notice checks a command's kernels (COMMAND_KERNELS, the deal, its agents'
    kernels()); ``burako warmup`` must compile each, or a warm run says it compiles."""
    warmed = {_name(k) for _, kernels_of, _ in warmup.WARMUP_JOBS for k in kernels_of()}
    checked = {_name(k) for groups in warmup.COMMAND_KERNELS.values() for g in groups for k in g()}
    checked |= {_name(k) for size in (1, 2) for k in warmup.deal_kernels(size)}
    assert checked <= warmed, checked - warmed
    # act's legal lists (burako play and the web table with a ppo bot): warmed too
    assert "legal_lists_kernel" in warmed
    pytest.importorskip("torch")
    from burako_env.agents import make_agent

    ppo = {_name(k) for k in make_agent("ppo").kernels()}
    assert ppo <= warmed, ppo - warmed


# ---------------------------------------------------------------- fresh processes
def _run(cache: Path, *args: str, code: str | None = None) -> subprocess.CompletedProcess:
    """``burako ARGS`` (or ``python -c CODE``) in a fresh process on the numba cache
    ``cache``."""
    env = dict(os.environ, NUMBA_CACHE_DIR=str(cache), PYTHONPATH=str(ROOT))
    command = ["-c", code] if code is not None else ["-m", "burako_env.frontends.cli", *args]
    out = subprocess.run(
        [sys.executable, *command],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert out.returncode == 0, out.stdout[-2000:] + out.stderr[-3000:]
    return out


def _cold_then_warm(tmp_path, *args: str, code: str | None = None):
    cache = tmp_path / "cache"
    cold = _run(cache, *args, code=code)
    warm = _run(cache, *args, code=code)
    assert cold.stderr.count(NOTICE) == 1, cold.stderr[-3000:]
    assert NOTICE not in cold.stdout
    assert "compiling" not in warm.stderr + warm.stdout, warm.stderr[-3000:]
    return cold, warm


def _rate(text: str, unit: str) -> float:
    match = re.search(r"([\d,]+) " + re.escape(unit), text)
    assert match, text
    return float(match.group(1).replace(",", ""))


@needs_jit
@pytest.mark.slow
def test_a_cold_tournament_says_so_and_a_warm_one_says_nothing(tmp_path):
    """The main job's bug: a warm tournament said it was compiling the core's four
    kernels, which it never calls. Its rate left the compile in (1 hands/s)."""
    games = tmp_path / "games.jsonl"
    args = ["tournament", "random", "greedy", "--hands", "2", "--workers", "1"]
    cold, warm = _cold_then_warm(
        tmp_path, *args, "--no-progress", "--save-games", str(games), "--force"
    )
    assert "s of compiling left out)" in cold.stdout
    assert "compiling" not in warm.stdout
    # replay compiles the one-game kernel, which the tournament never did
    _cold_then_warm(tmp_path, "replay", str(games), "--check")


@needs_jit
@pytest.mark.slow
def test_simulate_says_so_cold_and_its_rate_leaves_the_compile_out(tmp_path):
    cold, warm = _cold_then_warm(tmp_path, "simulate", "--games", "400")
    assert "s of compiling left out)" in cold.stdout
    assert "compiling" not in warm.stdout
    # before, the cold rate was a tenth of the warm one (333 against 3,141 games/s)
    assert _rate(cold.stdout, "games/s") > _rate(warm.stdout, "games/s") / 4


@needs_jit
@pytest.mark.slow
def test_sweep_says_so_cold_and_its_rate_leaves_the_compile_out(tmp_path):
    args = ["sweep", "--hands", "2", "--batch", "2", "--players", "4", "--no-progress"]
    cold, warm = _cold_then_warm(tmp_path, *args)
    assert re.search(r"hands/s leave out [\d.]+ s of compiling", cold.stdout)
    assert "compiling" not in warm.stdout


_API = """
from burako_env.core.game import Game
game = Game("argentine", num_players=4, seed=0)  # the one-game kernel: a compile
game.legal_action_mask()  # another kernel: the notice is said once per process
print("played")
"""


@needs_jit
@pytest.mark.slow
def test_the_python_api_says_so_once_cold_and_nothing_warm(tmp_path):
    cold, _ = _cold_then_warm(tmp_path, code=_API)
    assert cold.stdout.strip() == "played"
    # Python's last-resort handler prints the logger's WARNING as it is
    assert notices.compile_notice() in cold.stderr.splitlines()


_TOURNAMENT_CALLS = """
from burako_env.agents import make_agent
from burako_env.agents.policies import legal_lists_kernel
from burako_env.agents.tournament import run_tournament
run_tournament(["ppo", "random"], "argentine", num_players=4, hands_per_pairing=2, seed=0,
               workers=1, progress=False)
called = [k.py_func.__name__ for k in make_agent("ppo").kernels() if k.signatures]
print(",".join(called), "legal_lists_kernel" if legal_lists_kernel.signatures else "")
"""


@needs_jit
@pytest.mark.slow
def test_after_burako_warmup_the_main_commands_say_nothing(tmp_path):
    """The README's "a warm run says nothing", on a cache that only ``burako warmup``
    filled: the tournament with ppo (the main job) said it was compiling on every warm
    run, for a kernel that it never calls and that warmup never compiled; play against
    ppo bots and the web server's start say nothing either. The tournament calls every
    kernel ppo's kernels() names, and not act's legal lists."""
    pytest.importorskip("torch")
    cache = tmp_path / "cache"
    warm = _run(cache, "warmup")
    assert "warm:" in warm.stdout
    tournament = ["tournament", "ppo", "random", "--hands", "2", "--players", "4"]
    out = _run(cache, *tournament, "--workers", "1", "--no-progress")
    assert "compiling" not in out.stderr + out.stdout, out.stderr[-3000:]
    calls = _run(cache, code=_TOURNAMENT_CALLS)
    assert calls.stdout.split() == [
        "env_lists_kernel,count_meld_rows,featurize,card_pool_forward"
    ], calls.stdout
    assert "compiling" not in calls.stderr
    env = dict(os.environ, NUMBA_CACHE_DIR=str(cache), PYTHONPATH=str(ROOT))
    play = subprocess.run(
        # seat 1: the ppo bot at seat 0 plays its turn before the prompt
        [sys.executable, "-m", "burako_env.frontends.cli", "play", "--bots", "ppo", "--seat", "1"],
        input="quit\n",
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert "P1 (you) >" in play.stdout, play.stdout[-2000:] + play.stderr[-2000:]
    assert "compiling" not in play.stderr + play.stdout, play.stderr[-3000:]
    _serve_starts_silently(env)


def _serve_starts_silently(env: dict) -> None:
    """``burako serve`` up to its URL line (it compiles nothing until a game starts)."""
    pytest.importorskip("uvicorn")
    server = subprocess.Popen(
        [sys.executable, "-m", "burako_env.frontends.cli", "serve", "--port", "0"],
        env=env,
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    seen = []
    try:
        for line in server.stdout:
            seen.append(line)
            if "http://" in line:
                break
    finally:
        server.terminate()
        server.wait(timeout=60)
    assert any("http://" in line for line in seen), seen
    assert not any("compiling" in line for line in seen), seen
