"""Off the happy path: bad indices and actions, package data, fork safety, the CLI's error
contract, policy files for another table, and a hypothesis fuzz of every public entry
point (issue 12). Every test here failed on the code before that issue's fixes."""

from __future__ import annotations

import multiprocessing
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
import yaml
from conftest import assert_cli_error, cli

from burako_env.core.constants import NUM_ACTIONS
from burako_env.core.game import Game
from burako_env.envs.aec import env as aec_env
from burako_env.envs.aec import raw_env
from burako_env.envs.vector import VectorEnv
from burako_env.gym.single import BurakoGymEnv
from burako_env.variants import CONFIGS_DIR, VariantError, load_variant

ROOT = Path(__file__).resolve().parents[2]


def same_state(a, b) -> bool:
    return all(np.array_equal(x, y) for x, y in zip(a, b, strict=True))


# ------------------------------------------------------------------ Game: bounds checks
BAD_INDEX_CALLS = [
    ("why_illegal", (2,), {"b": 10**6}, IndexError, "b must be 0..3"),
    ("action_error", (5,), {"b": 10**7}, IndexError, "b must be 0..3"),
    ("observe_one", (0,), {"b": 99}, IndexError, "b must be 0..3"),
    ("step_one", (2,), {"b": 99}, IndexError, "b must be 0..3"),
    ("observe_one", (9,), {}, IndexError, "player must be 0..3"),
    ("observe_one", (-1,), {}, IndexError, "player must be 0..3"),
    ("legal_actions", (), {"b": -1}, IndexError, "b must be 0..3"),
    ("is_over", (4,), {}, IndexError, "b must be 0..3"),
    ("is_over", (1.0,), {}, TypeError, "b must be a whole number 0..3"),
    ("action_error", (2,), {"b": True}, TypeError, "b must be a whole number"),
    ("observe", (7,), {}, IndexError, "players must be seats 0..3"),
    ("observe", (np.array([0, 1]),), {}, ValueError, "shape (4,)"),
    ("observe", (1.5,), {}, TypeError, "players must be whole numbers"),
    ("reset", (), {"games": np.ones(3, bool)}, ValueError, "games must be a bool array"),
    ("reset", (), {"seed": -1}, ValueError, "seed must be a non-negative"),
    ("legal_action_mask", (), {"out": np.zeros((2, NUM_ACTIONS), bool)}, ValueError, "out"),
    ("observe", (), {"out": np.zeros((4, 3), np.int16)}, ValueError, "out must be"),
    ("observe_one", (0,), {"out": np.zeros(5, np.int16)}, ValueError, "out must be"),
]


@pytest.mark.parametrize(("method", "args", "kwargs", "error", "words"), BAD_INDEX_CALLS)
def test_game_refuses_bad_indices_before_any_kernel(method, args, kwargs, error, words):
    game = Game(batch_size=4, seed=3)
    before = game.snapshot()
    with pytest.raises(error) as info:
        getattr(game, method)(*args, **kwargs)
    assert words in str(info.value)
    assert same_state(before, game.state)


def test_step_one_out_of_range_touches_no_game():
    game = Game(batch_size=4, seed=0)
    before = game.snapshot()
    legal = int(game.legal_actions(0)[0])
    with pytest.raises(IndexError):
        game.step_one(legal, b=99)
    assert same_state(before, game.state)


@pytest.mark.parametrize(
    ("actions", "error", "words"),
    [
        (np.array([[2, 2], [2, 2]]), ValueError, "shape (4,)"),
        (np.zeros(5, np.int64), ValueError, "shape (4,)"),
        (np.array([2.0, 2.0, 2.0, 2.0]), TypeError, "whole numbers"),
        (["2", "2", "2", "2"], TypeError, "whole numbers"),
        (np.array([-2, -1, -1, -1]), ValueError, "-1 to skip"),
        (np.array([True, False, True, False]), TypeError, "whole numbers"),
    ],
)
def test_game_step_refuses_coercion(actions, error, words):
    game = Game(batch_size=4, seed=0)
    before = game.snapshot()
    with pytest.raises(error, match=None) as info:
        game.step(actions)
    assert words in str(info.value)
    assert same_state(before, game.state)


