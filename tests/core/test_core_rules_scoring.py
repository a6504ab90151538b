"""Rule tests of the core: scoring a hand (RULES.md 7), item by item, in every variant,
against hand-computed values and the referee's ``score_hand`` on the same table.

Items: table cards, canasta bonus, going out, muertos taken, muertos not taken, hand cards.
"""

from __future__ import annotations

import pytest
from conftest import assert_scores, do, do_discard, referee_items, sc

from burako_env.core.constants import DRAW_STOCK, END_STOCK, END_WENT_OUT, S_END_REASON
from burako_env.scenario import build_game

CLEAN = "5s 6s 7s 8s 9s Ts Js"  # 5 5 5 10 10 10 10 = 55
DIRTY = "8h 9h Th Jh Qh Kh 2c"  # 60 + 20 = 80


def went_out_game(variant, **overrides):
    """Team 0 goes out (discarding Kd) with a clean and a dirty canasta and three aces,
    its muerto taken; team 1 holds a group, cards in hand and its muerto untaken."""
    game = build_game(
        variant,
        hands={0: "Kd", 1: "* As 9d", 2: "3d 2d", 3: "4d"},
        melds={0: [CLEAN, DIRTY, "Ac Ad Ah"], 1: ["Qs Qd Qc"]},
        muertos_taken={0: 1},
        **overrides,
    )
    do_discard(game, "Kd")
    assert sc(game, S_END_REASON) == END_WENT_OUT
    return game


WENT_OUT_EXPECTED = {
    # team 0: 55 + 80 + 3 aces, 200 + 100, going out, hand 3d 2d
    # team 1: Qs Qd Qc 30, its muerto -100, hand joker + As + 9d + 4d
    "argentine": [[180, 300, 100, 0, 0, -25], [30, 0, 0, 0, -100, -(50 + 15 + 10 + 5)]],
    "italian": [[180, 300, 100, 0, 0, -25], [30, 0, 0, 0, -100, -(30 + 15 + 10 + 5)]],
    "brazilian": [[180, 300, 100, 0, 0, -25], [30, 0, 0, 0, -100, -(50 + 15 + 10 + 5)]],
    # colombian: canastas score their bonus only (aces 20 each), +100 for the muerto,
    # team 1 has no canasta: its table is negative (rule 1)
    "colombian": [[60, 300, 100, 100, 0, -25], [-30, 0, 0, 0, -100, -(20 + 20 + 10 + 5)]],
}


@pytest.mark.parametrize("variant", list(WENT_OUT_EXPECTED))
def test_scoring_went_out(variant):
    assert_scores(went_out_game(variant), 0, WENT_OUT_EXPECTED[variant])


def stock_end_game(variant, players=None, **kwargs):
    """Seat 0 draws the last stock card and discards it: the hand ends by the stock."""
    kwargs.setdefault("hands", {0: "Kd", 1: "9d"})
    kwargs.setdefault("melds", {0: [CLEAN, "Qs Qd Qh"], 1: ["5h 6h 7h"]})
    game = build_game(variant, players, stock="Jh", phase="draw", **kwargs)
    do(game, DRAW_STOCK)
    do_discard(game, "Jh")
    assert sc(game, S_END_REASON) == END_STOCK
    return game


STOCK_END_EXPECTED = {
    "argentine": [[85, 200, 0, 0, -100, -10], [15, 0, 0, 0, -100, -10]],
    "italian": [[85, 200, 0, 0, -100, -10], [15, 0, 0, 0, -100, -10]],
    "brazilian": [[85, 200, 0, 0, -100, -10], [15, 0, 0, 0, -100, -10]],
    # rule 1 at a stock end too: team 1 (no canasta) scores its table negative
    "colombian": [[30, 200, 0, 0, -100, -10], [-15, 0, 0, 0, -100, -10]],
}


@pytest.mark.parametrize("variant", list(STOCK_END_EXPECTED))
def test_scoring_stock_end(variant):
    overrides = {"muerto_refills_stock": False} if variant == "brazilian" else {}
    assert_scores(stock_end_game(variant, **overrides), None, STOCK_END_EXPECTED[variant])


