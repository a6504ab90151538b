"""Tournaments: results, determinism, the two game paths, outputs, records, the notebook."""

from __future__ import annotations

import csv
import json
import math
from pathlib import Path
from statistics import NormalDist

import numpy as np
import pytest

from burako_env.agents import make_agent
from burako_env.agents.base import Agent
from burako_env.agents.tournament import run_tournament
from burako_env.agents.tournament_results import (
    ELO_SCALE,
    PRIOR_DRAWS,
    Z95,
    TournamentResult,
    bradley_terry,
    wilson,
)
from burako_env.records import GameRecord, deal_game, read_records, replay, write_records

ROOT = Path(__file__).resolve().parents[2]
NAMES = ["random", "greedy", "discard_table"]


class FirstLegal(Agent):
    """A plain Python agent (no compiled policy): the lowest legal action."""

    name = "first_legal"

    def act(self, obs, mask):
        return np.argmax(np.asarray(mask, bool), axis=1).astype(np.int64)


@pytest.fixture(scope="module")
def small() -> TournamentResult:
    return run_tournament(
        NAMES, "argentine", num_players=4, hands_per_pairing=40, seed=3, progress=False
    )


def test_every_pairing_is_played_with_seats_swapped(small):
    assert small.agents == NAMES
    assert [(p.a, p.b) for p in small.pairings] == [
        ("random", "greedy"),
        ("random", "discard_table"),
        ("greedy", "discard_table"),
    ]
    for p in small.pairings:
        assert p.hands == 40 and p.wins + p.losses + p.ties == 40
        assert p.ci_low <= p.win_rate <= p.ci_high
        assert p.compiled
    assert small.pairing("greedy", "random").win_rate > 0.8
    assert set(small.ratings) == set(NAMES)
    assert small.ratings["greedy"]["elo"] > small.ratings["random"]["elo"]
    assert all(r["se"] > 0 for r in small.ratings.values())
    # the ratings are the pairings' counts, fitted: nothing else (no order of games) moves them
    counts = [[getattr(p, f) for p in small.pairings] for f in ("wins", "losses", "ties")]
    pairs = [(NAMES.index(p.a), NAMES.index(p.b)) for p in small.pairings]
    assert small.ratings == bradley_terry(list(NAMES), pairs, *map(np.array, counts))
    m = small.win_matrix()
    assert np.isnan(np.diag(m)).all()
    np.testing.assert_allclose(m + m.T, np.where(np.eye(3, dtype=bool), np.nan, 1.0))


def test_results_are_deterministic_for_a_seed(small):
    again = run_tournament(
        NAMES, "argentine", num_players=4, hands_per_pairing=40, seed=3, progress=False
    )
    assert [p.__dict__ | {"seconds": 0} for p in again.pairings] == [
        p.__dict__ | {"seconds": 0} for p in small.pairings
    ]
    assert again.ratings == small.ratings
    other = run_tournament(
        NAMES, "argentine", num_players=4, hands_per_pairing=40, seed=4, progress=False
    )
    assert [p.mean_margin for p in other.pairings] != [p.mean_margin for p in small.pairings]


def test_compiled_and_stepped_paths_play_the_same_games():
    kw = dict(variant="argentine", num_players=4, hands_per_pairing=16, seed=9, progress=False)
    fast = run_tournament(["greedy", "discard_table"], **kw)
    slow = run_tournament(["greedy", "discard_table"], compiled=False, **kw)
    assert not slow.pairings[0].compiled
    a, b = fast.pairings[0], slow.pairings[0]
    assert (a.wins, a.losses, a.ties, a.mean_margin) == (b.wins, b.losses, b.ties, b.mean_margin)


class LastLegalSearch(Agent):
    """A search agent's interface (``act_game``): it reads the game's own legal list."""

    name = "last_legal_search"
    searches = True

    def act(self, obs, mask):
        return (mask.shape[1] - 1 - np.argmax(np.asarray(mask, bool)[:, ::-1], axis=1)).astype(
            np.int64
        )

    def act_game(self, game, b: int = 0) -> int:
        return int(game.legal_actions(b)[-1])


