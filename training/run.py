"""A training run: start one, resume it, stop it with Ctrl-C.

    from burako_env.training.run import train
    train("configs/train/tiny.yaml", ["ppo.lr=1e-4"])          # runs/<name>-<timestamp>
    train(run_dir="runs/ppo-...", resume=True)                 # continue a run exactly
    train("configs/train/tiny.yaml", ["distributed.workers=2"], ray=True)   # rollouts on Ray

:func:`train` checks the config, picks the trainer (:class:`~burako_env.training.ppo.Trainer`,
or :class:`~burako_env.training.distributed.DistributedTrainer` with ``ray``), loads the
checkpoint on resume and runs it. It sits above both trainers, so neither imports the
other's module (the distributed trainer builds on the single-machine one).
"""

from __future__ import annotations

import shutil
import time
from pathlib import Path

from burako_env.agents.network import num_parameters
from burako_env.distributed import ray_session
from burako_env.training.checkpoint import CheckpointError, load_file, remove_stale_temporaries
from burako_env.training.config import TrainConfig, load_config, save_config
from burako_env.training.distributed import DistributedTrainer
from burako_env.training.ppo import Trainer


class TrainingInterrupted(KeyboardInterrupt):
    """Ctrl-C during :func:`train`: says what was saved and how to continue.

    ``run_dir`` is the run folder; ``saved_update`` the update of its last checkpoint
    (None: none was written, and a fresh run's folder was removed).
    """

    def __init__(self, run_dir: Path, update: int, saved_update: int | None, removed: bool):
        self.run_dir = run_dir
        self.update = update
        self.saved_update = saved_update
        if saved_update is None:
            where = (
                f"no checkpoint had been written yet, so the run folder {str(run_dir)!r} "
                "was removed; start the run again"
                if removed
                else f"no checkpoint had been written yet in {str(run_dir)!r}"
            )
            message = f"interrupted during update {update}: {where}"
        else:
            message = (
                f"interrupted during update {update}: the last checkpoint is update "
                f"{saved_update} in {str(run_dir / 'checkpoints' / 'last.pt')!r}; continue "
                f"with: burako train --resume {run_dir}"
            )
        super().__init__(message)
        self.message = message


def resume_checkpoint(run_dir: Path, say=print) -> Path:
    """The checkpoint to resume ``run_dir`` from: ``checkpoints/last.pt``, or, when that
    file cannot be read (a crash while the disk filled, a copy cut short), the newest
    numbered checkpoint that can, with a line through ``say`` naming it."""
    ck = Path(run_dir) / "checkpoints"
    last = ck / "last.pt"
    remove_stale_temporaries(run_dir)  # a copy killed midway left its .tmp behind
    try:
        load_file(last, kind="train")
        return last
    except CheckpointError as exc:
        if last.is_file() and "truncated or corrupted" not in str(exc):
            raise  # readable, but not a training checkpoint: not a case for the fallback
        problem = exc
    for numbered in sorted(ck.glob("update_*.pt"), reverse=True):
        try:
            load_file(numbered, kind="train")
        except CheckpointError:
            continue
        say(f"warning: {problem}; resuming from the newest intact checkpoint, {numbered}")
        return numbered
    if last.is_file():
        raise CheckpointError(f"{problem}, and no intact numbered checkpoint is left in {ck}")
    raise problem


def _write_config(cfg: TrainConfig, run_dir: Path) -> None:
    """config.yaml, atomically (a failure never leaves half a file)."""
    tmp = run_dir / "config.yaml.tmp"
    save_config(cfg, tmp)
    tmp.replace(run_dir / "config.yaml")