def test_a_wild_in_the_gap_of_a_run_scores_as_the_wild():
    # 5h 2c 7h: the 2c stands for the 6h, which is not on the table and scores nothing
    game = stock_end_game("argentine", melds={0: [CLEAN, "Qs Qd Qh", "5h 2c 7h"], 1: ["5h 6h 7h"]})
    # team 0's table: 55 + 30 + (5 + 20 + 5)
    assert_scores(game, None, [[115, 200, 0, 0, -100, -10], [15, 0, 0, 0, -100, -10]])


# ====================================================================== colombian specials
@pytest.mark.parametrize(
    ("meld_text", "bonus"),
    [
        ("Ac Ac Ad Ad Ah Ah As", 400),  # clean canasta of aces
        ("Ac Ac Ad Ad Ah Ah 2s", 200),  # dirty canasta of aces
        ("2c 2c 2d 2d 2h 2h *", 700),  # wild canasta
        (CLEAN, 200),
        ("8h 9h Th Jh Qh Kh 2s", 100),
        # a run of clubs: suit 0, whose key equals the aces' rank 0; no canasta of aces
        ("5c 6c 7c 8c 9c Tc Jc", 200),
    ],
)
def test_colombian_canasta_bonuses(meld_text, bonus):
    game = stock_end_game(
        "colombian", hands={0: "Kd", 1: "9d"}, melds={0: [meld_text], 1: ["5h 6h 7h"]}
    )
    # the canasta's cards do not count: only its bonus
    assert_scores(game, None, [[0, bonus, 0, 0, -100, -10], [-15, 0, 0, 0, -100, -10]])


# A run's key is its suit, a group's its rank, and clubs (suit 0) share the number 0 with
# aces (rank 0): only the meld's kind tells a run of clubs from a group of aces. Seed 000
# pays 400 / 200 for a canasta of aces only; a run of clubs is a canasta "de cualquier
# denominación", 200 clean and 100 dirty, the same as a run of any other suit.
@pytest.mark.parametrize(
    ("meld_text", "bonus"),
    [
        ("3c 4c 5c 6c 7c 8c 9c", 200),  # clean run of clubs
        ("3c 4c 5c 6c 7c 8c 2h", 100),  # dirty run of clubs (a 2 of hearts as its 9)
        ("Ac 2c 3c 4c 5c 6c 7c", 200),  # clean run of clubs from the ace: still no aces bonus
        ("3d 4d 5d 6d 7d 8d 9d", 200),  # the same runs in diamonds
        ("3d 4d 5d 6d 7d 8d 2h", 100),
    ],
)
def test_colombian_run_of_clubs_scores_the_plain_canasta_bonus(meld_text, bonus):
    game = stock_end_game(
        "colombian", hands={0: "Kd", 1: "9d"}, melds={0: [meld_text], 1: ["5h 6h 7h"]}
    )
    assert_scores(game, None, [[0, bonus, 0, 0, -100, -10], [-15, 0, 0, 0, -100, -10]])


@pytest.mark.parametrize(
    ("variant", "overrides", "meld_text", "bonus"),
    [
        ("argentine", {"clean_aces_canasta": 400}, "Ac Ac Ad Ad Ah Ah As", 400),
        ("argentine", {"dirty_aces_canasta": 250}, "Ac Ac Ad Ad Ah Ah 2s", 250),
        ("colombian", {"clean_aces_canasta": 200}, "Ac Ac Ad Ad Ah Ah As", 200),
        ("colombian", {"wild_canasta": 500}, "2c 2c 2d 2d 2h 2h *", 500),
        ("colombian", {"dirty_canasta": 150}, "8h 9h Th Jh Qh Kh 2s", 150),
    ],
)
def test_canasta_bonus_parameters(variant, overrides, meld_text, bonus):
    game = stock_end_game(
        variant,
        hands={0: "Kd", 1: "9d"},
        melds={0: [meld_text], 1: ["5h 6h 7h"]},
        **overrides,
    )
    assert game.score_items[0, 0, 1] == bonus
    assert [[int(x) for x in game.score_items[0, t]] for t in range(2)] == referee_items(game, None)


