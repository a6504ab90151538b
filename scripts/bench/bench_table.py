"""The table's side-by-side benchmark (docs/experiments/2026-12-06-the-table.md): the tree
before the table (OLD) and after (NEW), alternating, a fresh process each, medians.
Usage: python scripts/bench/bench_table.py ROUNDS [tournament ppo gymvec train]; OLD and NEW are
the folders of TREES below (or $BENCH_OLD, $BENCH_NEW), each with its own .venv (a git
worktree of the older commit)."""

import json
import os
import statistics
import subprocess
import sys

TREES = {
    "old": os.environ.get("BENCH_OLD", "/work/wt/old"),
    "new": os.environ.get("BENCH_NEW", "/work/main"),
}
CFG = {"old": "default", "new": "hinted"}  # the same recipe under its two names
SNIP = r"""
import json, sys, time
sys.path[:0] = ["scripts/bench", "scripts"]  # bench_agents: this layout, then a tree before it
job = sys.argv[1]
if job == "tournament":
    from bench_agents import bench_tournament
    r = bench_tournament(hands=4000, workers=2, repeats=2)
    print("RESULT", json.dumps({"v": r["hands_per_second"]}))
elif job == "ppo":
    from burako_env.agents.tournament import run_tournament
    run_tournament(["ppo", "discard_table"], hands_per_pairing=8, workers=2, progress=False)
    t = time.perf_counter()
    kw = dict(hands_per_pairing=400, workers=2, progress=False, seed=1)
    res = run_tournament(["ppo", "discard_table"], **kw)
    print("RESULT", json.dumps({"v": res.pairings[0].hands / (time.perf_counter() - t)}))
elif job == "gymvec":
    from burako_env.frontends.bench import bench_gym_vector
    bench_gym_vector(num_envs=1024, seconds=1, threads=2, opponents="greedy")
    r = bench_gym_vector(num_envs=1024, seconds=4, threads=2, opponents="greedy")
    print("RESULT", json.dumps({"v": r["steps_per_s"]}))
elif job == "train":
    from burako_env.frontends.bench import bench_train
    r = bench_train(sys.argv[2], rounds=3)
    print("RESULT", json.dumps({"v": r}))
"""


def run(tree, job):
    args = [f"{TREES[tree]}/.venv/bin/python", "-c", SNIP, job] + (
        [CFG[tree]] if job == "train" else []
    )
    out = subprocess.run(args, cwd=TREES[tree], capture_output=True, text=True)
    for line in out.stdout.splitlines():
        if line.startswith("RESULT "):
            return json.loads(line[7:])["v"]
    raise SystemExit(f"{tree} {job} failed:\n{out.stderr[-2000:]}")


rounds = int(sys.argv[1])
jobs = sys.argv[2:] or ["tournament", "ppo", "gymvec"]
res = {j: {"old": [], "new": []} for j in jobs}
for _ in range(rounds):
    for j in jobs:
        for t in ("old", "new"):
            res[j][t].append(run(t, j))
            print(j, t, res[j][t][-1], flush=True)
for j in jobs:
    if isinstance(res[j]["old"][0], (int, float)):
        o, n = statistics.median(res[j]["old"]), statistics.median(res[j]["new"])
        print(f"{j}: old {o:,.0f} new {n:,.0f} ratio {n / o:.3f}")
    else:
        print(j, json.dumps(res[j])[:3000])
