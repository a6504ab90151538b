"""The heuristic agents: ``greedy`` and ``discard_table`` (RULES.md section 11).

Both are numba policies (:mod:`agents.policies`): ``act`` runs them over a batch in
parallel, and :meth:`~agents.base.Agent.compiled_policy` hands them to compiled kernels
(the tournament plays heuristic-only games without leaving numba).
"""

from __future__ import annotations

import numpy as np

from agents.base import Agent
from agents.policies import (
    NUM_WEIGHTS,
    POLICY_DISCARD_TABLE,
    POLICY_GREEDY,
    act_batch,
    default_weights,
)


class CompiledPolicyAgent(Agent):
    """An agent whose decisions are one of the compiled policies (``policy_kind``).

    ``weights`` (float64 [NUM_WEIGHTS]) tune the policy; missing entries take the
    defaults. Each batch row draws its ties from its own generator state, seeded from
    ``seed``.
    """

    policy_kind: int = POLICY_GREEDY

    def __init__(self, seed: int = 0, weights: np.ndarray | dict | None = None) -> None:
        super().__init__(seed)
        w = default_weights()
        if isinstance(weights, dict):
            from agents import policies

            for key, value in weights.items():
                w[getattr(policies, key if key.startswith("W_") else f"W_{key.upper()}")] = value
        elif weights is not None:
            weights = np.asarray(weights, np.float64)
            if weights.shape != (NUM_WEIGHTS,):
                raise ValueError(f"weights must have shape ({NUM_WEIGHTS},), got {weights.shape}")
            w = weights.copy()
        self.weights = w
        self._states: np.ndarray | None = None

    def seed(self, seed: int) -> None:
        super().seed(seed)
        self._states = None

    def _rng_states(self, batch: int) -> np.ndarray:
        if self._states is None or self._states.shape[0] != batch:
            self._states = self.rng.integers(1, 2**32, size=(batch, 4), dtype=np.int64)
        return self._states

    def act(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        obs = np.asarray(obs)
        return act_batch(self.policy_kind, obs, mask, self._rng_states(obs.shape[0]), self.weights)

    def act_with_states(self, obs: np.ndarray, mask: np.ndarray, states: np.ndarray) -> np.ndarray:
        """``act`` with explicit generator states (int64 [B, 4], advanced in place): the
        tournament uses one state per game and seat, as its compiled kernel does."""
        return act_batch(self.policy_kind, obs, mask, states, self.weights)

    def compiled_policy(self) -> tuple[int, np.ndarray]:
        return self.policy_kind, self.weights


class GreedyAgent(CompiledPolicyAgent):
    """Takes the pile when it can meld from it, lays every meld it can (highest value
    first, runs before groups where a card fits both), discards the least useful card."""

    name = "greedy"
    policy_kind = POLICY_GREEDY


class DiscardTableAgent(CompiledPolicyAgent):
    """Seed 000's player: discards by the table of RULES.md section 11 and melds by its
    advice (clean aces, suited 2s in runs, runs over groups, no dead runs, wilds kept for
    canastas, feeding the partner, going out when ahead or near the target)."""

    name = "discard_table"
    policy_kind = POLICY_DISCARD_TABLE
