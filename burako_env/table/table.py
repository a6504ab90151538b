"""The table: agents seated at a batch of games, played until an external seat decides.

:class:`Table` owns "who sits where, who decides now, and how" for every caller that
plays agents against each other (the tournament, the Gymnasium vector env; the
one-game callers through :func:`next_move`). It is the one place that dispatches on how
an agent decides (:meth:`burako_env.agents.base.Agent.decides`):

* :class:`~burako_env.agents.base.Compiled` agents decide inside the play kernel
  (:func:`burako_env.table.kernel.play_kernel`), drawing their ties from one generator
  state per game and seat (``agent_rng``, which :meth:`Table.state_dict` saves);
* :class:`~burako_env.agents.base.Batched` agents decide in Python for every game waiting
  on them in one call, from the games' own legal lists;
* :class:`~burako_env.agents.base.PerGame` agents (search) decide from the game, one game
  at a time;
* an external seat (agent ``None``, index :data:`~burako_env.table.seating.LEARNER` in
  the envs) is the caller's: the table stops the game there, with that seat's
  observation in ``obs[b]`` and its legal actions in ``mask[b]``, until :meth:`Table.resume`
  brings its move.

Every move an agent makes is checked here against the game's legal actions: an illegal
one raises :class:`IllegalAgentMove`, naming the agent, the game, the move and why.
"""

from __future__ import annotations

import numpy as np

from burako_env.agents.base import Batched, Compiled, Decision, PerGame, checked_actions
from burako_env.agents.network_kernels import env_legal_lists
from burako_env.agents.policies import act_batch
from burako_env.agents.policy_context import new_workspace
from burako_env.agents.policy_scores import NUM_WEIGHTS, default_weights
from burako_env.core.constants import ERR_OUT_OF_RANGE, NUM_ACTIONS
from burako_env.core.game import Game, IllegalActionError
from burako_env.jit import run_sliced
from burako_env.table.kernel import PLAY_DEAL, PLAY_RESUME, POLICY_EXTERNAL, play_kernel
from burako_env.table.seating import Seating

#: no game is cut short: the kernel's step limit, out of reach
NO_STEP_LIMIT = 2**62


class IllegalAgentMove(IllegalActionError):
    """An agent at the table chose an action the rules do not allow (a broken agent); the
    game is left as it was. ``agent`` is the agent's name."""

    def __init__(self, agent: str, action: int, code: int, game_index: int = 0):
        super().__init__(action, code, game_index)
        self.agent = agent
        self.args = (f"agent {agent!r} chose {self.args[0]}",)


def _refuse(agent, game: Game, action: int, b: int) -> IllegalAgentMove:
    code = game.action_error(action, b) if 0 <= action < NUM_ACTIONS else ERR_OUT_OF_RANGE
    return IllegalAgentMove(getattr(agent, "name", repr(agent)), action, code, b)


def _who(agent) -> str:
    return f"agent {getattr(agent, 'name', repr(agent))!r}"


def decision_of(agent) -> Decision:
    """How ``agent`` decides: its :meth:`~burako_env.agents.base.Agent.decides`, or, for
    any object with an ``act(obs, mask)`` method but no ``decides`` (a user's own policy
    class), :class:`~burako_env.agents.base.Batched` on its ``act``."""
    decides = getattr(agent, "decides", None)
    if callable(decides):
        return decides()
    return Batched(lambda obs, mask, ids, counts: agent.act(obs, mask))


