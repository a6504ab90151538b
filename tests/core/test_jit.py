"""numba plumbing of the core (``burako_env.jit``): borrowed arrays and kernels run in
slices on threads."""

from __future__ import annotations

import ast
import multiprocessing
import sys
import threading
from pathlib import Path

import numba
import numpy as np
import pytest

from burako_env import jit as nb
from burako_env.jit import link_only


@numba.njit
def _bump_borrowed(arr, pair):
    arr = nb.borrowed(arr)
    first, second = nb.borrowed(pair)
    arr[0] += 1
    second[1] += 10
    return arr.sum() + first.sum()


def test_a_borrowed_array_is_the_same_memory_and_its_owner_keeps_its_count():
    arr = np.zeros(6, np.int64)
    other = np.arange(4, dtype=np.int64)
    counts = (sys.getrefcount(arr), sys.getrefcount(other))
    total = 0
    for _ in range(50):
        total = _bump_borrowed(arr, (arr, other))
    assert arr[0] == 50 and other[1] == 1 + 500  # written in place, through the tuple too
    assert total == 2 * 50
    assert (sys.getrefcount(arr), sys.getrefcount(other)) == counts


def _threads() -> int:
    return min(2, numba.config.NUMBA_NUM_THREADS)


@pytest.mark.parametrize("size", [0, 1, 7, 100])
def test_run_sliced_covers_every_index_once(size):
    seen = []
    lock = threading.Lock()

    def kernel(tag, first, last):
        assert tag == "x"
        with lock:
            seen.extend(range(first, last))

    saved = numba.get_num_threads()
    try:
        for threads in {1, _threads()}:
            seen.clear()
            numba.set_num_threads(threads)
            nb.run_sliced(kernel, size, "x")
            assert sorted(seen) == list(range(size))
    finally:
        numba.set_num_threads(saved)


def test_run_sliced_raises_what_a_slice_raised():
    def kernel(first, last):
        if first <= 3 < last:
            raise ValueError("slice with 3")

    saved = numba.get_num_threads()
    try:
        numba.set_num_threads(_threads())
        with pytest.raises(ValueError, match="slice with 3"):
            nb.run_sliced(kernel, 40)
    finally:
        numba.set_num_threads(saved)


def _sliced_sum(queue) -> None:
    out = np.zeros(50, np.int64)

    def kernel(first, last):
        out[first:last] = 1

    nb.run_sliced(kernel, 50)
    queue.put(int(out.sum()))


@pytest.mark.skipif(
    "fork" not in multiprocessing.get_all_start_methods(), reason="no fork on this platform"
)
@pytest.mark.skipif(_threads() < 2, reason="one numba thread: no pool to fork")
def test_a_forked_child_runs_sliced_kernels_on_threads_of_its_own():
    saved = numba.get_num_threads()
    try:
        numba.set_num_threads(2)
        nb.run_sliced(lambda first, last: None, 10)  # the parent's pool has started
        context = multiprocessing.get_context("fork")
        queue = context.Queue()
        child = context.Process(target=_sliced_sum, args=(queue,))
        child.start()
        child.join(60)
        hung = child.is_alive()
        if hung:
            child.kill()
        assert not hung, "the child waited on the parent's threads, which it does not have"
        assert child.exitcode == 0
        assert queue.get(timeout=5) == 50
    finally:
        numba.set_num_threads(saved)


#: parameter names that hold arrays in the sliced kernels (the others are scalars,
#: the variant's parameters and the observation layout, read only)
_ARRAY_PARAMS = {
    "st", "src", "dst", "dets", "rolls", "agent_rng", "stats", "counters", "games", "actions",
    "errors", "seat_agent", "kinds", "weights", "obs", "x", "rows", "moves", "waiting",
    "mask", "n_actions", "cands", "det_words", "roll_words", "w", "values", "src_index",
    "viewers", "seed_words",
}  # fmt: skip


@pytest.mark.skipif(_threads() < 2, reason="one numba thread: no slices are queued")
def test_run_sliced_drops_the_slices_not_started_after_an_error():
    started = []
    lock = threading.Lock()

    def kernel(first, last):
        with lock:
            started.append(first)
        if first == 0:
            raise KeyboardInterrupt  # what Ctrl-C raises in the waiting thread
        threading.Event().wait(0.05)

    saved = numba.get_num_threads()
    try:
        numba.set_num_threads(_threads())
        with pytest.raises(KeyboardInterrupt):
            nb.run_sliced(kernel, 1000)
        slices = _threads() * nb.CHUNKS_PER_THREAD
        threading.Event().wait(0.5)  # the running slices finish
        assert len(started) < slices  # the rest were cancelled, not run
    finally:
        numba.set_num_threads(saved)


def _sliced_kernels():
    """(where, kernel def) of every function the sources hand to ``run_sliced``."""
    import ast
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    sources = [p for d in ("burako_env", "agents", "training") for p in (root / d).rglob("*.py")]
    trees = {p: ast.parse(p.read_text(encoding="utf-8")) for p in sources}
    defs = {
        node.name: (p, node)
        for p, tree in trees.items()
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef)
    }
    names = set()
    for tree in trees.values():
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Call)
                and getattr(node.func, "id", None) == "run_sliced"
                and node.args
            ):
                names.add(ast.unparse(node.args[0]).split(".")[-1])
    for name in sorted(names):
        path, node = defs[name]
        yield f"{path.relative_to(root)}:{node.lineno} {name}", node


