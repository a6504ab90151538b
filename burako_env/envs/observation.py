"""The observation's named blocks, their bounds, and the float32 normalised observation.

The Gymnasium envs (:mod:`burako_env.gym.single`, :mod:`burako_env.gym.vector`)
expose :class:`ObservationLayout` as ``env.unwrapped.observation_layout`` and, with
``normalize_obs=True``, return :meth:`ObservationLayout.normalize` of the int16
observation instead of the observation itself.

    lay = env.unwrapped.observation_layout
    lay["hand"]                  # ObsBlock(start=0, stop=53, low, high, scale)
    obs[lay["hand"].slice]       # the own hand's counts
    lay.normalize(obs)           # float32: obs / lay.scale, feature by feature

Every feature has a raw range ``[low, high]`` (int16 values the core can write for this
variant and player count) and a ``scale``; the normalised feature is exactly
``float32(raw) / scale`` (IEEE division in float32), within ``[low / scale, high /
scale]``, the bounds of the normalised ``Box``.

* Counts, sizes, indices, flags and one-hots: ``scale`` is the feature's largest value
  (at least 1) and ``low`` is 0, so the feature lies in [0, 1]. Card counts (own hand,
  each team's table, the pile, cards known in other hands) are bounded by the copies of
  their card type (``decks`` for a natural, ``decks * jokers_per_deck`` for the joker);
  pile order entries by 53 (card type + 1); hand, stock and pile sizes by the deck's
  size; meld fields by what the field can hold (kind 3, rank 12, run positions 14, the
  wild + 1 53, size :func:`max_meld_size`, naturals per suit ``decks``); muertos' status
  4, how 3, taker ``num_players``; the turn by ``max_turns``, hand counters by
  ``max_hands``, seats by ``num_players - 1``; the variant block's counts and flags by
  their ranges in :mod:`burako_env.variants`.
* Points (the own team's minimum first meld, provisional points, match points, the last
  hand's scores, and the variant block's card values, bonuses, target and first-meld
  minimums): ``scale`` is :data:`POINTS_SCALE` (1000 points, the score reward's scale),
  ``[low, high]`` int16's range, so they lie in [-32.768, 32.767] (a hand's score is a
  few hundred to a few thousand points: -1 to a few units).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import NamedTuple

import numpy as np

from burako_env.core.constants import (
    HOW_KEPT_WILDS,
    JOKER,
    MAX_MELDS,
    MAX_MUERTOS,
    MAX_PLAYERS,
    MELD_OBS_FIELDS,
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
    MUERTO_OBS_FIELDS,
    NUM_CARD_TYPES,
    NUM_MELD_FIELDS,
    NUM_MISC,
    NUM_PHASES,
    NUM_RANKS,
    NUM_SUITS,
    ObsLayout,
    obs_layout,
)
from burako_env.core.params import (
    NUM_PARAMS,
    P_CANASTA_CARD_POINTS,
    P_CLEAN_ACES,
    P_CLEAN_CANASTA,
    P_CLOSE_DISCARD_NOT_WILD,
    P_CLOSE_REQUIRES,
    P_CLOSE_REQUIRES_DISCARD,
    P_CUTTER_KEEPS_WILDS,
    P_DECKS,
    P_DIRTY_ACES,
    P_DIRTY_CANASTA,
    P_GOING_OUT,
    P_HAND_SIZE,
    P_JOKERS_PER_DECK,
    P_MAX_HANDS,
    P_MAX_MELD,
    P_MAX_TURNS,
    P_MIN_FIRST_MELD,
    P_MIN_FIRST_MELD_HIGH,
    P_MIN_FIRST_MELD_STEP,
    P_MIN_FIRST_MELD_THRESHOLD,
    P_MUERTO_KEEP_WILDS,
    P_MUERTO_NOT_TAKEN,
    P_MUERTO_POT_SHARED,
    P_MUERTO_REFILLS_STOCK,
    P_MUERTO_TAKEN,
    P_MUERTOS,
    P_NO_CANASTA_NEGATIVE,
    P_NO_WILD_DISCARD,
    P_NUM_PLAYERS,
    P_OPENING_FIRST_UPCARD,
    P_OPENING_LATER_UPCARD,
    P_PEEK_NO_REDISCARD,
    P_PILE_MIN_TOTAL,
    P_PILE_NO_REDISCARD,
    P_STOCK_END,
    P_TARGET,
    P_TOTAL_CARDS,
    P_UNIQUE_TABLE,
    P_VALUE_ACE,
    P_VALUE_HIGH,
    P_VALUE_JOKER,
    P_VALUE_LOW,
    P_VALUE_TWO,
    P_WILD_CANASTA,
    P_WILD_GROUP,
)
from burako_env.envs.rewards import SCORE_SCALE
from burako_env.limits import MAX_HANDS, MAX_TURNS
from burako_env.variants import MAX_DECKS, MAX_MUERTOS_PER_TEAM, Variant

#: points features are divided by this (the score reward's scale: 1000 points)
POINTS_SCALE = SCORE_SCALE
INT16_MIN = int(np.iinfo(np.int16).min)
INT16_MAX = int(np.iinfo(np.int16).max)
#: the largest card count any variant deals (four decks of 54)
MAX_DECK_CARDS = MAX_DECKS * 54
#: stands for a points feature's bound in the tables below (scale POINTS_SCALE, int16 range)
_POINTS = object()

#: the misc block's features (constants.NUM_MISC of them), in order: what bounds each
MISC_FEATURES = (
    "stock_size",
    "pile_size",
    "turn",
    "hand_index",
    "own_seat",
    "dealer",
    "first_player",
    "no_discard_card",
    "own_minimum_first_meld",
    "own_team_opened",
    "other_team_opened",
    "provisional_points",
    "own_match_points",
    "other_match_points",
    "own_hand_score",
    "other_hand_score",
    "hands_ended",
    "muertos_left",
)
assert len(MISC_FEATURES) == NUM_MISC

#: the variant block's parameters that are points (every other one is a count or a flag)
POINTS_PARAMS = frozenset(
    (
        P_TARGET,
        P_VALUE_LOW,
        P_VALUE_HIGH,
        P_VALUE_ACE,
        P_VALUE_TWO,
        P_VALUE_JOKER,
        P_CLEAN_CANASTA,
        P_DIRTY_CANASTA,
        P_CLEAN_ACES,
        P_DIRTY_ACES,
        P_WILD_CANASTA,
        P_GOING_OUT,
        P_MUERTO_TAKEN,
        P_MUERTO_NOT_TAKEN,
        P_MIN_FIRST_MELD,
        P_MIN_FIRST_MELD_HIGH,
        P_MIN_FIRST_MELD_THRESHOLD,
        P_MIN_FIRST_MELD_STEP,
    )
)
#: the largest value of the variant block's other parameters (variants.py's ranges)
PARAM_HIGH = {
    P_NUM_PLAYERS: MAX_PLAYERS,
    P_DECKS: MAX_DECKS,
    P_JOKERS_PER_DECK: 2,
    P_HAND_SIZE: MAX_DECK_CARDS,
    P_MUERTOS: MAX_MUERTOS_PER_TEAM,
    P_CANASTA_CARD_POINTS: 1,
    P_UNIQUE_TABLE: 1,
    P_MAX_MELD: MAX_DECK_CARDS,
    P_WILD_GROUP: 1,
    P_PILE_MIN_TOTAL: MAX_DECK_CARDS,
    P_OPENING_FIRST_UPCARD: 1,
    P_OPENING_LATER_UPCARD: 1,
    P_PILE_NO_REDISCARD: 1,
    P_PEEK_NO_REDISCARD: 1,
    P_NO_WILD_DISCARD: 1,
    P_CLOSE_DISCARD_NOT_WILD: 1,
    P_CLOSE_REQUIRES: 2,
    P_CLOSE_REQUIRES_DISCARD: 1,
    P_MUERTO_KEEP_WILDS: 1,
    P_CUTTER_KEEPS_WILDS: 1,
    P_STOCK_END: MAX_DECK_CARDS,
    P_MUERTO_REFILLS_STOCK: 1,
    P_NO_CANASTA_NEGATIVE: 1,
    P_MAX_TURNS: MAX_TURNS,
    P_TOTAL_CARDS: MAX_DECK_CARDS,
    P_MAX_HANDS: MAX_HANDS,
    P_MUERTO_POT_SHARED: 1,
}
assert POINTS_PARAMS.isdisjoint(PARAM_HIGH) and len(POINTS_PARAMS) + len(PARAM_HIGH) == NUM_PARAMS


class ObsBlock(NamedTuple):
    """One block of the observation: ``obs[start:stop]``, its features' raw bounds
    ``low`` / ``high`` (float32, inclusive) and ``scale`` (float32: normalised = raw /
    scale)."""

    start: int
    stop: int
    low: np.ndarray
    high: np.ndarray
    scale: np.ndarray

    @property
    def slice(self) -> slice:
        """The block's entries in the observation vector."""
        return slice(self.start, self.stop)


