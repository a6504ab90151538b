"""The environments as outside clients use them: PettingZoo's own tests on the AEC env,
Gymnasium's checker on the single-agent env, an sb3-contrib MaskablePPO run, the vector
env against the core, rendering, illegal moves, rewards, and the benchmark functions."""

from __future__ import annotations

import functools
import importlib.util
import random
import re
import warnings
from pathlib import Path

import gymnasium
import numpy as np
import pytest
from pettingzoo.test import api_test, render_test, seed_test

import burako_env
from burako_env import burako_v1
from burako_env.core.actions import describe_action, discard_action
from burako_env.core.constants import (
    DRAW_STOCK,
    NUM_ACTIONS,
    S_DONE,
    S_PLAYER,
    TAKE_PILE,
)
from burako_env.core.game import Game, IllegalActionError
from burako_env.core.state import copy_state, states_equal
from burako_env.envs.aec import IllegalMoveError, raw_env
from burako_env.envs.observation import max_meld_size
from burako_env.envs.rewards import SCORE_SCALE, team_rewards
from burako_env.envs.vector import VectorEnv
from burako_env.gym.single import BurakoGymEnv
from burako_env.render import render_table
from burako_env.scenario import build_game
from burako_env.variants import load_variant

CONFIGS = [
    ("argentine", 2),
    ("argentine", 4),
    ("italian", 2),
    ("italian", 4),
    ("brazilian", 2),
    ("brazilian", 4),
    ("colombian", 4),
    ("colombian", 6),
    ("colombian", 8),
]
IDS = [f"{v}-{n}" for v, n in CONFIGS]


def play_random(e, seed: int = 0, max_steps: int = 100_000):
    """Random legal play of one episode through an AEC env; returns the actions."""
    rng = random.Random(seed)
    actions = []
    for _ in e.agent_iter(max_steps):
        obs, _, term, trunc, _ = e.last()
        if term or trunc:
            e.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        a = int(legal[rng.randrange(len(legal))])
        actions.append(a)
        e.step(a)
    return actions


# ------------------------------------------------------------------ PettingZoo's tests
# api_test warns about any dict observation of an environment not on its own list
API_WARNINGS = (
    "ignore:Observation is not a NumPy array",
    "ignore:Observation space for each agent probably should be",
)


@pytest.mark.filterwarnings(*API_WARNINGS)
@pytest.mark.parametrize(("variant", "players"), CONFIGS, ids=IDS)
def test_pettingzoo_api(variant, players):
    api_test(burako_v1.env(variant=variant, num_players=players), num_cycles=1000)


@pytest.mark.parametrize(("variant", "players"), CONFIGS, ids=IDS)
def test_pettingzoo_seed(variant, players):
    seed_test(lambda: burako_v1.env(variant=variant, num_players=players), num_cycles=200)


@pytest.mark.parametrize(("variant", "players"), CONFIGS, ids=IDS)
def test_pettingzoo_render(variant, players, capsys):
    render_test(
        functools.partial(burako_v1.env, variant=variant, num_players=players),
        custom_tests={"ansi": lambda text: "To act" in text or "over" in text},
    )
    assert "Burako" in capsys.readouterr().out  # human mode printed the table


@pytest.mark.filterwarnings(*API_WARNINGS)
def test_pettingzoo_api_match_mode():
    api_test(burako_v1.env(variant="italian", num_players=2, episode="match", target=300))


def test_imports():
    assert burako_env.env is burako_v1.env
    assert burako_env.raw_env is burako_v1.raw_env
    e = burako_env.env()
    e.reset(seed=0)
    assert e.agents == ["player_0", "player_1", "player_2", "player_3"]
    assert str(e) == "burako_v1"
    with pytest.raises(AttributeError):
        _ = burako_env.no_such_name


def test_order_enforcing_before_reset():
    e = burako_v1.env()
    with pytest.raises(AttributeError, match="before reset"):
        _ = e.agent_selection
    with pytest.raises(AttributeError, match="before reset"):
        _ = e.agents


