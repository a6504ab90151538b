"""The global state of one game as a fixed-size int32 vector: the AEC env's ``state()``.

For centralised critics (MAPPO, QMIX): everything the game holds, every hidden card
included, laid out in named blocks copied from the core's state arrays
(:mod:`burako_env.core.state`). The vector determines the game: two games with equal
vectors accept the same actions and, given the same actions, stay equal (their legal
actions, observations and scores too), and :meth:`StateLayout.restore` puts a vector
back into a :class:`~burako_env.core.game.Game`, which then continues exactly as the
game it was read from.

    env = burako_v1.env(num_players=4); env.reset(seed=0)
    s = env.state()                      # int32 [env.state_space.shape[0]]
    lay = env.unwrapped.state_layout     # the blocks: name -> StateBlock
    s[lay["hands"].slice].reshape(lay["hands"].shape)   # every player's hand, [P, 53]

The blocks, in order (``P`` players, ``N`` the variant's cards, card types 0..52 with
52 the joker, seats absolute: seat 0 is ``player_0``):

* ``hands`` [P, 53]: the cards each seat holds (counts per card type).
* ``known`` [P, 53]: the cards every player knows a seat holds (taken from the pile,
  ...).
* ``stock`` [N]: the stock in order, bottom first (the next card drawn is
  ``stock[stock_len - 1]``), -1 past its length; ``stock_len`` [1].
* ``pile`` [N]: the discard pile in order, bottom first, -1 past its length;
  ``pile_len`` [1].
* ``muertos`` [2, 3, 11]: each team's muerto packets (card types; the muerto slots a
  variant does not use, and packets taken, hold what the core left there); their
  ``muerto_status`` [2, 3] (``MUERTO_*``), ``muerto_how`` [2, 3] (``HOW_*``),
  ``muerto_taker`` [2, 3] (the seat that took each, -1 untaken).
* ``melds`` [2, 20, 12]: each team's meld rows (fields ``MF_*`` of
  :mod:`burako_env.core.constants`: kind, key, run bounds, wild, size, naturals per
  suit, jokers), ``num_melds`` [2] the rows in use.
* ``scalars`` [28]: the game's counters (``S_*``): phase, seat to act, first player,
  dealer, hand index, turn, step, peeked card, the card not to discard, provisional
  melds, last turn, hand end, teams opened, first-meld extras, match points, the last
  hand's scores, episode kind, winner, steps, muerto packets left.
* ``score_items`` [2, 6]: the last finished hand's scoring items per team.
* ``rng`` [8]: the game's own generator (four 32-bit words as low and high 16-bit
  halves), which deals the next hands of a match: with it the vector decides the match
  too, not only the hand. A critic may slice it off (``lay["rng"].slice``).

Left out: the legal-action cache (a function of the rest: :meth:`Game.refresh_legal`
recomputes it, and :meth:`StateLayout.restore` does) and the kernels' scratch rows.
The bounds (``low``, ``high``, int32, inclusive) are those
:func:`burako_env.checks.check_state_values` holds every state to, narrowed where the
variant says more (card counts by the copies of each type, lengths by the deck, the turn
by ``max_turns``, hand counters by ``max_hands``; steps and scores by what a game
reaches).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from burako_env.core.constants import (
    HOW_KEPT_WILDS,
    JOKER,
    MAX_MELDS,
    MAX_MUERTOS,
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
    MUERTO_SIZE,
    NUM_CARD_TYPES,
    NUM_MELD_FIELDS,
    NUM_RANKS,
    NUM_SCALARS,
    NUM_SCORE_ITEMS,
    NUM_SUITS,
    S_HAND_INDEX,
    S_HANDS_ENDED,
    S_TURN,
)
from burako_env.core.game import Game
from burako_env.core.state import GameState, allocate_state, state_dtype
from burako_env.core.view import GameView
from burako_env.envs.observation import BlockLayout, copies, max_meld_size
from burako_env.variants import Variant

INT32_MIN = int(np.iinfo(np.int32).min)
INT32_MAX = int(np.iinfo(np.int32).max)
#: the generator's 32-bit words, each as two 16-bit halves
RNG_WORDS = 4
RNG_HALVES = 2 * RNG_WORDS
EMPTY = -1  # a stock or pile position past its length
#: the 16-bit halves of the generator's int64 words (each < 2**32), low then high of
#: each word, as indices of uint16 items from the field's start in this machine's order
_HALF_INDEX = (
    np.array([0, 1, 4, 5, 8, 9, 12, 13])
    if np.little_endian
    else np.array([3, 2, 7, 6, 11, 10, 15, 14])
)


class StateBlock(NamedTuple):
    """One block of the state vector: ``state[start:stop]``, reshaped to ``shape``; its
    entries' bounds ``low`` / ``high`` (int32, inclusive)."""

    start: int
    stop: int
    shape: tuple[int, ...]
    low: np.ndarray
    high: np.ndarray

    @property
    def slice(self) -> slice:
        """The block's entries in the state vector."""
        return slice(self.start, self.stop)


