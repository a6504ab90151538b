"""Rule variants as data (RULES.md section 9)."""

import pytest

from burako_env.variants import (
    PARAMETERS,
    VARIANT_NAMES,
    Variant,
    VariantError,
    load_variant,
    variant_table,
)


def test_default_is_argentine_for_four():
    v = load_variant()
    assert v.name == "argentine"
    assert v.num_players == 4
    assert v == load_variant("argentine")


def test_argentine_section_9():
    v = load_variant("argentine")
    assert v.players == (2, 4)
    assert (v.decks, v.jokers_per_deck, v.total_cards) == (2, 1, 106)
    assert (v.hand_size, v.muertos_per_team, v.target) == (11, 1, 3000)
    assert (v.value_low, v.value_high, v.value_ace, v.value_two, v.value_joker) == (
        5,
        10,
        15,
        20,
        50,
    )
    assert v.canasta_card_points is True
    assert (v.clean_canasta, v.dirty_canasta, v.going_out_bonus) == (200, 100, 100)
    assert (v.muerto_not_taken, v.muerto_taken_bonus) == (-100, 0)
    assert v.unique_group_rank == "team"
    assert (v.max_meld_size, v.wild_group) == (0, False)
    assert v.pile_min_total == 5
    assert (v.opening_first, v.opening_later) == ("peek", "peek")
    assert v.close_requires == "any_canasta"
    assert (v.stock_end, v.max_turns) == (0, 400)
    assert not (v.no_wild_discard or v.muerto_refills_stock or v.no_canasta_negative)


def test_argentine_two_players_hand_22():
    v = load_variant("argentine", num_players=2)
    assert (v.num_players, v.hand_size) == (2, 22)
    assert load_variant("argentine", num_players=4).hand_size == 11


def test_italian_section_9():
    v = load_variant("italian")
    assert (v.decks, v.jokers_per_deck, v.total_cards) == (2, 2, 108)
    assert v.target == 2005
    assert v.value_joker == 30
    assert v.value_ace == 15
    assert (v.opening_first, v.opening_later) == ("upcard", "upcard")
    assert v.pile_min_total == 0
    assert v.pile_no_rediscard and not v.peek_no_rediscard
    assert v.close_discard_not_wild and v.close_requires_discard
    assert v.close_requires == "any_canasta"
    assert v.stock_end == 2
    assert v.muerto_taken_bonus == 0
    assert load_variant("italian", num_players=2).hand_size == 11


def test_brazilian_section_9():
    v = load_variant("brazilian")
    assert (v.decks, v.jokers_per_deck, v.total_cards) == (2, 2, 108)
    assert v.target == 2000
    assert (v.value_low, v.value_high, v.value_ace, v.value_two, v.value_joker) == (
        5,
        10,
        15,
        20,
        50,
    )
    assert (v.opening_first, v.opening_later) == ("peek", "upcard")
    assert v.peek_no_rediscard and not v.pile_no_rediscard
    assert (v.min_first_meld, v.min_first_meld_high) == (50, 75)
    assert (v.min_first_meld_threshold, v.min_first_meld_step) == (1500, 15)
    assert v.close_requires == "clean_canasta"
    assert v.muerto_refills_stock
    assert v.stock_end == 0
    assert load_variant("brazilian", num_players=2).hand_size == 11


def test_colombian_section_9():
    v = load_variant("colombian")
    assert v.players == (4, 6, 8)
    assert (v.decks, v.jokers_per_deck, v.muertos_per_team, v.target) == (2, 2, 1, 2000)
    assert (v.value_low, v.value_high, v.value_ace, v.value_two, v.value_joker) == (
        5,
        10,
        20,
        20,
        20,
    )
    assert v.canasta_card_points is False
    assert (v.clean_canasta, v.dirty_canasta) == (200, 100)
    assert (v.clean_aces_canasta, v.dirty_aces_canasta, v.wild_canasta) == (400, 200, 700)
    assert (v.muerto_not_taken, v.muerto_taken_bonus) == (-100, 100)
    assert v.unique_group_rank == "table"
    assert (v.max_meld_size, v.wild_group) == (7, True)
    assert v.no_wild_discard and v.muerto_keep_wilds and v.cutter_keeps_wilds
    assert v.close_requires == "none"
    assert v.no_canasta_negative
    assert (v.opening_first, v.opening_later) == ("peek", "peek")


