"""The numba cache is honest: named by every kernel source, locked while written, safe
when processes compile into it at once, and a game from a fresh cache equals the same
game from a warm one, bit for bit."""

from __future__ import annotations

import ast
import fcntl
import hashlib
import importlib.util
import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import numba
import pytest
from numba.core.caching import IndexDataCacheFile

from burako_env import jit as nb
from burako_env.jit import cache as jit_cache
from burako_env.jit import index_lock

ROOT = Path(__file__).resolve().parents[2]


def _kernel_sources_digest() -> str:
    digest = hashlib.sha1()
    for folder in ("core", "jit"):  # the rules, and the numba runtime that compiles them
        for path in sorted((ROOT / "burako_env" / folder).glob("*.py")):
            digest.update(f"{folder}/{path.name}".encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()[:12]


def test_the_core_cache_folder_is_named_by_the_core_and_jit_sources():
    # an edit of any core or jit file gives another name, so another (empty) folder
    assert jit_cache.source_hash() == _kernel_sources_digest()
    if not os.environ.get("NUMBA_CACHE_DIR"):
        # the format is in the name: a folder that an older burako wrote (whose entries
        # could clash across processes) is never read again
        name = f"numba-v{nb.CACHE_FORMAT}-{_kernel_sources_digest()}"
        assert nb.CACHE_FORMAT >= 2
        assert os.path.basename(numba.config.CACHE_DIR) == name
        assert nb.numba_cache_folder() == os.path.abspath(numba.config.CACHE_DIR)


def test_an_edit_of_the_jit_package_renames_the_cache_folder(tmp_path, monkeypatch):
    """The patches of burako_env/jit shape the compiled code and its entries: a folder
    compiled under other patches must not be read."""
    core, jit = tmp_path / "core", tmp_path / "jit"
    core.mkdir()
    jit.mkdir()
    (core / "rules.py").write_text("RULE = 1\n")
    (jit / "link_only.py").write_text("PATCHED = True\n")
    monkeypatch.setattr(jit_cache, "SOURCE_FOLDERS", (core, jit))
    before = jit_cache.source_hash()
    (jit / "link_only.py").write_text("PATCHED = False\n")
    assert jit_cache.source_hash() != before
    (jit / "link_only.py").write_text("PATCHED = True\n")
    assert jit_cache.source_hash() == before
    (core / "rules.py").write_text("RULE = 2\n")
    assert jit_cache.source_hash() != before


@pytest.mark.skipif(os.environ.get("NUMBA_DISABLE_JIT") == "1", reason="no cache without jit")
def test_an_agents_kernel_is_stamped_with_the_sources_it_calls():
    from burako_env.agents import pimc
    from burako_env.table import kernel as table_kernel

    digest = hashlib.sha256()
    core = sorted((ROOT / "burako_env" / "core").glob("*.py"))
    core += sorted((ROOT / "burako_env" / "jit").glob("*.py"))  # the patches shape the code
    kernels = [
        ROOT / "agents" / f"{m}.py"
        for m in ("network_kernels", "pimc", "policies", "policy_context", "policy_scores")
    ]
    kernels.append(ROOT / "burako_env" / "table" / "kernel.py")
    for path in core + kernels:
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    for kernel in (table_kernel.play_kernel, pimc.search_kernel):
        locator = kernel._cache._impl._locator
        own, deps = locator.get_source_stamp()
        assert deps == digest.hexdigest()  # a policy or core edit changes every stamp


#: what makes a function compiled: numba's decorators and burako_env.jit's
_COMPILERS = {"njit", "jit", "njit_kernel", "njit_parallel", "intrinsic", "overload"}


def defines_compiled_functions(tree: ast.Module) -> bool:
    """Whether a module's source decorates a function with a numba compiler (``@njit``,
    ``@njit_kernel``, ``@numba.njit(...)``, ``@numba.extending.intrinsic``, ...)."""
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef):
            for decorator in node.decorator_list:
                target = decorator.func if isinstance(decorator, ast.Call) else decorator
                name = getattr(target, "attr", getattr(target, "id", None))
                if name in _COMPILERS:
                    return True
    return False


def _package_modules() -> list[Path]:
    folders = (ROOT / "burako_env", ROOT / "agents", ROOT / "training")
    return [p for folder in folders for p in sorted(folder.rglob("*.py"))]