def test_game_step_minus_one_still_skips():
    game = Game(batch_size=2, seed=0)
    a = int(game.legal_actions(1)[0])
    before = game.snapshot()
    game.step(np.array([-1, a]))
    assert np.array_equal(game.state.hands[0], before.hands[0])
    assert not np.array_equal(game.state.scalars[1], before.scalars[1])


# ------------------------------------------------------------------ envs: no coercion
BAD_ACTIONS = [2.7, 2.0, "2", True, None, np.float64(2.0), [2], np.array([2, 3])]


@pytest.mark.parametrize("action", BAD_ACTIONS, ids=repr)
def test_raw_env_refuses_non_integer_actions(action):
    env = raw_env()
    env.reset(seed=0)
    before = env.game.snapshot()
    with pytest.raises((TypeError, ValueError)) as info:
        env.step(action)
    assert str(info.value)
    assert same_state(before, env.game.state)


@pytest.mark.parametrize("action", [2.7, "2", True, np.float32(2)], ids=repr)
def test_wrapped_env_refuses_non_integer_actions(action):
    env = aec_env()
    env.reset(seed=0)
    before = env.unwrapped.game.snapshot()
    with pytest.raises(TypeError, match="whole number"):
        env.step(action)
    assert same_state(before, env.unwrapped.game.state)


@pytest.mark.parametrize("action", [2.7, "2", True, np.float64(1.0)], ids=repr)
def test_gym_env_refuses_non_integer_actions(action):
    env = BurakoGymEnv()
    env.reset(seed=0)
    before = env.game.snapshot()
    with pytest.raises(TypeError, match="whole number"):
        env.step(action)
    assert same_state(before, env.game.state)


def test_integer_actions_of_numpy_types_are_accepted():
    env = raw_env()
    env.reset(seed=0)
    env.step(np.int64(env.legal_actions()[0]))
    env.step(np.array(env.legal_actions()[0]))  # a 0-d integer array, as Gymnasium passes
    genv = BurakoGymEnv()
    genv.reset(seed=0)
    genv.step(np.int16(genv.legal_actions()[0]))


@pytest.mark.parametrize(
    ("actions", "error"),
    [
        (np.zeros((2, 2), np.int64), ValueError),
        (np.zeros(4, np.float64), TypeError),
        (np.array(["1"] * 4), TypeError),
        (np.zeros(3, np.int64), ValueError),
    ],
)
def test_vector_env_refuses_coercion(actions, error):
    venv = VectorEnv(num_envs=4, seed=0)
    venv.reset()
    with pytest.raises(error):
        venv.step(actions)


# ------------------------------------------------------------------ package data
def test_configs_ship_inside_the_package_and_the_top_level_points_there():
    package = ROOT / "burako_env" / "configs"
    assert CONFIGS_DIR == package
    for sub in ("variants", "train"):
        names = sorted(p.name for p in (package / sub).glob("*.yaml"))
        assert names, sub
        assert names == sorted(p.name for p in (ROOT / "configs" / sub).glob("*.yaml"))
        for name in names:
            assert (ROOT / "configs" / sub / name).read_bytes() == (
                package / sub / name
            ).read_bytes()
    pyproject = (ROOT / "pyproject.toml").read_text()
    assert '"burako_env.configs.train" = ["*.yaml"]' in pyproject
    assert '"burako_env.configs.variants" = ["*.yaml"]' in pyproject


