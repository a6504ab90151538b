"""Rule tests of the core: muertos and going out (RULES.md 5)."""

from __future__ import annotations

import pytest
from conftest import (
    VARIANTS,
    assert_scores,
    card,
    cards,
    do,
    do_add,
    do_discard,
    do_open,
    hand,
    known,
    legal,
    melds,
    muerto_status,
    open_action,
    refused,
    sc,
    stock_len,
)

from burako_env.core.actions import add_action, discard_action
from burako_env.core.constants import (
    DISCARD_BASE,
    DRAW_STOCK,
    END_WENT_OUT,
    ERR_CANNOT_GO_OUT,
    ERR_CLOSE_WITH_WILD,
    ERR_GO_OUT_BY_DISCARD,
    ERR_MELD_CLOSED,
    ERR_NO_MUERTO,
    ERR_NOT_ONLY_WILDS,
    ERR_OK,
    ERR_TURN_UNFINISHABLE,
    ERR_VARIANT_OFF,
    ERR_WILD_DISCARD,
    HOW_DIRECT,
    HOW_INDIRECT,
    HOW_KEPT_WILDS,
    MUERTO_ABSENT,
    MUERTO_PENDING,
    MUERTO_TAKEN,
    MUERTO_UNTAKEN,
    PHASE_DRAW,
    PHASE_OVER,
    PHASE_PLAY,
    S_END_REASON,
    S_NO_DISCARD,
    S_PHASE,
    S_PLAYER,
    S_WENT_OUT,
    TAKE_MUERTO_KEEP_WILDS,
    TAKE_PILE,
)
from burako_env.scenario import build_game

MUERTO0 = "3d 4d 6d Qs Qs Jd Jd Ts Td Th Ah"
CLEAN = "5s 6s 7s 8s 9s Ts Js"
DIRTY = "5s 6s 7s 8s 9s Ts *"


def muerto_info(game, team, m):
    st = game.state
    return (
        int(st.muerto_status[0, team, m]),
        int(st.muerto_how[0, team, m]),
        int(st.muerto_taker[0, team, m]),
    )


# ====================================================================== direct / indirect
@pytest.mark.parametrize("variant", VARIANTS)
def test_direct_muerto_continues_the_same_turn(variant):
    game = build_game(
        variant,
        hands={0: "6h 7h 8h", 1: "Kc"},
        melds={0: ["Ks Kd Kh"]},
        muertos={0: [MUERTO0]},
    )
    n_stock = stock_len(game)
    do_open(game, "6h 7h 8h")
    assert hand(game, 0) == cards(MUERTO0)
    assert muerto_info(game, 0, 0) == (MUERTO_TAKEN, HOW_DIRECT, 0)
    # same player, still melding, no draw
    assert sc(game, S_PLAYER) == 0 and sc(game, S_PHASE) == PHASE_PLAY
    assert stock_len(game) == n_stock
    do_open(game, "Ts Td Th")
    do_discard(game, "Ah")
    assert hand(game, 0) == cards("3d 4d 6d Qs Qs Jd Jd")
    assert melds(game, 0) == [cards("Ks Kd Kh"), cards("6h 7h 8h"), cards("Ts Td Th")]
    assert sc(game, S_PLAYER) == 1 and sc(game, S_PHASE) == PHASE_DRAW


@pytest.mark.parametrize("variant", VARIANTS)
def test_indirect_muerto_is_played_from_the_next_turn(variant):
    game = build_game(
        variant,
        hands={0: "6h 7h 8h Kd", 1: "Qh Jh", 2: "Qh Jh", 3: "Qd Jc"},
        melds={0: ["Ks Kd Kh"]},
        muertos={0: [MUERTO0]},
        stock="9d 9d 9h 9h 9s 9s",
    )
    do_open(game, "6h 7h 8h")
    do_discard(game, "Kd")
    assert hand(game, 0) == cards(MUERTO0)
    assert muerto_info(game, 0, 0) == (MUERTO_PENDING, HOW_INDIRECT, 0)
    assert sc(game, S_PLAYER) == 1 and sc(game, S_PHASE) == PHASE_DRAW
    for p in (1, 2, 3):
        do(game, DRAW_STOCK)
        assert muerto_status(game, 0)[0] == MUERTO_PENDING
        do_discard(game, "Qh" if p < 3 else "Qd")
    # the taker's next turn begins: the muerto is in play
    assert sc(game, S_PLAYER) == 0 and sc(game, S_PHASE) == PHASE_DRAW
    assert muerto_status(game, 0)[0] == MUERTO_TAKEN
    do(game, DRAW_STOCK)
    do_open(game, "Ts Td Th")
    assert melds(game, 0)[-1] == cards("Ts Td Th")


