"""``pimc``: perfect-information Monte Carlo search, compiled.

At each decision of the player to act with more than one legal action, the agent draws K
determinizations of the game for that player (:meth:`Game.determinize
<burako_env.core.game.Game.determinize>`: every card hidden from them dealt again,
consistently with what they know), and for every candidate action plays each
determinization to the end of the hand with a compiled rollout policy on every seat
(``greedy``, ``discard_table`` or ``random`` of :mod:`burako_env.agents.policies`). It picks the
candidate with the best mean team score margin of the hand (``objective=margin``), or
the best share of hands its team wins (``objective=win``: in a match, hands after which
the team leads the match; a tie counts half).

The search sees hidden information only through the determinizations: the kernel's
first act on the real game is to copy it and deal its hidden cards again, and nothing
else reads the real game's hidden cards. Every candidate is played on the same
determinizations with the same rollout generator states (common random numbers: the
candidates' values differ by what the actions do, not by luck of the deal).

Settings, in the agent's name (``pimc:k=64,rollout=greedy``) or as keyword arguments:

* ``k``: determinizations per decision (default 24: about 45 ms a decision on one core of
  this machine, docs/STRATEGIES.md). With ``candidates=all``, each legal action is
  played on all of them.
* ``rollout``: the policy playing every seat in the rollouts: ``discard_table`` (default),
  ``greedy`` or ``random``.
* ``candidates``: ``all`` (every legal action on all ``k`` determinizations, plain PIMC) or
  ``halving`` (default: sequential halving, Karnin et al. 2013: rounds on fresh
  determinizations, each keeping the better half of the candidates, the baseline
  below always among them; about the same ``k`` times the number of legal actions
  rollouts as plain PIMC, spent mostly on the actions that matter; see
  :func:`halving_schedule`).
* ``objective``: ``margin`` (default) or ``win``.
* ``z``: how sure the search must be to overrule the rollout policy (default 1.0). The
  policy's own action for the player to act (from their observation) is the baseline
  and always a candidate; the best candidate replaces it only when its mean gain over
  the baseline, paired on the same determinizations, is more than ``z`` standard errors
  above zero. With few determinizations the largest of many noisy means is mostly
  luck (the winner's curse); this keeps the search from playing worse than its rollout
  policy. ``z=0``: plain argmax.
* ``budget_ms``: wall-clock bound of one decision in milliseconds (default 250; 0: none). The
  search runs in rounds; once a round ends past the budget, the best candidate so far
  is played (the first round always completes). When the budget binds, the decision
  depends on the machine's speed; ``budget_ms=0`` plays bit for bit the same on any
  machine for a seed.
* ``threads``: numba threads for the search (default 1; determinizations are split over them).

``agent.stats()`` reports decisions, searched decisions, rollouts, milliseconds per
decision and how often the budget bound.

``agent.think(game, b)`` decides as ``act_game`` does (the same search: the same seed
plays the same action) and returns a :class:`SearchReport` besides: every candidate's
mean hand margin over the determinizations it was played on (its re-deals), with a 95%
interval, its share of hands won, and its paired gain over the baseline, which decides.
``act_game`` keeps the last report in ``agent.last_report`` (the web table's "how the bot
thinks", ``burako_env.frontends.thinking``).

The agent needs the game, not only an observation: it implements
:meth:`~burako_env.agents.base.Agent.act_game`, which the tournament, ``burako play``, the web
table and the PettingZoo env's helper :func:`burako_env.table.act_in_env` call.
"""

# Kernel module: the rules its kernels follow (burako_env/jit/__init__.py says why).
# - Imports at the top: numpy, numba, burako_env.jit, the core, modules that declare
#   KERNEL_MODULE = True, and classes only: a kernel compiles in the globals it reads,
#   and the cache stamps cover only the core's, the jit's and kernel modules' sources.
# - Constants are module globals, compiled in; constant arguments go as np.int64/np.bool_.
# - @njit is link-only (kernels call it, Python cannot); Python calls @njit_kernel and
#   @njit_parallel. A loop over games names its index np.uint64 on its first line.
# - Whole games: a serial kernel of a slice (first, last) that borrows its arrays
#   (borrowed) and runs under run_sliced; a prange body never writes through an attribute.

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import numba
import numpy as np

