"""AIVAT's chance corrections at the stock draws: a tournament's margin and win rate with
less variance, unbiased (docs/EVALUATION.md, "Fewer hands: AIVAT").

AIVAT (Burch, Schmid, Moravcik, Morrill, Bowling, AAAI 2018) subtracts from a hand's
outcome, at every chance event, the value of the state the event led to less the value
expected before it: ``V(after the draw) - E[V(after a draw)]``. Whatever the value
function ``V``, each term has expectation zero given everything before the draw, so
the corrected outcome has the plain one's expectation; the better ``V`` follows the
outcome, the more of the draws' luck the corrections take away.

Here the chance events are the draws from the stock (``DRAW_STOCK``). Given the hands,
the table and which cards are in the stock, the stock's order is a uniform shuffle
that no player sees, so the card drawn is any of the stock's cards with equal chance:
the expectation is the mean of ``V`` over the stock's cards, each a copy of the game in
which that card was on top (:func:`draw_corrections` plays them all in one batch). The
deal itself is left to the duplicate format (each deal played twice, the seats
swapped); an agent's own sampling (``ppo`` with ``greedy=False``, a heuristic's tie) is
not corrected, which costs variance, never bias.

``V`` is a shipped policy's critic (:class:`DrawValue`): the oracle critic, which reads
every hand, where the policy has one, else the critic of the drawer's observation,
scaled by a factor per outcome fitted on games of their own
(:func:`burako_env.agents.value_fit.fit_value`,
``burako fit-value``) and fixed in a value file (``burako_env/data/value_*.json``) that
names the policy file and its sha256; an evaluation names the value file and its hash.
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

from burako_env.core.actions import DRAW_STOCK
from burako_env.core.game import Game
from burako_env.records import file_sha256

#: the estimators of a tournament: the plain outcomes, or AIVAT's corrected ones
ESTIMATORS = ("plain", "aivat")
#: which critic of the policy is the value function
HEADS = ("oracle", "observation")
VALUE_FORMAT = "burako-value"
VALUE_VERSION = 1
#: the candidate copies evaluated in one forward pass (each a game state and an
#: observation: about 8 KiB a copy at 4 players)
CANDIDATE_ROWS = 8192


def shipped_value_path(variant: str, num_players: int) -> Path:
    """Where the value file shipped for a named variant at a table size is."""
    from burako_env.agents.ppo_agent import shipped_dir

    return shipped_dir() / f"value_{variant}_{num_players}p.json"


@dataclass
class DrawValue:
    """A value function for the corrections: a policy file's critic and its scales.

    ``margin_scale`` turns the critic's value into score points of margin and
    ``win_scale`` into a share of the hand won (each the least-squares factor on the
    fit's own games); the corrections are unbiased for any scales."""

    policy: str
    """The policy file whose critic is ``V`` (relative to the value file's folder)."""
    policy_sha256: str
    """The sha256 the policy file must have (checked when the value file is read)."""
    head: str
    """``"oracle"`` (the oracle critic: every hand) or ``"observation"``."""
    margin_scale: float
    """Points of margin per unit of the critic's value."""
    win_scale: float
    """Share of a hand won per unit of the critic's value."""
    variant: str
    """The variant the policy plays."""
    num_players: int
    """Its table size."""
    fit: dict = field(default_factory=dict)
    """How the scales were fitted: the pairing, hands, seed, and the variance ratios
    the fit's own games gave."""
    path: str = ""
    """The value file read ('' for one built in memory)."""
    sha256: str = ""
    """The value file's sha256 (what an evaluation names)."""

    def to_dict(self) -> dict:
        """The file's contents: the fields but ``path`` and ``sha256``."""
        data = asdict(self)
        del data["path"], data["sha256"]
        return {"format": VALUE_FORMAT, "version": VALUE_VERSION, **data}

    def save(self, path: str | Path) -> None:
        """Write the value file (JSON), its folder's policy file named relative to it."""
        Path(path).write_text(json.dumps(self.to_dict(), indent=2) + "\n", encoding="utf-8")

    def policy_path(self) -> Path:
        """The policy file's path: an absolute one as it is; a relative one beside the
        value file, else among the shipped policies (a value file fitted on a shipped
        policy names it by its file name, wherever the value file is kept)."""
        from burako_env.agents.ppo_agent import shipped_dir

        p = Path(self.policy)
        if p.is_absolute():
            return p
        beside = Path(self.path).parent / p if self.path else p
        return beside if beside.is_file() else shipped_dir() / p

    def network(self, table=None):
        """The policy's network (checked against ``policy_sha256``; ValueError if the
        file changed, if it has no oracle critic and ``head`` asks for it, or if it was
        trained for another table than the Variant ``table``)."""
        from burako_env.agents.policy_file import check_policy_table, load_network

        path = self.policy_path()
        got = file_sha256(path)
        if got != self.policy_sha256:
            raise ValueError(
                f"value file {self.path or '(in memory)'} was fitted on {path} with sha256 "
                f"{self.policy_sha256[:16]}..., the file now has {got[:16]}...: fit it again "
                "(burako fit-value)"
            )
        net, data = load_network(path)
        if table is not None:
            check_policy_table(data.get("variant", {}), table, net.obs_size, path)
        if self.head == "oracle" and not net.oracle_critic:
            raise ValueError(f"value head 'oracle': {path} has no oracle critic; use 'observation'")
        net.eval()
        return net


def _need(ok: bool, path, key: str, what: str, got) -> None:
    if not ok:
        raise ValueError(f"value file {path}: {key} must be {what}, got {got!r:.80}")


def load_value(path: str | Path) -> DrawValue:
    """Read and check a value file (ValueError naming the key for anything wrong)."""
    path = Path(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ValueError(f"value file {path}: cannot be read as JSON ({exc})") from exc
    _need(isinstance(data, dict), path, "the file", "a JSON object", type(data).__name__)
    fmt = data.get("format")
    _need(fmt == VALUE_FORMAT, path, "format", repr(VALUE_FORMAT), fmt)
    version = data.get("version")
    _need(version == VALUE_VERSION, path, "version", str(VALUE_VERSION), version)
    for key in ("policy", "policy_sha256", "variant"):
        _need(isinstance(data.get(key), str) and data[key], path, key, "a string", data.get(key))
    _need(data.get("head") in HEADS, path, "head", f"one of {HEADS}", data.get("head"))
    for key in ("margin_scale", "win_scale"):
        v = data.get(key)
        ok = isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)
        _need(ok, path, key, "a finite number", v)
    n = data.get("num_players")
    _need(isinstance(n, int) and not isinstance(n, bool) and 2 <= n <= 8, path, "num_players",
          "a whole number 2..8", n)  # fmt: skip
    fit = data.get("fit", {})
    _need(isinstance(fit, dict), path, "fit", "an object", fit)
    extra = set(data) - {"format", "version", *DrawValue.__dataclass_fields__}
    _need(not extra, path, "the keys", "the value file's", sorted(extra))
    return DrawValue(
        policy=data["policy"],
        policy_sha256=data["policy_sha256"],
        head=data["head"],
        margin_scale=float(data["margin_scale"]),
        win_scale=float(data["win_scale"]),
        variant=data["variant"],
        num_players=n,
        fit=fit,
        path=str(path),
        sha256=file_sha256(path),
    )


def shipped_value(variant: str, num_players: int) -> DrawValue:
    """The value file shipped for a named variant and table size (ValueError naming
    what ships when there is none)."""
    path = shipped_value_path(variant, num_players)
    if not path.is_file():
        have = sorted(p.name for p in path.parent.glob("value_*.json"))
        raise ValueError(
            f"no value file ships for {variant} at {num_players} players (shipped: "
            f"{', '.join(have) or 'none'}): fit one with `burako fit-value` and pass it "
            "with --value"
        )
    return load_value(path)


# ---------------------------------------------------------------------------- values
def critic_values(net, head: str, obs: np.ndarray, oracle: np.ndarray) -> np.ndarray:
    """The critic's value [N] (float64) of observations ``obs`` int16 [N, O], with the
    other seats' hands ``oracle`` [N, (P - 1) * 53] for the oracle head."""
    import torch

    with torch.inference_mode():
        h = net._features(torch.from_numpy(np.ascontiguousarray(obs, np.int16)))[0]
        if head == "observation":
            v = net.value_head(h).squeeze(1)
        else:  # as BurakoNet.heads reads the other hands (counts halved)
            hands = torch.from_numpy(np.ascontiguousarray(oracle)).float() * 0.5
            v = net.oracle_head(torch.cat([h, net.oracle_enc(hands)], 1)).squeeze(1)
        return v.numpy().astype(np.float64)


def draw_corrections(
    variant,
    deal_words: np.ndarray,
    actions: np.ndarray,
    n_actions: np.ndarray,
    team: np.ndarray,
    value_fn,
) -> tuple[np.ndarray, np.ndarray]:
    """Each game's sum of ``V(after its draw) - E[V(after a draw)]`` over its draws from
    the stock, from team ``team[g]``'s side, and its number of draws.

    The games are replayed from their deals (``deal_words`` [G, 4], a game generator's
    state each) and actions (``actions`` [G, S], ``n_actions`` [G]) in lockstep. At each
    draw, one copy of the game per distinct card of the stock, that card swapped to the
    top, draws; ``value_fn(game, rows, seats, side)`` values the copies (as seen by the
    seat that drew, which acts next; ``side[i]``: the team of copy i's measured side, for
    a value that knows who plays where) and the expectation weighs each card by its
    copies in the stock. ``value_fn`` returns V from the drawing seat's team's side: the
    sign follows ``team``."""
    num_games = len(deal_words)
    game = Game(variant, batch_size=num_games, deal=False)
    game.state.rng[:] = deal_words
    game.reset()
    total = np.zeros(num_games)
    draws = np.zeros(num_games, np.int64)
    steps = int(n_actions.max(initial=0))
    for t in range(steps):
        now = np.where(t < n_actions, actions[:, min(t, actions.shape[1] - 1)], -1).astype(np.int64)
        drawing = np.flatnonzero(now == DRAW_STOCK)
        if drawing.size:
            total[drawing] += correct_draws(game, drawing, team[drawing], value_fn)
            draws[drawing] += 1
        game.step(now, check=False)
    if not game.done.all():
        raise ValueError("a replayed game did not end with its actions: not this table's games")
    return total, draws


def stock_worlds(game: Game, rows: np.ndarray, where: np.ndarray) -> Game:
    """Copies of games ``rows`` of ``game`` in which the stock's card at position
    ``where[i]`` and its top card have changed places: each the world in which that card
    was on top (the next draw takes it)."""
    worlds = game.clone(rows)
    k = np.arange(len(rows))
    top = worlds.state.stock_len - 1
    card = worlds.state.stock[k, where].copy()
    worlds.state.stock[k, where] = worlds.state.stock[k, top]
    worlds.state.stock[k, top] = card
    return worlds


def correct_draws(game: Game, drawing: np.ndarray, team: np.ndarray, value_fn) -> np.ndarray:
    """The correction of a draw from the stock about to happen in each of the games
    ``drawing`` of ``game`` (left as it is), from team ``team[i]``'s side:
    ``V(after the card on top is drawn) - sum over the stock's cards c of
    P(c) V(after c is drawn)`` (see :func:`draw_corrections`)."""
    st = game.state
    total = np.zeros(game.batch_size)
    rows, where, weight = [], [], []
    for g in drawing:
        n = int(st.stock_len[g])
        cards, first, counts = np.unique(st.stock[g, :n], return_index=True, return_counts=True)
        rows.append(np.full(len(cards), g))
        where.append(first)
        weight.append(counts / n)
    rows_all = np.concatenate(rows)
    where_all = np.concatenate(where)
    weight_all = np.concatenate(weight)
    side = np.repeat(np.asarray(team), [len(x) for x in rows])
    top = st.stock_len[rows_all] - 1
    drawn = st.stock[rows_all, where_all] == st.stock[rows_all, top]  # the card on top
    for lo in range(0, len(rows_all), CANDIDATE_ROWS):
        sl = slice(lo, lo + CANDIDATE_ROWS)
        r, w = rows_all[sl], where_all[sl]
        copies = stock_worlds(game, r, w)
        k = np.arange(len(r))
        copies.step(np.full(len(r), DRAW_STOCK), check=False)
        seats = copies.current_player.astype(np.int64)
        v = value_fn(copies, k, seats, side[sl])
        v = np.where(seats % 2 == side[sl], v, -v)
        np.add.at(total, r, np.where(drawn[sl], v, 0.0) - weight_all[sl] * v)
    return total[drawing]


def critic_value_fn(net, head: str):
    """``value_fn`` for :func:`draw_corrections`: the critic of the seat that drew."""
    from burako_env.agents.network import oracle_inputs

    def value_fn(game: Game, rows: np.ndarray, seats: np.ndarray, side=None) -> np.ndarray:
        obs = game.observe(seats)
        oracle = oracle_inputs(game.state.hands, rows, seats)
        return critic_values(net, head, obs[rows], oracle)

    return value_fn


# ---------------------------------------------------------------------------- estimates
@dataclass
class Estimate:
    """A pairing's plain and corrected outcomes, from its first agent's side, per pair
    of hands (a deal played twice, the seats swapped: the independent unit)."""

    value: str
    """The value file (its name) and ..."""
    value_sha256: str
    """... its sha256."""
    pairs: int
    """Deals played (each twice)."""
    margin: float
    """The plain mean margin per hand."""
    margin_se: float
    """Its standard error, from the pairs."""
    corrected_margin: float
    """The corrected mean margin per hand."""
    corrected_margin_se: float
    """Its standard error, from the pairs."""
    win_rate: float
    """The plain share of hands won (ties half)."""
    win_rate_se: float
    """Its standard error, from the pairs."""
    corrected_win_rate: float
    """The corrected share of hands won."""
    corrected_win_rate_se: float
    """Its standard error, from the pairs."""
    draws: int
    """Draws from the stock corrected."""
    seconds: float
    """The corrections' wall time."""
    pair_margin: np.ndarray = field(default_factory=lambda: np.zeros(0), repr=False)
    """Each pair's mean margin (not in :meth:`to_dict`)."""
    pair_win: np.ndarray = field(default_factory=lambda: np.zeros(0), repr=False)
    """Each pair's mean win score."""
    pair_correction: np.ndarray = field(default_factory=lambda: np.zeros(0), repr=False)
    """Each pair's mean correction, unscaled."""

    @property
    def margin_variance_ratio(self) -> float:
        """Plain variance over corrected: how many plain hands one corrected hand is worth."""
        return _ratio(self.margin_se, self.corrected_margin_se)

    @property
    def win_variance_ratio(self) -> float:
        """The same for the win rate."""
        return _ratio(self.win_rate_se, self.corrected_win_rate_se)

    def flipped(self) -> Estimate:
        """The estimate from the other agent's side."""
        return Estimate(
            self.value, self.value_sha256, self.pairs, -self.margin, self.margin_se,
            -self.corrected_margin, self.corrected_margin_se, 1 - self.win_rate,
            self.win_rate_se, 1 - self.corrected_win_rate, self.corrected_win_rate_se,
            self.draws, self.seconds, -self.pair_margin, 1 - self.pair_win,
            -self.pair_correction,
        )  # fmt: skip

    def to_dict(self) -> dict:
        """The fields (not the per-pair arrays) and both variance ratios."""
        data = {k: getattr(self, k) for k in self.__dataclass_fields__ if not k.startswith("pair_")}
        return {
            **data,
            "margin_variance_ratio": self.margin_variance_ratio,
            "win_variance_ratio": self.win_variance_ratio,
        }

    def text(self, z: float) -> str:
        """One line: both margins and win rates with their 95% half-widths, the ratios."""
        return (
            f"margin {self.margin:+.1f} ±{z * self.margin_se:.1f} plain, "
            f"{self.corrected_margin:+.1f} ±{z * self.corrected_margin_se:.1f} corrected "
            f"(variance /{self.margin_variance_ratio:.2f}); win rate {self.win_rate:.3f} "
            f"±{z * self.win_rate_se:.3f} plain, {self.corrected_win_rate:.3f} "
            f"±{z * self.corrected_win_rate_se:.3f} corrected "
            f"(/{self.win_variance_ratio:.2f}); {self.draws:,} draws, {self.seconds:.1f} s"
        )


def _ratio(plain_se: float, corrected_se: float) -> float:
    return (plain_se / corrected_se) ** 2 if corrected_se > 0 else math.inf


def _mean_se(x: np.ndarray) -> tuple[float, float]:
    n = len(x)
    return float(x.mean()), float(x.std(ddof=1) / math.sqrt(n)) if n > 1 else 0.0


def win_scores(winner_side: np.ndarray) -> np.ndarray:
    """Each hand's share won by the first side (``winner_side``: 0 it won, 1 the other
    side did, -1 a tie): 1, 0 or 1/2."""
    return np.where(winner_side == 0, 1.0, np.where(winner_side == 1, 0.0, 0.5))


def pair_means(x, deals_per_chunk) -> np.ndarray:
    """Per pair (game ``b`` and ``b + d`` of each chunk of ``2 d`` games): the mean of
    ``x`` over its two hands."""
    out, start = [], 0
    for d in deals_per_chunk:
        block = np.asarray(x[start : start + 2 * d], np.float64)
        out.append(0.5 * (block[:d] + block[d:]))
        start += 2 * d
    return np.concatenate(out)


def estimate(
    value: DrawValue, margin, win_score, correction, deals_per_chunk, draws: int, seconds: float
) -> Estimate:
    """The :class:`Estimate` of a pairing's hands: ``margin`` and ``win_score`` (1, 1/2,
    0) of its first agent's side per hand and the hands' ``correction``, in chunks of
    ``2 d`` hands (``deals_per_chunk``), the second half of each the first with the
    seats swapped."""
    m, w, c = (pair_means(x, deals_per_chunk) for x in (margin, win_score, correction))
    pm, pm_se = _mean_se(m)
    cm, cm_se = _mean_se(m - value.margin_scale * c)
    pw, pw_se = _mean_se(w)
    cw, cw_se = _mean_se(w - value.win_scale * c)
    return Estimate(
        Path(value.path).name if value.path else "(in memory)", value.sha256, len(m),
        pm, pm_se, cm, cm_se, pw, pw_se, cw, cw_se, int(draws), float(seconds), m, w, c,
    )  # fmt: skip


def least_squares_scale(outcome: np.ndarray, correction: np.ndarray) -> float:
    """The factor ``k`` that leaves ``outcome - k correction`` the least variance."""
    var = float(np.var(correction))
    return float(np.cov(outcome, correction, bias=True)[0, 1] / var) if var > 0 else 0.0


__all__ = [
    "CANDIDATE_ROWS",
    "DrawValue",
    "ESTIMATORS",
    "Estimate",
    "HEADS",
    "critic_value_fn",
    "correct_draws",
    "critic_values",
    "draw_corrections",
    "estimate",
    "file_sha256",
    "least_squares_scale",
    "load_value",
    "pair_means",
    "shipped_value",
    "shipped_value_path",
    "stock_worlds",
    "win_scores",
]
