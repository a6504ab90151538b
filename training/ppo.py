"""PPO self-play for Burako, in the CleanRL manner: read it top to bottom.

    from burako_env.training.run import train
    train("configs/train/tiny.yaml", ["ppo.lr=1e-4"])          # runs/<name>-<timestamp>
    train(run_dir="runs/ppo-...", resume=True)                 # continue a run exactly

This module is the algorithm, and reads in its order: GAE's kernel
(:func:`compute_gae`), the loss's terms, each a function (:func:`clipped_policy_loss`,
:func:`value_loss` and the optional ones), then :class:`Trainer`: its set-up,
:meth:`~Trainer.run` (the loop: collect, learn, log, evaluate, save),
:meth:`~Trainer.collect` (the rollout at the table), :meth:`~Trainer.learn` (GAE along
the streams in :meth:`~Trainer.advantages`, then :meth:`~Trainer.ppo_update`'s epochs
and minibatches, the loss summed top to bottom), the warm start, the evaluation. The
rest lives beside it: :mod:`burako_env.training.runtime` where and on how many threads it
runs (the device, the update's threads, the rollout thread of ``overlap``),
:mod:`burako_env.training.trainer_state` its checkpoints (``save``, ``load`` and the
checks of every section, a base class of :class:`Trainer`),
:mod:`burako_env.training.transitions` the rollouts' store and
:mod:`burako_env.training.run` starting, resuming and stopping a run.

**Self-play.** ``env.num_envs`` games (a :class:`~burako_env.envs.vector.VectorEnv`'s)
sit at a :class:`~burako_env.table.Table`. When a game's episode begins, the league
(:mod:`burako_env.training.league`) draws its **learner team** and its **opponent**: the current
policy itself (both teams learn), a frozen snapshot, or a heuristic agent, and seats them
(:meth:`~burako_env.training.league.League.seating`). The learner is the table's external
seat: the table plays each game until the learner is to act (the compiled heuristics
inside the play kernel, as the tournament and the vector env play them; the snapshots in
one batch), so each step of the rollout is one learner decision in every game, and the
opponents' moves after it. Partners are the same policy. Only the learner's decisions are
recorded. A rollout plays ``ppo.num_steps`` env steps per game on average (``num_envs x
num_steps`` env steps in all: every seat's moves count, as ``total_env_steps`` does).

**Ragged sequences.** A game's learner decisions do not come at fixed steps: a turn is
several decisions by one seat, and opponents' turns come in between. Each learner seat
of each game is a *stream*: a transition's successor is the same seat's next decision in
that game (``next``), whatever happened in between, and the team's reward is credited to
each of its seats' latest transition when the env reports it (the hand's end), which then
ends the stream (``done``). GAE runs backwards along these links (discount ``gamma`` per
decision of the seat). A transition whose successor has not come by the end of the
rollout is *pending*: it enters the GAE of the rollout only as its predecessor's bootstrap
value (truncated GAE, as CleanRL bootstraps at the rollout's end), and is carried into
the next rollout, where it is trained once its successor or reward arrives (its stored
log-probability is that of the policy that acted, one update older).

**Warm start and hint.** With ``imitation.env_steps > 0`` the run begins with behaviour
cloning of a teacher agent (:mod:`burako_env.training.imitation`: its play recorded on games of
their own, cross-entropy to its choices and the value of its returns), evaluated and
checkpointed at update 0. With ``network.hint`` the network reads a compiled heuristic's
choice as an input (:meth:`~burako_env.agents.network.BurakoNet.hints`); the rollout stores each
decision's hint so the update does not recompute it.

**Masks.** The policy scores only the legal actions (padded lists, ``-1e9`` on padding):
an illegal action has probability 0, and the entropy sums over the legal actions.

**Resume.** A checkpoint (:mod:`burako_env.training.trainer_state`) holds the model, the
optimiser, the league, every RNG (torch, numpy, python, the sampling generator, the
heuristics' per-game states), the games' state arrays, the heuristics' per game and seat
generator states and the pending transitions, so ``resume=True`` continues with results
identical to an uninterrupted run (same seed, same ``torch_threads``; the update's
thread count changes nothing, so ``update_threads: auto`` follows the machine's load).

**Speed.** The games and the compiled opponents run in numba (the table's kernel), the
network's inputs are read from the observations by a compiled featurizer and its
per-card encoder pooled by compiled kernels (:mod:`burako_env.agents.network_kernels`),
the rollout reuses the env's legal lists, and ``device: auto`` trains on a CUDA GPU when
torch sees one (the games and the featurizer stay on the CPU). ``burako bench --api
train`` measures where an iteration's time goes.
"""

# Kernel module: the rules its kernels follow (burako_env/jit/__init__.py says why).
# - Its kernels call only the core and this file: the cache folder's name (the core's and
#   the jit's sources) and numba's own stamp (this file) cover nothing else.
# - Constants are module globals, compiled in; constant arguments go as np.int64/np.bool_.
# - burako_env.jit's @njit is link-only (kernels call it, Python cannot); Python calls
#   @njit_kernel, @njit_parallel or numba's own njit. A loop over games indexes np.uint64.

from __future__ import annotations

import json
import math
import random
import time
from pathlib import Path
from typing import Any

import numpy as np
from numba import njit

try:  # the train extra: torch is not a core dependency (burako_env.extras)
    import torch
    from torch import nn
except ImportError as exc:
    from burako_env.extras import MissingExtra

    raise MissingExtra("burako_env.training", "torch") from exc

