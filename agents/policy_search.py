"""``ppo_search``: the learned policy steering a compiled PIMC search.

At each decision of the player to act with more than one legal action the agent reads
the policy network on that player's observation (one forward pass, about 1 ms) and then:

1. **Obvious decisions are the policy's.** When the policy's most likely legal action
   has probability at least ``skip``, it is played without a search (most decisions
   with a choice are: draw from the stock, lay the canasta the hand holds).
2. **Close decisions are searched among the policy's favourites.** The candidates are
   the policy's ``top`` most likely actions (the policy's argmax, the *baseline*,
   first). Each is played on the same ``k`` determinizations of the hidden cards for
   that player (:meth:`Game.determinize <burako_env.core.game.Game.determinize>`),
   every determinization played to the end of the hand by a compiled rollout policy on
   every seat (``discard_table`` by default), exactly as ``pimc``'s kernel
   (:func:`burako_env.agents.pimc.search_kernel`) does; with more than two candidates by
   sequential halving (:func:`~burako_env.agents.pimc.halving_schedule`).
3. **The policy's choice stands unless the search is sure.** A candidate ``a`` replaces
   the baseline ``b`` only when its mean gain over it, paired on the same
   determinizations, plus the policy's say, ``prior * (log p(a) - log p(b))`` (at most
   0: the baseline is the policy's most likely action), is more than ``z`` standard
   errors of the gain above zero. The search corrects the policy where its rollouts see
   a clear difference; the policy keeps the decisions where the rollouts, which model
   every player as ``discard_table``, cannot tell.

The search sees hidden information only through the determinizations, and the policy
only the player's own observation; ``tests/agents/test_policy_search.py`` checks that a game
whose hidden cards were dealt again (the same observation) gets the same decision from
the same seed.

Settings, in the agent's name (``ppo_search:k=48,top=4``) or as keyword arguments:

* ``k``: determinizations per searched decision (default 48; with ``top`` candidates
  by sequential halving, about ``k * top`` rollouts).
* ``top``: candidates, the policy's most likely legal actions (default 4).
* ``skip``: the policy's top probability from which its choice is played unsearched
  (default 0.8; 1 searches every decision with a choice, 0 none).
* ``prior``: weight of the policy's log-probability against the search's gain, in the
  objective's units per nat (default 20: score points with ``objective=margin``; with
  ``objective=win``, whose values are 0 to 1, give it in those units, say 0.02).
* ``z``: standard errors the gain (with the prior's term) must exceed (default 0.5:
  ``pimc``'s 1.0 was a little weaker here, docs/STRATEGIES.md).
* ``rollout``: as ``pimc``'s (default ``discard_table``, compiled), or ``policy``: the
  policy itself plays every seat of the determinizations, ``depth`` moves deep (its
  argmax, all the rollouts of a round in one batch, one network call a move), and a
  hand still going is valued by the policy's value head for the player to act (an
  estimate of the hand's result, so a ``depth`` short of the hand's end, or
  ``leaf=oracle``, needs ``objective=win``, with ``prior`` in win units; played to the
  hand's end, either objective).
* ``depth``: the moves of a ``rollout=policy`` rollout before its leaf is valued
  (default 20000, pimc's cap on a rollout: the hand's end; 0: the value head right
  after the candidate).
* ``leaf``: what values a ``rollout=policy`` leaf (default ``value``: the policy's
  value head on the observation of the player to act; ``oracle``: the oracle critic of a
  policy trained with ``network.oracle_critic``, which reads, besides that observation,
  the other seats' hands *of the determinization*: the sampled world, which the search
  treats as seen anyway, never the real hidden cards).
* ``infer``: with ``rollout=policy``, how many worlds are drawn for each one kept
  (default 1: the determinizations as dealt, uniform). With ``infer=m`` the search deals
  ``m * k`` and keeps ``k`` of them, drawn in proportion to how likely the policy finds
  each other player's last discard from the hand the world gives them, raised to the
  power ``infer_power`` (default 0.25; 1: Bayes' rule with the policy as every player's
  model; lower tempers the rewind's approximations and keeps the kept worlds varied),
  from the last discards of the ``infer_seats`` seats before the player (default 3: in a
  4-player game every other one; 1: the previous seat's alone, whose rewind is the most
  exact).
  Inference from the other players' play, as the best Bridge and Skat programs' PIMC
  does: :meth:`PolicySearchAgent._inferred_worlds`.
* ``objective``, ``budget_ms``, ``threads``: as ``pimc``'s
  (:mod:`burako_env.agents.pimc`; defaults ``margin``, 100, 1). The
  budget bounds a decision's wall clock (the round past it ends the search); with a
  binding budget the play depends on the machine's speed, ``budget_ms=0`` plays the
  same on any machine for a seed (the evaluations use it).
* ``policy``: ``shipped`` (default: the shipped policy of the table, as ``ppo``) or a
  policy file / checkpoint path (as ``ppo:PATH``).

``agent.stats()`` reports, besides ``pimc``'s counts, the decisions played unsearched on
the policy's confidence (``confident``). Its cost and strength, measured:
docs/STRATEGIES.md (about 11 CPU-ms a decision on one core with the defaults).
"""

