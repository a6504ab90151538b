"""Benchmark Gymnasium's vector API over the batched core against the project's own
VectorEnv and against Gymnasium's AsyncVectorEnv of the single env; ``--job rl``: the
env each RL library steps, side by side.

    .venv/bin/python scripts/bench/bench_gym_vector.py [--job gym|rl] [--seconds 5]
        [--variant argentine] [--players 4] [--batch 1024] [--threads 2]
        [--async-envs 2] [--opponents random] [--rllib-batch 256]

Four rows, random legal play on every seat in each (so the hands are alike):

* ``vector``: :class:`~burako_env.envs.vector.VectorEnv`, every game one decision per
  step whoever is to act, the actions drawn from the masks in Python
  (:func:`burako_env.frontends.bench.bench_vector`, ``picker="mask"``);
* ``gym-vector``: ``gymnasium.make_vec("burako_env:Burako-v1", vectorization_mode=
  "vector_entry_point")``, the learner's actions drawn from ``info["action_mask"]`` the
  same way, the opponents compiled (:func:`~burako_env.frontends.bench.bench_gym_vector`),
  with its default ``copy=True`` (fresh arrays at each step) and with ``copy=False`` (the
  env's own buffers, as VectorEnv hands out);
* ``gym-async``: ``gymnasium.vector.AsyncVectorEnv`` of ``--async-envs`` single envs
  (:func:`~burako_env.frontends.bench.bench_gym_async`).

A ``vector`` step is a decision of any seat, a ``gym-*`` step one of the learner's (the
opponents' decisions until its next one included): episodes/s compares the three. The
functions document what each measures.

``--job rl`` (the env steps/s an RL library gets, docs/RL.md), random legal learner
actions in each, the masks read the way the library reads them:

* ``gym-vector``: ``make_vec`` as above (the project's trainer, or your own loop);
* ``sb3-vecenv``: :class:`~burako_env.sb3.BurakoSB3VecEnv` of ``--batch`` games, the
  masks from sb3-contrib's ``get_action_masks`` (what ``MaskablePPO`` calls each step);
* ``gym-single``: one :class:`~burako_env.gym.single.BurakoGymEnv` (what sb3's
  ``DummyVecEnv`` steps, one game a call), masks from ``action_masks()``;
* ``rllib-aec``: :class:`~burako_env.rllib.BurakoMultiAgentEnv` (what RLlib's
  multi-agent env runner steps: one decision of any seat a call, every seat the
  learner), skipped without the rllib extra;
* ``rllib-vector``: RLlib's own sampling (``SingleAgentEnvRunner``, the masking module
  choosing) on :class:`~burako_env.rllib.BurakoRLlibVectorEnv` of ``--rllib-batch``
  games; ``rllib-aec-sample``: RLlib's sampling (``MultiAgentEnvRunner``) on
  ``BurakoMultiAgentEnv``; both skipped without the rllib extra.
"""

from __future__ import annotations

import argparse
import datetime
import time

import numpy as np

from burako_env.frontends.bench import (
    bench_gym_async,
    bench_gym_vector,
    bench_vector,
    format_env_rows,
    machine,
    pick_from_mask,
)


def _rates(api: str, steps: int, episodes: int, seconds: float, cpu: float, **row) -> dict:
    return {
        "api": api,
        "picker": "mask",
        "steps": steps,
        "episodes": episodes,
        "seconds": seconds,
        "cpu_seconds": cpu,
        "steps_per_s": steps / seconds,
        "episodes_per_s": episodes / seconds,
        "steps_per_cpu_s": steps / cpu,
        **row,
    }


def _timed(step, seconds: float) -> tuple[int, int, float, float]:
    """Call ``step()`` (-> (steps, episodes) of the call) for about ``seconds`` after
    three warm-up calls; (steps, episodes, wall s, CPU s)."""
    for _ in range(3):
        step()
    steps = episodes = 0
    c0, t0 = time.process_time(), time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        for _ in range(10):
            s, e = step()
            steps += s
            episodes += e
    return steps, episodes, time.perf_counter() - t0, time.process_time() - c0


