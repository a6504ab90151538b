"""The reliability sweep: many random hands with the cheap invariants checked in compiled
code (docs/RELIABILITY.md).

    burako sweep --variant brazilian --hands 1000000

Every player count of the variant gets an equal share of the hands (``--players`` picks
one). A game slot plays hand after hand from its own generators, so the result depends
only on the seed, the hand count and the batch, never on the thread count.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from burako_env.checks import max_steps
from burako_env.core.game import Game, game_seeds
from burako_env.core.sweep import COUNTER_NAMES, NUM_COUNTERS, VIOLATIONS, sweep_kernel
from burako_env.jit import run_sliced, seconds_compiling, timed_without_compile
from burako_env.variants import load_variant

#: hands per kernel call: progress is reported between calls
CHUNK_HANDS = 16


@dataclass
class SweepResult:
    """Counts of one variant and player count (see ``core.sweep.COUNTER_NAMES``)."""

    variant: str
    players: int
    seconds: float  # the hands' wall time, compiles left out
    counts: dict[str, int]
    compile_seconds: float = 0.0  # compiling for these hands (cold kernels), left out

    @property
    def violations(self) -> int:
        """The hands that broke an invariant, over every counter of a violation."""
        return sum(self.counts[COUNTER_NAMES[i]] for i in VIOLATIONS)


@dataclass
class SweepReport:
    """What ``burako sweep`` reports: the variant, the seed, the meld bias and a result per player
    count."""

    variant: str
    seed: int
    meld_bias: float
    results: list[SweepResult] = field(default_factory=list)

    @property
    def hands(self) -> int:
        """The hands played, over every player count."""
        return sum(r.counts["hands"] for r in self.results)

    @property
    def violations(self) -> int:
        """The violations, over every player count."""
        return sum(r.violations for r in self.results)

    def __str__(self) -> str:
        compiled = sum(r.compile_seconds for r in self.results)
        lines = [
            f"sweep {self.variant}: {self.hands:,} random hands (meld bias {self.meld_bias}, "
            f"seed {self.seed}), {self.violations} violations"
            + (f"; hands/s leave out {compiled:.1f} s of compiling" if compiled > 0 else "")
        ]
        head = (
            f"{'players':>7} {'hands':>10} {'hands/s':>9} {'out':>7} {'out by meld':>11} "
            f"{'stock':>7} {'400 t':>6} {'direct':>8} {'bad cards':>9} {'no legal':>8} "
            f"{'too long':>8} {'bad out':>7}"
        )
        lines.append(head)
        for r in self.results:
            c = r.counts
            h = max(c["hands"], 1)
            rate = c["hands"] / max(r.seconds, 1e-9)
            lines.append(
                f"{r.players:>7} {c['hands']:>10,} {rate:>9,.0f} "
                f"{c['went_out'] / h:>7.1%} {c['went_out_by_melding'] / h:>11.2%} "
                f"{c['stock_end'] / h:>7.1%} {c['max_turns_end'] / h:>6.2%} "
                f"{c['direct_muertos'] / h:>8.3f} {c['cards_not_conserved']:>9} "
                f"{c['no_legal_action']:>8} {c['hand_too_long']:>8} "
                f"{c['went_out_without_conditions']:>7}"
            )
        return "\n".join(lines)


def player_counts(variant: str, players: int | None) -> list[int]:
    """The player counts a sweep plays: ``players`` alone, or every count the variant allows."""
    v = load_variant(variant, num_players=players)
    return [players] if players is not None else list(v.players)


def first_batch(variant: str, hands: int, players: int | None, batch: int) -> int:
    """The games side by side of :func:`sweep`'s games (every player count's)."""
    share = -(-hands // len(player_counts(variant, players)))
    return min(batch, share)


def sweep(
    variant: str = "argentine",
    hands: int = 100_000,
    *,
    players: int | None = None,
    seed: int = 0,
    batch: int = 256,
    meld_bias: float = 0.5,
    progress: Callable[[int, int], None] | None = None,
) -> SweepReport:
    """Play ``hands`` random hands of ``variant`` (shared among its player counts) and
    count the invariant violations. ``progress(done, total)`` is called between chunks.
    """
    if hands < 1:
        raise ValueError(f"hands must be at least 1, got {hands}")
    if batch < 1:
        raise ValueError(f"batch must be at least 1, got {batch}")
    if not 0.0 <= meld_bias <= 1.0:
        raise ValueError(f"meld_bias must be in [0, 1], got {meld_bias}")
    counts = player_counts(variant, players)
    report = SweepReport(variant=str(variant), seed=seed, meld_bias=meld_bias)
    share = -(-hands // len(counts))
    done_total = 0
    for n in counts:
        compiled_before = seconds_compiling()  # the deal's compile and the kernel's
        game = Game(variant, num_players=n, batch_size=min(batch, share), seed=seed)
        slots = game.batch_size
        per_slot = -(-share // slots)
        agent_rng = game_seeds(seed + 1_000_003, slots)
        counters = np.zeros((slots, NUM_COUNTERS), np.int64)
        bound = max_steps(game.variant)
        bias = int(round(meld_bias * 1000))
        played = 0
        with timed_without_compile() as timing:
            while played < per_slot:
                k = min(CHUNK_HANDS, per_slot - played)
                args = (game.state, game.params, agent_rng, k, bias, bound, counters)
                run_sliced(sweep_kernel, game.batch_size, *args)
                played += k
                if progress is not None:
                    progress(done_total + played * slots, len(counts) * per_slot * slots)
        done_total += per_slot * slots
        total = counters.sum(axis=0)
        report.results.append(
            SweepResult(
                variant=str(variant),
                players=n,
                seconds=timing["seconds"],
                counts={name: int(total[i]) for i, name in enumerate(COUNTER_NAMES)},
                compile_seconds=seconds_compiling() - compiled_before,
            )
        )
    return report


__all__ = [
    "CHUNK_HANDS",
    "SweepReport",
    "SweepResult",
    "first_batch",
    "player_counts",
    "sweep",
]
