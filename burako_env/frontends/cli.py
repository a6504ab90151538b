"""``burako``: one command-line tool for the whole project.

    burako simulate --variant argentine --players 4 --games 10000
    burako sweep --variant brazilian --hands 1000000
    burako bench --api core            # or --api aec, --api vector, --api train
    burako rules colombian --players 6
    burako tournament random greedy discard_table --hands 200 --out results/
    burako play --bots greedy --seat 1 --save game.jsonl
    burako replay games.jsonl --check
    burako serve --records games       # the table in a browser: play, watch records
    burako train --config configs/train/tiny.yaml
    burako tournament greedy discard_table --hands 4000 --ray   # on Ray (docs/SCALING.md)

Every command has ``--help``. The error contract, kept by :func:`cli_errors` in every
command: a bad argument or input (an unknown variant, an unreadable checkpoint, a file that
cannot be written) prints ``error: ...`` and exits with code 2, before anything is written,
so no half-written file or folder is left behind. An output file is written beside its
target and put in place only when the command succeeds
(:func:`~burako_env.records.output_file`): a command that fails or is interrupted later
leaves every output path as it was.
"""

from __future__ import annotations

import errno
import math
import os
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Annotated

import typer

from burako_env.evaluation import EVAL_SEED  # light: numpy and the agents load when used
from burako_env.limits import (
    MAX_BATCH_GAMES,
    MAX_BENCH_ROUNDS,
    MAX_BENCH_SECONDS,
    MAX_BOT_DELAY,
    MAX_SEED,
    MAX_SIMULATE_GAMES,
    MAX_TOURNAMENT_HANDS,
    SIMULATE_BATCH_GAMES,
)

app = typer.Typer(
    help="Burako (Buraco, Burraco) self-play research environment.",
    no_args_is_help=True,
    add_completion=False,
)

VariantOpt = Annotated[
    str, typer.Option("--variant", "-v", help="argentine, italian, brazilian, colombian or a YAML")
]
PlayersOpt = Annotated[int | None, typer.Option("--players", "-p", help="number of players")]
RayOpt = Annotated[
    bool,
    typer.Option(
        "--ray", help="run on Ray: the cluster at --ray-address / RAY_ADDRESS, else a local one"
    ),
]
GreedyOpt = Annotated[
    bool | None,
    typer.Option(
        "--greedy/--sample",
        help="learned agents (ppo, ppo:PATH) play their most likely legal move (the default) "
        "or sample from their policy",
        show_default=False,
    ),
]


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


def _fail(message: str) -> None:
    typer.secho(f"error: {message}", fg=typer.colors.RED, err=True)
    raise typer.Exit(2)


def _bound(option: str, value, low, high) -> None:
    """``error:`` unless ``low <= value <= high`` (NaN is never within: a comparison with
    it is false), so a typo is an error rather than a run with no end (burako_env.limits)."""
    if not low <= value <= high:
        _fail(f"{option} must lie in {low}..{high}, got {value}")


def _ray_address(value: str | None) -> str | None:
    # an empty address read as "none given" and started a local Ray instance
    if value is not None and not value.strip():
        _fail("--ray-address is empty: give HOST:PORT (e.g. 10.0.0.5:6379), or leave it out")
    return value


RayAddressOpt = Annotated[
    str | None,
    typer.Option(
        "--ray-address",
        help="Ray cluster address, e.g. 10.0.0.5:6379 (default: RAY_ADDRESS)",
        callback=_ray_address,
    ),
]


def _os_message(exc: OSError) -> str:
    name = exc.filename if exc.filename is not None else ""
    reason = exc.strerror or str(exc)
    return f"cannot use {name}: {reason}" if name else reason