def test_a_module_declares_kernels_exactly_when_it_defines_them():
    """The cache stamp of the agents' and the table's kernels reads the declaration
    ``KERNEL_MODULE = True`` (not the text "njit"): a kernel in an undeclared module
    would run stale after an edit of it, a declared module without one would throw the
    cache away for nothing. The jit package defines the decorators, not kernels."""
    from burako_env.agents.kernel_cache import declares_kernels

    jit = ROOT / "burako_env" / "jit"
    undeclared, idle = [], []
    for path in _package_modules():
        if path.parent == jit:
            assert not declares_kernels(path), path
            continue
        defines = defines_compiled_functions(ast.parse(path.read_text(encoding="utf-8")))
        declared = declares_kernels(path)
        if defines and not declared:
            undeclared.append(str(path.relative_to(ROOT)))
        if declared and not defines:
            idle.append(str(path.relative_to(ROOT)))
    assert not undeclared, f"compiled functions without KERNEL_MODULE = True: {undeclared}"
    assert not idle, f"KERNEL_MODULE = True without a compiled function: {idle}"


def test_the_declaration_is_read_from_the_source(tmp_path):
    from burako_env.agents.kernel_cache import declares_kernels, kernel_modules

    source = "from burako_env.jit import njit\n\n\n@njit\ndef f(x):\n    return x\n"
    (tmp_path / "undeclared.py").write_text(source)
    (tmp_path / "declared.py").write_text(source + "KERNEL_MODULE = True\n")
    (tmp_path / "annotated.py").write_text(source + "KERNEL_MODULE: bool = True\n")
    (tmp_path / "off.py").write_text(source + "KERNEL_MODULE = False\n")
    (tmp_path / "prose.py").write_text('"""not a KERNEL_MODULE = True, njit only named"""\n')
    assert [p.name for p in kernel_modules(tmp_path)] == ["annotated.py", "declared.py"]
    assert not declares_kernels(tmp_path / "prose.py")
    assert defines_compiled_functions(ast.parse(source))
    assert not defines_compiled_functions(ast.parse("import numba\nNJIT = 'njit'\n"))


def test_the_agents_kernel_modules_import_only_kernel_modules_and_classes():
    """The stamp leaves out agents modules without kernels (an edit of the ppo agent
    keeps the policies' machine code). That is exact while a kernel module takes from the
    other agents modules only classes, which no kernel can read."""
    import ast
    import importlib

    from burako_env.agents.kernel_cache import kernel_modules

    kernel_names = {p.stem for p in kernel_modules(ROOT / "agents")}
    kernels = {"policies", "policy_context", "policy_scores", "pimc"}
    assert kernels <= kernel_names
    # no kernel in them: the agent classes, the network, the tournament's runner and
    # tables, and the cache locator itself (it names the mark of a kernel module)
    plain = {"ppo_agent", "heuristic", "network", "tournament", "tournament_chunks"}
    assert not (plain | {"tournament_ray", "tournament_results", "kernel_cache"}) & kernel_names
    # the table's play kernel is stamped alike (agents/kernel_cache.py: both folders)
    table_kernels = {p.stem for p in kernel_modules(ROOT / "burako_env" / "table")}
    assert table_kernels == {"kernel"}
    stamped = [ROOT / "agents" / f"{stem}.py" for stem in sorted(kernel_names)]
    stamped += [ROOT / "burako_env" / "table" / f"{stem}.py" for stem in sorted(table_kernels)]
    for path in stamped:
        stem = path.stem
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in tree.body:  # module level: what a kernel can see as a global
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith(
                ("burako_env.agents", "burako_env.table")
            ):
                source = (node.module or "").split(".")[-1]
                if source in kernel_names or source in table_kernels:
                    continue
                module = importlib.import_module(node.module)
                for alias in node.names:
                    value = getattr(module, alias.name)
                    assert isinstance(value, type), (
                        f"agents/{stem}.py takes {alias.name} from agents/{source}.py, a "
                        "module the kernels' cache stamp leaves out: move it to a kernel "
                        "module or the core"
                    )


