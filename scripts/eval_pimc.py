"""Evaluate a pimc agent against opponents: the rows of docs/STRATEGIES.md.

    .venv/bin/python scripts/eval_pimc.py --agent pimc:budget_ms=0 \
        --opponents random greedy discard_table ppo --hands 2000 --seed 2026 --out pimc.json

Each opponent plays ``--hands`` hands against the agent in a tournament pairing (the same
deals twice, seats swapped), one thread. Prints, per opponent, the agent's W-L-T, win
rate with its 95% Wilson interval, the mean margin, and the agent's decisions per second
and milliseconds per decision (all decisions, and those it searched). The kernels are
compiled (or loaded) before the clock starts. An opponent that cannot be built (say a
``ppo`` policy trained for another engine) is reported and skipped.
"""

from __future__ import annotations

import argparse
import json
import time

from agents import make_agent
from agents.tournament import run_tournament
from burako_env.core.game import Game


def evaluate(agent_name: str, opponent: str, hands: int, seed: int, variant: str, players: int):
    agent = make_agent(agent_name, seed=seed)
    other = make_agent(opponent, seed=seed + 1)
    warm = Game(variant, num_players=players, seed=1)
    agent.act_game(warm)  # compile or load the search kernels before timing
    agent.reset_stats()
    agent.seed(seed)
    t0 = time.perf_counter()
    res = run_tournament(
        [agent, other],
        variant,
        num_players=players,
        hands_per_pairing=hands,
        seed=seed,
        workers=1,
        progress=False,
    )
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


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--agent", default="pimc:budget_ms=0")
    ap.add_argument("--opponents", nargs="+", default=["random", "greedy", "discard_table", "ppo"])
    ap.add_argument("--hands", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--variant", default="argentine")
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--out", default=None, help="write the rows as JSON here")
    args = ap.parse_args()
    rows = []
    for opponent in args.opponents:
        try:
            row = evaluate(args.agent, opponent, args.hands, args.seed, args.variant, args.players)
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
