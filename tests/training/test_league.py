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


# ----------------------------------------------------------------------- the table
def test_the_seating_puts_the_learner_in_its_team_and_every_seat_of_self_play():
    from burako_env.table import LEARNER

    league = small_league(num_envs=4)
    league.opponent[:] = [SELF, 0, 0, SELF]
    league.learner_team[:] = [1, 0, 1, 0]
    seating = league.seating()
    assert seating.agents[LEARNER] is None and seating.agents[1] is league.agents[0]
    assert seating.seat_agent.tolist() == [
        [0, 0, 0, 0],  # self-play: the learner everywhere
        [0, 1, 0, 1],  # learner team 0: seats 0 and 2
        [1, 0, 1, 0],  # learner team 1: seats 1 and 3
        [0, 0, 0, 0],
    ]
    net = BurakoNet.from_spec(league.spec)
    league.add_snapshot(net, 7)
    league.opponent[2] = 1  # the snapshot: agents first, then the snapshots
    seating = league.seating()
    assert seating.agents[2].name == "snapshot@7" and seating.seat_agent[2].tolist() == [2, 0, 2, 0]
    assert league.seat_rows(np.array([1])).tolist() == [[0, 1, 0, 1]]


def test_a_checkpoint_of_one_generator_state_per_game_resumes_with_one_per_seat():
    league = small_league(num_envs=3)
    state = league.state_dict()
    per_game = np.arange(1, 13, dtype=np.int64).reshape(3, 4)
    state["agent_rng"] = torch.from_numpy(per_game.copy())
    league.load_state_dict(state)
    assert league.agent_rng.shape == (3, 4, 4)
    assert (league.agent_rng[:, 0] == per_game).all()  # seat 0 keeps the saved state
    others = league.agent_rng[:, 1:].reshape(-1, 4)
    assert others.any(axis=1).all() and len({tuple(r) for r in others}) == len(others)
    again = small_league(num_envs=3)
    again.load_state_dict(state)
    assert (again.agent_rng == league.agent_rng).all()  # drawn from the saved states alone
