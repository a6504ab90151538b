"""Evaluate a pimc agent against opponents: the rows of docs/STRATEGIES.md.

    .venv/bin/python scripts/tools/eval_pimc.py --agent pimc:budget_ms=0 \
        --opponents random greedy discard_table ppo --hands 2000 --seed 2026 --out pimc.json

Each opponent plays ``--hands`` hands against the agent in a tournament pairing (the same
deals twice, seats swapped), one thread. Prints, per opponent, the agent's W-L-T, win
rate with its 95% Wilson interval, the mean margin, and the agent's decisions per second
and milliseconds per decision (all decisions, and those it searched). The kernels are
compiled (or loaded) before the clock starts, by one deal of the pairing played first.
An opponent that cannot be built (say a ``ppo`` policy trained for another engine) is
reported and skipped.

A long evaluation can be cut into chunks that survive an interruption:

    .venv/bin/python scripts/tools/eval_pimc.py --opponents discard_table --hands 2000 \
        --chunk 200 --log pimc-chunks.jsonl

plays 200-hand pairings on seeds ``seed, seed + 1, ...`` and appends each finished chunk
to the log; run the same command again and it plays only the chunks the log lacks. The
printed row pools the chunks (W-L-T summed, the margin's standard error from the chunks'
own). ``--report`` plays nothing: it prints one markdown row per agent and opponent in the
log, every chunk of theirs pooled (docs/STRATEGIES.md's table; the log of its evaluation
is ``docs/results/pimc-chunks.jsonl``).
"""

from __future__ import annotations

import argparse
import functools
import json
import math
import os
import time

from burako_env.agents import make_agent
from burako_env.agents.tournament import run_tournament
from burako_env.agents.tournament_results import Z95, wilson
from burako_env.table import needs_game


def evaluate(agent_name: str, opponent: str, hands: int, seed: int, variant: str, players: int):
    agent = make_agent(agent_name, seed=seed)
    other = make_agent(opponent, seed=seed + 1)
    pairing = functools.partial(
        run_tournament, [agent, other], variant, num_players=players, seed=seed, workers=1,
        progress=False,
    )  # fmt: skip
    # One deal played twice through the timed path compiles (or loads) every kernel that
    # the pairing calls, the opponent's too, so that no compile lands in the timed hands
    # on an empty cache (warming the search alone left the tournament's own kernels out).
    pairing(hands_per_pairing=2)
    agent.reset_stats()
    agent.seed(seed)
    other.seed(seed + 1)
    t0 = time.perf_counter()
    res = pairing(hands_per_pairing=hands)
    wall = time.perf_counter() - t0
    p = res.pairings[0]
    s = agent.stats()
    return {
        "agent": agent.name,
        "opponent": other.name,
        "hands": p.hands,
        "wins": p.wins,
        "losses": p.losses,
        "ties": p.ties,
        "win_rate": p.win_rate,
        "ci": [p.ci_low, p.ci_high],
        "margin": p.mean_margin,
        "margin_ci95": 1.959963984540054 * p.margin_se,
        "decisions": s["decisions"],
        "searched": s["searched"],
        "deviations": s["deviations"],
        "budget_hits": s["budget_hits"],
        "ms_per_decision": s["ms_per_decision"],
        "ms_per_searched": s["ms_per_searched"],
        "cpu_ms_per_decision": s["cpu_ms_per_decision"],
        "max_ms": s["max_ms"],
        "decisions_per_s": s["decisions"] / max(s["seconds"], 1e-9),
        "wall_s": wall,
    }


def pool(rows: list[dict]) -> dict:
    """One row from chunks of the same agent and opponent (counts summed, times pooled)."""
    n = sum(r["hands"] for r in rows)
    wins = sum(r["wins"] for r in rows)
    ties = sum(r["ties"] for r in rows)
    margin = sum(r["margin"] * r["hands"] for r in rows) / n
    # the pooled mean's variance from each chunk's: Var = sum (n_i se_i)^2 / n^2
    se = math.sqrt(sum((r["hands"] * r["margin_ci95"] / Z95) ** 2 for r in rows)) / n
    decisions = sum(r["decisions"] for r in rows)
    searched = sum(r["searched"] for r in rows)
    seconds = sum(r["decisions"] / max(r["decisions_per_s"], 1e-9) for r in rows)
    row = dict(rows[0])
    row.update(
        hands=n,
        wins=wins,
        losses=sum(r["losses"] for r in rows),
        ties=ties,
        win_rate=(wins + 0.5 * ties) / n,
        ci=list(wilson(wins + 0.5 * ties, n)),
        margin=margin,
        margin_ci95=Z95 * se,
        decisions=decisions,
        searched=searched,
        deviations=sum(r["deviations"] for r in rows),
        budget_hits=sum(r["budget_hits"] for r in rows),
        ms_per_decision=1000.0 * seconds / max(decisions, 1),
        ms_per_searched=sum(r["ms_per_searched"] * r["searched"] for r in rows) / max(searched, 1),
        cpu_ms_per_decision=sum(r["cpu_ms_per_decision"] * r["decisions"] for r in rows)
        / max(decisions, 1),
        max_ms=max(r["max_ms"] for r in rows),
        decisions_per_s=decisions / max(seconds, 1e-9),
        wall_s=sum(r["wall_s"] for r in rows),
        chunks=len(rows),
    )
    return row


