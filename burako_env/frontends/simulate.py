"""Simulate many random games in the compiled core and summarise them.

burako simulate --variant argentine --players 4 --games 10000
burako simulate --games 1000000 --ray        # split into Ray tasks (docs/SCALING.md)
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
)
from burako_env.core.game import Game
from burako_env.distributed import game_seeds_range, slices
from burako_env.jit import timed_without_compile
from burako_env.limits import (
    MAX_SEED,
    MAX_SIMULATE_GAMES,
    SIMULATE_BATCH_GAMES,
    check_whole,
    printable_name,
)
from burako_env.variants import Variant, load_variant


@dataclass
class SimulationSummary:
    """What ``burako simulate`` reports: the games played, their endings and lengths,
    and the rate."""

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
    #: this process's compiling in the timed kernels, left out of ``seconds`` (locally)
    compile_seconds: float = 0.0
    #: on Ray, the tasks' compiling: inside the run's ``seconds`` (other processes, at once)
    ray_compile_seconds: float = 0.0

    @property
    def games_per_s(self) -> float:
        """Games per second of wall time (compiling left out)."""
        return self.games / max(self.seconds, 1e-9)

    def __str__(self) -> str:
        g = self.games
        compiled = ""
        if self.compile_seconds > 0:
            compiled += f"; {self.compile_seconds:.1f} s of compiling left out"
        if self.ray_compile_seconds > 0:
            compiled += f"; includes the Ray tasks' {self.ray_compile_seconds:.1f} s of compiling"
        return "\n".join(
            [
                f"{self.games} random {self.players}-player {printable_name(self.variant)} hands "
                f"in {self.seconds:.2f} s: {self.games_per_s:,.0f} games/s "
                f"({self.mean_steps * self.games_per_s:,.0f} steps/s{compiled})",
                f"  hands ended by going out: {self.went_out / g:6.1%}",
                f"  hands ended at the stock: {self.stock_end / g:6.1%}",
                f"  hands ended at max_turns: {self.max_turns / g:6.1%}",
                f"  mean score team 0 / team 1: {self.mean_scores[0]:.1f} / "
                f"{self.mean_scores[1]:.1f}",
                f"  canastas per hand (both teams): {self.canastas_per_hand:.2f}",
                f"  turns per hand: {self.mean_turns:.1f}, actions per hand: {self.mean_steps:.1f}",
            ]
        )


#: games per Ray task of a distributed simulation (the whole run splits into these)
RAY_CHUNK_GAMES = 2048
#: offset of the random players' seed from the deals' seed
AGENT_SEED_OFFSET = 1_000_003


def _play_games(variant: Variant, seed: int, start: int, count: int) -> dict[str, np.ndarray]:
    """Games ``start .. start + count`` of a simulation (seeded by (seed, game) alone, so a
    slice plays exactly the games it plays in the whole batch): per-game outcomes, the
    playout kernel's seconds under ``"seconds"`` (its compile left out) and the seconds of
    every compile here (the deal's too) under ``"compile_seconds"``."""
    with timed_without_compile() as whole:
        game = Game(variant, batch_size=count)
        game.state.rng[:] = game_seeds_range(seed, start, count)
        game.reset()
        agent_rng = game_seeds_range(seed + AGENT_SEED_OFFSET, start, count)
        stats = np.zeros((count, 4), np.int64)
        with timed_without_compile() as timing:
            kernels.random_playout(game.state, game.params, agent_rng, 0, 1, 1_000_000, stats)
    cols = game.columns()
    canastas = np.zeros(count, np.int64)
    for t in range(2):
        sizes = game.state.melds[:, t, :, MF_SIZE]
        live = np.arange(sizes.shape[1])[None, :] < game.state.num_melds[:, t][:, None]
        canastas += ((sizes >= 7) & live).sum(axis=1)
    return {
        "end": cols.end_reason.astype(np.int64),
        "scores": cols.hand_scores.astype(np.int64),
        "turns": cols.turn.astype(np.int64),
        "steps": stats[:, 1].copy(),
        "canastas": canastas,
        "seconds": np.array([timing["seconds"]]),
        "compile_seconds": np.array([whole["compile_seconds"]]),
    }


def simulate_games_task(variant: Variant, seed: int, start: int, count: int, threads: int):
    """A Ray task: games ``start .. start + count`` on ``threads`` numba threads."""
    from burako_env.distributed import set_worker_threads

    set_worker_threads(threads)
    return _play_games(variant, seed, start, count)


def _on_ray(variant, seed, games, chunk, address, workers, progress) -> list[dict[str, np.ndarray]]:
    from tqdm.auto import tqdm

    from burako_env.distributed import TASK_CPUS, TASK_RETRIES, RayError, ray_session

    with ray_session(address, num_cpus=workers) as ray:
        remote = ray.remote(num_cpus=TASK_CPUS, max_retries=TASK_RETRIES)(simulate_games_task)
        t0 = time.perf_counter()
        pieces = slices(games, chunk)
        refs = [remote.remote(variant, seed, lo, hi - lo, TASK_CPUS) for lo, hi in pieces]
        index = {ref: k for k, ref in enumerate(refs)}
        out: list = [None] * len(refs)
        pending = list(refs)
        with tqdm(total=games, unit="game", disable=not progress, desc="simulate on ray") as bar:
            while pending:
                ready, pending = ray.wait(pending, num_returns=1)
                ref = ready[0]
                try:
                    out[index[ref]] = ray.get(ref)
                except ray.exceptions.RayError as exc:
                    raise RayError(f"a simulation task failed: {exc}") from exc
                bar.update(len(out[index[ref]]["end"]))
        return out, time.perf_counter() - t0


def simulate(
    variant: str = "argentine",
    num_players: int | None = None,
    games: int = 10_000,
    seed: int = 0,
    ray: bool = False,
    ray_address: str | None = None,
    chunk: int = RAY_CHUNK_GAMES,
    workers: int | None = None,
    progress: bool = False,
    **overrides,
) -> SimulationSummary:
    """Play ``games`` hands of uniformly random legal play, all inside numba.

    ``ray=True`` splits them into Ray tasks of ``chunk`` games (the cluster at
    ``ray_address``, else ``RAY_ADDRESS``, else a local Ray instance of ``workers`` CPUs,
    default all); the summary is the
    local run's, bit for bit, but for ``seconds``: the kernel's locally (its compile left
    out, in ``compile_seconds``), the whole run's on Ray (tasks and transfers, from the
    first task sent; the connection left out; the tasks' compiles inside it).
    ``progress``: a bar of games done. Locally the games run in batches of
    ``SIMULATE_BATCH_GAMES`` (burako_env.limits), so memory stays bounded whatever
    ``games``; each game is seeded by (seed, its index) alone, so the batches play the
    games one batch of all of them would.
    """
    games = check_whole("games", games, 1, MAX_SIMULATE_GAMES, ValueError)
    chunk = check_whole("chunk", chunk, 1, MAX_SIMULATE_GAMES, ValueError)
    seed = check_whole("seed", seed, 0, MAX_SEED, ValueError)
    v = load_variant(variant, num_players=num_players, **overrides)
    totals = dict.fromkeys(_TOTALS, 0)
    compiled = on_ray = 0.0
    if ray:
        parts, dt = _on_ray(v, seed, games, chunk, ray_address, workers, progress)
        for part in parts:
            _add_totals(totals, part)
            on_ray += float(part["compile_seconds"][0])  # inside dt, overlapping
    else:  # batches of SIMULATE_BATCH_GAMES: memory bounded, the same games (module doc)
        dt = 0.0
        for lo, hi in slices(games, SIMULATE_BATCH_GAMES):
            part = _play_games(v, seed, lo, hi - lo)
            _add_totals(totals, part)
            dt += float(part["seconds"][0])  # the kernel alone, its compile left out
            compiled += float(part["compile_seconds"][0])
    return SimulationSummary(
        variant=v.name,
        players=v.num_players,
        games=games,
        seconds=dt,
        went_out=totals["went_out"],
        stock_end=totals["stock_end"],
        max_turns=totals["max_turns"],
        # exact integer sums over the games: the same means as numpy's over one batch
        mean_scores=(totals["score0"] / games, totals["score1"] / games),
        canastas_per_hand=totals["canastas"] / games,
        mean_turns=totals["turns"] / games,
        mean_steps=totals["steps"] / games,
        compile_seconds=compiled,
        ray_compile_seconds=on_ray,
    )


_TOTALS = ("went_out", "stock_end", "max_turns", "score0", "score1", "canastas", "turns", "steps")


def _add_totals(totals: dict[str, int], part: dict[str, np.ndarray]) -> None:
    """Add a batch's per-game outcomes to the run's integer totals."""
    end = part["end"]
    totals["went_out"] += int((end == END_WENT_OUT).sum())
    totals["stock_end"] += int((end == END_STOCK).sum())
    totals["max_turns"] += int((end == END_MAX_TURNS).sum())
    totals["score0"] += int(part["scores"][:, 0].sum())
    totals["score1"] += int(part["scores"][:, 1].sum())
    for key in ("canastas", "turns", "steps"):
        totals[key] += int(part[key].sum())


__all__ = [
    "AGENT_SEED_OFFSET",
    "RAY_CHUNK_GAMES",
    "SimulationSummary",
    "simulate",
    "simulate_games_task",
]