# expected score items (table, canasta, going out, muertos taken, not taken, hand)
UNPLAYED_EXPECTED = {
    "argentine": [[50, 0, 0, 0, -100, -5], [85, 200, 100, 0, 0, -10]],
    "italian": [[50, 0, 0, 0, -100, -5], [85, 200, 100, 0, 0, -10]],
    "brazilian": [[50, 0, 0, 0, -100, -5], [85, 200, 100, 0, 0, -10]],
    # colombian: canasta cards score the bonus only, +100 a muerto taken, and team 0
    # without a canasta scores its table negative
    "colombian": [[-50, 0, 0, 0, -100, -5], [15, 200, 100, 100, 0, -10]],
}


@pytest.mark.parametrize("variant", VARIANTS)
def test_unplayed_indirect_muerto_scores_as_not_taken(variant):
    game = build_game(
        variant,
        hands={0: "6h 7h 8h Kd", 1: "4s 5s 6s", 2: "5d", 3: "Kc"},
        melds={0: ["Ks Kd Kh"], 1: ["9d 9d 9h 9h 9s 9s 9c"]},
        muertos={0: [MUERTO0]},
        muertos_taken={1: 1},
        stock="Qh Qh Ac Jh",
    )
    do_open(game, "6h 7h 8h")
    do_discard(game, "Kd")
    assert muerto_status(game, 0)[0] == MUERTO_PENDING
    do(game, DRAW_STOCK)  # Jh
    do_open(game, "4s 5s 6s")
    do_discard(game, "Jh")  # team 1 goes out before seat 0 plays again
    assert sc(game, S_END_REASON) == END_WENT_OUT and sc(game, S_WENT_OUT) == 1
    assert muerto_status(game, 0)[0] == MUERTO_PENDING
    assert hand(game, 0) == cards(MUERTO0)  # in hand, but not charged
    assert_scores(game, 1, UNPLAYED_EXPECTED[variant])


# ====================================================================== several muertos
def test_colombian_six_players_two_muertos_in_order():
    m0 = "3c 4c 5c 6c 7c 8c 9c Tc Jc Qc Kc"
    m1 = "3d 4d 5d 6d 7d 8d 9d Td Jd Qd Kd"
    game = build_game("colombian", 6, hands={0: "7h 8h 9h", 1: "Ks"}, muertos={0: [m0, m1]})
    assert muerto_status(game, 0) == [MUERTO_UNTAKEN, MUERTO_UNTAKEN, MUERTO_ABSENT]
    do_open(game, "7h 8h 9h")
    assert muerto_status(game, 0) == [MUERTO_TAKEN, MUERTO_UNTAKEN, MUERTO_ABSENT]
    assert hand(game, 0) == cards(m0)
    do_open(game, "3c 4c 5c")
    for c in ("6c", "7c", "8c", "9c"):
        do_add(game, c, 1)
    refused(game, add_action(card("Tc"), 1), ERR_MELD_CLOSED)
    do_open(game, "Tc Jc Qc")
    do_discard(game, "Kc")  # empty again: the second muerto, with the discard
    assert muerto_status(game, 0) == [MUERTO_TAKEN, MUERTO_PENDING, MUERTO_ABSENT]
    assert muerto_info(game, 0, 1) == (MUERTO_PENDING, HOW_INDIRECT, 0)
    assert hand(game, 0) == cards(m1)
    assert sc(game, S_PLAYER) == 1 and not game.done[0]


@pytest.mark.parametrize(("players", "taken"), [(6, 1), (8, 1), (8, 2)])
def test_partner_takes_the_teams_next_muerto(players, taken):
    game = build_game(
        "colombian",
        players,
        hands={2: "7h 8h 9h Kd"},
        melds={0: ["Ks Kd Kh"]},
        muertos_taken={0: taken},
        player=2,
    )
    do_open(game, "7h 8h 9h")
    do_discard(game, "Kd")
    assert muerto_info(game, 0, taken) == (MUERTO_PENDING, HOW_INDIRECT, 2)
    assert not game.done[0] and len(hand(game, 2)) == 11
    assert muerto_status(game, 0)[:taken] == [MUERTO_TAKEN] * taken


