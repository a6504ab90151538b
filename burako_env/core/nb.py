"""The one place that configures numba for the core.

``njit`` is numba's with ``cache=True`` (compiled kernels are kept on disk between runs)
and ``nogil``; ``NUMBA_DISABLE_JIT=1`` turns every kernel into plain Python for debugging.

numba's on-disk cache checks only the source file of the cached function, not the
functions it calls in other modules: a kernel in ``kernels.py`` would keep running an old
``rules.py``. So, unless ``NUMBA_CACHE_DIR`` is set, the cache lives in a folder named by
a hash of every core source file: any edit of the core starts a fresh cache.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import numba

_CORE_DIR = Path(__file__).resolve().parent


def _source_hash() -> str:
    digest = hashlib.sha1()
    for path in sorted(_CORE_DIR.glob("*.py")):
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:12]


# numba's OpenMP threads spin while they wait; on a busy 2-core machine that starves the
# other thread (measured: 300k steps/s on 1 thread fell to 21-55k on 2). Passive waiting
# keeps 2 threads ahead. Must be set before the first parallel kernel starts OpenMP.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

if not os.environ.get("NUMBA_CACHE_DIR"):
    numba.config.CACHE_DIR = str(_CORE_DIR / "__pycache__" / f"numba-{_source_hash()}")

njit = numba.njit(cache=True, nogil=True)
njit_parallel = numba.njit(cache=True, nogil=True, parallel=True)
#: for checks called in the enumeration's inner loops: a call that passes the whole
#: GameState (18 arrays, flattened into ~170 arguments) costs ~200 ns, far more than the
#: check itself, so these are inlined at numba's IR level
njit_inline = numba.njit(cache=True, nogil=True, inline="always")
prange = numba.prange
