"""Training configuration: dataclasses with one docstring per field, read from YAML.

A config file is a YAML mapping with the sections of :class:`TrainConfig` (``env``,
``network``, ``ppo``, ``league``, ``imitation``, ``eval``, ``distributed``) plus its
top-level fields. Every key is checked: an unknown key or a value of the wrong type
raises :class:`ConfigError` naming the key. Command-line overrides are
``"section.key=value"`` strings whose value is read as YAML (``ppo.lr=1e-4``,
``league.heuristics={greedy: 1.0}``).

    cfg = load_config("configs/train/hinted.yaml", ["ppo.lr=1e-4", "seed=3"])
    cfg = load_config("tiny")          # a shipped config by name, from any folder

``fine_tunes`` lists further schedules of the same run, each from the last one's policy
(:func:`schedule_configs` gives each schedule's config; ``training/run.py`` runs them).

The shipped configs are package data (``burako_env/configs/train/``; the repository's
``configs/train/`` points there): a name (``argentine``, ``hinted``, ``tiny``) or a path
``configs/train/NAME.yaml`` that does not exist where the command runs finds them.

A file may say ``base: NAME`` (a shipped config) or ``base: PATH`` (relative to the file),
as a variant file does (``burako_env.variants``): the base is loaded first, its own
``base`` resolved the same way, then the file's keys are laid over it
(:func:`merge_config_data`: mappings key by key, other values replaced), then the
overrides. The four variants' configs hold only their differences from
``configs/train/base/hint_free.yaml``::

    base: base/hint_free.yaml
    name: italian
    env:
      variant: italian
"""

from __future__ import annotations

import copy
import dataclasses
import math
import re
import types
import typing
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import yaml

from burako_env.limits import (
    MAX_BASE_CHAIN,
    MAX_NETWORK_WIDTH,
    MAX_TRAIN_ENVS,
    load_yaml,
    read_yaml_file,
)


class ConfigError(ValueError):
    """A bad training configuration: the message names the key."""


@dataclass
class EnvConfig:
    """The environment of the run: the table and the games played side by side (``env:`` in the
    YAML)."""

    variant: str = "argentine"
    """Variant name (argentine, italian, brazilian, colombian) or a variant YAML path."""
    num_players: int = 4
    """Players at the table (teams alternate seats: player p is on team p % 2)."""
    num_envs: int = 1024
    """Games played in lockstep (the VectorEnv batch): the games in flight."""
    episode: str = "hand"
    """``hand`` (one hand per episode) or ``match`` (hands until the target)."""
    reward: str = "score"
    """Reward kind of burako_env.envs.rewards: ``score`` (margin / 1000, clipped),
    ``win`` (+1 / -1 / 0) or ``raw`` (margin in points)."""


@dataclass
class NetworkConfig:
    """The policy network's shape (``network:``)."""

    hidden: int = 256
    """Width of the shared trunk (two layers) that feeds the policy and value heads."""
    encoder: int = 128
    """Width of the hand and the 'rest' encoders (the pile encoder is half of it)."""
    meld_dim: int = 32
    """Width of the per-meld-row encoder; also the width of the per-slot add-card head."""
    card_features: bool = True
    """Per-card-type features (fits an own / opponents' meld, counts in view) encoded
    card by card: pooled into the trunk, and a per-card term of the discard logits."""
    card_context: bool = False
    """With ``card_features``: also each card's run neighbours in the hand and its rank's
    copies in the hand, the pile, the opponents' known cards and table (agents/network.py)."""
    card_history: bool = False
    """With ``card_features``: also each card's copies in the pile by who discarded them
    (the viewer, the next seat, the partners, the other opponents), read from the pile's
    order (agents/network.py). A policy trained without it may be fine-tuned with it
    (``init_policy``: the new inputs' weights start at zero, the same play at first)."""
    oracle_critic: bool = False
    """Training only: a second value head that also reads the other seats' hidden hands
    (an oracle critic, as Suphx and PerfectDou train); the advantages come from it, the
    observation's own value head learns beside it, and the policy never reads the hands."""
    hidden_cards: bool = False
    """Training only: an auxiliary head predicts the other seats' hands from the trunk
    (loss weight ``ppo.hidden_coef``), so the trunk the policy reads learns to infer them;
    the policy never reads the hands themselves."""
    hint: str | None = None
    """A compiled agent (``greedy``, ``discard_table``) whose choice the network reads as
    an input: the hinted action's logit gets a learned, state-dependent bonus, so the
    policy starts near that agent and learns where to depart from it (None: no hint)."""


