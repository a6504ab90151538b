"""Which functions a cold start compiles, how often, and with which argument types.

    NUMBA_CACHE_DIR=$(mktemp -d) .venv/bin/python scripts/compile_profile.py --out prof.json

Plays the main job's heuristic tournament (random, greedy, discard_table, 2 hands per
pairing, one thread) with numba's compiler events recorded (``numba.core.event``), then
prints the process's CPU seconds, the number of compilations and, for every function
compiled more than once, how many signatures it got: each is a compilation of the
function and of what it inlines. Run it with an empty cache (as above), or it reports
what the cache already holds as not compiled. ``--out`` writes every compilation
(function, argument types, inclusive seconds) as JSON. docs/BENCHMARKS.md ("Compile
time") reads it.
"""

from __future__ import annotations

import argparse
import collections
import json
import time


def profile() -> dict:
    """Run the job under the recorder; the compilations, CPU seconds and signatures."""
    t0 = time.process_time()
    from numba.core import event

    from burako_env.frontends.warmup import _job_tournament

    with event.install_recorder("numba:compile") as recorder:
        _job_tournament()  # warmup's job for the heuristic tournament
    cpu = time.process_time() - t0
    starts: dict = {}
    compiles = []
    for stamp, ev in recorder.buffer:
        func = ev.data["dispatcher"].py_func
        key = (f"{func.__module__}.{func.__qualname__}", str(ev.data["args"]))
        if ev.is_start:
            starts[key] = stamp
        else:
            compiles.append(
                {"function": key[0], "args": key[1], "seconds": stamp - starts.pop(key, stamp)}
            )
    return {"cpu_seconds": cpu, "compiles": compiles}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=None, help="write every compilation here (JSON)")
    args = ap.parse_args()
    res = profile()
    counts = collections.Counter(c["function"] for c in res["compiles"])
    print(
        f"{res['cpu_seconds']:.1f} CPU-s, {len(res['compiles'])} compilations of "
        f"{len(counts)} functions"
    )
    for name, n in counts.most_common():
        if n > 1:
            print(f"  {n} x {name}")
    if args.out:
        with open(args.out, "w", encoding="utf-8") as f:
            json.dump(res, f, indent=1)


if __name__ == "__main__":
    main()
