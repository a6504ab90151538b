"""PPO training: a few updates on the tiny config, exact resume, the saved agent in the
PettingZoo env, masks, the GAE along ragged streams, and bad configs and checkpoints."""

from __future__ import annotations

import copy
import importlib.util
import json
import re
from pathlib import Path

import numpy as np
import pytest
import torch

from burako_env.agents import make_agent
from burako_env.agents.policies import POLICY_DISCARD_TABLE, act_batch
from burako_env.agents.policy_scores import default_weights
from burako_env.agents.ppo_agent import PPOAgent, pretrained_path
from burako_env.core.constants import ADD_BASE, DISCARD_BASE, OPEN_GROUP_BASE
from burako_env.envs.vector import VectorEnv
from burako_env.training.checkpoint import CheckpointError, load_file, save_file
from burako_env.training.config import ConfigError, load_config, schedule_configs
from burako_env.training.evaluate import plot_run, read_scalars
from burako_env.training.imitation import _returns, behaviour_clone, collect_demonstrations
from burako_env.training.network import HINT_RNG_STATE, MASKED_LOGIT, BurakoNet, legal_lists, padded
from burako_env.training.ppo import compute_gae
from burako_env.training.run import train

TINY = Path(__file__).resolve().parents[2] / "configs" / "train" / "tiny.yaml"
# the tiny config, evaluated only at the end (fewer tournament games)
QUICK = ["eval.every=4"]


def _same(a, b, path="") -> list[str]:
    """Paths where two nested checkpoint structures differ."""
    if isinstance(a, dict):
        if set(a) != set(b):
            return [f"{path}: keys {sorted(set(a) ^ set(b))}"]
        return [d for k in a for d in _same(a[k], b[k], f"{path}/{k}")]
    if isinstance(a, (list, tuple)):
        if len(a) != len(b):
            return [f"{path}: lengths"]
        return [
            d
            for i, (x, y) in enumerate(zip(a, b, strict=True))
            for d in _same(x, y, f"{path}[{i}]")
        ]
    if isinstance(a, torch.Tensor):
        return [] if torch.equal(a, b) else [path]
    return [] if a == b else [f"{path}: {a!r} != {b!r}"]


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """The tiny run uninterrupted, the same run stopped after 2 updates and resumed, and
    stopped right after its imitation warm start (update 0) and resumed."""
    root = tmp_path_factory.mktemp("runs")
    full = train(TINY, QUICK, run_dir=root / "full", verbose=False)
    train(TINY, QUICK, run_dir=root / "split", stop_after=2, verbose=False)
    assert load_file(root / "split" / "checkpoints" / "last.pt")["progress"]["update"] == 2
    split = train(run_dir=root / "split", resume=True, verbose=False)
    train(TINY, QUICK, run_dir=root / "split0", stop_after=0, verbose=False)
    progress = load_file(root / "split0" / "checkpoints" / "last.pt")["progress"]
    assert progress["update"] == 0 and progress["imitated"]
    train(run_dir=root / "split0", resume=True, verbose=False)
    return root, full, split


def test_tiny_run_writes_a_run_folder(runs):
    root, full, _ = runs
    run = root / "full"
    assert full["update"] == 4 and full["global_step"] == 4 * 16 * 64
    assert (run / "config.yaml").is_file() and (run / "policy.pt").is_file()
    assert (run / "checkpoints" / "last.pt").is_file()
    assert (run / "checkpoints" / "best.pt").is_file()
    # the policy file says where it comes from (docs/TESTING.md: a save without it passed)
    meta = load_file(run / "policy.pt")["meta"]
    assert (meta["update"], meta["global_step"]) == (full["update"], full["global_step"])
    assert meta["run"]
    best = load_file(run / "best_policy.pt")["meta"]
    assert best["run"] == meta["run"] and 0 <= best["update"] <= meta["update"]
    assert list((run / "tb").glob("events.out.tfevents.*"))
    assert set(full["eval"]) == {"greedy"}
    r = full["eval"]["greedy"]
    assert 0.0 <= r["ci_low"] <= r["win_rate"] <= r["ci_high"] <= 1.0
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    acc = EventAccumulator(str(run / "tb"))
    acc.Reload()
    tags = set(acc.Tags()["scalars"])
    for tag in (
        "losses/policy_loss",
        "losses/value_loss",
        "losses/entropy",
        "losses/approx_kl",
        "losses/clip_fraction",
        "losses/explained_variance",
        "charts/steps_per_second",
        "charts/learning_rate",
        "eval/win_rate_greedy",
        "league/rating_learner",
        "imitation/accuracy",
        "imitation/policy_loss",
        "imitation/value_loss",
    ):
        assert tag in tags, tag
    # the warm start's clone is evaluated before the first update
    first = json.loads((run / "eval.jsonl").read_text().splitlines()[0])
    assert first["update"] == 0 and first["global_step"] == 0


def test_resume_is_identical_to_an_uninterrupted_run(runs):
    root, full, split = runs
    assert split["update"] == full["update"] and split["eval"] == full["eval"]
    a = load_file(root / "full" / "checkpoints" / "last.pt")
    b = load_file(root / "split" / "checkpoints" / "last.pt")
    c = load_file(root / "split0" / "checkpoints" / "last.pt")
    for key in ("model", "optimizer", "league", "rng", "env", "trainer", "progress"):
        assert _same(a[key], b[key]) == [], key
        assert _same(a[key], c[key]) == [], key
    evals = [(root / r / "eval.jsonl").read_text() for r in ("full", "split", "split0")]
    assert evals[0] == evals[1] == evals[2] and evals[0]


def test_saved_agent_plays_a_pettingzoo_game(runs):
    root, _, _ = runs
    agent = make_agent(f"ppo:{root / 'full' / 'policy.pt'}", seed=3)
    assert isinstance(agent, PPOAgent)
    if importlib.util.find_spec("burako_env.envs.aec") is None:  # pragma: no cover
        env = VectorEnv("argentine", 4, num_envs=4, seed=0)
        obs, mask, info = env.reset()
        for _ in range(50):
            obs, mask, info = env.step(agent.act(obs, mask))
        return
    from burako_env import burako_v1

    env = burako_v1.env(variant="argentine", num_players=4)
    env.reset(seed=5)
    steps = 0
    for _name in env.agent_iter(max_iter=20000):
        obs, reward, term, trunc, info = env.last()
        action = None if term or trunc else agent.act_one(obs)
        if action is not None:
            assert obs["action_mask"][action] == 1
        env.step(action)
        steps += 1
    assert steps > 4 and not env.agents  # the hand ended


