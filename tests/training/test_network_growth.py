"""A trained network widened (``BurakoNet.widened``, ``init_policy`` with a wider
``network.hidden``) or given the pile's history (``BurakoNet.with_card_history``,
``init_policy`` with ``network.card_history``): the same function at the start, new
units or inputs that can learn."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch

from burako_env.agents.network import BurakoNet, oracle_inputs, padded
from burako_env.agents.policy_file import load_network
from burako_env.envs.vector import VectorEnv
from burako_env.training import ppo
from burako_env.training.checkpoint import CheckpointError
from burako_env.training.config import load_config
from burako_env.training.run import train

TINY = Path(__file__).resolve().parents[2] / "configs" / "train" / "tiny.yaml"
SMALL = dict(encoder=16, meld_dim=8, card_context=True, oracle_critic=True, hidden_cards=True)


def _batch(num_envs: int = 8, steps: int = 30):
    env = VectorEnv("argentine", 4, num_envs=num_envs, seed=11)
    obs, mask, info = env.reset()
    rng = np.random.default_rng(1)
    for _ in range(steps):  # into the game: melds, piles and known cards on the table
        obs, mask, info = env.step(np.array([rng.choice(np.flatnonzero(m)) for m in mask]))
    rows = np.arange(num_envs)
    counts = info["num_legal"][rows]
    legal, valid = padded(info["legal"][rows, : counts.max()].astype(np.int64), counts)
    hands = oracle_inputs(env.game.state.hands, rows, info["seat"])
    return torch.from_numpy(obs), legal, valid, torch.from_numpy(hands)


def _outputs(net: BurakoNet, batch):
    obs, legal, valid, hands = batch
    with torch.no_grad():
        out = net.eval().heads(obs, legal, valid, oracle=hands)
    return out.logits, torch.stack([out.value, out.oracle_value]), out.hidden_error


@pytest.mark.parametrize("hint", [None, "discard_table"])
def test_a_widened_network_computes_the_same_logits_values_and_predictions(hint):
    torch.manual_seed(0)
    net = BurakoNet(4, 108, hidden=24, hint=hint, **SMALL)
    if hint:  # the hint's learned terms away from their start, so that they count
        net.hint_ctx.weight.data.normal_()
        net.hint_gain.data.fill_(1.7)
    wide = net.widened(40, seed=3)
    assert wide.hparams["hidden"] == 40 and wide.trunk[0].out_features == 40
    batch = _batch()
    (logits, value, hidden_error), (w_logits, w_value, w_error) = (
        _outputs(net, batch),
        _outputs(wide, batch),
    )
    finite = torch.isfinite(logits)
    assert torch.equal(finite, torch.isfinite(w_logits))
    torch.testing.assert_close(w_logits[finite], logits[finite], rtol=1e-5, atol=1e-5)
    torch.testing.assert_close(w_value, value, rtol=1e-5, atol=1e-5)  # both critics
    torch.testing.assert_close(w_error, hidden_error, rtol=1e-5, atol=1e-5)
    # the new units are live: a fresh network of that width would compute something else
    torch.manual_seed(0)
    fresh = BurakoNet(4, 108, hidden=40, hint=hint, **SMALL)
    assert not torch.allclose(_outputs(fresh, batch)[1], value)


def test_the_new_units_learn_and_the_widening_is_seeded():
    torch.manual_seed(0)
    net = BurakoNet(4, 108, hidden=24, **SMALL)
    wide = net.widened(40, seed=3)
    assert torch.equal(wide.trunk[0].weight, net.widened(40, seed=3).trunk[0].weight)
    assert not torch.equal(wide.trunk[0].weight, net.widened(40, seed=4).trunk[0].weight)
    assert torch.equal(wide.trunk[0].weight[:24], net.trunk[0].weight)
    obs, legal, valid, hands = _batch()
    out = wide.train().heads(obs, legal, valid, oracle=hands)
    (out.logits[torch.isfinite(out.logits)].sum() + out.oracle_value.sum()).backward()
    # the heads' weights that read the new units get a gradient, so training moves them
    assert wide.other_head.weight.grad[:, 24:].abs().sum() > 0
    assert wide.oracle_head[0].weight.grad[:24, 24:40].abs().sum() > 0


def test_a_narrower_width_is_refused():
    net = BurakoNet(4, 108, hidden=24, **SMALL)
    with pytest.raises(ValueError, match="narrower"):
        net.widened(16)


def _tiny_policy(tmp_path: Path, hidden: int) -> Path:
    sets = [f"network.hidden={hidden}", "network.hint=null", "imitation.env_steps=0"]
    cfg = load_config(TINY, [*sets, "ppo.total_env_steps=256"])
    train(cfg, run_dir=tmp_path / f"h{hidden}")
    return tmp_path / f"h{hidden}" / "policy.pt"


def _start_plays_as(cfg, policy: Path, tmp_path: Path) -> BurakoNet:
    """The learner a run of ``cfg`` starts from ``policy`` with, checked to compute the
    file's logits and values."""
    trainer = ppo.Trainer(cfg, tmp_path / "start")
    trainer.start_from_policy(policy)
    obs, legal, valid, _ = _batch()
    with torch.no_grad():
        got = trainer.net.eval()(obs, legal, valid)
        want = load_network(policy)[0].eval()(obs, legal, valid)
    for a, b in zip(got, want, strict=True):
        torch.testing.assert_close(a, b, rtol=1e-5, atol=1e-5)
    return trainer.net


