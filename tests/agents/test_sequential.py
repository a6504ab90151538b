"""Sequential stopping (burako_env/sequential.py, ``run_tournament(until_decided=...)``):
the GSPRT's log-likelihood ratio, its error rates and sample sizes on simulated
pentanomial outcomes, and tiny real runs: the verdicts, the fixed run's games up to the
stopping point, the CLI and ``evaluate``."""

from __future__ import annotations

import csv
import json
from statistics import NormalDist

import numpy as np
import pytest
from typer.testing import CliRunner

from burako_env.agents.tournament import SEQUENTIAL_CHUNK_DEALS, run_tournament
from burako_env.evaluation import evaluate
from burako_env.frontends.cli import app
from burako_env.sequential import (
    PAIR_SCORES,
    Verdict,
    check_test,
    constrained_mle,
    llr,
    normal_llr,
    pair_counts,
    parse_scores,
    wald_bounds,
)

runner = CliRunner()
ALPHA = BETA = 0.05
P0, P1 = 0.50, 0.55
#: the tournament's looks: a whole chunk of paired deals each, 4,000 hands at most
LOOK_PAIRS = SEQUENTIAL_CHUNK_DEALS
CAP_PAIRS = 2000
RUNS = 2000
#: three standard errors of a rate of 0.05 over RUNS runs: the Monte Carlo slack
SLACK = 3 * (ALPHA * (1 - ALPHA) / RUNS) ** 0.5
#: pentanomial shapes (pairs scoring 0, 1/4, 1/2, 3/4, 1 per hand): independent hands
#: without ties, deal luck that mostly cancels (split pairs), and some ties
SHAPES = {
    "independent": [1.0, 0.0, 2.0, 0.0, 1.0],
    "cancelling": [1.0, 0.0, 8.0, 0.0, 1.0],
    "ties": [1.0, 0.3, 2.0, 0.3, 1.0],
}


def tilted(shape, score: float) -> np.ndarray:
    """The pentanomial of ``shape`` tilted (``q_i ~ shape_i exp(t a_i)``) to expectation
    ``score`` per hand."""
    base = np.asarray(shape, np.float64)
    lo, hi = -60.0, 60.0
    for _ in range(200):
        t = 0.5 * (lo + hi)
        q = base * np.exp(t * PAIR_SCORES)
        q /= q.sum()
        lo, hi = (t, hi) if q @ PAIR_SCORES < score else (lo, t)
    return q


def simulate(q: np.ndarray, seed: int) -> tuple[float, float, float]:
    """RUNS sequential tests on pairs drawn from ``q``, looked at every LOOK_PAIRS pairs up
    to CAP_PAIRS: the share accepting H1, the share accepting H0, the mean pairs used."""
    rng = np.random.default_rng(seed)
    lower, upper = wald_bounds(ALPHA, BETA)
    counts = np.zeros((RUNS, 5), np.int64)
    decision = np.zeros(RUNS, np.int64)  # 1 H1, -1 H0, 0 not yet
    used = np.full(RUNS, CAP_PAIRS)
    for start in range(0, CAP_PAIRS, LOOK_PAIRS):
        live = np.flatnonzero(decision == 0)
        if len(live) == 0:
            break
        size = min(LOOK_PAIRS, CAP_PAIRS - start)
        counts[live] += rng.multinomial(size, q, size=len(live))
        ratio = llr(counts[live], P0, P1)
        decision[live[ratio >= upper]] = 1
        decision[live[ratio <= lower]] = -1
        used[live[(ratio >= upper) | (ratio <= lower)]] = start + size
    return float((decision == 1).mean()), float((decision == -1).mean()), float(used.mean())


# ------------------------------------------------------------------ the statistic
def test_pair_counts_pair_each_deal_with_its_swapped_replay():
    # 4 deals: a won both, a won one and lost one, a tie and a win, b won both
    side = np.array([0, 0, -1, 1, 0, 1, 0, 1])
    assert pair_counts(side, 4).tolist() == [1, 0, 1, 1, 1]
    with pytest.raises(ValueError, match="8 games of 4 deals"):
        pair_counts(side[:7], 4)


