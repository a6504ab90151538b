"""Masked PPO on Burako's Gymnasium vector API, in one file (CleanRL's ``ppo.py`` with
invalid-action masking): read it top to bottom.

    .venv/bin/python scripts/tools/ppo_vector_example.py --total-timesteps 200000 --num-envs 64
    tensorboard --logdir runs                   # its charts/ and losses/, as CleanRL's

It needs the ``train`` extra (``pip install 'burako[train]'``: torch). The environment is
``gymnasium.make_vec("burako_env:Burako-v1", vectorization_mode="vector_entry_point")``:
``num_envs`` games stepped together in compiled code, the learner on seat 0 against
``opponents`` (compiled ``random`` by default), float32 observations normalised by the
env (``normalize_obs=True``), the legal actions in ``info["action_mask"]``.

Two things differ from CleanRL's Atari/classic-control script:

* **Masks.** The policy's logits of illegal actions are set to -1e9 before the
  softmax (probability exactly 0 in float32), at sampling and in the update, where the
  mask stored with each observation is used again. The env autoresets in the **same
  step** (``metadata["autoreset_mode"]`` is SAME_STEP): the observation and the mask a
  step returns are always those of a decision to take, the new episode's first one where
  a game just ended, so no row of a mask is ever empty.
* **Episodes end, never truncate** (a hand ends; ``truncated`` is always False), so
  CleanRL's ``next_done`` is ``terminated`` and no final observation is bootstrapped.

Printed after each update (and returned by :func:`main`): episodes finished, their mean
return and the share won (once an episode has finished), and SPS, env steps (learner
decisions) per second of the whole run, updates included, as CleanRL counts them (and the
rollouts' alone: env and inference). As CleanRL's, the run logs to TensorBoard in
``--run-dir`` (``runs/ppo_vector`` by default; ``--run-dir ""`` logs and saves nothing):
``charts/`` (episodic return and length, win rate, learning rate, SPS) and ``losses/``
(value, policy, entropy, KL, clip fraction, explained variance); it saves the model there
(``agent.pt``: the network's weights and the run's arguments) and ends with
:func:`burako_env.evaluate` of the greedy policy (its most likely legal action) against
the three heuristics (``--eval-hands`` each; 0 skips it), the table printed.
The project's own trainer (``burako train``, docs/TRAINING.md) is the one to use for
real runs: self-play, the league, a network shaped like the action space; this script
shows the vector API.
"""

from __future__ import annotations

import argparse
import dataclasses
import random
import time
from dataclasses import dataclass
from pathlib import Path

import gymnasium
import numpy as np

try:  # the train extra
    import torch
    from torch import nn, optim
    from torch.distributions.categorical import Categorical
except ImportError as exc:  # pragma: no cover - the smoke test skips without torch
    raise SystemExit(f"this example needs torch: pip install 'burako[train]' ({exc})") from None


@dataclass
class Args:
    seed: int = 1
    """seed of the experiment (the env's reset, torch, numpy)"""
    torch_threads: int = 1
    """torch's threads (numba's run the env beside them)"""
    variant: str = "argentine"
    """the rule variant"""
    num_players: int = 2
    """players at the table; the learner is seat 0"""
    opponents: str = "random"
    """the opponents' agent (random, greedy, discard_table, ppo)"""
    total_timesteps: int = 100_000
    """learner decisions in all"""
    learning_rate: float = 2.5e-4
    num_envs: int = 64
    """games stepped together"""
    num_steps: int = 64
    """steps per game and rollout"""
    anneal_lr: bool = True
    gamma: float = 0.99
    gae_lambda: float = 0.95
    num_minibatches: int = 4
    update_epochs: int = 4
    norm_adv: bool = True
    clip_coef: float = 0.2
    clip_vloss: bool = True
    ent_coef: float = 0.01
    vf_coef: float = 0.5
    max_grad_norm: float = 0.5
    hidden: int = 256
    """width of the two hidden layers"""
    run_dir: str = "runs/ppo_vector"
    """TensorBoard logs and the saved model (agent.pt); "" for neither"""
    eval_hands: int = 200
    """hands against each heuristic in the final evaluation (0: none)"""
    # filled in at run time
    batch_size: int = 0
    minibatch_size: int = 0
    num_iterations: int = 0


