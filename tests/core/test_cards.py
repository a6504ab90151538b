"""Cards and their notation (RULES.md section 1)."""

import re

import numpy as np
import pytest

from burako_env.cards import (
    JOKER,
    NUM_CARD_TYPES,
    CardParseError,
    card_id,
    cards_to_counts,
    counts_to_cards,
    format_card,
    format_cards,
    is_wild,
    parse_card,
    parse_cards,
    rank_of,
    sort_for_display,
    suit_of,
)

CLUBS, DIAMONDS, HEARTS, SPADES = range(4)


@pytest.mark.parametrize(
    ("token", "expected"),
    [
        ("7h", HEARTS * 13 + 6),
        ("Ac", 0),
        ("2c", 1),
        ("Kc", 12),
        ("Ad", 13),
        ("Ks", 51),
        ("Th", HEARTS * 13 + 9),
        ("10h", HEARTS * 13 + 9),
        ("T♥", HEARTS * 13 + 9),
        ("10♥", HEARTS * 13 + 9),
        ("th", HEARTS * 13 + 9),
        ("TH", HEARTS * 13 + 9),
        ("qS", SPADES * 13 + 11),
        ("J♣", CLUBS * 13 + 10),
        ("9♦", DIAMONDS * 13 + 8),
        ("*", JOKER),
    ],
)
def test_parse_card(token, expected):
    assert parse_card(token) == expected


def test_card_id_layout():
    assert card_id(0, 0) == 0
    assert card_id(12, 3) == 51
    assert JOKER == 52 and NUM_CARD_TYPES == 53
    assert (suit_of(40), rank_of(40)) == (3, 1)  # 2s
    assert format_card(card_id(6, HEARTS)) == "7h"


def test_parse_cards_string_commas_tokens_and_ints():
    assert parse_cards("7h Th 2s *") == [32, 35, 40, 52]
    assert parse_cards("7h, Th,2s , *") == [32, 35, 40, 52]
    assert parse_cards(["7h", "10h", "2s", "*"]) == [32, 35, 40, 52]
    assert parse_cards([32, np.int64(35), 40, 52]) == [32, 35, 40, 52]
    assert parse_cards("") == []


@pytest.mark.parametrize("token", ["Xh", "7x", "11h", "h", "7", "**", "1o"])
def test_unknown_token_raises_naming_it(token):
    with pytest.raises(CardParseError, match=re.escape(repr(token))):
        parse_cards(f"Ah {token} 3c")


def test_unknown_card_type_raises():
    with pytest.raises(CardParseError, match="53"):
        parse_cards([0, 53])
    with pytest.raises(CardParseError, match="-1"):
        parse_cards([-1])
    with pytest.raises(CardParseError):
        format_card(53)


def test_parse_error_is_a_value_error():
    with pytest.raises(ValueError):
        parse_card("Zz")


def test_format_round_trip_every_card():
    every = list(range(NUM_CARD_TYPES))
    text = format_cards(every)
    assert text.split()[:3] == ["Ac", "2c", "3c"]
    assert text.split()[-1] == "*"
    assert parse_cards(text) == every
    assert parse_cards(format_cards(every, symbols=True)) == every
    assert format_cards(parse_cards("Th 10h T♥")) == "Th Th Th"
    assert format_cards([card_id(9, HEARTS)], symbols=True) == "T♥"


def test_counts_vectors():
    counts = cards_to_counts("Ah Ah * 7h 2c *")
    assert counts.shape == (NUM_CARD_TYPES,)
    assert counts.sum() == 6
    assert counts[card_id(0, HEARTS)] == 2
    assert counts[JOKER] == 2
    assert counts[card_id(6, HEARTS)] == 1
    assert counts[card_id(1, CLUBS)] == 1
    assert counts_to_cards(counts) == sorted(parse_cards("Ah Ah * 7h 2c *"))
    assert (cards_to_counts([1, 1, 52]) == cards_to_counts("2c 2c *")).all()


def test_counts_to_cards_rejects_bad_vectors():
    with pytest.raises(ValueError, match="shape"):
        counts_to_cards(np.zeros(52, dtype=int))
    bad = np.zeros(NUM_CARD_TYPES, dtype=int)
    bad[3] = -1
    with pytest.raises(ValueError, match="negative"):
        counts_to_cards(bad)


def test_is_wild():
    assert is_wild(JOKER)
    assert all(is_wild(card_id(1, s)) for s in range(4))
    assert not any(is_wild(card_id(r, s)) for r in range(13) if r != 1 for s in range(4))


def test_sort_for_display():
    assert format_cards(sort_for_display(parse_cards("* Ks 2c Ah 3c"))) == "2c 3c Ah Ks *"
