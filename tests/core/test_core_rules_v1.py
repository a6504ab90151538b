"""Rules v1 (RULES.md revised): a turn that can be finished is playable (5), the brazilian
muerto pot (5, 6) and groups of the player's chosen suits (2.1).

Each position is the audit's, played through the public API: every move is checked to be
offered by the mask before it is stepped (``do``), and refused moves raise and leave the
game untouched (``refused``).
"""

from __future__ import annotations

import pytest
from conftest import (
    card,
    cards,
    do,
    do_add,
    do_discard,
    do_open,
    hand,
    legal,
    melds,
    muerto_status,
    open_action,
    refused,
    sc,
)

from burako_env.core.actions import add_action, decode_action, discard_action, open_actions_for
from burako_env.core.constants import (
    DISCARD_BASE,
    DRAW_STOCK,
    END_WENT_OUT,
    ERR_CANNOT_GO_OUT,
    ERR_POT_EMPTY,
    ERR_TURN_UNFINISHABLE,
    ERR_WILD_GROUP_OPEN,
    MUERTO_STOCK,
    MUERTO_TAKEN,
    MUERTO_UNTAKEN,
    OPEN_GROUP_BASE,
    OPEN_RUN_BASE,
    PHASE_OVER,
    S_END_REASON,
    S_MUERTOS_LEFT,
    S_WENT_OUT,
    SCORE_ITEMS,
    TAKE_PILE,
)
from burako_env.referee import classify_meld
from burako_env.scenario import build_game, meld_cards
from burako_env.variants import load_variant

MUERTO0 = "3d 4d 6d Qs Qs Jd Jd Ts Td Th Ah"


def went_out(game, team: int) -> bool:
    return (
        bool(game.done[0])
        and sc(game, S_END_REASON) == END_WENT_OUT
        and sc(game, S_WENT_OUT) == team
    )


# ====================================================================== completable turns
@pytest.mark.parametrize("variant", ["argentine", "brazilian"])
def test_adding_the_last_two_cards_completes_a_canasta_and_goes_out(variant):
    """Ts, then Js, onto 5s..9s: the second add makes a clean canasta and empties the
    hand. The first add leaves Js, whose discard could not go out (no canasta yet): the
    old rule refused it; a turn that can be finished is playable."""
    game = build_game(
        variant, hands={0: "Ts Js", 1: "Kc Kd"}, melds={0: ["5s 6s 7s 8s 9s"]}, muertos_taken={0: 1}
    )
    assert game.why_illegal(discard_action(card("Js"))) is None  # leaves Ts: fine
    do_add(game, "Ts", 0)
    refused(game, discard_action(card("Js")), ERR_CANNOT_GO_OUT)
    assert legal(game) == [add_action(card("Js"), 0)]
    do_add(game, "Js", 0)
    assert went_out(game, 0)
    assert melds(game, 0) == [cards("5s 6s 7s 8s 9s Ts Js")]


@pytest.mark.parametrize("variant", ["argentine", "brazilian"])
def test_a_seven_card_run_laid_from_the_hand_goes_out(variant):
    game = build_game(
        variant, hands={0: "4h 5h 6h 7h 8h 9h Th", 1: "Kc Kd"}, melds={0: ["Ks Kd Kh"]},
        muertos_taken={0: 1},
    )  # fmt: skip
    do_open(game, "4h 5h 6h")
    for c in ("7h", "8h", "9h"):  # the 9h leaves Th alone: only the canasta finishes
        do_add(game, c, 1)
    assert legal(game) == [add_action(card("Th"), 1)]
    do_add(game, "Th", 1)
    assert went_out(game, 0)


def test_a_dirty_canasta_does_not_finish_a_brazilian_turn():
    """brazilian going out needs a clean canasta: completing a dirty one leaves no way to
    finish, so the add before it is refused."""
    game = build_game(
        "brazilian", hands={0: "Ts Js"}, melds={0: ["5s 6s 7s 8s *"]}, muertos_taken={0: 1}
    )
    refused(game, add_action(card("Ts"), 0), ERR_TURN_UNFINISHABLE)  # Js would be left
    assert [a for a in legal(game) if a < DISCARD_BASE] == []
    # with a clean run the same add is playable
    game = build_game(
        "brazilian", hands={0: "Ts Js"}, melds={0: ["5s 6s 7s 8s 9s"]}, muertos_taken={0: 1}
    )
    do_add(game, "Ts", 0)