def test_named_variants_and_train_configs_load_from_any_folder(tmp_path, monkeypatch):
    from burako_env.training.config import ConfigError, load_config

    monkeypatch.chdir(tmp_path)
    assert load_variant("italian").name == "italian"
    assert load_config("tiny").name == "tiny"
    assert load_config("configs/train/tiny.yaml").name == "tiny"
    assert load_config("hinted").env.num_envs == 1024
    shipped = "argentine, brazilian, colombian, hinted, italian, tiny"
    with pytest.raises(ConfigError, match=f"shipped configs: {shipped}"):
        load_config("nosuch")
    with pytest.raises(ConfigError, match="does not exist"):
        load_config(tmp_path / "mine" / "tiny.yaml")  # a path of one's own: no guessing


def test_non_editable_install_runs_from_another_folder(tmp_path):
    """``pip install .`` (a wheel, not editable) into a fresh virtualenv, run from a folder
    that is not the checkout: rules, every env, a train config, a tournament. The fresh
    env reuses this env's installed dependencies (a .pth line, --no-deps): no download."""
    import sysconfig
    import zipfile
    from importlib.metadata import version

    wheels = tmp_path / "wheels"
    # verbose: the build backend's own output, where setuptools' warnings are
    built = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-v"]
        + ["-w", str(wheels), str(ROOT)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    assert built.returncode == 0, built.stdout[-3000:] + built.stderr[-3000:]
    # the data folders are packages of their own: no "Package 'burako_env.data' is absent
    # from the `packages` configuration ... would be ignored" (four of them before)
    for warning in ("would be ignored", "is absent from the `packages`"):
        assert warning not in built.stdout + built.stderr
    (wheel,) = wheels.glob("burako-*.whl")
    # one namespace: agents/ and training/ are packed as burako_env.agents and
    # burako_env.training, never as top-level packages of their own
    names = zipfile.ZipFile(wheel).namelist()
    for module in ("agents/__init__.py", "agents/policies.py", "agents/ppo_agent.py"):
        assert f"burako_env/{module}" in names, module
    for module in ("training/__init__.py", "training/config.py", "training/ppo.py"):
        assert f"burako_env/{module}" in names, module
    assert "burako_env/py.typed" in names
    # numba's runtime, a package of its own below the core (its sources name the cache)
    for module in ("jit/__init__.py", "jit/cache.py", "jit/link_only.py"):
        assert f"burako_env/{module}" in names, module
    # the package data: configs, shipped policies, the web table's files
    for folder, pattern in (
        ("burako_env/configs/train", "*.yaml"),
        ("burako_env/configs/variants", "*.yaml"),
        ("burako_env/data", "*.pt"),
        ("burako_env/frontends/web/static", "*"),
    ):
        shipped = sorted(p.name for p in ROOT.joinpath(folder).glob(pattern))
        assert shipped and all(f"{folder}/{name}" in names for name in shipped), folder
    assert not [n for n in names if n.split("/")[0] in ("agents", "training")]
    assert {n.split("/")[0] for n in names} == {
        "burako_env",
        f"burako-{version('burako')}.dist-info",
    }
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    site = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    # this env's dependencies (numpy, numba, torch...) on the path, but not its editable
    # burako: a plain path line in a .pth does not run that folder's own .pth files
    Path(site, "burako-deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(python), "install", "-q", "--no-deps"]
        + ["--no-index", str(wheel)],
        check=True,
        cwd=tmp_path,
    )
    work = tmp_path / "elsewhere"
    work.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env["NUMBA_DISABLE_JIT"] = "1"  # packaging is under test here, not the compiler
    env["NUMBA_CACHE_DIR"] = str(tmp_path / "numba-cache")

    def run(*args: str) -> str:
        done = subprocess.run(
            list(args), cwd=work, env=env, capture_output=True, text=True, timeout=600
        )
        assert done.returncode == 0, done.stdout + done.stderr
        return done.stdout

    script = textwrap.dedent(
        """
        import burako_env, gymnasium
        assert "site-packages" in burako_env.__file__, burako_env.__file__
        import burako_env.agents, burako_env.training
        for package in (burako_env.agents, burako_env.training):
            assert "site-packages/burako_env/" in package.__file__, package.__file__
        assert burako_env.agents.make_agent("discard_table").name == "discard_table"
        from burako_env import burako_v1
        from burako_env.envs.vector import VectorEnv
        from burako_env.training.config import load_config
        for name in ("argentine", "italian", "brazilian", "colombian"):
            e = burako_v1.env(variant=name)
            e.reset(seed=0)
            e.step(int(e.unwrapped.legal_actions()[0]))
        g = gymnasium.make("Burako-v1", variant="italian", opponents="greedy")
        g.reset(seed=0)
        VectorEnv("brazilian", num_envs=2).reset()
        assert load_config("tiny").name == "tiny"
        assert load_config("configs/train/hinted.yaml").name == "argentine4p"
        assert load_config("italian").ppo.lr == 6.0e-4  # from its base/, package data too
        print("envs ok")
        """
    )
    assert "envs ok" in run(str(python), "-c", script)
    burako = str(venv / "bin" / "burako")
    assert run(burako, "--version").strip() == f"burako {version('burako')}"
    assert "argentine" in run(burako, "rules", "--table")
    assert "pile_min_total" in run(burako, "rules", "colombian", "--players", "6")
    out = run(burako, "tournament", "random", "greedy", "--hands", "2", "--players", "2")
    assert "greedy" in out


# ------------------------------------------------------------------ house rules: base
def test_house_rules_start_from_a_named_variant(tmp_path):
    plain = tmp_path / "plain.yaml"
    plain.write_text("stock_end: 2\n")
    based = tmp_path / "based.yaml"
    based.write_text("base: argentine\nstock_end: 2\n")
    argentine = load_variant("argentine")
    assert load_variant(plain).pile_min_total != argentine.pile_min_total  # the old trap
    v = load_variant(based)
    assert v.name == "based" and v.stock_end == 2
    assert v.replace(name="argentine", stock_end=0) == argentine
    assert load_variant(based, num_players=2).hand_size == 22  # argentine's by_players
    chained = tmp_path / "chained.yaml"
    chained.write_text("base: based.yaml\nby_players:\n  2: {hand_size: 15}\n")
    assert load_variant(chained).stock_end == 2
    assert load_variant(chained, num_players=2).hand_size == 15
    loop = tmp_path / "loop.yaml"
    loop.write_text("base: loop.yaml\n")
    with pytest.raises(VariantError, match="loops"):
        load_variant(loop)
    bad = tmp_path / "bad.yaml"
    bad.write_text("base: 3\n")
    with pytest.raises(VariantError, match="base must be a variant name"):
        load_variant(bad)


# ------------------------------------------------------------------ fork safety
def _fork_child(queue) -> None:
    venv = VectorEnv(num_envs=8, seed=1)
    obs, mask, info = venv.reset()
    venv.step(np.argmax(mask, axis=1))
    queue.put("ok")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="fork start: Linux")
