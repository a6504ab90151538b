"""``burako train``: PPO self-play against a league (docs/TRAINING.md)."""

from __future__ import annotations

from typing import Annotated

import typer

from burako_env.frontends.commands.common import announce_compile, cli_errors, fail
from burako_env.frontends.commands.options import RayAddressOpt, RayOpt


def _shipped_train_configs() -> str:
    """The shipped training configs' names, for the help (burako_env.training.config is light: no
    torch)."""
    from burako_env.training.config import shipped_configs

    return ", ".join(shipped_configs())


def train(
    config: Annotated[
        str,
        typer.Option(
            help=f"training config: a YAML path or a shipped name ({_shipped_train_configs()}); "
            "the default, argentine, is the shipped policy's whole recipe (its three schedules)"
        ),
    ] = "argentine",
    set_: Annotated[
        list[str] | None,
        typer.Option("--set", help="override a config key, e.g. --set ppo.lr=1e-4 (repeatable)"),
    ] = None,
    resume: Annotated[
        str | None, typer.Option(help="continue the run in this folder from its last checkpoint")
    ] = None,
    run_dir: Annotated[
        str | None, typer.Option(help="run folder (default runs/<name>-<timestamp>)")
    ] = None,
    stop_after: Annotated[
        int | None, typer.Option(help="stop (with a checkpoint) after this many updates")
    ] = None,
    ray: RayOpt = False,
    ray_address: RayAddressOpt = None,
) -> None:
    """Train a PPO policy by self-play against a league (docs/TRAINING.md).

    With --ray the rollouts run on distributed.workers Ray actors (docs/SCALING.md).
    Ctrl-C stops the run and says which checkpoint to --resume from (exit 130).
    """
    if stop_after is not None and stop_after < 0:
        fail("--stop-after must be 0 or more")
    from burako_env.extras import require

    with cli_errors():  # the train extra: error: ... names it
        for module in ("torch", "tensorboard"):
            require(module, "burako train")
    from burako_env.training.run import TrainingInterrupted
    from burako_env.training.run import train as run

    if not (ray or ray_address is not None):  # on Ray the rollout workers compile
        announce_compile("train")
    try:
        with cli_errors():
            run(
                config,
                list(set_ or []),
                run_dir=resume or run_dir,
                resume=resume is not None,
                stop_after=stop_after,
                ray=ray or ray_address is not None,
                ray_address=ray_address,
            )
    except TrainingInterrupted as exc:
        typer.echo(f"\n{exc.message}", err=True)
        raise typer.Exit(130) from None


__all__ = ["train"]
