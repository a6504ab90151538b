"""Scripted positions: put a chosen table in front of the engine.

Tests, agents' unit tests and docs draw a table in card notation and get a :class:`Game`
(batch of one) in exactly that position::

    game = build_game(
        "argentine",
        hands={0: "7h 8h 9h Kd Kc", 1: "3c 4c"},
        melds={0: ["5s 6s 7s"], 1: []},
        pile="Qd 4h",
        player=0,
        phase="draw",
    )

Cards not placed anywhere fill the muertos (unless given) and then the stock, in a fixed
order, so every card of the variant's decks is somewhere. Uses the referee to read melds,
which is why it sits above the core rather than in it: the core never imports the referee,
the oracle the tests hold it to (docs/ARCHITECTURE.md).
"""

from __future__ import annotations

import numpy as np

from burako_env.cards import JOKER, NUM_CARD_TYPES, NUM_RANKS, parse_cards
from burako_env.core.constants import (
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
    MUERTO_SIZE,
    MUERTO_STOCK,
    MUERTO_UNTAKEN,
    NUM_MELD_FIELDS,
    PHASE_DRAW,
    PHASE_PEEK,
    PHASE_PLAY,
    S_FIRST_PLAYER,
    S_MATCH0,
    S_MUERTOS_LEFT,
    S_NO_DISCARD,
    S_OPENED0,
    S_PEEK_CARD,
    S_PHASE,
    S_PLAYER,
    S_PROV_START,
    S_TURN,
)
from burako_env.core.game import Game
from burako_env.referee import classify_meld

PHASES = {"peek": PHASE_PEEK, "draw": PHASE_DRAW, "play": PHASE_PLAY}


