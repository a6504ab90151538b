"""Action ids in words and back: decode an id, name it, and build ids from cards.

The table of ranges is in docs/ACTIONS.md; the constants in
:mod:`burako_env.core.constants`.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from burako_env.cards import JOKER, NUM_RANKS, format_card, format_cards
from burako_env.core.constants import (
    ADD_BASE,
    DISCARD_BASE,
    DRAW_STOCK,
    GROUP_CLEAN_SUITS,
    GROUP_CLEAN_TEMPLATES,
    GROUP_PAIR_SUITS,
    GROUP_RANKS,
    GROUP_TEMPLATES_PER_RANK,
    MAX_MELDS,
    NUM_ACTIONS,
    NUM_CARD_TYPES,
    OPEN_GROUP_BASE,
    OPEN_RUN_BASE,
    OPEN_WILD_GROUP_BASE,
    PEEK_KEEP,
    PEEK_REJECT,
    RUN_CLEAN_TEMPLATES,
    RUN_PAIR_TEMPLATES,
    RUN_TEMPLATES_PER_SUIT,
    TAKE_MUERTO_KEEP_WILDS,
    TAKE_PILE,
)

WILD_GROUP_COMBOS = [(a, b, c) for a in range(1, 6) for b in range(a, 6) for c in range(b, 6)]


def wild_card_of_kind(kind: int) -> int:
    """Card type of a template wild kind (1 joker, 2..5 the 2 of clubs..spades)."""
    return JOKER if kind == 1 else (kind - 2) * NUM_RANKS + 1


def position_card(suit: int, pos: int) -> int:
    """The card type of rank position ``pos`` (1 to 14, 14 the ace above the king) in ``suit``."""
    return suit * NUM_RANKS + (0 if pos == 14 else pos - 1)


@dataclass(frozen=True)
class ActionInfo:
    """A decoded action id."""

    action: int
    kind: str  # draw, take_pile, peek_keep, peek_reject, muerto_keep_wilds,
    #            open_group, open_run, open_wild_group, add, discard
    cards: tuple[int, ...] = ()  # the cards the action moves from the hand
    slot: int = -1  # add: the team meld slot
    wild: int = -1  # opening: the wild card, -1 for none
    wild_in_gap: bool = False  # run opening: the wild fills the gap between the naturals

    def __str__(self) -> str:
        return describe_action(self.action)


def decode_action(a: int) -> ActionInfo:
    """What an action id does. Raises ValueError for an id outside the action space."""
    a = int(a)
    if not 0 <= a < NUM_ACTIONS:
        raise ValueError(f"action {a} is outside the action space 0..{NUM_ACTIONS - 1}")
    if a == DRAW_STOCK:
        return ActionInfo(a, "draw")
    if a == TAKE_PILE:
        return ActionInfo(a, "take_pile")
    if a == PEEK_KEEP:
        return ActionInfo(a, "peek_keep")
    if a == PEEK_REJECT:
        return ActionInfo(a, "peek_reject")
    if a == TAKE_MUERTO_KEEP_WILDS:
        return ActionInfo(a, "muerto_keep_wilds")
    if a < OPEN_RUN_BASE:
        rank_index, tpl = divmod(a - OPEN_GROUP_BASE, GROUP_TEMPLATES_PER_RANK)
        rank = GROUP_RANKS[rank_index]
        if tpl < GROUP_CLEAN_TEMPLATES:
            suits, wild = GROUP_CLEAN_SUITS[tpl], -1
        else:
            pair, kind = divmod(tpl - GROUP_CLEAN_TEMPLATES, 5)
            suits, wild = GROUP_PAIR_SUITS[pair], wild_card_of_kind(kind + 1)
        cards = tuple(s * NUM_RANKS + rank for s in suits) + ((wild,) if wild >= 0 else ())
        return ActionInfo(a, "open_group", cards, wild=wild)
    if a < OPEN_WILD_GROUP_BASE:
        idx = a - OPEN_RUN_BASE
        suit, tpl = divmod(idx, RUN_TEMPLATES_PER_SUIT)
        if tpl < RUN_CLEAN_TEMPLATES:
            s = tpl + 1
            return ActionInfo(
                a, "open_run", tuple(position_card(suit, p) for p in (s, s + 1, s + 2))
            )
        if tpl < RUN_CLEAN_TEMPLATES + RUN_PAIR_TEMPLATES:
            s, k = divmod(tpl - RUN_CLEAN_TEMPLATES, 5)
            s += 1
            w = wild_card_of_kind(k + 1)
            cards = (position_card(suit, s), position_card(suit, s + 1), w)
            return ActionInfo(a, "open_run", cards, wild=w)
        s, k = divmod(tpl - RUN_CLEAN_TEMPLATES - RUN_PAIR_TEMPLATES, 5)
        s += 1
        w = wild_card_of_kind(k + 1)
        cards = (position_card(suit, s), w, position_card(suit, s + 2))
        return ActionInfo(a, "open_run", cards, wild=w, wild_in_gap=True)
    if a < ADD_BASE:
        combo = WILD_GROUP_COMBOS[a - OPEN_WILD_GROUP_BASE]
        return ActionInfo(a, "open_wild_group", tuple(wild_card_of_kind(k) for k in combo))
    if a < DISCARD_BASE:
        slot, c = divmod(a - ADD_BASE, NUM_CARD_TYPES)
        return ActionInfo(a, "add", (c,), slot=slot)
    return ActionInfo(a, "discard", (a - DISCARD_BASE,))


def describe_action(a: int) -> str:
    """The action in words: ``open run 5h 6h *``, ``add 7h to meld 3``, ``discard Kd``."""
    info = decode_action(a)
    k = info.kind
    if k == "draw":
        return "draw from the stock"
    if k == "take_pile":
        return "take the discard pile"
    if k == "peek_keep":
        return "keep the peeked card"
    if k == "peek_reject":
        return "reject the peeked card and draw the next"
    if k == "muerto_keep_wilds":
        return "take the muerto keeping the wilds in hand"
    if k == "open_group":
        text = f"open group {format_cards(info.cards)}"
        return text + (" (wild)" if info.wild >= 0 else " (clean)")
    if k == "open_run":
        text = f"open run {format_cards(info.cards)}"
        if info.wild >= 0:
            text += " (wild in the gap)" if info.wild_in_gap else " (wild at an end)"
        return text
    if k == "open_wild_group":
        return f"open a wild group {format_cards(info.cards)}"
    if k == "add":
        return f"add {format_card(info.cards[0])} to meld {info.slot}"
    return f"discard {format_card(info.cards[0])}"


def add_action(card: int, slot: int) -> int:
    """The action that adds card type ``card`` to the meld in ``slot``; ValueError for a slot
    outside the table."""
    if not 0 <= slot < MAX_MELDS:
        raise ValueError(f"meld slot {slot} is outside 0..{MAX_MELDS - 1}")
    return ADD_BASE + slot * NUM_CARD_TYPES + int(card)


def discard_action(card: int) -> int:
    """The action that discards card type ``card``."""
    return DISCARD_BASE + int(card)


def open_actions_for(cards: list[int]) -> list[int]:
    """Every opening action whose cards are exactly ``cards`` (any order).

    Used by the CLI to turn ``meld 7h 8h 9h`` into an action id. A group names its suits,
    so ``8h 8s 8d`` is one id and ``8h 8h 8s`` another.
    """
    return list(_openings_by_cards().get(tuple(sorted(int(c) for c in cards)), ()))


@functools.cache
def _openings_by_cards() -> dict[tuple[int, ...], tuple[int, ...]]:
    found: dict[tuple[int, ...], list[int]] = {}
    for a in range(OPEN_GROUP_BASE, ADD_BASE):
        found.setdefault(tuple(sorted(decode_action(a).cards)), []).append(a)
    return {k: tuple(v) for k, v in found.items()}