def evaluate_chunked(args, opponent: str) -> dict:
    """Play ``args.hands`` in chunks, appending each to ``args.log``; resume from it."""
    done: dict[int, dict] = {}
    if os.path.exists(args.log):
        key = (args.agent, opponent, args.variant, args.players)
        done = {r["seed"]: r for r in read_log(args.log).get(key, [])}
    chunks = math.ceil(args.hands / args.chunk)
    for i in range(chunks):
        seed = args.seed + i
        if seed in done:
            continue
        size = min(args.chunk, args.hands - i * args.chunk)
        row = evaluate(args.agent, opponent, size, seed, args.variant, args.players)
        row.update(
            agent_spec=args.agent,
            opponent_spec=opponent,
            variant=args.variant,
            players=args.players,
            seed=seed,
        )
        with open(args.log, "a", encoding="utf-8") as f:
            f.write(json.dumps(row) + "\n")
        done[seed] = row
        print(f"  chunk {i + 1}/{chunks} (seed {seed}): {row['win_rate']:.3f}", flush=True)
    return pool([done[args.seed + i] for i in range(chunks)])


def read_log(path: str) -> dict[tuple, list[dict]]:
    """The log's chunks by (agent, opponent, variant, players), in the order played."""
    runs: dict[tuple, list[dict]] = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.strip():
                r = json.loads(line)
                key = (r["agent_spec"], r["opponent_spec"], r["variant"], r["players"])
                runs.setdefault(key, []).append(r)
    return runs


def report(path: str) -> str:
    """Markdown rows of every pairing in the log, its chunks pooled."""
    lines = [
        "| agent | opponent | hands | W-L-T | win rate | 95% CI | margin | CPU ms / decision |",
        "| --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for (agent, opponent, variant, players), rows in read_log(path).items():
        r = pool(rows)
        lo, hi = r["ci"]
        lines.append(
            f"| `{agent}` | {opponent} ({variant} {players}p) | {r['hands']:,} | "
            f"{r['wins']}-{r['losses']}-{r['ties']} | {r['win_rate']:.3f} | "
            f"[{lo:.3f}, {hi:.3f}] | {r['margin']:+.1f} ± {r['margin_ci95']:.1f} | "
            f"{r['cpu_ms_per_decision']:.1f} |"
        )
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--agent", default="pimc:budget_ms=0")
    ap.add_argument("--opponents", nargs="+", default=["random", "greedy", "discard_table", "ppo"])
    ap.add_argument("--hands", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--variant", default="argentine")
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--out", default=None, help="write the rows as JSON here")
    ap.add_argument("--chunk", type=int, default=0, help="hands per chunk (0: one pairing)")
    ap.add_argument("--log", default="pimc-chunks.jsonl", help="the chunks' log (with --chunk)")
    ap.add_argument(
        "--report", action="store_true", help="print the log's pooled rows and play nothing"
    )
    args = ap.parse_args()
    if args.report:
        if not os.path.isfile(args.log):
            ap.error(f"--report: no log at {args.log} (name it with --log)")
        print(report(args.log))
        return
    if args.chunk < 0 or args.hands < 1:
        ap.error("--hands must be at least 1 and --chunk at least 0")
    try:
        searcher = make_agent(args.agent)
    except (ValueError, OSError) as exc:
        ap.error(f"--agent: {exc}")
    if not needs_game(searcher):
        # the rows report the agent's search counts, which only a search agent keeps
        ap.error(
            f"--agent must be a search agent (pimc, ppo_search, ...), got {args.agent!r}: "
            f"to measure it against one, give the search as --agent and {args.agent!r} "
            "as --opponents"
        )
    rows = []
    for opponent in args.opponents:
        try:
            if args.chunk:
                row = evaluate_chunked(args, opponent)
            else:
                row = evaluate(
                    args.agent, opponent, args.hands, args.seed, args.variant, args.players
                )
        except (ValueError, OSError) as exc:
            print(f"{opponent}: skipped ({exc})", flush=True)
            continue
        rows.append(row)
        lo, hi = row["ci"]
        print(
            f"{row['agent']} vs {opponent}: {row['wins']}-{row['losses']}-{row['ties']} "
            f"win rate {row['win_rate']:.3f} [{lo:.3f}, {hi:.3f}], margin "
            f"{row['margin']:+.1f} ± {row['margin_ci95']:.1f}; {row['decisions_per_s']:.1f} "
            f"decisions/s, {row['ms_per_decision']:.1f} ms/decision "
            f"({row['ms_per_searched']:.1f} searched, max {row['max_ms']:.0f}; CPU "
            f"{row['cpu_ms_per_decision']:.1f} ms/decision)",
            flush=True,
        )
    if args.out:
        with open(args.out, "w", encoding="utf-8") as f:
            json.dump(rows, f, indent=2)


if __name__ == "__main__":
    main()
