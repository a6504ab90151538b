"""The tests' own layout (docs/TESTING.md, "Where a module's test lives"): every test file
lives in a folder that mirrors the package or in a named cross-cutting suite, none at the
top of ``tests/``; the shared builders live in ``tests/conftest.py`` and no test module
imports another.

pytest runs in its default import mode (``prepend``, no ``__init__.py`` in ``tests/``):
each test module is imported by its bare name, so two files of one name in two folders
would clash; the names stay unique across the folders.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TESTS = ROOT / "tests"

#: the folders of ``tests/``: those that mirror the package, then the cross-cutting suites
#: (docs/TESTING.md lists each with what it holds)
PACKAGE_FOLDERS = ("core", "envs", "table", "agents", "training", "frontends")
SUITES = ("reliability", "layers", "tooling", "docs", "browser")
#: folders of ``tests/`` that hold no test modules
DATA_FOLDERS = ("data",)


def layout_problems(tests: Path) -> list[str]:
    """What breaks the layout in the folder ``tests``: a test file outside the named
    folders, a Python file that is neither a test module nor ``conftest.py``, two test
    files of one name, a test module that imports another test module."""
    problems = []
    folders = (*PACKAGE_FOLDERS, *SUITES)
    seen: dict[str, str] = {}
    for path in sorted(tests.rglob("*.py")):
        rel = path.relative_to(tests).as_posix()
        if "__pycache__" in path.parts:
            continue
        if path.name == "conftest.py":
            if rel != "conftest.py":
                # a second conftest would also be imported as ``conftest`` (prepend mode)
                problems.append(f"{rel}: the shared builders live in tests/conftest.py alone")
            continue
        if not path.name.startswith("test_"):
            problems.append(f"{rel}: a helper module; shared builders go in tests/conftest.py")
            continue
        parts = rel.split("/")
        if len(parts) != 2 or parts[0] not in folders:
            problems.append(f"{rel}: not in a package folder or a named suite {folders}")
        if path.name in seen:
            problems.append(f"{rel}: the same name as {seen[path.name]} (prepend import mode)")
        seen.setdefault(path.name, rel)
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                names = [node.module]
            for name in names:
                if re.match(r"(tests\.)?([\w.]+\.)?test_\w+$", name) or "search_checks" in name:
                    problems.append(f"{rel}:{node.lineno}: imports the test module {name}")
    for folder in tests.iterdir():
        hidden = folder.name.startswith((".", "__"))  # caches
        if folder.is_dir() and not hidden and folder.name not in (*folders, *DATA_FOLDERS):
            problems.append(f"{folder.name}/: not a named folder of tests/")
    return problems


def test_every_test_file_lives_in_a_package_folder_or_a_named_suite():
    assert layout_problems(TESTS) == []
    for folder in (*PACKAGE_FOLDERS, *SUITES):
        assert list((TESTS / folder).glob("test_*.py")), f"tests/{folder}/ holds no test"
    assert not list(TESTS.glob("test_*.py"))
    assert (TESTS / "conftest.py").is_file()


def test_package_folders_mirror_the_package():
    for folder in PACKAGE_FOLDERS:
        assert (ROOT / "burako_env" / folder).is_dir() or (ROOT / folder).is_dir(), folder


def test_testing_md_names_every_folder():
    text = (ROOT / "docs" / "TESTING.md").read_text(encoding="utf-8")
    section = text.split("## Where a module's test lives", 1)[1].split("\n## ", 1)[0]
    for folder in (*PACKAGE_FOLDERS, *SUITES):
        assert f"`tests/{folder}/`" in section, folder


def test_the_checks_catch_what_they_are_for(tmp_path):
    tests = tmp_path / "tests"
    for rel, text in {
        "conftest.py": "",
        "test_flat.py": "",
        "core/test_a.py": "from test_b import x\n",
        "agents/test_a.py": "def f():\n    import search_checks\n",
        "agents/helpers.py": "",
        "agents/conftest.py": "",
        "misc/test_c.py": "",
        "envs/test_fine.py": "from conftest import card\nimport testing_tools\n",
    }.items():
        path = tests / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    problems = "\n".join(layout_problems(tests))
    assert "test_flat.py: not in a package folder" in problems
    assert "core/test_a.py:1: imports the test module test_b" in problems
    assert "agents/test_a.py:2: imports the test module search_checks" in problems
    assert "core/test_a.py: the same name as agents/test_a.py" in problems
    assert "agents/helpers.py: a helper module" in problems
    assert "agents/conftest.py: the shared builders live in tests/conftest.py alone" in problems
    assert "misc/test_c.py: not in a package folder" in problems
    assert "misc/: not a named folder" in problems
    assert "envs/test_fine.py" not in problems
