"""Round-robin tournaments between agents, on fixed deals with seats swapped.

    from agents.tournament import run_tournament
    res = run_tournament(["random", "greedy", "discard_table"], "argentine",
                         num_players=4, hands_per_pairing=2000, seed=0)
    print(res.table())
    res.to_csv("t.csv"); res.to_json("t.json"); res.heatmap("t.png")

Every pairing (A, B) plays the same deals twice, once with A's team on seats 0, 2, ...
and once with B's there, so each side plays each seat equally often and the luck of the
deal cancels. Per pairing: A's win rate (ties count half) with a 95% Wilson interval and
the mean score margin; per agent: an OpenSkill (Plackett-Luce) rating.

Pairings of compiled policies (:meth:`agents.base.Agent.compiled_policy`) play whole
games inside one numba kernel (:func:`play_kernel`: observe for the acting seat, call its
policy, apply), parallel over the batch. A pairing with a Python agent (e.g. a torch
policy) steps a :class:`~burako_env.core.game.Game` batch and routes each game's decision
to the agent of the seat to act; compiled agents there use the same per-game generator
states as the kernel, so both paths play the same games. A search agent (``pimc``,
:attr:`~agents.base.Agent.searches`) gets each of its games through
:meth:`~agents.base.Agent.act_game`.
"""

from __future__ import annotations

import csv
import json
import math
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numba
import numpy as np

from agents.base import Agent
from agents.policies import (
    NUM_WEIGHTS,
    POLICY_RANDOM,
    act_batch,
    decide,
    new_workspace,
)
from burako_env.core.constants import NUM_ACTIONS, S_DONE, S_HAND_SCORE0, S_MATCH0, S_PLAYER
from burako_env.core.game import Game, game_seeds
from burako_env.core.nb import njit_parallel, prange
from burako_env.core.observe import observe_one
from burako_env.core.rules import apply_action, legal_actions
from burako_env.records import GameRecord, write_records

#: actions a game may take before the kernel gives up on it (max_turns bounds a hand)
MAX_STEPS_HAND = 20000
#: with save_games, the recorded actions of a batch are held in memory: at most this
#: many per hand (a hand of 400 turns stays far below), and about this many bytes a batch
RECORD_STEPS_HAND = 8192
RECORD_BYTES = 32 << 20
Z95 = 1.959963984540054


# ---------------------------------------------------------------- the compiled games
@njit_parallel
def play_kernel(
    st,
    params,
    lay,
    seat_agent,
    kinds,
    weights,
    agent_rng,
    obs,
    x,
    rows,
    record,
    actions,
    n_actions,
    max_steps,
):
    """Play every game of the batch to its end inside numba.

    ``seat_agent[b, p]`` indexes ``kinds`` / ``weights`` (the policy of seat p in game b);
    ``agent_rng[b, p]`` is that seat's generator. With ``record``, ``actions[b, i]`` gets
    the i-th action of game b; ``n_actions[b]`` the count (-1 if max_steps cut it off).
    """
    for b in prange(st.scalars.shape[0]):
        legal = np.empty(NUM_ACTIONS, np.int64)
        steps = 0
        n = legal_actions(st, b, params, st.legal[b])
        while st.scalars[b, S_DONE] == 0:
            if steps >= max_steps:
                steps = -1
                break
            # the legal actions ascending, as a mask would list them
            for i in range(n):
                a = np.int64(st.legal[b, i])
                j = i
                while j > 0 and legal[j - 1] > a:
                    legal[j] = legal[j - 1]
                    j -= 1
                legal[j] = a
            p = st.scalars[b, S_PLAYER]
            ag = seat_agent[b, p]
            kind = kinds[ag]
            if kind != POLICY_RANDOM and n > 1:
                observe_one(st, b, p, params, lay, obs[b])
            a = decide(kind, obs[b], legal, n, lay, agent_rng[b, p], weights[ag], x[b], rows[b])
            if record:
                if steps < actions.shape[1]:
                    actions[b, steps] = a
            apply_action(st, b, a, params)
            n = legal_actions(st, b, params, st.legal[b])
            steps += 1
        st.num_legal[b] = n
        n_actions[b] = steps


