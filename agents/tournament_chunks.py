"""One chunk of one pairing of a tournament, played: its deals and generators (from the
seed, the pairing and the chunk alone), the games at the table
(:class:`burako_env.table.Table`: the compiled kernel, stopping for the Python agents'
moves) or stepped through a :class:`~burako_env.core.game.Game`
(:func:`burako_env.table.play_stepped`), and its scores and actions (:class:`ChunkGames`).
A slice of a chunk plays exactly the games it plays inside the whole chunk, so Ray can
split the work freely (:mod:`burako_env.agents.tournament_ray`)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from burako_env.agents.base import Agent, Compiled
from burako_env.agents.policies import act_batch
from burako_env.core.game import Game
from burako_env.distributed import game_seeds_range
from burako_env.jit import timed_without_compile
from burako_env.table import Seating, Table, play_stepped
from burako_env.variants import Variant


def _seed_words(*keys: int, count: int) -> np.ndarray:
    """``count`` generator states (int64 [count, 4], nonzero) from integer keys."""
    seeds = np.random.SeedSequence([int(k) for k in keys])
    words: np.ndarray = seeds.generate_state(4 * count, np.uint32)  # int64 below
    words = words.astype(np.int64).reshape(count, 4)
    zero = ~words.any(axis=1)
    words[zero, 0] = 1
    return words


def chunk_deal_seed(seed: int, chunk: int) -> int:
    """The batch seed of the deals of chunk ``chunk`` (shared by every pairing)."""
    w = np.random.SeedSequence([int(seed), int(chunk), 0xDEA1]).generate_state(2, np.uint32)
    return int(w[0]) << 31 | int(w[1]) >> 1


@dataclass(frozen=True)
class ChunkTask:
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
class ChunkGames:
    """The games of a :class:`ChunkTask`: its deals with side 0 (agent a) on team 0, then
    the same deals with the sides swapped."""

    team: np.ndarray  # int64 [2k, 2]: team 0's and team 1's score
    winner: np.ndarray  # int64 [2k]: winning team, -1 tie
    actions: np.ndarray  # int16 [2k, steps] (with record)
    n_actions: np.ndarray  # int64 [2k]
    seconds: float  # wall time, compiling left out
    compiled: bool
    compile_seconds: float = 0.0  # compiling while the chunk played (in its process)


class CompiledOnly(Agent):
    """A compiled agent's policy without the agent object, to send to a Ray worker."""

    def __init__(self, name: str, policy: Compiled) -> None:
        super().__init__(0)
        self.name = name
        self._policy = (int(policy.kind), np.asarray(policy.weights, np.float64))

    def act(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        kind, w = self._policy
        mask = np.asarray(mask, bool)
        states = _seed_words(0, count=len(mask))
        return act_batch(kind, np.asarray(obs), mask, states, w)

    def decides(self) -> Compiled:
        return Compiled(*self._policy)


def play_chunk(task: ChunkTask, pair_agents) -> ChunkGames:
    """Play ``task``'s games with ``pair_agents``; their results, with their wall time and the
    compile time left out of it."""
    with timed_without_compile() as timing:
        games = _play_chunk_timed(task, pair_agents)
    games.seconds, games.compile_seconds = timing["seconds"], timing["compile_seconds"]
    return games


def _play_chunk_timed(task: ChunkTask, pair_agents) -> ChunkGames:
    d, lo, hi = task.chunk_deals, task.lo, task.hi
    k = hi - lo
    num_players = task.variant.num_players
    deal_words = game_seeds_range(chunk_deal_seed(task.seed, task.chunk), lo, k)
    # the kernel plays every pairing (stopping for the Python agents' moves);
    # ``compiled=False`` steps a Game instead, to test that both play the same games
    use_kernel = task.compiled is not False
    # the kernel deals its games itself; the stepped path deals them here
    game = Game(task.variant, batch_size=2 * k, episode=task.episode, deal=False)
    game.state.rng[:k] = deal_words
    game.state.rng[k:] = deal_words
    if not use_kernel:
        game.reset()
    chunk_rng = _seed_words(task.seed, task.pairing, task.chunk, 1, count=2 * d * num_players)
    chunk_rng = chunk_rng.reshape(2 * d, num_players, 4)
    agent_rng = np.ascontiguousarray(np.concatenate([chunk_rng[lo:hi], chunk_rng[d + lo : d + hi]]))
    seating = Seating.duplicate(pair_agents[0], pair_agents[1], k, num_players)
    if use_kernel:
        table = Table(
            game,
            seating,
            agent_rng,
            record_steps=task.max_steps if task.record else 0,
            max_steps=task.max_steps,
        )
        table.play()
        actions, n_actions, all_compiled = table.actions, table.n_actions, table.compiled
    else:
        actions, n_actions = play_stepped(game, seating, agent_rng, task.record, task.max_steps)
        all_compiled = False
    cols = game.columns()
    team = cols.match_scores if task.episode == "match" else cols.hand_scores
    return ChunkGames(
        team=team.astype(np.int64),
        winner=game.winner.astype(np.int64),
        actions=actions,
        n_actions=n_actions,
        seconds=0.0,  # set by play_chunk
        compiled=all_compiled,
    )


def merge_slices(parts: list[ChunkGames]) -> ChunkGames:
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
    return ChunkGames(
        team=halves([p.team for p in parts]),
        winner=halves([p.winner for p in parts]),
        actions=halves(actions),
        n_actions=halves([p.n_actions for p in parts]),
        seconds=sum(p.seconds for p in parts),
        compiled=all(p.compiled for p in parts),
        compile_seconds=sum(p.compile_seconds for p in parts),
    )


def play_tournament_chunk(task: ChunkTask, pair_agents, threads: int) -> ChunkGames:
    """A Ray task: one slice of one chunk of one pairing, on ``threads`` numba threads."""
    from burako_env.distributed import set_worker_threads

    set_worker_threads(threads)
    return play_chunk(task, pair_agents)


__all__ = [
    "ChunkTask",
    "ChunkGames",
    "chunk_deal_seed",
    "play_chunk",
    "merge_slices",
    "play_tournament_chunk",
    "CompiledOnly",
]