from __future__ import annotations

import time

import numba
import numpy as np

from burako_env.agents.pimc import (
    MAX_ROLLOUT_STEPS,
    NUM_VALUES,
    OBJECTIVES,
    ROLLOUT_POLICIES,
    V_MARGIN,
    V_WIN,
    CandidateReport,
    PIMCAgent,
    SearchReport,
    _interval,
    halving_schedule,
    settings_name,
    whole_setting,
)
from burako_env.agents.settings import parse_settings as parse_agent_settings
from burako_env.core.constants import (
    DISCARD_BASE,
    PHASE_DRAW,
    PHASE_PLAY,
    S_LAST_TURN,
    S_NO_DISCARD,
    S_PHASE,
    S_PLAYER,
    S_PROV_START,
)

NAME = "ppo_search"
DEFAULTS = {
    "k": 48,
    "top": 4,
    "skip": 0.8,
    "prior": 20.0,
    "z": 0.5,
    "rollout": "discard_table",
    "objective": "margin",
    "budget_ms": 100,
    "threads": 1,
    "policy": "shipped",
    "depth": MAX_ROLLOUT_STEPS,  # in effect the hand's end: deeper searched better
    "leaf": "value",
    "infer": 1,
    "infer_power": 0.25,
    "infer_seats": 3,
}

#: what values a ``rollout=policy`` rollout still going at ``depth``: the policy's value
#: head on the player's observation, or its oracle critic on the sampled world's hands
LEAF_VALUES = ("value", "oracle")

#: ``rollout=policy``: the policy itself plays the determinizations, ``depth`` moves deep
POLICY_ROLLOUT = "policy"


def parse_settings(text: str) -> dict:
    """``"k=48,top=4"`` -> settings (ValueError naming a bad one)."""
    return parse_agent_settings(text, NAME, DEFAULTS, f"{NAME}:k=48,top=4")


def _number(key: str, value, low: float, high: float = float("inf")) -> float:
    try:
        number = float(value)
    except (TypeError, ValueError):
        number = float("nan")
    if isinstance(value, bool) or not low <= number <= high:
        bounds = f">= {low:g}" if high == float("inf") else f"in [{low:g}, {high:g}]"
        raise ValueError(f"{NAME}: {key} must be a number {bounds}, got {value!r}")
    return number


