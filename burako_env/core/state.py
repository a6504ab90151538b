"""The state of a batch of games: a handful of integer arrays with a leading batch axis.

Every kernel takes a :class:`GameState` and a game index ``b``; nothing else holds state.
Card arrays are int8 (card types 0..52), counts are int8 (at most 8 copies of a type).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from burako_env.core.constants import (
    MAX_CARDS,
    MAX_MELDS,
    MAX_MUERTOS,
    MUERTO_SIZE,
    MUERTO_UNTAKEN,
    NUM_ACTIONS,
    NUM_CARD_TYPES,
    NUM_MELD_FIELDS,
    NUM_SCALARS,
    NUM_SCORE_ITEMS,
    S_MUERTOS_LEFT,
)


class GameState(NamedTuple):
    hands: np.ndarray  # int8 [B, P, 53] cards each player holds
    known: np.ndarray  # int8 [B, P, 53] cards everyone knows a player holds (public)
    stock: np.ndarray  # int8 [B, MAX_CARDS] stock, bottom first; the top is stock[len-1]
    stock_len: np.ndarray  # int32 [B]
    pile: np.ndarray  # int8 [B, MAX_CARDS] discard pile, bottom first
    pile_len: np.ndarray  # int32 [B]
    muertos: np.ndarray  # int8 [B, 2, MAX_MUERTOS, 11] each team's packets
    muerto_status: np.ndarray  # int8 [B, 2, MAX_MUERTOS] MUERTO_*
    muerto_how: np.ndarray  # int8 [B, 2, MAX_MUERTOS] HOW_*
    muerto_taker: np.ndarray  # int8 [B, 2, MAX_MUERTOS] seat, -1 if untaken
    melds: np.ndarray  # int8 [B, 2, MAX_MELDS, NUM_MELD_FIELDS]
    num_melds: np.ndarray  # int32 [B, 2]
    scalars: np.ndarray  # int32 [B, NUM_SCALARS] S_*
    score_items: np.ndarray  # int32 [B, 2, NUM_SCORE_ITEMS] last finished hand
    rng: np.ndarray  # int64 [B, 4] the game's own generator (deals)
    scratch: np.ndarray  # int8 [B, 4, NUM_MELD_FIELDS] rows under construction
    legal: np.ndarray  # int16 [B, NUM_ACTIONS] legal action ids, first num_legal valid
    num_legal: np.ndarray  # int32 [B]


def allocate_state(batch_size: int, num_players: int) -> GameState:
    """Zeroed arrays for ``batch_size`` games of ``num_players``; reset deals them."""
    if batch_size < 1:
        raise ValueError(f"batch_size must be at least 1, got {batch_size}")
    b, p = batch_size, num_players
    return GameState(
        hands=np.zeros((b, p, NUM_CARD_TYPES), np.int8),
        known=np.zeros((b, p, NUM_CARD_TYPES), np.int8),
        stock=np.zeros((b, MAX_CARDS), np.int8),
        stock_len=np.zeros(b, np.int32),
        pile=np.zeros((b, MAX_CARDS), np.int8),
        pile_len=np.zeros(b, np.int32),
        muertos=np.zeros((b, 2, MAX_MUERTOS, MUERTO_SIZE), np.int8),
        muerto_status=np.zeros((b, 2, MAX_MUERTOS), np.int8),
        muerto_how=np.zeros((b, 2, MAX_MUERTOS), np.int8),
        muerto_taker=np.full((b, 2, MAX_MUERTOS), -1, np.int8),
        melds=np.zeros((b, 2, MAX_MELDS, NUM_MELD_FIELDS), np.int8),
        num_melds=np.zeros((b, 2), np.int32),
        scalars=np.zeros((b, NUM_SCALARS), np.int32),
        score_items=np.zeros((b, 2, NUM_SCORE_ITEMS), np.int32),
        rng=np.zeros((b, 4), np.int64),
        scratch=np.zeros((b, 4, NUM_MELD_FIELDS), np.int8),
        legal=np.zeros((b, NUM_ACTIONS), np.int16),
        num_legal=np.zeros(b, np.int32),
    )


def copy_state(state: GameState) -> GameState:
    """A deep copy (for tests and for trying an action without touching the game)."""
    return GameState(*(a.copy() for a in state))


def take_games(state: GameState, index) -> GameState:
    """The games at ``index`` (an int, slice or index array) as a new state."""
    if isinstance(index, int):
        index = slice(index, index + 1)
    return GameState(*(a[index].copy() for a in state))


def states_equal(a: GameState, b: GameState) -> bool:
    """True when both hold the same games. ``scratch`` is left out: it is the kernels' work
    space (an action_error call writes its trial meld there), not part of the game."""
    return all(
        np.array_equal(x, y)
        for name, x, y in zip(GameState._fields, a, b, strict=True)
        if name != "scratch"
    )


def untaken_packets(state: GameState, b: int, shared_pot: bool) -> list[tuple[int, int]]:
    """The (team, index) of every muerto packet of game ``b`` still face down.

    With ``muerto_pot: shared`` the statuses say which teams may still take one, and the
    pot's size says how many packets are left (see ``rules._pot_packet`` for where they
    lie); otherwise each untaken status is a packet of its own.
    """
    if not shared_pot:
        return [
            (t, m)
            for t in range(2)
            for m in range(MAX_MUERTOS)
            if state.muerto_status[b, t, m] == MUERTO_UNTAKEN
        ]
    left = int(state.scalars[b, S_MUERTOS_LEFT])
    if left == 2:
        return [(0, 0), (1, 0)]
    if left == 0:
        return []
    untaken = [t for t in range(2) if state.muerto_status[b, t, 0] == MUERTO_UNTAKEN]
    return [(0 if len(untaken) == 2 else untaken[0], 0)]
