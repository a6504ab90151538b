"""Compile ahead of time: ``burako warmup`` and the notice a cold command prints.

numba compiles the kernels on their first call and keeps them in its on-disk cache
(``burako_env.jit.cache``). A first run on a machine, and the first run after an edit of
the core, pays that compile (a minute or more on 2 cores, docs/BENCHMARKS.md): the commands say so
on stderr before they start (:func:`announce_compile`) instead of sitting at 0%, and
``burako warmup`` compiles every family of kernels up front, one small job each. A
kernel is compiled for the types of its arguments, and a game's state is a record of
arrays sized by its players and decks: each table size compiles on its own, so the web
table's job (:func:`job_web_table`) deals every size the page offers (2, 4, 6 and 8
players), with the bots of each level, and asks a hint.

The notice is said exactly when something compiles, once per process. Before a command
starts, :func:`announce_compile` looks up the kernels it is sure to call from Python
(:data:`COMMAND_KERNELS`, and what the command adds for its arguments: its agents' own
kernels, the kernel that deals a batch of its size) in numba's cache; a warm run says
nothing. Any compile it did not foresee (a kernel that only some arguments reach, a new
player count's types for a cached kernel) is said as it starts by
``burako_env.jit.notices``' watch of numba's compile events, as for the Python API.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from burako_env.jit import COLD_COMPILE_HINT, cold_kernels, say_compile_notice


def _core_kernels() -> tuple:
    from burako_env.core import kernels

    return (
        kernels.batch_kernel,
        kernels.game_kernel,
        kernels.mask_kernel,
        kernels.observe_kernel,
    )


def _one_game_kernels() -> tuple:
    """A :class:`~burako_env.core.game.Game` of one game: dealt, stepped and observed by
    the one-game kernel (``Game._one``)."""
    from burako_env.core import kernels

    return (kernels.game_kernel,)


def _vector_env_kernels() -> tuple:
    """What a ``VectorEnv`` calls when it is made (besides the deal: :func:`deal_kernels`
    of its size): the first observations and masks."""
    from burako_env.core import kernels

    return (kernels.observe_kernel, kernels.mask_kernel)


def deal_kernels(batch_size: int) -> tuple:
    """The kernel that deals a new ``Game`` of ``batch_size`` games (``Game.reset``)."""
    from burako_env.core import kernels

    return (kernels.game_kernel,) if batch_size == 1 else (kernels.batch_kernel,)


def _explain_kernels() -> tuple:
    from burako_env.core import kernels

    return (kernels.error_kernel,)


def _tournament_kernels() -> tuple:
    from burako_env.table import kernel

    return (kernel.play_kernel,)


def _sweep_kernels() -> tuple:
    from burako_env.core import sweep

    return (sweep.sweep_kernel,)


def _pimc_kernels() -> tuple:
    from burako_env.agents import pimc

    return (pimc.search_kernel,)


def _network_kernels() -> tuple:
    from burako_env.agents import network_kernels as nk

    return (
        nk.count_meld_rows,
        nk.featurize,
        nk.card_pool_forward,
        nk.card_pool_backward,
        nk.env_lists_kernel,
    )


def _policy_network_kernels() -> tuple:
    """The network's kernels (:func:`_network_kernels`) and the legal lists an agent's
    ``act`` builds from the masks (``burako play``, the web table, distill's teacher):
    ``burako warmup``'s network job compiles both."""
    from burako_env.agents.policies import legal_lists_kernel

    return (*_network_kernels(), legal_lists_kernel)


def _table_view_kernels() -> tuple:
    """The points on the table so far (the web table's view, ``burako play``'s status
    line)."""
    from burako_env.frontends.web.table import _running_score_kernel

    return (_running_score_kernel,)


def _web_table_kernels() -> tuple:
    """What the web table calls for a game (and ``burako play`` with its hint): the deal
    and the moves, the legal moves, the points on the table, Expert's search (the hint)."""
    from burako_env.core import kernels

    return (
        kernels.game_kernel,
        kernels.mask_kernel,
        *_table_view_kernels(),
        *_pimc_kernels(),
    )


def _simulate_kernels() -> tuple:
    from burako_env.core import kernels

    return (kernels.random_playout_kernel,)


#: the kernels each command is sure to call from Python, whatever its arguments: the
#: notice checks them before it starts (a cold one: the notice; all cached: nothing
#: said). Measured by running each command on an empty cache and listing the kernels
#: numba compiled (tests/frontends/test_compile_notice.py runs the main ones cold and warm). Those
#: that only some arguments reach are added by the command (``kernels=`` of
#: :func:`announce_compile`); any other compiles under the notice said before, or says
#: it as it starts when all these were cached. ``burako serve`` compiles nothing until a
#: browser starts a game: its notice comes then, in its log.
COMMAND_KERNELS: dict[str, tuple[Callable[[], tuple], ...]] = {
    # the heuristic agents decide inside play_kernel; a Python or search agent's own
    # kernels come from Agent.kernels()
    "tournament": (_tournament_kernels,),
    # plus the kernel that deals a batch (deal_kernels)
    "simulate": (_simulate_kernels,),
    "sweep": (_sweep_kernels,),
    # the bots' own kernels are not foreseen (the check of each bot, its act)
    "play": (_one_game_kernels, _table_view_kernels),
    "replay": (_one_game_kernels,),
    # the teacher plays one game at a time; its own kernels come from Agent.kernels()
    "distill": (_one_game_kernels,),
    # the trainer's VectorEnv, made first, and the network's inputs and card encoder (not
    # foreseen: the league's heuristics, the evaluation's tournament kernel, the
    # trainer's own)
    "train": (_vector_env_kernels, _network_kernels),
}


def announce_compile(
    command: str, echo: Callable[[str], None], kernels: Iterable = ()
) -> list[str]:
    """Tell the user (through ``echo``) that ``command``'s kernels are about to compile:
    those of :data:`COMMAND_KERNELS` and ``kernels`` (what this run of the command calls
    besides, for its arguments). Returns the cold kernels' names (empty: all cached,
    nothing said). A compile that comes later in this process, unforeseen, is not said
    again (``burako_env.jit.notices.say_compile_notice``)."""
    cold: list[str] = []
    for group in COMMAND_KERNELS.get(command, ()):
        cold += cold_kernels(*group())
    cold += cold_kernels(*kernels)
    cold = list(dict.fromkeys(cold))
    if cold:
        say_compile_notice(echo, once=False)
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


def _job_network() -> None:
    try:
        import torch
    except ImportError:  # the network is the train extra's: without torch it never runs
        return
    import numpy as np

    from burako_env.agents.network import BurakoNet, legal_lists, padded
    from burako_env.agents.network_kernels import env_legal_lists
    from burako_env.envs.vector import VectorEnv

    env = VectorEnv("argentine", 4, num_envs=2, seed=0)
    obs, mask, info = env.reset()
    net = BurakoNet(4, env.variant.total_cards, 16, 16, 8, True, None, card_context=True)
    legal_lists(mask)  # an agent's act (burako play, the web table): lists from the masks
    legal, valid = padded(*env_legal_lists(info["legal"], info["num_legal"], np.arange(2)))
    logits, value = net(torch.from_numpy(obs), legal, valid)
    (logits.clamp(min=-50).sum() + value.sum()).backward()


def _job_sweep() -> None:
    from burako_env.frontends.sweep import sweep

    sweep("argentine", hands=2, players=4, seed=0, batch=2)


def _job_pimc() -> None:
    from burako_env.agents import make_agent
    from burako_env.core.game import Game

    make_agent("pimc:k=2,budget_ms=0", seed=0).act_game(Game("argentine", num_players=4, seed=0))


def web_table_sizes() -> list[tuple[str, int]]:
    """Every (variant, players) the web table's set-up form offers."""
    from burako_env.frontends.web.sessions import variant_choices

    return [(v["name"], int(n)) for v in variant_choices() for n in v["players"]]


def _layout(game) -> tuple:
    """What the kernels are compiled for: the types of a game's state and rules. The
    state's fields are arrays sized by the players and the decks (``hands`` is [players,
    cards]), so each table size is a type of its own, compiled once for each."""
    import numba

    return (numba.typeof(game.state), numba.typeof(game.params))


def job_web_table(sizes: list[tuple[str, int]] | None = None) -> None:
    """Every table size the web table offers (``sizes``: :func:`web_table_sizes`), as a
    game there calls the kernels: a deal with each level's bots, their moves up to the
    person's turn, the view and Expert's hint. The kernels are compiled per size (see
    :func:`_layout`): a table of a size warmup never dealt compiled on its first deal
    (about a minute on 2 cores) and again on its first hint. Sizes of the same types
    run once."""
    from burako_env.core.actions import decode_action
    from burako_env.frontends.web.sessions import PlaySession, level_choices, variant_choices

    offered = {v["name"]: v["levels"] for v in variant_choices()}
    known = {lv["id"] for lv in level_choices()}
    done: set = set()
    for variant, players in sizes if sizes is not None else web_table_sizes():
        for level in offered[variant][str(players)]:
            if level not in known:
                continue
            options = {"variant": variant, "players": players, "seat": 0, "seed": 1}
            session = PlaySession.new({**options, "bots": level})
            key = (_layout(session.game), level)
            if key in done:
                continue
            done.add(key)
            while session.to_act == session.seat:  # the person's turn, then the bots'
                legal = [int(a) for a in session.game.legal_actions()]
                discards = [a for a in legal if decode_action(a).kind == "discard"]
                session.move({"action": (discards or legal)[0]})
            while session.to_act != session.seat and not session.game.is_over():
                session.bot_move()
            session.view()
            if not session.game.is_over():
                session.ask_hint()


#: (name, the kernels it compiles, the job): ``burako warmup`` runs them in this order
WARMUP_JOBS: tuple[tuple[str, Callable[[], tuple], Callable[[], None]], ...] = (
    ("core (Game, the environments)", _core_kernels, _job_core),
    ("PettingZoo env", _core_kernels, job_env),
    ("the reason of a refused action", _explain_kernels, _job_explain),
    ("random playouts (simulate, bench)", _simulate_kernels, _job_simulate),
    ("heuristic tournament", _tournament_kernels, _job_tournament),
    ("reliability sweep", _sweep_kernels, _job_sweep),
    ("pimc search", _pimc_kernels, _job_pimc),
    ("policy network (ppo, train)", _policy_network_kernels, _job_network),
    ("web table and burako play, every table size", _web_table_kernels, job_web_table),
)


@dataclass
class WarmupStep:
    """A ``burako warmup`` job's outcome: its name, the kernels it compiled and its time."""

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


__all__ = [
    "COLD_COMPILE_HINT",
    "COMMAND_KERNELS",
    "WARMUP_JOBS",
    "WarmupStep",
    "announce_compile",
    "deal_kernels",
    "job_web_table",
    "warmup",
    "web_table_sizes",
]
