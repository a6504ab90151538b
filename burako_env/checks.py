"""The library's self-test: :func:`api_test` plays uniformly random legal games through the
Python API and checks the core's invariants at every step (PGX's ``api_test`` spirit).
Every variant and player count must pass it; ``tests/core/test_core_random.py`` runs it for all.

    from burako_env.checks import api_test
    report = api_test("colombian", num_players=6, num_games=20, seed=1)
    print(report)

Games are uniformly random (``meld_bias`` > 0 favours melds and pile takes, so that more
hands reach canastas, muertos and going out). Checks, at every step of every game
(:class:`ApiTestError` names the configuration, the game, the step and the failing check):

* (a) **cards**: hands + melds + pile + stock + untaken muertos + the peeked card hold
  exactly the variant's decks (:func:`check_cards`); also ``known <= hands``.
* (b) **liveness**: a live game has a legal action; a finished one has none.
* (c) **mask**: ``action_error(a) == ERR_OK`` iff ``a`` is in ``legal_actions``: every id
  on a full scan (every step of the first ``full_scan_games`` games, every
  ``full_mask_scan_every``-th step of the others), a random sample of ids through
  :meth:`Game.action_error` otherwise; ``legal_action_mask`` agrees. Illegal ids tried
  through :meth:`Game.step_one` raise :class:`IllegalActionError` naming the action and
  leave the state identical (:func:`states_equal`).
* (d) **melds**: the referee reads every meld on the table as the core does (kind, rank /
  suit, size, cleanliness, canasta; a clean run's positions); no duplicate group rank
  (``unique_group_rank``); no wild added next to an open wild group.
* (e) **scores**: when a hand ends, ``score_items`` and the hand scores equal the referee's
  :func:`~burako_env.referee.score_hand` for the final table (in a match, the table
  before the next deal), and the end is consistent (who went out, stock, turns).
* (f) **length**: no hand takes more than :func:`max_steps` actions (its docstring has the
  argument), no match more than ``max_hands`` times that.
* (g) **hidden information** (``check_hidden``): a player's observation does not change
  when the cards hidden from them are dealt again (:meth:`Game.determinize
  <burako_env.core.game.Game.determinize>`: stock order, untaken muertos, a peeked card
  not theirs, the unknown cards of the other hands, sizes and ``known`` kept); and it
  still does not after the next action is applied to both states, when that action
  moves only cards its id names (:func:`check_hidden`).
* (h) **determinism**: replaying the recorded actions one game at a time (``step_one``) on
  a new :class:`Game` with the same seed gives bit-for-bit the states the batched run
  (``step``) went through.

The report also records the largest number of melds a team ever had (the evidence for
``MAX_MELDS``) and the longest hand.

Saved states (:func:`check_state_values`): a state that re-enters the core from outside
(``VectorEnv.set_state``, a training checkpoint, a global state vector) must be one some
legal game can hold, checked with the invariants above and those the rules keep between
the state's fields (meld rows as the engine writes them, muertos per pot, the scalars
together, counters and scores bounded by what a game reaches), so that no accepted state
leads by legal moves to a refused one (``tests/core/test_state_checks.py``).
"""

# Kernel module: the rules its kernels follow (burako_env/jit/__init__.py says why).
# - Its kernels call only the core and this file: the cache folder's name (the core's and
#   the jit's sources) and numba's own stamp (this file) cover nothing else.
# - Constants are module globals, compiled in; constant arguments go as np.int64/np.bool_.
# - burako_env.jit's @njit is link-only (kernels call it, Python cannot); Python calls
#   @njit_kernel, @njit_parallel or numba's own njit. A loop over games indexes np.uint64.

from __future__ import annotations

import hashlib
import time
from collections import Counter
from dataclasses import dataclass, field

import numba
import numpy as np

from burako_env.core.actions import decode_action, describe_action
from burako_env.core.constants import (
    ADD_BASE,
    DISCARD_BASE,
    END_MAX_TURNS,
    END_NONE,
    END_STOCK,
    END_WENT_OUT,
    ERR_GAME_OVER,
    ERR_OK,
    HOW_DIRECT,
    HOW_INDIRECT,
    HOW_KEPT_WILDS,
    HOW_NONE,
    JOKER,
    MAX_CARDS,
    MAX_MELDS,
    MAX_MUERTOS,
    MELD_GROUP,
    MELD_RUN,
    MELD_WILD_GROUP,
    MF_GAP,
    MF_HI,
    MF_KEY,
    MF_KIND,
    MF_LO,
    MF_N0,
    MF_NJOKER,
    MF_SIZE,
    MF_WILD,
    MUERTO_ABSENT,
    MUERTO_PENDING,
    MUERTO_STOCK,
    MUERTO_TAKEN,
    MUERTO_UNTAKEN,
    NUM_ACTIONS,
    NUM_CARD_TYPES,
    NUM_PHASES,
    NUM_RANKS,
    NUM_SUITS,
    PEEK_REJECT,
    PHASE_DRAW,
    PHASE_OVER,
    PHASE_PEEK,
    PHASE_PLAY,
    RANK_TWO,
    S_DEALER,
    S_DONE,
    S_END_REASON,
    S_EPISODE_MATCH,
    S_FIRST_PLAYER,
    S_HAND_INDEX,
    S_HAND_JUST_ENDED,
    S_HAND_SCORE0,
    S_HAND_SCORE1,
    S_HANDS_ENDED,
    S_LAST_TURN,
    S_MATCH0,
    S_MATCH1,
    S_MIN_EXTRA0,
    S_MIN_EXTRA1,
    S_MUERTOS_LEFT,
    S_NO_DISCARD,
    S_OPENED0,
    S_OPENED1,
    S_PEEK_CARD,
    S_PHASE,
    S_PLAYER,
    S_PROV_START,
    S_STEP,
    S_TOTAL_STEPS,
    S_TURN,
    S_WENT_OUT,
    S_WINNER,
    SCORE_ITEMS,
    TAKE_PILE,
)
from burako_env.core.game import Game, IllegalActionError
from burako_env.core.kernels import refresh_legal_games
from burako_env.core.params import variant_params
from burako_env.core.rules import action_error_nb as _core_action_error
from burako_env.core.state import (
    GameState,
    copy_state,
    state_fields,
    states_equal,
    take_games,
    untaken_packets,
)
from burako_env.jit import njit_kernel
from burako_env.referee import TeamResult, classify_meld, score_hand
from burako_env.scenario import meld_cards
from burako_env.variants import Variant, load_variant

#: this module defines compiled functions (agents/kernel_cache.py reads the mark)
KERNEL_MODULE = True

KIND_NAMES = {MELD_GROUP: "group", MELD_RUN: "run", MELD_WILD_GROUP: "wild_group"}


class ApiTestError(AssertionError):
    """A check of :func:`api_test` failed; the message says which, where and why."""


# ------------------------------------------------------------------------ MAX_STEPS
def max_steps(variant: Variant | str = "argentine", num_players: int | None = None) -> int:
    """MAX_STEPS: an upper bound on the actions of one hand.

    The argument (RULES.md 4-6 and the engine):

    * a hand has at most ``max_turns`` turns: ``S_TURN`` counts discards and the discard
      that brings it to ``max_turns`` ends the hand (a stock end or going out ends it
      sooner);
    * a turn has exactly one draw (stock, pile, or the peek choice that stands for it) and
      at most one discard (a turn that goes out by melding has none): ``2 * max_turns``;
    * every meld action (open or add) moves at least one card from the hand to the table,
      and a card on the table stays there for the rest of the hand, so a hand has at most
      ``total_cards`` meld actions. With ``min_first_meld`` the provisional melds of a turn
      may go back to the hand at its discard; cards then stay on the table only within one
      turn, so a turn has at most ``total_cards`` meld actions: ``max_turns * total_cards``;
    * taking a muerto keeping wilds happens at most once per muerto:
      ``2 * muertos_per_team``.

    ``max_steps = 2 * max_turns + M + 2 * muertos_per_team`` with ``M = total_cards``, or
    ``max_turns * total_cards`` under ``min_first_meld``. A match episode has at most
    ``max_hands`` hands, so at most ``max_hands * max_steps`` actions.
    Argentine 4p: 2 * 400 + 106 + 2 = 908; brazilian: 800 + 400 * 108 + 2 = 44002.
    """
    v = load_variant(variant, num_players=num_players)
    melds = v.total_cards if v.min_first_meld == 0 else v.max_turns * v.total_cards
    return 2 * v.max_turns + melds + 2 * v.muertos_per_team


# ------------------------------------------------------------------------ helpers
def deck_counts(variant: Variant) -> np.ndarray:
    """How many copies of each card type the variant's decks hold."""
    counts = np.full(NUM_CARD_TYPES, variant.decks, np.int64)
    counts[JOKER] = variant.decks * variant.jokers_per_deck
    return counts


def _bincount(cards) -> np.ndarray:
    return np.bincount(np.asarray(cards, np.int64), minlength=NUM_CARD_TYPES)


