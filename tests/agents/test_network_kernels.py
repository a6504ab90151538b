"""The policy network's compiled kernels (agents/network_kernels.py) against the torch
reference they replace: the same inputs, the same logits and values, the same gradients,
and the env's legal lists equal to the masks' (docs/TRAINING.md, Throughput)."""

from __future__ import annotations

import numba
import numpy as np
import pytest

torch = pytest.importorskip("torch")

from burako_env.agents import network as network_module  # noqa: E402
from burako_env.agents.network import (  # noqa: E402
    BurakoNet,
    CardPool,
    legal_lists,
    padded,
)
from burako_env.agents.network_kernels import POOL_CHUNKS, env_legal_lists  # noqa: E402
from burako_env.agents.ppo_agent import PPOAgent  # noqa: E402
from burako_env.envs.vector import VectorEnv  # noqa: E402

TABLES = [("argentine", 4), ("italian", 2), ("brazilian", 4), ("colombian", 6)]


def played_observations(variant: str, players: int, games: int = 64, steps: int = 90, seed=3):
    """Observations, masks and the env's info after ``steps`` random moves; the env."""
    env = VectorEnv(variant, players, num_envs=games, seed=seed)
    obs, mask, info = env.reset()
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        ids, counts = legal_lists(mask)
        obs, mask, info = env.step(ids[np.arange(games), rng.integers(0, counts)])
    return obs, mask, info, env


def network(
    players: int, total_cards: int, context: bool, features: bool = True, history: bool = False
):
    torch.manual_seed(0)
    return BurakoNet(
        players, total_cards, 64, 32, 32, features, None, card_context=context, card_history=history
    )


def dense_meld_rows(inp):
    """``inp`` with one meld row per row in use (the compiled inputs keep distinct rows)."""
    if inp.meld_of is None:
        return inp
    return inp._replace(meld_x=inp.meld_x[inp.meld_of], meld_of=None)


@pytest.mark.parametrize(("variant", "players"), TABLES)
@pytest.mark.parametrize("cards", ["history", "context", "features+history", "features", "none"])
def test_compiled_inputs_equal_the_torch_reference(variant, players, cards):
    obs, _, _, env = played_observations(variant, players)
    net = network(
        players,
        env.variant.total_cards,
        cards in ("context", "history"),
        cards != "none",
        history="history" in cards,
    )
    o = torch.from_numpy(obs)
    ref, got = net.reference_inputs(o), net._compiled_inputs(o)
    assert got.meld_of is not None and len(got.meld_x) < len(got.used)  # melds repeat
    got = dense_meld_rows(got)
    assert torch.equal(ref.used, got.used)
    assert torch.equal(ref.meld_x, got.meld_x)
    torch.testing.assert_close(ref.dense, got.dense, rtol=1e-6, atol=1e-6)
    if cards == "none":
        assert ref.cards is None and got.cards is None
    else:
        assert torch.equal(ref.cards, got.cards)