from burako_env.agents.network import (
    BurakoNet,
    oracle_inputs,
    padded,
    policy_terms,
)
from burako_env.agents.network_kernels import env_legal_lists
from burako_env.agents.ppo_agent import PPOAgent
from burako_env.core.game import game_seeds
from burako_env.envs.rewards import played_rewards
from burako_env.envs.vector import VectorEnv
from burako_env.evaluation import EVAL_SEED, evaluate
from burako_env.jit import seconds_compiling
from burako_env.table import Table
from burako_env.training.checkpoint import check_policy_table, load_network, variant_info
from burako_env.training.config import ConfigError, TrainConfig, league_after
from burako_env.training.imitation import behaviour_clone, collect_demonstrations
from burako_env.training.league import League
from burako_env.training.runtime import RolloutThread, UpdateThreads, resolve_device
from burako_env.training.search_labels import SearchLabels, TrainingLabels, label_terms
from burako_env.training.trainer_state import TrainerCheckpoints, check_same_network
from burako_env.training.transitions import Transitions

#: this module defines compiled functions (agents/kernel_cache.py reads the mark)
KERNEL_MODULE = True


# ---------------------------------------------------------------- compiled helpers
@njit(cache=True)
def compute_gae(value, reward, done, nxt, gamma, lam, adv, trainable):
    """Advantages along each stream, backwards (a successor always lies later)."""
    for i in range(value.shape[0] - 1, -1, -1):
        if done[i]:
            adv[i] = reward[i] - value[i]
            trainable[i] = True
        elif nxt[i] >= 0:
            j = nxt[i]
            delta = reward[i] + gamma * value[j] - value[i]
            adv[i] = delta + gamma * lam * adv[j]
            trainable[i] = True
        else:  # pending: its successor comes in the next rollout
            adv[i] = 0.0
            trainable[i] = False


# ---------------------------------------------------------------- the loss's terms
# ppo_update's loss, minibatch by minibatch, summed in this order:
#   clipped_policy_loss - ent_coef * entropy + vf_coef * (value_loss [+ seen_critic_loss])
#   [+ hidden_coef * hidden_cards_loss] [+ distill.coef * distill_loss]
# The bracketed terms are optional (network.oracle_critic, network.hidden_cards,
# distill.data), as are the advantages' normalisation (ppo.norm_adv) and the value loss's
# clipping (ppo.clip_vloss).
def clipped_policy_loss(
    logp_new: torch.Tensor, logp_old: torch.Tensor, adv: torch.Tensor, clip: float
) -> torch.Tensor:
    """PPO's clipped surrogate policy loss (Schulman et al. 2017, eq. 7), to minimise.

    With ``ratio = exp(logp_new - logp_old)``, each row's loss is
    ``max(-adv * ratio, -adv * clamp(ratio, 1 - clip, 1 + clip))``: the pessimistic of the
    two, so a ratio already past the clip range in the advantage's direction gains nothing
    more (and passes no gradient), while one past it the other way is not clipped. Returns
    the mean over the rows."""
    ratio = (logp_new - logp_old).exp()
    unclipped = -adv * ratio
    clipped = -adv * torch.clamp(ratio, 1 - clip, 1 + clip)
    return torch.max(unclipped, clipped).mean()


def normalized_advantages(adv: torch.Tensor) -> torch.Tensor:
    """A minibatch's advantages centred and scaled to unit standard deviation
    (``ppo.norm_adv``; CleanRL's ``norm_adv``): ``(adv - mean) / (std + 1e-8)``, ``std``
    the unbiased one (so at least two rows)."""
    return (adv - adv.mean()) / (adv.std() + 1e-8)


def policy_diagnostics(logratio: torch.Tensor, clip: float) -> tuple[float, float, float]:
    """``(old_approx_kl, approx_kl, clip_fraction)`` of a minibatch whose log-probability
    ratios (new policy over the rollout's) are ``logratio``: the two KL estimators of
    CleanRL (``mean(-logratio)`` and ``mean((ratio - 1) - logratio)``, the second
    unbiased and never negative) and the share of rows whose ratio lies more than
    ``clip`` from 1. Logged only; ``approx_kl`` also stops the epochs past
    ``ppo.target_kl``."""
    with torch.no_grad():
        ratio = logratio.exp()
        old_approx_kl = float((-logratio).mean())
        approx_kl = float(((ratio - 1) - logratio).mean())
        clip_fraction = float(((ratio - 1.0).abs() > clip).float().mean())
    return old_approx_kl, approx_kl, clip_fraction


def value_loss(
    value: torch.Tensor, returns: torch.Tensor, old_value: torch.Tensor, clip: float | None
) -> torch.Tensor:
    """The critic's loss, ``0.5 * mean((value - returns) ** 2)``. With ``clip``
    (``ppo.clip_vloss``: PPO2's clipped form, ``ppo.clip_coef``) each row's squared error
    is the larger of the value's and that of the rollout's value ``old_value`` moved at
    most ``clip`` towards it: a row whose clipped error is the larger (the value moved
    towards the return past the clip range) gains nothing more and passes no gradient,
    as the policy loss does past its clip range."""
    if clip is None:
        return 0.5 * ((value - returns) ** 2).mean()
    v_unclipped = (value - returns) ** 2
    v_clipped = old_value + torch.clamp(value - old_value, -clip, clip)
    return 0.5 * torch.max(v_unclipped, (v_clipped - returns) ** 2).mean()


