"""The transition store: a rollout's decisions, flat, with their legal lists.

The PPO trainer (:mod:`burako_env.training.ppo`) and its Ray rollout workers
(:mod:`burako_env.training.distributed`) fill one per rollout; behaviour cloning
(:mod:`burako_env.training.imitation`) records a teacher's decisions in one. It sits in a
module of its own, below all three, so none of them imports another for it.

A checkpoint's store (and the trainer's stream heads beside it) is checked whole before
it is copied in (:meth:`Transitions.check_state_dict`, :func:`check_rollout_section`):
the kernels here and the trainer's GAE index with ``next`` and ``offsets`` unchecked, so
a crafted ``next`` of 2**40 read memory out of bounds (issue 59).
"""

# Kernel module: the rules its kernels follow (burako_env/jit/__init__.py says why).
# - Its kernels call only the core and this file: the cache folder's name (the core's and
#   the jit's sources) and numba's own stamp (this file) cover nothing else.
# - Constants are module globals, compiled in; constant arguments go as np.int64/np.bool_.
# - burako_env.jit's @njit is link-only (kernels call it, Python cannot); Python calls
#   @njit_kernel, @njit_parallel or numba's own njit. A loop over games indexes np.uint64.

from __future__ import annotations

import numpy as np
from numba import njit

try:  # the train extra: torch is not a core dependency (burako_env.extras)
    import torch
except ImportError as exc:
    from burako_env.extras import MissingExtra

    raise MissingExtra("burako_env.training", "torch") from exc

from burako_env.agents.network import padded
from burako_env.agents.policy_file import CheckpointError
from burako_env.core.constants import NUM_ACTIONS
from burako_env.limits import MAX_TRAIN_STEPS
from burako_env.training.checkpoint import checked_int, checked_tensor

#: the largest log-probability, value or reward (in size) a checkpoint's store may hold:
#: rewards are margins / 1000 (clipped) and values their estimates, log-probabilities of
#: sampled actions a few dozen at most; 1e30 passed as finite and turned the update NaN
MAX_STORED_NUMBER = 1e6

#: this module defines compiled functions (agents/kernel_cache.py reads the mark)
KERNEL_MODULE = True


@njit(cache=True)
def gather_lists(flat, offsets, rows, out, counts):
    """Padded legal lists of ``rows`` from the CSR store (padding: the row's first id)."""
    for r in range(rows.shape[0]):
        i = rows[r]
        a, b = offsets[i], offsets[i + 1]
        counts[r] = b - a
        for k in range(out.shape[1]):
            out[r, k] = flat[a + k] if k < b - a else flat[a]


def csr_lists(flat, offsets, rows: np.ndarray) -> tuple[torch.Tensor, torch.Tensor]:
    """``(legal [R, K], valid [R, K])`` of rows ``rows`` of legal lists stored CSR."""
    counts = offsets[rows + 1] - offsets[rows]
    out = np.empty((len(rows), max(1, int(counts.max()))), np.int64)
    cnt = np.empty(len(rows), np.int64)
    gather_lists(flat, offsets, rows, out, cnt)
    return padded(out, cnt)


