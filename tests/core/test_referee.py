"""The referee oracle: melds (RULES.md 2.1-2.4) and hand scoring (RULES.md 7)."""

from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from burako_env.cards import JOKER, RANK_ACE, RANK_TWO, card_id, parse_cards
from burako_env.referee import (
    SCORE_ITEMS,
    MeldInfo,
    TeamResult,
    canasta_bonus,
    card_value,
    classify_meld,
    run_position_card,
    score_hand,
)
from burako_env.variants import load_variant

CLUBS, DIAMONDS, HEARTS, SPADES = range(4)


def meld(cards, variant="argentine"):
    info = classify_meld(cards, variant)
    assert info is not None, f"{cards} should be a valid meld in {variant}"
    return info


def invalid(cards, variant="argentine"):
    return classify_meld(cards, variant) is None


# ------------------------------------------------------------------ the texts' examples


def test_seed_002_group_with_wild():
    info = meld("8c 8d *")
    assert (info.kind, info.clean, info.rank, info.canasta, info.size) == (
        "group",
        False,
        7,
        False,
        3,
    )
    assert info.points == 10 + 10 + 50


def test_seed_002_run_with_a_2_as_queen():
    info = meld("Jh 2c Kh Ah")
    assert (info.kind, info.clean, info.suit) == ("run", False, HEARTS)
    assert info.positions == (11, 13, 14)
    assert info.wild_position == 12  # the 2c is the Q
    assert not info.wild_at_end
    assert info.points == 10 + 20 + 10 + 15


def test_seed_002_run_with_joker_as_four():
    info = meld("Ah 2h 3h * 5h")
    assert (info.kind, info.clean, info.suit) == ("run", False, HEARTS)
    assert info.positions == (1, 2, 3, 5)  # the 2h is natural at position 2
    assert info.wild_position == 4
    assert info.points == 15 + 20 + 5 + 50 + 5


@pytest.mark.parametrize(
    ("cards", "kind", "points"),
    [("Ah 2h 3h 4h 5h 6h 7h", "run", 60), ("8c 8d 8h 8d 8h 8s 8s", "group", 70)],
)
def test_seed_002_clean_canastas(cards, kind, points):
    info = meld(cards)
    assert (info.kind, info.clean, info.canasta, info.points) == (kind, True, True, points)
    assert canasta_bonus(load_variant("argentine"), info) == 200


@pytest.mark.parametrize(
    ("cards", "kind", "points"),
    [("8h 9h Th Jh 2c Kh Ah", "run", 85), ("8c 8d 8h 2d 8h 8s 8s", "group", 80)],
)
def test_seed_002_dirty_canastas(cards, kind, points):
    info = meld(cards)
    assert (info.kind, info.clean, info.canasta, info.points) == (kind, False, True, points)
    assert canasta_bonus(load_variant("argentine"), info) == 100


@pytest.mark.parametrize("cards", ["Ah 2h 3h 4h 5h 6h 7h", "2h 3h 4h 5h 6h 7h 8h"])
def test_seed_004_clean_runs_with_natural_two(cards):
    info = meld(cards)
    assert (info.kind, info.clean, info.canasta, info.wilds) == ("run", True, True, 0)
    assert 2 in info.positions


@pytest.mark.parametrize(
    ("cards", "wild_position", "at_end"),
    [
        ("Ah 2h 3h 4h 5h 6h 2c", None, True),  # A-2-3-4-5-6-2, the second 2 another suit
        ("Ah 2h 3h 4h 5h 6h 2h", None, True),  # ... or the same suit acting as wild
        ("2h 2h 3h 4h 5h 6h 7h", None, True),
        ("Ah 2h 2h 4h 5h 6h 7h", 3, False),
        ("Ah 2h 2c 4h 5h", 3, False),  # RULES.md 2.2
    ],
)
def test_seed_004_two_twos_one_natural_one_wild(cards, wild_position, at_end):
    info = meld(cards)
    assert (info.kind, info.clean, info.suit, info.wilds) == ("run", False, HEARTS, 1)
    assert 2 in info.positions
    assert (info.wild_position, info.wild_at_end) == (wild_position, at_end)