def bench_sb3(
    num_envs: int, seconds: float, variant: str, num_players: int | None, threads: int, opponents
) -> dict:
    """:class:`~burako_env.sb3.BurakoSB3VecEnv` of ``num_envs`` games: learner steps/s,
    each step's masks from sb3-contrib's ``get_action_masks`` (``env_method``)."""
    import numba
    from sb3_contrib.common.maskable.utils import get_action_masks

    from burako_env.sb3 import BurakoSB3VecEnv

    numba.set_num_threads(threads)
    env = BurakoSB3VecEnv(num_envs, variant=variant, num_players=num_players, opponents=opponents)
    rng = np.random.default_rng(0)
    env.seed(0)
    env.reset()

    def step() -> tuple[int, int]:
        actions = pick_from_mask(get_action_masks(env), rng.random(num_envs))
        _, _, dones, _ = env.step(actions)
        return num_envs, int(np.count_nonzero(dones))

    steps, episodes, wall, cpu = _timed(step, seconds)
    v = env.vector_env
    env.close()
    return _rates(
        "sb3-vecenv", steps, episodes, wall, cpu,
        variant=v.variant.name, players=v.num_players, batch=num_envs, threads=threads,
    )  # fmt: skip


def bench_single(seconds: float, variant: str, num_players: int | None, opponents) -> dict:
    """One :class:`~burako_env.gym.single.BurakoGymEnv`: learner steps/s, masks from
    ``action_masks()``, reset at each episode's end (what a ``DummyVecEnv`` does)."""
    from burako_env.gym.single import BurakoGymEnv

    env = BurakoGymEnv(variant, num_players, opponents=opponents)
    rng = np.random.default_rng(0)
    env.reset(seed=0)

    def step() -> tuple[int, int]:
        action = pick_from_mask(env.action_masks()[None], rng.random(1))[0]
        _, _, terminated, truncated, _ = env.step(action)
        if terminated or truncated:
            env.reset()
            return 1, 1
        return 1, 0

    steps, episodes, wall, cpu = _timed(step, seconds)
    return _rates(
        "gym-single", steps, episodes, wall, cpu,
        variant=env.variant.name, players=env.num_players, batch=1, threads=1,
    )  # fmt: skip


def bench_rllib_env(seconds: float, variant: str, num_players: int | None) -> dict | None:
    """:class:`~burako_env.rllib.BurakoMultiAgentEnv` (the AEC game, one decision of the
    seat to act a call: every seat is a learner, so a step is any seat's decision);
    None without the rllib extra."""
    try:
        from burako_env.rllib import BurakoMultiAgentEnv
    except ImportError:
        return None
    env = BurakoMultiAgentEnv({"variant": variant, "num_players": num_players})
    rng = np.random.default_rng(0)
    state = {"obs": env.reset(seed=0)[0]}

    def step() -> tuple[int, int]:
        ((agent, o),) = state["obs"].items()
        action = pick_from_mask(o["action_mask"][None] > 0, rng.random(1))[0]
        obs, _, terms, _, _ = env.step({agent: action})
        if terms["__all__"]:
            state["obs"] = env.reset()[0]
            return 1, 1
        state["obs"] = obs
        return 1, 0

    steps, episodes, wall, cpu = _timed(step, seconds)
    return _rates(
        "rllib-aec", steps, episodes, wall, cpu,
        variant=env.aec.variant.name, players=env.aec.num_players, batch=1, threads=1,
    )  # fmt: skip


def bench_rllib_vector(
    num_envs: int, seconds: float, variant: str, num_players: int | None, threads: int, opponents
) -> dict | None:
    """RLlib's own sampling on :class:`~burako_env.rllib.BurakoRLlibVectorEnv` of
    ``num_envs`` games: a ``SingleAgentEnvRunner`` of :func:`~burako_env.rllib.
    vector_ppo_config` (built in this process, no Ray actor) sampling 8 steps of every
    game a call, the untrained masking module (64 units) choosing every action, RLlib's
    connectors and episode objects included; learner env steps/s. None without the
    rllib extra."""
    try:
        import torch
        from ray.rllib.env.single_agent_env_runner import SingleAgentEnvRunner

        from burako_env.rllib import vector_ppo_config
    except ImportError:
        return None
    import numba

    numba.set_num_threads(threads)
    torch.set_num_threads(1)
    config = vector_ppo_config(num_envs, num_players, variant, opponents=opponents, seed=0)
    runner = SingleAgentEnvRunner(config=config)
    per_call = 8 * num_envs

    def step() -> tuple[int, int]:
        episodes = runner.sample(num_timesteps=per_call, random_actions=False)
        return per_call, sum(1 for e in episodes if e.is_done)

    steps, episodes, wall, cpu = _timed(step, seconds)
    v = runner.env.unwrapped.vector_env
    runner.stop()
    return _rates(
        "rllib-vector", steps, episodes, wall, cpu, picker="module",
        variant=v.variant.name, players=v.num_players, batch=num_envs, threads=threads,
    )  # fmt: skip