class Transitions:
    """The learner's transitions of a rollout, flat, in the order they happened.

    Legal lists are stored CSR (``flat`` ids, ``offsets``); ``next`` links a transition
    to the same seat's next decision in the same game (-1: none yet or episode over).
    """

    FIELDS = ("pick", "hint", "logp", "value", "reward", "done", "next", "oracle")

    def __init__(self, capacity: int, obs_size: int, oracle_size: int = 0) -> None:
        self.capacity = capacity
        self.obs = np.zeros((capacity, obs_size), np.int16)
        # the oracle critic's input (hidden hands, training only); no columns without one
        self.oracle = np.zeros((capacity, oracle_size), np.int8)
        self.pick = np.zeros(capacity, np.int64)
        self.hint = np.full(capacity, -1, np.int64)  # the hint policy's position, -1: none
        self.logp = np.zeros(capacity, np.float32)
        self.value = np.zeros(capacity, np.float32)
        self.reward = np.zeros(capacity, np.float32)
        self.done = np.zeros(capacity, np.bool_)
        self.next = np.full(capacity, -1, np.int64)
        self.offsets = np.zeros(capacity + 1, np.int64)
        self.flat = np.zeros(capacity * 16, np.int16)
        self.n = 0

    def add(self, obs, ids, counts, pick, logp, value, hint=None, oracle=None) -> np.ndarray:
        """Append ``len(counts)`` transitions (observations, legal lists, choices,
        log-probabilities, values, hints); their row indices."""
        k = len(counts)
        idx = np.arange(self.n, self.n + k)
        if self.n + k > self.capacity:
            raise RuntimeError("transition store full (a bug: capacity covers a rollout)")
        self.obs[idx] = obs
        self.pick[idx] = pick
        self.hint[idx] = -1 if hint is None else hint
        if oracle is not None:
            self.oracle[idx] = oracle
        self.logp[idx] = logp
        self.value[idx] = value
        self.reward[idx] = 0.0
        self.done[idx] = False
        self.next[idx] = -1
        ends = self.offsets[self.n] + np.cumsum(counts)
        need = int(ends[-1]) if k else 0
        if need > len(self.flat):
            self.flat = np.resize(self.flat, max(need, 2 * len(self.flat)))
        valid = np.arange(ids.shape[1])[None, :] < counts[:, None]
        self.flat[self.offsets[self.n] : need] = ids[valid]
        self.offsets[self.n + 1 : self.n + k + 1] = ends
        self.n += k
        return idx

    def lists(self, rows: np.ndarray) -> tuple[torch.Tensor, torch.Tensor]:
        """The padded legal lists of ``rows`` and their validity mask, as tensors."""
        return csr_lists(self.flat, self.offsets, rows)

    def keep_only(self, rows: np.ndarray, into: Transitions | None = None) -> None:
        """Move transitions ``rows`` (ascending) to the front of ``into`` (this store when
        None; another of the same capacity for the overlapped rollout); drop the rest."""
        out = self if into is None else into
        k = len(rows)
        counts = self.offsets[rows + 1] - self.offsets[rows]
        pieces = [self.flat[self.offsets[r] : self.offsets[r + 1]] for r in rows]
        flat = np.concatenate(pieces) if k else np.zeros(0, np.int16)
        out.obs[:k] = self.obs[rows]
        for name in self.FIELDS:
            getattr(out, name)[:k] = getattr(self, name)[rows]
        out.next[:k] = -1
        out.offsets[0] = 0
        out.offsets[1 : k + 1] = np.cumsum(counts)
        if len(flat) > len(out.flat):
            out.flat = np.resize(out.flat, 2 * len(flat))
        out.flat[: len(flat)] = flat
        out.n = k

    def state_dict(self) -> dict:
        """The stored transitions for a checkpoint (the pending ones of an overlapped rollout)."""
        n = self.n
        end = int(self.offsets[n])
        out = {
            "n": n,
            "obs": torch.from_numpy(self.obs[:n].copy()),
            "offsets": torch.from_numpy(self.offsets[: n + 1].copy()),
            "flat": torch.from_numpy(self.flat[:end].copy()),
        }
        for name in self.FIELDS:
            out[name] = torch.from_numpy(getattr(self, name)[:n].copy())
        return out

    def check_state_dict(self, state, where: str = "trainer.store") -> None:
        """CheckpointError naming the key (``where``.key) unless ``state`` (a
        :meth:`state_dict`) fits this store and holds what the code reading it relies on:
        at most ``capacity`` transitions; every array of its dtype and shape; ``offsets``
        from 0, each legal list of 1 to NUM_ACTIONS ids, ending at ``flat``'s length;
        ``flat`` action ids; ``pick`` and ``hint`` positions in their lists (``hint`` -1:
        none); ``logp``, ``value`` and ``reward`` finite, within MAX_STORED_NUMBER;
        ``next`` -1 or a later transition. Nothing is changed."""
        if not isinstance(state, dict):
            raise CheckpointError(f"{where} is {type(state).__name__}, not a table")
        for key in ("n", "obs", "offsets", "flat", *self.FIELDS):
            if key not in state and key not in ("hint", "oracle"):  # older checkpoints
                raise CheckpointError(f"{where}.{key} is missing")
        n = checked_int(state["n"], f"{where}.n", 0, self.capacity)
        checked_tensor(state["obs"], f"{where}.obs", torch.int16, (n, self.obs.shape[1]))
        if "oracle" in state:
            checked_tensor(
                state["oracle"], f"{where}.oracle", torch.int8, (n, self.oracle.shape[1])
            )
        arrays = {}
        for name in ("pick", "hint", "logp", "value", "reward", "done", "next"):
            if name in state:
                dtype = getattr(torch, str(getattr(self, name).dtype).replace("bool_", "bool"))
                arrays[name] = checked_tensor(state[name], f"{where}.{name}", dtype, (n,))
        offsets = checked_tensor(state["offsets"], f"{where}.offsets", torch.int64, (n + 1,))
        flat = checked_tensor(state["flat"], f"{where}.flat", torch.int16, (None,))
        counts = np.diff(offsets)
        if offsets[0] != 0:
            raise CheckpointError(f"{where}.offsets[0] is {offsets[0]}, expected 0")
        bad = np.flatnonzero((counts < 1) | (counts > NUM_ACTIONS))
        if bad.size:
            i = int(bad[0])
            raise CheckpointError(
                f"{where}.offsets[{i + 1}] is {offsets[i + 1]} after {offsets[i]}: each "
                f"legal list holds 1 to {NUM_ACTIONS} actions"
            )
        if offsets[n] != len(flat):
            raise CheckpointError(
                f"{where}.offsets[{n}] is {offsets[n]}, expected the length of flat ({len(flat)})"
            )
        bad = np.flatnonzero((flat < 0) | (flat >= NUM_ACTIONS))
        if bad.size:
            i = int(bad[0])
            raise CheckpointError(
                f"{where}.flat[{i}] is {flat[i]}, not an action id (0..{NUM_ACTIONS - 1})"
            )
        for name, low in (("pick", 0), ("hint", -1)):
            if name in arrays:
                bad = np.flatnonzero((arrays[name] < low) | (arrays[name] >= counts))
                if bad.size:
                    i = int(bad[0])
                    raise CheckpointError(
                        f"{where}.{name}[{i}] is {arrays[name][i]}, outside {low}.."
                        f"{counts[i] - 1} (a position in the transition's legal list)"
                    )
        for name in ("logp", "value", "reward"):
            bad = np.flatnonzero(~(np.abs(arrays[name]) <= MAX_STORED_NUMBER))  # NaN too
            if bad.size:
                i = int(bad[0])
                raise CheckpointError(
                    f"{where}.{name}[{i}] is {arrays[name][i]}, expected a finite number "
                    f"within +-{MAX_STORED_NUMBER:g}"
                )
        nxt = arrays["next"]
        bad = np.flatnonzero((nxt != -1) & ((nxt <= np.arange(n)) | (nxt >= n)))
        if bad.size:
            i = int(bad[0])
            raise CheckpointError(
                f"{where}.next[{i}] is {nxt[i]}, expected -1 or a later transition "
                f"({i + 1}..{n - 1})"
            )

    def load_state_dict(self, state: dict) -> None:
        """Restore a :meth:`state_dict`, checked whole first (:meth:`check_state_dict`:
        a CheckpointError leaves the store as it was)."""
        self.check_state_dict(state)
        n = int(state["n"])
        self.obs[:n] = state["obs"].numpy()
        for name in self.FIELDS:
            if name == "hint" and name not in state:  # a checkpoint from before hints
                self.hint[:n] = -1
                continue
            if name == "oracle" and name not in state:  # from before the oracle critic
                self.oracle[:n] = 0
                continue
            getattr(self, name)[:n] = state[name].numpy()
        self.offsets[: n + 1] = state["offsets"].numpy()
        flat = state["flat"].numpy()
        if len(flat) > len(self.flat):
            self.flat = np.resize(self.flat, 2 * len(flat))
        self.flat[: len(flat)] = flat
        self.n = n


