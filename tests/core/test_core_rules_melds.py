"""Rule tests of the core: melds on the table (RULES.md 2, as the turn of section 4 uses
them): where a run's wild stands, the suited 2, no wrap, one wild, unique group ranks,
closed melds and the colombian wild group."""

from __future__ import annotations

import pytest
from conftest import (
    VARIANTS,
    card,
    cards,
    do,
    do_add,
    do_discard,
    do_open,
    hand,
    legal,
    meld,
    melds,
    open_action,
    refused,
    row,
)

from burako_env.cards import parse_cards
from burako_env.core.actions import add_action, decode_action, open_actions_for
from burako_env.core.constants import (
    ERR_DOES_NOT_FIT,
    ERR_MELD_CLOSED,
    ERR_RANK_TAKEN,
    ERR_VARIANT_OFF,
    ERR_WILD_GROUP_OPEN,
    JOKER,
    MELD_WILD_GROUP,
    MF_GAP,
    MF_HI,
    MF_KIND,
    MF_LO,
    MF_SIZE,
    MF_WILD,
    NUM_MELD_FIELDS,
    OPEN_WILD_GROUP_BASE,
)
from burako_env.scenario import build_game

NOT_COLOMBIAN = ("argentine", "italian", "brazilian")


def run_fields(game, slot, team=0):
    r = row(game, team, slot)
    return int(r[MF_LO]), int(r[MF_HI]), int(r[MF_GAP]), int(r[MF_WILD]), int(r[MF_SIZE])


# ====================================================================== the suited 2
@pytest.mark.parametrize("variant", NOT_COLOMBIAN)
def test_suited_two_comes_home_seed_003(variant):
    # seed 003: 3 4 5 6 7 2h 9 + 8h -> 2 3 4 5 6 7 8 9, clean
    game = build_game(variant, hands={0: "8h Kd Qs"}, melds={0: ["3h 4h 5h 6h 7h 2h 9h"]})
    assert run_fields(game, 0) == (3, 9, 8, card("2h"), 7)  # the 2h is the 8
    do_add(game, "8h", 0)
    assert meld(game, 0, 0) == cards("2h 3h 4h 5h 6h 7h 8h 9h")
    assert run_fields(game, 0) == (2, 9, 0, -1, 8)  # clean: no wild left
    assert hand(game, 0) == cards("Kd Qs")


def test_suited_two_comes_home_colombian():
    # the seed's 7-card run is closed in colombian (max_meld_size 7): the same with 4 cards
    game = build_game("colombian", hands={0: "8h Kd Qs"}, melds={0: ["3h 4h 5h 6h 7h 2h 9h"]})
    refused(game, add_action(card("8h"), 0), ERR_MELD_CLOSED)
    game = build_game("colombian", hands={0: "5h Kd Qs"}, melds={0: ["3h 4h 2h 6h"]})
    assert run_fields(game, 0) == (3, 6, 5, card("2h"), 4)
    do_add(game, "5h", 0)
    assert run_fields(game, 0) == (2, 6, 0, -1, 5)
    assert meld(game, 0, 0) == cards("2h 3h 4h 5h 6h")


@pytest.mark.parametrize("variant", VARIANTS)
def test_suited_two_at_an_end_comes_home_when_the_3_arrives(variant):
    game = build_game(variant, hands={0: "3h Kd Qs"}, melds={0: ["4h 5h 6h 2h"]})
    assert run_fields(game, 0) == (4, 6, 0, card("2h"), 4)  # dirty, the 2h at an end
    do_add(game, "3h", 0)
    assert run_fields(game, 0) == (2, 6, 0, -1, 5)


@pytest.mark.parametrize("variant", VARIANTS)
def test_suited_two_opened_next_to_the_3_is_natural(variant):
    # the template "pair + wild at an end" with the 2h next to 3h 4h opens clean 2 3 4
    (a,) = [a for a in open_actions_for(parse_cards("3h 4h 2h")) if decode_action(a).wild >= 0]
    game = build_game(variant, hands={0: "3h 4h 2h Kd Qs"}, melds={0: ["Kh Ks Kc"]})
    do(game, a)
    assert run_fields(game, 1) == (2, 4, 0, -1, 3)
    # a foreign 2 stays a wild: 3h 4h 2c is dirty
    game = build_game(variant, hands={0: "3h 4h 2c Kd Qs"}, melds={0: ["Kh Ks Kc"]})
    do_open(game, "3h 4h 2c")
    assert run_fields(game, 1) == (3, 4, 0, card("2c"), 3)