def test_colombian_goes_out_only_after_every_muerto():
    # 6 players: one muerto left -> the discard takes it; none left -> going out
    game = build_game("colombian", 6, hands={0: "7h 8h 9h Kd"}, muertos_taken={0: 1})
    do_open(game, "7h 8h 9h")
    do_discard(game, "Kd")
    assert not game.done[0] and muerto_status(game, 0)[1] == MUERTO_PENDING
    game = build_game("colombian", 6, hands={0: "7h 8h 9h Kd"}, muertos_taken={0: 2})
    do_open(game, "7h 8h 9h")
    do_discard(game, "Kd")
    assert game.done[0] and sc(game, S_WENT_OUT) == 0


# ====================================================================== going out
TABLES = {"none": ["Qs Qd Qh"], "dirty": [DIRTY, "Qs Qd Qh"], "clean": [CLEAN, "Qs Qd Qh"]}


@pytest.mark.parametrize(
    ("variant", "overrides", "needs"),
    [
        ("argentine", {}, "any_canasta"),
        ("italian", {"close_requires_discard": False}, "any_canasta"),
        ("brazilian", {}, "clean_canasta"),
        ("colombian", {}, "none"),
        ("argentine", {"close_requires": "clean_canasta"}, "clean_canasta"),
        ("argentine", {"close_requires": "none"}, "none"),
        ("colombian", {"close_requires": "any_canasta"}, "any_canasta"),
    ],
)
@pytest.mark.parametrize("table", ["none", "dirty", "clean"])
@pytest.mark.parametrize("how", ["open", "add", "discard"])
def test_going_out_requires_a_canasta(variant, overrides, needs, table, how):
    allowed = {
        "any_canasta": table != "none",
        "clean_canasta": table == "clean",
        "none": True,
    }[needs]
    hand_text = {"open": "6h 7h 8h", "add": "Qc", "discard": "Kh"}
    game = build_game(
        variant,
        hands={0: hand_text[how], 1: "Jd"},
        melds={0: TABLES[table]},
        muertos_taken={0: 1},
        **overrides,
    )
    action = {
        "open": open_action("6h 7h 8h"),
        "add": add_action(card("Qc"), len(TABLES[table]) - 1),
        "discard": discard_action(card("Kh")),
    }[how]
    if allowed:
        do(game, action)
        assert sc(game, S_PHASE) == PHASE_OVER and sc(game, S_END_REASON) == END_WENT_OUT
        assert sc(game, S_WENT_OUT) == 0 and game.score_items[0, 0, 2] == 100
    else:
        refused(game, action, ERR_CANNOT_GO_OUT)


@pytest.mark.parametrize(("table", "allowed"), [("2c 2c 2d 2d 2h 2h *", False), (CLEAN, True)])
def test_a_wild_canasta_is_not_clean(table, allowed):
    # a wild group is never clean (RULES.md 2.4): with close_requires clean_canasta its
    # canasta does not let the team go out
    game = build_game(
        "colombian",
        hands={0: "Kh", 1: "Jd"},
        melds={0: [table, "Qs Qd Qh"]},
        muertos_taken={0: 1},
        close_requires="clean_canasta",
    )
    if allowed:
        do(game, discard_action(card("Kh")))
        assert sc(game, S_END_REASON) == END_WENT_OUT
    else:
        refused(game, discard_action(card("Kh")), ERR_CANNOT_GO_OUT)


# the going-out conditions with each wild, where the variants differ (RULES.md 2.3, 4, 5):
# the last card laid on the team's only canasta (slot 0, clean), or on its group (slot 1),
# or discarded. A 2 of the run's suit that comes home at position 2 is natural, not wild.
LOW_CLEAN = "3s 4s 5s 6s 7s 8s 9s"
CANNOT, BY_DISCARD = ERR_CANNOT_GO_OUT, ERR_GO_OUT_BY_DISCARD


