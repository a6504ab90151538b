"""What an afternoon buys: runs' win rates against one opponent over env steps and over
wall-clock minutes, from their own logs.

    .venv/bin/python scripts/experiments/plot_compute_strength.py --run runs/fast-arg \\
        --run runs/oracle-ft@32.0:63 --opponent discard_table \\
        --out docs/img/compute_strength.png \\
        --point "shipped policy, 4,000 hands=32.0:0.616:0.601:0.631"

``--run PATH``: a ``burako train`` run folder (``eval.jsonl`` for the evaluations, the
TensorBoard log for when each one ended; the clock starts when the warm start began), one
curve each; ``PATH@MSTEPS:MINUTES`` draws it after that many million env steps and minutes,
for a run that fine-tunes another's policy (``init_policy``). A run of several schedules
(``fine_tunes``: ``schedule-1``, ``schedule-2``, ... in its folder) is one curve, each
schedule after the env steps of those before it, the clock running from the first's start
(a fine-tune's step-0 evaluation, the last schedule's policy again, is left out). ``--point
LABEL=MSTEPS:RATE:LOW:HIGH``: a measured point known by its env steps only (drawn on the
steps panel). Prints the table it plots.

A finished experiment (scripts/README.md): its result is recorded in
docs/experiments/2026-12-05-levers-against-the-plateau.md.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path


def run_curve(run: Path, opponent: str) -> list[dict]:
    """One row per evaluation: env steps, minutes since the run began, rate, interval."""
    schedules = sorted(run.glob("schedule-*"), key=lambda p: int(p.name.split("-")[1]))
    if schedules and not (run / "eval.jsonl").is_file():
        return chain_curve(schedules, opponent)
    return schedule_curve(run, opponent)


def chain_curve(schedules: list[Path], opponent: str) -> list[dict]:
    """:func:`run_curve` of a run of several schedules (its ``schedule-N`` folders)."""
    from burako_env.training.config import load_config

    rows: list[dict] = []
    steps = 0
    start = None
    for i, folder in enumerate(schedules):
        if not (folder / "eval.jsonl").is_file():
            break  # a schedule not begun yet
        part = schedule_curve(folder, opponent)
        if not part:
            break
        start = part[0]["start"] if start is None else start
        for r in part[1:] if i else part:
            rows.append(
                {
                    **r,
                    "msteps": r["msteps"] + steps / 1e6,
                    "minutes": r["minutes"] + (r["start"] - start) / 60.0,
                }
            )
        cfg = load_config(folder / "config.yaml")
        steps += cfg.num_updates * cfg.rollout_steps
    return rows


def schedule_curve(run: Path, opponent: str) -> list[dict]:
    """:func:`run_curve` of one schedule's run folder (its rows also hold ``start``, the
    wall time the run began)."""
    from burako_env.training.evaluate import read_scalars

    scalars = read_scalars(run)
    tag = f"eval/win_rate_{opponent}"
    if tag not in scalars:
        raise SystemExit(f"{run} has no evaluation against {opponent!r} in its log")
    ended = {step: wall for step, wall, _ in scalars[tag]}
    first = min(wall for _, wall, _ in scalars["charts/learning_rate"])
    warm = sum(v for _, _, v in scalars.get("imitation/seconds", []))
    start = min(min(ended.values()), first) - warm
    rows = []
    for line in (run / "eval.jsonl").read_text().splitlines():
        row = json.loads(line)
        step = row["global_step"]
        if opponent not in row or step not in ended:
            continue
        r = row[opponent]
        rows.append(
            {
                "msteps": step / 1e6,
                "minutes": (ended[step] - start) / 60.0,
                "rate": r["win_rate"],
                "low": r["ci_low"],
                "high": r["ci_high"],
                "hands": r["hands"],
                "start": start,
            }
        )
    return rows


def shifted_curve(spec: str, opponent: str) -> tuple[str, list[dict]]:
    """``(label, rows)`` of ``PATH`` or ``PATH@MSTEPS:MINUTES`` (the rows moved by both)."""
    path, _, shift = spec.partition("@")
    msteps = minutes = 0.0
    if shift:
        try:
            msteps, minutes = (float(v) for v in shift.split(":"))
        except ValueError:
            example = "runs/ft@32.0:63"
            raise SystemExit(f"--run {spec!r}: write PATH@MSTEPS:MINUTES, e.g. {example}") from None
    rows = run_curve(Path(path), opponent)
    for r in rows:
        r["msteps"] += msteps
        r["minutes"] += minutes
    label = Path(path).name + (f" (after {msteps:g} M steps, {minutes:g} min)" if shift else "")
    return label, rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--run", action="append", required=True, help="PATH or PATH@MSTEPS:MINUTES")
    ap.add_argument("--opponent", default="discard_table")
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--point", action="append", default=[], help="LABEL=MSTEPS:RATE:LOW:HIGH")
    args = ap.parse_args()

    curves = [shifted_curve(spec, args.opponent) for spec in args.run]
    for label, rows in curves:
        print(label)
        print(f"{'M env steps':>11} {'minutes':>8} {'win rate':>9}  95% interval  hands")
        for r in rows:
            print(
                f"{r['msteps']:11.1f} {r['minutes']:8.1f} {r['rate']:9.3f}  "
                f"[{r['low']:.3f}, {r['high']:.3f}]  {r['hands']}"
            )

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(10, 3.8), sharey=True)
    for ax, key, label in (
        (axes[0], "msteps", "env steps (millions)"),
        (axes[1], "minutes", "wall-clock minutes on this 2-core machine"),
    ):
        for name, rows in curves:
            xs = [r[key] for r in rows]
            ys = [r["rate"] for r in rows]
            err = [[r["rate"] - r["low"] for r in rows], [r["high"] - r["rate"] for r in rows]]
            ax.errorbar(xs, ys, yerr=err, marker="o", capsize=3, label=name)
        ax.axhline(0.5, color="grey", lw=0.8, ls=":")
        ax.set_xlabel(label)
        ax.grid(alpha=0.3)
    for text in args.point:
        name, _, values = text.partition("=")
        msteps, rate, low, high = (float(v) for v in values.split(":"))
        axes[0].errorbar(
            [msteps],
            [rate],
            yerr=[[rate - low], [high - rate]],
            marker="s",
            capsize=3,
            label=name,
        )
    axes[0].set_ylabel(f"win rate against {args.opponent}")
    axes[0].legend(fontsize=8, loc="lower right")
    fig.suptitle(f"Compute against strength: argentine recipes against {args.opponent}")
    fig.tight_layout()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(args.out, dpi=110)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
