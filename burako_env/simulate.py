"""Simulate many random games in the compiled core and summarise them.

burako simulate --variant argentine --players 4 --games 10000
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from burako_env.core import kernels
from burako_env.core.constants import (
    END_MAX_TURNS,
    END_STOCK,
    END_WENT_OUT,
    MF_SIZE,
    S_END_REASON,
    S_HAND_SCORE0,
    S_TURN,
)
from burako_env.core.game import Game, game_seeds


@dataclass
class SimulationSummary:
    variant: str
    players: int
    games: int
    seconds: float
    went_out: int
    stock_end: int
    max_turns: int
    mean_scores: tuple[float, float]
    canastas_per_hand: float
    mean_turns: float
    mean_steps: float

    @property
    def games_per_s(self) -> float:
        return self.games / self.seconds

    def __str__(self) -> str:
        g = self.games
        return "\n".join(
            [
                f"{self.games} random {self.players}-player {self.variant} hands "
                f"in {self.seconds:.2f} s: {self.games_per_s:,.0f} games/s "
                f"({self.mean_steps * self.games / self.seconds:,.0f} steps/s)",
                f"  hands ended by going out: {self.went_out / g:6.1%}",
                f"  hands ended at the stock: {self.stock_end / g:6.1%}",
                f"  hands ended at max_turns: {self.max_turns / g:6.1%}",
                f"  mean score team 0 / team 1: {self.mean_scores[0]:.1f} / "
                f"{self.mean_scores[1]:.1f}",
                f"  canastas per hand (both teams): {self.canastas_per_hand:.2f}",
                f"  turns per hand: {self.mean_turns:.1f}, actions per hand: {self.mean_steps:.1f}",
            ]
        )


def simulate(
    variant: str = "argentine",
    num_players: int | None = None,
    games: int = 10_000,
    seed: int = 0,
    **overrides,
) -> SimulationSummary:
    """Play ``games`` hands of uniformly random legal play, all inside numba."""
    game = Game(variant, num_players, batch_size=games, seed=seed, **overrides)
    agent_rng = game_seeds(seed + 1_000_003, games)
    stats = np.zeros((games, 4), np.int64)
    t0 = time.perf_counter()
    kernels.random_playout_kernel(game.state, game.params, agent_rng, 0, 1, 1_000_000, stats)
    dt = time.perf_counter() - t0
    s = game.state.scalars
    end = s[:, S_END_REASON]
    canastas = 0
    for t in range(2):
        sizes = game.state.melds[:, t, :, MF_SIZE]
        live = np.arange(sizes.shape[1])[None, :] < game.state.num_melds[:, t][:, None]
        canastas += int(((sizes >= 7) & live).sum())
    scores = s[:, S_HAND_SCORE0 : S_HAND_SCORE0 + 2]
    return SimulationSummary(
        variant=game.variant.name,
        players=game.num_players,
        games=games,
        seconds=dt,
        went_out=int((end == END_WENT_OUT).sum()),
        stock_end=int((end == END_STOCK).sum()),
        max_turns=int((end == END_MAX_TURNS).sum()),
        mean_scores=(float(scores[:, 0].mean()), float(scores[:, 1].mean())),
        canastas_per_hand=canastas / games,
        mean_turns=float(s[:, S_TURN].mean()),
        mean_steps=float(stats[:, 1].mean()),
    )
