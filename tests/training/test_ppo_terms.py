"""The terms of PPO's loss (:mod:`burako_env.training.ppo`, "the loss's terms"), each
against values worked out by hand on a few rows, and the update summing them as its
docstring says. The clipped policy loss has its own tests (test_ppo_loss.py)."""

from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np
import pytest
import torch

from burako_env.training import ppo
from burako_env.training.config import load_config
from burako_env.training.ppo import (
    Trainer,
    distill_loss,
    hidden_cards_loss,
    normalized_advantages,
    policy_diagnostics,
    seen_critic_loss,
    value_loss,
)


def test_normalized_advantages_centre_and_scale_by_the_unbiased_deviation():
    adv = torch.tensor([1.0, 2.0, 3.0, 6.0], dtype=torch.float64)
    # mean 3; squared deviations 4, 1, 0, 9: unbiased variance 14 / 3
    std = math.sqrt(14 / 3)
    expected = [-2 / std, -1 / std, 0.0, 3 / std]
    got = normalized_advantages(adv).tolist()
    assert got == pytest.approx(expected, abs=1e-7)
    biased = math.sqrt(14 / 4)  # the population deviation would give other values
    assert got[3] != pytest.approx(3 / biased, abs=1e-3)


def test_policy_diagnostics_are_cleanrls_two_kl_estimators_and_the_clip_fraction():
    ratios = [1.0, 1.5, 0.9]
    logratio = torch.tensor([math.log(r) for r in ratios], dtype=torch.float64)
    old_kl, kl, clipfrac = policy_diagnostics(logratio, clip=0.2)
    # mean(-log r) = -(0 + log 1.5 + log 0.9) / 3: negative here (the biased estimator)
    assert old_kl == pytest.approx(-(math.log(1.5) + math.log(0.9)) / 3, abs=1e-12)
    assert old_kl < 0
    # mean((r - 1) - log r) = ((0.5 - log 1.5) + (-0.1 - log 0.9)) / 3: never negative
    assert kl == pytest.approx(((0.5 - math.log(1.5)) + (-0.1 - math.log(0.9))) / 3, abs=1e-12)
    assert kl == pytest.approx(0.0332988, abs=1e-6)
    assert clipfrac == pytest.approx(1 / 3)  # only 1.5 lies more than 0.2 from 1
    assert policy_diagnostics(torch.zeros(4), clip=0.2) == (0.0, 0.0, 0.0)


def test_value_loss_plain_and_clipped_around_the_rollouts_value():
    # rows: (value, return, rollout's value), clip 0.2
    #   A: 0.5 towards 1 from 0: clipped to 0.2, error 0.64 > 0.25: the clipped one counts
    #   B: 0.1 within the range: 1.21 either way
    #   C: -0.5 away from 1: clipped -0.2 errs 1.44 < 2.25: the unclipped one counts
    value = torch.tensor([0.5, 0.1, -0.5], dtype=torch.float64, requires_grad=True)
    returns = torch.tensor([1.0, -1.0, 1.0], dtype=torch.float64)
    old = torch.zeros(3, dtype=torch.float64)
    plain = value_loss(value, returns, old, None)
    assert float(plain.detach()) == pytest.approx(0.5 * (0.25 + 1.21 + 2.25) / 3, abs=1e-12)
    clipped = value_loss(value, returns, old, 0.2)
    assert float(clipped.detach()) == pytest.approx(0.5 * (0.64 + 1.21 + 2.25) / 3, abs=1e-12)
    clipped.backward()
    # d/dv of 0.5 * mean(err): (v - R) / 3 per row, none where the clipped error counts
    assert value.grad is not None
    assert value.grad.tolist() == pytest.approx([0.0, 1.1 / 3, -1.5 / 3], abs=1e-12)


def test_seen_critic_loss_is_the_plain_value_loss_of_the_observations_critic():
    seen = torch.tensor([1.0, 3.0], dtype=torch.float64)
    returns = torch.tensor([0.0, 1.0], dtype=torch.float64)
    assert float(seen_critic_loss(seen, returns)) == pytest.approx(0.5 * (1 + 4) / 2)
    far = torch.tensor([10.0, 3.0], dtype=torch.float64)  # never clipped
    assert float(seen_critic_loss(far, returns)) == pytest.approx(0.5 * (100 + 4) / 2)


