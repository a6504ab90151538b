"""Round-robin tournaments between agents, on fixed deals with seats swapped.

    from burako_env.agents.tournament import run_tournament
    res = run_tournament(["random", "greedy", "discard_table"], "argentine",
                         num_players=4, hands_per_pairing=2000, seed=0)
    print(res.table())
    res.to_csv("t.csv"); res.to_json("t.json"); res.heatmap("t.png")

Every pairing (A, B) plays the same deals twice, once with A's team on seats 0, 2, ...
and once with B's there, so each side plays each seat equally often and the luck of the
deal cancels. Per pairing: A's win rate (ties count half) with a 95% Wilson interval and
the mean score margin; per agent: an Elo rating, the Bradley-Terry fit of every
pairing's counts (:func:`~burako_env.agents.tournament_results.bradley_terry`).

Every pairing plays at the table (:class:`burako_env.table.Table`: one numba kernel,
:func:`~burako_env.table.kernel.play_kernel`: deal, observe for the acting seat, call
its policy, apply), parallel over the batch. Compiled policies
(:meth:`burako_env.agents.base.Agent.decides`) decide inside it; where a Python agent's
seat is to act (e.g. a torch policy) the kernel stops that game, the agent decides for
all the games waiting for it in one batch, and the kernel resumes them. A search agent
(``pimc``, deciding :class:`~burako_env.agents.base.PerGame`) gets each of its games
through :meth:`~burako_env.agents.base.Agent.act_game`. A pairing is ``compiled`` when
every decision was taken in the kernel. ``compiled=False`` steps a
:class:`~burako_env.core.game.Game` batch instead and routes each decision from Python;
compiled agents there use the same per-game generator states as the kernel, so both
paths play the same games.

This module runs the round robin: the pairings, the chunks of deals they play
(:mod:`burako_env.agents.tournament_chunks`, here or as Ray tasks:
:mod:`burako_env.agents.tournament_ray`), the games booked and saved, and the results
(:mod:`burako_env.agents.tournament_results`).
"""

from __future__ import annotations

import math
import time
from pathlib import Path

import numba
import numpy as np

from burako_env.agents.aivat import (
    ESTIMATORS,
    DrawValue,
    critic_value_fn,
    draw_corrections,
    estimate,
    load_value,
    pair_means,
    shipped_value,
    win_scores,
)
from burako_env.agents.base import Agent
from burako_env.agents.tournament_chunks import (
    ChunkGames,
    ChunkTask,
    chunk_deal_seed,
    play_chunk,
)
from burako_env.agents.tournament_ray import run_on_ray
from burako_env.agents.tournament_results import (
    PairingResult,
    TournamentResult,
    bradley_terry,
    wilson,
)
from burako_env.core.game import EPISODES
from burako_env.distributed import game_seeds_range
from burako_env.jit import seconds_compiling
from burako_env.records import GameRecord, variant_fields, write_records
from burako_env.sequential import DEFAULT_ALPHA, DEFAULT_BETA, Verdict, check_test, pair_counts
from burako_env.table import Seating
from burako_env.variants import load_variant

#: actions a game may take before the kernel gives up on it (max_turns bounds a hand)
MAX_STEPS_HAND = 20000
#: with save_games, the recorded actions of a batch are held in memory: at most this
#: many per hand (a hand of 400 turns stays far below), and about this many bytes a batch
RECORD_STEPS_HAND = 8192
RECORD_BYTES = 32 << 20
#: which pairings a tournament plays: every one, or the first agent's (run_tournament)
PAIRINGS = ("all", "first")
#: deals seeded and played together (a chunk), and with ``until_decided`` the deals
#: between two looks of the sequential test: a look every 128 hands
CHUNK_DEALS = 1024
SEQUENTIAL_CHUNK_DEALS = 64


def _labels(agents: list[Agent]) -> list[str]:
    seen: dict[str, int] = {}
    out = []
    for ag in agents:
        base = getattr(ag, "label", None) or ag.name
        k = seen.get(base, 0)
        seen[base] = k + 1
        out.append(base if k == 0 else f"{base}#{k + 1}")
    return out


