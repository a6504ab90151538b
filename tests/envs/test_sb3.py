"""sb3 (burako_env.sb3, docs/RL.md): the compiled batch as an sb3 ``VecEnv`` keeps sb3's
conventions (dones, terminal observations, ``TimeLimit.truncated``, per-game masks
through ``env_method``), plays the same games as ``BurakoVectorEnv`` given the same seed
and actions, refuses what it cannot do, and sb3-contrib's MaskablePPO trains on it
without ever taking an illegal action (the env raises on one).

Skipped where stable-baselines3 or sb3-contrib is missing (the dev extra installs them)."""

from __future__ import annotations

import numpy as np
import pytest

from burako_env.extras import MissingExtra

try:
    from burako_env.sb3 import BurakoSB3VecEnv
except MissingExtra as exc:
    pytest.skip(f"stable-baselines3 is not installed ({exc})", allow_module_level=True)
sb3_contrib = pytest.importorskip("sb3_contrib")

from sb3_contrib.common.maskable.utils import (  # noqa: E402
    get_action_masks,
    is_masking_supported,
)
from stable_baselines3.common.vec_env import VecEnv, VecMonitor  # noqa: E402

from burako_env.core.constants import NUM_ACTIONS  # noqa: E402
from burako_env.core.game import IllegalActionError  # noqa: E402
from burako_env.gym.vector import BurakoVectorEnv  # noqa: E402

N = 8


