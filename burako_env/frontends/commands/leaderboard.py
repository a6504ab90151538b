"""``burako leaderboard``: a table of baselines per variant to cite
(:mod:`burako_env.leaderboard`)."""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Annotated

import typer

from burako_env.evaluation import EVAL_SEED
from burako_env.frontends.commands.common import (
    announce_compile,
    bound,
    check_writable_file,
    cli_errors,
    fail,
)
from burako_env.frontends.commands.options import PlayersOpt, RayAddressOpt, RayOpt

# light: the agents, numpy and numba load when it runs
from burako_env.leaderboard import HANDS, POOL, SEARCH_HANDS, cache_path, parse_add, run
from burako_env.limits import MAX_SEED, MAX_TOURNAMENT_HANDS

OUT = "leaderboard.json"
MARKDOWN = "docs/LEADERBOARD.md"


def _command_text(options: list[tuple[str, object, object]]) -> str:
    """``burako leaderboard`` with the options that differ from their defaults, in a
    fixed order: what the outputs say made them."""
    words = ["burako", "leaderboard"]
    for flag, value, default in options:
        if value == default or value is None:
            continue
        if value is True:
            words.append(flag)
        elif isinstance(value, (list, tuple)):
            for item in value:
                words += [flag, str(item)]
        else:
            words += [flag, str(value)]
    return shlex.join(words)


def leaderboard(
    variant: Annotated[
        list[str] | None,
        typer.Option(
            "--variant",
            "-v",
            help="argentine, italian, brazilian, colombian or a YAML; repeat for several "
            "(default: argentine)",
            show_default=False,
        ),
    ] = None,
    all_variants: Annotated[
        bool, typer.Option("--all-variants", help="the four shipped variants")
    ] = False,
    players: PlayersOpt = None,
    hands: Annotated[
        int, typer.Option(help="hands per pairing (each deal played twice, seats swapped)")
    ] = HANDS,
    search_hands: Annotated[
        int,
        typer.Option(help="hands per pairing of the search agents (pimc, ppo_search, ...)"),
    ] = SEARCH_HANDS,
    seed: Annotated[int, typer.Option(help="seed of the deals and the agents")] = EVAL_SEED,
    agent: Annotated[
        list[str] | None,
        typer.Option(
            "--agent",
            help="a built-in agent to rank; repeat for several (default: all of them)",
            show_default=False,
        ),
    ] = None,
    pool: Annotated[
        list[str] | None,
        typer.Option(
            "--pool",
            help="an agent of the pool every agent meets; repeat for several "
            "(default: random, greedy, discard_table)",
            show_default=False,
        ),
    ] = None,
    add: Annotated[
        list[str] | None,
        typer.Option(
            "--add",
            help="NAME=SPEC: your agent on the board, SPEC an agent name and settings "
            "(discard_table:cautious, pimc:k=64) or ppo:PATH to a policy file; repeatable",
            show_default=False,
        ),
    ] = None,
    exploit: Annotated[
        list[str] | None,
        typer.Option(
            "--exploit",
            help="a best response's report (RUN/exploit.json of burako exploit), shown on "
            "its agent's row; repeatable",
            show_default=False,
        ),
    ] = None,
    out: Annotated[
        str,
        typer.Option(help="the JSON; its pairings are kept beside it (NAME.pairings.jsonl)"),
    ] = OUT,
    markdown: Annotated[str, typer.Option(help="the Markdown table")] = MARKDOWN,
    workers: Annotated[int, typer.Option(help="numba threads")] = 2,
    episode: Annotated[str, typer.Option(help="hand or match")] = "hand",
    progress: Annotated[bool, typer.Option(help="show a progress bar on stderr")] = True,
    ray: RayOpt = False,
    ray_address: RayAddressOpt = None,
) -> None:
    """Baselines to cite: every built-in agent (and --add's) against a fixed pool.

    Per variant, each agent meets random, greedy and discard_table on the deals of
    --seed, each deal twice with the seats swapped: win rates with 95% Wilson intervals,
    Elo ratings (Bradley-Terry) and the CPU milliseconds per decision. Search agents
    (pimc, ppo_search, openspiel_ismcts) play --search-hands. Writes --out (JSON) and
    --markdown, with the command, budgets, seed and machine. Each pairing is kept as it
    finishes (NAME.pairings.jsonl beside --out): a rerun with the same settings plays
    only the pairings still missing. --exploit adds what a best response trained by
    burako exploit won against an agent (an approximate exploitability, not replayed).
    """
    bound("--hands", hands, 1, MAX_TOURNAMENT_HANDS)
    bound("--search-hands", search_hands, 1, MAX_TOURNAMENT_HANDS)
    bound("--seed", seed, 0, MAX_SEED)
    if workers < 1:
        fail("--workers must be at least 1")
    if episode not in ("hand", "match"):
        fail(f"--episode must be hand or match, got {episode!r}")
    if all_variants and variant:
        fail("give --variant or --all-variants, not both")
    from burako_env.variants import VARIANT_NAMES

    added: dict[str, str] = {}
    for text in add or []:
        with cli_errors():
            name, spec = parse_add(text)
        if name in added:
            fail(f"--add {name}=... is given twice: give each agent its own name")
        added[name] = spec
    variants = list(VARIANT_NAMES) if all_variants else list(variant or ["argentine"])
    check_writable_file("--out", out)
    check_writable_file("--markdown", markdown)
    cache = cache_path(out)
    check_writable_file("--out (its pairings)", str(cache))
    if Path(out).resolve() == Path(markdown).resolve():
        fail("--out and --markdown name the same file: give each its own")
    command = _command_text(
        [
            ("--variant", variant, None),
            ("--all-variants", all_variants, False),
            ("--players", players, None),
            ("--hands", hands, HANDS),
            ("--search-hands", search_hands, SEARCH_HANDS),
            ("--seed", seed, EVAL_SEED),
            ("--agent", agent, None),
            ("--pool", pool, None),
            ("--add", add, None),
            ("--exploit", exploit, None),
            ("--episode", episode, "hand"),
            ("--ray", ray, False),
            ("--out", out, OUT),
            ("--markdown", markdown, MARKDOWN),
        ]
    )
    if not (ray or ray_address is not None):
        announce_compile("tournament")
    from burako_env.records import output_file

    try:
        with cli_errors():
            board = run(
                variants,
                players,
                add=added,
                builtins=agent,
                pool=pool or POOL,
                hands=hands,
                search_hands=search_hands,
                seed=seed,
                episode=episode,
                workers=workers,
                cache=cache,
                ray=ray,
                ray_address=ray_address,
                progress=progress,
                command=command,
                log=lambda line: typer.echo(line, err=True),
                exploits=exploit or (),
            )
            for target in (out, markdown):
                Path(target).parent.mkdir(parents=True, exist_ok=True)
            with output_file(out) as json_file, output_file(markdown) as md_file:
                board.to_json(json_file)
                md_file.write_text(board.markdown(), encoding="utf-8")
    except KeyboardInterrupt:
        typer.echo(
            f"\nInterrupted: {out} and {markdown} left as they were; the finished pairings "
            f"are in {cache}: the same command goes on from them"
        )
        raise typer.Exit(130) from None
    typer.echo(board.table())
    typer.echo(
        f"\n{board.played} pairings played, {board.cached} from {cache}; wrote {out} and {markdown}"
    )


__all__ = ["leaderboard"]