def copies(variant: Variant) -> np.ndarray:
    """int64 [53]: how many cards of each type the variant's deck holds."""
    out = np.full(NUM_CARD_TYPES, variant.decks, np.int64)
    out[JOKER] = variant.decks * variant.jokers_per_deck
    return out


def max_meld_size(variant: Variant) -> int:
    """The most cards one meld can hold: a run spans positions A (1) to A (14), a group
    every natural of its rank and one wild, a wild group every 2 and joker."""
    naturals = NUM_SUITS * variant.decks
    return max(14, naturals + 1, naturals + variant.decks * variant.jokers_per_deck)


def _meld_high(variant: Variant) -> np.ndarray:
    high = np.zeros(MELD_OBS_FIELDS, np.int64)
    high[MF_KIND] = MELD_WILD_GROUP
    high[MF_KEY] = NUM_RANKS - 1
    high[MF_LO] = high[MF_HI] = high[MF_GAP] = 14
    high[MF_WILD] = NUM_CARD_TYPES  # card type + 1, 0: no wild
    high[MF_SIZE] = max_meld_size(variant)
    high[MF_N0 : MF_N0 + NUM_SUITS] = variant.decks
    high[MF_NJOKER] = variant.decks * variant.jokers_per_deck
    high[NUM_MELD_FIELDS:] = 1  # clean, canasta, closed
    return high


