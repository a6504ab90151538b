"""``burako``: one command-line tool for the whole project.

    burako simulate --variant argentine --players 4 --games 10000
    burako sweep --variant brazilian --hands 1000000
    burako bench --api core            # or --api aec, --api vector, --api train
    burako rules colombian --players 6
    burako tournament random greedy discard_table --hands 200 --out results/
    burako leaderboard --add mine=ppo:runs/x/policy.pt   # baselines to cite, and yours
    burako play --bots greedy --seat 1 --save game.jsonl
    burako replay games.jsonl --check
    burako serve --records games       # the table in a browser: play, watch records
    burako train --config configs/train/tiny.yaml
    burako exploit discard_table --env-steps 2000000   # a best response's win rate
    burako distill --hands 40 --out labels.npz    # a search's decisions, for distill.data
    burako fit-value --out value.json  # the value function of --estimator aivat
    burako tournament greedy discard_table --hands 4000 --ray   # on Ray (docs/SCALING.md)

Every command has ``--help``; each is a module of :mod:`burako_env.frontends.commands`,
and this module assembles them into the typer app. The error contract, kept by
:func:`~burako_env.frontends.commands.common.cli_errors` in every command: a bad argument
or input (an unknown variant, an unreadable checkpoint, a file that cannot be written)
prints ``error: ...`` and exits with code 2, before anything is written, so no
half-written file or folder is left behind. An output file is written beside its target
and put in place only when the command succeeds
(:func:`~burako_env.records.output_file`): a command that fails or is interrupted later
leaves every output path as it was.
"""

from __future__ import annotations

from typing import Annotated

import typer

from burako_env.frontends.commands import (
    bench,
    distill,
    exploit,
    fit_value,
    leaderboard,
    play,
    replay,
    rules,
    serve,
    simulate,
    sweep,
    tournament,
    train,
    warmup,
)

app = typer.Typer(
    help="Burako (Buraco, Burraco) self-play research environment.",
    no_args_is_help=True,
    add_completion=False,
)


def package_version() -> str:
    """The installed package's version (``importlib.metadata``), else the source's
    ``burako_env.__version__`` (a checkout run without an install)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("burako")
    except PackageNotFoundError:
        from burako_env import __version__

        return __version__


def _print_version(value: bool) -> None:
    if value:
        typer.echo(f"burako {package_version()}")
        raise typer.Exit()


@app.callback()
def _main(
    version: Annotated[
        bool | None,
        typer.Option(
            "--version",
            help="print the version and exit",
            callback=_print_version,
            is_eager=True,
        ),
    ] = None,
) -> None:
    """Burako (Buraco, Burraco) self-play research environment."""


#: the commands, one module each (burako_env.frontends.commands), in the order --help lists
COMMANDS = (
    rules.rules,
    simulate.simulate,
    sweep.sweep,
    bench.bench,
    warmup.warmup,
    tournament.tournament,
    fit_value.fit_value,
    leaderboard.leaderboard,
    play.play,
    replay.replay,
    serve.serve,
    train.train,
    exploit.exploit,
    distill.distill,
)
for command in COMMANDS:
    app.command()(command)


def main() -> None:
    """The ``burako`` command (the console script's entry point)."""
    app()


__all__ = ["COMMANDS", "app", "main", "package_version"]


if __name__ == "__main__":
    main()