@dataclass
class PPOConfig:
    """PPO's schedule and hyperparameters (``ppo:``)."""

    total_env_steps: int = 50_000_000
    """Environment steps (decisions of every seat, learner or not) of the whole run."""
    num_steps: int = 32
    """Environment steps per game per rollout; a rollout is num_envs * num_steps steps."""
    lr: float = 3e-4
    """Adam learning rate (annealed linearly to 0 over the run when anneal_lr)."""
    anneal_lr: bool = True
    """Anneal the learning rate linearly from lr to 0 over the run."""
    gamma: float = 0.997
    """Discount per learner decision (the reward comes once, at the episode's end)."""
    gae_lambda: float = 0.95
    """Lambda of generalised advantage estimation, along each seat's decisions."""
    num_minibatches: int = 8
    """Minibatches per epoch (the rollout's learner transitions are split evenly)."""
    update_epochs: int = 3
    """Passes over the rollout per update."""
    norm_adv: bool = True
    """Normalise advantages per minibatch."""
    clip_coef: float = 0.2
    """PPO's ratio clipping coefficient."""
    clip_vloss: bool = True
    """Clip the value loss as the original PPO implementation does."""
    ent_coef: float = 0.01
    """Entropy bonus coefficient (entropy over the legal actions only)."""
    vf_coef: float = 0.5
    """Value loss coefficient."""
    failed_opening_penalty: float = 0.0
    """Reward shaping for tables with a first-meld minimum (brazilian's
    ``min_first_meld``): subtracted from the learner's reward for each turn that ends
    below the minimum (its provisional melds go back and its team's minimum rises by 15).
    0: the reward alone."""
    hidden_coef: float = 1.0
    """Weight of the hidden-card prediction's loss (``network.hidden_cards``)."""
    max_grad_norm: float = 0.5
    """Global gradient norm clip."""
    target_kl: float | None = None
    """Stop the update's epochs early once the approximate KL exceeds this (None: never)."""


@dataclass
class LeagueConfig:
    """Who the learner plays against (``league:``): itself, past snapshots, the heuristics."""

    self_play: float = 0.5
    """Weight of games where the current policy plays both teams (both teams train)."""
    snapshots: float = 0.3
    """Weight of games against a frozen past checkpoint of the learner (uniform among
    the kept ones; its weight goes to self_play while there is none)."""
    heuristics: dict[str, float] = field(
        default_factory=lambda: {"random": 0.0, "greedy": 0.1, "discard_table": 0.1}
    )
    """Weights of games against agents by registry name (burako_env.agents.make_agent)."""
    snapshot_every: int = 20
    """Updates between two frozen snapshots of the learner entering the league."""
    max_snapshots: int = 8
    """Snapshots kept in the league (the oldest leaves first)."""
    elo_k: float = 4.0
    """Elo K-factor of the league ratings (updated after every finished game)."""
    changes: list[dict[str, Any]] = field(default_factory=list)
    """The mix changing during the schedule: each entry ``{update: N, KEY: VALUE, ...}``
    sets weights of this section (``self_play``, ``snapshots``, ``heuristics.NAME`` or
    the whole ``heuristics`` mapping) from the rollout that update N trains on, on top of
    the entries before it, in increasing ``update`` order; as a resume with ``--set
    league.KEY=VALUE`` at update N would change it (an agent that enters starts at
    rating 1000, games in flight against one that leaves turn into self-play games).
    Not inherited by ``fine_tunes`` schedules (an entry may set its own); not on Ray."""


@dataclass
class ImitationConfig:
    """The behaviour-cloning warm start (``imitation:``)."""

    env_steps: int = 0
    """Teacher decisions recorded for the behaviour-cloning warm start before the first
    PPO update (0: no warm start). Rounded up to whole steps of num_envs games."""
    teacher: str = "discard_table"
    """The agent (registry name) whose play is imitated; it plays every seat."""
    num_envs: int = 1024
    """Games in flight while the teacher's play is recorded."""
    epochs: int = 4
    """Passes over the recorded decisions."""
    minibatch: int = 2048
    """Decisions per gradient step."""
    lr: float = 1e-3
    """Adam learning rate of the warm start (cosine-decayed to 0 over its epochs)."""
    vf_coef: float = 0.5
    """Weight of the value loss (discounted returns of the teacher's games)."""