@pytest.mark.parametrize("variant", VARIANTS)
def test_suited_two_in_the_gap_at_position_2_is_natural(variant):
    game = build_game(variant, hands={0: "Ah 2h 3h Kd Qs"}, melds={0: ["Kh Ks Kc"]})
    do(game, open_action("Ah 2h 3h", gap=True))
    assert run_fields(game, 1) == (1, 3, 0, -1, 3)


@pytest.mark.parametrize("variant", VARIANTS)
def test_a_run_with_the_wild_in_the_gap_opens_without_the_middle_card(variant):
    # the legal list offers the gapped opening from the two ends and a wild alone
    # (docs/TESTING.md: the enumeration read the wrong positions and no test saw it)
    game = build_game(variant, hands={0: "5h 7h * Kd Qs"}, melds={0: ["Kh Ks Kc"]})
    do(game, open_action("5h * 7h", gap=True))
    assert run_fields(game, 1) == (5, 7, 6, JOKER, 3)


@pytest.mark.parametrize("variant", VARIANTS)
def test_two_twos_in_a_run_seed_004(variant):
    # seed 004: A-2-2-4-5-6-7: the 2h natural at 2, the 2c wild as the 3
    game = build_game(variant, hands={0: "3h 6h Kd Qs"}, melds={0: ["Ah 2h 2c 4h 5h"]})
    assert run_fields(game, 0) == (1, 5, 3, card("2c"), 5)
    do_add(game, "6h", 0)
    assert run_fields(game, 0) == (1, 6, 3, card("2c"), 6)
    # the 3h takes the gap: the 2c goes to an end, still the run's one wild
    do_add(game, "3h", 0)
    assert run_fields(game, 0) == (1, 6, 0, card("2c"), 7)
    assert meld(game, 0, 0) == cards("Ah 2h 2c 3h 4h 5h 6h")


# ====================================================================== where the wild stands
@pytest.mark.parametrize("variant", VARIANTS)
def test_gap_wild_moves_to_the_end_when_its_natural_comes(variant):
    game = build_game(variant, hands={0: "8h 5h 6h Th Jh Kd Qs"}, melds={0: ["7h * 9h"]})
    assert run_fields(game, 0) == (7, 9, 8, JOKER, 3)
    # with the joker in the gap, the run grows only by adjacent naturals
    for c in ("8h", "6h", "Th"):
        assert add_action(card(c), 0) in legal(game)
    for c in ("5h", "Jh"):
        refused(game, add_action(card(c), 0), ERR_DOES_NOT_FIT)
    do_add(game, "8h", 0)
    assert run_fields(game, 0) == (7, 9, 0, JOKER, 4)  # 7 8 9, the joker at an end
    # a wild at an end is never pinned: it can be the 6 or the T, so 5h and Jh fit now
    for c in ("5h", "6h", "Th", "Jh"):
        assert add_action(card(c), 0) in legal(game)
    do_add(game, "Jh", 0)
    assert run_fields(game, 0) == (7, 11, 10, JOKER, 5)  # 7 8 9 * J
    do_add(game, "Th", 0)
    assert run_fields(game, 0) == (7, 11, 0, JOKER, 6)
    do_add(game, "5h", 0)
    assert run_fields(game, 0) == (5, 11, 6, JOKER, 7)  # 5 * 7 8 9 T J
    assert meld(game, 0, 0) == cards("5h 7h 8h 9h Th Jh *")
    assert hand(game, 0) == cards("6h Kd Qs")


@pytest.mark.parametrize("variant", VARIANTS)
def test_wild_added_to_a_clean_run_stands_at_an_end(variant):
    game = build_game(variant, hands={0: "* 4h Kd Qs"}, melds={0: ["5h 6h 7h"]})
    do_add(game, "*", 0)
    assert run_fields(game, 0) == (5, 7, 0, JOKER, 4)
    do_add(game, "4h", 0)
    assert run_fields(game, 0) == (4, 7, 0, JOKER, 5)