def bench_rllib_aec_sampling(seconds: float, variant: str, num_players: int | None) -> dict | None:
    """RLlib's own sampling on :class:`~burako_env.rllib.BurakoMultiAgentEnv`: a
    ``MultiAgentEnvRunner`` of :func:`~burako_env.rllib.ppo_config` (in this process),
    64 decisions a call, the untrained shared module choosing; steps are any seat's
    decisions. None without the rllib extra."""
    try:
        import torch
        from ray.rllib.env.multi_agent_env_runner import MultiAgentEnvRunner

        from burako_env.rllib import ppo_config
    except ImportError:
        return None
    torch.set_num_threads(1)
    runner = MultiAgentEnvRunner(config=ppo_config(num_players or 4, variant, seed=0))
    per_call = 64

    def step() -> tuple[int, int]:
        episodes = runner.sample(num_timesteps=per_call, random_actions=False)
        return per_call, sum(1 for e in episodes if e.is_done)

    steps, episodes, wall, cpu = _timed(step, seconds)
    players = runner.env.unwrapped.envs[0].unwrapped.aec.num_players
    runner.stop()
    return _rates(
        "rllib-aec-sample", steps, episodes, wall, cpu, picker="module",
        variant=variant, players=players, batch=1, threads=1,
    )  # fmt: skip


def rl_rows(args) -> list[dict]:
    """``--job rl``: make_vec, the sb3 VecEnv, the single env and RLlib's env."""
    rows = [
        bench_gym_vector(
            args.batch, args.seconds, args.variant, args.players, args.threads, args.opponents
        ),
        bench_sb3(
            args.batch, args.seconds, args.variant, args.players, args.threads, args.opponents
        ),
        bench_single(args.seconds, args.variant, args.players, args.opponents),
    ]
    rllib_rows = [
        bench_rllib_vector(
            args.rllib_batch, args.seconds, args.variant, args.players, args.threads,
            args.opponents,
        ),
        bench_rllib_aec_sampling(args.seconds, args.variant, args.players),
        bench_rllib_env(args.seconds, args.variant, args.players),
    ]  # fmt: skip
    return rows + [row for row in rllib_rows if row]


def main(argv: list[str] | None = None) -> list[dict]:
    ap = argparse.ArgumentParser(description="Benchmark the Gymnasium vector API.")
    ap.add_argument("--job", choices=("gym", "rl"), default="gym")
    ap.add_argument("--seconds", type=float, default=5.0)
    ap.add_argument("--variant", default="argentine")
    ap.add_argument("--players", type=int, default=None)
    ap.add_argument("--batch", type=int, default=1024)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--async-envs", type=int, default=2)
    ap.add_argument("--rllib-batch", type=int, default=256)
    ap.add_argument("--opponents", default="random")
    args = ap.parse_args(argv)
    if args.job == "rl":
        rows = rl_rows(args)
        print(f"{machine()}, {datetime.date.today()}")
        print(format_env_rows(rows))
        return rows
    rows = [
        bench_vector(
            args.batch, args.seconds, args.variant, args.players, args.threads, picker="mask"
        ),
        bench_gym_vector(
            args.batch, args.seconds, args.variant, args.players, args.threads, args.opponents
        ),
        bench_gym_vector(
            args.batch,
            args.seconds,
            args.variant,
            args.players,
            args.threads,
            args.opponents,
            copy=False,
        ),
        bench_gym_async(args.async_envs, args.seconds, args.variant, args.players, args.opponents),
    ]
    print(f"{machine()}, {datetime.date.today()}")
    print(format_env_rows(rows))
    return rows


if __name__ == "__main__":
    main()
