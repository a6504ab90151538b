"""Speed of heuristic-only tournaments: whole games inside the compiled kernel.

    .venv/bin/python scripts/bench/bench_agents.py                 # argentine, 4 players
    .venv/bin/python scripts/bench/bench_agents.py --variant colombian --hands 8192

Reports hands per second of ``run_tournament`` for one pairing (seats swapped), after
a warm-up that compiles (or loads) the kernels; the best of ``repeats`` runs. On a shared
machine the wall-clock rate depends on the other jobs, so the CPU time the process got is
reported too: ``hands_per_cpu_second`` and ``cores_used`` (CPU seconds per wall second).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import time


def _cpu_seconds() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def bench_tournament(
    variant: str = "argentine",
    num_players: int = 4,
    agents: tuple[str, str] = ("greedy", "discard_table"),
    hands: int = 8192,
    workers: int = 2,
    repeats: int = 3,
    seed: int = 0,
) -> dict:
    """Hands per second of a heuristic-only pairing (the best of ``repeats`` runs)."""
    from burako_env.agents.tournament import run_tournament

    kw = dict(variant=variant, num_players=num_players, workers=workers, progress=False)
    run_tournament(list(agents), hands_per_pairing=8, seed=seed, **kw)  # compile / load
    best = None
    for r in range(repeats):
        t0 = time.perf_counter()
        c0 = _cpu_seconds()
        res = run_tournament(list(agents), hands_per_pairing=hands, seed=seed + r, **kw)
        dt = time.perf_counter() - t0
        cpu = _cpu_seconds() - c0
        rate = res.pairings[0].hands / dt
        if best is None or rate > best["hands_per_second"]:
            best = {
                "variant": variant,
                "num_players": num_players,
                "agents": list(agents),
                "hands": res.pairings[0].hands,
                "workers": workers,
                "seconds": dt,
                "hands_per_second": rate,
                "kernel_hands_per_second": res.pairings[0].hands / res.pairings[0].seconds,
                "hands_per_cpu_second": res.pairings[0].hands / max(cpu, 1e-9),
                "cores_used": cpu / dt,
            }
    best["cpus"] = os.cpu_count()
    try:
        best["load_average"] = os.getloadavg()[0]
    except OSError:  # pragma: no cover
        pass
    return best


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--variant", default="argentine")
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--agents", nargs=2, default=["greedy", "discard_table"])
    ap.add_argument("--hands", type=int, default=8192)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    out = bench_tournament(
        args.variant, args.players, tuple(args.agents), args.hands, args.workers, args.repeats
    )
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
