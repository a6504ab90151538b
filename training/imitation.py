"""Behaviour cloning: a warm start of the PPO network from a teacher agent's play.

Before the first PPO update (``imitation.env_steps > 0``), the teacher (by default
``discard_table``, the strongest heuristic) plays every seat of ``imitation.num_envs``
games in a :class:`~burako_env.envs.vector.VectorEnv`; each decision is recorded as
(observation, legal actions, the teacher's choice) and, once the game's episode ends,
the seat's discounted return (the team reward, ``ppo.gamma`` per decision of that seat,
the same target PPO's value head learns). The network is then trained on these for
``imitation.epochs`` passes:

    loss = cross-entropy(policy over the legal actions, teacher's action)
           + vf_coef * (value - return)^2          (decisions whose episode ended)

so that PPO starts from a policy that plays like the teacher and a value function that
already knows what a hand is worth, instead of from random play. Decisions of episodes
still running when the collection stops have no return and train only the policy.

    from burako_env.training.imitation import collect_demonstrations, behaviour_clone
    demo = collect_demonstrations("discard_table", env, steps=200, gamma=0.997)
    stats = behaviour_clone(net, demo, epochs=4, minibatch=2048, lr=1e-3, rng=rng)
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

try:  # the train extra: torch is not a core dependency (burako_env.extras)
    import torch
    from torch import nn
except ImportError as exc:
    from burako_env.extras import MissingExtra

    raise MissingExtra("burako_env.training", "torch") from exc

from burako_env.agents import make_agent
from burako_env.agents.network import BurakoNet, legal_lists
from burako_env.envs.vector import VectorEnv
from burako_env.training.transitions import Transitions


@dataclass
class Demonstrations:
    """A teacher's decisions: ``store`` (a
    :class:`~burako_env.training.transitions.Transitions` whose ``pick`` is the teacher's
    position in each legal list), the returns and which decisions have one (their episode
    ended during the collection)."""

    store: Transitions
    returns: np.ndarray
    has_return: np.ndarray
    episodes: int

    def __len__(self) -> int:
        return self.store.n


def collect_demonstrations(
    teacher: str, env: VectorEnv, steps: int, gamma: float, seed: int = 0
) -> Demonstrations:
    """``steps`` env steps of ``env`` with ``teacher`` (a registry agent name) playing
    every seat; every decision is recorded (``steps * env.num_envs`` of them)."""
    agent = make_agent(teacher, seed=seed)
    num_envs, num_players = env.num_envs, env.num_players
    store = Transitions(steps * num_envs, env.observation_size)
    seats = np.zeros((steps, num_envs), np.int64)
    ended = np.zeros((steps, num_envs), np.bool_)
    rewards = np.zeros((steps, num_envs, 2), np.float64)
    obs, mask, info = env.reset()
    zeros = np.zeros(num_envs, np.float32)
    for t in range(steps):
        actions = np.asarray(agent.act(obs, mask), np.int64)
        ids, counts = legal_lists(mask)
        pick = np.argmax(ids == actions[:, None], axis=1)
        store.add(obs, ids, counts, pick, zeros, zeros)
        seats[t] = info["seat"]
        obs, mask, info = env.step(actions)
        ended[t] = info["ended"]
        rewards[t] = info["team_rewards"]
    returns, has_return = _returns(seats, ended, rewards, num_players, gamma)
    return Demonstrations(store, returns.reshape(-1), has_return.reshape(-1), int(ended.sum()))


def _returns(seats, ended, rewards, num_players, gamma):
    """Discounted return of every decision (grid [steps, games]), backwards in time: a
    seat's return is its team's later rewards, discounted once per decision of that
    seat; an episode's end cuts it. Decisions after the last end of their game have
    none."""
    steps, num_envs = seats.shape
    games = np.arange(num_envs)
    team = np.arange(num_players) % 2
    later = np.zeros((num_envs, num_players), np.float64)  # return of each seat's next step
    seen_end = np.zeros(num_envs, np.bool_)
    returns = np.zeros((steps, num_envs), np.float32)
    has = np.zeros((steps, num_envs), np.bool_)
    for t in range(steps - 1, -1, -1):
        later[ended[t]] = 0.0
        seen_end |= ended[t]
        later += rewards[t][:, team]
        returns[t] = later[games, seats[t]]
        has[t] = seen_end
        later[games, seats[t]] *= gamma
    return returns, has


def behaviour_clone(
    net: BurakoNet,
    demo: Demonstrations,
    epochs: int,
    minibatch: int,
    lr: float,
    rng: np.random.Generator,
    vf_coef: float = 0.5,
    max_grad_norm: float = 0.5,
    log=None,
) -> dict:
    """Train ``net`` on ``demo`` (cross-entropy on the teacher's actions plus the value
    loss); ``log(scalars, epoch)`` after each epoch. Returns the last epoch's figures:
    ``policy_loss``, ``value_loss``, ``accuracy`` (the argmax is the teacher's action)."""
    store, n = demo.store, len(demo)
    if n == 0:
        raise ValueError("no demonstrations to learn from")
    optimizer = torch.optim.Adam(net.parameters(), lr=lr, eps=1e-5)
    device = net.value_head.weight.device
    returns = torch.from_numpy(demo.returns).to(device)
    has_return = torch.from_numpy(demo.has_return).to(device)
    # The demonstrations carry no hint (-1): with a hint policy the network's own logits
    # learn the teacher without the hint's bonus. Fitted with it, the bonus alone would
    # explain the teacher (often the hint policy itself) and grow until the policy is
    # deterministic, leaving PPO nothing to explore; it keeps its initial value
    # (HINT_GAIN) for PPO to tune.
    net.train()
    stats: dict = {}
    for epoch in range(epochs):
        # cosine decay within the warm start: a large step first, a fine fit at the end
        order = rng.permutation(n)
        sums = {"policy_loss": 0.0, "value_loss": 0.0, "accuracy": 0.0}
        num_batches = math.ceil(n / minibatch)
        for i, start in enumerate(range(0, n, minibatch)):
            frac = (epoch * num_batches + i) / (epochs * num_batches)
            for group in optimizer.param_groups:
                group["lr"] = lr * 0.5 * (1.0 + math.cos(math.pi * frac))
            mb = np.sort(order[start : start + minibatch])
            legal, valid = store.lists(mb)
            no_hint = torch.from_numpy(store.hint[mb])
            logits, value = net(torch.from_numpy(store.obs[mb]), legal, valid, no_hint)
            pick = torch.from_numpy(store.pick[mb]).to(device)
            logp = torch.log_softmax(logits, dim=-1)
            policy_loss = -logp.gather(1, pick[:, None]).mean()
            known = has_return[mb]
            if bool(known.any()):
                value_loss = 0.5 * ((value - returns[mb])[known] ** 2).mean()
            else:
                value_loss = torch.zeros(())
            loss = policy_loss + vf_coef * value_loss
            optimizer.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(net.parameters(), max_grad_norm)
            optimizer.step()
            k = len(mb) / n
            sums["policy_loss"] += float(policy_loss.detach()) * k
            sums["value_loss"] += float(value_loss.detach()) * k
            sums["accuracy"] += float((logits.argmax(1) == pick).float().mean()) * k
        stats = sums
        if log is not None:
            log(stats, epoch + 1)
    return stats
