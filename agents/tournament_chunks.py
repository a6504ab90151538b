"""One chunk of one pairing of a tournament, played: its deals and generators (from the
seed, the pairing and the chunk alone), the games in the compiled kernel
(:mod:`burako_env.agents.tournament_kernel`, stopping for the Python agents' moves) or
stepped through a :class:`~burako_env.core.game.Game`, and its scores and actions
(:class:`ChunkGames`). A slice of a chunk plays exactly the games it plays inside the
whole chunk, so Ray can split the work freely (:mod:`burako_env.agents.tournament_ray`)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from burako_env.agents.base import Agent
from burako_env.agents.network_kernels import env_legal_lists
from burako_env.agents.policies import act_batch
from burako_env.agents.policy_context import new_workspace
from burako_env.agents.policy_scores import NUM_WEIGHTS, default_weights
from burako_env.agents.tournament_kernel import PLAY_DEAL, PLAY_RESUME, POLICY_EXTERNAL, play_kernel
from burako_env.core.actions import describe_action
from burako_env.core.constants import NUM_ACTIONS, S_HAND_SCORE0, S_MATCH0, S_PLAYER
from burako_env.core.game import Game
from burako_env.core.nb import run_sliced, timed_without_compile
from burako_env.distributed import game_seeds_range
from burako_env.variants import Variant


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


def seat_agents(batch_deals: int, num_players: int) -> np.ndarray:
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
            # the games' own legal lists, which a policy network reads (ppo): cheaper
            # than rebuilding them from the [n, 2541] masks
            ids, counts = env_legal_lists(game.state.legal, game.state.num_legal, mine)
            chosen = ag.act_lists(obs[mine], mask[mine], ids, counts)
            moves[mine] = Agent.checked_actions(chosen, mine.size, _who(ag))
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
                actions[sel] = Agent.checked_actions(
                    ag.act(obs[sel], mask[sel]), sel.size, _who(ag)
                )
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
        game, seat_agents(k, num_players), pair_agents, agent_rng, task.record, task.max_steps
    )
    sc = game.state.scalars
    team = (
        sc[:, S_MATCH0 : S_MATCH0 + 2]
        if task.episode == "match"
        else sc[:, S_HAND_SCORE0 : S_HAND_SCORE0 + 2]
    )
    return ChunkGames(
        team=team.astype(np.int64),
        winner=game.winner.astype(np.int64),
        actions=actions,
        n_actions=n_actions,
        seconds=0.0,  # set by play_chunk
        compiled=use_kernel and all_compiled,
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
    "seat_agents",
    "play_chunk",
    "merge_slices",
    "play_tournament_chunk",
    "CompiledOnly",
]
