"""Fork safety: numba's threading layer is TBB where the ``tbb`` wheel is installed.

numba's default threading layer on Linux is GNU OpenMP when TBB cannot be loaded, and a
process forked after OpenMP's threads started aborts on its first parallel kernel
("fork() called from a process already using GNU OpenMP"): Gymnasium's
``AsyncVectorEnv`` (fork by default on Linux) and any ``multiprocessing`` fork after an
env ran. TBB is fork-safe and thread-safe (the ``workqueue`` layer is fork-safe but
aborts when two Python threads run kernels at once, and measured 2x slower on 2 threads),
so burako depends on the ``tbb`` wheel and loads its library here, before numba looks for
it: pip installs it in ``<prefix>/lib``, where the dynamic loader of a virtualenv does not
search. ``NUMBA_THREADING_LAYER`` set by the user is left alone. Without TBB the layer is
OpenMP and a fork after it started warns, naming the ways out.

Applied on import (by :mod:`burako_env.jit`, first: before any parallel kernel runs).
"""

from __future__ import annotations

import ctypes
import os
import sys
import warnings
from pathlib import Path

import numba

# numba's OpenMP threads spin while they wait; on a busy 2-core machine that starves the
# other thread (measured: 300k steps/s on 1 thread fell to 21-55k on 2). Passive waiting
# keeps 2 threads ahead. Must be set before the first parallel kernel starts OpenMP.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

#: the name of the TBB library that numba's TBB layer needs (pip's ``tbb`` wheel)
TBB_LIBRARY = "libtbb.so.12"


def _load_tbb() -> bool:
    """Load pip's libtbb (Linux) so that numba's TBB threading layer can start."""
    if not sys.platform.startswith("linux"):
        return False  # elsewhere numba finds TBB itself, and OpenMP is fork-safe
    for prefix in dict.fromkeys((sys.prefix, sys.base_prefix, sys.exec_prefix)):
        path = Path(prefix) / "lib" / TBB_LIBRARY
        if path.is_file():
            try:
                ctypes.CDLL(str(path), mode=ctypes.RTLD_GLOBAL)
            except OSError:
                continue
            return True
    try:  # a system TBB, on the loader's own path
        ctypes.CDLL(TBB_LIBRARY, mode=ctypes.RTLD_GLOBAL)
    except OSError:
        return False
    return True


def _warn_fork_after_openmp() -> None:
    try:
        layer = numba.threading_layer()
    except ValueError:  # no parallel kernel ran yet: the child starts its own layer
        return
    if layer == "omp" and sys.platform.startswith("linux"):
        warnings.warn(
            "fork() after numba's GNU OpenMP threads started: the child process aborts on "
            "its first parallel kernel. Install tbb (pip install tbb), set "
            "NUMBA_THREADING_LAYER=workqueue, or start processes with 'spawn' or "
            "'forkserver'",
            RuntimeWarning,
            stacklevel=2,
        )


#: whether this process loaded TBB and chose numba's ``tbb`` layer (False where the user
#: set ``NUMBA_THREADING_LAYER``, or no TBB library was found)
TBB_LOADED = False
if not os.environ.get("NUMBA_THREADING_LAYER"):
    TBB_LOADED = _load_tbb()
    if TBB_LOADED:
        numba.config.THREADING_LAYER = "tbb"
os.register_at_fork(before=_warn_fork_after_openmp)

__all__ = ["TBB_LIBRARY", "TBB_LOADED"]
