"""Symbol names unique across processes, so that two processes can share one cache folder.

Two processes compiling into one folder at once (pytest-xdist, a tournament beside a
training run, Ray workers, a job array on a shared home). numba names every compiled
function's symbol by its qualified name, a ``v<n>`` tag where n counts the functions this
process compiled, and its argument types, and a record type by a number this process gave
it when it first saw the type. Two processes that compile the same kernel for two player
counts (two record types) in the same order give both the same symbol name; each saves
its own cache entry, and a process that later loads both links every call to that name to
whichever it loaded first: the 6-player game runs the 4-player machine code (wrong games,
crashes), and the folder stays poisoned. :func:`_unique_symbols` numbers each process's
functions from a random 56-bit start, so two processes never name two functions alike;
``scripts/tools/numba_symbol_clash.py`` reproduces the fault with numba alone, and
docs/RELIABILITY.md tells the story. A folder written before the fix is never reused: its
name carries :data:`burako_env.jit.cache.CACHE_FORMAT`.

Applied on import (by :mod:`burako_env.jit`, before anything compiles).
"""

from __future__ import annotations

import itertools
import os


def _unique_symbols() -> bool:
    """Number the functions this process compiles from a random 56-bit start.

    numba's counter (``FunctionIdentity._unique_ids``) starts at 1 in every process, and
    the number is part of each symbol's name: entries that two processes compiled for
    different types (record types are named by a per-process number too) could share a
    name, and the JIT links a call to a name to the first definition it loaded. With a
    random start two processes' ranges (a few thousand functions each) overlap with odds
    of about 1e-13. The numbers only name symbols: machine code and games are the same."""
    from numba.core import bytecode

    identity = getattr(bytecode, "FunctionIdentity", None)
    if identity is None or not hasattr(identity, "_unique_ids"):
        return False  # another numba: its naming is its own
    if not getattr(bytecode, "_burako_random_ids", False):  # once, even if reloaded
        _restart_function_ids()
        # a forked child would go on from its parent's number, as a clone of it
        os.register_at_fork(after_in_child=_restart_function_ids)
        bytecode._burako_random_ids = True
    return True


def _restart_function_ids() -> None:
    from numba.core.bytecode import FunctionIdentity

    FunctionIdentity._unique_ids = itertools.count(int.from_bytes(os.urandom(7), "little"))


#: whether symbol names are unique across processes (numba has the counter this patches)
UNIQUE_SYMBOLS = _unique_symbols()

__all__ = ["UNIQUE_SYMBOLS"]
