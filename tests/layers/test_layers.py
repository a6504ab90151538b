"""The layers (docs/ARCHITECTURE.md): front ends on top, the library below, calls go down.

* The front ends live in :mod:`burako_env.frontends`; their old import paths
  (``burako_env.cli``, ``burako_env.play``, ...) were removed in 0.3.0 (CHANGELOG.md) and
  stay gone, and the ``burako`` entry point names the new path.
* Nothing in the library (``burako_env`` outside ``frontends/``, ``burako_env.agents``,
  ``burako_env.training``) imports a front end (by its path, or by an old one): the
  scan reads every module with :mod:`ast` and names the file and line of an offending
  import.
* The core (``burako_env/core/``) imports only itself and the modules below it (cards,
  variants, limits, extras, and numba's runtime ``burako_env.jit``): never the referee,
  the oracle it is tested against, nor anything above it. The jit package imports nothing
  of burako's but itself.
"""

from __future__ import annotations

import ast
import importlib
import importlib.machinery
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

#: the modules that moved from burako_env/ to burako_env/frontends/; their shims are gone
MOVED = ("cli", "play", "playback", "bench", "simulate", "rules_text", "sweep")
LIBRARY = ("burako_env", "agents", "training")
#: the package each folder of the repository installs as (pyproject's package-dir):
#: ``agents/`` and ``training/`` are ``burako_env.agents`` and ``burako_env.training``
PACKAGES = {
    "burako_env": "burako_env",
    "agents": "burako_env.agents",
    "training": "burako_env.training",
}

#: a module path that belongs to the front-end layer: the folder itself, or an old path
#: (removed, but an import of it in the library is still a front end wanted)
FRONT_END_MODULE = re.compile(r"burako_env\.(frontends|" + "|".join(MOVED) + r")(\.|:|$)")
IMPORTERS = {"import_module", "__import__"}
#: what the core may import besides itself: the layer below it (docs/ARCHITECTURE.md). The
#: referee is at that level too but written apart from the core, so it is not here
BELOW_THE_CORE = (
    "burako_env.cards",
    "burako_env.variants",
    "burako_env.limits",
    "burako_env.extras",
    "burako_env.jit",  # numba's runtime: the decorators, the cache, threads
)


def module_name(path: Path) -> str:
    top, *rest = path.relative_to(ROOT).with_suffix("").parts
    return ".".join([PACKAGES[top], *rest])


def imported_modules(node: ast.AST, module: str, is_package: bool) -> list[str]:
    """The modules an import statement (or an ``import_module("...")`` call) names, with
    relative imports resolved against ``module``."""
    if isinstance(node, ast.Import):
        return [a.name for a in node.names]
    if isinstance(node, ast.ImportFrom):
        base = node.module or ""
        if node.level:
            package = module.split(".") if is_package else module.split(".")[:-1]
            anchor = package[: len(package) - (node.level - 1)]
            base = ".".join(anchor + ([base] if base else []))
        # `from burako_env import cli` imports the module burako_env.cli
        return [base] + [f"{base}.{a.name}" for a in node.names]
    if (
        isinstance(node, ast.Call)
        and getattr(node.func, "attr", getattr(node.func, "id", None)) in IMPORTERS
        and node.args
        and isinstance(node.args[0], ast.Constant)
        and isinstance(node.args[0].value, str)
    ):
        return [node.args[0].value]
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        # a module path held as data (a lazy-import table, an entry point string)
        return [node.value] if FRONT_END_MODULE.fullmatch(node.value.split(":")[0]) else []
    return []


def layer_violations(files: list[Path]) -> list[str]:
    """``file:line: module`` for every import of the front-end layer in ``files``."""
    found: dict[tuple[str, int], set[str]] = {}
    for path in files:
        module = module_name(path)
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in ast.walk(tree):
            names = imported_modules(node, module, path.name == "__init__.py")
            bad = {n for n in names if FRONT_END_MODULE.match(n)}
            if bad:
                found.setdefault((str(path.relative_to(ROOT)), node.lineno), set()).update(bad)
    return [
        f"{rel}:{line}: imports {', '.join(sorted(found[rel, line]))}"
        for rel, line in sorted(found)
    ]


