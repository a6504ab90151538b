"""Sequential stopping for tournaments: a pairing plays until the evidence decides
between "no better than ``p0``" and "better by ``p1``", instead of a fixed number of
hands (docs/EVALUATION.md, "Sequential stopping").

    from burako_env.agents.tournament import run_tournament
    res = run_tournament(["discard_table", "greedy"], hands_per_pairing=4000,
                         until_decided=(0.50, 0.55))
    res.pairings[0].sequential.decision      # "H1": discard_table scores 0.55 or more

The test is Wald's sequential probability ratio test in its generalized form (GSPRT), on
the pentanomial model of chess engine testing (fishtest, Michel Van den Bergh's
formulas): the tournament plays each deal twice with the seats swapped, and such a pair
of hands is one observation, agent a's score over its two hands (a win 1, a tie 1/2, a
loss 0) on the scale of one hand: 0, 1/4, 1/2, 3/4 or 1 (:data:`PAIR_SCORES`). The pair
is the unit because its two hands are not independent (the same cards, the luck of the
deal cancelling); pairs are, as each deal is drawn on its own.

The hypotheses are about the expected score per hand of agent a against agent b (its win
rate, ties half): H0 ``score = p0`` against H1 ``score = p1``. :func:`llr` is the
generalized log-likelihood ratio: the maximum likelihood of the observed pentanomial
counts among the distributions on the five pair scores with expectation ``p1``, over the
same with expectation ``p0`` (each maximum from a one-dimensional secular equation,
:func:`constrained_mle`). The test stops once the ratio leaves Wald's bounds
(:func:`wald_bounds`): H1 is accepted at ``log((1 - beta) / alpha)`` or above, H0 at
``log(beta / (1 - alpha))`` or below. As for Wald's SPRT, whose likelihood ratio is a
martingale under H0, the chance of accepting H1 when the score is ``p0`` is at most about
``alpha`` and that of accepting H0 at ``p1`` about ``beta``, and any score below ``p0``
(above ``p1``) makes the wrong verdict rarer still; ``tests/agents/test_sequential.py`` checks
both on simulated pentanomial outcomes, with the looks the tournament takes.

With AIVAT's corrected outcomes (``run_tournament(estimator="aivat")``) a pair's score
is a real number, not one of the five: the test is then the GSPRT of a normal model, the
variance estimated from the pairs (:func:`normal_llr`, ``Verdict(model="normal")``,
:meth:`Verdict.add_scores`), with the same bounds.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

#: a pair's score for agent a on the scale of one hand: (first hand + second hand) / 2,
#: from two losses (0) to two wins (1); ties count half
PAIR_SCORES = np.array([0.0, 0.25, 0.5, 0.75, 1.0])
#: what an outcome never seen counts in the likelihood (fishtest's regularisation): the
#: maximum likelihood under an expectation outside the seen scores stays finite
UNSEEN_COUNT = 1e-3
#: the default error rates: accepting H1 at ``p0`` (alpha) and H0 at ``p1`` (beta)
DEFAULT_ALPHA = 0.05
DEFAULT_BETA = 0.05
#: the verdicts of :class:`Verdict`
DECISIONS = ("H0", "H1", "undecided")
#: the models of the pairs' scores a :class:`Verdict` tests on
MODELS = ("pentanomial", "normal")
#: bisection steps of the secular equation: its bracket (at most 1 / (p (1 - p)) wide)
#: halves each step, to below float precision after these
_BISECTIONS = 80


def check_test(p0: float, p1: float, alpha: float, beta: float) -> tuple[float, float]:
    """``(p0, p1)`` as floats once they and the error rates make a test, else a
    ValueError saying what is wrong: scores with ``0 < p0 < p1 < 1``, error rates in
    (0, 1) with ``alpha + beta < 1`` (else the bounds leave no room to go on)."""
    for name, value in (("p0", p0), ("p1", p1), ("alpha", alpha), ("beta", beta)):
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ValueError(f"{name} must be a number, got {value!r}")
        if not math.isfinite(value) or not 0.0 < value < 1.0:
            raise ValueError(f"{name} must lie strictly between 0 and 1, got {value!r}")
    if not p0 < p1:
        raise ValueError(
            f"the scores must be P0,P1 with P0 < P1 (H0: score <= P0, H1: score >= P1), "
            f"got {p0},{p1}"
        )
    if alpha + beta >= 1.0:
        raise ValueError(f"alpha + beta must be below 1, got {alpha} + {beta}")
    return float(p0), float(p1)


def parse_scores(text: str) -> tuple[float, float]:
    """``"P0,P1"`` (the CLI's ``--until-decided``) as two floats, or a ValueError that
    shows the expected form; the values themselves are checked by :func:`check_test`."""
    parts = [part.strip() for part in str(text).split(",")]
    try:
        if len(parts) != 2:
            raise ValueError
        return float(parts[0]), float(parts[1])
    except ValueError:
        raise ValueError(
            f"give two win rates P0,P1 with P0 < P1 (e.g. 0.50,0.55), got {text!r}"
        ) from None


def wald_bounds(alpha: float, beta: float) -> tuple[float, float]:
    """Wald's bounds on the log-likelihood ratio: ``(log(beta / (1 - alpha)),
    log((1 - beta) / alpha))``; at the lower H0 is accepted, at the upper H1."""
    return math.log(beta / (1.0 - alpha)), math.log((1.0 - beta) / alpha)


def pair_counts(winner_side: np.ndarray, deals: int) -> np.ndarray:
    """The pentanomial counts (int64 [5]: pairs scoring 0, 1/4, 1/2, 3/4, 1 for agent a)
    of a tournament chunk's games: ``winner_side`` [2 * deals], the winning side of each
    game (0 agent a, 1 agent b, -1 a tie), deal ``k`` played at ``k`` and, seats
    swapped, at ``deals + k``."""
    side = np.asarray(winner_side)
    if side.shape != (2 * deals,):
        raise ValueError(f"expected the {2 * deals} games of {deals} deals, got {side.shape}")
    # a hand's score for a, in half points: 2 a win, 1 a tie, 0 a loss
    halves = np.where(side == 0, 2, np.where(side < 0, 1, 0))
    return np.bincount(halves[:deals] + halves[deals:], minlength=5).astype(np.int64)


def constrained_mle(freq: np.ndarray, score: float) -> np.ndarray:
    """The distribution on :data:`PAIR_SCORES` of expectation ``score`` nearest (in
    likelihood) the observed frequencies ``freq`` ([..., 5], every entry positive, rows
    summing to 1): ``freq_i / (1 + x (a_i - score))``, ``x`` the root of the secular
    equation ``sum_i freq_i (a_i - score) / (1 + x (a_i - score)) = 0`` (Van den Bergh,
    "Maximum likelihood estimation of a multinomial with a given expectation"), found by
    bisection (the sum decreases in ``x`` from +inf to -inf on the bracket where every
    ``1 + x (a_i - score)`` is positive)."""
    freq = np.asarray(freq, np.float64)
    d = PAIR_SCORES - score  # [5], from -score to 1 - score
    lo = np.full(freq.shape[:-1], -1.0 / (1.0 - score))
    hi = np.full(freq.shape[:-1], 1.0 / score)
    for _ in range(_BISECTIONS):
        mid = 0.5 * (lo + hi)
        positive = (freq * d / (1.0 + mid[..., None] * d)).sum(axis=-1) > 0
        lo = np.where(positive, mid, lo)
        hi = np.where(positive, hi, mid)
    x = 0.5 * (lo + hi)
    return freq / (1.0 + x[..., None] * d)


def normal_llr(n, total, total_sq, p0: float, p1: float):
    """The generalized log-likelihood ratio of H1 (mean ``p1``) against H0 (``p0``) for
    ``n`` real-valued pair scores of sum ``total`` and sum of squares ``total_sq`` under a
    normal model, the variance estimated from the pairs (what fishtest does for its
    normalized tests): ``(p1 - p0) (total - n (p0 + p1) / 2) / var``. For AIVAT's
    corrected scores, which are not confined to the five pentanomial values; 0 with
    fewer than 2 pairs or no spread."""
    n = np.asarray(n, np.float64)
    mean = np.divide(total, n, out=np.zeros_like(n), where=n > 0)
    var = np.divide(total_sq - n * mean**2, n - 1, out=np.zeros_like(n), where=n > 1)
    ok = var > 0
    safe = np.where(ok, var, 1.0)
    return np.where(ok, (p1 - p0) * (total - n * (p0 + p1) / 2) / safe, 0.0)


def llr(counts: np.ndarray, p0: float, p1: float) -> np.ndarray:
    """The generalized log-likelihood ratio of H1 (expected score per hand ``p1``)
    against H0 (``p0``) for pentanomial ``counts`` ([..., 5], see :func:`pair_counts`):
    ``N * sum_i f_i log(q1_i / q0_i)``, with ``N`` pairs, ``f`` their frequencies (an
    unseen outcome counted :data:`UNSEEN_COUNT`) and ``q0``, ``q1`` the likeliest
    distributions of expectation ``p0`` and ``p1`` (:func:`constrained_mle`). 0 for no
    pairs; positive where the pairs' mean score is nearer ``p1``."""
    counts = np.asarray(counts, np.float64)
    n = counts.sum(axis=-1)
    seen = np.where(counts > 0, counts, UNSEEN_COUNT)
    freq = seen / seen.sum(axis=-1, keepdims=True)
    q0, q1 = constrained_mle(freq, p0), constrained_mle(freq, p1)
    return n * (freq * np.log(q1 / q0)).sum(axis=-1)