# ------------------------------------------------------------------ the AEC env is the core
def test_aec_plays_the_core_game():
    """Same seed, same actions: the AEC env's game is the core's game, and every
    observation and mask is the core's."""
    e = raw_env(variant="brazilian", num_players=4)
    e.reset(seed=11)
    game = Game("brazilian", 4, batch_size=1, seed=11)
    rng = random.Random(1)
    steps = 0
    while not all(e.terminations.values()):
        seat = int(game.state.scalars[0, S_PLAYER])
        assert e.agent_selection == f"player_{seat}"
        obs = e.observe(e.agent_selection)
        np.testing.assert_array_equal(obs["observation"], game.observe_one(seat))
        expected_mask = np.zeros(NUM_ACTIONS, np.int8)
        expected_mask[game.legal_actions()] = 1
        np.testing.assert_array_equal(obs["action_mask"], expected_mask)
        np.testing.assert_array_equal(np.sort(e.legal_actions()), game.legal_actions())
        a = int(rng.choice(game.legal_actions()))
        e.step(a)
        game.step_one(a)
        assert states_equal(e.game.state, game.state)
        steps += 1
    assert game.done[0] and steps > 20
    # other players' observations: their own view, no mask
    for p in range(4):
        o = e.observe(f"player_{p}")
        np.testing.assert_array_equal(o["observation"], game.observe_one(p))
        assert not o["action_mask"].any()


def test_reset_seeds():
    e = raw_env(num_players=2)
    e.reset(seed=5)
    first = e.observe(e.agent_selection)["observation"].copy()
    e.reset(seed=5)
    np.testing.assert_array_equal(e.observe(e.agent_selection)["observation"], first)
    e.reset(seed=6)
    assert not np.array_equal(e.observe(e.agent_selection)["observation"], first)
    e.reset()  # continues the generator: a new deal
    assert not np.array_equal(e.observe(e.agent_selection)["observation"], first)


def test_copy_observations():
    e = raw_env(copy_observations=True)
    e.reset(seed=0)
    o1 = e.observe(e.agent_selection)
    e.step(int(e.legal_actions()[0]))
    o2 = e.observe(e.agent_selection)
    assert o1["observation"] is not o2["observation"]
    shared = raw_env()
    shared.reset(seed=0)
    assert shared.observe(shared.agent_selection) is shared.observe(shared.agent_selection)


# ------------------------------------------------------------------ illegal moves
def test_raw_env_illegal_action_raises_and_leaves_game():
    e = raw_env(variant="argentine", num_players=4)
    e.reset(seed=3)
    agent = e.agent_selection
    before = copy_state(e.game.state)
    obs_before = {k: v.copy() for k, v in e.observe(agent).items()}
    bad = discard_action(5)  # the first decision is a peek: no discard now
    with pytest.raises(ValueError) as info:
        e.step(bad)
    assert isinstance(info.value, IllegalActionError)
    assert isinstance(info.value, IllegalMoveError)
    text = str(info.value)
    assert agent in text and str(bad) in text and describe_action(bad) in text
    assert "not the phase" in text
    assert states_equal(e.game.state, before)
    assert e.agent_selection == agent
    for k, v in e.observe(agent).items():
        np.testing.assert_array_equal(v, obs_before[k])
    with pytest.raises(ValueError, match="outside the action space"):
        e.step(NUM_ACTIONS + 3)
    with pytest.raises(ValueError, match="needs an action"):
        e.step(None)
    assert states_equal(e.game.state, before)
    e.step(int(e.legal_actions()[0]))  # the game goes on


def test_wrapped_env_illegal_move_terminates_with_penalty():
    e = burako_v1.env(num_players=4)
    e.reset(seed=3)
    offender = e.agent_selection
    bad = TAKE_PILE  # peek phase
    with pytest.warns(UserWarning, match=re.escape(f"illegal move by {offender}: action {bad}")):
        e.step(bad)
    assert all(e.terminations.values())
    assert e.rewards[offender] == -1
    assert all(r == 0 for a, r in e.rewards.items() if a != offender)
    _, reward, term, _, _ = e.last()
    assert term
    for _ in e.agent_iter():
        e.step(None)
    assert e.agents == []
    with pytest.raises(AssertionError, match="action space"):
        e.reset(seed=0)
        e.step(NUM_ACTIONS)


def test_explain_illegal():
    e = raw_env()
    e.reset(seed=0)
    assert "not the phase" in e.explain_illegal(DRAW_STOCK)
    assert "outside" in e.explain_illegal(-1)


