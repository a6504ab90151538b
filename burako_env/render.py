"""The table as text: what the environments render and the ``burako play`` CLI shows.

:func:`render_table` draws game ``b`` of a :class:`~burako_env.core.game.Game` as one
player sees it (``viewer``), or with every hand open (``viewer=None``)::

    Burako · argentine · 4 players · hand 1 · turn 18
    To act: P1 (you, team 1) · to play: lay or add to melds, then discard to end the turn
    Stock 30 · Pile 0
    Muertos: team 0 untaken · team 1 untaken
    Cards: P0 8 · P1 (you) 5 · P2 10 · P3 16
    Team 0 melds:
      [ 0] 6♠ 7♠ 8♠                       run · clean
      [ 1] 4♠ 5♠ 2♥                       run · dirty
    Team 1 melds:
      [ 0] A♥ 2♣ 3♥                       run · dirty
      [ 1] 5♠ * 7♠                        run · dirty
    Hand of P1 (5) ←: T♣ · J♥ · 6♠ J♠ J♠
    Known in P0's hand: 4♦ · 9♥

Only plain Python reads the state here (no kernels run), so rendering never changes a game.
"""

from __future__ import annotations

import numpy as np

from burako_env.cards import JOKER, NUM_RANKS, RANKS, format_card, sort_for_display
from burako_env.core.constants import (
    END_MAX_TURNS,
    END_STOCK,
    END_WENT_OUT,
    HOW_DIRECT,
    HOW_INDIRECT,
    HOW_KEPT_WILDS,
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
    MUERTO_UNTAKEN,
    PHASE_DRAW,
    PHASE_OVER,
    PHASE_PEEK,
    PHASE_PLAY,
    SCORE_ITEMS,
)
from burako_env.core.view import GameView

PHASE_TEXT = {
    PHASE_PEEK: "first card: keep the card drawn, or lay it on the pile and draw another",
    PHASE_DRAW: "to draw: a card from the stock, or the whole discard pile",
    PHASE_PLAY: "to play: lay or add to melds, then discard to end the turn",
    PHASE_OVER: "the game is over",
}
#: the score items of a hand (SCORE_ITEMS) in words
SCORE_ITEM_TEXT = {
    "table_cards": "cards on the table",
    "canasta_bonus": "canasta bonuses",
    "going_out": "going out",
    "muertos_taken": "muertos taken",
    "muertos_not_taken": "muertos not taken",
    "hand_cards": "cards left in hand",
}
HOW_TEXT = {HOW_DIRECT: "direct", HOW_INDIRECT: "indirect", HOW_KEPT_WILDS: "keeping wilds"}
END_TEXT = {
    END_WENT_OUT: "went out",
    END_STOCK: "the stock ran down",
    END_MAX_TURNS: "the turn limit was reached",
}


def card(c: int) -> str:
    return format_card(int(c), symbols=True)


def cards_text(cards) -> str:
    return " ".join(card(c) for c in cards)


def hand_text(counts) -> str:
    """A hand's cards sorted by suit then rank, suits separated by ``·``, jokers last."""
    cards = sort_for_display([c for c in range(len(counts)) for _ in range(int(counts[c]))])
    groups: list[list[int]] = []
    key = None
    for c in cards:
        k = 4 if c == JOKER else c // NUM_RANKS
        if k != key:
            groups.append([])
            key = k
        groups[-1].append(c)
    return " · ".join(cards_text(g) for g in groups) if groups else "(empty)"


def _position_card(suit: int, pos: int) -> int:
    return suit * NUM_RANKS + (0 if pos == 14 else pos - 1)


def meld_display_cards(row) -> list[int]:
    """A meld row's cards in table order: a run low to high with its wild where it stands
    (in its gap, or after the run when at an end), a group's naturals by suit then its
    wild."""
    kind = int(row[MF_KIND])
    wild = int(row[MF_WILD])
    out: list[int] = []
    if kind == MELD_RUN:
        suit = int(row[MF_KEY])
        for p in range(int(row[MF_LO]), int(row[MF_HI]) + 1):
            out.append(wild if p == row[MF_GAP] and wild >= 0 else _position_card(suit, p))
        if wild >= 0 and row[MF_GAP] == 0:
            out.append(wild)
    elif kind == MELD_GROUP:
        for s in range(4):
            out += [s * NUM_RANKS + int(row[MF_KEY])] * int(row[MF_N0 + s])
        if wild >= 0:
            out.append(wild)
    elif kind == MELD_WILD_GROUP:
        for s in range(4):
            out += [s * NUM_RANKS + 1] * int(row[MF_N0 + s])
        out += [JOKER] * int(row[MF_NJOKER])
    return out


