"""Evaluate a PPO policy against the heuristic agents, and plot a run's learning curves.

    .venv/bin/python -m burako_env.training.evaluate --policy burako_env/data/ppo_argentine_4p.pt \
        --hands 2000 [--sample] [--seed 0] [--opponents random greedy discard_table] \
        [--json out.json]
    (the default opponents add discard_table:cautious and discard_table:thrifty, which no
    training run meets: docs/STRATEGIES.md)
    .venv/bin/python -m burako_env.training.evaluate --plot runs/<run> --out docs/img/curves.png

Evaluation is :func:`burako_env.evaluate` with its defaults: the policy plays its most
likely legal action (``--sample`` samples its distribution), on the deals of seed
:data:`~burako_env.evaluation.EVAL_SEED` (0); every pairing plays the same deals twice
with the seats swapped; the win rate counts ties as half and comes with a 95% Wilson
interval. The results against an opponent are those of ``burako tournament ppo:PATH
OPPONENT`` with the same ``--seed`` and ``--hands``, game for game.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from burako_env.evaluation import EVAL_SEED

#: the heuristics, and two of discard_table's family that no training run plays (its
#: league and warm start name none of them): what tells learning from tuning
DEFAULT_OPPONENTS = (
    "random",
    "greedy",
    "discard_table",
    "discard_table:cautious",
    "discard_table:thrifty",
)


def evaluate_policy(
    policy: str | Path | None = None,
    opponents: tuple[str, ...] = DEFAULT_OPPONENTS,
    hands: int = 2000,
    seed: int = EVAL_SEED,
    greedy: bool = True,
    variant: str | None = None,
    num_players: int | None = None,
) -> dict:
    """Win rate (ties half), 95% Wilson interval and mean margin against each opponent
    (:func:`burako_env.evaluate`), on the table the policy file records (``variant`` /
    ``num_players`` None), or on the one given (a policy of another table is refused,
    naming both); without ``policy``, the shipped policy of that table (default:
    4-player argentine). ``greedy=False`` samples the policy (seeded ``seed``)."""
    from burako_env.agents.ppo_agent import PPOAgent
    from burako_env.evaluation import evaluate

    if policy:
        agent = PPOAgent(policy, greedy=greedy, seed=seed)
    else:
        agent = PPOAgent.pretrained(
            greedy=greedy,
            seed=seed,
            variant="argentine" if variant is None else variant,
            num_players=num_players,
        )
    res = evaluate(
        agent, tuple(opponents), hands=hands, seed=seed, variant=variant, num_players=num_players
    )
    return {
        name: {
            "hands": p.hands,
            "wins": p.wins,
            "losses": p.losses,
            "ties": p.ties,
            "win_rate": p.win_rate,
            "ci_low": p.ci_low,
            "ci_high": p.ci_high,
            "margin": p.mean_margin,
            "margin_ci": 1.959963984540054 * p.margin_se,
            "seconds": p.seconds,
        }
        for name, p in zip(opponents, res.pairings, strict=True)
    }


def read_scalars(run_dir: str | Path) -> dict[str, list[tuple[int, float, float]]]:
    """Every scalar of a run's TensorBoard log: tag -> [(step, wall_time, value)]."""
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    acc = EventAccumulator(str(Path(run_dir) / "tb"), size_guidance={"scalars": 0})
    acc.Reload()
    return {
        t: [(e.step, e.wall_time, e.value) for e in acc.Scalars(t)] for t in acc.Tags()["scalars"]
    }