class Table:
    """``seating``'s agents at the games of ``game`` (see the module doc).

    ``agent_rng`` int64 ``[B, P, 4]``: the compiled agents' generator state of each seat of
    each game (advanced in place). With ``record_steps``, ``actions[b, i]`` keeps the i-th
    action of game b (``n_actions[b]`` counts them, -1 where ``max_steps`` cut a game
    off)."""

    def __init__(
        self,
        game: Game,
        seating: Seating,
        agent_rng: np.ndarray,
        record_steps: int = 0,
        max_steps: int = NO_STEP_LIMIT,
    ) -> None:
        self.game = game
        self.agent_rng = agent_rng
        #: the external seats' legal actions where a game waits (empty while every agent
        #: is compiled: nothing waits then)
        self.mask = np.zeros((0, NUM_ACTIONS), np.bool_)
        self.seat(seating)
        bsz = game.batch_size
        self.obs = np.zeros((bsz, game.layout.size), np.int16)
        self._x, self._rows_ws = new_workspace(bsz)
        self.record = record_steps > 0
        self.actions = np.full((bsz, max(1, record_steps)), -1, np.int16)
        self.n_actions = np.zeros(bsz, np.int64)
        self.moves = np.full(bsz, -1, np.int64)
        #: games stopped where a seat outside the kernel is to act
        self.waiting = np.zeros(bsz, np.bool_)
        self.max_steps = int(max_steps)
        self._all = np.arange(bsz)

    def seat(self, seating: Seating) -> None:
        """Seat ``seating``'s agents: the games and the table's buffers stay as they are
        (a game waiting for an external seat still waits). The league of a training run
        reseats its table when a snapshot joins or leaves."""
        self.agents = list(seating.agents)
        self.seat_agent = np.ascontiguousarray(seating.seat_agent, np.int64)
        self.decisions = [None if a is None else decision_of(a) for a in self.agents]
        self.kinds = np.array(
            [d.kind if isinstance(d, Compiled) else POLICY_EXTERNAL for d in self.decisions],
            np.int64,
        )
        self.weights = np.ascontiguousarray(
            np.stack(
                [
                    np.asarray(d.weights, np.float64)
                    if isinstance(d, Compiled)
                    else default_weights()
                    for d in self.decisions
                ]
            )
        )
        assert self.weights.shape[1] == NUM_WEIGHTS
        #: the agents that decide in Python (indices into ``agents``)
        self.python = [k for k, d in enumerate(self.decisions) if isinstance(d, (Batched, PerGame))]
        self._is_python = np.zeros(len(self.agents), np.bool_)
        self._is_python[self.python] = True
        #: True where every decision is taken inside the kernel
        self.compiled = all(isinstance(d, Compiled) for d in self.decisions)
        if not self.compiled and len(self.mask) != self.game.batch_size:
            self.mask = np.zeros((self.game.batch_size, NUM_ACTIONS), np.bool_)

    # ------------------------------------------------------------ playing
    def deal(self, games: np.ndarray | None = None) -> None:
        """Deal ``games`` (default: every game; each from its own generator) and play
        them until each ends or waits for an external seat."""
        if games is None or games.size == self.game.batch_size:
            self.waiting[:] = False
            self._run(PLAY_DEAL)
        else:
            self.waiting[games] = False
            for g in games:
                self._run(PLAY_DEAL, int(g))
        self._play_python()

    def resume(self, moves: np.ndarray, games: np.ndarray) -> None:
        """Apply ``moves[b]`` (legal: the caller checked them) to the games where
        ``games`` (bool ``[B]``) is set, which wait for an external seat, and play on."""
        self.moves[:] = moves
        self.waiting[:] = games
        self._run(PLAY_RESUME)
        self._play_python()

    def play(self) -> None:
        """Deal every game and play it to its end (every seat an agent's)."""
        self.deal()
        if (self.n_actions < 0).any():
            raise RuntimeError(
                f"{int((self.n_actions < 0).sum())} games did not end in {self.max_steps} steps"
            )

    def wait(self) -> None:
        """Mark as waiting the live games whose seat to act is external, with that seat's
        observation and legal actions: a batch set from saved states (a training run's
        checkpoint, whose games all wait for the learner) then resumes as if the table
        had stopped there itself."""
        cols = self.game.columns()
        who = self.seat_agent[self._all, cols.player]
        external = (self.kinds[who] == POLICY_EXTERNAL) & ~self._is_python[who]
        external &= cols.done == 0
        self.obs[external] = self.game.observe()[external]
        self.mask[external] = self.game.legal_action_mask()[external]
        self.waiting[:] = external

    # ------------------------------------------------------------ internals
    def _run(self, op: int, first: int | None = None) -> None:
        """The kernel on every game (``first``: on that game alone, on this thread)."""
        game = self.game
        args = (
            game.state,
            game.params,
            game.episode_match,
            op,
            game.kernel_layout,
            self.seat_agent,
            self.kinds,
            self.weights,
            self.agent_rng,
            self.obs,
            self._x,
            self._rows_ws,
            self.moves,
            self.waiting,
            self.mask,
            self.record,
            self.actions,
            self.n_actions,
            self.max_steps,
        )
        if first is None:
            run_sliced(play_kernel, game.batch_size, *args)
        else:
            play_kernel(*args, first, first + 1)

    def _play_python(self) -> None:
        """The Python agents decide for the games waiting on them (each agent for all
        its games in one call) until every game waits for an external seat or is over."""
        if not self.python:
            return
        cols = self.game.columns()
        waiting = self.waiting
        while True:
            who = self.seat_agent[self._all, cols.player]
            theirs = waiting & self._is_python[who]
            if not theirs.any():
                return
            external = waiting & ~theirs
            for k in self.python:
                games = np.flatnonzero(theirs & (who == k))
                if games.size:
                    self.moves[games] = self._decide(k, games)
            waiting[:] = theirs
            self._run(PLAY_RESUME)
            waiting |= external

    def _decide(self, k: int, games: np.ndarray) -> np.ndarray:
        """The moves of Python agent ``k`` in ``games`` (checked legal)."""
        agent, decision, game = self.agents[k], self.decisions[k], self.game
        if isinstance(decision, PerGame):
            moves = np.array([decision.act_game(game, int(g)) for g in games], np.int64)
            moves = checked_actions(moves, games.size, _who(agent))
        else:
            assert isinstance(decision, Batched)  # self.python holds Batched and PerGame only
            # the games' own legal lists, which a policy network reads (ppo): cheaper
            # than rebuilding them from the [n, 2541] masks
            ids, counts = env_legal_lists(game.state.legal, game.state.num_legal, games)
            chosen = decision.act_lists(self.obs[games], self.mask[games], ids, counts)
            moves = checked_actions(chosen, games.size, _who(agent))
        ok = self.mask[games, moves]
        if not ok.all():
            i = int(np.flatnonzero(~ok)[0])
            raise _refuse(agent, game, int(moves[i]), int(games[i]))
        return moves

    # ------------------------------------------------------------ state
    def state_dict(self) -> dict:
        """What the table holds beyond the game (whose state the caller saves): the
        compiled agents' generator states."""
        return {"agent_rng": self.agent_rng.copy()}

    def load_state_dict(self, state: dict) -> None:
        """Restore :meth:`state_dict`'s generator states (a ValueError for another
        shape or a state numba's generator cannot hold)."""
        rng = np.asarray(state["agent_rng"])
        if rng.shape != self.agent_rng.shape or not np.issubdtype(rng.dtype, np.integer):
            raise ValueError(
                f"agent_rng must be integers of shape {self.agent_rng.shape}, got "
                f"{rng.dtype} {rng.shape}"
            )
        if not rng.any(axis=-1).all():
            raise ValueError("agent_rng holds an all-zero generator state")
        self.agent_rng[...] = rng