def test_masked_actions_never_get_probability():
    env = VectorEnv("argentine", 4, num_envs=32, seed=2)
    obs, mask, _ = env.reset()
    greedy = make_agent("greedy", seed=0)
    torch.manual_seed(0)
    net = BurakoNet(4, env.variant.total_cards, hidden=32, encoder=16, meld_dim=8)
    gen = torch.Generator().manual_seed(0)
    for step in range(40):
        ids, counts = legal_lists(mask)
        legal, valid = padded(ids, counts)
        o = torch.from_numpy(obs.copy())
        with torch.no_grad():
            logits, _ = net(o, legal, valid)
            assert (logits[~valid] == MASKED_LOGIT).all()
            probs = torch.softmax(logits, 1)
            assert (probs[~valid] == 0).all()
            # the full action space: illegal ids get exactly zero probability
            full = net.full_logits(o)
            full = torch.where(torch.from_numpy(mask), full, torch.full_like(full, MASKED_LOGIT))
            assert (torch.softmax(full, 1)[torch.from_numpy(~mask)] == 0).all()
            for _ in range(5):
                a, pick, logp, _ = net.act(o, legal, valid, gen)
                assert mask[np.arange(len(a)), a.numpy()].all()
            # entropy counts the legal actions only: a one-action row has entropy 0
            lp, ent, _ = net.evaluate(o, legal, valid, pick)
            p = torch.softmax(logits, 1)
            manual = -(torch.where(valid, p * torch.log(p.clamp_min(1e-30)), 0.0)).sum(1)
            assert torch.allclose(ent, manual, atol=1e-5)
            assert torch.allclose(ent[counts == 1], torch.zeros(int((counts == 1).sum())))
        act = greedy.act(obs, mask) if step % 2 else a.numpy()
        obs, mask, _ = env.step(act)


def test_gae_follows_each_seat_stream():
    # stream A: 0 -> 2 -> 4 (done, reward 1); stream B: 1 -> 3 (pending at the end)
    value = np.array([0.5, 0.1, 0.6, 0.2, 0.7], np.float32)
    reward = np.array([0, 0, 0, 0, 1.0], np.float32)
    done = np.array([0, 0, 0, 0, 1], bool)
    nxt = np.array([2, 3, 4, -1, -1], np.int64)
    adv = np.zeros(5, np.float32)
    trainable = np.zeros(5, bool)
    g, lam = 0.9, 0.8
    compute_gae(value, reward, done, nxt, np.float32(g), np.float32(lam), adv, trainable)
    a4 = 1.0 - 0.7
    a2 = g * 0.7 - 0.6 + g * lam * a4
    a0 = g * 0.6 - 0.5 + g * lam * a2
    a1 = g * 0.2 - 0.1  # its successor is pending: bootstrap on its value, no further GAE
    np.testing.assert_allclose(adv, [a0, a1, a2, 0.0, a4], rtol=1e-5)
    assert trainable.tolist() == [True, True, True, False, True]


def test_bad_config_keys_and_values_name_the_key():
    with pytest.raises(ConfigError, match="ppo.lrr"):
        load_config(TINY, ["ppo.lrr=1e-4"])
    with pytest.raises(ConfigError, match="ppo.lr"):
        load_config(TINY, ["ppo.lr=fast"])
    with pytest.raises(ConfigError, match="env.num_envs"):
        load_config(TINY, ["env.num_envs=1"])
    with pytest.raises(ConfigError, match="eval.opponents"):
        load_config(TINY, ["eval.opponents=[nobody]"])
    with pytest.raises(ConfigError, match="network.hint"):
        load_config(TINY, ["network.hint=nobody"])
    with pytest.raises(ConfigError, match="imitation.teacher"):
        load_config(TINY, ["imitation.teacher=nobody"])
    with pytest.raises(ConfigError, match="imitation.epochs"):
        load_config(TINY, ["imitation.epochs=0"])
    with pytest.raises(ConfigError, match="bogus"):
        load_config({"bogus": {"x": 1}})
    assert load_config(TINY, ["ppo.lr=1e-4"]).ppo.lr == pytest.approx(1e-4)


def test_the_run_log_reads_back_and_plots(runs, tmp_path):
    # the TensorBoard scalars of the tiny run, and the PNG of its curves (no test read
    # them: docs/TESTING.md)
    root, full, _ = runs
    scalars = read_scalars(root / "full")
    assert scalars
    for rows in scalars.values():
        steps = [step for step, _, _ in rows]
        assert steps == sorted(steps) and 0 <= steps[-1] <= full["global_step"]
    plot_run(root / "full", tmp_path / "curves.png")
    assert (tmp_path / "curves.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_the_curves_plot_the_learners_rating_and_smooth_without_sagging_at_the_ends(
    tmp_path, monkeypatch
):
    """The league panel draws the learner's rating beside the fixed agents'; a smoothed
    curve of a steady series stays level to its last point (no fall toward zero at the
    ends, where the window runs past the data)."""
    import matplotlib.pyplot as plt

    from burako_env.training import evaluate

    steps = range(0, 20_000, 1000)
    scalars = {
        "charts/mean_hand_score": [(t, 0.0, 120.0) for t in steps],
        "league/rating_learner": [(t, 0.0, 1000.0 + t / 100) for t in steps],
        "league/rating_greedy": [(t, 0.0, 1100.0) for t in steps],
        "eval/win_rate_greedy": [(t, 0.0, 0.6) for t in steps],
        "eval/win_rate_greedy_ci_low": [(t, 0.0, 0.5) for t in steps],
        "eval/win_rate_greedy_ci_high": [(t, 0.0, 0.7) for t in steps],
    }
    monkeypatch.setattr(evaluate, "read_scalars", lambda run_dir: scalars)
    figures = []
    monkeypatch.setattr(plt, "close", figures.append)  # keep the figure to read it
    plot_run(tmp_path, tmp_path / "curves.png")
    (fig,) = figures
    score, league = fig.axes[1], fig.axes[2]
    assert league.get_legend_handles_labels()[1] == ["learner", "greedy"]
    raw, smoothed = score.get_lines()
    np.testing.assert_allclose(raw.get_ydata(), 120.0)
    np.testing.assert_allclose(smoothed.get_ydata(), 120.0)
    assert len(smoothed.get_ydata()) == len(steps)


def test_config_bounds_name_the_key_and_admit_the_bound():
    with pytest.raises(ConfigError, match="ppo.clip_coef"):
        load_config(TINY, ["ppo.clip_coef=0"])
    with pytest.raises(ConfigError, match="checkpoint_every"):
        load_config(TINY, ["checkpoint_every=0"])
    assert load_config(TINY, ["checkpoint_every=1"]).checkpoint_every == 1


