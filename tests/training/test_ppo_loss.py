"""PPO's clipped policy loss (:func:`burako_env.training.ppo.clipped_policy_loss`) against
values computed by hand, and the trainer's update computing its policy loss with it."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from burako_env.training.config import load_config
from burako_env.training.ppo import Trainer, clipped_policy_loss

CLIP = 0.2
# ratio, advantage, the row's loss by hand: max(-adv * ratio, -adv * clamp(ratio, 0.8, 1.2))
ROWS = [
    (1.1, 2.0, -2.2),  # inside the range: the plain surrogate
    (1.5, 2.0, -2.4),  # above it with a positive advantage: clipped at 1.2 * 2
    (0.5, 2.0, -1.0),  # below it with a positive advantage: not clipped (pessimistic)
    (0.5, -1.0, 0.8),  # below it with a negative advantage: clipped at 0.8 * 1
    (1.5, -1.0, 1.5),  # above it with a negative advantage: not clipped
    (0.9, -1.0, 0.9),  # inside the range
]
CLIPPED_ROWS = [1, 3]  # their loss does not move with the new policy: no gradient


def tensors(rows):
    logp_old = torch.tensor([-1.0 - 0.1 * i for i in range(len(rows))], dtype=torch.float64)
    ratio = torch.tensor([r[0] for r in rows], dtype=torch.float64)
    logp_new = (logp_old + ratio.log()).requires_grad_(True)
    adv = torch.tensor([r[1] for r in rows], dtype=torch.float64)
    return logp_new, logp_old, adv


@pytest.mark.parametrize("row", range(len(ROWS)))
def test_each_row_matches_the_hand_computed_loss(row):
    logp_new, logp_old, adv = tensors([ROWS[row]])
    loss = clipped_policy_loss(logp_new, logp_old, adv, CLIP)
    assert float(loss.detach()) == pytest.approx(ROWS[row][2], abs=1e-12)


def test_the_loss_is_the_mean_and_clipped_rows_pass_no_gradient():
    logp_new, logp_old, adv = tensors(ROWS)
    loss = clipped_policy_loss(logp_new, logp_old, adv, CLIP)
    assert float(loss.detach()) == pytest.approx(sum(r[2] for r in ROWS) / len(ROWS), abs=1e-12)
    assert float(loss.detach()) == pytest.approx(-0.4, abs=1e-12)
    loss.backward()
    grad = logp_new.grad.numpy()
    for i, (ratio, advantage, _) in enumerate(ROWS):
        if i in CLIPPED_ROWS:
            assert grad[i] == 0.0
        else:  # d/dlogp_new of -adv * exp(logp_new - logp_old) / n
            assert grad[i] == pytest.approx(-advantage * ratio / len(ROWS), abs=1e-12)


def test_a_wider_clip_leaves_more_rows_unclipped():
    logp_new, logp_old, adv = tensors(ROWS)
    loss = clipped_policy_loss(logp_new, logp_old, adv, 0.6)  # the range [0.4, 1.6]
    plain = sum(-a * r for r, a, _ in ROWS) / len(ROWS)
    assert float(loss.detach()) == pytest.approx(plain, abs=1e-12)
    assert not math.isclose(plain, -0.4)


def test_the_update_computes_its_policy_loss_with_it(tmp_path, monkeypatch):
    """The trainer's update calls the loss on each minibatch with the rollout's stored
    log-probabilities and the config's clip coefficient."""
    import burako_env.training.ppo as ppo

    calls = []

    def spy(logp_new, logp_old, adv, clip):
        calls.append((logp_old.detach().cpu().numpy().copy(), clip))
        return clipped_policy_loss(logp_new, logp_old, adv, clip)

    monkeypatch.setattr(ppo, "clipped_policy_loss", spy)
    cfg = load_config("tiny", ["overlap=false", "imitation.env_steps=0"])
    trainer = Trainer(cfg, tmp_path)
    trainer.update = 1
    trainer.collect()
    stored = set(np.round(trainer.store.logp[: trainer.store.n], 6).tolist())
    trainer.learn()
    assert len(calls) >= cfg.ppo.update_epochs
    for logp_old, clip in calls:
        assert clip == cfg.ppo.clip_coef
        assert set(np.round(logp_old, 6).tolist()) <= stored