@pytest.mark.parametrize(
    ("variant", "last", "how", "expected"),
    [
        # brazilian: a wild on the only clean canasta makes it dirty, so it cannot go out
        ("brazilian", "2c", "canasta", CANNOT),
        ("brazilian", "*", "canasta", CANNOT),
        ("brazilian", "Ts", "canasta", ERR_OK),  # a natural card keeps it clean
        ("brazilian", "2s", "canasta", ERR_OK),  # the 2 of spades comes home: natural
        ("brazilian", "2c", "group", ERR_OK),  # the canasta stays clean
        ("brazilian", "2c", "discard", ERR_OK),
        ("brazilian", "*", "discard", ERR_OK),
        # argentine: any canasta, dirty or clean, lets the team go out
        ("argentine", "2c", "canasta", ERR_OK),
        ("argentine", "*", "canasta", ERR_OK),
        ("argentine", "2c", "discard", ERR_OK),
        ("argentine", "*", "discard", ERR_OK),
        # italian: only by a discard, and that discard is no wild
        ("italian", "2c", "canasta", BY_DISCARD),
        ("italian", "*", "canasta", BY_DISCARD),
        ("italian", "2c", "discard", ERR_CLOSE_WITH_WILD),
        ("italian", "*", "discard", ERR_CLOSE_WITH_WILD),
        ("italian", "Ts", "discard", ERR_OK),
        # colombian: no canasta needed (its canasta is closed at 7: the group takes the
        # wild), and a wild is never discarded while a meld can take it
        ("colombian", "2c", "group", ERR_OK),
        ("colombian", "*", "group", ERR_OK),
        ("colombian", "2c", "discard", ERR_WILD_DISCARD),
        ("colombian", "*", "discard", ERR_WILD_DISCARD),
    ],
)
def test_going_out_with_each_wild(variant, last, how, expected):
    game = build_game(
        variant,
        hands={0: last, 1: "Jd"},
        melds={0: [LOW_CLEAN, "Qs Qd Qh"]},
        muertos_taken={0: 1},
    )
    action = {
        "canasta": add_action(card(last), 0),
        "group": add_action(card(last), 1),
        "discard": discard_action(card(last)),
    }[how]
    if expected == ERR_OK:
        do(game, action)
        assert sc(game, S_PHASE) == PHASE_OVER and sc(game, S_END_REASON) == END_WENT_OUT
        assert sc(game, S_WENT_OUT) == 0
    else:
        refused(game, action, expected)


@pytest.mark.parametrize("variant", ["argentine", "brazilian"])
def test_the_going_out_meld_may_complete_the_canasta(variant):
    game = build_game(
        variant, hands={0: "Js"}, melds={0: ["5s 6s 7s 8s 9s Ts"]}, muertos_taken={0: 1}
    )
    do_add(game, "Js", 0)
    assert game.done[0] and sc(game, S_WENT_OUT) == 0


@pytest.mark.parametrize(
    ("variant", "overrides", "rule"),
    [
        ("italian", {}, True),
        ("argentine", {}, False),
        ("brazilian", {}, False),
        ("colombian", {}, False),
        ("argentine", {"close_requires_discard": True}, True),
        ("italian", {"close_requires_discard": False}, False),
    ],
)
def test_close_requires_discard(variant, overrides, rule):
    def game_with(hand_text, **kw):
        return build_game(
            variant, hands={0: hand_text}, melds={0: [CLEAN, "Ks Kd Kh"]}, **overrides, **kw
        )

    for hand_text, action in (
        ("6h 7h 8h", open_action("6h 7h 8h")),
        ("Kc", add_action(card("Kc"), 1)),
    ):
        game = game_with(hand_text, muertos_taken={0: 1})
        if rule:
            refused(game, action, ERR_GO_OUT_BY_DISCARD)
        else:
            do(game, action)
            assert game.done[0] and sc(game, S_WENT_OUT) == 0
        # with a muerto left, emptying the hand by a meld is a direct muerto
        game = game_with(hand_text)
        do(game, action)
        assert muerto_status(game, 0)[0] == MUERTO_TAKEN and not game.done[0]
    # going out by the discard is always fine
    game = game_with("6h 7h 8h Qd", muertos_taken={0: 1})
    do_open(game, "6h 7h 8h")
    do_discard(game, "Qd")
    assert game.done[0] and sc(game, S_WENT_OUT) == 0


