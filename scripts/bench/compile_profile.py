"""Which functions a cold start compiles, how often, and with which argument types.

    NUMBA_CACHE_DIR=$(mktemp -d) .venv/bin/python scripts/bench/compile_profile.py --out prof.json

Plays the main job's heuristic tournament (random, greedy, discard_table, 2 hands per
pairing, one thread) with numba's compiler events recorded (``numba.core.event``), then
prints the process's CPU seconds, the number of compilations, the functions that cost
most by exclusive seconds (their callees' compilations left out; of it, the time in
LLVM) and, for every function compiled more than once, how many signatures it got: each
is a compilation of the function and of what it inlines. Run it with an empty cache (as
above), or it reports what the cache already holds as not compiled. ``--out`` writes
every compilation (function, argument types, inclusive, exclusive and LLVM seconds) as
JSON. docs/BENCHMARKS.md ("Compile time") reads it.
"""

from __future__ import annotations

import argparse
import collections
import json
import time


def profile() -> dict:
    """Run the job under the recorders; the compilations, CPU seconds and signatures.

    Each compilation gets its inclusive seconds (the callees it compiled on the way
    included), its exclusive seconds (without them) and the seconds of numba's LLVM lock
    taken while it was the innermost compilation (optimising and emitting its code)."""
    t0 = time.process_time()
    from numba.core import event

    from burako_env.frontends.warmup import _job_tournament

    with event.install_recorder("numba:compile") as compiles_seen:
        with event.install_recorder("numba:llvm_lock") as llvm_seen:
            _job_tournament()  # warmup's job for the heuristic tournament
    cpu = time.process_time() - t0
    timeline = sorted(
        [(stamp, 1, ev) for stamp, ev in compiles_seen.buffer]
        + [(stamp, 0, ev) for stamp, ev in llvm_seen.buffer],
        key=lambda item: item[0],
    )
    stack: list[dict] = []  # the open compilations, innermost last
    llvm_start = None
    compiles = []
    for stamp, is_compile, ev in timeline:
        if not is_compile:
            if ev.is_start:
                llvm_start = stamp
            elif llvm_start is not None:
                if stack:
                    stack[-1]["llvm_seconds"] += stamp - llvm_start
                llvm_start = None
            continue
        if ev.is_start:
            func = ev.data["dispatcher"].py_func
            stack.append(
                {
                    "function": f"{func.__module__}.{func.__qualname__}",
                    "args": str(ev.data["args"]),
                    "start": stamp,
                    "children": 0.0,
                    "llvm_seconds": 0.0,
                }
            )
        elif stack:
            c = stack.pop()
            seconds = stamp - c.pop("start")
            c["seconds"] = seconds
            c["exclusive_seconds"] = seconds - c.pop("children")
            if stack:
                stack[-1]["children"] += seconds
            compiles.append(c)
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
    print("the largest by exclusive seconds (exclusive, of it LLVM, inclusive):")
    for c in sorted(res["compiles"], key=lambda c: -c["exclusive_seconds"])[:12]:
        print(
            f"  {c['exclusive_seconds']:6.1f} {c['llvm_seconds']:6.1f} {c['seconds']:6.1f}  "
            f"{c['function']}"
        )
    if args.out:
        with open(args.out, "w", encoding="utf-8") as f:
            json.dump(res, f, indent=1)


if __name__ == "__main__":
    main()