# ---------------------------------------------------------------- results
def wilson(successes: float, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval of a proportion (successes may be fractional: ties count half)."""
    if n <= 0:
        return 0.0, 1.0
    p = successes / n
    denom = 1 + z * z / n
    center = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return max(0.0, center - half), min(1.0, center + half)


@dataclass
class PairingResult:
    """Agent ``a`` against agent ``b``, from ``a``'s side."""

    a: str
    b: str
    hands: int
    wins: int
    losses: int
    ties: int
    win_rate: float  # (wins + ties / 2) / hands
    ci_low: float
    ci_high: float
    mean_margin: float  # a's team score minus b's, per hand
    margin_se: float
    seconds: float = 0.0
    compiled: bool = True


@dataclass
class TournamentResult:
    agents: list[str]
    variant: str
    num_players: int
    hands_per_pairing: int
    seed: int
    episode: str
    pairings: list[PairingResult]
    ratings: dict[str, dict[str, float]]  # name -> mu, sigma, ordinal
    seconds: float
    hands_per_second: float
    meta: dict = field(default_factory=dict)

    # ------------------------------------------------------------ views
    def win_matrix(self) -> np.ndarray:
        """[i, j]: win rate of agent i against agent j (NaN on the diagonal)."""
        idx = {a: i for i, a in enumerate(self.agents)}
        m = np.full((len(self.agents), len(self.agents)), np.nan)
        for p in self.pairings:
            m[idx[p.a], idx[p.b]] = p.win_rate
            m[idx[p.b], idx[p.a]] = 1 - p.win_rate
        return m

    def pairing(self, a: str, b: str) -> PairingResult:
        """The result of a against b (flipped if it was played as b against a)."""
        for p in self.pairings:
            if (p.a, p.b) == (a, b):
                return p
            if (p.a, p.b) == (b, a):
                return PairingResult(
                    a,
                    b,
                    p.hands,
                    p.losses,
                    p.wins,
                    p.ties,
                    1 - p.win_rate,
                    1 - p.ci_high,
                    1 - p.ci_low,
                    -p.mean_margin,
                    p.margin_se,
                    p.seconds,
                    p.compiled,
                )
        raise KeyError(f"no pairing {a} vs {b}")

    def table(self) -> str:
        lines = [
            f"{self.variant}, {self.num_players} players, {self.hands_per_pairing} hands per "
            f"pairing (seats swapped), seed {self.seed}: {self.hands_per_second:,.0f} hands/s",
            "",
            f"{'pairing':<34} {'hands':>7} {'W-L-T':>17} {'win rate':>9} {'95% CI':>17} "
            f"{'margin':>14}",
        ]
        for p in self.pairings:
            wlt = f"{p.wins}-{p.losses}-{p.ties}"
            ci = f"[{p.ci_low:.3f}, {p.ci_high:.3f}]"
            half = Z95 * p.margin_se
            lines.append(
                f"{p.a + ' vs ' + p.b:<34} {p.hands:>7} {wlt:>17} {p.win_rate:>9.3f} "
                f"{ci} {p.mean_margin:>+8.1f} ±{half:<5.1f}"
            )
        lines += ["", f"{'agent':<20} {'mu':>7} {'sigma':>7} {'ordinal':>8}"]
        for name in sorted(self.ratings, key=lambda n: -self.ratings[n]["ordinal"]):
            r = self.ratings[name]
            lines.append(f"{name:<20} {r['mu']:>7.2f} {r['sigma']:>7.3f} {r['ordinal']:>8.2f}")
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.table()

    def to_dict(self) -> dict:
        return {
            "agents": self.agents,
            "variant": self.variant,
            "num_players": self.num_players,
            "hands_per_pairing": self.hands_per_pairing,
            "seed": self.seed,
            "episode": self.episode,
            "pairings": [asdict(p) for p in self.pairings],
            "ratings": self.ratings,
            "seconds": self.seconds,
            "hands_per_second": self.hands_per_second,
            "meta": self.meta,
        }

    def to_json(self, path: str | Path) -> None:
        Path(path).write_text(json.dumps(self.to_dict(), indent=2) + "\n", encoding="utf-8")

    def to_csv(self, path: str | Path) -> None:
        """One row per pairing (and the ratings in columns of their own)."""
        cols = list(PairingResult.__dataclass_fields__)
        with open(path, "w", newline="", encoding="utf-8") as f:
            w = csv.writer(f)
            w.writerow(
                ["variant", "num_players", "seed", *cols, "a_mu", "a_sigma", "b_mu", "b_sigma"]
            )
            for p in self.pairings:
                d = asdict(p)
                ra, rb = self.ratings[p.a], self.ratings[p.b]
                w.writerow(
                    [
                        self.variant,
                        self.num_players,
                        self.seed,
                        *(d[c] for c in cols),
                        ra["mu"],
                        ra["sigma"],
                        rb["mu"],
                        rb["sigma"],
                    ]
                )

    def heatmap(self, path: str | Path, title: str | None = None) -> None:
        """A PNG of the win-rate matrix (row agent against column agent)."""
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        m = self.win_matrix()
        n = len(self.agents)
        fig, ax = plt.subplots(figsize=(1.6 + 1.3 * n, 1.2 + 1.1 * n))
        im = ax.imshow(m, vmin=0, vmax=1, cmap="RdBu")
        ax.set_xticks(range(n), self.agents, rotation=30, ha="right")
        ax.set_yticks(range(n), self.agents)
        ci = {}
        for p in self.pairings:
            i, j = self.agents.index(p.a), self.agents.index(p.b)
            ci[i, j] = (p.ci_low, p.ci_high)
            ci[j, i] = (1 - p.ci_high, 1 - p.ci_low)
        for i in range(n):
            for j in range(n):
                if i == j:
                    continue
                lo, hi = ci[i, j]
                color = "white" if abs(m[i, j] - 0.5) > 0.3 else "black"
                ax.text(
                    j,
                    i,
                    f"{m[i, j]:.3f}\n[{lo:.3f}, {hi:.3f}]",
                    ha="center",
                    va="center",
                    fontsize=8,
                    color=color,
                )
        ax.set_xlabel("opponent")
        ax.set_ylabel("agent")
        ax.set_title(
            title
            or f"win rate, {self.variant} {self.num_players}p, "
            f"{self.hands_per_pairing} hands/pairing"
        )
        fig.colorbar(im, ax=ax, fraction=0.046)
        fig.tight_layout()
        fig.savefig(path, dpi=110)
        plt.close(fig)


# ---------------------------------------------------------------- the tournament
def _labels(agents: list[Agent]) -> list[str]:
    seen: dict[str, int] = {}
    out = []
    for ag in agents:
        base = getattr(ag, "label", None) or ag.name
        k = seen.get(base, 0)
        seen[base] = k + 1
        out.append(base if k == 0 else f"{base}#{k + 1}")
    return out


def _seed_words(*keys: int, count: int) -> np.ndarray:
    """``count`` generator states (int64 [count, 4], nonzero) from integer keys."""
    words = np.random.SeedSequence([int(k) for k in keys]).generate_state(4 * count, np.uint32)
    words = words.astype(np.int64).reshape(count, 4)
    zero = ~words.any(axis=1)
    words[zero, 0] = 1
    return words


def chunk_deal_seed(seed: int, chunk: int) -> int:
    """The batch seed of the deals of chunk ``chunk`` (shared by every pairing)."""
    w = np.random.SeedSequence([int(seed), int(chunk), 0xDEA1]).generate_state(2, np.uint32)
    return int(w[0]) << 31 | int(w[1]) >> 1


class _Pairing:
    """The per-pairing arrays that both game paths fill."""

    def __init__(self, a: Agent, b: Agent):
        self.agents = (a, b)
        self.scores: list[np.ndarray] = []  # [G, 2] a's team, b's team
        self.winner_side: list[np.ndarray] = []  # 0 a won, 1 b won, -1 tie
        self.seconds = 0.0


def _seat_agents(batch_deals: int, num_players: int) -> np.ndarray:
    """[2D, P]: games 0..D-1 seat side 0 (agent a) on team 0; games D..2D-1 swap sides."""
    seat_team = np.arange(num_players) % 2
    sa = np.empty((2 * batch_deals, num_players), np.int64)
    sa[:batch_deals] = seat_team
    sa[batch_deals:] = 1 - seat_team
    return sa


def _play_compiled(game: Game, seat_agent, pair_agents, agent_rng, record, max_steps):
    pols = [ag.compiled_policy() for ag in pair_agents]
    kinds = np.array([k for k, _ in pols], np.int64)
    weights = np.ascontiguousarray(np.stack([np.asarray(w, np.float64) for _, w in pols]))
    assert weights.shape[1] == NUM_WEIGHTS
    bsz = game.batch_size
    obs = np.zeros((bsz, game.layout.size), np.int16)
    x, rows = new_workspace(bsz)
    actions = np.full((bsz, max_steps if record else 1), -1, np.int16)
    n_actions = np.zeros(bsz, np.int64)
    play_kernel(
        game.state,
        game.params,
        game._lay,
        seat_agent,
        kinds,
        weights,
        agent_rng,
        obs,
        x,
        rows,
        bool(record),
        actions,
        n_actions,
        max_steps,
    )
    if (n_actions < 0).any():
        raise RuntimeError(f"{int((n_actions < 0).sum())} games did not end in {max_steps} steps")
    return actions, n_actions


def _play_stepped(game: Game, seat_agent, pair_agents, agent_rng, record, max_steps):
    bsz = game.batch_size
    rows_all = np.arange(bsz)
    steps: list[np.ndarray] = []
    n_actions = np.zeros(bsz, np.int64)
    for _ in range(max_steps):
        done = game.done
        if done.all():
            break
        obs = game.observe()
        mask = game.legal_action_mask()
        seat = game.current_player.astype(np.int64)
        who = seat_agent[rows_all, seat]
        actions = np.full(bsz, -1, np.int64)
        for k, ag in enumerate(pair_agents):
            sel = np.flatnonzero(~done & (who == k))
            if sel.size == 0:
                continue
            if ag.searches:  # a search agent (pimc) decides from the game, one at a time
                for g in sel:
                    actions[g] = ag.act_game(game, int(g))
            elif ag.compiled_policy() is not None:
                kind, w = ag.compiled_policy()
                states = agent_rng[sel, seat[sel]]
                actions[sel] = act_batch(kind, obs[sel], mask[sel], states, w, game._lay)
                agent_rng[sel, seat[sel]] = states
            else:
                actions[sel] = np.asarray(ag.act(obs[sel], mask[sel]), np.int64).reshape(-1)
        live = np.flatnonzero(~done)
        bad = live[~mask[live, np.clip(actions[live], 0, NUM_ACTIONS - 1)] | (actions[live] < 0)]
        if bad.size:
            b = int(bad[0])
            raise ValueError(
                f"agent {pair_agents[who[b]].name!r} chose illegal action {actions[b]} "
                f"in game {b}: {game.why_illegal(int(actions[b]), b)}"
            )
        game.step(actions, check=False)
        n_actions[live] += 1
        if record:
            steps.append(actions.astype(np.int16))
    else:
        if not game.done.all():
            raise RuntimeError(f"games did not end in {max_steps} steps")
    if record and steps:
        acts = np.stack(steps, axis=1)
        return acts, n_actions
    return np.full((bsz, 1), -1, np.int16), n_actions


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
    chunk_deals: int = 1024,
    compiled: bool | None = None,
    **overrides,
) -> TournamentResult:
    """Play every pairing of ``agents`` (names for :func:`agents.make_agent`, or Agent
    objects) for ``hands_per_pairing`` hands (rounded up to even: each deal is played with
    seats swapped), on deals fixed by ``seed``.

    ``workers`` caps numba's threads. ``save_games`` writes every game as a JSON-lines
    :class:`~burako_env.records.GameRecord`. ``compiled=False`` forces the stepped path
    (for tests); by default pairings of compiled policies run in the kernel.
    """
    from tqdm.auto import tqdm

    from agents import make_agent

    objs: list[Agent] = [
        make_agent(a, seed=seed + i) if isinstance(a, str) else a for i, a in enumerate(agents)
    ]
    if len(objs) < 2:
        raise ValueError("a tournament needs at least two agents")
    names = _labels(objs)
    probe = Game(variant, num_players=num_players, batch_size=1, episode=episode, **overrides)
    num_players = probe.num_players
    vname = probe.variant.name
    deals = max(1, (int(hands_per_pairing) + 1) // 2)
    hands = 2 * deals
    pairs = [(i, j) for i in range(len(objs)) for j in range(i + 1, len(objs))]
    results = {pq: _Pairing(objs[pq[0]], objs[pq[1]]) for pq in pairs}
    max_steps = MAX_STEPS_HAND * (50 if episode == "match" else 1)
    if save_games is not None:
        max_steps = RECORD_STEPS_HAND * (16 if episode == "match" else 1)
        chunk_deals = max(1, min(chunk_deals, RECORD_BYTES // (4 * max_steps)))
    if save_games is not None:
        Path(save_games).write_text("", encoding="utf-8")
    old_threads = numba.get_num_threads()
    numba.set_num_threads(max(1, min(int(workers), numba.config.NUMBA_NUM_THREADS)))
    t_start = time.perf_counter()
    bar = tqdm(
        total=hands * len(pairs),
        unit="hand",
        disable=not progress,
        smoothing=0.1,
        desc=f"{vname} {num_players}p",
    )
    try:
        for chunk, start in enumerate(range(0, deals, chunk_deals)):
            d = min(chunk_deals, deals - start)
            deal_seed = chunk_deal_seed(seed, chunk)
            deal_words = game_seeds(deal_seed, d)
            seat_agent = _seat_agents(d, num_players)
            for pi, (i, j) in enumerate(pairs):
                res = results[i, j]
                pair_agents = (objs[i], objs[j])
                t0 = time.perf_counter()
                game = Game(
                    variant, num_players=num_players, batch_size=2 * d, episode=episode, **overrides
                )
                game.state.rng[:d] = deal_words
                game.state.rng[d:] = deal_words
                game.reset()
                agent_rng = _seed_words(seed, pi, chunk, 1, count=2 * d * num_players).reshape(
                    2 * d, num_players, 4
                )
                use_kernel = all(ag.compiled_policy() is not None for ag in pair_agents)
                if compiled is not None:
                    use_kernel = use_kernel and compiled
                play = _play_compiled if use_kernel else _play_stepped
                actions, n_actions = play(
                    game, seat_agent, pair_agents, agent_rng, save_games is not None, max_steps
                )
                sc = game.state.scalars
                team = (
                    sc[:, S_MATCH0 : S_MATCH0 + 2]
                    if episode == "match"
                    else sc[:, S_HAND_SCORE0 : S_HAND_SCORE0 + 2]
                )
                team = team.astype(np.int64)
                winner = game.winner.astype(np.int64)
                # side 0 (agent i) is team 0 in the first d games, team 1 in the rest
                side_scores = np.empty((2 * d, 2), np.int64)
                side_scores[:d] = team[:d]
                side_scores[d:] = team[d:, ::-1]
                side_win = winner.copy()
                side_win[d:] = np.where(winner[d:] < 0, -1, 1 - winner[d:])
                res.scores.append(side_scores)
                res.winner_side.append(side_win)
                res.seconds += time.perf_counter() - t0
                res.compiled = use_kernel
                if save_games is not None:
                    recs = []
                    for b in range(2 * d):
                        seats = [
                            names[i] if seat_agent[b, p] == 0 else names[j]
                            for p in range(num_players)
                        ]
                        recs.append(
                            GameRecord(
                                variant=vname,
                                num_players=num_players,
                                seed=deal_seed,
                                index=b % d,
                                seats=seats,
                                actions=actions[b, : n_actions[b]].astype(int).tolist(),
                                scores=[int(team[b, 0]), int(team[b, 1])],
                                winner=int(winner[b]),
                                episode=episode,
                                agents=[seats[0], seats[1]],
                                overrides=dict(overrides),
                                meta={"tournament_seed": seed, "pairing": [names[i], names[j]]},
                            )
                        )
                    write_records(save_games, recs, append=True)
                bar.update(2 * d)
                elapsed = time.perf_counter() - t_start
                bar.set_postfix_str(f"{bar.n / max(elapsed, 1e-9):,.0f} hands/s")
    finally:
        bar.close()
        numba.set_num_threads(old_threads)
    seconds = time.perf_counter() - t_start
    pairing_results = []
    for i, j in pairs:
        res = results[i, j]
        scores = np.concatenate(res.scores)
        win = np.concatenate(res.winner_side)
        wins = int((win == 0).sum())
        losses = int((win == 1).sum())
        ties = int((win < 0).sum())
        n = len(win)
        lo, hi = wilson(wins + 0.5 * ties, n)
        margin = (scores[:, 0] - scores[:, 1]).astype(np.float64)
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
            )
        )
    ratings = _openskill(names, pairs, results)
    total = hands * len(pairs)
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
        hands_per_second=total / max(seconds, 1e-9),
        meta={"workers": workers, "overrides": dict(overrides)},
    )


def _openskill(names, pairs, results) -> dict[str, dict[str, float]]:
    """Plackett-Luce ratings from every game, the pairings' games interleaved in a fixed
    order (game k of each pairing, then game k + 1, ...)."""
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    ratings = {n: model.rating(name=n) for n in names}
    outcomes = [np.concatenate(results[pq].winner_side) for pq in pairs]
    longest = max(len(o) for o in outcomes)
    for k in range(longest):
        for (i, j), out in zip(pairs, outcomes, strict=True):
            if k >= len(out):
                continue
            w = out[k]
            ranks = [0, 0] if w < 0 else ([0, 1] if w == 0 else [1, 0])
            (ra,), (rb,) = model.rate([[ratings[names[i]]], [ratings[names[j]]]], ranks=ranks)
            ratings[names[i]], ratings[names[j]] = ra, rb
    return {
        n: {"mu": float(r.mu), "sigma": float(r.sigma), "ordinal": float(r.ordinal())}
        for n, r in ratings.items()
    }