def _cards(counts) -> list[int]:
    counts = np.asarray(counts, np.int64)
    return np.repeat(np.arange(NUM_CARD_TYPES), counts).tolist()


def state_digest(state: GameState) -> str:
    """A hash of every array of the state but the kernels' ``scratch`` work rows."""
    h = hashlib.blake2b(digest_size=16)
    for name, arr in state_fields(state):
        if name == "scratch":
            continue
        h.update(name.encode())
        h.update(str(arr.shape).encode())
        h.update(np.ascontiguousarray(arr).tobytes())
    return h.hexdigest()


@njit_kernel
def _scan_errors(st, params, b, out):
    """``action_error_nb`` of every action id (the full scan of check (c))."""
    for a in range(out.shape[0]):
        out[a] = _core_action_error(st, b, a, params)


def action_errors(game: Game, b: int = 0) -> np.ndarray:
    """The ERR_* code of every action id in game ``b`` (what :meth:`Game.action_error`
    returns, for all ids at once)."""
    out = np.empty(NUM_ACTIONS, np.int64)
    _scan_errors(game.state, game.params, b, out)
    return out


def _observe(game: Game, state: GameState, b: int, viewer: int) -> np.ndarray:
    """:meth:`Game.observe_one` of another state (the game's state is put back)."""
    saved = game.state
    game.state = state
    try:
        return game.observe_one(viewer, b).copy()
    finally:
        game.state = saved


def _step_state(game: Game, state: GameState, b: int, action: int) -> int:
    """:meth:`Game.step_one` on another state; the ERR_* code (the state moves if OK)."""
    saved = game.state
    game.state = state
    try:
        game.step_one(action, b)
        return ERR_OK
    except IllegalActionError as e:
        return e.code
    finally:
        game.state = saved


# ------------------------------------------------------------------------ (a) cards
class _MeldCache:
    """meld_cards and the referee's reading, per distinct row (rows repeat a lot)."""

    def __init__(self, variant: Variant):
        self.variant = variant
        self.cards: dict[bytes, list[int]] = {}
        self.counts: dict[bytes, np.ndarray] = {}
        self.checked: set[bytes] = set()

    def row_cards(self, row) -> list[int]:
        key = row.tobytes()
        if key not in self.cards:
            self.cards[key] = meld_cards(row)
            self.counts[key] = _bincount(self.cards[key])
        return self.cards[key]

    def row_counts(self, row) -> np.ndarray:
        self.row_cards(row)
        return self.counts[row.tobytes()]


def table_counts(state: GameState, b: int, variant: Variant, cache: _MeldCache | None = None):
    """Counts of every card of game ``b`` by where it lies (hands, melds, pile, stock,
    untaken muertos, peek card), as a dict of 53-vectors."""
    cache = cache or _MeldCache(variant)
    n = variant.num_players
    melds = np.zeros(NUM_CARD_TYPES, np.int64)
    for t in range(2):
        for i in range(state.num_melds[b, t]):
            melds += cache.row_counts(state.melds[b, t, i])
    muertos = np.zeros(NUM_CARD_TYPES, np.int64)
    for t, m in untaken_packets(state, b, variant.muerto_pot == "shared"):
        muertos += _bincount(state.muertos[b, t, m])
    peek = np.zeros(NUM_CARD_TYPES, np.int64)
    if state.scalars[b, S_PEEK_CARD] >= 0:
        peek[state.scalars[b, S_PEEK_CARD]] += 1
    return {
        "hands": state.hands[b, :n].astype(np.int64).sum(axis=0),
        "melds": melds,
        "pile": _bincount(state.pile[b, : state.pile_len[b]]),
        "stock": _bincount(state.stock[b, : state.stock_len[b]]),
        "muertos": muertos,
        "peek": peek,
    }


def check_cards(state: GameState, b: int, variant: Variant, cache: _MeldCache | None = None):
    """(a): every card is somewhere, once; ``known`` never claims more than a hand holds."""
    n = variant.num_players
    hands = state.hands[b, :n].astype(np.int64)
    known = state.known[b, :n].astype(np.int64)
    if (hands < 0).any():
        raise ApiTestError("a hand holds a negative count")
    if (known < 0).any() or (known > hands).any():
        p, c = np.argwhere((known < 0) | (known > hands))[0]
        raise ApiTestError(
            f"known[{p}][{c}] = {known[p, c]} but player {p} holds {hands[p, c]} of card {c}"
        )
    if not 0 <= state.stock_len[b] <= state.stock.shape[1]:
        raise ApiTestError(f"stock_len {state.stock_len[b]} out of range")
    if not 0 <= state.pile_len[b] <= state.pile.shape[1]:
        raise ApiTestError(f"pile_len {state.pile_len[b]} out of range")
    where = table_counts(state, b, variant, cache)
    total = sum(where.values())
    expected = deck_counts(variant)
    if not np.array_equal(total, expected):
        bad = np.flatnonzero(total != expected)
        parts = {k: v[bad].tolist() for k, v in where.items()}
        raise ApiTestError(
            f"cards not accounted for: types {bad.tolist()} counted {total[bad].tolist()}, "
            f"decks hold {expected[bad].tolist()}; by place {parts}"
        )


# ------------------------------------------------------------------------ (d) melds
def check_meld_row(row, variant: Variant, cache: _MeldCache | None = None) -> None:
    """(d) for one row: the referee reads the row's cards as the core does."""
    cache = cache or _MeldCache(variant)
    key = row.tobytes()
    if key in cache.checked:
        return
    kind = int(row[MF_KIND])
    if kind not in KIND_NAMES:
        raise ApiTestError(f"meld row {row.tolist()} has no kind")
    cards = cache.row_cards(row)
    info = classify_meld(cards, variant)
    where = f"meld {row.tolist()} = {cards}"
    if info is None:
        raise ApiTestError(f"{where}: the referee says it is no meld")
    clean = bool(kind != MELD_WILD_GROUP and row[MF_WILD] < 0)
    size = int(row[MF_SIZE])
    problems = []
    if info.kind != KIND_NAMES[kind]:
        problems.append(f"kind {KIND_NAMES[kind]} vs referee {info.kind}")
    if size != len(cards) or info.size != size:
        problems.append(f"size {size} vs {len(cards)} cards")
    if info.clean != clean:
        problems.append(f"clean {clean} vs referee {info.clean}")
    if info.canasta != (size >= 7):
        problems.append(f"canasta {size >= 7} vs referee {info.canasta}")
    if kind == MELD_GROUP and info.rank != row[MF_KEY]:
        problems.append(f"rank {row[MF_KEY]} vs referee {info.rank}")
    if kind == MELD_RUN:
        lo, hi, gap = int(row[MF_LO]), int(row[MF_HI]), int(row[MF_GAP])
        if info.suit != row[MF_KEY]:
            problems.append(f"suit {row[MF_KEY]} vs referee {info.suit}")

        # the same cards: a clean 13-card run with both ends free reads as 2..A(14) or
        # A(1)..K, and both readings grow alike (the other ace goes to either end)
        def as_cards(positions):
            return sorted(1 if q == 14 else q for q in positions)

        if clean and as_cards(range(lo, hi + 1)) != as_cards(info.positions):
            problems.append(f"positions {lo}..{hi} vs referee {info.positions}")
        if gap and (clean or not lo < gap < hi):
            problems.append(f"gap {gap} outside {lo}..{hi} or without a wild")
        if not clean and not gap and hi - lo + 1 > 13:
            problems.append("a wild at an end of a run with no free end")
    if problems:
        raise ApiTestError(f"{where}: " + "; ".join(problems))
    cache.checked.add(key)


def check_melds(state: GameState, b: int, variant: Variant, cache: _MeldCache | None = None):
    """(d) for every meld of game ``b``, and the unique group rank rule."""
    cache = cache or _MeldCache(variant)
    ranks: list[list[int]] = [[], []]
    for t in range(2):
        n = int(state.num_melds[b, t])
        if not 0 <= n <= MAX_MELDS:
            raise ApiTestError(f"team {t} has {n} melds")
        for i in range(n):
            row = state.melds[b, t, i]
            try:
                check_meld_row(row, variant, cache)
            except ApiTestError as e:
                raise ApiTestError(f"team {t} meld {i}: {e}") from None
            if row[MF_KIND] == MELD_GROUP:
                ranks[t].append(int(row[MF_KEY]))
    pools = ranks if variant.unique_group_rank == "team" else [ranks[0] + ranks[1]]
    for pool in pools:
        dup = [r for r, k in Counter(pool).items() if k > 1]
        if dup:
            raise ApiTestError(f"two groups of rank index {dup} ({variant.unique_group_rank})")


def _open_wild_group(state: GameState, b: int, t: int, variant: Variant) -> bool:
    limit = variant.max_meld_size or 7
    return any(
        state.melds[b, t, i, MF_KIND] == MELD_WILD_GROUP and state.melds[b, t, i, MF_SIZE] < limit
        for i in range(state.num_melds[b, t])
    )


