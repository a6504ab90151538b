"""``burako rules``: a variant's rules in words and its parameters."""

from __future__ import annotations

from typing import Annotated

import typer

from burako_env.frontends.commands.common import cli_errors
from burako_env.frontends.commands.options import PlayersOpt


def rules(
    variant: Annotated[str, typer.Argument(help="variant name or YAML path")] = "argentine",
    players: PlayersOpt = None,
    table: Annotated[bool, typer.Option(help="print the four named variants side by side")] = False,
    params_only: Annotated[
        bool, typer.Option("--params-only", help="print the parameters without the summary")
    ] = False,
) -> None:
    """Print a variant's rules in words and its parameters.

    With --table, the four named variants side by side. The full rule book is RULES.md.
    """
    from burako_env.frontends.rules_text import rules_summary
    from burako_env.variants import load_variant, variant_table

    with cli_errors():
        if table:
            typer.echo(variant_table())
        else:
            v = load_variant(variant, num_players=players)
            if not params_only:
                typer.echo(rules_summary(v))
                typer.echo("")
            typer.echo(v.describe())


__all__ = ["rules"]
