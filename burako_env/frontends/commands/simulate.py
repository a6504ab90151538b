"""``burako simulate``: random hands played in the compiled core, summarised."""

from __future__ import annotations

from typing import Annotated

import typer

from burako_env.frontends.commands.common import announce_compile, bound, cli_errors
from burako_env.frontends.commands.options import PlayersOpt, RayAddressOpt, RayOpt, VariantOpt
from burako_env.limits import MAX_SEED, MAX_SIMULATE_GAMES, SIMULATE_BATCH_GAMES


def simulate(
    variant: VariantOpt = "argentine",
    players: PlayersOpt = None,
    games: Annotated[int, typer.Option(help="hands to play")] = 10_000,
    seed: Annotated[int, typer.Option(help="seed of the deals and the random players")] = 0,
    ray: RayOpt = False,
    ray_address: RayAddressOpt = None,
    chunk: Annotated[int, typer.Option(help="with --ray: games per Ray task")] = 2048,
) -> None:
    """Play random hands inside the compiled core and print a summary.

    With --ray the hands are split into Ray tasks; the summary is the same (docs/SCALING.md).
    """
    from burako_env.frontends.simulate import simulate as run

    bound("--games", games, 1, MAX_SIMULATE_GAMES)
    bound("--chunk", chunk, 1, MAX_SIMULATE_GAMES)
    bound("--seed", seed, 0, MAX_SEED)
    from burako_env.frontends.warmup import deal_kernels

    announce_compile("simulate", deal_kernels(min(games, SIMULATE_BATCH_GAMES)))
    ray = ray or ray_address is not None
    with cli_errors():
        report = run(
            variant, players, games=games, seed=seed, ray=ray, ray_address=ray_address,
            chunk=chunk, progress=ray,
        )  # fmt: skip
    typer.echo(str(report))


__all__ = ["simulate"]