# ====================================================================== no wrap
@pytest.mark.parametrize("variant", VARIANTS)
def test_natural_k_a_2_wrap_is_refused(variant):
    # Q K A + 2h: the 2h cannot be natural after the ace, it is a wild
    game = build_game(variant, hands={0: "2h Kd Qs"}, melds={0: ["Qh Kh Ah"]})
    assert run_fields(game, 0) == (12, 14, 0, -1, 3)
    do_add(game, "2h", 0)
    assert run_fields(game, 0) == (12, 14, 0, card("2h"), 4)  # dirty
    # A 2 3 takes no K below the ace
    game = build_game(variant, hands={0: "Kh Qh Kd Qs"}, melds={0: ["Ah 2h 3h"]})
    assert run_fields(game, 0) == (1, 3, 0, -1, 3)
    refused(game, add_action(card("Kh"), 0), ERR_DOES_NOT_FIT)
    # no template opens a clean K A 2: the only opening of these cards is dirty
    (a,) = open_actions_for(parse_cards("Kh Ah 2h"))
    assert decode_action(a).wild == card("2h")
    game = build_game(variant, hands={0: "Kh Ah 2h 3h Kd Qs"}, melds={0: ["Ks Kc Kd"]})
    do(game, a)
    assert run_fields(game, 1) == (13, 14, 0, card("2h"), 3)
    # Kh Ah 2h 3h has no reading at all
    refused(game, add_action(card("3h"), 1), ERR_DOES_NOT_FIT)


@pytest.mark.parametrize("variant", NOT_COLOMBIAN)
def test_both_aces_make_the_longest_run(variant):
    game = build_game(
        variant, hands={0: "Ah * Kd Qs"}, melds={0: ["Ah 2h 3h 4h 5h 6h 7h 8h 9h Th Jh Qh Kh"]}
    )
    do_add(game, "Ah", 0)
    assert run_fields(game, 0) == (1, 14, 0, -1, 14)
    refused(game, add_action(JOKER, 0), ERR_DOES_NOT_FIT)  # no place left for a wild
    game = build_game(
        variant, hands={0: "Ah * Kd Qs"}, melds={0: ["Ah 2h 3h 4h 5h 6h 7h 8h 9h Th Jh Qh Kh"]}
    )
    do_add(game, "*", 0)  # the joker stands as the high ace
    assert run_fields(game, 0) == (1, 13, 0, JOKER, 14)
    refused(game, add_action(card("Ah"), 0), ERR_DOES_NOT_FIT)


@pytest.mark.parametrize("variant", NOT_COLOMBIAN)
def test_the_gap_of_a_run_of_fourteen_cannot_be_filled(variant):
    # the natural would send the joker to an end, and the run already spans A to A
    game = build_game(
        variant,
        hands={0: "7h Kd Qs"},
        melds={0: ["Ah 2h 3h 4h 5h 6h * 8h 9h Th Jh Qh Kh Ah"]},
    )
    assert run_fields(game, 0) == (1, 14, 7, JOKER, 14)
    refused(game, add_action(card("7h"), 0), ERR_DOES_NOT_FIT)


# ====================================================================== one wild
@pytest.mark.parametrize("variant", VARIANTS)
def test_at_most_one_wild_per_meld(variant):
    game = build_game(
        variant,
        hands={0: "2c 2d 8c 4h Kd Qs"},
        melds={0: ["8h 8s *", "5h 6h 7h *"]},
    )
    refused(game, add_action(card("2c"), 0), ERR_DOES_NOT_FIT)
    refused(game, add_action(card("2c"), 1), ERR_DOES_NOT_FIT)
    refused(game, add_action(card("2d"), 1), ERR_DOES_NOT_FIT)
    do_add(game, "8c", 0)
    do_add(game, "4h", 1)
    assert melds(game, 0) == [cards("8h 8s 8c *"), cards("4h 5h 6h 7h *")]
    # the action space has no opening with two wilds
    assert open_actions_for(parse_cards("8h 2c *")) == []
    assert open_actions_for(parse_cards("5h 2c *")) == []