def test_constrained_mle_has_the_asked_expectation_and_stays_near_the_data():
    freq = np.array([0.1, 0.05, 0.5, 0.15, 0.2])
    for score in (0.2, 0.5, freq @ PAIR_SCORES, 0.8):
        q = constrained_mle(freq, score)
        assert q.sum() == pytest.approx(1.0, abs=1e-12)
        assert q @ PAIR_SCORES == pytest.approx(score, abs=1e-12)
        assert (q > 0).all()
    # the data's own expectation asks for no change
    np.testing.assert_allclose(constrained_mle(freq, freq @ PAIR_SCORES), freq, atol=1e-12)


def test_llr_is_the_gsprt_ratio():
    counts = np.array([60, 20, 200, 40, 80])
    n, freq = counts.sum(), counts / counts.sum()
    mean = freq @ PAIR_SCORES
    var = freq @ (PAIR_SCORES - mean) ** 2
    # Van den Bergh's normal approximation of the GSPRT's ratio, close for small steps
    approx = n * (P1 - P0) * (2 * mean - P0 - P1) / (2 * var)
    assert float(llr(counts, P0, P1)) == pytest.approx(approx, rel=0.02)
    # the direct form: the log-likelihood of the counts under q1 over that under q0
    q0, q1 = constrained_mle(freq, P0), constrained_mle(freq, P1)
    direct = (counts * np.log(q1 / q0)).sum()
    assert float(llr(counts, P0, P1)) == pytest.approx(direct, rel=1e-12)
    assert float(llr(counts, P1, P0)) == pytest.approx(-direct, rel=1e-12)
    # batches of counts at once, nothing at 0
    many = llr(np.stack([counts, 2 * counts, np.zeros(5, int)]), P0, P1)
    assert many[1] == pytest.approx(2 * many[0]) and many[2] == 0.0
    # a score never seen stays finite (fishtest's regularisation)
    assert np.isfinite(llr(np.array([0, 0, 0, 0, 30]), P0, P1))


def test_bounds_and_verdicts():
    lower, upper = wald_bounds(0.05, 0.1)
    assert lower == pytest.approx(np.log(0.1 / 0.95)) and upper == pytest.approx(np.log(18.0))
    test = Verdict("a", "b", P0, P1, ALPHA, BETA)
    assert test.decision == "undecided" and not test.decided
    assert test.add([0, 0, 10, 0, 0]) == "undecided"  # a score of 0.5 on 10 pairs: too few
    assert test.add([0, 0, 0, 0, 40]) == "H1" and test.hands == 100
    assert test.pentanomial == [0, 0, 10, 0, 40]
    assert "H1 accepted: a scores >= 0.55 against b (100 hands" in test.text()
    with pytest.raises(ValueError, match="decided"):
        test.add([1, 0, 0, 0, 0])
    assert Verdict("a", "b", P0, P1).add([40, 0, 0, 0, 0]) == "H0"


@pytest.mark.parametrize(
    ("p0", "p1", "alpha", "beta", "message"),
    [
        (0.55, 0.50, ALPHA, BETA, "P0 < P1"),
        (0.5, 0.5, ALPHA, BETA, "P0 < P1"),
        (0.0, 0.55, ALPHA, BETA, "p0 must lie strictly between 0 and 1"),
        (0.5, 1.2, ALPHA, BETA, "p1 must lie strictly between 0 and 1"),
        (0.5, 0.55, 0.0, BETA, "alpha must lie"),
        (0.5, 0.55, 0.6, 0.5, "alpha \\+ beta must be below 1"),
        (0.5, float("nan"), ALPHA, BETA, "p1 must lie"),
        (0.5, "0.55", ALPHA, BETA, "p1 must be a number"),
    ],
)
def test_a_test_that_cannot_be_is_refused(p0, p1, alpha, beta, message):
    with pytest.raises(ValueError, match=message):
        check_test(p0, p1, alpha, beta)