def test_the_kernel_stops_for_python_agents_and_plays_the_stepped_games(tmp_path):
    """A pairing with a Python agent (mask reader or game reader) plays in the kernel,
    which stops where that agent is to act; the games are those of the stepped path,
    action for action, and the stopped game's legal list is whole for a search agent."""
    kw = dict(variant="argentine", num_players=4, hands_per_pairing=6, seed=4, progress=False)
    for agent in (FirstLegal(), LastLegalSearch()):
        fast = run_tournament([agent, "discard_table"], save_games=tmp_path / "k.jsonl", **kw)
        slow = run_tournament(
            [agent, "discard_table"], compiled=False, save_games=tmp_path / "s.jsonl", **kw
        )
        kernel, stepped = read_records(tmp_path / "k.jsonl"), read_records(tmp_path / "s.jsonl")
        assert [r.actions for r in kernel] == [r.actions for r in stepped], agent.name
        assert [r.scores for r in kernel] == [r.scores for r in stepped]
        assert len({len(r.actions) for r in kernel}) > 1  # real games, not one stub
        a, b = fast.pairings[0], slow.pairings[0]
        assert not a.compiled and (a.wins, a.mean_margin) == (b.wins, b.mean_margin)
        (tmp_path / "k.jsonl").unlink()
        (tmp_path / "s.jsonl").unlink()


def test_copies_of_an_agent_are_numbered_from_two():
    from burako_env.agents.tournament import _labels

    agents = [make_agent("greedy", seed=s) for s in range(3)] + [FirstLegal()]
    assert _labels(agents) == ["greedy", "greedy#2", "greedy#3", "first_legal"]


def test_a_python_agent_is_routed_by_seat(tmp_path):
    res = run_tournament(
        [FirstLegal(), make_agent("greedy", seed=1)],
        "argentine",
        num_players=2,
        hands_per_pairing=6,
        seed=2,
        progress=False,
        save_games=tmp_path / "g.jsonl",
    )
    p = res.pairings[0]
    assert not p.compiled and p.hands == 6
    recs = read_records(tmp_path / "g.jsonl")
    assert len(recs) == 6
    assert {tuple(r.seats) for r in recs} == {("first_legal", "greedy"), ("greedy", "first_legal")}
    for r in recs:
        replay(r)  # raises if the replay disagrees with the record


