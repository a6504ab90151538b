"""The on-disk cache of the agents' and the table's kernels: named by every source they call.

numba checks only a cached function's own file, so a kernel of ``agents/`` or of the
table (``burako_env/table/``, whose play kernel calls the agents' policies) would keep
running stale core rules (or stale policies) after an edit elsewhere.
:func:`install_dependency_cache_locator` stamps each cache entry of a function in those
two folders with a hash of every source of the core and of numba's runtime
(``burako_env/core``, ``burako_env/jit``) and of the modules of both folders that declare
kernels (``KERNEL_MODULE = True``: :func:`kernel_modules`). The agents package installs it first
(``burako_env/agents/__init__.py``, which the table imports), before any of their modules
compiles or loads a kernel. No kernel lives here: an edit of this module leaves the
compiled kernels cached.
"""

from __future__ import annotations

import ast
import hashlib
import importlib
from pathlib import Path
from typing import Any

#: the module-level declaration of a module that defines compiled functions
KERNEL_MARK = "KERNEL_MODULE"


def declares_kernels(path: Path) -> bool:
    """Whether the module at ``path`` declares ``KERNEL_MODULE = True`` at its top level
    (read from its source: nothing is imported)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    for node in tree.body:
        if isinstance(node, ast.Assign):
            targets, value = node.targets, node.value
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            targets, value = [node.target], node.value
        else:
            continue
        named = any(isinstance(t, ast.Name) and t.id == KERNEL_MARK for t in targets)
        if named and isinstance(value, ast.Constant) and value.value is True:
            return True
    return False


def kernel_modules(folder: Path) -> list[Path]:
    """The modules of ``folder`` that declare numba kernels (``KERNEL_MODULE = True``,
    :func:`declares_kernels`; ``tests/core/test_numba_cache.py`` checks that every module that
    defines a compiled function declares it, and no other). A kernel's machine code depends
    only on numba-typed globals (kernels, constants, arrays), which live in these modules
    and in the core; the others (agent classes, the network, policy files) cannot change
    it, so editing them leaves the compiled kernels cached
    (``tests/core/test_numba_cache.py`` checks that kernel modules import nothing else)."""
    return [p for p in sorted(folder.glob("*.py")) if declares_kernels(p)]


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
    ``burako_env/core`` and ``burako_env/jit`` source and of the ``agents`` modules that
    declare kernels (:func:`kernel_modules`). The entries live in the core's cache folder
    (``NUMBA_CACHE_DIR`` or the one :mod:`burako_env.jit.cache` picks), so that one folder holds
    every kernel: an empty one is a cold start. Private numba API: skipped if it moved."""
    try:
        from numba.core import caching
    except ImportError:  # pragma: no cover
        return
    # in the core's folder (burako_env.jit.cache names it) unless no folder is set
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
    # the core's and the jit package's sources, found from their packages (installed,
    # burako_env.agents sits inside burako_env; in the repository it is agents/)
    from burako_env.jit.cache import source_files

    digest = hashlib.sha256()
    sources = source_files()
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


__all__ = [
    "KERNEL_MARK",
    "declares_kernels",
    "install_dependency_cache_locator",
    "kernel_modules",
    "stamped_folders",
]