def core_violations(files: list[Path]) -> list[str]:
    """``file:line: module`` for every import in ``files`` (the core's) of a module of the
    package outside the core and the layer below it, at any depth (a lazy import too)."""

    def allowed(name: str) -> bool:
        inside = ("burako_env.core", *BELOW_THE_CORE)
        return not (name == "burako_env" or name.startswith("burako_env.")) or any(
            name == top or name.startswith(top + ".") for top in inside
        )

    found = []
    for path in files:
        module = module_name(path)
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant):
                continue  # data, not an import (test_the_library_never_imports... reads it)
            names = imported_modules(node, module, path.name == "__init__.py")
            if isinstance(node, ast.ImportFrom):
                # `from burako_env import cards` imports cards; `from X import name`, X
                names = names[1:] if names[0] == "burako_env" else names[:1]
            bad = sorted(n for n in names if not allowed(n))
            if bad:
                found.append((str(path.relative_to(ROOT)), node.lineno, ", ".join(bad)))
    return [f"{rel}:{line}: imports {bad}" for rel, line, bad in sorted(found)]


def library_files() -> list[Path]:
    files = []
    for top in LIBRARY:
        for path in sorted((ROOT / top).rglob("*.py")):
            if "frontends" in path.relative_to(ROOT).parts:
                continue
            files.append(path)
    return files


# ----------------------------------------------------------------------- the old paths
@pytest.mark.parametrize("name", MOVED)
def test_the_old_paths_are_gone(name):
    import burako_env

    assert not (ROOT / "burako_env" / f"{name}.py").exists()
    # looked up in this tree's package only: an editable install of another checkout
    # (setuptools' finder, last on sys.meta_path) would find its own copy of an old file
    assert (
        importlib.machinery.PathFinder.find_spec(f"burako_env.{name}", burako_env.__path__) is None
    )


