"""How often two agents choose the same action: a measure of how different an opponent is.

    .venv/bin/python scripts/experiments/agreement.py discard_table discard_table:cautious \
        discard_table:thrifty greedy --games 256 --seed 5

The first agent plays every seat of ``--games`` games to their end; at each of its
decisions with more than one legal action, every other agent is asked for its choice on
the same observation and mask, and the script prints the share of those decisions on which
each agrees with the first. Agents that take an observation (the compiled heuristics,
``ppo``) can be compared; search agents, which need the game, cannot.

A finished experiment (scripts/README.md): its result is recorded in
docs/experiments/2026-12-05-strategy-results.md.
"""

from __future__ import annotations

import argparse

import numpy as np

from burako_env.agents import make_agent
from burako_env.core.game import Game
from burako_env.table import needs_game


def agreement(
    reference: str,
    others: list[str],
    variant: str = "argentine",
    num_players: int = 4,
    games: int = 256,
    seed: int = 5,
) -> tuple[dict[str, float], int]:
    """The share of ``reference``'s decisions (with a choice) on which each of ``others``
    picks the same action, and the number of those decisions."""
    game = Game(variant, num_players=num_players, batch_size=games, seed=seed)
    ref = make_agent(reference, seed=seed)
    agents = {name: make_agent(name, seed=seed) for name in others}
    for agent in (ref, *agents.values()):
        agent.check_table(game.variant)
        if needs_game(agent):
            raise ValueError(f"agent {agent.name!r} needs the game, not an observation")
    same = dict.fromkeys(others, 0)
    decisions = 0
    while not game.done.all():
        live = np.nonzero(~game.done)[0]  # finished games have no legal action to ask about
        obs, mask = game.observe()[live], game.legal_action_mask()[live]
        action = ref.act(obs, mask)
        choice = mask.sum(1) > 1
        for name, agent in agents.items():
            same[name] += int(((agent.act(obs, mask) == action) & choice).sum())
        decisions += int(choice.sum())
        for b, a in zip(live, action, strict=True):
            game.step_one(int(a), int(b))
    return {name: n / max(decisions, 1) for name, n in same.items()}, decisions


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("reference", help="the agent that plays the games")
    ap.add_argument("others", nargs="+", help="agents asked on the same observations")
    ap.add_argument("--variant", default="argentine")
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--games", type=int, default=256)
    ap.add_argument("--seed", type=int, default=5)
    args = ap.parse_args()
    if args.games < 1:
        ap.error("--games must be at least 1")
    try:
        shares, decisions = agreement(
            args.reference, args.others, args.variant, args.players, args.games, args.seed
        )
    except ValueError as exc:
        ap.error(str(exc))
    print(f"{decisions} decisions of {args.reference} with a choice ({args.games} games)")
    for name, share in shares.items():
        print(f"  {name}: same action {share:.1%}")


if __name__ == "__main__":
    main()