def test_scores_parse_from_the_command_line_form():
    assert parse_scores(" 0.5, 0.55") == (0.5, 0.55)
    for bad in ("0.5", "0.5,0.55,0.6", "a,b", ""):
        with pytest.raises(ValueError, match="two win rates P0,P1"):
            parse_scores(bad)


# ------------------------------------------------------------------ error rates as promised
@pytest.mark.parametrize("shape", list(SHAPES))
def test_error_rates_hold_and_the_test_stops_sooner_than_a_fixed_sample(shape):
    """At p0 H1 is accepted at most alpha of the time, at p1 H0 at most beta (with
    Monte Carlo slack), on the tournament's looks; and the average number of pairs is
    below the fixed sample that a one-sided z test needs for the same error rates."""
    seed = list(SHAPES).index(shape)
    q0, q1 = tilted(SHAPES[shape], P0), tilted(SHAPES[shape], P1)
    false_h1, _, asn0 = simulate(q0, seed=100 + seed)
    _, false_h0, asn1 = simulate(q1, seed=200 + seed)
    assert false_h1 <= ALPHA + SLACK, (shape, false_h1)
    assert false_h0 <= BETA + SLACK, (shape, false_h0)
    # the fixed sample of the same errors, in pairs (the larger variance of the two)
    z = NormalDist().inv_cdf(1 - ALPHA) + NormalDist().inv_cdf(1 - BETA)
    var = max(q @ (PAIR_SCORES - q @ PAIR_SCORES) ** 2 for q in (q0, q1))
    fixed = (z * var**0.5 / (P1 - P0)) ** 2
    assert asn0 < 0.8 * fixed and asn1 < 0.8 * fixed, (shape, asn0, asn1, fixed)


def test_scores_beyond_the_hypotheses_make_wrong_verdicts_rarer():
    q = tilted(SHAPES["independent"], 0.47)  # below p0: H1 is wrong, and rarer than alpha
    false_h1, accept_h0, _ = simulate(q, seed=7)
    assert false_h1 < ALPHA / 2 and accept_h0 > 0.95


def simulate_normal(draw, seed: int) -> tuple[float, float]:
    """RUNS normal-model tests (AIVAT's corrected pairs) on pair scores from ``draw(rng,
    shape)``, with the tournament's looks: the shares accepting H1 and H0."""
    rng = np.random.default_rng(seed)
    lower, upper = wald_bounds(ALPHA, BETA)
    moments = np.zeros((3, RUNS))
    decision = np.zeros(RUNS, np.int64)
    for start in range(0, CAP_PAIRS, LOOK_PAIRS):
        live = np.flatnonzero(decision == 0)
        if len(live) == 0:
            break
        x = draw(rng, (len(live), min(LOOK_PAIRS, CAP_PAIRS - start)))
        moments[0, live] += x.shape[1]
        moments[1, live] += x.sum(1)
        moments[2, live] += (x * x).sum(1)
        ratio = normal_llr(*moments[:, live], P0, P1)
        decision[live[ratio >= upper]] = 1
        decision[live[ratio <= lower]] = -1
    return float((decision == 1).mean()), float((decision == -1).mean())


@pytest.mark.parametrize("noise", ["normal", "pentanomial plus noise"])
def test_the_normal_models_error_rates_hold_on_corrected_scores(noise):
    """Corrected pair scores are real numbers around the pair's share won: at p0 H1 is
    accepted at most alpha of the time, at p1 H0 at most beta (Monte Carlo slack)."""

    def at(score):
        q = tilted(SHAPES["cancelling"], score)

        def draw(rng, shape):
            if noise == "normal":
                return rng.normal(score, 0.25, size=shape)
            base = rng.choice(PAIR_SCORES, size=shape, p=q)
            return base + rng.normal(0.0, 0.1, size=shape)  # a zero-mean correction

        return draw

    false_h1, _ = simulate_normal(at(P0), seed=300)
    _, false_h0 = simulate_normal(at(P1), seed=301)
    assert false_h1 <= ALPHA + SLACK, false_h1
    assert false_h0 <= BETA + SLACK, false_h0