def test_the_entry_point_and_python_m_run():
    tomllib = pytest.importorskip("tomllib")
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    target, func = project["project"]["scripts"]["burako"].split(":")
    assert target == "burako_env.frontends.cli"
    assert callable(getattr(importlib.import_module(target), func))
    done = subprocess.run(
        [sys.executable, "-m", target, "--help"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert "serve" in done.stdout and "replay" in done.stdout


# ------------------------------------------------------------------------- the layering
def test_the_library_never_imports_the_front_ends():
    files = library_files()
    scanned = {module_name(p) for p in files}
    # the scan reaches every layer of the library, and none of the front ends
    assert {
        "burako_env.core.game",
        "burako_env.envs.aec",
        "burako_env.agents.tournament",
    } <= scanned
    assert {"burako_env.training.ppo", "burako_env.render", "burako_env.records"} <= scanned
    assert not any(m.startswith("burako_env.frontends") for m in scanned)
    violations = layer_violations(files)
    assert not violations, "the library imports the front-end layer:\n" + "\n".join(violations)


def test_the_scan_catches_each_way_of_importing_a_front_end(tmp_path, monkeypatch):
    """The checker itself: a module of the library with every kind of forbidden import,
    each reported with its line, and the harmless ones beside them left alone."""
    fake_root = tmp_path
    package = fake_root / "burako_env" / "envs"
    package.mkdir(parents=True)
    lines = [
        "import burako_env.frontends.web",  # 1
        "from burako_env.frontends.play import parse_move",  # 2
        "from burako_env import cli",  # 3
        "import burako_env.simulate as sim",  # 4
        "from ..frontends import web",  # 5
        "from .. import playback",  # 6
        "importlib.import_module('burako_env.bench')",  # 7
        "ENTRY = 'burako_env.sweep:sweep'",  # 8
        "from burako_env.core import sweep",  # 9: the kernel, library
        "from burako_env import render, records",  # 10: library
        "import burako_env.rules_texts_elsewhere",  # 11: not a front end
        '"""the CLI is burako_env.cli, documented here"""',  # 12: prose, not an import
    ]
    bad = package / "aec_like.py"
    bad.write_text("\n".join(lines) + "\n")
    monkeypatch.setattr(sys.modules[__name__], "ROOT", fake_root)
    found = layer_violations([bad])
    reported = sorted(int(f.split(":")[1]) for f in found)
    assert reported == [1, 2, 3, 4, 5, 6, 7, 8], found
    assert all(f.startswith("burako_env/envs/aec_like.py:") for f in found)


# ----------------------------------------------------------------------------- the core
def test_the_core_imports_nothing_above_it():
    files = sorted((ROOT / "burako_env" / "core").rglob("*.py"))
    assert {"game.py", "rules.py", "kernels.py"} <= {p.name for p in files}
    violations = core_violations(files)
    assert not violations, "the core imports outside itself:\n" + "\n".join(violations)


def test_the_jit_package_imports_nothing_of_burako_but_itself():
    """burako_env.jit sits below the core: it configures numba and never reads the rules."""
    files = sorted((ROOT / "burako_env" / "jit").rglob("*.py"))
    assert {"__init__.py", "link_only.py", "cache.py"} <= {p.name for p in files}
    found = []
    for path in files:
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in ast.walk(tree):
            for name in imported_modules(node, module_name(path), path.name == "__init__.py"):
                ours = name == "burako_env" or name.startswith("burako_env.")
                if ours and not (name == "burako_env.jit" or name.startswith("burako_env.jit.")):
                    found.append(f"{path.relative_to(ROOT)}:{node.lineno}: imports {name}")
    assert not found, "\n".join(found)


def test_the_core_scan_catches_the_referee_and_the_layers_above(tmp_path, monkeypatch):
    core = tmp_path / "burako_env" / "core"
    core.mkdir(parents=True)
    lines = [
        "from burako_env.referee import classify_meld",  # 1
        "def build():",  # 2
        "    from burako_env.envs.vector import VectorEnv",  # 3: lazy, still an import
        "from .. import referee, cards",  # 4: referee named
        "import burako_env.agents.policies",  # 5
        "importlib.import_module('burako_env.records')",  # 6
        "from burako_env import __version__",  # 7: the package itself is above the core
        "from burako_env.cards import JOKER",  # 8: below the core
        "from burako_env.variants import Variant",  # 9
        "from . import nb",  # 10: the core
        "from burako_env.core.constants import NUM_ACTIONS",  # 11
        "import numpy as np",  # 12
        "NOTE = 'burako_env.referee reads melds'",  # 13: prose
        "from burako_env.jit import njit",  # 14: numba's runtime, below the core
    ]
    bad = core / "kernel_like.py"
    bad.write_text("\n".join(lines) + "\n")
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    found = core_violations([bad])
    assert [int(f.split(":")[1]) for f in found] == [1, 3, 4, 5, 6, 7], found
    assert "imports burako_env.referee" in found[2]
    assert "burako_env.cards" not in found[2]


# ------------------------------------------------------------------ the envs and the table
#: what the envs of burako_env/envs/ never import: the agents and the table sit above them
ABOVE_THE_ENVS = ("burako_env.agents", "burako_env.table", "burako_env.gym", "burako_env.training")


def envs_violations(files: list[Path]) -> list[str]:
    """``file:line: module`` for every import in ``files`` (the envs') of the agents, the
    table or a layer above them, at any depth (a lazy import too)."""
    found = []
    for path in files:
        module = module_name(path)
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant):
                continue
            names = imported_modules(node, module, path.name == "__init__.py")
            if isinstance(node, ast.ImportFrom):
                names = names[1:] if names[0] == "burako_env" else names[:1]
            bad = sorted(
                n for n in names if any(n == t or n.startswith(t + ".") for t in ABOVE_THE_ENVS)
            )
            if bad:
                found.append(f"{path.relative_to(ROOT)}:{node.lineno}: imports {', '.join(bad)}")
    return found


def test_the_envs_import_neither_the_agents_nor_the_table():
    files = sorted((ROOT / "burako_env" / "envs").rglob("*.py"))
    assert {"aec.py", "vector.py"} <= {p.name for p in files}
    violations = envs_violations(files)
    assert not violations, "the envs import a layer above them:\n" + "\n".join(violations)


def test_the_envs_scan_catches_lazy_imports_of_the_agents(tmp_path, monkeypatch):
    envs = tmp_path / "burako_env" / "envs"
    envs.mkdir(parents=True)
    lines = [
        "def build():",  # 1
        "    from burako_env.agents import make_agent",  # 2: lazy, still an import
        "import burako_env.table",  # 3
        "from burako_env import agents",  # 4
        "from ..table.seating import Seating",  # 5
        "from burako_env.core.game import Game",  # 6: below
        "from burako_env.envs.rewards import team_rewards",  # 7: itself
    ]
    bad = envs / "env_like.py"
    bad.write_text("\n".join(lines) + "\n")
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    found = envs_violations([bad])
    assert sorted(int(f.split(":")[1]) for f in found) == [2, 3, 4, 5], found


#: how a caller could dispatch on an agent's kind: only the table and the agents' base may
DISPATCH = re.compile(
    r"isinstance\(.*,\s*\(?\s*(Compiled|Batched|PerGame|Thinks)\b"
    r"|\.compiled_policy\(|\.searches\b|getattr\([^)]*[\"'](searches|think|compiled_policy)[\"']"
)
#: where agent-kind dispatch may live
DISPATCHERS = ("burako_env/table/", "agents/base.py")


def kind_dispatches(files: list[Path]) -> list[str]:
    """``file:line`` of every line of ``files`` outside :data:`DISPATCHERS` that asks how
    an agent decides."""
    found = []
    for path in files:
        rel = str(path.relative_to(ROOT))
        if rel.startswith(DISPATCHERS):
            continue
        for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if DISPATCH.search(line):
                found.append(f"{rel}:{i}: {line.strip()}")
    return found


def test_only_the_table_dispatches_on_how_an_agent_decides():
    files = [
        p
        for top in ("burako_env", "agents", "training", "scripts")
        for p in sorted((ROOT / top).rglob("*.py"))
    ]
    found = kind_dispatches(files)
    allowed = [f for f in found if f.startswith("burako_env/frontends/thinking.py:")]
    # the web table's reasoning is an optional protocol, checked once where a bot moves
    assert len(allowed) <= 1, allowed
    rest = [f for f in found if f not in allowed]
    assert not rest, "agent-kind dispatch outside the table:\n" + "\n".join(rest)


def test_the_dispatch_scan_catches_each_old_hook(tmp_path, monkeypatch):
    lines = [
        "if agent.searches:",  # 1
        "pol = agent.compiled_policy()",  # 2
        "think = getattr(agent, 'think', None)",  # 3
        "if isinstance(agent.decides(), PerGame):",  # 4
        "if isinstance(d, (Batched, PerGame)):",  # 5
        "agent.act(obs, mask)",  # 6: how an agent is used, not asked
    ]
    bad = tmp_path / "agents" / "caller.py"
    bad.parent.mkdir()
    bad.write_text("\n".join(lines) + "\n")
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    assert [int(f.split(":")[1]) for f in kind_dispatches([bad])] == [1, 2, 3, 4, 5]


# ----------------------------------------------------------------------- named state
#: the core owns the scalar layout; ``checks.py`` validates raw saved arrays against it
SCALAR_OWNERS = ("burako_env/core/", "burako_env/checks.py")
KERNEL_DECORATORS = {"njit", "njit_kernel", "njit_parallel"}


def _is_kernel(node: ast.AST) -> bool:
    for dec in getattr(node, "decorator_list", []):
        target = dec.func if isinstance(dec, ast.Call) else dec
        name = target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", "")
        if name in KERNEL_DECORATORS:
            return True
    return False


def scalar_column_reads(files: list[Path]) -> list[str]:
    """``file:line`` of every read of a state scalar by its column (``x[S_PLAYER]``,
    ``x[:, S_MATCH0 : S_MATCH0 + 2]``) in Python code outside :data:`SCALAR_OWNERS`:
    such code reads ``game.view(b)``, ``game.live_view(b)`` or ``game.columns()``.
    Kernels (numba cannot take the views) and writes (the position builders) are left."""
    found = []
    for path in files:
        rel = str(path.relative_to(ROOT))
        if rel.startswith(SCALAR_OWNERS):
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        found += [f"{rel}:{line}" for line in _scalar_reads(tree)]
    return found


def _scalar_reads(node: ast.AST) -> list[str]:
    """``line: source`` of each scalar column read under ``node``, kernels skipped."""
    if _is_kernel(node):
        return []
    found = []
    if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load):
        names = {n.id for n in ast.walk(node.slice) if isinstance(n, ast.Name)}
        if any(re.fullmatch(r"S_[A-Z][A-Z0-9_]*", n) for n in names):
            found.append(f"{node.lineno}: {ast.unparse(node)}")
    for child in ast.iter_child_nodes(node):
        found += _scalar_reads(child)
    return found


