"""PPO self-play with the rollouts on Ray: ``burako train --ray`` (docs/SCALING.md).

    from burako_env.training.run import train
    train("configs/train/tiny.yaml", ["distributed.workers=2"], ray=True)

``distributed.workers`` rollout actors (:class:`RolloutWorker`) each play their share of
``env.num_envs`` games: their own :class:`~burako_env.envs.vector.VectorEnv`, their own
league opponents (the heuristics with their per-game generators, and copies of the
learner's frozen snapshots), their own sampling generator. Every update the learner
(:class:`DistributedTrainer`) broadcasts its weights; each actor collects
``ppo.num_steps`` steps of its games exactly as the single-machine trainer does, computes
the advantages along its own seats' streams (a stream never leaves its game), keeps its
pending transitions for the next rollout, and sends back the trainable transitions with
their advantages, its finished games' league results and its new state. The learner
joins the workers' transitions in worker order, runs the PPO epochs, applies the league
results to the Elo ratings (worker by worker) and broadcasts again.

**Reproducible.** Worker ``i``'s games and generators are seeded from (seed, i), so a
run is fixed by its seed and its worker count (not the same numbers as the
single-machine run, which plays all the games in one batch).

**Faults.** The learner holds each worker's state as of its last finished call. When an
actor dies (its process killed, its machine lost), the learner starts a new one, gives
it that state and the league's snapshots, and repeats the call: the rollout it collects
is the one the dead actor would have sent, so the run goes on unchanged.

**Checkpoints** hold the workers' states in place of the single-machine ``env`` and
``trainer`` sections, so ``--resume --ray`` continues a run exactly.
"""

from __future__ import annotations

import dataclasses
import time
from pathlib import Path

import numpy as np

try:  # the train extra: torch is not a core dependency (burako_env.extras)
    import torch
except ImportError as exc:
    from burako_env.extras import MissingExtra

    raise MissingExtra("burako_env.training", "torch") from exc

from burako_env.agents.network import BurakoNet
from burako_env.envs.vector import VectorEnv
from burako_env.training.checkpoint import CheckpointError, env_state, load_env_state
from burako_env.training.config import TrainConfig, load_config
from burako_env.training.league import League
from burako_env.training.ppo import Trainer
from burako_env.training.transitions import Transitions, check_rollout_section

#: times the learner replaces a dead rollout actor for one call before giving up
ACTOR_RETRIES = 3


def worker_seed(seed: int, index: int) -> int:
    """The seed of rollout worker ``index`` of a run seeded ``seed``."""
    w = np.random.SeedSequence([int(seed), int(index), 0x7011]).generate_state(2, np.uint32)
    return int(w[0]) << 31 | int(w[1]) >> 1


