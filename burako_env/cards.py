"""Cards and their text notation (RULES.md section 1).

A card *type* is an integer in ``0..52``: ``suit * 13 + rank_index`` for the 52 suited
cards (suits ``c d h s`` in that order, ranks ``A 2 3 ... K`` as indices ``0..12``) and
:data:`JOKER` (52) for the joker. Copies of a card are indistinguishable, so a hand is a
vector of 53 counts.

Notation: rank then suit (``7h``, ``Ts``, ``Ad``, ``2c``), ``*`` for a joker. Parsing is
case-insensitive and also accepts ``10h`` and the suit symbols ``♣♦♥♠``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np

NUM_SUITS = 4
NUM_RANKS = 13
NUM_CARD_TYPES = 53
JOKER = 52

SUITS = "cdhs"
SUIT_SYMBOLS = "♣♦♥♠"
RANKS = "A23456789TJQK"

#: rank index of the 2 (a wild card unless it stands at its natural place in a run)
RANK_TWO = 1
#: rank index of the ace
RANK_ACE = 0

_SUIT_FROM_CHAR = {c: i for i, c in enumerate(SUITS)} | {c: i for i, c in enumerate(SUIT_SYMBOLS)}
_RANK_FROM_TEXT = {r.lower(): i for i, r in enumerate(RANKS)} | {"10": 9, "1": 0}


class CardParseError(ValueError):
    """A card token that is not in the notation."""


def card_id(rank_index: int, suit: int) -> int:
    """The card type of a rank index (0 = ace ... 12 = king) and a suit index (0..3)."""
    return suit * NUM_RANKS + rank_index


def suit_of(card: int) -> int:
    """Suit index of a suited card (undefined for the joker)."""
    return card // NUM_RANKS


def rank_of(card: int) -> int:
    """Rank index of a suited card, 0 = ace ... 12 = king (undefined for the joker)."""
    return card % NUM_RANKS


def is_wild(card: int) -> bool:
    """True for a joker or any 2 (whether it acts as a wild depends on where it stands)."""
    return card == JOKER or rank_of(card) == RANK_TWO


def parse_card(token: str) -> int:
    """Parse one card token (``7h``, ``10h``, ``T♥``, ``*``) into its card type."""
    text = token.strip()
    if text in ("*", "JK", "jk", "joker", "Joker", "JOKER"):
        return JOKER
    if len(text) < 2:
        raise CardParseError(f"unknown card {token!r}: write rank then suit, e.g. '7h', 'Ts', '*'")
    rank_text, suit_char = text[:-1].lower(), text[-1].lower()
    if rank_text not in _RANK_FROM_TEXT or suit_char not in _SUIT_FROM_CHAR:
        raise CardParseError(
            f"unknown card {token!r}: ranks are {' '.join(RANKS)} (or 10), "
            f"suits are c d h s (or ♣ ♦ ♥ ♠), a joker is '*'"
        )
    return card_id(_RANK_FROM_TEXT[rank_text], _SUIT_FROM_CHAR[suit_char])


def parse_cards(text: str | Iterable[str | int]) -> list[int]:
    """Parse a notation string (``"7h Th 2s *"``, commas allowed) or a list of tokens.

    Integers in a list are taken as card types already. Raises :class:`CardParseError`
    naming the first unknown token.
    """
    if isinstance(text, str):
        tokens: Iterable[str | int] = text.replace(",", " ").split()
    else:
        tokens = text
    cards = []
    for tok in tokens:
        if isinstance(tok, (int, np.integer)):
            if not 0 <= int(tok) < NUM_CARD_TYPES:
                raise CardParseError(f"unknown card type {int(tok)}: card types are 0..52")
            cards.append(int(tok))
        else:
            cards.append(parse_card(tok))
    return cards


def format_card(card: int, symbols: bool = False) -> str:
    """Notation of one card type: ``7h`` (or ``7♥`` with ``symbols``), ``*`` for a joker."""
    if card == JOKER:
        return "*"
    if not 0 <= card < JOKER:
        raise CardParseError(f"unknown card type {card}: card types are 0..52")
    suits = SUIT_SYMBOLS if symbols else SUITS
    return RANKS[rank_of(card)] + suits[suit_of(card)]


def format_cards(cards: Iterable[int], symbols: bool = False) -> str:
    """Notation of a list of card types, space separated."""
    return " ".join(format_card(int(c), symbols) for c in cards)


def cards_to_counts(cards: Iterable[int] | str) -> np.ndarray:
    """A counts vector (53 entries) from card types or a notation string."""
    counts = np.zeros(NUM_CARD_TYPES, dtype=np.int16)
    for c in parse_cards(cards) if isinstance(cards, str) else cards:
        counts[int(c)] += 1
    return counts


def counts_to_cards(counts: Sequence[int] | np.ndarray) -> list[int]:
    """The sorted list of card types that a counts vector holds."""
    counts = np.asarray(counts)
    if counts.shape != (NUM_CARD_TYPES,):
        raise ValueError(f"a counts vector has shape ({NUM_CARD_TYPES},), got {counts.shape}")
    if (counts < 0).any():
        raise ValueError("a counts vector cannot hold negative counts")
    return [c for c in range(NUM_CARD_TYPES) for _ in range(int(counts[c]))]


def sort_for_display(cards: Iterable[int]) -> list[int]:
    """Cards sorted by suit then rank (aces low), jokers last: how a player holds a hand."""
    return sorted(cards, key=lambda c: (c == JOKER, suit_of(c) if c != JOKER else 0, c))