def test_natural_wrap_refused():
    # a natural K A 2 does not exist: with a 3 there is no reading at all
    assert invalid("Kh Ah 2h 3h")
    assert invalid("Qh Kh Ah 2h 3h")
    assert invalid("Kh Ah 2h *")
    # the same three cards are only a dirty Q-K-A, the 2h acting as the Q
    info = meld("Kh Ah 2h")
    assert (info.kind, info.clean, info.positions, info.wild_at_end) == (
        "run",
        False,
        (13, 14),
        True,
    )


def test_seed_003_suited_two_comes_home():
    before = meld("3h 4h 5h 6h 7h 2h 9h")
    assert (before.kind, before.clean, before.wild_position) == ("run", False, 8)
    after = meld("3h 4h 5h 6h 7h 2h 9h 8h")
    assert (after.kind, after.clean, after.wilds) == ("run", True, 0)
    assert after.positions == (2, 3, 4, 5, 6, 7, 8, 9)


def test_seed_000_clean_run_plus_one_wild():
    # 2♠ 3♠ 4♠ 5♠ 6♠ "comodín o 2" 8♠: the 2♠ natural, the wild is the 7
    for wild in ("*", "2d", "2s"):
        info = meld(f"2s 3s 4s 5s 6s {wild} 8s", "colombian")
        assert (info.kind, info.clean, info.wild_position, info.canasta) == ("run", False, 7, True)
    assert meld("4c 6c 2c", "colombian").wild_position == 5
    assert meld("3h 2h 5h 6h 7h", "colombian").wild_position == 4


# ------------------------------------------------------------------ 2.1 groups


def test_group_basics():
    info = meld("8h 8h 8s")  # duplicates allowed
    assert (info.kind, info.clean, info.rank, info.wilds) == ("group", True, 7, 0)
    assert meld("Ac Ad Ah").rank == RANK_ACE
    assert meld("3c 3d 3h 3s").rank == 2
    assert meld("Kc Kd 2s").clean is False
    assert invalid("8h 8s")  # too few
    assert invalid("8h *")
    assert invalid("8h 8s 9s")  # mixed ranks
    assert invalid("8h 8s 9s *")


def test_group_one_wild_at_most():
    assert meld("Kc Kd Kh *").wilds == 1
    assert invalid("Kc Kd * 2c")
    assert invalid("Kc Kd * *")
    assert invalid("Kc Kd Kh 2c 2d")


def test_twos_never_form_a_normal_group():
    assert invalid("2c 2d 2h")
    assert invalid("2c 2d 2h 2s 2c")
    assert invalid("2c 2d *")
    assert invalid("2c 2d Kh")  # one natural and two wilds


# ------------------------------------------------------------------ 2.2 runs


def test_run_basics():
    assert meld("3h 4h 5h").clean
    assert meld("Ah 2h 3h").positions == (1, 2, 3)
    assert meld("Qh Kh Ah").positions == (12, 13, 14)
    assert meld("Ts Js Qs Ks As").positions == (10, 11, 12, 13, 14)
    assert invalid("3h 4h")  # too few
    assert invalid("7h 8s 9h")  # two suits
    assert invalid("7h 9h Th")  # a gap without a wild
    assert invalid("7h * Th")  # two gaps, one wild
    assert invalid("7h 7h 8h")  # a position twice
    assert invalid("Ah Ah 2h 3h")  # two aces outside the full run


def test_run_wild_in_a_gap_or_at_an_end():
    gap = meld("7h * 9h")
    assert (gap.wild_position, gap.wild_at_end, gap.positions) == (8, False, (7, 9))
    end = meld("* 3h 4h")
    assert (end.wild_position, end.wild_at_end, end.clean) == (None, True, False)
    assert meld("Qh Kh *").wild_at_end
    assert meld("Ah 2h *").wild_at_end  # A-2-(3)


def test_run_one_wild_at_most():
    assert invalid("3h 4h * 2c")
    assert invalid("3h * 5h 2c")
    assert invalid("3h 4h 5h * *")
    assert invalid("Ah 2h 2h 2h 5h")  # one natural 2, two wild 2s