def test_async_vector_env_with_fork_and_a_fork_after_the_kernels_ran():
    import gymnasium
    import numba

    from burako_env import jit as nb

    venv = VectorEnv(num_envs=8, seed=0)
    _, mask, _ = venv.reset()
    venv.step(np.argmax(mask, axis=1))  # the thread pool has started in this process
    assert nb.TBB_LOADED and numba.threading_layer() == "tbb"
    ctx = multiprocessing.get_context("fork")
    queue = ctx.Queue()
    child = ctx.Process(target=_fork_child, args=(queue,))
    child.start()
    child.join(120)
    assert child.exitcode == 0
    assert queue.get(timeout=5) == "ok"
    envs = gymnasium.vector.AsyncVectorEnv(
        [lambda: BurakoGymEnv(opponents="random") for _ in range(2)], context="fork"
    )
    try:
        obs, _ = envs.reset(seed=0)
        masks = [envs.call("action_masks")[i] for i in range(2)]
        actions = np.array([int(np.flatnonzero(m)[0]) for m in masks])
        obs, reward, terminated, truncated, _ = envs.step(actions)
        assert obs.shape[0] == 2
    finally:
        envs.close()


# ------------------------------------------------------------------ Gymnasium
def test_gymnasium_make_with_module_prefix_needs_no_import():
    code = (
        "import gymnasium\n"
        "e = gymnasium.make('burako_env:Burako-v1', opponents='greedy')\n"
        "o, i = e.reset(seed=0)\n"
        "print(type(e.unwrapped._agents[1]).__name__)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=600, cwd=ROOT
    )
    assert done.returncode == 0, done.stderr
    assert "GreedyAgent" in done.stdout


