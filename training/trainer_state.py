"""The trainer's checkpoints: what a run writes and how a resume takes it back.

    trainer.save(best=False)        # checkpoints/last.pt, update_NNNNNN.pt, policy.pt
    trainer.load(path)              # refused (CheckpointError naming why) unless it fits

:class:`TrainerCheckpoints` is a base class of :class:`burako_env.training.ppo.Trainer` (and
so of the Ray learner, :class:`burako_env.training.distributed.DistributedTrainer`, which
replaces :meth:`~TrainerCheckpoints.rollout_state` and
:meth:`~TrainerCheckpoints.load_rollout_state` with its workers' states). A training
checkpoint holds the network, the optimiser, the progress counters, the league, every
generator (:func:`rng_state`), the games' state arrays and the pending transitions, so a
resumed run continues with results identical to an uninterrupted one. Every section is
checked before any is used (:meth:`~TrainerCheckpoints.check_checkpoint`;
:mod:`burako_env.training.checkpoint`, "Checked before use"), and the run checks its own
state the same way before it writes one.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from pathlib import Path

import numpy as np

try:  # the train extra: torch is not a core dependency (burako_env.extras)
    import torch
except ImportError as exc:
    from burako_env.extras import MissingExtra

    raise MissingExtra("burako_env.training", "torch") from exc

from burako_env.agents.network import BurakoNet
from burako_env.envs.vector import VectorEnv
from burako_env.table import Table
from burako_env.training.checkpoint import (
    FORMAT,
    VERSION,
    CheckpointError,
    check_compatible,
    check_optimizer_state,
    check_progress,
    check_rng_state,
    check_weights,
    copy_file,
    env_state,
    load_env_state,
    load_file,
    policy_dict,
    save_file,
)
from burako_env.training.config import TrainConfig, league_after
from burako_env.training.league import League
from burako_env.training.search_labels import TrainingLabels
from burako_env.training.transitions import Transitions, check_rollout_section


def rng_state(rng: np.random.Generator, generator: torch.Generator) -> dict:
    """Every generator's state (torch's, the sampling generator, numpy's, Python's) for a
    checkpoint: a resumed run draws the same numbers."""
    return {
        "torch": torch.get_rng_state(),
        "sampling": generator.get_state(),
        "numpy": rng.bit_generator.state,
        "python": list(random.getstate()[1]) + [random.getstate()[0]],
        "python_gauss": random.getstate()[2],
    }


def load_rng_state(state: dict, rng: np.random.Generator, generator: torch.Generator) -> None:
    """Restore the generators' states that :func:`rng_state` saved."""
    torch.set_rng_state(state["torch"])
    generator.set_state(state["sampling"])
    rng.bit_generator.state = state["numpy"]
    py = list(state["python"])
    random.setstate((py[-1], tuple(py[:-1]), state["python_gauss"]))


def check_same_network(theirs: dict, ours: dict, what: str) -> None:
    """CheckpointError naming the keys where a file's network spec (``theirs``) differs
    from the one the config builds (``ours``)."""
    if theirs != ours:
        diff = ", ".join(
            f"{k} {theirs.get(k)!r} here {ours.get(k)!r}"
            for k in sorted(set(ours) | set(theirs))
            if ours.get(k) != theirs.get(k)
        )
        raise CheckpointError(
            f"{what} has another network ({diff}): set the config's network keys to its own"
        )