@contextmanager
def cli_errors() -> Iterator[None]:
    """The CLI's one error contract: the library's errors (ValueError and its kin, such
    as VariantError, ConfigError and CheckpointError, OSError, RayError: Ray missing
    or its cluster unreachable, and MissingExtra: an optional dependency missing, e.g.
    torch for ppo) become ``error: ...`` and exit 2."""
    from burako_env.distributed import RayError  # no Ray import: just the error type
    from burako_env.extras import MissingExtra

    try:
        yield
    except typer.Exit:
        raise
    except (ValueError, OSError, RayError, MissingExtra) as exc:
        _fail(_os_message(exc) if isinstance(exc, OSError) else str(exc))


def _lenient_stdin() -> None:
    """Bytes on stdin that are not text in its encoding (a binary file piped in, a
    terminal in another encoding) read as U+FFFD, a line that is no move, instead of a
    UnicodeDecodeError out of ``readline`` (``play`` and ``replay --step`` read lines)."""
    import sys

    reconfigure = getattr(sys.stdin, "reconfigure", None)
    if reconfigure is not None:
        try:
            reconfigure(errors="replace")
        except (ValueError, OSError):  # closed, or not a text stream of its own
            pass


def check_writable_file(option: str, path: str, overwrite: bool = True) -> Path:
    """Fail (``error: ...``, exit 2) unless ``path`` can be written as a file: not a
    folder, a FIFO, a device or a link loop (the output replaces the path: a FIFO or
    /dev/null would be gone), in a folder that exists or can be made, not an existing file
    unless ``overwrite``. Nothing is created."""
    target = Path(path)
    if path.endswith(("/", os.sep)) or target.is_dir():
        example = f"{path.rstrip('/')}/games.jsonl"
        _fail(f"{option} {path!r} is a folder; give a file name, e.g. {example}")
    if target.exists() and not target.is_file():  # replaced by a file, a FIFO or device is gone
        _fail(f"{option} {path!r} is not a regular file (a FIFO, device or socket)")
    try:
        os.stat(path)
    except OSError as exc:  # a link loop would be replaced by the file; a dangling
        if exc.errno == errno.ELOOP:  # link is followed: its target is written
            _fail(f"{option} {path!r} is a link in a loop")
    if target.exists() and not overwrite:
        _fail(f"{option} {path!r} already exists; pass --force to overwrite it")
    if target.exists() and not os.access(target, os.W_OK):
        _fail(f"{option} {path!r} cannot be written (permission denied)")
    folder = target.parent
    while not folder.exists():  # the nearest folder that exists must let us make the rest
        folder = folder.parent
    if not folder.is_dir():
        _fail(f"{option} {path!r}: {str(folder)!r} is a file, not a folder")
    if not os.access(folder, os.W_OK | os.X_OK):
        _fail(f"{option} {path!r}: cannot create files in {str(folder)!r} (permission denied)")
    return target


@app.command()
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


@app.command()
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

    _bound("--games", games, 1, MAX_SIMULATE_GAMES)
    _bound("--chunk", chunk, 1, MAX_SIMULATE_GAMES)
    _bound("--seed", seed, 0, MAX_SEED)
    from burako_env.frontends.warmup import deal_kernels

    _announce_compile("simulate", deal_kernels(min(games, SIMULATE_BATCH_GAMES)))
    ray = ray or ray_address is not None
    with cli_errors():
        report = run(
            variant, players, games=games, seed=seed, ray=ray, ray_address=ray_address,
            chunk=chunk, progress=ray,
        )  # fmt: skip
    typer.echo(str(report))


@app.command()
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
        _fail("--hands and --batch must be at least 1, --meld-bias within 0..1")
    _bound("--hands", hands, 1, MAX_SIMULATE_GAMES)
    _bound("--batch", batch, 1, MAX_BATCH_GAMES)
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
    _announce_compile("sweep", deal_kernels(size))
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