def test_run_full_a_to_a():
    full = "Ah 2h 3h 4h 5h 6h 7h 8h 9h Th Jh Qh Kh Ah"
    info = meld(full)
    assert (info.kind, info.clean, info.size, info.canasta) == ("run", True, 14, True)
    assert info.positions == tuple(range(1, 15))
    assert invalid(full + " *")  # no place left for a wild
    assert invalid(full + " 2c")
    assert invalid(full + " 2h")
    # 13 naturals and a wild do fit
    assert meld("Ah 2h 3h 4h 5h 6h 7h 8h 9h Th Jh Qh *").wild_at_end
    assert meld("2h 3h 4h 5h 6h 7h 8h 9h Th Jh Qh Kh Ah *").wild_at_end
    assert meld("Ah 2h 3h 4h 5h 6h * 8h 9h Th Jh Qh Kh Ah").wild_position == 7


def test_run_suited_two_natural_only_at_position_2():
    assert meld("2h 3h 4h").clean
    assert not meld("2c 3h 4h").clean  # a 2 of another suit stays wild
    assert meld("2h 4h 5h").wild_at_end  # the 2h cannot be natural here: wild, 3 or 6
    assert meld("2h 3h 5h").wild_position == 4  # nor here: it fills the 4
    assert meld("2h 5h 6h").wild_at_end
    assert not meld("2h 3h 4h *").clean  # the 2h natural, the joker at an end
    assert invalid("2h 2h 2h 3h")


# ------------------------------------------------------------------ 2.3 canastas


def test_canasta_at_seven():
    assert not meld("3h 4h 5h 6h 7h 8h").canasta
    assert meld("3h 4h 5h 6h 7h 8h 9h").canasta
    assert not meld("9c 9d 9h 9s 9c 9d").canasta
    assert meld("9c 9d 9h 9s 9c 9d *").canasta


def test_max_meld_size():
    eight = "3h 4h 5h 6h 7h 8h 9h Th"
    assert meld(eight).size == 8  # argentine: no limit
    assert invalid(eight, "colombian")  # a baza closes at 7
    assert meld("3h 4h 5h 6h 7h 8h 9h", "colombian").canasta
    assert invalid("9c 9d 9h 9s 9c 9d 9h 9s", "colombian")
    assert meld(eight, load_variant("colombian", max_meld_size=0)).size == 8
    small = load_variant("argentine", max_meld_size=5)
    assert meld("3h 4h 5h 6h 7h", small).size == 5
    assert invalid("3h 4h 5h 6h 7h 8h", small)


# ------------------------------------------------------------------ 2.4 wild group


def test_wild_group_on_and_off():
    info = meld("2c 2d *", "colombian")
    assert (info.kind, info.clean, info.wilds, info.canasta, info.points) == (
        "wild_group",
        False,
        3,
        False,
        60,
    )
    seven = meld("2c 2d 2h 2s * * 2c", "colombian")
    assert (seven.kind, seven.canasta, seven.points) == ("wild_group", True, 140)
    assert canasta_bonus(load_variant("colombian"), seven) == 700
    assert invalid("2c *", "colombian")  # 3 or more
    assert invalid("2c 2d 2h 2s * * 2c 2d", "colombian")  # over max_meld_size
    assert invalid("2c 2d *")  # argentine: off
    assert invalid("2c 2d *", "italian")
    custom = load_variant("argentine", wild_group=True)
    assert meld("2c 2d 2h", custom).kind == "wild_group"
    assert meld("2c 2d 2h * 2s 2s 2d", custom).points == 6 * 20 + 50
    # wild_group does not change ordinary melds
    assert meld("Kc Kd *", "colombian").kind == "group"
    assert invalid("Kc * *", "colombian")


# ------------------------------------------------------------------ inputs and values


def test_input_forms_agree():
    text = "Jh 2c Kh Ah"
    info = meld(text)
    assert meld(text.split()) == info
    assert meld(parse_cards(text)) == info
    assert meld(text, load_variant("argentine")) == info


def test_points_by_variant():
    cards = "Ac 2c * 8c 3c"
    assert [card_value(c, "argentine") for c in parse_cards(cards)] == [15, 20, 50, 10, 5]
    assert [card_value(c, "italian") for c in parse_cards(cards)] == [15, 20, 30, 10, 5]
    assert [card_value(c, "colombian") for c in parse_cards(cards)] == [20, 20, 20, 10, 5]
    assert meld("8c 8d *", "italian").points == 50
    assert meld("8c 8d *", "colombian").points == 40
    assert meld("7h 8h 9h").points == 25