def test_outputs_are_written(small, tmp_path):
    small.to_csv(tmp_path / "t.csv")
    small.to_json(tmp_path / "t.json")
    small.heatmap(tmp_path / "t.png")
    rows = list(csv.DictReader(open(tmp_path / "t.csv")))
    assert len(rows) == 3 and rows[0]["a"] == "random" and float(rows[2]["ci_high"]) <= 1
    data = json.loads((tmp_path / "t.json").read_text())
    assert data["variant"] == "argentine" and len(data["pairings"]) == 3
    assert data["ratings"] == small.ratings  # the JSON carries the fitted ratings
    assert (tmp_path / "t.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    text = small.table()
    assert "discard_table" in text and "95% CI" in text
    # the ratings' columns are headed by what they hold
    assert ["agent", "elo", "±", "95%", "ordinal"] in [line.split() for line in text.splitlines()]


def test_saved_games_replay(tmp_path):
    path = tmp_path / "games.jsonl"
    res = run_tournament(
        ["random", "discard_table"],
        "colombian",
        num_players=4,
        hands_per_pairing=4,
        seed=1,
        progress=False,
        save_games=path,
    )
    recs = read_records(path)
    assert len(recs) == 4 and res.pairings[0].hands == 4
    # the same deal is played twice, seats swapped
    assert recs[0].seed == recs[2].seed and recs[0].index == recs[2].index
    assert recs[0].seats == ["random", "discard_table", "random", "discard_table"]
    assert recs[2].seats == ["discard_table", "random", "discard_table", "random"]
    for r in recs:
        game = replay(r)
        assert game.is_over()
    bad = GameRecord(**{**recs[0].__dict__, "scores": [1, 2]})
    with pytest.raises(ValueError, match="does not match"):
        replay(bad)


def test_records_round_trip(tmp_path):
    rec = GameRecord(
        variant="argentine",
        num_players=4,
        seed=5,
        index=2,
        seats=["a"] * 4,
        actions=[2, 3],
        scores=[0, 0],
        winner=-1,
        meta={"x": 1},
    )
    assert write_records(tmp_path / "r.jsonl", [rec, rec]) == 2
    assert read_records(tmp_path / "r.jsonl") == [rec, rec]
    g = deal_game("argentine", 4, seed=5, index=2)
    assert not g.is_over()
    (tmp_path / "bad.jsonl").write_text('{"nope": 1}\n')
    with pytest.raises(ValueError, match="not a game record"):
        read_records(tmp_path / "bad.jsonl")


def test_wilson_interval():
    lo, hi = wilson(50, 100)
    assert lo < 0.5 < hi and abs((lo + hi) / 2 - 0.5) < 1e-9
    assert wilson(0, 10)[0] == 0.0 and wilson(10, 10)[1] == pytest.approx(1.0)
    lo, hi = wilson(5200, 10000)
    assert 0.51 < lo < 0.52 < hi < 0.53


def wilson_by_roots(successes: float, n: int, z: float) -> tuple[float, float]:
    """The Wilson interval from its definition, not from the code's closed form: the two
    p where the score test just rejects, (p_hat - p)^2 = z^2 p (1 - p) / n, a quadratic
    a p^2 - b p + c = 0."""
    p_hat = successes / n
    a = 1 + z * z / n
    b = 2 * p_hat + z * z / n
    c = p_hat * p_hat
    root = math.sqrt(b * b - 4 * a * c)
    return (b - root) / (2 * a), (b + root) / (2 * a)


# Newcombe (1998), "Two-sided confidence intervals for the single proportion", Statistics
# in Medicine 17, table II, method 3 (Wilson score, no continuity correction), 4 decimals;
# and n = 10, the small samples a short tournament pairing has
PUBLISHED_WILSON = [
    (81, 263, 0.2553, 0.3662),
    (15, 148, 0.0624, 0.1605),
    (0, 20, 0.0, 0.1611),
    (1, 29, 0.0061, 0.1718),
    (0, 10, 0.0, 0.2775),
    (1, 10, 0.0179, 0.4042),
    (5, 10, 0.2366, 0.7634),
    (10, 10, 0.7225, 1.0),
]


@pytest.mark.parametrize(("successes", "n", "low", "high"), PUBLISHED_WILSON)
def test_wilson_matches_published_values(successes, n, low, high):
    lo, hi = wilson(successes, n)
    assert lo == pytest.approx(low, abs=5e-5) and hi == pytest.approx(high, abs=5e-5)


@pytest.mark.parametrize(
    ("successes", "n"),
    [(0, 1), (1, 1), (0.5, 1), (0, 10), (1, 10), (2.5, 10), (5, 10), (9.5, 10), (10, 10)],
)
def test_wilson_small_n_to_1e9(successes, n):
    """Small n (where a wrong term shows most), fractional counts (a tie counts half), to
    1e-9: a wider or shifted interval fails here even when it still holds p_hat."""
    assert Z95 == pytest.approx(NormalDist().inv_cdf(0.975), abs=1e-15)
    want = wilson_by_roots(successes, n, NormalDist().inv_cdf(0.975))
    assert wilson(successes, n) == pytest.approx(want, abs=1e-9)


def test_wilson_with_no_games_is_the_whole_range():
    # nothing played: nothing known, (0, 1), not a division by zero
    assert wilson(0, 0) == (0.0, 1.0)


def test_bad_arguments():
    with pytest.raises(ValueError, match="two agents"):
        run_tournament(["greedy"], progress=False)
    with pytest.raises(ValueError, match="unknown agent"):
        run_tournament(["greedy", "nobody"], progress=False)


def test_bench_runs():
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "bench_agents", ROOT / "scripts/bench/bench_agents.py"
    )
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    out = mod.bench_tournament(hands=64, repeats=1)
    assert out["hands"] == 64 and out["hands_per_second"] > 0


def test_notebook_runs(tmp_path):
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    path = ROOT / "notebooks" / "strategy_study.ipynb"
    nb = nbformat.read(path, as_version=4)
    nbformat.validate(nb)
    client = nbclient.NotebookClient(
        nb, timeout=900, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}
    )
    client.execute()
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])]
    assert any(o.get("output_type") == "display_data" for o in outputs)  # the figures