def test_the_evaluation_and_ray_bounds_name_the_key_and_admit_the_bound():
    """The evaluation plays at least 2 games at once (one a side) and 2 is enough; a Ray
    worker needs a thread: each refusal names its key."""
    assert load_config(TINY, ["eval.num_envs=2"]).eval.num_envs == 2
    with pytest.raises(ConfigError, match=r"'eval.num_envs' must be at least 2, got 1"):
        load_config(TINY, ["eval.num_envs=1"])
    assert load_config(TINY, ["distributed.threads=1"]).distributed.threads == 1
    with pytest.raises(ConfigError, match=r"'distributed.threads' must be positive, got 0"):
        load_config(TINY, ["distributed.threads=0"])


def test_corrupted_or_mismatched_checkpoints_give_clear_errors(runs, tmp_path):
    root, _, _ = runs
    last = root / "full" / "checkpoints" / "last.pt"
    data = last.read_bytes()
    cut = tmp_path / "truncated.pt"
    cut.write_bytes(data[: len(data) // 2])
    with pytest.raises(CheckpointError, match="truncated or corrupted"):
        PPOAgent(cut)
    junk = tmp_path / "junk.pt"
    junk.write_bytes(b"not a checkpoint at all")
    with pytest.raises(CheckpointError, match="truncated or corrupted"):
        load_file(junk)
    with pytest.raises(CheckpointError, match="no checkpoint"):
        PPOAgent(tmp_path / "missing.pt")
    # a run folder whose checkpoint is truncated cannot be resumed
    broken = tmp_path / "broken"
    (broken / "checkpoints").mkdir(parents=True)
    (broken / "config.yaml").write_text((root / "full" / "config.yaml").read_text())
    (broken / "checkpoints" / "last.pt").write_bytes(data[:1000])
    with pytest.raises(CheckpointError, match="truncated or corrupted"):
        train(run_dir=broken, resume=True, verbose=False)
    # another variant / observation size
    ck = load_file(last)
    ck["variant"] = dict(ck["variant"], name="italian")
    save_file(ck, broken / "checkpoints" / "last.pt")
    with pytest.raises(CheckpointError, match="variant"):
        train(run_dir=broken, resume=True, verbose=False)
    ck["variant"] = dict(load_file(last)["variant"], obs_size=123)
    save_file(ck, broken / "checkpoints" / "last.pt")
    with pytest.raises(CheckpointError, match="observation size"):
        train(run_dir=broken, resume=True, verbose=False)
    # a policy for another layout
    pol = load_file(root / "full" / "policy.pt")
    pol["spec"] = dict(pol["spec"], blocks=dict(pol["spec"]["blocks"], misc=16))
    save_file(pol, tmp_path / "other_layout.pt")
    with pytest.raises(CheckpointError, match="observation layout"):
        PPOAgent(tmp_path / "other_layout.pt")
    # observations of another table size
    agent = PPOAgent(root / "full" / "policy.pt")
    env2 = VectorEnv("argentine", 2, num_envs=2, seed=0)
    obs, mask, _ = env2.reset()
    with pytest.raises(ValueError, match="observations of size"):
        agent.act(obs, mask)


@pytest.mark.skipif(not pretrained_path().is_file(), reason="no pretrained policy shipped")
def test_pretrained_policy_loads_and_acts():
    agent = make_agent("ppo", seed=1)
    env = VectorEnv("argentine", 4, num_envs=8, seed=0)
    obs, mask, _ = env.reset()
    for _ in range(20):
        a = agent.act(obs, mask)
        assert mask[np.arange(8), a].all()
        obs, mask, _ = env.step(a)


@pytest.mark.parametrize("card_features", [True, False, "context"])
def test_legal_only_logits_match_the_full_logits(card_features):
    """forward computes the logits of the listed ids only, kind by kind (draw / peek,
    openings, adds to a meld slot, discards): the same values and gradients as the dense
    heads of full_logits, on random id lists mixing legal ids (adds to melds in play) and
    arbitrary ones (adds to empty slots)."""
    env = VectorEnv("argentine", 4, num_envs=16, seed=3)
    greedy = make_agent("greedy", seed=0)
    obs, mask, _ = env.reset()
    seen_obs, seen_mask = [], []
    for step in range(120):
        if step % 20 == 0:
            seen_obs.append(obs.copy())
            seen_mask.append(mask.copy())
        obs, mask, _ = env.step(greedy.act(obs, mask))
    obs = torch.from_numpy(np.concatenate(seen_obs))
    mask = np.concatenate(seen_mask)
    torch.manual_seed(0)
    net = BurakoNet(
        4,
        env.variant.total_cards,
        hidden=32,
        encoder=16,
        meld_dim=8,
        card_features=bool(card_features),
        card_context=card_features == "context",
    )
    for p in net.parameters():  # the heads start near zero: make every term count
        p.data.normal_(0.0, 0.3)
    rng = np.random.default_rng(0)
    n, width = len(obs), 24
    legal = np.zeros((n, width), np.int64)
    counts = rng.integers(1, width + 1, n)
    for i in range(n):
        ids = np.flatnonzero(mask[i])
        pool = np.concatenate([ids, rng.integers(0, mask.shape[1], 12)])
        legal[i] = rng.choice(pool, width)
    legal, valid = padded(legal, counts)
    bounds = torch.tensor([OPEN_GROUP_BASE, ADD_BASE, DISCARD_BASE])
    kinds = torch.bucketize(legal[valid], bounds, right=True)
    assert set(kinds.tolist()) == {0, 1, 2, 3}  # every kind of id is listed
    listed = torch.zeros(mask.shape, dtype=torch.bool)
    listed[torch.nonzero(valid)[:, 0], legal[valid]] = True
    legal_adds = torch.from_numpy(mask[:, ADD_BASE:DISCARD_BASE]) & listed[:, ADD_BASE:DISCARD_BASE]
    assert legal_adds.any()  # adds to melds in play

    logits, _ = net(obs, legal, valid)
    assert (logits[~valid] == MASKED_LOGIT).all()
    full = net.full_logits(obs).gather(1, legal)
    torch.testing.assert_close(logits[valid], full[valid], rtol=1e-5, atol=1e-5)
    weights = torch.randn(int(valid.sum()))
    grads = []
    for out in (logits, full):
        net.zero_grad(set_to_none=True)
        (out[valid] * weights).sum().backward(retain_graph=True)
        grads.append([torch.zeros_like(p) if p.grad is None else p.grad for p in net.parameters()])
    for name, g_sparse, g_dense in zip([k for k, _ in net.named_parameters()], *grads, strict=True):
        torch.testing.assert_close(
            g_sparse, g_dense, rtol=1e-4, atol=1e-5, msg=lambda m, name=name: f"{name}: {m}"
        )


def test_imitation_returns_follow_each_seat():
    # one game, two seats: 0, 1, 0, 1 (the hand ends: team 0 +1, team 1 -1), then seat 0
    # opens the next episode, still running when the collection stops
    seats = np.array([[0], [1], [0], [1], [0]])
    ended = np.array([[0], [0], [0], [1], [0]], bool)
    rewards = np.zeros((5, 1, 2))
    rewards[3, 0] = [1.0, -1.0]
    returns, has = _returns(seats, ended, rewards, 2, 0.9)
    np.testing.assert_allclose(returns[:, 0], [0.9, -0.9, 1.0, -1.0, 0.0], rtol=1e-6)
    assert has[:, 0].tolist() == [True, True, True, True, False]


def test_behaviour_cloning_fits_the_teacher():
    env = VectorEnv("argentine", 4, num_envs=32, seed=4)
    demo = collect_demonstrations("discard_table", env, steps=60, gamma=0.99, seed=1)
    assert len(demo) == 32 * 60 and demo.episodes > 0 and demo.has_return.any()
    counts = np.diff(demo.store.offsets[: len(demo) + 1])
    assert (demo.store.pick[: len(demo)] < counts).all()
    torch.manual_seed(0)
    net = BurakoNet(4, env.variant.total_cards, hidden=32, encoder=16, meld_dim=8)
    epochs: list[dict] = []
    behaviour_clone(
        net, demo, 6, 128, 3e-3, np.random.default_rng(0), log=lambda s, e: epochs.append(s)
    )
    assert len(epochs) == 6
    assert epochs[-1]["policy_loss"] < 0.8 * epochs[0]["policy_loss"]
    assert epochs[-1]["accuracy"] > epochs[0]["accuracy"]
    assert epochs[-1]["value_loss"] < epochs[0]["value_loss"]


def test_behaviour_cloning_steps_large_first_and_fine_at_the_end():
    """The warm start's learning rate: the rate given on the first minibatch, then lower
    at every step (a cosine), ending near zero."""
    from torch.optim.optimizer import register_optimizer_step_pre_hook

    env = VectorEnv("argentine", 4, num_envs=8, seed=4)
    demo = collect_demonstrations("greedy", env, steps=8, gamma=0.99, seed=1)
    torch.manual_seed(0)
    net = BurakoNet(4, env.variant.total_cards, hidden=16, encoder=8, meld_dim=4)
    rates: list[float] = []
    hook = register_optimizer_step_pre_hook(
        lambda optimizer, args, kwargs: rates.append(optimizer.param_groups[0]["lr"])
    )
    try:
        behaviour_clone(net, demo, 3, 16, 1e-3, np.random.default_rng(0))
    finally:
        hook.remove()
    assert len(rates) == 3 * len(demo) // 16
    assert rates[0] == pytest.approx(1e-3)
    assert (np.diff(rates) < 0).all()
    assert rates[-1] < 0.05 * rates[0]


def test_hint_network_reads_its_hint_policy():
    env = VectorEnv("argentine", 4, num_envs=64, seed=7)
    obs, mask, _ = env.reset()
    greedy = make_agent("greedy", seed=0)
    for _ in range(30):  # states past the first turns: melds, discards, pile
        obs, mask, _ = env.step(greedy.act(obs, mask))
    torch.manual_seed(0)
    net = BurakoNet(
        4, env.variant.total_cards, hidden=32, encoder=16, meld_dim=8, hint="discard_table"
    )
    assert BurakoNet.from_spec(net.spec()).hparams["hint"] == "discard_table"
    ids, counts = legal_lists(mask)
    legal, valid = padded(ids, counts)
    o = torch.from_numpy(obs.copy())
    states = np.tile(HINT_RNG_STATE, (len(obs), 1))
    teacher = act_batch(POLICY_DISCARD_TABLE, obs, mask, states, default_weights())
    hint = net.hints(o, legal, valid)
    assert (legal.gather(1, hint[:, None]).squeeze(1).numpy() == teacher).all()
    assert torch.equal(net.hints(o, legal, valid, mask), hint)  # the mask given or rebuilt
    with torch.no_grad():
        # without the hint (-1) the logits are those of the same network without one
        plain = BurakoNet(4, env.variant.total_cards, hidden=32, encoder=16, meld_dim=8)
        plain.load_state_dict(net.state_dict(), strict=False)
        off, _ = net(o, legal, valid, torch.full((len(obs),), -1))
        torch.testing.assert_close(off, plain(o, legal, valid)[0])
        on, _ = net(o, legal, valid)
        assert not torch.allclose(on, off)
        # a large bonus makes the policy the hint policy
        net.hint_gain.fill_(100.0)
        actions, _, _, _ = net.act(o, legal, valid, greedy=True)
        assert (actions.numpy() == teacher).all()


def test_policy_of_another_action_space_is_refused(tmp_path):
    """A policy trained before rules v1 (1,773 ids) is refused, naming both sizes."""
    from burako_env.core.constants import NUM_ACTIONS
    from burako_env.training.checkpoint import CheckpointError, load_network, policy_dict, save_file
    from burako_env.training.network import BurakoNet
    from burako_env.variants import load_variant

    v = load_variant("argentine", num_players=4)
    net = BurakoNet(4, v.total_cards, hidden=16, encoder=8, meld_dim=8)
    data = policy_dict(net, v, net.obs_size)
    data["spec"]["num_actions"] = 1773
    save_file(data, tmp_path / "old.pt")
    with pytest.raises(CheckpointError, match=f"1773 ids; this engine .* has {NUM_ACTIONS}"):
        load_network(tmp_path / "old.pt")
    data["spec"]["num_actions"] = NUM_ACTIONS
    save_file(data, tmp_path / "new.pt")
    load_network(tmp_path / "new.pt")


def test_evaluate_plays_the_policy_files_own_table_and_its_unseen_opponents(capsys):
    from burako_env.agents.ppo_agent import pretrained_path
    from burako_env.training import evaluate

    assert {"discard_table:cautious", "discard_table:thrifty"} <= set(evaluate.DEFAULT_OPPONENTS)
    res = evaluate.evaluate_policy(pretrained_path(), ("random", "discard_table:thrifty"), hands=4)
    assert set(res) == {"random", "discard_table:thrifty"}
    assert all(r["hands"] == 4 and r["wins"] + r["losses"] + r["ties"] == 4 for r in res.values())
    with pytest.raises(ValueError, match="trained for argentine, 4 players"):
        evaluate.evaluate_policy(pretrained_path(), ("random",), hands=2, variant="italian")
    import sys

    argv = sys.argv
    sys.argv = ["evaluate", "--policy", "no/such/policy.pt", "--hands", "2"]
    try:
        with pytest.raises(SystemExit) as exc:
            evaluate.main()
    finally:
        sys.argv = argv
    assert exc.value.code == 2 and "no/such/policy.pt" in capsys.readouterr().err


@pytest.mark.parametrize("variant", ["argentine", "italian", "brazilian", "colombian"])
def test_each_variant_has_a_hint_free_config_that_keeps_its_unseen_opponents_unseen(variant):
    from burako_env.agents.heuristic import WEIGHT_PRESETS
    from burako_env.training.config import shipped_configs

    assert variant in shipped_configs()
    cfg = load_config(variant)
    assert cfg.env.variant == variant and cfg.name == variant
    assert cfg.network.hint is None  # the shipped policies read the observation only
    unseen = {f"discard_table:{p}" for p in WEIGHT_PRESETS}
    met = set(cfg.league.heuristics) | {cfg.imitation.teacher}
    assert not met & unseen  # neither league nor warm start plays them
    assert set(cfg.eval.opponents) & unseen  # and the evaluations do


def test_burako_train_runs_the_shipped_policys_recipe_by_default():
    """With no --config, `burako train` runs argentine.yaml, the hint-free recipe that the
    shipped 4-player argentine policy came from (docs/TRAINING.md: the oracle run and its
    two fine-tunes, runs G and G3, as one run of three schedules of 32 M env steps)."""
    import inspect

    from burako_env.frontends.commands.train import train

    default = inspect.signature(train).parameters["config"].default
    assert default == "argentine"
    cfg = load_config(default)
    assert cfg.network.hint is None and cfg.network.card_context
    assert (cfg.env.variant, cfg.env.num_players) == ("argentine", 4)
    assert cfg.network.oracle_critic
    assert cfg.ppo.total_env_steps == 32_000_000 and cfg.ppo.lr == 6e-4
    assert cfg.fine_tunes == [{"ppo.lr": 3e-4}, {"ppo.lr": 3e-4}]


def test_card_context_reads_run_neighbours_and_rank_copies():
    from burako_env.agents.network import _rank_context

    def cards(*pairs):  # (suit, rank index: 0 ace, 1 the 2, ..., 12 king) -> counts [1, 53]
        v = torch.zeros(1, 53)
        for suit, rank in pairs:
            v[0, suit * 13 + rank] += 1
        return v

    hand = cards((0, 3), (0, 5), (0, 12), (1, 4), (1, 4))  # 4 and 6 of suit 0, its king, two 5s
    pile = cards((2, 4), (3, 4))
    opp = cards((3, 12))
    table = cards((1, 12), (2, 12))
    near1, near2, in_hand, in_pile, opp_known, opp_table = _rank_context(hand, pile, opp, table)
    five = 0 * 13 + 4
    assert near1[0, five] == 1.0  # the 4 and the 6 of its suit are held
    assert near2[0, 0 * 13 + 1] == 0.5  # the 2 of suit 0: the 4 two ranks up (not the king)
    assert near1[0, 0] == 0.5  # the ace neighbours the king
    assert near1[0, 1 * 13 + 4] == 0.0  # suit 1's 5: no suit-1 neighbour held
    assert in_hand[0, 2 * 13 + 4] == 0.5  # any 5: the two 5s of suit 1, times 0.25
    assert in_pile[0, five] == 0.5 and opp_known[0, 12] == 0.5 and opp_table[0, 12] == 0.5
    assert all(f[0, 52] == 0 for f in (near1, in_hand, in_pile))  # the joker has no rank


def test_card_context_is_saved_in_the_spec_and_needs_card_features():
    from burako_env.training.config import ConfigError

    net = BurakoNet(4, 108, hidden=16, encoder=8, meld_dim=8, card_context=True)
    assert net.spec()["card_context"] is True
    assert BurakoNet.from_spec(net.spec()).num_card_features == net.num_card_features
    old = BurakoNet(4, 108, hidden=16, encoder=8, meld_dim=8).spec()
    assert "card_context" not in old  # files saved before it read the same as ever
    assert BurakoNet.from_spec(old).num_card_features == 10
    with pytest.raises(ValueError, match="needs card_features"):
        BurakoNet(4, 108, card_features=False, card_context=True)
    with pytest.raises(ConfigError, match="network.card_context"):
        load_config("tiny", ["network.card_features=false", "network.card_context=true"])


@pytest.mark.parametrize("players", [4, 2])
def test_card_history_counts_the_pile_by_who_discarded_it(players):
    """The top card is the discard of the seat before the viewer, the one below it of
    the seat before that: at 4 players the top is the previous opponent's, then the
    partner's, the next seat's, the viewer's own; at 2 the opponent's and the viewer's.
    The compiled featurizer reads the same."""
    net = BurakoNet(players, 108, 16, 8, 8, card_context=True, card_history=True)
    assert net.num_card_features == 20
    obs = np.zeros((1, net.obs_size), np.int16)
    pile = [7, 20, 33, 46, 7]  # card ids from the bottom up: the 8 of suit 0 twice
    lay = net.layout
    obs[0, lay.pile_order : lay.pile_order + len(pile)] = np.array(pile) + 1
    o = torch.from_numpy(obs)
    for inp in (net.reference_inputs(o), net._compiled_inputs(o)):
        own, next_seat, partners, others = (inp.cards[0, :, 16 + g] for g in range(4))
        if players == 4:  # top: 7 (seat before), 46 (partner), 33 (next), 20 (own), 7
            assert others[7] == 1.0 and partners[46] == 0.5 and next_seat[33] == 0.5
            assert own[20] == 0.5
        else:  # top: 7 (the opponent), 46 (own), 33 (opponent), 20 (own), 7 (opponent)
            assert next_seat[7] == 1.0 and own[46] == 0.5 and next_seat[33] == 0.5
            assert own[20] == 0.5 and partners.sum() == 0 and others.sum() == 0
        assert sum(float(f.sum()) for f in (own, next_seat, partners, others)) == 2.5
    obs[0, lay.pile_order : lay.pile_order + 108] = 0  # an empty pile: nothing
    assert float(net.reference_inputs(torch.from_numpy(obs)).cards[0, :, 16:].sum()) == 0


def test_card_history_is_saved_in_the_spec_and_needs_card_features():
    from burako_env.training.config import ConfigError

    net = BurakoNet(4, 108, hidden=16, encoder=8, meld_dim=8, card_history=True)
    assert net.spec()["card_history"] is True and net.num_card_features == 14
    assert BurakoNet.from_spec(net.spec()).num_card_features == 14
    assert "card_history" not in BurakoNet(4, 108, hidden=16, encoder=8, meld_dim=8).spec()
    with pytest.raises(ValueError, match="needs card_features"):
        BurakoNet(4, 108, card_features=False, card_history=True)
    with pytest.raises(ConfigError, match="network.card_history"):
        load_config("tiny", ["network.card_features=false", "network.card_history=true"])


def test_a_resume_may_change_the_league_agents(tmp_path):
    """``--set league.heuristics...`` on a resume: agents are matched by name, a new one
    enters the league at rating 1000, a dropped one's games in flight turn into self-play
    games, and the snapshots' games follow their snapshots."""
    from burako_env.training.league import SELF, League

    run = tmp_path / "run"
    train(TINY, QUICK, run_dir=run, stop_after=2, verbose=False)
    saved = load_file(run / "checkpoints" / "last.pt")
    before = saved["league"]
    assert before["agent_names"] == ["greedy", "discard_table"] and before["snapshots"]
    before["opponent"][:4] = torch.tensor([SELF, 0, 1, 2])  # self, greedy, table, snapshot
    old = before["opponent"].numpy().copy()
    cases = {  # override -> new id of each old id: self, greedy, discard_table, snapshots
        "league.heuristics.random=0.3": lambda o: np.where(o >= 0, o + 1, SELF),
        "league.heuristics.greedy=0": lambda o: np.where(o >= 1, o - 1, SELF),
    }
    for change, new_id in cases.items():
        league = League(
            load_config(TINY, [change]).league, saved["spec"], 16, 4, np.random.default_rng(0)
        )
        league.load_state_dict(copy.deepcopy(before))
        assert np.array_equal(league.opponent, new_id(old)), change
    assert league.agent_names == ["discard_table"] and "greedy" not in league.ratings
    assert league.ratings["discard_table"] == before["ratings"]["discard_table"]

    add = ["league.heuristics.random=0.3"]
    train(run_dir=run, overrides=add, resume=True, verbose=False)
    after = load_file(run / "checkpoints" / "last.pt")
    assert after["progress"]["update"] == 4
    assert after["league"]["agent_names"] == ["random", "greedy", "discard_table"]
    assert "random" in after["league"]["ratings"]
    opp = after["league"]["opponent"].numpy()
    assert opp.min() >= SELF and opp.max() < 3 + len(after["league"]["snapshots"])


#: random enters and greedy leaves the tiny run's league from update 3 (of 4)
CHANGE = ["league.changes=[{update: 3, heuristics.random: 0.3, heuristics.greedy: 0}]"]


@pytest.fixture(scope="module")
def changing(tmp_path_factory):
    """The tiny run whose league changes at update 3, in turn and with ``overlap``: each
    uninterrupted, and stopped after update 2 and resumed."""
    root = tmp_path_factory.mktemp("changes")
    for name, extra in (("serial", []), ("overlap", ["overlap=true"])):
        train(TINY, QUICK + CHANGE + extra, run_dir=root / name, verbose=False)
        split = root / f"{name}-split"
        train(TINY, QUICK + CHANGE + extra, run_dir=split, stop_after=2, verbose=False)
        train(run_dir=split, resume=True, verbose=False)
    return root


def test_the_league_changes_at_its_update_and_a_run_resumes_across_it(changing, runs):
    plain = load_file(runs[0] / "full" / "checkpoints" / "last.pt")
    for name in ("serial", "overlap"):
        a = load_file(changing / name / "checkpoints" / "last.pt")
        b = load_file(changing / f"{name}-split" / "checkpoints" / "last.pt")
        for key in ("model", "optimizer", "league", "rng", "env", "trainer", "progress"):
            assert _same(a[key], b[key]) == [], (name, key)
        assert a["progress"]["league_changes"] == 1
        assert a["league"]["agent_names"] == ["random", "discard_table"]
        assert "random" in a["league"]["ratings"] and "greedy" not in a["league"]["ratings"]
        assert _same(a["model"], plain["model"]) != []  # the change changes the run
    # up to update 2 the serial run is the run without the change...
    early = load_file(changing / "serial" / "checkpoints" / "update_000002.pt")
    assert early["progress"]["league_changes"] == 0
    unchanged = load_file(runs[0] / "full" / "checkpoints" / "update_000002.pt")
    for key in ("model", "league", "rng", "env", "trainer"):
        assert _same(early[key], unchanged[key]) == [], key
    # ...and the overlapped one has collected update 3's rollout with the new mix beside
    # update 2: its checkpoint holds the changed league
    early = load_file(changing / "overlap" / "checkpoints" / "update_000002.pt")
    assert early["progress"]["league_changes"] == 1 and early["trainer"]["collected"]
    assert early["league"]["agent_names"] == ["random", "discard_table"]


def test_league_changes_are_checked_entry_by_entry_and_stay_in_their_schedule(tmp_path):
    bad = {
        "[{update: 0, self_play: 1}]": r"league.changes\[0\].update",
        "[{update: 3}, {update: 2}]": r"league.changes\[1\].update",
        "[{update: 5, self_play: 1}]": r"at most the schedule's 4 updates",
        "[{update: 2, ppo.lr: 1.0}]": r"league.changes\[0\].ppo.lr: an entry sets the mix",
        "[{update: 2, heuristics.greedy: -1}]": r"league.changes\[0\].heuristics.greedy",
        "[{update: 2, heuristics.nobody: 1}]": r"league.changes\[0\].heuristics': agent",
        "[{update: 2, self_play: 0, snapshots: 0, heuristics: {}}]": "positive sum",
    }
    for value, message in bad.items():
        with pytest.raises(ConfigError, match=message):
            load_config(TINY, [f"league.changes={value}"])
    cfg = load_config(TINY, CHANGE + ["fine_tunes=[{ppo.lr: 1.0e-4}]"])
    first, tune = schedule_configs(cfg)
    assert first.league.changes == cfg.league.changes and tune.league.changes == []
    with pytest.raises(ConfigError, match="league.changes"):  # refused before Ray starts
        train(TINY, CHANGE, run_dir=tmp_path / "run", ray=True, verbose=False)
    assert not (tmp_path / "run").exists()


def test_init_policy_starts_the_run_from_a_policy_file_and_refuses_a_foreign_one(runs, tmp_path):
    """``init_policy``: the run starts from the file's network (no warm start); a file of
    another network, table or none at all is refused before any run folder is made."""
    root, _, _ = runs
    policy = root / "full" / "policy.pt"
    tuned = train(
        TINY, QUICK + [f"init_policy={policy}"], run_dir=tmp_path / "ft", stop_after=0,
        verbose=False,
    )  # fmt: skip
    assert tuned["update"] == 0
    start = load_file(tmp_path / "ft" / "checkpoints" / "last.pt")
    assert start["progress"]["imitated"]
    given = load_file(policy)["model"]
    assert set(start["model"]) == set(given)
    assert all(torch.equal(start["model"][k], given[k]) for k in given)
    bad = {
        "network.hidden=16": "another network (hidden 32 here 16)",  # wider: widened
        "env.variant=italian": "cannot play italian",
        f"init_policy={tmp_path / 'none.pt'}": "no checkpoint at",
    }
    for override, says in bad.items():
        with pytest.raises(CheckpointError, match=re.escape(says)):
            train(TINY, QUICK + [f"init_policy={policy}", override], run_dir=tmp_path / "x")
        assert not (tmp_path / "x").exists()
    with pytest.raises(CheckpointError, match=re.escape("another network (hidden 32 here 48)")):
        train(run_dir=tmp_path / "ft", overrides=["network.hidden=48"], resume=True)
    # every key that differs is named, each with the file's value and the config's
    two = re.escape("another network (encoder 16 here 8, hidden 32 here 48): set the config's")
    with pytest.raises(CheckpointError, match=two):
        train(
            run_dir=tmp_path / "ft", overrides=["network.hidden=48", "network.encoder=8"],
            resume=True,
        )  # fmt: skip


def test_init_policy_adds_or_leaves_out_the_training_only_heads(runs, tmp_path):
    """A policy fine-tunes with an oracle critic it was not trained with: its weights
    start the run, the critic's head starts fresh; a file with such a head starts a run
    without one (the head left out). Any other difference is still refused."""
    root, _, _ = runs
    policy = root / "full" / "policy.pt"
    given = load_file(policy)["model"]
    assert not any(k.startswith("oracle_") for k in given)
    train(
        TINY, QUICK + [f"init_policy={policy}", "network.oracle_critic=true"],
        run_dir=tmp_path / "oracle", stop_after=0, verbose=False,
    )  # fmt: skip
    start = load_file(tmp_path / "oracle" / "checkpoints" / "last.pt")
    added = set(start["model"]) - set(given)
    assert added and all(k.startswith(("oracle_enc.", "oracle_head.")) for k in added)
    assert all(torch.equal(start["model"][k], given[k]) for k in given)
    train(
        TINY, QUICK + [f"init_policy={tmp_path / 'oracle' / 'checkpoints' / 'last.pt'}"],
        run_dir=tmp_path / "back", stop_after=0, verbose=False,
    )  # fmt: skip
    back = load_file(tmp_path / "back" / "checkpoints" / "last.pt")["model"]
    assert set(back) == set(given)
    assert all(torch.equal(back[k], given[k]) for k in given)
    with pytest.raises(CheckpointError, match=re.escape("another network (encoder 16 here 8)")):
        train(
            TINY, QUICK + [f"init_policy={policy}", "network.oracle_critic=true",
                           "network.encoder=8"], run_dir=tmp_path / "x",
        )  # fmt: skip
    assert not (tmp_path / "x").exists()


def test_device_auto_trains_where_torch_sees_a_gpu_and_a_missing_gpu_is_named(tmp_path):
    """``device: auto`` is the CPU here (no GPU in CI) and CUDA where torch sees one;
    asking for a GPU that torch does not see is a ConfigError saying what to set."""
    from burako_env.training.config import ConfigError, load_config
    from burako_env.training.runtime import resolve_device

    expected = "cuda" if torch.cuda.is_available() else "cpu"
    assert resolve_device("auto").type == expected
    assert resolve_device("cpu").type == "cpu"
    with pytest.raises(ConfigError, match="torch sees"):
        resolve_device(f"cuda:{torch.cuda.device_count()}")
    with pytest.raises(ConfigError, match="device"):
        load_config("tiny", ["device=tpu"])


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")
def test_a_run_on_the_gpu_plays_the_games_on_the_cpu_and_saves_cpu_weights(tmp_path):
    from burako_env.training.run import train

    out = train("tiny", ["device=cuda", "eval.every=0"], run_dir=tmp_path / "gpu", verbose=False)
    data = torch.load(Path(out["run_dir"]) / "policy.pt", weights_only=True)
    assert all(t.device.type == "cpu" for t in data["model"].values())


def test_the_update_gives_the_same_network_on_one_and_two_threads(tmp_path):
    """What lets ``update_threads: auto`` follow the machine's load: the PPO update's
    results do not depend on torch's thread count (the rollout's ``torch_threads`` do)."""
    from burako_env.training.config import load_config
    from burako_env.training.ppo import Trainer

    weights = []
    for threads in (1, 2):
        cfg = load_config(
            "argentine",
            [f"update_threads={threads}", "env.num_envs=256", "ppo.num_steps=16"]
            + ["overlap=false"]  # beside the rollout thread the update keeps to one thread
            + ["imitation.env_steps=0"],
        )
        trainer = Trainer(cfg, tmp_path / str(threads))
        trainer.update = 1
        for _ in range(2):
            trainer.collect()
            trainer.learn()
        assert trainer.update_threads.chosen == threads
        weights.append(trainer.net.state_dict())
    for name, value in weights[0].items():
        assert torch.equal(value, weights[1][name]), name


def test_auto_update_threads_time_each_count_and_keep_the_fastest(monkeypatch):
    from burako_env.training import runtime

    threads = runtime.UpdateThreads("auto")
    threads.cores = 4
    monkeypatch.setattr(runtime, "busy_cores", lambda: 1)
    assert threads.choose() == 1  # one thread is timed first
    threads.record(1.0, 1000)
    assert threads.choose() == 3  # then the idle cores
    threads.record(1.5, 1000)  # slower per transition than one thread
    assert threads.choose() == 1  # the fastest is kept
    threads.record(1.0, 1000)
    monkeypatch.setattr(runtime, "busy_cores", lambda: 6)
    assert threads.choose() == 1  # every core busy: one thread
    monkeypatch.setattr(runtime, "busy_cores", lambda: 2)
    assert threads.choose() == 2  # two idle cores: a count not timed yet
    threads.record(0.5, 1000)
    assert threads.choose() == 2  # faster: kept
    while threads.updates % runtime.UpdateThreads.PROBE_EVERY:
        threads.choose()
    assert threads.choose() == 1  # every count timed again
    fixed = runtime.UpdateThreads(3)
    monkeypatch.setattr(runtime, "busy_cores", lambda: 0)
    assert fixed.choose() == 3


def test_an_update_runs_on_its_threads_and_gives_the_learners_back(monkeypatch):
    """``UpdateThreads.running``: alone, torch runs the chosen count, the time is recorded
    per transition and torch goes back to ``torch_threads`` (after an error too);
    beside the rollout, one torch and one numba thread, numba's count given back and
    nothing recorded."""
    import numba

    from burako_env.training import runtime

    torch_before, numba_before = torch.get_num_threads(), numba.get_num_threads()
    monkeypatch.setattr(runtime, "busy_cores", lambda: 0)
    try:
        fixed = runtime.UpdateThreads(2)
        with fixed.running(100, overlapped=False, torch_threads=1) as clock:
            assert torch.get_num_threads() == 2
        assert torch.get_num_threads() == 1 and clock.seconds > 0
        assert fixed.seconds == {}  # a fixed count is never timed
        auto = runtime.UpdateThreads("auto")
        auto.cores = 1
        with auto.running(100, overlapped=False, torch_threads=2) as clock:
            pass
        timed = {1: clock.seconds / 100}
        assert auto.seconds == timed and torch.get_num_threads() == 2
        with pytest.raises(RuntimeError, match="update failed"):
            with auto.running(100, overlapped=False, torch_threads=1):
                raise RuntimeError("update failed")
        assert torch.get_num_threads() == 1 and auto.updates == 2
        with auto.running(100, overlapped=True, torch_threads=2):
            assert torch.get_num_threads() == 1 and numba.get_num_threads() == 1
        assert numba.get_num_threads() == numba_before
        assert auto.updates == 2 and auto.seconds == timed  # not chosen, not timed
    finally:
        torch.set_num_threads(torch_before)
        numba.set_num_threads(numba_before)


def test_the_rollout_thread_collects_beside_and_keeps_its_error_for_the_learner():
    import threading

    from burako_env.training import runtime

    before = torch.get_num_threads()
    ran: list[str] = []
    try:

        def collect() -> None:
            ran.append(threading.current_thread().name)

        with runtime.RolloutThread(collect, torch_threads=2) as rollout:
            assert torch.get_num_threads() == 1  # the learner's, while the rollout runs
        assert ran == ["burako-rollout"] and rollout.error is None
        assert torch.get_num_threads() == 2 and not rollout.is_alive()

        def fail() -> None:
            raise ValueError("the games broke")

        with runtime.RolloutThread(fail, torch_threads=1) as rollout:
            pass
        assert isinstance(rollout.error, ValueError) and torch.get_num_threads() == 1
    finally:
        torch.set_num_threads(before)


# ------------------------------------------------------ overlap: the rollout beside the update
OVERLAP = QUICK + ["overlap=true"]


@pytest.fixture(scope="module")
def overlapped(tmp_path_factory):
    """The tiny run with ``overlap``: twice uninterrupted, and stopped after 2 updates (a
    rollout collected beside update 2 then waits in the checkpoint) and resumed."""
    root = tmp_path_factory.mktemp("overlap")
    for name in ("a", "b"):
        train(TINY, OVERLAP, run_dir=root / name, verbose=False)
    train(TINY, OVERLAP, run_dir=root / "split", stop_after=2, verbose=False)
    waiting = load_file(root / "split" / "checkpoints" / "last.pt")["trainer"]
    assert waiting["collected"] and waiting["store"]["n"] > 0
    train(run_dir=root / "split", resume=True, verbose=False)
    return root


def test_an_overlapped_run_is_fixed_by_its_seed_and_resumes_exactly(overlapped, runs):
    ck = {n: load_file(overlapped / n / "checkpoints" / "last.pt") for n in ("a", "b", "split")}
    for key in ("model", "optimizer", "league", "rng", "env", "trainer", "progress"):
        assert _same(ck["a"][key], ck["b"][key]) == [], key
        assert _same(ck["a"][key], ck["split"][key]) == [], key
    evals = [(overlapped / n / "eval.jsonl").read_text() for n in ("a", "b", "split")]
    assert evals[0] == evals[1] == evals[2] and evals[0]
    assert ck["a"]["progress"]["global_step"] == 4 * 16 * 64  # the steps trained on
    assert not ck["a"]["trainer"]["collected"]  # nothing is collected after the last update
    # the setting changes the run (each rollout is played by the network one update older)
    serial = load_file(runs[0] / "full" / "checkpoints" / "last.pt")
    assert _same(ck["a"]["model"], serial["model"]) != []


def test_the_overlapped_rollout_is_played_by_the_network_before_the_update(tmp_path):
    from burako_env.training.ppo import Trainer

    cfg = load_config(TINY, ["overlap=true", "imitation.env_steps=0"])
    trainer = Trainer(cfg, tmp_path)
    trainer.update = 1
    trainer.collect_unless_collected()
    first = trainer.store
    pending = int(np.count_nonzero(trainer.last >= 0))  # stream heads, carried over
    before = copy.deepcopy(trainer.net.state_dict())
    trainer.learn()  # update 1 on the first rollout, the second collected meanwhile
    store = trainer.store
    assert store is not first and trainer.collected
    rows = np.arange(pending, store.n)  # the second rollout's decisions
    assert len(rows) > 100

    def stored_logp_with(weights) -> torch.Tensor:
        net = BurakoNet.from_spec(trainer.net.spec())
        net.load_state_dict(weights)
        legal, valid = store.lists(rows)
        with torch.no_grad():
            logp, _, _ = net.evaluate(
                torch.from_numpy(store.obs[rows]),
                legal,
                valid,
                torch.from_numpy(store.pick[rows]),
                torch.from_numpy(store.hint[rows]),
            )
        return logp

    saved = torch.from_numpy(store.logp[rows])
    assert torch.allclose(stored_logp_with(before), saved, atol=1e-5)
    assert not torch.allclose(stored_logp_with(trainer.net.state_dict()), saved, atol=1e-3)
    # the next update trains on it, without collecting again
    trainer.update = 2
    trainer.collect_unless_collected()
    assert trainer.store is store


def test_a_run_resumes_with_or_without_overlap_from_the_others_checkpoint(overlapped, tmp_path):
    import shutil

    run = tmp_path / "switched"
    shutil.copytree(overlapped / "split", run)
    # back to update 2's checkpoint, whose store holds the rollout collected beside update 2
    ck = run / "checkpoints"
    shutil.copyfile(ck / "update_000002.pt", ck / "last.pt")
    out = train(run_dir=run, resume=True, overrides=["overlap=false"], verbose=False)
    assert out["update"] == 4 and out["global_step"] == 4 * 16 * 64
    assert not load_file(ck / "last.pt")["trainer"]["collected"]


def test_the_rollout_plays_the_compiled_opponents_inside_the_table(tmp_path, monkeypatch):
    """Training plays its league at the table: no heuristic is stepped from Python, every
    stored decision is the learner's, and a rollout plays num_envs x num_steps env steps."""
    from burako_env.agents import policies
    from burako_env.training.ppo import Trainer

    def stepped_from_python(*args, **kwargs):
        raise AssertionError("a league heuristic was stepped from Python")

    monkeypatch.setattr(policies, "act_batch", stepped_from_python)
    cfg = load_config(
        TINY,
        [
            "imitation.env_steps=0",
            "league.self_play=0",
            "league.snapshots=0",
            "league.heuristics={greedy: 1.0, discard_table: 1.0}",
        ],
    )
    trainer = Trainer(cfg, tmp_path)
    assert trainer.table.python == []  # the learner is the only seat outside the kernel
    trainer.collect()
    n, games, steps = trainer.store.n, cfg.env.num_envs, cfg.ppo.num_steps
    assert n % games == 0  # one learner decision per game per step of the rollout
    # every game waits for a learner seat, of the learner's team
    seat = trainer.env.game.columns().player
    assert (seat % 2 == trainer.league.learner_team).all()
    # the rollout's env steps: its budget, the last step's overshoot at most a turn a game
    budget = games * steps
    assert budget <= trainer.rollout_env_steps < budget + games * 40
    # about two env steps per learner decision (the opponents' turns between)
    assert n < budget * 0.75
