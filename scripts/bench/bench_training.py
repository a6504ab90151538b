"""Benchmark PPO training throughput (env steps per second, policy inference included).

    .venv/bin/python scripts/bench/bench_training.py [--config hinted]
        [--num-envs 1024] [--rounds 3] [--set key=value ...]

The measuring is :func:`burako_env.frontends.bench.bench_train` (``burako bench --api
train``, which prints its whole table); this script runs it twice. Figures, each the median
over ``rounds`` iterations after one warm-up iteration:

* ``rollout_selfplay``: every decision made by the learner's network (sampling over the
  legal actions), the env stepping all games in lockstep: the env + inference path;
* ``rollout_league``: the config's league mix (some seats played by the compiled
  heuristics or a frozen snapshot);
* ``update``: the PPO update with the league mix (env steps of the rollout divided by the
  update's time);
* ``train``: the whole PPO iteration with the league mix: rollout, GAE and the update
  epochs (env steps of the rollout divided by the iteration's time);
* ``engine_share``: the fraction of the league-mix iteration spent inside the game engine
  (the table: the games and the compiled heuristic opponents).

``--update-threads 1 2 --busy 1`` adds the PPO update's seconds for each
``update_threads``, on an idle machine and with ``busy`` other processes each keeping a
core busy (a spinning loop), as a shared machine does: torch's threads wait for each
other at every operation, so a thread that loses its core stalls the others
(:func:`bench_update_threads`).
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

#: the self-play rollout: every seat played by the learner's network
SELF_PLAY = ["league.self_play=1.0", "league.snapshots=0.0", "league.heuristics={}"]


def bench_training(
    config: str | Path = "hinted",
    overrides: list[str] | None = None,
    num_envs: int | None = None,
    rounds: int = 3,
) -> dict:
    """Training throughput in env steps per second (see the module doc); ``league`` holds
    :func:`~burako_env.frontends.bench.bench_train`'s whole result for the league mix."""
    from burako_env.frontends.bench import bench_train

    overrides = list(overrides or [])
    selfplay = bench_train(config, overrides + SELF_PLAY, num_envs, rounds)
    league = bench_train(config, overrides, num_envs, rounds)
    return {
        "rollout_selfplay": selfplay["rollout_steps_per_s"],
        "rollout_league": league["rollout_steps_per_s"],
        "update": league["update_steps_per_s"],
        "train": league["iteration_steps_per_s"],
        "engine_share": league["engine_share"],
        "num_envs": league["num_envs"],
        "num_steps": league["num_steps"],
        "torch_threads": league["torch_threads"],
        "update_threads": league["update_threads"],
        "numba_threads": league["numba_threads"],
        "league": league,
    }


def _spin() -> None:
    while True:
        pass


def bench_update_threads(
    config: str | Path = "hinted",
    overrides: list[str] | None = None,
    threads: tuple[int, ...] = (1, 2),
    busy: int = 1,
    rounds: int = 1,
) -> dict:
    """Median seconds of one PPO update for each ``update_threads`` in ``threads``, with
    0 and ``busy`` spinning processes beside it: ``{"update_seconds": {(threads, busy):
    seconds}}``."""
    import multiprocessing

    from burako_env.training.config import load_config
    from burako_env.training.ppo import Trainer

    out: dict = {"update_seconds": {}}
    with tempfile.TemporaryDirectory() as tmp:
        for n in threads:
            cfg = load_config(config, list(overrides or []) + [f"update_threads={n}"])
            trainer = Trainer(cfg, Path(tmp))
            trainer.update = 1
            trainer.collect()
            trainer.learn()  # warm-up
            for load in sorted({0, busy}):
                spinners = [multiprocessing.Process(target=_spin, daemon=True) for _ in range(load)]
                for proc in spinners:
                    proc.start()
                try:
                    times = []
                    for _ in range(rounds):
                        trainer.collect()
                        t0 = time.perf_counter()
                        trainer.learn()
                        times.append(time.perf_counter() - t0)
                finally:
                    for proc in spinners:
                        proc.terminate()
                        proc.join()
                out["update_seconds"][(n, load)] = statistics.median(times)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--config", default="hinted")
    ap.add_argument("--num-envs", type=int, default=None)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--set", dest="overrides", action="append", default=[])
    ap.add_argument("--update-threads", type=int, nargs="*", default=[])
    ap.add_argument("--busy", type=int, default=1)
    args = ap.parse_args()
    from burako_env.frontends.bench import machine

    print(machine())
    res = bench_training(args.config, args.overrides, args.num_envs, args.rounds)
    print(
        f"{res['num_envs']} games x {res['num_steps']} steps per rollout, torch threads "
        f"{res['torch_threads']} (update: {res['update_threads']}), numba threads "
        f"{res['numba_threads']}"
    )
    rows = (
        ("rollout, self-play (all decisions by the network)", res["rollout_selfplay"]),
        ("rollout, league mix", res["rollout_league"]),
        ("PPO update, league mix", res["update"]),
        ("training iteration (rollout + GAE + PPO update)", res["train"]),
    )
    for label, value in rows:
        print(f"{label + ':':<52} {value:>9,.0f} env steps/s")
    print(f"{'game engine, share of the iteration:':<52} {res['engine_share']:>9.1%}")
    if args.update_threads:
        upd = bench_update_threads(
            args.config, args.overrides, tuple(args.update_threads), args.busy, args.rounds
        )["update_seconds"]
        for (n, load), seconds in sorted(upd.items()):
            label = f"PPO update, update_threads {n}, {load} busy process(es)"
            print(f"{label + ':':<52} {seconds:>9.2f} s")


if __name__ == "__main__":
    main()
