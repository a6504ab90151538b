"""Compare the core's speed of two source trees in one alternating run.

    .venv/bin/python scripts/bench/bench_alternate.py OLD_TREE NEW_TREE [--rounds 5]

Each round runs ``bench_core`` (random legal play of whole hands inside one compiled
kernel; ``--job tournament``: a greedy against discard_table tournament pairing, whole
hands inside the tournament's kernel, ``scripts/bench/bench_agents.py``; ``--job aec``: random
legal play through the wrapped PettingZoo env, one game; ``--job vector``: ``VectorEnv``
of ``--batch`` games stepped with random legal actions; ``--job train``: whole PPO
iterations of ``--config`` (``bench_train``), env steps/s; ``--job ppo``: the shipped
policy against discard_table in a tournament, hands/s, beside greedy against
discard_table in the same process) in a fresh process for the first tree, then for the
second, with that tree first on ``PYTHONPATH`` (a git worktree of an older commit, say).
Alternating and taking the median of each side keeps the machine's noise out of the
ratio (docs/BENCHMARKS.md). Each tree compiles into its own numba cache before the
rounds begin.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

SNIPPET = """
import json, sys
from burako_env.frontends.bench import bench_core
r = bench_core({variant!r}, {players}, batch_size={batch}, threads={threads},
               min_games={games}, seed={seed})
print("RESULT " + json.dumps(r))
"""

TOURNAMENT_SNIPPET = """
import json, sys
sys.path[:0] = ["scripts/bench", "scripts"]  # bench_agents: this layout, then a tree before it
from bench_agents import bench_tournament
r = bench_tournament({variant!r}, {players}, hands={games}, workers={threads}, repeats=1,
                     seed={seed})
r["games_per_s"] = r["hands_per_second"]
r["steps_per_s"] = float("nan")  # the tournament does not count its steps
r["steps_per_game"] = float("nan")
print("RESULT " + json.dumps(r))
"""


ENV_SNIPPET = """
import json
from burako_env.frontends.bench import bench_aec, bench_vector
if {job!r} == "aec":
    r = bench_aec(seconds={games} / 1000, variant={variant!r}, num_players={players},
                  seed={seed})
else:
    r = bench_vector(num_envs={batch}, seconds={games} / 1000, variant={variant!r},
                     num_players={players}, threads={threads}, seed={seed})
# env steps, not hands: the columns keep their names
r["games_per_s"] = r["steps_per_s"]
r["steps_per_game"] = 1.0
print("RESULT " + json.dumps(r))
"""
TRAIN_SNIPPET = """
import json
from burako_env.frontends.bench import bench_train
r = bench_train({config!r}, {overrides!r}, rounds=3)
r["games_per_s"] = r["iteration_steps_per_s"]  # env steps/s of whole iterations
r["steps_per_s"] = r["update_steps_per_s"]
r["steps_per_game"] = r["rollout_steps_per_s"]
print("RESULT " + json.dumps(r, default=str))
"""

PPO_SNIPPET = """
import json, time
import torch
from burako_env.agents import make_agent
from burako_env.agents.tournament import run_tournament
torch.set_num_threads(1)
def rate(name, hands):
    t = time.perf_counter()
    run_tournament([make_agent(name), "discard_table"], {variant!r}, num_players={players},
                   hands_per_pairing=hands, seed={seed}, workers={threads}, progress=False)
    return hands / (time.perf_counter() - t)