# ------------------------------------------------------------------ rewards
@pytest.mark.parametrize("reward", ["score", "win", "raw"])
def test_hand_rewards(reward):
    e = burako_v1.env(variant="argentine", num_players=4, reward=reward)
    e.reset(seed=21)
    totals = dict.fromkeys(e.possible_agents, 0.0)
    rng = random.Random(0)
    for agent in e.agent_iter():
        obs, r, term, trunc, info = e.last()
        totals[agent] += r
        if term or trunc:
            scores = info["hand_scores"]
            e.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        e.step(int(legal[rng.randrange(len(legal))]))
    expect = team_rewards(np.array(scores), reward)
    for p, agent in enumerate(e.possible_agents):
        assert totals[agent] == pytest.approx(expect[p % 2])
    assert totals["player_0"] == totals["player_2"] == -totals["player_1"]


def test_match_rewards_come_at_every_hand_end():
    e = raw_env(variant="italian", num_players=2, episode="match", reward="raw", target=400)
    e.reset(seed=4)
    rng = random.Random(4)
    rewarded_steps = 0
    total = 0.0
    hands = 0
    while not all(e.terminations.values()):
        e.step(int(rng.choice(list(e.legal_actions()))))
        if e.rewards["player_0"] != 0 or e.infos["player_0"].get("hands_ended", 0) > hands:
            hands = e.infos["player_0"]["hands_ended"]
            rewarded_steps += 1
            total += e.rewards["player_0"]
            assert e.rewards["player_1"] == -e.rewards["player_0"]
    info = e.infos["player_0"]
    assert rewards_equal_margin(total, info["match_scores"])
    assert rewarded_steps == info["hands_ended"] >= 1
    assert info["winner"] in (0, 1)


def rewards_equal_margin(total, match_scores) -> bool:
    return total == pytest.approx(match_scores[0] - match_scores[1])


def test_match_win_reward_only_at_the_end():
    e = raw_env(variant="italian", num_players=2, episode="match", reward="win", target=400)
    e.reset(seed=4)
    rng = random.Random(4)
    seen = []
    while not all(e.terminations.values()):
        e.step(int(rng.choice(list(e.legal_actions()))))
        if e.rewards["player_0"]:
            seen.append(e.rewards["player_0"])
    w = e.infos["player_0"]["winner"]
    assert seen == [1.0 if w == 0 else -1.0]


# ------------------------------------------------------------------ rendering
def test_render_table_scenario():
    game = build_game(
        "argentine",
        hands={0: "7h 8h As 2c *", 1: "3c 4c"},
        melds={0: ["5s 6s 7s 8s 9s Ts Js", "Kd Kc *"], 1: ["4h 2s 6h"]},
        pile="Qd 4d",
        player=0,
        phase="play",
    )
    text = render_table(game, viewer=0)
    assert "7♥ 8♥" in text and "A♠" in text and "*" in text
    assert "[ 0] 5♠ 6♠ 7♠ 8♠ 9♠ T♠ J♠" in text
    assert "CANASTA" in text and "clean" in text and "dirty" in text
    assert "4♥ 2♠ 6♥" in text  # the wild where it stands
    assert "Pile 2, top 4♦" in text
    assert "To act: P0 (you, team 0)" in text and "to play: lay or add to melds" in text
    assert "Hand of P1" not in text  # P1's hand is hidden from P0
    assert "P1 2" in text  # but its size is shown
    everyone = render_table(game)
    assert "Hand of P1 (2): 3♣ 4♣" in everyone
    with pytest.raises(ValueError):
        render_table(game, viewer=9)


def test_render_modes(capsys):
    e = raw_env(render_mode="ansi", num_players=2)
    e.reset(seed=0)
    text = e.render()
    assert isinstance(text, str) and "Stock" in text and "Muertos" in text
    h = raw_env(render_mode="human", num_players=2)
    h.reset(seed=0)
    assert h.render() is None
    assert "Stock" in capsys.readouterr().out
    with pytest.raises(ValueError, match="render_mode"):
        raw_env(render_mode="rgb_array")
    with pytest.warns(UserWarning, match="without a render_mode"):
        assert raw_env(num_players=2).render() is None


def test_render_finished_hand():
    e = raw_env(render_mode="ansi", num_players=4)
    e.reset(seed=2)
    rng = random.Random(2)
    while not all(e.terminations.values()):
        e.step(int(rng.choice(list(e.legal_actions()))))
    text = e.render()
    assert "The hand is over." in text and "Result:" in text and "cards on the table" in text
    assert "table_cards" not in text  # the score items in words, not their internal names


