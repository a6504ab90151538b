"""No import circle in the package (docs/ARCHITECTURE.md, "Import graph").

The graph has a node for every module of the installed package (``burako_env``, with
``agents/`` and ``training/`` as ``burako_env.agents`` and ``burako_env.training``) and an
edge for every import one module makes of another: ``import`` and ``from`` statements at
any depth (inside functions and ``TYPE_CHECKING`` blocks too: an import put off to call
time is still a dependency, and a lazy import was how the circles hid), relative imports
resolved, and ``importlib.import_module("...")`` with a literal name. A module that needs
another's pieces and is needed by it in turn is a circle; the test names each one.

A package's ``__init__`` is not counted as imported by its submodules (Python runs it
first, whatever the submodule imports), only where a module names it.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
#: the package each folder of the repository installs as (pyproject's package-dir)
PACKAGES = {
    "burako_env": "burako_env",
    "agents": "burako_env.agents",
    "training": "burako_env.training",
}
IMPORTERS = {"import_module", "__import__"}


def package_files(root: Path = ROOT) -> dict[str, Path]:
    """Every module of the package by its import name."""
    modules = {}
    for folder in PACKAGES:
        for path in sorted((root / folder).rglob("*.py")):
            top, *rest = path.relative_to(root).with_suffix("").parts
            if rest and rest[-1] == "__init__":
                rest = rest[:-1]
            modules[".".join([PACKAGES[top], *rest])] = path
    return modules


def named_modules(node: ast.AST, module: str, is_package: bool) -> list[str]:
    """What an import statement, or an ``import_module`` call with a literal, names: for
    ``from X import n`` both ``X`` and ``X.n`` (``n`` may be a module or a name in ``X``;
    the graph keeps whichever is a module of the package)."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    if isinstance(node, ast.ImportFrom):
        base = node.module or ""
        if node.level:
            package = module.split(".") if is_package else module.split(".")[:-1]
            anchor = package[: len(package) - (node.level - 1)]
            base = ".".join(anchor + ([base] if base else []))
        return [base] + [f"{base}.{alias.name}" for alias in node.names]
    if (
        isinstance(node, ast.Call)
        and getattr(node.func, "attr", getattr(node.func, "id", None)) in IMPORTERS
        and node.args
        and isinstance(node.args[0], ast.Constant)
        and isinstance(node.args[0].value, str)
    ):
        return [node.args[0].value]
    return []


def import_graph(modules: dict[str, Path]) -> dict[str, set[str]]:
    """Module -> the package's modules it imports."""
    graph: dict[str, set[str]] = {}
    for module, path in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        is_package = path.name == "__init__.py"
        targets: set[str] = set()
        for node in ast.walk(tree):
            names = named_modules(node, module, is_package)
            if isinstance(node, ast.ImportFrom):
                base, *members = names
                found = [m for m in members if m in modules]
                # `from X import name` needs X itself unless every name is a submodule
                if len(found) < len(members) and base in modules:
                    found.append(base)
                targets.update(found)
            else:
                # `import a.b.c` needs the longest part of its name that is a module
                for name in names:
                    parts = name.split(".")
                    for end in range(len(parts), 0, -1):
                        if ".".join(parts[:end]) in modules:
                            targets.add(".".join(parts[:end]))
                            break
        # a package naming a name of its own (`from . import x`) is no circle
        targets.discard(module)
        graph[module] = targets
    return graph


