"""Benchmark the environment adapters: the PettingZoo AEC env and the batched VectorEnv.

    .venv/bin/python scripts/bench/bench_envs.py [--seconds 3] [--variant argentine] [--players 4]
        [--batch 1024] [--threads 2]

The same as ``burako bench --api aec|vector``. The functions live in
:mod:`burako_env.frontends.bench` (:func:`bench_aec`, :func:`bench_vector`, :func:`pick_from_mask`),
which documents what each one measures; this script only parses its arguments.
"""

from __future__ import annotations

import argparse

import numba

from burako_env.frontends.bench import bench_aec, bench_vector, format_env_rows, pick_from_mask

format_rows = format_env_rows

__all__ = ["bench_aec", "bench_vector", "format_rows", "main", "pick_from_mask"]


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description="Benchmark the AEC and vector environments.")
    ap.add_argument("--api", choices=("aec", "vector", "all"), default="all")
    ap.add_argument("--seconds", type=float, default=3.0)
    ap.add_argument("--variant", default="argentine")
    ap.add_argument("--players", type=int, default=None)
    ap.add_argument("--batch", type=int, nargs="+", default=[1024])
    ap.add_argument("--threads", type=int, nargs="+", default=[numba.get_num_threads()])
    args = ap.parse_args(argv)
    rows = []
    if args.api in ("aec", "all"):
        rows.append(bench_aec(args.seconds, args.variant, args.players))
        rows.append(bench_aec(args.seconds, args.variant, args.players, wrapped=False))
    if args.api in ("vector", "all"):
        for t in args.threads:
            for b in args.batch:
                for picker in ("legal", "mask"):
                    rows.append(
                        bench_vector(b, args.seconds, args.variant, args.players, t, picker)
                    )
    print(format_rows(rows))


if __name__ == "__main__":
    main()