@pytest.mark.parametrize("variant", VARIANTS)
def test_run_wild_plus_natural_two(variant):
    # 3h 4h 5h * takes the 2h as a natural at position 2 although it has a wild
    game = build_game(variant, hands={0: "2h 2d Kd Qs"}, melds={0: ["3h 4h 5h *"]})
    refused(game, add_action(card("2d"), 0), ERR_DOES_NOT_FIT)
    do_add(game, "2h", 0)
    assert run_fields(game, 0) == (2, 5, 0, JOKER, 5)


@pytest.mark.parametrize("variant", VARIANTS)
def test_group_duplicates_most_held_suit_first(variant):
    game = build_game(variant, hands={0: "8h 8h 8s 8d Kd Qs"}, melds={0: ["5s 6s 7s"]})
    do_open(game, "8h 8h 8d")  # the action names the rank; the engine picks the suits
    assert meld(game, 0, 1) == cards("8d 8h 8h")
    assert hand(game, 0) == cards("8s Kd Qs")


@pytest.mark.parametrize("variant", NOT_COLOMBIAN)
def test_clean_canasta_made_dirty(variant):
    game = build_game(variant, hands={0: "* Kd Qs"}, melds={0: ["5s 6s 7s 8s 9s Ts Js"]})
    assert row(game, 0, 0)[MF_WILD] == -1
    do_add(game, "*", 0)
    assert run_fields(game, 0) == (5, 11, 0, JOKER, 8)


# ====================================================================== unique_group_rank
@pytest.mark.parametrize(
    ("variant", "overrides", "rule"),
    [
        ("argentine", {}, "team"),
        ("italian", {}, "team"),
        ("brazilian", {}, "team"),
        ("colombian", {}, "table"),
        ("argentine", {"unique_group_rank": "table"}, "table"),
        ("colombian", {"unique_group_rank": "team"}, "team"),
    ],
)
def test_unique_group_rank(variant, overrides, rule):
    game = build_game(
        variant,
        hands={0: "8c 8d 8s Kc Kh Ks 5h 6h 7h 8h Qd"},
        melds={0: ["8h 8s 8d", "5h 6h 7h"], 1: ["Kd Ks Kd"]},
        **overrides,
    )
    # a second group of 8s for team 0: never
    refused(game, open_action("8c 8d 8s"), ERR_RANK_TAKEN)
    # Ks stand in the other team's melds: allowed by "team", refused by "table"
    if rule == "team":
        do_open(game, "Kc Kh Ks")
        assert melds(game, 0)[2] == cards("Kc Kh Ks")
    else:
        refused(game, open_action("Kc Kh Ks"), ERR_RANK_TAKEN)
    # runs may repeat
    do_open(game, "5h 6h 7h")
    assert melds(game, 0).count(cards("5h 6h 7h")) == 2
    # adding to the existing group is fine
    do_add(game, "8c", 0)
    assert meld(game, 0, 0) == cards("8c 8h 8s 8d")


# ====================================================================== max_meld_size
@pytest.mark.parametrize(
    ("variant", "overrides", "closed"),
    [
        ("colombian", {}, True),
        ("argentine", {}, False),
        ("italian", {}, False),
        ("brazilian", {}, False),
        ("argentine", {"max_meld_size": 7}, True),
        ("colombian", {"max_meld_size": 0}, False),
    ],
)
def test_max_meld_size_closes_a_meld(variant, overrides, closed):
    game = build_game(
        variant,
        hands={0: "8d * Th Kd Qs"},
        melds={0: ["8h 8s 8s 8c 8c 8d", "3h 4h 5h 6h 7h 8h 9h"]},
        **overrides,
    )
    assert [len(m) for m in melds(game, 0)] == [6, 7]
    do_add(game, "8d", 0)  # the group reaches 7
    # the observation's closed flag of the own team's first meld
    assert game.observe_one(0)[game.layout.melds + NUM_MELD_FIELDS + 2] == closed
    if closed:
        refused(game, add_action(JOKER, 0), ERR_MELD_CLOSED)
        refused(game, add_action(card("Th"), 1), ERR_MELD_CLOSED)
        assert [len(m) for m in melds(game, 0)] == [7, 7]
    else:
        do_add(game, "*", 0)
        do_add(game, "Th", 1)
        assert [len(m) for m in melds(game, 0)] == [8, 8]