def test_a_finished_agent_may_only_step_none():
    """PettingZoo's contract: once the hand is over, each agent's step takes None (and
    removes it); an action is refused, not silently dropped."""
    e = raw_env(num_players=2)
    e.reset(seed=3)
    rng = random.Random(3)
    while not all(e.terminations.values()):
        e.step(int(rng.choice(list(e.legal_actions()))))
    with pytest.raises(ValueError, match="only valid action is None"):
        e.step(0)
    first = e.agent_selection
    e.step(None)
    assert first not in e.agents


def test_score_rewards_are_the_margin_over_the_scale_clipped_to_one():
    scores = np.array([[3 * SCORE_SCALE, 0], [0, 2.5 * SCORE_SCALE], [400, 100], [50, 50]])
    np.testing.assert_allclose(
        team_rewards(scores, "score"), [[1.0, -1.0], [-1.0, 1.0], [0.3, -0.3], [0.0, 0.0]]
    )
    np.testing.assert_array_equal(team_rewards(scores, "win")[:, 0], [1, -1, 1, 0])
    np.testing.assert_array_equal(team_rewards(scores, "raw")[:, 0], [3000, -2500, 300, 0])


def test_max_meld_size_holds_the_largest_wild_group():
    """A meld can hold a run of 14 positions, a group of every natural of a rank and a
    wild, or a group of every 2 and joker: with 3 or 4 decks the wild group is the
    largest, and the observation's size bound must admit it."""
    base = load_variant("argentine", num_players=4)
    assert max_meld_size(base) == 14  # 2 decks: the run
    three = base.replace(decks=3, jokers_per_deck=1)
    assert max_meld_size(three) == 3 * 4 + 3  # every 2 and every joker of 3 decks
    four = base.replace(decks=4, jokers_per_deck=2)
    assert max_meld_size(four) == 4 * 4 + 4 * 2


# ------------------------------------------------------------------ Gymnasium
@pytest.mark.filterwarnings("ignore:.*Not able to test alternative render modes")
def test_gym_check_env():
    from gymnasium.utils.env_checker import check_env

    env = gymnasium.make("Burako-v1", num_players=4)
    check_env(env.unwrapped)
    check_env(BurakoGymEnv(variant="colombian", num_players=6, control="team", seat="random"))


def test_gym_env_plays_against_opponents():
    env = BurakoGymEnv(variant="italian", num_players=4, seat=1, reward="raw")
    obs, info = env.reset(seed=0)
    assert info["seat"] == 1 and obs.dtype == np.int16
    rng = np.random.default_rng(0)
    total = 0.0
    for _ in range(10_000):
        assert int(env.game.state.scalars[0, S_PLAYER]) == 1
        mask = env.action_masks()
        a = rng.choice(np.flatnonzero(mask))
        obs, reward, terminated, truncated, info = env.step(a)
        assert info["seat"] == 1  # the learner acts next, or its hand ended
        total += reward
        assert not truncated
        if terminated:
            break
    assert terminated and env.game.state.scalars[0, S_DONE]
    s0, s1 = info["hand_scores"]
    assert total == s1 - s0  # seat 1 is team 1
    assert not env.action_masks().any()
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)


def test_gym_env_team_control_and_opponent_forms():
    class FirstLegal:
        def act(self, obs, mask):
            return np.argmax(mask, axis=1)

    for opponents in (
        FirstLegal(),
        [FirstLegal(), FirstLegal()],
        {1: FirstLegal(), 3: FirstLegal()},
    ):
        env = BurakoGymEnv(num_players=4, opponents=opponents, control="team", seat=0)
        env.reset(seed=1)
        for _ in range(300):
            assert int(env.game.state.scalars[0, S_PLAYER]) % 2 == 0
            _, _, terminated, _, _ = env.step(int(env.legal_actions()[0]))
            if terminated:
                break
    with pytest.raises(ValueError, match="opponents given"):
        BurakoGymEnv(num_players=4, opponents=[FirstLegal()])
    with pytest.raises(TypeError, match="act"):
        BurakoGymEnv(num_players=4, opponents=object())


def test_gym_env_illegal_action():
    env = BurakoGymEnv(num_players=2)
    env.reset(seed=0)
    obs, reward, terminated, truncated, info = env.step(discard_action(3))
    assert terminated and reward == -1.0 and "illegal action" in info["illegal_action"]
    strict = BurakoGymEnv(num_players=2, illegal_action="raise")
    strict.reset(seed=0)
    with pytest.raises(IllegalActionError, match="not the phase"):
        strict.step(discard_action(3))


