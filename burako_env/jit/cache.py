"""Where compiled kernels are kept: a folder named by every source the kernels depend on.

numba's on-disk cache checks only the source file of the cached function, not the
functions it calls in other modules: a kernel in ``core/kernels.py`` would keep running an
old ``core/rules.py``. So, unless ``NUMBA_CACHE_DIR`` is set, the cache lives in a folder
named by a hash of every source of the core (``burako_env/core``) and of this package
(``burako_env/jit``, whose patches shape the compiled code and the entries): any edit of
either starts a fresh cache. The kernels of ``agents/`` and of the table call the core and
each other across files: their entries are stamped with a hash of those sources too
(``burako_env.agents.kernel_cache``' locator). The other kernels outside the core
(``checks``, the web table, ``training``) call only the core and their own file, which
the folder name and numba's own stamp cover.

The folder's name carries :data:`CACHE_FORMAT`, so a folder written by an older burako
whose entries would be wrong to load is never read again.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import numba
import numba.core.registry

_JIT_DIR = Path(__file__).resolve().parent
#: the folders whose every source names the cache folder: the core, and this package
SOURCE_FOLDERS = (_JIT_DIR.parent / "core", _JIT_DIR)

#: the layout of burako's cache folders; a new number when entries written before would be
#: wrong to load (2: symbols unique across processes, :mod:`burako_env.jit.symbols`)
CACHE_FORMAT = 2


def source_files() -> list[Path]:
    """The sources the core's compiled kernels depend on: every module of the core and of
    this package, in a fixed order (folder, then name)."""
    return [path for folder in SOURCE_FOLDERS for path in sorted(folder.glob("*.py"))]


def source_hash() -> str:
    """12 hex digits of a hash of :func:`source_files` (each file's folder and name, then
    its bytes): the cache folder's name changes whenever one of them does."""
    digest = hashlib.sha1()
    for path in source_files():
        digest.update(f"{path.parent.name}/{path.name}".encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:12]


def _cache_dir() -> str:
    """This package's own __pycache__ where it can be written (a checkout, a virtualenv),
    else the user's cache folder (a read-only system install)."""
    name = f"numba-v{CACHE_FORMAT}-{source_hash()}"
    own = _JIT_DIR / "__pycache__"
    if os.access(own if own.is_dir() else _JIT_DIR, os.W_OK):
        return str(own / name)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "burako", name)


if not os.environ.get("NUMBA_CACHE_DIR"):
    numba.config.CACHE_DIR = _cache_dir()


def numba_cache_folder() -> str:
    """Where this process reads and writes compiled kernels: burako's folder, or the
    user's ``NUMBA_CACHE_DIR`` (numba then adds a folder per source folder)."""
    return os.path.abspath(numba.config.CACHE_DIR)


def cold_kernels(*kernels) -> list[str]:
    """The names of ``kernels`` that the next call compiles: neither compiled in this
    process nor found in the on-disk cache for the current sources (none under
    ``NUMBA_DISABLE_JIT``, where nothing compiles). Front ends use it to say that a
    compile is coming instead of sitting silent."""
    cold = []
    for kernel in kernels:
        if not isinstance(kernel, numba.core.registry.CPUDispatcher) or kernel.signatures:
            continue
        cache = getattr(kernel, "_cache", None)
        try:
            cached = bool(cache._cache_file._load_index()) if cache is not None else False
        except Exception:  # numba's cache internals moved: say nothing rather than fail
            cached = True
        if not cached:
            cold.append(kernel.py_func.__qualname__)
    return cold


__all__ = [
    "CACHE_FORMAT",
    "SOURCE_FOLDERS",
    "cold_kernels",
    "numba_cache_folder",
    "source_files",
    "source_hash",
]