def test_every_sliced_kernel_borrows_its_arrays_before_its_loop():
    """A serial kernel that counts references to its arrays ran at half the speed of the
    same loop under ``prange`` (docs/BENCHMARKS.md): each kernel handed to ``run_sliced``
    borrows every array parameter before its first loop, and loops over its slice."""
    import ast

    kernels = 0
    for where, node in _sliced_kernels():
        kernels += 1
        params = [a.arg for a in node.args.args]
        assert params[-2:] == ["first", "last"], f"{where}: not a kernel of a slice"
        borrowed_names: set[str] = set()
        for stmt in node.body:
            if isinstance(stmt, ast.For):
                assert ast.unparse(stmt.iter) == "range(first, last)", where
                break
            if isinstance(stmt, ast.Assign) and "borrowed(" in ast.unparse(stmt.value):
                borrowed_names |= {n.id for n in ast.walk(stmt.value) if isinstance(n, ast.Name)}
        missing = [p for p in params[:-2] if p in _ARRAY_PARAMS and p not in borrowed_names]
        assert not missing, f"{where}: {missing} not borrowed before the loop"
        assert "st" in borrowed_names or "src" in borrowed_names, f"{where}: no state borrowed"
    assert kernels >= 6  # the tournament's, random playout, sweep, pimc, determinize, errors


@pytest.mark.skipif(not nb.LINK_ONLY, reason="internal functions are plain without jit")
def test_an_internal_function_called_from_python_raises_a_clear_error():
    from burako_env.core import melds
    from burako_env.core.params import variant_params
    from burako_env.variants import load_variant

    params = variant_params(load_variant("argentine"))
    with pytest.raises(TypeError, match=r"melds\.row_value_nb is compiled for calls from numba"):
        melds.row_value_nb(np.zeros(12, np.int8), params)


@pytest.mark.skipif(numba.config.DISABLE_JIT, reason="no libraries without jit")
def test_the_rules_compile_link_only_and_the_kernels_that_call_them_do_not():
    """With the pinned numba the link-only libraries are on (not the silent fallback): a
    rule function's library holds no machine code, the kernel's holds it all."""
    from burako_env.core import kernels, melds
    from burako_env.core.game import Game

    assert nb.LINK_ONLY
    game = Game("argentine", num_players=4, seed=1)
    game.step_one(int(game.legal_actions()[0]))  # the one-game kernel, compiled or loaded
    kernel = kernels.game_kernel
    kernel_library = kernel.overloads[kernel.signatures[0]].library
    row = numba.types.Array(numba.int8, 1, "A")
    melds.row_is_clean_nb.compile((row,))
    rule_library = melds.row_is_clean_nb.overloads[(row,)].library
    assert link_only._is_link_only(rule_library)
    assert not link_only._is_link_only(kernel_library)
    assert rule_library.get_pointer_to_function("anything") == 0


# ------------------------------------------------------------------ link-only names
# a link-only function (``@njit`` of burako_env.jit) ends in ``_nb``: Python cannot call
# it, and its name says so at every call site; a kernel (``@njit_kernel``,
# ``@njit_parallel``), which Python calls, never does (docs/ARCHITECTURE.md, "Writing a
# kernel"). The rule holds in every module of burako_env (the table's included), agents
# and training, with no exception.


def _compiled_functions(path: Path) -> tuple[list[str], list[str]]:
    """(link-only, kernel) names of the functions defined at the top of ``path`` with
    burako_env.jit's decorators (a module taking numba's own ``njit`` has no link-only
    functions: its functions are plain numba ones, callable from Python)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    ours = {
        alias.asname or alias.name
        for node in tree.body
        if isinstance(node, ast.ImportFrom) and node.module == "burako_env.jit"
        for alias in node.names
    }
    link_only, kernels = [], []
    for node in tree.body:
        if not isinstance(node, ast.FunctionDef):
            continue
        for decorator in node.decorator_list:
            name = getattr(decorator, "id", None)
            if name == "njit" and name in ours:
                link_only.append(node.name)
            elif name in {"njit_kernel", "njit_parallel"} and name in ours:
                kernels.append(node.name)
    return link_only, kernels


def test_link_only_functions_are_named_so_that_python_does_not_call_them():
    """Every link-only function is named ``*_nb`` and no kernel is."""
    root = Path(__file__).resolve().parents[2]
    files = [p for f in ("burako_env", "agents", "training") for p in (root / f).rglob("*.py")]
    unnamed, kernels_named, found, kernels_of = [], [], {}, {}
    for path in sorted(files):
        link_only, kernels = _compiled_functions(path)
        rel = path.relative_to(root).as_posix()
        found[rel] = set(link_only)
        kernels_of[rel] = set(kernels)
        unnamed += [f"{rel}:{n}" for n in link_only if not n.endswith("_nb")]
        kernels_named += [f"{rel}:{n}" for n in kernels if n.endswith("_nb")]
    assert not unnamed, f"link-only functions without the _nb suffix: {unnamed}"
    assert not kernels_named, f"kernels (Python calls them) named *_nb: {kernels_named}"
    # the scan sees them, in the core and in the agents' kernel modules alike
    assert "legal_actions_nb" in found["burako_env/core/rules.py"]
    assert "decide_nb" in found["agents/policies.py"]
    assert "game_kernel" in kernels_of["burako_env/core/kernels.py"]
