"""Hypothesis throws random bad arguments at every public method of ``Game``, the three
environments and the CLI's commands: nothing may crash the interpreter, and every
failure must be a Python exception with a message (issue 12). The Game and env fuzz runs
in a subprocess, so a segfault or an abort in a kernel shows as a failed test with the
call that caused it instead of killing the test worker; the CLI fuzz checks the
``error: ...`` / exit 2 contract of every command."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from burako_env.frontends.cli import app

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = int(os.environ.get("BURAKO_FUZZ_EXAMPLES", "60"))

# ------------------------------------------------------------------ in a subprocess
FUZZ_SCRIPT = textwrap.dedent(
    """
    import sys, traceback
    import numpy as np
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st
    from hypothesis.extra import numpy as hnp

    from burako_env.core.game import Game
    from burako_env.envs.aec import env as aec_env, raw_env
    from burako_env.gym.single import BurakoGymEnv
    from burako_env.envs.vector import VectorEnv

    EXAMPLES = int(sys.argv[1])
    ALLOWED = (ValueError, TypeError, IndexError, KeyError, RuntimeError, AssertionError)

    def arrays():
        dtypes = st.sampled_from([np.int64, np.int16, np.uint8, np.float64, np.bool_])
        shapes = hnp.array_shapes(min_dims=0, max_dims=3, max_side=6)
        return dtypes.flatmap(lambda d: hnp.arrays(d, shapes))

    junk = st.one_of(
        st.none(),
        st.booleans(),
        st.integers(-(2**70), 2**70),
        st.integers(-3, 2000),
        st.floats(allow_nan=True, allow_infinity=True),
        st.text(max_size=6),
        st.lists(st.integers(-3, 2000), max_size=6),
        st.builds(np.int64, st.integers(-(2**40), 2**40)),
        arrays(),
        st.just(object()),
    )

    def call(fn, *args, **kwargs):
        try:
            fn(*args, **kwargs)
        except ALLOWED as exc:
            assert str(exc), f"{type(exc).__name__} without a message from {fn.__name__}"
        except Exception as exc:  # gymnasium's own errors (seeding) carry messages too
            if type(exc).__module__.startswith("gymnasium") and str(exc):
                return
            raise

    GAME_METHODS = [
        ("reset", 2), ("legal_actions", 1), ("legal_action_mask", 1), ("observe", 2),
        ("action_error", 2), ("why_illegal", 2), ("step", 2), ("step_one", 2),
        ("observe_one", 3), ("is_over", 1),
    ]

    game = Game(batch_size=4, seed=0)

    @settings(max_examples=EXAMPLES * 4, deadline=None, derandomize=True,
              suppress_health_check=list(HealthCheck))
    @given(st.sampled_from(GAME_METHODS), st.lists(junk, min_size=0, max_size=3))
    def fuzz_game(method, args):
        name, arity = method
        call(getattr(game, name), *args[:arity])
        if game.done.any():
            game.reset(0)

    @settings(max_examples=EXAMPLES, deadline=None, derandomize=True,
              suppress_health_check=list(HealthCheck))
    @given(junk, junk, junk, junk)
    def fuzz_constructors(variant, num_players, batch, seed):
        if isinstance(batch, (int, np.integer)) and not isinstance(batch, bool):
            batch = int(batch) % 9 - 1  # no gigantic allocations: -1..7
        call(Game, variant, num_players, batch, seed=seed)
        call(raw_env, variant=variant, num_players=num_players, episode=seed)
        call(BurakoGymEnv, variant, num_players, seat=batch, opponents=seed)
        call(VectorEnv, variant, num_players, num_envs=batch, seed=seed)

    aec = raw_env()
    aec.reset(seed=0)
    wrapped = aec_env()
    wrapped.reset(seed=0)
    gym = BurakoGymEnv()
    gym.reset(seed=0)
    venv = VectorEnv(num_envs=4, seed=0)

    @settings(max_examples=EXAMPLES * 4, deadline=None, derandomize=True,
              suppress_health_check=list(HealthCheck))
    @given(st.integers(0, 9), junk)
    def fuzz_envs(which, value):
        if which == 0:
            call(aec.step, value)
        elif which == 1:
            call(aec.observe, value)
        elif which == 2:
            call(aec.explain_illegal, value)
        elif which == 3:
            call(wrapped.step, value)
        elif which == 4:
            call(gym.step, value)
        elif which == 5:
            call(gym.reset, seed=value)
        elif which == 6:
            call(venv.step, value)
        elif which == 7:
            call(venv.reset, value)
        elif which == 8:
            call(venv.set_state, value)
        else:
            call(aec.reset, seed=value)
        if not aec.agents or any(aec.terminations.values()):
            aec.reset(seed=0)
        raw = wrapped.unwrapped
        if not raw.agents or any(raw.terminations.values()):
            wrapped.reset(seed=0)
        if gym._over:
            gym.reset(seed=0)

    for test in (fuzz_game, fuzz_constructors, fuzz_envs):
        test()
        print(test.__name__, "ok", flush=True)
    """
)


def test_fuzz_game_and_envs_in_a_subprocess(tmp_path):
    script = tmp_path / "fuzz.py"
    script.write_text(FUZZ_SCRIPT)
    done = subprocess.run(
        [sys.executable, str(script), str(EXAMPLES)],
        capture_output=True,
        text=True,
        timeout=1500,
        cwd=ROOT,
    )
    assert done.returncode == 0, (
        f"exit {done.returncode} (negative: killed by signal {-done.returncode})\n"
        + done.stdout[-4000:]
        + done.stderr[-8000:]
    )
    for name in ("fuzz_game", "fuzz_constructors", "fuzz_envs"):
        assert f"{name} ok" in done.stdout


# ------------------------------------------------------------------ the CLI
runner = CliRunner()


def _bad_values(tmp: Path) -> list[str]:
    binary = tmp / "binary.bin"
    binary.write_bytes(bytes(range(256)))
    text = tmp / "text.pt"
    text.write_text("e\n")
    blocker = tmp / "blocker"
    blocker.write_text("x")
    return [
        "-1",
        "0",
        "3",
        "99",
        "1.5",
        "abc",
        "",
        "klondike",
        str(binary),
        str(text),
        str(tmp),
        f"{tmp}/",
        str(blocker / "sub" / "out.jsonl"),
        str(tmp / "missing.yaml"),
        f"ppo:{text}",
        "ppo:",
        "greedy,random",
        "env.variant=klondike",
        "nonsense",
    ]


# per command: its options (each given a bad value) and the small settings that keep a
# run short when the bad values happen to be valid
COMMANDS = {
    "rules": (["--players"], []),
    "simulate": (["--variant", "--players", "--seed"], ["--games", "2"]),
    "bench": (["--api", "--variant", "--players", "--batch", "--threads"], ["--seconds", "0"]),
    "tournament": (
        ["--variant", "--players", "--seed", "--workers", "--episode", "--save-games", "--out"],
        ["random", "greedy", "--hands", "2", "--no-progress"],
    ),
    "play": (["--variant", "--players", "--seat", "--bots", "--seed", "--save"], []),
    "replay": (["--game", "--viewer"], []),
    "train": (["--config", "--set", "--resume", "--stop-after"], []),
}


@settings(
    max_examples=EXAMPLES * 2,
    deadline=None,
    derandomize=True,
    suppress_health_check=list(HealthCheck),
)
@given(data=st.data())
def test_fuzz_cli_commands(tmp_path_factory, data):
    tmp = tmp_path_factory.mktemp("fuzz")
    values = _bad_values(tmp)
    command = data.draw(st.sampled_from(sorted(COMMANDS)))
    options, base = COMMANDS[command]
    chosen = data.draw(st.lists(st.sampled_from(options), min_size=1, max_size=3, unique=True))
    argv = [command, *base]
    if command == "replay":
        argv.append(data.draw(st.sampled_from(values)))
    if command == "rules":
        argv.append(data.draw(st.sampled_from(values)))
    if command == "train":  # never a real run: a config that does not build
        argv += ["--run-dir", str(tmp / "run"), "--set", "env.num_envs=1"]
    for option in chosen:
        argv += [option, data.draw(st.sampled_from(values))]
    before = sorted(p.name for p in tmp.iterdir())
    result = runner.invoke(app, argv, input="quit\n")
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise AssertionError(f"burako {' '.join(argv)} raised {result.exception!r}")
    assert result.exit_code in (0, 1, 2), (argv, result.exit_code, result.output)
    if result.exit_code == 2:
        assert "error:" in result.output or "Usage:" in result.output, (argv, result.output)
        assert sorted(p.name for p in tmp.iterdir()) == before, argv  # nothing half-written
    assert np.isfinite(result.exit_code)
