"""AIVAT's draw corrections (burako_env.agents.aivat): unbiased by construction, checked
exactly where the expectation can be enumerated; the tournament's estimate beside the
plain results, which it leaves as they were; the value file's checks."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from burako_env.agents.aivat import (
    DrawValue,
    correct_draws,
    draw_corrections,
    estimate,
    file_sha256,
    least_squares_scale,
    load_value,
    pair_means,
    shipped_value,
    shipped_value_path,
    win_scores,
)
from burako_env.agents.ppo_agent import shipped_policy
from burako_env.agents.tournament import run_tournament
from burako_env.core.actions import DRAW_STOCK
from burako_env.core.constants import PHASE_DRAW
from burako_env.core.game import Game, game_seed
from burako_env.records import deal_game, read_records

VARIANTS = ("argentine", "italian", "brazilian", "colombian")


def hand_value(game: Game, rows: np.ndarray, seats: np.ndarray, side=None) -> np.ndarray:
    """A value function that reads the drawer's hand card by card (so that each card
    drawn gives another value): sum of (card id + 1)^2 over the hand, scaled."""
    hands = game.state.hands[rows, seats[rows]].astype(np.float64)
    return hands @ (np.arange(hands.shape[1]) + 1.0) ** 2 / 1000.0


def at_a_draw(variant: str = "argentine", seed: int = 3) -> Game:
    """A game of one, played by the first legal action, up to a turn that may draw
    from the stock after some cards have left it."""
    game = Game(variant, batch_size=1, seed=seed)
    drawn = 0
    while True:
        legal = game.legal_actions(0)
        if game.phase[0] == PHASE_DRAW and DRAW_STOCK in legal:
            drawn += 1
            if drawn == 3:
                return game
            game.step_one(DRAW_STOCK)
            continue
        game.step_one(int(legal[-1]))  # a discard, mostly: the turn passes


def with_card_on_top(game: Game, j: int) -> Game:
    """A copy of ``game`` whose stock has its card at position j and its top swapped."""
    world = game.clone()
    st = world.state
    top = int(st.stock_len[0]) - 1
    st.stock[0, j], st.stock[0, top] = st.stock[0, top], st.stock[0, j]
    return world


@pytest.mark.parametrize("variant", VARIANTS)
def test_each_draws_correction_has_expectation_zero_over_the_stock(variant):
    # enumerate every card that could be on top (the stock's order is a uniform
    # shuffle): the corrections average to zero, and each is V of the world that drew
    # that card less the mean over all worlds
    game = at_a_draw(variant)
    n = int(game.state.stock_len[0])
    worlds = [with_card_on_top(game, j) for j in range(n)]
    corrections = np.array(
        [correct_draws(w, np.array([0]), np.array([0]), hand_value)[0] for w in worlds]
    )
    after = []
    for w in worlds:
        drew = w.clone()
        drew.step_one(DRAW_STOCK)
        seat = drew.current_player.astype(np.int64)
        v = hand_value(drew, np.array([0]), seat)[0]
        after.append(v if seat[0] % 2 == 0 else -v)
    after = np.array(after)
    assert np.ptp(after) > 0  # the cards give different values: the test can see a slip
    assert abs(corrections.mean()) < 1e-12
    np.testing.assert_allclose(corrections, after - after.mean(), atol=1e-12)
    # the game asked about was not moved
    assert int(game.state.stock_len[0]) == n


def test_the_correction_is_from_the_side_asked_for():
    game = at_a_draw()
    n = int(game.state.stock_len[0])
    j = next(j for j in range(n) if game.state.stock[0, j] != game.state.stock[0, n - 1])
    world = with_card_on_top(game, j)
    mine = correct_draws(world, np.array([0]), np.array([0]), hand_value)[0]
    theirs = correct_draws(world, np.array([0]), np.array([1]), hand_value)[0]
    assert mine != 0 and theirs == -mine


def test_replayed_games_are_corrected_draw_by_draw(tmp_path):
    # a tournament's saved games replayed: a value of zeros corrects nothing, and the
    # hand-reading value corrects each game by the sum of its draws' corrections
    run_tournament(
        ["greedy", "discard_table"], hands_per_pairing=4, seed=5, progress=False,
        save_games=tmp_path / "g.jsonl",
    )  # fmt: skip
    records = read_records(tmp_path / "g.jsonl")
    words = np.stack([game_seed(r.seed, r.index) for r in records])
    n = np.array([len(r.actions) for r in records])
    actions = np.zeros((len(records), n.max()), np.int64)
    for i, r in enumerate(records):
        actions[i, : n[i]] = r.actions
    team = np.array([0, 1, 0, 1])
    variant = Game("argentine").variant
    nothing = lambda g, r, s, side: np.zeros(len(r))  # noqa: E731
    zero, draws = draw_corrections(variant, words, actions, n, team, nothing)
    assert not zero.any()
    expected_draws = [sum(a == DRAW_STOCK for a in r.actions) for r in records]
    np.testing.assert_array_equal(draws, expected_draws)
    corr, _ = draw_corrections(variant, words, actions, n, team, hand_value)
    for i, r in enumerate(records):  # one game at a time, draw by draw
        game = deal_game("argentine", 4, r.seed, r.index)
        total = 0.0
        for a in r.actions:
            if a == DRAW_STOCK:
                total += correct_draws(game, np.array([0]), team[i : i + 1], hand_value)[0]
            game.step_one(a)
        assert corr[i] == pytest.approx(total, abs=1e-9)
    with pytest.raises(ValueError) as refused:
        draw_corrections(variant, words, actions, n - 1, team, hand_value)
    assert str(refused.value) == (
        "a replayed game did not end with its actions: not this table's games"
    )


def unit_value(variant: str = "argentine", margin: float = 1.0, win: float = 1.0) -> DrawValue:
    policy = shipped_policy(variant, 4)
    return DrawValue(
        policy=str(policy), policy_sha256=file_sha256(policy), head="observation",
        margin_scale=margin, win_scale=win, variant=variant, num_players=4,
    )  # fmt: skip


@pytest.fixture(scope="module")
def plain_and_corrected():
    kw = dict(hands_per_pairing=200, seed=11, progress=False)
    plain = run_tournament(["greedy", "discard_table"], **kw)
    zero = run_tournament(
        ["greedy", "discard_table"], estimator="aivat", value=unit_value(margin=0, win=0), **kw
    )
    fitted = run_tournament(["greedy", "discard_table"], estimator="aivat", **kw)
    return plain, zero, fitted


def test_the_estimator_leaves_the_games_and_plain_results_as_they_were(plain_and_corrected):
    plain, zero, fitted = plain_and_corrected
    for res in (zero, fitted):
        a, b = plain.pairings[0], res.pairings[0]
        for field in ("hands", "wins", "losses", "ties", "win_rate", "mean_margin", "margin_se"):
            assert getattr(a, field) == getattr(b, field), field
        assert a.estimate is None and b.estimate is not None
        assert b.estimate.margin == a.mean_margin
        assert b.estimate.win_rate == a.win_rate
        assert b.estimate.pairs == 100
        assert b.estimate.draws > 100 * 2 * 5  # every hand draws from the stock
    assert plain.ratings == fitted.ratings


def test_a_value_of_zeros_gives_the_plain_estimate_exactly(plain_and_corrected):
    _, zero, _ = plain_and_corrected
    e = zero.pairings[0].estimate
    assert e.corrected_margin == e.margin and e.corrected_margin_se == e.margin_se
    assert e.corrected_win_rate == e.win_rate and e.corrected_win_rate_se == e.win_rate_se
    assert e.margin_variance_ratio == 1.0
    # the corrections themselves were not zero: only their scale was
    assert np.abs(e.pair_correction).sum() > 0


def test_the_corrected_estimate_agrees_with_the_plain_one(plain_and_corrected):
    _, _, fitted = plain_and_corrected
    e = fitted.pairings[0].estimate
    assert e.value == "value_argentine_4p.json"
    assert e.value_sha256 == file_sha256(shipped_value_path("argentine", 4))
    assert e.corrected_margin != e.margin
    gap = math.hypot(e.margin_se, e.corrected_margin_se)
    assert abs(e.corrected_margin - e.margin) < 3 * gap
    assert abs(e.corrected_win_rate - e.win_rate) < 3 * math.hypot(
        e.win_rate_se, e.corrected_win_rate_se
    )


def test_the_estimate_is_shown_saved_and_flipped(plain_and_corrected, tmp_path):
    _, _, fitted = plain_and_corrected
    text = fitted.table()
    assert "AIVAT, draws corrected by value_argentine_4p.json" in text
    assert "greedy vs discard_table: margin" in text and "corrected (variance /" in text
    fitted.to_json(tmp_path / "t.json")
    saved = json.loads((tmp_path / "t.json").read_text())["pairings"][0]["estimate"]
    e = fitted.pairings[0].estimate
    assert saved["corrected_margin"] == e.corrected_margin
    assert saved["margin_variance_ratio"] == e.margin_variance_ratio
    assert not any(k.startswith("pair_") for k in saved)
    fitted.to_csv(tmp_path / "t.csv")
    header = (tmp_path / "t.csv").read_text().splitlines()[0].split(",")
    assert "aivat_corrected_margin" in header and "estimate" not in header
    back = fitted.pairing("discard_table", "greedy").estimate
    assert back.corrected_margin == -e.corrected_margin
    assert back.corrected_win_rate == 1 - e.corrected_win_rate
    assert back.margin_variance_ratio == e.margin_variance_ratio


def test_pairs_are_a_deal_and_its_swapped_replay():
    # two chunks of 2 and 1 deals: hands (0, 2), (1, 3) and (4, 5) are the pairs
    margin = np.array([10, 20, 30, 40, 50, 70])
    np.testing.assert_array_equal(pair_means(margin, [2, 1]), [20, 30, 60])
    np.testing.assert_array_equal(win_scores(np.array([0, 1, -1])), [1.0, 0.0, 0.5])


def test_the_scale_is_the_least_squares_factor():
    rng = np.random.default_rng(0)
    c = rng.normal(size=5000)
    y = 3.0 * c + rng.normal(size=5000)
    k = least_squares_scale(y, c)
    assert abs(k - 3.0) < 0.1
    assert np.var(y - k * c) <= min(np.var(y - (k + 0.05) * c), np.var(y - (k - 0.05) * c))
    value = unit_value(margin=k, win=0.0)
    est = estimate(value, y, np.zeros(5000), c, [2500], draws=1, seconds=0.0)
    assert est.margin_variance_ratio > 5


def test_the_scale_is_exact_where_the_outcome_follows_the_correction():
    # the outcome is 2 corrections plus a constant: nothing is left but the constant
    correction = np.array([1.0, -1.0, 2.0, 0.0])
    assert least_squares_scale(2.0 * correction + 5.0, correction) == pytest.approx(2.0)
    # corrections that never vary explain nothing
    assert least_squares_scale(correction, np.full(4, 0.3)) == 0.0


def small_estimate():
    """Two deals, each played twice (hands 0 and 2, 1 and 3): pairs margin (30, 10),
    win score (1, 1/4), correction (0.04, -0.02); corrected with scales 250 and 2.5:
    margins (20, 15), win scores (0.9, 0.3)."""
    value = unit_value(margin=250.0, win=2.5)
    return estimate(
        value, margin=np.array([10.0, 30.0, 50.0, -10.0]),
        win_score=np.array([1.0, 0.0, 1.0, 0.5]),
        correction=np.array([0.02, -0.04, 0.06, 0.0]), deals_per_chunk=[2], draws=7,
        seconds=1.5,
    )  # fmt: skip


#: the fields of :func:`small_estimate` (standard errors: |a - b| / 2 for two pairs)
SMALL_ESTIMATE = {
    "value": "(in memory)", "value_sha256": "", "pairs": 2,
    "margin": 20.0, "margin_se": 10.0, "corrected_margin": 17.5, "corrected_margin_se": 2.5,
    "win_rate": 0.625, "win_rate_se": 0.375,
    "corrected_win_rate": 0.6, "corrected_win_rate_se": 0.3,
    "draws": 7, "seconds": 1.5,
    "margin_variance_ratio": 16.0, "win_variance_ratio": 1.5625,
}  # fmt: skip


def test_the_estimate_of_two_pairs_by_hand():
    e = small_estimate()
    assert e.to_dict() == pytest.approx(SMALL_ESTIMATE)
    np.testing.assert_allclose(e.pair_margin, [30.0, 10.0])
    np.testing.assert_allclose(e.pair_win, [1.0, 0.25])
    np.testing.assert_allclose(e.pair_correction, [0.04, -0.02])
    assert e.text(2.0) == (
        "margin +20.0 ±20.0 plain, +17.5 ±5.0 corrected (variance /16.00); "
        "win rate 0.625 ±0.750 plain, 0.600 ±0.600 corrected (/1.56); 7 draws, 1.5 s"
    )


def test_the_estimate_flipped_is_the_other_agents_side():
    e = small_estimate()
    back = e.flipped()
    flipped = {
        **SMALL_ESTIMATE, "margin": -20.0, "corrected_margin": -17.5, "win_rate": 0.375,
        "corrected_win_rate": 0.4,
    }  # fmt: skip
    # the intervals, the ratios, the draws and the time do not depend on the side
    assert back.to_dict() == pytest.approx(flipped)
    np.testing.assert_allclose(back.pair_margin, [-30.0, -10.0])
    np.testing.assert_allclose(back.pair_win, [0.0, 0.75])
    np.testing.assert_allclose(back.pair_correction, [-0.04, 0.02])
    assert back.flipped().to_dict() == pytest.approx(e.to_dict())


def test_the_critic_values_are_the_networks_own_heads():
    import torch

    from burako_env.agents.aivat import critic_value_fn
    from burako_env.agents.network import oracle_inputs, padded
    from burako_env.envs.vector import VectorEnv

    net = shipped_value("argentine", 4).network()
    assert net.oracle_critic
    env = VectorEnv("argentine", 4, num_envs=6, seed=11)
    obs, mask, info = env.reset()
    rng = np.random.default_rng(1)
    for _ in range(20):  # into the hand: melds and known cards on the table
        obs, mask, info = env.step(np.array([rng.choice(np.flatnonzero(m)) for m in mask]))
    rows = np.arange(6)
    seats = info["seat"].astype(np.int64)
    counts = info["num_legal"][rows]
    legal, valid = padded(info["legal"][rows, : counts.max()].astype(np.int64), counts)
    hands = torch.from_numpy(oracle_inputs(env.game.state.hands, rows, seats))
    with torch.no_grad():
        out = net.heads(torch.from_numpy(obs), legal, valid, oracle=hands)
    # the two critics differ here: the test sees which one was read
    assert not np.allclose(out.value.numpy(), out.oracle_value.numpy(), atol=1e-3)
    for head, want in (("observation", out.value), ("oracle", out.oracle_value)):
        got = critic_value_fn(net, head)(env.game, rows, seats)
        assert got.dtype == np.float64
        np.testing.assert_allclose(got, want.numpy(), rtol=1e-5, atol=1e-6, err_msg=head)


def test_fit_value_fits_each_scale_on_the_games_it_played():
    from burako_env.agents.ppo_agent import PPOAgent
    from burako_env.agents.value_fit import fit_value

    policy = shipped_policy("argentine", 4)
    fitted = fit_value("argentine", hands=16, seed=3, workers=1)
    # the same games, corrected with unit scales: the fit's factors are their least
    # squares over the pairs, and its record says how they were found
    unit = DrawValue(
        policy=str(policy), policy_sha256=file_sha256(policy), head="oracle",
        margin_scale=1.0, win_scale=1.0, variant="argentine", num_players=4,
    )  # fmt: skip
    res = run_tournament(
        [PPOAgent(policy, greedy=True), "discard_table"], hands_per_pairing=16, seed=3,
        workers=1, progress=False, estimator="aivat", value=unit,
    )  # fmt: skip
    e = res.pairings[0].estimate
    m, w, c = e.pair_margin, e.pair_win, e.pair_correction
    km, kw = least_squares_scale(m, c), least_squares_scale(w, c)
    assert km != 0 and kw != 0
    assert fitted.margin_scale == pytest.approx(km) and fitted.win_scale == pytest.approx(kw)
    # a shipped policy is named by its file name: the value file can be kept anywhere
    assert fitted.policy == "ppo_argentine_4p.pt" and fitted.policy_path() == policy
    assert fitted.policy_sha256 == file_sha256(policy)
    assert fitted.head == "oracle"  # the policy has an oracle critic
    assert (fitted.variant, fitted.num_players) == ("argentine", 4)
    assert fitted.fit == {
        "pairing": ["ppo", "discard_table"], "hands": 16, "seed": 3,
        "margin_variance_ratio": pytest.approx(np.var(m) / np.var(m - km * c)),
        "win_variance_ratio": pytest.approx(np.var(w) / np.var(w - kw * c)),
        "note": "the ratios are in-sample (the scales fitted on these games)",
    }  # fmt: skip
    # in-sample least squares never adds variance
    assert fitted.fit["margin_variance_ratio"] >= 1 and fitted.fit["win_variance_ratio"] >= 1


def test_refusals_before_any_game():
    for kw, words in (
        ({"estimator": "vat"}, "estimator must be one of"),
        ({"estimator": "aivat", "ray": True}, "not with ray"),
        ({"estimator": "aivat", "episode": "match"}, "episode='match'"),
        ({"value": unit_value()}, "give estimator='aivat'"),
        ({"estimator": "aivat", "value": unit_value("italian")}, "is for italian"),
    ):
        with pytest.raises(ValueError, match=words):
            run_tournament(["greedy", "discard_table"], hands_per_pairing=2, progress=False, **kw)
    with pytest.raises(ValueError, match="no value file ships for argentine at 2 players"):
        run_tournament(
            ["greedy", "discard_table"], num_players=2, hands_per_pairing=2, progress=False,
            estimator="aivat",
        )  # fmt: skip


@pytest.mark.parametrize("variant", VARIANTS)
def test_every_shipped_value_file_reads_and_names_its_policy(variant):
    value = shipped_value(variant, 4)
    assert value.variant == variant and value.num_players == 4
    assert value.policy_path() == shipped_policy(variant, 4)
    assert value.policy_sha256 == file_sha256(shipped_policy(variant, 4))
    assert value.margin_scale > 0 and value.win_scale > 0
    # in-sample least squares never adds variance: a ratio below 1 is a broken file
    assert value.fit["hands"] >= 2000 and value.fit["margin_variance_ratio"] >= 1
    net = value.network()
    assert net.oracle_critic == (value.head == "oracle")


def write_value(tmp_path: Path, **changes) -> Path:
    data = shipped_value("argentine", 4).to_dict()
    data["policy"] = str(shipped_policy("argentine", 4))
    data.update(changes)
    path = tmp_path / "v.json"
    path.write_text(json.dumps(data))
    return path


@pytest.mark.parametrize(
    "changes, words",
    [
        ({"format": "other"}, "format must be 'burako-value', got 'other'"),
        ({"version": 2}, "version must be 1, got 2"),
        ({"head": "both"}, "head must be one of ('oracle', 'observation'), got 'both'"),
        ({"margin_scale": float("nan")}, "margin_scale must be a finite number, got nan"),
        ({"win_scale": "1"}, "win_scale must be a finite number, got '1'"),
        ({"num_players": True}, "num_players must be a whole number 2..8, got True"),
        ({"policy": ""}, "policy must be a string, got ''"),
        ({"variant": None}, "variant must be a string, got None"),
        ({"fit": [1]}, "fit must be an object, got [1]"),
        ({"extra": 1}, "the keys must be the value file's, got ['extra']"),
    ],
)
def test_a_broken_value_file_is_refused_naming_the_key(tmp_path, changes, words):
    # the whole message: the file, the key, what it must be and what it holds
    path = write_value(tmp_path, **changes)
    with pytest.raises(ValueError) as refused:
        load_value(path)
    assert str(refused.value) == f"value file {path}: {words}"


def test_a_value_file_without_a_fit_record_reads(tmp_path):
    # ``fit`` only records how the scales were found: a file written by hand may leave
    # it out, and reads with an empty record
    data = shipped_value("argentine", 4).to_dict()
    del data["fit"]
    path = tmp_path / "v.json"
    path.write_text(json.dumps(data))
    value = load_value(path)
    assert value.fit == {} and value.margin_scale == data["margin_scale"]


def test_a_value_file_names_its_own_policy_beside_it(tmp_path):
    # a policy that is not shipped, kept beside its value file: saved, read back and
    # found there (not among the shipped policies), its network loaded
    mine = tmp_path / "mine.pt"
    mine.write_bytes(shipped_policy("argentine", 4).read_bytes())
    value = DrawValue(
        policy="mine.pt", policy_sha256=file_sha256(mine), head="observation",
        margin_scale=12.5, win_scale=0.25, variant="argentine", num_players=4,
        fit={"hands": 8},
    )  # fmt: skip
    value.save(tmp_path / "v.json")
    back = load_value(tmp_path / "v.json")
    assert back.policy_path() == mine
    assert (back.margin_scale, back.win_scale, back.fit) == (12.5, 0.25, {"hands": 8})
    assert back.path == str(tmp_path / "v.json")
    assert back.sha256 == file_sha256(tmp_path / "v.json")
    assert back.network().obs_size > 0
    mine.unlink()  # gone from beside it: the shipped folder is looked in, which lacks it
    assert back.policy_path() == shipped_policy("argentine", 4).parent / "mine.pt"


def test_no_shipped_value_file_names_the_ones_that_ship():
    with pytest.raises(ValueError) as refused:
        shipped_value("argentine", 2)
    message = str(refused.value)
    assert "(shipped: value_argentine_4p.json, value_brazilian_4p.json," in message
    assert "fit one with `burako fit-value`" in message


def test_a_value_file_whose_policy_changed_is_refused(tmp_path):
    path = write_value(tmp_path, policy_sha256="0" * 64)
    value = load_value(path)  # read: the policy is checked when its network is needed
    with pytest.raises(ValueError, match="fit it again"):
        value.network()
    for text in ("not json", "[1, 2]"):
        path.write_text(text)
        with pytest.raises(ValueError, match="value file"):
            load_value(path)


def test_fit_value_refuses_a_policy_of_another_table():
    from burako_env.agents.value_fit import fit_value

    with pytest.raises(ValueError, match="cannot play"):
        fit_value("italian", policy=shipped_policy("argentine", 4), hands=2)
    with pytest.raises(ValueError, match="head must be one of"):
        fit_value("argentine", head="both", hands=2)


def test_evaluate_passes_the_estimator_on():
    from burako_env.evaluation import evaluate

    plain = evaluate("greedy", ["discard_table"], hands=20, seed=4)
    res = evaluate("greedy", ["discard_table"], hands=20, seed=4, estimator="aivat")
    assert plain.pairings[0].estimate is None
    e = res.pairings[0].estimate
    assert e is not None and e.pairs == 10 and e.margin == plain.pairings[0].mean_margin
    with pytest.raises(ValueError, match="is for italian"):
        evaluate(
            "greedy", ["discard_table"], hands=2, estimator="aivat", value=unit_value("italian")
        )
