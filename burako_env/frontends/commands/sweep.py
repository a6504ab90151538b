"""``burako sweep``: random hands with the invariants checked (docs/RELIABILITY.md)."""

from __future__ import annotations

from typing import Annotated

import typer

from burako_env.frontends.commands.common import announce_compile, bound, cli_errors, fail
from burako_env.frontends.commands.options import VariantOpt
from burako_env.limits import MAX_BATCH_GAMES, MAX_SIMULATE_GAMES


def sweep(
    variant: VariantOpt = "argentine",
    players: Annotated[
        int | None, typer.Option("--players", "-p", help="one player count (default: all)")
    ] = None,
    hands: Annotated[int, typer.Option(help="hands in all, shared among the player counts")] = (
        100_000
    ),
    seed: Annotated[int, typer.Option(help="seed of the deals and the random players")] = 0,
    batch: Annotated[int, typer.Option(help="games played side by side")] = 256,
    meld_bias: Annotated[
        float, typer.Option(help="chance of picking among the melds and pile takes")
    ] = 0.5,
    progress: Annotated[bool, typer.Option(help="show a progress bar")] = True,
) -> None:
    """Play random hands with the invariants checked in compiled code (docs/RELIABILITY.md).

    Cards conserved, a legal action always offered, every hand within max_turns, no team
    out without its conditions. Exits 1 if any invariant is violated.
    """
    from burako_env.frontends.sweep import sweep as run

    if hands < 1 or batch < 1 or not 0.0 <= meld_bias <= 1.0:
        fail("--hands and --batch must be at least 1, --meld-bias within 0..1")
    bound("--hands", hands, 1, MAX_SIMULATE_GAMES)
    bound("--batch", batch, 1, MAX_BATCH_GAMES)
    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=hands, unit="hand", desc=f"sweep {variant}", leave=False)

    def tick(done: int, total: int) -> None:
        if bar is not None:
            bar.total = total
            bar.n = done
            bar.refresh()

    from burako_env.frontends.sweep import first_batch
    from burako_env.frontends.warmup import deal_kernels

    with cli_errors():
        size = first_batch(variant, hands, players, batch)
    announce_compile("sweep", deal_kernels(size))
    try:
        with cli_errors():
            report = run(
                variant, hands, players=players, seed=seed, batch=batch, meld_bias=meld_bias,
                progress=tick,
            )  # fmt: skip
    finally:
        if bar is not None:
            bar.close()
    typer.echo(str(report))
    if report.violations:
        raise typer.Exit(1)


__all__ = ["sweep"]