def test_colombian_hand_of_two_wilds_lays_one_on_each_meld_and_goes_out():
    game = build_game(
        "colombian", hands={0: "2c *"}, melds={0: ["Ks Kc Kh", "5h 6h 7h"]}, muertos_taken={0: 1}
    )
    offered = legal(game)
    assert not [a for a in offered if a >= DISCARD_BASE]  # rule 4 stands: no wild discard
    assert sorted(offered) == sorted(
        add_action(card(c), slot) for c in ("2c", "*") for slot in (0, 1)
    )
    do_add(game, "2c", 0)
    assert legal(game) == [add_action(card("*"), 1)]
    do_add(game, "*", 1)
    assert went_out(game, 0)


def test_colombian_wild_that_no_meld_takes_is_refused_not_discarded():
    """The other wild has nowhere to go once one meld is dirty: the add that would strand
    it is refused, and the remaining way (wild group impossible with 2) is the other order.
    """
    game = build_game(
        "colombian", hands={0: "2c *"}, melds={0: ["Ks Kc Kh", "5h 6h 7h *"]},
        muertos_taken={0: 1},
    )  # fmt: skip
    # 2c on the groups leaves * with no meld: unfinishable; * likewise
    refused(game, add_action(card("2c"), 0), ERR_TURN_UNFINISHABLE)
    refused(game, add_action(card("*"), 0), ERR_TURN_UNFINISHABLE)
    # no legal meld and no legal discard: never-stuck lifts the wild discard
    assert sorted(legal(game)) == [discard_action(card("2c")), discard_action(card("*"))]


def test_italian_card_taken_from_a_one_card_pile_may_be_melded():
    """Js taken from a one-card pile may not be discarded (pile_no_rediscard) but may be
    melded: add Ts, add Js, the hand is empty and the muerto is taken directly."""
    game = build_game(
        "italian", hands={0: "Ts"}, melds={0: ["5s 6s 7s 8s 9s"]}, pile="Js", phase="draw",
        muertos={0: [MUERTO0]},
    )  # fmt: skip
    do(game, TAKE_PILE)
    do_add(game, "Ts", 0)
    assert legal(game) == [add_action(card("Js"), 0)]
    do_add(game, "Js", 0)
    assert muerto_status(game, 0)[0] == MUERTO_TAKEN
    assert hand(game, 0) == cards(MUERTO0)
    assert not game.done[0]


def test_colombian_suited_two_comes_home_then_a_wild_goes_out():
    """4h 5h 6h with 2h at an end; 3h sends the 2h home (clean 2..6), then 2d is the wild."""
    game = build_game(
        "colombian", hands={0: "3h 2d"}, melds={0: ["4h 5h 6h 2h", "Ks Kc Kh *"]},
        muertos_taken={0: 1},
    )  # fmt: skip
    do_add(game, "3h", 0)
    assert classify_meld(meld_cards(game.state.melds[0, 0, 0]), load_variant("colombian")).clean
    assert legal(game) == [add_action(card("2d"), 0)]
    do_add(game, "2d", 0)
    assert went_out(game, 0)


@pytest.mark.parametrize("variant", ["argentine", "italian", "brazilian", "colombian"])
def test_a_direct_muerto_finishes_the_search(variant):
    """A meld leaving a last card that could not be discarded is fine when laying that card
    next takes the muerto directly (the player goes on with the new hand)."""
    extra = {"pile_no_rediscard": True, "pile_min_total": 0} if variant != "italian" else {}
    game = build_game(
        variant, hands={0: "Ts"}, melds={0: ["5s 6s 7s 8s 9s"]}, pile="Js", phase="draw",
        muertos={0: [MUERTO0]}, **extra,
    )  # fmt: skip
    do(game, TAKE_PILE)
    do_add(game, "Ts", 0)
    do_add(game, "Js", 0)
    assert hand(game, 0) == cards(MUERTO0)


# ====================================================================== the muerto pot
def _pot_game(untaken_team: int):
    """brazilian: one team took a muerto from the pot, the other did not; the stock holds
    one card, 3h, which the player of the untaken team draws."""
    taker = 1 - untaken_team
    return build_game(
        "brazilian",
        hands={
            untaken_team: "Ts Js",
            taker: "4c 5c",
            untaken_team + 2: "6d 7d",
            taker + 2: "8c 9c",
        },
        melds={untaken_team: ["5s 6s 7s 8s 9s"], taker: ["Kc Kd Kh"]},
        muertos_taken={taker: 1},
        stock="3h",
        player=untaken_team,
        phase="draw",
    )