def _meld_bounds(variant: Variant) -> tuple[np.ndarray, np.ndarray]:
    low = np.zeros(NUM_MELD_FIELDS, np.int64)
    high = np.zeros(NUM_MELD_FIELDS, np.int64)
    low[MF_WILD] = -1
    high[MF_KIND] = MELD_WILD_GROUP
    high[MF_KEY] = NUM_RANKS - 1
    high[MF_LO] = high[MF_HI] = high[MF_GAP] = 14
    high[MF_WILD] = JOKER
    high[MF_SIZE] = max_meld_size(variant)
    high[MF_N0 : MF_N0 + NUM_SUITS] = variant.decks
    high[MF_NJOKER] = max(1, variant.decks * variant.jokers_per_deck)
    return low, high


def _scalar_bounds(variant: Variant) -> tuple[np.ndarray, np.ndarray]:
    from burako_env.checks import scalar_ranges  # the referee's imports: when needed

    low = np.full(NUM_SCALARS, INT32_MIN, np.int64)
    high = np.full(NUM_SCALARS, INT32_MAX, np.int64)
    for s, (_, lo, hi) in scalar_ranges(variant).items():
        low[s], high[s] = lo, hi
    # what the variant bounds further (the observation's bounds: envs.observation)
    high[S_TURN] = variant.max_turns
    high[S_HAND_INDEX] = variant.max_hands
    high[S_HANDS_ENDED] = variant.max_hands
    return low, high


def _blocks(variant: Variant) -> list[tuple[str, tuple[int, ...], np.ndarray, np.ndarray]]:
    """Each block's name, shape and bounds (broadcast to the shape)."""
    n, total = variant.num_players, variant.total_cards
    cards = np.maximum(copies(variant), 1)  # a variant without jokers: 0..1, not 0..0
    meld_low, meld_high = _meld_bounds(variant)
    scalar_low, scalar_high = _scalar_bounds(variant)
    spec = [
        ("hands", (n, NUM_CARD_TYPES), 0, cards),
        ("known", (n, NUM_CARD_TYPES), 0, cards),
        ("stock", (total,), EMPTY, JOKER),
        ("stock_len", (1,), 0, total),
        ("pile", (total,), EMPTY, JOKER),
        ("pile_len", (1,), 0, total),
        ("muertos", (2, MAX_MUERTOS, MUERTO_SIZE), 0, JOKER),
        ("muerto_status", (2, MAX_MUERTOS), 0, MUERTO_ABSENT),
        ("muerto_how", (2, MAX_MUERTOS), 0, HOW_KEPT_WILDS),
        ("muerto_taker", (2, MAX_MUERTOS), -1, n - 1),
        ("melds", (2, MAX_MELDS, NUM_MELD_FIELDS), meld_low, meld_high),
        ("num_melds", (2,), 0, MAX_MELDS),
        ("scalars", (NUM_SCALARS,), scalar_low, scalar_high),
        ("score_items", (2, NUM_SCORE_ITEMS), INT32_MIN, INT32_MAX),
        ("rng", (RNG_HALVES,), 0, 0xFFFF),
    ]
    return [
        (
            name,
            shape,
            np.broadcast_to(np.asarray(low, np.int64), shape),
            np.broadcast_to(np.asarray(high, np.int64), shape),
        )
        for name, shape, low, high in spec
    ]


