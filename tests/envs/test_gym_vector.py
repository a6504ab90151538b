"""Gymnasium's vector API over the batched core (burako_env.gym.vector), the
normalised observation and its layout (burako_env.envs.observation), pickling the
single env, and the masked PPO example on the vector API."""

from __future__ import annotations

import importlib.util
import pickle
import sys
import warnings
from pathlib import Path

import gymnasium
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode

import burako_env  # noqa: F401 - registers Burako-v1
from burako_env.agents.base import Agent, PerGame
from burako_env.agents.policies import act_batch
from burako_env.core.actions import discard_action
from burako_env.core.constants import (
    ERR_OK,
    NUM_ACTIONS,
    S_DONE,
    S_HANDS_ENDED,
    S_PLAYER,
    S_TOTAL_STEPS,
    ObsLayout,
)
from burako_env.core.game import IllegalActionError, generator_words
from burako_env.core.state import copy_state, states_equal, take_games
from burako_env.envs.observation import POINTS_SCALE, ObservationLayout
from burako_env.envs.rewards import team_rewards
from burako_env.envs.vector import VectorEnv
from burako_env.gym.single import BurakoGymEnv, learner_seats
from burako_env.gym.vector import BurakoVectorEnv
from burako_env.variants import load_variant

ROOT = Path(__file__).resolve().parents[2]


def make_vec(num_envs: int, **kw) -> BurakoVectorEnv:
    envs = gymnasium.make_vec(
        "burako_env:Burako-v1", num_envs=num_envs, vectorization_mode="vector_entry_point", **kw
    )
    assert isinstance(envs, BurakoVectorEnv)
    return envs