@dataclass
class Verdict:
    """A sequential test's state and outcome for one pairing: agent ``agent``'s score
    per hand against ``opponent``, H0 ``<= p0`` against H1 ``>= p1``.

    ``decision``: ``"H1"`` (the agent scores ``p1`` or more), ``"H0"`` (no more than
    ``p0``) or ``"undecided"`` (the cap of hands came first). ``llr`` and its bounds
    ``lower`` and ``upper`` (:func:`wald_bounds`) at the last look; ``hands`` played,
    ``pentanomial`` the pairs' counts (scores 0, 1/4, 1/2, 3/4, 1 per hand)."""

    #: whose score is tested
    agent: str
    #: against whom
    opponent: str
    #: H0: the score per hand is at most this
    p0: float
    #: H1: the score per hand is at least this
    p1: float
    #: the false-H1 rate promised
    alpha: float = DEFAULT_ALPHA
    #: the false-H0 rate promised
    beta: float = DEFAULT_BETA
    #: ``H0``, ``H1`` or ``undecided`` (the cap reached)
    decision: str = "undecided"
    #: the log-likelihood ratio at the stop
    llr: float = 0.0
    #: the bound under which H0 is accepted
    lower: float = 0.0
    #: the bound over which H1 is accepted
    upper: float = 0.0
    #: the hands played
    hands: int = 0
    #: how many deal pairs scored 0, 1/4, 1/2, 3/4 and 1
    pentanomial: list[int] = field(default_factory=lambda: [0] * 5)
    #: ``pentanomial`` (the pairs' five scores), or ``normal`` (real-valued pair scores,
    #: AIVAT's corrected ones: :meth:`add_scores`)
    model: str = "pentanomial"
    #: with the normal model: the pairs, their scores' sum and sum of squares
    moments: list[float] = field(default_factory=lambda: [0.0, 0.0, 0.0])

    def __post_init__(self) -> None:
        check_test(self.p0, self.p1, self.alpha, self.beta)
        if self.model not in MODELS:
            raise ValueError(f"model must be one of {MODELS}, got {self.model!r}")
        self.lower, self.upper = wald_bounds(self.alpha, self.beta)

    @property
    def decided(self) -> bool:
        """Whether the test accepted a hypothesis (not stopped at the cap)."""
        return self.decision != "undecided"

    def add(self, counts: np.ndarray) -> str:
        """Add a look's pentanomial counts (:func:`pair_counts`) and decide: the
        ``decision`` once the log-likelihood ratio reaches a bound. A decided test takes
        no more pairs (a ValueError): its verdict is final."""
        self._check_open("pentanomial")
        total = np.asarray(self.pentanomial, np.int64) + np.asarray(counts, np.int64)
        self.pentanomial = [int(c) for c in total]
        self.hands = 2 * int(total.sum())
        return self._decide(float(llr(total, self.p0, self.p1)))

    def add_scores(self, scores: np.ndarray) -> str:
        """Add a look's real-valued pair scores (AIVAT's corrected shares of the pair's
        hands won, on the scale of one hand) and decide, under the normal model
        (:func:`normal_llr`); the pentanomial counts of the same pairs go on counting
        through :meth:`add_pentanomial`."""
        self._check_open("normal")
        x = np.asarray(scores, np.float64)
        n, total, total_sq = self.moments
        self.moments = [n + x.size, total + float(x.sum()), total_sq + float((x * x).sum())]
        self.hands = 2 * int(self.moments[0])
        return self._decide(float(normal_llr(*self.moments, self.p0, self.p1)))

    def add_pentanomial(self, counts: np.ndarray) -> None:
        """Count a look's plain pairs too (shown beside a normal-model test's verdict)."""
        total = np.asarray(self.pentanomial, np.int64) + np.asarray(counts, np.int64)
        self.pentanomial = [int(c) for c in total]

    def _check_open(self, model: str) -> None:
        if self.model != model:
            raise ValueError(f"this test reads {self.model} pairs, not {model} ones")
        if self.decided:
            raise ValueError(f"{self.agent} vs {self.opponent} is decided ({self.decision})")

    def _decide(self, ratio: float) -> str:
        self.llr = ratio
        if self.llr >= self.upper:
            self.decision = "H1"
        elif self.llr <= self.lower:
            self.decision = "H0"
        return self.decision

    def text(self) -> str:
        """One line: the verdict, the hands it took and the ratio against its bounds."""
        what = {
            "H1": f"H1 accepted: {self.agent} scores >= {self.p1:g} against {self.opponent}",
            "H0": f"H0 accepted: {self.agent} scores <= {self.p0:g} against {self.opponent}",
            "undecided": f"undecided at the cap: {self.agent} vs {self.opponent} between "
            f"{self.p0:g} and {self.p1:g}",
        }[self.decision]
        on = "" if self.model == "pentanomial" else "AIVAT-corrected pairs, "
        return (
            f"{what} ({on}{self.hands} hands; LLR {self.llr:+.2f} in "
            f"[{self.lower:.2f}, {self.upper:.2f}], alpha {self.alpha:g}, beta {self.beta:g})"
        )


__all__ = [
    "PAIR_SCORES",
    "UNSEEN_COUNT",
    "DEFAULT_ALPHA",
    "DEFAULT_BETA",
    "DECISIONS",
    "MODELS",
    "check_test",
    "parse_scores",
    "wald_bounds",
    "pair_counts",
    "constrained_mle",
    "llr",
    "normal_llr",
    "Verdict",
]
