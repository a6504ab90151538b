"""Rule tests of the core: the end of a hand (RULES.md 6) and the match (8)."""

from __future__ import annotations

import numpy as np
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
    melds,
    muerto_status,
    pile,
    sc,
    stock_len,
)

from burako_env.core.constants import (
    DRAW_STOCK,
    END_MAX_TURNS,
    END_STOCK,
    END_WENT_OUT,
    MUERTO_STOCK,
    MUERTO_TAKEN,
    MUERTO_UNTAKEN,
    PHASE_DRAW,
    PHASE_OVER,
    PHASE_PEEK,
    S_END_REASON,
    S_FIRST_PLAYER,
    S_HAND_INDEX,
    S_HANDS_ENDED,
    S_PHASE,
    S_PLAYER,
    S_TURN,
    S_WENT_OUT,
)
from burako_env.scenario import build_game

CLEAN = "5s 6s 7s 8s 9s Ts Js"


# ====================================================================== stock_end
@pytest.mark.parametrize(
    ("variant", "overrides", "stock_end"),
    [
        ("argentine", {}, 0),
        ("italian", {}, 2),
        ("brazilian", {"muerto_refills_stock": False}, 0),
        ("colombian", {}, 0),
        ("argentine", {"stock_end": 2}, 2),
        ("italian", {"stock_end": 0}, 0),
    ],
)
@pytest.mark.parametrize("left", [0, 1, 2, 3])
def test_stock_end(variant, overrides, stock_end, left):
    """A draw leaves ``left`` cards: at or below stock_end the drawer completes the turn
    (melds included) and the hand ends at the discard."""
    stock = ["Qh", "Qd", "9d", "Jh"][3 - left :]
    game = build_game(
        variant,
        hands={0: "6h 7h 8h Kd Kc", 1: "4d"},
        melds={0: ["Ks Kd Kh"]},
        stock=" ".join(stock),
        phase="draw",
        **overrides,
    )
    do(game, DRAW_STOCK)
    assert stock_len(game) == left and hand(game, 0) == cards("6h 7h 8h Kd Kc Jh")
    do_open(game, "6h 7h 8h")  # the last turn is a whole turn
    do_discard(game, "Jh")
    if left <= stock_end:
        assert sc(game, S_PHASE) == PHASE_OVER and sc(game, S_END_REASON) == END_STOCK
        assert sc(game, S_WENT_OUT) == -1
        assert melds(game, 0) == [cards("Ks Kd Kh"), cards("6h 7h 8h")]
        assert pile(game) == [card("Jh")]
    else:
        assert sc(game, S_PHASE) == PHASE_DRAW and sc(game, S_PLAYER) == 1


@pytest.mark.parametrize("variant", ["argentine", "colombian"])
def test_stock_end_last_turn_may_take_a_direct_muerto_and_score_it(variant):
    muerto = "3d 4d 6d Qs Qs Jd Jd Ts Td Th Ah"
    game = build_game(
        variant,
        hands={0: "6h 7h 8h 9h Th", 1: "4d", 2: "5d", 3: "Kc"},
        melds={0: [CLEAN], 1: ["Ks Kd Kh"]},
        muertos={0: [muerto]},
        stock="Jh",
        phase="draw",
    )
    do(game, DRAW_STOCK)
    do_open(game, "6h 7h 8h")
    for c in ("9h", "Th", "Jh"):
        do_add(game, c, 1)
    assert muerto_status(game, 0)[0] == MUERTO_TAKEN and len(hand(game, 0)) == 11
    do_open(game, "Ts Td Th")
    do_discard(game, "Ah")
    assert sc(game, S_END_REASON) == END_STOCK
    rest = 5 * 3 + 10 * 4  # the muerto's 3d 4d 6d Qs Qs Jd Jd left in hand
    if variant == "argentine":
        # table: CLEAN 55, 6h-Jh 50, Ts Td Th 30; one canasta; muerto taken; hands
        expected = [[135, 200, 0, 0, 0, -(rest + 5)], [30, 0, 0, 0, -100, -(5 + 10)]]
    else:
        # colombian: the 6-card run is no canasta; +100 for the muerto; team 1 negative
        expected = [[80, 200, 0, 100, 0, -(rest + 5)], [-30, 0, 0, 0, -100, -(5 + 10)]]
    assert_scores(game, None, expected)


