"""Compile ahead of time: ``burako warmup`` and the notice a cold command prints.

numba compiles the kernels on their first call and keeps them in its on-disk cache
(``burako_env.core.nb``). A first run on a machine, and the first run after an edit of
the core, pays that compile (a minute or more on 2 cores, docs/BENCHMARKS.md): the commands say so
on stderr before they start (:func:`announce_compile`) instead of sitting at 0%, and
``burako warmup`` compiles every family of kernels up front, one small job each.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from burako_env.core.nb import cold_kernels

#: the measured cold compile of the main job on the 2-core development machine
#: (docs/BENCHMARKS.md, `burako bench --compile`), quoted by the notice
COLD_COMPILE_HINT = "about 30 seconds of CPU"


def _core_kernels() -> tuple:
    from burako_env.core import kernels

    return (
        kernels.batch_kernel,
        kernels.game_kernel,
        kernels.mask_kernel,
        kernels.observe_kernel,
    )


def _explain_kernels() -> tuple:
    from burako_env.core import kernels

    return (kernels.error_kernel,)


def _tournament_kernels() -> tuple:
    from burako_env.agents import tournament

    return (tournament.play_kernel,)


def _sweep_kernels() -> tuple:
    from burako_env.core import sweep

    return (sweep.sweep_kernel,)


def _pimc_kernels() -> tuple:
    from burako_env.agents import pimc

    return (pimc.search_kernel,)


def _simulate_kernels() -> tuple:
    from burako_env.core import kernels

    return (kernels.random_playout_kernel,)


#: the kernels each command is about to call (those the notice checks)
COMMAND_KERNELS: dict[str, tuple[Callable[[], tuple], ...]] = {
    "tournament": (_tournament_kernels, _core_kernels),
    "simulate": (_simulate_kernels,),
    "sweep": (_sweep_kernels,),
    "play": (_core_kernels,),
    "serve": (_core_kernels,),
    "replay": (_core_kernels,),
    "train": (_core_kernels, _tournament_kernels),
}


def announce_compile(command: str, echo: Callable[[str], None]) -> list[str]:
    """Tell the user (through ``echo``) that ``command``'s kernels are about to compile;
    returns the cold kernels' names (empty: all cached, nothing said)."""
    cold: list[str] = []
    for group in COMMAND_KERNELS.get(command, ()):
        cold += cold_kernels(*group())
    if cold:
        echo(
            f"compiling the game's kernels for this machine ({len(cold)} to build: a first "
            f"run, or the first after an edit of the core; {COLD_COMPILE_HINT} on 2 cores, "
            "then cached). `burako warmup` compiles them all ahead."
        )
    return cold


# ---------------------------------------------------------------- warmup jobs
def _job_core() -> None:
    import numpy as np

    from burako_env.core.game import Game

    game = Game("argentine", num_players=4, batch_size=2, seed=0)
    game.observe()
    game.legal_action_mask()
    game.step(np.array([int(game.legal_actions(b)[0]) for b in range(2)]))
    game.step_one(int(game.legal_actions(0)[0]))
    game.observe_one(0)
    game.reset(seed=1)


def _job_explain() -> None:
    from burako_env.core.constants import ERR_OK
    from burako_env.core.game import Game

    game = Game("argentine", num_players=4, seed=0)
    assert game.action_error(int(game.legal_actions(0)[0])) == ERR_OK


def job_env() -> None:
    """The PettingZoo env: a reset and 50 random legal steps (also bench's compile job)."""
    import numpy as np

    from burako_env import burako_v1

    env = burako_v1.env()
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    for _ in env.agent_iter(50):
        obs, _, term, trunc, _ = env.last()
        env.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))


def _job_simulate() -> None:
    from burako_env.frontends.simulate import simulate

    simulate("argentine", num_players=4, games=2, seed=0)


def _job_tournament() -> None:
    from burako_env.agents.tournament import run_tournament

    run_tournament(
        ["random", "greedy", "discard_table"],
        "argentine",
        num_players=4,
        hands_per_pairing=2,
        seed=0,
        workers=1,
        progress=False,
    )


def _job_sweep() -> None:
    from burako_env.frontends.sweep import sweep

    sweep("argentine", hands=2, players=4, seed=0, batch=2)


def _job_pimc() -> None:
    from burako_env.agents import make_agent
    from burako_env.core.game import Game

    make_agent("pimc:k=2,budget_ms=0", seed=0).act_game(Game("argentine", num_players=4, seed=0))


#: (name, the kernels it compiles, the job): ``burako warmup`` runs them in this order
WARMUP_JOBS: tuple[tuple[str, Callable[[], tuple], Callable[[], None]], ...] = (
    ("core (Game, the environments)", _core_kernels, _job_core),
    ("PettingZoo env", _core_kernels, job_env),
    ("the reason of a refused action", _explain_kernels, _job_explain),
    ("random playouts (simulate, bench)", _simulate_kernels, _job_simulate),
    ("heuristic tournament", _tournament_kernels, _job_tournament),
    ("reliability sweep", _sweep_kernels, _job_sweep),
    ("pimc search", _pimc_kernels, _job_pimc),
)


@dataclass
class WarmupStep:
    name: str
    compiled: int  # kernels that were cold before the job
    seconds: float
    cpu_seconds: float


def warmup(echo: Callable[[str], None] | None = None) -> list[WarmupStep]:
    """Compile (or load) every family of kernels, one small job each; ``echo`` hears a
    line per job. The next command of any kind starts without compiling."""
    steps = []
    for name, kernels_of, job in WARMUP_JOBS:
        cold = len(cold_kernels(*kernels_of()))
        if echo and cold:  # a compile takes a minute or more: say so before it starts
            echo(f"{name}: compiling {cold} kernels ...")
        t0, c0 = time.perf_counter(), time.process_time()
        job()
        step = WarmupStep(name, cold, time.perf_counter() - t0, time.process_time() - c0)
        steps.append(step)
        if echo:
            how = f"compiled {cold} kernels" if cold else "loaded from the cache"
            echo(f"{name}: {how} in {step.seconds:.1f} s (CPU {step.cpu_seconds:.1f} s)")
    return steps


__all__ = ["COMMAND_KERNELS", "WARMUP_JOBS", "WarmupStep", "announce_compile", "warmup"]
