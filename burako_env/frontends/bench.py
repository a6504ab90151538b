"""Benchmarks: the core (uniformly random legal play run entirely inside numba), the
environment adapters (the PettingZoo AEC env and the batched VectorEnv) and PPO training.

Used by ``scripts/bench/bench_core.py``, ``scripts/bench/bench_envs.py``,
``scripts/bench/bench_training.py`` and ``burako bench``; figures go to docs/BENCHMARKS.md.

* :func:`bench_core`: random playouts of whole hands in one compiled kernel.
* :func:`bench_aec`: uniformly random legal play through ``burako_v1.env()`` (all of
  PettingZoo's wrappers), reading the observation and the mask at every step, as a
  PettingZoo training loop does. Goal: 30,000 steps/s.
* :func:`bench_vector`: ``VectorEnv`` with the actions chosen in Python from what each
  step returns. ``picker="legal"`` draws from the legal-id lists in ``info`` (a gather),
  ``picker="mask"`` from the boolean masks themselves (every True of a [B, 2541] mask
  found by numpy). Goal: 300,000 steps/s at B = 1024.
* :func:`bench_train`: PPO training iterations of any training config (the train extra):
  env steps/s of the rollout, of the update and of the whole iteration, and the share of
  the iteration spent in the game engine (the env and the heuristic opponents).
* :func:`bench_gym_vector`: the Gymnasium vector API
  (``gymnasium.make_vec("burako_env:Burako-v1", vectorization_mode="vector_entry_point")``,
  :mod:`burako_env.gym.vector`), the learner's actions drawn from
  ``info["action_mask"]`` as ``picker="mask"`` draws them, the opponents compiled.
* :func:`bench_gym_async`: Gymnasium's ``AsyncVectorEnv`` of the single env, one process
  per game, the masks fetched with ``call("action_masks")``: the way to many games
  without the vector entry point.

A VectorEnv step is one decision of every game, whoever is to act; a Gymnasium step is
one decision of the learner's, the opponents' decisions until its next one included.
Their ``steps_per_s`` count different things: ``episodes_per_s`` compares them (random
play on every seat in both: hands of the same length).

Every function returns a dict (figures and settings); the numba kernels are compiled (or
loaded from the cache) before the clock starts. ``steps_per_cpu_s`` divides by the
process's CPU time (all its threads): on a shared machine it moves less than wall-clock
steps/s.

Threads: numba's default ``omp`` threading layer spins while it waits; when another
process keeps a core busy, a 2-thread ``VectorEnv`` on 2 cores can run several times
slower than 1 thread. ``OMP_WAIT_POLICY=passive`` (or ``NUMBA_THREADING_LAYER=workqueue``)
set before the first parallel kernel avoids it.
"""

from __future__ import annotations

import os
import platform
import random
import subprocess
import sys
import tempfile
import threading
import time

import numba
import numpy as np

from burako_env.core import kernels
from burako_env.core.game import Game, game_seeds


