"""The layers (docs/ARCHITECTURE.md): front ends on top, the library below, calls go down.

* The front ends moved to :mod:`burako_env.frontends`; their old import paths
  (``burako_env.cli``, ``burako_env.play``, ...) are shims that must hand out the very same
  objects, so user code and the ``burako`` entry point of an old install keep working.
* Nothing in the library (``burako_env`` outside ``frontends/``, ``burako_env.agents``,
  ``burako_env.training``) imports a front end, by its new path or through a shim: the
  scan reads every module with :mod:`ast` and names the file and line of an offending
  import.
"""

from __future__ import annotations

import ast
import importlib
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

#: the modules that moved from burako_env/ to burako_env/frontends/, each left a shim
MOVED = ("cli", "play", "playback", "bench", "simulate", "rules_text", "sweep")
SHIMS = {ROOT / "burako_env" / f"{name}.py" for name in MOVED}
LIBRARY = ("burako_env", "agents", "training")
#: the package each folder of the repository installs as (pyproject's package-dir):
#: ``agents/`` and ``training/`` are ``burako_env.agents`` and ``burako_env.training``
PACKAGES = {
    "burako_env": "burako_env",
    "agents": "burako_env.agents",
    "training": "burako_env.training",
}

#: a module path that belongs to the front-end layer: the folder itself or an old shim path
FRONT_END_MODULE = re.compile(r"burako_env\.(frontends|" + "|".join(MOVED) + r")(\.|:|$)")
IMPORTERS = {"import_module", "__import__"}


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


def library_files() -> list[Path]:
    files = []
    for top in LIBRARY:
        for path in sorted((ROOT / top).rglob("*.py")):
            if "frontends" in path.relative_to(ROOT).parts or path in SHIMS:
                continue
            files.append(path)
    return files


# ----------------------------------------------------------------------- the old paths
@pytest.mark.parametrize("name", MOVED)
def test_old_path_exposes_the_new_modules_objects(name):
    old = importlib.import_module(f"burako_env.{name}")
    new = importlib.import_module(f"burako_env.frontends.{name}")
    assert old is not new and old.__file__ != new.__file__
    assert sorted(old.__all__) == sorted(new.__all__)
    for attr in new.__all__:
        assert getattr(old, attr) is getattr(new, attr), f"burako_env.{name}.{attr}"
    # every public function and class of the new module is in __all__, so the shim has it
    tree = ast.parse(Path(new.__file__).read_text(encoding="utf-8"))
    defined = {
        n.name
        for n in tree.body
        if isinstance(n, ast.FunctionDef | ast.ClassDef) and not n.name.startswith("_")
    }
    assert defined - set(new.__all__) == set(), f"burako_env.frontends.{name}.__all__"


def test_shims_import_only_their_new_module():
    for path in sorted(SHIMS):
        new = f"burako_env.frontends.{path.stem}"
        tree = ast.parse(path.read_text(encoding="utf-8"))
        imports = [n for n in ast.walk(tree) if isinstance(n, ast.Import | ast.ImportFrom)]
        assert imports, path
        for node in imports:
            assert isinstance(node, ast.ImportFrom) and node.module == new, (
                f"{path.relative_to(ROOT)}:{node.lineno}"
            )


def test_the_entry_point_and_python_m_still_run():
    tomllib = pytest.importorskip("tomllib")
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    target, func = project["project"]["scripts"]["burako"].split(":")
    assert (
        getattr(importlib.import_module(target), func)
        is importlib.import_module("burako_env.cli").main
    )
    for module in ("burako_env.cli", "burako_env.frontends.cli"):
        done = subprocess.run(
            [sys.executable, "-m", module, "--help"],
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
