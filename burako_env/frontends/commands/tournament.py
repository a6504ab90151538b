"""``burako tournament``: a round robin between agents, its table and ratings."""

from __future__ import annotations

from contextlib import ExitStack
from pathlib import Path
from typing import Annotated

import typer

from burako_env.evaluation import (  # light: numpy and the agents load when used
    EVAL_HANDS_UNTIL_DECIDED,
    EVAL_SEED,
)
from burako_env.frontends.commands.common import (
    announce_compile,
    bound,
    check_writable_file,
    cli_errors,
    fail,
)
from burako_env.frontends.commands.options import (
    GreedyOpt,
    PlayersOpt,
    RayAddressOpt,
    RayOpt,
    VariantOpt,
)
from burako_env.limits import MAX_SEED, MAX_TOURNAMENT_HANDS


def _default_agents(variant: str, players: int | None) -> list[str]:
    """random, greedy, discard_table, and ppo where the pretrained policy fits the table."""
    from burako_env.frontends.play import default_bot

    names = ["random", "greedy", "discard_table"]
    if default_bot(variant, players)[0] == "ppo":
        names.append("ppo")
    return names


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
        int | None,
        typer.Option(
            help="hands per pairing (each deal played twice, seats swapped); with "
            "--until-decided the most per pairing  [default: 200; 4000 with --until-decided]",
            show_default=False,
        ),
    ] = None,
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
    until_decided: Annotated[
        str | None,
        typer.Option(
            metavar="P0,P1",
            help="stop each pairing once a sequential test (SPRT on paired hands, "
            "docs/EVALUATION.md) decides between H0: the first agent's win rate <= P0 and "
            "H1: >= P1, e.g. 0.50,0.55; --hands is then the most per pairing",
        ),
    ] = None,
    alpha: Annotated[
        float | None,
        typer.Option(
            help="with --until-decided: the chance of accepting H1 at P0  [default: 0.05]"
        ),
    ] = None,
    beta: Annotated[
        float | None,
        typer.Option(
            help="with --until-decided: the chance of accepting H0 at P1  [default: 0.05]"
        ),
    ] = None,
    estimator: Annotated[
        str,
        typer.Option(
            help="plain, or aivat: also the margin and win rate corrected at every draw "
            "from the stock by a value function, with their intervals and the variance "
            "ratio (docs/EVALUATION.md)"
        ),
    ] = "plain",
    value: Annotated[
        str | None,
        typer.Option(
            help="with --estimator aivat: the value file (burako fit-value; default: the "
            "one shipped for the table)"
        ),
    ] = None,
    force: Annotated[
        bool, typer.Option("--force", help="overwrite an existing --save-games file")
    ] = False,
) -> None:
    """Round-robin tournament between agents; prints the table of results.

    Every pairing plays the same deals twice, seats swapped: win rates with 95% intervals,
    score margins and Elo ratings (Bradley-Terry). The first agent's pairings are those
    of burako_env.evaluate(FIRST, [OTHERS...]) with the same --seed and --hands: the
    same defaults (seed 0, learned agents playing their most likely move).
    --until-decided P0,P1 plays each pairing only until a sequential test decides
    between win rate <= P0 and >= P1 (--alpha, --beta: its error rates).
    --estimator aivat adds the margin and win rate corrected for the luck of the draws
    (unbiased, with fewer hands for the same interval where the value function follows
    the hand; docs/EVALUATION.md).
    --save-games refuses an existing file unless --force; the files are put in place only
    when the whole run succeeds. With --ray the games are Ray tasks (--workers: the CPUs
    of a local Ray instance); the results are the same (docs/SCALING.md).
    """
    if until_decided is None:
        if alpha is not None or beta is not None:
            fail("--alpha and --beta are the error rates of --until-decided P0,P1: give it too")
        p_scores = None
    else:
        from burako_env.sequential import (
            DEFAULT_ALPHA,
            DEFAULT_BETA,
            check_test,
            parse_scores,
        )

        alpha = DEFAULT_ALPHA if alpha is None else alpha
        beta = DEFAULT_BETA if beta is None else beta
        for option, rate in (("--alpha", alpha), ("--beta", beta)):
            if not 0.0 < rate < 1.0:  # nan too
                fail(f"{option} must lie strictly between 0 and 1, got {rate}")
        try:
            p_scores = check_test(*parse_scores(until_decided), alpha, beta)
        except ValueError as exc:
            fail(f"--until-decided: {exc}")
    if hands is None:
        hands = 200 if until_decided is None else EVAL_HANDS_UNTIL_DECIDED
    if hands < 1:
        fail("--hands must be at least 1")
    bound("--hands", hands, 1, MAX_TOURNAMENT_HANDS)
    if workers < 1:
        fail("--workers must be at least 1")
    if seed < 0:
        fail("--seed must be 0 or more")
    bound("--seed", seed, 0, MAX_SEED)
    if episode not in ("hand", "match"):
        fail(f"--episode must be hand or match, got {episode!r}")
    if task_deals is not None and task_deals < 1:
        fail("--task-deals must be at least 1")
    from burako_env.agents.aivat import ESTIMATORS

    if estimator not in ESTIMATORS:
        fail(f"--estimator must be one of {', '.join(ESTIMATORS)}, got {estimator!r}")
    if value is not None and estimator != "aivat":
        fail("--value is the value file of --estimator aivat: give it too")
    if estimator == "aivat" and (ray or ray_address is not None):
        fail("--estimator aivat corrects the games it plays here: not with --ray")
    if estimator == "aivat" and episode != "hand":
        fail("--estimator aivat corrects single hands: use --episode hand")
    from burako_env.variants import load_variant

    with cli_errors():
        table = load_variant(variant, num_players=players)
    names = list(agents) if agents else _default_agents(variant, players)
    if len(names) < 2:
        fail("a tournament needs at least two agents")

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
            fail(f"--out {out!r} is a file; give a folder")
        check_writable_file("--out", str(Path(out) / "tournament.csv"))

    from burako_env.agents.tournament import run_tournament
    from burako_env.records import output_file

    if not (ray or ray_address is not None):  # on Ray the workers compile
        announce_compile("tournament", [k for agent in objs for k in agent.kernels()])
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
                until_decided=p_scores,
                **({} if p_scores is None else {"alpha": alpha, "beta": beta}),
                **({} if estimator == "plain" else {"estimator": estimator, "value": value}),
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
        typer.echo(f"saved {sum(p.hands for p in res.pairings)} games to {save_games}")


__all__ = ["tournament"]
