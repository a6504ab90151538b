"""One namespace, and extras (0.3.0).

* Everything installed lives under ``burako_env``: the repository's ``agents/`` and
  ``training/`` install as ``burako_env.agents`` and ``burako_env.training``
  (pyproject's package-dir). A researcher's own ``agents/`` or ``training/`` package,
  first on ``sys.path``, breaks nothing, and no module of burako imports a top-level
  ``agents`` or ``training``.
* The core install is the environments, the heuristic agents and the CLI: torch (the
  ``train`` extra) and starlette (``web``) are imported only where they are used, and
  asking for ppo, ``burako train`` or ``burako serve`` without them names the extra.
* ``burako --version`` and the ``py.typed`` marker.
"""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from typer.testing import CliRunner

ROOT = Path(__file__).resolve().parents[2]
#: the folders of the repository that hold burako's packages, and their package names
FOLDERS = {
    "burako_env": "burako_env",
    "agents": "burako_env.agents",
    "training": "burako_env.training",
}
#: the folders of package data only (no module), declared as packages of their own
DATA_PACKAGES = (
    "burako_env.configs.train",
    "burako_env.configs.train.base",
    "burako_env.configs.variants",
    "burako_env.data",
    "burako_env.frontends.web.static",
)
#: top-level names that belong to the user, never to burako
FOREIGN = ("agents", "training")
TRAIN_MESSAGE = "pip install 'burako[train]'"