class StateLayout(BlockLayout):
    """The state vector's blocks by name (see the module doc): a read-only mapping name
    -> :class:`StateBlock`, the whole vectors ``low`` / ``high`` (int32), its ``size``,
    and the conversions :meth:`encode` (a game's state arrays to the vector) and
    :meth:`restore` (the vector back into a game)."""

    def __init__(self, variant: Variant) -> None:
        self.variant = variant
        self.num_players = variant.num_players
        self.total_cards = variant.total_cards
        blocks = {}
        lows, highs = [], []
        start = 0
        for name, shape, low, high in _blocks(variant):
            stop = start + int(np.prod(shape))
            lo = low.reshape(-1).astype(np.int32)
            hi = high.reshape(-1).astype(np.int32)
            lows.append(lo)
            highs.append(hi)
            blocks[name] = (start, stop, shape, lo, hi)
            start = stop
        self.size = start
        self.low = np.concatenate(lows)
        self.high = np.concatenate(highs)
        for arr in (self.low, self.high):
            arr.flags.writeable = False
        self._blocks = {
            name: StateBlock(a, b, shape, self.low[a:b], self.high[a:b])
            for name, (a, b, shape, _, _) in blocks.items()
        }
        self._gathers = self._plan_gathers()

    def _plan_gathers(self) -> list[tuple[type, np.ndarray, np.ndarray]]:
        """For each integer width of the record's fields: where the vector's entries lie
        in a game's record read as that width (``(dtype, record index, vector index)``),
        so that :meth:`encode` is one gather per width. The stock and the pile are read
        whole (their tails blanked after); the generator's words as 16-bit halves."""
        fields = state_dtype(self.num_players).fields
        assert fields is not None  # a structured dtype: its fields by name
        plan: dict[type, tuple[list, list]] = {}

        def add(width, src, dst) -> None:
            srcs, dsts = plan.setdefault(width, ([], []))
            srcs.append(src)
            dsts.append(dst)

        for name, block in self._blocks.items():
            base, offset = fields[name][0].base, fields[name][1]
            dst = np.arange(block.start, block.stop)
            if name == "rng":  # little- or big-endian: the halves read as values
                add(np.uint16, offset // 2 + _HALF_INDEX, dst)
                continue
            count = dst.size
            add(base.type, offset // base.itemsize + np.arange(count), dst)
        return [
            (width, np.concatenate(src), np.concatenate(dst)) for width, (src, dst) in plan.items()
        ]

    def __repr__(self) -> str:
        v = self.variant
        return f"StateLayout({v.name!r}, {v.num_players} players, size {self.size})"

    def __reduce__(self):
        return (StateLayout, (self.variant,))

    # ------------------------------------------------------------ conversions
    def _check_state(self, state: GameState, b: int) -> None:
        if state.hands.shape[1] != self.num_players:
            raise ValueError(
                f"the state is of {state.hands.shape[1]} players, this layout of {self.num_players}"
            )
        if not 0 <= b < len(state):
            raise IndexError(f"game {b} is outside a batch of {len(state)} games")

    def encode(self, state: GameState, b: int = 0, out: np.ndarray | None = None) -> np.ndarray:
        """Game ``b`` of ``state`` (the core's arrays) as the int32 vector (into ``out``
        when given: int32 of shape ``(size,)``)."""
        self._check_state(state, b)
        if out is None:
            out = np.empty(self.size, np.int32)
        elif out.shape != (self.size,) or out.dtype != np.int32:
            raise ValueError(
                f"out must be int32 of shape ({self.size},), got {out.dtype}{list(out.shape)}"
            )
        record = state.view(np.ndarray)[b : b + 1]  # one record: contiguous
        for width, src, dst in self._gathers:
            out[dst] = record.view(width)[src]
        for name in ("stock", "pile"):
            block = self._blocks[name]
            length = out[self._blocks[f"{name}_len"].start]
            out[block.start + length : block.stop] = EMPTY
        return out

    def decode(self, vector) -> GameState:
        """The vector as a state of one game (its legal-action cache computed from the
        position, which the vector leaves out). Raises ValueError for a vector of another
        size, of a dtype that is not whole numbers int64 holds (bool, float and uint64 are
        refused: uint64's values past 2**63 would wrap), or values outside the bounds
        (naming the block and the entry), and
        :class:`~burako_env.checks.InvalidStateError` (a ValueError) for arrays no game can
        hold (cards not conserved, a meld that is none)."""
        vec = np.asarray(vector)
        if vec.shape != (self.size,):
            raise ValueError(
                f"a state vector of {self!r} has shape ({self.size},), got {list(vec.shape)}"
            )
        # signed integers, or unsigned ones that int64 holds: uint64's values past 2**63
        # wrapped silently to negative ones (2**64 - 1 read as -1, a valid "empty")
        if vec.dtype.kind != "i" and not (vec.dtype.kind == "u" and vec.dtype.itemsize < 8):
            raise ValueError(
                f"a state vector holds whole numbers (int32, as state() gives), got "
                f"{vec.dtype}: convert it to int32 (a bool, float or uint64 vector is refused, "
                "uint64 because its values past 2**63 would wrap)"
            )
        vec = vec.astype(np.int64)
        bad = (vec < self.low) | (vec > self.high)
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            name, block = next((n, k) for n, k in self._blocks.items() if k.start <= i < k.stop)
            at = np.unravel_index(i - block.start, block.shape)
            raise ValueError(
                f"state entry {i} ({name}{list(int(k) for k in at)}) is {vec[i]}, it must "
                f"lie in {self.low[i]}..{self.high[i]}"
            )
        st = allocate_state(1, self.num_players)
        fields = st.view(np.ndarray)
        for name, block in self._blocks.items():
            part = vec[block.slice]
            field = fields[name]  # the batch axis first: field[0] is the game's
            if name in ("stock", "pile"):
                length = int(vec[self._blocks[f"{name}_len"].start])
                if (part[:length] == EMPTY).any() or (part[length:] != EMPTY).any():
                    raise ValueError(
                        f"state block {name!r}: its first {length} entries ({name}_len) "
                        f"must be cards and the rest {EMPTY}"
                    )
                field[0, :length] = part[:length]
            elif name == "rng":
                field[0] = part[0::2] | (part[1::2] << 16)
            else:
                field[0] = part.reshape(field.shape[1:])
        from burako_env.checks import InvalidStateError, check_state_values

        try:
            check_state_values(st, self.variant, fill_legal=True)  # saved without it
        except InvalidStateError as exc:  # it names "game 0", the one decoded
            raise InvalidStateError(f"state vector: {exc}".replace(": game 0:", ":")) from None
        return st

    def restore(self, game: Game, vector, b: int = 0) -> None:
        """Put the vector into game ``b`` of ``game`` (a :class:`Game` of this layout's
        variant) and recompute its legal actions: it then continues exactly as the game
        the vector was read from. A bad vector raises (see :meth:`decode`) and changes
        nothing."""
        if game.variant != self.variant:
            raise ValueError(
                f"a state of {self!r} cannot go into a game of {game.variant.name!r}, "
                f"{game.num_players} players (another variant, player count or rules)"
            )
        b = game._game_index(b)
        st = self.decode(vector)
        episode_match = int(GameView.of(st.scalars[0]).episode_match)
        if episode_match != game.episode_match:
            raise ValueError(
                f"the state is of a {('hand', 'match')[episode_match]} episode, the game "
                f"plays {game.episode} episodes"
            )
        game.state[b] = st[0]
        game.refresh_legal()  # every game's: the others' come out as they were


__all__ = ["StateBlock", "StateLayout"]