def test_python_code_reads_the_scalars_by_name():
    files = [p for top in LIBRARY for p in sorted((ROOT / top).rglob("*.py"))]
    found = scalar_column_reads(files)
    assert not found, "scalar columns read by index outside the core:\n" + "\n".join(found)


def test_the_scalar_scan_catches_reads_and_leaves_kernels_and_writes(tmp_path, monkeypatch):
    source = "\n".join(
        [
            "p = st.scalars[b, S_PLAYER]",  # 1: read
            "m = sc[:, S_MATCH0 : S_MATCH0 + 2]",  # 2: read
            "s = row[S_OPENED0 + t]",  # 3: read
            "st.scalars[0, S_PHASE] = 2",  # 4: a write (a position builder)
            "@njit",  # 5
            "def kernel(st, b):",  # 6
            "    return st.scalars[b, S_DONE]",  # 7: inside a kernel
            "v = game.view(b).player",  # 8
        ]
    )
    bad = tmp_path / "agents" / "reader.py"
    bad.parent.mkdir()
    bad.write_text(source + "\n")
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    assert [int(f.split(":")[1]) for f in scalar_column_reads([bad])] == [1, 2, 3]


# ------------------------------------------------------------ scripts/: tools, bench, experiments
#: where a file of scripts/ may sit (scripts/README.md): one of these folders, or one of
#: the files at the top (the shell scripts are called by these paths from the README's
#: commands and from .ci/run)
SCRIPT_FOLDERS = ("tools", "bench", "experiments")
SCRIPT_TOP_FILES = ("setup.sh", "run.sh", "test.sh", "README.md")
#: a record of docs/experiments/, as an experiment script's docstring names it
RECORD = re.compile(r"docs/experiments/(\d{4}-\d{2}-\d{2}-[\w-]+\.md)")