# ------------------------------------------------------------------ properties

OTHER_SUIT = {s: [t for t in range(4) if t != s] for s in range(4)}
GROUP_RANKS = [RANK_ACE, *range(2, 13)]


@st.composite
def generated_runs(draw):
    """A run built from positions, perhaps with one joker or foreign 2 (never a suited 2)."""
    suit = draw(st.integers(0, 3))
    low = draw(st.integers(1, 12))
    high = draw(st.integers(low + 2, 14))
    cards = [run_position_card(p, suit) for p in range(low, high + 1)]
    wild = draw(st.sampled_from([JOKER] + [card_id(RANK_TWO, s) for s in OTHER_SUIT[suit]]))
    mode = draw(st.sampled_from(["clean", "replace", "add"]))
    if mode == "replace":
        cards[draw(st.integers(0, len(cards) - 1))] = wild
    elif mode == "add" and len(cards) < 14:
        cards.append(wild)
    else:
        mode = "clean"
    return cards, suit, mode == "clean"


@st.composite
def generated_groups(draw):
    rank = draw(st.sampled_from(GROUP_RANKS))
    dirty = draw(st.booleans())
    n = draw(st.integers(2 if dirty else 3, 9))
    cards = [card_id(rank, draw(st.integers(0, 3))) for _ in range(n)]
    if dirty:
        cards.append(draw(st.sampled_from([JOKER] + [card_id(RANK_TWO, s) for s in range(4)])))
    return cards, rank, not dirty


@settings(max_examples=300, deadline=None)
@given(generated_runs(), st.data())
def test_generated_runs_valid_in_any_order(run, data):
    cards, suit, clean = run
    info = meld(cards)
    assert (info.kind, info.suit, info.clean, info.size) == ("run", suit, clean, len(cards))
    assert info.wilds == (0 if clean else 1)
    # the naturals of the reading are exactly the non-wild cards
    naturals = Counter(run_position_card(p, suit) for p in info.positions)
    assert sum(naturals.values()) + info.wilds == len(cards)
    assert not naturals - Counter(cards)
    for _ in range(3):
        assert meld(data.draw(st.permutations(cards))) == info


@settings(max_examples=200, deadline=None)
@given(generated_groups(), st.data())
def test_generated_groups_valid_in_any_order(group, data):
    cards, rank, clean = group
    info = meld(cards)
    assert (info.kind, info.rank, info.clean, info.size) == ("group", rank, clean, len(cards))
    for _ in range(3):
        assert meld(data.draw(st.permutations(cards))) == info


# cards of hearts and the wilds: where the tricky readings live
HEART_POOL = [card_id(r, HEARTS) for r in range(13)] + [JOKER, card_id(RANK_TWO, CLUBS)]


@settings(max_examples=400, deadline=None)
@given(
    st.lists(st.sampled_from(HEART_POOL), min_size=3, max_size=9),
    st.sampled_from(["argentine", "colombian"]),
    st.data(),
)
def test_any_accepted_meld_is_order_free(cards, variant, data):
    info = classify_meld(cards, variant)
    for _ in range(3):
        assert classify_meld(data.draw(st.permutations(cards)), variant) == info
    if info is not None:
        assert isinstance(info, MeldInfo)
        assert info.canasta == (len(cards) >= 7)
        assert info.clean == (info.wilds == 0)
        assert info.wilds <= 1 or info.kind == "wild_group"


# ------------------------------------------------------------------ scoring


def team(melds=(), hand="", taken=0, not_taken=0, unplayed=()):
    return TeamResult(
        melds=[parse_cards(m) for m in melds],
        hand_cards=parse_cards(hand),
        muertos_taken=taken,
        muertos_not_taken=not_taken,
        unplayed_muertos=[parse_cards(m) for m in unplayed],
    )


def items(table, bonus, going_out, taken, not_taken, hand):
    return dict(zip(SCORE_ITEMS, (table, bonus, going_out, taken, not_taken, hand), strict=True))


