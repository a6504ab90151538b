"""The rules in words (burako_env/frontends/rules_text.py): ``burako rules`` and the web
table's rules page print :func:`rules_summary`; each named variant's opening and going-out
rules must read as that variant plays them."""

from __future__ import annotations

import pytest

from burako_env.frontends.rules_text import rules_summary
from burako_env.variants import load_variant

PEEK = "the first player looks at the top card of the stock"
UPCARD = "the dealer turns one card up as the pile"


@pytest.mark.parametrize(
    ("variant", "says", "not_says"),
    [
        # peek openings; going out with any canasta, by melding or by the discard
        (
            "argentine",
            [PEEK, "when their team has a canasta."],
            [UPCARD, "must be done by a discard", "may not be a wild"],
        ),
        # the upcard opening; going out only by a discard that is not a wild
        (
            "italian",
            [
                UPCARD,
                "going out must be done by a discard; the last discard may not be a wild.",
            ],
            [PEEK],
        ),
        # going out needs a clean canasta; a peek first hand, an upcard later
        ("brazilian", [PEEK, UPCARD, "when their team has a clean canasta."], []),
        # going out with no canasta at all
        ("colombian", [PEEK, "when they like (without a canasta the table scores negative)"], []),
    ],
)
def test_rules_summary_states_each_variants_opening_and_going_out(variant, says, not_says):
    # the paragraphs are wrapped for the terminal: the words read across the line breaks
    text = " ".join(rules_summary(load_variant(variant, num_players=4)).split())
    for words in says:
        assert words in text, (variant, words)
    for words in not_says:
        assert words not in text, (variant, words)


@pytest.mark.parametrize(
    ("variant", "says"),
    [
        ("argentine", "a team may not hold two groups of the same rank"),
        # colombian: unique_group_rank table
        ("colombian", "nobody may open a group of a rank already grouped on the table"),
    ],
)
def test_rules_summary_states_whose_groups_a_rank_may_not_repeat(variant, says):
    text = " ".join(rules_summary(load_variant(variant, num_players=4)).split())
    assert says in text