def test_hidden_cards_loss_is_the_mean_of_the_rows_errors():
    errors = torch.tensor([0.5, 1.5, 4.0])
    assert float(hidden_cards_loss(errors)) == pytest.approx(2.0)


def test_distill_loss_is_the_cross_entropy_to_the_teachers_picks_and_their_agreement():
    """Three labelled rows (legal lists of 2, 3 and 1 actions) and a network whose
    logits are fixed per row: row 0 gives the pick 3/4, row 1 (pick 2 of 3) gives it
    1 / (e^2 + 2) and prefers action 0, row 2 has one legal action."""
    labels = SimpleNamespace(
        obs=np.array([[0], [1], [2]], np.int16),  # each row's index, for the network below
        flat=np.array([7, 9, 1, 4, 5, 8], np.int16),
        offsets=np.array([0, 2, 5, 6], np.int64),
        pick=np.array([1, 2, 0], np.int64),
    )
    table = torch.tensor([[0.0, math.log(3), 0.0], [2.0, 0.0, 0.0], [0.5, 0.0, 0.0]])
    seen_lists = []

    class FixedLogits:
        def heads(self, obs, legal, valid, hint):
            seen_lists.append(legal[valid].tolist())
            logits = table[obs[:, 0].long()][:, : valid.shape[1]]
            return SimpleNamespace(logits=torch.where(valid, logits, torch.tensor(-1e9)))

    rows = np.array([0, 1, 2])
    loss, agreement = distill_loss(FixedLogits(), labels, rows)
    p = [0.75, 1 / (math.e**2 + 2), 1.0]
    assert float(loss) == pytest.approx(-sum(math.log(x) for x in p) / 3, abs=1e-6)
    assert agreement == pytest.approx(2 / 3)  # row 1's argmax is action 0, not its pick
    assert seen_lists == [[7, 9, 1, 4, 5, 8]]  # the labels' own legal lists, in order
    loss, agreement = distill_loss(FixedLogits(), labels, np.array([1]))
    assert float(loss) == pytest.approx(math.log(math.e**2 + 2), abs=1e-6)
    assert agreement == 0.0


def test_the_update_sums_the_value_terms_it_logs(tmp_path, monkeypatch):
    """With an oracle critic and the hidden-card head, every minibatch's value loss is
    the oracle critic's clipped loss plus the seen critic's, and the logged
    ``losses/value_loss`` and ``losses/hidden_cards`` are the last minibatch's terms."""
    calls: dict[str, list] = {"value": [], "seen": [], "hidden": []}

    def spy(name, real):
        def wrapped(*args):
            out = real(*args)
            calls[name].append((args, out.detach()))
            return out

        return wrapped

    monkeypatch.setattr(ppo, "value_loss", spy("value", value_loss))
    monkeypatch.setattr(ppo, "seen_critic_loss", spy("seen", seen_critic_loss))
    monkeypatch.setattr(ppo, "hidden_cards_loss", spy("hidden", hidden_cards_loss))
    heads = ["network.oracle_critic=true", "network.hidden_cards=true", "network.hint=null"]
    cfg = load_config("tiny", heads + ["overlap=false", "imitation.env_steps=0"])
    trainer = Trainer(cfg, tmp_path)
    trainer.update = 1
    trainer.collect()
    scalars = trainer.learn()
    n = len(calls["value"])
    assert n >= cfg.ppo.update_epochs and len(calls["seen"]) == len(calls["hidden"]) == n
    for args, _ in calls["value"]:
        assert args[3] == cfg.ppo.clip_coef  # ppo.clip_vloss: clipped
    value_last, seen_last = calls["value"][-1][1], calls["seen"][-1][1]
    assert scalars["losses/value_loss"] == float(value_last + seen_last)
    assert scalars["losses/hidden_cards"] == float(calls["hidden"][-1][1])
    assert float(seen_last) > 0 and float(calls["hidden"][-1][1]) > 0
