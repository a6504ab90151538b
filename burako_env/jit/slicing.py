"""Serial kernels over slices of a batch, run on Python threads (:func:`run_sliced`).

Kernels that play whole games are serial functions of a slice ``first..last`` of the
batch: a ``prange`` kernel compiles the rules twice (its loop body is a function of its
own, which links in and optimises again everything it calls). :func:`run_sliced` runs the
slices on ``numba.get_num_threads()`` Python threads (kernels release the GIL), and each
such kernel first takes its arrays as :func:`burako_env.jit.borrowing.borrowed`.
"""

from __future__ import annotations

import concurrent.futures
import os

import numba

#: chunks per thread of :func:`run_sliced`: games differ in length, so a thread that is
#: done takes the next chunk (numba's own scheduler balances a prange the same way)
CHUNKS_PER_THREAD = 8
_pools: dict[int, concurrent.futures.ThreadPoolExecutor] = {}


def _forget_pools() -> None:
    _pools.clear()  # a forked child has none of the parent's threads


os.register_at_fork(after_in_child=_forget_pools)


def run_sliced(kernel, size: int, *args) -> None:
    """Run the serial ``kernel(*args, first, last)`` over ``range(size)`` in slices, on
    ``numba.get_num_threads()`` Python threads (``njit`` releases the GIL).

    Why not ``prange``: numba compiles a ``parallel=True`` kernel's loop body as one more
    function, and every compiled function links in and optimises again the machine code
    of everything it calls, so a parallel kernel over the rules compiles the rule set
    twice (docs/BENCHMARKS.md, "Compile time"). ``numba.set_num_threads`` sets the
    threads here as it does for a ``prange``."""
    threads = min(numba.get_num_threads(), max(1, size))
    if threads <= 1:
        kernel(*args, 0, size)
        return
    pool = _pools.get(threads)
    if pool is None:
        pool = _pools[threads] = concurrent.futures.ThreadPoolExecutor(
            threads, thread_name_prefix="burako-kernel"
        )
    step = -(-size // (threads * CHUNKS_PER_THREAD))
    futures = [pool.submit(kernel, *args, lo, min(lo + step, size)) for lo in range(0, size, step)]
    try:
        for future in futures:
            future.result()
    except BaseException:
        # an error or Ctrl-C: the slices not started yet are dropped (a running one
        # cannot be stopped inside numba, as with a prange)
        for future in futures:
            future.cancel()
        raise


__all__ = ["CHUNKS_PER_THREAD", "run_sliced"]