def _misc_high(variant: Variant) -> list:
    n, total = variant.num_players, variant.total_cards
    high = {
        "stock_size": total,
        "pile_size": total,
        "turn": variant.max_turns,
        "hand_index": variant.max_hands,
        "own_seat": n - 1,
        "dealer": n - 1,
        "first_player": n - 1,
        "no_discard_card": NUM_CARD_TYPES,
        "own_minimum_first_meld": _POINTS,
        "own_team_opened": 1,
        "other_team_opened": 1,
        "provisional_points": _POINTS,
        "own_match_points": _POINTS,
        "other_match_points": _POINTS,
        "own_hand_score": _POINTS,
        "other_hand_score": _POINTS,
        "hands_ended": variant.max_hands,
        "muertos_left": 2 * MAX_MUERTOS,
    }
    return [high[name] for name in MISC_FEATURES]


def _block_highs(variant: Variant) -> dict[str, list]:
    """Each block's largest raw values (``_POINTS``: a points feature)."""
    n, total = variant.num_players, variant.total_cards
    cards = copies(variant).tolist()
    muerto = [MUERTO_ABSENT, HOW_KEPT_WILDS, n]
    assert len(muerto) == MUERTO_OBS_FIELDS
    return {
        "hand": cards,
        "table_counts": cards * 2,
        "melds": _meld_high(variant).tolist() * (2 * MAX_MELDS),
        "pile_counts": cards,
        "pile_top": [1] * NUM_CARD_TYPES,
        "pile_order": [NUM_CARD_TYPES] * total,
        "peek_card": [1] * NUM_CARD_TYPES,
        "known": cards * (n - 1),
        "hand_sizes": [total] * n,
        "muertos": muerto * (2 * MAX_MUERTOS),
        "phase": [1] * NUM_PHASES,
        "misc": _misc_high(variant),
        "variant": [_POINTS if i in POINTS_PARAMS else PARAM_HIGH[i] for i in range(NUM_PARAMS)],
    }