def _a_rank(rank: int) -> str:
    """One card of a rank: "an ace", "an 8", "a 10", "a king"."""
    word = {"A": "ace", "T": "10", "J": "jack", "Q": "queen", "K": "king"}.get(
        RANKS[rank], RANKS[rank]
    )
    return ("an " if word[0] in "a8" else "a ") + word


def wild_name(c: int) -> str:
    """A wild card in words: ``the joker`` or ``the 2♣``."""
    return "the joker" if c == JOKER else f"the {card(c)}"


def wild_stands_for(row) -> list[int]:
    """The cards a run's wild stands for: the card of its gap, or the cards just below
    and above the run for a wild at an end (it counts as whichever end the run needs,
    RULES.md 2.2); [] for a group, a wild group or a meld without a wild."""
    if int(row[MF_KIND]) != MELD_RUN or int(row[MF_WILD]) < 0:
        return []
    suit = int(row[MF_KEY])
    gap = int(row[MF_GAP])
    if gap:
        return [_position_card(suit, gap)]
    lo, hi = int(row[MF_LO]), int(row[MF_HI])
    ends = [p for p in (lo - 1, hi + 1) if 1 <= p <= 14]
    return [_position_card(suit, p) for p in ends]


def wild_words(row) -> str:
    """What a meld's wild stands for, in words ("" without a wild): "the joker stands for
    6♥", "the 2♣ stands for 4♥ or 8♥ (at either end)", "the 2♣ stands for an 8"."""
    kind = int(row[MF_KIND])
    wild = int(row[MF_WILD])
    if kind == MELD_WILD_GROUP or wild < 0:
        return ""
    name = wild_name(wild)
    if kind == MELD_GROUP:
        return f"{name} stands for {_a_rank(int(row[MF_KEY]))}"
    cards = wild_stands_for(row)
    if int(row[MF_GAP]):
        return f"{name} stands for {card(cards[0])}"
    if len(cards) == 2:
        return f"{name} stands for {card(cards[0])} or {card(cards[1])} (at either end)"
    return f"{name} stands for {card(cards[0])}" if cards else ""


def meld_label(row, max_meld_size: int = 0) -> str:
    """A meld row's label: its kind (group, run, wild group), clean or dirty, and canasta when it is
    one."""
    kind = int(row[MF_KIND])
    size = int(row[MF_SIZE])
    parts = [{MELD_GROUP: "group", MELD_RUN: "run", MELD_WILD_GROUP: "wild group"}.get(kind, "?")]
    if kind != MELD_WILD_GROUP:
        parts.append("clean" if row[MF_WILD] < 0 else "dirty")
    if size >= 7:
        parts.append("CANASTA")
    if max_meld_size and size >= max_meld_size:
        parts.append("closed")
    return " · ".join(parts)


def _seat_name(p: int, viewer: int | None) -> str:
    return f"P{p}" + (" (you)" if viewer is not None and p == viewer else "")


