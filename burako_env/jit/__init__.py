"""numba's runtime for burako: every setting and patch of numba, one module per idea.

The core's kernels (``burako_env/core``), the agents' and the table's import their
decorators and helpers from here; nothing here imports the core. Importing this package
applies, in this order (each step must come before the ones after it, and all of them
before the first kernel compiles):

1. :mod:`~burako_env.jit.threading_layer`: TBB as numba's threading layer (fork-safe),
   passive OpenMP waiting, a warning on a fork after OpenMP started;
2. :mod:`~burako_env.jit.cache`: the cache folder, named by a hash of the core's and this
   package's sources and by ``CACHE_FORMAT``; :func:`numba_cache_folder`,
   :func:`cold_kernels`;
3. :mod:`~burako_env.jit.symbols`: symbol names unique across processes sharing a folder;
4. :mod:`~burako_env.jit.index_lock`: a lock around numba's cache index, a damaged entry
   compiled again;
5. :mod:`~burako_env.jit.link_only`: the decorators, :func:`njit` (link-only: only
   compiled code calls it) against :data:`njit_kernel` and :data:`njit_parallel` (what
   Python calls), and the numba internals patched for it;
6. :mod:`~burako_env.jit.borrowing`: :func:`borrowed` arrays, without reference counts;
7. :mod:`~burako_env.jit.slicing`: :func:`run_sliced`, serial kernels over slices of a
   batch on Python threads;
8. :mod:`~burako_env.jit.notices`: the compile notice and the seconds spent compiling.

``NUMBA_DISABLE_JIT=1`` turns every kernel into plain Python for debugging; every module
here imports and works then (the patches are skipped).

The rules a kernel author follows (docs/ARCHITECTURE.md, "Writing a kernel"; each kernel
module repeats them in a comment block at its top):

- a module that defines compiled functions declares ``KERNEL_MODULE = True`` (the cache
  stamp of the agents' and the table's kernels reads it:
  :func:`burako_env.agents.kernel_cache.kernel_modules`; a test checks that a module
  declares it exactly when it defines one);
- at its top it imports numpy, numba, this package, the core, kernel modules and classes
  only: a kernel compiles in the module globals it reads, and the cache folder and stamps
  hash only the core's, this package's and the kernel modules' sources;
- constants are module globals, compiled in; constant arguments of the rule functions go
  as ``np.int64`` / ``np.bool_`` (numba compiles once per literal value and width);
- ``@njit`` functions are link-only: kernels call them, Python cannot (a TypeError says
  so), and their names end in ``_nb`` to say it at every call site; Python calls
  ``@njit_kernel`` and ``@njit_parallel`` functions, never named so (``tests/core/test_jit.py``
  checks both in every module);
- a loop over games names its index ``np.uint64`` on its first line (numba types a
  ``prange`` body's index uint64: one index type, each callee compiled once);
- a kernel that plays whole games is a serial function of a slice ``(first, last)`` run by
  :func:`run_sliced`, and borrows the arrays it was given (:func:`borrowed`); a
  ``prange`` body never writes to an array through an attribute.
"""

from __future__ import annotations

# the order matters (the module docstring): each patch is in place before the next
# module's, and all before any kernel of the core is decorated
# isort: off
from burako_env.jit import threading_layer
from burako_env.jit import cache
from burako_env.jit import symbols
from burako_env.jit import index_lock
from burako_env.jit import link_only
from burako_env.jit import borrowing
from burako_env.jit import slicing
from burako_env.jit import notices

# isort: on
from burako_env.jit.borrowing import borrowed
from burako_env.jit.cache import CACHE_FORMAT, cold_kernels, numba_cache_folder
from burako_env.jit.index_lock import CACHE_INDEX_LOCKED
from burako_env.jit.link_only import LINK_ONLY, njit, njit_kernel, njit_parallel, prange
from burako_env.jit.notices import (
    COLD_COMPILE_HINT,
    COMPILES_WATCHED,
    say_compile_notice,
    seconds_compiling,
    timed_without_compile,
)
from burako_env.jit.slicing import CHUNKS_PER_THREAD, run_sliced
from burako_env.jit.symbols import UNIQUE_SYMBOLS
from burako_env.jit.threading_layer import TBB_LOADED

__all__ = [
    "CACHE_FORMAT",
    "CACHE_INDEX_LOCKED",
    "CHUNKS_PER_THREAD",
    "COLD_COMPILE_HINT",
    "COMPILES_WATCHED",
    "LINK_ONLY",
    "TBB_LOADED",
    "UNIQUE_SYMBOLS",
    "borrowed",
    "borrowing",
    "cache",
    "cold_kernels",
    "index_lock",
    "link_only",
    "njit",
    "njit_kernel",
    "njit_parallel",
    "notices",
    "numba_cache_folder",
    "prange",
    "run_sliced",
    "say_compile_notice",
    "seconds_compiling",
    "slicing",
    "symbols",
    "threading_layer",
    "timed_without_compile",
]
