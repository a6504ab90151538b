"""``burako bench``: the speed of the core, the envs and PPO training."""

from __future__ import annotations

from typing import Annotated

import typer

from burako_env.frontends.commands.common import bound, cli_errors, fail
from burako_env.frontends.commands.options import PlayersOpt, VariantOpt
from burako_env.limits import (
    MAX_BATCH_GAMES,
    MAX_BENCH_ROUNDS,
    MAX_BENCH_SECONDS,
    MAX_SIMULATE_GAMES,
)


def bench(
    api: Annotated[
        str, typer.Option(help="core, aec, vector, train or all (all: core, aec and vector)")
    ] = "core",
    variant: VariantOpt = "argentine",
    players: PlayersOpt = None,
    min_games: Annotated[int, typer.Option(help="games per core measurement")] = 2000,
    compile_time: Annotated[
        bool,
        typer.Option(
            "--compile",
            help="time the cold compile of the main job, the heuristic tournament, the env "
            "and the core",
        ),
    ] = False,
    seconds: Annotated[float, typer.Option(help="seconds per aec / vector measurement")] = 3.0,
    batch: Annotated[
        list[int] | None, typer.Option(help="vector: games per VectorEnv (repeatable)")
    ] = None,
    threads: Annotated[
        list[int] | None, typer.Option(help="vector: numba threads (repeatable)")
    ] = None,
    config: Annotated[
        str,
        typer.Option(help="train: training config, a YAML path or a shipped name"),
    ] = "hinted",
    set_: Annotated[
        list[str] | None,
        typer.Option("--set", help="train: override a config key, e.g. --set ppo.num_steps=16"),
    ] = None,
    rounds: Annotated[
        int, typer.Option(help="train: iterations measured after a warm-up (median)")
    ] = 3,
    num_envs: Annotated[
        int | None, typer.Option(help="train: games in flight (default: the config's)")
    ] = None,
) -> None:
    """Measure speed: the core, the PettingZoo AEC env, the VectorEnv or PPO training.

    core: random playouts inside one compiled kernel; aec: random legal play through
    burako_v1.env(); vector: VectorEnv with actions picked in Python; train: PPO
    iterations of a training config (the train extra), env steps/s of the rollout, the
    update and the whole iteration, and the share of the time in the game engine.
    Figures for docs/BENCHMARKS.md.
    """
    if api not in ("core", "aec", "vector", "train", "all"):
        fail(f"unknown --api {api!r}: use core, aec, vector, train or all")
    if seconds <= 0 or min_games < 1:
        fail("--seconds must be positive and --min-games at least 1")
    bound("--seconds", seconds, 0, MAX_BENCH_SECONDS)  # NaN and inf too
    bound("--min-games", min_games, 1, MAX_SIMULATE_GAMES)
    if any(b < 1 for b in batch or []) or any(t < 1 for t in threads or []):
        fail("--batch and --threads must be at least 1")
    for b in batch or []:
        bound("--batch", b, 1, MAX_BATCH_GAMES)
    bound("--rounds", rounds, 1, MAX_BENCH_ROUNDS)
    if num_envs is not None:
        bound("--num-envs", num_envs, 2, MAX_BATCH_GAMES)  # as env.num_envs
    if api == "train":
        from burako_env.extras import require

        with cli_errors():  # the train extra: error: ... names it
            require("torch", "burako bench --api train")

    import numba

    from burako_env.frontends.bench import (
        COMPILE_JOBS,
        bench_aec,
        bench_train,
        bench_vector,
        cold_compile,
        core_table,
        format_compile_rows,
        format_env_rows,
        format_rows,
        format_train,
        machine,
    )

    typer.echo(machine())
    with cli_errors():
        if compile_time:  # first, while nothing of this process competes for the cores
            jobs = tuple(COMPILE_JOBS)
            typer.echo(format_compile_rows([cold_compile(j) for j in jobs]))
        if api in ("core", "all"):
            typer.echo(format_rows(core_table(variant, players, min_games=min_games)))
        rows = []
        if api in ("aec", "all"):
            rows.append(bench_aec(seconds, variant, players))
            rows.append(bench_aec(seconds, variant, players, wrapped=False))
        if api in ("vector", "all"):
            for t in threads or [numba.get_num_threads()]:
                for b in batch or [1024]:
                    for picker in ("legal", "mask"):
                        rows.append(bench_vector(b, seconds, variant, players, t, picker))
        if rows:
            typer.echo(format_env_rows(rows))
        if api == "train":
            typer.echo(format_train(bench_train(config, list(set_ or []), num_envs, rounds)))


__all__ = ["bench"]
