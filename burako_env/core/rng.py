"""A counter-free per-game random generator that numba and plain Python run alike.

xoshiro128** on four 32-bit words held in int64 (masking keeps every product below 2**63,
so the same bits come out with and without the JIT). Each game owns its state, so a batch
gives the same games on 1 thread or 16.
"""

# Kernel module: the rules its kernels follow (burako_env/jit/__init__.py says why).
# - Imports at the top: numpy, numba, burako_env.jit, the core, modules that declare
#   KERNEL_MODULE = True, and classes only: a kernel compiles in the globals it reads,
#   and the cache stamps cover only the core's, the jit's and kernel modules' sources.
# - Constants are module globals, compiled in; constant arguments go as np.int64/np.bool_.
# - @njit is link-only (kernels call it, Python cannot); Python calls @njit_kernel and
#   @njit_parallel. A loop over games names its index np.uint64 on its first line.
# - Whole games: a serial kernel of a slice (first, last) that borrows its arrays
#   (borrowed) and runs under run_sliced; a prange body never writes through an attribute.

from __future__ import annotations

import numpy as np

from burako_env.jit import njit

#: this module defines compiled functions (agents/kernel_cache.py reads the mark)
KERNEL_MODULE = True

MASK32 = 0xFFFFFFFF


@njit
def _rotl_nb(x, k):
    return ((x << k) | (x >> (32 - k))) & MASK32


@njit
def next_u32_nb(s):
    """Advance the state ``s`` (int64[4]) and return 32 random bits."""
    result = (_rotl_nb((s[1] * 5) & MASK32, 7) * 9) & MASK32
    t = (s[1] << 9) & MASK32
    s[2] ^= s[0]
    s[3] ^= s[1]
    s[1] ^= s[2]
    s[0] ^= s[3]
    s[2] ^= t
    s[3] = _rotl_nb(s[3], 11)
    return result


@njit
def randint_nb(s, n):
    """A uniform integer in ``[0, n)`` (n < 2**31)."""
    return (next_u32_nb(s) * n) >> 32


def seed_states(seeds: np.ndarray) -> np.ndarray:
    """Generator states (int64[len(seeds), 4]) from integer seeds, one game each."""
    seeds = np.asarray(seeds, dtype=np.uint64).reshape(-1)
    out = np.empty((len(seeds), 4), dtype=np.int64)
    for i, seed in enumerate(seeds):
        words = np.random.SeedSequence(int(seed)).generate_state(4, dtype=np.uint32)
        if not words.any():
            words[0] = 1
        out[i] = words.astype(np.int64)
    return out
