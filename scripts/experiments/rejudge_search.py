"""Re-judge ``ppo_search``'s closest settings with AIVAT (issue 55, item 4).

    .venv/bin/python scripts/experiments/rejudge_search.py play uniform --out runs/rejudge
    .venv/bin/python scripts/experiments/rejudge_search.py play infer8 --out runs/rejudge
    .venv/bin/python scripts/experiments/rejudge_search.py play seat1 --out runs/rejudge
    .venv/bin/python scripts/experiments/rejudge_search.py report --out runs/rejudge

``play`` runs one setting against the shipped policy (``ppo``) for ``--hands`` hands on
the deals of ``--seed`` (the same deals for every setting, so the settings compare in
pairs) with ``estimator="aivat"`` and the shipped value file, and keeps each pair of
hands' plain margin, win score and correction, and the process's CPU seconds, in
``SETTING.npz``. ``report`` prints, for each setting, the plain and corrected win rate
and margin against ``ppo`` with their 95% intervals, the variance ratios, the CPU of the
hands and of the corrections, and each setting's difference from ``uniform`` on the
same deals, plain and corrected.

A finished experiment (scripts/README.md): its result is recorded in
docs/experiments/2026-12-06-aivat.md ("Re-judging the past").
"""

from __future__ import annotations

import argparse
import math
import resource
import time
from pathlib import Path

import numpy as np

from burako_env.agents.aivat import shipped_value
from burako_env.agents.tournament import run_tournament

BASE = "ppo_search:k=16,prior=0.02,rollout=policy,objective=win,budget_ms=0"
#: the settings of the record's closest verdicts (docs/experiments/2026-12-05-strategy-results.md)
SETTINGS = {
    "uniform": BASE,
    "infer8": BASE + ",infer=8",
    "seat1": BASE + ",infer=4,infer_power=1,infer_seats=1",
}


def play(setting: str, hands: int, seed: int, out: Path) -> None:
    """Play one setting against ``ppo`` and keep its pairs in ``out/SETTING.npz``."""
    value = shipped_value("argentine", 4)
    start = time.time()
    result = run_tournament(
        [SETTINGS[setting], "ppo"], hands_per_pairing=hands, seed=seed, workers=1,
        progress=False, estimator="aivat", value=value,
    )  # fmt: skip
    cpu = resource.getrusage(resource.RUSAGE_SELF)
    e = result.pairings[0].estimate
    out.mkdir(parents=True, exist_ok=True)
    np.savez(
        out / f"{setting}.npz", pair_margin=e.pair_margin, pair_win=e.pair_win,
        pair_correction=e.pair_correction, margin_scale=value.margin_scale,
        win_scale=value.win_scale, cpu=cpu.ru_utime + cpu.ru_stime, wall=time.time() - start,
        correction_seconds=e.seconds, draws=e.draws,
    )  # fmt: skip
    print(setting, e.text(1.96))


def _mean_ci(x: np.ndarray) -> str:
    half = 1.96 * x.std(ddof=1) / math.sqrt(len(x))
    return f"{x.mean():+.3f} ±{half:.3f}" if abs(x.mean()) < 2 else f"{x.mean():+.1f} ±{half:.1f}"


def report(out: Path) -> None:
    """Print each setting's plain and corrected outcomes and differences from uniform."""
    runs = {s: np.load(out / f"{s}.npz") for s in SETTINGS if (out / f"{s}.npz").is_file()}
    corrected = {}
    for s, r in runs.items():
        w, m, c = r["pair_win"], r["pair_margin"], r["pair_correction"]
        cw, cm = w - float(r["win_scale"]) * c, m - float(r["margin_scale"]) * c
        corrected[s] = (w, cw, m, cm)
        print(
            f"{s}: {len(w)} pairs; win {_mean_ci(w)} plain, {_mean_ci(cw)} corrected "
            f"(variance /{w.var() / cw.var():.2f}); margin {_mean_ci(m)} plain, "
            f"{_mean_ci(cm)} corrected (/{m.var() / cm.var():.2f}); CPU {float(r['cpu']):.0f} s, "
            f"corrections {float(r['correction_seconds']):.1f} s"
        )
    if "uniform" in corrected:
        uw, ucw, um, ucm = corrected["uniform"]
        for s, (w, cw, m, cm) in corrected.items():
            if s == "uniform":
                continue
            dw, dcw = w - uw, cw - ucw
            print(
                f"{s} - uniform, the same deals: win {_mean_ci(dw)} plain, {_mean_ci(dcw)} "
                f"corrected (variance /{dw.var() / dcw.var():.2f}); margin "
                f"{_mean_ci(m - um)} plain, {_mean_ci(cm - ucm)} corrected"
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("what", choices=("play", "report"))
    parser.add_argument("setting", nargs="?", choices=tuple(SETTINGS))
    parser.add_argument("--hands", type=int, default=400)
    parser.add_argument("--seed", type=int, default=3000)
    parser.add_argument("--out", type=Path, default=Path("runs/rejudge"))
    args = parser.parse_args()
    if args.what == "play":
        if args.setting is None:
            parser.error("play needs a setting")
        play(args.setting, args.hands, args.seed, args.out)
    else:
        report(args.out)


if __name__ == "__main__":
    main()