def test_normal_llr_is_the_ratio_of_two_normals_with_the_pairs_variance():
    x = np.array([0.2, 0.9, 0.55, 0.7, 0.4])
    var = x.var(ddof=1)
    expected = ((x - P0) ** 2 - (x - P1) ** 2).sum() / (2 * var)
    got = normal_llr(len(x), x.sum(), (x * x).sum(), P0, P1)
    assert got == pytest.approx(expected)
    assert normal_llr(1, 0.7, 0.49, P0, P1) == 0.0  # one pair: no variance yet
    verdict = Verdict("a", "b", P0, P1, model="normal")
    verdict.add_scores(x)
    assert verdict.hands == 10 and verdict.llr == pytest.approx(expected)
    with pytest.raises(ValueError, match="reads normal pairs, not pentanomial"):
        verdict.add([1, 0, 0, 0, 0])
    with pytest.raises(ValueError, match="model must be one of"):
        Verdict("a", "b", P0, P1, model="bayes")


# ------------------------------------------------------------------ real runs
KW = dict(variant="argentine", num_players=4, seed=5, progress=False, chunk_deals=8)


def _plain(p) -> dict:
    return p.__dict__ | {"seconds": 0.0, "sequential": None}


def test_a_clear_pairing_stops_early_with_the_fixed_runs_result():
    res = run_tournament(["greedy", "random"], hands_per_pairing=400, until_decided=(P0, P1), **KW)
    p = res.pairings[0]
    v = p.sequential
    assert v.decision == "H1" and v.hands == p.hands < 400 and p.hands % 16 == 0
    assert sum(v.pentanomial) == p.hands // 2
    # the pairs' scores are the hands' results
    assert v.pentanomial @ PAIR_SCORES * 2 == pytest.approx(p.wins + 0.5 * p.ties)
    assert v.llr >= v.upper == pytest.approx(np.log(19.0))
    assert res.hands_per_pairing == 400 and "up to 400 hands" in res.table()
    assert "H1 accepted: greedy scores >= 0.55 against random" in res.table()
    fixed = run_tournament(["greedy", "random"], hands_per_pairing=p.hands, **KW)
    assert _plain(fixed.pairings[0]) == _plain(p)
    assert fixed.ratings == res.ratings
    # the other way round: H0
    back = run_tournament(["random", "greedy"], hands_per_pairing=400, until_decided=(P0, P1), **KW)
    assert back.pairings[0].sequential.decision == "H0"


def test_at_the_cap_it_is_the_fixed_run_and_undecided():
    kw = KW | {"hands_per_pairing": 32}
    res = run_tournament(["greedy", "greedy"], until_decided=(0.45, 0.55), **kw)
    p = res.pairings[0]
    assert p.sequential.decision == "undecided" and p.hands == 32
    assert p.sequential.lower < p.sequential.llr < p.sequential.upper
    assert "undecided at the cap" in res.table()
    assert _plain(run_tournament(["greedy", "greedy"], **kw).pairings[0]) == _plain(p)


def test_each_pairing_of_a_round_robin_stops_on_its_own(tmp_path):
    names = ["random", "greedy", "discard_table"]
    res = run_tournament(names, hands_per_pairing=96, until_decided=(P0, P1), **KW)
    hands = {(p.a, p.b): p.hands for p in res.pairings}
    assert [p.sequential.decision for p in res.pairings[:2]] == ["H0", "H0"]
    assert hands["random", "greedy"] < 96 and hands["random", "discard_table"] < 96
    assert hands["greedy", "discard_table"] > hands["random", "greedy"]
    for p in res.pairings:
        assert p.hands == p.sequential.hands and p.sequential.agent == p.a
    # a pairing as the fixed run of its hands (compiled agents: generators of their own)
    alone = run_tournament(["random", "greedy"], hands_per_pairing=hands["random", "greedy"], **KW)
    assert _plain(alone.pairings[0]) == _plain(res.pairings[0])
    assert res.hands_per_second > 0
    res.to_json(tmp_path / "t.json")
    res.to_csv(tmp_path / "t.csv")
    data = json.loads((tmp_path / "t.json").read_text())
    assert data["pairings"][0]["sequential"]["decision"] == "H0"
    rows = list(csv.DictReader((tmp_path / "t.csv").open()))
    assert rows[0]["sequential_decision"] == "H0" and float(rows[0]["sequential_upper"]) > 0
    # a flipped pairing keeps the verdict, which names whose score it tests
    assert res.pairing("greedy", "random").sequential.agent == "random"