def test_a_policy_fine_tunes_on_a_wider_trunk_from_the_same_play(tmp_path):
    small = _tiny_policy(tmp_path, 16)
    sets = ["network.hidden=32", "network.hint=null", f"init_policy={small}"]
    cfg = load_config(TINY, [*sets, "ppo.total_env_steps=256"])
    assert _start_plays_as(cfg, small, tmp_path).hparams["hidden"] == 32
    train(cfg, run_dir=tmp_path / "wide")
    assert load_network(tmp_path / "wide" / "policy.pt")[0].hparams["hidden"] == 32


def test_a_wider_policy_does_not_fine_tune_on_a_narrower_trunk(tmp_path):
    wide = _tiny_policy(tmp_path, 32)
    sets = ["network.hidden=16", "network.hint=null", f"init_policy={wide}"]
    with pytest.raises(CheckpointError, match="hidden 32 here 16"):
        train(load_config(TINY, [*sets, "ppo.total_env_steps=256"]), run_dir=tmp_path / "n")


def test_a_network_given_the_card_history_plays_as_before_and_can_learn_it():
    torch.manual_seed(0)
    net = BurakoNet(4, 108, hidden=24, **SMALL)
    with torch.no_grad():
        net.card_enc[0].weight.add_(0.1)  # no zero weight by chance
    more = net.with_card_history()
    assert more.hparams["card_history"] and more.num_card_features == 20
    assert more.with_card_history() is more
    batch = _batch()
    assert float(more.reference_inputs(batch[0]).cards[:, :, 16:].abs().sum()) > 0
    for a, b in zip(_outputs(net, batch), _outputs(more, batch), strict=True):
        torch.testing.assert_close(a, b, rtol=1e-5, atol=1e-5)
    obs, legal, valid, hands = batch
    out = more.train().heads(obs, legal, valid, oracle=hands)
    out.logits[torch.isfinite(out.logits)].sum().backward()
    assert more.card_enc[0].weight.grad[:, 16:20].abs().sum() > 0  # the new inputs learn


def test_a_policy_fine_tunes_with_the_card_history_from_the_same_play(tmp_path):
    small = _tiny_policy(tmp_path, 16)
    sets = ["network.hidden=16", "network.hint=null", "network.card_history=true"]
    cfg = load_config(TINY, [*sets, f"init_policy={small}", "ppo.total_env_steps=256"])
    assert _start_plays_as(cfg, small, tmp_path).hparams["card_history"]
    train(cfg, run_dir=tmp_path / "history")
    assert load_network(tmp_path / "history" / "policy.pt")[0].hparams["card_history"]