def circles(graph: dict[str, set[str]]) -> list[set[str]]:
    """The strongly connected components that hold a circle: the sets of modules each of
    which imports, through the others, all the rest. Tarjan's algorithm, iterative."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[set[str]] = []
    counter = 0
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph.get(start, ()))))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is None:
                work.pop()
                if work:
                    parent = work[-1][0]
                    low[parent] = min(low[parent], low[node])
                if low[node] == index[node]:
                    component = set()
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.add(member)
                        if member == node:
                            break
                    components.append(component)
            elif child not in index:
                index[child] = low[child] = counter
                counter += 1
                stack.append(child)
                on_stack.add(child)
                work.append((child, iter(sorted(graph.get(child, ())))))
            elif child in on_stack:
                low[node] = min(low[node], index[child])
    return [
        component
        for component in components
        if len(component) > 1 or min(component) in graph.get(min(component), ())
    ]


def find_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """One circle of each component of :func:`circles`, as the shortest path from its
    first module (by name) back to itself: ``[a, b, c, a]``."""
    return sorted(_path_back(graph, min(component), component) for component in circles(graph))


def _path_back(graph: dict[str, set[str]], first: str, component: set[str]) -> list[str]:
    """The shortest path from ``first`` back to itself inside ``component`` (breadth first)."""
    came_from: dict[str, str] = {}
    frontier = [first]
    while frontier:
        following = []
        for node in frontier:
            for child in sorted(graph.get(node, ())):
                if child == first:
                    path = [first]
                    while node != first:
                        path.append(node)
                        node = came_from[node]
                    return [first, *reversed(path[1:]), first]
                if child in component and child not in came_from:
                    came_from[child] = node
                    following.append(child)
        frontier = following
    raise AssertionError(f"{first} is in no circle")  # unreachable for a real component


def describe(graph: dict[str, set[str]]) -> str:
    """A line per circle: its path, and every module caught in it when there are more."""
    lines = []
    for component in sorted(circles(graph), key=min):
        cycle = _path_back(graph, min(component), component)
        line = " -> ".join(cycle)
        if len(component) > len(cycle) - 1:
            line += f" (caught in the same circle: {', '.join(sorted(component))})"
        lines.append(line)
    return "\n".join(lines)


# ------------------------------------------------------------------------ the package
def test_the_package_has_no_import_circle():
    modules = package_files()
    graph = import_graph(modules)
    # the scan sees the whole package, lazy imports included
    assert {
        "burako_env",
        "burako_env.core.game",
        "burako_env.frontends.cli",
        "burako_env.agents",
        "burako_env.training.ppo",
    } <= set(graph)
    assert "burako_env.training.distributed" in graph["burako_env.training.run"]
    assert "burako_env.agents.ppo_agent" in graph["burako_env.agents"]  # inside a function
    assert not find_cycles(graph), "import circles:\n" + describe(graph)


# ---------------------------------------------------------------------- the checker
def test_the_cycle_finder_names_each_circle():
    graph = {
        "a": {"b"},
        "b": {"c"},
        "c": {"a", "d"},  # a -> b -> c -> a
        "d": {"e"},
        "e": set(),
        "f": {"f"},  # a module importing itself
        "g": {"h"},
        "h": {"g", "e"},  # g <-> h
        "i": {"a"},  # leads into a circle, is in none
    }
    assert find_cycles(graph) == [["a", "b", "c", "a"], ["f", "f"], ["g", "h", "g"]]
    assert describe(graph).splitlines() == ["a -> b -> c -> a", "f -> f", "g -> h -> g"]
    # the shortest way round; the rest of the component is named beside it
    triangle = {"a": {"b", "c"}, "b": {"c"}, "c": {"a"}}
    assert find_cycles(triangle) == [["a", "c", "a"]]
    assert describe(triangle) == "a -> c -> a (caught in the same circle: a, b, c)"
    assert find_cycles({"a": {"b"}, "b": {"c"}, "c": set()}) == []


def test_the_graph_sees_lazy_relative_and_dynamic_imports(tmp_path):
    """A scratch package with the two circles this project had (issue 36), each hidden
    the way it was: one side imports at the top, the other inside a function."""
    training = tmp_path / "training"
    training.mkdir()
    (tmp_path / "burako_env").mkdir()
    (tmp_path / "agents").mkdir()
    for folder in ("burako_env", "agents", "training"):
        (tmp_path / folder / "__init__.py").write_text("")
    (training / "ppo.py").write_text(
        "from burako_env.training.imitation import clone\n"
        "def train(ray):\n"
        "    if ray:\n"
        "        from .distributed import DistributedTrainer\n"
    )
    (training / "distributed.py").write_text("from .ppo import Trainer\n")
    (training / "imitation.py").write_text(
        "import importlib\n"
        "def clone():\n"
        "    return importlib.import_module('burako_env.training.ppo').Transitions\n"
    )
    (training / "league.py").write_text("from burako_env import agents\nimport numpy\n")
    graph = import_graph(package_files(tmp_path))
    assert graph["burako_env.training.league"] == {"burako_env.agents"}
    assert graph["burako_env.training.ppo"] == {
        "burako_env.training.imitation",
        "burako_env.training.distributed",
    }
    # the two circles share ppo: one component, named whole
    assert circles(graph) == [
        {
            "burako_env.training.distributed",
            "burako_env.training.imitation",
            "burako_env.training.ppo",
        }
    ]
    assert describe(graph) == (
        "burako_env.training.distributed -> burako_env.training.ppo -> "
        "burako_env.training.distributed (caught in the same circle: "
        "burako_env.training.distributed, burako_env.training.imitation, "
        "burako_env.training.ppo)"
    )
    # taken apart, as this project did (a module of their own for the shared pieces)
    (training / "distributed.py").write_text("from .trainer import Trainer\n")
    (training / "trainer.py").write_text("")
    (training / "imitation.py").write_text("from .transitions import Transitions\n")
    (training / "transitions.py").write_text("")
    assert find_cycles(import_graph(package_files(tmp_path))) == []
