"""How much of a duplicate pairing's variance is the luck of the stock's order?

    .venv/bin/python scripts/experiments/stock_luck.py ppo discard_table --deals 150 \
        --orders 6 --seed 0

Deals ``--deals`` hands (seed ``--seed``); for each, ``--orders`` times, shuffles the
stock alone (the hands, the muertos and the pile kept) and plays the deal twice with the
seats swapped, as a tournament does, the same stock order both times. A pair's outcome
is the first agent's mean margin over its two hands. The variance of the pairs splits
into the part between deals and the part within a deal (between stock orders): the
second is what corrections at the draws could remove with a perfect value function, the
ceiling of AIVAT's draw corrections (docs/EVALUATION.md).

A finished experiment (scripts/README.md): its result is recorded in
docs/experiments/2026-12-06-aivat.md.
"""

from __future__ import annotations

import argparse

import numpy as np

from burako_env.agents import make_agent
from burako_env.core.game import Game
from burako_env.table import Seating, play_stepped


def stock_luck(
    first: str, second: str, deals: int, orders: int, seed: int, variant: str = "argentine"
) -> np.ndarray:
    """The pairs' outcomes ``[deals, orders]`` (the first agent's mean margin)."""
    rng = np.random.default_rng(seed)
    a, b = make_agent(first, seed=seed + 1), make_agent(second, seed=seed + 2)
    base = Game(variant, batch_size=deals, seed=seed)
    players = base.num_players
    pairs = np.zeros((deals, orders))
    both = np.concatenate([np.arange(deals), np.arange(deals)])
    for k in range(orders):
        game = base.clone(both)
        st = game.state
        for d in range(deals):
            n = int(st.stock_len[d])
            st.stock[d, :n] = st.stock[d, :n][rng.permutation(n)]
            st.stock[deals + d, :n] = st.stock[d, :n]
        game.refresh_legal()
        agent_rng = np.ascontiguousarray(rng.integers(1, 2**62, size=(2 * deals, players, 4)))
        play_stepped(game, Seating.duplicate(a, b, deals, players), agent_rng, False, 20000)
        scores = game.hand_scores.astype(np.float64)
        margin = scores[:, 0] - scores[:, 1]  # team 0's: the first agent's in the first half
        pairs[:, k] = 0.5 * (margin[:deals] - margin[deals:])
    return pairs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("first")
    parser.add_argument("second")
    parser.add_argument("--deals", type=int, default=150)
    parser.add_argument("--orders", type=int, default=6)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--variant", default="argentine")
    args = parser.parse_args()
    pairs = stock_luck(args.first, args.second, args.deals, args.orders, args.seed, args.variant)
    total = pairs.var(ddof=1)
    within = pairs.var(axis=1, ddof=1).mean()
    print(f"{args.deals} deals x {args.orders} stock orders, {args.first} vs {args.second}")
    print(f"pair variance {total:,.0f} (points^2); within a deal (the stock's order) {within:,.0f}")
    print(f"share of the stock's order: {within / total:.3f}")


if __name__ == "__main__":
    main()
