"""The league of self-play (:class:`burako_env.training.league.League`): its Elo
arithmetic against hand-computed values, ties half a win, and how many snapshots it keeps
(the oldest leaving, the games against it re-pointed to self-play)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from burako_env.agents.network import BurakoNet
from burako_env.training.config import LeagueConfig
from burako_env.training.league import SELF, League


def small_league(max_snapshots: int = 8, num_envs: int = 6) -> League:
    spec = BurakoNet(4, 106, hidden=16, encoder=8, meld_dim=4).spec()
    cfg = LeagueConfig(heuristics={"greedy": 1.0}, max_snapshots=max_snapshots, elo_k=4.0)
    return League(cfg, spec, num_envs, 4, np.random.default_rng(0))


def test_rate_is_the_elo_update_with_ties_half():
    league = small_league()
    # equal ratings, a win: expected 0.5, each moves k * 0.5 = 2
    league.rate("greedy", 1.0)
    assert league.ratings == pytest.approx({"learner": 1002.0, "greedy": 998.0}, abs=1e-12)
    # 200 points above, a tie: expected 1 / (1 + 10 ** (-200 / 400)) = 0.7597469266
    league.ratings.update(learner=1200.0, greedy=1000.0)
    league.rate("greedy", 0.5)
    assert league.ratings["learner"] == pytest.approx(1200.0 - 1.0389877064, abs=1e-9)
    assert league.ratings["greedy"] == pytest.approx(1000.0 + 1.0389877064, abs=1e-9)
    # 200 points below, a loss: expected 0.2402530734, the learner gives 4 * that
    league.ratings.update(learner=1000.0, greedy=1200.0)
    league.rate("greedy", 0.0)
    assert league.ratings["learner"] == pytest.approx(1000.0 - 0.9610122936, abs=1e-9)
    assert league.ratings["greedy"] == pytest.approx(1200.0 + 0.9610122936, abs=1e-9)
    assert league.pop_tally() == {"greedy": (0.5, 3)}


def test_record_scores_a_game_from_the_learners_team():
    """A win of the learner's team is 1, a loss 0, a tie (winner -1) 0.5; self-play games
    leave the ratings alone."""
    league = small_league()
    league.opponent[:] = [0, 0, 0, 0, SELF, SELF]
    league.learner_team[:] = [0, 1, 1, 0, 0, 1]
    league.record(np.arange(6), np.array([0, 1, 0, -1, 0, 1]))
    assert league.pop_tally() == {"greedy": (pytest.approx((1 + 1 + 0 + 0.5) / 4), 4)}
    # each ratings move is zero-sum: the learner's gain is greedy's loss
    assert league.ratings["learner"] + league.ratings["greedy"] == pytest.approx(2000.0)
    assert league.ratings["learner"] > 1000.0  # 2.5 of 4 against an equal


def test_snapshots_kept_at_most_max_snapshots_the_oldest_leaving():
    league = small_league(max_snapshots=2)
    net = BurakoNet.from_spec(league.spec)
    for update in (10, 20):
        with torch.no_grad():
            net.value_head.bias.fill_(float(update))
        league.ratings["learner"] = 1000.0 + update  # a snapshot enters at the learner's
        league.add_snapshot(net, update)
        assert league.ratings[f"snapshot@{update}"] == 1000.0 + update
    assert league.names() == ["greedy", "snapshot@10", "snapshot@20"]
    # games against each member: greedy (0), snapshot@10 (1), snapshot@20 (2), self
    league.opponent[:] = [0, 1, 2, SELF, 1, 2]
    with torch.no_grad():
        net.value_head.bias.fill_(30.0)
    league.add_snapshot(net, 30)
    assert len(league.snapshots) == 2
    assert league.names() == ["greedy", "snapshot@20", "snapshot@30"]
    assert "snapshot@10" not in league.ratings and "snapshot@20" in league.ratings
    # the dropped snapshot's games turn into self-play; the later ones shift down by one
    assert league.opponent.tolist() == [0, SELF, 1, SELF, SELF, 1]
    assert [league.name_of(int(o)) for o in league.opponent] == [
        "greedy",
        "self",
        "snapshot@20",
        "self",
        "self",
        "snapshot@20",
    ]
    kept = [float(n.value_head.bias.detach()[0]) for _, n in league.snapshots]
    assert kept == [20.0, 30.0]  # frozen copies: later changes of the learner leave them
