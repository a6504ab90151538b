"""Overlay the evaluation curves of training runs: win rate against env steps.

    .venv/bin/python scripts/experiments/plot_eval_overlay.py --out docs/img/overlay.png \\
        --run "fast=runs/fast-arg/eval.jsonl" \\
        --points "run F=0:0.520,3276800:0.555,13107200:0.590" --opponent discard_table

``--run LABEL=PATH``: a run's ``eval.jsonl`` (every evaluation of ``burako train``);
``--points LABEL=STEP:RATE,...``: a run known only from the figures recorded in the
docs (its folder gone). One panel per ``--opponent`` (repeatable); each run's points
carry their 95% Wilson interval where the file has it.

A finished experiment (scripts/README.md): its result is recorded in
docs/experiments/2026-12-05-training-throughput.md.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path


def read_run(path: Path, opponent: str) -> tuple[list[float], list[float], list[tuple]]:
    steps, rates, bars = [], [], []
    for line in path.read_text().splitlines():
        if not line.strip():
            continue
        row = json.loads(line)
        if opponent in row:
            r = row[opponent]
            steps.append(row["global_step"] / 1e6)
            rates.append(r["win_rate"])
            bars.append((r["win_rate"] - r["ci_low"], r["ci_high"] - r["win_rate"]))
    return steps, rates, bars


def parse_points(text: str) -> tuple[str, dict[str, list[tuple[float, float]]]]:
    """``LABEL=STEP:RATE,...`` (optionally ``OPPONENT@STEP:RATE``) -> label, points."""
    label, _, rest = text.partition("=")
    points: dict[str, list[tuple[float, float]]] = {}
    for item in rest.split(","):
        opponent, _, pair = item.rpartition("@")
        step, _, rate = pair.partition(":")
        points.setdefault(opponent, []).append((float(step) / 1e6, float(rate)))
    return label, points


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--run", action="append", default=[], help="LABEL=path/to/eval.jsonl")
    ap.add_argument("--points", action="append", default=[], help="LABEL=[OPP@]STEP:RATE,...")
    ap.add_argument("--opponent", action="append", default=[], help="a panel per opponent")
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    opponents = args.opponent or ["discard_table"]
    fig, axes = plt.subplots(1, len(opponents), figsize=(5.5 * len(opponents), 4), squeeze=False)
    for ax, opponent in zip(axes[0], opponents, strict=True):
        for spec in args.run:
            label, _, path = spec.partition("=")
            steps, rates, bars = read_run(Path(path), opponent)
            ax.errorbar(
                steps, rates, yerr=list(zip(*bars, strict=True)) if bars else None,
                marker="o", capsize=3, label=label,
            )  # fmt: skip
        for spec in args.points:
            label, points = parse_points(spec)
            pts = points.get(opponent) or points.get("", [])
            if pts:
                ax.plot(*zip(*pts, strict=True), marker="s", linestyle="--", label=label)
        ax.set_title(f"against {opponent} (400 hands, argmax)")
        ax.set_xlabel("env steps (millions)")
        ax.set_ylabel("win rate")
        ax.grid(alpha=0.3)
        ax.legend()
    fig.tight_layout()
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(args.out, dpi=90)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