def misplaced_scripts(scripts: Path) -> list[str]:
    """Every file under ``scripts`` outside :data:`SCRIPT_FOLDERS` that is not one of
    :data:`SCRIPT_TOP_FILES` (Python's bytecode caches aside: a test that loads a tool
    writes one)."""
    found = []
    for path in sorted(scripts.rglob("*")):
        rel = path.relative_to(scripts)
        if path.is_dir() or "__pycache__" in rel.parts:
            continue
        top_file = len(rel.parts) == 1 and rel.name in SCRIPT_TOP_FILES
        if not top_file and rel.parts[0] not in SCRIPT_FOLDERS:
            found.append(str(rel))
    return found


def experiment_uses(tests: list[Path], experiments: list[str]) -> list[str]:
    """``file:line`` of every line of ``tests`` that names the experiments' folder or an
    experiment script (``NAME.py``, or ``import NAME`` after a path insert): a test that
    imports or runs a finished experiment."""
    names = "|".join(re.escape(n) for n in experiments) or "(?!)"
    patterns = [
        re.compile(r"scripts[/\\]experiments"),
        re.compile(r"[\"']scripts[\"']\s*[/,]\s*[\"']experiments[\"']"),
        re.compile(rf"\b({names})\.py\b"),
        re.compile(rf"^\s*(from|import)\s+({names})\b"),
    ]
    found = []
    for path in tests:
        for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if any(p.search(line) for p in patterns):
                found.append(f"{path.name}:{i}: {line.strip()}")
    return found


