"""The transition store: a rollout's decisions, flat, with their legal lists.

The PPO trainer (:mod:`burako_env.training.ppo`) and its Ray rollout workers
(:mod:`burako_env.training.distributed`) fill one per rollout; behaviour cloning
(:mod:`burako_env.training.imitation`) records a teacher's decisions in one. It sits in a
module of its own, below all three, so none of them imports another for it.
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

    def load_state_dict(self, state: dict) -> None:
        """Restore the transitions :meth:`state_dict` saved."""
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
