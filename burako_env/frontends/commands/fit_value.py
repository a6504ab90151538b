"""``burako fit-value``: the value file of ``burako tournament --estimator aivat``."""

from __future__ import annotations

from typing import Annotated

import typer

from burako_env.frontends.commands.common import bound, check_writable_file, cli_errors, fail
from burako_env.frontends.commands.options import PlayersOpt, VariantOpt
from burako_env.limits import MAX_SEED, MAX_TOURNAMENT_HANDS


def fit_value(
    out: Annotated[str, typer.Option(help="the value file to write (.json)")],
    variant: VariantOpt = "argentine",
    players: PlayersOpt = None,
    opponent: Annotated[
        str, typer.Option(help="the agent the shipped policy plays in the fit's games")
    ] = "discard_table",
    hands: Annotated[int, typer.Option(help="hands of the fit (each deal twice)")] = 2000,
    seed: Annotated[
        int, typer.Option(help="seed of the fit's deals (keep it apart from evaluations')")
    ] = 1_000_003,
    head: Annotated[
        str | None,
        typer.Option(
            help="oracle (the critic that reads every hand) or observation; default: "
            "oracle where the policy has one"
        ),
    ] = None,
    policy: Annotated[
        str | None,
        typer.Option(
            help="the policy file whose critic is the value (default: the one shipped "
            "for the table; yours for a house-rule variant)"
        ),
    ] = None,
    workers: Annotated[int, typer.Option(help="numba threads")] = 2,
    progress: Annotated[bool, typer.Option(help="show a progress bar on stderr")] = True,
    force: Annotated[bool, typer.Option("--force", help="overwrite an existing --out")] = False,
) -> None:
    """Fit the value function of AIVAT's draw corrections (docs/EVALUATION.md).

    The shipped policy's critic values the state after each draw from the stock; this
    plays the policy against --opponent, corrects every draw, and fits one factor per
    outcome (score margin, share of the hand won) that leaves the corrected outcome
    the least variance. The file names the policy file and its sha256; a tournament
    run with --estimator aivat --value FILE names the file and its hash.
    """
    bound("--hands", hands, 2, MAX_TOURNAMENT_HANDS)
    bound("--seed", seed, 0, MAX_SEED)
    bound("--workers", workers, 1, 256)
    if not out.endswith(".json"):
        fail(f"--out {out!r} must name a .json file")
    check_writable_file("--out", out, overwrite=force)
    from burako_env.extras import require

    with cli_errors():
        require("torch", "burako fit-value")
        from burako_env.agents.aivat import HEADS
        from burako_env.agents.value_fit import fit_value as fit
        from burako_env.variants import load_variant

        if head is not None and head not in HEADS:
            raise ValueError(f"--head must be one of {', '.join(HEADS)}, got {head!r}")
        table = load_variant(variant, num_players=players)
        value = fit(
            table, table.num_players, opponent, hands, seed, head, workers, progress, policy
        )
        value.save(out)
    fit_info = value.fit
    typer.echo(
        f"{out}: {value.head} critic of {value.policy}, margin x{value.margin_scale:.1f} "
        f"points, win x{value.win_scale:.3f}; on the fit's {fit_info['hands']} hands the "
        f"variance fell /{fit_info['margin_variance_ratio']:.2f} (margin), "
        f"/{fit_info['win_variance_ratio']:.2f} (win rate)"
    )


__all__ = ["fit_value"]