def check_wild_group_rule(before: GameState, after: GameState, b: int, variant: Variant):
    """(d): no wild joins another meld of a team whose wild group is open (RULES.md 2.4)."""
    if not variant.wild_group:
        return
    t = int(before.scalars[b, S_PLAYER]) % 2
    if not _open_wild_group(before, b, t, variant):
        return
    for i in range(after.num_melds[b, t]):
        row = after.melds[b, t, i]
        if row[MF_KIND] == MELD_WILD_GROUP or row[MF_WILD] < 0:
            continue
        if i >= before.num_melds[b, t] or before.melds[b, t, i, MF_WILD] < 0:
            raise ApiTestError(f"team {t} put a wild in meld {i} while its wild group is open")


# ------------------------------------------------------------------------ (e) scores
def team_results(state: GameState, b: int, variant: Variant) -> list[TeamResult]:
    """The referee's view of game ``b``'s table: melds, hand cards, muertos by status."""
    results = []
    for t in range(2):
        melds = [meld_cards(state.melds[b, t, i]) for i in range(state.num_melds[b, t])]
        hand = np.zeros(NUM_CARD_TYPES, np.int64)
        for p in range(t, variant.num_players, 2):
            hand += state.hands[b, p]
        r = TeamResult(melds=melds, hand_cards=_cards(hand))
        for m in range(MAX_MUERTOS):
            status = state.muerto_status[b, t, m]
            if status == MUERTO_TAKEN:
                r.muertos_taken += 1
            elif status in (MUERTO_UNTAKEN, MUERTO_STOCK):
                r.muertos_not_taken += 1
            elif status == MUERTO_PENDING:
                r.unplayed_muertos.append(state.muertos[b, t, m].tolist())
            elif status != MUERTO_ABSENT:
                raise ApiTestError(f"team {t} muerto {m} has status {status}")
        results.append(r)
    return results


def check_hand_end(state: GameState, b: int, variant: Variant) -> tuple[int, int]:
    """(e): game ``b`` holds a hand that just ended; its scores and end are the referee's.

    Returns the referee's totals."""
    s = state.scalars[b]
    reason = int(s[S_END_REASON])
    went_out = int(s[S_WENT_OUT])
    n = variant.num_players
    if reason == END_WENT_OUT:
        if went_out not in (0, 1):
            raise ApiTestError(f"the hand ended by going out but S_WENT_OUT = {went_out}")
        emptied = [p for p in range(went_out, n, 2) if state.hands[b, p].sum() == 0]
        if not emptied:
            raise ApiTestError(f"team {went_out} went out but no hand of it is empty")
        if (state.muerto_status[b, went_out] == MUERTO_UNTAKEN).any():
            raise ApiTestError(f"team {went_out} went out with a muerto untaken")
        if variant.muerto_pot == "shared" and state.muerto_status[b, went_out, 0] not in (
            MUERTO_TAKEN,
            MUERTO_PENDING,
        ):
            raise ApiTestError(f"team {went_out} went out without taking a muerto from the pot")
        rows = [state.melds[b, went_out, i] for i in range(state.num_melds[b, went_out])]
        canastas = [r for r in rows if r[MF_SIZE] >= 7]
        clean = [r for r in canastas if r[MF_KIND] != MELD_WILD_GROUP and r[MF_WILD] < 0]
        if variant.close_requires == "any_canasta" and not canastas:
            raise ApiTestError(f"team {went_out} went out with no canasta")
        if variant.close_requires == "clean_canasta" and not clean:
            raise ApiTestError(f"team {went_out} went out with no clean canasta")
    elif went_out != -1:
        raise ApiTestError(f"end reason {reason} but S_WENT_OUT = {went_out}")
    elif reason == END_STOCK:
        if state.stock_len[b] > variant.stock_end:
            raise ApiTestError(f"stock end with {state.stock_len[b]} cards in the stock")
    elif reason == END_MAX_TURNS:
        if s[S_TURN] < variant.max_turns:
            raise ApiTestError(f"turn-limit end after {s[S_TURN]} turns")
    else:
        raise ApiTestError(f"a hand ended with end reason {reason}")
    ref = score_hand(variant, team_results(state, b, variant), None if went_out < 0 else went_out)
    core = state.score_items[b]
    for t in range(2):
        want = [ref.teams[t].items[k] for k in SCORE_ITEMS]
        if core[t].tolist() != want:
            raise ApiTestError(
                f"team {t} score items {dict(zip(SCORE_ITEMS, core[t].tolist(), strict=True))}"
                f" but the referee says {ref.teams[t].items} (end reason {reason}, "
                f"went out {went_out})"
            )
    totals = ref.totals
    if (s[S_HAND_SCORE0], s[S_HAND_SCORE0 + 1]) != totals:
        raise ApiTestError(
            f"hand scores {s[S_HAND_SCORE0]}, {s[S_HAND_SCORE0 + 1]} but the referee's totals "
            f"are {totals}"
        )
    return totals


# ------------------------------------------------------------------------ saved states
class InvalidStateError(ValueError):
    """State arrays that no game can reach (a corrupted or hand-edited checkpoint): the
    message names the game, the array and the range it must lie in."""


def hand_score_bound(variant: Variant) -> int:
    """The largest size of a team's score for one hand: every card's value (a card counts
    once, on the table or in a hand), a canasta bonus for every 7 cards, going out and
    every muerto of the team. The bound on :data:`S_HAND_SCORE0` and, times the hands
    ended, on the match points (what :func:`check_state_values` holds them to)."""
    v = variant
    values = [abs(v.value_low)] * 5 + [abs(v.value_high)] * 6 + [abs(v.value_ace)]
    cards = v.decks * (4 * sum(values) + 4 * abs(v.value_two))
    cards += v.decks * v.jokers_per_deck * abs(v.value_joker)
    bonuses = (v.clean_canasta, v.dirty_canasta, v.clean_aces_canasta, v.dirty_aces_canasta)
    bonus = max(abs(x) for x in (*bonuses, v.wild_canasta))
    muerto = max(abs(v.muerto_taken_bonus), abs(v.muerto_not_taken))
    return cards + v.total_cards // 7 * bonus + abs(v.going_out_bonus) + v.muertos_per_team * muerto


def scalar_ranges(variant: Variant) -> dict[int, tuple[str, int, int]]:
    """The range of every state scalar: name, low, high (inclusive). Seats, flags, cards
    and statuses by what they index; counters and scores by what a game can reach (turns
    by ``max_turns``, steps by :func:`max_steps`, hands by ``max_hands``, scores by
    :func:`hand_score_bound`), so that no counter of an accepted state can overflow.
    :func:`check_state_values` then checks how they hang together."""
    seat = variant.num_players - 1
    big = np.iinfo(np.int32).max
    steps = max_steps(variant)
    hands = variant.max_hands
    score = hand_score_bound(variant)
    match = min(score * hands, big)
    extra = variant.max_turns * variant.min_first_meld_step
    return {
        S_PHASE: ("phase", 0, NUM_PHASES - 1),
        S_PLAYER: ("player", 0, seat),
        S_FIRST_PLAYER: ("first_player", 0, seat),
        S_DEALER: ("dealer", 0, seat),
        S_HAND_INDEX: ("hand_index", 0, hands),
        S_TURN: ("turn", 0, variant.max_turns),
        S_STEP: ("step", 0, steps),
        S_PEEK_CARD: ("peek_card", -1, JOKER),
        S_NO_DISCARD: ("no_discard", -1, JOKER),
        S_PROV_START: ("prov_start", 0, MAX_MELDS),
        S_LAST_TURN: ("last_turn", 0, 1),
        S_END_REASON: ("end_reason", END_NONE, END_MAX_TURNS),
        S_WENT_OUT: ("went_out", -1, 1),
        S_DONE: ("done", 0, 1),
        S_HANDS_ENDED: ("hands_ended", 0, hands),
        S_HAND_JUST_ENDED: ("hand_just_ended", 0, 1),
        S_OPENED0: ("opened0", 0, 1),
        S_OPENED1: ("opened1", 0, 1),
        S_MIN_EXTRA0: ("min_extra0", 0, extra),
        S_MIN_EXTRA1: ("min_extra1", 0, extra),
        S_MATCH0: ("match0", -match, match),
        S_MATCH1: ("match1", -match, match),
        S_HAND_SCORE0: ("hand_score0", -score, score),
        S_HAND_SCORE1: ("hand_score1", -score, score),
        S_EPISODE_MATCH: ("episode_match", 0, 1),
        S_WINNER: ("winner", -1, 1),
        S_TOTAL_STEPS: ("total_steps", 0, min(steps * hands, big)),
        S_MUERTOS_LEFT: ("muertos_left", 0, 2 * MAX_MUERTOS),
    }