def seen_critic_loss(seen_value: torch.Tensor, returns: torch.Tensor) -> torch.Tensor:
    """The term ``network.oracle_critic`` adds to the value loss: with an oracle critic
    (it reads the hidden hands, and its value gives the advantages) the observation's own
    critic (``seen_value``, the one a policy file keeps for play) learns the same returns
    beside it, unclipped: ``0.5 * mean((seen_value - returns) ** 2)``."""
    return 0.5 * ((seen_value - returns) ** 2).mean()


def hidden_cards_loss(hidden_error: torch.Tensor) -> torch.Tensor:
    """The loss of the hidden-card head (``network.hidden_cards``, weighted by
    ``ppo.hidden_coef``): the mean over the minibatch of each row's squared error of its
    prediction of the other hands (:class:`~burako_env.agents.network.Heads`'
    ``hidden_error``)."""
    return hidden_error.mean()


def distill_loss(
    net: BurakoNet, labels: SearchLabels, rows: np.ndarray
) -> tuple[torch.Tensor, float]:
    """``(cross-entropy, agreement)`` of ``net``'s policy with a search's choices on the
    labelled ``rows`` of ``labels`` (``distill.data``, weighted by ``distill.coef``): the
    loss term, and the share of rows whose argmax is the teacher's. No hint is given (as in
    the warm start: the network's own logits learn the teacher)."""
    logp, agrees = label_terms(net, labels, rows)
    return -logp.mean(), float(agrees.float().mean())


# ---------------------------------------------------------------- the trainer
#: the network keys of heads that only training reads (``BurakoNet``'s oracle inputs)
TRAINING_ONLY_HEADS = ("oracle_critic", "hidden_cards")


