"""Benchmark PPO training throughput (env steps per second, policy inference included).

    .venv/bin/python scripts/bench_training.py [--config configs/train/default.yaml]
        [--num-envs 1024] [--rounds 3] [--set key=value ...]

Three figures, each the median over ``rounds`` rollouts after one warm-up rollout:

* ``rollout_selfplay``: every decision made by the learner's network (sampling over the
  legal actions), the env stepping all games in lockstep: the env + inference path;
* ``rollout_league``: the config's league mix (some seats played by the compiled
  heuristics or frozen snapshots);
* ``train``: the whole PPO iteration with the league mix: rollout, GAE and the update
  epochs (env steps of the rollout divided by the iteration's time).
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path


def bench_training(
    config: str | Path = "configs/train/default.yaml",
    overrides: list[str] | None = None,
    num_envs: int | None = None,
    rounds: int = 3,
) -> dict:
    """Training throughput in env steps per second (see the module doc)."""
    import numba

    from training.config import load_config
    from training.ppo import Trainer

    overrides = list(overrides or [])
    if num_envs is not None:
        overrides.append(f"env.num_envs={num_envs}")
    out: dict = {}
    with tempfile.TemporaryDirectory() as tmp:
        for label, extra in (
            (
                "rollout_selfplay",
                ["league.self_play=1.0", "league.snapshots=0.0", "league.heuristics={}"],
            ),
            ("rollout_league", []),
        ):
            cfg = load_config(config, overrides + extra)
            trainer = Trainer(cfg, Path(tmp))
            trainer.update = 1
            trainer.collect()  # warm-up: compiles, fills caches
            trainer.learn()
            times, train_times = [], []
            for _ in range(rounds):
                t0 = time.perf_counter()
                trainer.collect()
                t1 = time.perf_counter()
                trainer.learn()
                t2 = time.perf_counter()
                times.append(t1 - t0)
                train_times.append(t2 - t0)
            steps = cfg.rollout_steps
            out[label] = steps / statistics.median(times)
            if label == "rollout_league":
                out["train"] = steps / statistics.median(train_times)
        out.update(
            num_envs=cfg.env.num_envs,
            num_steps=cfg.ppo.num_steps,
            torch_threads=cfg.torch_threads,
            update_threads=cfg.update_threads,
            numba_threads=numba.get_num_threads(),
        )
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--config", default="configs/train/default.yaml")
    ap.add_argument("--num-envs", type=int, default=None)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--set", dest="overrides", action="append", default=[])
    args = ap.parse_args()
    from burako_env.bench import machine

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
        ("training iteration (rollout + PPO update)", res["train"]),
    )
    for label, value in rows:
        print(f"{label + ':':<52} {value:>9,.0f} env steps/s")


if __name__ == "__main__":
    main()
