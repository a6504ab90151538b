"""Compile notices and compile time, from numba's ``numba:compile`` events.

numba fires a ``numba:compile`` event around every compile (a cache hit fires none),
inside its global compiler lock. A listener here says the compile notice (``compiling the
game's kernels for this machine ...``) the first time a function of burako's starts to
compile, once per process, as a WARNING of the ``burako_env`` logger (the front ends say it
on stderr before a command starts, when :func:`burako_env.jit.cache.cold_kernels` finds a
kernel it calls cold: burako_env/frontends/warmup.py), and adds up the seconds spent
compiling (:func:`seconds_compiling`, :func:`timed_without_compile`), which the rates the
commands print leave out.

Applied on import (by :mod:`burako_env.jit`).
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time

import numba

#: the logger of burako's notices: the compile notice is its WARNING, printed on stderr
#: by Python's last-resort handler where the program configured no logging
LOGGER = logging.getLogger("burako_env")

#: the measured cold compile of the main job on the 2-core development machine
#: (docs/BENCHMARKS.md, `burako bench --compile`), quoted by the notice
COLD_COMPILE_HINT = "about 30 seconds of CPU"


def compile_notice() -> str:
    """What the compile notice says."""
    return (
        "compiling the game's kernels for this machine (a first run, or the first after an "
        f"edit of the core; {COLD_COMPILE_HINT} on 2 cores, then cached). `burako warmup` "
        "compiles them all ahead."
    )


class _CompileWatch:
    """numba's ``numba:compile`` events: numba fires one around every compile of a
    function (a cache hit fires none), inside its global compiler lock, so compiles never
    overlap and the counts need no lock of their own.

    It keeps the seconds this process spent compiling (:func:`seconds_compiling`: the rates
    the front ends print leave them out) and, the first time a function of burako's
    starts to compile, says so once per process (:func:`say_compile_notice`)."""

    def __init__(self) -> None:
        self.depth = 0  # compiles in progress: a kernel compiles its callees inside its own
        self.started = 0.0
        self.seconds = 0.0
        self.said = False
        self.lock = threading.Lock()

    def on_start(self, event) -> None:
        if self.depth == 0:
            self.started = time.perf_counter()
        self.depth += 1
        func = getattr((event.data or {}).get("dispatcher"), "py_func", None)
        if not self.said and _is_ours(getattr(func, "__module__", None) or ""):
            say_compile_notice()

    def on_end(self, event) -> None:
        self.depth = max(0, self.depth - 1)
        if self.depth == 0:
            self.seconds += time.perf_counter() - self.started


#: the packages whose compiles the notice is about (not a user's own numba functions)
NOTICE_PACKAGES = ("burako_env",)


def _is_ours(module: str) -> bool:
    return any(module == p or module.startswith(p + ".") for p in NOTICE_PACKAGES)


_WATCH = _CompileWatch()


def _watch_compiles() -> bool:
    """Listen to numba's compile events (numba 0.53 on); False where there are none."""
    try:
        from numba.core import event
    except ImportError:
        return False
    if not hasattr(event, "register") or numba.config.DISABLE_JIT:
        return False
    if getattr(event, "_burako_watch", None) is None:  # once, even if this module reloads

        class Listener(event.Listener):
            def on_start(self, ev) -> None:
                _WATCH.on_start(ev)

            def on_end(self, ev) -> None:
                _WATCH.on_end(ev)

        event._burako_watch = Listener()
        event.register("numba:compile", event._burako_watch)
    return True


#: whether compiles are seen as they start (the notice of an unforeseen compile, the
#: compile seconds that rates leave out)
COMPILES_WATCHED = _watch_compiles()


def say_compile_notice(echo=None, once: bool = True) -> bool:
    """Say the compile notice: through ``echo`` (a front end's stderr) or as a WARNING of
    the ``burako_env`` logger. With ``once`` (compiles seen as they start), not when it
    was said before in this process; False then (nothing said).

    The front ends say it (``once=False``, through
    ``burako_env.frontends.warmup.announce_compile``) before a command starts, when a
    kernel it calls is cold. Any other first compile of a burako function (a first
    ``Game``, ``VectorEnv``, ``burako_v1.env()``, ``run_tournament``, or a kernel the
    command did not foresee) says it as it starts, once per process.
    ``logging.getLogger("burako_env").setLevel(logging.ERROR)`` silences that."""
    with _WATCH.lock:
        if once and _WATCH.said:
            return False
        _WATCH.said = True
    text = compile_notice()
    if echo is not None:
        echo(text)
    else:
        LOGGER.warning(text)
    return True


def seconds_compiling() -> float:
    """Wall seconds this process has spent compiling so far (0.0 where numba has no
    compile events): a rate that leaves the compile out divides by the elapsed time less
    the growth of this figure over it (:func:`timed_without_compile`)."""
    return _WATCH.seconds


@contextlib.contextmanager
def timed_without_compile():
    """Time a block: yields a dict whose ``seconds`` (wall, less the compiles inside the
    block) and ``compile_seconds`` are set when the block ends. Compiles hold numba's
    global lock, and a thread that calls a kernel being compiled waits for it, so the wall
    time less the compile is what the block takes warm."""
    timing = {"seconds": 0.0, "compile_seconds": 0.0}
    c0, t0 = seconds_compiling(), time.perf_counter()
    try:
        yield timing
    finally:
        wall = time.perf_counter() - t0
        compiled = min(wall, seconds_compiling() - c0)
        timing["seconds"], timing["compile_seconds"] = wall - compiled, compiled


__all__ = [
    "COLD_COMPILE_HINT",
    "COMPILES_WATCHED",
    "LOGGER",
    "NOTICE_PACKAGES",
    "compile_notice",
    "say_compile_notice",
    "seconds_compiling",
    "timed_without_compile",
]