@pytest.mark.parametrize("variant", ["argentine", "italian", "brazilian"])
def test_meld_leaving_a_card_that_cannot_go_out_is_illegal(variant):
    # no canasta, no muerto left: the last card Kc can neither be discarded (going out
    # without a canasta) nor laid on Ks Kd Kh (the same): the turn could not be finished
    game = build_game(
        variant, hands={0: "6h 7h 8h Kc"}, melds={0: ["Ks Kd Kh"]}, muertos_taken={0: 1}
    )
    refused(game, open_action("6h 7h 8h"), ERR_TURN_UNFINISHABLE)
    assert [a for a in legal(game) if a < DISCARD_BASE] == [add_action(card("Kc"), 0)]
    # with a muerto left the last card's discard takes it: fine
    game = build_game(variant, hands={0: "6h 7h 8h Kc"}, melds={0: ["Ks Kd Kh"]})
    do_open(game, "6h 7h 8h")
    do_discard(game, "Kc")
    assert muerto_status(game, 0)[0] == MUERTO_PENDING


def test_meld_leaving_an_undiscardable_wild_is_legal_when_the_wild_can_be_laid_colombian():
    """no_wild_discard and no muerto left: a single 2c left cannot be discarded, but it can
    be laid on the new run, going out by melding (colombian needs no canasta)."""
    game = build_game(
        "colombian", hands={0: "6h 7h 8h 2c"}, melds={0: ["Ks Kd Kh *"]}, muertos_taken={0: 1}
    )
    do_open(game, "6h 7h 8h")
    assert legal(game) == [add_action(card("2c"), 1)]
    do_add(game, "2c", 1)
    assert game.done[0] and sc(game, S_WENT_OUT) == 0
    # 4s then 2c, or 2c then 4s: both finish the turn
    for first, second in (("4s", "2c"), ("2c", "4s")):
        game = build_game(
            "colombian", hands={0: "4s 2c"}, melds={0: ["5s 6s 7s"]}, muertos_taken={0: 1}
        )
        do_add(game, first, 0)
        assert hand(game, 0) == cards(second)
    # the wild cannot be laid anywhere (every meld dirty): the meld is refused
    game = build_game(
        "colombian", hands={0: "6h 7h 8h 2c 2d"}, melds={0: ["Ks Kd Kh *"]}, muertos_taken={0: 1}
    )
    refused(game, open_action("6h 7h 8h"), ERR_TURN_UNFINISHABLE)
    game = build_game(
        "colombian",
        hands={0: "6h 7h 8h 2c"},
        melds={0: ["Ks Kd Kh *"]},
        muertos_taken={0: 1},
        no_wild_discard=False,
    )
    do_open(game, "6h 7h 8h")
    assert hand(game, 0) == cards("2c")


def test_meld_leaving_a_single_wild_may_take_the_muerto_keeping_it():
    """muerto_keep_wilds allows a hand of 1 or 2 wilds to take the muerto, so a meld that
    leaves one wild is not stuck while a muerto is left (seed 000: "se pueden dejar en la
    mano hasta dos cartas libres")."""
    game = build_game(
        "colombian", hands={0: "6h 7h 8h 2c"}, melds={0: ["Ks Kd Kh *"]}, muertos={0: [MUERTO0]}
    )
    do_open(game, "6h 7h 8h")
    assert hand(game, 0) == cards("2c")
    # keep it and take the muerto, or lay it on the new run (a direct muerto); no discard
    assert legal(game) == [TAKE_MUERTO_KEEP_WILDS, add_action(card("2c"), 1)]
    do(game, TAKE_MUERTO_KEEP_WILDS)
    assert hand(game, 0) == cards("2c " + MUERTO0) and known(game, 0) == cards("2c")
    assert muerto_info(game, 0, 0) == (MUERTO_TAKEN, HOW_KEPT_WILDS, 0)
    # without muerto_keep_wilds the wild is laid on the new run: a direct muerto
    game = build_game(
        "colombian",
        hands={0: "6h 7h 8h 2c"},
        melds={0: ["Ks Kd Kh *"]},
        muertos={0: [MUERTO0]},
        muerto_keep_wilds=False,
    )
    do_open(game, "6h 7h 8h")
    assert legal(game) == [add_action(card("2c"), 1)]
    do_add(game, "2c", 1)
    assert muerto_info(game, 0, 0) == (MUERTO_TAKEN, HOW_DIRECT, 0)


