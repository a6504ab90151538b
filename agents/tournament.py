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
pairing's counts (:func:`bradley_terry`).

Every pairing plays inside one numba kernel (:func:`play_kernel`: deal, observe for the
acting seat, call its policy, apply), parallel over the batch. Compiled policies
(:meth:`burako_env.agents.base.Agent.compiled_policy`) decide inside it; where a Python agent's seat
is to act (e.g. a torch policy) the kernel stops that game, the agent decides for all
the games waiting for it in one batch, and the kernel resumes them. A search agent
(``pimc``, :attr:`~burako_env.agents.base.Agent.searches`) gets each of its games through
:meth:`~burako_env.agents.base.Agent.act_game`. A pairing is ``compiled`` when every decision was
taken in the kernel. ``compiled=False`` steps a :class:`~burako_env.core.game.Game`
batch instead and routes each decision from Python; compiled agents there use the same
per-game generator states as the kernel, so both paths play the same games.
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

from burako_env.agents.base import Agent, checked_actions
from burako_env.agents.policies import (
    NUM_WEIGHTS,
    POLICY_RANDOM,
    act_batch,
    decide,
    default_weights,
    new_workspace,
)
from burako_env.core.actions import describe_action
from burako_env.core.constants import NUM_ACTIONS, S_DONE, S_HAND_SCORE0, S_MATCH0, S_PLAYER
from burako_env.core.game import EPISODES, Game
from burako_env.core.kernels import sorted_legal
from burako_env.core.nb import (
    borrowed,
    njit_kernel,
    run_sliced,
    seconds_compiling,
    timed_without_compile,
)
from burako_env.core.observe import observe_one
from burako_env.core.rules import apply_action, reset_game
from burako_env.distributed import game_seeds_range
from burako_env.records import GameRecord, variant_fields, write_records
from burako_env.variants import Variant, load_variant

#: actions a game may take before the kernel gives up on it (max_turns bounds a hand)
MAX_STEPS_HAND = 20000
#: with save_games, the recorded actions of a batch are held in memory: at most this
#: many per hand (a hand of 400 turns stays far below), and about this many bytes a batch
RECORD_STEPS_HAND = 8192
RECORD_BYTES = 32 << 20
Z95 = 1.959963984540054
#: which pairings a tournament plays: every one, or the first agent's (run_tournament)
PAIRINGS = ("all", "first")


# ---------------------------------------------------------------- the compiled games
#: ``kinds`` entry of an agent that decides in Python (a torch policy, a search): the
#: kernel stops a game where such a seat is to act, and resumes it with its move
POLICY_EXTERNAL = -1
#: what :func:`play_kernel` does
PLAY_DEAL = 0  # deal every game and play it until it ends or waits for an external seat
PLAY_RESUME = 1  # apply moves[b] to each waiting game, then play on as PLAY_DEAL does


