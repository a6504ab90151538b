"""The on-disk cache of the agents' and the table's kernels: named by every source they call.

numba checks only a cached function's own file, so a kernel of ``agents/`` or of the
table (``burako_env/table/``, whose play kernel calls the agents' policies) would keep
running stale core rules (or stale policies) after an edit elsewhere.
:func:`install_dependency_cache_locator` stamps each cache entry of a function in those
two folders with a hash of every ``burako_env/core`` source and of the modules of both
folders that define kernels (:func:`kernel_modules`). The agents package installs it first
(``burako_env/agents/__init__.py``, which the table imports), before any of their modules
compiles or loads a kernel. No kernel lives here: an edit of this module leaves the
compiled kernels cached.
"""

from __future__ import annotations

import hashlib
import importlib
from pathlib import Path
from typing import Any


def kernel_modules(folder: Path) -> list[Path]:
    """The modules of ``folder`` that define numba kernels. A kernel's machine code depends
    only on numba-typed globals (kernels, constants, arrays), which live in these modules
    and in the core; the others (agent classes, the network, policy files) cannot change
    it, so editing them leaves the compiled kernels cached
    (``tests/test_numba_cache.py`` checks that kernel modules import nothing else)."""
    return [
        p
        for p in sorted(folder.glob("*.py"))
        # this module names the mark but compiles nothing
        if p.name != Path(__file__).name and "njit" in p.read_text(encoding="utf-8")
    ]


def stamped_folders() -> tuple[Path, ...]:
    """The folders whose kernels the stamp covers: the agents' (this one) and the
    table's (``burako_env/table``, found from the core package: the same in a checkout
    and installed)."""
    here = Path(__file__).resolve().parent
    return (here, _core_folder().parent / "table")


def _core_folder() -> Path:
    """The folder of ``burako_env/core``, from its package: the same in a checkout and
    installed."""
    core_init = importlib.import_module("burako_env.core").__file__
    assert core_init is not None  # a regular package (an __init__.py), never a namespace one
    return Path(core_init).resolve().parent


def install_dependency_cache_locator() -> None:
    """Make numba's on-disk cache of the kernels in ``agents/`` depend on the sources they
    call: numba only checks a cached function's own file, so a kernel here would keep
    running stale core rules (or stale policies) after an edit elsewhere. The stamp of a
    function in this folder becomes its own file's hash plus a hash of every
    ``burako_env/core`` source and of the ``agents`` modules that define kernels
    (:func:`kernel_modules`). The entries live in the core's cache folder
    (``NUMBA_CACHE_DIR`` or the one ``burako_env.core.nb`` picks), so that one folder holds
    every kernel: an empty one is a cold start. Private numba API: skipped if it moved."""
    try:
        from numba.core import caching
    except ImportError:  # pragma: no cover
        return
    # in the core's folder (burako_env.core.nb names it) unless no folder is set
    from numba import config

    kind = "UserProvidedCacheLocator" if config.CACHE_DIR else "InTreeCacheLocator"
    base: Any = getattr(
        caching, kind, None
    )  # a class of numba's, subclassed below or getattr(caching, "_" + kind, None)
    impl = getattr(caching, "CacheImpl", None) or getattr(caching, "_CacheImpl", None)
    if base is None or impl is None or not hasattr(impl, "_locator_classes"):
        return
    if any(getattr(c, "_burako_deps", False) for c in impl._locator_classes):
        return
    folders = stamped_folders()
    # the core's folder from its package: installed, burako_env.agents (this folder) sits
    # inside burako_env; in the repository it is agents/, beside burako_env/
    core = _core_folder()
    digest = hashlib.sha256()
    sources = sorted(core.glob("*.py"))
    for folder in folders:
        sources += kernel_modules(folder)
    for path in sources:
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    deps = digest.hexdigest()

    class DependencyCacheLocator(base):
        _burako_deps = True

        def get_source_stamp(self):
            return (super().get_source_stamp(), deps)

        @classmethod
        def from_function(cls, py_func, py_file):
            try:
                if Path(py_file).resolve().parent not in folders:
                    return None
            except OSError:
                return None
            return super().from_function(py_func, py_file)

    impl._locator_classes.insert(0, DependencyCacheLocator)


__all__ = ["install_dependency_cache_locator", "kernel_modules", "stamped_folders"]
