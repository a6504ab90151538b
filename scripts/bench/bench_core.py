"""Benchmark the numba core: random legal play, batch sizes 1, 64, 1024 on 1 and 2 threads.

.venv/bin/python scripts/bench/bench_core.py [--variant argentine] [--players 4] [--compile]
"""

from __future__ import annotations

import argparse

from burako_env.frontends.bench import compile_seconds, core_table, format_rows, machine


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--variant", default="argentine")
    ap.add_argument("--players", type=int, default=None)
    ap.add_argument("--min-games", type=int, default=2000)
    ap.add_argument("--compile", action="store_true", help="also time a cold compile")
    args = ap.parse_args()
    print(machine())
    if args.compile:
        print(f"cold compile: {compile_seconds():.1f} s")
    print(format_rows(core_table(args.variant, args.players, min_games=args.min_games)))


if __name__ == "__main__":
    main()