@dataclass
class DistillConfig:
    """Learning a search's decisions beside PPO (``distill:``)."""

    data: list[str] = field(default_factory=list)
    """Search-label files (``burako distill``: a search agent's decisions) whose choices
    the policy learns beside PPO's objective, a cross-entropy term per minibatch (empty:
    none). Recorded at this run's table; read when the run starts and again on resume."""
    coef: float = 1.0
    """Weight of the cross-entropy towards the teacher's choices."""
    minibatch: int = 512
    """Labelled decisions drawn (from the run's generator) for each PPO minibatch."""
    searched_only: bool = True
    """Learn only the decisions the teacher searched: elsewhere its choice is its
    baseline (for ``ppo_search`` the policy's own argmax), nothing new to learn."""


@dataclass
class EvalConfig:
    """The evaluations during the run (``eval:``)."""

    every: int = 25
    """Updates between evaluations (0: never; an evaluation also ends the run)."""
    hands: int = 400
    """Hands per opponent per evaluation (half with the learner on each team)."""
    opponents: list[str] = field(default_factory=lambda: ["random", "greedy", "discard_table"])
    """Agents (registry names) the learner is evaluated against."""
    greedy: bool = True
    """Evaluate the learner by its most likely legal action (as ``burako tournament``
    and :func:`burako_env.evaluate` play it); false: sample from its distribution."""
    num_envs: int = 400
    """Not used since 0.4 (kept so that older configs load): an evaluation plays the
    games ``burako tournament`` plays for the same seed, in its chunks of 1,024 deals."""


@dataclass
class DistributedConfig:
    """Rollouts on Ray (``distributed:``, ``burako train --ray``)."""

    workers: int = 2
    """Rollout actors of a run on Ray (``burako train --ray``): each plays its share of
    ``env.num_envs`` games (its own VectorEnv and league opponents) with the learner's
    current weights and sends its transitions back. Without --ray this is not used."""
    threads: int = 1
    """numba and torch threads of each rollout actor (the Ray CPUs it asks for)."""