def plot_run(run_dir: str | Path, out: str | Path) -> None:
    """A PNG of a run's learning curves: evaluation win rates with their intervals, the
    mean hand score and length, the losses, entropy and KL, explained variance, speed."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    s = read_scalars(run_dir)

    def series(tag):
        rows = s.get(tag, [])
        return np.array([r[0] for r in rows]) / 1e6, np.array([r[2] for r in rows])

    def smooth(y, k=9):
        if len(y) < k:
            return y
        pad = np.pad(y, (k // 2, k // 2), mode="edge")
        return np.convolve(pad, np.ones(k) / k, mode="valid")

    fig, axes = plt.subplots(2, 3, figsize=(15, 8))
    ax = axes[0, 0]
    for name, color in (
        ("random", "tab:gray"),
        ("greedy", "tab:blue"),
        ("discard_table", "tab:red"),
    ):
        x, y = series(f"eval/win_rate_{name}")
        if len(x):
            _, lo = series(f"eval/win_rate_{name}_ci_low")
            _, hi = series(f"eval/win_rate_{name}_ci_high")
            ax.plot(x, y, color=color, label=f"vs {name}")
            ax.fill_between(x, lo, hi, color=color, alpha=0.2)
    ax.axhline(0.5, color="k", lw=0.5, ls="--")
    ax.set(title="evaluation win rate (95% Wilson interval)", xlabel="env steps (M)", ylim=(0, 1))
    ax.legend()
    ax = axes[0, 1]
    x, y = series("charts/mean_hand_score")
    ax.plot(x, y, alpha=0.3, color="tab:green")
    ax.plot(x, smooth(y), color="tab:green")
    ax.set(title="learner team's mean hand score (training games)", xlabel="env steps (M)")
    ax = axes[0, 2]
    for tag, color in (
        ("league/rating_learner", "k"),
        ("league/rating_greedy", "tab:blue"),
        ("league/rating_discard_table", "tab:red"),
        ("league/rating_random", "tab:gray"),
    ):
        x, y = series(tag)
        if len(x):
            ax.plot(x, y, color=color, label=tag.split("rating_")[1])
    ax.set(title="league Elo ratings", xlabel="env steps (M)")
    ax.legend()
    ax = axes[1, 0]
    x, y = series("losses/entropy")
    ax.plot(x, smooth(y), color="tab:blue", label="entropy (left)")
    ax.set(title="entropy and losses (smoothed)", xlabel="env steps (M)")
    right = ax.twinx()
    for tag, color in (("losses/value_loss", "tab:orange"), ("losses/policy_loss", "tab:green")):
        x, y = series(tag)
        right.plot(x, smooth(y), color=color, label=tag.split("/")[1] + " (right)")
    lines = ax.get_legend_handles_labels()
    more = right.get_legend_handles_labels()
    ax.legend(lines[0] + more[0], lines[1] + more[1])
    ax = axes[1, 1]
    for tag in ("losses/approx_kl", "losses/clip_fraction", "losses/explained_variance"):
        x, y = series(tag)
        ax.plot(x, smooth(y), label=tag.split("/")[1])
    ax.set(title="approx KL, clip fraction, explained variance", xlabel="env steps (M)")
    ax.legend()
    ax = axes[1, 2]
    x, y = series("charts/steps_per_second")
    ax.plot(x, y / 1000, alpha=0.3, color="tab:purple", label="env steps/s (k)")
    ax.plot(x, smooth(y) / 1000, color="tab:purple")
    x, y = series("charts/mean_hand_length")
    ax.plot(x, smooth(y) / 10, color="tab:orange", label="hand length (10 actions)")
    ax.set(title="speed and hand length", xlabel="env steps (M)")
    ax.legend()
    fig.tight_layout()
    Path(out).parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=90)
    plt.close(fig)


def main() -> None:
    """``python -m burako_env.training.evaluate``: the command line of
    :func:`evaluate_policy` and :func:`plot_run`."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--policy", default=None, help="policy or checkpoint (default: shipped)")
    ap.add_argument("--hands", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=EVAL_SEED, help="the deals' seed (default 0)")
    play = ap.add_mutually_exclusive_group()
    play.add_argument(
        "--greedy",
        dest="greedy",
        action="store_true",
        default=True,
        help="play the most likely legal action (the default)",
    )
    play.add_argument(
        "--sample", dest="greedy", action="store_false", help="sample the policy instead"
    )
    ap.add_argument("--opponents", nargs="+", default=list(DEFAULT_OPPONENTS))
    ap.add_argument("--variant", default=None, help="the table (default: the policy's own)")
    ap.add_argument("--players", type=int, default=None, help="its player count")
    ap.add_argument("--json", default=None, help="write the results here")
    ap.add_argument("--plot", default=None, help="a run folder: plot its curves instead")
    ap.add_argument("--out", default="curves.png")
    args = ap.parse_args()
    if args.plot:
        plot_run(args.plot, args.out)
        print(f"wrote {args.out}")
        return
    try:
        res = evaluate_policy(
            args.policy,
            tuple(args.opponents),
            args.hands,
            args.seed,
            args.greedy,
            args.variant,
            args.players,
        )
    except (ValueError, OSError) as exc:  # a bad policy file, table or opponent name
        ap.error(str(exc))
    for name, r in res.items():
        print(
            f"vs {name:<22} {r['hands']} hands  W-L-T {r['wins']}-{r['losses']}-{r['ties']}  "
            f"win rate {r['win_rate']:.3f} [{r['ci_low']:.3f}, {r['ci_high']:.3f}]  "
            f"margin {r['margin']:+.1f} ±{r['margin_ci']:.1f}  ({r['seconds']:.0f} s)"
        )
    if args.json:
        Path(args.json).write_text(json.dumps(res, indent=2) + "\n")


if __name__ == "__main__":
    main()
