"""A search agent's decisions recorded as labels for training (expert iteration's data).

The teacher, a search agent (``ppo_search``, ``pimc``), plays every seat of ``hands``
hands; every decision with more than one legal action is recorded as the player's
observation, its legal actions, the teacher's choice and its *baseline* (the action it
would play without searching: the policy's argmax for ``ppo_search``, the rollout
policy's for ``pimc``), and whether it searched. The PPO trainer then learns the searched
decisions beside its own objective (``distill.data``, ``distill.coef``: a cross-entropy
term towards the teacher's choice, docs/TRAINING.md "Distilling a search"), so the policy
takes in what the search found at the decisions where the search looked.

    burako distill --hands 400 --workers 2 --out labels.npz   # the default teacher:
    # ppo_search:k=16,prior=0.02,rollout=policy,objective=win,budget_ms=0

    from burako_env.training.search_labels import collect_search_labels, SearchLabels
    labels = collect_search_labels("pimc:budget_ms=0,k=8", hands=4, seed=0)
    labels.save("labels.npz"); labels = SearchLabels.load("labels.npz")

Each hand is dealt from ``(seed, hand)`` and the teacher reseeded from the same pair
before it, so the labels depend on the seed and the hands alone, not on ``workers``
(each worker a process of its own, the hands shared out in order, the results joined in
hand order). Only the player's own observation is stored: what the teacher saw of the
hidden cards went into its choice, never into the file. The file is a NumPy ``.npz``
read without pickles, its every array checked on load (:meth:`SearchLabels.load` raises
a ValueError naming the file and the fault), and written beside its target and moved into
place only when complete.
"""

from __future__ import annotations

import json
import multiprocessing
import time
import zipfile
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from burako_env.core.constants import NUM_ACTIONS
from burako_env.records import file_sha256

#: the file format's version (``meta["format"]``); a file of another is refused
LABELS_FORMAT = 1
#: the arrays of a label file, in :class:`SearchLabels`' order
ARRAYS = ("obs", "flat", "offsets", "pick", "baseline", "searched", "hand")
#: each array's dtype, as :meth:`SearchLabels.save` writes it and ``load`` requires it
DTYPES = {
    "obs": np.dtype(np.int16),
    "flat": np.dtype(np.int16),
    "offsets": np.dtype(np.int64),
    "pick": np.dtype(np.int64),
    "baseline": np.dtype(np.int64),
    "searched": np.dtype(np.bool_),
    "hand": np.dtype(np.int64),
}
#: hands per task handed to a worker: small enough to share the work out evenly
HANDS_PER_TASK = 2


def hand_seeds(seed: int, hand: int) -> tuple[int, int]:
    """``(deal seed, teacher seed)`` of hand ``hand``: a function of the pair alone."""
    words = np.random.SeedSequence([int(seed), int(hand), 0x5EA2C4]).generate_state(4, np.uint32)
    return int(words[0]) << 31 | int(words[1]) >> 1, int(words[2]) << 31 | int(words[3]) >> 1