def test_gym_opponents_by_name():
    from burako_env.agents import DiscardTableAgent, GreedyAgent

    env = BurakoGymEnv(opponents=["greedy", "discard_table", "greedy"])
    env.reset(seed=0)
    assert isinstance(env._agents[1], GreedyAgent)
    assert isinstance(env._agents[2], DiscardTableAgent)
    env = BurakoGymEnv(opponents={1: "random", 2: "greedy", 3: "greedy"})
    env.reset(seed=0)
    with pytest.raises(ValueError, match="opponent 'klondike'"):
        BurakoGymEnv(opponents="klondike")


# ------------------------------------------------------------------ README
def test_readme_python_api_block_runs():
    text = (ROOT / "README.md").read_text()
    section = text[text.index("## Python API") :]
    block = section[section.index("```python") + len("```python") : section.index("\n```\n")]
    namespace: dict = {}
    exec(compile(block, "README.md", "exec"), namespace)  # noqa: S102 - our own README
    assert namespace["actions"].shape == (64,)


# ------------------------------------------------------------------ policies and tables
@pytest.fixture(scope="module")
def italian_policy(tmp_path_factory):
    """A small policy file trained (here: initialised) for 4-player italian, whose
    observations have brazilian's size: the old check (the size alone) let it play."""
    import torch

    from burako_env.core.constants import obs_layout
    from burako_env.training.checkpoint import policy_dict, save_file
    from burako_env.training.network import BurakoNet

    torch.manual_seed(0)
    italian = load_variant("italian")
    size = obs_layout(4, italian.total_cards).size
    brazilian = load_variant("brazilian")
    assert obs_layout(4, brazilian.total_cards).size == size
    net = BurakoNet(4, italian.total_cards, hidden=16, encoder=8, meld_dim=4)
    path = tmp_path_factory.mktemp("policy") / "italian.pt"
    save_file(policy_dict(net, italian, size), path)
    return path


def test_policy_records_its_table_and_refuses_another(italian_policy):
    from burako_env.agents import make_agent

    agent = make_agent(f"ppo:{italian_policy}")
    assert agent.info["variant"]["num_actions"] == NUM_ACTIONS
    assert agent.info["variant"]["rules"]["decks"] == 2
    agent.check_table(load_variant("italian"))
    with pytest.raises(ValueError) as info:
        agent.check_table(load_variant("brazilian"))
    assert "italian" in str(info.value) and "brazilian" in str(info.value)
    with pytest.raises(ValueError, match="brazilian"):
        BurakoGymEnv("brazilian", opponents=f"ppo:{italian_policy}")


def test_cli_refuses_a_policy_of_another_table(italian_policy, tmp_path):
    result = cli(
        "tournament", f"ppo:{italian_policy}", "greedy", "--variant", "brazilian", "--hands", "2"
    )
    assert_cli_error(result, "italian", "brazilian")