@pytest.mark.parametrize(
    ("players", "decks", "muertos", "target", "total"),
    [(4, 2, 1, 2000, 108), (6, 3, 2, 3000, 162), (8, 4, 3, 4000, 216)],
)
def test_colombian_by_player_count(players, decks, muertos, target, total):
    v = load_variant("colombian", num_players=players)
    assert (v.num_players, v.decks, v.muertos_per_team, v.target) == (
        players,
        decks,
        muertos,
        target,
    )
    assert v.total_cards == total
    assert v.hand_size == 11


def test_overrides():
    v = load_variant("argentine", stock_end=2, value_joker=30)
    assert (v.stock_end, v.value_joker) == (2, 30)
    assert v.hand_size == 11
    # an override beats the by_players entry
    assert load_variant("argentine", num_players=2, hand_size=15).hand_size == 15
    # overrides on a Variant object, and replace()
    base = load_variant("italian")
    assert load_variant(base) is base
    assert load_variant(base, wild_group=True).wild_group
    assert base.replace(max_meld_size=7).max_meld_size == 7
    assert base.max_meld_size == 0


def test_user_yaml(tmp_path):
    path = tmp_path / "house.yaml"
    path.write_text(
        "players: [2, 4]\n"
        "value_joker: 40\n"
        "stock_end: 3\n"
        "wild_group: true\n"
        "by_players:\n"
        "  2: {hand_size: 15}\n",
        encoding="utf-8",
    )
    v = load_variant(path)
    assert v.name == "house"
    assert (v.value_joker, v.stock_end, v.wild_group, v.hand_size) == (40, 3, True, 11)
    assert load_variant(str(path), num_players=2).hand_size == 15
    assert load_variant(path, value_joker=25).value_joker == 25
    # parameters the file leaves out keep the Variant defaults
    assert v.value_ace == Variant().value_ace == 15


def test_error_unknown_key(tmp_path):
    with pytest.raises(VariantError, match="bogus_rule"):
        load_variant("argentine", bogus_rule=1)
    path = tmp_path / "bad.yaml"
    path.write_text("hand_sise: 11\n", encoding="utf-8")
    with pytest.raises(VariantError, match="hand_sise"):
        load_variant(path)


def test_error_unknown_variant_name():
    with pytest.raises(VariantError, match="martian"):
        load_variant("martian")


def test_error_missing_file(tmp_path):
    with pytest.raises(VariantError, match="does not exist"):
        load_variant(tmp_path / "nope.yaml")


@pytest.mark.parametrize(
    ("override", "word"),
    [
        ({"hand_size": "11"}, "whole number"),
        ({"wild_group": 1}, "true or false"),
        ({"stock_end": 1.5}, "whole number"),
        ({"close_requires": "always"}, "close_requires"),
        ({"opening_first": "deal"}, "opening_first"),
    ],
)
def test_error_wrong_type_or_value(override, word):
    with pytest.raises(VariantError, match=word):
        load_variant("argentine", **override)


def test_error_wrong_type_in_yaml(tmp_path):
    path = tmp_path / "typed.yaml"
    path.write_text("no_wild_discard: maybe\n", encoding="utf-8")
    with pytest.raises(VariantError, match="no_wild_discard"):
        load_variant(path)


@pytest.mark.parametrize(("name", "players"), [("argentine", 6), ("colombian", 2), ("italian", 3)])
def test_error_player_count_not_allowed(name, players):
    with pytest.raises(VariantError, match="not allowed|player counts"):
        load_variant(name, num_players=players)


def test_error_too_few_cards():
    with pytest.raises(VariantError, match="cards are needed"):
        load_variant("argentine", hand_size=30)
    # 8 players with only 2 decks cannot be dealt
    with pytest.raises(VariantError, match="cards are needed"):
        load_variant("colombian", num_players=8, decks=2)


def test_every_named_variant_loads_for_each_count():
    for name in VARIANT_NAMES:
        allowed = load_variant(name).players
        for n in allowed:
            v = load_variant(name, num_players=n)
            assert v.name == name and v.num_players == n


def test_describe_and_table_name_every_parameter():
    text = load_variant("colombian").describe()
    table = variant_table()
    for p in PARAMETERS:
        if p != "name":
            assert p in text
            assert p in table