@njit_kernel
def play_kernel(
    st,
    params,
    episode_match,
    op,
    lay,
    seat_agent,
    kinds,
    weights,
    agent_rng,
    obs,
    x,
    rows,
    moves,
    waiting,
    mask,
    record,
    actions,
    n_actions,
    max_steps,
    first,
    last,
):
    """Deal games ``first`` to ``last - 1`` of the batch (each from its own generator)
    and play each inside numba until it ends, or until a seat whose agent is
    ``POLICY_EXTERNAL`` is to act: then ``waiting[b]`` is set, ``obs[b]`` holds that
    seat's observation and ``mask[b]`` its legal actions, and a ``PLAY_RESUME`` call
    applies ``moves[b]`` (legal: the caller checks it) and plays on. One kernel for
    every pairing, so a tournament compiles no other kernel that reaches the rules.
    Serial: :func:`~burako_env.core.nb.run_sliced` plays slices of the batch on numba's
    thread count (a ``prange`` would compile the rules twice).

    ``seat_agent[b, p]`` indexes ``kinds`` / ``weights`` (the policy of seat p in game b);
    ``agent_rng[b, p]`` is that seat's generator. With ``record``, ``actions[b, i]`` gets
    the i-th action of game b; ``n_actions[b]`` the count so far (-1 if max_steps cut it
    off).
    """
    st = borrowed(st)
    seat_agent, kinds, weights, agent_rng = borrowed((seat_agent, kinds, weights, agent_rng))
    obs, x, rows, moves, waiting, mask = borrowed((obs, x, rows, moves, waiting, mask))
    actions, n_actions = borrowed((actions, n_actions))
    for b_ in range(first, last):
        b = np.uint64(b_)  # the index type of every kernel: callees compile once
        if op == PLAY_DEAL:
            steps = 0
            reset_game(st, b, params, episode_match)
        else:
            if not waiting[b]:
                continue
            waiting[b] = False
            steps = n_actions[b]
            a = moves[b]
            if record:
                if steps < actions.shape[1]:
                    actions[b, steps] = a
            apply_action(st, b, a, params)
            steps += 1
        legal = np.empty(NUM_ACTIONS, np.int64)
        n = sorted_legal(st, b, params, legal)
        while st.scalars[b, S_DONE] == 0:
            if steps >= max_steps:
                steps = -1
                break
            p = st.scalars[b, S_PLAYER]
            ag = seat_agent[b, p]
            kind = kinds[ag]
            if kind == POLICY_EXTERNAL:
                observe_one(st, b, np.int64(p), params, lay, obs[b])
                row = mask[b]
                row[:] = False
                for i in range(n):
                    row[legal[i]] = True
                waiting[b] = True
                break
            if kind != POLICY_RANDOM and n > 1:
                observe_one(st, b, np.int64(p), params, lay, obs[b])
            a = decide(kind, obs[b], legal, n, lay, agent_rng[b, p], weights[ag], x[b], rows[b])
            if record:
                if steps < actions.shape[1]:
                    actions[b, steps] = a
            apply_action(st, b, a, params)
            n = sorted_legal(st, b, params, legal)
            steps += 1
        st.num_legal[b] = n
        n_actions[b] = steps


