"""RLlib (burako_env.rllib, docs/RLLIB.md): the MultiAgentEnv passes RLlib's own check,
is turn-based with exact masks and the AEC game's rewards, the masking module gives
illegal actions probability 0, and PPO with the shared policy trains two iterations on
one local env runner, every sampled action legal (the env raises on an illegal one).

Skipped, saying what to install, where the rllib extra is missing (setup installs it)."""

from __future__ import annotations

import os

import gymnasium
import numpy as np
import pytest

from burako_env.extras import MissingExtra

# before Ray is imported: a local instance listens on loopback only (as tests/training/test_ray.py)
os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")
try:
    from burako_env import rllib
except MissingExtra as exc:
    pytest.skip(f"RLlib is not installed ({exc})", allow_module_level=True)

import ray  # noqa: E402
import torch  # noqa: E402
from ray.rllib.core.columns import Columns  # noqa: E402
from ray.rllib.core.rl_module.rl_module import RLModuleSpec  # noqa: E402
from ray.rllib.utils.pre_checks.env import check_multiagent_environments  # noqa: E402

from burako_env import burako_v1, evaluate  # noqa: E402
from burako_env.core.constants import NUM_ACTIONS  # noqa: E402
from burako_env.envs.aec import IllegalMoveError  # noqa: E402
from burako_env.gym.vector import BurakoVectorEnv  # noqa: E402

BurakoMultiAgentEnv = rllib.BurakoMultiAgentEnv


def squash(x: np.ndarray) -> np.ndarray:
    x = x.astype(np.float32)
    return np.sign(x) * np.log1p(np.abs(x))


def play(env: BurakoMultiAgentEnv, seed: int, rng: np.random.Generator):
    """A whole episode of uniformly random legal actions, checking every step against a
    raw AEC game played alongside with the same seed and actions; the actions taken and
    each seat's summed reward."""
    aec = burako_v1.raw_env(num_players=env.aec.num_players, episode=env.aec.episode)
    aec.reset(seed=seed)
    obs, infos = env.reset(seed=seed)
    actions, total = [], dict.fromkeys(env.possible_agents, 0.0)
    while True:
        # turn-based: exactly the player to act observes, with its exact legal set
        assert list(obs) == [aec.agent_selection] == [env.agent_to_act]
        ((agent, o),) = obs.items()
        assert env.observation_spaces[agent].contains(o)
        want = aec.observe(agent)
        np.testing.assert_array_equal(o["observations"], squash(want["observation"]))
        legal = np.flatnonzero(o["action_mask"])
        assert set(legal) == set(aec.legal_actions()) == set(env.legal_actions())
        np.testing.assert_array_equal(o["action_mask"], want["action_mask"])
        assert set(infos) <= set(obs)
        a = int(rng.choice(legal))
        actions.append(a)
        aec.step(a)
        obs, rewards, terms, truncs, infos = env.step({agent: np.int64(a)})
        assert set(rewards) <= set(env.possible_agents)
        for name, r in rewards.items():
            assert r == aec.rewards[name]
            total[name] += r
        assert not truncs["__all__"]
        if terms["__all__"]:
            assert all(aec.terminations.values())
            return actions, total, obs, rewards, terms, truncs, infos
        assert not any(aec.terminations.values())


# ------------------------------------------------------------------ the environment
def test_rllibs_own_check_passes():
    """RLlib's check steps one unmasked random action: the default ``illegal="terminate"``
    ends the episode with -1 for the offender, as PettingZoo classic does."""
    env = BurakoMultiAgentEnv({"num_players": 2})
    check_multiagent_environments(env)
    obs, _ = env.reset(seed=3)
    ((agent, o),) = obs.items()
    illegal = int(np.flatnonzero(o["action_mask"] == 0)[0])
    obs, rewards, terms, truncs, infos = env.step({agent: illegal})
    assert terms["__all__"] and not truncs["__all__"] and set(obs) == set(env.possible_agents)
    assert rewards == {a: (-1.0 if a == agent else 0.0) for a in env.possible_agents}
    assert f"{agent} cannot play action {illegal}" in infos[agent]["illegal_move"]
    with pytest.raises(RuntimeError, match="reset"):
        env.step({agent: 0})


