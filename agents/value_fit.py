"""The value file of AIVAT's corrections fitted (``burako fit-value``): a policy's critic
and the factors that turn it into points of margin and shares of a hand won
(:mod:`burako_env.agents.aivat`). It plays a tournament, so it sits above it."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from burako_env.agents.aivat import HEADS, DrawValue, file_sha256, least_squares_scale

#: the pairing ``fit_value`` plays by default: the shipped policy against the strongest
#: heuristic, the comparison the estimator is measured on
FIT_OPPONENT = "discard_table"
FIT_HANDS = 2000
FIT_SEED = 1_000_003  # apart from the tournaments' default seeds (0, EVAL_SEED)


def fit_value(
    variant="argentine",
    num_players: int | None = None,
    opponent: str = FIT_OPPONENT,
    hands: int = FIT_HANDS,
    seed: int = FIT_SEED,
    head: str | None = None,
    workers: int = 2,
    progress: bool = False,
    policy: str | Path | None = None,
) -> DrawValue:
    """Fit the scales of a policy's critic for ``variant`` (a name or a YAML of house
    rules): play the policy (default: the one shipped for the table) against
    ``opponent`` for ``hands`` hands (deals from ``seed``), correct every draw with unit
    scales, and take each outcome's least-squares factor over the pairs. ``head``: the
    oracle critic where the policy has one (default), else the observation's. Save it
    with :meth:`DrawValue.save` (``burako fit-value``)."""
    from burako_env.agents.ppo_agent import PPOAgent, shipped_dir, shipped_policy
    from burako_env.agents.tournament import run_tournament
    from burako_env.variants import load_variant

    table = load_variant(variant, num_players=num_players)
    policy = shipped_policy(table.name, table.num_players) if policy is None else Path(policy)
    player = PPOAgent(policy, greedy=True)
    player.check_table(table)  # a policy of another table: refused before any game
    net = player.net
    if head is None:
        head = "oracle" if net.oracle_critic else "observation"
    if head not in HEADS:
        raise ValueError(f"head must be one of {HEADS}, got {head!r}")
    policy = policy.resolve()
    here = shipped_dir().resolve()
    rel = policy.relative_to(here) if policy.is_relative_to(here) else policy
    unit = DrawValue(
        policy=str(policy), policy_sha256=file_sha256(policy), head=head, margin_scale=1.0,
        win_scale=1.0, variant=table.name, num_players=table.num_players,
    )  # fmt: skip
    res = run_tournament(
        [player, opponent], table, hands_per_pairing=hands, seed=seed, workers=workers,
        progress=progress, estimator="aivat", value=unit,
    )  # fmt: skip
    est = res.pairings[0].estimate
    assert est is not None  # estimator="aivat" estimates every pairing
    m, w, c = est.pair_margin, est.pair_win, est.pair_correction
    km, kw = least_squares_scale(m, c), least_squares_scale(w, c)
    fitted = DrawValue(
        policy=str(rel), policy_sha256=unit.policy_sha256, head=head, margin_scale=km,
        win_scale=kw, variant=table.name, num_players=table.num_players,
        fit={
            "pairing": [player.name, opponent], "hands": 2 * len(m), "seed": seed,
            "margin_variance_ratio": float(np.var(m) / np.var(m - km * c)),
            "win_variance_ratio": float(np.var(w) / np.var(w - kw * c)),
            "note": "the ratios are in-sample (the scales fitted on these games)",
        },
    )  # fmt: skip
    return fitted


__all__ = ["FIT_HANDS", "FIT_OPPONENT", "FIT_SEED", "fit_value"]
