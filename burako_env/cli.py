"""``burako``: one command-line tool for the whole project.

    burako simulate --variant argentine --players 4 --games 10000
    burako bench --api core
    burako rules colombian --players 6
"""

from __future__ import annotations

from typing import Annotated

import typer

app = typer.Typer(
    help="Burako (Buraco, Burraco) self-play research environment.",
    no_args_is_help=True,
    add_completion=False,
)

VariantOpt = Annotated[
    str, typer.Option("--variant", "-v", help="argentine, italian, brazilian, colombian or a YAML")
]
PlayersOpt = Annotated[int | None, typer.Option("--players", "-p", help="number of players")]


def _fail(message: str) -> None:
    typer.secho(f"error: {message}", fg=typer.colors.RED, err=True)
    raise typer.Exit(2)


@app.command()
def rules(
    variant: Annotated[str, typer.Argument(help="variant name or YAML path")] = "argentine",
    players: PlayersOpt = None,
    table: Annotated[bool, typer.Option(help="print the four named variants side by side")] = False,
) -> None:
    """Print a variant's rule parameters (or the table of the four named variants)."""
    from burako_env.variants import VariantError, load_variant, variant_table

    try:
        if table:
            typer.echo(variant_table())
        else:
            typer.echo(load_variant(variant, num_players=players).describe())
    except VariantError as exc:
        _fail(str(exc))


@app.command()
def simulate(
    variant: VariantOpt = "argentine",
    players: PlayersOpt = None,
    games: Annotated[int, typer.Option(help="hands to play")] = 10_000,
    seed: Annotated[int, typer.Option(help="seed of the deals and the random players")] = 0,
) -> None:
    """Play random hands inside the compiled core and print a summary."""
    from burako_env.simulate import simulate as run
    from burako_env.variants import VariantError

    if games < 1:
        _fail("--games must be at least 1")
    try:
        typer.echo(str(run(variant, players, games=games, seed=seed)))
    except VariantError as exc:
        _fail(str(exc))


@app.command()
def bench(
    api: Annotated[str, typer.Option(help="core, aec or vector")] = "core",
    variant: VariantOpt = "argentine",
    players: PlayersOpt = None,
    min_games: Annotated[int, typer.Option(help="games per core measurement")] = 2000,
    compile_time: Annotated[bool, typer.Option("--compile", help="time a cold compile")] = False,
) -> None:
    """Measure speed (figures for docs/BENCHMARKS.md)."""
    from burako_env.bench import compile_seconds, core_table, format_rows, machine

    typer.echo(machine())
    if api == "core":
        if compile_time:
            typer.echo(f"cold compile: {compile_seconds():.1f} s")
        typer.echo(format_rows(core_table(variant, players, min_games=min_games)))
    else:
        _fail(f"unknown --api {api!r}: use core, aec or vector")


def main() -> None:
    app()


if __name__ == "__main__":
    main()
