"""``burako distill``: a search agent's decisions recorded for training (``distill.data``)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from burako_env.frontends.commands.common import (
    announce_compile,
    bound,
    check_writable_file,
    cli_errors,
    fail,
)
from burako_env.frontends.commands.options import PlayersOpt, VariantOpt
from burako_env.limits import MAX_SEED, MAX_TOURNAMENT_HANDS

#: the teacher of docs/TRAINING.md's distillation: the policy steering its own rollouts
DEFAULT_TEACHER = "ppo_search:k=16,prior=0.02,rollout=policy,objective=win,budget_ms=0"


def distill(
    out: Annotated[str, typer.Option(help="the label file to write (.npz)")],
    teacher: Annotated[
        str,
        typer.Option(help="the search agent whose decisions are recorded, with its settings"),
    ] = DEFAULT_TEACHER,
    variant: VariantOpt = "argentine",
    players: PlayersOpt = None,
    hands: Annotated[int, typer.Option(help="hands the teacher plays, every seat its own")] = 40,
    seed: Annotated[int, typer.Option(help="seed of the deals and the teacher")] = 0,
    workers: Annotated[int, typer.Option(help="processes sharing the hands (one thread each)")] = 1,
    progress: Annotated[bool, typer.Option(help="show a progress bar on stderr")] = True,
    force: Annotated[bool, typer.Option("--force", help="overwrite an existing --out")] = False,
) -> None:
    """Record a search agent's decisions as training labels (docs/TRAINING.md, "Distilling
    a search").

    The teacher plays every seat of --hands hands; each decision with a choice is saved
    with the player's observation, the teacher's choice and what it would have played
    unsearched. `burako train --set distill.data=[FILE]` then learns the searched ones
    beside PPO's objective. The labels depend on --seed and --hands alone, not on
    --workers.
    """
    bound("--hands", hands, 1, MAX_TOURNAMENT_HANDS)
    bound("--seed", seed, 0, MAX_SEED)
    bound("--workers", workers, 1, 256)
    if not out.endswith(".npz"):
        fail(f"--out {out!r} must name a .npz file")
    check_writable_file("--out", out, overwrite=force)
    from burako_env.extras import require

    with cli_errors():
        require("torch", "burako distill")
        from burako_env.training.search_labels import collect_search_labels, make_teacher

        kernels = make_teacher(teacher).kernels()  # a bad name or setting: error: ... here

    announce_compile("distill", kernels)
    with cli_errors():
        labels = collect_search_labels(
            teacher, hands, seed, variant, players, workers=workers, progress=progress
        )
        Path(out).parent.mkdir(parents=True, exist_ok=True)  # checked above: it can be made
        labels.save(out)
    typer.echo(f"{out}: {labels.summary()} ({labels.meta['seconds']} s)")


__all__ = ["DEFAULT_TEACHER", "distill"]
