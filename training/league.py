"""The league of opponents the learner meets in self-play, with Elo ratings.

Members:

* ``self``: the current policy plays both teams (both teams' decisions train it);
* frozen **snapshots** of the learner (a copy of the network every ``snapshot_every``
  updates, at most ``max_snapshots`` kept, the oldest leaving first);
* **agents** from the registry (``random``, ``greedy``, ``discard_table``, ...).

The league yields the training table's seating (:meth:`League.seating`): the learner is
the table's external seat (index :data:`~burako_env.table.LEARNER`), then every agent
and snapshot (:class:`SnapshotAgent`). The table plays them as the tournament and the
vector env do: the compiled heuristics inside the play kernel, drawing their ties from
one generator state per game and seat (``agent_rng``, which the league owns and
checkpoints), the snapshots in one batch per call.

Every game draws, when its episode begins, a learner team (uniform) and an opponent:
``self`` with weight ``self_play``, a snapshot with weight ``snapshots`` (uniform among
those kept; while there is none this weight goes to ``self``) or an agent with its weight
in ``heuristics``. Ratings are Elo, updated after every finished game against a league
member (self-play games leave them alone); a snapshot enters with the learner's rating.

A checkpoint's league is checked whole before it is used (:meth:`League.check_state_dict`):
opponent ids within the league it saved, learner teams 0 or 1, the heuristics' generator
states, finite ratings for every member, the snapshots' weights (issue 59).
"""

from __future__ import annotations

import copy

import numpy as np

try:  # the train extra: torch is not a core dependency (burako_env.extras)
    import torch
except ImportError as exc:
    from burako_env.extras import MissingExtra

    raise MissingExtra("burako_env.training", "torch") from exc

from burako_env.agents import make_agent
from burako_env.agents.base import Batched
from burako_env.agents.network import BurakoNet, padded
from burako_env.agents.policy_file import CheckpointError, check_weights
from burako_env.core.game import generator_words
from burako_env.limits import MAX_ELO_RATING
from burako_env.table import LEARNER, Seating
from burako_env.training.checkpoint import checked_number, checked_tensor
from burako_env.training.config import LeagueConfig

SELF = -1  # opponent id of a self-play game


class SnapshotAgent:
    """A frozen copy of the learner at the training table: it decides in Python for every
    game waiting on it in one batch, sampling from the run's torch generator."""

    def __init__(self, name: str, net: BurakoNet, generator: torch.Generator) -> None:
        self.name = name
        self.net = net
        self.generator = generator

    def decides(self) -> Batched:
        """A batch decider on the games' legal lists."""
        return Batched(self.act_lists)

    @torch.inference_mode()
    def act_lists(
        self, obs: np.ndarray, mask: np.ndarray, ids: np.ndarray, counts: np.ndarray
    ) -> np.ndarray:
        """One sampled action per row, from the legal lists ``ids`` / ``counts``."""
        legal, valid = padded(ids, counts)
        a, _, _, _ = self.net.act(torch.from_numpy(obs), legal, valid, self.generator)
        return a.cpu().numpy()


def seat_generators(saved: np.ndarray, num_players: int) -> np.ndarray:
    """The per game and seat generator states ``[games, P, 4]`` of a checkpoint's
    ``agent_rng``; one of an earlier version (one state per game, ``[games, 4]``) gives
    seat 0 that state and the other seats states drawn from it (a resume of such a run
    goes on, not move for move as it would have)."""
    if saved.ndim == 3:
        return saved
    drawn = generator_words(
        np.random.default_rng(saved.astype(np.uint64).ravel()), len(saved) * num_players
    ).reshape(len(saved), num_players, 4)
    drawn[:, 0] = saved
    return drawn