@pytest.mark.parametrize("num_players", [2, 4])
def test_turn_based_exact_masks_and_the_aec_games_rewards(num_players):
    env = BurakoMultiAgentEnv({"num_players": num_players})
    rng = np.random.default_rng(num_players)
    for seed in (0, 1):
        actions, total, obs, rewards, terms, truncs, infos = play(env, seed, rng)
        assert len(actions) > 20
        # the end: every seat observes (mask all zeros), is terminated and rewarded
        assert set(obs) == set(rewards) == set(infos) == set(env.possible_agents)
        assert all(terms.values()) and not any(truncs.values())
        for name in env.possible_agents:
            assert not obs[name]["action_mask"].any()
            assert "hand_scores" in infos[name] and "winner" in infos[name]
        seat = {a: i for i, a in enumerate(env.possible_agents)}
        # partners share the reward, the opponents get its negative
        r0 = total["player_0"]
        assert r0 != 0.0
        assert all(total[a] == (r0 if seat[a] % 2 == 0 else -r0) for a in total)


def test_a_match_rewards_every_hand_for_every_seat():
    env = BurakoMultiAgentEnv({"num_players": 2, "episode": "match", "squash": False})
    aec = burako_v1.raw_env(num_players=2, episode="match")
    env.reset(seed=5)
    aec.reset(seed=5)
    rng = np.random.default_rng(5)
    hand_ends = 0
    while True:
        agent = env.agent_to_act
        a = int(rng.choice(env.legal_actions()))
        aec.step(a)
        obs, rewards, terms, _, infos = env.step({agent: a})
        # every seat's reward is the AEC game's, a seat left out getting 0
        assert {n: rewards.get(n, 0.0) for n in aec.rewards} == aec.rewards
        if any(rewards.values()):
            hand_ends += 1
            assert set(rewards) == set(env.possible_agents)
            assert rewards["player_0"] == -rewards["player_1"]
            assert infos and all(i["hands_ended"] == hand_ends for i in infos.values())
        else:
            assert not infos
        if terms["__all__"]:
            break
        # squash=False: the engine's values as float32
        assert list(obs) == [aec.agent_selection]
        want = aec.observe(aec.agent_selection)["observation"]
        np.testing.assert_array_equal(obs[aec.agent_selection]["observations"], want)
    assert hand_ends >= 2


def test_illegal_raise_leaves_the_game_as_it_was():
    env = BurakoMultiAgentEnv({"num_players": 2, "illegal": "raise"})
    obs, _ = env.reset(seed=0)
    ((agent, o),) = obs.items()
    illegal = int(np.flatnonzero(o["action_mask"] == 0)[0])
    with pytest.raises(IllegalMoveError):
        env.step({agent: illegal})
    assert env.agent_to_act == agent
    np.testing.assert_array_equal(env.observe(agent)["action_mask"], o["action_mask"])
    for bad in (1.0, "3", True):  # never rounded or parsed
        with pytest.raises(TypeError):
            env.step({agent: bad})
    assert env.agent_to_act == agent
    with pytest.raises(KeyError, match=f"{agent} is to act"):
        env.step({"player_9": 0})
    with pytest.raises(ValueError, match="illegal must be one of"):
        BurakoMultiAgentEnv({"illegal": "ignore"})


def test_actions_for_agents_not_to_act_are_refused():
    """An extra agent's action was silently dropped (issue 59)."""
    env = BurakoMultiAgentEnv({"num_players": 2})
    obs, _ = env.reset(seed=0)
    ((agent, o),) = obs.items()
    legal = int(np.flatnonzero(o["action_mask"])[0])
    other = next(a for a in env.possible_agents if a != agent)
    with pytest.raises(ValueError, match=rf"only {agent} is to act.*\['{other}'\]"):
        env.step({agent: legal, other: 0})
    assert env.agent_to_act == agent  # nothing moved
    np.testing.assert_array_equal(env.observe(agent)["action_mask"], o["action_mask"])
    env.step({agent: legal})  # the agent's own action alone plays on