def train(
    config: str | Path | dict | TrainConfig | None = None,
    overrides: list[str] | None = None,
    run_dir: str | Path | None = None,
    resume: bool = False,
    stop_after: int | None = None,
    verbose: bool = True,
    ray: bool = False,
    ray_address: str | None = None,
) -> dict:
    """Train (or, with ``resume``, continue) a run; returns a summary dict.

    ``config``: a YAML path, a shipped config's name (``default``, ``tiny``), a mapping or
    a TrainConfig (on resume the run folder's ``config.yaml`` is used and ``config`` is
    ignored). ``overrides``: ``key=value`` strings. ``run_dir``: the run folder (default
    ``runs/<name>-<timestamp>``). ``stop_after``: stop after this many updates in this
    call (a checkpoint is written), e.g. to split a run into chunks; the run's schedule
    does not change.
    ``ray``: the rollouts run on ``distributed.workers`` Ray actors
    (:mod:`burako_env.training.distributed`) on the cluster at ``ray_address`` (else
    ``RAY_ADDRESS``, else a local Ray instance); a run on Ray resumes on Ray.

    Nothing is written until the config, the variant and (on resume) the checkpoint have
    been checked: a failure leaves no new run folder, and a resume that fails leaves the
    run's ``config.yaml`` as it was. A resume whose ``checkpoints/last.pt`` is unreadable
    continues from the newest intact numbered checkpoint. Ctrl-C raises
    :class:`TrainingInterrupted` (a KeyboardInterrupt) saying what was saved.
    """
    if resume:
        if run_dir is None:
            raise ValueError("resume needs the run folder (run_dir)")
        run_dir = Path(run_dir)
        if not (run_dir / "config.yaml").is_file():
            raise CheckpointError(f"{str(run_dir)!r} is not a run folder (no config.yaml)")
        cfg = load_config(run_dir / "config.yaml", overrides)
    else:
        cfg = load_config(config, overrides)
        if run_dir is None:
            stamp = time.strftime("%Y%m%d-%H%M%S")
            run_dir = Path(cfg.runs_dir) / f"{cfg.name}-{stamp}"
        run_dir = Path(run_dir)
        if (run_dir / "checkpoints" / "last.pt").exists():
            raise FileExistsError(f"{str(run_dir)!r} already holds a run: pass resume=True")
        if run_dir.exists() and not run_dir.is_dir():
            raise FileExistsError(f"the run folder {str(run_dir)!r} is a file")
    if not ray:
        return _run_trainer(Trainer, cfg, run_dir, resume, stop_after, verbose, "")
    with ray_session(ray_address):  # connect first: an unreachable cluster writes nothing
        where = f" on Ray ({cfg.distributed.workers} rollout workers)"
        return _run_trainer(DistributedTrainer, cfg, run_dir, resume, stop_after, verbose, where)


def _run_trainer(make, cfg, run_dir: Path, resume: bool, stop_after, verbose: bool, where: str):
    """Build the trainer, load the checkpoint, write the config, run; nothing is written
    before the checkpoint loads, and a run interrupted before its first checkpoint leaves
    no folder behind (:class:`TrainingInterrupted` says what was saved)."""
    created = not run_dir.exists()
    trainer = None
    try:
        trainer = make(cfg, run_dir)
        if resume:
            trainer.load(resume_checkpoint(run_dir, say=print if verbose else lambda _: None))
        elif cfg.init_policy is not None:
            trainer.start_from_policy(cfg.init_policy)
        run_dir.mkdir(parents=True, exist_ok=True)
        _write_config(cfg, run_dir)
    except BaseException:
        if trainer is not None and hasattr(trainer, "close"):
            trainer.close()
        if created:
            shutil.rmtree(run_dir, ignore_errors=True)
        raise
    if verbose:
        print(
            f"run {run_dir}{where}: {num_parameters(trainer.net):,} parameters, "
            f"{cfg.num_updates} updates of {cfg.rollout_steps:,} env steps",
            flush=True,
        )
    trainer.saved_update = trainer.update if resume else None
    try:
        return trainer.run(stop_after=stop_after, verbose=verbose)
    except KeyboardInterrupt:
        removed = False
        if trainer.saved_update is None and created:
            shutil.rmtree(run_dir, ignore_errors=True)
            removed = True
        raise TrainingInterrupted(run_dir, trainer.update, trainer.saved_update, removed) from None
    finally:
        if hasattr(trainer, "close"):
            trainer.close()
