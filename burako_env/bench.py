"""Benchmarks of the core: uniformly random legal play run entirely inside numba.

Used by ``scripts/bench_core.py`` and ``burako bench``; figures go to docs/BENCHMARKS.md.
"""

from __future__ import annotations

import os
import platform
import subprocess
import sys
import tempfile
import time

import numba
import numpy as np

from burako_env.core import kernels
from burako_env.core.game import Game, game_seeds


def machine() -> str:
    return f"{platform.machine()}, {os.cpu_count()} cores, {platform.python_implementation()} " \
           f"{platform.python_version()}, numba {numba.__version__}"


def bench_core(
    variant: str = "argentine",
    num_players: int | None = None,
    batch_size: int = 1024,
    threads: int = 2,
    min_games: int = 2000,
    seed: int = 0,
) -> dict:
    """Random playouts of whole hands in one compiled kernel: games/s and steps/s."""
    numba.set_num_threads(max(1, min(threads, numba.config.NUMBA_NUM_THREADS)))
    game = Game(variant, num_players, batch_size=batch_size, seed=seed)
    agent_rng = game_seeds(seed + 1, batch_size)
    stats = np.zeros((batch_size, 4), np.int64)
    kernels.random_playout_kernel(game.state, game.params, agent_rng, 0, 1, 100_000, stats)
    episodes = max(1, -(-min_games // batch_size))
    t0 = time.perf_counter()
    kernels.random_playout_kernel(game.state, game.params, agent_rng, 0, episodes, 100_000, stats)
    dt = time.perf_counter() - t0
    games = int(stats[:, 0].sum())
    steps = int(stats[:, 1].sum())
    return {
        "variant": game.variant.name,
        "players": game.num_players,
        "batch": batch_size,
        "threads": numba.get_num_threads(),
        "games": games,
        "seconds": dt,
        "games_per_s": games / dt,
        "steps_per_s": steps / dt,
        "steps_per_game": steps / games,
    }


def compile_seconds() -> float:
    """Seconds to import the core and compile every kernel a random playout needs, from an
    empty numba cache (a fresh process with its own cache folder)."""
    code = (
        "import time; t=time.perf_counter();"
        "from burako_env.bench import bench_core;"
        "bench_core(batch_size=2, min_games=2, threads=1);"
        "print(time.perf_counter()-t)"
    )
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache)
        out = subprocess.run([sys.executable, "-c", code], env=env, check=True,
                             capture_output=True, text=True)
    return float(out.stdout.strip().splitlines()[-1])


def core_table(variant="argentine", num_players=None, batches=(1, 64, 1024), threads=(1, 2),
               min_games=2000) -> list[dict]:
    rows = []
    for t in threads:
        for b in batches:
            rows.append(bench_core(variant, num_players, b, t, min_games=min_games))
    return rows


def format_rows(rows: list[dict]) -> str:
    lines = ["| variant | players | batch | threads | games/s | steps/s | steps/game |",
             "|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(
            f"| {r['variant']} | {r['players']} | {r['batch']} | {r['threads']} | "
            f"{r['games_per_s']:,.0f} | {r['steps_per_s']:,.0f} | {r['steps_per_game']:.1f} |"
        )
    return "\n".join(lines)