def test_compiled_inputs_of_out_of_range_observations_equal_the_reference():
    """Values no game produces (negative counts, meld fields past every range) are read
    as the torch path reads them: the meld rows the packing cannot hold are encoded on
    their own, never merged."""
    net = network(4, 108, True, history=True)
    rng = np.random.default_rng(0)
    obs = rng.integers(-3, 40, size=(40, net.obs_size)).astype(np.int16)
    lay = net.layout
    obs[:, lay.melds : lay.melds + 600 : 15] = rng.integers(-1, 4, size=(40, 40))  # kinds
    # the pile's order as games write it (card ids + 1 up to its top, then zeros) in half
    # the rows; in the rest gaps, negatives and ids past the cards (read, never indexed)
    order = rng.integers(1, 54, size=(40, 108))
    order[np.arange(108)[None, :] >= rng.integers(0, 109, size=(40, 1))] = 0
    order[20:] = rng.integers(-2, 80, size=(20, 108))
    obs[:, lay.pile_order : lay.pile_order + 108] = order
    o = torch.from_numpy(obs)
    ref, got = net.reference_inputs(o), dense_meld_rows(net._compiled_inputs(o))
    assert torch.equal(ref.used, got.used) and torch.equal(ref.meld_x, got.meld_x)
    assert torch.equal(ref.cards, got.cards)
    torch.testing.assert_close(ref.dense, got.dense, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("context", [False, True, "history"])
def test_kernels_give_the_reference_logits_values_and_gradients(context):
    obs, mask, _, _ = played_observations("argentine", 4, games=96)
    net = network(4, 108, bool(context), history=context == "history")
    legal, valid = padded(*legal_lists(mask))
    o = torch.from_numpy(obs)
    results = []
    for kernels in (False, True):
        net.card_kernels = kernels
        net.zero_grad()
        logits, values = net(o, legal, valid)
        (logits.clamp(min=-50).sum() * 0.01 + values.sum()).backward()
        grads = {k: p.grad.clone() for k, p in net.named_parameters() if p.grad is not None}
        results.append((logits.detach(), values.detach(), grads))
    (l0, v0, g0), (l1, v1, g1) = results
    torch.testing.assert_close(l0, l1, rtol=1e-5, atol=1e-5)
    torch.testing.assert_close(v0, v1, rtol=1e-5, atol=1e-5)
    assert g0.keys() == g1.keys() and "card_embed" in g0
    for name in g0:
        scale = float(g0[name].abs().max()) + 1e-6
        assert float((g0[name] - g1[name]).abs().max()) <= 1e-4 * scale, name


def test_card_pool_matches_torch_where_cards_tie_and_where_all_are_zero():
    """The pooled max's gradient goes to one card per column (as torch's ``max`` gives
    it), and none where every encoding is 0 after the ReLU."""
    feats = torch.zeros(3, 53, 4)
    feats[0, :, 0] = 1.0  # every card alike: a tie on every column
    feats[1, 5, 1] = 2.0
    feats[2] = -1.0  # with the weights below, every encoding is 0 after the ReLU
    wf = torch.ones(4, 6, requires_grad=True)
    per_card = torch.zeros(53, 6, requires_grad=True)
    total, top = CardPool.apply(feats, wf, per_card)
    (total.sum() + 3 * top.sum()).backward()
    z = torch.relu(feats @ wf.detach() + per_card.detach())
    torch.testing.assert_close(total, z.sum(1))
    torch.testing.assert_close(top, z.amax(1))
    # observation 0: 53 cards pass the sum's gradient, one of them the max's; obs 1: the
    # one card with a positive encoding; obs 2: none
    assert float(per_card.grad.sum()) == pytest.approx(6 * (53 + 3) + 6 * (1 + 3))
    assert float(per_card.grad[5].sum()) == pytest.approx(6 * 2 + 6 * 3)


@pytest.mark.parametrize("n", [1, POOL_CHUNKS - 1, 5 * POOL_CHUNKS - 3])
def test_card_pool_in_chunks_gives_torch_values_and_gradients(n):
    """Fewer observations than chunks, and chunks whose last one is short: every
    observation pooled once, each chunk's gradient added once."""
    gen = torch.Generator().manual_seed(n)
    feats = torch.randint(0, 3, (n, 53, 16), generator=gen).float() * 0.5
    feats[torch.rand(n, 53, 16, generator=gen) < 0.6] = 0.0
    wf = (torch.randn(16, 24, generator=gen) * 0.3).requires_grad_()
    per_card = (torch.randn(53, 24, generator=gen) * 0.3).requires_grad_()
    weights = torch.randn(2, n, 24, generator=gen)
    grads = []
    for pooled in (True, False):
        wf.grad = per_card.grad = None
        if pooled:
            total, top = CardPool.apply(feats, wf, per_card)
        else:
            z = torch.relu(feats @ wf + per_card)
            total, top = z.sum(1), z.max(1).values
        ((total * weights[0]).sum() + (top * weights[1]).sum()).backward()
        grads.append((total.detach(), top.detach(), wf.grad.clone(), per_card.grad.clone()))
    (total, top, grad_wf, grad_pc), want = grads
    torch.testing.assert_close(total, want[0], rtol=1e-5, atol=1e-5)
    torch.testing.assert_close(top, want[1], rtol=1e-5, atol=1e-5)
    for got, ref in ((grad_wf, want[2]), (grad_pc, want[3])):  # sums in another order
        assert float((got - ref).abs().max()) <= 1e-5 * float(ref.abs().max())


def test_torch_path_is_taken_without_the_compiler(monkeypatch):
    """Under NUMBA_DISABLE_JIT the kernels would run as Python loops: torch's path runs."""
    net = network(4, 108, True)
    obs, _, _, _ = played_observations("argentine", 4, games=8, steps=20)
    o = torch.from_numpy(obs)
    assert network_module.inputs_kernels_apply(o) == (not numba.config.DISABLE_JIT)
    monkeypatch.setattr(network_module, "_JIT_DISABLED", True)
    assert not network_module.inputs_kernels_apply(o)
    assert not network_module.card_kernels_apply(torch.zeros(2, 53, 16))
    assert net.inputs(o).meld_of is None  # the reference's inputs


@pytest.mark.parametrize(("variant", "players"), TABLES)
def test_env_legal_lists_equal_the_masks_lists(variant, players):
    env = VectorEnv(variant, players, num_envs=32, seed=5)
    obs, mask, info = env.reset()
    rng = np.random.default_rng(1)
    for _ in range(200):
        rows = np.flatnonzero(mask.any(1))
        ids, counts = legal_lists(mask[rows])
        got_ids, got_counts = env_legal_lists(info["legal"], info["num_legal"], rows)
        np.testing.assert_array_equal(got_ids, ids)
        np.testing.assert_array_equal(got_counts, counts)
        actions = np.zeros(32, np.int64)
        actions[rows] = ids[np.arange(len(rows)), rng.integers(0, counts)]
        obs, mask, info = env.step(actions)
    with pytest.raises(ValueError, match="without a legal action"):
        env_legal_lists(info["legal"], np.zeros_like(info["num_legal"]), np.array([0]))


def test_ppo_on_the_games_own_lists_chooses_what_it_chooses_from_the_masks():
    """A tournament hands ppo the games' own legal lists (``act_lists``): the same actions
    as ``act`` on the masks, sampled and greedy; a list count that fits no observation
    count is refused. A game's state holds the same lists as the env's info."""
    from burako_env.core.game import Game

    game = Game("argentine", num_players=4, batch_size=64, seed=4)
    rng = np.random.default_rng(2)
    for _ in range(60):
        game.step(np.array([rng.choice(game.legal_actions(b)) for b in range(64)]))
    rows = np.flatnonzero(~game.done)[::2]
    players = game.current_player[rows]
    obs = np.stack([game.observe_one(int(p), int(b)) for p, b in zip(players, rows, strict=True)])
    mask = game.legal_action_mask()[rows]
    ids, counts = env_legal_lists(game.state.legal, game.state.num_legal, rows)
    for greedy in (True, False):
        a, b = PPOAgent.shipped(greedy=greedy, seed=7), PPOAgent.shipped(greedy=greedy, seed=7)
        np.testing.assert_array_equal(a.act_lists(obs, mask, ids, counts), b.act(obs, mask))
    with pytest.raises(ValueError, match="legal lists for"):
        a.act_lists(obs, mask, ids[:-1], counts[:-1])


def test_batched_play_chooses_what_one_at_a_time_play_chooses():
    """The shipped policy at its greedy play: a batch of 200 observations gets the actions
    each gets alone (what tournaments rely on when they batch the waiting games)."""
    obs, mask, _, _ = played_observations("argentine", 4, games=200, steps=70, seed=11)
    agent = PPOAgent.pretrained(variant="argentine", num_players=4)
    assert agent.greedy
    batch = agent.act(obs, mask)
    alone = np.array([agent.act(obs[i : i + 1], mask[i : i + 1])[0] for i in range(len(obs))])
    np.testing.assert_array_equal(batch, alone)
    assert mask[np.arange(len(obs)), batch].all()