def meld_row(cards, variant) -> np.ndarray:
    """The core's row for a meld given as cards (any order); ValueError if not a meld."""
    cards = parse_cards(cards)
    info = classify_meld(cards, variant)
    if info is None:
        raise ValueError(f"not a valid meld in this variant: {cards}")
    row = np.zeros(NUM_MELD_FIELDS, np.int8)
    row[MF_WILD] = -1
    row[MF_SIZE] = len(cards)
    if info.kind == "wild_group":
        row[MF_KIND] = MELD_WILD_GROUP
        for c in cards:
            if c == JOKER:
                row[MF_NJOKER] += 1
            else:
                row[MF_N0 + c // NUM_RANKS] += 1
        return row
    if info.kind == "group":
        row[MF_KIND] = MELD_GROUP
        row[MF_KEY] = info.rank
        for c in cards:
            if c != JOKER and c % NUM_RANKS == info.rank:
                row[MF_N0 + c // NUM_RANKS] += 1
            else:
                row[MF_WILD] = c
        return row
    row[MF_KIND] = MELD_RUN
    row[MF_KEY] = info.suit
    row[MF_LO] = info.positions[0]
    row[MF_HI] = info.positions[-1]
    if info.wilds:
        naturals = list(cards)
        for p in info.positions:
            c = info.suit * NUM_RANKS + (0 if p == 14 else p - 1)
            naturals.remove(c)
        row[MF_WILD] = naturals[0]
        row[MF_GAP] = info.wild_position or 0
    return row


def meld_cards(row) -> list[int]:
    """The cards of a core meld row, sorted."""
    counts = np.zeros(NUM_CARD_TYPES, np.int64)
    kind = row[MF_KIND]
    if kind == MELD_GROUP:
        for s in range(4):
            counts[s * NUM_RANKS + row[MF_KEY]] += row[MF_N0 + s]
    elif kind == MELD_RUN:
        for p in range(row[MF_LO], row[MF_HI] + 1):
            if p != row[MF_GAP]:
                counts[row[MF_KEY] * NUM_RANKS + (0 if p == 14 else p - 1)] += 1
    elif kind == MELD_WILD_GROUP:
        for s in range(4):
            counts[s * NUM_RANKS + 1] += row[MF_N0 + s]
        counts[JOKER] += row[MF_NJOKER]
    if kind != MELD_WILD_GROUP and row[MF_WILD] >= 0:
        counts[row[MF_WILD]] += 1
    return [c for c in range(NUM_CARD_TYPES) for _ in range(int(counts[c]))]


def build_game(
    variant="argentine",
    num_players: int | None = None,
    *,
    hands: dict[int, str] | None = None,
    melds: dict[int, list[str]] | None = None,
    pile: str = "",
    stock: str | None = None,
    muertos: dict[int, list[str]] | None = None,
    muertos_taken: dict[int, int] | None = None,
    pot_left: int | None = None,
    player: int = 0,
    phase: str = "play",
    peek_card: str | None = None,
    no_discard: str | None = None,
    turn: int = 1,
    opened: tuple[int, int] | None = None,
    match_scores: tuple[int, int] = (0, 0),
    episode: str = "hand",
    **overrides,
) -> Game:
    """A batch-of-one :class:`Game` in the position described (see the module doc).

    ``stock`` lists the stock bottom first (its last card is drawn next); when None, the
    cards left over fill it. ``muertos_taken[t]`` marks that many of team t's muertos as
    already taken (and played). ``pot_left`` (``muerto_pot: shared``) says how many packets
    the pot still holds when fewer than the untaken teams' count: with 0, a team that took
    none can never go out; with 1 and both teams untaken, team 0's packet is the one left.
    ``opened`` says which teams have confirmed melds
    (min_first_meld); by default a team with melds has opened.
    """
    game = Game(variant, num_players=num_players, batch_size=1, episode=episode, **overrides)
    v = game.variant
    st = game.state
    if phase not in PHASES:
        raise ValueError(f"phase must be one of {list(PHASES)}, got {phase!r}")
    left = np.zeros(NUM_CARD_TYPES, np.int64)
    left[:52] = v.decks
    left[JOKER] = v.decks * v.jokers_per_deck

    def take(cards, where):
        for c in cards:
            if left[c] <= 0:
                raise ValueError(f"{where}: no copy of card {c} left in {v.decks} decks")
            left[c] -= 1
        return cards

    st.hands[0] = 0
    st.known[0] = 0
    for p, text in (hands or {}).items():
        for c in take(parse_cards(text), f"hand {p}"):
            st.hands[0, p, c] += 1
    st.num_melds[0] = 0
    for t, texts in (melds or {}).items():
        for i, text in enumerate(texts):
            row = meld_row(take(parse_cards(text), f"meld of team {t}"), v)
            st.melds[0, t, i] = row
        st.num_melds[0, t] = len(texts)
    pile_cards = take(parse_cards(pile), "pile")
    st.pile[0, : len(pile_cards)] = pile_cards
    st.pile_len[0] = len(pile_cards)
    s = st.scalars[0]
    if peek_card is not None:
        s[S_PEEK_CARD] = take(parse_cards(peek_card), "peek card")[0]
    else:
        s[S_PEEK_CARD] = -1
    taken = muertos_taken or {}
    for t in range(2):
        given = (muertos or {}).get(t)
        for m in range(MAX_MUERTOS):
            st.muerto_taker[0, t, m] = -1
            st.muerto_how[0, t, m] = 0
            if m >= v.muertos_per_team:
                st.muerto_status[0, t, m] = MUERTO_ABSENT
                continue
            if m < taken.get(t, 0):
                st.muerto_status[0, t, m] = 1  # MUERTO_TAKEN
                st.muerto_how[0, t, m] = 1
                st.muerto_taker[0, t, m] = t
                st.muertos[0, t, m] = 0
                continue
            st.muerto_status[0, t, m] = MUERTO_UNTAKEN
            if given is not None and m < len(given):
                cards = take(parse_cards(given[m]), f"muerto {m} of team {t}")
            else:
                cards = []
                for c in range(NUM_CARD_TYPES):
                    while left[c] > 0 and len(cards) < MUERTO_SIZE:
                        cards.append(c)
                        left[c] -= 1
            if len(cards) != MUERTO_SIZE:
                raise ValueError(f"muerto {m} of team {t} needs {MUERTO_SIZE} cards")
            st.muertos[0, t, m] = cards
    untaken = int((st.muerto_status[0] == MUERTO_UNTAKEN).sum())
    s[S_MUERTOS_LEFT] = untaken
    if pot_left is not None:
        if v.muerto_pot != "shared" or not 0 <= pot_left <= untaken:
            raise ValueError(
                f"pot_left needs muerto_pot 'shared' and 0..{untaken} packets, got {pot_left}"
            )
        s[S_MUERTOS_LEFT] = pot_left
        if pot_left == 0:
            st.muerto_status[0, :, 0][st.muerto_status[0, :, 0] == MUERTO_UNTAKEN] = MUERTO_STOCK
    if stock is None:
        stock_cards = [c for c in range(NUM_CARD_TYPES) for _ in range(int(left[c]))]
    else:
        stock_cards = take(parse_cards(stock), "stock")
    st.stock[0, : len(stock_cards)] = stock_cards
    st.stock_len[0] = len(stock_cards)
    s[S_PLAYER] = player
    s[S_FIRST_PLAYER] = player
    s[S_PHASE] = PHASES[phase]
    s[S_TURN] = turn
    s[S_NO_DISCARD] = parse_cards(no_discard)[0] if no_discard else -1
    s[S_PROV_START] = st.num_melds[0, player % 2]
    for t in range(2):
        s[S_OPENED0 + t] = (st.num_melds[0, t] > 0) if opened is None else opened[t]
        s[S_MATCH0 + t] = match_scores[t]
    game.refresh_legal()
    return game