def machine() -> str:
    """The machine in one line: architecture, cores, Python and numba versions."""
    return (
        f"{platform.machine()}, {os.cpu_count()} cores, {platform.python_implementation()} "
        f"{platform.python_version()}, numba {numba.__version__}"
    )


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
    kernels.random_playout(game.state, game.params, agent_rng, 0, 1, 100_000, stats)
    episodes = max(1, -(-min_games // batch_size))
    t0 = time.perf_counter()
    kernels.random_playout(game.state, game.params, agent_rng, 0, episodes, 100_000, stats)
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


#: what ``burako bench --compile`` compiles from an empty cache, each in a fresh process:
#: the README's main job (the default tournament, two hands), the same without the
#: shipped ppo (the heuristic agents alone: no torch), the PettingZoo env (reset and
#: random legal steps, warmup's own job), and the core's random playout
COMPILE_JOBS = {
    "main job": (
        "from burako_env.frontends.cli import main; import sys;"
        "sys.argv = ['burako', 'tournament', '--hands', '2', '--workers', '1', "
        "'--no-progress']; main()"
    ),
    "heuristic tournament": (
        "from burako_env.frontends.cli import main; import sys;"
        "sys.argv = ['burako', 'tournament', 'random', 'greedy', 'discard_table', "
        "'--hands', '2', '--workers', '1', '--no-progress']; main()"
    ),
    "env": "from burako_env.frontends.warmup import job_env; job_env()",
    "core": (
        "from burako_env.frontends.bench import bench_core;"
        "bench_core(batch_size=2, min_games=2, threads=1)"
    ),
}


def cold_compile(job: str) -> dict:
    """Wall and CPU seconds of ``COMPILE_JOBS[job]`` in a fresh process with an empty numba
    cache of its own (its imports included: the figure is what a first run pays)."""
    import resource

    code = COMPILE_JOBS[job]
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache, NUMBA_NUM_THREADS="1")
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
        wall = time.perf_counter() - t0
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if out.returncode != 0:
        raise RuntimeError(f"the {job!r} compile job failed: {out.stderr.strip()[-2000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return {"job": job, "wall_s": wall, "cpu_s": cpu}


def compile_seconds() -> float:
    """Wall seconds to import the core and compile every kernel a random playout needs,
    from an empty numba cache (a fresh process with its own cache folder)."""
    return cold_compile("core")["wall_s"]


def format_compile_rows(rows: list[dict]) -> str:
    """The cold-compile rows as a Markdown table (CPU and wall seconds per job)."""
    lines = ["| cold compile of | CPU s | wall s |", "|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['job']} | {r['cpu_s']:.1f} | {r['wall_s']:.1f} |")
    return "\n".join(lines)


def core_table(
    variant="argentine", num_players=None, batches=(1, 64, 1024), threads=(1, 2), min_games=2000
) -> list[dict]:
    """:func:`bench_core` at every batch size and thread count: one row each."""
    rows = []
    for t in threads:
        for b in batches:
            rows.append(bench_core(variant, num_players, b, t, min_games=min_games))
    return rows


def format_rows(rows: list[dict]) -> str:
    """The core benchmark's rows as a Markdown table."""
    lines = [
        "| variant | players | batch | threads | games/s | steps/s | steps/game |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(
            f"| {r['variant']} | {r['players']} | {r['batch']} | {r['threads']} | "
            f"{r['games_per_s']:,.0f} | {r['steps_per_s']:,.0f} | {r['steps_per_game']:.1f} |"
        )
    return "\n".join(lines)


# ---------------------------------------------------------------- environments
def _threads(threads: int | None) -> int:
    if threads is not None:
        numba.set_num_threads(max(1, min(int(threads), numba.config.NUMBA_NUM_THREADS)))
    return numba.get_num_threads()


def bench_aec(
    seconds: float = 3.0,
    variant: str = "argentine",
    num_players: int | None = None,
    seed: int = 0,
    wrapped: bool = True,
) -> dict:
    """Random legal play through the AEC env for about ``seconds``: steps/s.

    Each step calls ``last()`` (observation and mask), reads both arrays, draws an action
    from ``legal_actions()`` and calls ``step``; an episode's end runs the dead steps and
    a reset, all counted in the time. ``wrapped=False`` measures ``raw_env`` alone.
    """
    from burako_env.envs.aec import env as make_env
    from burako_env.envs.aec import raw_env

    e = (
        make_env(variant=variant, num_players=num_players)
        if wrapped
        else raw_env(variant=variant, num_players=num_players)
    )
    raw = e.unwrapped
    legal_actions = raw.legal_actions
    rng = random.Random(seed)
    randrange = rng.randrange
    e.reset(seed=seed)  # compiles (or loads) the kernels: reset, observe, step
    e.last()
    e.step(int(legal_actions()[0]))
    e.reset(seed=seed)
    steps = episodes = 0
    checksum = 0
    c0 = time.process_time()
    t0 = time.perf_counter()
    deadline = t0 + seconds
    while True:
        for _agent in e.agent_iter():
            obs, _reward, term, trunc, _info = e.last()
            if term or trunc:
                e.step(None)
                continue
            mask = obs["action_mask"]
            observation = obs["observation"]
            legal = legal_actions()
            a = int(legal[randrange(len(legal))])
            checksum += int(mask[a]) + int(observation[0])  # read both, as a learner would
            e.step(a)
            steps += 1
        episodes += 1
        if time.perf_counter() >= deadline:
            break
        e.reset()
    dt = time.perf_counter() - t0
    cpu = time.process_time() - c0
    return {
        "api": "aec" if wrapped else "aec-raw",
        "variant": raw.variant.name,
        "players": raw.num_players,
        "batch": 1,
        "threads": 1,
        "seconds": dt,
        "steps": steps,
        "episodes": episodes,
        "steps_per_s": steps / dt,
        "episodes_per_s": episodes / dt,
        "cpu_seconds": cpu,
        "steps_per_cpu_s": steps / cpu,
        "checksum": int(checksum),
    }


def pick_from_mask(mask: np.ndarray, u: np.ndarray, counts: np.ndarray | None = None):
    """One uniformly random True per row of a bool [B, A] mask (``u`` uniform in [0, 1)),
    with numpy alone: the flat indices of every True, then one per row."""
    b, a = mask.shape
    if counts is None:
        counts = np.count_nonzero(mask, axis=1)
    flat = np.flatnonzero(mask)
    starts = np.cumsum(counts) - counts
    chosen = flat[starts + (u * counts).astype(np.int64)]
    return chosen - np.arange(b) * a


def bench_vector(
    num_envs: int = 1024,
    seconds: float = 3.0,
    variant: str = "argentine",
    num_players: int | None = None,
    threads: int | None = None,
    picker: str = "legal",
    seed: int = 0,
) -> dict:
    """``VectorEnv`` stepped for about ``seconds`` with uniformly random legal actions
    chosen in Python from each step's return (``picker``: "legal" or "mask")."""
    from burako_env.envs.vector import VectorEnv

    if picker not in ("legal", "mask"):
        raise ValueError(f"picker must be 'legal' or 'mask', got {picker!r}")
    nthreads = _threads(threads)
    env = VectorEnv(variant, num_players, num_envs=num_envs, seed=seed)
    rng = np.random.default_rng(seed)
    rows = np.arange(num_envs)
    obs, mask, info = env.reset()

    def choose(mask, info):
        u = rng.random(num_envs)
        if picker == "mask":
            return pick_from_mask(mask, u)
        n = info["num_legal"]
        return info["legal"][rows, (u * n).astype(np.int64)]

    for _ in range(3):  # compile or load the kernels
        obs, mask, info = env.step(choose(mask, info))
    calls = episodes = 0
    c0 = time.process_time()
    t0 = time.perf_counter()
    deadline = t0 + seconds
    while time.perf_counter() < deadline:
        for _ in range(10):
            obs, mask, info = env.step(choose(mask, info))
            episodes += int(np.count_nonzero(info["ended"]))
        calls += 10
    dt = time.perf_counter() - t0
    cpu = time.process_time() - c0
    steps = calls * num_envs
    return {
        "api": "vector",
        "picker": picker,
        "variant": env.variant.name,
        "players": env.num_players,
        "batch": num_envs,
        "threads": nthreads,
        **_step_rates(steps, calls, episodes, dt, cpu),
    }


def _step_rates(steps: int, calls: int, episodes: int, seconds: float, cpu: float) -> dict:
    """The counts of a stepping benchmark and their rates per wall and per CPU second."""
    return {
        "seconds": seconds,
        "steps": steps,
        "calls": calls,
        "episodes": episodes,
        "steps_per_s": steps / seconds,
        "calls_per_s": calls / seconds,
        "episodes_per_s": episodes / seconds,
        "cpu_seconds": cpu,
        "steps_per_cpu_s": steps / cpu,
    }


def _learner_steps(api: str, envs, num_envs: int, seconds: float, seed: int, masks) -> dict:
    """Step ``envs`` (a Gymnasium vector env) with uniformly random legal learner actions
    for about ``seconds``; ``masks(info)`` gives the [N, A] masks of the last return. A
    row with no legal action is a game that a NEXT_STEP env resets at this step (the
    action is ignored): it is not counted as a step."""
    rng = np.random.default_rng(seed)

    def choose(info):
        mask = masks(info)
        idle = ~mask.any(axis=1)
        if idle.any():
            mask = mask.copy()
            mask[idle, 0] = True
        return pick_from_mask(mask, rng.random(num_envs)), int(np.count_nonzero(idle))

    _, info = envs.reset(seed=seed)
    for _ in range(3):  # compile or load the kernels
        _, _, _, _, info = envs.step(choose(info)[0])
    calls = episodes = idle = 0
    c0 = time.process_time()
    t0 = time.perf_counter()
    deadline = t0 + seconds
    while time.perf_counter() < deadline:
        for _ in range(10):
            actions, resets = choose(info)
            _, _, terminated, _, info = envs.step(actions)
            episodes += int(np.count_nonzero(terminated))
            idle += resets
        calls += 10
    dt = time.perf_counter() - t0
    cpu = time.process_time() - c0
    steps = calls * num_envs - idle
    return {
        "api": api,
        "picker": "mask",
        **_step_rates(steps, calls, episodes, dt, cpu),
    }


def bench_gym_vector(
    num_envs: int = 1024,
    seconds: float = 3.0,
    variant: str = "argentine",
    num_players: int | None = None,
    threads: int | None = None,
    opponents: str = "random",
    seed: int = 0,
    copy: bool = True,
) -> dict:
    """The Gymnasium vector API (``make_vec``, vector entry point) for about ``seconds``:
    learner steps/s and episodes/s, ``opponents`` compiled (a name). ``copy=False``: the
    env hands out its own buffers, as VectorEnv does (no copy of the observations and
    masks at each step)."""
    import gymnasium

    import burako_env  # noqa: F401 - registers Burako-v1

    nthreads = _threads(threads)
    envs = gymnasium.make_vec(
        "Burako-v1",
        num_envs=num_envs,
        vectorization_mode="vector_entry_point",
        variant=variant,
        num_players=num_players,
        opponents=opponents,
        copy=copy,
    )
    api = "gym-vector" if copy else "gym-vector copy=False"
    row = _learner_steps(api, envs, num_envs, seconds, seed, lambda i: i["action_mask"])
    row.update(
        variant=envs.unwrapped.variant.name,
        players=envs.unwrapped.num_players,
        batch=num_envs,
        threads=nthreads,
    )
    envs.close()
    return row


def bench_gym_async(
    num_envs: int = 2,
    seconds: float = 3.0,
    variant: str = "argentine",
    num_players: int | None = None,
    opponents: str = "random",
    seed: int = 0,
) -> dict:
    """Gymnasium's ``AsyncVectorEnv`` of ``num_envs`` single envs (one process each,
    forked; each steps its game with the core's one-game kernel, on its own thread) for
    about ``seconds``: learner steps/s and episodes/s, the masks fetched by
    ``call("action_masks")`` before every step (NEXT_STEP autoreset: a game's reset step
    is not counted). ``cpu_seconds`` is the parent's alone."""
    import gymnasium

    from burako_env.gym.single import BurakoGymEnv

    def make():
        return BurakoGymEnv(variant, num_players, opponents=opponents)

    envs = gymnasium.vector.AsyncVectorEnv([make] * num_envs, context="fork")
    try:
        row = _learner_steps(
            "gym-async",
            envs,
            num_envs,
            seconds,
            seed,
            lambda _info: np.stack(envs.call("action_masks")),
        )
        single = make()
        row.update(
            variant=single.variant.name,
            players=single.num_players,
            batch=num_envs,
            threads=1,
        )
    finally:
        envs.close()
    return row


def format_env_rows(rows: list[dict]) -> str:
    """The environment benchmark's rows as a Markdown table."""
    lines = [
        "| api | variant | players | batch | threads | picker | steps/s | episodes/s "
        "| steps/CPU-s |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(
            f"| {r['api']} | {r['variant']} | {r['players']} | {r['batch']} | {r['threads']} "
            f"| {r.get('picker', '-')} | {r['steps_per_s']:,.0f} | {r['episodes_per_s']:,.1f} "
            f"| {r['steps_per_cpu_s']:,.0f} |"
        )
    return "\n".join(lines)


# ---------------------------------------------------------------- training
class _Clocks:
    """Seconds spent inside the calls of the functions wrapped with :meth:`wrap`, one
    clock per name, each exclusive: a wrapped call made inside another (a snapshot's
    network inside the table's ``resume``) counts on its own clock only. The nesting is
    kept per thread: with ``overlap`` the rollout's calls and the update's run together."""

    def __init__(self, names) -> None:
        self.seconds = dict.fromkeys(names, 0.0)
        self._local = threading.local()  # .inner: per open call, the seconds of the calls inside

    def wrap(self, name: str, fn):
        def timed(*args, **kwargs):
            inner = self._local.__dict__.setdefault("inner", [])
            inner.append(0.0)
            t0 = time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                dt = time.perf_counter() - t0
                self.seconds[name] += dt - inner.pop()
                if inner:
                    inner[-1] += dt

        return timed


#: the parts of a training iteration :func:`bench_train` times, in the order of its table
TRAIN_PARTS = (
    "table",  # the table: the games and the compiled opponents, in its kernel (engine)
    "learner",  # the learner's network in the rollout: net.act (forward and sampling)
    "hint",  # net.hints: the hint heuristic's choice, an input of the network
    "snapshots",  # the frozen snapshots' networks playing the opponents' seats
    "rollout_rest",  # the rest of collect(): legal lists, transitions, rewards, the league
    "gae",  # advantages(): GAE along the streams
    "update",  # the rest of learn(): ppo_update() and keep_pending()
)


def bench_train(
    config: str | os.PathLike = "hinted",
    overrides: list[str] | None = None,
    num_envs: int | None = None,
    rounds: int = 3,
    snapshot: bool = True,
) -> dict:
    """Training throughput of a training config (a shipped name or a YAML path, with
    ``burako train``'s ``--set`` overrides): env steps/s and where the time goes.

    Builds the config's :class:`~burako_env.training.ppo.Trainer` (``num_envs`` games in
    flight when given), runs one warm-up iteration (compiles, fills caches), then
    ``rounds`` iterations of ``collect()`` and ``learn()``, as ``Trainer.run`` does
    (without its logging, evaluations and checkpoints). With ``snapshot`` and a config
    that weights snapshots, a snapshot of the learner is added and every game's opponent
    drawn again before the first rollout, so the league mix is that of a run past its
    first ``snapshot_every`` updates (a new trainer has none, and gives their weight to
    self-play).

    Figures, each the env steps of a rollout over the median seconds of the ``rounds``:
    ``rollout_steps_per_s`` (``collect()``, the config's league mix),
    ``update_steps_per_s`` (``learn()`` less GAE: the PPO epochs and ``keep_pending``) and
    ``iteration_steps_per_s`` (rollout + GAE + update). ``shares`` splits the iteration's
    wall time (all rounds together) into :data:`TRAIN_PARTS`, each measured by wrapping
    the trainer's calls with clocks (the table's ``resume`` and ``deal``, less the
    snapshots' networks that the table calls; the networks' ``act`` and ``hints``,
    ``advantages``); ``engine_share`` is the fraction spent inside the game engine: the
    table's kernel, the games and the compiled opponents together. Raises
    :class:`~burako_env.extras.MissingExtra` without torch (the train extra).
    """
    import statistics
    from pathlib import Path

    from burako_env.extras import require

    torch = require("torch", "burako bench --api train")
    from burako_env.training.config import load_config
    from burako_env.training.ppo import Trainer

    if rounds < 1:
        raise ValueError(f"rounds must be at least 1, got {rounds}")
    overrides = list(overrides or [])
    if num_envs is not None:
        overrides.append(f"env.num_envs={int(num_envs)}")
    cfg = load_config(config, overrides)
    threads_before = torch.get_num_threads()
    clocks = _Clocks(("table", "learner", "hint", "snapshots", "gae"))
    try:
        with tempfile.TemporaryDirectory() as tmp:
            trainer = Trainer(cfg, Path(tmp))
            trainer.update = 1  # the learning rate of a run's first update
            env, league, net, table = trainer.env, trainer.league, trainer.net, trainer.table
            if snapshot and cfg.league.snapshots > 0:
                # a run's league past its first snapshot_every updates: the games dealt
                # again (no rollout yet, so no stream is cut) with a snapshot to draw
                trainer.add_snapshot()
                trainer.new_episodes(np.arange(cfg.env.num_envs))
            # the snapshots' networks run inside these calls: the clocks are exclusive
            table.resume = clocks.wrap("table", table.resume)
            table.deal = clocks.wrap("table", table.deal)
            net.act = clocks.wrap("learner", net.act)
            net.hints = clocks.wrap("hint", net.hints)
            trainer.advantages = clocks.wrap("gae", trainer.advantages)
            if trainer.actor is not net:  # overlap: the rollout thread's copy
                trainer.actor.act = clocks.wrap("learner", trainer.actor.act)
                trainer.actor.hints = clocks.wrap("hint", trainer.actor.hints)
            trainer.collect_unless_collected()  # warm-up: compiles the kernels, fills caches
            trainer.learn()
            for _, frozen in league.snapshots:
                frozen.act = clocks.wrap("snapshots", frozen.act)

            times: dict[str, list[float]] = {k: [] for k in ("rollout", "update", "iteration")}
            parts = dict.fromkeys(TRAIN_PARTS, 0.0)
            used: list[int] = []  # the update's torch threads, round by round
            for _ in range(rounds):
                c0 = dict(clocks.seconds)
                t0 = time.perf_counter()
                trainer.collect_unless_collected()  # with overlap: done beside the last update
                t1 = time.perf_counter()
                trainer.learn()
                t2 = time.perf_counter()
                c2 = dict(clocks.seconds)
                gae = c2["gae"] - c0["gae"]
                rollout = trainer.rollout_seconds  # on its thread, with overlap
                update = trainer.update_seconds if cfg.overlap else t2 - t1 - gae
                times["rollout"].append(rollout)
                times["update"].append(update)
                times["iteration"].append(t2 - t0)
                # the parts add up to the busy time: the wall time without overlap, the
                # rollout's and the update's seconds together with it
                inside = 0.0  # the calls collect() made, each on its clock
                for name in ("table", "learner", "hint", "snapshots"):
                    parts[name] += c2[name] - c0[name]
                    inside += c2[name] - c0[name]
                parts["rollout_rest"] += rollout - inside
                parts["gae"] += gae
                parts["update"] += update
                used.append(1 if cfg.overlap else trainer.update_threads.chosen)
            snapshots = len(league.snapshots)
    finally:
        torch.set_num_threads(threads_before)
    steps = cfg.rollout_steps
    median = {k: statistics.median(v) for k, v in times.items()}
    total = sum(parts.values())
    shares = {k: v / total for k, v in parts.items()}
    return {
        "api": "train",
        "config": str(config),
        "name": cfg.name,
        "variant": env.variant.name,
        "players": env.num_players,
        "num_envs": cfg.env.num_envs,
        "num_steps": cfg.ppo.num_steps,
        "rollout_steps": steps,
        "rounds": rounds,
        "torch_threads": cfg.torch_threads,
        "update_threads": cfg.update_threads,
        "update_threads_used": used,
        "overlap": cfg.overlap,
        "numba_threads": numba.get_num_threads(),
        "torch": torch.__version__,
        "machine": machine(),
        "league": {
            "self_play": cfg.league.self_play,
            "snapshots": cfg.league.snapshots,
            **{name: w for name, w in cfg.league.heuristics.items() if w > 0},
        },
        "snapshots_kept": snapshots,
        "rollout_seconds": median["rollout"],
        "update_seconds": median["update"],
        "iteration_seconds": median["iteration"],
        "rollout_steps_per_s": steps / median["rollout"],
        "update_steps_per_s": steps / median["update"],
        "iteration_steps_per_s": steps / median["iteration"],
        "shares": shares,
        "engine_share": shares["table"],
    }


#: the rows of :func:`format_train`'s second table: (part or parts, label)
_TRAIN_ROWS = (
    (("table",), "**game engine** (the table: the games and the compiled opponents)"),
    (
        ("learner", "hint", "snapshots", "rollout_rest"),
        "**rollout outside the engine** (policy inference, bookkeeping)",
    ),
    (("learner",), "- learner's network (net.act: forward and sampling)"),
    (("hint",), "- hint (net.hints: the hint heuristic's choice, an input)"),
    (("snapshots",), "- snapshot opponents' networks"),
    (("rollout_rest",), "- the rest of collect() (legal lists, transitions, rewards)"),
    (("gae",), "**GAE** (advantages)"),
    (("update",), "**PPO update** (ppo_update, keep_pending)"),
)


def format_train(res: dict) -> str:
    """:func:`bench_train`'s result as a settings line and two tables: the figures, and
    where the iteration's time goes."""
    league = ", ".join(f"{k} {v:g}" for k, v in res["league"].items())
    overlap = res.get("overlap", False)
    how = "the rollout beside GAE + update" if overlap else "rollout + GAE + update"
    whose = "the rollout's and the update's time" if overlap else "the iteration's wall time"
    lines = [
        f"config {res['config']} (name {res['name']}): {res['variant']}, {res['players']} "
        f"players; num_envs {res['num_envs']:,} x num_steps {res['num_steps']} = "
        f"{res['rollout_steps']:,} env steps per rollout; median of {res['rounds']} "
        "iteration(s) after a warm-up",
        f"torch {res['torch']}: torch threads {res['torch_threads']} (rollout), update "
        f"threads {res['update_threads']} (used: {', '.join(map(str, res['update_threads_used']))}"
        f"); numba threads {res['numba_threads']}"
        + ("; overlap: the rollout beside the update, one core each" if overlap else ""),
        f"league: {league}; snapshots kept {res['snapshots_kept']}",
        "",
        "| measure | env steps/s | s per iteration |",
        "|---|---|---|",
        f"| rollout (league mix) | {res['rollout_steps_per_s']:,.0f} "
        f"| {res['rollout_seconds']:.3f} |",
        f"| PPO update | {res['update_steps_per_s']:,.0f} | {res['update_seconds']:.3f} |",
        f"| **whole iteration** ({how}) | "
        f"**{res['iteration_steps_per_s']:,.0f}** | {res['iteration_seconds']:.3f} |",
        "",
        f"| share of {whose} | share |",
        "|---|---|",
    ]
    for keys, label in _TRAIN_ROWS:
        share = sum(res["shares"][k] for k in keys)
        text = f"{share:.1%}"
        lines.append(f"| {label} | {'**' + text + '**' if label.startswith('**') else text} |")
    return "\n".join(lines)


__all__ = [
    "bench_aec",
    "bench_core",
    "bench_train",
    "bench_gym_async",
    "bench_gym_vector",
    "bench_vector",
    "COMPILE_JOBS",
    "cold_compile",
    "compile_seconds",
    "core_table",
    "format_compile_rows",
    "format_env_rows",
    "format_rows",
    "format_train",
    "machine",
    "pick_from_mask",
    "TRAIN_PARTS",
]