@app.command()
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
    ] = "default",
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
        _fail(f"unknown --api {api!r}: use core, aec, vector, train or all")
    if seconds <= 0 or min_games < 1:
        _fail("--seconds must be positive and --min-games at least 1")
    _bound("--seconds", seconds, 0, MAX_BENCH_SECONDS)  # NaN and inf too
    _bound("--min-games", min_games, 1, MAX_SIMULATE_GAMES)
    if any(b < 1 for b in batch or []) or any(t < 1 for t in threads or []):
        _fail("--batch and --threads must be at least 1")
    for b in batch or []:
        _bound("--batch", b, 1, MAX_BATCH_GAMES)
    _bound("--rounds", rounds, 1, MAX_BENCH_ROUNDS)
    if num_envs is not None:
        _bound("--num-envs", num_envs, 2, MAX_BATCH_GAMES)  # as env.num_envs
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


def _announce_compile(command: str, kernels=()) -> None:
    """Say on stderr that ``command``'s kernels (and ``kernels``, what this run calls
    besides) compile now, when one is not cached (burako_env/frontends/warmup.py)."""
    from burako_env.frontends.warmup import announce_compile

    announce_compile(command, lambda line: typer.echo(line, err=True), kernels)


@app.command()
def warmup() -> None:
    """Compile every kernel ahead of time (a first run on a machine pays minutes of it).

    Runs one small job per family (the core and the environments, random playouts, the
    heuristic tournament, the reliability sweep, pimc) and says what each compiled or
    loaded from numba's cache, and where that cache is. Afterwards every command starts
    in about a second.
    """
    from burako_env.core.nb import numba_cache_folder
    from burako_env.frontends.warmup import warmup as run

    with cli_errors():
        steps = run(echo=typer.echo)
    total = sum(s.cpu_seconds for s in steps)
    typer.echo(f"warm: {sum(s.compiled for s in steps)} kernels compiled, CPU {total:.1f} s")
    typer.echo(
        f"the compiled kernels are cached in {numba_cache_folder()}: delete that folder to "
        "clear the cache (the next run compiles again); NUMBA_CACHE_DIR chooses another"
    )


def split_bot_names(text: str) -> list[str]:
    """``--bots`` names, comma-separated; a piece ``key=value`` without a ``:`` continues
    the previous name's settings, so ``pimc:k=16,rollout=greedy,greedy`` is two bots."""
    names: list[str] = []
    for piece in (p.strip() for p in text.split(",")):
        if names and "=" in piece and ":" not in piece:
            names[-1] += "," + piece
        else:
            names.append(piece)
    return names


def _default_agents(variant: str, players: int | None) -> list[str]:
    """random, greedy, discard_table, and ppo where the pretrained policy fits the table."""
    from burako_env.frontends.play import default_bot

    names = ["random", "greedy", "discard_table"]
    if default_bot(variant, players)[0] == "ppo":
        names.append("ppo")
    return names