def test_learned_agents_play_greedy_by_name_and_sample_on_request(italian_policy, monkeypatch):
    from burako_env import agents
    from burako_env.agents import make_agent

    assert make_agent(f"ppo:{italian_policy}").greedy is True
    assert make_agent("ppo").greedy is True
    assert make_agent(f"ppo:{italian_policy}", greedy=False).greedy is False
    seen = []
    real = agents.make_agent

    def spy(name, seed=0, **kw):
        seen.append((name, kw.get("greedy")))
        return real(name, seed=seed, **kw)

    monkeypatch.setattr(agents, "make_agent", spy)
    path = f"ppo:{italian_policy}"
    result = cli("tournament", path, "greedy", "--variant", "italian", "--hands", "2", "--sample")
    assert result.exit_code == 0, result.output
    assert (path, False) in seen and ("greedy", None) in seen


# ------------------------------------------------------------------ the CLI's error contract
@pytest.fixture
def text_file(tmp_path):
    path = tmp_path / "notes.pt"
    path.write_text("e\n")  # a small text file: torch's reader failed with KeyError: 101
    return path


def test_cli_bad_checkpoint_files(text_file, tmp_path):
    assert_cli_error(cli("tournament", f"ppo:{text_file}", "random", "--hands", "2"), "notes.pt")
    assert_cli_error(cli("play", "--bots", f"ppo:{text_file}", input="quit\n"), "notes.pt")
    from burako_env.training.config import load_config, save_config

    run = tmp_path / "run"
    (run / "checkpoints").mkdir(parents=True)
    save_config(load_config("tiny"), run / "config.yaml")
    (run / "checkpoints" / "last.pt").write_bytes(text_file.read_bytes())
    assert_cli_error(cli("train", "--resume", run), "truncated or corrupted")


@pytest.mark.parametrize(
    "override", ["env.variant=klondike", "env.num_players=6", "env.variant=italian.yaml"]
)
def test_cli_train_bad_variant_leaves_no_run_folder(tmp_path, override):
    run = tmp_path / "run"
    result = cli("train", "--config", "tiny", "--set", override, "--run-dir", run)
    assert_cli_error(result, "env.variant")
    assert not run.exists()


def test_cli_replay_of_a_binary_file(tmp_path):
    path = tmp_path / "games.jsonl"
    path.write_bytes(bytes(range(256)) * 4)
    assert_cli_error(cli("replay", path), "not a text file")


def test_cli_unwritable_save_games(tmp_path):
    blocker = tmp_path / "file.txt"
    blocker.write_text("x")
    target = blocker / "sub" / "games.jsonl"
    result = cli("tournament", "random", "greedy", "--hands", "2", "--save-games", target)
    assert_cli_error(result, "is a file")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["file.txt"]
    assert_cli_error(cli("tournament", "random", "greedy", "--save-games", tmp_path), "is a folder")


def test_cli_tournament_refuses_to_overwrite_without_force(tmp_path):
    target = tmp_path / "games.jsonl"
    target.write_text("keep me\n")
    result = cli("tournament", "random", "greedy", "--hands", "2", "--save-games", target)
    assert_cli_error(result, "--force")
    assert target.read_text() == "keep me\n"
    result = cli(
        "tournament", "random", "greedy", "--hands", "2", "--save-games", target, "--force"
    )
    assert result.exit_code == 0, result.output
    assert target.read_text().count("\n") == 2


# ------------------------------------------------ outputs written whole (issue 38)
def fail_after_first_pairing(monkeypatch, folder: Path, exc: BaseException) -> list[str]:
    """The tournament plays its first pairing (its games written out), then the second
    raises ``exc``. Returns the names of the files that held game records at that moment,
    so a test can see that writing had started."""
    from burako_env.agents import tournament

    real = tournament.play_chunk
    written: list[str] = []

    def play_chunk(task, agents):
        if task.pairing > 0:
            written.extend(p.name for p in folder.iterdir() if '"tournament_seed"' in p.read_text())
            raise exc
        return real(task, agents)

    monkeypatch.setattr(tournament, "play_chunk", play_chunk)
    return written


