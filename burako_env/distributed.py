"""Ray, the optional engine for running on a cluster (the ray extra: ``pip install 'burako[ray]'``).

    from burako_env.distributed import ray_session
    with ray_session("10.0.0.5:6379"):      # or None: RAY_ADDRESS, else a local instance
        ...                                  # run_tournament(..., ray=True), simulate(...)

Nothing here imports Ray until a caller asks for it, so the project runs without it.
The commands take ``--ray`` (a local Ray instance, or the cluster named by
``RAY_ADDRESS``, Ray's own convention) and ``--ray-address ADDRESS``. docs/SCALING.md
tells how to start a cluster and what it gives.
"""

from __future__ import annotations

import logging
import os
import socket
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np

#: the environment variable that names a cluster (Ray's own convention)
ADDRESS_ENV = "RAY_ADDRESS"
#: object store of a local instance: results are small arrays, and /dev/shm may be small
OBJECT_STORE_BYTES = 200 * 1024 * 1024
#: CPUs a tournament or simulation task asks for (each runs numba on this many threads)
TASK_CPUS = 1
#: seconds to wait for the cluster's address to answer before saying it cannot be reached
CONNECT_TIMEOUT_S = 5.0
#: with this set to 0 before Ray is imported, Ray takes 127.0.0.1 as this machine's address,
#: so a local instance (and a test's cluster) listens on loopback only
LOOPBACK_ENV = "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"
#: times Ray re-runs a task whose worker process died (a task is a pure function of its
#: keys, so a re-run gives the same result)
TASK_RETRIES = 5


class RayError(RuntimeError):
    """Ray is missing or the cluster cannot be reached: the message says what to fix."""


def require_ray() -> Any:
    """The ``ray`` module, or a RayError saying how to install it."""
    try:
        import ray
    except ImportError as exc:
        raise RayError(
            "--ray needs ray, which is not installed: pip install 'burako[ray]'"
        ) from exc
    return ray


def cluster_address(address: str | None = None) -> str | None:
    """The address asked for: ``address``, else ``RAY_ADDRESS``, else None (a local instance)."""
    return address or os.environ.get(ADDRESS_ENV) or None


def _check_reachable(address: str) -> None:
    """A RayError naming ``address`` unless something answers there (Ray itself would retry
    an unreachable address for minutes)."""
    if address in ("auto", "local"):
        return
    hostport = address.split("://", 1)[-1]
    host, sep, port = hostport.rpartition(":")
    if not sep or not port.isdigit() or not host:
        raise RayError(
            f"the Ray cluster address {address!r} is not HOST:PORT (e.g. 10.0.0.5:6379); "
            f"fix --ray-address / {ADDRESS_ENV}"
        )
    try:
        with socket.create_connection((host.strip("[]"), int(port)), CONNECT_TIMEOUT_S):
            pass
    except OSError as exc:
        raise RayError(
            f"cannot reach the Ray cluster at {address!r} ({exc.strerror or exc}); start it "
            "with `ray start --head` on the head machine, or fix --ray-address / "
            f"{ADDRESS_ENV}"
        ) from None


def init_ray(address: str | None = None, num_cpus: int | None = None) -> bool:
    """Connect to the cluster at ``address`` (or ``RAY_ADDRESS``), or start a local instance
    with ``num_cpus`` CPUs (default: all) when neither names one. True if this call started
    the connection (and so should end it), False if Ray was already initialised."""
    address = cluster_address(address)
    if address is None and "ray" not in sys.modules:
        os.environ.setdefault(LOOPBACK_ENV, "0")  # a local instance serves this machine only
    if address is not None:
        _check_reachable(address)
    ray = require_ray()
    if ray.is_initialized():  # a connection this process already holds is used as it is
        return False
    if address is not None:
        try:
            ray.init(address=address, logging_level=logging.ERROR, log_to_driver=False)
        except Exception as exc:  # Ray raises ConnectionError, RuntimeError or ValueError
            raise RayError(
                f"cannot reach the Ray cluster at {address!r} ({type(exc).__name__}: {exc}); "
                "start it with `ray start --head` on the head machine, or fix --ray-address / "
                f"{ADDRESS_ENV}"
            ) from exc
        return True
    ray.init(
        num_cpus=num_cpus,
        include_dashboard=False,
        object_store_memory=OBJECT_STORE_BYTES,
        logging_level=logging.ERROR,
        log_to_driver=False,
    )
    return True


@contextmanager
def ray_session(address: str | None = None, num_cpus: int | None = None) -> Iterator[Any]:
    """``init_ray`` for the block; the connection this opened is closed at its end."""
    started = init_ray(address, num_cpus)
    ray = require_ray()
    try:
        yield ray
    finally:
        if started:
            ray.shutdown()


def cluster_cpus() -> int:
    """CPUs of the connected cluster (at least 1)."""
    ray = require_ray()
    return max(1, int(ray.cluster_resources().get("CPU", 1)))


def set_worker_threads(threads: int) -> None:
    """numba's threads in a Ray worker (its process is reused from task to task, so the
    compiled kernels load from the numba cache once per worker)."""
    import numba

    numba.set_num_threads(max(1, min(int(threads), numba.config.NUMBA_NUM_THREADS)))


def game_seeds_range(seed: int, start: int, count: int) -> np.ndarray:
    """Rows ``start .. start + count`` of :func:`burako_env.core.game.game_seeds` ``(seed, n)``
    for any ``n`` past them: game b's generator depends on (seed, b) alone, so a chunk of
    games is seeded as it is in the whole batch."""
    words = np.empty((count, 4), dtype=np.int64)
    for i in range(count):
        w = np.random.SeedSequence(int(seed), spawn_key=(start + i,)).generate_state(
            4, dtype=np.uint32
        )
        if not w.any():
            w[0] = 1
        words[i] = w
    return words


def slices(total: int, size: int) -> list[tuple[int, int]]:
    """``[lo, hi)`` pieces of ``range(total)``, each of at most ``size``."""
    size = max(1, int(size))
    return [(lo, min(lo + size, total)) for lo in range(0, total, size)]