class _Pairing:
    """The per-pairing arrays that both game paths fill."""

    compiled: bool  # whether every decision was taken in the kernel: set by its games

    def __init__(self, a: Agent, b: Agent):
        self.agents = (a, b)
        self.scores: list[np.ndarray] = []  # [G, 2] a's team, b's team
        self.winner_side: list[np.ndarray] = []  # 0 a won, 1 b won, -1 tie
        self.seconds = 0.0
        self.decisions = 0  # actions taken, every seat's: the cost per decision's divisor
        # with estimator="aivat": each chunk's corrections [2 d] and its deals d
        self.corrections: list[np.ndarray] = []
        self.deals: list[int] = []
        self.draws = 0
        self.estimator_seconds = 0.0


def _draw_value(value, table) -> DrawValue:
    """The value function of an AIVAT tournament at ``table``: ``value`` (a path or a
    DrawValue), else the one shipped for the table; a ValueError if it was fitted for
    another table."""
    if value is None:
        drawn = shipped_value(table.name, table.num_players)
    elif isinstance(value, DrawValue):
        drawn = value
    else:
        drawn = load_value(value)
    if (drawn.variant, drawn.num_players) != (table.name, table.num_players):
        raise ValueError(
            f"value file {drawn.path or '(in memory)'} is for {drawn.variant} at "
            f"{drawn.num_players} players, the tournament plays {table.name} at "
            f"{table.num_players}"
        )
    return drawn