@dataclass
class TrainConfig:
    """A whole training config (docs/TRAINING.md): the run's own keys and the sections above;
    :func:`load_config` reads one from YAML."""

    name: str = "ppo"
    """Run name: the run folder defaults to ``runs/<name>-<timestamp>``."""
    seed: int = 1
    """Seed of everything: torch, numpy, the env's deals and the league."""
    torch_threads: int = 2
    """torch.set_num_threads while the games are played (rollouts, evaluations), when
    numba's threads step the games beside it."""
    update_threads: int | str = "auto"
    """torch.set_num_threads during the PPO update and the imitation warm start: a
    number, or ``auto``: the faster, per transition, of 1 and the cores no other process
    keeps busy, each timed (:class:`~burako_env.training.runtime.UpdateThreads`). A fixed 2
    on 2 cores was 20x slower (2.2 s to 45-58 s) whenever anything else kept a core busy,
    as torch's threads wait for each other at every operation (scripts/bench/bench_training.py
    --busy 1 measures it), and no faster than 1 on these idle cores since 0.4. The
    update's results do not depend on this count (tests/training/test_training.py checks it)."""
    device: str = "auto"
    """Where the network trains: ``auto`` (a CUDA GPU when torch sees one, else the
    CPU), ``cpu``, ``cuda`` or ``cuda:N``. The games always run on the CPU (numba), and
    so does the network's input featurizer; rollouts batch every waiting game into one
    call. Results on a GPU differ from the CPU's in the last float bits."""
    overlap: bool = False
    """Collect the next rollout while the PPO update runs: a thread plays the games with a
    copy of the network as it was before the update (one core, the update the other;
    torch's and numba's threads 1 in the update), so an iteration takes the longer of the
    two instead of their sum. Changes the run's results: every rollout is played by the
    network one update older than without it (PPO's ratio corrects for it, as for the
    epochs' own drift); a run with it is still fixed by its seed. A run on Ray (``--ray``)
    leaves it aside: its rollouts are the workers'."""
    init_policy: str | None = None
    """A policy file (or a run's checkpoint) whose network starts the run instead of a
    fresh one, to fine-tune it: it must have been trained for this table with these
    ``network`` settings, but for the training-only heads (``oracle_critic``,
    ``hidden_cards``), which start fresh when the file has none and are left out when the
    config has none, and a wider ``network.hidden``, to which the file's network is
    widened, computing the same function at the start (its new units' outgoing weights
    zero, ``BurakoNet.widened``); the imitation warm start is skipped. Read once, when
    the run starts (a resume reads its own checkpoint)."""
    fine_tunes: list[dict[str, Any]] = field(default_factory=list)
    """Further schedules after the first, in one run: each entry maps dotted keys to
    values as ``--set`` does (``{ppo.lr: 3.0e-4}``; ``{}``: the same config again), and
    its schedule starts from the previous one's final policy (``init_policy``) with a
    fresh league, optimizer and learning-rate schedule. The run folder then holds one
    run folder per schedule (``schedule-1``, ``schedule-2``, ...) and ``policy.pt``, the
    last finished schedule's policy; ``--resume`` continues the schedule in progress.
    An entry may not set ``fine_tunes`` or ``init_policy``."""
    runs_dir: str = "runs"
    """Parent folder of run folders."""
    checkpoint_every: int = 10
    """Updates between periodic checkpoints (checkpoints/last.pt and update_N.pt)."""
    keep_checkpoints: int = 3
    """Numbered periodic checkpoints kept (the oldest are deleted; last.pt stays)."""
    log_every: int = 1
    """Updates between TensorBoard scalar writes."""
    env: EnvConfig = field(default_factory=EnvConfig)
    """The table and its games (``env.variant``, ``env.num_envs``, ...): :class:`EnvConfig`."""
    network: NetworkConfig = field(default_factory=NetworkConfig)
    """The policy-value network's shape: :class:`NetworkConfig`."""
    ppo: PPOConfig = field(default_factory=PPOConfig)
    """The PPO updates and the rollouts' length: :class:`PPOConfig`."""
    league: LeagueConfig = field(default_factory=LeagueConfig)
    """The opponents the learner meets: :class:`LeagueConfig`."""
    imitation: ImitationConfig = field(default_factory=ImitationConfig)
    """The warm start by behaviour cloning: :class:`ImitationConfig`."""
    distill: DistillConfig = field(default_factory=DistillConfig)
    """A search's decisions learnt beside PPO (expert iteration): :class:`DistillConfig`."""
    eval: EvalConfig = field(default_factory=EvalConfig)
    """The evaluations against fixed agents during the run: :class:`EvalConfig`."""
    distributed: DistributedConfig = field(default_factory=DistributedConfig)
    """Rollouts on Ray (``burako train --ray``): :class:`DistributedConfig`."""

    # ------------------------------------------------------------ derived
    @property
    def rollout_steps(self) -> int:
        """The env steps of one rollout: ``num_envs * num_steps``."""
        return self.env.num_envs * self.ppo.num_steps

    @property
    def num_updates(self) -> int:
        """The schedule's updates: ``total_env_steps // rollout_steps``, at least 1."""
        return max(1, self.ppo.total_env_steps // self.rollout_steps)

    def to_dict(self) -> dict:
        """The config as plain data (nested dicts): what ``config.yaml`` of a run holds."""
        return asdict(self)


# ---------------------------------------------------------------- building and checking
def _hints(cls) -> dict[str, Any]:
    return typing.get_type_hints(cls)


def _check_value(key: str, value: Any, hint: Any) -> Any:
    """``value`` converted to ``hint`` or a ConfigError naming ``key``."""
    origin = typing.get_origin(hint)
    args = typing.get_args(hint)
    if origin in (typing.Union, types.UnionType):
        if value is None and type(None) in args:
            return None
        errors = []
        for inner in (a for a in args if a is not type(None)):
            try:
                return _check_value(key, value, inner)
            except ConfigError as exc:
                errors.append(exc)
        raise errors[0]
    if hint is Any:  # checked where it is used (fine_tunes: as a config of its own)
        return value
    if hint is bool:
        if isinstance(value, bool):
            return value
        raise ConfigError(f"config key {key!r} must be true or false, got {value!r}")
    if hint is int:
        if isinstance(value, bool) or not isinstance(value, int):
            if isinstance(value, float) and value.is_integer():
                return int(value)
            raise ConfigError(f"config key {key!r} must be a whole number, got {value!r}")
        return value
    if hint is float:
        if isinstance(value, str):  # YAML 1.1 reads 1e-4 (no dot) as a string
            try:
                return float(value)
            except ValueError:
                pass
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ConfigError(f"config key {key!r} must be a number, got {value!r}")
        return float(value)
    if hint is str:
        if not isinstance(value, str):
            raise ConfigError(f"config key {key!r} must be a string, got {value!r}")
        return value
    if origin is list:
        if not isinstance(value, list):
            raise ConfigError(f"config key {key!r} must be a list, got {value!r}")
        return [_check_value(f"{key}[{i}]", v, args[0]) for i, v in enumerate(value)]
    if origin is dict:
        if not isinstance(value, dict):
            raise ConfigError(f"config key {key!r} must be a mapping, got {value!r}")
        return {
            _check_value(f"{key} (a key)", k, args[0]): _check_value(f"{key}.{k}", v, args[1])
            for k, v in value.items()
        }
    raise ConfigError(f"config key {key!r}: unsupported type {hint!r}")  # pragma: no cover


def _build(cls, data: dict, prefix: str = ""):
    if not isinstance(data, dict):
        raise ConfigError(f"config section {prefix.rstrip('.') or '(top)'!r} must be a mapping")
    hints = _hints(cls)
    names = [f.name for f in dataclasses.fields(cls)]
    kwargs = {}
    for key, value in data.items():
        full = f"{prefix}{key}"
        if key not in names:
            raise ConfigError(
                f"unknown config key {full!r}; known keys"
                f"{' of ' + prefix.rstrip('.') if prefix else ''}: {', '.join(names)}"
            )
        hint = hints[key]
        if dataclasses.is_dataclass(hint):
            kwargs[key] = _build(hint, value or {}, f"{full}.")
        else:
            kwargs[key] = _check_value(full, value, hint)
    return cls(**kwargs)


def _validate(cfg: TrainConfig) -> None:
    def need(ok: bool, key: str, what: str, value: Any) -> None:
        if not ok:
            raise ConfigError(f"config key {key!r} must be {what}, got {value!r}")

    from burako_env.envs.rewards import REWARDS

    e, p, lg, ev, im = cfg.env, cfg.ppo, cfg.league, cfg.eval, cfg.imitation
    need(2 <= e.num_envs <= MAX_TRAIN_ENVS, "env.num_envs", f"2..{MAX_TRAIN_ENVS}", e.num_envs)
    need(e.num_players in (2, 4, 6, 8), "env.num_players", "2, 4, 6 or 8", e.num_players)
    need(e.episode in ("hand", "match"), "env.episode", "'hand' or 'match'", e.episode)
    need(e.reward in REWARDS, "env.reward", f"one of {REWARDS}", e.reward)
    from burako_env.variants import VariantError, load_variant

    try:  # a bad variant or a player count it refuses, before any run folder is made
        table = load_variant(e.variant, num_players=e.num_players)
    except VariantError as exc:
        raise ConfigError(f"config keys 'env.variant' / 'env.num_players': {exc}") from exc
    for key in ("hidden", "encoder", "meld_dim"):
        v = getattr(cfg.network, key)
        need(2 <= v <= MAX_NETWORK_WIDTH, f"network.{key}", f"2..{MAX_NETWORK_WIDTH}", v)
    need(
        cfg.network.card_features or not cfg.network.card_context,
        "network.card_context",
        "false unless network.card_features is true (it extends them)",
        cfg.network.card_context,
    )
    need(
        cfg.network.card_features or not cfg.network.card_history,
        "network.card_history",
        "false unless network.card_features is true (it extends them)",
        cfg.network.card_history,
    )
    if cfg.network.hint is not None:
        from burako_env.agents.network import hint_policy

        try:
            hint_policy(cfg.network.hint)
        except ValueError as exc:
            raise ConfigError(f"config key 'network.hint': {exc}") from exc
    need(p.total_env_steps >= 1, "ppo.total_env_steps", "positive", p.total_env_steps)
    need(p.num_steps >= 1, "ppo.num_steps", "positive", p.num_steps)
    need(p.lr > 0, "ppo.lr", "positive", p.lr)
    need(0 < p.gamma <= 1, "ppo.gamma", "in (0, 1]", p.gamma)
    need(0 <= p.gae_lambda <= 1, "ppo.gae_lambda", "in [0, 1]", p.gae_lambda)
    need(p.num_minibatches >= 1, "ppo.num_minibatches", "positive", p.num_minibatches)
    need(p.update_epochs >= 1, "ppo.update_epochs", "positive", p.update_epochs)
    need(p.clip_coef > 0, "ppo.clip_coef", "positive", p.clip_coef)
    need(p.max_grad_norm > 0, "ppo.max_grad_norm", "positive", p.max_grad_norm)
    need(p.hidden_coef >= 0, "ppo.hidden_coef", "non-negative", p.hidden_coef)
    need(
        p.failed_opening_penalty >= 0,
        "ppo.failed_opening_penalty",
        "non-negative",
        p.failed_opening_penalty,
    )
    _check_mix(lg, "league")
    mixes = [lg]  # the mix as written, then after each change
    for i, entry in enumerate(lg.changes):
        where = f"league.changes[{i}]"
        update: Any = entry.get("update")  # read from YAML: checked just below
        before = lg.changes[i - 1]["update"] if i else 0
        need(
            isinstance(update, int) and not isinstance(update, bool) and before < update,
            f"{where}.update",
            f"a whole number of updates above {before} (the entries in increasing order)",
            update,
        )
        need(
            update <= cfg.num_updates,
            f"{where}.update",
            f"at most the schedule's {cfg.num_updates} updates",
            update,
        )
        mixes.append(league_after(lg, i + 1))
        _check_mix(mixes[-1], where)
    need(lg.snapshot_every >= 1, "league.snapshot_every", "positive", lg.snapshot_every)
    need(lg.max_snapshots >= 1, "league.max_snapshots", "positive", lg.max_snapshots)
    need(im.env_steps >= 0, "imitation.env_steps", "non-negative", im.env_steps)
    need(im.num_envs >= 1, "imitation.num_envs", "positive", im.num_envs)
    need(im.epochs >= 1, "imitation.epochs", "positive", im.epochs)
    need(im.minibatch >= 1, "imitation.minibatch", "positive", im.minibatch)
    need(im.lr > 0, "imitation.lr", "positive", im.lr)
    need(im.vf_coef >= 0, "imitation.vf_coef", "non-negative", im.vf_coef)
    ds = cfg.distill
    need(ds.coef >= 0, "distill.coef", "non-negative", ds.coef)
    need(ds.minibatch >= 1, "distill.minibatch", "positive", ds.minibatch)
    for i, path in enumerate(ds.data):
        need(
            Path(path).is_file(), f"distill.data[{i}]", "a search-label file (burako distill)", path
        )
    need(ev.every >= 0, "eval.every", "non-negative", ev.every)
    need(ev.hands >= 2, "eval.hands", "at least 2", ev.hands)
    need(ev.num_envs >= 2, "eval.num_envs", "at least 2", ev.num_envs)
    need(cfg.checkpoint_every >= 1, "checkpoint_every", "positive", cfg.checkpoint_every)
    need(cfg.keep_checkpoints >= 1, "keep_checkpoints", "positive", cfg.keep_checkpoints)
    need(cfg.log_every >= 1, "log_every", "positive", cfg.log_every)
    need(cfg.torch_threads >= 1, "torch_threads", "positive", cfg.torch_threads)
    need(
        re.fullmatch(r"auto|cpu|cuda(:\d+)?", cfg.device) is not None,
        "device",
        "auto, cpu, cuda or cuda:N",
        cfg.device,
    )
    d = cfg.distributed
    need(d.workers >= 1, "distributed.workers", "positive", d.workers)
    need(
        d.workers <= e.num_envs,
        "distributed.workers",
        f"at most env.num_envs ({e.num_envs})",
        d.workers,
    )
    need(d.threads >= 1, "distributed.threads", "positive", d.threads)
    need(
        cfg.update_threads == "auto"
        or (isinstance(cfg.update_threads, int) and cfg.update_threads >= 1),
        "update_threads",
        "auto or a positive number",
        cfg.update_threads,
    )
    # names of agents: checked against the registry
    from burako_env.agents import make_agent

    named = [("league.heuristics", name) for name in lg.heuristics]
    for k in range(len(lg.changes)):  # the agents each change brings in
        new = set(mixes[k + 1].heuristics) - set(mixes[k].heuristics)
        named += [(f"league.changes[{k}].heuristics", name) for name in sorted(new)]
    named += [("eval.opponents", name) for name in ev.opponents]
    named += [("imitation.teacher", im.teacher)]
    for key, name in named:
        try:
            agent = make_agent(name)
        except ValueError as exc:
            # the agent's own words: an unknown name lists the known ones, a bad
            # setting (discard_table:danger_fit=x) names the setting
            raise ConfigError(f"config key {key!r}: agent {name!r}: {exc}") from exc
        try:  # a learned agent needs a policy for the run's table (ppo: a shipped one)
            agent.check_table(table)
        except ValueError as exc:
            raise ConfigError(
                f"config key {key!r}: agent {name!r} cannot play this run's table: {exc}"
            ) from exc
    schedule_configs(cfg)  # every fine-tune's config is checked before anything runs


#: keys a ``league.changes`` entry may set besides ``update``: the mix's weights
MIX_KEYS = ("self_play", "snapshots", "heuristics")


def _check_mix(lg: LeagueConfig, where: str) -> None:
    """The league's weights: each non-negative, with a positive sum."""
    for key, w in [("self_play", lg.self_play), ("snapshots", lg.snapshots)] + [
        (f"heuristics.{name}", w) for name, w in lg.heuristics.items()
    ]:
        if not 0 <= w < math.inf:  # NaN and infinity too
            raise ConfigError(
                f"config key {where + '.' + key!r} must be a non-negative number, got {w!r}"
            )
    total = lg.self_play + lg.snapshots + sum(lg.heuristics.values())
    if not total > 0:
        raise ConfigError(
            f"config key {where!r} must be weights with a positive sum, got {total!r}"
        )


def league_after(lg: LeagueConfig, count: int) -> LeagueConfig:
    """The league section with its first ``count`` ``changes`` entries applied (0: as
    written); a ConfigError names the entry and key that cannot apply."""
    data = asdict(lg)
    data["changes"] = []
    for i, entry in enumerate(lg.changes[:count]):
        where = f"league.changes[{i}]"
        for key, value in entry.items():  # a mapping: checked as the config was read
            if key == "update":
                continue
            if key.split(".")[0] not in MIX_KEYS:
                raise ConfigError(
                    f"config key {where}.{key}: an entry sets the mix's weights only "
                    f"({', '.join(MIX_KEYS)}; heuristics.NAME) besides its update"
                )
            try:
                set_key(data, key, value)
            except ConfigError as exc:
                raise ConfigError(f"config key {where!r}: {exc}") from exc
    return _build(LeagueConfig, data, f"{where if count else 'league'}.")


#: keys a fine-tune entry may not set: the chain sets them itself
CHAIN_KEYS = ("fine_tunes", "init_policy")


def schedule_configs(cfg: TrainConfig) -> list[TrainConfig]:
    """The configs of the schedules of a run with ``fine_tunes``: the first is ``cfg``
    without them, each next one ``cfg`` with its entry's keys set (its ``init_policy``,
    the previous schedule's policy, is set when it starts). A bad entry raises
    :class:`ConfigError` naming ``fine_tunes[i]`` and the key."""
    base = cfg.to_dict()
    base["fine_tunes"] = []
    first = dataclasses.replace(cfg, fine_tunes=[])
    out = [first]
    for i, entry in enumerate(cfg.fine_tunes):
        where = f"fine_tunes[{i}]"  # a mapping of names: checked as the key was read
        data = copy.deepcopy(base)
        data["init_policy"] = None
        data["league"]["changes"] = []  # the first schedule's own: an entry may set its own
        for key, value in entry.items():
            if key.split(".")[0] in CHAIN_KEYS:
                raise ConfigError(
                    f"config key {where}.{key}: a fine-tune may not set {key.split('.')[0]!r} "
                    "(each schedule starts from the previous one's policy)"
                )
            try:
                set_key(data, key, value)
            except ConfigError as exc:
                raise ConfigError(f"config key {where!r}: {exc}") from exc
        try:
            out.append(config_from_dict(data))
        except ConfigError as exc:
            raise ConfigError(f"config key {where!r}: {exc}") from exc
    return out


def apply_override(data: dict, override: str) -> None:
    """Set ``section.key=value`` in the raw mapping ``data`` (value parsed as YAML)."""
    if "=" not in override:
        raise ConfigError(f"override {override!r} must look like key=value (e.g. ppo.lr=1e-4)")
    key, raw = override.split("=", 1)
    key = key.strip()
    value = load_yaml(raw, f"override of {key!r}: value {raw[:80]!r}", ConfigError)
    set_key(data, key, value)


def set_key(data: dict, key: str, value: Any) -> None:
    """Set the dotted ``key`` (``ppo.lr``) of the raw mapping ``data`` to ``value``."""
    parts = key.split(".")
    node = data
    for part in parts[:-1]:
        child = node.setdefault(part, {})
        if not isinstance(child, dict):
            raise ConfigError(f"override {key!r}: {part!r} is not a section")
        node = child
    node[parts[-1]] = value


def config_from_dict(data: dict, overrides: list[str] | None = None) -> TrainConfig:
    """A checked :class:`TrainConfig` from a raw mapping and ``key=value`` overrides."""
    data = copy.deepcopy(data) if data else {}
    for override in overrides or []:
        apply_override(data, override)
    cfg = _build(TrainConfig, data)
    _validate(cfg)
    return cfg


def shipped_configs() -> list[str]:
    """The names of the training configs shipped inside the package (``default``, ``tiny``, the
    variants')."""
    from burako_env.variants import CONFIGS_DIR

    return sorted(p.stem for p in (CONFIGS_DIR / "train").glob("*.yaml"))


def config_path(source: str | Path) -> Path:
    """The config file for a path, or for a shipped config's name (see the module doc)."""
    from burako_env.variants import CONFIGS_DIR

    path = Path(source)
    if path.is_file():
        return path
    shipped = CONFIGS_DIR / "train"
    name = path.name if path.suffix in (".yaml", ".yml") else None
    if path.suffix == "" and len(path.parts) == 1:
        name = f"{path.name}.yaml"
    elif name is not None and path.parent.parts[-2:] != ("configs", "train"):
        name = None  # a path of one's own that does not exist: no guessing
    if name is not None and (shipped / name).is_file():
        return shipped / name
    raise ConfigError(
        f"config file {str(path)!r} does not exist (shipped configs: "
        f"{', '.join(shipped_configs())})"
    )


def merge_config_data(base: dict, data: dict) -> dict:
    """``data`` laid over ``base``, raw config mappings: a mapping (a section such as
    ``ppo``, or ``league.heuristics``) merges key by key, as one ``--set`` a key would;
    any other value (a number, a list such as ``fine_tunes``) replaces the base's."""
    merged = copy.deepcopy(base)
    for key, value in data.items():
        if isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = merge_config_data(merged[key], value)
        else:
            merged[key] = copy.deepcopy(value)
    return merged


def _base_path(base: Any, path: Path, source: str) -> Path:
    """The file a config's ``base:`` names: a shipped config's name, else a path relative
    to the config file (or absolute)."""
    if not isinstance(base, str) or not base:
        raise ConfigError(
            f"{source}: base must be a shipped config's name ({', '.join(shipped_configs())}) "
            f"or a YAML path relative to the file, got {base!r}"
        )
    from burako_env.variants import CONFIGS_DIR

    candidate = Path(base)
    if candidate.suffix == "" and len(candidate.parts) == 1:
        candidate = CONFIGS_DIR / "train" / f"{base}.yaml"
    elif not candidate.is_absolute():
        candidate = path.parent / candidate
    if not candidate.is_file():
        raise ConfigError(
            f"{source}: its base {base!r} is no file ({str(candidate)!r}); give a shipped "
            f"config's name ({', '.join(shipped_configs())}) or a YAML path relative to the file"
        )
    return candidate


def _file_data(path: Path, chain: tuple[Path, ...] = ()) -> dict:
    """A config file's raw mapping with its ``base`` resolved first: the base's mapping
    (resolved the same way), then the file's keys over it (:func:`merge_config_data`),
    as a variant file's ``base:`` works (``burako_env.variants``)."""
    source = str(path)
    if path.resolve() in chain:
        cycle = " -> ".join(str(p) for p in (*chain, path.resolve()))
        raise ConfigError(f"{source}: its base chain loops ({cycle}); remove one base:")
    if len(chain) >= MAX_BASE_CHAIN:
        raise ConfigError(
            f"{source}: its base chain is longer than {MAX_BASE_CHAIN} files (from "
            f"{str(chain[0])!r}); merge some of them into one"
        )
    # bounded like a variant file: size, nesting, no aliases or duplicate keys
    data = read_yaml_file(path, "config file", ConfigError) or {}
    if not isinstance(data, dict):
        raise ConfigError(f"config file {source!r} must hold a mapping of sections")
    base = data.pop("base", None)
    if base is None:
        return data
    base_data = _file_data(_base_path(base, path, source), (*chain, path.resolve()))
    return merge_config_data(base_data, data)


def load_config(
    source: str | Path | dict | TrainConfig | None, overrides: list[str] | None = None
) -> TrainConfig:
    """A config from a YAML path, a mapping, a TrainConfig or None (the defaults).

    A file's ``base:`` (a shipped config's name, or a path relative to the file) is
    loaded first and the file's keys are laid over it (:func:`merge_config_data`); the
    overrides come last."""
    if isinstance(source, TrainConfig):
        source = source.to_dict()
    if source is None:
        data: dict = {}
    elif isinstance(source, dict):
        data = source
    else:
        data = _file_data(config_path(source))
    return config_from_dict(data, overrides)


def save_config(cfg: TrainConfig, path: str | Path) -> None:
    """Write ``cfg`` to ``path`` as YAML, its keys in the dataclasses' order."""
    Path(path).write_text(yaml.safe_dump(cfg.to_dict(), sort_keys=False), encoding="utf-8")