@pytest.mark.parametrize("variant", ["argentine", "italian"])
@pytest.mark.parametrize("end", ["stock", "max_turns"])
def test_indirect_muerto_on_the_last_turn_scores_as_not_taken(variant, end):
    muerto = "3d 4d 6d Qs Qs Jd Jd Ts Td Th Ah"
    stock = "Qh Qh Jh" if variant == "italian" else "Jh"  # the draw leaves stock_end cards
    if end == "max_turns":
        stock = "Qh Qh Qd Qd Jh"
    game = build_game(
        variant,
        hands={0: "6h 7h 8h", 1: "4d"},
        melds={0: [CLEAN], 1: ["Ks Kd Kh"]},
        muertos={0: [muerto]},
        stock=stock,
        phase="draw",
        turn=399 if end == "max_turns" else 1,
    )
    do(game, DRAW_STOCK)
    do_open(game, "6h 7h 8h")
    do_discard(game, "Jh")  # the hand empties by the discard: the muerto, then the end
    assert sc(game, S_END_REASON) == (END_STOCK if end == "stock" else END_MAX_TURNS)
    assert hand(game, 0) == cards(muerto)
    # the muerto scores -100 and its cards are not charged; CLEAN 55 + 6h 7h 8h 20
    assert_scores(game, None, [[75, 200, 0, 0, -100, 0], [30, 0, 0, 0, -100, -5]])


# ====================================================================== muerto_refills_stock
@pytest.mark.parametrize(
    ("variant", "overrides", "rule"),
    [
        ("brazilian", {"muerto_pot": "team"}, True),
        ("argentine", {}, False),
        ("italian", {"stock_end": 0}, False),
        ("colombian", {}, False),
        ("argentine", {"muerto_refills_stock": True}, True),
        ("brazilian", {"muerto_refills_stock": False}, False),
    ],
)
def test_muerto_refills_stock(variant, overrides, rule):
    """Per-team muertos (muerto_pot team): team 0's becomes the stock first. The shared pot
    of brazilian is tested in test_core_rules_v1.py."""
    m0 = "3d 4d 6d Qs Qs Jd Jd Ts Td Th Ah"
    m1 = "3h 4h 6s Qd Qd Js Js Tc Th Td Ad"

    def game_with(**kw):
        return build_game(
            variant,
            hands={0: "Kd Kc Qh", 1: "4d 5h"},
            melds={0: ["Ks Kd Kh"], 1: ["9c 9d 9h"]},
            muertos={0: [m0], 1: [m1]},
            stock="Jh",
            phase="draw",
            **overrides,
            **kw,
        )

    game = game_with()
    do(game, DRAW_STOCK)
    if not rule:
        assert stock_len(game) == 0
        do_discard(game, "Jh")
        assert sc(game, S_END_REASON) == END_STOCK
        return
    # team 0's muerto (first) becomes the stock: the hand goes on
    assert stock_len(game) == 11
    assert muerto_status(game, 0)[0] == MUERTO_STOCK
    assert muerto_status(game, 1)[0] == MUERTO_UNTAKEN
    assert sorted(game.state.stock[0, :11]) == cards(m0)
    do_discard(game, "Jh")
    assert sc(game, S_PHASE) == PHASE_DRAW and sc(game, S_PLAYER) == 1
    # team 0's muerto gone: team 1's is next
    game = game_with(muertos_taken={0: 1})
    do(game, DRAW_STOCK)
    assert muerto_status(game, 1)[0] == MUERTO_STOCK and stock_len(game) == 11
    # both gone: the stock end ends the hand
    game = game_with(muertos_taken={0: 1, 1: 1})
    do(game, DRAW_STOCK)
    do_discard(game, "Jh")
    assert sc(game, S_END_REASON) == END_STOCK
    # the refilled muerto scores as not taken: end the hand by the turn limit
    game = game_with(turn=399)
    do(game, DRAW_STOCK)
    do_discard(game, "Jh")
    assert sc(game, S_END_REASON) == END_MAX_TURNS
    assert muerto_status(game, 0)[0] == MUERTO_STOCK
    # team 0: K group 30, not taken -100, hand Kd Kc Qh; team 1: 9s 30, -100, 4d 5h
    assert_scores(game, None, [[30, 0, 0, 0, -100, -30], [30, 0, 0, 0, -100, -10]])


# ====================================================================== max_turns
@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize(
    ("overrides", "turn", "ends"),
    [
        ({}, 398, False),
        ({}, 399, True),
        ({"max_turns": 10}, 8, False),
        ({"max_turns": 10}, 9, True),
    ],
)
def test_max_turns(variant, overrides, turn, ends):
    game = build_game(
        variant,
        hands={0: "Kd Kc Qh", 1: "4d 5h"},
        melds={0: ["Ks Kd Kh"], 1: ["9c 9d 9h"]},
        turn=turn,
        **overrides,
    )
    do_discard(game, "Qh")
    assert sc(game, S_TURN) == turn + 1
    if ends:
        assert sc(game, S_PHASE) == PHASE_OVER and sc(game, S_END_REASON) == END_MAX_TURNS
        assert game.done[0]
    else:
        assert sc(game, S_PHASE) == PHASE_DRAW and not game.done[0]