def check(score, expected0, expected1):
    assert score.items == (expected0, expected1)
    assert list(score.teams[0].items) == list(SCORE_ITEMS)
    assert score.totals == (sum(expected0.values()), sum(expected1.values()))


def test_score_item_keys():
    assert SCORE_ITEMS == (
        "table_cards",
        "canasta_bonus",
        "going_out",
        "muertos_taken",
        "muertos_not_taken",
        "hand_cards",
    )


def test_score_argentine_going_out():
    score = score_hand(
        "argentine",
        [
            team(["Ah 2h 3h 4h 5h 6h 7h", "8c 8d *"], taken=1),
            team(["Kc Kd Ks", "5s 6s 7s 2c 9s"], hand="* 3c Td", not_taken=1),
        ],
        went_out=0,
    )
    check(score, items(130, 200, 100, 0, 0, 0), items(75, 0, 0, 0, -100, -65))
    assert score.totals == (430, -90)


def test_score_argentine_stock_end_dirty_aces_and_long_canasta():
    score = score_hand(
        "argentine",
        [
            team(
                ["8h 9h Th Jh 2c Kh Ah", "Ac Ad Ah As Ac Ad Ah", "3c 4c 5c 6c 7c 8c 9c Tc"],
                hand="4d",
                taken=1,
            ),
            team([], hand="Qs Qs *", not_taken=1),
        ],
        went_out=None,
    )
    # 85 + 105 + 55 table; dirty 100 + aces clean 200 (plain in argentine) + clean 200
    check(score, items(245, 500, 0, 0, 0, -5), items(0, 0, 0, 0, -100, -70))
    assert score.totals == (740, -170)


def test_score_argentine_dirty_aces_is_plain_dirty():
    score = score_hand(
        "argentine", [team(["Ac Ad Ah As Ac Ad *"], taken=1), team(not_taken=1)], None
    )
    assert score.items[0]["canasta_bonus"] == 100
    assert score.items[0]["table_cards"] == 6 * 15 + 50


def test_score_italian_joker_30_and_team_1_goes_out():
    score = score_hand(
        "italian",
        [
            team(["8h 9h Th Jh * Kh Ah", "Kc Kd Ks *"], hand="2d", taken=1),
            team(["4s 5s 6s 7s 8s 9s Ts"], hand="", taken=1),
        ],
        went_out=1,
    )
    check(score, items(155, 100, 0, 0, 0, -20), items(50, 200, 100, 0, 0, 0))
    assert score.totals == (235, 350)


def test_score_brazilian_muerto_turned_into_stock():
    score = score_hand(
        "brazilian",
        [
            team(["Qc Qd Qh Qs Qc Qd Qh"], taken=1),
            team(["Jc Jd *"], hand="2s 3s", not_taken=1),
        ],
        went_out=0,
    )
    check(score, items(70, 200, 100, 0, 0, 0), items(70, 0, 0, 0, -100, -25))
    assert score.totals == (370, -55)


def test_score_canasta_card_points_off_override():
    v = load_variant("argentine", canasta_card_points=False)
    score = score_hand(
        v, [team(["Qc Qd Qh Qs Qc Qd Qh", "3h 4h 5h"], taken=1), team(not_taken=1)], 0
    )
    assert score.items[0]["table_cards"] == 15
    assert score.items[0]["canasta_bonus"] == 200


def test_score_wild_canasta_outside_colombian():
    v = load_variant("argentine", wild_group=True)
    score = score_hand(v, [team(["2c 2d 2h * 2s 2s 2d"], taken=1), team(not_taken=1)], None)
    assert score.items[0]["canasta_bonus"] == 700
    assert score.items[0]["table_cards"] == 6 * 20 + 50  # argentine counts canasta cards


def test_score_colombian_closed_canastas_aces_wilds_muerto_bonus():
    score = score_hand(
        "colombian",
        [
            team(
                ["Ac Ad Ah As Ac Ad Ah", "2c 2d 2h 2s * * 2c", "5h 6h 7h", "Kc Kd *"],
                taken=1,
            ),
            team(["Qc Qd Qh Qs Qc Qd 2h", "9s Ts Js"], hand="4c 8d *", not_taken=1),
        ],
        went_out=0,
    )
    # closed canastas score the bonus only: 400 (clean aces) + 700 (wilds); 15 + 40 on table
    check(score, items(55, 1100, 100, 100, 0, 0), items(30, 100, 0, 0, -100, -35))
    assert score.totals == (1355, -5)