def run_tournament(
    agents: list,
    variant: str = "argentine",
    num_players: int | None = None,
    hands_per_pairing: int = 1000,
    seed: int = 0,
    workers: int = 2,
    save_games: str | Path | None = None,
    progress: bool = True,
    episode: str = "hand",
    chunk_deals: int | None = None,
    compiled: bool | None = None,
    ray: bool = False,
    ray_address: str | None = None,
    task_deals: int | None = None,
    pairings: str = "all",
    until_decided: tuple[float, float] | None = None,
    alpha: float = DEFAULT_ALPHA,
    beta: float = DEFAULT_BETA,
    estimator: str = "plain",
    value=None,
    **overrides,
) -> TournamentResult:
    """Play every pairing of ``agents`` (names for :func:`burako_env.agents.make_agent`, or Agent
    objects) for ``hands_per_pairing`` hands (rounded up to even: each deal is played with
    seats swapped), on deals fixed by ``seed`` (and ``chunk_deals``, the deals seeded
    together).

    ``workers`` caps numba's threads. ``save_games`` writes every game as a JSON-lines
    :class:`~burako_env.records.GameRecord`. ``compiled=False`` forces the stepped path
    (for tests); by default every pairing plays in the kernel, which stops for the
    decisions of Python agents (a pairing's ``compiled`` says whether it had any).

    ``pairings="first"`` plays only the first agent against each of the others (an
    evaluation: :func:`burako_env.evaluate`); those pairings are the round robin's own,
    on the same deals with the same generators, so their results are the same as in a
    round robin of the same agents (``"all"``, the default).

    ``ray=True`` plays the compiled pairings as Ray tasks of ``task_deals`` deals each
    (default ``chunk_deals``; one CPU and one numba thread each) on the cluster at
    ``ray_address`` (default ``RAY_ADDRESS``, else a local Ray instance of ``workers``
    CPUs); pairings with a Python agent play in this process, in the order of the local
    run, as its generator carries from batch to batch. The result is the local run's,
    bit for bit, whatever the cluster (docs/SCALING.md).

    ``until_decided=(p0, p1)`` stops each pairing on its own once a sequential test
    (:mod:`burako_env.sequential`, docs/EVALUATION.md) decides between H0 "the first
    agent's score per hand is at most ``p0``" and H1 "at least ``p1``", with error rates
    ``alpha`` and ``beta``; ``hands_per_pairing`` is then the most a pairing plays. It
    looks after each whole chunk of deals (``chunk_deals``, default
    :data:`SEQUENTIAL_CHUNK_DEALS` then, else :data:`CHUNK_DEALS`), so a pairing that
    stopped after ``c`` chunks has the result of the fixed run of ``2 c chunk_deals``
    hands with the same ``chunk_deals``, bit for bit, and one the cap stopped that of
    the fixed run; its :attr:`~burako_env.agents.tournament_results.PairingResult.sequential`
    holds the :class:`~burako_env.sequential.Verdict`. On Ray the tasks of a decided
    pairing are cancelled; the result is the local run's.

    ``estimator="aivat"`` adds to every pairing its
    :class:`~burako_env.agents.aivat.Estimate`: the margin and win rate corrected at
    every draw from the stock by ``value`` (a value file's path or a
    :class:`~burako_env.agents.aivat.DrawValue`; default: the one shipped for the
    table), beside the plain ones, each with its standard error from the pairs of hands
    (docs/EVALUATION.md). The games and every other result are the plain run's. It
    corrects hands (not matches) played here (not on Ray); with ``until_decided`` the
    sequential test reads the corrected pairs (a normal model: ``Verdict.model``).
    """
    from tqdm.auto import tqdm

    from burako_env.agents import make_agent

    objs: list[Agent] = [
        make_agent(a, seed=seed + i) if isinstance(a, str) else a for i, a in enumerate(agents)
    ]
    if len(objs) < 2:
        raise ValueError("a tournament needs at least two agents")
    if task_deals is not None and task_deals < 1:
        raise ValueError(f"task_deals must be at least 1, got {task_deals}")
    if pairings not in PAIRINGS:
        raise ValueError(f"pairings must be one of {PAIRINGS}, got {pairings!r}")
    if until_decided is not None:
        if isinstance(until_decided, (str, bytes)) or len(until_decided) != 2:
            raise ValueError(f"until_decided must be (p0, p1), got {until_decided!r}")
        check_test(*until_decided, alpha, beta)
    if estimator not in ESTIMATORS:
        raise ValueError(f"estimator must be one of {ESTIMATORS}, got {estimator!r}")
    aivat = estimator == "aivat"
    if aivat and (ray or episode != "hand"):
        raise ValueError(
            "estimator 'aivat' corrects the draws of single hands played here: not with "
            "ray or episode='match'"
        )
    if value is not None and not aivat:
        raise ValueError("a value file is AIVAT's: give estimator='aivat' with it")
    if chunk_deals is None:
        chunk_deals = CHUNK_DEALS if until_decided is None else SEQUENTIAL_CHUNK_DEALS
    if isinstance(chunk_deals, bool) or not isinstance(chunk_deals, int) or chunk_deals < 1:
        raise ValueError(f"chunk_deals must be a whole number of at least 1, got {chunk_deals!r}")
    names = _labels(objs)
    if episode not in EPISODES:
        raise ValueError(f"episode must be one of {EPISODES}, got {episode!r}")
    # the table alone (no Game: dealing one would compile a kernel the job never uses)
    table = load_variant(variant, num_players=num_players, **overrides)
    for agent in objs:  # a policy trained for another table is refused before any game
        check = getattr(agent, "check_table", None)
        if callable(check):
            check(table)
    num_players = table.num_players
    vname = table.name
    draw_value = value_fn = None
    if aivat:
        draw_value = _draw_value(value, table)
        value_fn = critic_value_fn(draw_value.network(table), draw_value.head)
    # what records name: the named variant (and overrides) or every rule inline, no path
    record_rules, record_overrides = variant_fields(table, overrides)
    deals = max(1, (int(hands_per_pairing) + 1) // 2)
    hands = 2 * deals
    # the first agent's pairings come first in the round robin too: the same indices, so
    # the same generators (ChunkTask.pairing), with "first" as with "all"
    pairs = [(i, j) for i in range(len(objs)) for j in range(i + 1, len(objs))]
    if pairings == "first":
        pairs = pairs[: len(objs) - 1]
    results = {pq: _Pairing(objs[pq[0]], objs[pq[1]]) for pq in pairs}
    # each pairing's sequential test, looked at after each of its chunks
    tests = (
        None
        if until_decided is None
        else [
            Verdict(
                names[i],
                names[j],
                *until_decided,
                alpha,
                beta,
                model="normal" if aivat else "pentanomial",
            )  # fmt: skip
            for i, j in pairs
        ]
    )

    def wanted(key) -> bool:
        """Whether a chunk is still to play: its pairing's test has not decided."""
        return tests is None or not tests[key[3]].decided

    max_steps = MAX_STEPS_HAND * (50 if episode == "match" else 1)
    if save_games is not None:
        max_steps = RECORD_STEPS_HAND * (16 if episode == "match" else 1)
        chunk_deals = max(1, min(chunk_deals, RECORD_BYTES // (4 * max_steps)))
    if save_games is not None:
        Path(save_games).write_text("", encoding="utf-8")
    # (chunk, first deal, deals, pairing index), in the order the local run plays them
    keys = [
        (chunk, start, min(chunk_deals, deals - start), pi)
        for chunk, start in enumerate(range(0, deals, chunk_deals))
        for pi in range(len(pairs))
    ]

    def task_of(key, lo: int, hi: int) -> ChunkTask:
        chunk, _, d, pi = key
        return ChunkTask(
            table,
            episode,
            seed,
            chunk,
            d,
            lo,
            hi,
            pi,
            save_games is not None or aivat,
            max_steps,
            compiled,
        )

    def take(key, games: ChunkGames) -> None:
        """Book a chunk's games (in key order, as the local run does)."""
        chunk, _, d, pi = key
        i, j = pairs[pi]
        res = results[i, j]
        team, winner = games.team, games.winner
        # side 0 (agent i) is team 0 in the first d games, team 1 in the rest
        side_scores = np.empty((2 * d, 2), np.int64)
        side_scores[:d] = team[:d]
        side_scores[d:] = team[d:, ::-1]
        side_win = winner.copy()
        side_win[d:] = np.where(winner[d:] < 0, -1, 1 - winner[d:])
        res.scores.append(side_scores)
        res.winner_side.append(side_win)
        if tests is not None and not aivat:
            tests[pi].add(pair_counts(side_win, d))
        res.seconds += games.seconds
        res.decisions += int(np.maximum(games.n_actions, 0).sum())
        res.compiled = games.compiled
        chunk_compile.append(games.compile_seconds)
        if value_fn is not None:  # AIVAT: the chunk's draws corrected, from side 0's view
            t0 = time.perf_counter()
            words = game_seeds_range(chunk_deal_seed(seed, chunk), 0, d)
            corr, draws = draw_corrections(
                table,
                np.concatenate([words, words]),
                games.actions,
                games.n_actions,
                np.repeat(np.array([0, 1]), d),
                value_fn,
            )
            res.corrections.append(corr)
            res.deals.append(d)
            res.draws += int(draws.sum())
            res.estimator_seconds += time.perf_counter() - t0
            if tests is not None:  # the sequential test on the corrected pairs
                assert draw_value is not None
                w, c = pair_means(win_scores(side_win), [d]), pair_means(corr, [d])
                tests[pi].add_pentanomial(pair_counts(side_win, d))
                tests[pi].add_scores(w - draw_value.win_scale * c)
        if save_games is not None:
            seat_agent = Seating.duplicate(None, None, d, num_players).seat_agent
            deal_seed = chunk_deal_seed(seed, chunk)
            recs = []
            for b in range(2 * d):
                seats = [
                    names[i] if seat_agent[b, p] == 0 else names[j] for p in range(num_players)
                ]
                recs.append(
                    GameRecord(
                        variant=record_rules,
                        num_players=num_players,
                        seed=deal_seed,
                        index=b % d,
                        seats=seats,
                        actions=games.actions[b, : games.n_actions[b]].astype(int).tolist(),
                        scores=[int(team[b, 0]), int(team[b, 1])],
                        winner=int(winner[b]),
                        episode=episode,
                        agents=[seats[0], seats[1]],
                        overrides=dict(record_overrides),
                        meta={"tournament_seed": seed, "pairing": [names[i], names[j]]},
                    )
                )
            write_records(save_games, recs, append=True)

    started_ray = False
    if ray:  # connect before anything shows: a cluster that cannot be reached fails here
        from burako_env.distributed import init_ray

        started_ray = init_ray(ray_address, num_cpus=workers)
    old_threads = numba.get_num_threads()
    numba.set_num_threads(max(1, min(int(workers), numba.config.NUMBA_NUM_THREADS)))
    chunk_compile: list[float] = []  # each chunk's compiling, wherever it played
    c_start = seconds_compiling()  # this process's compiles are left out of the rates
    t_start = time.perf_counter()
    bar = tqdm(
        total=hands * len(pairs),
        unit="hand",
        disable=not progress,
        smoothing=0.1,
        desc=f"{vname} {num_players}p" + (" on ray" if ray else ""),
    )

    def advance(n: int) -> None:
        bar.update(n)
        elapsed = time.perf_counter() - t_start - (seconds_compiling() - c_start)
        bar.set_postfix_str(f"{bar.n / max(elapsed, 1e-9):,.0f} hands/s")

    meta: dict = {"workers": workers, "overrides": dict(overrides)}
    if until_decided is not None:
        meta["chunk_deals"] = chunk_deals  # the looks of the sequential tests
    try:
        if not ray:
            for key in filter(wanted, keys):
                _, _, d, pi = key
                i, j = pairs[pi]
                take(key, play_chunk(task_of(key, 0, d), (objs[i], objs[j])))
                advance(2 * d)
        else:
            meta.update(
                run_on_ray(
                    keys,
                    pairs,
                    objs,
                    names,
                    task_of,
                    take,
                    advance,
                    compiled,
                    task_deals or chunk_deals,
                    ray_address,
                    workers,
                    None if tests is None else wanted,
                )
            )
    finally:
        bar.close()
        numba.set_num_threads(old_threads)
        if started_ray:
            import ray as ray_module

            ray_module.shutdown()
    seconds = time.perf_counter() - t_start
    compiled_here = min(seconds, seconds_compiling() - c_start)
    if ray:  # the tasks' compiles, in other processes: inside the rate (TournamentResult)
        meta["ray_compile_seconds"] = max(0.0, sum(chunk_compile) - compiled_here)
    pairing_results = []
    for pi, (i, j) in enumerate(pairs):
        res = results[i, j]
        scores = np.concatenate(res.scores)
        win = np.concatenate(res.winner_side)
        wins = int((win == 0).sum())
        losses = int((win == 1).sum())
        ties = int((win < 0).sum())
        n = len(win)
        lo, hi = wilson(wins + 0.5 * ties, n)
        margin = (scores[:, 0] - scores[:, 1]).astype(np.float64)
        est = None
        if draw_value is not None:
            est = estimate(
                draw_value, margin, win_scores(win), np.concatenate(res.corrections), res.deals,
                res.draws, res.estimator_seconds,
            )  # fmt: skip
        pairing_results.append(
            PairingResult(
                a=names[i],
                b=names[j],
                hands=n,
                wins=wins,
                losses=losses,
                ties=ties,
                win_rate=(wins + 0.5 * ties) / n,
                ci_low=lo,
                ci_high=hi,
                mean_margin=float(margin.mean()),
                margin_se=float(margin.std(ddof=1) / math.sqrt(n)) if n > 1 else 0.0,
                seconds=res.seconds,
                compiled=res.compiled,
                sequential=None if tests is None else tests[pi],
                decisions=res.decisions,
                estimate=est,
            )
        )
    ratings = bradley_terry(
        names,
        pairs,
        *(np.array([getattr(p, f) for p in pairing_results]) for f in ("wins", "losses", "ties")),
    )
    total = sum(p.hands for p in pairing_results)  # fewer than the cap once a test decided
    return TournamentResult(
        agents=names,
        variant=vname,
        num_players=num_players,
        hands_per_pairing=hands,
        seed=seed,
        episode=episode,
        pairings=pairing_results,
        ratings=ratings,
        seconds=seconds,
        hands_per_second=total / max(seconds - compiled_here, 1e-9),
        meta=meta,
        compile_seconds=compiled_here,
    )