def test_a_cache_entry_is_saved_under_the_folder_lock(tmp_path):
    assert nb.CACHE_INDEX_LOCKED
    cache = IndexDataCacheFile(str(tmp_path), "kernel-1.py311", ("stamp", 1))
    saved = threading.Event()

    def save():
        cache.save(("sig",), b"machine code")
        saved.set()

    with open(tmp_path / index_lock.CACHE_LOCK_NAME, "a+b") as other_process:
        fcntl.flock(other_process, fcntl.LOCK_EX)
        writer = threading.Thread(target=save)
        writer.start()
        # while another holder keeps the lock, the save waits and writes no index
        assert not saved.wait(0.5)
        assert not (tmp_path / "kernel-1.py311.nbi").exists()
        fcntl.flock(other_process, fcntl.LOCK_UN)
    writer.join(30)
    assert saved.is_set()
    assert cache.load(("sig",)) == b"machine code"


def test_a_damaged_cache_entry_is_compiled_again_not_run(tmp_path):
    cache = IndexDataCacheFile(str(tmp_path), "kernel-1.py311", ("stamp", 1))
    cache.save(("sig",), b"machine code")
    (entry,) = tmp_path.glob("*.nbc")
    entry.write_bytes(entry.read_bytes()[:7])  # truncated: unreadable
    with pytest.warns(RuntimeWarning, match="could not be read .* compiling it again"):
        assert cache.load(("sig",)) is None  # a miss: numba compiles and saves anew
    cache.save(("sig",), b"machine code")
    assert cache.load(("sig",)) == b"machine code"


_FUNCTION_ID = (
    "import os, burako_env.jit\n"
    "from numba.core.bytecode import FunctionIdentity as F\n"
    "ids = [next(F._unique_ids)]\n"
    "pid = os.fork()\n"
    "ids.append(next(F._unique_ids))\n"
    "os.write(1, f'{pid == 0} {ids[0]} {ids[1]}\\n'.encode())  # one write each\n"
    "os._exit(0) if pid == 0 else os.waitpid(pid, 0)\n"
)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="fork")
def test_each_process_numbers_its_compiled_functions_apart():
    """numba's symbol names carry a count of the functions the process compiled: two
    processes (or a parent and its forked child) must not count alike, or their cache
    entries could name different machine code alike (docs/RELIABILITY.md)."""
    assert nb.UNIQUE_SYMBOLS
    starts = set()
    for _ in range(2):
        out = subprocess.run(
            [sys.executable, "-c", _FUNCTION_ID], cwd=ROOT, capture_output=True, text=True
        )
        assert out.returncode == 0, out.stderr[-2000:]
        lines = dict(line.split(" ", 1) for line in out.stdout.strip().splitlines())
        assert set(lines) == {"False", "True"}, out.stdout
        parent, child = (list(map(int, lines[k].split())) for k in ("False", "True"))
        assert parent[0] == child[0] and parent[0] > 2**20  # not numba's own start, 1
        assert abs(child[1] - parent[1]) > 10**6  # the child numbers anew
        starts.add(parent[0])
    assert len(starts) == 2


_STRESS = ROOT / "scripts" / "tools" / "stress_cache.py"


def _stress_module():
    spec = importlib.util.spec_from_file_location("stress_cache", _STRESS)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.skipif(os.environ.get("NUMBA_DISABLE_JIT") == "1", reason="no cache without jit")
def test_numba_alone_clashes_across_processes_and_burako_does_not():
    """The minimal reproduction (scripts/tools/numba_symbol_clash.py): two cold processes
    compile one kernel for two record types; a third loads both entries. With numba
    alone the second runs the first's machine code; with burako's numba setup it cannot.
    (Should a numba release fix the clash itself, the first assertion says so: burako's
    patch of the function numbering could then go.)"""
    spec = importlib.util.spec_from_file_location(
        "numba_symbol_clash", ROOT / "scripts" / "tools" / "numba_symbol_clash.py"
    )
    clash = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(clash)
    plain = clash.reproduce(burako=False)
    assert any(line.endswith("WRONG") for line in plain), plain
    fixed = clash.reproduce(burako=True)
    assert len(fixed) == 2 and all(line.endswith(" ok") for line in fixed), fixed