def play_stepped(
    game: Game, seating: Seating, agent_rng: np.ndarray, record: bool, max_steps: int
) -> tuple[np.ndarray, np.ndarray]:
    """Play every game of ``game`` (dealt) to its end by stepping it from Python, each
    decision routed here: the same games as :class:`Table` plays in the kernel (compiled
    agents draw from the same ``agent_rng``), to test that both agree. Returns the
    actions int16 ``[B, steps]`` (with ``record``) and their count per game."""
    bsz = game.batch_size
    rows_all = np.arange(bsz)
    decisions = [decision_of(a) for a in seating.agents]
    steps: list[np.ndarray] = []
    n_actions = np.zeros(bsz, np.int64)
    for _ in range(max_steps):
        done = game.done
        if done.all():
            break
        obs = game.observe()
        mask = game.legal_action_mask()
        seat = game.current_player.astype(np.int64)
        who = seating.seat_agent[rows_all, seat]
        actions = np.full(bsz, -1, np.int64)
        for k, (agent, decision) in enumerate(zip(seating.agents, decisions, strict=True)):
            sel = np.flatnonzero(~done & (who == k))
            if sel.size == 0:
                continue
            if isinstance(decision, PerGame):
                chosen = np.array([decision.act_game(game, int(g)) for g in sel], np.int64)
            elif isinstance(decision, Compiled):
                states = agent_rng[sel, seat[sel]]
                chosen = act_batch(
                    decision.kind, obs[sel], mask[sel], states, decision.weights,
                    game.kernel_layout,
                )  # fmt: skip
                agent_rng[sel, seat[sel]] = states
            else:
                ids, counts = env_legal_lists(game.state.legal, game.state.num_legal, sel)
                chosen = decision.act_lists(obs[sel], mask[sel], ids, counts)
            actions[sel] = checked_actions(chosen, sel.size, _who(agent))
            ok = mask[sel, actions[sel]]
            if not ok.all():
                i = int(np.flatnonzero(~ok)[0])
                raise _refuse(agent, game, int(actions[sel[i]]), int(sel[i]))
        live = np.flatnonzero(~done)
        game.step(actions, check=False)
        n_actions[live] += 1
        if record:
            steps.append(actions.astype(np.int16))
    else:
        if not game.done.all():
            raise RuntimeError(f"games did not end in {max_steps} steps")
    if record and steps:
        return np.stack(steps, axis=1), n_actions
    return np.full((bsz, 1), -1, np.int16), n_actions