def worker_games(num_envs: int, workers: int) -> list[int]:
    """Games of each worker: ``num_envs`` split as evenly as can be."""
    return [num_envs // workers + (i < num_envs % workers) for i in range(workers)]


def weights_of(net: torch.nn.Module) -> dict[str, torch.Tensor]:
    """A CPU copy of ``net``'s weights, detached: what the learner sends its rollout actors."""
    return {k: v.detach().cpu().clone() for k, v in net.state_dict().items()}


class RolloutWorker(Trainer):
    """One rollout actor: the rollout half of a :class:`~burako_env.training.ppo.Trainer` (its
    ``collect``, ``advantages`` and ``keep_pending``) on its own share of the games."""

    def __init__(self, config: dict, index: int, num_envs: int, spec: dict) -> None:
        import numba

        cfg = load_config(config)
        self.cfg = cfg
        self.index = index
        threads = cfg.distributed.threads
        torch.set_num_threads(threads)
        numba.set_num_threads(max(1, min(threads, numba.config.NUMBA_NUM_THREADS)))
        seed = worker_seed(cfg.seed, index)
        self.rng = np.random.default_rng(seed)
        self.generator = torch.Generator().manual_seed(seed + 1)
        e = cfg.env
        self.env = VectorEnv(
            e.variant,
            e.num_players,
            num_envs=num_envs,
            seed=seed,
            episode=e.episode,
            reward=e.reward,
        )
        self.num_players = self.env.num_players
        self.obs_size = self.env.observation_size
        self.net = BurakoNet.from_spec(spec)
        self.actor = self.net  # the rollout's network: the learner's weights, sent each call
        self.league = League(
            cfg.league,
            spec,
            num_envs,
            self.num_players,
            self.rng,
            seed=cfg.seed,
            generator=self.generator,
        )
        capacity = num_envs * cfg.ppo.num_steps + num_envs * self.num_players
        self.store = Transitions(capacity, self.obs_size)
        self.last = np.full((num_envs, self.num_players), -1, np.int64)
        self.ep_len = np.zeros(num_envs, np.int64)
        self.open_table(seed)
        self.stats: dict[str, list[float]] = {}

    # ------------------------------------------------------------ the calls
    def rollout(self, weights: dict) -> dict:
        """Collect ``ppo.num_steps`` steps of every game with ``weights``; the trainable
        transitions with their advantages, the episode stats, the league results and this
        worker's new state."""
        self.net.load_state_dict(weights)
        self.collect()
        adv, returns, rows = self.advantages()
        store = self.store
        starts, ends = store.offsets[rows], store.offsets[rows + 1]
        counts = ends - starts
        # the rows' legal lists, CSR: element e of row r is flat[starts[r] + e]
        within = np.arange(int(counts.sum())) - np.repeat(np.cumsum(counts) - counts, counts)
        batch = {
            "obs": store.obs[rows].copy(),
            "pick": store.pick[rows].copy(),
            "hint": store.hint[rows].copy(),
            "logp": store.logp[rows].copy(),
            "value": store.value[rows].copy(),
            "oracle": store.oracle[rows].copy(),
            "adv": adv[rows],
            "returns": returns[rows],
            "counts": counts,
            "flat": store.flat[np.repeat(starts, counts) + within].copy(),
            "pending": store.n - len(rows),
        }
        self.keep_pending()
        stats, self.stats = self.stats, {}
        tally, self.league.tally = self.league.tally, {}
        return {"batch": batch, "stats": stats, "tally": tally, "state": self.get_state()}

    def add_snapshot(self, weights: dict, update: int) -> dict:
        """The learner's frozen copy at ``update`` joins this worker's league; its new state."""
        self.net.load_state_dict(weights)
        self.league.add_snapshot(self.net, update)
        self.reseat()
        return self.get_state()

    def get_state(self) -> dict:
        """Everything this worker's future depends on but the league's snapshots (which the
        learner holds): checkpoint-ready (tensors and plain values)."""
        league = self.league.state_dict()
        league.pop("snapshots")
        return {
            "env": env_state(self.env),
            "last": torch.from_numpy(self.last.copy()),
            "ep_len": torch.from_numpy(self.ep_len.copy()),
            "store": self.store.state_dict(),
            "league": league,
            "rng": {
                "numpy": self.rng.bit_generator.state,
                "sampling": self.generator.get_state(),
            },
            "games": len(self.last),
        }

    def set_state(self, state: dict, snapshots: list) -> None:
        """Restore :meth:`get_state`'s ``state``, the league holding ``snapshots``
        (``(name, state dict)`` pairs)."""
        if int(state["games"]) != len(self.last):
            raise CheckpointError(
                f"rollout worker {self.index} plays {len(self.last)} games, its saved state "
                f"{int(state['games'])} (another env.num_envs or distributed.workers?)"
            )
        check_rollout_section(state, self.store, *self.last.shape, f"workers[{self.index}]")
        load_env_state(self.env, state["env"])
        self.last[...] = state["last"].numpy()
        self.ep_len[...] = state["ep_len"].numpy()
        self.store.load_state_dict(state["store"])
        self.league.load_state_dict({**state["league"], "snapshots": snapshots})
        self.reseat()
        self.table.wait()  # every saved game waits for the learner
        self.rng.bit_generator.state = state["rng"]["numpy"]
        self.generator.set_state(state["rng"]["sampling"])
        self.stats = {}

    def ping(self) -> int:
        """This actor's index: a call that answers once the actor is up."""
        return self.index


class DistributedTrainer(Trainer):
    """The learner of a run on Ray: the :class:`~burako_env.training.ppo.Trainer` whose rollouts
    come from ``distributed.workers`` :class:`RolloutWorker` actors."""

    def __init__(self, cfg: TrainConfig, run_dir: Path) -> None:
        from burako_env.distributed import require_ray

        # `overlap` is one machine's setting (the shipped configs set it): on Ray the
        # rollouts are the workers', so the learner plays none beside its update
        cfg = dataclasses.replace(cfg, overlap=False)
        super().__init__(cfg, run_dir)
        self.ray = require_ray()
        d = cfg.distributed
        self.games = worker_games(cfg.env.num_envs, d.workers)
        self.actor_class = self.ray.remote(num_cpus=d.threads, max_restarts=0)(RolloutWorker)
        self.actors = [self._start(i) for i in range(d.workers)]
        self.worker_states: list[dict] = self.ray.get([a.get_state.remote() for a in self.actors])
        self.actor_restarts = 0

    def _start(self, index: int):
        return self.actor_class.remote(
            self.cfg.to_dict(), index, self.games[index], self.net.spec()
        )

    def _snapshot_dicts(self) -> list:
        return [(name, net.state_dict()) for name, net in self.league.snapshots]

    def _on_workers(self, call, snapshots: list) -> list:
        """``call(actor)`` on every worker, in parallel; a worker whose actor dies is
        restarted from its last state (with ``snapshots``) and called again."""
        ray = self.ray
        refs = [call(actor) for actor in self.actors]
        out = []
        for i, ref in enumerate(refs):
            for attempt in range(ACTOR_RETRIES + 1):
                try:
                    out.append(ray.get(ref))
                    break
                except (ray.exceptions.RayActorError, ray.exceptions.WorkerCrashedError) as exc:
                    if attempt == ACTOR_RETRIES:
                        raise RuntimeError(
                            f"rollout worker {i} died {ACTOR_RETRIES + 1} times in a row: {exc}"
                        ) from exc
                    self.actor_restarts += 1
                    self.actors[i] = self._start(i)
                    self.actors[i].set_state.remote(self.worker_states[i], snapshots)
                    ref = call(self.actors[i])
        return out

    # ------------------------------------------------------------ the rollout
    def collect(self) -> None:
        """Every worker's rollout with the learner's current weights, gathered into the store
        with its advantages and returns (a worker that dies is restarted from its state)."""
        started = time.perf_counter()
        store = self.store
        weights = self.ray.put(weights_of(self.net))
        results = self._on_workers(lambda a: a.rollout.remote(weights), self._snapshot_dicts())
        store.n = 0
        advs, rets = [], []
        self.pending = 0
        for res in results:
            b = res["batch"]
            k = len(b["counts"])
            idx = np.arange(store.n, store.n + k)
            store.obs[idx] = b["obs"]
            for name in ("pick", "hint", "logp", "value", "oracle"):
                getattr(store, name)[idx] = b[name]
            ends = store.offsets[store.n] + np.cumsum(b["counts"])
            need = int(ends[-1]) if k else int(store.offsets[store.n])
            if need > len(store.flat):
                store.flat = np.resize(store.flat, max(need, 2 * len(store.flat)))
            store.flat[store.offsets[store.n] : need] = b["flat"]
            store.offsets[store.n + 1 : store.n + k + 1] = ends
            store.n += k
            advs.append(b["adv"])
            rets.append(b["returns"])
            self.pending += int(b["pending"])
            for key, values in res["stats"].items():
                self.stats.setdefault(key, []).extend(values)
            for name, scores in res["tally"].items():
                for score in scores:
                    self.league.rate(name, score)
        self.worker_states = [res["state"] for res in results]
        self.batch_adv = np.concatenate(advs) if advs else np.zeros(0, np.float32)
        self.batch_returns = np.concatenate(rets) if rets else np.zeros(0, np.float32)
        self.rollout_seconds = time.perf_counter() - started

    def collect_unless_collected(self) -> None:
        """Always :meth:`collect`: the workers hold their rollouts, a checkpoint never holds one."""
        self.collect()  # the workers hold their rollouts: a checkpoint never holds one

    def learn(self) -> dict:
        """PPO epochs over the gathered rollout; the update's statistics."""
        n = self.store.n
        scalars = self.ppo_update(self.batch_adv, self.batch_returns, np.arange(n))
        scalars["charts/pending_transitions"] = float(self.pending)
        scalars["charts/actor_restarts"] = float(self.actor_restarts)
        self.store.n = 0
        return scalars

    def add_snapshot(self) -> None:
        """A frozen copy of the learner joins the league, here and in every worker."""
        before = self._snapshot_dicts()
        super().add_snapshot()
        weights = self.ray.put(weights_of(self.net))
        update = self.update
        self.worker_states = self._on_workers(
            lambda a: a.add_snapshot.remote(weights, update), before
        )

    # ------------------------------------------------------------ checkpoints
    def rollout_state(self) -> dict:
        """The workers' states, for a checkpoint."""
        return {"workers": list(self.worker_states)}

    def load_rollout_state(self, data: dict, path: Path) -> None:
        """Restore :meth:`rollout_state` from checkpoint ``data`` (read from ``path``): a
        CheckpointError for a run on one machine or another count of workers."""
        if "workers" not in data:
            raise CheckpointError(
                f"checkpoint {str(path)!r} is of a run on one machine: resume it without --ray"
            )
        states = data["workers"]
        if len(states) != len(self.actors):
            raise CheckpointError(
                f"checkpoint {str(path)!r} holds {len(states)} rollout workers, the config "
                f"asks for distributed.workers={len(self.actors)}"
            )
        self.worker_states = list(states)
        snapshots = [(name, sd) for name, sd in data["league"]["snapshots"]]
        try:
            self.ray.get(
                [a.set_state.remote(s, snapshots) for a, s in zip(self.actors, states, strict=True)]
            )
        except self.ray.exceptions.RayTaskError as exc:
            cause = getattr(exc, "cause", None)
            if isinstance(cause, CheckpointError):
                raise cause from None
            raise CheckpointError(f"checkpoint {str(path)!r} does not fit this run: {exc}") from exc

    def close(self) -> None:
        """Stop the rollout actors."""
        for actor in self.actors:
            self.ray.kill(actor)