def render_table(game, b: int = 0, viewer: int | None = None) -> str:
    """Game ``b`` of ``game`` as text, seen by seat ``viewer`` (None: every hand open).

    Shows the variant and hand, whose turn and phase, the stock and pile, every player's
    card count, the muertos, both teams' melds (slot numbers, clean or dirty, canastas),
    the scores, and the viewer's hand (or every hand) sorted by suit and rank with suit
    symbols. Cards known to be in another player's hand (taken from the pile, shown
    wilds) are listed for a viewer.
    """
    st = game.state
    v = game.variant
    n = game.num_players
    if viewer is not None and not 0 <= viewer < n:
        raise ValueError(f"viewer must be a seat 0..{n - 1} or None, got {viewer}")
    s = GameView.of(st.scalars[b])
    phase = int(s.phase)
    player = int(s.player)
    lines = []
    episode = getattr(game, "episode", "hand")
    head = f"Burako · {v.label} · {n} players · hand {int(s.hand_index) + 1}"
    if episode == "match":
        head += f" of a match to {v.target}"
    head += f" · turn {int(s.turn) + 1}"
    lines.append(head)
    if phase == PHASE_OVER:
        lines.append(f"The {episode} is over.")
    else:
        lines.append(
            f"To act: P{player} ({'you, ' if player == viewer else ''}team {player % 2}) · "
            f"{PHASE_TEXT[phase]}"
        )

    # stock, pile, muertos
    pile_len = int(st.pile_len[b])
    pile = f"Pile {pile_len}"
    if pile_len:
        pile += f", top {card(st.pile[b, pile_len - 1])}"
        if pile_len > 1:
            pile += f" (then {cards_text(st.pile[b, max(0, pile_len - 6) : pile_len - 1][::-1])}"
            pile += " …)" if pile_len > 6 else ")"
    lines.append(f"Stock {int(st.stock_len[b])} · {pile}")
    muertos = []
    for t in range(2):
        parts = []
        for m in range(MAX_MUERTOS):
            status = int(st.muerto_status[b, t, m])
            if status == MUERTO_ABSENT:
                continue
            if status == MUERTO_UNTAKEN:
                parts.append("untaken")
            elif status == MUERTO_STOCK:
                shared = v.muerto_pot == "shared"
                parts.append(
                    "none left in the pot: can never go out" if shared else "became the stock"
                )
            else:
                how = HOW_TEXT.get(int(st.muerto_how[b, t, m]), "")
                taker = int(st.muerto_taker[b, t, m])
                text = f"taken by P{taker} ({how})"
                if status == MUERTO_PENDING:
                    text += ", not yet played"
                parts.append(text)
        if parts:
            muertos.append(f"team {t} " + ", ".join(parts))
    if muertos:
        pot = ""
        if v.muerto_pot == "shared":
            pot = f" (pot: {int(s.muertos_left)} left)"
        lines.append("Muertos" + pot + ": " + " · ".join(muertos))
    sizes = st.hands[b].sum(axis=1)
    lines.append(
        "Cards: " + " · ".join(f"{_seat_name(p, viewer)} {int(sizes[p])}" for p in range(n))
    )
    if phase == PHASE_PEEK and s.peek_card >= 0 and viewer in (None, player):
        lines.append(f"First card drawn: {card(s.peek_card)}")
    # the bar shows whether the taker held the card before: theirs to know only (as the
    # observation keeps it)
    if s.no_discard >= 0 and phase != PHASE_OVER and viewer in (None, player):
        lines.append(f"P{player} may not discard {card(s.no_discard)} this turn")

    # melds
    for t in range(2):
        count = int(st.num_melds[b, t])
        title = f"Team {t} melds"
        if v.min_first_meld:
            title += " (opened)" if s.opened[t] else " (not opened)"
        if count == 0:
            lines.append(f"{title}: none")
            continue
        lines.append(f"{title}:")
        for i in range(count):
            row = st.melds[b, t, i]
            text = cards_text(meld_display_cards(row))
            label = meld_label(row, v.max_meld_size)
            wild = wild_words(row)
            lines.append(f"  [{i:2d}] {text:<30} {label}" + (f" · {wild}" if wild else ""))

    # scores
    match = (int(s.match_scores[0]), int(s.match_scores[1]))
    hands_ended = int(s.hands_ended)
    score = []
    if episode == "match":
        score.append(f"match points {match[0]} – {match[1]}")
    if hands_ended:
        last = (int(s.hand_scores[0]), int(s.hand_scores[1]))
        score.append(f"{'last ' if episode == 'match' else ''}hand {last[0]} – {last[1]}")
    if score:
        lines.append("Scores (team 0 – team 1): " + " · ".join(score))
    if phase == PHASE_OVER:
        reason = END_TEXT.get(int(s.end_reason), "")
        if s.end_reason == END_WENT_OUT:
            reason = f"team {int(s.went_out)} {reason}"
        w = int(s.winner)
        lines.append(f"Result: {reason}; " + ("a tie" if w < 0 else f"team {w} wins the {episode}"))
        items = np.asarray(st.score_items[b])
        for t in range(2):
            lines.append(
                f"  team {t}: "
                + (
                    ", ".join(
                        f"{SCORE_ITEM_TEXT[name]} {int(items[t, k]):+d}"
                        for k, name in enumerate(SCORE_ITEMS)
                        if int(items[t, k])
                    )
                    or "nothing"
                )
            )

    # hands
    seats = range(n) if viewer is None else [viewer]
    for p in seats:
        mark = " ←" if p == player and phase != PHASE_OVER else ""
        lines.append(f"Hand of P{p} ({int(sizes[p])}){mark}: {hand_text(st.hands[b, p])}")
    if viewer is not None:
        for p in range(n):
            if p != viewer and st.known[b, p].any():
                lines.append(f"Known in P{p}'s hand: {hand_text(st.known[b, p])}")
    return "\n".join(lines)


__all__ = [
    "hand_text",
    "meld_display_cards",
    "meld_label",
    "render_table",
    "wild_name",
    "wild_stands_for",
    "wild_words",
]