@dataclass
class SearchLabels:
    """Recorded decisions, flat: ``obs`` int16 [N, O] (the player's observation),
    the legal lists CSR (``flat`` int16 ids, ``offsets`` int64 [N + 1]), ``pick`` and
    ``baseline`` int64 [N] (positions in the legal list of the teacher's choice and of
    its unsearched choice), ``searched`` bool [N], ``hand`` int64 [N] (the hand each
    decision belongs to); ``meta``: the variant, players, teacher, seed, hands, the
    observation size and the collection's counts."""

    obs: np.ndarray
    flat: np.ndarray
    offsets: np.ndarray
    pick: np.ndarray
    baseline: np.ndarray
    searched: np.ndarray
    hand: np.ndarray
    meta: dict = field(default_factory=dict)

    def __len__(self) -> int:
        return int(self.pick.shape[0])

    @property
    def changed(self) -> np.ndarray:
        """Decisions where the search overruled the baseline."""
        return self.pick != self.baseline

    def legal_ids(self, i: int) -> np.ndarray:
        """The legal action ids of decision ``i``."""
        return self.flat[self.offsets[i] : self.offsets[i + 1]].astype(np.int64)

    def summary(self) -> str:
        """The labels in one line: decisions, hands, how many searched and how many overruled the
        baseline."""
        n = len(self)
        searched = int(self.searched.sum())
        changed = int((self.changed & self.searched).sum())
        return (
            f"{n:,} decisions of {self.meta.get('hands', '?')} hands, {searched:,} searched, "
            f"{changed:,} of them overruling the baseline"
        )

    # ------------------------------------------------------------ files
    def save(self, path: str | Path) -> None:
        """Write the labels to ``path`` (``.npz``), in one step: a temporary file beside
        it replaces it only once complete."""
        from burako_env.records import output_file

        with output_file(path) as tmp:
            with open(tmp, "wb") as fh:
                np.savez_compressed(
                    fh,
                    **{name: getattr(self, name) for name in ARRAYS},
                    meta=np.array(json.dumps(self.meta, sort_keys=True)),
                )

    @classmethod
    def load(cls, path: str | Path) -> SearchLabels:
        """The labels of a file :meth:`save` wrote; a ValueError naming the file and the
        fault for anything else (no pickles are ever read)."""
        path = Path(path)
        where = f"search-label file {str(path)!r}"
        if not path.is_file():
            raise ValueError(f"{where} does not exist (write one with burako distill)")
        try:
            with np.load(path, allow_pickle=False) as data:
                missing = [k for k in (*ARRAYS, "meta") if k not in data.files]
                if missing:
                    raise ValueError(f"{where} lacks the arrays {missing}: not a label file")
                arrays = {name: data[name] for name in ARRAYS}
                meta = json.loads(str(data["meta"][()]))
        except (OSError, zipfile.BadZipFile, EOFError, json.JSONDecodeError) as exc:
            raise ValueError(f"{where} cannot be read as a label file: {exc}") from exc
        except ValueError as exc:
            if str(exc).startswith(where):
                raise
            raise ValueError(f"{where} cannot be read as a label file: {exc}") from exc
        labels = cls(**arrays, meta=meta if isinstance(meta, dict) else {})
        labels.check(where)
        return labels

    def check(self, where: str = "search labels") -> None:
        """Raise a ValueError naming ``where`` and the fault unless every array has its
        dtype and shape and every index is in range."""
        meta = self.meta

        def need(ok, what: str) -> None:
            if not ok:
                raise ValueError(f"{where}: {what}")

        need(
            meta.get("format") == LABELS_FORMAT,
            f"format {meta.get('format')!r}, expected {LABELS_FORMAT}",
        )
        for key in ("variant", "params", "num_players", "obs_size", "teacher"):
            need(key in meta, f"its meta lacks {key!r}")
        for key in ("num_players", "obs_size"):
            need(type(meta[key]) is int and meta[key] > 0, f"meta {key!r} must be a count")
        params = meta["params"]
        need(isinstance(params, list) and all(type(v) is int for v in params),
             "meta 'params' must be a list of whole numbers")  # fmt: skip
        for name in ARRAYS:  # the dtypes save() writes: nothing is converted or wrapped
            need(getattr(self, name).dtype == DTYPES[name], f"{name} must be {DTYPES[name]}")
        n = len(self)
        need(self.obs.ndim == 2 and self.obs.shape == (n, meta["obs_size"]),
             f"obs has shape {self.obs.shape}, expected ({n}, {meta['obs_size']})")  # fmt: skip
        for name in ("pick", "baseline", "searched", "hand"):
            need(getattr(self, name).shape == (n,), f"{name} must have {n} entries")
        need(self.offsets.shape == (n + 1,), f"offsets must have {n + 1} entries")
        need(self.flat.ndim == 1, "flat must be one-dimensional")
        if n:
            counts = np.diff(self.offsets)
            need(self.offsets[0] == 0 and (counts >= 1).all(), "offsets must rise from 0")
            need(self.offsets[-1] == self.flat.shape[0], "offsets must end at flat's length")
            need(((self.flat >= 0) & (self.flat < NUM_ACTIONS)).all(), "an action id out of range")
            for name in ("pick", "baseline"):
                pos = getattr(self, name)
                need(((pos >= 0) & (pos < counts)).all(), f"{name}: a position past its list")

    def check_table(self, variant, obs_size: int, where: str) -> None:
        """Raise a ValueError unless these labels were recorded at the table of ``variant``
        (a :class:`~burako_env.variants.Variant`: the same rules and players)."""
        from burako_env.core.params import variant_params

        meta = self.meta
        ours = [int(v) for v in variant_params(variant)]
        if (
            list(meta.get("params", [])) != ours
            or int(meta["num_players"]) != variant.num_players
            or int(meta["obs_size"]) != int(obs_size)
        ):
            raise ValueError(
                f"{where} was recorded at {meta['variant']}, {meta['num_players']} players; "
                f"this run plays {variant.name}, {variant.num_players} players (the labels "
                "must come from the run's own table, the same rules)"
            )

    @classmethod
    def join(cls, parts: list[SearchLabels], meta: dict) -> SearchLabels:
        """The decisions of ``parts`` one after the other, with ``meta``."""
        offsets = [np.zeros(1, np.int64)]
        base = 0
        for p in parts:
            offsets.append(p.offsets[1:] + base)
            base += int(p.offsets[-1])
        obs_size = int(meta["obs_size"])

        def cat(name, dtype, shape=(0,)):
            arrays = [getattr(p, name) for p in parts]
            return np.concatenate(arrays) if arrays else np.zeros(shape, dtype)

        return cls(
            obs=cat("obs", np.int16, (0, obs_size)),
            flat=cat("flat", np.int16),
            offsets=np.concatenate(offsets),
            pick=cat("pick", np.int64),
            baseline=cat("baseline", np.int64),
            searched=cat("searched", np.bool_),
            hand=cat("hand", np.int64),
            meta=meta,
        )


