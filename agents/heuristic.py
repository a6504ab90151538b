"""The heuristic agents: ``greedy`` and ``discard_table`` (RULES.md section 11).

Both are numba policies (:mod:`burako_env.agents.policies`): ``act`` runs them over a batch in
parallel, and :meth:`~burako_env.agents.base.Agent.decides` hands them to compiled kernels
(the tournament plays heuristic-only games without leaving numba).
"""

from __future__ import annotations

import numpy as np

from burako_env.agents import policy_scores
from burako_env.agents.base import Agent, Compiled
from burako_env.agents.policies import POLICY_DISCARD_TABLE, POLICY_GREEDY, act_batch
from burako_env.agents.policy_scores import NUM_WEIGHTS, default_weights
from burako_env.agents.settings import parse_settings

#: the names of the weights (``danger_fit`` for ``W_DANGER_FIT``), in index order
WEIGHT_NAMES: tuple[str, ...] = tuple(
    name[2:].lower()
    for name, index in sorted(
        (
            (n, v)
            for n, v in vars(policy_scores).items()
            if n.startswith("W_") and isinstance(v, int)
        ),
        key=lambda item: item[1],
    )
)

#: ``discard_table`` with other weights: players of the same family and about the same
#: strength that no training run meets, so an evaluation against them tells learning from
#: tuning to discard_table itself (docs/STRATEGIES.md measures them)
WEIGHT_PRESETS: dict[str, dict[str, float]] = {
    # discards that could feed the opponents cost three times as much, piles are taken
    # only with three useful cards and kept small late, going out needs an even margin
    "cautious": {
        "danger_fit": 80,
        "danger_pile_pair": 60,
        "danger_known": 90,
        "danger_open": 12,
        "take_pile_useful": 3,
        "pile_max_late": 5,
        "go_out_margin": 0,
        "threat_hand": 7,
    },
    # sheds high-value junk first and barely minds what it feeds the opponents, keeps
    # piles small, values cards of closed canastas twice as much, adds wilds earlier
    "thrifty": {
        "danger_fit": 10,
        "danger_pile_pair": 8,
        "danger_known": 15,
        "take_pile_useful": 3,
        "pile_max_late": 5,
        "go_out_margin": 0,
        "closed_rank": 400,
        "value_discard": 3.0,
        "wild_add_min_size": 4,
    },
}


def weights_from(spec: dict[str, float]) -> np.ndarray:
    """The default weights with ``spec``'s entries (``danger_fit`` or ``W_DANGER_FIT``)
    replaced; an unknown name raises ValueError listing the known ones."""
    w = default_weights()
    for key, value in spec.items():
        name = key[2:].lower() if key.upper().startswith("W_") else key.lower()
        if name not in WEIGHT_NAMES:
            raise ValueError(f"unknown weight {key!r}; known: {', '.join(WEIGHT_NAMES)}")
        try:
            number = float(value)
        except (TypeError, ValueError):
            number = float("nan")
        if not np.isfinite(number):
            raise ValueError(f"weight {key!r} must be a finite number, got {value!r}")
        w[WEIGHT_NAMES.index(name)] = number
    return w


def parse_weight_spec(spec: str) -> dict[str, float]:
    """``cautious`` (a preset), ``danger_fit=60,go_out_margin=0`` or both
    (``cautious,go_out_margin=20``: the preset, then the changes) as a weight dict, read
    by the agents' one settings parser (:func:`~burako_env.agents.settings.parse_settings`)."""
    parsed = parse_settings(
        spec,
        "discard_table",
        None,
        "discard_table:cautious",
        WEIGHT_PRESETS,
        what="weight",
        named=WEIGHT_NAMES,
    )
    # the names are checked by weights_from (below); here the values
    out: dict[str, float] = {}
    for key, value in parsed.items():
        try:
            out[key] = float(value)
        except (TypeError, ValueError):
            raise ValueError(f"weight {key!r} must be a finite number, got {value!r}") from None
    if not out:
        raise ValueError(
            f"empty weight settings {spec!r}: give a preset ({', '.join(WEIGHT_PRESETS)}) "
            "or name=value pairs"
        )
    weights_from(out)  # unknown names fail here, before any agent exists
    return out


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
            w = weights_from(weights)
        elif weights is not None:
            weights = np.asarray(weights, np.float64)
            if weights.shape != (NUM_WEIGHTS,):
                raise ValueError(f"weights must have shape ({NUM_WEIGHTS},), got {weights.shape}")
            w = weights.copy()
        self.weights = w
        self._states: np.ndarray | None = None

    def seed(self, seed: int) -> None:
        """Reseed the agent; the compiled policy's per-game generator states are drawn again from
        the new seed."""
        super().seed(seed)
        self._states = None

    def _rng_states(self, batch: int) -> np.ndarray:
        if self._states is None or self._states.shape[0] != batch:
            self._states = self.rng.integers(1, 2**32, size=(batch, 4), dtype=np.int64)
        return self._states

    def act(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """The compiled policy's actions for the batch (one generator state per row, drawn from
        this agent's generator)."""
        obs = np.asarray(obs)
        return act_batch(self.policy_kind, obs, mask, self._rng_states(obs.shape[0]), self.weights)

    def decides(self) -> Compiled:
        """Compiled: this policy (``policy_kind``) with its weights, played inside the kernel."""
        return Compiled(self.policy_kind, self.weights)


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


def weighted_discard_table(spec: str, seed: int = 0) -> DiscardTableAgent:
    """``discard_table:cautious``, ``discard_table:danger_fit=60,go_out_margin=0``:
    discard_table with other weights (:func:`parse_weight_spec`), named by its spec."""
    agent = DiscardTableAgent(seed=seed, weights=parse_weight_spec(spec))
    agent.name = f"discard_table:{spec}"
    return agent


def compiled_heuristic(name: str, seed: int = 0) -> CompiledPolicyAgent:
    """The compiled heuristic ``name`` (``greedy``, ``discard_table``,
    ``discard_table:<weights>``), by the registry's names for them. The network reads one
    as its hint and resolves the name here, not through the registry
    (:func:`burako_env.agents.make_agent`), which imports the network back through the
    ``ppo`` agent; a ValueError for any other name."""
    kind, _, spec = name.partition(":")
    if kind == "greedy" and not spec:
        return GreedyAgent(seed=seed)
    if kind == "discard_table":
        return weighted_discard_table(spec, seed=seed) if spec else DiscardTableAgent(seed=seed)
    raise ValueError(
        f"{name!r} is not a compiled heuristic (greedy, discard_table, discard_table:<weights>)"
    )
