"""The one place that configures numba for the core.

``njit`` is numba's with ``cache=True`` (compiled kernels are kept on disk between runs)
and ``nogil``; ``NUMBA_DISABLE_JIT=1`` turns every kernel into plain Python for debugging.
"""

from __future__ import annotations

import numba

njit = numba.njit(cache=True, nogil=True)
njit_parallel = numba.njit(cache=True, nogil=True, parallel=True)
prange = numba.prange