def _pyproject() -> dict:
    tomllib = pytest.importorskip("tomllib")
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def run_python(code: str, cwd: Path, extra_path: list[Path] = (), **env_vars) -> str:
    """Run ``code`` in a fresh interpreter in ``cwd`` (first on ``sys.path``), with the
    checkout after ``extra_path`` on PYTHONPATH; return its stdout."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["PYTHONPATH"] = os.pathsep.join(str(p) for p in [*extra_path, ROOT])
    env["NUMBA_DISABLE_JIT"] = "1"  # imports and packaging are under test, not the compiler
    env.update(env_vars)
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return done.stdout


# ------------------------------------------------------------------ the build configuration
def test_the_build_maps_agents_and_training_into_burako_env():
    setuptools = _pyproject()["tool"]["setuptools"]
    assert setuptools["package-dir"] == {
        "burako_env.agents": "agents",
        "burako_env.training": "training",
    }
    # the explicit list names every package of the three folders, and nothing else
    found = set()
    for folder, package in FOLDERS.items():
        for init in (ROOT / folder).rglob("__init__.py"):
            rel = init.parent.relative_to(ROOT / folder).parts
            found.add(".".join([package, *rel]))
    declared = set(setuptools["packages"])
    assert found <= declared, found - declared
    assert not any(p.split(".")[0] in FOREIGN for p in declared)
    assert "py.typed" in setuptools["package-data"]["burako_env"]
    # the rest are the data folders: declared (setuptools warned "Package ... would be
    # ignored" for each, on every install), data files and no module, each shipping the
    # files of its own package-data patterns
    data_packages = declared - found
    assert data_packages == set(DATA_PACKAGES)
    for package in data_packages:
        folder = ROOT.joinpath(*package.split("."))
        assert folder.is_dir() and not list(folder.glob("*.py")), package
        patterns = setuptools["package-data"][package]
        assert any(f for pattern in patterns for f in folder.glob(pattern)), package


def test_a_source_tree_imports_its_own_agents_and_training(tmp_path):
    """A copy of the sources on PYTHONPATH (a git worktree, mutmut's mutated copy) takes
    ``burako_env.agents`` and ``burako_env.training`` from itself, not from the checkout
    that is installed."""
    for name in ("burako_env", "agents", "training"):
        (tmp_path / name).symlink_to(ROOT / name, target_is_directory=True)
    code = (
        "import burako_env.agents.base as a, burako_env.training as t\n"
        "print(a.__file__); print(t.__file__)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        cwd=tmp_path,
        env=dict(os.environ, PYTHONPATH=str(tmp_path)),
        capture_output=True,
        text=True,
    )
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.split() == [
        str(tmp_path / "agents" / "base.py"),
        str(tmp_path / "training" / "__init__.py"),
    ]


def test_the_core_dependencies_leave_out_the_extras():
    project = _pyproject()["project"]
    names = {
        d.split(";")[0].split("[")[0].split("=")[0].split(">")[0].split("<")[0].strip()
        for d in project["dependencies"]
    }
    for core in ("numpy", "numba", "gymnasium", "pettingzoo", "pyyaml", "typer", "tqdm"):
        assert core in names
    optional = {"torch", "tensorboard", "starlette", "uvicorn", "ray", "open_spiel", "psycopg"}
    assert not optional & names
    extras = project["optional-dependencies"]
    torch = [d for d in extras["train"] if d.startswith("torch")]
    assert torch and "==" not in torch[0] and ">=" in torch[0], torch  # a range, not a pin
    assert any(d.startswith("tensorboard") for d in extras["train"])
    assert {d.split(">")[0] for d in extras["web"]} == {"starlette", "uvicorn"}
    assert any(d.startswith("ray") for d in extras["ray"])
    assert any(d.startswith("ray[rllib]") for d in extras["rllib"])
    assert any(d.startswith("torch") for d in extras["rllib"])  # RLlib's modules are torch
    assert any(d.startswith("open_spiel>=") for d in extras["openspiel"])
    assert extras["postgres"] == ["psycopg[binary]>=3.1"]
    assert extras["all"] == ["burako[train,web,ray,rllib,openspiel,postgres]"]
    assert project["version"] == "0.9.0"


# ------------------------------------------------------------------ no top-level imports
def _python_sources() -> list[tuple[str, str]]:
    """(where, source) of every Python file and notebook code cell of the repository."""
    out = []
    for folder in (*FOLDERS, "scripts", "tests"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            out.append((str(path.relative_to(ROOT)), path.read_text(encoding="utf-8")))
    for path in sorted((ROOT / "notebooks").glob("*.ipynb")):
        nb = json.loads(path.read_text(encoding="utf-8"))
        for i, cell in enumerate(nb["cells"]):
            if cell["cell_type"] == "code":
                src = "".join(cell["source"])
                # IPython magics and shell lines are not Python
                src = "\n".join(
                    "" if line.lstrip().startswith(("%", "!")) else line
                    for line in src.splitlines()
                )
                out.append((f"{path.relative_to(ROOT)}[cell {i}]", src))
    return out


def foreign_imports(source: str) -> list[int]:
    """Lines that import a top-level ``agents`` or ``training``: import statements (in
    functions too) and ``import_module`` / ``__import__`` of a literal."""

    def foreign(name: str | None) -> bool:
        return name is not None and name.split(".")[0] in FOREIGN

    lines = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            hit = any(foreign(a.name) for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            hit = node.level == 0 and foreign(node.module)
        elif isinstance(node, ast.Call) and node.args:
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
            arg = node.args[0]
            hit = (
                name in ("import_module", "__import__")
                and isinstance(arg, ast.Constant)
                and isinstance(arg.value, str)
                and foreign(arg.value)
            )
        else:
            hit = False
        if hit:
            lines.append(node.lineno)
    return sorted(lines)


def test_nothing_imports_a_top_level_agents_or_training():
    sources = _python_sources()
    assert any(where.startswith("notebooks/") for where, _ in sources)
    offenders = [
        f"{where}:{line}"
        for where, source in sources
        if where != "tests/layers/test_namespace.py"  # the scan's own examples below
        for line in foreign_imports(source)
    ]
    assert offenders == [], "imports of a top-level agents/training:\n" + "\n".join(offenders)


def test_the_scan_finds_every_form():
    source = (
        "import agents\n"
        "from training.ppo import train\n"
        "def f():\n"
        "    import training.config as c\n"
        "importlib.import_module('agents.pimc')\n"
        "from burako_env.agents import make_agent\n"
        "from .training import x\n"
        "import agentsmith\n"
        "import burako_env.training.ppo\n"
    )
    assert foreign_imports(source) == [1, 2, 4, 5]


def test_the_docs_name_the_namespace():
    """README, docs and notebooks: code samples use ``burako_env.agents`` and
    ``python -m burako_env.training...``; the folders keep their names. (The CHANGELOG's
    0.3.0 section names the old imports, to say what became of them.)"""
    texts = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    texts += sorted((ROOT / "notebooks").glob("*.ipynb"))
    changelog = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    assert "## [0.3.0]" in changelog and "burako_env.agents" in changelog
    for path in texts:
        text = path.read_text(encoding="utf-8")
        for bad in ("from agents", "from training", "import agents", "import training"):
            assert bad not in text, f"{path.relative_to(ROOT)}: {bad}"
        assert "-m training." not in text, path


# ------------------------------------------------------------------ a user's own packages
@pytest.mark.parametrize("kind", ["empty", "raising"])
def test_a_users_own_agents_and_training_break_nothing(tmp_path, kind):
    """A project with its own ``agents/`` and ``training/`` (empty, or raising on import),
    first on ``sys.path``: the Gymnasium env with its default opponents, the PettingZoo
    env, ``make_agent`` and a tournament through the CLI all use burako's own."""
    for name in FOREIGN:
        (tmp_path / name).mkdir()
        init = "" if kind == "empty" else f"raise ImportError('the user {name} package')\n"
        (tmp_path / name / "__init__.py").write_text(init)
    script = textwrap.dedent(
        """
        import sys
        import gymnasium

        env = gymnasium.make("burako_env:Burako-v1")  # default opponents: RandomAgent
        env.reset(seed=0)
        env.step(int(env.unwrapped.action_masks().argmax()))
        from burako_env import burako_v1

        aec = burako_v1.env()
        aec.reset(seed=0)
        aec.step(int(aec.unwrapped.legal_actions()[0]))
        import burako_env.agents

        agent = burako_env.agents.make_agent("discard_table")
        assert agent.name == "discard_table", agent
        import burako_env.training.config

        assert burako_env.training.config.load_config("tiny").name == "tiny"
        from typer.testing import CliRunner
        from burako_env.frontends.cli import app

        res = CliRunner().invoke(app, ["tournament", "random", "greedy", "--hands", "2"])
        assert res.exit_code == 0, res.output
        assert "greedy" in res.output
        user = [m for m in sys.modules if m.split(".")[0] in ("agents", "training")]
        print("USER", user, sys.modules["agents"].__file__ if "agents" in sys.modules else "")
        """
    )
    out = run_python(script, tmp_path, extra_path=[tmp_path])
    # nothing of the user's was even imported
    assert "USER [] " in out, out


# ------------------------------------------------------------------ the extras
BLOCK = """
import importlib.abc, sys

class Missing(importlib.abc.MetaPathFinder):
    '''As if these packages were not installed.'''
    def __init__(self, names):
        self.names = names
    def find_spec(self, fullname, path=None, target=None):
        if fullname.split(".")[0] in self.names:
            raise ImportError(f"No module named {fullname!r} (blocked)", name=fullname)
        return None

sys.meta_path.insert(0, Missing(BLOCKED))
"""


def test_without_torch_the_core_works_and_ppo_and_train_name_the_extra():
    script = (
        "BLOCKED = {'torch', 'tensorboard'}\n"
        + BLOCK
        + textwrap.dedent(
            """
        import gymnasium
        import burako_env, burako_env.agents
        from burako_env.frontends import cli
        from burako_env.extras import MissingExtra
        from typer.testing import CliRunner

        assert "torch" not in sys.modules
        # every env
        g = gymnasium.make("Burako-v1", opponents="greedy")
        g.reset(seed=0)
        g.step(int(g.unwrapped.action_masks().argmax()))
        from burako_env import burako_v1
        from burako_env.envs.vector import VectorEnv
        for name in ("argentine", "italian", "brazilian", "colombian"):
            e = burako_v1.env(variant=name)
            e.reset(seed=0)
            e.step(int(e.unwrapped.legal_actions()[0]))
        VectorEnv("argentine", num_envs=2).reset()
        for name in ("random", "greedy", "discard_table", "discard_table:cautious"):
            burako_env.agents.make_agent(name)
        runner = CliRunner()
        res = runner.invoke(cli.app, ["tournament", "random", "discard_table", "--hands", "2"])
        assert res.exit_code == 0, res.output
        res = runner.invoke(cli.app, ["tournament", "--hands", "1", "--no-progress"])
        assert res.exit_code == 0 and "ppo" not in res.output, res.output  # the heuristics
        # ppo and training say which extra to install
        msg = "the ppo agent needs torch: pip install 'burako[train]'"
        for name in ("ppo", "ppo:policy.pt"):
            try:
                burako_env.agents.make_agent(name)
            except MissingExtra as exc:
                assert str(exc) == msg, exc
                assert isinstance(exc, ImportError) and exc.extra == "train"
            else:
                raise AssertionError(name)
        try:
            gymnasium.make("Burako-v1", opponents="ppo")
        except ImportError as exc:
            assert msg in str(exc), exc
        else:
            raise AssertionError("gymnasium ppo")
        for module in ("burako_env.training.ppo", "burako_env.agents.network"):
            try:
                __import__(module)
            except MissingExtra as exc:
                assert "pip install 'burako[train]'" in str(exc), exc
            else:
                raise AssertionError(module)
        res = runner.invoke(cli.app, ["tournament", "ppo", "greedy", "--hands", "2"])
        assert res.exit_code == 2, res.output
        assert "error: agent 'ppo': " + msg in res.output, res.output
        res = runner.invoke(cli.app, ["train", "--config", "tiny"])
        assert res.exit_code == 2, res.output
        assert "error: burako train needs torch: pip install 'burako[train]'" in res.output
        res = runner.invoke(cli.app, ["bench", "--api", "train", "--config", "tiny"])
        assert res.exit_code == 2, res.output
        want = "error: burako bench --api train needs torch: pip install 'burako[train]'"
        assert want in res.output, res.output
        res = runner.invoke(cli.app, ["play", "--bots", "ppo"], input="quit\\n")
        assert res.exit_code == 2 and "error: bot 'ppo': " + msg in res.output, res.output
        assert "torch" not in sys.modules
        print("no torch ok")
        """
        )
    )
    assert "no torch ok" in run_python(script, ROOT)


def test_without_starlette_serve_names_the_web_extra():
    script = (
        "BLOCKED = {'starlette', 'uvicorn'}\n"
        + BLOCK
        + textwrap.dedent(
            """
        from typer.testing import CliRunner
        from burako_env.frontends import cli
        from burako_env.extras import MissingExtra

        res = CliRunner().invoke(cli.app, ["serve", "--port", "0"])
        assert res.exit_code == 2, res.output
        want = "error: burako serve needs starlette: pip install 'burako[web]'"
        assert want in res.output, res.output
        try:
            import burako_env.frontends.web
        except MissingExtra as exc:
            assert "pip install 'burako[web]'" in str(exc) and exc.extra == "web"
        else:
            raise AssertionError("web")
        assert "starlette" not in sys.modules
        print("no starlette ok")
        """
        )
    )
    assert "no starlette ok" in run_python(script, ROOT)


def test_without_ray_rllib_names_the_rllib_extra():
    script = (
        "BLOCKED = {'ray'}\n"
        + BLOCK
        + textwrap.dedent(
            """
        from burako_env.extras import MissingExtra
        try:
            import burako_env.rllib
        except MissingExtra as exc:
            want = "burako_env.rllib needs ray.rllib: pip install 'burako[rllib]'"
            assert str(exc) == want and exc.extra == "rllib", exc
            assert isinstance(exc, ImportError)
        else:
            raise AssertionError("rllib")
        assert "ray" not in sys.modules
        print("no ray ok")
        """
        )
    )
    assert "no ray ok" in run_python(script, ROOT)


def test_the_cli_and_the_core_import_no_extra():
    """Lazy: starting the CLI, the envs and the heuristic agents imports no torch,
    starlette, uvicorn, tensorboard, Ray or OpenSpiel."""
    out = run_python(
        textwrap.dedent(
            """
            import sys
            import burako_env, burako_env.agents, burako_env.agents.tournament
            import burako_env.envs.aec, burako_env.gym.single, burako_env.envs.vector
            import burako_env.frontends.cli, burako_env.frontends.play
            import burako_env.training.config
            heavy = ("torch", "starlette", "uvicorn", "tensorboard", "ray", "pyspiel")
            print(sorted(m for m in sys.modules if m.split(".")[0] in heavy))
            """
        ),
        ROOT,
    )
    assert out.strip().splitlines()[-1] == "[]", out


# ------------------------------------------------------------------ version, py.typed
def test_version_prints_the_installed_version():
    from importlib.metadata import version

    import burako_env
    from burako_env.frontends.cli import app

    res = CliRunner().invoke(app, ["--version"])
    assert res.exit_code == 0, res.output
    assert res.output.strip() == f"burako {version('burako')}"
    assert version("burako") == burako_env.__version__ == "0.9.0"
    done = subprocess.run(
        [sys.executable, "-m", "burako_env.frontends.cli", "--version"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0 and done.stdout.strip() == "burako 0.9.0", done.stderr


def test_the_package_is_marked_typed():
    assert (ROOT / "burako_env" / "py.typed").is_file()
    from importlib import resources

    assert resources.files("burako_env").joinpath("py.typed").is_file()