class BlockLayout(Mapping):
    """A read-only mapping of block name -> block (a NamedTuple with ``start`` and
    ``stop``) over ``self._blocks``: the observation's and the global state's layouts."""

    _blocks: dict

    def __getitem__(self, name: str):
        return self._blocks[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._blocks)

    def __len__(self) -> int:
        return len(self._blocks)

    def spans(self) -> dict[str, tuple[int, int]]:
        """Block name -> ``(start, stop)``."""
        return {name: (b.start, b.stop) for name, b in self._blocks.items()}


class ObservationLayout(BlockLayout):
    """The observation's blocks by name (in :func:`~burako_env.core.constants.obs_layout`'s
    order): a read-only mapping name -> :class:`ObsBlock`, plus the whole vectors ``low``,
    ``high`` (raw bounds), ``scale`` and the normalised bounds ``normalized_low`` /
    ``normalized_high``; see the module doc for the bounds."""

    def __init__(self, variant: Variant) -> None:
        self.variant = variant
        self.layout: ObsLayout = obs_layout(variant.num_players, variant.total_cards)
        self.size = self.layout.size
        names = ObsLayout._fields[:-1]  # every block, then "size"
        starts = [getattr(self.layout, name) for name in names]
        stops = starts[1:] + [self.size]
        highs = _block_highs(variant)
        low = np.zeros(self.size, np.float32)
        high = np.zeros(self.size, np.float32)
        scale = np.ones(self.size, np.float32)
        for name, start, stop in zip(names, starts, stops, strict=True):
            block = highs[name]
            if len(block) != stop - start:  # pragma: no cover - a layout change
                raise AssertionError(f"block {name!r}: {len(block)} bounds, {stop - start} slots")
            for i, h in enumerate(block, start):
                if h is _POINTS:
                    low[i], high[i], scale[i] = INT16_MIN, INT16_MAX, POINTS_SCALE
                else:
                    high[i], scale[i] = h, max(1, h)
        self.low, self.high, self.scale = low, high, scale
        self.normalized_low = low / scale
        self.normalized_high = high / scale
        self._blocks = {
            name: ObsBlock(start, stop, low[start:stop], high[start:stop], scale[start:stop])
            for name, start, stop in zip(names, starts, stops, strict=True)
        }
        for arr in (low, high, scale, self.normalized_low, self.normalized_high):
            arr.flags.writeable = False

    def normalize(self, obs: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
        """float32 ``obs / scale`` of int16 observations ``[..., size]`` (into ``out``
        when given: a float32 array of ``obs``'s shape)."""
        return np.divide(obs, self.scale, out=out, dtype=np.float32)

    def __repr__(self) -> str:
        v = self.variant
        return f"ObservationLayout({v.name!r}, {v.num_players} players, size {self.size})"

    def __reduce__(self):
        return (ObservationLayout, (self.variant,))


__all__ = [
    "MISC_FEATURES",
    "POINTS_SCALE",
    "ObsBlock",
    "ObservationLayout",
    "copies",
    "max_meld_size",
]