def _in_range(name: str, values: np.ndarray, low, high, where=None) -> None:
    """InvalidStateError naming the first game and position where ``values`` (batch axis
    first) leaves ``low..high`` (numbers, or arrays broadcast along the last axes: a bound
    per card type); ``where`` limits the check to the entries in use."""
    bad = (values < low) | (values > high)
    if where is not None:
        bad &= where
    if bad.any():
        first = tuple(int(i) for i in np.argwhere(bad)[0])
        at = "".join(f"[{i}]" for i in first[1:])
        lo = np.broadcast_to(low, values.shape)[first]
        hi = np.broadcast_to(high, values.shape)[first]
        raise InvalidStateError(
            f"game {first[0]}: {name}{at} is {values[first]}, it must lie in {lo}..{hi}"
        )


def _first_bad_row(bad: np.ndarray) -> tuple[int, int, int] | None:
    """(game, team, slot) of the first True of a [B, 2, MAX_MELDS] mask, or None."""
    if not bad.any():
        return None
    b, t, i = (int(k) for k in np.argwhere(bad)[0])
    return b, t, i


def check_meld_fields(state: GameState, variant: Variant) -> None:
    """Every meld row in use holds what the core's meld functions can write
    (``melds.build_*``, ``add_card_nb``, ``normalize_run_nb``): a kind of the variant, a key in
    its range, a run's positions within ``1..14`` with the gap between its ends and the
    suited 2 sent home, counts within the decks, the size the other fields give, and every
    field the kind does not use zero (``MF_WILD`` -1). A team has at most one wild group
    still open. Vectorised over the batch; raises :class:`InvalidStateError` naming the
    game, the row and the rule. Runs before anything reads a row: the referee's reading
    and the kernels index cards with these fields."""
    rows = state.melds.astype(np.int64)
    in_use = np.arange(MAX_MELDS)[None, None, :] < state.num_melds[:, :, None]
    kind, key = rows[..., MF_KIND], rows[..., MF_KEY]
    lo, hi, gap = rows[..., MF_LO], rows[..., MF_HI], rows[..., MF_GAP]
    wild, size = rows[..., MF_WILD], rows[..., MF_SIZE]
    suits = rows[..., MF_N0 : MF_N0 + NUM_SUITS]
    jokers = rows[..., MF_NJOKER]
    naturals = suits.sum(axis=-1)
    has_wild = wild >= 0
    group, run, wild_group = kind == MELD_GROUP, kind == MELD_RUN, kind == MELD_WILD_GROUP
    is_wild = (wild == JOKER) | ((wild >= 0) & (wild < JOKER) & (wild % NUM_RANKS == RANK_TWO))
    span = hi - lo + 1
    run_naturals = span - (gap != 0)
    suited_two = wild == key * NUM_RANKS + RANK_TWO
    decks = variant.decks
    rules = [
        (
            ~(group | run | (wild_group & bool(variant.wild_group))),
            "its kind is none of this variant's (1 group, 2 run"
            + (", 3 wild group)" if variant.wild_group else ")"),
        ),
        (~((wild == -1) | is_wild), "its wild must be -1 (none), a joker (52) or a 2"),
        (wild_group & (wild != -1), "a wild group keeps MF_WILD at -1"),
        ((suits < 0).any(axis=-1) | (suits > decks).any(axis=-1), f"a count is not in 0..{decks}"),
        (
            group & ((key < 0) | (key >= NUM_RANKS) | (key == RANK_TWO)),
            "a group's rank is A or 3..K",
        ),
        (
            group & ((lo != 0) | (hi != 0) | (gap != 0) | (jokers != 0)),
            "a group's unused fields are 0",
        ),
        (
            group & ((naturals < 2) | ((naturals < 3) & ~has_wild)),
            "a group needs 3 naturals, or 2 and a wild",
        ),
        (group & (size != naturals + has_wild), "a group's size is its naturals plus its wild"),
        (run & ((key < 0) | (key >= NUM_SUITS)), f"a run's suit is 0..{NUM_SUITS - 1}"),
        (run & ((suits != 0).any(axis=-1) | (jokers != 0)), "a run's count fields are 0"),
        (run & ((lo < 1) | (hi > 14) | (lo >= hi)), "a run's positions lie in 1..14, lo below hi"),
        (
            run & (gap != 0) & ((gap <= lo) | (gap >= hi) | ~has_wild),
            "a run's gap lies between its ends and holds its wild",
        ),
        (run & (run_naturals < 2 + ~has_wild), "a run needs 3 naturals, or 2 and a wild"),
        (
            run & has_wild & (gap == 0) & (span > 13),
            "a run with a wild at an end spans at most 13 positions",
        ),
        (
            run & (size != span + (has_wild & (gap == 0))),
            "a run's size is its span (plus a wild at an end)",
        ),
        (
            run & suited_two & ((gap == 2) | ((gap == 0) & (lo == 3))),
            "the 2 of the run's suit stands at position 2 as a natural (normalize_run_nb)",
        ),
        (
            wild_group & ((key != 0) | (lo != 0) | (hi != 0) | (gap != 0)),
            "a wild group's unused fields are 0",
        ),
        (
            wild_group & ((jokers < 0) | (jokers > decks * variant.jokers_per_deck)),
            "its jokers are not in the decks' range",
        ),
        (wild_group & (size != naturals + jokers), "a wild group's size is its 2s plus its jokers"),
        (size < 3, "a meld holds at least 3 cards"),
    ]
    if variant.max_meld_size:
        rules.append((size > variant.max_meld_size, f"max_meld_size is {variant.max_meld_size}"))
    for bad, rule in rules:
        first = _first_bad_row(bad & in_use)
        if first is not None:
            b, t, i = first
            raise InvalidStateError(
                f"game {b}: team {t} meld {i} {rows[b, t, i].tolist()} is no meld the engine "
                f"makes: {rule}"
            )
    limit = variant.max_meld_size or 7
    open_wild = (wild_group & (size < limit) & in_use).sum(axis=2)
    if (open_wild > 1).any():
        b, t = (int(k) for k in np.argwhere(open_wild > 1)[0])
        raise InvalidStateError(
            f"game {b}: team {t} has {open_wild[b, t]} open wild groups; an open wild group "
            "bars wilds from any new meld, so a team has one at most"
        )


def _team_pot_errors(status, left: int, v: Variant) -> list[str]:
    """``muerto_pot: team``: each team's packets go in order; the stock takes team 0's
    before team 1's; the packets left are the untaken ones."""
    out = []
    for t in range(2):
        own = status[t, : v.muertos_per_team].tolist()
        if MUERTO_UNTAKEN in own and any(x != MUERTO_UNTAKEN for x in own[own.index(0) :]):
            out.append(f"team {t}'s muertos are taken in order, statuses {own}")
    if (status[1] == MUERTO_STOCK).any() and (status[0] == MUERTO_UNTAKEN).any():
        out.append("team 1's muerto became the stock while team 0 had one untaken")
    untaken = int((status == MUERTO_UNTAKEN).sum())
    if left != untaken:
        out.append(f"S_MUERTOS_LEFT is {left} with {untaken} packets untaken")
    return out


def _shared_pot_errors(status, left: int) -> list[str]:
    """``muerto_pot: shared``: the pot (``S_MUERTOS_LEFT``) holds at most a packet for each
    team still untaken, and when it empties those teams' statuses become MUERTO_STOCK."""
    untaken = int((status[:, 0] == MUERTO_UNTAKEN).sum())
    stock = int((status[:, 0] == MUERTO_STOCK).sum())
    if left > untaken or (untaken > 0) != (left > 0) or (stock and left):
        return [
            f"a shared pot of {left} packets with statuses {status[:, 0].tolist()}: it holds "
            "one packet at most per team untaken, and none once a status is MUERTO_STOCK"
        ]
    return []


def _muerto_errors(state: GameState, b: int, v: Variant) -> list[str]:
    """What the muerto arrays of game ``b`` say against the rules that move them."""
    s = state.scalars[b]
    status, how, taker = state.muerto_status[b], state.muerto_how[b], state.muerto_taker[b]
    out = []
    live = s[S_PHASE] != PHASE_OVER
    takes = (HOW_DIRECT, HOW_INDIRECT) + ((HOW_KEPT_WILDS,) if v.muerto_keep_wilds else ())
    for t in range(2):
        for m in range(MAX_MUERTOS):
            st_, hw, tk = int(status[t, m]), int(how[t, m]), int(taker[t, m])
            where = f"team {t} muerto {m} (status {st_}, how {hw}, taker {tk})"
            if m >= v.muertos_per_team:
                ok = st_ == MUERTO_ABSENT and hw == HOW_NONE and tk == -1
                rule = f"the variant has {v.muertos_per_team} a team: ABSENT, NONE, -1"
            elif st_ in (MUERTO_UNTAKEN, MUERTO_STOCK):
                ok = hw == HOW_NONE and tk == -1
                rule = "a packet nobody took has how NONE and taker -1"
                if st_ == MUERTO_STOCK and not v.muerto_refills_stock:
                    ok, rule = False, "only muerto_refills_stock turns a packet into the stock"
            elif st_ in (MUERTO_TAKEN, MUERTO_PENDING):
                ok = tk >= 0 and tk % 2 == t and hw in takes
                rule = f"a taken packet has a taker of team {t} and a way of taking {takes}"
                if st_ == MUERTO_PENDING and (hw != HOW_INDIRECT or (live and tk == s[S_PLAYER])):
                    ok = False
                    rule = "a pending packet was taken by a discard, its taker not yet to play"
                elif st_ == MUERTO_PENDING and tk >= 0:
                    # its taker has not played since: the packet is still in their hand
                    packet = np.bincount(
                        state.muertos[b, t, m].astype(np.int64), minlength=NUM_CARD_TYPES
                    )
                    if (packet > state.hands[b, tk]).any():
                        ok, rule = False, "a pending packet's cards are in its taker's hand"
            else:
                ok, rule = False, "ABSENT only past the variant's muertos_per_team"
            if not ok:
                out.append(f"{where}: {rule}")
    if out:
        return out
    left = int(s[S_MUERTOS_LEFT])
    if v.muerto_pot == "shared":
        return _shared_pot_errors(status, left)
    return _team_pot_errors(status, left, v)