@pytest.mark.skipif(os.environ.get("NUMBA_DISABLE_JIT") == "1", reason="no cache without jit")
def test_four_cold_processes_on_one_cache_play_what_one_cold_process_plays():
    """Four processes start at once on an empty cache folder and compile every family of
    kernels (VectorEnv, AEC env, tournament policies, pimc) for all four variants at 2, 4
    and 6 players, each starting from another player count (another record type); then
    one more loads what they left. Each prints the digest of its
    games: all must equal a single cold process's. Before the fix this failed: processes
    crashed or played wrong games, and the folder stayed poisoned. scripts/tools/stress_cache.py
    runs this again and again (docs/RELIABILITY.md)."""
    stress = _stress_module()
    reference = stress.reference_digest(timeout=1500)
    assert stress.concurrent_run(reference, processes=4, timeout=1500) == []


@pytest.mark.skipif(os.environ.get("NUMBA_DISABLE_JIT") == "1", reason="no cache without jit")
def test_a_cold_tournament_on_four_ray_workers_equals_the_serial_table(tmp_path):
    """Ray's workers are processes that start at once on one empty cache folder and
    compile the tournament's kernels together: their table is the serial one."""
    pytest.importorskip("ray")
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "cache"), PYTHONPATH=str(ROOT))
    env.pop("RAY_ADDRESS", None)
    common = ["random", "greedy", "discard_table", "--hands", "24", "--seed", "5"]
    common += ["--variant", "colombian", "--players", "6", "--no-progress"]
    tables = {}
    for name, extra in (("ray", ["--ray", "--workers", "4", "--task-deals", "3"]), ("serial", [])):
        out = subprocess.run(
            [
                sys.executable,
                "-m",
                "burako_env.frontends.cli",
                "tournament",
                *common,
                *extra,
                "--out",
                str(tmp_path / name),
            ],
            env=env,
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=1500,
        )
        assert out.returncode == 0, out.stderr[-3000:]
        table = json.loads((tmp_path / name / "tournament.json").read_text())
        tables[name] = (
            [{k: v for k, v in p.items() if k != "seconds"} for p in table["pairings"]],
            table["ratings"],
        )
    assert tables["ray"] == tables["serial"]
    assert len(tables["serial"][0]) == 3


_PLAY = """
import hashlib, json, numpy as np
from burako_env.core import kernels
from burako_env.core.game import Game
g = Game("argentine", num_players=4, seed=11)
rng = np.random.default_rng(5)
actions = []
while not g.done[0] and len(actions) < 400:
    a = int(rng.choice(g.legal_actions()))
    actions.append(a)
    g.step_one(a)
digest = hashlib.sha256()
for arr in g.snapshot():
    digest.update(np.ascontiguousarray(arr).tobytes())
hits = sum(d.stats.cache_hits.total() if hasattr(d.stats.cache_hits, "total")
           else sum(d.stats.cache_hits.values())
           for d in vars(kernels).values() if hasattr(d, "stats"))
print(json.dumps({"actions": actions, "state": digest.hexdigest(), "hits": hits}))
"""


@pytest.mark.skipif(os.environ.get("NUMBA_DISABLE_JIT") == "1", reason="no cache without jit")
def test_a_fresh_cache_and_a_warm_one_play_the_same_game(tmp_path):
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "cache"), PYTHONPATH=str(ROOT))

    def play() -> dict:
        out = subprocess.run(
            [sys.executable, "-c", _PLAY], env=env, cwd=ROOT, capture_output=True, text=True
        )
        assert out.returncode == 0, out.stderr[-2000:]
        return json.loads(out.stdout.strip().splitlines()[-1])

    fresh = play()  # compiles into the empty folder
    warm = play()  # loads what the first wrote
    assert fresh["hits"] == 0 and warm["hits"] > 0
    assert len(fresh["actions"]) > 20
    assert warm["actions"] == fresh["actions"]
    assert warm["state"] == fresh["state"]


_TOURNAMENT_HAND = """
from burako_env.agents.tournament import run_tournament
run_tournament(["greedy", "discard_table"], "argentine", num_players=4, hands_per_pairing=1,
               seed=0, workers=1, progress=False)
"""