from burako_env.agents.base import Agent, PerGame
from burako_env.agents.policies import (
    POLICY_DISCARD_TABLE,
    POLICY_GREEDY,
    POLICY_NAMES,
    POLICY_RANDOM,
    act_batch,
    act_serial,
    decide_nb,
)
from burako_env.agents.policy_context import new_workspace as policy_workspace
from burako_env.agents.policy_scores import NUM_WEIGHTS, default_weights
from burako_env.core.constants import (
    NUM_ACTIONS,
    S_DONE,
    S_HAND_JUST_ENDED,
    S_HAND_SCORE0,
    S_MATCH0,
    S_PLAYER,
)
from burako_env.core.determinize import copy_game_nb, determinize_into_nb
from burako_env.core.kernels import game_kernel, mask_kernel, sorted_legal_nb
from burako_env.core.observe import observe_one_nb
from burako_env.core.rules import apply_action_nb
from burako_env.core.state import allocate_state
from burako_env.jit import borrowed, njit, njit_kernel, run_sliced

#: this module defines compiled functions (agents/kernel_cache.py reads the mark)
KERNEL_MODULE = True

#: actions a rollout may take before it gives up (max_turns bounds a hand far below)
MAX_ROLLOUT_STEPS = 20000
OBJECTIVES = ("margin", "win")
CANDIDATES = ("all", "halving")
ROLLOUT_POLICIES = {
    "random": POLICY_RANDOM,
    "greedy": POLICY_GREEDY,
    "discard_table": POLICY_DISCARD_TABLE,
}
DEFAULTS: dict[str, Any] = {
    "k": 24,
    "rollout": "discard_table",
    "candidates": "halving",
    "objective": "margin",
    "z": 1.0,
    "budget_ms": 250,
    "threads": 1,
}
#: V_* columns of the values the kernel writes per (determinization, candidate)
V_MARGIN = 0  # the hand's score margin of the searching player's team
V_WIN = 1  # 1 won, 0.5 tie, 0 lost (hand episodes: the hand; matches: the match lead)
NUM_VALUES = 2


# ---------------------------------------------------------------- compiled search
@njit
def rollout_nb(st, j, params, lay, kind, w, rng, obs, x, rows, legal, max_steps):
    """Play game ``j`` with policy ``kind`` on every seat until its hand ends; returns the
    steps taken (-1 when ``max_steps`` cut it off)."""
    steps = 0
    while True:
        s = st.scalars[j]
        if s[S_DONE] or s[S_HAND_JUST_ENDED]:
            return steps
        if steps >= max_steps:
            return -1
        n = sorted_legal_nb(st, j, params, legal)
        st.num_legal[j] = n
        p = s[S_PLAYER]
        if kind != POLICY_RANDOM and n > 1:
            observe_one_nb(st, j, p, params, lay, obs)
        a = decide_nb(kind, obs, legal, n, lay, rng, w, x, rows)
        apply_action_nb(st, j, a, params)
        steps += 1


@njit
def hand_values_nb(st, j, team, out):
    """The searching team's margin and win value of game ``j``'s finished hand."""
    s = st.scalars[j]
    out[V_MARGIN] = s[S_HAND_SCORE0 + team] - s[S_HAND_SCORE0 + 1 - team]
    # match points: in a hand episode the hand's scores, in a match the totals after it
    own = s[S_MATCH0 + team]
    other = s[S_MATCH0 + 1 - team]
    out[V_WIN] = 1.0 if own > other else (0.5 if own == other else 0.0)


@njit_kernel
def search_kernel(
    src,
    b,
    viewer,
    params,
    lay,
    cands,
    det_words,
    roll_words,
    kind,
    w,
    dets,
    rolls,
    obs,
    x,
    rows,
    values,
    max_steps,
    first,
    last,
):
    """For every determinization k (``det_words[k]``) of game ``b`` of ``src`` for
    ``viewer`` and every candidate ``cands[c]``: apply it, play the hand out, write the
    values in ``values[k, c]``. Slot k of ``dets`` / ``rolls`` is determinization k's work
    space; ``obs``, ``x``, ``rows`` are per-slot policy work space. Determinizations
    ``first`` to ``last - 1``: :func:`~burako_env.jit.slicing.run_sliced` runs slices of
    them on threads."""
    src, dets, rolls = borrowed((src, dets, rolls))
    cands, det_words, roll_words, w = borrowed((cands, det_words, roll_words, w))
    obs, x, rows, values = borrowed((obs, x, rows, values))
    team = viewer % 2
    n_cand = cands.shape[0]
    for k_ in range(first, last):
        k = np.uint64(k_)  # the index type of every kernel: callees compile once
        determinize_into_nb(src, b, viewer, params, dets, k, det_words[k])
        legal = np.empty(NUM_ACTIONS, np.int64)
        rng = np.empty(4, np.int64)
        for c in range(n_cand):
            copy_game_nb(dets, k, rolls, k)
            rng[:] = roll_words[k]  # the same rollout luck for every candidate
            apply_action_nb(rolls, k, cands[c], params)
            steps = rollout_nb(
                rolls, k, params, lay, kind, w, rng, obs[k], x[k], rows[k], legal, max_steps
            )
            if steps < 0:
                values[k, c, V_MARGIN] = 0.0
                values[k, c, V_WIN] = 0.5
            else:
                hand_values_nb(rolls, k, team, values[k, c])


