"""Couple the stock's draws of a duplicate pair: how much of a pair's variance goes?

    .venv/bin/python scripts/experiments/coupled_draws.py ppo discard_table --deals 300 \
        --seed 0

A tournament plays each deal twice with the seats swapped, the same stock order both
times; once the two hands part (a pile taken in one and not the other), each stock card
goes to another seat, and the stock's luck no longer cancels. Here each seat's ``j``-th
draw from the stock is coupled instead: it takes the card at quantile ``u[seat, j]`` of
the stock's cards in a fixed order (wilds, then rank by rank), the same ``u`` in both
hands of the pair ("coupled"); or ("race") the kind whose shared exponential time over
its copies in the stock comes first, which draws the same card in both hands whenever
both stocks hold it and it wins both races. Each draw is still uniform over the stock
given everything before it (the random numbers are fresh for that hand, and no player
sees the stock's order), so each hand is a hand of the game; only the pair is coupled.
Prints the pairs' variance plain and coupled both ways on the same deals, and the means.

A finished experiment (scripts/README.md): its result is recorded in
docs/experiments/2026-12-06-aivat.md ("Coupling a pair's draws").
"""

from __future__ import annotations

import argparse

import numpy as np

from burako_env.agents import make_agent
from burako_env.core.actions import DRAW_STOCK
from burako_env.core.constants import JOKER, NUM_RANKS, RANK_TWO
from burako_env.core.game import Game
from burako_env.table import Seating, play_stepped


def card_order() -> np.ndarray:
    """A key per card kind: jokers, twos, then rank by rank (suits within a rank)."""
    key = np.zeros(JOKER + 1, np.int64)
    for c in range(JOKER):
        suit, rank = divmod(c, NUM_RANKS)
        key[c] = 1 + suit if rank == RANK_TWO else 5 + 4 * rank + suit
    key[JOKER] = 0
    return key


def couple(game: Game, u: np.ndarray) -> None:
    """Make each game's next ``DRAW_STOCK`` take the card at quantile ``u[g, seat, j]``."""
    key = card_order()
    drawn = np.zeros(u.shape[:2], np.int64)
    step = game.step

    def coupled_step(actions, check=True):
        st = game.state
        for g in np.flatnonzero(np.asarray(actions) == DRAW_STOCK):
            seat = int(game.current_player[g])
            n = int(st.stock_len[g])
            cards = st.stock[g, :n]
            j = min(drawn[g, seat], u.shape[2] - 1)
            if u.ndim == 4:  # a race: each kind's exponential time over its copies
                count = np.bincount(cards, minlength=JOKER + 1)
                with np.errstate(divide="ignore"):
                    time = np.where(count > 0, u[g, seat, j] / count, np.inf)
                pick = int(np.flatnonzero(cards == int(np.argmin(time)))[0])
            else:
                order = np.argsort(key[cards], kind="stable")
                pick = order[int(u[g, seat, j] * n)]
            cards[pick], cards[n - 1] = cards[n - 1], cards[pick]
            drawn[g, seat] += 1
        return step(actions, check=check)

    game.step = coupled_step


def pairs(first, second, deals, seed, coupled, variant="argentine", race=False) -> np.ndarray:
    """The pairs' outcomes: the first agent's mean margin over a deal's two hands."""
    a, b = make_agent(first, seed=seed + 1), make_agent(second, seed=seed + 2)
    base = Game(variant, batch_size=deals, seed=seed)
    players = base.num_players
    game = base.clone(np.concatenate([np.arange(deals), np.arange(deals)]))
    if coupled:
        gen = np.random.default_rng(seed + 3)
        if race:
            u = gen.exponential(size=(deals, players, 60, JOKER + 1))
        else:
            u = gen.random((deals, players, 200))
        # the swapped hand: the seat that plays the first agent's partner's part gets
        # the same quantiles as in the first hand (seat k keeps its stream)
        couple(game, np.concatenate([u, u]))
    rng = np.random.default_rng(seed + 4)
    agent_rng = np.ascontiguousarray(rng.integers(1, 2**62, size=(2 * deals, players, 4)))
    play_stepped(game, Seating.duplicate(a, b, deals, players), agent_rng, False, 20000)
    scores = game.hand_scores.astype(np.float64)
    margin = scores[:, 0] - scores[:, 1]
    return 0.5 * (margin[:deals] - margin[deals:])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("first")
    parser.add_argument("second")
    parser.add_argument("--deals", type=int, default=300)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--variant", default="argentine")
    args = parser.parse_args()
    plain = pairs(args.first, args.second, args.deals, args.seed, False, args.variant)
    coupled = pairs(args.first, args.second, args.deals, args.seed, True, args.variant)
    race = pairs(args.first, args.second, args.deals, args.seed, True, args.variant, True)
    for name, x in (("plain", plain), ("coupled", coupled), ("race", race)):
        se = x.std(ddof=1) / np.sqrt(len(x))
        print(f"{name}: mean {x.mean():+.1f} ±{1.96 * se:.1f}, pair variance {x.var(ddof=1):,.0f}")
    print(f"variance ratio plain / coupled: {plain.var(ddof=1) / coupled.var(ddof=1):.2f}")
    print(f"variance ratio plain / race: {plain.var(ddof=1) / race.var(ddof=1):.2f}")


if __name__ == "__main__":
    main()