TOURNAMENT = ("tournament", "random", "greedy", "discard_table", "--hands", "2")
FAILURES = [
    (ValueError("a bad move"), 2),  # an error of the contract: error: ..., exit 2
    (KeyboardInterrupt(), 130),  # Ctrl-C
    (RuntimeError("a bug"), 1),  # anything else
]


@pytest.mark.parametrize(("exc", "code"), FAILURES)
def test_cli_tournament_failing_midway_leaves_no_file(tmp_path, monkeypatch, exc, code):
    target = tmp_path / "games.jsonl"
    written = fail_after_first_pairing(monkeypatch, tmp_path, exc)
    result = cli(*TOURNAMENT, "--save-games", target, "--out", tmp_path / "out")
    assert result.exit_code == code, result.output
    assert written  # games had been written when it failed
    assert list(tmp_path.iterdir()) == []  # neither the file nor a temporary one


@pytest.mark.parametrize(("exc", "code"), FAILURES)
def test_cli_tournament_failing_with_force_keeps_the_old_file(tmp_path, monkeypatch, exc, code):
    # --force overwrites only a run that succeeds: the file there before is not removed
    # (it once was, on any error or Ctrl-C) and not truncated
    target = tmp_path / "games.jsonl"
    target.write_bytes(b"keep me\n\x00 byte for byte\n")
    written = fail_after_first_pairing(monkeypatch, tmp_path, exc)
    result = cli(*TOURNAMENT, "--save-games", target, "--force")
    assert result.exit_code == code, result.output
    assert written
    assert target.read_bytes() == b"keep me\n\x00 byte for byte\n"
    assert list(tmp_path.iterdir()) == [target]


def test_cli_tournament_failing_to_write_out_keeps_every_file(tmp_path, monkeypatch):
    # the games are all played and --out's first two files written when the third fails:
    # none of the four paths changes
    from burako_env.agents.tournament_results import TournamentResult

    out = tmp_path / "out"
    out.mkdir()
    (out / "tournament.csv").write_text("old csv\n")
    target = tmp_path / "games.jsonl"
    target.write_text("old games\n")

    def heatmap(self, path, title=None):
        Path(path).write_bytes(b"\x89PNG half")
        raise OSError(28, "No space left on device", str(path))

    monkeypatch.setattr(TournamentResult, "heatmap", heatmap)
    result = cli(*TOURNAMENT, "--save-games", target, "--force", "--out", out)
    assert_cli_error(result, "No space left on device")
    assert target.read_text() == "old games\n"
    assert [p.name for p in out.iterdir()] == ["tournament.csv"]
    assert (out / "tournament.csv").read_text() == "old csv\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["games.jsonl", "out"]


def test_cli_tournament_with_force_replaces_the_file(tmp_path):
    target = tmp_path / "games.jsonl"
    target.write_text("old games\n")
    target.chmod(0o640)
    out = tmp_path / "out"
    result = cli(*TOURNAMENT, "--save-games", target, "--force", "--out", out)
    assert result.exit_code == 0, result.output
    lines = target.read_text().splitlines()
    assert len(lines) == 3 * 2 and "old games" not in lines  # 3 pairings, 2 hands each
    assert target.stat().st_mode & 0o777 == 0o640  # the old file's permissions kept
    assert sorted(p.name for p in out.iterdir()) == [
        "tournament.csv",
        "tournament.json",
        "tournament.png",
    ]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["games.jsonl", "out"]


def test_cli_play_save_is_checked_before_the_game(tmp_path):
    folder = tmp_path / "out"
    folder.mkdir()
    for save in (f"{folder}/", str(folder), str(tmp_path / "f.txt" / "g.jsonl")):
        (tmp_path / "f.txt").write_text("x")
        result = cli("play", "--bots", "random", "--save", save, input="quit\n")
        assert_cli_error(result, "--save")
        assert "Burako," not in result.output  # refused before the deal was shown
    assert list(folder.iterdir()) == []


