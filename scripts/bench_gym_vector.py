"""Benchmark Gymnasium's vector API over the batched core against the project's own
VectorEnv and against Gymnasium's AsyncVectorEnv of the single env.

    .venv/bin/python scripts/bench_gym_vector.py [--seconds 5] [--variant argentine]
        [--players 4] [--batch 1024] [--threads 2] [--async-envs 2] [--opponents random]

Four rows, random legal play on every seat in each (so the hands are alike):

* ``vector``: :class:`~burako_env.envs.vector.VectorEnv`, every game one decision per
  step whoever is to act, the actions drawn from the masks in Python
  (:func:`burako_env.frontends.bench.bench_vector`, ``picker="mask"``);
* ``gym-vector``: ``gymnasium.make_vec("burako_env:Burako-v1", vectorization_mode=
  "vector_entry_point")``, the learner's actions drawn from ``info["action_mask"]`` the
  same way, the opponents compiled (:func:`~burako_env.frontends.bench.bench_gym_vector`),
  with its default ``copy=True`` (fresh arrays at each step) and with ``copy=False`` (the
  env's own buffers, as VectorEnv hands out);
* ``gym-async``: ``gymnasium.vector.AsyncVectorEnv`` of ``--async-envs`` single envs
  (:func:`~burako_env.frontends.bench.bench_gym_async`).

A ``vector`` step is a decision of any seat, a ``gym-*`` step one of the learner's (the
opponents' decisions until its next one included): episodes/s compares the three. The
functions document what each measures; this script only parses its arguments.
"""

from __future__ import annotations

import argparse
import datetime

from burako_env.frontends.bench import (
    bench_gym_async,
    bench_gym_vector,
    bench_vector,
    format_env_rows,
    machine,
)


def main(argv: list[str] | None = None) -> list[dict]:
    ap = argparse.ArgumentParser(description="Benchmark the Gymnasium vector API.")
    ap.add_argument("--seconds", type=float, default=5.0)
    ap.add_argument("--variant", default="argentine")
    ap.add_argument("--players", type=int, default=None)
    ap.add_argument("--batch", type=int, default=1024)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--async-envs", type=int, default=2)
    ap.add_argument("--opponents", default="random")
    args = ap.parse_args(argv)
    rows = [
        bench_vector(
            args.batch, args.seconds, args.variant, args.players, args.threads, picker="mask"
        ),
        bench_gym_vector(
            args.batch, args.seconds, args.variant, args.players, args.threads, args.opponents
        ),
        bench_gym_vector(
            args.batch,
            args.seconds,
            args.variant,
            args.players,
            args.threads,
            args.opponents,
            copy=False,
        ),
        bench_gym_async(args.async_envs, args.seconds, args.variant, args.players, args.opponents),
    ]
    print(f"{machine()}, {datetime.date.today()}")
    print(format_env_rows(rows))
    return rows


if __name__ == "__main__":
    main()