def test_score_colombian_dirty_aces_and_rule_1_at_stock_end():
    score = score_hand(
        "colombian",
        [
            team(["Ac Ad Ah As Ac Ad *", "6d 7d 8d"], hand="3s", taken=1),
            team(["9s Ts Js", "Kc Kd Ks"], hand="4c 8d", not_taken=1),
        ],
        went_out=None,
    )
    # team 1 has no canasta: its table counts negative, however the hand ended
    check(score, items(20, 200, 0, 100, 0, -5), items(-60, 0, 0, 0, -100, -15))
    assert score.totals == (315, -175)


def test_score_colombian_rule_1_opponents_without_canasta():
    score = score_hand(
        "colombian",
        [
            team(["Qc Qd Qh Qs Qc Qd Qh"], taken=1),
            team(["9s Ts Js", "4h 4d 4s"], hand="Kc * 3d", taken=1),
        ],
        went_out=0,
    )
    # the muerto taken still takes 100 off team 1's negative ("se descontarán 100")
    check(score, items(0, 200, 100, 100, 0, 0), items(-45, 0, 0, 100, 0, -35))
    assert score.totals == (400, 20)


def test_score_colombian_rule_6_going_out_without_canasta():
    score = score_hand(
        "colombian",
        [
            team(["9s Ts Js", "4c 4d 4h"], hand="7c *", taken=1),
            team(["Kc Kd Ks"], hand="4s 8d *", not_taken=1),
        ],
        went_out=0,
    )
    # team 0: negative table, yet +100 going out and +100 muerto; team 1: positive table
    # without a canasta, its hand counts positive, -100 for its muerto
    check(score, items(-45, 0, 100, 100, 0, -25), items(30, 0, 0, 0, -100, 35))
    assert score.totals == (130, -35)


def test_score_colombian_rule_6_other_team_with_canasta():
    score = score_hand(
        "colombian",
        [
            team(["9s Ts Js", "4c 4d 4h"], hand="7c *", taken=1),
            team(["Qc Qd Qh Qs Qc Qd Qh", "Kc Kd Ks"], hand="8d", taken=1),
        ],
        went_out=0,
    )
    check(score, items(-45, 0, 100, 100, 0, -25), items(30, 200, 0, 100, 0, 10))
    assert score.totals == (130, 340)


def test_score_colombian_both_without_canasta_at_stock_end():
    score = score_hand(
        "colombian",
        [team(["Kc Kd Ks"], hand="3c", taken=1), team(["5h 6h 7h"], not_taken=1)],
        went_out=None,
    )
    check(score, items(-30, 0, 0, 100, 0, -5), items(-15, 0, 0, 0, -100, 0))
    assert score.totals == (65, -115)


def test_score_no_canasta_rules_off_elsewhere():
    # the same hand as rule 6, argentine values: no sign changes
    score = score_hand(
        "argentine",
        [
            team(["9s Ts Js", "4c 4d 4h"], hand="7c *", taken=1),
            team(["Kc Kd Ks"], hand="4s 8d *", not_taken=1),
        ],
        went_out=0,
    )
    check(score, items(45, 0, 100, 0, 0, -55), items(30, 0, 0, 0, -100, -65))
    # and turned on in argentine by override
    v = load_variant("argentine", no_canasta_negative=True)
    score = score_hand(
        v,
        [
            team(["9s Ts Js", "4c 4d 4h"], hand="7c *", taken=1),
            team(["Kc Kd Ks"], hand="4s 8d *", not_taken=1),
        ],
        went_out=0,
    )
    check(score, items(-45, 0, 100, 0, 0, -55), items(30, 0, 0, 0, -100, 65))