def test_gym_env_human_mode_prints_the_table_after_each_step(capsys):
    env = BurakoGymEnv(num_players=2, render_mode="human")
    env.reset(seed=0)
    capsys.readouterr()
    env.step(int(env.legal_actions()[0]))
    assert "Stock" in capsys.readouterr().out
    quiet = BurakoGymEnv(num_players=2)
    quiet.reset(seed=0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no "render() called without a render_mode"
        quiet.step(int(quiet.legal_actions()[0]))
    assert capsys.readouterr().out == ""


def test_gym_env_seeds_deal_distinct_hands():
    """Each reset seed draws the deal's generator from a 62-bit range: 300 seeds, 300
    different opening hands (a narrow range would repeat deals)."""
    env = BurakoGymEnv(num_players=2)
    hands = set()
    for seed in range(300):
        env.reset(seed=seed)
        hands.add(env.game.state.hands[0].tobytes())
    assert len(hands) == 300


def test_maskable_ppo_trains_and_plays():
    torch = pytest.importorskip("torch")
    sb3c = pytest.importorskip("sb3_contrib")
    torch.set_num_threads(1)
    env = BurakoGymEnv(variant="argentine", num_players=2)
    model = sb3c.MaskablePPO(
        "MlpPolicy",
        env,
        n_steps=512,
        batch_size=128,
        n_epochs=2,
        policy_kwargs={"net_arch": [32]},
        seed=0,
        device="cpu",
    )
    model.learn(total_timesteps=2048)
    assert model.num_timesteps >= 2000
    for episode in range(2):
        obs, _ = env.reset(seed=100 + episode)
        for _ in range(5000):
            masks = env.action_masks()
            action, _ = model.predict(obs, action_masks=masks, deterministic=True)
            assert masks[int(action)]
            obs, reward, terminated, truncated, _ = env.step(action)
            if terminated or truncated:
                break
        assert terminated


# ------------------------------------------------------------------ the vector env
@pytest.mark.parametrize(
    ("variant", "players", "episode"),
    [("argentine", 4, "hand"), ("colombian", 6, "hand"), ("italian", 2, "match")],
)
def test_vector_env_is_the_core(variant, players, episode):
    """Same seed, same actions: VectorEnv's games are exactly the games a core Game
    plays, a finished game being reset from its own generator."""
    overrides = {"target": 300} if episode == "match" else {}
    b = 12
    env = VectorEnv(variant, players, num_envs=b, seed=7, episode=episode, **overrides)
    game = Game(variant, players, batch_size=b, seed=7, episode=episode, **overrides)
    obs, mask, info = env.reset()
    rng = np.random.default_rng(0)
    episodes = 0
    for _ in range(400):
        np.testing.assert_array_equal(obs, game.observe())
        np.testing.assert_array_equal(mask, game.legal_action_mask())
        np.testing.assert_array_equal(info["seat"], game.current_player)
        np.testing.assert_array_equal(info["team"], game.current_player % 2)
        picks = (rng.random(b) * info["num_legal"]).astype(np.int64)
        actions = info["legal"][np.arange(b), picks].astype(np.int64)
        assert mask[np.arange(b), actions].all()
        obs, mask, info = env.step(actions)
        game.step(actions)
        done = game.done
        np.testing.assert_array_equal(info["ended"], done)
        if done.any():
            np.testing.assert_array_equal(info["final_scores"][done], game.hand_scores[done])
            np.testing.assert_array_equal(info["final_match"][done], game.match_scores[done])
            np.testing.assert_array_equal(info["winner"][done], game.winner[done])
            episodes += int(done.sum())
            game.reset(games=done)
        assert states_equal(env.game.state, game.state)
        r = info["team_rewards"]
        np.testing.assert_array_equal(r[:, 0], -r[:, 1])
        assert not r[~info["hand_ended"]].any()
    assert episodes > 0


def test_vector_env_rewards():
    env = VectorEnv("argentine", 2, num_envs=32, seed=1, reward="raw")
    obs, mask, info = env.reset()
    rng = np.random.default_rng(1)
    seen = 0
    for _ in range(400):
        picks = (rng.random(32) * info["num_legal"]).astype(np.int64)
        seat, kept = info["seat"], info["seat"].copy()
        obs, mask, info = env.step(info["legal"][np.arange(32), picks])
        np.testing.assert_array_equal(seat, kept)  # the seats handed out stay as they were
        ended = info["ended"]
        np.testing.assert_array_equal(info["hand_ended"], ended)  # hand mode
        if ended.any():
            f = info["final_scores"][ended]
            np.testing.assert_array_equal(info["team_rewards"][ended, 0], f[:, 0] - f[:, 1])
            seen += int(ended.sum())
    assert seen > 0


def test_vector_env_reset_seed_deals_as_the_constructor_seed():
    """``reset(seed)`` deals what a VectorEnv built with that seed deals; ``reset()``
    deals the constructor's seed again. (The observations are the env's own buffer:
    copied.)"""
    env = VectorEnv("argentine", 2, num_envs=4, seed=1)
    obs1 = env.reset()[0].copy()
    obs9 = env.reset(seed=9)[0].copy()
    other, _, _ = VectorEnv("argentine", 2, num_envs=4, seed=9).reset()
    np.testing.assert_array_equal(obs9, other)
    assert not np.array_equal(obs9, obs1)
    np.testing.assert_array_equal(env.reset()[0], obs1)


def test_gym_env_final_info_has_the_hand_result_whoever_ends_it():
    # most hands end on an opponent's move, inside the learner's step
    env = BurakoGymEnv(num_players=4, seat=0)
    rng = np.random.default_rng(0)
    for seed in range(8):
        obs, info = env.reset(seed=seed)
        terminated = False
        while not terminated:
            legal = env.legal_actions()
            obs, _, terminated, _, info = env.step(int(legal[rng.integers(len(legal))]))
        assert info["hand_scores"] == tuple(int(x) for x in env.game.hand_scores[0])


def test_vector_env_match_win_rewards_come_at_the_match_end():
    # reward "win" in a match: +1 / -1 / 0 by the match totals, only when the match ends
    env = VectorEnv("italian", 2, num_envs=12, seed=7, episode="match", reward="win", target=300)
    obs, mask, info = env.reset()
    rng = np.random.default_rng(0)
    seen = 0
    for _ in range(400):
        picks = (rng.random(12) * info["num_legal"]).astype(np.int64)
        obs, mask, info = env.step(info["legal"][np.arange(12), picks])
        ended, r = info["ended"], info["team_rewards"]
        assert not r[~ended].any()
        if ended.any():
            m = info["final_match"][ended]
            np.testing.assert_array_equal(r[ended, 0], np.sign(m[:, 0] - m[:, 1]))
            seen += int(ended.sum())
    assert seen > 0


def test_vector_env_illegal_action_moves_nothing():
    env = VectorEnv("argentine", 4, num_envs=4, seed=0)
    obs, mask, info = env.reset()
    before = copy_state(env.game.state)
    actions = np.array([np.flatnonzero(m)[0] for m in mask])
    actions[2] = discard_action(0)
    with pytest.raises(IllegalActionError, match=r"in game 2"):
        env.step(actions)
    assert states_equal(env.game.state, before)
    with pytest.raises(ValueError, match="4 actions"):
        env.step(actions[:3])


def test_vector_env_state_round_trip():
    def play(env, obs, mask, steps, rng):
        out = []
        for _ in range(steps):
            actions = np.array([rng.choice(np.flatnonzero(m)) for m in mask])
            obs, mask, info = env.step(actions)
            out.append((obs.copy(), mask.copy(), info["team_rewards"].copy()))
        return out

    env = VectorEnv("argentine", 4, num_envs=6, seed=3)
    obs, mask, _ = env.reset()
    play(env, obs, mask, 150, np.random.default_rng(0))  # some hands end: auto-resets
    saved = env.get_state()
    obs, mask = env._obs.copy(), env._mask.copy()
    first = play(env, obs, mask, 200, np.random.default_rng(1))
    other = VectorEnv("argentine", 4, num_envs=6, seed=99)  # other deals, then restored
    obs2, mask2, _ = other.set_state(saved)
    assert np.array_equal(obs2, obs) and np.array_equal(mask2, mask)
    second = play(other, obs2, mask2, 200, np.random.default_rng(1))
    for a, b in zip(first, second, strict=True):
        for x, y in zip(a, b, strict=True):
            assert np.array_equal(x, y)
    # a state of another shape is refused and changes nothing
    small = VectorEnv("argentine", 4, num_envs=3, seed=0)
    before = copy_state(small.game.state)
    with pytest.raises(ValueError, match="another num_envs"):
        small.set_state(saved)
    assert states_equal(small.game.state, before)
    with pytest.raises(ValueError, match="lacks arrays"):
        small.set_state({})


def test_vector_env_steps_without_reset():
    env = VectorEnv("italian", 2, num_envs=3, seed=0)
    actions = [int(np.flatnonzero(m)[0]) for m in env._mask]
    env.step(actions)


# ------------------------------------------------------------------ hostile input (issue 59)
def test_raw_env_step_before_reset_says_to_reset():
    """It was an AttributeError ('agent_selection')."""
    env = raw_env(num_players=2)
    with pytest.raises(RuntimeError, match=r"call reset\(\) before step\(\)"):
        env.step(DRAW_STOCK)
    env.reset(seed=0)
    env.step(int(env.legal_actions()[0]))


@pytest.mark.parametrize("dtype", [np.uint64, np.float64, np.bool_])
def test_a_state_vector_of_another_dtype_than_whole_numbers_is_refused(dtype):
    """A uint64 vector was read through int64: 2**64 - 1 came back as -1, silently."""
    env = raw_env(num_players=2)
    env.reset(seed=0)
    vector = env.state()
    assert (vector == -1).any()  # the empty entries: 2**64 - 1 in a uint64 vector
    game = Game(num_players=2, seed=5)
    before = copy_state(game.state)
    with pytest.raises(ValueError, match=f"got {np.dtype(dtype)}: convert it to int32"):
        env.state_layout.restore(game, vector.astype(dtype))
    assert states_equal(game.state, before)
    for ok in (np.int32, np.int64):  # whole numbers, as state() gives them
        env.state_layout.restore(game, vector.astype(ok))
    assert np.array_equal(env.state_layout.encode(game.state), vector)


def test_make_vec_bounds_num_envs_as_training_does():
    """make_vec(num_envs=10**6) asked for 6.3 GiB before any check (the bound's next
    value here: it costs the code before the fix 440 MB, not the machine's memory)."""
    from burako_env.limits import MAX_TRAIN_ENVS

    for bad in (MAX_TRAIN_ENVS + 1, 0):
        words = f"must lie in 1..65536, got {bad}"
        with pytest.raises(ValueError, match=f"num_envs {words}"):
            gymnasium.make_vec("Burako-v1", num_envs=bad)
    with pytest.raises(ValueError, match="num_envs must be a whole number"):
        gymnasium.make_vec("Burako-v1", num_envs=2.5)
    assert MAX_TRAIN_ENVS == 2**16
    assert gymnasium.make_vec("Burako-v1", num_envs=2).num_envs == 2


def test_a_game_too_big_for_memory_says_what_to_lower_in_a_line():
    """numpy's MemoryError spelt out the whole record dtype (787 characters)."""
    with pytest.raises(MemoryError) as info:
        Game(num_players=4, batch_size=10**12)
    message = str(info.value)
    assert message.startswith("1,000,000,000,000 games of 4 players need ")
    assert message.endswith("lower batch_size (num_envs)") and len(message) < 200


# ------------------------------------------------------------------ benchmarks
def load_bench():
    path = Path(__file__).resolve().parents[2] / "scripts" / "bench" / "bench_envs.py"
    spec = importlib.util.spec_from_file_location("bench_envs", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_bench_functions_run():
    bench = load_bench()
    bench_aec, bench_vector = bench.bench_aec, bench.bench_vector

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        a = bench_aec(seconds=0.3, variant="argentine", num_players=4)
    assert a["steps"] > 0 and a["steps_per_s"] > 0 and a["episodes"] >= 1
    for picker in ("legal", "mask"):
        v = bench_vector(num_envs=64, seconds=0.3, picker=picker)
        assert v["steps"] > 0 and v["steps_per_s"] > 0 and v["batch"] == 64


def test_pick_from_mask_is_uniform_over_legal():
    pick_from_mask = load_bench().pick_from_mask
    rng = np.random.default_rng(0)
    mask = rng.random((50, NUM_ACTIONS)) < 0.01
    mask[:, 7] = True
    for _ in range(20):
        a = pick_from_mask(mask, rng.random(50))
        assert mask[np.arange(50), a].all()