def _scalar_errors(state: GameState, b: int, v: Variant, bound: int) -> list[str]:
    """How game ``b``'s counters and flags hang together (rules.py, deal.py)."""
    s = [int(x) for x in state.scalars[b]]
    n = v.num_players
    phase, player, turn, step = s[S_PHASE], s[S_PLAYER], s[S_TURN], s[S_STEP]
    over = phase == PHASE_OVER
    match = s[S_EPISODE_MATCH] == 1
    ended = s[S_HANDS_ENDED]
    team = player % 2
    melds = state.num_melds[b]
    out = []

    def need(ok, text):
        if not ok:
            out.append(text)

    # the episode
    need(s[S_DONE] == over, f"S_DONE is {s[S_DONE]} in phase {phase}: 1 exactly in PHASE_OVER")
    if match:
        hand = ended - 1 if over else ended
        need(s[S_HAND_INDEX] == hand, f"hand {s[S_HAND_INDEX]} after {ended} hands ended")
        m0, m1 = s[S_MATCH0], s[S_MATCH1]
        finished = (max(m0, m1) >= v.target and m0 != m1) or ended >= v.max_hands
        need(finished == over, f"match {m0}-{m1} after {ended} hands but phase {phase}")
        need(s[S_TOTAL_STEPS] >= step + ended - over, "S_TOTAL_STEPS below the hands' steps")
        need(s[S_TOTAL_STEPS] <= bound * (ended + (not over)), "S_TOTAL_STEPS past max_steps")
    else:
        need(s[S_HAND_INDEX] == 0 and ended == over, "a one-hand episode plays hand 0 only")
        need(s[S_TOTAL_STEPS] == step, "a one-hand episode's S_TOTAL_STEPS is S_STEP")
    hand_index = s[S_HAND_INDEX]
    need(
        s[S_DEALER] == (hand_index - 1) % n,
        f"hand {hand_index} is dealt by seat {(hand_index - 1) % n}",
    )
    need(s[S_FIRST_PLAYER] == hand_index % n, f"hand {hand_index} opens with seat {hand_index % n}")
    # the scores
    items = state.score_items[b].astype(np.int64)
    if ended == 0:
        zero = s[S_MATCH0] == s[S_MATCH1] == s[S_HAND_SCORE0] == s[S_HAND_SCORE1] == 0
        need(zero and not items.any(), "scores before any hand ended")
    else:
        sums = items.sum(axis=1).tolist()
        need(
            sums == [s[S_HAND_SCORE0], s[S_HAND_SCORE1]],
            "score_items do not add up to the hand scores",
        )
        need(
            match or s[S_MATCH0 : S_MATCH1 + 1] == s[S_HAND_SCORE0 : S_HAND_SCORE1 + 1],
            "a one-hand episode's match points are its hand scores",
        )
        limit = hand_score_bound(v) * ended
        need(max(abs(s[S_MATCH0]), abs(s[S_MATCH1])) <= limit, f"match points past {limit}")
    # the first meld (min_first_meld) and the teams' openings
    for t in range(2):
        opened = s[S_OPENED0 + t]
        need(not opened or melds[t] > 0, f"team {t} opened with no meld")
        provisional = t == team and s[S_PROV_START] == 0 and phase in (PHASE_PLAY, PHASE_OVER)
        need(
            opened or melds[t] == 0 or provisional,
            f"team {t}'s melds are neither confirmed nor this turn's",
        )
    step_ = v.min_first_meld_step
    extras = [s[S_MIN_EXTRA0], s[S_MIN_EXTRA1]]
    if v.min_first_meld == 0 or step_ == 0:
        need(extras == [0, 0], "first-meld extras without a rising min_first_meld")
    else:
        fails = [e // step_ for e in extras]
        need(
            all(e % step_ == 0 for e in extras) and sum(fails) <= turn,
            "first-meld extras are one step per failed turn",
        )
    if over:
        totals = (s[S_MATCH0], s[S_MATCH1]) if match else (s[S_HAND_SCORE0], s[S_HAND_SCORE1])
        winner = -1 if totals[0] == totals[1] else int(totals[1] > totals[0])
        need(s[S_WINNER] == winner, f"S_WINNER is {s[S_WINNER]} for {totals}: {winner}")
        need(s[S_HAND_JUST_ENDED] == 1, "a finished episode has S_HAND_JUST_ENDED 1")
        need(step >= max(1, 2 * turn), f"step {step} after {turn} turns")
        seats = ((s[S_FIRST_PLAYER] + turn) % n, (s[S_FIRST_PLAYER] + turn - 1) % n)
        need(player in seats, f"seat {player} ended turn {turn}")
        need(s[S_PEEK_CARD] == -1, "S_PEEK_CARD outside PHASE_PEEK")
        return out
    need(s[S_WINNER] == -1, "a live game has no winner (-1)")
    need(s[S_END_REASON] == END_NONE and s[S_WENT_OUT] == -1, "a live hand has no end reason")
    need(
        s[S_HAND_JUST_ENDED] == (match and step == 0 and ended > 0),
        "S_HAND_JUST_ENDED is 1 only at the deal after a hand of a match",
    )
    need(turn < v.max_turns, f"turn {turn} of a live hand: max_turns is {v.max_turns}")
    need(player == (s[S_FIRST_PLAYER] + turn) % n, f"seat {player} at turn {turn}")
    low = 2 * turn + (phase == PHASE_PLAY)
    need(low <= step <= bound, f"step {step} in phase {phase} after {turn} turns")
    need(phase != PHASE_DRAW or turn > 0 or step == 0, "a first turn's draw is step 0")
    need(phase != PHASE_PEEK or step == 0, "the peek is the hand's first action")
    # the turn
    need(
        (phase == PHASE_PEEK) == (s[S_PEEK_CARD] >= 0),
        "S_PEEK_CARD is a card exactly in PHASE_PEEK",
    )
    prov = s[S_PROV_START]
    need(prov <= melds[team], f"S_PROV_START {prov} above team {team}'s {melds[team]} melds")
    need(phase == PHASE_PLAY or prov == melds[team], "a turn lays its melds after the draw")
    rediscard = v.pile_no_rediscard or v.peek_no_rediscard
    need(
        s[S_NO_DISCARD] == -1 or (phase == PHASE_PLAY and rediscard),
        "S_NO_DISCARD set outside the play phase of a rediscard rule",
    )
    need(
        s[S_NO_DISCARD] == -1 or v.pile_no_rediscard or turn == 0,
        "a kept peeked card is barred in the first turn only",
    )
    stock_out = int(state.stock_len[b]) <= v.stock_end
    need(
        s[S_LAST_TURN] == stock_out,
        f"S_LAST_TURN {s[S_LAST_TURN]} with {state.stock_len[b]} cards in the stock "
        f"(stock_end {v.stock_end})",
    )
    need(not s[S_LAST_TURN] or phase == PHASE_PLAY, "the last turn ends at its discard")
    hand_sizes = state.hands[b].astype(np.int64).sum(axis=1)
    need((hand_sizes > 0).all(), "a hand of a live game is empty (it takes a muerto or goes out)")
    if step == 0:
        upcard = (v.opening_first if hand_index == 0 else v.opening_later) == "upcard"
        need(
            phase == (PHASE_DRAW if upcard else PHASE_PEEK),
            "the hand's opening decides its first phase",
        )
        need(int(state.pile_len[b]) == int(upcard), "the pile at the deal holds the upcard only")
        need((hand_sizes == v.hand_size).all(), f"every hand is dealt {v.hand_size} cards")
        fresh = (
            not melds.any()
            and s[S_OPENED0] == s[S_OPENED1] == s[S_MIN_EXTRA0] == s[S_MIN_EXTRA1] == 0
        )
        need(fresh, "the deal leaves no meld, opening or first-meld extra")
        taken = np.isin(state.muerto_status[b], (MUERTO_UNTAKEN, MUERTO_ABSENT))
        need(
            taken.all() and s[S_MUERTOS_LEFT] == 2 * v.muertos_per_team,
            "the deal leaves every muerto untaken",
        )
        cutter = (hand_index - 2) % n
        known = state.known[b].astype(np.int64)
        wilds = known[cutter, RANK_TWO:JOKER:NUM_RANKS].sum() + known[cutter, JOKER]
        kept_ok = v.cutter_keeps_wilds and known.sum() == wilds <= 2
        need(not known.any() or kept_ok, "at the deal only the cutter's kept wilds are known")
    return out


def check_state_values(
    state: GameState,
    variant: Variant,
    episode_match: int | None = None,
    fill_legal: bool = False,
):
    """Every value of ``state`` is one a game of ``variant`` can hold, before any kernel
    reads it: the kernels index arrays with lengths, counts, cards and seats unchecked
    (a check in their loops costs too much), so a saved state that re-enters the core
    (``VectorEnv.set_state``, a training checkpoint, a global state vector) passes here
    first. The aim: no accepted state leads, by legal moves, to one refused here
    (``tests/core/test_state_checks.py`` plays accepted states forward to show it).

    Checked, in this order (the first failure raises :class:`InvalidStateError`, a
    ValueError naming the game and the value; shapes and dtypes are the caller's check):

    * every length, count (by the copies of its card type), card, seat, status and
      scalar in its range (:func:`scalar_ranges`: counters and scores bounded by what a
      game reaches), each game's generator (32-bit words, not all zero);
    * the meld rows in use as the engine writes them (:func:`check_meld_fields`), then as
      the referee reads them (check (d)), and every card conserved across hands, stock,
      pile, melds, untaken muertos and the peeked card (check (a));
    * the muertos' status, way of taking and taker as the rules move them, per
      ``muerto_pot`` (a team's packets in order, the shared pot's size);
    * the scalars together: done exactly in PHASE_OVER, the seat to act, dealer and first
      player from the hand and the turn, the step from the turns and the phase, a peeked
      card exactly in PHASE_PEEK, the last turn from the stock, the opened teams and
      first-meld extras, the hand and match counters and scores, the state a deal
      leaves; a finished hand's scores are the referee's (check (e));
    * the legal-action cache, which follows from the rest: recomputed on a copy, it must
      be the saved one, and a live game must have a legal action.

    ``fill_legal``: a state saved without its legal-action cache (the global state
    vector's) gets it computed, once every other value has passed, instead of checked.
    """
    counts = deck_counts(variant)
    positions = np.arange(MAX_CARDS)
    _in_range("hands", state.hands, 0, counts, None)
    _in_range("known", state.known, 0, counts, None)
    _in_range("stock_len", state.stock_len, 0, variant.total_cards)
    _in_range("pile_len", state.pile_len, 0, variant.total_cards)
    _in_range("stock", state.stock, 0, JOKER, positions < state.stock_len[:, None])
    _in_range("pile", state.pile, 0, JOKER, positions < state.pile_len[:, None])
    _in_range("muertos", state.muertos, 0, JOKER)
    _in_range("muerto_status", state.muerto_status, MUERTO_UNTAKEN, MUERTO_ABSENT)
    _in_range("muerto_how", state.muerto_how, HOW_NONE, HOW_KEPT_WILDS)
    _in_range("muerto_taker", state.muerto_taker, -1, variant.num_players - 1)
    _in_range("num_melds", state.num_melds, 0, MAX_MELDS)
    _in_range("scratch", state.scratch, -1, JOKER)
    ranges = scalar_ranges(variant)
    for s, (name, low, high) in ranges.items():
        _in_range(f"scalars[S_{name.upper()}]", state.scalars[:, s], low, high)
    score = ranges[S_HAND_SCORE0][2]
    _in_range("score_items", state.score_items, -score, score)
    if episode_match is not None:  # the env's episode kind, not the file's
        episode = state.scalars[:, S_EPISODE_MATCH]
        _in_range("scalars[S_EPISODE_MATCH]", episode, episode_match, episode_match)
    _in_range("rng", state.rng, 0, 2**32 - 1)
    stuck = ~state.rng.any(axis=1)
    if stuck.any():
        raise InvalidStateError(f"game {int(np.argmax(stuck))}: its generator is all zero")
    _in_range("num_legal", state.num_legal, 0, NUM_ACTIONS)
    listed = np.arange(NUM_ACTIONS) < state.num_legal[:, None]
    _in_range("legal", state.legal, 0, NUM_ACTIONS - 1, listed)
    check_meld_fields(state, variant)
    cache = _MeldCache(variant)
    bound = max_steps(variant)
    for b in range(len(state)):
        try:
            check_melds(state, b, variant, cache)  # before check_cards reads the rows
            # the muertos first: which packets are untaken decides where cards are counted
            errors = _muerto_errors(state, b, variant)
            if not errors:
                check_cards(state, b, variant, cache)
                errors = _scalar_errors(state, b, variant, bound)
            if not errors and state.scalars[b, S_PHASE] == PHASE_OVER:
                check_hand_end(state, b, variant)
        except (ApiTestError, ValueError) as exc:  # the referee's ValueError: no such table
            raise InvalidStateError(f"game {b}: {exc}") from None
        if errors:
            raise InvalidStateError(
                f"game {b}: a state no game reaches: {errors[0]}"
                + (f" (and {len(errors) - 1} more)" if len(errors) > 1 else "")
            )
    # the legal-action cache follows from the position (every value above is safe for the
    # kernels now): recomputed on a copy it must be the saved one, else a live game with
    # no legal action, or an illegal one listed, would be stuck or stepped
    fresh = state.copy()
    refresh_legal_games(fresh, variant_params(variant))
    live = state.scalars[:, S_PHASE] != PHASE_OVER
    none = live & (fresh.num_legal == 0)
    if none.any():
        raise InvalidStateError(
            f"game {int(np.argmax(none))}: a live game with no legal action (the rules "
            "always leave the player one): the state was edited or corrupted"
        )
    if fill_legal:
        state.legal[...] = fresh.legal
        state.num_legal[...] = fresh.num_legal
        return
    for b in range(len(state)):
        n = int(fresh.num_legal[b])
        if n != state.num_legal[b] or not np.array_equal(fresh.legal[b, :n], state.legal[b, :n]):
            raise InvalidStateError(
                f"game {b}: its cached legal actions ({int(state.num_legal[b])} listed) are "
                f"not its position's ({n}): the state was edited or corrupted"
            )


# ------------------------------------------------------------------------ (c) mask
def check_mask(game: Game, b: int, rng: np.random.Generator, full: bool, sample: int = 8):
    """(c): the legal list against action_error. Returns the illegal ids seen."""
    legal = game.legal_actions(b)
    legal_set = set(legal.tolist())
    if len(legal_set) != len(legal):
        raise ApiTestError(f"legal_actions lists an action twice: {legal.tolist()}")
    if full:
        errors = action_errors(game, b)
        ok = np.flatnonzero(errors == ERR_OK)
        if not np.array_equal(ok, legal):
            extra = sorted(set(ok.tolist()) - legal_set)
            missing = sorted(legal_set - set(ok.tolist()))
            raise ApiTestError(
                "the mask is not exact: "
                + "; ".join(
                    [f"accepted but not listed: {a} ({describe_action(a)})" for a in extra[:5]]
                    + [
                        f"listed but refused: {a} ({describe_action(a)}, error {errors[a]})"
                        for a in missing[:5]
                    ]
                )
            )
        return np.flatnonzero(errors != ERR_OK)
    ids = rng.integers(0, NUM_ACTIONS, sample)
    if len(legal):
        ids = np.concatenate([ids, rng.choice(legal, min(2, len(legal)), replace=False)])
    illegal = []
    for a in ids.tolist():
        code = game.action_error(a, b)
        if (code == ERR_OK) != (a in legal_set):
            raise ApiTestError(
                f"action {a} ({describe_action(a)}): action_error {code} but "
                f"{'listed' if a in legal_set else 'not listed'} as legal"
            )
        if code != ERR_OK:
            illegal.append(a)
    return np.array(illegal, np.int64)


def check_illegal(game: Game, b: int, actions) -> int:
    """(c): each illegal id raises IllegalActionError through step_one and changes nothing."""
    tried = 0
    for a in actions:
        a = int(a)
        code = game.action_error(a, b)
        if code == ERR_OK:
            raise ApiTestError(f"action {a} was given as illegal but action_error accepts it")
        before = copy_state(game.state)
        try:
            game.step_one(a, b)
        except IllegalActionError as e:
            try:
                name = describe_action(a)
            except ValueError:
                name = "an unknown action"
            if f"illegal action {a} ({name})" not in str(e) or e.code != code:
                raise ApiTestError(f"the error for action {a} does not name it: {e}") from None
        else:
            raise ApiTestError(f"step_one accepted illegal action {a} ({describe_action(a)})")
        if not states_equal(before, game.state):
            diff = [
                f
                for f, x in state_fields(before)
                if f != "scratch" and not np.array_equal(x, getattr(game.state, f))
            ]
            raise ApiTestError(f"illegal action {a} changed the state: {diff}")
        tried += 1
    return tried


def _near_illegal(game: Game, b: int, rng: np.random.Generator) -> list[int]:
    """Illegal ids close to legal ones: discards of cards not held, adds to empty slots."""
    st = game.state
    p = int(st.scalars[b, S_PLAYER])
    out = []
    missing = np.flatnonzero(st.hands[b, p] == 0)
    if len(missing):
        out.append(DISCARD_BASE + int(rng.choice(missing)))
    t = p % 2
    slot = int(st.num_melds[b, t])
    if slot < MAX_MELDS:
        out.append(ADD_BASE + slot * NUM_CARD_TYPES + int(rng.integers(NUM_CARD_TYPES)))
    return [a for a in out if game.action_error(a, b) != ERR_OK]


# ------------------------------------------------------------------------ (g) hidden info
#: actions whose effect on the table shows only the cards the id names: the trajectory
#: part of check (g) applies them to both states (a group opening picks its suits from
#: the hand, a rejected peek shows the peeked card: both reveal by design)
_TRAJECTORY_KINDS = {"draw", "take_pile", "peek_keep", "add", "discard", "open_run"}
_TRAJECTORY_KINDS.add("open_wild_group")


def check_hidden(
    game: Game, b: int, viewer: int, rng: np.random.Generator, next_action: int | None = None
) -> int:
    """(g) for one viewer: the observation is the same in a state with the hidden cards
    dealt again; and, when another player acts next with an action that moves only named
    cards and does not end the hand, the same after it in both states. Returns the number
    of comparisons made."""
    base = take_games(game.state, b)
    other = game.determinize(viewer, rng, games=[b]).state
    obs = _observe(game, base, 0, viewer)
    obs2 = _observe(game, other, 0, viewer)
    if not np.array_equal(obs, obs2):
        raise ApiTestError(
            f"player {viewer}'s observation changes with hidden cards at offsets "
            f"{_where(game, obs, obs2)}"
        )
    done = 1
    if next_action is None:
        return done
    actor = int(base.scalars[0, S_PLAYER])
    if actor == viewer or decode_action(next_action).kind not in _TRAJECTORY_KINDS:
        return done
    if _step_state(game, base, 0, next_action) != ERR_OK:
        raise ApiTestError(f"the chosen action {next_action} is illegal on a copy")
    if _step_state(game, other, 0, next_action) != ERR_OK:
        return done  # the reshuffle took a card the action needs
    if base.scalars[0, S_HAND_JUST_ENDED] or other.scalars[0, S_HAND_JUST_ENDED]:
        return done  # the end of a hand shows the hands in its scores
    obs = _observe(game, base, 0, viewer)
    obs2 = _observe(game, other, 0, viewer)
    if not np.array_equal(obs, obs2):
        raise ApiTestError(
            f"after player {actor}'s action {next_action} ({describe_action(next_action)}), "
            f"player {viewer}'s observation depends on hidden cards at offsets "
            f"{_where(game, obs, obs2)}"
        )
    return done + 1


def _where(game: Game, a: np.ndarray, b: np.ndarray) -> list[str]:
    """Differing observation offsets, named by their layout block."""
    lay = game.layout._asdict()
    size = lay.pop("size")
    starts = sorted(lay.items(), key=lambda kv: kv[1])
    names = []
    for i in np.flatnonzero(a != b)[:8].tolist():
        block = max((kv for kv in starts if kv[1] <= i), key=lambda kv: kv[1])
        names.append(f"{block[0]}+{i - block[1]} ({a[i]} vs {b[i]})")
    assert size == len(a)
    return names


# ------------------------------------------------------------------------ the API test
@dataclass
class ApiTestReport:
    """What :func:`api_test` saw."""

    variant: str
    num_players: int
    episode: str
    games: int = 0
    steps: int = 0
    hands: int = 0
    max_melds: int = 0  # the largest number of melds a team ever had
    max_hand_steps: int = 0
    max_episode_steps: int = 0
    max_steps_bound: int = 0
    full_scans: int = 0
    sampled_ids: int = 0
    illegal_tried: int = 0
    hidden_checks: int = 0
    replayed_steps: int = 0
    end_reasons: Counter = field(default_factory=Counter)
    seconds: float = 0.0

    def __str__(self) -> str:
        ends = {
            {END_WENT_OUT: "went_out", END_STOCK: "stock", END_MAX_TURNS: "max_turns"}.get(
                k, str(k)
            ): v
            for k, v in sorted(self.end_reasons.items())
        }
        return (
            f"api_test {self.variant} {self.num_players}p {self.episode}: {self.games} games, "
            f"{self.hands} hands, {self.steps} steps in {self.seconds:.1f}s; ends {ends}; "
            f"longest hand {self.max_hand_steps} steps (bound {self.max_steps_bound}); "
            f"most melds of a team {self.max_melds} (MAX_MELDS {MAX_MELDS}); "
            f"{self.full_scans} full mask scans, {self.sampled_ids} sampled ids, "
            f"{self.illegal_tried} illegal tries, {self.hidden_checks} hidden-info checks, "
            f"{self.replayed_steps} replayed steps"
        )


def api_test(
    variant: str | Variant = "argentine",
    num_players: int | None = None,
    num_games: int = 20,
    seed: int = 0,
    full_mask_scan_every: int = 10,
    check_hidden: bool = True,
    *,
    episode: str = "hand",
    batch_size: int = 4,
    full_scan_games: int = 2,
    hidden_every: int = 3,
    illegal_per_step: int = 2,
    check_determinism: bool = True,
    num_threads: int | None = 1,
    meld_bias: float = 0.0,
    **overrides,
) -> ApiTestReport:
    """Play ``num_games`` uniformly random legal episodes and check (a)-(h) of the module
    doc at every step; raises :class:`ApiTestError` (an AssertionError) on the first
    failure, else returns an :class:`ApiTestReport`.

    Games run in batches of ``batch_size`` (batch k dealt from ``seed + k``) and are
    stepped together with :meth:`Game.step`. The first ``full_scan_games`` games get a
    full mask scan at every step, the others every ``full_mask_scan_every`` steps (and a
    random sample of ids at every step). ``check_hidden`` runs (g) every ``hidden_every``
    steps of each game for every viewer. ``num_threads`` sets numba's threads while it
    runs (the checks go one game at a time; on a busy machine a thread pool only adds
    waits); None leaves them as they are. ``meld_bias``: the probability of picking,
    instead of a uniform legal action, a uniform one among the legal melds and pile takes
    (when there are some): uniform play rarely goes out, biased play reaches canastas,
    muertos and going out far more often. ``overrides`` change variant parameters (say
    ``target`` or ``max_hands`` to keep random matches short).
    """
    saved_threads = numba.get_num_threads()
    if num_threads is not None:
        numba.set_num_threads(min(num_threads, numba.config.NUMBA_NUM_THREADS))
    try:
        return _api_test(
            variant, num_players, num_games, seed, full_mask_scan_every, check_hidden, episode,
            batch_size, full_scan_games, hidden_every, illegal_per_step, check_determinism,
            meld_bias, overrides,
        )  # fmt: skip
    finally:
        numba.set_num_threads(saved_threads)


def _api_test(
    variant, num_players, num_games, seed, full_mask_scan_every, check_hidden, episode,
    batch_size, full_scan_games, hidden_every, illegal_per_step, check_determinism, meld_bias,
    overrides,
):  # fmt: skip
    probe = Game(variant, num_players=num_players, batch_size=1, episode=episode, **overrides)
    v = probe.variant
    bound = max_steps(v)
    report = ApiTestReport(v.name, v.num_players, episode, max_steps_bound=bound)
    cache = _MeldCache(v)
    rng = np.random.default_rng(seed)
    start = time.perf_counter()
    game_index = 0
    batch_no = 0
    while game_index < num_games:
        k = min(batch_size, num_games - game_index)
        game_seed = seed + batch_no
        game = Game(v, batch_size=k, episode=episode, seed=game_seed)
        try:
            history, digests = _play_batch(
                game,
                rng,
                report,
                cache,
                bound,
                full_games=max(0, full_scan_games - game_index),
                full_every=full_mask_scan_every,
                hidden_every=hidden_every if check_hidden else 0,
                illegal_per_step=illegal_per_step,
                meld_bias=meld_bias,
            )
        except ApiTestError as e:
            raise ApiTestError(
                f"{v.name} {v.num_players}p {episode}, batch seed {game_seed}: {e}"
            ) from None
        if check_determinism:
            _replay(v, episode, k, game_seed, history, digests, game.state)
            report.replayed_steps += sum(int((a >= 0).sum()) for a in history)
        game_index += k
        batch_no += 1
    report.games = num_games
    report.seconds = time.perf_counter() - start
    return report


def _play_batch(
    game: Game,
    rng: np.random.Generator,
    report: ApiTestReport,
    cache: _MeldCache,
    bound: int,
    full_games: int,
    full_every: int,
    hidden_every: int,
    illegal_per_step: int,
    meld_bias: float = 0.0,
):
    """Play one batch to the end with all checks; returns the actions and state digests."""
    v = game.variant
    st = game.state
    k = game.batch_size
    history: list[np.ndarray] = []
    digests = [state_digest(st)]
    game_steps = np.zeros(k, np.int64)
    for b in range(k):
        check_cards(st, b, v, cache)
        check_melds(st, b, v, cache)
    mask = np.zeros((k, NUM_ACTIONS), bool)
    while not game.done.all():
        game.legal_action_mask(mask)
        actions = np.full(k, -1, np.int64)
        for b in range(k):
            where = f"game {b}, step {game_steps[b]}"
            try:
                _before_step(
                    game, b, rng, report, mask, actions, full_games, full_every, hidden_every,
                    illegal_per_step, int(game_steps[b]), meld_bias,
                )  # fmt: skip
            except ApiTestError as e:
                raise ApiTestError(f"{where}: {e}") from None
        before = copy_state(st)
        try:
            game.step(actions)
        except IllegalActionError as e:
            raise ApiTestError(f"step refused a legal action: {e}") from None
        history.append(actions)
        digests.append(state_digest(st))
        for b in np.flatnonzero(actions >= 0):
            game_steps[b] += 1
            report.steps += 1
            where = f"game {b}, step {game_steps[b]} (action {actions[b]}: "
            where += f"{describe_action(actions[b])})"
            try:
                _after_step(game, int(b), int(actions[b]), before, report, cache, bound)
            except ApiTestError as e:
                raise ApiTestError(f"{where}: {e}") from None
        report.max_episode_steps = max(report.max_episode_steps, int(game_steps.max()))
    return history, digests


def _before_step(
    game, b, rng, report, mask, actions, full_games, full_every, hidden_every, illegal_per_step,
    step, meld_bias,
):  # fmt: skip
    st = game.state
    legal = game.legal_actions(b)
    if not np.array_equal(np.flatnonzero(mask[b]), legal):
        raise ApiTestError("legal_action_mask disagrees with legal_actions")
    if game.done[b]:
        if len(legal) or st.scalars[b, S_PHASE] != PHASE_OVER:
            raise ApiTestError("a finished game lists legal actions or is not over")
        for a in rng.integers(0, NUM_ACTIONS, 2).tolist():
            if game.action_error(a, b) != ERR_GAME_OVER:
                raise ApiTestError(f"a finished game answers action {a} with another error")
        return
    if len(legal) == 0:
        raise ApiTestError("a live game has no legal action")
    full = b < full_games or (full_every > 0 and step % full_every == 0)
    illegal = check_mask(game, b, rng, full)
    if full:
        report.full_scans += 1
    else:
        report.sampled_ids += 10
    tries = []
    if len(illegal) and illegal_per_step > 0:
        tries += rng.choice(illegal, min(illegal_per_step, len(illegal)), replace=False).tolist()
    if step == 0:
        tries += [-1, NUM_ACTIONS]
    tries += _near_illegal(game, b, rng)[:1]
    report.illegal_tried += check_illegal(game, b, tries)
    a = int(rng.choice(legal))
    if meld_bias and rng.random() < meld_bias:
        eager = legal[((legal > PEEK_REJECT) & (legal < DISCARD_BASE)) | (legal == TAKE_PILE)]
        if len(eager):
            a = int(rng.choice(eager))
    actions[b] = a
    if hidden_every and step % hidden_every == 0:
        for viewer in range(game.num_players):
            report.hidden_checks += check_hidden(game, b, viewer, rng, a)


def _after_step(game, b, a, before, report, cache, bound):
    st = game.state
    v = game.variant
    s = st.scalars[b]
    check_cards(st, b, v, cache)
    check_melds(st, b, v, cache)
    check_wild_group_rule(before, st, b, v)
    report.max_melds = max(report.max_melds, int(st.num_melds[b].max()))
    if s[S_HAND_JUST_ENDED]:
        report.hands += 1
        if s[S_EPISODE_MATCH] and not s[S_DONE]:
            # the next hand is dealt already: replay the action as a one-hand episode
            final = take_games(before, b)
            final.scalars[0, S_EPISODE_MATCH] = 0
            if _step_state(game, final, 0, a) != ERR_OK:
                raise ApiTestError("the action is illegal on a copy")
            if not np.array_equal(final.score_items[0], st.score_items[b]):
                raise ApiTestError(
                    f"score_items {st.score_items[b].tolist()} after the redeal, "
                    f"{final.score_items[0].tolist()} at the end of the hand"
                )
            if s[S_STEP] != 0 or s[S_TURN] != 0:
                raise ApiTestError("the next hand does not start at step 0")
            fb, final_state = 0, final
        else:
            fb, final_state = b, st
        steps = int(final_state.scalars[fb, S_STEP])
        report.max_hand_steps = max(report.max_hand_steps, steps)
        if steps > bound:
            raise ApiTestError(f"a hand took {steps} steps, more than max_steps {bound}")
        report.end_reasons[int(final_state.scalars[fb, S_END_REASON])] += 1
        t0, t1 = check_hand_end(final_state, fb, v)
        m_before = before.scalars[b, S_MATCH0 : S_MATCH0 + 2]
        if (s[S_MATCH0] - m_before[0], s[S_MATCH0 + 1] - m_before[1]) != (t0, t1):
            raise ApiTestError("match points did not grow by the hand scores")
    else:
        if s[S_END_REASON] != END_NONE and not s[S_DONE]:
            raise ApiTestError("an end reason is set in a hand still going")
        if s[S_STEP] > bound:
            raise ApiTestError(f"the hand is at step {s[S_STEP]}, past max_steps {bound}")
    episode_bound = bound * (v.max_hands if s[S_EPISODE_MATCH] else 1)
    if s[S_TOTAL_STEPS] > episode_bound or s[S_HANDS_ENDED] > v.max_hands:
        raise ApiTestError(
            f"the episode is at step {s[S_TOTAL_STEPS]} after {s[S_HANDS_ENDED]} hands, "
            f"past {episode_bound} steps or max_hands {v.max_hands}"
        )
    if s[S_DONE] and (st.num_legal[b] != 0 or s[S_PHASE] != PHASE_OVER):
        raise ApiTestError("a finished game is not in PHASE_OVER with no legal action")


def _replay(v, episode, k, seed, history, digests, final_state):
    """(h): the recorded actions, one game at a time, give the same states."""
    game = Game(v, batch_size=k, episode=episode, seed=seed)
    if state_digest(game.state) != digests[0]:
        raise ApiTestError(f"{v.name} seed {seed}: the same seed deals different games")
    for i, actions in enumerate(history):
        for b in np.flatnonzero(actions >= 0):
            game.step_one(int(actions[b]), int(b))
        if state_digest(game.state) != digests[i + 1]:
            raise ApiTestError(
                f"{v.name} seed {seed}: the replay differs from the batched run at step {i + 1}"
            )
    if not states_equal(game.state, final_state):
        raise ApiTestError(f"{v.name} seed {seed}: the replay ends in another state")


# ------------------------------------------------------------------------ seeded play
def random_play(
    variant: str | Variant = "argentine",
    num_players: int | None = None,
    batch_size: int = 4,
    seed: int = 0,
    action_seed: int = 0,
    episode: str = "hand",
    max_batch_steps: int = 100_000,
) -> tuple[np.ndarray, str, int]:
    """Play a batch of seeded random games with a seeded action choice (no checks).

    Returns (final hand scores [B, 2], digest of the final state, batch steps). The same
    arguments give the same result with and without the JIT and on any thread count."""
    game = Game(variant, num_players=num_players, batch_size=batch_size, episode=episode, seed=seed)
    rng = np.random.default_rng(action_seed)
    steps = 0
    while not game.done.all() and steps < max_batch_steps:
        actions = np.full(batch_size, -1, np.int64)
        for b in range(batch_size):
            n = int(game.state.num_legal[b])
            if n:
                actions[b] = game.legal_actions(b)[int(rng.integers(n))]
        game.step(actions)
        steps += 1
    return game.hand_scores, state_digest(game.state), steps


def meld_counts_seen(
    variant: str | Variant = "argentine",
    num_players: int | None = None,
    num_games: int = 1000,
    seed: int = 0,
    batch_size: int = 250,
    per_game: bool = False,
):
    """The largest number of melds a team had in ``num_games`` uniformly random games
    (one hand each), played in batches without checks: the evidence for MAX_MELDS.
    With ``per_game``, the array of each game's largest count instead."""
    most = []
    played = 0
    rng = np.random.default_rng(seed)
    while played < num_games:
        k = min(batch_size, num_games - played)
        game = Game(variant, num_players=num_players, batch_size=k, seed=seed + played)
        st = game.state
        rows = np.arange(k)
        top = np.zeros(k, np.int64)
        while not game.done.all():
            n = st.num_legal
            pick = (rng.random(k) * np.maximum(n, 1)).astype(np.int64)
            actions = np.where(n > 0, st.legal[rows, pick], -1).astype(np.int64)
            game.step(actions, check=False)
            np.maximum(top, st.num_melds.max(axis=1), out=top)
        most.append(top)
        played += k
    counts = np.concatenate(most)
    return counts if per_game else int(counts.max())
