"""``burako play``: a game in the terminal against bots."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from burako_env.frontends.commands.common import (
    announce_compile,
    bound,
    check_writable_file,
    cli_errors,
    fail,
    lenient_stdin,
)
from burako_env.frontends.commands.options import GreedyOpt, PlayersOpt, VariantOpt
from burako_env.limits import MAX_SEED


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
    from burako_env.frontends.play import (
        agent_for,
        bot_label,
        default_bot,
        fit_lines,
        make_bots,
        play_game,
    )
    from burako_env.records import GameRecord, output_file, variant_fields, write_records

    if seed < 0:
        fail("--seed must be 0 or more")
    bound("--seed", seed, 0, MAX_SEED)
    if save is not None:  # before the person plays a whole hand, not after
        check_writable_file("--save", save)
    announce_compile("play")
    with cli_errors():
        game = Game(variant, num_players=players, seed=seed, episode="match" if match else "hand")
    n = game.num_players
    if not 0 <= seat < n:
        fail(f"--seat must be 0..{n - 1} for {n} players, got {seat}")
    others = [p for p in range(n) if p != seat]
    if bots:
        names = [agent_for(name) for name in split_bot_names(bots)]  # a level: its agent
        if len(names) == 1:
            names = names * len(others)
        if len(names) != len(others) or not all(names):
            fail(f"--bots needs one name, or {len(others)} (one per other seat), got {bots!r}")
    else:
        name, why = default_bot(variant, players)
        if why:
            typer.echo("\n".join(fit_lines(f"Bots: {why}.")))
        names = [name] * len(others)
    labels = dict(zip(others, names, strict=True))
    with cli_errors():
        agents = make_bots(game, seat, names, seed, greedy=greedy)

    seats = ", ".join(f"P{p} {'you' if p == seat else bot_label(labels[p])}" for p in range(n))
    intro = (
        f"Burako, {game.variant.label}, {n} players ({seats}); you are team {seat % 2}. "
        "Type 'help' for the moves, 'hint' for Expert's."
    )
    typer.echo("\n".join(fit_lines(intro)))

    lenient_stdin()

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
        result = play_game(game, seat, agents, read, typer.echo, names=labels, seed=seed)
    except KeyboardInterrupt:
        typer.echo("\nInterrupted: the game is abandoned.")
        raise typer.Exit(130) from None
    except RuntimeError as exc:
        fail(str(exc))
    if save is not None:
        if not result.finished:
            typer.echo("\n".join(fit_lines(f"The game did not finish: nothing saved to {save}.")))
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
            typer.echo("\n".join(fit_lines(f"Saved the game to {save} (burako replay {save}).")))


__all__ = ["split_bot_names", "play"]