rate("ppo", 64)
ppo, greedy = rate("ppo", {games}), rate("greedy", {games})
r = {{"games_per_s": ppo, "steps_per_s": greedy, "steps_per_game": ppo / greedy}}
print("RESULT " + json.dumps(r))
"""
SNIPPETS = {"core": SNIPPET, "tournament": TOURNAMENT_SNIPPET, "aec": ENV_SNIPPET,
            "vector": ENV_SNIPPET, "train": TRAIN_SNIPPET, "ppo": PPO_SNIPPET}  # fmt: skip


def run(tree: Path, args: argparse.Namespace) -> dict:
    env = dict(os.environ, PYTHONPATH=str(tree))
    snippet = SNIPPETS[args.job]
    code = snippet.format(
        variant=args.variant, players=args.players, batch=args.batch, threads=args.threads,
        games=args.games, seed=args.seed, job=args.job, config=args.config,
        overrides=args.overrides,
    )  # fmt: skip
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, cwd=tree, capture_output=True, text=True, check=True
    ).stdout
    line = next(x for x in out.splitlines() if x.startswith("RESULT "))
    return json.loads(line[len("RESULT ") :])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("trees", nargs=2, type=Path, help="the two source trees (old, new)")
    ap.add_argument("--variant", default="argentine")
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument(
        "--games", type=int, default=4000,
        help="games per measurement (aec, vector: milliseconds of stepping)",
    )  # fmt: skip
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--config", default="argentine", help="train: the training config")
    ap.add_argument(
        "--set", dest="overrides", action="append", default=[],
        help="train: a config override for both trees (repeatable)",
    )  # fmt: skip
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument(
        "--job", choices=sorted(SNIPPETS), default="core",
        help="core: bench_core's random playout; tournament: greedy vs discard_table; "
        "aec: the PettingZoo env; vector: VectorEnv (their figures are env steps/s)",
    )  # fmt: skip
    args = ap.parse_args()
    trees = [t.resolve() for t in args.trees]
    warm = {"games": 64}
    if args.job == "train":  # a small run compiles every kernel an iteration calls
        warm["overrides"] = args.overrides + ["env.num_envs=16", "ppo.num_steps=4"]
    for t in trees:  # compile (or load) each tree's kernels outside the measured rounds
        run(t, argparse.Namespace(**{**vars(args), **warm}))
    unit = "env steps/s" if args.job in ("aec", "vector", "train") else "hands/s"
    hands: list[list[float]] = [[], []]
    steps: list[list[float]] = [[], []]
    per_hand = [0.0, 0.0]
    for k in range(args.rounds):
        for i, t in enumerate(trees):
            r = run(t, args)
            hands[i].append(r["games_per_s"])
            steps[i].append(r["steps_per_s"])
            per_hand[i] = r["steps_per_game"]
            extra = {
                "core": f", {r['steps_per_s']:,.0f} steps/s",
                "train": f" (rollout {r['steps_per_game']:,.0f}, update {r['steps_per_s']:,.0f})",
                "ppo": f" (greedy {r['steps_per_s']:,.0f}, ratio {r['steps_per_game']:.2f})",
            }.get(args.job, "")
            print(f"round {k + 1} {t.name}: {r['games_per_s']:,.0f} {unit}{extra}", flush=True)
    h = [statistics.median(r) for r in hands]
    s = [statistics.median(r) for r in steps]
    setting = {
        "core": f"batch {args.batch}, ", "tournament": "greedy vs discard_table, ",
        "aec": "the wrapped AEC env, ", "vector": f"VectorEnv of {args.batch}, ",
        "train": f"config {args.config} {' '.join(args.overrides)}, ",
        "ppo": "ppo vs discard_table beside greedy vs discard_table, ",
    }[args.job]  # fmt: skip
    lines = [
        f"{args.job}: {args.variant} {args.players}p, {setting}{args.threads} threads, "
        f"{args.games} {'ms' if unit == 'env steps/s' else 'hands'} x {args.rounds} rounds "
        "(medians):"
    ]
    for i, t in enumerate(trees):
        extra = {
            "core": f", {s[i]:,.0f} steps/s, {per_hand[i]:.1f} steps/hand",
            "train": f" (update {s[i]:,.0f} env steps/s)",
            "ppo": f" (greedy {s[i]:,.0f} hands/s)",
        }.get(args.job, "")
        lines.append(f"  {t.name}: {h[i]:,.0f} {unit}{extra}")
    lines.append(f"  ratio new/old: {unit} {h[1] / h[0]:.3f}")
    if args.job == "core":
        lines[-1] += f", steps/s {s[1] / s[0]:.3f}"
    print("\n".join(lines))


if __name__ == "__main__":
    main()