@dataclass
class TrainingLabels:
    """The labels a run learns (``distill.data`` joined): ``labels``, the rows it draws
    from (``pool``: the searched ones with ``distill.searched_only``) and the files'
    digests."""

    labels: SearchLabels
    pool: np.ndarray
    digests: list[str]

    @classmethod
    def load(cls, paths: list[str], variant, obs_size: int, searched_only: bool):
        """Read and check ``paths`` for a run at ``variant``; a ValueError naming the
        config key and the file for a bad one, or when no decision is left to learn."""
        parts, digests = [], []
        for i, path in enumerate(paths):
            where = f"config key 'distill.data[{i}]' ({str(path)!r})"
            try:
                labels = SearchLabels.load(path)
            except ValueError as exc:
                raise ValueError(f"{where}: {exc}") from exc
            labels.check_table(variant, obs_size, where)
            parts.append(labels)
            digests.append(file_sha256(path))  # checked on resume
        joined = SearchLabels.join(parts, parts[0].meta)
        pool = np.flatnonzero(joined.searched) if searched_only else np.arange(len(joined))
        if pool.size == 0:
            what = "searched decision" if searched_only else "decision"
            raise ValueError(f"config key 'distill.data': the files hold no {what} to learn")
        return cls(joined, pool, digests)


def label_terms(net, labels: SearchLabels, rows: np.ndarray):
    """``(log-probability [R], argmax agrees [R])`` of the teacher's choices at ``rows``
    under ``net``'s policy, without a hint (the network's own logits): the distill term
    of training (:func:`burako_env.training.ppo.distill_loss`) and
    :func:`policy_agreement` both read them."""
    import torch

    from burako_env.training.transitions import csr_lists

    legal, valid = csr_lists(labels.flat, labels.offsets, rows)
    no_hint = torch.full((len(rows),), -1, dtype=torch.long)
    logits = net.heads(torch.from_numpy(labels.obs[rows]), legal, valid, no_hint).logits
    pick = torch.from_numpy(labels.pick[rows]).to(logits.device)
    logp = torch.log_softmax(logits, dim=-1).gather(1, pick[:, None]).squeeze(1)
    return logp, (logits.argmax(1) == pick).detach()


def policy_agreement(net, labels: SearchLabels, batch: int = 4096) -> dict:
    """How close a network (:class:`~burako_env.agents.network.BurakoNet`) plays to the
    teacher on ``labels``' searched decisions: ``agreement`` (its argmax is the
    teacher's choice), ``overruled_agreement`` (the same where the search overruled its
    baseline), ``cross_entropy`` (its mean, the distill term's), and the counts."""
    import torch

    rows = np.flatnonzero(labels.searched)
    changed = labels.changed[rows]
    agree = np.zeros(rows.size, np.bool_)
    total = 0.0
    net.eval()
    with torch.no_grad():
        for start in range(0, rows.size, batch):
            part = rows[start : start + batch]
            logp, agrees = label_terms(net, labels, part)
            total += float(-logp.sum())
            agree[start : start + part.size] = agrees.cpu().numpy()
    n = max(rows.size, 1)
    return {
        "searched": int(rows.size),
        "overruled": int(changed.sum()),
        "agreement": float(agree.mean()) if rows.size else float("nan"),
        "overruled_agreement": float(agree[changed].mean()) if changed.any() else float("nan"),
        "cross_entropy": total / n,
    }


# ---------------------------------------------------------------- collecting
def make_teacher(teacher: str):
    """The search agent named ``teacher``; a ValueError when the name is bad or the agent
    reports no search (no ``think``)."""
    from burako_env.agents import make_agent

    agent = make_agent(teacher)
    if not hasattr(agent, "think"):
        raise ValueError(
            f"teacher {teacher!r} reports no search (think): give a search agent, such as "
            "ppo_search or pimc (a compiled agent's play is imitation.teacher's)"
        )
    return agent


