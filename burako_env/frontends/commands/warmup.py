"""``burako warmup``: every kernel compiled ahead of time."""

from __future__ import annotations

import typer

from burako_env.frontends.commands.common import cli_errors


def warmup() -> None:
    """Compile every kernel ahead of time (a first run on a machine pays minutes of it).

    Runs one small job per family (the core and the environments, random playouts, the
    heuristic tournament, the reliability sweep, pimc) and says what each compiled or
    loaded from numba's cache, and where that cache is. Afterwards every command starts
    in about a second.
    """
    from burako_env.frontends.warmup import warmup as run
    from burako_env.jit import numba_cache_folder

    with cli_errors():
        steps = run(echo=typer.echo)
    total = sum(s.cpu_seconds for s in steps)
    typer.echo(f"warm: {sum(s.compiled for s in steps)} kernels compiled, CPU {total:.1f} s")
    typer.echo(
        f"the compiled kernels are cached in {numba_cache_folder()}: delete that folder to "
        "clear the cache (the next run compiles again); NUMBA_CACHE_DIR chooses another"
    )


__all__ = ["warmup"]