def parse_args(argv: list[str] | None = None) -> Args:
    """``Args`` from the command line: ``--num-envs 64``, ``--anneal-lr false``, ..."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    for f in dataclasses.fields(Args):
        if f.name in ("batch_size", "minibatch_size", "num_iterations"):
            continue
        kind = type(f.default)
        if kind is bool:
            ap.add_argument(
                f"--{f.name.replace('_', '-')}",
                type=lambda s: s.lower() in ("1", "true", "yes"),
                default=f.default,
            )
        else:
            ap.add_argument(f"--{f.name.replace('_', '-')}", type=kind, default=f.default)
    return Args(**vars(ap.parse_args(argv)))


def layer_init(layer: nn.Linear, std: float = np.sqrt(2), bias_const: float = 0.0) -> nn.Linear:
    """``layer`` with orthogonal weights of gain ``std`` and constant biases (CleanRL's)."""
    torch.nn.init.orthogonal_(layer.weight, std)
    torch.nn.init.constant_(layer.bias, bias_const)
    return layer


class Agent(nn.Module):
    """CleanRL's actor and critic: two tanh layers each, the actor's illegal logits
    masked to -1e9."""

    def __init__(self, obs_size: int, num_actions: int, hidden: int):
        super().__init__()
        self.critic = nn.Sequential(
            layer_init(nn.Linear(obs_size, hidden)),
            nn.Tanh(),
            layer_init(nn.Linear(hidden, hidden)),
            nn.Tanh(),
            layer_init(nn.Linear(hidden, 1), std=1.0),
        )
        self.actor = nn.Sequential(
            layer_init(nn.Linear(obs_size, hidden)),
            nn.Tanh(),
            layer_init(nn.Linear(hidden, hidden)),
            nn.Tanh(),
            layer_init(nn.Linear(hidden, num_actions), std=0.01),
        )

    def get_value(self, x: torch.Tensor) -> torch.Tensor:
        """The critic's value of observations ``x`` [B, O]: [B, 1]."""
        return self.critic(x)

    def masked_logits(self, x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        """The actor's logits with the illegal actions' at -1e9 (probability 0)."""
        logits = self.actor(x)
        return torch.where(mask, logits, torch.tensor(-1e9, dtype=logits.dtype))

    def get_action_and_value(self, x, mask, action=None):
        """A sampled legal action (or ``action``), its log-probability, the policy's
        entropy and the value, per row."""
        logits = self.masked_logits(x, mask)
        probs = Categorical(logits=logits)
        if action is None:
            action = probs.sample()
        return action, probs.log_prob(action), probs.entropy(), self.critic(x)


def greedy_policy(agent: Agent, variant: str, num_players: int):
    """The trained actor as a function ``(obs, mask) -> actions`` for
    :func:`burako_env.evaluate`: the int16 observations normalised as the env gave them
    in training (``normalize_obs=True``), the most likely legal action of each row."""
    from burako_env.envs.observation import ObservationLayout
    from burako_env.variants import load_variant

    layout = ObservationLayout(load_variant(variant, num_players))

    @torch.no_grad()
    def policy(obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        x = torch.as_tensor(layout.normalize(obs))
        return agent.masked_logits(x, torch.as_tensor(mask)).argmax(dim=1).numpy()

    policy.__name__ = "ppo_vector"  # its name in the evaluation's table
    return policy


def main(args: Args) -> dict:
    args.batch_size = int(args.num_envs * args.num_steps)
    args.minibatch_size = int(args.batch_size // args.num_minibatches)
    args.num_iterations = max(1, args.total_timesteps // args.batch_size)

    random.seed(args.seed)
    rng = np.random.default_rng(args.seed)
    torch.manual_seed(args.seed)
    torch.set_num_threads(args.torch_threads)
    device = torch.device("cpu")

    # env setup: N games in compiled code, SAME_STEP autoreset, episode statistics
    envs = gymnasium.make_vec(
        "burako_env:Burako-v1",
        num_envs=args.num_envs,
        vectorization_mode="vector_entry_point",
        variant=args.variant,
        num_players=args.num_players,
        opponents=args.opponents,
        normalize_obs=True,
    )
    envs = gymnasium.wrappers.vector.RecordEpisodeStatistics(envs)
    assert isinstance(envs.single_action_space, gymnasium.spaces.Discrete)
    obs_size = envs.single_observation_space.shape[0]
    num_actions = int(envs.single_action_space.n)

    agent = Agent(obs_size, num_actions, args.hidden).to(device)
    optimizer = optim.Adam(agent.parameters(), lr=args.learning_rate, eps=1e-5)

    writer = None
    if args.run_dir:  # TensorBoard, as CleanRL's (the train extra brings tensorboard)
        from torch.utils.tensorboard import SummaryWriter

        writer = SummaryWriter(args.run_dir)
        writer.add_text(
            "hyperparameters",
            "|param|value|\n|-|-|\n"
            + "\n".join(f"|{k}|{v}|" for k, v in dataclasses.asdict(args).items()),
        )

    # storage
    obs = torch.zeros((args.num_steps, args.num_envs, obs_size))
    masks = torch.zeros((args.num_steps, args.num_envs, num_actions), dtype=torch.bool)
    actions = torch.zeros((args.num_steps, args.num_envs), dtype=torch.long)
    logprobs = torch.zeros((args.num_steps, args.num_envs))
    rewards = torch.zeros((args.num_steps, args.num_envs))
    dones = torch.zeros((args.num_steps, args.num_envs))
    values = torch.zeros((args.num_steps, args.num_envs))

    # start the game
    global_step = 0
    start_time = time.time()
    next_obs, info = envs.reset(seed=args.seed)
    next_obs = torch.as_tensor(next_obs)
    next_mask = torch.as_tensor(info["action_mask"])
    next_done = torch.zeros(args.num_envs)
    returns: list[float] = []
    stats: dict = {}
    rollout_time = 0.0

    for iteration in range(1, args.num_iterations + 1):
        if args.anneal_lr:
            frac = 1.0 - (iteration - 1.0) / args.num_iterations
            optimizer.param_groups[0]["lr"] = frac * args.learning_rate

        rollout_start = time.time()
        for step in range(args.num_steps):
            global_step += args.num_envs
            obs[step] = next_obs
            masks[step] = next_mask
            dones[step] = next_done

            with torch.no_grad():
                action, logprob, _, value = agent.get_action_and_value(next_obs, next_mask)
                values[step] = value.flatten()
            actions[step] = action
            logprobs[step] = logprob

            next_obs, reward, terminations, truncations, info = envs.step(action.numpy())
            next_done = torch.as_tensor(
                np.logical_or(terminations, truncations), dtype=torch.float32
            )
            rewards[step] = torch.as_tensor(reward, dtype=torch.float32)
            next_obs = torch.as_tensor(next_obs)
            next_mask = torch.as_tensor(info["action_mask"])
            if "episode" in info:
                done_rows = info["_episode"]
                returns.extend(info["episode"]["r"][done_rows].tolist())
                if writer is not None and done_rows.any():
                    ended = info["episode"]
                    writer.add_scalar(
                        "charts/episodic_return", float(ended["r"][done_rows].mean()), global_step
                    )
                    writer.add_scalar(
                        "charts/episodic_length", float(ended["l"][done_rows].mean()), global_step
                    )

        rollout_time += time.time() - rollout_start

        # bootstrap value if not done (SAME_STEP: dones[t + 1] ends the transition at t)
        with torch.no_grad():
            next_value = agent.get_value(next_obs).reshape(1, -1)
            advantages = torch.zeros_like(rewards)
            lastgaelam = 0
            for t in reversed(range(args.num_steps)):
                if t == args.num_steps - 1:
                    nextnonterminal = 1.0 - next_done
                    nextvalues = next_value
                else:
                    nextnonterminal = 1.0 - dones[t + 1]
                    nextvalues = values[t + 1]
                delta = rewards[t] + args.gamma * nextvalues * nextnonterminal - values[t]
                advantages[t] = lastgaelam = (
                    delta + args.gamma * args.gae_lambda * nextnonterminal * lastgaelam
                )
            returns_t = advantages + values

        # flatten the batch
        b_obs = obs.reshape((-1, obs_size))
        b_masks = masks.reshape((-1, num_actions))
        b_logprobs = logprobs.reshape(-1)
        b_actions = actions.reshape(-1)
        b_advantages = advantages.reshape(-1)
        b_returns = returns_t.reshape(-1)
        b_values = values.reshape(-1)

        # optimizing the policy and value network
        b_inds = np.arange(args.batch_size)
        clipfracs = []
        for _epoch in range(args.update_epochs):
            rng.shuffle(b_inds)
            for start in range(0, args.batch_size, args.minibatch_size):
                mb_inds = b_inds[start : start + args.minibatch_size]
                _, newlogprob, entropy, newvalue = agent.get_action_and_value(
                    b_obs[mb_inds], b_masks[mb_inds], b_actions[mb_inds]
                )
                logratio = newlogprob - b_logprobs[mb_inds]
                ratio = logratio.exp()
                with torch.no_grad():
                    approx_kl = ((ratio - 1) - logratio).mean()
                    clipfracs += [((ratio - 1.0).abs() > args.clip_coef).float().mean().item()]
                mb_advantages = b_advantages[mb_inds]
                if args.norm_adv:
                    mb_advantages = (mb_advantages - mb_advantages.mean()) / (
                        mb_advantages.std() + 1e-8
                    )
                # policy loss
                pg_loss1 = -mb_advantages * ratio
                pg_loss2 = -mb_advantages * torch.clamp(
                    ratio, 1 - args.clip_coef, 1 + args.clip_coef
                )
                pg_loss = torch.max(pg_loss1, pg_loss2).mean()
                # value loss
                newvalue = newvalue.view(-1)
                if args.clip_vloss:
                    v_loss_unclipped = (newvalue - b_returns[mb_inds]) ** 2
                    v_clipped = b_values[mb_inds] + torch.clamp(
                        newvalue - b_values[mb_inds], -args.clip_coef, args.clip_coef
                    )
                    v_loss_clipped = (v_clipped - b_returns[mb_inds]) ** 2
                    v_loss = 0.5 * torch.max(v_loss_unclipped, v_loss_clipped).mean()
                else:
                    v_loss = 0.5 * ((newvalue - b_returns[mb_inds]) ** 2).mean()
                entropy_loss = entropy.mean()
                loss = pg_loss - args.ent_coef * entropy_loss + v_loss * args.vf_coef

                optimizer.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(agent.parameters(), args.max_grad_norm)
                optimizer.step()

        sps = int(global_step / (time.time() - start_time))
        recent = returns[-200:]
        # None until an episode has finished (a mean of nothing is no return)
        stats = {
            "iteration": iteration,
            "global_step": global_step,
            "episodes": len(returns),
            "mean_return": float(np.mean(recent)) if recent else None,
            "win_rate": float(np.mean(np.array(recent) > 0)) if recent else None,
            "approx_kl": float(approx_kl),
            "clipfrac": float(np.mean(clipfracs)),
            "sps": sps,
            "rollout_sps": int(global_step / rollout_time),
        }
        if recent:
            played = f"return {stats['mean_return']:.3f} won {stats['win_rate']:.2f}"
        else:
            played = "no episode finished yet"
        print(
            f"iteration {iteration}/{args.num_iterations} step {global_step} "
            f"episodes {stats['episodes']} {played} SPS {sps} (rollouts {stats['rollout_sps']})",
            flush=True,
        )
        if writer is not None:
            y_pred, y_true = b_values.numpy(), b_returns.numpy()
            var_y = np.var(y_true)
            explained_var = np.nan if var_y == 0 else 1 - np.var(y_true - y_pred) / var_y
            for tag, value in (
                ("charts/learning_rate", optimizer.param_groups[0]["lr"]),
                ("losses/value_loss", v_loss.item()),
                ("losses/policy_loss", pg_loss.item()),
                ("losses/entropy", entropy_loss.item()),
                ("losses/approx_kl", approx_kl.item()),
                ("losses/clipfrac", np.mean(clipfracs)),
                ("losses/explained_variance", explained_var),
                ("charts/SPS", sps),
            ):
                writer.add_scalar(tag, value, global_step)
            if recent:
                writer.add_scalar("charts/win_rate", stats["win_rate"], global_step)

    envs.close()
    if args.run_dir:
        model = Path(args.run_dir) / "agent.pt"
        torch.save({"state_dict": agent.state_dict(), "args": dataclasses.asdict(args)}, model)
        stats["model"] = str(model)
        print(f"saved {model} (TensorBoard: tensorboard --logdir {args.run_dir})", flush=True)
    if args.eval_hands > 0:
        from burako_env import evaluate

        result = evaluate(
            greedy_policy(agent, args.variant, args.num_players),
            hands=args.eval_hands,
            variant=args.variant,
            num_players=args.num_players,
        )
        print(result.table(), flush=True)
        stats["eval"] = {p.b: p.win_rate for p in result.pairings}
        if writer is not None:
            for opponent, rate in stats["eval"].items():
                writer.add_scalar(f"eval/win_rate_vs_{opponent}", rate, global_step)
    if writer is not None:
        writer.close()
    return stats


if __name__ == "__main__":
    main(parse_args())