def check_move(agent, game: Game, action: int, b: int = 0) -> int:
    """``action`` if it is legal for the player to act in game ``b``; else an
    :class:`IllegalAgentMove` naming ``agent``, the move and why."""
    if game.why_illegal(action, b) is not None:
        raise _refuse(agent, game, action, b)
    return action


def kernel_policy(agent) -> Compiled | None:
    """``agent``'s :class:`~burako_env.agents.base.Compiled` policy where it decides
    inside the kernel, else None (it decides in Python: a Ray worker cannot play it
    without the agent object)."""
    decision = decision_of(agent)
    return decision if isinstance(decision, Compiled) else None


def next_move(
    agent, game: Game, b: int = 0, obs=None, mask=None, decision=None, check: bool = True
) -> int:
    """The move of ``agent`` for the player to act in game ``b`` of ``game`` (a table of
    one game: the terminal game, the web table, PettingZoo's loop, the single Gymnasium
    env), checked legal: an :class:`IllegalAgentMove` names the agent otherwise.

    A search agent decides from the game; any other from the player's observation and
    mask: ``obs`` int16 ``[1, O]`` and ``mask`` bool ``[1, A]`` where the caller holds
    them (else they are taken from the game). ``decision``: ``agent.decides()``, where the
    caller keeps it. ``check=False`` leaves the legality check to a caller whose step
    refuses an illegal move anyway (it then raises :class:`IllegalAgentMove` itself)."""
    decision = decision_of(agent) if decision is None else decision
    if isinstance(decision, PerGame):
        a = int(decision.act_game(game, b))
    elif obs is None and hasattr(agent, "act_game"):
        a = int(agent.act_game(game, b))
    else:
        if obs is None:  # an object with act only: the player's observation and mask
            obs = game.observe_one(int(game.current_player[b]), b)[None]
            mask = game.legal_action_mask()[b : b + 1]
        chosen = agent.act(obs, mask)
        if not check:  # the hot path of the single env: its kernel checks the move
            return int(chosen[0])
        a = int(checked_actions(chosen, 1, _who(agent))[0])
    if not check:
        return a
    if mask is None:
        return check_move(agent, game, a, b)
    if not (0 <= a < NUM_ACTIONS and bool(mask[0, a])):
        raise _refuse(agent, game, a, b)
    return a


def act_in_env(env, agent) -> int:
    """The move ``agent`` (an :class:`burako_env.agents.base.Agent`) makes for the player
    to act in a PettingZoo env (raw or wrapped): search agents (``pimc``) need the game
    itself, which this hands them::

        for name in env.agent_iter():
            obs, reward, term, trunc, info = env.last()
            env.step(None if term or trunc else act_in_env(env, bots[name]))
    """
    return next_move(agent, env.unwrapped.game, 0)


def needs_game(agent) -> bool:
    """Whether ``agent`` decides from the game itself (a search agent, deciding
    :class:`~burako_env.agents.base.PerGame`), not from an observation and a mask."""
    return isinstance(decision_of(agent), PerGame)


def can_read(agent, game: Game, seat: int) -> None:
    """Raise ValueError if ``agent`` cannot play ``seat`` of ``game``'s table: a learned
    policy trained for another table (checked on its table and on one observation of
    that seat; a search agent reads the game and plays any table). The agent's
    generators may have moved: reseed it after."""
    agent.check_table(game.variant)
    if not needs_game(agent):
        agent.act(game.observe_one(seat)[None], game.legal_action_mask()[:1])


__all__ = [
    "IllegalAgentMove",
    "NO_STEP_LIMIT",
    "Table",
    "act_in_env",
    "can_read",
    "check_move",
    "decision_of",
    "kernel_policy",
    "needs_game",
    "next_move",
    "play_stepped",
]