# ------------------------------------------------------------------ the masking module
def test_the_module_gives_illegal_actions_probability_zero():
    env = BurakoMultiAgentEnv({"num_players": 2})
    space = env.observation_spaces["player_0"]
    module = RLModuleSpec(
        module_class=rllib.MaskedPPOTorchRLModule,
        observation_space=space,
        action_space=env.action_spaces["player_0"],
        model_config={"fcnet_hiddens": [16], "head_fcnet_hiddens": [], "vf_share_layers": True},
    ).build()
    rng = np.random.default_rng(0)
    rows = []
    for seed in range(3):
        obs, _ = env.reset(seed=seed)
        for _ in range(30):
            ((agent, o),) = obs.items()
            rows.append(o)
            obs, *_ = env.step({agent: int(rng.choice(env.legal_actions()))})
    batch = {Columns.OBS: {k: torch.from_numpy(np.stack([r[k] for r in rows])) for k in rows[0]}}
    mask = batch[Columns.OBS]["action_mask"] > 0
    for forward in (module.forward_exploration, module.forward_inference, module.forward_train):
        logits = forward(dict(batch))[Columns.ACTION_DIST_INPUTS]
        assert logits.shape == (len(rows), NUM_ACTIONS)
        probs = torch.softmax(logits, -1)
        assert torch.all(probs[~mask] == 0) and torch.allclose(probs.sum(-1), torch.ones(len(rows)))
        picks = torch.distributions.Categorical(logits=logits).sample((20,))
        assert torch.all(mask.gather(1, picks.T))
    values = module.compute_values(dict(batch))
    assert values.shape == (len(rows),) and torch.isfinite(values).all()
    # the batch is left as it was (the learner reuses it)
    assert set(batch[Columns.OBS]) == {"observations", "action_mask"}