@app.command()
def tournament(
    agents: Annotated[
        list[str] | None,
        typer.Argument(
            help="agent names: random, greedy, discard_table, ppo, ppo:PATH, pimc, "
            "pimc:k=64,rollout=greedy, ppo_search, ppo_search:k=48,top=4, "
            "openspiel_ismcts:sims=100 (the openspiel extra; "
            "docs/STRATEGIES.md) "
            "(default: the built-in agents; ppo where its pretrained policy fits the table)",
            show_default=False,
        ),
    ] = None,
    variant: VariantOpt = "argentine",
    players: PlayersOpt = None,
    hands: Annotated[
        int, typer.Option(help="hands per pairing (each deal played twice, seats swapped)")
    ] = 200,
    seed: Annotated[
        int, typer.Option(help="seed of the deals and the agents (burako_env.evaluate's)")
    ] = EVAL_SEED,
    workers: Annotated[int, typer.Option(help="numba threads")] = 2,
    episode: Annotated[str, typer.Option(help="hand or match")] = "hand",
    out: Annotated[
        str | None,
        typer.Option(help="folder for tournament.csv, tournament.json and tournament.png"),
    ] = None,
    save_games: Annotated[
        str | None, typer.Option(help="write every game to this JSON-lines file (for replay)")
    ] = None,
    progress: Annotated[bool, typer.Option(help="show a progress bar on stderr")] = True,
    ray: RayOpt = False,
    ray_address: RayAddressOpt = None,
    task_deals: Annotated[
        int | None, typer.Option(help="with --ray: deals per Ray task (default 1024)")
    ] = None,
    greedy: GreedyOpt = None,
    force: Annotated[
        bool, typer.Option("--force", help="overwrite an existing --save-games file")
    ] = False,
) -> None:
    """Round-robin tournament between agents; prints the table of results.

    Every pairing plays the same deals twice, seats swapped: win rates with 95% intervals,
    score margins and Elo ratings (Bradley-Terry). The first agent's pairings are those
    of burako_env.evaluate(FIRST, [OTHERS...]) with the same --seed and --hands: the
    same defaults (seed 0, learned agents playing their most likely move).
    --save-games refuses an existing file unless --force; the files are put in place only
    when the whole run succeeds. With --ray the games are Ray tasks (--workers: the CPUs
    of a local Ray instance); the results are the same (docs/SCALING.md).
    """
    if hands < 1:
        _fail("--hands must be at least 1")
    _bound("--hands", hands, 1, MAX_TOURNAMENT_HANDS)
    if workers < 1:
        _fail("--workers must be at least 1")
    if seed < 0:
        _fail("--seed must be 0 or more")
    _bound("--seed", seed, 0, MAX_SEED)
    if episode not in ("hand", "match"):
        _fail(f"--episode must be hand or match, got {episode!r}")
    if task_deals is not None and task_deals < 1:
        _fail("--task-deals must be at least 1")
    from burako_env.variants import load_variant

    with cli_errors():
        table = load_variant(variant, num_players=players)
    names = list(agents) if agents else _default_agents(variant, players)
    if len(names) < 2:
        _fail("a tournament needs at least two agents")

    from burako_env.agents import is_learned, make_agent
    from burako_env.extras import MissingExtra

    objs = []
    for i, name in enumerate(names):
        kw = {"greedy": greedy} if greedy is not None and is_learned(name) else {}
        with cli_errors():
            try:
                agent = make_agent(name, seed=seed + i, **kw)
                agent.check_table(table)
            except (ValueError, OSError, MissingExtra) as exc:
                raise ValueError(f"agent {name!r}: {exc}") from exc
        objs.append(agent)
    if save_games is not None:
        check_writable_file("--save-games", save_games, overwrite=force)
    if out is not None:
        if Path(out).exists() and not Path(out).is_dir():
            _fail(f"--out {out!r} is a file; give a folder")
        check_writable_file("--out", str(Path(out) / "tournament.csv"))

    from burako_env.agents.tournament import run_tournament
    from burako_env.records import output_file

    if not (ray or ray_address is not None):  # on Ray the workers compile
        _announce_compile("tournament", [k for agent in objs for k in agent.kernels()])
    if save_games is not None:
        with cli_errors():
            Path(save_games).parent.mkdir(parents=True, exist_ok=True)
    try:
        # every file goes to a temporary one beside it, put in place when all are written:
        # a failure or Ctrl-C, even with --force, leaves each path as it was
        with cli_errors(), ExitStack() as outputs:
            games = None if save_games is None else outputs.enter_context(output_file(save_games))
            res = run_tournament(
                objs,
                variant,
                num_players=players,
                hands_per_pairing=hands,
                seed=seed,
                workers=workers,
                save_games=games,
                progress=progress,
                episode=episode,
                ray=ray or ray_address is not None,
                ray_address=ray_address,
                task_deals=task_deals,
            )
            typer.echo(res.table())
            if out is not None:
                folder = Path(out)
                folder.mkdir(parents=True, exist_ok=True)
                res.to_csv(outputs.enter_context(output_file(folder / "tournament.csv")))
                res.to_json(outputs.enter_context(output_file(folder / "tournament.json")))
                res.heatmap(outputs.enter_context(output_file(folder / "tournament.png")))
    except KeyboardInterrupt:
        kept = f"; {save_games} left as it was" if save_games is not None else ""
        typer.echo(f"\nInterrupted: no results written{kept}")
        raise typer.Exit(130) from None
    if out is not None:
        typer.echo(f"\nwrote {Path(out) / 'tournament.csv'}, .json and .png")
    if save_games is not None:
        typer.echo(f"saved {len(res.pairings) * res.hands_per_pairing} games to {save_games}")


