"""Where and on how many threads the trainer runs: the device, the update's threads and the
rollout thread of ``overlap``.

    device = resolve_device(cfg.device)            # auto: CUDA when torch sees a GPU
    threads = UpdateThreads(cfg.update_threads)     # auto: the fastest count, as load changes
    with threads.running(transitions, overlapped=False, torch_threads=1) as clock:
        ...                                         # the PPO epochs; clock.seconds after
    with RolloutThread(trainer.collect, torch_threads=1) as rollout:
        ...                                         # the update, beside the next rollout
    if rollout.error is not None:
        raise rollout.error

None of it changes a result: the update's numbers do not depend on its thread count
(tests/training/test_training.py checks it), and the rollout thread collects what the
learner's thread would have. :mod:`burako_env.training.ppo` (the algorithm) uses them.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from types import TracebackType

import numba

try:  # the train extra: torch is not a core dependency (burako_env.extras)
    import torch
except ImportError as exc:
    from burako_env.extras import MissingExtra

    raise MissingExtra("burako_env.training", "torch") from exc

from burako_env.training.config import ConfigError


def resolve_device(name: str) -> torch.device:
    """The torch device of the config's ``device`` (``auto``: CUDA when torch sees a GPU,
    else the CPU); a ConfigError when a GPU is asked for and torch sees none."""
    if name == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if name.startswith("cuda"):
        count = torch.cuda.device_count() if torch.cuda.is_available() else 0
        index = int(name.partition(":")[2] or 0)
        if index >= count:
            raise ConfigError(
                f"config key 'device' is {name!r} but torch sees {count} CUDA device(s) "
                f"(torch {torch.__version__}): use device: auto or cpu"
            )
    return torch.device(name)


def busy_cores() -> int:
    """Threads of other processes running or ready to run right now (Linux's
    ``/proc/loadavg`` count of runnable threads, less the caller's own one); elsewhere
    the 1-minute load average."""
    try:
        with open("/proc/loadavg") as f:
            runnable = int(f.read().split()[3].split("/")[0])
        return max(0, runnable - 1)
    except (OSError, ValueError, IndexError):
        return int(round(os.getloadavg()[0])) if hasattr(os, "getloadavg") else 0


@dataclass
class UpdateClock:
    """The wall time of one update's epochs, set when :meth:`UpdateThreads.running` ends."""

    seconds: float = 0.0
    """Wall seconds from the block's start to its end (0 until it ends)."""


class UpdateThreads:
    """The torch threads of each PPO update with ``update_threads: auto``: the fastest
    count, per transition, among 1 and the cores no other process keeps busy when the
    update starts. Each count is timed once before it is compared, and every
    ``PROBE_EVERY`` updates the counts are timed again, as the machine's load changes.
    More threads are not always faster: torch's threads wait for each other at every
    operation (a thread without a core stalls the rest: 20x slower updates were seen),
    and on this 2-core machine one thread beat two even when idle (docs/TRAINING.md).
    The update's results do not depend on the count (tests/training/test_training.py checks it),
    so following the machine keeps runs reproducible."""

    PROBE_EVERY = 20

    def __init__(self, setting: int | str) -> None:
        self.setting = setting
        try:
            self.cores = len(os.sched_getaffinity(0))
        except AttributeError:
            self.cores = os.cpu_count() or 1
        self.seconds: dict[int, float] = {}  # threads -> last seconds per transition
        self.updates = 0
        self.chosen = 1

    def choose(self) -> int:
        """The number of update threads for the next update: the setting, or under ``auto`` the
        fastest count measured so far (every count timed again now and then)."""
        if self.setting != "auto":
            self.chosen = int(self.setting)
            return self.chosen
        if self.updates and self.updates % self.PROBE_EVERY == 0:
            self.seconds.clear()  # time every count again
        self.updates += 1
        idle = max(1, self.cores - busy_cores())
        counts = sorted({1, idle})
        untimed = [k for k in counts if k not in self.seconds]
        if untimed:
            self.chosen = untimed[0]
        else:
            self.chosen = min(counts, key=lambda k: self.seconds[k])
        return self.chosen

    def record(self, seconds: float, transitions: int) -> None:
        """The last update's time (after :meth:`choose`)."""
        if self.setting != "auto" or transitions <= 0:
            return
        self.seconds[self.chosen] = seconds / transitions

    @contextmanager
    def running(
        self, transitions: int, overlapped: bool, torch_threads: int
    ) -> Iterator[UpdateClock]:
        """The threads of one update of ``transitions`` transitions, timed (the clock's
        ``seconds`` once the block ends). Alone, torch gets :meth:`choose`'s count, the
        time is :meth:`record`-ed and torch goes back to ``torch_threads`` after.
        ``overlapped`` (beside the rollout thread) the update keeps to one torch and one
        numba thread, leaving the other cores to the rollout, and nothing is recorded
        (the rollout's load would skew the counts' times); the learner's torch threads go
        back when the rollout thread is joined (:class:`RolloutThread`)."""
        torch.set_num_threads(1 if overlapped else self.choose())
        numba_threads = numba.get_num_threads()
        if overlapped:
            numba.set_num_threads(1)
        clock = UpdateClock()
        started = time.perf_counter()
        try:
            yield clock
            clock.seconds = time.perf_counter() - started
        finally:
            if overlapped:
                numba.set_num_threads(numba_threads)
            else:
                torch.set_num_threads(torch_threads)
        if not overlapped:
            self.record(clock.seconds, transitions)


class RolloutThread(threading.Thread):
    """The trainer's ``collect`` on its own thread, beside the update (``overlap``): the
    games' kernels and torch's ops release the GIL, so the two share the cores. numba's
    threads are per thread: the rollout takes all the cores but the update's one.

    As a context manager it starts on entry (the learner's torch threads set to 1 first)
    and is joined on exit, the learner's torch threads set back to ``torch_threads``; an
    exception of ``collect`` is kept in :attr:`error` for the learner to raise."""

    def __init__(self, collect: Callable[[], None], torch_threads: int) -> None:
        super().__init__(name="burako-rollout", daemon=True)
        self.collect = collect
        self.torch_threads = torch_threads
        self.error: BaseException | None = None

    def run(self) -> None:
        """Collect the next rollout (an exception is kept for the learner's thread)."""
        numba.set_num_threads(max(1, numba.config.NUMBA_NUM_THREADS - 1))
        try:
            self.collect()
        except BaseException as exc:  # raised again on the learner's thread
            self.error = exc

    def __enter__(self) -> RolloutThread:
        torch.set_num_threads(1)
        self.start()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.join()
        torch.set_num_threads(self.torch_threads)