def check_rollout_section(
    section, store: Transitions, games: int, players: int, where: str = "trainer"
) -> None:
    """CheckpointError naming the key unless ``section`` (a checkpoint's ``trainer``
    section, or a Ray worker's state: ``last``, ``ep_len``, ``store``) fits a trainer
    of ``games`` games of ``players`` seats whose store is ``store``: the store as
    :meth:`Transitions.check_state_dict` says, and ``last`` (each seat's pending
    transition) -1 or a distinct transition of the store that is still pending (no
    successor, not done), as the trainer links the next decision to it and the
    next rollout keeps it. Nothing is changed."""
    if not isinstance(section, dict):
        raise CheckpointError(f"{where} is {type(section).__name__}, not a table")
    for key in ("last", "ep_len", "store"):
        if key not in section:
            raise CheckpointError(f"{where}.{key} is missing")
    store.check_state_dict(section["store"], f"{where}.store")
    state = section["store"]
    n = state["n"]
    last = checked_tensor(section["last"], f"{where}.last", torch.int64, (games, players))
    ep_len = checked_tensor(section["ep_len"], f"{where}.ep_len", torch.int64, (games,))
    flat_last = last.reshape(-1)
    bad = np.flatnonzero((flat_last < -1) | (flat_last >= n))
    if bad.size:
        g, s = divmod(int(bad[0]), players)
        raise CheckpointError(
            f"{where}.last[{g}, {s}] is {last[g, s]}, expected -1 or a transition of the "
            f"store (0..{n - 1})"
        )
    heads = flat_last[flat_last >= 0]
    if len(np.unique(heads)) != len(heads):
        raise CheckpointError(f"{where}.last names a transition for two seats")
    nxt, done = state["next"].numpy(), state["done"].numpy()
    bad = heads[(nxt[heads] != -1) | done[heads]]
    if bad.size:
        raise CheckpointError(
            f"{where}.last names transition {bad[0]}, which is no longer pending (it has "
            "a successor or ended its episode)"
        )
    bad = np.flatnonzero((ep_len < 0) | (ep_len > MAX_TRAIN_STEPS))
    if bad.size:
        i = int(bad[0])
        raise CheckpointError(f"{where}.ep_len[{i}] is {ep_len[i]}, outside 0..{MAX_TRAIN_STEPS}")
    if not isinstance(section.get("collected", False), bool):
        raise CheckpointError(f"{where}.collected is {section['collected']!r:.80}, not a bool")
