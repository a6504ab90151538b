"""The AEC env's global state (``state()``, ``state_space``; burako_env.envs.global_state):
PettingZoo's own state checks, every state inside its space, the vector determining the
game (equal seeds and actions give equal vectors at every step, other deals other
vectors, a game restored from a vector continues exactly as the original, across hand
ends of a match too), its blocks read the core's arrays, and bad vectors refused."""

from __future__ import annotations

import random
import warnings

import numpy as np
import pytest
from gymnasium import spaces
from pettingzoo.test.state_test import test_state as pettingzoo_state_test
from pettingzoo.test.state_test import test_state_space as pettingzoo_state_space_test

from burako_env import burako_v1
from burako_env.checks import InvalidStateError
from burako_env.core.constants import JOKER, PHASE_OVER, S_HANDS_ENDED, S_PHASE, S_PLAYER
from burako_env.core.game import Game
from burako_env.envs.aec import raw_env
from burako_env.envs.global_state import EMPTY

CONFIGS = [
    ("argentine", 4, "hand"),
    ("colombian", 8, "hand"),
    ("brazilian", 2, "hand"),
    ("italian", 2, "match"),  # target 1000: several hands, dealt by the game's generator
]
IDS = [f"{v}-{n}-{e}" for v, n, e in CONFIGS]


def make(variant, players, episode, wrapped=True):
    kw = {"target": 1000} if episode == "match" else {}
    build = burako_v1.env if wrapped else raw_env
    return build(variant=variant, num_players=players, episode=episode, **kw)


def random_actions(env, rng: random.Random):
    """Random legal play through ``env`` (AEC), yielding before each decision."""
    for _ in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        action = int(legal[rng.randrange(len(legal))])
        yield action
        env.step(action)