# ---------------------------------------------------------------- results
def wilson(successes: float, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval of a proportion (successes may be fractional: ties count half);
    (0, 1) when ``n`` is 0: nothing played, nothing known."""
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
    seconds: float = 0.0  # its games' wall time, compiling left out
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
    ratings: dict[str, dict[str, float]]  # name -> elo, se, ordinal (bradley_terry)
    seconds: float  # the run's wall time
    hands_per_second: float  # hands over the wall time less compile_seconds
    meta: dict = field(default_factory=dict)
    #: seconds this process spent compiling kernels during the run (a cold cache): left
    #: out of ``hands_per_second``. On Ray the tasks' compiles (other processes, at once)
    #: are in the rate; ``meta["ray_compile_seconds"]`` says how long they took
    compile_seconds: float = 0.0

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

    def rate_text(self) -> str:
        """The hands per second, and what compiling they leave out or include."""
        notes = []
        if self.compile_seconds > 0:
            notes.append(f"{self.compile_seconds:.1f} s of compiling left out")
        on_ray = self.meta.get("ray_compile_seconds", 0.0)
        if on_ray > 0:
            notes.append(f"includes {on_ray:.1f} s of compiling in the Ray tasks")
        note = f" ({'; '.join(notes)})" if notes else ""
        return f"{self.hands_per_second:,.0f} hands/s{note}"

    def table(self) -> str:
        lines = [
            f"{self.variant}, {self.num_players} players, {self.hands_per_pairing} hands per "
            f"pairing (seats swapped), seed {self.seed}: {self.rate_text()}",
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
        width = max(20, *(len(n) for n in self.ratings))
        lines += ["", f"{'agent':<{width}} {'elo':>7} {'± 95%':>7} {'ordinal':>8}"]
        for name in sorted(self.ratings, key=lambda n: -self.ratings[n]["ordinal"]):
            r = self.ratings[name]
            lines.append(
                f"{name:<{width}} {r['elo']:>7.1f} {Z95 * r['se']:>7.1f} {r['ordinal']:>8.1f}"
            )
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
            "compile_seconds": self.compile_seconds,
            "meta": self.meta,
        }

    def to_json(self, path: str | Path) -> None:
        Path(path).write_text(json.dumps(self.to_dict(), indent=2) + "\n", encoding="utf-8")

    def to_csv(self, path: str | Path) -> None:
        """One row per pairing (and the ratings in columns of their own)."""
        cols = list(PairingResult.__dataclass_fields__)
        with open(path, "w", newline="", encoding="utf-8") as f:
            w = csv.writer(f)
            w.writerow(["variant", "num_players", "seed", *cols, "a_elo", "a_se", "b_elo", "b_se"])
            for p in self.pairings:
                d = asdict(p)
                ra, rb = self.ratings[p.a], self.ratings[p.b]
                w.writerow(
                    [
                        self.variant,
                        self.num_players,
                        self.seed,
                        *(d[c] for c in cols),
                        ra["elo"],
                        ra["se"],
                        rb["elo"],
                        rb["se"],
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


def _external_moves(game: Game, seat_agent, pair_agents, external, obs, mask, waiting, moves):
    """The moves of the Python agents at the games the kernel left waiting (checked)."""
    sel = np.flatnonzero(waiting)
    seat = game.state.scalars[sel, S_PLAYER].astype(np.int64)
    who = seat_agent[sel, seat]
    for k, ag in enumerate(pair_agents):
        if not external[k]:
            continue
        mine = sel[who == k]
        if mine.size == 0:
            continue
        if ag.searches:  # a search agent (pimc) decides from the game, one at a time
            for g in mine:
                moves[g] = ag.act_game(game, int(g))
        else:
            moves[mine] = checked_actions(ag.act(obs[mine], mask[mine]), mine.size, _who(ag))
    _check_moves(game, pair_agents, who, sel, moves[sel], mask[sel])


def _who(agent: Agent) -> str:
    return f"agent {agent.name!r}"


def _check_moves(game: Game, pair_agents, who, games, moves, mask) -> None:
    """Raise naming the agent, the game, the move and the reason if a move is not in its
    mask (an id outside the action space included)."""
    outside = (moves < 0) | (moves >= NUM_ACTIONS)
    bad = ~mask[np.arange(len(games)), np.clip(moves, 0, NUM_ACTIONS - 1)] | outside
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        b, a = int(games[i]), int(moves[i])
        name = "" if outside[i] else f" ({describe_action(a)})"
        raise ValueError(
            f"{_who(pair_agents[who[i]])} chose illegal action {a}{name} "
            f"in game {b}: {game.why_illegal(a, b)}"
        )


def _play_compiled(game: Game, seat_agent, pair_agents, agent_rng, record, max_steps):
    pols = [ag.compiled_policy() for ag in pair_agents]
    external = [pol is None for pol in pols]
    kinds = np.array([POLICY_EXTERNAL if pol is None else pol[0] for pol in pols], np.int64)
    weights = np.ascontiguousarray(
        np.stack(
            [default_weights() if pol is None else np.asarray(pol[1], np.float64) for pol in pols]
        )
    )
    assert weights.shape[1] == NUM_WEIGHTS
    bsz = game.batch_size
    obs = np.zeros((bsz, game.layout.size), np.int16)
    x, rows = new_workspace(bsz)
    actions = np.full((bsz, max_steps if record else 1), -1, np.int16)
    n_actions = np.zeros(bsz, np.int64)
    moves = np.full(bsz, -1, np.int64)
    waiting = np.zeros(bsz, np.bool_)
    mask = np.zeros((bsz if any(external) else 0, NUM_ACTIONS), np.bool_)
    op = PLAY_DEAL
    while True:
        run_sliced(
            play_kernel,
            bsz,
            game.state,
            game.params,
            game.episode_match,
            op,
            game._lay,
            seat_agent,
            kinds,
            weights,
            agent_rng,
            obs,
            x,
            rows,
            moves,
            waiting,
            mask,
            bool(record),
            actions,
            n_actions,
            max_steps,
        )
        if not waiting.any():
            break
        _external_moves(game, seat_agent, pair_agents, external, obs, mask, waiting, moves)
        op = PLAY_RESUME
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
                actions[sel] = checked_actions(ag.act(obs[sel], mask[sel]), sel.size, _who(ag))
        live = np.flatnonzero(~done)
        _check_moves(game, pair_agents, who[live], live, actions[live], mask[live])
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


@dataclass(frozen=True)
class _ChunkTask:
    """One pairing on deals ``lo .. hi`` of one chunk: everything that fixes its games.

    Every game's generators come from (seed, chunk, deal) and (seed, pairing, chunk, game),
    and each game plays on alone in the kernel, so a slice of a chunk plays exactly the
    games it plays inside the whole chunk (what lets Ray split the work freely)."""

    variant: Variant
    episode: str
    seed: int
    chunk: int
    chunk_deals: int
    lo: int
    hi: int
    pairing: int
    record: bool
    max_steps: int
    compiled: bool | None


@dataclass
class _ChunkGames:
    """The games of a :class:`_ChunkTask`: its deals with side 0 (agent a) on team 0, then
    the same deals with the sides swapped."""

    team: np.ndarray  # int64 [2k, 2]: team 0's and team 1's score
    winner: np.ndarray  # int64 [2k]: winning team, -1 tie
    actions: np.ndarray  # int16 [2k, steps] (with record)
    n_actions: np.ndarray  # int64 [2k]
    seconds: float  # wall time, compiling left out
    compiled: bool
    compile_seconds: float = 0.0  # compiling while the chunk played (in its process)


class _CompiledOnly(Agent):
    """A compiled agent's policy without the agent object, to send to a Ray worker."""

    def __init__(self, name: str, policy: tuple[int, np.ndarray]) -> None:
        super().__init__(0)
        self.name = name
        self._policy = (int(policy[0]), np.asarray(policy[1], np.float64))

    def act(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        kind, w = self._policy
        mask = np.asarray(mask, bool)
        states = _seed_words(0, count=len(mask))
        return act_batch(kind, np.asarray(obs), mask, states, w)

    def compiled_policy(self) -> tuple[int, np.ndarray]:
        return self._policy


def _play_chunk(task: _ChunkTask, pair_agents) -> _ChunkGames:
    with timed_without_compile() as timing:
        games = _play_chunk_timed(task, pair_agents)
    games.seconds, games.compile_seconds = timing["seconds"], timing["compile_seconds"]
    return games


def _play_chunk_timed(task: _ChunkTask, pair_agents) -> _ChunkGames:
    d, lo, hi = task.chunk_deals, task.lo, task.hi
    k = hi - lo
    num_players = task.variant.num_players
    deal_words = game_seeds_range(chunk_deal_seed(task.seed, task.chunk), lo, k)
    # the kernel plays every pairing (stopping for the Python agents' moves);
    # ``compiled=False`` steps a Game instead, to test that both play the same games
    use_kernel = task.compiled is not False
    all_compiled = all(ag.compiled_policy() is not None for ag in pair_agents)
    # the kernel deals its games itself; the stepped path deals them here
    game = Game(task.variant, batch_size=2 * k, episode=task.episode, deal=False)
    game.state.rng[:k] = deal_words
    game.state.rng[k:] = deal_words
    if not use_kernel:
        game.reset()
    chunk_rng = _seed_words(task.seed, task.pairing, task.chunk, 1, count=2 * d * num_players)
    chunk_rng = chunk_rng.reshape(2 * d, num_players, 4)
    agent_rng = np.ascontiguousarray(np.concatenate([chunk_rng[lo:hi], chunk_rng[d + lo : d + hi]]))
    play = _play_compiled if use_kernel else _play_stepped
    actions, n_actions = play(
        game, _seat_agents(k, num_players), pair_agents, agent_rng, task.record, task.max_steps
    )
    sc = game.state.scalars
    team = (
        sc[:, S_MATCH0 : S_MATCH0 + 2]
        if task.episode == "match"
        else sc[:, S_HAND_SCORE0 : S_HAND_SCORE0 + 2]
    )
    return _ChunkGames(
        team=team.astype(np.int64),
        winner=game.winner.astype(np.int64),
        actions=actions,
        n_actions=n_actions,
        seconds=0.0,  # set by _play_chunk
        compiled=use_kernel and all_compiled,
    )


def _merge_slices(parts: list[_ChunkGames]) -> _ChunkGames:
    """The games of a chunk from those of its slices (in order), in the chunk's layout."""
    if len(parts) == 1:
        return parts[0]

    def halves(arrays: list[np.ndarray]) -> np.ndarray:
        firsts = [a[: len(a) // 2] for a in arrays]
        seconds = [a[len(a) // 2 :] for a in arrays]
        return np.concatenate(firsts + seconds)

    width = max(p.actions.shape[1] for p in parts)
    actions = [
        np.pad(p.actions, ((0, 0), (0, width - p.actions.shape[1])), constant_values=-1)
        for p in parts
    ]
    return _ChunkGames(
        team=halves([p.team for p in parts]),
        winner=halves([p.winner for p in parts]),
        actions=halves(actions),
        n_actions=halves([p.n_actions for p in parts]),
        seconds=sum(p.seconds for p in parts),
        compiled=all(p.compiled for p in parts),
        compile_seconds=sum(p.compile_seconds for p in parts),
    )


def play_tournament_chunk(task: _ChunkTask, pair_agents, threads: int) -> _ChunkGames:
    """A Ray task: one slice of one chunk of one pairing, on ``threads`` numba threads."""
    from burako_env.distributed import set_worker_threads

    set_worker_threads(threads)
    return _play_chunk(task, pair_agents)


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
    ray: bool = False,
    ray_address: str | None = None,
    task_deals: int | None = None,
    pairings: str = "all",
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
    # what records name: the named variant (and overrides) or every rule inline, no path
    record_rules, record_overrides = variant_fields(table, overrides)
    deals = max(1, (int(hands_per_pairing) + 1) // 2)
    hands = 2 * deals
    # the first agent's pairings come first in the round robin too: the same indices, so
    # the same generators (_ChunkTask.pairing), with "first" as with "all"
    pairs = [(i, j) for i in range(len(objs)) for j in range(i + 1, len(objs))]
    if pairings == "first":
        pairs = pairs[: len(objs) - 1]
    results = {pq: _Pairing(objs[pq[0]], objs[pq[1]]) for pq in pairs}
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

    def task_of(key, lo: int, hi: int) -> _ChunkTask:
        chunk, _, d, pi = key
        return _ChunkTask(
            table,
            episode,
            seed,
            chunk,
            d,
            lo,
            hi,
            pi,
            save_games is not None,
            max_steps,
            compiled,
        )

    def take(key, games: _ChunkGames) -> None:
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
        res.seconds += games.seconds
        res.compiled = games.compiled
        chunk_compile.append(games.compile_seconds)
        if save_games is not None:
            seat_agent = _seat_agents(d, num_players)
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
    try:
        if not ray:
            for key in keys:
                _, _, d, pi = key
                i, j = pairs[pi]
                take(key, _play_chunk(task_of(key, 0, d), (objs[i], objs[j])))
                advance(2 * d)
        else:
            meta.update(
                _run_on_ray(
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
    ratings = bradley_terry(
        names,
        pairs,
        *(np.array([getattr(p, f) for p in pairing_results]) for f in ("wins", "losses", "ties")),
    )
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
        hands_per_second=total / max(seconds - compiled_here, 1e-9),
        meta=meta,
        compile_seconds=compiled_here,
    )


def _run_on_ray(
    keys, pairs, objs, names, task_of, take, advance, compiled, task_deals, address, workers
) -> dict:
    """The tournament's chunks as Ray tasks (compiled pairings) and in this process
    (pairings with a Python agent); ``take`` books them in the local run's order."""
    from burako_env.distributed import (
        TASK_CPUS,
        TASK_RETRIES,
        RayError,
        cluster_address,
        cluster_cpus,
        ray_session,
        slices,
    )

    with ray_session(address, num_cpus=workers) as ray:
        remote = ray.remote(num_cpus=TASK_CPUS, max_retries=TASK_RETRIES)(play_tournament_chunk)
        parts: dict[tuple, list] = {}
        owner: dict = {}
        for key in keys:
            _, _, d, pi = key
            pair = [objs[x] for x in pairs[pi]]
            if any(ag.compiled_policy() is None for ag in pair):
                continue  # a Python agent: played here, in order
            shipped = tuple(_CompiledOnly(names[x], objs[x].compiled_policy()) for x in pairs[pi])
            pieces = slices(d, task_deals)
            parts[key] = [None] * len(pieces)
            for s_i, (lo, hi) in enumerate(pieces):
                owner[remote.remote(task_of(key, lo, hi), shipped, TASK_CPUS)] = (key, s_i)
        tasks = len(owner)
        pending = list(owner)
        finished: dict[tuple, _ChunkGames] = {}
        next_key = 0

        def fetch(ref) -> _ChunkGames:
            try:
                return ray.get(ref)
            except ray.exceptions.RayTaskError as exc:
                cause = getattr(exc, "cause", None)
                if isinstance(cause, Exception):
                    raise cause from None
                raise RayError(f"a tournament task failed: {exc}") from exc
            except ray.exceptions.RayError as exc:
                raise RayError(
                    f"a tournament task failed {TASK_RETRIES + 1} times (its worker died): {exc}"
                ) from exc

        def collect(timeout: float) -> None:
            nonlocal pending
            if not pending:
                return
            ready, pending = ray.wait(pending, num_returns=1, timeout=timeout)
            if ready and pending:
                more, pending = ray.wait(pending, num_returns=len(pending), timeout=0)
                ready += more
            for ref in ready:
                key, s_i = owner.pop(ref)
                games = fetch(ref)
                parts[key][s_i] = games
                advance(len(games.winner))
                if all(p is not None for p in parts[key]):
                    finished[key] = _merge_slices(parts.pop(key))

        def flush() -> None:
            nonlocal next_key
            while next_key < len(keys) and keys[next_key] in finished:
                take(keys[next_key], finished.pop(keys[next_key]))
                next_key += 1

        try:
            for key in keys:
                if key in parts:
                    continue
                _, _, d, pi = key
                finished[key] = _play_chunk(task_of(key, 0, d), tuple(objs[x] for x in pairs[pi]))
                advance(2 * d)
                collect(0)
                flush()
            while pending:
                collect(0.25)
                flush()
            flush()
        except BaseException:
            for ref in pending:
                try:
                    ray.cancel(ref)
                except Exception:  # already finished or gone: nothing to stop
                    pass
            raise
        cpus = cluster_cpus()
    return {
        "ray": {
            "address": cluster_address(address) or "local",
            "cpus": cpus,
            "tasks": tasks,
            "task_deals": task_deals,
        }
    }


#: the Elo scale of the ratings: a lead of ELO_SCALE points is 10 to 1 odds
ELO_SCALE = 400.0
ELO_MEAN = 1500.0
#: each pairing counts one drawn game more (half a win each way): a prior that keeps a
#: side that won every game finite, and is negligible beside a real tournament's hands
PRIOR_DRAWS = 1.0


def bradley_terry(
    names: list[str],
    pairs: list[tuple[int, int]],
    wins: np.ndarray,
    losses: np.ndarray,
    ties: np.ndarray,
) -> dict[str, dict[str, float]]:
    """Ratings on the Elo scale from the pairings' counts: the Bradley-Terry maximum
    likelihood (Hunter 2004's MM iteration), a tie half a win each way, with standard
    errors from the Fisher information (the ratings' mean held at ``ELO_MEAN``).

    Pairing ``pairs[k] = (i, j)`` had ``wins[k]`` games won by i, ``losses[k]`` by j and
    ``ties[k]`` tied. The counts alone decide, not the order of the games: an online
    rating (OpenSkill's, used before) drifts with the last few hundred games, and once
    put greedy above three agents that each beat it in 62% of 4,000 hands. Returns per
    name ``elo``, ``se`` and ``ordinal`` (``elo - 3 se``, the table's order)."""
    n = len(names)
    won = np.zeros((n, n))  # won[i, j]: i's wins over j, ties and the prior half each
    for (i, j), w, lost, t in zip(pairs, wins, losses, ties, strict=True):
        half = 0.5 * (t + PRIOR_DRAWS)
        won[i, j] += w + half
        won[j, i] += lost + half
    games = won + won.T
    strength = np.ones(n)
    for _ in range(100_000):
        denom = (games / (strength[:, None] + strength[None, :])).sum(axis=1)
        new = won.sum(axis=1) / denom
        new /= np.exp(np.log(new).mean())
        done = np.max(np.abs(np.log(new) - np.log(strength))) < 1e-12
        strength = new
        if done:
            break
    theta = np.log(strength)
    q = strength[:, None] / (strength[:, None] + strength[None, :])
    info = games * q * q.T  # the negated Hessian of the log likelihood in theta
    hessian = np.diag(info.sum(axis=1)) - info
    cov = np.linalg.pinv(hessian)  # theta's sum is fixed: the pseudo-inverse
    unit = ELO_SCALE / math.log(10.0)
    elo = ELO_MEAN + unit * (theta - theta.mean())
    se = unit * np.sqrt(np.clip(np.diag(cov), 0.0, None))
    return {
        name: {"elo": float(elo[k]), "se": float(se[k]), "ordinal": float(elo[k] - 3 * se[k])}
        for k, name in enumerate(names)
    }