# ---------------------------------------------------------------- the schedule
def halving_schedule(n: int, k: int) -> list[tuple[int, int]]:
    """Sequential halving of ``n`` candidates for a plain-PIMC budget of ``k * n``
    rollouts: rounds of (candidates kept, determinizations), halving the candidates
    each round over ceil(log2 n) rounds; each round gets an equal share of the budget,
    at least one determinization per candidate, and the last two candidates share what
    is left. With n <= 2 it is plain PIMC."""
    if n <= 2:
        return [(n, k)]
    rounds = int(np.ceil(np.log2(n)))
    share = k * n / rounds
    out = []
    alive = n
    for _ in range(rounds):
        out.append((alive, max(1, int(share // alive))))
        alive = max(1, (alive + 1) // 2)
        if alive == 1:
            break
    return out


# ---------------------------------------------------------------- the report
#: the normal quantile of a two-sided 95% interval
Z95 = 1.959963984540054


def _interval(total: float, squares: float, n: int) -> tuple[float, float, float | None]:
    """Mean and the half-width of its 95% interval (normal approximation, the sample's
    standard deviation) of ``n`` values given their sum and sum of squares; the half-width
    is None below 2 values."""
    mean = total / n if n else 0.0
    if n < 2:
        return mean, 0.0, None
    var = max(squares / n - mean * mean, 0.0) * n / (n - 1)
    return mean, float(np.sqrt(var / n)), Z95 * float(np.sqrt(var / n))


@dataclass(frozen=True)
class CandidateReport:
    """One candidate action of a search, over the ``redeals`` determinizations (re-deals
    of the hidden cards) it was played on. ``margin``: the mean hand score margin of the
    searching player's team (points), ``margin_ci``: its 95% interval's half-width (None
    with fewer than 2 re-deals); ``win``: the share of those hands the team won (a tie
    counts half; in a match, the match lead after the hand); ``gain``: the mean paired
    difference of the objective (margin or win) over the baseline on the same re-deals,
    ``gain_ci`` its half-width: the search plays the best gain only when it is ``z``
    standard errors above zero."""

    action: int
    redeals: int
    margin: float
    margin_ci: float | None
    win: float
    gain: float
    gain_ci: float | None


@dataclass(frozen=True)
class SearchReport:
    """What one decision of :meth:`PIMCAgent.think` found. ``action``: the action played;
    ``baseline``: the rollout policy's own action (the search keeps it unless a candidate
    beats it clearly); ``objective``: ``margin`` or ``win``; ``redeals``: determinizations
    dealt in all (each halving round deals fresh ones); ``candidates``: every legal action
    the search played (its legal order), empty when only one action was legal (nothing
    to search); ``budget_hit``: the time budget stopped the search early."""

    action: int
    baseline: int
    objective: str
    redeals: int
    candidates: tuple[CandidateReport, ...]
    budget_hit: bool


# ---------------------------------------------------------------- the agent
def parse_settings(text: str) -> dict:
    """``"k=64,rollout=greedy"`` -> settings (ValueError naming a bad one)."""
    # imported here: a kernel module takes only kernel modules and classes at its top
    # (the kernels' cache stamp leaves the settings parser out)
    from burako_env.agents.settings import parse_settings as parse_agent_settings

    return parse_agent_settings(text, "pimc", DEFAULTS, "pimc:k=64,rollout=greedy")


def whole_setting(name: str, key: str, value, minimum: int) -> int:
    """The agent ``name``'s setting ``key`` as a whole number >= ``minimum`` (ValueError)."""
    try:
        number = int(value)
    except (TypeError, ValueError):
        number = None
    if (
        number is None
        or isinstance(value, bool)
        or number < minimum
        or str(number) != str(value).strip()
    ):
        raise ValueError(f"{name}: {key} must be a whole number >= {minimum}, got {value!r}")
    return number


def settings_name(name: str, settings: dict, defaults: dict) -> str:
    """The agent's name with the settings that differ from ``defaults``: "pimc:k=128"."""
    changed = [
        f"{key}={v:g}" if isinstance(v, float) else f"{key}={v}"
        for key, v in settings.items()
        if v != defaults[key]
    ]
    return name + (":" + ",".join(changed) if changed else "")


class PIMCAgent(Agent):
    """Perfect-information Monte Carlo search (module doc); ``act_game`` decides."""

    def __init__(
        self,
        seed: int = 0,
        k: int | str = DEFAULTS["k"],
        rollout: str = DEFAULTS["rollout"],
        candidates: str = DEFAULTS["candidates"],
        objective: str = DEFAULTS["objective"],
        z: float | str = DEFAULTS["z"],
        budget_ms: int | str = DEFAULTS["budget_ms"],
        threads: int | str = DEFAULTS["threads"],
        weights: np.ndarray | None = None,
    ) -> None:
        self.k = whole_setting("pimc", "k", k, 1)
        if rollout not in ROLLOUT_POLICIES:
            raise ValueError(
                f"pimc: rollout must be one of {', '.join(ROLLOUT_POLICIES)}, got {rollout!r}"
            )
        if candidates not in CANDIDATES:
            raise ValueError(
                f"pimc: candidates must be one of {', '.join(CANDIDATES)}, got {candidates!r}"
            )
        if objective not in OBJECTIVES:
            raise ValueError(
                f"pimc: objective must be one of {', '.join(OBJECTIVES)}, got {objective!r}"
            )
        self.rollout = rollout
        self.candidates = candidates
        self.objective = objective
        try:
            self.z = float(z)
        except (TypeError, ValueError):
            self.z = -1.0
        if not self.z >= 0 or isinstance(z, bool):
            raise ValueError(f"pimc: z must be a number >= 0, got {z!r}")
        self.budget_ms = whole_setting("pimc", "budget_ms", budget_ms, 0)
        self.threads = whole_setting("pimc", "threads", threads, 1)
        self.weights = default_weights() if weights is None else np.asarray(weights, np.float64)
        if self.weights.shape != (NUM_WEIGHTS,):
            raise ValueError(f"pimc: weights must have shape ({NUM_WEIGHTS},)")
        self.name = self._name()
        self._work: dict = {}
        #: the report of the last decision (:meth:`think`), None before the first
        self.last_report: SearchReport | None = None
        self.reset_stats()
        super().__init__(seed)

    def _name(self) -> str:
        settings = {
            "k": self.k,
            "rollout": self.rollout,
            "candidates": self.candidates,
            "objective": self.objective,
            "z": self.z,
            "budget_ms": self.budget_ms,
            "threads": self.threads,
        }
        return settings_name("pimc", settings, DEFAULTS)

    # ------------------------------------------------------------ statistics
    def reset_stats(self) -> None:
        """Zero the search's counters (decisions, searches, rollouts, time) that :meth:`stats`
        reports."""
        self._stats = {
            "decisions": 0,
            "searched": 0,
            "rollouts": 0,
            "seconds": 0.0,
            "cpu_seconds": 0.0,
            "max_ms": 0.0,
            "budget_hits": 0,
            "deviations": 0,
        }

    def stats(self) -> dict:
        """Decisions made, those searched (more than one legal action), rollouts played,
        mean and largest milliseconds per decision (wall clock; ``cpu_ms_per_decision``:
        the process's CPU time, which other jobs on the machine do not inflate), decisions
        the budget cut short, and
        deviations (searched decisions that played another action than the rollout
        policy's own)."""
        s = dict(self._stats)
        s["ms_per_decision"] = 1000 * s["seconds"] / max(s["decisions"], 1)
        s["ms_per_searched"] = 1000 * s["seconds"] / max(s["searched"], 1)
        s["cpu_ms_per_decision"] = 1000 * s["cpu_seconds"] / max(s["decisions"], 1)
        return s

    # ------------------------------------------------------------ acting
    def kernels(self) -> tuple:
        """The search kernel, and the rollout policy's own choice for one game."""
        # the search, and the rollout policy's own choice for one game (_policy_choice)
        return (search_kernel, act_serial, game_kernel, mask_kernel)

    def act(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """Refused (TypeError): the search needs the game, :meth:`act_game`."""
        raise TypeError(
            "pimc searches the game itself and cannot act on an observation alone: call "
            "act_game(game, b) (the tournament, burako play, the web table and "
            "burako_env.table.act_in_env do)"
        )

    def _buffers(self, game, k: int):
        key = (game.num_players, game.layout.size, k)
        if key not in self._work:
            x, rows = policy_workspace(k)
            self._work = {
                key: (
                    allocate_state(k, game.num_players),
                    allocate_state(k, game.num_players),
                    np.zeros((k, game.layout.size), np.int16),
                    x,
                    rows,
                )
            }
        return self._work[key]

    def _evaluate(self, game, b: int, viewer: int, cands: np.ndarray, k: int) -> np.ndarray:
        """values [k, len(cands), NUM_VALUES] on k fresh determinizations."""
        dets, rolls, obs, x, rows = self._buffers(game, k)
        det_words = self.rng.integers(1, 2**32, size=(k, 4), dtype=np.int64)
        roll_words = self.rng.integers(1, 2**32, size=(k, 4), dtype=np.int64)
        values = np.zeros((k, cands.size, NUM_VALUES), np.float64)
        run_sliced(
            search_kernel,
            k,
            game.state,
            int(b),
            int(viewer),
            game.params,
            game.kernel_layout,
            np.ascontiguousarray(cands, np.int64),
            det_words,
            roll_words,
            ROLLOUT_POLICIES[self.rollout],
            self.weights,
            dets,
            rolls,
            obs,
            x,
            rows,
            values,
            MAX_ROLLOUT_STEPS,
        )
        self._stats["rollouts"] += k * cands.size
        return values

    def decides(self) -> PerGame:
        """From the game, one at a time: the search deals the game's hidden cards again."""
        return PerGame(self.act_game)

    def act_game(self, game, b: int = 0) -> int:
        """The action of the player to act in game ``b`` of ``game`` (a
        :class:`~burako_env.core.game.Game`), after searching its determinizations (the
        search's report: ``last_report``)."""
        return self.think(game, b).action

    def think(self, game, b: int = 0) -> SearchReport:
        """The decision of :meth:`act_game` with what the search found (module doc):
        the same search, so the same seed gives the same action either way."""
        t0 = time.perf_counter()
        c0 = time.process_time()
        legal = game.legal_actions(b)
        if legal.size == 0:
            raise ValueError(f"game {b} has no legal action (is it over?)")
        self._stats["decisions"] += 1
        if legal.size == 1:
            self._stats["seconds"] += time.perf_counter() - t0
            self._stats["cpu_seconds"] += time.process_time() - c0
            only = int(legal[0])
            self.last_report = SearchReport(only, only, self.objective, 0, (), False)
            return self.last_report
        self._stats["searched"] += 1
        viewer = int(game.current_player[b])
        col = V_MARGIN if self.objective == "margin" else V_WIN
        deadline = t0 + self.budget_ms / 1000 if self.budget_ms > 0 else None
        old_threads = numba.get_num_threads()
        numba.set_num_threads(max(1, min(self.threads, numba.config.NUMBA_NUM_THREADS)))
        try:
            report = self._search(game, b, viewer, legal, col, deadline)
        finally:
            numba.set_num_threads(old_threads)
        elapsed = time.perf_counter() - t0
        self._stats["seconds"] += elapsed
        self._stats["cpu_seconds"] += time.process_time() - c0
        self._stats["max_ms"] = max(self._stats["max_ms"], 1000 * elapsed)
        self.last_report = report
        return report

    def _policy_choice(self, game, b: int, viewer: int) -> int:
        """The rollout policy's own action for the player to act, from their observation
        and mask alone: the search's baseline."""
        obs = game.observe_one(viewer, b)[None]
        mask = game.legal_action_mask()[b : b + 1]
        states = self.rng.integers(1, 2**32, size=(1, 4), dtype=np.int64)
        kind = ROLLOUT_POLICIES[self.rollout]
        return int(act_batch(kind, obs, mask, states, self.weights, game.kernel_layout)[0])

    def _search(self, game, b, viewer, legal, col, deadline) -> SearchReport:
        base = self._policy_choice(game, b, viewer)
        if self.candidates == "all":
            schedule = [(legal.size, self.k)]
        else:
            schedule = halving_schedule(legal.size, self.k)
        alive = legal.copy()
        # paired differences against the baseline, over the determinizations both saw
        index = {int(a): i for i, a in enumerate(legal)}
        diff_sum = np.zeros(legal.size, np.float64)
        diff_sq = np.zeros(legal.size, np.float64)
        count = np.zeros(legal.size, np.int64)
        # each candidate's own values (margin, win) over its determinizations, for the report
        value_sum = np.zeros((legal.size, NUM_VALUES), np.float64)
        margin_sq = np.zeros(legal.size, np.float64)
        redeals = 0
        stopped = False
        for r, (keep, k) in enumerate(schedule):
            if r > 0:
                # the baseline always stays; the best of the others fill the other places
                rows = np.array([index[int(a)] for a in alive])
                means = diff_sum[rows] / np.maximum(count[rows], 1)
                order = [i for i in np.argsort(-means, kind="stable") if alive[i] != base]
                alive = np.array([base] + [alive[i] for i in order[: keep - 1]], np.int64)
            rows = np.array([index[int(a)] for a in alive])
            at_base = int(np.flatnonzero(alive == base)[0])
            # rounds go in chunks so that the budget can stop them
            chunk = k if deadline is None else max(1, min(k, self.threads * 8))
            done = 0
            while done < k:
                n = min(chunk, k - done)
                both = self._evaluate(game, b, viewer, alive, n)
                value_sum[rows] += both.sum(axis=0)
                margin_sq[rows] += (both[:, :, V_MARGIN] ** 2).sum(axis=0)
                redeals += n
                values = both[:, :, col]
                d = values - values[:, at_base : at_base + 1]
                diff_sum[rows] += d.sum(axis=0)
                diff_sq[rows] += (d * d).sum(axis=0)
                count[rows] += n
                done += n
                if deadline is not None and time.perf_counter() > deadline:
                    stopped = r < len(schedule) - 1 or done < k
                    break
            if stopped:
                self._stats["budget_hits"] += 1
                break
        choice = self._choose(alive, base, index, diff_sum, diff_sq, count)
        if choice != base:
            self._stats["deviations"] += 1
        candidates = []
        for i, a in enumerate(legal):
            n = int(count[i])
            if n == 0:
                continue
            margin, _, margin_ci = _interval(value_sum[i, V_MARGIN], margin_sq[i], n)
            gain, _, gain_ci = _interval(diff_sum[i], diff_sq[i], n)
            candidates.append(
                CandidateReport(
                    int(a), n, margin, margin_ci, value_sum[i, V_WIN] / n, gain, gain_ci
                )
            )
        return SearchReport(
            choice, int(base), self.objective, redeals, tuple(candidates), bool(stopped)
        )

    def _choose(self, alive, base, index, diff_sum, diff_sq, count) -> int:
        """The best survivor by its mean gain over the baseline (ties: the lowest id); it
        replaces the baseline only when the gain is ``z`` standard errors above zero."""
        rows = np.array([index[int(a)] for a in alive])
        gains = diff_sum[rows] / np.maximum(count[rows], 1)
        best_gain = gains.max()
        best = int(np.min(alive[gains == best_gain]))
        if best == base or best_gain <= 0:
            return int(base)
        i = index[best]
        n = count[i]
        if n < 2:
            return int(base) if self.z > 0 else best
        _, se, _ = _interval(diff_sum[i], diff_sq[i], n)
        return best if best_gain > self.z * se else int(base)


def make_pimc(settings: str = "", seed: int = 0, **kw) -> PIMCAgent:
    """``pimc`` / ``pimc:k=64,rollout=greedy``: the agent with its settings from the name."""
    parsed = parse_settings(settings)
    clash = set(parsed) & set(kw)
    if clash:
        raise ValueError(f"pimc: {', '.join(sorted(clash))} given both in the name and as keywords")
    return PIMCAgent(seed=seed, **parsed, **kw)


__all__ = [
    "CANDIDATES",
    "CandidateReport",
    "DEFAULTS",
    "OBJECTIVES",
    "POLICY_NAMES",
    "PIMCAgent",
    "ROLLOUT_POLICIES",
    "SearchReport",
    "halving_schedule",
    "make_pimc",
    "parse_settings",
    "search_kernel",
]