# ====================================================================== the match
def finish_game(variant, match, episode="match"):
    """Team 0 goes out by discarding its last card; team 1 holds a group and a card."""
    return build_game(
        variant,
        hands={0: "Kh", 1: "5d"},
        melds={0: [CLEAN], 1: ["Qs Qd Qh"]},
        muertos_taken={0: 1, 1: 1},
        match_scores=match,
        episode=episode,
    )


@pytest.mark.parametrize("variant", VARIANTS)
def test_match_to_target(variant):
    game = finish_game(variant, (0, 0))
    target = game.variant.target
    do_discard(game, "Kh")
    h0, h1 = (int(x) for x in game.hand_scores[0])
    assert h0 > h1 > 0
    # nobody at the target: the next hand is dealt, seat 1 first
    assert not game.done[0] and sc(game, S_HANDS_ENDED) == 1
    assert sc(game, S_HAND_INDEX) == 1 and sc(game, S_FIRST_PLAYER) == 1
    assert sc(game, S_PLAYER) == 1 and sc(game, S_PHASE) in (PHASE_PEEK, PHASE_DRAW)
    assert list(game.match_scores[0]) == [h0, h1]
    # the finished hand's items stay readable while the next hand is played
    assert list(game.score_items[0].sum(axis=1)) == [h0, h1]
    assert len(hand(game, 1)) == 11 and melds(game, 0) == []
    # team 0 reaches the target: it wins
    game = finish_game(variant, (target - h0, 0))
    do_discard(game, "Kh")
    assert game.done[0] and game.winner[0] == 0 and sc(game, S_PHASE) == PHASE_OVER
    assert list(game.match_scores[0]) == [target, h1]
    # one point short: no winner yet
    game = finish_game(variant, (target - h0 - 1, 0))
    do_discard(game, "Kh")
    assert not game.done[0] and game.winner[0] == -1
    # both over the target: the team with more points wins, even if it did not go out
    game = finish_game(variant, (target - h0, target - h1 + 1))
    do_discard(game, "Kh")
    assert game.done[0] and game.winner[0] == 1
    assert game.match_scores[0, 1] == game.match_scores[0, 0] + 1
    # a tie over the target plays another hand
    game = finish_game(variant, (target - h0 + 5, target - h1 + 5))
    do_discard(game, "Kh")
    assert not game.done[0] and game.winner[0] == -1
    assert game.match_scores[0, 0] == game.match_scores[0, 1] == target + 5
    assert sc(game, S_HAND_INDEX) == 1


@pytest.mark.parametrize(("target", "done"), [(300, True), (355, True), (356, False)])
def test_match_target_parameter(target, done):
    game = build_game(
        "argentine",
        hands={0: "Kh", 1: "5d"},
        melds={0: [CLEAN], 1: ["Qs Qd Qh"]},
        muertos_taken={0: 1, 1: 1},
        episode="match",
        target=target,
    )
    do_discard(game, "Kh")
    assert list(game.match_scores[0]) == [355, 25]
    assert game.done[0] == done and game.winner[0] == (0 if done else -1)


def test_hand_episode_winner():
    game = finish_game("argentine", (0, 0), episode="hand")
    do_discard(game, "Kh")
    assert game.done[0] and game.winner[0] == 0
    assert list(game.hand_scores[0]) == [355, 25]
    assert np.array_equal(game.match_scores[0], game.hand_scores[0])
    assert sc(game, S_END_REASON) == END_WENT_OUT and sc(game, S_HAND_INDEX) == 0


@pytest.mark.parametrize(("max_hands", "done"), [(1, True), (2, False)])
def test_match_max_hands(max_hands, done):
    # (choice) a match also ends after max_hands hands: the higher total wins
    game = build_game(
        "argentine",
        hands={0: "Kh", 1: "5d"},
        melds={0: [CLEAN], 1: ["Qs Qd Qh"]},
        muertos_taken={0: 1, 1: 1},
        episode="match",
        max_hands=max_hands,
    )
    do_discard(game, "Kh")
    assert list(game.match_scores[0]) == [355, 25]
    assert game.done[0] == done and game.winner[0] == (0 if done else -1)