@app.command()
def play(
    variant: VariantOpt = "argentine",
    players: PlayersOpt = None,
    seat: Annotated[int, typer.Option(help="your seat (0 plays first; team = seat % 2)")] = 0,
    bots: Annotated[
        str | None,
        typer.Option(
            help="bots at the other seats: a level (easy, normal, hard, expert) or agent name for "
            "all, or one per seat, comma-separated (default: hard where it plays, else normal)",
            show_default=False,
        ),
    ] = None,
    seed: Annotated[int, typer.Option(help="seed of the deal and the bots")] = 0,
    match: Annotated[
        bool, typer.Option("--match", help="play a whole match, not one hand")
    ] = False,
    save: Annotated[
        str | None, typer.Option(help="append the finished game to this JSON-lines file")
    ] = None,
    greedy: GreedyOpt = None,
) -> None:
    """Play Burako in the terminal against bots.

    Type 'help' at the prompt for the moves: draw, take, keep, reject, meld 7h 8h 9h,
    add 2c to 3, discard Kd, muerto, an action id, legal, table, quit. --save is checked
    before the game starts.
    """
    import shutil
    import sys

    from burako_env.core.game import Game
    from burako_env.frontends.play import agent_for, bot_label, default_bot, make_bots, play_game
    from burako_env.records import GameRecord, output_file, variant_fields, write_records

    if seed < 0:
        _fail("--seed must be 0 or more")
    _bound("--seed", seed, 0, MAX_SEED)
    if save is not None:  # before the person plays a whole hand, not after
        check_writable_file("--save", save)
    _announce_compile("play")
    with cli_errors():
        game = Game(variant, num_players=players, seed=seed, episode="match" if match else "hand")
    n = game.num_players
    if not 0 <= seat < n:
        _fail(f"--seat must be 0..{n - 1} for {n} players, got {seat}")
    others = [p for p in range(n) if p != seat]
    if bots:
        names = [agent_for(name) for name in split_bot_names(bots)]  # a level: its agent
        if len(names) == 1:
            names = names * len(others)
        if len(names) != len(others) or not all(names):
            _fail(f"--bots needs one name, or {len(others)} (one per other seat), got {bots!r}")
    else:
        name, why = default_bot(variant, players)
        if why:
            typer.echo(f"Bots: {why}.")
        names = [name] * len(others)
    labels = dict(zip(others, names, strict=True))
    with cli_errors():
        agents = make_bots(game, seat, names, seed, greedy=greedy)

    seats = ", ".join(f"P{p} {'you' if p == seat else bot_label(labels[p])}" for p in range(n))
    typer.echo(
        f"Burako, {game.variant.name}, {n} players ({seats}); you are team {seat % 2}. "
        "Type 'help' for the moves."
    )

    _lenient_stdin()

    def read(prompt: str) -> str | None:
        typer.echo(prompt, nl=False)
        try:
            line = sys.stdin.readline()
        except KeyboardInterrupt:
            return None
        if line and not sys.stdin.isatty():
            typer.echo(line.rstrip("\n"))  # a script of moves: show what was played
        return line if line else None

    try:
        result = play_game(game, seat, agents, read, typer.echo, names=labels)
    except KeyboardInterrupt:
        typer.echo("\nInterrupted: the game is abandoned.")
        raise typer.Exit(130) from None
    except RuntimeError as exc:
        _fail(str(exc))
    if save is not None:
        if not result.finished:
            typer.echo(f"The game did not finish: nothing saved to {save}.")
        else:
            seat_names = ["human" if p == seat else labels[p] for p in range(n)]
            rules, overrides = variant_fields(game.variant)  # a name or the rules, no path
            rec = GameRecord(
                variant=rules,
                num_players=n,
                seed=seed,
                index=0,
                seats=seat_names,
                actions=result.actions,
                scores=result.scores,
                winner=result.winner,
                episode=game.episode,
                agents=seat_names[:2],
                overrides=overrides,
                meta={"source": "burako play", "human_seat": seat},
            )
            with cli_errors():
                Path(save).parent.mkdir(parents=True, exist_ok=True)
                with output_file(save) as tmp:  # the old games and this one, or nothing
                    if Path(save).exists():
                        shutil.copyfile(save, tmp)
                    write_records(tmp, [rec], append=True)
            typer.echo(f"Saved the game to {save} (burako replay {save}).")