def _play_hands(teacher: str, variant: str, num_players: int, seed: int, hands) -> tuple:
    """Play ``hands`` (their indices) with ``teacher`` on every seat: ``(labels,
    decisions)``, the labels of every decision with a choice (no meta) and the count of
    all decisions, forced ones included."""
    from burako_env.core.game import Game

    agent = make_teacher(teacher)
    rows: dict[str, list] = {k: [] for k in ("obs", "ids", "pick", "baseline", "searched", "hand")}
    decisions = 0
    for h in hands:
        deal_seed, agent_seed = hand_seeds(seed, h)
        game = Game(variant, num_players=num_players, seed=deal_seed)
        agent.check_table(game.variant)
        agent.seed(agent_seed)
        while not game.is_over():
            legal = game.legal_actions()
            player = int(game.current_player[0])
            obs = game.observe_one(player) if legal.size > 1 else None
            report = agent.think(game)
            decisions += 1
            if obs is not None:
                ids = np.sort(legal)
                rows["obs"].append(obs)
                rows["ids"].append(ids.astype(np.int16))
                rows["pick"].append(int(np.flatnonzero(ids == report.action)[0]))
                rows["baseline"].append(int(np.flatnonzero(ids == report.baseline)[0]))
                rows["searched"].append(bool(report.candidates))
                rows["hand"].append(int(h))
            game.step_one(report.action)
    n = len(rows["pick"])
    counts = np.array([len(i) for i in rows["ids"]], np.int64)
    part = SearchLabels(
        obs=np.array(rows["obs"], np.int16).reshape(n, -1),
        flat=np.concatenate(rows["ids"]) if n else np.zeros(0, np.int16),
        offsets=np.concatenate([[0], np.cumsum(counts)]).astype(np.int64),
        pick=np.array(rows["pick"], np.int64),
        baseline=np.array(rows["baseline"], np.int64),
        searched=np.array(rows["searched"], np.bool_),
        hand=np.array(rows["hand"], np.int64),
    )
    return part, decisions


def _worker_init() -> None:
    import numba

    numba.set_num_threads(1)
    try:
        import torch

        torch.set_num_threads(1)
    except ImportError:  # a pimc teacher needs no torch
        pass


def collect_search_labels(
    teacher: str,
    hands: int,
    seed: int = 0,
    variant: str = "argentine",
    num_players: int | None = None,
    workers: int = 1,
    progress: bool = False,
) -> SearchLabels:
    """``teacher`` (a search agent's name with its settings) plays every seat of
    ``hands`` hands of ``variant``; its decisions with a choice, as :class:`SearchLabels`.
    ``workers`` processes share the hands (one thread each); the labels do not depend on
    their number."""
    from burako_env.core.constants import obs_layout
    from burako_env.core.params import variant_params
    from burako_env.variants import load_variant

    if int(hands) < 1:
        raise ValueError(f"hands must be at least 1, got {hands}")
    if int(workers) < 1:
        raise ValueError(f"workers must be at least 1, got {workers}")
    table = load_variant(variant, num_players=num_players)
    make_teacher(teacher).check_table(table)  # a bad name or table: here, before any process
    started = time.perf_counter()
    tasks = [range(a, min(a + HANDS_PER_TASK, hands)) for a in range(0, hands, HANDS_PER_TASK)]
    args = (teacher, variant, table.num_players, int(seed))
    bar = None
    if progress:
        from tqdm.auto import tqdm

        bar = tqdm(total=hands, unit="hand", desc="search labels")
    parts: list = []
    decisions = 0
    if workers == 1:
        for hs in tasks:
            part, d = _play_hands(*args, list(hs))
            parts.append(part)
            decisions += d
            if bar is not None:
                bar.update(len(hs))
    else:
        context = multiprocessing.get_context("spawn")  # numba's and torch's threads: no fork
        with ProcessPoolExecutor(int(workers), context, initializer=_worker_init) as pool:
            futures = [pool.submit(_play_hands, *args, list(hs)) for hs in tasks]
            for fut, hs in zip(futures, tasks, strict=True):  # in hand order
                part, d = fut.result()
                parts.append(part)
                decisions += d
                if bar is not None:
                    bar.update(len(hs))
    if bar is not None:
        bar.close()
    meta = {
        "format": LABELS_FORMAT,
        "variant": table.name,
        "params": [int(v) for v in variant_params(table)],
        "num_players": table.num_players,
        "obs_size": obs_layout(table.num_players, table.total_cards).size,
        "teacher": teacher,
        "seed": int(seed),
        "hands": int(hands),
        "decisions": decisions,
        "seconds": round(time.perf_counter() - started, 1),
        "workers": int(workers),
    }
    return SearchLabels.join(parts, meta)


__all__ = [
    "LABELS_FORMAT",
    "SearchLabels",
    "TrainingLabels",
    "collect_search_labels",
    "hand_seeds",
    "label_terms",
    "make_teacher",
    "policy_agreement",
]