def random_actions(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One uniformly random legal action per row of ``mask``."""
    u = np.where(mask, rng.random(mask.shape), -1.0)
    return np.argmax(u, axis=1).astype(np.int64)


class FirstLegal(Agent):
    """A Python opponent (no compiled policy): the lowest legal id. Counts its calls."""

    name = "first_legal"

    def __init__(self, seed: int = 0) -> None:
        super().__init__(seed)
        self.batches: list[int] = []

    def act(self, obs, mask):
        self.batches.append(len(mask))
        return np.argmax(mask, axis=1)


class FirstLegalSearch(Agent):
    """A search agent's interface (``act_game`` from the game), the lowest legal id."""

    name = "first_legal_search"

    def decides(self) -> PerGame:
        return PerGame(self.act_game)

    def act(self, obs, mask):  # pragma: no cover - a search agent acts on the game
        raise AssertionError("act_game, not act")

    def act_game(self, game, b: int = 0) -> int:
        return int(np.sort(game.legal_actions(b))[0])


# ------------------------------------------------------------------ the API
def test_make_vec_returns_a_gymnasium_vector_env():
    envs = make_vec(6, num_players=4, opponents="greedy")
    assert isinstance(envs, gymnasium.vector.VectorEnv)
    assert envs.metadata["autoreset_mode"] == AutoresetMode.SAME_STEP
    assert envs.num_envs == 6
    size = envs.unwrapped.observation_layout.size
    assert envs.single_observation_space == gymnasium.spaces.Box(
        np.iinfo(np.int16).min, np.iinfo(np.int16).max, (size,), np.int16
    )
    assert envs.single_action_space == gymnasium.spaces.Discrete(NUM_ACTIONS)
    assert envs.observation_space.shape == (6, size)
    assert envs.action_space == gymnasium.spaces.MultiDiscrete([NUM_ACTIONS] * 6)
    obs, info = envs.reset(seed=0)
    assert obs.shape == (6, size) and obs.dtype == np.int16
    assert envs.observation_space.contains(obs)
    assert info["action_mask"].shape == (6, NUM_ACTIONS) and info["action_mask"].dtype == bool
    obs, reward, terminated, truncated, info = envs.step(
        random_actions(info["action_mask"], np.random.default_rng(0))
    )
    assert reward.shape == terminated.shape == truncated.shape == (6,)
    assert reward.dtype == np.float64 and terminated.dtype == truncated.dtype == bool
    # the spec's default vectorization is the vector entry point; sync still works
    assert isinstance(gymnasium.make_vec("Burako-v1", num_envs=2), BurakoVectorEnv)
    sync = gymnasium.make_vec("Burako-v1", num_envs=2, vectorization_mode="sync")
    assert isinstance(sync, gymnasium.vector.SyncVectorEnv)
    envs.close()
    with pytest.raises(ValueError, match="render_mode"):
        make_vec(2, render_mode="ansi")
    with pytest.raises(ValueError, match="opponents given"):
        make_vec(2, num_players=4, opponents=["greedy"])


def replay_on_vector_env(envs: BurakoVectorEnv, seed: int, record: dict, opponent):
    """Replay each game's recorded learner actions on the project's VectorEnv (every game
    one decision per step, the opponents' decisions made again here): the learner's
    observations, masks and episode results must come out as recorded."""
    u = envs.unwrapped
    n = u.num_players
    vec = VectorEnv(u.variant, n, num_envs=u.num_envs, seed=seed, episode=u.episode, reward="raw")
    lay = u.game.kernel_layout
    learner = [learner_seats(int(s), u.control, n) for s in record["learner_seat"]]
    rng_states = record["opponent_rng"]
    pos = np.zeros(u.num_envs, np.int64)  # the next recorded learner decision, per game
    ends = np.zeros(u.num_envs, np.int64)
    lengths = np.array([len(a) for a in record["actions"]])
    obs, mask, info = vec.reset()
    rows = np.arange(u.num_envs)
    for _ in range(100_000):
        seat = info["seat"]
        mine = np.array([int(seat[b]) in learner[b] for b in rows])
        if ((pos >= lengths) & mine).all():  # every game past its last recorded step
            break
        actions = np.argmax(mask, axis=1)  # FirstLegal's choice, and the games past the end
        for b in np.flatnonzero(mine & (pos < lengths)):
            np.testing.assert_array_equal(obs[b], record["obs"][b][pos[b]])
            np.testing.assert_array_equal(mask[b], record["mask"][b][pos[b]])
            actions[b] = record["actions"][b][pos[b]]
            pos[b] += 1
        if opponent != "first_legal":  # a compiled policy, with the kernel's generators
            kind, w = opponent.kind, opponent.weights
            sel = np.flatnonzero(~mine)
            states = rng_states[sel, seat[sel]]
            actions[sel] = act_batch(kind, obs[sel], mask[sel], states, w, lay)
            rng_states[sel, seat[sel]] = states
        obs, mask, info = vec.step(actions)
        for b in np.flatnonzero(info["ended"]):
            if ends[b] < len(record["finals"][b]):
                np.testing.assert_array_equal(info["final_scores"][b], record["finals"][b][ends[b]])
                ends[b] += 1
    np.testing.assert_array_equal(pos, lengths)
    np.testing.assert_array_equal(ends, [len(f) for f in record["finals"]])
    assert ends.sum() > 0


@pytest.mark.parametrize(
    ("variant", "players", "control", "opponents"),
    [
        ("argentine", 2, "seat", "first_legal"),
        ("italian", 4, "team", "first_legal"),
        ("argentine", 4, "seat", "greedy"),
        ("colombian", 6, "seat", "random"),
    ],
)
def test_games_equal_the_project_vector_envs(variant, players, control, opponents):
    """make_vec's game b after reset(seed) is VectorEnv(seed)'s game b, and, given the
    same actions (the learner's and the opponents'), plays the same episodes."""
    b = 5
    spec = FirstLegal() if opponents == "first_legal" else opponents
    envs = make_vec(
        b, variant=variant, num_players=players, seat=1, control=control, opponents=spec
    )
    u = envs.unwrapped
    obs, info = envs.reset(seed=11)
    record = {
        "learner_seat": u.learner_seat.copy(),
        # the compiled opponents' generator states as the deal found them: the first
        # draws of the env's generator (Gymnasium's np_random, seeded by the seed)
        "opponent_rng": generator_words(np.random.default_rng(11), b * players).reshape(
            b, players, 4
        ),
        "obs": [[] for _ in range(b)],
        "mask": [[] for _ in range(b)],
        "actions": [[] for _ in range(b)],
        "finals": [[] for _ in range(b)],
    }
    rng = np.random.default_rng(3)
    for _ in range(250):
        mask = info["action_mask"]
        np.testing.assert_array_equal(mask, u.game.legal_action_mask())
        actions = random_actions(mask, rng)
        for g in range(b):
            record["obs"][g].append(obs[g].copy())
            record["mask"][g].append(mask[g].copy())
            record["actions"][g].append(int(actions[g]))
        obs, reward, terminated, _, info = envs.step(actions)
        for g in np.flatnonzero(terminated):
            record["finals"][g].append(info["final_info"]["hand_scores"][g].copy())
            # a new episode is dealt to the same seat (a fixed seat): the replay reads it
            assert u.learner_seat[g] == record["learner_seat"][g]
    if opponents == "first_legal":
        assert max(spec.batches) > 1  # one batch for all the games waiting on it
        opponent = "first_legal"
    else:
        opponent = u.agents[1].decides()
    replay_on_vector_env(envs, 11, record, opponent)


def test_action_mask_is_the_legal_mask_and_seats_are_the_learners():
    envs = make_vec(8, variant="colombian", num_players=4, seat="random", control="team")
    u = envs.unwrapped
    obs, info = envs.reset(seed=5)
    rng = np.random.default_rng(5)
    seen_teams = set()
    for _ in range(200):
        mask = info["action_mask"]
        np.testing.assert_array_equal(mask, u.game.legal_action_mask())
        np.testing.assert_array_equal(mask, envs.unwrapped.action_masks())
        assert mask.any(axis=1).all()  # never an empty row (SAME_STEP autoreset)
        np.testing.assert_array_equal(info["seat"], u.game.state.scalars[:, S_PLAYER])
        np.testing.assert_array_equal(info["seat"] % 2, u.learner_seat % 2)  # team control
        np.testing.assert_array_equal(obs, u.game.observe(info["seat"]))
        seen_teams.update((u.learner_seat % 2).tolist())
        obs, _, _, _, info = envs.step(random_actions(mask, rng))
    assert seen_teams == {0, 1}  # seat="random" draws the learner's seat per episode


def test_autoreset_is_same_step():
    envs = gymnasium.wrappers.vector.RecordEpisodeStatistics(
        make_vec(6, num_players=2, reward="raw")
    )
    u = envs.unwrapped
    obs, info = envs.reset(seed=2)
    rng = np.random.default_rng(2)
    ended = stats = 0
    for _ in range(600):
        prev_total = u.game.state.scalars[:, S_TOTAL_STEPS].copy()
        obs, reward, terminated, truncated, info = envs.step(
            random_actions(info["action_mask"], rng)
        )
        assert not truncated.any()
        sc = u.game.state.scalars
        assert not sc[:, S_DONE].any()  # every game returned is in play
        if not terminated.any():
            assert "final_obs" not in info
            continue
        np.testing.assert_array_equal(info["_final_obs"], terminated)
        np.testing.assert_array_equal(info["_final_info"], terminated)
        final = info["final_info"]
        for g in np.flatnonzero(terminated):
            ended += 1
            # the ended episode: the learner's view of the final table, its result
            assert final["action_mask"][g].sum() == 0  # a finished episode has no legal action
            assert final["seat"][g] == u.learner_seat[g]
            assert final["_winner"][g] and final["hands_ended"][g] == 1
            scores = final["hand_scores"][g]
            assert reward[g] == team_rewards(scores, "raw")[u.learner_seat[g] % 2]
            assert final["winner"][g] == (
                -1 if scores[0] == scores[1] else int(scores[1] > scores[0])
            )
            assert info["final_obs"][g].shape == obs[g].shape
            lay = u.observation_layout
            assert info["final_obs"][g][lay["misc"].start + 16] == 1  # hands ended: the hand
            # the new episode: its first decision, already returned in the same step
            assert sc[g, S_HANDS_ENDED] == 0 and sc[g, S_TOTAL_STEPS] < prev_total[g]
            np.testing.assert_array_equal(obs[g], u.game.observe_one(int(info["seat"][g]), int(g)))
            assert info["action_mask"][g].any()
        for g in np.flatnonzero(~terminated):
            assert final["action_mask"][g].sum() == 0 and not final["_seat"][g]
        if "episode" in info:
            stats += int(info["_episode"].sum())
    assert ended > 0 and stats == ended  # Gymnasium's wrapper reads SAME_STEP


def test_match_rewards_come_at_every_hand_end():
    envs = make_vec(6, variant="italian", num_players=2, episode="match", target=300)
    obs, info = envs.reset(seed=7)
    rng = np.random.default_rng(7)
    hand_ends = 0
    for _ in range(800):
        obs, reward, terminated, _, info = envs.step(random_actions(info["action_mask"], rng))
        going_on = info.get("_hand_scores", np.zeros(6, bool))
        for g in np.flatnonzero(going_on):
            hand_ends += 1
            assert not terminated[g]
            assert reward[g] == team_rewards(info["hand_scores"][g], "score")[0]  # seat 0
        quiet = ~going_on & ~terminated
        assert not reward[quiet].any()
    assert hand_ends > 0


@pytest.mark.parametrize("episode", ["hand", "match"])
@pytest.mark.parametrize(("players", "seat"), [(2, 1), (4, 3), (2, "random"), (4, "random")])
def test_rewards_follow_the_learners_team_in_every_seat(episode, players, seat):
    """A learner on team 1 gets the negation of team 0's reward: at every hand end (a
    match going on: ``info["seat"]``) and episode end (``final_info["seat"]``, the ended
    episode's learner, before ``seat="random"`` draws the next one's seat)."""
    envs = make_vec(6, num_players=players, seat=seat, reward="raw", episode=episode, target=300)
    obs, info = envs.reset(seed=11)
    rng = np.random.default_rng(11)
    teams_rewarded: dict[int, int] = {0: 0, 1: 0}  # team -> nonzero rewards checked
    for _ in range(700):
        obs, reward, terminated, _, info = envs.step(random_actions(info["action_mask"], rng))
        checks = []  # (game, learner seat of the rewarded episode, hand scores)
        for g in np.flatnonzero(info.get("_hand_scores", np.zeros(6, bool))):
            checks.append((g, int(info["seat"][g]), info["hand_scores"][g]))
        for g in np.flatnonzero(terminated):
            final = info["final_info"]
            checks.append((g, int(final["seat"][g]), final["hand_scores"][g]))
        for g, learner, scores in checks:
            if seat != "random":
                assert learner == seat
            team = learner % 2
            team0 = float(scores[0] - scores[1])
            assert reward[g] == (team0 if team == 0 else -team0), (g, learner, scores)
            teams_rewarded[team] += int(team0 != 0)
    if seat == "random":
        assert teams_rewarded[0] > 0 and teams_rewarded[1] > 0
    else:
        assert teams_rewarded[seat % 2] > 0


def test_win_rewards_and_final_info_at_each_episode_end():
    """``reward="win"``: +1 / -1 / 0 to the learner's team by the hand's winner when its
    episode ends, 0 otherwise; ``final_info`` carries the result with a ``_`` mask for
    each key (the ended games)."""
    envs = make_vec(6, num_players=4, seat="random", reward="win")
    obs, info = envs.reset(seed=5)
    rng = np.random.default_rng(5)
    signs = set()
    for _ in range(600):
        obs, reward, terminated, _, info = envs.step(random_actions(info["action_mask"], rng))
        assert not reward[~terminated].any()
        if not terminated.any():
            continue
        final = info["final_info"]
        for key in ("hand_scores", "match_scores", "hands_ended", "winner", "seat"):
            np.testing.assert_array_equal(final[f"_{key}"], terminated, err_msg=key)
        for g in np.flatnonzero(terminated):
            w, team = int(final["winner"][g]), int(final["seat"][g]) % 2
            want = 0.0 if w < 0 else (1.0 if w == team else -1.0)
            assert reward[g] == want, (g, w, team)
            signs.add(want)
    assert {1.0, -1.0} <= signs


def test_illegal_action_error_reads_the_game_it_was_played_in():
    """With ``illegal_action="raise"``, the error's reason is that of the game where the
    action was illegal, not of game 0 (where it may be legal)."""
    envs = make_vec(4, num_players=2, illegal_action="raise", opponents="greedy")
    obs, info = envs.reset(seed=2)
    rng = np.random.default_rng(2)
    for _ in range(200):
        mask = info["action_mask"]
        only_in_0 = np.flatnonzero(mask[0] & ~mask[2])
        if only_in_0.size:
            break
        obs, _, _, _, info = envs.step(random_actions(mask, rng))
    assert only_in_0.size, "no action legal in game 0 and illegal in game 2 was met"
    a = int(only_in_0[0])
    actions = random_actions(mask, rng)
    actions[2] = a
    with pytest.raises(IllegalActionError, match="in game 2") as err:
        envs.step(actions)
    assert err.value.code == envs.unwrapped.game.action_error(a, 2) != ERR_OK


def test_illegal_actions_terminate_or_raise():
    envs = make_vec(4, num_players=2)
    obs, info = envs.reset(seed=0)
    u = envs.unwrapped
    actions = random_actions(info["action_mask"], np.random.default_rng(0))
    bad = actions.copy()
    bad[2] = discard_action(3) if not info["action_mask"][2, discard_action(3)] else -5
    before = copy_state(u.game.state)
    obs, reward, terminated, _, info = envs.step(bad)
    assert terminated[2] and reward[2] == -1.0
    assert "illegal action" in info["final_info"]["illegal_action"][2]
    assert info["final_info"]["_illegal_action"].tolist() == [False, False, True, False]
    # game 2 was dealt its next episode; the others moved on
    assert not np.array_equal(before.hands[2], u.game.state.hands[2])
    assert u.game.state.scalars[2, S_HANDS_ENDED] == 0

    strict = make_vec(4, num_players=2, illegal_action="raise")
    obs, info = strict.reset(seed=0)
    before = copy_state(strict.unwrapped.game.state)
    with pytest.raises(IllegalActionError, match="in game 2"):
        strict.step(bad)
    assert states_equal(before, strict.unwrapped.game.state)  # no game moved
    with pytest.raises(TypeError):
        strict.step(np.zeros(4) + 0.5)


def test_held_games_do_not_move():
    """``step(hold=...)``: the held games ignore their actions (an illegal one is not
    refused), keep their state, observation and mask, reward 0, not terminated; the
    others play as in a step without hold (RLlib's NEXT_STEP adapter relies on it)."""
    kw = dict(num_players=2, opponents="greedy", illegal_action="raise")
    held_env, plain = BurakoVectorEnv(4, **kw), BurakoVectorEnv(4, **kw)
    obs, info = held_env.reset(seed=3)
    plain.reset(seed=3)
    actions = random_actions(info["action_mask"], np.random.default_rng(3))
    bad = actions.copy()
    bad[1] = int(np.flatnonzero(~info["action_mask"][1])[0])  # illegal: ignored when held
    hold = np.array([False, True, False, False])
    before = copy_state(held_env.game.state)
    obs2, reward, terminated, _, info2 = held_env.step(bad, hold=hold)
    want_obs, want_reward, *_ = plain.step(actions)
    assert states_equal(take_games(before, 1), take_games(held_env.game.state, 1))
    np.testing.assert_array_equal(obs2[1], obs[1])
    np.testing.assert_array_equal(info2["action_mask"][1], info["action_mask"][1])
    assert reward[1] == 0.0 and not terminated[1]
    moved = ~hold
    np.testing.assert_array_equal(obs2[moved], want_obs[moved])
    np.testing.assert_array_equal(reward[moved], want_reward[moved])
    for bad_hold in (np.ones(3, np.bool_), np.ones(4, np.int64)):
        with pytest.raises(ValueError, match=r"hold must be a bool array of shape \(4,\)"):
            held_env.step(actions, hold=bad_hold)


def test_python_and_search_opponents():
    first = FirstLegal()
    envs = make_vec(6, num_players=4, opponents=[first, FirstLegalSearch(), "greedy"])
    u = envs.unwrapped
    assert len(u.agents) == 4 and u.agents[1] is first
    obs, info = envs.reset(seed=1)
    rng = np.random.default_rng(1)
    ended = 0
    for _ in range(300):
        obs, _, terminated, _, info = envs.step(random_actions(info["action_mask"], rng))
        ended += int(terminated.sum())
        assert (info["seat"] == 0).all()
    assert ended > 0 and max(first.batches) > 1


def test_reset_seeds():
    a, b = make_vec(3, num_players=4), make_vec(3, num_players=4)
    oa, ia = a.reset(seed=9)
    ob, ib = b.reset(seed=9)
    np.testing.assert_array_equal(oa, ob)
    np.testing.assert_array_equal(a.unwrapped.opponent_rng, b.unwrapped.opponent_rng)
    oc, _ = b.reset(seed=10)
    assert not np.array_equal(oa, oc)
    od, _ = b.reset()  # a seed from the env's generator: another deal
    assert not np.array_equal(oc, od)
    with pytest.raises(ValueError, match="seed must be"):
        a.reset(seed=-1)
    with pytest.raises(RuntimeError, match="reset"):
        make_vec(2).step(np.zeros(2, np.int64))


# ------------------------------------------------------------------ normalised observations
def test_observation_layout_blocks_and_bounds():
    for variant, players in (("argentine", 4), ("colombian", 8), ("italian", 2)):
        v = load_variant(variant, num_players=players)
        lay = ObservationLayout(v)
        spans = lay.spans()
        assert list(spans) == list(ObsLayout._fields[:-1])
        stops = [0] + [stop for _, stop in spans.values()]
        assert [start for start, _ in spans.values()] == stops[:-1]  # contiguous, in order
        assert stops[-1] == lay.size == BurakoGymEnv(v).observation_space.shape[0]
        assert (lay.scale > 0).all() and (lay.low <= lay.high).all()
        points = lay.scale == POINTS_SCALE
        assert (lay.normalized_low[~points] == 0).all() and (
            lay.normalized_high[~points] <= 1
        ).all()
        np.testing.assert_array_equal(lay["misc"].high[[0, 2]], [v.total_cards, v.max_turns])
        assert pickle.loads(pickle.dumps(lay)).spans() == spans


@pytest.mark.parametrize(("variant", "players"), [("argentine", 4), ("brazilian", 2)])
def test_normalized_observations_are_raw_over_scale_within_bounds(variant, players):
    kw = {"variant": variant, "num_players": players, "opponents": "greedy"}
    raw, norm = make_vec(4, **kw), make_vec(4, normalize_obs=True, **kw)
    lay = norm.unwrapped.observation_layout
    space = norm.single_observation_space
    assert space.dtype == np.float32
    np.testing.assert_array_equal(space.low, lay.normalized_low)
    np.testing.assert_array_equal(space.high, lay.normalized_high)
    o_raw, info = raw.reset(seed=4)
    o_norm, _ = norm.reset(seed=4)
    rng = np.random.default_rng(4)
    lo, hi = np.inf, -np.inf
    for _ in range(300):
        assert o_norm.dtype == np.float32 and norm.observation_space.contains(o_norm)
        np.testing.assert_array_equal(o_norm, o_raw.astype(np.float32) / lay.scale)
        lo, hi = min(lo, o_norm.min()), max(hi, o_norm.max())
        actions = random_actions(info["action_mask"], rng)
        o_raw, _, term, _, info = raw.step(actions)
        o_norm, _, _, _, info_n = norm.step(actions)
        np.testing.assert_array_equal(info["action_mask"], info_n["action_mask"])
        for g in np.flatnonzero(term):
            final = info["final_obs"][g].astype(np.float32) / lay.scale
            np.testing.assert_array_equal(info_n["final_obs"][g], final)
    counts = ~np.isin(np.arange(lay.size), np.flatnonzero(lay.scale == POINTS_SCALE))
    assert (o_norm[:, counts] >= 0).all() and (o_norm[:, counts] <= 1).all()
    # the single env: the same normalisation, and Gymnasium's checker accepts it
    from gymnasium.utils.env_checker import check_env

    single = BurakoGymEnv(variant, players, normalize_obs=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "Not able to test alternative render modes"
        check_env(BurakoGymEnv(variant, players, normalize_obs=True, opponents="greedy"))
    o, _ = single.reset(seed=0)
    assert single.observation_space.contains(o)
    plain = BurakoGymEnv(variant, players)
    np.testing.assert_array_equal(o, plain.reset(seed=0)[0].astype(np.float32) / lay.scale)
    assert single.observation_layout.spans() == lay.spans()


# ------------------------------------------------------------------ pickling the single env
@pytest.mark.parametrize("opponents", [None, "greedy", "discard_table"])
@pytest.mark.parametrize("made", [False, True])
def test_pickled_single_env_continues_the_same_game(opponents, made):
    kw = {"num_players": 4, "opponents": opponents, "seat": "random", "normalize_obs": made}
    env = gymnasium.make("Burako-v1", **kw) if made else BurakoGymEnv(**kw)
    raw = env.unwrapped
    obs, _ = env.reset(seed=21)
    rng = np.random.default_rng(21)
    for _ in range(7):
        obs, _, terminated, _, _ = env.step(int(rng.choice(np.flatnonzero(raw.action_masks()))))
        assert not terminated
    twin = pickle.loads(pickle.dumps(env))
    assert states_equal(raw.game.state, twin.unwrapped.game.state)
    episodes = 0
    for _ in range(3000):
        mask = raw.action_masks()
        np.testing.assert_array_equal(mask, twin.unwrapped.action_masks())
        a = int(rng.choice(np.flatnonzero(mask)))
        got, want = twin.step(a), env.step(a)
        np.testing.assert_array_equal(got[0], want[0])
        assert got[1:4] == want[1:4]
        # info: the same keys and values, its action_mask an array
        np.testing.assert_array_equal(got[4].pop("action_mask"), want[4].pop("action_mask"))
        assert got[4] == want[4]
        if want[2]:
            episodes += 1
            if episodes == 2:
                break
            np.testing.assert_array_equal(env.reset()[0], twin.reset()[0])  # the generator too
    assert episodes == 2
    # the unpickled env's buffers are its own: stepping one leaves the other alone
    assert twin.unwrapped._obs_batch.base is twin.unwrapped._obs


def test_pickled_vector_envs_continue_the_same_games():
    envs = make_vec(4, num_players=4, opponents=["greedy", FirstLegal(), "random"])
    obs, info = envs.reset(seed=8)
    vec = VectorEnv("italian", 2, num_envs=4, seed=8)
    v_obs, v_mask, v_info = vec.reset()
    rng = np.random.default_rng(8)
    for _ in range(20):
        obs, _, _, _, info = envs.step(random_actions(info["action_mask"], rng))
        v_obs, v_mask, v_info = vec.step(random_actions(v_mask, rng))
    twin, v_twin = pickle.loads(pickle.dumps((envs, vec)))
    ended = 0
    for _ in range(300):
        a = random_actions(info["action_mask"], rng)
        got, want = twin.step(a), envs.step(a)
        for g, w in zip(got[:4], want[:4], strict=True):
            np.testing.assert_array_equal(g, w)
        np.testing.assert_array_equal(got[4]["action_mask"], want[4]["action_mask"])
        info = want[4]
        a = random_actions(v_mask, rng)
        (o1, m1, i1), (v_obs, v_mask, v_info) = v_twin.step(a), vec.step(a)
        np.testing.assert_array_equal(m1, v_mask)
        np.testing.assert_array_equal(o1, v_obs)
        for key in ("ended", "final_scores", "team_rewards", "seat", "num_legal"):
            np.testing.assert_array_equal(i1[key], v_info[key])  # the info's views work
        ended += int(v_info["ended"].sum())
    assert ended > 0


# ------------------------------------------------------------------ benchmarks
def test_bench_functions():
    from burako_env.frontends.bench import bench_gym_async, bench_gym_vector

    rows = [
        bench_gym_vector(num_envs=16, seconds=0.2, num_players=2, threads=1),
        bench_gym_vector(num_envs=16, seconds=0.2, num_players=2, threads=1, copy=False),
        bench_gym_async(num_envs=2, seconds=0.3, num_players=2),
    ]
    assert [r["api"] for r in rows] == ["gym-vector", "gym-vector copy=False", "gym-async"]
    for r in rows:
        assert r["steps"] > 0 and r["steps_per_s"] > 0 and r["players"] == 2


# ------------------------------------------------------------------ the example
def test_ppo_vector_example_smoke(monkeypatch, tmp_path, capsys):
    """The CleanRL-style example trains, logs charts/ and losses/ to TensorBoard, saves
    its model, evaluates it against the heuristics, and never prints ``return nan`` (it
    did before its first finished episode; it logged, saved and evaluated nothing)."""
    pytest.importorskip("torch", reason="the PPO example needs torch: pip install 'burako[train]'")
    event_accumulator = pytest.importorskip(
        "tensorboard.backend.event_processing.event_accumulator"
    )
    import torch

    path = ROOT / "scripts" / "tools" / "ppo_vector_example.py"
    spec = importlib.util.spec_from_file_location("ppo_vector_example", path)
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, spec.name, module)  # its dataclass looks itself up
    spec.loader.exec_module(module)
    run = tmp_path / "run"
    args = module.parse_args(
        ["--total-timesteps", "1024", "--num-envs", "8", "--num-steps", "64", "--hidden", "32"]
        + ["--run-dir", str(run), "--eval-hands", "2"]
    )
    stats = module.main(args)
    assert stats["global_step"] == 1024 and stats["iteration"] == 2
    assert stats["episodes"] > 0 and stats["sps"] > 0
    assert np.isfinite(stats["approx_kl"])
    out = capsys.readouterr().out
    assert "nan" not in out
    # the saved model loads into a fresh network
    saved = torch.load(run / "agent.pt", weights_only=False)
    assert saved["args"]["hidden"] == 32 and stats["model"] == str(run / "agent.pt")
    net = module.Agent(next(iter(saved["state_dict"].values())).shape[1], 2541, 32)
    net.load_state_dict(saved["state_dict"])
    # the final evaluation: the trained policy against the three heuristics
    assert set(stats["eval"]) == {"random", "greedy", "discard_table"}
    assert all(0 <= rate <= 1 for rate in stats["eval"].values())
    assert "ppo_vector" in out and "discard_table" in out
    # TensorBoard's scalars, CleanRL's names
    (events,) = run.glob("events.out.tfevents.*")
    tags = set(event_accumulator.EventAccumulator(str(events)).Reload().Tags()["scalars"])
    for tag in (
        "charts/episodic_return",
        "charts/learning_rate",
        "charts/SPS",
        "losses/value_loss",
        "losses/policy_loss",
        "losses/entropy",
        "losses/approx_kl",
        "eval/win_rate_vs_greedy",
    ):
        assert tag in tags, tag


def test_ppo_vector_example_says_no_return_before_an_episode_ends(monkeypatch, capsys):
    pytest.importorskip("torch", reason="the PPO example needs torch: pip install 'burako[train]'")
    path = ROOT / "scripts" / "tools" / "ppo_vector_example.py"
    spec = importlib.util.spec_from_file_location("ppo_vector_example", path)
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, spec.name, module)
    spec.loader.exec_module(module)
    # 8 steps of 2 games: no hand ends that soon
    args = module.parse_args(
        ["--total-timesteps", "16", "--num-envs", "2", "--num-steps", "8", "--hidden", "8"]
        + ["--num-minibatches", "1", "--run-dir", "", "--eval-hands", "0"]
    )
    stats = module.main(args)
    assert stats["episodes"] == 0 and stats["mean_return"] is None
    out = capsys.readouterr().out
    assert "no episode finished yet" in out and "nan" not in out