# ====================================================================== the wild group
def test_colombian_wild_group_open_fill_and_close():
    game = build_game(
        "colombian",
        hands={0: "2c 2d * * 2h 2s 2c Kh Kd Ks 9h 9d 5s 6s 7s Qd Qd"},
        melds={0: ["8h 8s 8d"], 1: ["Jh Js Jd"]},
    )
    combos = [a for a in legal(game) if decode_action(a).kind == "open_wild_group"]
    assert len(combos) > 0
    want = open_action("2c 2d *")
    assert want >= OPEN_WILD_GROUP_BASE
    do(game, want)
    assert row(game, 0, 1)[MF_KIND] == MELD_WILD_GROUP
    assert meld(game, 0, 1) == cards("2c 2d *")
    # while it is open: no wild to another meld, no opening with a wild, no second one
    refused(game, add_action(JOKER, 0), ERR_WILD_GROUP_OPEN)
    refused(game, open_action("9h 9d *"), ERR_WILD_GROUP_OPEN)
    refused(game, open_action("5s 6s *"), ERR_WILD_GROUP_OPEN)
    refused(game, open_action("* 2h 2s"), ERR_WILD_GROUP_OPEN)
    # clean openings and naturals are fine; a natural does not fit the wild group
    refused(game, add_action(card("Kh"), 1), ERR_DOES_NOT_FIT)
    do_open(game, "Kh Kd Ks")
    # fill it to 7
    for c in ("*", "2h", "2s", "2c"):
        do_add(game, c, 1)
    assert meld(game, 0, 1) == cards("2c 2c 2d 2h 2s * *")
    assert row(game, 0, 1)[MF_SIZE] == 7
    # closed at 7: it takes nothing more, and wilds may go elsewhere again
    assert hand(game, 0) == cards("9h 9d 5s 6s 7s Qd Qd")


def test_colombian_wild_group_closed_frees_the_wilds():
    game = build_game(
        "colombian",
        hands={0: "2h * 9h 9d 5s 6s Qd"},
        melds={0: ["8h 8s 8d", "2c 2c 2d 2d 2s 2s *"]},
    )
    refused(game, add_action(card("2h"), 1), ERR_MELD_CLOSED)
    do_add(game, "*", 0)
    assert meld(game, 0, 0) == cards("8h 8s 8d *")
    do_open(game, "5s 6s 2h")
    assert meld(game, 0, 2) == cards("5s 6s 2h")


def test_colombian_wild_group_restricts_only_its_team():
    game = build_game(
        "colombian",
        hands={0: "Qd Qs", 1: "* 9h 9d Kd"},
        melds={0: ["2c 2d *"], 1: ["8h 8s 8d"]},
        player=1,
    )
    do_add(game, "*", 0)
    assert meld(game, 1, 0) == cards("8h 8s 8d *")
    game = build_game(
        "colombian",
        hands={0: "Qd Qs", 1: "* 9h 9d Kd"},
        melds={0: ["2c 2d *"], 1: ["8h 8s 8d"]},
        player=1,
    )
    do_open(game, "9h 9d *")
    assert meld(game, 1, 1) == cards("9h 9d *")


@pytest.mark.parametrize(
    ("variant", "overrides", "allowed"),
    [
        ("colombian", {}, True),
        ("argentine", {}, False),
        ("italian", {}, False),
        ("brazilian", {}, False),
        ("argentine", {"wild_group": True}, True),
        ("colombian", {"wild_group": False}, False),
    ],
)
def test_wild_group_parameter(variant, overrides, allowed):
    game = build_game(variant, hands={0: "2c 2d * Kd Qs"}, melds={0: ["8h 8s 8d"]}, **overrides)
    a = open_action("2c 2d *")
    if allowed:
        do(game, a)
        assert row(game, 0, 1)[MF_KIND] == MELD_WILD_GROUP
        assert hand(game, 0) == cards("Kd Qs")
    else:
        refused(game, a, ERR_VARIANT_OFF)
        # the same wilds make no other meld either
        assert [decode_action(x).kind for x in legal(game)].count("open_wild_group") == 0
    do_discard(game, "Kd")
