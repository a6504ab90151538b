"""A tournament's chunks as Ray tasks (``run_tournament(..., ray=True)``, docs/SCALING.md):
the compiled pairings' slices on the cluster, the pairings with a Python agent in this
process, booked in the local run's order so the result is the local run's, bit for bit.
With a sequential test (``until_decided``) the chunks of a decided pairing are cancelled
and never booked, as the local run never plays them."""

from __future__ import annotations

from collections.abc import Callable

from burako_env.agents.tournament_chunks import (
    ChunkGames,
    CompiledOnly,
    merge_slices,
    play_chunk,
    play_tournament_chunk,
)
from burako_env.table.table import kernel_policy


def run_on_ray(
    keys,
    pairs,
    objs,
    names,
    task_of,
    take,
    advance,
    compiled,
    task_deals,
    address,
    workers,
    wanted: Callable[[tuple], bool] | None = None,
) -> dict:
    """The tournament's chunks as Ray tasks (compiled pairings) and in this process
    (pairings with a Python agent); ``take`` books them in the local run's order.

    ``wanted(key)``, with a sequential test: whether a chunk is still to play, given the
    chunks booked before it (False once its pairing decided). Unwanted chunks are
    cancelled and skipped; a chunk played here waits until every chunk before it is
    booked, so that it plays only where the local run does (a Python agent's generator
    carries from chunk to chunk)."""
    from burako_env.distributed import (
        TASK_CPUS,
        TASK_RETRIES,
        RayError,
        cluster_address,
        cluster_cpus,
        ray_session,
        slices,
    )

    with ray_session(address, num_cpus=workers) as ray:
        remote = ray.remote(num_cpus=TASK_CPUS, max_retries=TASK_RETRIES)(play_tournament_chunk)
        parts: dict[tuple, list] = {}
        owner: dict = {}
        for key in keys:
            _, _, d, pi = key
            pair = [objs[x] for x in pairs[pi]]
            policies = [kernel_policy(ag) for ag in pair]
            if any(pol is None for pol in policies):
                continue  # a Python agent: played here, in order
            shipped = tuple(
                CompiledOnly(names[x], pol) for x, pol in zip(pairs[pi], policies, strict=True)
            )
            pieces = slices(d, task_deals)
            parts[key] = [None] * len(pieces)
            for s_i, (lo, hi) in enumerate(pieces):
                owner[remote.remote(task_of(key, lo, hi), shipped, TASK_CPUS)] = (key, s_i)
        tasks = len(owner)
        pending = list(owner)
        finished: dict[tuple, ChunkGames] = {}
        next_key = 0

        def fetch(ref) -> ChunkGames:
            try:
                return ray.get(ref)
            except ray.exceptions.RayTaskError as exc:
                cause = getattr(exc, "cause", None)
                if isinstance(cause, Exception):
                    raise cause from None
                raise RayError(f"a tournament task failed: {exc}") from exc
            except ray.exceptions.RayError as exc:
                raise RayError(
                    f"a tournament task failed {TASK_RETRIES + 1} times (its worker died): {exc}"
                ) from exc

        def collect(timeout: float) -> None:
            nonlocal pending
            if not pending:
                return
            ready, pending = ray.wait(pending, num_returns=1, timeout=timeout)
            if ready and pending:
                more, pending = ray.wait(pending, num_returns=len(pending), timeout=0)
                ready += more
            for ref in ready:
                key, s_i = owner.pop(ref)
                games = fetch(ref)
                parts[key][s_i] = games
                advance(len(games.winner))
                if all(p is not None for p in parts[key]):
                    finished[key] = merge_slices(parts.pop(key))

        def flush() -> None:
            nonlocal next_key, pending
            while next_key < len(keys):
                key = keys[next_key]
                if wanted is not None and not wanted(key):
                    finished.pop(key, None)  # its pairing decided: the local run skips it
                elif key in finished:
                    take(key, finished.pop(key))
                else:
                    break
                next_key += 1
            if wanted is None:
                return
            for ref, (key, _) in list(owner.items()):  # a decision never changes back
                if not wanted(key):
                    owner.pop(ref)
                    parts.pop(key, None)
                    pending.remove(ref)
                    try:
                        ray.cancel(ref)
                    except Exception:  # already finished or gone: nothing to stop
                        pass

        try:
            for index, key in enumerate(keys):
                if key in parts:
                    continue
                while wanted is not None and next_key < index:
                    flush()  # whether it is to play depends on every chunk before it
                    if next_key < index:
                        collect(0.25)
                if wanted is not None and not wanted(key):
                    continue
                _, _, d, pi = key
                finished[key] = play_chunk(task_of(key, 0, d), tuple(objs[x] for x in pairs[pi]))
                advance(2 * d)
                collect(0)
                flush()
            while pending:
                collect(0.25)
                flush()
            flush()
        except BaseException:
            for ref in pending:
                try:
                    ray.cancel(ref)
                except Exception:  # already finished or gone: nothing to stop
                    pass
            raise
        cpus = cluster_cpus()
    return {
        "ray": {
            "address": cluster_address(address) or "local",
            "cpus": cpus,
            "tasks": tasks,
            "task_deals": task_deals,
        }
    }


__all__ = ["run_on_ray"]
