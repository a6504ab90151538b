"""The oracle critic (``network.oracle_critic``): a value head that reads every hidden hand
during training, and a policy that never does."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch

from burako_env.agents.network import BurakoNet, oracle_inputs, padded
from burako_env.envs.vector import VectorEnv
from burako_env.training import ppo
from burako_env.training.config import load_config
from burako_env.training.run import train

TINY = Path(__file__).resolve().parents[2] / "configs" / "train" / "tiny.yaml"
ORACLE = ["network.oracle_critic=true", "network.hint=null", "imitation.env_steps=0"]


def _batch(num_envs: int = 8, steps: int = 30):
    env = VectorEnv("argentine", 4, num_envs=num_envs, seed=5)
    obs, mask, info = env.reset()
    rng = np.random.default_rng(0)
    for _ in range(steps):  # into the game: melds, piles and known cards on the table
        acts = np.array([rng.choice(np.flatnonzero(m)) for m in mask])
        obs, mask, info = env.step(acts)
    rows = np.arange(num_envs)
    counts = info["num_legal"][rows]
    legal, valid = padded(info["legal"][rows, : counts.max()].astype(np.int64), counts)
    return env, obs, info, legal, valid


def test_oracle_inputs_are_the_other_hands_in_the_order_of_play():
    hands = np.arange(2 * 4 * 53, dtype=np.int64).reshape(2, 4, 53).astype(np.int8)
    seat = np.array([1, 3])
    got = oracle_inputs(hands, np.array([0, 1]), seat).reshape(2, 3, 53)
    assert np.array_equal(got[0], hands[0, [2, 3, 0]])
    assert np.array_equal(got[1], hands[1, [0, 1, 2]])


def test_the_policy_logits_never_read_the_oracle_input():
    torch.manual_seed(0)
    net = BurakoNet(4, 108, hidden=32, encoder=16, meld_dim=8, oracle_critic=True).eval()
    env, obs, info, legal, valid = _batch()
    obs_t = torch.from_numpy(obs)
    real = torch.from_numpy(oracle_inputs(env.game.state.hands, np.arange(8), info["seat"]))
    other = torch.randint(0, 3, real.shape, dtype=torch.int8)
    with torch.no_grad():
        plain_logits, plain_value = net(obs_t, legal, valid)
        logits_a, value_a = net(obs_t, legal, valid, oracle=real)
        logits_b, value_b = net(obs_t, legal, valid, oracle=other)
    assert torch.equal(plain_logits, logits_a) and torch.equal(logits_a, logits_b)
    assert plain_value.shape == (8,) and value_a.shape == (8, 2)
    assert torch.equal(value_a[:, 0], plain_value)  # the observation's critic
    assert not torch.allclose(value_a[:, 1], value_b[:, 1])  # the oracle's reads the hands


def test_a_network_without_an_oracle_critic_refuses_oracle_inputs():
    net = BurakoNet(4, 108, hidden=32, encoder=16, meld_dim=8)
    _, obs, _, legal, valid = _batch(num_envs=2, steps=2)
    with pytest.raises(ValueError, match="oracle"):
        net(torch.from_numpy(obs), legal, valid, oracle=torch.zeros(2, 159, dtype=torch.int8))
    assert "oracle_critic" not in net.spec() and net.oracle_size == 0
    spec = BurakoNet(4, 108, hidden=32, encoder=16, meld_dim=8, oracle_critic=True).spec()
    assert spec["oracle_critic"] and BurakoNet.from_spec(spec).oracle_size == 3 * 53


def test_the_rollouts_moves_do_not_depend_on_the_hidden_hands(monkeypatch, tmp_path):
    """Two trainers with the same seeds, one whose critic sees the real hands and one
    whose critic sees re-dealt (random) hands: the same moves and log-probabilities,
    other values. The hidden hands reach the critic only."""
    cfg = load_config(TINY, ORACLE)

    def rollout():
        trainer = ppo.Trainer(cfg, tmp_path)
        trainer.collect()
        n = trainer.store.n
        return trainer.store.pick[:n].copy(), trainer.store.logp[:n], trainer.store.value[:n]

    pick_real, logp_real, value_real = rollout()
    rng = np.random.default_rng(1)
    monkeypatch.setattr(
        ppo,
        "oracle_inputs",
        lambda hands, rows, seat: rng.integers(0, 3, (len(rows), 3 * 53)).astype(np.int8),
    )
    pick_fake, logp_fake, value_fake = rollout()
    assert len(pick_real) > 100
    assert np.array_equal(pick_real, pick_fake) and np.array_equal(logp_real, logp_fake)
    assert not np.allclose(value_real, value_fake)


def test_an_oracle_run_trains_saves_and_its_policy_plays(tmp_path):
    from burako_env.agents import make_agent
    from burako_env.envs.aec import env as make_env

    out = train(TINY, [*ORACLE, "eval.every=4"], run_dir=tmp_path / "run", verbose=False)
    policy = Path(out["run_dir"]) / "policy.pt"
    agent = make_agent(f"ppo:{policy}", seed=3)
    assert agent.net.spec()["oracle_critic"]
    game = make_env(variant="argentine", num_players=4)
    game.reset(seed=4)
    for _ in game.agent_iter(max_iter=400):  # a legal hand (the env raises otherwise)
        obs, _, term, trunc, _ = game.last()
        if term or trunc:
            game.step(None)
            continue
        game.step(agent.act_one(obs))


def test_the_hidden_card_head_learns_from_the_hands_and_the_policy_never_reads_them():
    torch.manual_seed(0)
    net = BurakoNet(4, 108, hidden=32, encoder=16, meld_dim=8, hidden_cards=True).eval()
    assert net.spec()["hidden_cards"] and BurakoNet.from_spec(net.spec()).hidden_cards
    env, obs, info, legal, valid = _batch()
    obs_t = torch.from_numpy(obs)
    real = torch.from_numpy(oracle_inputs(env.game.state.hands, np.arange(8), info["seat"]))
    with torch.no_grad():
        out = net.heads(obs_t, legal, valid, oracle=real)
        other = net.heads(obs_t, legal, valid, oracle=torch.zeros_like(real))
        plain = net.heads(obs_t, legal, valid)
    assert out.oracle_value is None and plain.hidden_error is None
    assert torch.equal(out.logits, plain.logits) and torch.equal(out.value, plain.value)
    assert out.hidden_error.shape == (8,) and not torch.allclose(
        out.hidden_error, other.hidden_error
    )
    # the error is of the prediction against the hands (halved: 0, 0.5 or 1 a card type)
    pred = net.hidden_head(net._features(obs_t)[0])
    expect = ((pred - real.float() * 0.5) ** 2).mean(1)
    assert torch.allclose(out.hidden_error, expect.detach(), atol=1e-6)


def test_a_hidden_card_run_trains_its_head_by_its_loss_weight(tmp_path):
    """The head learns only through its loss: the runs with ``ppo.hidden_coef`` 0 and 1
    (the same seeds otherwise) end with other head weights; the loss is logged."""
    from burako_env.training.checkpoint import load_file
    from burako_env.training.evaluate import read_scalars

    heads = {}
    for coef in (0, 1):
        overrides = ["network.hidden_cards=true", "network.hint=null", "eval.every=4"]
        out = train(
            TINY,
            [*overrides, f"ppo.hidden_coef={coef}"],
            run_dir=tmp_path / f"{coef}",
            verbose=False,
        )
        weights = load_file(Path(out["run_dir"]) / "policy.pt")["model"]
        heads[coef] = weights["hidden_head.weight"]
    assert not torch.equal(heads[0], heads[1])
    losses = [v for _, _, v in read_scalars(Path(out["run_dir"]))["losses/hidden_cards"]]
    assert len(losses) == 4 and all(0 < v < 1 for v in losses)


@pytest.mark.parametrize("variant, fails", [("brazilian", True), ("argentine", False)])
def test_the_failed_opening_penalty_lands_on_the_turns_that_fail(variant, fails, tmp_path):
    """Brazilian's first-meld minimum: a learner's turn that ends below it loses
    ``ppo.failed_opening_penalty``; the moves are those of the same run without it
    (shaping changes the rewards only), and a table without a minimum is unchanged."""
    base = [f"env.variant={variant}", "network.hint=null", "imitation.env_steps=0"]
    rollouts = []
    for penalty in (0.0, 0.25):
        cfg = load_config(TINY, [*base, f"ppo.failed_opening_penalty={penalty}"])
        trainer = ppo.Trainer(cfg, tmp_path)
        trainer.collect()
        n = trainer.store.n
        rollouts.append((trainer.store.pick[:n].copy(), trainer.store.reward[:n].copy()))
    (pick0, reward0), (pick1, reward1) = rollouts
    assert np.array_equal(pick0, pick1)
    diff = reward1 - reward0
    assert np.allclose(diff[diff != 0], -0.25)
    assert (np.count_nonzero(diff) > 0) == fails