class League:
    """The learner's opponents during training: self-play, frozen snapshots of the learner and the
    heuristics, mixed by :class:`LeagueConfig`'s weights, each game's opponent drawn when it
    starts; their results feed Elo ratings."""

    def __init__(
        self,
        cfg: LeagueConfig,
        spec: dict,
        num_envs: int,
        num_players: int,
        rng: np.random.Generator,
        seed: int = 0,
        generator: torch.Generator | None = None,
    ) -> None:
        self.cfg = cfg
        self.spec = spec
        self.num_players = num_players
        self.agent_names = [n for n, w in cfg.heuristics.items() if w > 0]
        self.agents = [make_agent(n, seed=seed + i) for i, n in enumerate(self.agent_names)]
        #: the snapshots' sampling generator (the run's, which its checkpoint saves)
        self.generator = generator if generator is not None else torch.Generator()
        self.snapshots: list[tuple[str, BurakoNet]] = []
        self.ratings: dict[str, float] = {"learner": 1000.0}
        for n in self.agent_names:
            self.ratings[n] = 1000.0
        # per game: opponent id (SELF, 0..len(agents)-1, or len(agents) + snapshot index)
        self.opponent = np.full(num_envs, SELF, np.int64)
        self.learner_team = np.zeros(num_envs, np.int64)
        #: the compiled agents' generator state of each seat of each game (the table's)
        self.agent_rng = rng.integers(1, 2**62, size=(num_envs, num_players, 4), dtype=np.int64)
        self.tally: dict[str, list[float]] = {}

    # ------------------------------------------------------------ members
    def names(self) -> list[str]:
        """The opponents' names: the heuristics', then the snapshots'."""
        return self.agent_names + [name for name, _ in self.snapshots]

    def name_of(self, opp: int) -> str:
        """The name of opponent ``opp`` (``self`` for self-play)."""
        return "self" if opp == SELF else self.names()[opp]

    def add_snapshot(self, net: BurakoNet, update: int) -> None:
        """Keep a frozen copy of ``net`` as the opponent ``snapshot@update`` (the oldest dropped
        beyond ``max_snapshots``)."""
        frozen = BurakoNet.from_spec(self.spec)
        frozen.load_state_dict(copy.deepcopy(net.state_dict()))
        frozen.to(net.value_head.weight.device)  # plays on the learner's device
        frozen.eval()
        name = f"snapshot@{update}"
        self.snapshots.append((name, frozen))
        self.ratings[name] = self.ratings["learner"]
        if len(self.snapshots) > self.cfg.max_snapshots:
            old, _ = self.snapshots.pop(0)
            self.ratings.pop(old, None)
            # games against the dropped snapshot keep a valid id: re-point them to self
            drop = len(self.agent_names)
            sel = self.opponent >= drop
            self.opponent[sel & (self.opponent == drop)] = SELF
            self.opponent[sel & (self.opponent > drop)] -= 1

    def change(self, cfg: LeagueConfig, seed: int = 0) -> None:
        """Play on with another mix (``league.changes``): the league this config builds,
        holding this one's state as a resume with it would (:meth:`load_state_dict`:
        agents matched by name), the same snapshot networks, and the run's generator
        untouched."""
        state = self.state_dict()
        snapshots = self.snapshots
        fresh = League(
            cfg,
            self.spec,
            len(self.opponent),
            self.num_players,
            np.random.default_rng(0),
            seed,
            self.generator,
        )
        fresh.load_state_dict(state)
        fresh.snapshots = snapshots  # the same networks, on the learner's device
        self.__dict__.update(fresh.__dict__)

    # ------------------------------------------------------------ drawing games
    def assign(self, games: np.ndarray, rng: np.random.Generator) -> None:
        """New learner team and opponent for the games at indices ``games``."""
        n = len(games)
        if n == 0:
            return
        weights = [self.cfg.self_play, self.cfg.snapshots if self.snapshots else 0.0]
        weights += [self.cfg.heuristics[name] for name in self.agent_names]
        w = np.asarray(weights, np.float64)
        if w.sum() <= 0:  # only snapshots weighted and none yet
            w[0] = 1.0
        kind = rng.choice(len(w), size=n, p=w / w.sum())
        snap = rng.integers(0, max(1, len(self.snapshots)), size=n)
        opp = np.where(kind == 0, SELF, kind - 2)
        opp = np.where(kind == 1, len(self.agent_names) + snap, opp)
        self.opponent[games] = opp
        self.learner_team[games] = rng.integers(0, 2, size=n)

    # ------------------------------------------------------------ the table
    def seating(self) -> Seating:
        """Every game's seats at the training table: the learner (index ``LEARNER``, the
        table's external seat) in its team's seats (every seat of a self-play game), the
        game's opponent (``1 + opponent``: an agent, then the snapshots) in the others."""
        agents: list = [None, *self.agents]
        agents += [SnapshotAgent(name, net, self.generator) for name, net in self.snapshots]
        return Seating(agents, self.seat_rows(np.arange(len(self.opponent))))

    def seat_rows(self, games: np.ndarray) -> np.ndarray:
        """int64 ``[len(games), P]``: the seating rows of ``games`` (see :meth:`seating`)."""
        opp = self.opponent[games, None]
        team = self.learner_team[games, None]
        learner = (opp == SELF) | (np.arange(self.num_players) % 2 == team)
        return np.where(learner, LEARNER, 1 + opp)

    # ------------------------------------------------------------ results
    def record(self, games: np.ndarray, winner: np.ndarray) -> None:
        """Elo updates and tallies for finished games (``winner``: team, -1 tie)."""
        for b, w in zip(games.tolist(), winner.tolist(), strict=True):
            opp = int(self.opponent[b])
            if opp == SELF:
                continue
            self.rate(self.name_of(opp), 0.5 if w < 0 else float(w == self.learner_team[b]))

    def rate(self, name: str, score: float) -> None:
        """The Elo update and tally of one game of the learner against ``name`` (``score``:
        1 won, 0.5 tie, 0 lost)."""
        k = self.cfg.elo_k
        ra, rb = self.ratings["learner"], self.ratings[name]
        expected = 1.0 / (1.0 + 10 ** ((rb - ra) / 400.0))
        self.ratings["learner"] = ra + k * (score - expected)
        self.ratings[name] = rb - k * (score - expected)
        self.tally.setdefault(name, []).append(score)

    def pop_tally(self) -> dict[str, tuple[float, int]]:
        """Each opponent's mean result and game count since the last call, then forget them."""
        out = {n: (float(np.mean(v)), len(v)) for n, v in self.tally.items()}
        self.tally = {}
        return out

    # ------------------------------------------------------------ checkpoints
    def state_dict(self) -> dict:
        """The league's state for a checkpoint: opponents, snapshots, ratings and each game's
        current opponent."""
        return {
            "agent_names": list(self.agent_names),
            "snapshots": [(name, net.state_dict()) for name, net in self.snapshots],
            "ratings": dict(self.ratings),
            "opponent": torch.from_numpy(self.opponent.copy()),
            "learner_team": torch.from_numpy(self.learner_team.copy()),
            "agent_rng": torch.from_numpy(self.agent_rng.copy()),
            "tally": {k: list(v) for k, v in self.tally.items()},
        }

    def check_state_dict(
        self, state, where: str = "league", shapes: dict[str, tuple[int, ...]] | None = None
    ) -> None:
        """CheckpointError naming the key (``where``.key) unless ``state`` (a
        :meth:`state_dict`) fits this league's games and network: distinct member names,
        the snapshots' weights those of this network (finite, :func:`check_weights`),
        a finite rating (within MAX_ELO_RATING) for the learner and every member, each
        game's opponent -1 (self) or a member of the saved league, its learner team 0 or
        1, its heuristics' generator state (four words, 0 <= word < 2**62, as drawn and
        kept by the generator) not all zero (a fixed point of xoshiro), tallies of scores
        in 0..1. ``shapes``: the network's weights' shapes (name -> shape), when the caller
        has them. Nothing is changed (the torch generator neither)."""
        if not isinstance(state, dict):
            raise CheckpointError(f"{where} is {type(state).__name__}, not a table")
        for key in ("agent_names", "snapshots", "ratings", "opponent", "learner_team"):
            if key not in state:
                raise CheckpointError(f"{where}.{key} is missing")
        names = state["agent_names"]
        if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
            raise CheckpointError(f"{where}.agent_names is {names!r:.80}, not a list of names")
        snapshots = state["snapshots"]
        if not isinstance(snapshots, (list, tuple)):
            raise CheckpointError(f"{where}.snapshots is {type(snapshots).__name__}, not a list")
        if shapes is None:  # a network of this spec, built without touching the run's
            with torch.random.fork_rng(devices=[]):  # generator (a resume stays exact)
                net = BurakoNet.from_spec(self.spec)
            shapes = {name: tuple(t.shape) for name, t in net.state_dict().items()}
        for i, entry in enumerate(snapshots):
            if not (
                isinstance(entry, (list, tuple)) and len(entry) == 2 and isinstance(entry[0], str)
            ):
                raise CheckpointError(
                    f"{where}.snapshots[{i}] is {entry!r:.80}, not a (name, weights) pair"
                )
            check_weights(
                entry[1], None, shapes, f"{where}.snapshots[{i}] ({entry[0]!r:.80}) weight"
            )
        members = names + [entry[0] for entry in snapshots]
        if len(set(members)) != len(members) or "learner" in members:
            raise CheckpointError(f"{where}: two members named alike in {members!r:.200}")
        ratings = state["ratings"]
        if not isinstance(ratings, dict):
            raise CheckpointError(f"{where}.ratings is {type(ratings).__name__}, not a table")
        for name in ["learner", *members]:
            if name not in ratings:
                raise CheckpointError(f"{where}.ratings lacks the rating of {name!r:.80}")
        for name, rating in ratings.items():
            if not isinstance(name, str):
                raise CheckpointError(f"{where}.ratings names {name!r:.80}, not a name")
            key = f"{where}.ratings[{name!r:.80}]"
            checked_number(rating, key, -MAX_ELO_RATING, MAX_ELO_RATING)
        games = len(self.opponent)
        opponent = checked_tensor(state["opponent"], f"{where}.opponent", torch.int64, (games,))
        bad = np.flatnonzero((opponent < SELF) | (opponent >= len(members)))
        if bad.size:
            i = int(bad[0])
            raise CheckpointError(
                f"{where}.opponent[{i}] is {opponent[i]}, expected -1 (self) or a member of "
                f"the league (0..{len(members) - 1})"
            )
        team = checked_tensor(state["learner_team"], f"{where}.learner_team", torch.int64, (games,))
        bad = np.flatnonzero((team != 0) & (team != 1))
        if bad.size:
            i = int(bad[0])
            raise CheckpointError(f"{where}.learner_team[{i}] is {team[i]}, expected 0 or 1")
        if "agent_rng" in state:
            rng = state["agent_rng"]
            # a checkpoint of an earlier version kept one state per game: (games, 4)
            legacy = isinstance(rng, torch.Tensor) and rng.dim() == 2
            words = checked_tensor(
                rng,
                f"{where}.agent_rng",
                torch.int64,
                (games, 4) if legacy else (games, self.num_players, 4),
            ).reshape(-1, 4)
            bad = np.flatnonzero(((words < 0) | (words >= 2**62)).any(1) | ~words.any(1))
            if bad.size:
                index = np.unravel_index(int(bad[0]), rng.shape[:-1])
                at = ", ".join(str(int(k)) for k in index)
                raise CheckpointError(
                    f"{where}.agent_rng[{at}] is {words[bad[0]].tolist()}, expected four "
                    "words in 0..2**62-1, not all zero (a generator state)"
                )
        tally = state.get("tally", {})
        if not isinstance(tally, dict):
            raise CheckpointError(f"{where}.tally is {type(tally).__name__}, not a table")
        for name, scores in tally.items():
            if not isinstance(name, str) or not isinstance(scores, list):
                raise CheckpointError(f"{where}.tally[{name!r:.80}] is not a list of scores")
            for k, score in enumerate(scores):
                checked_number(score, f"{where}.tally[{name!r:.80}][{k}]", 0.0, 1.0)

    def load_state_dict(self, state: dict) -> None:
        """Restore a checkpoint's league. Agents are matched by name, so a resume may
        change ``league.heuristics`` (``--set league.heuristics.random=0.05``): an agent
        new to the league enters at rating 1000, and games in flight against an agent the
        config no longer weights turn into self-play games, as when a snapshot leaves.
        The state is checked whole first (:meth:`check_state_dict`): a CheckpointError
        leaves the league as it was."""
        self.check_state_dict(state)
        saved_names = list(state["agent_names"])
        self.snapshots = []
        for name, sd in state["snapshots"]:
            net = BurakoNet.from_spec(self.spec)
            net.load_state_dict(sd)
            net.eval()
            self.snapshots.append((name, net))
        self.ratings = dict(state["ratings"])
        if "agent_rng" in state:
            self.agent_rng[...] = seat_generators(state["agent_rng"].numpy(), self.num_players)
        for key in ("opponent", "learner_team"):
            arr = state[key].numpy()
            if arr.shape != getattr(self, key).shape:
                raise ValueError(
                    f"league {key} has shape {arr.shape}, expected "
                    f"{getattr(self, key).shape} (another env.num_envs?)"
                )
            getattr(self, key)[...] = arr
        if saved_names != self.agent_names:
            self._rename_agents(saved_names, state["ratings"])
        self.tally = {k: list(v) for k, v in state["tally"].items()}

    def _rename_agents(self, saved_names: list[str], saved_ratings: dict) -> None:
        """Re-point the games in flight from the checkpoint's agent ids to this config's."""
        index = {name: i for i, name in enumerate(self.agent_names)}
        # old id -> new id: agents by name (SELF when dropped), snapshots shifted along
        remap = [index.get(name, SELF) for name in saved_names]
        remap += [len(self.agent_names) + k for k in range(len(self.snapshots))]
        opp = self.opponent
        member = opp >= 0
        opp[member] = np.asarray(remap, np.int64)[opp[member]]
        for name in saved_names:
            if name not in index:
                self.ratings.pop(name, None)
        for name in self.agent_names:
            if name not in saved_ratings:
                self.ratings[name] = 1000.0
