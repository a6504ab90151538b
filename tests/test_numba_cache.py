"""The numba cache is honest: named by every kernel source, locked while written, and a
game from a fresh cache equals the same game from a warm one, bit for bit."""

from __future__ import annotations

import ast
import fcntl
import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from numba.core.caching import IndexDataCacheFile

from burako_env.core import nb

ROOT = Path(__file__).resolve().parents[1]


def _defines_kernels(path: Path) -> bool:
    """Whether a module compiles numba functions (imports njit from numba or the core's nb)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module in ("numba", "burako_env.core.nb"):
            if any(a.name.startswith("njit") for a in node.names):
                return True
        if isinstance(node, ast.Attribute) and node.attr == "njit":
            return True
    return False


def test_every_kernel_module_names_the_cache():
    found = {
        p.relative_to(ROOT).as_posix()
        for pkg in ("burako_env", "agents", "training")
        for p in (ROOT / pkg).rglob("*.py")
        if "core" not in p.relative_to(ROOT).parts[:2] and _defines_kernels(p)
    }
    assert "agents/policies.py" in found  # the scan sees kernels where they are
    missing = found - set(nb.KERNEL_MODULES)
    assert not missing, f"add these kernel modules to nb.KERNEL_MODULES: {sorted(missing)}"
    listed = {s.relative_to(ROOT).as_posix() for s in nb.kernel_sources()}
    assert set(nb.KERNEL_MODULES) <= listed
    assert "burako_env/core/rules.py" in listed


def test_an_edit_of_any_kernel_source_renames_the_cache(tmp_path, monkeypatch):
    files = []
    for name in ("burako_env/core/rules.py", "agents/policies.py"):
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("x = 1\n")
        files.append(path)
    monkeypatch.setattr(nb, "_ROOT", tmp_path)
    monkeypatch.setattr(nb, "kernel_sources", lambda: files)
    before = nb._source_hash()
    assert nb._source_hash() == before
    files[1].write_text("x = 2\n")  # a policy edit, not the core's
    assert nb._source_hash() != before


def test_a_cache_entry_is_saved_under_the_folder_lock(tmp_path):
    assert nb.CACHE_INDEX_LOCKED
    cache = IndexDataCacheFile(str(tmp_path), "kernel-1.py311", ("stamp", 1))
    saved = threading.Event()

    def save():
        cache.save(("sig",), b"machine code")
        saved.set()

    with open(tmp_path / nb.CACHE_LOCK_NAME, "a+b") as other_process:
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