class PolicySearchAgent(PIMCAgent):
    """The learned policy's priors choosing and weighing a compiled PIMC search's
    candidates (module doc); ``act_game`` decides."""

    def __init__(
        self,
        seed: int = 0,
        k: int | str = DEFAULTS["k"],
        top: int | str = DEFAULTS["top"],
        skip: float | str = DEFAULTS["skip"],
        prior: float | str = DEFAULTS["prior"],
        z: float | str = DEFAULTS["z"],
        rollout: str = DEFAULTS["rollout"],
        objective: str = DEFAULTS["objective"],
        budget_ms: int | str = DEFAULTS["budget_ms"],
        threads: int | str = DEFAULTS["threads"],
        policy: str = DEFAULTS["policy"],
        depth: int | str = DEFAULTS["depth"],
        leaf: str = DEFAULTS["leaf"],
        infer: int | str = DEFAULTS["infer"],
        infer_power: float | str = DEFAULTS["infer_power"],
        infer_seats: int | str = DEFAULTS["infer_seats"],
        policies: dict | None = None,
    ) -> None:
        k = whole_setting(NAME, "k", k, 1)
        self.infer = whole_setting(NAME, "infer", infer, 1)
        self.infer_power = _number("infer_power", infer_power, 0.0, 1.0)
        self.infer_seats = whole_setting(NAME, "infer_seats", infer_seats, 1)
        self.depth = whole_setting(NAME, "depth", depth, 0)
        self.top = whole_setting(NAME, "top", top, 1)
        self.skip = _number("skip", skip, 0.0, 1.0)
        self.prior = _number("prior", prior, 0.0)
        z = _number("z", z, 0.0)
        if rollout not in ROLLOUT_POLICIES and rollout != POLICY_ROLLOUT:
            kinds = ", ".join([*ROLLOUT_POLICIES, POLICY_ROLLOUT])
            raise ValueError(f"{NAME}: rollout must be one of {kinds}, got {rollout!r}")
        if objective not in OBJECTIVES:
            raise ValueError(
                f"{NAME}: objective must be one of {', '.join(OBJECTIVES)}, got {objective!r}"
            )
        if (
            rollout == POLICY_ROLLOUT
            and objective == "margin"
            and (self.depth < MAX_ROLLOUT_STEPS or leaf != DEFAULTS["leaf"])
        ):
            raise ValueError(
                f"{NAME}: rollout=policy with depth={self.depth} and leaf={leaf} values its "
                "leaves with the policy's value head or oracle critic, estimates of the "
                "hand's result, not of its margin: set objective=win (and prior in win "
                "units, say prior=0.02), or leave depth and leaf at their defaults (every "
                "rollout played to the hand's end, whose margin is known)"
            )
        if leaf not in LEAF_VALUES:
            raise ValueError(f"{NAME}: leaf must be one of {', '.join(LEAF_VALUES)}, got {leaf!r}")
        if leaf != DEFAULTS["leaf"] and rollout != POLICY_ROLLOUT:
            raise ValueError(
                f"{NAME}: leaf={leaf} values the leaves of the policy's own rollouts: set "
                "rollout=policy (the compiled rollouts play every hand to its end)"
            )
        if self.infer > 1 and rollout != POLICY_ROLLOUT:
            raise ValueError(
                f"{NAME}: infer={self.infer} weighs the worlds of the policy's own rollouts: "
                "set rollout=policy, or infer=1 (the compiled rollouts deal their own worlds)"
            )
        self.leaf = leaf
        budget_ms = whole_setting(NAME, "budget_ms", budget_ms, 0)
        threads = whole_setting(NAME, "threads", threads, 1)
        if not isinstance(policy, str) or not policy.strip():
            raise ValueError(f"{NAME}: policy must be 'shipped' or a policy file, got {policy!r}")
        self.policy = policy.strip()
        from burako_env.agents.ppo_agent import PPOAgent

        if self.policy == "shipped":
            self.net_agent = PPOAgent.shipped(greedy=True, seed=seed, policies=policies)
        else:
            self.net_agent = PPOAgent(self.policy, greedy=True, seed=seed, label="ppo")
        super().__init__(
            seed=seed,
            k=k,
            rollout=DEFAULTS["rollout"] if rollout == POLICY_ROLLOUT else rollout,
            candidates="halving",
            objective=objective,
            z=z,
            budget_ms=budget_ms,
            threads=threads,
        )
        self.rollout = rollout
        if self.net_agent.net is not None:  # a file: checked now; shipped: at its table
            self._check_leaf(self.net_agent.net)
        self.name = self._name()

    def _check_leaf(self, net) -> None:
        if self.leaf == "oracle" and not net.oracle_critic:
            raise ValueError(
                f"{NAME}: leaf=oracle needs a policy trained with an oracle critic "
                f"(network.oracle_critic: true); policy {self.policy!r} has none: use "
                "leaf=value"
            )

    def _name(self) -> str:
        settings = {
            "k": self.k,
            "top": self.top,
            "skip": self.skip,
            "prior": self.prior,
            "z": self.z,
            "rollout": self.rollout,
            "objective": self.objective,
            "budget_ms": self.budget_ms,
            "threads": self.threads,
            "policy": self.policy,
            "depth": self.depth,
            "leaf": self.leaf,
            "infer": self.infer,
            "infer_power": self.infer_power,
            "infer_seats": self.infer_seats,
        }
        return settings_name(NAME, settings, DEFAULTS)

    # ------------------------------------------------------------ statistics
    def reset_stats(self) -> None:
        """Zero the search's counters, the confident and inferred decisions included."""
        super().reset_stats()
        self._stats["confident"] = 0
        self._stats["inferred"] = 0

    # ------------------------------------------------------------ the policy
    def kernels(self) -> tuple:
        """The search's kernels and the policy network's."""
        return super().kernels() + self.net_agent.kernels()

    def check_table(self, variant) -> None:
        """The policy's table check (``ppo``'s): a policy plays only its own table (and
        ``leaf=oracle`` only a policy with an oracle critic)."""
        self.net_agent.check_table(variant)
        self._check_leaf(self.net_agent.net)

    def act(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """Refused (TypeError): the search needs the game, :meth:`act_game`."""
        raise TypeError(
            f"{NAME} searches the game itself and cannot act on an observation alone: call "
            "act_game(game, b) (the tournament, burako play, the web table and "
            "burako_env.table.act_in_env do)"
        )

    def _network(self, game):
        """The policy's network, its file loaded for ``game``'s table (``ppo``'s check)."""
        agent = self.net_agent
        if agent._shipped and game.variant is not agent._table_variant:
            self.check_table(game.variant)  # a new table's file: its leaf check too
        return agent.net

    def priors(self, game, b: int, viewer: int) -> tuple[np.ndarray, np.ndarray]:
        """The policy's legal actions of game ``b`` and their log-probabilities, most
        likely first (ties: the lower id), from ``viewer``'s observation and mask alone."""
        obs = game.observe_one(viewer, b)[None]
        mask = game.legal_action_mask()[b : b + 1]
        ids, counts, logp = legal_logp(self._network(game), obs, mask)
        actions, logp = ids[0, : counts[0]], logp[0, : counts[0]]
        order = np.lexsort((actions, -logp))
        return actions[order].astype(np.int64), logp[order]

    # ------------------------------------------------------------ acting
    def act_game(self, game, b: int = 0) -> int:
        """The action of the player to act in game ``b`` of ``game``: the policy's own
        when it is sure, else the search's among its favourites (:meth:`think`)."""
        return self.think(game, b).action

    def think(self, game, b: int = 0) -> SearchReport:
        """The decision of :meth:`act_game` with what it found (the web table shows it):
        no candidates when the policy played unsearched, its baseline the policy's most
        likely action."""
        t0 = time.perf_counter()
        c0 = time.process_time()
        legal = game.legal_actions(b)
        if legal.size == 0:
            raise ValueError(f"game {b} has no legal action (is it over?)")
        self._stats["decisions"] += 1
        choice = int(legal[0])
        report = SearchReport(choice, choice, self.objective, 0, (), False)
        if legal.size > 1:
            viewer = int(game.current_player[b])
            actions, logp = self.priors(game, b, viewer)
            choice = int(actions[0])
            report = SearchReport(choice, choice, self.objective, 0, (), False)
            if np.exp(logp[0]) >= self.skip and self.skip < 1.0 or self.top < 2:
                self._stats["confident"] += 1
            else:
                self._stats["searched"] += 1
                cands = actions[: self.top]
                col = V_MARGIN if self.objective == "margin" else V_WIN
                deadline = t0 + self.budget_ms / 1000 if self.budget_ms > 0 else None
                old_threads = numba.get_num_threads()
                numba.set_num_threads(max(1, min(self.threads, numba.config.NUMBA_NUM_THREADS)))
                try:
                    report = self._prior_search(
                        game, b, viewer, cands, logp[: cands.size], col, deadline
                    )
                finally:
                    numba.set_num_threads(old_threads)
        elapsed = time.perf_counter() - t0
        self._stats["seconds"] += elapsed
        self._stats["cpu_seconds"] += time.process_time() - c0
        self._stats["max_ms"] = max(self._stats["max_ms"], 1000 * elapsed)
        self.last_report = report
        return report

    def _evaluate(self, game, b: int, viewer: int, cands: np.ndarray, k: int) -> np.ndarray:
        """values [k, len(cands), NUM_VALUES]: pimc's compiled rollouts, or with
        ``rollout=policy`` the policy's own (:meth:`_policy_rollouts`)."""
        if self.rollout != POLICY_ROLLOUT:
            return super()._evaluate(game, b, viewer, cands, k)
        return self._policy_rollouts(game, b, viewer, cands, k)

    def _policy_rollouts(self, game, b, viewer, cands, k) -> np.ndarray:
        """Every candidate on the same ``k`` determinizations of game ``b`` for
        ``viewer``, then ``depth`` moves of the policy's argmax on every seat, all the
        rollouts in one batch (one network call a move); a hand that ends is valued by its
        result, one still going by the policy's value head for the player to act (an
        estimate of the hand's result for that player's team, in [-1, 1], turned into
        ``viewer``'s team's win value in [0, 1])."""
        import torch

        from burako_env.agents.network import legal_lists, oracle_inputs, padded
        from burako_env.core.game import SKIP_ACTION

        n_cand = cands.size
        if self.infer > 1:
            worlds, kept = self._inferred_worlds(game, b, viewer, k)
        else:
            worlds, kept = game.determinize(viewer, self.rng, games=[b], count=k), np.arange(k)
        sims = worlds.clone(np.repeat(kept, n_cand))  # determinization-major
        sims.step(np.tile(np.asarray(cands, np.int64), k))
        team = viewer % 2
        values = np.zeros((k * n_cand, NUM_VALUES), np.float64)
        cols = sims.columns()
        net = self._network(game)
        with torch.inference_mode():
            for move in range(self.depth + 1):
                live = np.flatnonzero((cols.done | cols.hand_just_ended) == 0)
                if live.size == 0:
                    break
                obs = sims.observe()[live]
                mask = sims.legal_action_mask()[live]
                ids, counts = legal_lists(mask)
                legal, valid = padded(ids, counts)
                obs_t = torch.from_numpy(obs)
                hint = net.hints(obs_t, legal, valid, mask)
                oracle = None
                if move == self.depth and self.leaf == "oracle":
                    # the sampled world's hands: hidden only from the real player
                    seats = sims.current_player.astype(np.int64)
                    oracle = torch.from_numpy(oracle_inputs(sims.state.hands, live, seats))
                actions, _, _, value = net.act(obs_t, legal, valid, None, True, hint, oracle)
                if move == self.depth:  # the leaves
                    own = sims.current_player[live] % 2 == team
                    if oracle is not None:
                        value = value[:, 1]  # the oracle critic's column
                    v = np.clip(value.double().numpy(), -1.0, 1.0)
                    values[live, V_WIN] = (np.where(own, v, -v) + 1.0) / 2.0
                    break
                step = np.full(sims.batch_size, SKIP_ACTION, np.int64)
                step[live] = actions.numpy()
                sims.step(step, check=False)
        ended = np.flatnonzero((cols.done | cols.hand_just_ended) != 0)
        hand, match = sims.hand_scores[ended], sims.match_scores[ended]  # as pimc's values
        values[ended, V_MARGIN] = hand[:, team] - hand[:, 1 - team]
        own, other = match[:, team], match[:, 1 - team]
        values[ended, V_WIN] = np.where(own > other, 1.0, np.where(own == other, 0.5, 0.0))
        self._stats["rollouts"] += k * n_cand
        return values.reshape(k, n_cand, NUM_VALUES)

    def _inferred_worlds(self, game, b: int, viewer: int, k: int) -> tuple:
        """``(worlds, kept)``: determinizations of game ``b`` for ``viewer`` and the
        indices of the ``k`` of them to play (repeats allowed), drawn from ``infer * k``
        in proportion to the policy's probability of every other player's last discard
        given the hand that world deals them.

        The pile's top cards are the last discards of the seats before ``viewer``, the
        top one the previous seat's (one discard a turn, in seat order; the turns of the
        hand bound how many are discards, not the upcard, and a pile taken since leaves
        fewer; ``infer_seats`` of them at most). None of those players has acted since,
        so at their discard they held their hand of the world plus the card
        (:meth:`discard_logp` rewinds them). A world weighs that likelihood to the power
        ``infer_power``; the ``k`` kept are drawn by systematic resampling. Only what
        ``viewer`` sees enters: the pile, the turn, and the worlds' hands, which are the
        search's own draws (the real hidden hands are never read)."""
        st = game.state
        n_players = game.num_players
        pile_len = int(st.pile_len[b])
        view = game.view(b)
        recent = min(pile_len, view.turn, n_players - 1, self.infer_seats)
        if view.phase not in (PHASE_DRAW, PHASE_PLAY) or recent == 0:
            return game.determinize(viewer, self.rng, games=[b], count=k), np.arange(k)
        n_pool = self.infer * k
        pool = game.determinize(viewer, self.rng, games=[b], count=n_pool)
        seats = np.array([(viewer - 1 - d) % n_players for d in range(recent)], np.int64)
        cards = st.pile[b, pile_len - recent : pile_len][::-1].astype(np.int64)
        world_logp = self.discard_logp(pool, seats, cards, self._network(game))
        weights = np.exp(self.infer_power * (world_logp - world_logp.max()))
        cum = np.cumsum(weights / weights.sum())
        ticks = (self.rng.random() + np.arange(k)) / k
        kept = np.minimum(np.searchsorted(cum, ticks, side="right"), n_pool - 1)
        self._stats["inferred"] += 1
        return pool, kept

    @staticmethod
    def discard_logp(pool, seats: np.ndarray, cards: np.ndarray, net) -> np.ndarray:
        """float64 [B]: for each game of ``pool``, the sum over the players ``seats`` of
        the policy ``net``'s log-probability of discarding ``cards`` (``seats[d]``
        discarded ``cards[d]``, the card ``d`` below the pile's top), each player rewound
        to that discard, in part: their hand and the pile as they were, their turn's play
        phase, the rest of the table as it is now (later players' melds and draws stay)."""
        n_pool, recent = pool.batch_size, seats.size
        back = pool.clone(np.repeat(np.arange(n_pool), recent))  # game-major
        bs = back.state
        r = np.arange(back.batch_size)
        seat = np.tile(seats, n_pool)
        card = np.tile(cards, n_pool)
        bs.hands[r, seat, card] += 1
        bs.pile_len[:] -= 1 + np.tile(np.arange(recent), n_pool)
        bs.scalars[:, S_PLAYER] = seat
        bs.scalars[:, S_PHASE] = PHASE_PLAY
        bs.scalars[:, S_NO_DISCARD] = -1
        bs.scalars[:, S_LAST_TURN] = 0
        bs.scalars[:, S_PROV_START] = bs.num_melds[r, seat % 2]
        back.refresh_legal()
        ids, counts, logp = legal_logp(net, back.observe(), back.legal_action_mask())
        hit = (ids == (DISCARD_BASE + card)[:, None]) & (
            np.arange(ids.shape[1])[None, :] < counts[:, None]
        )
        # a discard the partial rewind would not allow tells nothing: 0 in every world
        row_logp = np.where(hit.any(axis=1), logp[r, hit.argmax(axis=1)], 0.0)
        return row_logp.reshape(n_pool, recent).sum(axis=1)

    def _prior_search(self, game, b, viewer, cands, logp, col, deadline) -> SearchReport:
        """Sequential halving over ``cands`` (the baseline ``cands[0]`` always kept) on
        the objective's gain over the baseline plus the prior's term; the winner replaces
        the baseline only when that sum is more than ``z`` standard errors above zero.
        The report lists every candidate played, as pimc's does."""
        n_all = cands.size
        bonus = self.prior * (logp - logp[0])  # <= 0, 0 for the baseline
        diff_sum = np.zeros(n_all, np.float64)
        diff_sq = np.zeros(n_all, np.float64)
        count = np.zeros(n_all, np.int64)
        value_sum = np.zeros((n_all, NUM_VALUES), np.float64)  # for the report
        margin_sq = np.zeros(n_all, np.float64)
        alive = np.arange(n_all)
        schedule = halving_schedule(n_all, self.k)
        redeals = 0
        stopped = False
        for r, (keep, k) in enumerate(schedule):
            if r > 0:
                score = diff_sum[alive] / np.maximum(count[alive], 1) + bonus[alive]
                order = [i for i in np.argsort(-score, kind="stable") if alive[i] != 0]
                alive = np.array([0] + [alive[i] for i in order[: keep - 1]], np.int64)
            chunk = k if deadline is None else max(1, min(k, self.threads * 8))
            done = 0
            while done < k:
                n = min(chunk, k - done)
                both = self._evaluate(game, b, viewer, cands[alive], n)
                value_sum[alive] += both.sum(axis=0)
                margin_sq[alive] += (both[:, :, V_MARGIN] ** 2).sum(axis=0)
                values = both[:, :, col]
                d = values - values[:, :1]  # alive[0] is the baseline
                diff_sum[alive] += d.sum(axis=0)
                diff_sq[alive] += (d * d).sum(axis=0)
                count[alive] += n
                redeals += n
                done += n
                if deadline is not None and time.perf_counter() > deadline:
                    stopped = done < k or r < len(schedule) - 1
                    break
            if stopped:
                self._stats["budget_hits"] += 1
                break
        choice = self._prior_choice(alive, bonus, diff_sum, diff_sq, count)
        if choice != 0:
            self._stats["deviations"] += 1
        reports = []
        for i in np.flatnonzero(count):
            n = int(count[i])
            margin, _, margin_ci = _interval(value_sum[i, V_MARGIN], margin_sq[i], n)
            gain, _, gain_ci = _interval(diff_sum[i], diff_sq[i], n)
            win = value_sum[i, V_WIN] / n
            reports.append(CandidateReport(int(cands[i]), n, margin, margin_ci, win, gain, gain_ci))
        return SearchReport(
            int(cands[choice]), int(cands[0]), self.objective, redeals, tuple(reports), stopped
        )

    def _prior_choice(self, alive, bonus, diff_sum, diff_sq, count) -> int:
        """The index in the candidates of the action to play: the best survivor by its
        gain plus the prior's term, when that is ``z`` standard errors above zero, else
        the baseline (0)."""
        gains = diff_sum[alive] / np.maximum(count[alive], 1)
        scores = gains + bonus[alive]
        best = int(alive[int(np.argmax(scores))])  # the first of equals: the likelier
        if best == 0 or scores.max() <= 0:
            return 0
        n = count[best]
        if n < 2:
            return 0 if self.z > 0 else best
        var = max(diff_sq[best] / n - (diff_sum[best] / n) ** 2, 0.0) * n / (n - 1)
        se = np.sqrt(var / n)
        return best if diff_sum[best] / n + bonus[best] > self.z * se else 0


def legal_logp(net, obs: np.ndarray, mask: np.ndarray) -> tuple:
    """``(ids, counts, logp)``: each row's legal actions (``legal_lists``, padded) and
    the policy ``net``'s log-probabilities of them, float64 [N, K] (padding at about
    minus infinity), from the observations ``obs`` [N, O] and the masks ``mask``."""
    import torch

    from burako_env.agents.network import legal_lists, padded

    ids, counts = legal_lists(mask)
    legal, valid = padded(ids, counts)
    with torch.inference_mode():
        obs_t = torch.from_numpy(np.ascontiguousarray(obs, dtype=np.int16))
        hint = net.hints(obs_t, legal, valid, mask)
        logits, _ = net.forward(obs_t, legal, valid, hint)
        return ids, counts, torch.log_softmax(logits.double(), dim=1).numpy()


def make_policy_search(settings: str = "", seed: int = 0, **kw) -> PolicySearchAgent:
    """``ppo_search`` / ``ppo_search:k=48,top=4``: the agent with its settings from the
    name."""
    parsed = parse_settings(settings)
    clash = set(parsed) & set(kw)
    if clash:
        raise ValueError(
            f"{NAME}: {', '.join(sorted(clash))} given both in the name and as keywords"
        )
    return PolicySearchAgent(seed=seed, **parsed, **kw)


__all__ = ["DEFAULTS", "NAME", "PolicySearchAgent", "make_policy_search", "parse_settings"]