def unrecorded_experiments(scripts: list[Path], records: Path) -> list[str]:
    """Every experiment script whose module docstring names no record of ``records``
    (``docs/experiments/DATE-topic.md``), or names one that does not exist."""
    found = []
    for path in scripts:
        doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""
        named = RECORD.findall(doc)
        missing = [n for n in named if not (records / n).is_file()]
        if not named or missing:
            found.append(f"{path.name}: names {missing or 'no record'}")
    return found


def _experiment_scripts(root: Path) -> list[Path]:
    return sorted((root / "scripts" / "experiments").glob("*.py"))


def test_every_script_sits_in_tools_bench_or_experiments():
    misplaced = misplaced_scripts(ROOT / "scripts")
    assert not misplaced, (
        "files of scripts/ outside tools/, bench/ and experiments/ (scripts/README.md says "
        "which holds what):\n" + "\n".join(misplaced)
    )
    assert _experiment_scripts(ROOT), "scripts/experiments/ holds no script"


def test_no_test_imports_or_runs_an_experiment():
    names = [p.stem for p in _experiment_scripts(ROOT)]
    # this file names the folder in its checks, and runs nothing of it
    tests = [p for p in sorted((ROOT / "tests").rglob("*.py")) if p.name != Path(__file__).name]
    found = experiment_uses(tests, names)
    assert not found, (
        "tests that use a finished experiment (test what it measures with, or move the "
        "script to scripts/tools/ or scripts/bench/):\n" + "\n".join(found)
    )


def test_every_experiment_names_its_record():
    found = unrecorded_experiments(_experiment_scripts(ROOT), ROOT / "docs" / "experiments")
    assert not found, (
        "experiment scripts whose docstring names no existing docs/experiments/ record:\n"
        + "\n".join(found)
    )


def test_the_scripts_checks_catch_each_fault(tmp_path):
    scripts = tmp_path / "scripts"
    for rel in ("setup.sh", "README.md", "tools/a.py", "bench/b.py", "experiments/c.py"):
        (scripts / rel).parent.mkdir(parents=True, exist_ok=True)
        (scripts / rel).write_text("")
    (scripts / "tools" / "__pycache__").mkdir()
    (scripts / "tools" / "__pycache__" / "a.cpython-312.pyc").write_bytes(b"")
    assert misplaced_scripts(scripts) == []
    (scripts / "stray.py").write_text("")
    (scripts / "figures").mkdir()
    (scripts / "figures" / "plot.py").write_text("")
    (scripts / "bench" / "README.md").write_text("")  # inside a folder: allowed
    assert misplaced_scripts(scripts) == ["figures/plot.py", "stray.py"]

    test = tmp_path / "test_x.py"
    lines = [
        'path = ROOT / "scripts" / "experiments" / "c.py"',  # 1
        'spec = load("scripts/experiments/c.py")',  # 2
        'subprocess.run([sys.executable, "c.py"])',  # 3
        "import c",  # 4
        'path = ROOT / "scripts" / "tools" / "a.py"',  # 5: a tool
        'doc = ROOT / "docs" / "experiments"',  # 6: the records
        "import cc",  # 7: another name
    ]
    test.write_text("\n".join(lines) + "\n")
    found = experiment_uses([test], ["c"])
    assert [int(f.split(":")[1]) for f in found] == [1, 2, 3, 4]

    records = tmp_path / "records"
    records.mkdir()
    (records / "2026-01-02-topic.md").write_text("")
    good, none, gone = (tmp_path / f"{n}.py" for n in ("good", "none", "gone"))
    good.write_text('"""X.\n\nResult: docs/experiments/2026-01-02-topic.md."""\n')
    none.write_text('"""X, no record."""\n# docs/experiments/2026-01-02-topic.md\n')
    gone.write_text('"""X: docs/experiments/2026-01-03-other.md."""\n')
    found = unrecorded_experiments([good, none, gone], records)
    assert found == [
        "none.py: names no record",
        "gone.py: names ['2026-01-03-other.md']",
    ]