@app.command()
def replay(
    file: Annotated[str, typer.Argument(help="a JSON-lines file of game records")],
    game: Annotated[
        int | None, typer.Option("--game", "-g", help="the game to show or check (0 = first)")
    ] = None,
    check: Annotated[
        bool,
        typer.Option(
            help="re-play every game (or --game) through the engine: every move legal, every "
            "score as recorded; exit 1 naming each game that is not"
        ),
    ] = False,
    step: Annotated[bool, typer.Option(help="wait for Enter after each move (q quits)")] = False,
    viewer: Annotated[
        int | None, typer.Option(help="show the table as this seat sees it (default: all hands)")
    ] = None,
    moves_only: Annotated[
        bool, typer.Option("--moves-only", help="print the moves without the tables")
    ] = False,
) -> None:
    """Step through a saved game, or --check a file of them.

    Records come from tournament --save-games and play --save. Shows the table after each
    move; with --check, re-plays every game through the engine instead.
    """
    import sys

    from burako_env.frontends.playback import check_record, header, load_lines, replay_frames
    from burako_env.limits import printable

    with cli_errors():
        lines = load_lines(file)
    if not lines:
        _fail(f"{file} holds no game records")
    if game is not None and not 0 <= game < len(lines):
        _fail(
            f"--game {game} is out of range: {file} holds {len(lines)} records "
            f"(0..{len(lines) - 1})"
        )
    chosen = list(enumerate(lines)) if game is None else [(game, lines[game])]
    _announce_compile("replay")

    if check:
        bad = 0
        moves = 0
        for i, line in chosen:
            problem = line.error
            if line.record is not None and problem is None:
                problem = check_record(line.record)
                moves += len(line.record.actions)
            if problem is not None:
                bad += 1
                typer.secho(
                    f"game {i} (line {line.lineno}): {printable(problem)}",
                    fg=typer.colors.RED,
                    err=True,
                )
        if bad:
            typer.secho(
                f"error: {bad} of {len(chosen)} game(s) in {file} fail the check",
                fg=typer.colors.RED,
                err=True,
            )
            raise typer.Exit(1)
        typer.echo(
            f"checked {len(chosen)} game(s), {moves:,} moves, in {file}: every move legal, "
            "every score as recorded"
        )
        return

    i, line = chosen[0]
    if step:
        _lenient_stdin()
    rec = line.record
    problem = line.error if rec is None else check_record(rec)
    if problem is not None:
        typer.secho(
            f"error: game {i} (line {line.lineno}): {printable(problem)}",
            fg=typer.colors.RED,
            err=True,
        )
        raise typer.Exit(1)
    if viewer is not None and not 0 <= viewer < rec.num_players:
        _fail(f"--viewer must be a seat 0..{rec.num_players - 1}")
    typer.echo(f"Game {i} of {file} ({len(lines)} in the file): {header(rec)}")
    try:
        for move, table in replay_frames(rec, viewer=viewer):
            if moves_only:
                typer.echo(table if move == "start" else move)
            else:
                typer.echo(f"\n--- {move}")
                typer.echo(table)
            if step and move != "start":
                typer.echo("[Enter: next move, q: quit] ", nl=False)
                answer = sys.stdin.readline()
                if not answer or answer.strip().lower() in ("q", "quit"):
                    typer.echo("\nstopped.")
                    return
    except ValueError as exc:
        typer.secho(
            f"error: game {i} does not replay: {printable(exc)}", fg=typer.colors.RED, err=True
        )
        raise typer.Exit(1) from None
    if moves_only:
        typer.echo(f"\n{table}")
    typer.echo(f"\nReplayed {len(rec.actions)} moves; the result matches the record.")