# ------------------------------------------------------------------ PPO
@pytest.fixture
def local_ray():
    """One torch thread; Ray is started by build_algo (BurakoPPOConfig), shut down after."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    # build_algo must start Ray itself (one left running by another test would be reused)
    ray.shutdown()
    yield
    ray.shutdown()
    torch.set_num_threads(threads)


def test_ppo_with_the_shared_policy_trains_two_iterations(local_ray):
    small = {"num_cpus": 1, "object_store_memory": 100 * 1024 * 1024}
    config = rllib.ppo_config(
        num_players=2,
        env_config={"illegal": "raise"},  # an illegal sampled action would stop training
        hidden=(32,),
        train_batch_size=256,
        minibatch_size=64,
        num_epochs=1,
        seed=0,
        ray_init=small,
    )
    assert config.policy_mapping_fn("player_1", None) == rllib.SHARED_POLICY
    assert not ray.is_initialized()
    algo = config.build_algo()  # starts Ray with the small machine's settings, not Ray's
    try:
        resources = ray.cluster_resources()
        assert resources["CPU"] == 1
        assert resources["object_store_memory"] == pytest.approx(small["object_store_memory"])
        assert rllib.init_ray() is False  # running: left as it is
        sampled = 0
        for i in range(2):
            result = algo.train()
            assert result["training_iteration"] == i + 1
            runners = result["env_runners"]
            assert runners["num_env_steps_sampled"] >= 256
            sampled += runners["num_env_steps_sampled"]
            stats = result["learners"][rllib.SHARED_POLICY]
            assert np.isfinite(stats["total_loss"]) and np.isfinite(stats["entropy"])
        assert sampled >= 512
        # the trained module, the one policy of every seat, picks legal actions only
        module = algo.get_module(rllib.SHARED_POLICY)
        env = BurakoMultiAgentEnv({"num_players": 2, "illegal": "raise"})
        obs, _ = env.reset(seed=11)
        for _ in range(100):
            ((agent, o),) = obs.items()
            batch = {Columns.OBS: {k: torch.from_numpy(v[None]) for k, v in o.items()}}
            logits = module.forward_exploration(batch)[Columns.ACTION_DIST_INPUTS]
            action = int(torch.distributions.Categorical(logits=logits).sample())
            obs, _, terms, _, _ = env.step({agent: action})  # raises if illegal
            if terms["__all__"]:
                obs, _ = env.reset()
        # ... and meets the heuristic agents on the tournament's deals (which check
        # every action against the mask too)
        kw = dict(hands=4, num_players=2, workers=1)
        res = evaluate(rllib.policy_function(module), opponents=("random",), **kw)
        assert res.pairing(res.agents[0], "random").hands == 4
        sampled = rllib.policy_function(module, greedy=False)
        res = evaluate(sampled, opponents=("greedy",), **kw)
        assert res.pairing(res.agents[0], "greedy").hands == 4
    finally:
        algo.stop()


# ------------------------------------------------------------------ the compiled batch
def test_the_vector_adapter_is_next_step_and_plays_the_vector_envs_games():
    """BurakoRLlibVectorEnv hands out a finished episode's last observation (mask all
    zeros) with ``terminated``, then, ignoring that game's next action, its next
    episode's first observation: per game, the decisions, rewards and observations of a
    BurakoVectorEnv (SAME_STEP) played with the same seed and actions."""
    n, steps = 4, 120
    kw = dict(num_players=2, opponents="greedy", illegal_action="raise")
    env = rllib.BurakoRLlibVectorEnv({"num_envs": n, **kw})
    assert env.metadata["autoreset_mode"] == gymnasium.vector.AutoresetMode.NEXT_STEP
    plain = BurakoVectorEnv(n, normalize_obs=True, **kw)
    pick = [np.random.default_rng(b) for b in range(n)]

    def choose(mask: np.ndarray, b: int) -> int:
        return int(pick[b].choice(np.flatnonzero(mask)))

    # the plain env's per-game records: (obs seen, reward, terminated, final obs)
    obs, info = plain.reset(seed=7)
    want = [[] for _ in range(n)]
    for _ in range(steps):
        actions = np.array([choose(info["action_mask"][b], b) for b in range(n)])
        seen = obs
        obs, reward, terminated, _, info = plain.step(actions)
        for b in range(n):
            final = info["final_obs"][b] if terminated[b] else None
            want[b].append((seen[b], reward[b], terminated[b], final, obs[b]))
    pick = [np.random.default_rng(b) for b in range(n)]
    obs, info = env.reset(seed=7)
    assert env.observation_space.contains(obs) and info["seat"].tolist() == [0] * n
    got = [[] for _ in range(n)]
    ended = 0
    for _ in range(steps):
        mask = obs["action_mask"] > 0
        pending = ~mask.any(axis=1)  # a finished episode: no legal action
        # a held game's action is ignored: an illegal one is not refused
        actions = np.array(
            [NUM_ACTIONS - 1 if pending[b] else choose(mask[b], b) for b in range(n)]
        )
        seen = obs["observations"]
        obs, reward, terminated, truncated, info = env.step(actions)
        assert not truncated.any() and set(info) == {"seat"}
        assert (obs["action_mask"][terminated] == 0).all()
        assert (obs["action_mask"][~terminated].sum(axis=1) > 0).all()
        for b in range(n):
            if pending[b]:  # the next episode's first observation, nothing played
                assert reward[b] == 0.0 and not terminated[b]
                # the plain env returned it with the last reward (SAME_STEP)
                np.testing.assert_array_equal(obs["observations"][b], want[b][len(got[b]) - 1][4])
                continue
            got[b].append((seen[b], reward[b], terminated[b], obs["observations"][b]))
        ended += int(terminated.sum())
    assert ended >= 2
    for b in range(n):
        for (o, r, t, after), (w_o, w_r, w_t, w_final, w_next) in zip(
            got[b], want[b][: len(got[b])], strict=True
        ):
            np.testing.assert_array_equal(o, w_o)
            assert (r, t) == (w_r, w_t)
            np.testing.assert_array_equal(after, w_final if t else w_next)
    with pytest.raises(ValueError, match="sets 'normalize_obs' itself"):
        rllib.BurakoRLlibVectorEnv({"normalize_obs": False})


def test_ppo_on_the_compiled_batch_trains_two_iterations(local_ray):
    """RLlib's single-agent env runner samples one BurakoRLlibVectorEnv of 8 games (the
    opponents compiled) with the masking module; ``illegal_action="raise"``, so an
    illegal sampled action, or one sent to a game waiting for its next episode and
    played, would stop training."""
    config = rllib.vector_ppo_config(
        num_envs=8,
        opponents="greedy",
        env_config={"illegal_action": "raise"},
        hidden=(32,),
        train_batch_size=512,
        minibatch_size=128,
        num_epochs=1,
        seed=0,
        ray_init={"num_cpus": 1, "object_store_memory": 100 * 1024 * 1024},
    )
    algo = config.build_algo()
    try:
        assert isinstance(algo.env_runner.env.unwrapped, rllib.BurakoRLlibVectorEnv)
        assert algo.env_runner.env.unwrapped.num_envs == 8  # one env of 8 games
        sampled = episodes = 0
        for i in range(2):
            result = algo.train()
            assert result["training_iteration"] == i + 1
            runners = result["env_runners"]
            assert runners["num_env_steps_sampled"] >= 512
            sampled += runners["num_env_steps_sampled"]
            episodes += runners.get("num_episodes", 0)
            stats = result["learners"]["default_policy"]
            assert np.isfinite(stats["total_loss"]) and np.isfinite(stats["entropy"])
        assert sampled >= 1024 and episodes > 0  # whole hands ended, and restarted
        module = algo.get_module()
        layout = algo.env_runner.env.unwrapped.vector_env.observation_layout
        player = rllib.policy_function(module, layout=layout)
        res = evaluate(player, opponents=("random",), hands=4, num_players=2, workers=1)
        assert res.pairing(res.agents[0], "random").hands == 4
    finally:
        algo.stop()
