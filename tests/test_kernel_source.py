"""The kernels' source keeps clear of a numba bug that loses writes silently.

In a ``parallel=True`` kernel, a write inside a ``prange`` body to an array reached
through a tuple (``st.num_legal[b] = n``, the state being a NamedTuple of arrays) is lost
under the JIT and lands under ``NUMBA_DISABLE_JIT`` (numba issues 5872, 7135 and 10338,
open in the numba this project pins). Writes made by a compiled callee land, and so do
writes through a name bound outside the loop. The tournament kernel lost its legal-action
count this way. No test of behaviour can cover every kernel, so this one reads the
source: no ``prange`` body writes through an attribute, directly or through a function
inlined at numba's IR level (``njit_inline``).
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
KERNEL_SOURCES = sorted(
    p
    for folder in ("burako_env", "agents", "training")
    for p in (ROOT / folder).rglob("*.py")
    if "__pycache__" not in p.parts
)


def _writes_through_attribute(node: ast.AST) -> list[int]:
    """Lines of ``x.y[...] = ...`` / ``x.y[...] += ...`` inside ``node``."""
    lines = []
    for sub in ast.walk(node):
        targets = []
        if isinstance(sub, ast.Assign):
            targets = sub.targets
        elif isinstance(sub, ast.AugAssign):
            targets = [sub.target]
        for t in targets:
            if not isinstance(t, ast.Subscript):
                continue
            while isinstance(t, ast.Subscript):  # x.y[i][j] = ...: down to what is indexed
                t = t.value
            if isinstance(t, ast.Attribute):
                lines.append(sub.lineno)
    return lines


def _is_prange_loop(node: ast.AST) -> bool:
    return (
        isinstance(node, ast.For)
        and isinstance(node.iter, ast.Call)
        and getattr(node.iter.func, "id", getattr(node.iter.func, "attr", None)) == "prange"
    )


def _inlined_writers() -> set[str]:
    """Names of the ``njit_inline`` functions that write through an attribute."""
    names = set()
    for path in KERNEL_SOURCES:
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, ast.FunctionDef):
                continue
            inlined = any(getattr(d, "id", None) == "njit_inline" for d in node.decorator_list)
            if inlined and _writes_through_attribute(node):
                names.add(node.name)
    return names


def _violations(tree: ast.AST, inlined_writers: set[str]) -> list[str]:
    found = []
    for loop in filter(_is_prange_loop, ast.walk(tree)):
        for line in _writes_through_attribute(loop):
            found.append(f"line {line}: writes through an attribute in a prange body")
        for sub in ast.walk(loop):
            if isinstance(sub, ast.Call) and getattr(sub.func, "id", None) in inlined_writers:
                found.append(f"line {sub.lineno}: calls {sub.func.id}, inlined, which writes one")
    return found


def test_no_prange_body_writes_through_the_state_tuple():
    inlined_writers = _inlined_writers()
    assert "_push_meld" in inlined_writers  # the scan sees the rules' inlined writers
    loops = 0
    problems = []
    for path in KERNEL_SOURCES:
        tree = ast.parse(path.read_text())
        loops += sum(1 for _ in filter(_is_prange_loop, ast.walk(tree)))
        problems += [f"{path.relative_to(ROOT)} {v}" for v in _violations(tree, inlined_writers)]
    assert loops >= 8, f"found only {loops} prange loops: is the scan still reading the kernels?"
    assert not problems, "\n".join(problems)


def test_the_scan_catches_the_lost_write():
    bad = ast.parse(
        "def k(st, n):\n"
        "    for b in prange(3):\n"
        "        st.num_legal[b] = n\n"
        "        st.melds[b][0] += 1\n"
        "        writer(st, b)\n"
    )
    good = ast.parse(
        "def k(st, n):\n"
        "    num_legal = st.num_legal\n"
        "    for b in prange(3):\n"
        "        num_legal[b] = n\n"
        "        row[st.legal[b, 0]] = True\n"
        "        reader(st, b)\n"
    )
    assert len(_violations(bad, {"writer"})) == 3
    assert _violations(good, {"writer"}) == []