@pytest.mark.skipif(os.environ.get("NUMBA_DISABLE_JIT") == "1", reason="no cache without jit")
def test_a_kernel_compiled_over_cached_internal_functions_plays_the_same_game(tmp_path):
    """The rules' functions are cached as link-only IR (``nb.njit``): a kernel compiled
    later, whose callees load from that cache, must link them into the same machine code
    as a kernel compiled from scratch. The tournament fills the cache with the rules;
    the one-game kernel then compiles over it."""

    def run(code: str, cache: str) -> dict:
        env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / cache), PYTHONPATH=str(ROOT))
        out = subprocess.run(
            [sys.executable, "-c", code], env=env, cwd=ROOT, capture_output=True, text=True
        )
        assert out.returncode == 0, out.stderr[-2000:]
        lines = out.stdout.strip().splitlines()
        return json.loads(lines[-1]) if lines else {}

    run(_TOURNAMENT_HAND, "shared")
    over_cache = run(_PLAY, "shared")  # game_kernel compiles, the rules load
    scratch = run(_PLAY, "fresh")
    assert over_cache["hits"] > 0 and scratch["hits"] == 0
    assert over_cache["actions"] == scratch["actions"]
    assert over_cache["state"] == scratch["state"]


KERNEL_SOURCES = sorted(
    p for folder in ("burako_env", "agents", "training") for p in (ROOT / folder).rglob("*.py")
)


def _is_prange_loop(node: ast.AST) -> bool:
    return (
        isinstance(node, ast.For)
        and isinstance(node.iter, ast.Call)
        and getattr(node.iter.func, "id", None) == "prange"
    )


def _prange_loops():
    """(where, loop node, module tree) of every ``prange`` loop of the kernels."""
    for path in KERNEL_SOURCES:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in filter(_is_prange_loop, ast.walk(tree)):
            yield f"{path.relative_to(ROOT)}:{node.lineno}", node


def test_every_prange_loop_names_its_index_unsigned():
    """Each ``prange`` loop of the kernels turns its index into ``np.uint64`` first: numba
    types the loop as int64 and then builds the parallel body with uint64, and a callee
    reached with both compiles twice (docs/BENCHMARKS.md, "Functions compiled twice")."""
    loops = 0
    for where, node in _prange_loops():
        loops += 1
        first = node.body[0]
        assert isinstance(first, ast.Assign), f"{where}: the loop starts otherwise"
        call = first.value
        assert (
            isinstance(call, ast.Call)
            and ast.unparse(call.func) == "np.uint64"
            and ast.unparse(call.args[0]) == node.target.id
        ), f"{where}: {ast.unparse(first)!r} is not X = np.uint64({node.target.id})"
    # the kernels' loops were found (the batch ops share one; the kernels that play whole
    # games are serial slices on threads since, nb.run_sliced)
    assert loops >= 5


def _writes_through_attribute(node: ast.AST) -> list[int]:
    """Lines of ``x.y[...] = ...`` / ``x.y[...] += ...`` inside ``node``."""
    lines = []
    for sub in ast.walk(node):
        if isinstance(sub, ast.Assign):
            targets = sub.targets
        elif isinstance(sub, ast.AugAssign):
            targets = [sub.target]
        else:
            continue
        for t in targets:
            if not isinstance(t, ast.Subscript):
                continue
            while isinstance(t, ast.Subscript):  # x.y[i][j] = ...: down to what is indexed
                t = t.value
            if isinstance(t, ast.Attribute):
                lines.append(sub.lineno)
    return lines


def _is_ir_inlined(decorator: ast.expr) -> bool:
    """``@njit(inline="always")`` or a decorator named like ``njit_inline``."""
    if isinstance(decorator, ast.Call):
        return any(k.arg == "inline" for k in decorator.keywords)
    return "inline" in getattr(decorator, "id", "")


def _inlined_writers(modules: list[ast.Module]) -> set[str]:
    """Names of the functions inlined at numba's IR level that write through an
    attribute: inlined into a ``prange`` body, their writes would be lost as well."""
    names = set()
    for module in modules:
        for node in ast.walk(module):
            if not isinstance(node, ast.FunctionDef):
                continue
            inlined = any(_is_ir_inlined(d) for d in node.decorator_list)
            if inlined and _writes_through_attribute(node):
                names.add(node.name)
    return names


def _lost_writes(loop: ast.For, inlined_writers: set[str]) -> list[str]:
    found = [f"line {line} writes through an attribute" for line in _writes_through_attribute(loop)]
    for sub in ast.walk(loop):
        if isinstance(sub, ast.Call) and getattr(sub.func, "id", None) in inlined_writers:
            found.append(f"line {sub.lineno} calls {sub.func.id}, inlined, which does")
    return found


