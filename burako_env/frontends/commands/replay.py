"""``burako replay``: a saved game stepped through, or a file of them checked."""

from __future__ import annotations

from typing import Annotated

import typer

from burako_env.frontends.commands.common import announce_compile, cli_errors, fail, lenient_stdin


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
        fail(f"{file} holds no game records")
    if game is not None and not 0 <= game < len(lines):
        fail(
            f"--game {game} is out of range: {file} holds {len(lines)} records "
            f"(0..{len(lines) - 1})"
        )
    chosen = list(enumerate(lines)) if game is None else [(game, lines[game])]
    announce_compile("replay")

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
        lenient_stdin()
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
        fail(f"--viewer must be a seat 0..{rec.num_players - 1}")
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


__all__ = ["replay"]
