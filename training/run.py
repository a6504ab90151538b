"""A training run: start one, resume it, stop it with Ctrl-C.

    from burako_env.training.run import train
    train("configs/train/tiny.yaml", ["ppo.lr=1e-4"])          # runs/<name>-<timestamp>
    train(run_dir="runs/ppo-...", resume=True)                 # continue a run exactly
    train("configs/train/tiny.yaml", ["distributed.workers=2"], ray=True)   # rollouts on Ray
    train("tiny", ["fine_tunes=[{ppo.lr: 1e-4}]"])     # two schedules, the second a fine-tune

:func:`train` checks the config, picks the trainer (:class:`~burako_env.training.ppo.Trainer`,
or :class:`~burako_env.training.distributed.DistributedTrainer` with ``ray``), loads the
checkpoint on resume and runs it; a config with ``fine_tunes`` runs its schedules one
after the other (:func:`run_schedules`). It sits above both trainers, so neither imports the
other's module (the distributed trainer builds on the single-machine one).
"""

from __future__ import annotations

import dataclasses
import shutil
import time
from pathlib import Path

from burako_env.agents.network import num_parameters
from burako_env.distributed import ray_session
from burako_env.training.checkpoint import (
    CheckpointError,
    copy_file,
    load_file,
    remove_stale_temporaries,
)
from burako_env.training.config import (
    ConfigError,
    TrainConfig,
    load_config,
    save_config,
    schedule_configs,
)
from burako_env.training.distributed import DistributedTrainer
from burako_env.training.ppo import Trainer


class TrainingInterrupted(KeyboardInterrupt):
    """Ctrl-C during :func:`train`: says what was saved and how to continue.

    ``run_dir`` is the run folder; ``saved_update`` the update of its last checkpoint
    (None: none was written, and a fresh run's folder was removed).
    """

    def __init__(
        self,
        run_dir: Path,
        update: int,
        saved_update: int | None,
        removed: bool,
        checkpoints: Path | None = None,
    ):
        self.run_dir = run_dir
        checkpoints = Path(run_dir) / "checkpoints" if checkpoints is None else checkpoints
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
                f"{saved_update} in {str(checkpoints / 'last.pt')!r}; continue "
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


def hint_note(cfg: TrainConfig) -> str:
    """What the run's first line adds when the network plays with a hint
    (``network.hint``): the heuristic it starts near, whose play its evaluations include
    (the tiny and default configs' discard_table beats greedy on its own); "" without."""
    hint = cfg.network.hint
    if hint is None:
        return ""
    return f"; hinted by {hint} (the policy starts near its play: the evals include it)"


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

    ``config``: a YAML path, a shipped config's name (``argentine``, ``hinted``, ``tiny``), a
    mapping or a TrainConfig (on resume the run folder's ``config.yaml`` is used and
    ``config`` is ignored). ``overrides``: ``key=value`` strings. ``run_dir``: the run
    folder (default ``runs/<name>-<timestamp>``). ``stop_after``: stop after this many
    updates in this call (a checkpoint is written), e.g. to split a run into chunks; the
    run's schedule does not change.
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
        if (run_dir / "checkpoints" / "last.pt").exists() or any(run_dir.glob("schedule-*")):
            raise FileExistsError(f"{str(run_dir)!r} already holds a run: pass resume=True")
        if run_dir.exists() and not run_dir.is_dir():
            raise FileExistsError(f"the run folder {str(run_dir)!r} is a file")
    if not ray:
        return _run(Trainer, cfg, run_dir, resume, stop_after, verbose, "")
    if any(c.league.changes for c in schedule_configs(cfg)):
        raise ConfigError(
            "config key 'league.changes': a run on Ray keeps its league's mix (the workers "
            "draw the opponents); train without --ray, or without the changes"
        )
    with ray_session(ray_address):  # connect first: an unreachable cluster writes nothing
        where = f" on Ray ({cfg.distributed.workers} rollout workers)"
        return _run(DistributedTrainer, cfg, run_dir, resume, stop_after, verbose, where)


def _run(make, cfg: TrainConfig, run_dir: Path, resume: bool, stop_after, verbose, where):
    if cfg.fine_tunes:
        return run_schedules(make, cfg, run_dir, resume, stop_after, verbose, where)
    return _run_trainer(make, cfg, run_dir, resume, stop_after, verbose, where)


def schedule_dir(run_dir: Path, index: int) -> Path:
    """The run folder of schedule ``index`` (0: the first) of a run with fine-tunes."""
    return Path(run_dir) / f"schedule-{index + 1}"