@pytest.mark.parametrize("untaken_team", [0, 1])
def test_pot_muerto_becomes_the_stock_and_the_team_without_one_never_goes_out(untaken_team):
    game = _pot_game(untaken_team)
    assert sc(game, S_MUERTOS_LEFT) == 1
    assert muerto_status(game, untaken_team)[0] == MUERTO_UNTAKEN
    do(game, DRAW_STOCK)  # the last card: the pot's muerto becomes the stock
    assert sc(game, S_MUERTOS_LEFT) == 0
    assert int(game.state.stock_len[0]) == 11
    assert muerto_status(game, untaken_team)[0] == MUERTO_STOCK
    assert muerto_status(game, 1 - untaken_team)[0] == MUERTO_TAKEN
    do_add(game, "Ts", 0)
    # Js would make a clean canasta and leave 3h, whose discard would empty the hand:
    # the team holds no muerto and the pot is empty, so that turn can never be finished
    refused(game, add_action(card("Js"), 0), ERR_TURN_UNFINISHABLE)
    do_discard(game, "3h")
    items = _play_out(game)
    assert items[untaken_team]["muertos_not_taken"] == -100
    assert items[1 - untaken_team]["muertos_not_taken"] == 0


def test_empty_pot_refuses_every_move_that_empties_the_hand():
    game = build_game(
        "brazilian", hands={0: "Js", 1: "4c 5c"}, melds={0: ["5s 6s 7s 8s 9s Ts"]}, pot_left=0
    )
    assert muerto_status(game, 0)[0] == muerto_status(game, 1)[0] == MUERTO_STOCK
    assert game.action_error(add_action(card("Js"), 0)) == ERR_POT_EMPTY
    assert game.action_error(discard_action(card("Js"))) == ERR_POT_EMPTY


def _play_out(game):
    """Play the hand out, drawing and then discarding the highest card id offered."""
    for _ in range(400):
        if game.done[0]:
            break
        offered = legal(game)
        game.step_one(DRAW_STOCK if DRAW_STOCK in offered else max(offered))
    assert game.done[0] and game.phase[0] == PHASE_OVER
    items = game.score_items[0]
    return [dict(zip(SCORE_ITEMS, map(int, items[t]), strict=True)) for t in range(2)]


def test_pot_with_both_teams_untaken_gives_the_last_muerto_to_the_first_to_empty():
    game = build_game(
        "brazilian", hands={0: "Ts Js", 1: "4c 5c"}, melds={0: ["5s 6s 7s 8s 9s", "3c 3d 3s"]},
        stock="3h", phase="draw",
    )  # fmt: skip
    assert sc(game, S_MUERTOS_LEFT) == 2
    do(game, DRAW_STOCK)  # stock empty: one pot muerto becomes the stock, one is left
    assert sc(game, S_MUERTOS_LEFT) == 1
    assert muerto_status(game, 0)[0] == muerto_status(game, 1)[0] == MUERTO_UNTAKEN
    do_add(game, "3h", 1)
    do_add(game, "Ts", 0)
    do_add(game, "Js", 0)  # empties the hand: the pot's last muerto, taken directly
    assert muerto_status(game, 0)[0] == MUERTO_TAKEN
    assert muerto_status(game, 1)[0] == MUERTO_STOCK  # none left for team 1
    assert sc(game, S_MUERTOS_LEFT) == 0
    assert len(hand(game, 0)) == 11


def test_team_pot_keeps_per_team_muertos():
    """muerto_pot team (the other variants, a brazilian house rule): team 0's muerto is
    the one that becomes the stock, team 1 keeps its own."""
    game = build_game(
        "brazilian", hands={0: "Ts Js", 1: "4c 5c"}, melds={0: ["5s 6s 7s 8s 9s"]},
        stock="3h", phase="draw", muerto_pot="team",
    )  # fmt: skip
    do(game, DRAW_STOCK)
    assert muerto_status(game, 0)[0] == MUERTO_STOCK
    assert muerto_status(game, 1)[0] == MUERTO_UNTAKEN