class Trainer(TrainerCheckpoints):
    """Everything a run holds; :meth:`run` is the loop (collect, update, log, save). Its
    checkpoints (``save``, ``load``, ...) come from its base class
    :class:`~burako_env.training.trainer_state.TrainerCheckpoints`."""

    def __init__(self, cfg: TrainConfig, run_dir: Path) -> None:
        self.cfg = cfg
        self.run_dir = run_dir
        self.saved_update: int | None = None  # the update of the last checkpoint written
        torch.set_num_threads(cfg.torch_threads)
        self.device = resolve_device(cfg.device)
        self.update_threads = UpdateThreads(cfg.update_threads)
        # seeds: torch (network init), numpy generator (league, minibatches), python,
        # the sampling generator, the env (deals)
        random.seed(cfg.seed)
        torch.manual_seed(cfg.seed)
        self.rng = np.random.default_rng(cfg.seed)
        self.generator = torch.Generator().manual_seed(cfg.seed + 1)

        e = cfg.env
        self.env = VectorEnv(
            e.variant,
            e.num_players,
            num_envs=e.num_envs,
            seed=cfg.seed,
            episode=e.episode,
            reward=e.reward,
        )
        self.num_players = self.env.num_players
        self.obs_size = self.env.observation_size
        self.variant_info = variant_info(self.env.variant, self.obs_size)
        n = cfg.network
        self.net = BurakoNet(
            self.num_players,
            self.env.variant.total_cards,
            n.hidden,
            n.encoder,
            n.meld_dim,
            n.card_features,
            n.hint,
            card_context=n.card_context,
            oracle_critic=n.oracle_critic,
            hidden_cards=n.hidden_cards,
            card_history=n.card_history,
        ).to(self.device)
        self.optimizer = torch.optim.Adam(self.net.parameters(), lr=cfg.ppo.lr, eps=1e-5)
        self.league = League(
            cfg.league,
            self.net.spec(),
            e.num_envs,
            self.num_players,
            self.rng,
            seed=cfg.seed,
            generator=self.generator,
        )

        #: a search's decisions learnt beside PPO (``distill.data``), or None; read before
        #: anything is written, so a bad file leaves no run folder
        self.distill: TrainingLabels | None = None
        if cfg.distill.data:
            try:
                self.distill = TrainingLabels.load(
                    cfg.distill.data, self.env.variant, self.obs_size, cfg.distill.searched_only
                )
            except ValueError as exc:
                raise ConfigError(str(exc)) from exc

        capacity = e.num_envs * cfg.ppo.num_steps + e.num_envs * self.num_players
        self.store = Transitions(capacity, self.obs_size, self.net.oracle_size)
        #: the network that plays the rollouts: the learner itself, or with ``overlap`` a
        #: copy taken before each update (the rollout thread plays while the learner trains)
        self.actor = self.net
        self.spare: Transitions | None = None  # with overlap: the next rollout's store
        if cfg.overlap:
            self.actor = BurakoNet.from_spec(self.net.spec()).to(self.device)
            self.spare = Transitions(capacity, self.obs_size, self.net.oracle_size)
        #: the store holds a rollout not yet trained on (overlap: the one collected
        #: during the last update; either way after a checkpoint of an overlapped run)
        self.collected = False
        self.rollout_seconds = 0.0  # the last collect()'s wall time, whichever thread ran it
        self.rollout_env_steps = 0  # the env steps the last collect() played
        self.update_seconds = 0.0  # the last PPO update's (its epochs only)
        self.last = np.full((e.num_envs, self.num_players), -1, np.int64)  # stream heads
        self.ep_len = np.zeros(e.num_envs, np.int64)
        self.open_table(cfg.seed)

        self.update = 0
        self.global_step = 0
        self.best_score = -math.inf
        #: entries of ``league.changes`` applied to the league so far
        self.league_changes = 0
        # the warm start is done, off, or replaced by a policy to fine-tune
        self.imitated = cfg.imitation.env_steps == 0 or cfg.init_policy is not None
        self.from_policy = False  # started from init_policy, not yet checkpointed
        self.stats: dict[str, list[float]] = {}
        self.writer: Any = None  # run()'s SummaryWriter (tensorboard, imported there)

    def start_from_policy(self, path: str | Path) -> None:
        """Load the network of ``path`` (``init_policy``) into the learner, widened where
        the config's ``network.hidden`` is wider (:meth:`BurakoNet.widened`) and reading
        the pile's history where the config's ``network.card_history`` asks for it
        (:meth:`BurakoNet.with_card_history`);
        CheckpointError when the file is unreadable, of another table or of another
        network."""
        net, data = load_network(path)
        check_policy_table(data["variant"], self.env.variant, self.obs_size, path)
        # the training-only heads (they never reach the logits) may be added, fresh, or
        # left out: a shipped policy can be fine-tuned with an oracle critic
        theirs, ours = net.spec(), self.net.spec()
        for spec in (theirs, ours):
            for key in TRAINING_ONLY_HEADS:
                spec.pop(key, None)
        if theirs.get("hidden", 0) < ours.get("hidden", 0):
            # a wider trunk than the file's: its network widened to compute the same
            # function, the new units' weights fresh from the run's seed
            net = net.widened(ours["hidden"], seed=self.cfg.seed)
            theirs["hidden"] = ours["hidden"]
        extend = theirs.get("card_features") and not theirs.get("card_history")
        if ours.get("card_history") and extend:
            # the pile's history read too: its weights at zero, the same play at first
            net = net.with_card_history()
            theirs["card_history"] = True
        check_same_network(theirs, ours, f"init_policy {str(path)!r}")
        weights = self.net.state_dict()
        weights.update({k: v for k, v in net.state_dict().items() if k in weights})
        self.net.load_state_dict(weights)
        self.from_policy = True

    # ------------------------------------------------------------ the loop
    def run(self, stop_after: int | None = None, verbose: bool = True) -> dict:
        """Train until the schedule ends (or ``stop_after`` updates of this call), evaluating and
        saving on the way; the last update's statistics."""
        from torch.utils.tensorboard import SummaryWriter

        cfg = self.cfg
        self.writer = SummaryWriter(str(self.run_dir / "tb"), purge_step=self.global_step + 1)
        if self.update == 0:
            self.writer.add_text("config", "```\n" + json.dumps(cfg.to_dict(), indent=1) + "\n```")
        done_here = 0
        last_eval: dict = {}
        try:
            if not self.imitated or self.from_policy:
                if not self.imitated:
                    self.imitate(verbose)
                self.from_policy = False
                best = False
                if cfg.eval.every:  # the starting policy's strength, logged at step 0
                    last_eval, best = self.evaluate_and_log(verbose)
                self.save(best=best)
            while self.update < cfg.num_updates:
                if stop_after is not None and done_here >= stop_after:
                    break
                self.update += 1
                done_here += 1
                self.change_league(self.update)
                c0, t0 = seconds_compiling(), time.perf_counter()
                self.collect_unless_collected()  # with overlap: collected beside the last
                c1, t1 = seconds_compiling(), time.perf_counter()
                scalars = self.learn()
                c2, t2 = seconds_compiling(), time.perf_counter()
                self.global_step += cfg.rollout_steps  # the env steps trained on so far
                # rates of warm code: a first update on a cold cache compiles kernels
                t1, t2 = t1 - (c1 - c0), t2 - (c2 - c0)
                if self.update % cfg.league.snapshot_every == 0:
                    self.add_snapshot()
                steps = cfg.rollout_steps
                scalars["charts/steps_per_second"] = steps / (t2 - t0)
                scalars["charts/rollout_steps_per_second"] = steps / max(self.rollout_seconds, 1e-9)
                scalars["charts/update_seconds"] = t2 - t1
                for key, values in self.stats.items():
                    if values:
                        scalars[f"charts/mean_{key}"] = float(np.mean(values))
                scalars["charts/episodes"] = float(len(self.stats.get("hand_length", [])))
                self.stats = {}
                for name, r in self.league.ratings.items():
                    scalars[f"league/rating_{name}"] = r
                tally = self.league.pop_tally()  # name -> (learner's score, games)
                snaps = [v for n, v in tally.items() if n.startswith("snapshot@")]
                for name, (w, _) in tally.items():
                    if not name.startswith("snapshot@"):
                        scalars[f"league/win_rate_{name}"] = w
                if snaps:
                    games = sum(k for _, k in snaps)
                    scalars["league/games_vs_snapshots"] = float(games)
                    scalars["league/win_rate_snapshots"] = sum(w * k for w, k in snaps) / games
                if self.update % cfg.log_every == 0:
                    self.log(scalars, self.global_step)
                if verbose:
                    print(
                        f"update {self.update}/{cfg.num_updates} step {self.global_step:,} "
                        f"sps {scalars['charts/steps_per_second']:,.0f} "
                        f"score {scalars.get('charts/mean_hand_score', float('nan')):.0f} "
                        f"len {scalars.get('charts/mean_hand_length', float('nan')):.0f} "
                        f"ent {scalars['losses/entropy']:.3f} "
                        f"kl {scalars['losses/approx_kl']:.4f} "
                        f"ev {scalars['losses/explained_variance']:.3f}",
                        flush=True,
                    )
                is_last = self.update == cfg.num_updates
                best = False
                if cfg.eval.every and (self.update % cfg.eval.every == 0 or is_last):
                    last_eval, best = self.evaluate_and_log(verbose)
                if (
                    self.update % cfg.checkpoint_every == 0
                    or is_last
                    or best
                    or (stop_after is not None and done_here >= stop_after)
                ):
                    self.save(best=best)
        finally:
            self.writer.close()
        return {
            "run_dir": str(self.run_dir),
            "update": self.update,
            "updates_run": done_here,
            "global_step": self.global_step,
            "eval": last_eval,
            "best_score": self.best_score,
        }

    # ------------------------------------------------------------ rollout
    def open_table(self, seed: int) -> None:
        """Seat the league at the games and deal them (game b from ``(seed, b)``): every
        game then waits for the learner's first decision."""
        games = np.arange(self.env.num_envs)
        #: the games' table: the learner is its external seat, the league the others
        self.table = Table(self.env.game, self.league.seating(), self.league.agent_rng)
        self.env.game.state.rng[:] = game_seeds(seed, len(games))
        self.new_episodes(games)

    def reseat(self) -> None:
        """Seat the league's members anew (a snapshot joined or left, the mix changed, a
        checkpoint's league restored); the games stay as they are."""
        self.table.agent_rng = self.league.agent_rng
        self.table.seat(self.league.seating())

    def new_episodes(self, games: np.ndarray) -> int:
        """Draw the learner team and opponent of ``games``, deal their next episode and
        play the opponents' moves before the learner's first decision; the env steps
        played."""
        self.league.assign(games, self.rng)
        self.table.seat_agent[games] = self.league.seat_rows(games)
        played = 0
        while games.size:
            self.table.deal(games)
            played += int(self.table.n_actions[games].sum())
            self.ep_len[games] = self.table.n_actions[games]
            # an episode cannot end before the learner's first decision in practice; if it
            # ever does, deal again (as the vector env does)
            games = games[self.env.game.columns().done[games] != 0]
        return played

    def collect(self) -> None:
        """A rollout: learner decisions in every game, each followed by the opponents'
        moves, until the games have played ``num_envs x num_steps`` env steps; the
        learner's decisions are stored."""
        started = time.perf_counter()
        cfg, table, league, store, net = self.cfg, self.table, self.league, self.store, self.actor
        st = self.env.game.state
        cols = self.env.game.columns()
        num_envs, num_players = len(self.last), self.num_players
        rows = np.arange(num_envs)
        everyone = np.ones(num_envs, np.bool_)
        seat_sign = np.where(np.arange(num_players) % 2 == 0, 1.0, -1.0)
        budget, played = num_envs * cfg.ppo.num_steps, 0  # this trainer's games' share
        net.eval()
        while played < budget:
            # every game waits for the learner (the table stops only there)
            obs, mask = table.obs, table.mask
            seat = cols.player.astype(np.int64)
            ids, counts = env_legal_lists(st.legal, st.num_legal, rows)
            legal, valid = padded(ids, counts)
            obs_rows = torch.from_numpy(obs)
            oracle = None
            if net.oracle_size:  # the hidden hands: training's heads only
                oracle = oracle_inputs(st.hands, rows, seat)
            with torch.inference_mode():
                hint = net.hints(obs_rows, legal, valid, mask)
                a, pick, logp, value = net.act(
                    obs_rows,
                    legal,
                    valid,
                    self.generator,
                    hint=hint,
                    oracle=None if oracle is None else torch.from_numpy(oracle),
                )
            if value.dim() == 2:
                value = value[:, 1]  # the advantages come from the oracle critic
            actions = a.cpu().numpy()
            idx = store.add(
                obs,
                ids,
                counts,
                pick.cpu().numpy(),
                logp.cpu().numpy(),
                value.cpu().numpy(),
                hint.numpy(),
                oracle,
            )
            prev = self.last[rows, seat]
            has = prev >= 0
            store.next[prev[has]] = idx[has]  # the seat's previous decision links here
            self.last[rows, seat] = idx

            failed_before = None
            if cfg.ppo.failed_opening_penalty:
                failed_before = self._minimum_extra(rows, seat)
            hands_before = cols.hands_ended.astype(np.int64)
            match_before = cols.match_scores.astype(np.int64)
            steps_before = table.n_actions.copy()
            table.resume(actions, everyone)
            if failed_before is not None:  # the turn ended below the first-meld minimum
                failed = self._minimum_extra(rows, seat) > failed_before
                store.reward[idx[failed]] -= cfg.ppo.failed_opening_penalty
            steps = table.n_actions - steps_before
            self.ep_len += steps
            played += int(steps.sum())

            # rewards reach each seat's latest transition; an episode's end closes them
            done = cols.done != 0
            hands = cols.hands_ended.astype(np.int64) - hands_before
            team0 = played_rewards(cols, done, hands, match_before, cfg.env.reward)
            paid = np.flatnonzero(team0)
            for s in range(num_players):
                head = self.last[paid, s]
                ok = head >= 0
                store.reward[head[ok]] += seat_sign[s] * team0[paid[ok]]
            ended = np.flatnonzero(done)
            if ended.size:
                heads = self.last[ended].reshape(-1)
                store.done[heads[heads >= 0]] = True
                self.last[ended] = -1
                self._episode_stats(ended)
                league.record(ended, cols.winner[ended].astype(np.int64))
                played += self.new_episodes(ended)
        self.collected = True
        self.rollout_env_steps = played  # every seat's moves, the budget's unit
        self.rollout_seconds = time.perf_counter() - started

    def _minimum_extra(self, rows: np.ndarray, seat: np.ndarray) -> np.ndarray:
        """What failed first melds have added to the minimum of the team of ``seat`` in
        games ``rows`` (0 on tables without a minimum, and in a new deal)."""
        cols = self.env.game.columns()
        return cols.min_extra[rows, seat[rows] % 2].copy()

    def _episode_stats(self, ended: np.ndarray) -> None:
        scores = self.env.game.columns().hand_scores[ended].astype(np.float64)
        team = self.league.learner_team[ended]
        is_self = self.league.opponent[ended] < 0
        own = np.where(is_self, scores.mean(1), scores[np.arange(len(ended)), team])
        self.stats.setdefault("hand_score", []).extend(own.tolist())
        self.stats.setdefault("hand_length", []).extend(self.ep_len[ended].tolist())

    # ------------------------------------------------------------ update
    def change_league(self, update: int) -> None:
        """Apply the ``league.changes`` entries due by the rollout that ``update`` trains
        on (called before that rollout is collected, with ``overlap`` or without)."""
        due = sum(1 for entry in self.cfg.league.changes if entry["update"] <= update)
        if due > self.league_changes:
            self.league.change(league_after(self.cfg.league, due), seed=self.cfg.seed)
            self.league_changes = due
            self.reseat()

    def collect_unless_collected(self) -> None:
        """The rollout the next update trains on: :meth:`collect`, unless the store holds
        one already (collected beside the last update, or restored from a checkpoint)."""
        if not self.collected:
            if self.actor is not self.net:  # overlap: the copy plays the current weights
                self.actor.load_state_dict(self.net.state_dict())
            self.collect()

    def learn(self) -> dict:
        """GAE along the streams, then PPO epochs over the trainable transitions; with
        ``overlap``, the next rollout collected meanwhile (but after the run's last update)."""
        n, store = self.store.n, self.store
        adv, returns, train_idx = self.advantages()
        # the minibatches are drawn before the rollout thread draws its opponents from the
        # same generator, so the draws keep one order
        orders = self.minibatch_orders(train_idx)
        distill_rows = self.distill_draws(train_idx)
        if not (self.cfg.overlap and self.update < self.cfg.num_updates):
            scalars = self.ppo_update(adv, returns, train_idx, orders, store, distill_rows)
            self.keep_pending()
            self.collected = False
        else:  # overlap: the next rollout, into the spare store, beside the update
            self.change_league(self.update + 1)  # the rollout collected now is the next one's
            self.keep_pending(into=self.spare)
            self.store, self.spare = self.spare, store
            self.actor.load_state_dict(self.net.state_dict())
            with RolloutThread(self.collect, self.cfg.torch_threads) as rollout:
                scalars = self.ppo_update(adv, returns, train_idx, orders, store, distill_rows)
            if rollout.error is not None:
                raise rollout.error
        scalars["charts/pending_transitions"] = float(n - len(train_idx))
        return scalars

    def advantages(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """GAE along the streams of the stored rollout: ``(adv, returns, trainable rows)``."""
        p, store = self.cfg.ppo, self.store
        n = store.n
        adv = np.zeros(n, np.float32)
        trainable = np.zeros(n, np.bool_)
        compute_gae(
            store.value[:n],
            store.reward[:n],
            store.done[:n],
            store.next[:n],
            np.float32(p.gamma),
            np.float32(p.gae_lambda),
            adv,
            trainable,
        )
        return adv, adv + store.value[:n], np.flatnonzero(trainable)

    def minibatch_orders(self, train_idx: np.ndarray) -> list[np.ndarray]:
        """Each PPO epoch's order of the trainable rows (drawn from the run's generator)."""
        m = len(train_idx)
        return [train_idx[self.rng.permutation(m)] for _ in range(self.cfg.ppo.update_epochs)]

    def minibatch_size(self, m: int) -> int:
        """Transitions per PPO minibatch for ``m`` trainable ones."""
        return max(1, math.ceil(m / self.cfg.ppo.num_minibatches))

    def distill_draws(self, train_idx: np.ndarray) -> list[np.ndarray] | None:
        """The labelled rows of each minibatch of the update (``distill.minibatch`` of the
        pool each, drawn from the run's generator after the minibatch orders), or None
        without ``distill.data`` (and then no draw: runs without it are unchanged)."""
        if self.distill is None:
            return None
        p = self.cfg.ppo
        m = len(train_idx)
        per_epoch = len(range(0, m, self.minibatch_size(m)))  # ppo_update's minibatches
        pool = self.distill.pool
        draws = self.rng.integers(
            0, len(pool), (p.update_epochs * per_epoch, self.cfg.distill.minibatch)
        )
        return [np.sort(pool[d]) for d in draws]

    def ppo_update(
        self,
        adv: np.ndarray,
        returns: np.ndarray,
        train_idx: np.ndarray,
        orders: list[np.ndarray] | None = None,
        store: Transitions | None = None,
        distill_rows: list[np.ndarray] | None = None,
    ) -> dict:
        """PPO epochs over the transitions ``train_idx`` of ``store`` (the trainer's by
        default; advantages ``adv``, returns ``returns``, indexed by store row), in the
        epochs' ``orders`` (:meth:`minibatch_orders` when None), each minibatch with its
        labelled rows of ``distill_rows`` (:meth:`distill_draws` when None); the
        update's scalars."""
        cfg, p = self.cfg, self.cfg.ppo
        store = self.store if store is None else store
        if orders is None:
            orders = self.minibatch_orders(train_idx)
        if distill_rows is None:
            distill_rows = self.distill_draws(train_idx)
        distill_sums = [0.0, 0.0]  # the cross-entropy and the agreement, summed
        # learning-rate annealing: linear from lr to 0 over the run
        frac = 1.0 - (self.update - 1.0) / cfg.num_updates if p.anneal_lr else 1.0
        lr = frac * p.lr
        for group in self.optimizer.param_groups:
            group["lr"] = lr

        self.net.train()
        m = len(train_idx)
        mb_size = self.minibatch_size(m)
        clip_v = p.clip_coef if p.clip_vloss else None
        clipfracs, approx_kl, old_approx_kl = [], 0.0, 0.0
        pg_loss = v_loss = entropy_loss = hidden_loss = torch.zeros(())
        step = 0

        def tensor(values: np.ndarray) -> torch.Tensor:  # on the network's device
            return torch.from_numpy(values).to(self.device)

        # beside the rollout thread (overlap) the update keeps to one core; its results do
        # not depend on its threads (test_the_update_gives_the_same_network_...)
        with self.update_threads.running(m, cfg.overlap, cfg.torch_threads) as clock:
            for order in orders:
                for start in range(0, m, mb_size):
                    mb = np.sort(order[start : start + mb_size])
                    obs = torch.from_numpy(store.obs[mb])
                    legal, valid = store.lists(mb)
                    pick = tensor(store.pick[mb])
                    hint = torch.from_numpy(store.hint[mb])
                    oracle = torch.from_numpy(store.oracle[mb]) if self.net.oracle_size else None
                    out = self.net.heads(obs, legal, valid, hint, oracle)
                    newlogp, entropy = policy_terms(out.logits, valid, pick)
                    old_logp = tensor(store.logp[mb])
                    old_approx_kl, approx_kl, clipfrac = policy_diagnostics(
                        newlogp - old_logp, p.clip_coef
                    )
                    clipfracs.append(clipfrac)

                    mb_adv = tensor(adv[mb])
                    if p.norm_adv and len(mb) > 1:
                        mb_adv = normalized_advantages(mb_adv)
                    mb_ret, mb_val = tensor(returns[mb]), tensor(store.value[mb])
                    pg_loss = clipped_policy_loss(newlogp, old_logp, mb_adv, p.clip_coef)
                    if out.oracle_value is None:
                        v_loss = value_loss(out.value, mb_ret, mb_val, clip_v)
                    else:  # the oracle critic gives the advantages, the seen one learns beside
                        v_loss = value_loss(out.oracle_value, mb_ret, mb_val, clip_v)
                        v_loss = v_loss + seen_critic_loss(out.value, mb_ret)
                    entropy_loss = entropy.mean()
                    loss = pg_loss - p.ent_coef * entropy_loss + v_loss * p.vf_coef
                    if out.hidden_error is not None:
                        hidden_loss = hidden_cards_loss(out.hidden_error)
                        loss = loss + p.hidden_coef * hidden_loss
                    if distill_rows is not None:
                        assert self.distill is not None  # its rows are drawn only then
                        d_loss, agree = distill_loss(
                            self.net, self.distill.labels, distill_rows[step]
                        )
                        loss = loss + cfg.distill.coef * d_loss
                        distill_sums[0] += float(d_loss.detach())
                        distill_sums[1] += agree
                    step += 1

                    self.optimizer.zero_grad()
                    loss.backward()
                    nn.utils.clip_grad_norm_(self.net.parameters(), p.max_grad_norm)
                    self.optimizer.step()
                if p.target_kl is not None and approx_kl > p.target_kl:
                    break
        self.update_seconds = clock.seconds
        y_pred, y_true = store.value[train_idx], returns[train_idx]
        var_y = float(np.var(y_true)) if m else 0.0
        explained_var = math.nan if var_y == 0 else 1.0 - float(np.var(y_true - y_pred)) / var_y
        scalars = {
            "losses/policy_loss": float(pg_loss.detach()),
            "losses/value_loss": float(v_loss.detach()),
            "losses/entropy": float(entropy_loss.detach()),
            "losses/old_approx_kl": old_approx_kl,
            "losses/approx_kl": approx_kl,
            "losses/clip_fraction": float(np.mean(clipfracs)) if clipfracs else 0.0,
            "losses/explained_variance": explained_var,
            "charts/learning_rate": lr,
            "charts/update_threads": float(self.update_threads.chosen),
            "charts/learner_transitions": float(m),
            "charts/mean_return": float(returns[train_idx].mean()) if m else 0.0,
        }
        if self.net.hidden_cards:
            scalars["losses/hidden_cards"] = float(hidden_loss.detach())
        if distill_rows is not None and step:
            scalars["losses/distill"] = distill_sums[0] / step
            scalars["charts/distill_agreement"] = distill_sums[1] / step
        return scalars

    def keep_pending(self, into: Transitions | None = None) -> None:
        """Pending transitions (the stream heads) move to the front of the store (or of
        ``into``) for the next rollout; the rest is dropped."""
        n = self.store.n
        heads = self.last[self.last >= 0]
        order = np.sort(heads)
        remap = np.full(max(n, 1), -1, np.int64)
        remap[order] = np.arange(len(order))
        self.last[self.last >= 0] = remap[self.last[self.last >= 0]]
        self.store.keep_only(order, into)

    def add_snapshot(self) -> None:
        """A frozen copy of the learner joins the league."""
        self.league.add_snapshot(self.net, self.update)
        self.reseat()

    # ------------------------------------------------------------ warm start
    def imitate(self, verbose: bool = True) -> dict:
        """Behaviour cloning of ``imitation.teacher`` (:mod:`burako_env.training.imitation`) before
        the first update, on games of its own (seeded apart from the training games)."""
        cfg, im = self.cfg, self.cfg.imitation
        t0 = time.perf_counter()
        env = VectorEnv(
            cfg.env.variant,
            cfg.env.num_players,
            num_envs=im.num_envs,
            seed=cfg.seed + 2,
            episode=cfg.env.episode,
            reward=cfg.env.reward,
        )
        steps = math.ceil(im.env_steps / im.num_envs)
        demo = collect_demonstrations(im.teacher, env, steps, cfg.ppo.gamma, seed=cfg.seed + 3)
        t1 = time.perf_counter()
        if verbose:
            print(
                f"imitation: {len(demo):,} decisions of {im.teacher} ({demo.episodes:,} "
                f"episodes) in {t1 - t0:.0f} s",
                flush=True,
            )

        def log(stats: dict, epoch: int) -> None:
            self.log({f"imitation/{k}": v for k, v in stats.items()}, epoch)
            if verbose:
                print(
                    f"  epoch {epoch}/{im.epochs}: accuracy {stats['accuracy']:.3f} "
                    f"policy loss {stats['policy_loss']:.3f} value loss "
                    f"{stats['value_loss']:.4f}",
                    flush=True,
                )

        rng = np.random.default_rng(cfg.seed + 4)
        torch.set_num_threads(self.update_threads.choose())
        stats = behaviour_clone(
            self.net,
            demo,
            im.epochs,
            im.minibatch,
            im.lr,
            rng,
            vf_coef=im.vf_coef,
            max_grad_norm=cfg.ppo.max_grad_norm,
            log=log,
        )
        torch.set_num_threads(cfg.torch_threads)
        stats["seconds"] = time.perf_counter() - t0
        self.log({"imitation/seconds": stats["seconds"]}, im.epochs)
        self.imitated = True
        return stats

    # ------------------------------------------------------------ evaluation
    def evaluate(self) -> dict:
        """Win rates (ties half) with 95% Wilson intervals against each eval opponent,
        on fixed deals (the same every evaluation) with seats swapped."""
        cfg = self.cfg
        net = BurakoNet.from_spec(self.net.spec())
        net.load_state_dict(self.net.state_dict())
        # the games of `burako tournament POLICY OPPONENTS... --seed EVAL_SEED`
        agent = PPOAgent.from_network(net, greedy=cfg.eval.greedy, seed=EVAL_SEED)
        res = evaluate(
            agent,
            tuple(cfg.eval.opponents),
            hands=cfg.eval.hands,
            seed=EVAL_SEED,
            variant=self.env.variant,
            num_players=self.num_players,
            episode=cfg.env.episode,
            workers=2,
            progress=False,
        )
        out = {
            name: {
                "win_rate": pr.win_rate,
                "ci_low": pr.ci_low,
                "ci_high": pr.ci_high,
                "margin": pr.mean_margin,
                "hands": pr.hands,
            }
            for name, pr in zip(cfg.eval.opponents, res.pairings, strict=True)
        }
        torch.set_num_threads(cfg.torch_threads)
        return out

    # ------------------------------------------------------------ logging
    def log(self, scalars: dict, step: int) -> None:
        """Write ``scalars`` to TensorBoard at ``step`` (None and NaN values skipped)."""
        if self.writer is not None:
            for key, value in scalars.items():
                if value is not None and not (isinstance(value, float) and math.isnan(value)):
                    self.writer.add_scalar(key, value, step)

    def evaluate_and_log(self, verbose: bool) -> tuple[dict, bool]:
        """Evaluate, log to TensorBoard and eval.jsonl; ``(results, best so far)``."""
        last_eval = self.evaluate()
        ev = {"update": self.update, "global_step": self.global_step, **last_eval}
        with open(self.run_dir / "eval.jsonl", "a") as f:
            f.write(json.dumps(ev) + "\n")
        for name, r in last_eval.items():
            self.log(
                {
                    f"eval/win_rate_{name}": r["win_rate"],
                    f"eval/win_rate_{name}_ci_low": r["ci_low"],
                    f"eval/win_rate_{name}_ci_high": r["ci_high"],
                    f"eval/margin_{name}": r["margin"],
                },
                self.global_step,
            )
        score = float(np.mean([r["win_rate"] for r in last_eval.values()]))
        self.log({"eval/mean_win_rate": score}, self.global_step)
        if verbose:
            print(
                "  eval: "
                + ", ".join(
                    f"{n} {r['win_rate']:.3f} [{r['ci_low']:.3f}, {r['ci_high']:.3f}]"
                    for n, r in last_eval.items()
                ),
                flush=True,
            )
        best = score > self.best_score
        if best:
            self.best_score = score
        return last_eval, best