def test_a_meld_whose_turn_settles_only_after_a_second_meld_is_legal():
    """The completable-turn search looks past the first meld (RULES.md 5): adding 8h
    leaves three wilds, which may not be discarded and are too many to keep for the
    muerto; laying one of them next leaves two, which may. So the add is legal, and the
    position it leads to offers the wild, not the muerto yet."""
    game = build_game(
        "colombian", hands={0: "8h 2c 2d *"}, melds={0: ["5h 6h 7h"]},
        muertos={0: [MUERTO0]}, wild_group=False,
    )  # fmt: skip
    assert game.why_illegal(add_action(card("8h"), 0)) is None
    do_add(game, "8h", 0)
    offered = legal(game)
    assert TAKE_MUERTO_KEEP_WILDS not in offered and not [a for a in offered if a >= DISCARD_BASE]
    do_add(game, "2c", 0)
    assert TAKE_MUERTO_KEEP_WILDS in legal(game)


def test_meld_leaving_the_barred_pile_card_is_illegal_italian():
    """Qd taken from a one-card pile may not be discarded and fits no meld: the opening
    that would leave it alone leaves a turn that cannot be finished."""
    game = build_game(
        "italian", hands={0: "6h 7h 8h"}, melds={0: ["Ks Kd Kh"]}, pile="Qd", phase="draw"
    )
    do(game, TAKE_PILE)
    assert sc(game, S_NO_DISCARD) == card("Qd")
    refused(game, open_action("6h 7h 8h"), ERR_TURN_UNFINISHABLE)


# ====================================================================== muerto_keep_wilds
@pytest.mark.parametrize("kept", ["2c *", "2d"])
def test_muerto_keep_wilds(kept):
    game = build_game("colombian", hands={0: kept}, melds={0: ["Ks Kd Kh"]}, muertos={0: [MUERTO0]})
    assert TAKE_MUERTO_KEEP_WILDS in legal(game)
    do(game, TAKE_MUERTO_KEEP_WILDS)
    assert hand(game, 0) == cards(kept + " " + MUERTO0)
    assert known(game, 0) == cards(kept)  # the kept wilds are shown to all
    assert muerto_info(game, 0, 0) == (MUERTO_TAKEN, HOW_KEPT_WILDS, 0)
    assert sc(game, S_PLAYER) == 0 and sc(game, S_PHASE) == PHASE_PLAY  # counts as direct


def test_muerto_keep_wilds_during_the_meld_phase():
    game = build_game(
        "colombian", hands={0: "2c * 8d 8d 8s"}, melds={1: ["Ks Kd Kh"]}, muertos={0: [MUERTO0]}
    )
    refused(game, TAKE_MUERTO_KEEP_WILDS, ERR_NOT_ONLY_WILDS)
    do_open(game, "8d 8d 8s")
    do(game, TAKE_MUERTO_KEEP_WILDS)
    assert hand(game, 0) == cards("2c * " + MUERTO0)


def test_muerto_keep_wilds_refusals():
    def game_with(hand_text, variant="colombian", **kw):
        return build_game(variant, hands={0: hand_text}, melds={0: ["Ks Kd Kh"]}, **kw)

    refused(game_with("2c * 2d"), TAKE_MUERTO_KEEP_WILDS, ERR_NOT_ONLY_WILDS)
    refused(game_with("2c Kc"), TAKE_MUERTO_KEEP_WILDS, ERR_NOT_ONLY_WILDS)
    refused(game_with("2c *", muertos_taken={0: 1}), TAKE_MUERTO_KEEP_WILDS, ERR_NO_MUERTO)
    refused(game_with("2c *", "argentine"), TAKE_MUERTO_KEEP_WILDS, ERR_VARIANT_OFF)
    refused(game_with("2c *", muerto_keep_wilds=False), TAKE_MUERTO_KEEP_WILDS, ERR_VARIANT_OFF)
    game = game_with("2c *", "argentine", muerto_keep_wilds=True)
    do(game, TAKE_MUERTO_KEEP_WILDS)
    assert muerto_status(game, 0)[0] == MUERTO_TAKEN and len(hand(game, 0)) == 13
    # after the discard a hand of only wilds does not take the muerto (it is not empty)
    game = game_with("2c * Kc")
    do_discard(game, "Kc")
    assert muerto_status(game, 0)[0] == MUERTO_UNTAKEN and hand(game, 0) == cards("2c *")
    assert sc(game, S_PLAYER) == 1
