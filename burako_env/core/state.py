"""The state of a batch of games: one record per game, fields of integer arrays.

A :class:`GameState` is a numpy record array (an ``ndarray`` subclass) of shape ``[B]``: each
game is one record of :data:`STATE_FIELDS`, and ``state.hands`` is a view of every
game's hands, shape ``[B, P, 53]``, as the fields of a struct of arrays would be. Every
kernel takes the state and a game index ``b`` (``st.hands[b, p, c]``); nothing else
holds state. Card arrays are int8 (card types 0..52), counts are int8 (at most 8 copies
of a type).

Why one record array and not a tuple of arrays: numba passes a tuple of 18 arrays as
about 170 flattened arguments, so every function that takes the state cost ~0.3 s more
to compile (its wrappers unpack them all) and every call ~200 ns, which forced the
rules' checks to be inlined at numba's IR level, the largest part of the cold compile.
A record array is one array argument (docs/BENCHMARKS.md, "A record array for the
state"). A field view of a record array has numba's layout 'A' (its rows are a record
apart), so the kernels' own work rows are made 'A' as well (``np.empty(n)[::1]``): a
function of rows then compiles once, not once per layout.
"""

from __future__ import annotations

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

#: the fields of a game's record: name, dtype and shape ("P" is the number of players);
#: state_dtype adds the padding
STATE_FIELDS = (
    ("hands", np.int8, ("P", NUM_CARD_TYPES)),  # cards each player holds
    ("known", np.int8, ("P", NUM_CARD_TYPES)),  # cards everyone knows a player holds
    ("stock", np.int8, (MAX_CARDS,)),  # stock, bottom first; the top is stock[len-1]
    ("stock_len", np.int32, ()),
    ("pile", np.int8, (MAX_CARDS,)),  # discard pile, bottom first
    ("pile_len", np.int32, ()),
    ("muertos", np.int8, (2, MAX_MUERTOS, MUERTO_SIZE)),  # each team's packets
    ("muerto_status", np.int8, (2, MAX_MUERTOS)),  # MUERTO_*
    ("muerto_how", np.int8, (2, MAX_MUERTOS)),  # HOW_*
    ("muerto_taker", np.int8, (2, MAX_MUERTOS)),  # seat, -1 if untaken
    ("melds", np.int8, (2, MAX_MELDS, NUM_MELD_FIELDS)),
    ("num_melds", np.int32, (2,)),
    ("scalars", np.int32, (NUM_SCALARS,)),  # S_*
    ("score_items", np.int32, (2, NUM_SCORE_ITEMS)),  # last finished hand
    ("rng", np.int64, (4,)),  # the game's own generator (deals)
    ("scratch", np.int8, (4, NUM_MELD_FIELDS)),  # rows under construction
    ("legal", np.int16, (NUM_ACTIONS,)),  # legal action ids, first num_legal valid
    ("num_legal", np.int32, ()),
)
FIELD_NAMES = tuple(name for name, _, _ in STATE_FIELDS)


def state_dtype(num_players: int) -> np.dtype:
    """One game's record for ``num_players``. Each field starts on its natural boundary
    and the record's size is a multiple of 8, by explicit padding fields (``_pad*``,
    always zero): numpy leaves a struct's unnamed padding uninitialised when it copies
    one, so two copies of a game would differ in bytes that are no part of it."""
    fields, offset = [], 0
    for name, dtype, shape in (*STATE_FIELDS, ("", np.int64, ())):
        align = np.dtype(dtype).itemsize
        if offset % align:
            gap = align - offset % align
            fields.append((f"_pad{len(fields)}", np.int8, (gap,)))
            offset += gap
        if not name:  # the record's end, aligned for the widest field
            break
        shape = tuple(num_players if d == "P" else d for d in shape)
        fields.append((name, dtype, shape))
        offset += np.dtype((dtype, shape)).itemsize
    # align=True adds no padding of its own here (every field already sits on its
    # boundary); it marks the struct aligned, so numba emits aligned loads and stores
    return np.dtype(fields, align=True)


class _Field:
    """A field of the state as an attribute: ``state.hands`` is the view of every game's
    hands, made at each access from a plain ``ndarray`` view (about 0.2 us; numpy's
    ``recarray`` took about 2 us, which slowed the AEC env by a fifth). Not cached on
    the state: the view refers back to the state, and a cycle through ndarrays is never
    collected (numpy arrays take no part in the garbage collector)."""

    def __init__(self, name: str):
        self.name = name

    def __get__(self, state, owner=None):
        if state is None:
            return self
        return state.view(np.ndarray)[self.name]


class GameState(np.ndarray):
    """The state of a batch of games: a record array of shape ``[B]`` whose fields
    (:data:`FIELD_NAMES`) read as attributes (see the module's docstring)."""

    # The fields for the type checker: annotations only (no value), so that the class
    # gains no attribute from them; the loop below sets each as a :class:`_Field`.
    # tests/tooling/test_habits.py checks that they name FIELD_NAMES.
    hands: np.ndarray
    known: np.ndarray
    stock: np.ndarray
    stock_len: np.ndarray
    pile: np.ndarray
    pile_len: np.ndarray
    muertos: np.ndarray
    muerto_status: np.ndarray
    muerto_how: np.ndarray
    muerto_taker: np.ndarray
    melds: np.ndarray
    num_melds: np.ndarray
    scalars: np.ndarray
    score_items: np.ndarray
    rng: np.ndarray
    scratch: np.ndarray
    legal: np.ndarray
    num_legal: np.ndarray


for _name in FIELD_NAMES:
    setattr(GameState, _name, _Field(_name))


def allocate_state(batch_size: int, num_players: int) -> GameState:
    """Zeroed arrays for ``batch_size`` games of ``num_players``; reset deals them."""
    if batch_size < 1:
        raise ValueError(f"batch_size must be at least 1, got {batch_size}")
    state = np.zeros(batch_size, state_dtype(num_players)).view(GameState)
    state.muerto_taker[...] = -1
    return state


def copy_state(state: GameState) -> GameState:
    """A deep copy (for tests and for trying an action without touching the game)."""
    return state.copy()


def take_games(state: GameState, index) -> GameState:
    """The games at ``index`` (an int, slice or index array) as a new state."""
    if isinstance(index, int):
        index = slice(index, index + 1)
    return state[index].copy()


def state_fields(state: GameState) -> list[tuple[str, np.ndarray]]:
    """Each field's name and its array (a view with the batch axis first)."""
    return [(name, getattr(state, name)) for name in FIELD_NAMES]


def states_equal(a: GameState, b: GameState) -> bool:
    """True when both hold the same games. ``scratch`` is left out: it is the kernels' work
    space (an action_error_nb call writes its trial meld there), not part of the game."""
    return all(
        np.array_equal(x, getattr(b, name)) for name, x in state_fields(a) if name != "scratch"
    )


def untaken_packets(state: GameState, b: int, shared_pot: bool) -> list[tuple[int, int]]:
    """The (team, index) of every muerto packet of game ``b`` still face down.

    With ``muerto_pot: shared`` the statuses say which teams may still take one, and the
    pot's size says how many packets are left (see ``rules._pot_packet_nb`` for where they
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