def test_without_until_decided_the_outputs_have_no_verdict(tmp_path):
    res = run_tournament(["greedy", "random"], hands_per_pairing=16, **KW)
    assert res.pairings[0].sequential is None and "sequential" not in res.table()
    res.to_json(tmp_path / "t.json")
    res.to_csv(tmp_path / "t.csv")
    assert "sequential" not in (tmp_path / "t.json").read_text()
    assert "sequential" not in (tmp_path / "t.csv").read_text()


def test_bad_tests_are_refused_before_any_game():
    for bad, message in (
        ((0.55, 0.5), "P0 < P1"),
        ((0.5,), "until_decided must be"),
        ("0.5,0.55", "until_decided must be"),
    ):
        with pytest.raises(ValueError, match=message):
            run_tournament(["greedy", "random"], hands_per_pairing=8, until_decided=bad, **KW)
    with pytest.raises(ValueError, match="beta must lie"):
        run_tournament(["greedy", "random"], until_decided=(P0, P1), beta=1.5, **KW)
    with pytest.raises(ValueError, match="chunk_deals must be"):
        run_tournament(["greedy", "random"], **(KW | {"chunk_deals": 0}))


def test_evaluate_until_decided():
    res = evaluate("greedy", ["random"], hands=64, seed=5, until_decided=(P0, P1))
    v = res.pairings[0].sequential
    assert v.decision == "H1" and v.agent == "greedy" and res.pairings[0].hands == 64
    assert res.hands_per_pairing == 64


def test_cli_until_decided():
    ok = runner.invoke(
        app,
        ["tournament", "greedy", "random", "--until-decided", "0.5,0.55", "--hands", "64"]
        + ["--no-progress", "--alpha", "0.05", "--beta", "0.1"],
    )
    assert ok.exit_code == 0, ok.output
    assert "up to 64 hands per pairing" in ok.output
    assert "H1 accepted: greedy scores >= 0.55 against random (64 hands" in ok.output
    assert "beta 0.1" in ok.output
    for args, message in (
        (["--until-decided", "0.55,0.5"], "P0 < P1"),
        (["--until-decided", "half"], "two win rates P0,P1"),
        (["--until-decided", "0.5,0.55", "--alpha", "0"], "--alpha must lie"),
        (["--until-decided", "0.5,0.55", "--beta", "nan"], "--beta must lie"),
        (["--until-decided", "0.5,0.55", "--alpha", "0.6", "--beta", "0.5"], "below 1"),
        (["--alpha", "0.1"], "give it too"),
    ):
        bad = runner.invoke(app, ["tournament", "greedy", "random", "--no-progress", *args])
        assert bad.exit_code == 2 and "error:" in bad.output and message in bad.output, args


def test_until_decided_with_aivat_tests_the_corrected_pairs():
    res = run_tournament(
        ["greedy", "random"], hands_per_pairing=400, until_decided=(P0, P1), estimator="aivat",
        **KW,
    )  # fmt: skip
    p = res.pairings[0]
    v = p.sequential
    assert v.model == "normal" and v.decision == "H1"
    assert p.hands < 400 and v.hands == p.hands == 2 * p.estimate.pairs
    assert sum(v.pentanomial) == p.hands // 2  # the plain pairs counted beside
    e = p.estimate
    # the test read the corrected pairs, not the plain ones
    from burako_env.agents.aivat import shipped_value

    corrected = e.pair_win - shipped_value("argentine", 4).win_scale * e.pair_correction
    assert v.moments[1] == pytest.approx(corrected.sum())
    assert v.moments[1] != pytest.approx(e.pair_win.sum())
    assert v.llr == pytest.approx(float(normal_llr(*v.moments, P0, P1)))
    assert "AIVAT-corrected pairs" in res.table()
