"""Ray figures for docs/SCALING.md: tournaments and simulations locally and on a local Ray
instance of 1 and 2 CPUs (one numba thread per task), the overhead of a task, and the
bytes a training rollout moves.

    .venv/bin/python scripts/bench/bench_ray.py                 # all of it (a few minutes)
    .venv/bin/python scripts/bench/bench_ray.py --hands 2000 --parts tournament

Each figure is the best of ``--repeat`` runs, after a warm-up run that starts the Ray
workers and loads the compiled kernels from the numba cache.
"""

from __future__ import annotations

import argparse
import os
import pickle
import time

import numba

os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")  # local instance: loopback

AGENTS = ["greedy", "discard_table"]


def best(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def tournament_rows(hands: int, repeat: int, task_deals: list[int]) -> None:
    import ray

    from burako_env.agents.tournament import run_tournament
    from burako_env.distributed import ray_session, slices

    kw = dict(variant="argentine", num_players=4, hands_per_pairing=hands, seed=0, progress=False)
    run_tournament(AGENTS, workers=1, **(kw | {"hands_per_pairing": 64}))  # compile / load
    print(f"tournament {' vs '.join(AGENTS)}, {hands} hands, 4-player argentine")
    print(f"{'where':<28} {'task deals':>10} {'tasks':>6} {'seconds':>8} {'hands/s':>9}")
    for threads in (1, 2):
        s = best(lambda t=threads: run_tournament(AGENTS, workers=t, **kw), repeat)
        print(
            f"{'local, ' + str(threads) + ' thread(s)':<28} {'':>10} {'':>6} {s:>8.2f} "
            f"{hands / s:>9,.0f}"
        )
    for cpus in (1, 2):
        with ray_session(num_cpus=cpus):
            run_tournament(AGENTS, ray=True, **(kw | {"hands_per_pairing": 256}), task_deals=8)
            for td in task_deals:
                deals = (hands + 1) // 2
                tasks = sum(len(slices(hi - lo, td)) for lo, hi in slices(deals, 1024))
                s = best(
                    lambda td=td: run_tournament(AGENTS, ray=True, task_deals=td, **kw), repeat
                )
                print(
                    f"{'ray, ' + str(cpus) + ' worker(s)':<28} {td:>10} {tasks:>6} {s:>8.2f} "
                    f"{hands / s:>9,.0f}"
                )
        assert not ray.is_initialized()


def task_overhead(repeat: int) -> None:
    from burako_env.distributed import ray_session

    with ray_session(num_cpus=2) as ray:

        @ray.remote(num_cpus=1)
        def nothing(x):
            return x

        ray.get([nothing.remote(i) for i in range(200)])  # start the workers
        n = 2000
        s = best(lambda: ray.get([nothing.remote(i) for i in range(n)]), repeat)
        print(f"empty tasks, 2 workers: {n / s:,.0f} tasks/s ({1e3 * s / n:.2f} ms a task)")
        s = best(lambda: [ray.get(nothing.remote(i)) for i in range(200)], repeat)
        print(f"empty tasks one after another: {1e3 * s / 200:.2f} ms a round trip")


def simulate_rows(games: int, repeat: int) -> None:
    from burako_env.distributed import ray_session
    from burako_env.frontends.simulate import simulate

    simulate("argentine", 4, games=64)
    old = numba.get_num_threads()
    for threads in (1, 2):
        numba.set_num_threads(threads)
        s = best(lambda: simulate("argentine", 4, games=games), repeat)
        print(f"simulate {games} games locally, {threads} thread(s): {games / s:,.0f} games/s")
    numba.set_num_threads(old)
    for cpus in (1, 2):
        with ray_session(num_cpus=cpus):
            simulate("argentine", 4, games=256, ray=True, chunk=64)
            for chunk in (256, 2048):
                s = best(
                    lambda c=chunk: simulate("argentine", 4, games=games, ray=True, chunk=c), repeat
                )
                print(
                    f"simulate {games} games on ray, {cpus} worker(s), chunk {chunk}: "
                    f"{games / s:,.0f} games/s"
                )


def rollout_bytes() -> None:
    from burako_env.training.config import load_config
    from burako_env.training.distributed import RolloutWorker, weights_of, worker_games

    cfg = load_config("configs/train/hinted.yaml", ["imitation.env_steps=0"])
    games = worker_games(cfg.env.num_envs, cfg.distributed.workers)
    net = _network(cfg)
    worker = RolloutWorker(cfg.to_dict(), 0, games[0], net.spec())
    weights = weights_of(net)
    t0 = time.perf_counter()
    res = worker.rollout(weights)
    seconds = time.perf_counter() - t0
    sizes = {k: len(pickle.dumps(res[k])) for k in ("batch", "state", "stats", "tally")}
    steps = games[0] * cfg.ppo.num_steps
    print(
        f"hinted config, worker 0 of {cfg.distributed.workers}: {games[0]} games x "
        f"{cfg.ppo.num_steps} steps = {steps:,} env steps in {seconds:.1f} s (1 thread); "
        f"{len(res['batch']['counts']):,} transitions sent"
    )
    print(
        f"  bytes: weights in {len(pickle.dumps(weights)):,}; transitions out "
        f"{sizes['batch']:,} ({sizes['batch'] / steps:,.0f} per env step); worker state out "
        f"{sizes['state']:,}; stats and league results {sizes['stats'] + sizes['tally']:,}"
    )


def _network(cfg):
    """The config's network, as the trainer builds it."""
    from burako_env.agents.network import BurakoNet
    from burako_env.envs.vector import VectorEnv

    env = VectorEnv(cfg.env.variant, cfg.env.num_players, num_envs=1)
    n = cfg.network
    return BurakoNet(
        env.num_players,
        env.variant.total_cards,
        n.hidden,
        n.encoder,
        n.meld_dim,
        n.card_features,
        n.hint,
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hands", type=int, default=4000)
    ap.add_argument("--games", type=int, default=8192)
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--task-deals", type=int, nargs="+", default=[8, 32, 128, 512, 2000])
    ap.add_argument("--parts", nargs="+", default=["tournament", "overhead", "simulate", "rollout"])
    args = ap.parse_args()
    from burako_env.frontends.bench import machine

    print(machine())
    if "tournament" in args.parts:
        tournament_rows(args.hands, args.repeat, args.task_deals)
    if "overhead" in args.parts:
        task_overhead(args.repeat)
    if "simulate" in args.parts:
        simulate_rows(args.games, args.repeat)
    if "rollout" in args.parts:
        rollout_bytes()


if __name__ == "__main__":
    main()