def test_shared_pot_needs_one_muerto_per_team():
    from burako_env.variants import VariantError

    with pytest.raises(VariantError, match="muerto_pot 'shared'"):
        load_variant("colombian", num_players=6, muerto_pot="shared")


# ====================================================================== chosen suits
def test_group_names_its_suits_and_the_other_eight_stays():
    game = build_game("argentine", hands={0: "8h 8h 8s 8d 7h"}, muertos_taken={0: 1})
    (a,) = open_actions_for([card(c) for c in ("8h", "8s", "8d")])
    assert OPEN_GROUP_BASE <= a < OPEN_RUN_BASE
    do(game, a)
    assert melds(game, 0) == [cards("8h 8s 8d")]
    assert hand(game, 0) == cards("8h 7h")


def test_every_choice_of_suits_and_wild_is_one_action():
    game = build_game("argentine", hands={0: "8h 8h 8s 8d * 2c Kc"}, muertos_taken={0: 1})
    groups = sorted(
        tuple(sorted(decode_action(a).cards))
        for a in legal(game)
        if OPEN_GROUP_BASE <= a < OPEN_RUN_BASE
    )
    naturals = [card(c) for c in ("8h", "8h", "8s", "8d")]
    clean = {tuple(sorted(x)) for x in _combos(naturals, 3)}
    dirty = {tuple(sorted((*x, w))) for x in _combos(naturals, 2) for w in (card("*"), card("2c"))}
    assert groups == sorted(clean | dirty)
    assert len(groups) == len(set(groups))  # one id per choice


def _combos(items, k):
    from itertools import combinations

    return {tuple(sorted(x)) for x in combinations(items, k)}


def test_group_ids_decode_to_distinct_card_multisets():
    seen = set()
    for a in range(OPEN_GROUP_BASE, OPEN_RUN_BASE):
        info = decode_action(a)
        assert info.kind == "open_group"
        key = tuple(sorted(info.cards))
        assert key not in seen
        seen.add(key)
        assert open_action(" ".join(_text(c) for c in key)) == min(open_actions_for(list(key)))
    assert len(seen) == 12 * 70


def _text(c: int) -> str:
    from burako_env.cards import format_card

    return format_card(c)


def test_shared_pot_refill_is_the_pot_packet_and_charges_nobody_yet():
    """brazilian (muerto_pot shared): with both teams untaken, the stock takes a pot packet
    (index 1), both teams may still take the other; the hand ending now charges both."""
    m0 = "3d 4d 6d Qs Qs Jd Jd Ts Td Th Ah"
    m1 = "3h 4h 6s Qd Qd Js Js Tc Th Td Ad"
    game = build_game(
        "brazilian", hands={0: "Kd Kc Qh", 1: "4d 5h"}, melds={0: ["Ks Kd Kh"], 1: ["9c 9d 9h"]},
        muertos={0: [m0], 1: [m1]}, stock="Jh", phase="draw", turn=399,
    )  # fmt: skip
    do(game, DRAW_STOCK)
    assert sorted(game.state.stock[0, :11]) == cards(m1)
    assert muerto_status(game, 0)[0] == muerto_status(game, 1)[0] == MUERTO_UNTAKEN
    do_discard(game, "Jh")  # turn 400: the hand ends
    items = game.score_items[0]
    assert int(items[0][SCORE_ITEMS.index("muertos_not_taken")]) == -100
    assert int(items[1][SCORE_ITEMS.index("muertos_not_taken")]) == -100


def test_a_second_wild_group_opens_once_the_first_has_closed():
    """RULES.md 2.4 (choice): each team may hold its own wild group, and open another once
    its first has closed at 7; never while one is open."""
    game = build_game(
        "colombian", hands={0: "2h 2h * 9d 5s 6s Qd"}, melds={0: ["2c 2c 2d 2d 2s 2s *"]},
        muertos_taken={0: 1},
    )  # fmt: skip
    do(game, open_action("2h 2h *"))
    assert melds(game, 0)[1] == cards("2h 2h *")
    game = build_game(
        "colombian", hands={0: "2h 2h * 9d 5s 6s Qd"}, melds={0: ["2c 2c 2d 2d 2s *"]},
        muertos_taken={0: 1},
    )  # fmt: skip
    refused(game, open_action("2h 2h *"), ERR_WILD_GROUP_OPEN)