@app.command()
def serve(
    host: Annotated[str, typer.Option(help="address to listen on (keep it local)")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="port (0: any free port)")] = 8000,
    records: Annotated[
        str, typer.Option(help="folder of record files (*.jsonl) that Watch lists")
    ] = "games",
    save_dir: Annotated[
        str | None,
        typer.Option(help="folder for saved games (default: the records folder)"),
    ] = None,
    bot_delay: Annotated[
        float, typer.Option(help="seconds the page waits before a bot moves")
    ] = 0.7,
) -> None:
    """The table in a browser: play against the bots, watch recorded games.

    Prints the URL to open. Watch shows the record files under --records (and nothing
    outside it); a finished game can be saved there as a record.
    """
    from pathlib import Path

    if not 0 <= port <= 65535:
        _fail(f"--port must be 0..65535, got {port}")
    if not (math.isfinite(bot_delay) and 0 <= bot_delay <= MAX_BOT_DELAY):  # nan, inf
        _fail(f"--bot-delay must be 0..{MAX_BOT_DELAY:g} seconds, got {bot_delay}")
    for name, folder in (("--records", records), ("--save-dir", save_dir)):
        if folder is not None and Path(folder).exists() and not Path(folder).is_dir():
            _fail(f"{name} {folder!r} is a file; give a folder")
    from burako_env.extras import require

    with cli_errors():  # the web extra: error: ... names it
        for module in ("starlette", "uvicorn"):
            require(module, "burako serve")
    from burako_env.frontends.web import serve as run

    # nothing compiles until a browser starts a game: the notice comes then, in the log
    try:
        run(
            host=host,
            port=port,
            records_dir=records,
            save_dir=save_dir,
            bot_delay=bot_delay,
            echo=typer.echo,
        )
    except OSError as exc:
        _fail(f"cannot listen on {host}:{port}: {exc.strerror or exc}")
    except KeyboardInterrupt:
        pass


def _shipped_train_configs() -> str:
    """The shipped training configs' names, for the help (burako_env.training.config is light: no
    torch)."""
    from burako_env.training.config import shipped_configs

    return ", ".join(shipped_configs())


@app.command()
def train(
    config: Annotated[
        str,
        typer.Option(
            help=f"training config: a YAML path or a shipped name ({_shipped_train_configs()}); "
            "the default, argentine, is the shipped policy's hint-free recipe"
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
        _fail("--stop-after must be 0 or more")
    from burako_env.extras import require

    with cli_errors():  # the train extra: error: ... names it
        for module in ("torch", "tensorboard"):
            require(module, "burako train")
    from burako_env.training.run import TrainingInterrupted
    from burako_env.training.run import train as run

    if not (ray or ray_address is not None):  # on Ray the rollout workers compile
        _announce_compile("train")
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


def main() -> None:
    app()


__all__ = [
    "app",
    "bench",
    "check_writable_file",
    "cli_errors",
    "main",
    "package_version",
    "play",
    "replay",
    "rules",
    "serve",
    "simulate",
    "split_bot_names",
    "sweep",
    "tournament",
    "train",
    "warmup",
]


if __name__ == "__main__":
    main()