def random_legal(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    return np.array([rng.choice(np.flatnonzero(row)) for row in masks])


def test_sb3_conventions_and_the_vector_envs_games():
    """Step for step the vector env's games (same seed, same actions), in sb3's layout."""
    env = BurakoSB3VecEnv(N, opponents="greedy")
    ref = BurakoVectorEnv(N, opponents="greedy")
    assert isinstance(env, VecEnv) and env.num_envs == N
    assert env.observation_space == ref.single_observation_space
    assert env.action_space.n == NUM_ACTIONS
    env.seed(5)
    obs = env.reset()
    ref_obs, ref_info = ref.reset(seed=5)
    np.testing.assert_array_equal(obs, ref_obs)
    assert [i["seat"] for i in env.reset_infos] == list(ref_info["seat"])
    rng = np.random.default_rng(0)
    ended = 0
    for _ in range(120):
        masks = get_action_masks(env)
        assert masks.dtype == np.bool_ and masks.shape == (N, NUM_ACTIONS)
        np.testing.assert_array_equal(masks, ref_info["action_mask"])
        assert masks.any(axis=1).all()  # a finished game's row is its next episode's
        actions = random_legal(masks, rng)
        obs, rewards, dones, infos = env.step(actions)
        ref_obs, ref_rew, term, trunc, ref_info = ref.step(actions)
        np.testing.assert_array_equal(obs, ref_obs)
        np.testing.assert_array_equal(rewards, ref_rew.astype(np.float32))
        np.testing.assert_array_equal(dones, term | trunc)
        assert len(infos) == N
        for i, info in enumerate(infos):
            assert info["TimeLimit.truncated"] is False
            assert info["seat"] == ref_info["seat"][i]
            assert ("terminal_observation" in info) == bool(dones[i])
        for i in np.flatnonzero(dones):
            ended += 1
            np.testing.assert_array_equal(
                infos[i]["terminal_observation"], ref_info["final_obs"][i]
            )
            assert infos[i]["winner"] == ref_info["final_info"]["winner"][i]
            assert rewards[i] != 0 or infos[i]["winner"] < 0
    assert ended > 0  # the autoreset was exercised
    env.close()


def test_same_seed_same_games_and_masks_through_wrappers():
    def run(seed: int) -> list[np.ndarray]:
        env = VecMonitor(BurakoSB3VecEnv(4, normalize_obs=True))
        assert is_masking_supported(env)  # MaskablePPO's check, through the wrapper
        env.seed(seed)
        out = [env.reset()]
        rng = np.random.default_rng(1)
        for _ in range(30):
            out.append(env.step(random_legal(get_action_masks(env), rng))[0])
        return out

    a, b, c = run(7), run(7), run(8)
    assert all(np.array_equal(x, y) for x, y in zip(a, b, strict=True))
    assert not np.array_equal(a[0], c[0])


def test_attributes_methods_and_refusals():
    env = BurakoSB3VecEnv(4, num_players=2, opponents="random", illegal_action="raise")
    env.reset()
    assert env.get_attr("num_players") == [2] * 4
    assert env.get_attr("num_players", indices=[1, 3]) == [2, 2]
    assert env.has_attr("no_such_attribute") is False
    masks = env.env_method("action_masks", indices=[2, 0])
    np.testing.assert_array_equal(np.stack(masks), env.action_masks()[[2, 0]])
    assert env.env_method("__repr__", indices=1) == [repr(env.vector_env)]
    assert env.env_is_wrapped(VecMonitor) == [False] * 4
    env.set_attr("copy", False)
    assert env.vector_env.copy is False
    with pytest.raises(ValueError, match="share one vector env.*indices=None"):
        env.set_attr("copy", True, indices=[0])
    assert env.vector_env.copy is False  # untouched on refusal
    with pytest.raises(IndexError, match=r"0\.\.3, got \[4\]"):
        env.get_attr("num_players", indices=[4])
    with pytest.raises(RuntimeError, match="step_async"):
        env.step_wait()
    with pytest.raises(ValueError, match="not both"):
        BurakoSB3VecEnv(vector_env=env.vector_env, opponents="greedy")
    with pytest.raises(TypeError, match="BurakoVectorEnv"):
        BurakoSB3VecEnv(vector_env=object())
    # an illegal action raises and moves no game
    before = env.vector_env.table.obs.copy()
    bad = np.array([np.flatnonzero(~row)[0] for row in env.action_masks()])
    with pytest.raises(IllegalActionError):
        env.step(bad)
    np.testing.assert_array_equal(env.vector_env.table.obs, before)


def test_an_illegal_action_ends_that_game_and_says_why():
    """illegal_action="terminate": the game's episode ends with -1, its info says why,
    and the next observation is its next episode's; the other games go on."""
    env = BurakoSB3VecEnv(3, num_players=2)
    env.seed(2)
    env.reset()
    masks = env.action_masks()
    actions = random_legal(masks, np.random.default_rng(0))
    actions[1] = np.flatnonzero(~masks[1])[0]
    _, rewards, dones, infos = env.step(actions)
    assert dones[1] and rewards[1] == -1.0
    assert "illegal" in infos[1]["illegal_action"]
    assert "terminal_observation" in infos[1] and "winner" not in infos[1]
    assert "illegal_action" not in infos[0] and "illegal_action" not in infos[2]
    assert env.action_masks()[1].any()  # its next episode's first decision


def test_maskable_ppo_trains_and_never_takes_an_illegal_action():
    """Two rollouts of 16 games; with illegal_action="raise" any illegal sampled action
    would stop training with IllegalActionError."""
    import torch
    from sb3_contrib import MaskablePPO

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        env = VecMonitor(
            BurakoSB3VecEnv(16, opponents="random", normalize_obs=True, illegal_action="raise")
        )
        model = MaskablePPO(
            "MlpPolicy",
            env,
            n_steps=16,
            batch_size=64,
            n_epochs=1,
            policy_kwargs={"net_arch": [32]},
            seed=0,
            device="cpu",
        )
        model.learn(total_timesteps=2 * 16 * 16)
        assert model.num_timesteps == 512
        assert np.isfinite(model.logger.name_to_value["train/loss"])
        # the trained policy, masked, picks legal actions only
        obs = env.reset()
        masks = get_action_masks(env)
        actions, _ = model.predict(obs, action_masks=masks, deterministic=True)
        assert masks[np.arange(16), actions].all()
    finally:
        torch.set_num_threads(threads)