def schedule_finished(folder: Path, cfg: TrainConfig) -> bool:
    """Whether the schedule in ``folder`` ran all its updates: its policy file says so
    (the trainer writes it with the last update's checkpoint)."""
    try:
        meta = load_file(folder / "policy.pt", kind="policy").get("meta", {})
    except CheckpointError:
        return False
    return int(meta.get("update", -1)) >= cfg.num_updates


def run_schedules(make, cfg, run_dir: Path, resume: bool, stop_after, verbose: bool, where: str):
    """The schedules of a config with ``fine_tunes``, in turn: schedule i + 1 starts from
    schedule i's final policy. The run folder holds the whole config (``config.yaml``),
    one run folder per schedule (:func:`schedule_dir`) and ``policy.pt``, a copy of the
    last finished schedule's policy. A resume skips the finished schedules and resumes
    (or starts) the next; ``stop_after`` counts the updates of this call across
    schedules. Returns the last schedule's summary with ``schedules``, every summary of
    this call."""
    stages = schedule_configs(cfg)
    created = not run_dir.exists()
    if not resume:
        run_dir.mkdir(parents=True, exist_ok=True)
        _write_config(cfg, run_dir)
    summaries: list[dict] = []
    left = stop_after
    for i, stage in enumerate(stages):
        folder = schedule_dir(run_dir, i)
        if resume and schedule_finished(folder, stage):
            continue
        if left is not None and left <= 0:
            break
        started = (folder / "checkpoints" / "last.pt").exists()
        if i:  # read when it starts; kept in its config.yaml when it resumes
            stage = dataclasses.replace(
                stage, init_policy=str(schedule_dir(run_dir, i - 1) / "policy.pt")
            )
        if verbose:
            how = (
                "resumed"
                if started
                else ("from " + stage.init_policy if stage.init_policy else "fresh")
            )
            print(f"schedule {i + 1} of {len(stages)} ({how}): {folder}", flush=True)
        try:
            # on resume the run's config.yaml (--set overrides in) is rewritten once the
            # schedule's checkpoint has loaded, as a run of one schedule's is
            rewrite = (lambda: _write_config(cfg, run_dir)) if resume and not summaries else None
            summary = _run_trainer(make, stage, folder, started, left, verbose, where, rewrite)
        except BaseException as exc:
            # a chain that never checkpointed leaves no folder, however it stopped
            removed = created and not any(run_dir.glob("schedule-*/checkpoints/last.pt"))
            if removed:
                shutil.rmtree(run_dir, ignore_errors=True)
            if not isinstance(exc, TrainingInterrupted):
                raise
            stopped = TrainingInterrupted(
                run_dir, exc.update, exc.saved_update, removed, folder / "checkpoints"
            )
            if exc.saved_update is None and i:  # the schedules before it are kept
                stopped.message = (
                    f"interrupted during update {exc.update} of schedule {i + 1}, before its "
                    f"first checkpoint; {'schedule 1 is' if i == 1 else f'schedules 1 - {i} are'} "
                    f"finished: continue with: burako train --resume {run_dir}"
                )
                stopped.args = (stopped.message,)
            raise stopped from None
        summaries.append(summary)
        if left is not None:
            left -= summary["updates_run"]
        if summary["update"] < stage.num_updates:
            break  # stopped by stop_after
        copy_file(folder / "policy.pt", run_dir / "policy.pt")
    if not summaries:
        last = stages[-1]
        return {"run_dir": str(run_dir), "update": last.num_updates, "schedules": []}
    return {**summaries[-1], "run_dir": str(run_dir), "schedules": summaries}


def _run_trainer(
    make, cfg, run_dir: Path, resume: bool, stop_after, verbose: bool, where: str, loaded=None
):
    """Build the trainer, load the checkpoint, write the config (and call ``loaded``),
    run; nothing is written before the checkpoint loads, and a run interrupted before its
    first checkpoint leaves no folder behind (:class:`TrainingInterrupted` says what was
    saved)."""
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
        if loaded is not None:
            loaded()
    except BaseException:
        if trainer is not None and hasattr(trainer, "close"):
            trainer.close()
        if created:
            shutil.rmtree(run_dir, ignore_errors=True)
        raise
    if verbose:
        print(
            f"run {run_dir}{where}: {num_parameters(trainer.net):,} parameters, "
            f"{cfg.num_updates} updates of {cfg.rollout_steps:,} env steps{hint_note(cfg)}",
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