def test_aces_bonus_only_in_colombian():
    game = stock_end_game(
        "argentine", hands={0: "Kd", 1: "9d"}, melds={0: ["Ac Ac Ad Ad Ah Ah As"], 1: ["5h 6h 7h"]}
    )
    assert_scores(game, None, [[105, 200, 0, 0, -100, -10], [15, 0, 0, 0, -100, -10]])


@pytest.mark.parametrize("other_canasta", [False, True])
def test_colombian_rule_6_going_out_without_a_canasta(other_canasta):
    """Team 0 goes out with no canasta: its table is negative (less the bonuses); team 1
    scores its table and its hand cards positive, and -100 for its muerto."""
    team1 = ["5h 6h 7h"] + ([CLEAN] if other_canasta else [])
    game = build_game(
        "colombian",
        hands={0: "Kd", 1: "* 9d", 2: "3d", 3: "4d"},
        melds={0: ["Qs Qd Qh"], 1: team1},
        muertos_taken={0: 1},
    )
    do_discard(game, "Kd")
    bonus = 200 if other_canasta else 0
    assert_scores(game, 0, [[-30, 0, 100, 100, 0, -5], [15, bonus, 0, 0, -100, 20 + 10 + 5]])


def test_colombian_six_players_muertos_taken_and_not():
    game = stock_end_game(
        "colombian",
        6,
        hands={0: "Kd", 1: "9d", 4: "4d"},
        melds={0: [CLEAN], 1: ["5h 6h 7h"]},
        muertos_taken={0: 2, 1: 1},
    )
    assert_scores(game, None, [[0, 200, 0, 200, 0, -15], [-15, 0, 0, 100, -100, -10]])


# ====================================================================== parameters on / off
@pytest.mark.parametrize(
    ("variant", "overrides", "expected"),
    [
        # canasta_card_points on in colombian: the clean canasta's 55 counts
        (
            "colombian",
            {"canasta_card_points": True},
            [[85, 200, 0, 0, -100, -10], [-15, 0, 0, 0, -100, -10]],
        ),
        (
            "argentine",
            {"canasta_card_points": False},
            [[30, 200, 0, 0, -100, -10], [15, 0, 0, 0, -100, -10]],
        ),
        # no_canasta_negative on in argentine, off in colombian
        (
            "argentine",
            {"no_canasta_negative": True},
            [[85, 200, 0, 0, -100, -10], [-15, 0, 0, 0, -100, -10]],
        ),
        (
            "colombian",
            {"no_canasta_negative": False},
            [[30, 200, 0, 0, -100, -10], [15, 0, 0, 0, -100, -10]],
        ),
        # the bonuses and the muerto penalty as parameters
        (
            "argentine",
            {"clean_canasta": 300, "muerto_not_taken": -150},
            [[85, 300, 0, 0, -150, -10], [15, 0, 0, 0, -150, -10]],
        ),
        # card values
        (
            "argentine",
            {"value_high": 20, "value_low": 1},
            [[3 + 80 + 60, 200, 0, 0, -100, -20], [3, 0, 0, 0, -100, -20]],
        ),
    ],
)
def test_scoring_parameters(variant, overrides, expected):
    assert_scores(stock_end_game(variant, **overrides), None, expected)


@pytest.mark.parametrize(
    ("variant", "overrides"),
    [
        ("argentine", {"muerto_taken_bonus": 100}),
        ("colombian", {"muerto_taken_bonus": 0}),
        ("argentine", {"going_out_bonus": 0}),
        ("colombian", {"going_out_bonus": 250}),
        ("argentine", {"dirty_canasta": 150}),
    ],
)
def test_going_out_and_muerto_bonus_parameters(variant, overrides):
    game = went_out_game(variant, **overrides)
    expected = [list(row) for row in WENT_OUT_EXPECTED[variant]]
    expected[0][1] = 200 + overrides.get("dirty_canasta", 100)
    expected[0][2] = overrides.get("going_out_bonus", 100)
    expected[0][3] = overrides.get("muerto_taken_bonus", expected[0][3])
    assert_scores(game, 0, expected)
