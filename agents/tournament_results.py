"""A tournament's results: the pairings' tables (:class:`PairingResult`,
:class:`TournamentResult`: text, CSV, JSON and a heatmap), the Wilson interval of a win
rate (:func:`wilson`) and the agents' ratings on the Elo scale, the Bradley-Terry fit of
every pairing's counts (:func:`bradley_terry`). A pairing stopped by a sequential test
carries its :class:`~burako_env.sequential.Verdict` (``PairingResult.sequential``)."""

from __future__ import annotations

import csv
import json
import math
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from burako_env.agents.aivat import Estimate
    from burako_env.sequential import Verdict

Z95 = 1.959963984540054


def wilson(successes: float, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval of a proportion (successes may be fractional: ties count half);
    (0, 1) when ``n`` is 0: nothing played, nothing known."""
    if n <= 0:
        return 0.0, 1.0
    p = successes / n
    denom = 1 + z * z / n
    center = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return max(0.0, center - half), min(1.0, center + half)


@dataclass
class PairingResult:
    """Agent ``a`` against agent ``b``, from ``a``'s side."""

    a: str
    """The first agent's name: the results are from its side."""
    b: str
    """The second agent's name."""
    hands: int
    """Hands played (each deal twice, the seats swapped)."""
    wins: int
    """Hands ``a``'s team won."""
    losses: int
    """Hands ``b``'s team won."""
    ties: int
    """Hands with equal scores."""
    win_rate: float
    """``a``'s share: (wins + ties / 2) / hands."""
    ci_low: float
    """The win rate's 95% Wilson interval, its lower end (:func:`wilson`)."""
    ci_high: float
    """The win rate's 95% Wilson interval, its upper end."""
    mean_margin: float
    """``a``'s team score minus ``b``'s, per hand."""
    margin_se: float
    """The standard error of ``mean_margin`` (0 for a single hand)."""
    seconds: float = 0.0
    """Its games' wall time, compiling left out."""
    compiled: bool = True
    """Whether every game played inside the compiled kernel (both agents compiled
    policies), not stepped from Python."""
    sequential: Verdict | None = None
    """With ``until_decided``: the sequential test's verdict on ``a``'s score against
    ``b`` as played (the round robin's order; :meth:`TournamentResult.pairing` keeps it
    when it flips a pairing: its ``agent`` names whose score it tests)."""
    decisions: int = 0
    """The actions its games took, every seat's (both sides')."""
    estimate: Estimate | None = None
    """With ``estimator="aivat"``: the plain and corrected margin and win rate
    (:class:`~burako_env.agents.aivat.Estimate`)."""


@dataclass
class TournamentResult:
    """The results of :func:`~burako_env.agents.tournament.run_tournament`: every pairing from its
    first agent's side, the Elo ratings and the run's settings; :meth:`table` prints them,
    :meth:`to_json` and :meth:`to_csv` save them."""

    agents: list[str]
    """The agents' names, in the order given."""
    variant: str
    """The variant's name."""
    num_players: int
    """Players at the table."""
    hands_per_pairing: int
    """Hands of each pairing (even: each deal twice, the seats swapped)."""
    seed: int
    """The seed of the deals (the same seed, the same deals and games)."""
    episode: str
    """``"hand"`` or ``"match"``."""
    pairings: list[PairingResult]
    """Every pairing, from its first agent's side (:meth:`pairing` finds one)."""
    ratings: dict[str, dict[str, float]]
    """Per agent: ``elo``, its standard error ``se`` and ``ordinal`` (Elo less 3 standard
    errors), fitted to every hand (:func:`bradley_terry`)."""
    seconds: float
    """The run's wall time."""
    hands_per_second: float
    """Hands over the wall time less ``compile_seconds``."""
    meta: dict = field(default_factory=dict)
    """How the run was played: ``workers``, the rule ``overrides``, and on Ray what the
    tasks report (``ray_compile_seconds`` among them)."""
    #: seconds this process spent compiling kernels during the run (a cold cache): left
    #: out of ``hands_per_second``. On Ray the tasks' compiles (other processes, at once)
    #: are in the rate; ``meta["ray_compile_seconds"]`` says how long they took
    compile_seconds: float = 0.0

    # ------------------------------------------------------------ views
    def win_matrix(self) -> np.ndarray:
        """[i, j]: win rate of agent i against agent j (NaN on the diagonal)."""
        idx = {a: i for i, a in enumerate(self.agents)}
        m = np.full((len(self.agents), len(self.agents)), np.nan)
        for p in self.pairings:
            m[idx[p.a], idx[p.b]] = p.win_rate
            m[idx[p.b], idx[p.a]] = 1 - p.win_rate
        return m

    def pairing(self, a: str, b: str) -> PairingResult:
        """The result of a against b (flipped if it was played as b against a)."""
        for p in self.pairings:
            if (p.a, p.b) == (a, b):
                return p
            if (p.a, p.b) == (b, a):
                return PairingResult(
                    a,
                    b,
                    p.hands,
                    p.losses,
                    p.wins,
                    p.ties,
                    1 - p.win_rate,
                    1 - p.ci_high,
                    1 - p.ci_low,
                    -p.mean_margin,
                    p.margin_se,
                    p.seconds,
                    p.compiled,
                    p.sequential,
                    p.decisions,
                    None if p.estimate is None else p.estimate.flipped(),
                )
        raise KeyError(f"no pairing {a} vs {b}")

    def rate_text(self) -> str:
        """The hands per second, and what compiling they leave out or include."""
        notes = []
        if self.compile_seconds > 0:
            notes.append(f"{self.compile_seconds:.1f} s of compiling left out")
        on_ray = self.meta.get("ray_compile_seconds", 0.0)
        if on_ray > 0:
            notes.append(f"includes {on_ray:.1f} s of compiling in the Ray tasks")
        note = f" ({'; '.join(notes)})" if notes else ""
        return f"{self.hands_per_second:,.0f} hands/s{note}"

    def verdicts(self) -> list[Verdict]:
        """The sequential tests' verdicts, one per pairing (none without ``until_decided``)."""
        return [p.sequential for p in self.pairings if p.sequential is not None]

    def table(self) -> str:
        """The results as a text table: one line per pairing (hands, wins-losses-ties, win rate with
        its 95% interval, score margin), then the ratings."""
        upto = "up to " if self.verdicts() else ""
        lines = [
            f"{self.variant}, {self.num_players} players, {upto}{self.hands_per_pairing} hands "
            f"per pairing (seats swapped), seed {self.seed}: {self.rate_text()}",
            "",
            f"{'pairing':<34} {'hands':>7} {'W-L-T':>17} {'win rate':>9} {'95% CI':>17} "
            f"{'margin':>14}",
        ]
        for p in self.pairings:
            wlt = f"{p.wins}-{p.losses}-{p.ties}"
            ci = f"[{p.ci_low:.3f}, {p.ci_high:.3f}]"
            half = Z95 * p.margin_se
            lines.append(
                f"{p.a + ' vs ' + p.b:<34} {p.hands:>7} {wlt:>17} {p.win_rate:>9.3f} "
                f"{ci} {p.mean_margin:>+8.1f} ±{half:<5.1f}"
            )
        width = max(20, *(len(n) for n in self.ratings))
        lines += ["", f"{'agent':<{width}} {'elo':>7} {'± 95%':>7} {'ordinal':>8}"]
        for name in sorted(self.ratings, key=lambda n: -self.ratings[n]["ordinal"]):
            r = self.ratings[name]
            lines.append(
                f"{name:<{width}} {r['elo']:>7.1f} {Z95 * r['se']:>7.1f} {r['ordinal']:>8.1f}"
            )
        if self.verdicts():
            lines += ["", "sequential test (docs/EVALUATION.md):"]
            lines += [f"  {v.text()}" for v in self.verdicts()]
        estimated = [(p, p.estimate) for p in self.pairings if p.estimate is not None]
        if estimated:
            e = estimated[0][1]
            lines += [
                "",
                f"AIVAT, draws corrected by {e.value} (sha256 {e.value_sha256[:16]}; "
                "docs/EVALUATION.md), 95% intervals from the pairs of hands:",
            ]
            lines += [f"  {p.a} vs {p.b}: {est.text(Z95)}" for p, est in estimated]
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.table()

    def to_dict(self) -> dict:
        """The results as plain data (lists, dicts, numbers): what :meth:`to_json` writes."""
        return {
            "agents": self.agents,
            "variant": self.variant,
            "num_players": self.num_players,
            "hands_per_pairing": self.hands_per_pairing,
            "seed": self.seed,
            "episode": self.episode,
            "pairings": [_pairing_dict(p) for p in self.pairings],
            "ratings": self.ratings,
            "seconds": self.seconds,
            "hands_per_second": self.hands_per_second,
            "compile_seconds": self.compile_seconds,
            "meta": self.meta,
        }

    def to_json(self, path: str | Path) -> None:
        """Write :meth:`to_dict` to ``path`` as indented JSON."""
        Path(path).write_text(json.dumps(self.to_dict(), indent=2) + "\n", encoding="utf-8")

    def to_csv(self, path: str | Path) -> None:
        """One row per pairing (and the ratings in columns of their own; with a
        sequential test its decision, log-likelihood ratio and bounds)."""
        nested = ("sequential", "estimate")
        cols = [c for c in PairingResult.__dataclass_fields__ if c not in nested]
        if self.verdicts():
            cols += [f"sequential_{k}" for k in _VERDICT_COLUMNS]
        estimated = any(p.estimate is not None for p in self.pairings)
        if estimated:
            cols += [f"aivat_{k}" for k in _ESTIMATE_COLUMNS]
        with open(path, "w", newline="", encoding="utf-8") as f:
            w = csv.writer(f)
            w.writerow(["variant", "num_players", "seed", *cols, "a_elo", "a_se", "b_elo", "b_se"])
            for p in self.pairings:
                d = asdict(p)
                for k in _VERDICT_COLUMNS:
                    d[f"sequential_{k}"] = "" if p.sequential is None else d["sequential"][k]
                if estimated:
                    e = {} if p.estimate is None else p.estimate.to_dict()
                    for k in _ESTIMATE_COLUMNS:
                        d[f"aivat_{k}"] = e.get(k, "")
                ra, rb = self.ratings[p.a], self.ratings[p.b]
                w.writerow(
                    [
                        self.variant,
                        self.num_players,
                        self.seed,
                        *(d[c] for c in cols),
                        ra["elo"],
                        ra["se"],
                        rb["elo"],
                        rb["se"],
                    ]
                )

    def heatmap(self, path: str | Path, title: str | None = None) -> None:
        """A PNG of the win-rate matrix (row agent against column agent)."""
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        m = self.win_matrix()
        n = len(self.agents)
        fig, ax = plt.subplots(figsize=(1.6 + 1.3 * n, 1.2 + 1.1 * n))
        im = ax.imshow(m, vmin=0, vmax=1, cmap="RdBu")
        ax.set_xticks(range(n), self.agents, rotation=30, ha="right")
        ax.set_yticks(range(n), self.agents)
        ci = {}
        for p in self.pairings:
            i, j = self.agents.index(p.a), self.agents.index(p.b)
            ci[i, j] = (p.ci_low, p.ci_high)
            ci[j, i] = (1 - p.ci_high, 1 - p.ci_low)
        for i in range(n):
            for j in range(n):
                if i == j:
                    continue
                lo, hi = ci[i, j]
                color = "white" if abs(m[i, j] - 0.5) > 0.3 else "black"
                ax.text(
                    j,
                    i,
                    f"{m[i, j]:.3f}\n[{lo:.3f}, {hi:.3f}]",
                    ha="center",
                    va="center",
                    fontsize=8,
                    color=color,
                )
        ax.set_xlabel("opponent")
        ax.set_ylabel("agent")
        ax.set_title(
            title
            or f"win rate, {self.variant} {self.num_players}p, "
            f"{self.hands_per_pairing} hands/pairing"
        )
        fig.colorbar(im, ax=ax, fraction=0.046)
        fig.tight_layout()
        fig.savefig(path, dpi=110)
        plt.close(fig)


#: the fields of a sequential test's verdict in the CSV
_VERDICT_COLUMNS = ("decision", "llr", "lower", "upper", "p0", "p1", "alpha", "beta")


#: an AIVAT estimate's fields in the CSV
_ESTIMATE_COLUMNS = (
    "corrected_margin",
    "corrected_margin_se",
    "corrected_win_rate",
    "corrected_win_rate_se",
    "margin_variance_ratio",
    "win_variance_ratio",
    "value",
    "value_sha256",
)


def _pairing_dict(p: PairingResult) -> dict:
    """A pairing as JSON: without ``sequential`` when no test ran and without
    ``estimate`` when no estimator did (the fixed run's keys)."""
    d = asdict(p)
    if p.sequential is None:
        del d["sequential"]
    if p.estimate is None:
        del d["estimate"]
    else:
        d["estimate"] = p.estimate.to_dict()
    return d


#: the Elo scale of the ratings: a lead of ELO_SCALE points is 10 to 1 odds
ELO_SCALE = 400.0
ELO_MEAN = 1500.0
#: each pairing counts one drawn game more (half a win each way): a prior that keeps a
#: side that won every game finite, and is negligible beside a real tournament's hands
PRIOR_DRAWS = 1.0


def bradley_terry(
    names: list[str],
    pairs: list[tuple[int, int]],
    wins: np.ndarray,
    losses: np.ndarray,
    ties: np.ndarray,
) -> dict[str, dict[str, float]]:
    """Ratings on the Elo scale from the pairings' counts: the Bradley-Terry maximum
    likelihood (Hunter 2004's MM iteration), a tie half a win each way, with standard
    errors from the Fisher information (the ratings' mean held at ``ELO_MEAN``).

    Pairing ``pairs[k] = (i, j)`` had ``wins[k]`` games won by i, ``losses[k]`` by j and
    ``ties[k]`` tied. The counts alone decide, not the order of the games: an online
    rating (OpenSkill's, used before) drifts with the last few hundred games, and once
    put greedy above three agents that each beat it in 62% of 4,000 hands. Returns per
    name ``elo``, ``se`` and ``ordinal`` (``elo - 3 se``, the table's order)."""
    n = len(names)
    won = np.zeros((n, n))  # won[i, j]: i's wins over j, ties and the prior half each
    for (i, j), w, lost, t in zip(pairs, wins, losses, ties, strict=True):
        half = 0.5 * (t + PRIOR_DRAWS)
        won[i, j] += w + half
        won[j, i] += lost + half
    games = won + won.T
    strength = np.ones(n)
    for _ in range(100_000):
        denom = (games / (strength[:, None] + strength[None, :])).sum(axis=1)
        new = won.sum(axis=1) / denom
        new /= np.exp(np.log(new).mean())
        done = np.max(np.abs(np.log(new) - np.log(strength))) < 1e-12
        strength = new
        if done:
            break
    theta = np.log(strength)
    q = strength[:, None] / (strength[:, None] + strength[None, :])
    info = games * q * q.T  # the negated Hessian of the log likelihood in theta
    hessian = np.diag(info.sum(axis=1)) - info
    cov = np.linalg.pinv(hessian)  # theta's sum is fixed: the pseudo-inverse
    unit = ELO_SCALE / math.log(10.0)
    elo = ELO_MEAN + unit * (theta - theta.mean())
    se = unit * np.sqrt(np.clip(np.diag(cov), 0.0, None))
    return {
        name: {"elo": float(elo[k]), "se": float(se[k]), "ordinal": float(elo[k] - 3 * se[k])}
        for k, name in enumerate(names)
    }


__all__ = [
    "Z95",
    "wilson",
    "PairingResult",
    "TournamentResult",
    "ELO_SCALE",
    "ELO_MEAN",
    "PRIOR_DRAWS",
    "bradley_terry",
]