class TrainerCheckpoints:
    """Writing, checking and loading a trainer's checkpoints. The attributes below are the
    trainer's (:class:`burako_env.training.ppo.Trainer` sets them): what a checkpoint holds
    and restores."""

    cfg: TrainConfig
    run_dir: Path
    net: BurakoNet
    optimizer: torch.optim.Optimizer
    league: League
    env: VectorEnv
    table: Table
    store: Transitions
    distill: TrainingLabels | None
    rng: np.random.Generator
    generator: torch.Generator
    variant_info: dict
    obs_size: int
    last: np.ndarray  # each game and seat's latest transition (-1: none)
    ep_len: np.ndarray
    collected: bool
    update: int
    global_step: int
    best_score: float
    imitated: bool
    league_changes: int
    saved_update: int | None
    #: seat the league's members anew at the games (the trainer's)
    reseat: Callable[[], None]

    def checkpoint_dict(self) -> dict:
        """The checkpoint of the run now: network, optimizer, league, generators, counters and the
        pending transitions."""
        return {
            "format": FORMAT,
            "version": VERSION,
            "kind": "train",
            "spec": self.net.spec(),
            "variant": self.variant_info,
            "model": self.net.state_dict(),
            "config": self.cfg.to_dict(),
            "optimizer": self.optimizer.state_dict(),
            "progress": {
                "update": self.update,
                "global_step": self.global_step,
                "best_score": self.best_score,
                "imitated": self.imitated,
                "distill_digests": [] if self.distill is None else self.distill.digests,
                "league_changes": self.league_changes,
            },
            "league": self.league.state_dict(),
            "rng": rng_state(self.rng, self.generator),
            **self.rollout_state(),
        }

    def rollout_state(self) -> dict:
        """The games and the pending transitions, for a checkpoint."""
        return {
            "env": env_state(self.env),
            "trainer": {
                "last": torch.from_numpy(self.last.copy()),
                "ep_len": torch.from_numpy(self.ep_len.copy()),
                "store": self.store.state_dict(),
                "collected": self.collected,  # the store holds a rollout to train on
            },
        }

    def load_rollout_state(self, data: dict, path: Path) -> None:
        """Restore :meth:`rollout_state` from checkpoint ``data`` (read from ``path``)."""
        if "env" not in data:
            raise CheckpointError(
                f"checkpoint {str(path)!r} is of a run on Ray "
                f"({len(data.get('workers', []))} rollout workers): resume it with --ray"
            )
        tr = data["trainer"]
        games, players = self.last.shape
        check_rollout_section(tr, self.store, games, players)  # before the games change
        load_env_state(self.env, data["env"])  # the table takes them up: load()
        self.last[...] = tr["last"].numpy()
        self.ep_len[...] = tr["ep_len"].numpy()
        self.store.load_state_dict(tr["store"])
        self.collected = bool(tr.get("collected", False))

    def save(self, best: bool = False) -> None:
        """Write the checkpoint (``last.pt`` and a numbered copy, the oldest beyond
        ``keep_checkpoints`` removed) and the policy file; ``best`` also as ``best_policy.pt``."""
        ck = self.run_dir / "checkpoints"
        data = self.checkpoint_dict()
        try:  # never a checkpoint that a resume would refuse (a run gone NaN, say)
            self.check_checkpoint(data)
        except CheckpointError as exc:
            raise CheckpointError(
                f"update {self.update}: the run's own state is invalid ({exc}), so no "
                f"checkpoint is written; the last one written stays in {str(ck)!r}"
            ) from None
        save_file(data, ck / "last.pt")
        # never half a numbered checkpoint, the resume's fallback
        copy_file(ck / "last.pt", ck / f"update_{self.update:06d}.pt")
        kept = sorted(ck.glob("update_*.pt"))
        for old in kept[: -self.cfg.keep_checkpoints]:
            old.unlink()
        meta = {"update": self.update, "global_step": self.global_step, "run": self.cfg.name}
        save_file(
            policy_dict(self.net, self.env.variant, self.obs_size, meta), self.run_dir / "policy.pt"
        )
        if best:
            save_file(data, ck / "best.pt")
            save_file(
                policy_dict(self.net, self.env.variant, self.obs_size, meta),
                self.run_dir / "best_policy.pt",
            )
        self.saved_update = self.update

    def check_checkpoint(self, data: dict) -> None:
        """CheckpointError naming the section and key unless every section of training
        checkpoint ``data`` holds what this run's code relies on (the weights, the
        optimiser, the progress counters, the league, the generators and the rollout:
        :mod:`burako_env.training.checkpoint`, "Checked before use"); nothing is used or
        changed. The games' arrays are checked as they load (:func:`load_env_state`:
        before any is set)."""
        shapes = {name: tuple(t.shape) for name, t in self.net.state_dict().items()}
        check_weights(data.get("model"), None, shapes, "model weight")
        check_optimizer_state(data.get("optimizer"), self.optimizer)
        check_progress(data.get("progress"), len(self.cfg.league.changes))
        self.league.check_state_dict(data.get("league"), shapes=shapes)
        check_rng_state(data.get("rng"))
        if "env" in data:  # a run on one machine (on Ray the workers check their own)
            check_rollout_section(data.get("trainer"), self.store, *self.last.shape)

    def load(self, path: Path) -> None:
        """Resume from the checkpoint at ``path``: refused (naming why) when its table or network is
        not this run's."""
        data = load_file(path, kind="train")
        check_compatible(data, self.variant_info, path)
        check_same_network(data["spec"], self.net.spec(), f"checkpoint {str(path)!r}")
        try:  # every section checked before any is used
            self.check_checkpoint(data)
        except CheckpointError as exc:
            raise CheckpointError(
                f"checkpoint {str(path)!r} is corrupted or does not fit this run: {exc}"
            ) from None
        try:
            # the games first: their arrays are checked as they load, before any is set
            self.load_rollout_state(data, path)
            self.net.load_state_dict(data["model"])
            self.optimizer.load_state_dict(data["optimizer"])
            # the league as it was when saved: its config's changes applied so far
            self.league_changes = int(data["progress"].get("league_changes", 0))
            if self.league_changes:
                self.league.change(
                    league_after(self.cfg.league, self.league_changes), seed=self.cfg.seed
                )
            self.league.load_state_dict(data["league"])
            self.reseat()
            self.table.wait()  # every saved game waits for the learner
            load_rng_state(data["rng"], self.rng, self.generator)
        except (KeyError, RuntimeError, ValueError) as exc:
            if isinstance(exc, CheckpointError):
                raise
            raise CheckpointError(f"checkpoint {str(path)!r} does not fit this run: {exc}") from exc
        prog = data["progress"]
        self.update, self.global_step = int(prog["update"]), int(prog["global_step"])
        self.best_score = float(prog["best_score"])
        self.imitated = bool(prog.get("imitated", True))
        theirs = list(prog.get("distill_digests", []))
        ours = [] if self.distill is None else self.distill.digests
        if theirs != ours:  # the run learnt other labels: it would not resume exactly
            raise CheckpointError(
                f"checkpoint {str(path)!r} was trained on other distill.data files (or "
                "their contents changed since): restore them, or start a new run "
                "(init_policy: its policy)"
            )
        # evaluations logged after this checkpoint will be made again: drop them (as the
        # TensorBoard writer purges the scalars past the checkpoint's step)
        evals = self.run_dir / "eval.jsonl"
        if evals.is_file():
            kept = [
                line
                for line in evals.read_text().splitlines()
                if line.strip() and json.loads(line)["update"] <= self.update
            ]
            evals.write_text("".join(line + "\n" for line in kept))