def test_score_colombian_six_and_eight_players_muertos():
    v6 = load_variant("colombian", num_players=6)
    score = score_hand(
        v6,
        [
            team(["Qc Qd Qh Qs Qc Qd Qh"], taken=2),
            team(["Jc Jd Jh Js Jc Jd *", "3h 4h 5h"], hand="Ks", taken=1, not_taken=1),
        ],
        went_out=0,
    )
    check(score, items(0, 200, 100, 200, 0, 0), items(15, 100, 0, 100, -100, -10))
    assert score.totals == (500, 105)
    v8 = load_variant("colombian", num_players=8)
    score = score_hand(
        v8,
        [team(["Qc Qd Qh Qs Qc Qd Qh"], taken=3), team(["Jc Jd Jh Js Jc Jd *"], not_taken=3)],
        went_out=0,
    )
    check(score, items(0, 200, 100, 300, 0, 0), items(0, 100, 0, 0, -300, 0))


MUERTO = "Ac 3c 4c 5c 8c 9c Tc Jc Qc Kc *"  # worth 140 in argentine, 110 in colombian


def test_score_unplayed_muerto_argentine():
    score = score_hand(
        "argentine",
        [
            team(["Qc Qd Qh Qs Qc Qd Qh"], taken=1),
            team(["Kh Kd Ks"], hand=MUERTO + " 7d 7s", unplayed=[MUERTO]),
        ],
        went_out=0,
    )
    # the muerto counts as not taken, and its 11 cards are not charged
    check(score, items(70, 200, 100, 0, 0, 0), items(30, 0, 0, 0, -100, -10))
    assert score.totals == (370, -80)


def test_score_unplayed_muerto_colombian():
    score = score_hand(
        "colombian",
        [
            team(["Qc Qd Qh Qs Qc Qd Qh"], taken=1),
            team(["Jc Jd Jh Js Jc Jd Jh"], hand="5d " + MUERTO, unplayed=[MUERTO]),
        ],
        went_out=0,
    )
    # no +100 muerto bonus for it, -100 instead
    check(score, items(0, 200, 100, 100, 0, 0), items(0, 200, 0, 0, -100, -5))
    # under rule 6 the hand counts positive, still without the unplayed muerto
    score = score_hand(
        "colombian",
        [team(["Qc Qd Qh"], taken=1), team(["Jc Jd Jh"], hand="8d " + MUERTO, unplayed=[MUERTO])],
        went_out=0,
    )
    check(score, items(-30, 0, 100, 100, 0, 0), items(30, 0, 0, 0, -100, 10))


def test_score_six_player_unplayed_second_muerto():
    v6 = load_variant("colombian", num_players=6)
    score = score_hand(
        v6,
        [
            team(["Qc Qd Qh Qs Qc Qd Qh"], taken=2),
            team(["Jc Jd Jh Js Jc Jd Jh"], hand=MUERTO, taken=1, unplayed=[MUERTO]),
        ],
        went_out=0,
    )
    assert score.items[1] == items(0, 200, 0, 100, -100, 0)


def test_score_accepts_card_type_ints():
    a = TeamResult(melds=[[0, 13, 26]], hand_cards=[52], muertos_taken=1)
    b = TeamResult(muertos_not_taken=1)
    score = score_hand("argentine", [a, b], None)
    assert score.items[0] == items(45, 0, 0, 0, 0, -50)


def test_score_errors():
    with pytest.raises(ValueError, match="not a valid meld"):
        score_hand("argentine", [team(["Kc Kd 9s"], taken=1), team(not_taken=1)], 0)
    with pytest.raises(ValueError, match="not a valid meld"):  # over max_meld_size
        score_hand("colombian", [team(["3h 4h 5h 6h 7h 8h 9h Th"], taken=1), team(not_taken=1)], 0)
    with pytest.raises(ValueError, match="per team"):  # an unplayed muerto counted twice
        score_hand(
            "argentine",
            [team(taken=1), team(hand=MUERTO, not_taken=1, unplayed=[MUERTO])],
            0,
        )
    with pytest.raises(ValueError, match="not all in hand_cards"):
        score_hand("argentine", [team(taken=1), team(hand="3c", unplayed=[MUERTO])], 0)
    with pytest.raises(ValueError, match="11 cards"):
        score_hand("argentine", [team(taken=1), team(hand="3c 4c", unplayed=["3c 4c"])], 0)
    with pytest.raises(ValueError, match="went_out"):
        score_hand("argentine", [team(taken=1), team(not_taken=1)], 2)
    with pytest.raises(ValueError, match="two teams"):
        score_hand("argentine", [team(taken=1)], None)