def _tiny_run(run: Path, updates: int = 0):
    """A run folder with real checkpoints (update 0, then ``updates`` more saves)."""
    from burako_env.training.config import load_config, save_config
    from burako_env.training.ppo import Trainer

    cfg = load_config("tiny", ["imitation.env_steps=0", "eval.every=0"])
    run.mkdir(parents=True)
    save_config(cfg, run / "config.yaml")
    trainer = Trainer(cfg, run)
    trainer.save()
    for _ in range(updates):
        trainer.update += 1
        trainer.save()
    return trainer


def test_cli_failed_resume_keeps_config_yaml(tmp_path):
    run = tmp_path / "run"
    _tiny_run(run)
    before = (run / "config.yaml").read_bytes()
    result = cli("train", "--resume", run, "--set", "env.num_envs=8")
    assert_cli_error(result)
    assert (run / "config.yaml").read_bytes() == before


def test_resume_falls_back_from_a_corrupt_last_checkpoint(tmp_path, capsys):
    from burako_env.training.ppo import Trainer
    from burako_env.training.run import resume_checkpoint

    run = tmp_path / "run"
    trainer = _tiny_run(run, updates=2)
    ck = run / "checkpoints"
    assert sorted(p.name for p in ck.glob("update_*.pt"))[-1] == "update_000002.pt"
    data = (ck / "last.pt").read_bytes()
    (ck / "last.pt").write_bytes(data[: len(data) // 3])
    (ck / "update_000002.pt").write_bytes(data[:100])  # the newest numbered one too
    chosen = resume_checkpoint(run)
    assert chosen.name == "update_000001.pt"
    assert "update_000001.pt" in capsys.readouterr().out
    fresh = Trainer(trainer.cfg, run)
    fresh.load(chosen)
    assert fresh.update == 1


def test_cli_ctrl_c_in_train_says_what_was_saved(tmp_path, monkeypatch):
    from burako_env.training import ppo

    real_learn = ppo.Trainer.learn

    def learn(self):
        if self.update == 3:
            raise KeyboardInterrupt
        return real_learn(self)

    monkeypatch.setattr(ppo.Trainer, "learn", learn)
    run = tmp_path / "run"
    result = cli(
        "train",
        "--config",
        "tiny",
        "--run-dir",
        run,
        "--set",
        "imitation.env_steps=0",
        "--set",
        "eval.every=0",
        "--set",
        "checkpoint_every=2",
    )
    assert result.exit_code == 130, result.output
    assert "last checkpoint is update 2" in result.output
    assert f"burako train --resume {run}" in result.output
    assert (run / "checkpoints" / "update_000002.pt").is_file()


def test_update_threads_default_follows_the_machine():
    """``auto``: a fixed 2 made updates 20x slower beside a busy process; auto takes the
    idle cores at each update (and its results do not depend on the count)."""
    from burako_env.training.config import ConfigError, TrainConfig, load_config

    assert TrainConfig().update_threads == "auto"
    assert load_config("hinted").update_threads == "auto"
    shipped = yaml.safe_load((CONFIGS_DIR / "train" / "hinted.yaml").read_text())
    assert shipped["update_threads"] == "auto"
    assert load_config("hinted", ["update_threads=2"]).update_threads == 2
    for bad in ("0", "many", "1.5"):
        with pytest.raises(ConfigError, match="update_threads"):
            load_config("hinted", [f"update_threads={bad}"])


def test_bench_training_measures_update_threads_under_load():
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "bench_training", ROOT / "scripts" / "bench" / "bench_training.py"
    )
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    res = mod.bench_update_threads("tiny", ["imitation.env_steps=0"], threads=(1, 2), busy=1)
    assert set(res["update_seconds"]) == {(1, 0), (1, 1), (2, 0), (2, 1)}
    assert all(v > 0 for v in res["update_seconds"].values())