def test_no_prange_body_writes_through_the_state_tuple():
    """In a ``parallel=True`` kernel, a write inside a ``prange`` body to an array reached
    through a tuple (``st.num_legal[b] = n`` when the state was a tuple of arrays; the
    rule stays for every attribute) is lost under the JIT and lands under
    ``NUMBA_DISABLE_JIT`` (numba issues 5872, 7135 and 10338, open); a compiled callee's
    writes land, and so do writes through a name bound before the loop. The tournament
    kernel lost its legal-action count this way. No behaviour test covers every kernel,
    so this reads the source: no body writes through an attribute, directly or through a
    function inlined at numba's IR level (``inline="always"``: the rules have none since
    the state became one record array, but one added later is scanned)."""
    inlined_writers = _inlined_writers(
        [ast.parse(path.read_text(encoding="utf-8")) for path in KERNEL_SOURCES]
    )
    sample = ast.parse(
        "@njit(inline='always')\ndef w(st, b):\n    st.num_legal[b] = 0\n"
        "@njit\ndef r(st, b):\n    st.num_legal[b] = 0\n"
    )
    assert _inlined_writers([sample]) == {"w"}  # the scan sees an inlined writer
    problems = [
        f"{where}: {lost}"
        for where, loop in _prange_loops()
        for lost in _lost_writes(loop, inlined_writers)
    ]
    assert not problems, "\n".join(problems)
    bad = ast.parse(
        "for b in prange(3):\n    st.num_legal[b] = n\n    st.melds[b][0] += 1\n    writer(st, b)\n"
    ).body[0]
    good = ast.parse(
        "for b in prange(3):\n"
        "    num_legal[b] = n\n"
        "    row[st.legal[b, 0]] = True\n"
        "    reader(st, b)\n"
    ).body[0]
    assert len(_lost_writes(bad, {"writer"})) == 3  # the scan catches what it is for
    assert _lost_writes(good, {"writer"}) == []


_COMPILED_BY_COMMAND = """
import json, numpy as np
from burako_env.agents.base import Agent
from burako_env.agents.tournament import run_tournament
from burako_env.table.kernel import play_kernel
from burako_env.core import kernels

class FirstLegal(Agent):
    name = "first_legal"
    def act(self, obs, mask):
        return np.argmax(np.asarray(mask, bool), axis=1).astype(np.int64)

RULE_KERNELS = (play_kernel, kernels.batch_kernel, kernels.game_kernel, kernels.error_kernel)
def count():
    return {k.py_func.__name__: len(k.signatures) for k in RULE_KERNELS}

seen = {}
run_tournament(["greedy", FirstLegal()], "argentine", num_players=4, hands_per_pairing=2,
               seed=0, workers=1, progress=False)
seen["tournament"] = count()
from burako_env.frontends.warmup import job_env
job_env()  # the PettingZoo env: a reset and random legal steps
seen["env"] = count()
from burako_env.core.game import Game
game = Game("argentine", num_players=4, seed=3)  # as burako play and replays step
for _ in range(40):
    a = int(game.legal_actions(0)[0])
    assert game.why_illegal(a) is None
    game.step_one(a)
seen["play"] = count()
print(json.dumps(seen))
"""


@pytest.mark.skipif(os.environ.get("NUMBA_DISABLE_JIT") == "1", reason="no kernels without jit")
def test_a_command_loads_only_the_kernels_that_reach_the_rules_it_needs():
    """numba links a kernel's whole call tree into its own machine code, so each kernel
    that reaches the rules is a compile of the rule set (docs/BENCHMARKS.md): a tournament,
    a Python agent's pairing included, needs only its own kernel, and the env only the
    one-game kernel, and a game stepped by legal moves that asks ``why_illegal`` of each
    (``burako play``, replays) no more; none compiles the legality checks' kernel, which
    only a refused action calls. (Counted in a fresh process: a signature is a compile
    or a load.)"""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    out = subprocess.run(
        [sys.executable, "-c", _COMPILED_BY_COMMAND],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert out.returncode == 0, out.stderr[-2000:]
    seen = json.loads(out.stdout.strip().splitlines()[-1])
    assert seen["tournament"] == {
        "play_kernel": 1,
        "batch_kernel": 0,
        "game_kernel": 0,
        "error_kernel": 0,
    }
    assert seen["env"] == {"play_kernel": 1, "batch_kernel": 0, "game_kernel": 1, "error_kernel": 0}
    assert seen["play"] == seen["env"]  # legal moves asked why_illegal: no checks compiled
