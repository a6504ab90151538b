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

- a module that defines compiled functions says so, ``KERNEL_MODULE = True`` (the cache
  stamp of the agents' and the table's kernels reads it:
  :func:`burako_env.agents.kernel_cache.kernel_modules`);
- at its top it imports only kernel modules, the core, and classes (a kernel reads
  module globals as compile-time constants: a value from a module the stamp leaves out
  would go stale in the cache);
- constants are module globals, compiled in (an edit changes the source, so the stamp);
- ``@njit`` functions are link-only: Python cannot call them, only kernels can;
- indices into the action space and card arrays are ``uint64`` where they index;
- a serial kernel over a slice borrows the arrays it was given (:func:`borrowed`) and
  runs under :func:`run_sliced`; ``prange`` only where a kernel stays small.
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