# ------------------------------------------------------------------ the space
@pytest.mark.parametrize(("variant", "players", "episode"), CONFIGS, ids=IDS)
def test_pettingzoo_state_checks(variant, players, episode):
    env = make(variant, players, episode)
    env.reset(seed=0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # PettingZoo only warns: every warning fails here
        pettingzoo_state_space_test(env)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        # its play samples the whole action space: the first illegal move ends the game
        warnings.filterwarnings("ignore", message="illegal move by")
        pettingzoo_state_test(env, num_cycles=20)


@pytest.mark.parametrize(("variant", "players", "episode"), CONFIGS, ids=IDS)
def test_every_state_is_in_the_space(variant, players, episode):
    env = make(variant, players, episode)
    space = env.state_space
    lay = env.unwrapped.state_layout
    assert isinstance(space, spaces.Box) and space.dtype == np.int32
    assert space.shape == (lay.size,) and (space.low < space.high).all()
    assert list(lay) == [
        "hands",
        "known",
        "stock",
        "stock_len",
        "pile",
        "pile_len",
        "muertos",
        "muerto_status",
        "muerto_how",
        "muerto_taker",
        "melds",
        "num_melds",
        "scalars",
        "score_items",
        "rng",
    ]
    assert lay.spans()["hands"] == (0, players * 53)
    assert sum(b.stop - b.start for b in lay.values()) == lay.size
    for seed in (0, 1):
        env.reset(seed=seed)
        states = [env.state()]
        for _ in random_actions(env, random.Random(seed)):
            states.append(env.state())
        states.append(env.state())
        for s in states:
            assert s.dtype == np.int32 and space.contains(s)
        assert len({s.tobytes() for s in states}) > len(states) // 2


def test_state_is_a_fresh_array_and_reads_the_core():
    env = raw_env(variant="argentine", num_players=4)
    env.reset(seed=5)
    s = env.state()
    assert env.state() is not s
    s[:] = 0  # a copy: the game is untouched
    s = env.state()
    st, lay = env.game.state, env.state_layout

    def block(name):
        b = lay[name]
        return s[b.slice].reshape(b.shape)

    assert np.array_equal(block("hands"), st.hands[0])  # every hand, hidden ones too
    n = int(st.stock_len[0])
    assert block("stock_len")[0] == n and n > 0
    assert np.array_equal(block("stock")[:n], st.stock[0, :n])  # in order
    assert (block("stock")[n:] == EMPTY).all()
    assert np.array_equal(block("muertos"), st.muertos[0])
    assert np.array_equal(block("scalars"), st.scalars[0])
    assert block("scalars")[S_PLAYER] == env.agent_name_mapping[env.agent_selection]
    halves = block("rng").astype(np.int64)
    words = halves[0::2] | (halves[1::2] << 16)
    assert np.array_equal(words, st.rng[0])
    assert "StateLayout('argentine', 4 players" in repr(lay)


def test_encode_names_a_game_outside_the_batch():
    """``encode(state, b)`` refuses every ``b`` outside ``0..len - 1`` with the batch's
    size in the message, the first one past the end included."""
    game = Game("argentine", 4, batch_size=3, seed=0)
    lay = raw_env(variant="argentine", num_players=4).state_layout
    assert lay.encode(game.state, 2).shape == (lay.size,)
    for b in (3, -1):
        with pytest.raises(IndexError, match=f"game {b} is outside a batch of 3 games"):
            lay.encode(game.state, b)


# ------------------------------------------------------------------ the state decides the game
@pytest.mark.parametrize(("variant", "players", "episode"), CONFIGS, ids=IDS)
def test_equal_seeds_and_actions_give_equal_states_other_deals_other_states(
    variant, players, episode
):
    a, b, c = (make(variant, players, episode) for _ in range(3))
    a.reset(seed=11)
    b.reset(seed=11)
    c.reset(seed=12)
    assert np.array_equal(a.state(), b.state())
    assert not np.array_equal(a.state(), c.state())
    lay = a.unwrapped.state_layout
    hands = lay["hands"].slice
    assert not np.array_equal(a.state()[hands], c.state()[hands])  # another deal
    steps = 0
    for action in random_actions(a, random.Random(3)):  # a applies it after the yield
        assert np.array_equal(a.state(), b.state()), f"step {steps}"
        b.step(action)
        steps += 1
    assert np.array_equal(a.state(), b.state())
    assert steps > 20


@pytest.mark.parametrize(("variant", "players", "episode"), CONFIGS, ids=IDS)
def test_a_game_restored_from_the_state_continues_identically(variant, players, episode):
    """Read the state part way, put it into a fresh Game (another seed, so every array
    differed), then play both on with the same actions: the states, legal actions and
    observations agree at every step, hand ends of a match included."""
    env = make(variant, players, episode, wrapped=False)
    lay = env.state_layout
    env.reset(seed=21)
    actions = random_actions(env, random.Random(8))
    for _ in range(37):
        action = next(actions)  # the env applies it when asked for the next one
    saved = env.state()
    game = Game(env.variant, batch_size=1, episode=episode, seed=999)
    assert not np.array_equal(lay.encode(game.state), saved)
    lay.restore(game, saved)
    steps = 0
    while True:
        assert np.array_equal(lay.encode(game.state), env.state()), f"step {steps}"
        assert list(game.state.legal[0, : game.state.num_legal[0]]) == list(env.legal_actions())
        seat = int(game.current_player[0])
        seen = env.observe(env.agent_selection)["observation"]
        assert np.array_equal(game.observe_one(seat), seen)
        game.step_one(action)
        steps += 1
        action = next(actions, None)
        if action is None:
            break
    assert np.array_equal(lay.encode(game.state), env.state())
    assert game.is_over() and env.state()[lay["scalars"].start + S_PHASE] == PHASE_OVER
    hands = int(env.state()[lay["scalars"].start + S_HANDS_ENDED])
    assert hands >= (2 if episode == "match" else 1)  # a match: the next deals from rng


def test_restoring_into_a_batch_touches_only_that_game():
    env = raw_env(variant="argentine", num_players=4)
    env.reset(seed=2)
    lay = env.state_layout
    game = Game("argentine", 4, batch_size=3, seed=7)
    others = [lay.encode(game.state, b) for b in (0, 2)]
    lay.restore(game, env.state(), b=1)
    assert np.array_equal(lay.encode(game.state, 1), env.state())
    assert np.array_equal(game.legal_actions(1), np.sort(env.legal_actions()))
    assert all(
        np.array_equal(lay.encode(game.state, b), s) for b, s in zip((0, 2), others, strict=True)
    )


# ------------------------------------------------------------------ bad vectors
def test_bad_state_vectors_are_refused_and_change_nothing():
    env = raw_env(variant="argentine", num_players=4)
    env.reset(seed=4)
    lay = env.state_layout
    good = env.state()
    game = Game("argentine", 4, seed=1)
    before = lay.encode(game.state)

    def refused(vector, exc, match):
        with pytest.raises(exc, match=match):
            lay.restore(game, vector)
        assert np.array_equal(lay.encode(game.state), before)

    refused(good[:-1], ValueError, r"has shape \(1252,\)")
    refused(good.astype(np.float64), ValueError, "whole numbers")
    bad = good.copy()
    bad[lay["hands"].start] = 9
    refused(bad, ValueError, r"hands\[0, 0\]\) is 9, it must lie in 0..2")
    bad = good.copy()
    bad[lay["stock"].start + int(good[lay["stock_len"].start])] = 3  # past the length
    refused(bad, ValueError, "the rest -1")
    bad = good.copy()
    hand = lay["hands"].start + 53  # player 1's hand
    card = int(np.flatnonzero(good[hand : hand + 53] == 0)[0])
    bad[hand + card] = 1  # a card from nowhere
    refused(bad, InvalidStateError, r"^state vector: cards not accounted for: types \[\d+\]")
    bad = good.copy()
    bad[lay["scalars"].start + S_PHASE] = 7
    refused(bad, ValueError, r"scalars\[0\]\) is 7")
    match = make("italian", 2, "match", wrapped=False)
    match.reset(seed=0)
    with pytest.raises(ValueError, match="cannot go into a game of 'italian', 2 players"):
        lay.restore(Game("italian", 2, seed=0), good)
    with pytest.raises(ValueError, match="a match episode, the game plays hand"):
        match.state_layout.restore(Game(match.variant, seed=0), match.state())
    assert lay["stock"].high.max() == JOKER