def test_match_episodes_are_recorded_and_replay(tmp_path):
    path = tmp_path / "m.jsonl"
    res = run_tournament(
        ["greedy", "discard_table"],
        "argentine",
        num_players=2,
        hands_per_pairing=2,
        seed=5,
        progress=False,
        episode="match",
        save_games=path,
    )
    assert res.episode == "match" and res.pairings[0].hands == 2
    recs = read_records(path)
    assert [r.episode for r in recs] == ["match", "match"]
    # each record names team 0's agent, then team 1's: the deal, then its seats swapped
    assert [r.agents for r in recs] == [["greedy", "discard_table"], ["discard_table", "greedy"]]
    for r in recs:
        game = replay(r)
        assert max(game.match_scores[0]) >= 3000


# the counts of a 4,000-hand tournament (seed 2026) whose OpenSkill table, updated game by
# game, rated greedy first: it lost every pairing, 37.5% of its hands
PRESET_NAMES = ["discard_table:cautious", "discard_table:thrifty", "discard_table", "greedy"]
PRESET_PAIRS = [(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)]
PRESET_COUNTS = (
    np.array([2011, 1987, 2491, 1952, 2486, 2496]),
    np.array([1978, 2005, 1496, 2033, 1502, 1497]),
    np.array([11, 8, 13, 15, 12, 7]),
)


def test_an_agent_that_loses_every_pairing_is_rated_last():
    ratings = bradley_terry(PRESET_NAMES, PRESET_PAIRS, *PRESET_COUNTS)
    order = sorted(ratings, key=lambda n: -ratings[n]["ordinal"])
    assert order[-1] == "greedy"
    # 62.5% of hands is about 89 Elo (400 log10(0.625 / 0.375))
    assert 80 < ratings["discard_table"]["elo"] - ratings["greedy"]["elo"] < 100
    assert np.mean([r["elo"] for r in ratings.values()]) == pytest.approx(1500.0)


def test_the_ratings_are_the_maximum_likelihood_of_the_counts():
    from burako_env.agents.tournament_results import ELO_SCALE, PRIOR_DRAWS

    ratings = bradley_terry(PRESET_NAMES, PRESET_PAIRS, *PRESET_COUNTS)
    elo = np.array([ratings[n]["elo"] for n in PRESET_NAMES])
    expected = np.zeros(4)
    observed = np.zeros(4)
    wins, losses, ties = PRESET_COUNTS
    for k, (i, j) in enumerate(PRESET_PAIRS):
        games = wins[k] + losses[k] + ties[k] + PRIOR_DRAWS
        p = 1.0 / (1.0 + 10 ** (-(elo[i] - elo[j]) / ELO_SCALE))
        expected[i] += games * p
        expected[j] += games * (1 - p)
        observed[i] += wins[k] + 0.5 * (ties[k] + PRIOR_DRAWS)
        observed[j] += losses[k] + 0.5 * (ties[k] + PRIOR_DRAWS)
    # the likelihood's stationary point: every agent's expected score is its real score
    np.testing.assert_allclose(expected, observed, rtol=1e-9)


def test_a_clean_sweep_gets_a_finite_rating_with_a_wide_interval():
    ratings = bradley_terry(["a", "b"], [(0, 1)], np.array([10]), np.array([0]), np.array([0]))
    gap = ratings["a"]["elo"] - ratings["b"]["elo"]
    # 10 wins and the prior's half win each way: odds of 10.5 to 0.5
    assert gap == pytest.approx(400 * np.log10(21.0))
    assert ratings["a"]["se"] > 50


def test_ties_count_half_in_the_win_rate_the_interval_and_the_ratings(tmp_path):
    """A hand cut at its first turn (``max_turns=1``) sometimes ends level: its record's
    winner is -1, and the pairing counts it half a win each way in the win rate, the Wilson
    interval and the Bradley-Terry ratings."""
    path = tmp_path / "games.jsonl"
    result = run_tournament(
        ["random", "random"],  # "random" and "random#2", the second seeded apart
        "argentine",
        num_players=2,
        hands_per_pairing=200,
        seed=4,
        progress=False,
        max_turns=1,
        save_games=path,
    )
    (p,) = result.pairings
    records = read_records(path)
    assert len(records) == p.hands == 200
    for r in records:  # a record's winner is -1 exactly when the teams scored the same
        tied = r.scores[0] == r.scores[1]
        assert (r.winner == -1) == tied
        assert r.winner in ((-1,) if tied else (int(r.scores[1] > r.scores[0]),))
    wins = sum(r.winner >= 0 and r.seats[r.winner] == "random" for r in records)
    losses = sum(r.winner >= 0 and r.seats[r.winner] == "random#2" for r in records)
    ties = sum(r.winner == -1 for r in records)
    # ties with each agent in seat 0: the seats-swapped half books them as ties too
    assert {r.seats[0] for r in records if r.winner == -1} == {"random", "random#2"}
    assert ties > 0 and (p.wins, p.losses, p.ties) == (wins, losses, ties)
    assert p.win_rate == pytest.approx((wins + 0.5 * ties) / 200)
    assert (p.ci_low, p.ci_high) == pytest.approx(wilson(wins + 0.5 * ties, 200))
    assert (p.ci_low, p.ci_high) != pytest.approx(wilson(wins, 200))  # the ties do count
    flipped = result.pairing("random#2", "random")
    assert flipped.ties == ties and flipped.win_rate == pytest.approx(1 - p.win_rate)
    assert (flipped.decisions, flipped.compiled) == (p.decisions, p.compiled)
    assert flipped.decisions > 0 and flipped.sequential is p.sequential
    # two agents: the fit has a closed form, each side's wins plus half of the ties (and
    # half of the prior's one drawn game) over the other's
    half = 0.5 * (ties + PRIOR_DRAWS)
    gap = ELO_SCALE * math.log10((wins + half) / (losses + half))
    elo = {name: r["elo"] for name, r in result.ratings.items()}
    assert elo["random"] - elo["random#2"] == pytest.approx(gap, abs=1e-6)
    assert f" {wins}-{losses}-{ties} " in result.table()  # W-L-T


def test_a_chunk_played_in_slices_merges_into_the_chunk_played_whole():
    """Ray splits a chunk's deals into slices (``tournament_ray``); merged, the slices'
    games must be the whole chunk's, in its layout: side 0's games of every deal, then the
    same deals with the sides swapped. Checked here without Ray, slices of 2, 1 and 3."""
    from burako_env.agents.tournament import RECORD_STEPS_HAND
    from burako_env.agents.tournament_chunks import ChunkTask, merge_slices, play_chunk
    from burako_env.variants import load_variant

    table = load_variant("argentine", num_players=2)
    pair = (make_agent("greedy", seed=0), make_agent("random", seed=0))
    deals = 6

    def played(lo: int, hi: int):
        task = ChunkTask(table, "hand", 5, 0, deals, lo, hi, 0, True, RECORD_STEPS_HAND, None)
        return play_chunk(task, pair)

    whole = played(0, deals)
    merged = merge_slices([played(0, 2), played(2, 3), played(3, deals)])
    assert len(np.unique(whole.team, axis=0)) > 1  # distinct games, so the order shows
    np.testing.assert_array_equal(merged.team, whole.team)
    np.testing.assert_array_equal(merged.winner, whole.winner)
    np.testing.assert_array_equal(merged.n_actions, whole.n_actions)
    width = whole.n_actions.max()
    np.testing.assert_array_equal(merged.actions[:, :width], whole.actions[:, :width])
    assert merged.compiled == whole.compiled


def test_a_match_longer_than_a_hands_step_bound_plays_to_its_end():
    """A match's step bound is many hands' (a hand's bound, 20,000 steps, would cut a
    long match short): random players' matches of up to 300 hands (to a target they never
    reach) take over 20,000 decisions each, and are played to their end."""
    from burako_env.agents.tournament import MAX_STEPS_HAND

    result = run_tournament(
        ["random", "random"],
        "argentine",
        num_players=4,
        hands_per_pairing=2,
        seed=1,
        progress=False,
        episode="match",
        target=1_000_000,
        max_hands=300,
    )
    (p,) = result.pairings
    assert p.hands == 2 and p.wins + p.losses + p.ties == 2
    assert p.decisions > 2 * MAX_STEPS_HAND
