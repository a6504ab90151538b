"""Rule tests of the core: a turn (RULES.md 4): the draw and the pile, the minimum first
meld, the discard restrictions and the never-stuck rule (5)."""

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
    known,
    legal,
    melds,
    muerto_status,
    open_action,
    pile,
    refresh,
    refused,
    sc,
)

from burako_env.core.actions import add_action, discard_action
from burako_env.core.constants import (
    DRAW_STOCK,
    ERR_CLOSE_WITH_WILD,
    ERR_MIN_FIRST_MELD,
    ERR_OK,
    ERR_PILE_EMPTY,
    ERR_PILE_TOO_SMALL,
    ERR_REDISCARD,
    ERR_TURN_UNFINISHABLE,
    ERR_WILD_DISCARD,
    HOW_DIRECT,
    JOKER,
    MUERTO_TAKEN,
    MUERTO_UNTAKEN,
    PEEK_KEEP,
    PEEK_REJECT,
    PHASE_DRAW,
    PHASE_PLAY,
    S_MIN_EXTRA0,
    S_NO_DISCARD,
    S_OPENED0,
    S_PHASE,
    S_PLAYER,
    S_WENT_OUT,
    TAKE_MUERTO_KEEP_WILDS,
    TAKE_PILE,
)
from burako_env.scenario import build_game


# ====================================================================== the draw
@pytest.mark.parametrize(
    ("variant", "overrides", "minimum"),
    [
        ("argentine", {}, 5),
        ("italian", {}, 0),
        ("brazilian", {}, 0),
        ("colombian", {}, 0),
        ("argentine", {"pile_min_total": 0}, 0),
        ("italian", {"pile_min_total": 5}, 5),
    ],
)
def test_pile_min_total(variant, overrides, minimum):
    def game_with(pile_text):
        return build_game(
            variant,
            hands={0: "Kd Qs Jd"},
            melds={0: ["5s 6s 7s"]},
            pile=pile_text,
            phase="draw",
            **overrides,
        )

    refused(game_with(""), TAKE_PILE, ERR_PILE_EMPTY)
    game = game_with("9h")  # 1 + 3 = 4 cards
    if minimum > 4:
        refused(game, TAKE_PILE, ERR_PILE_TOO_SMALL)
        assert legal(game) == [DRAW_STOCK]
    else:
        do(game, TAKE_PILE)
        assert hand(game, 0) == cards("Kd Qs Jd 9h")
    game = game_with("9h 9s")  # 2 + 3 = 5 cards: enough at 5
    do(game, TAKE_PILE)
    assert hand(game, 0) == cards("Kd Qs Jd 9h 9s")
    assert pile(game) == [] and sc(game, S_PHASE) == PHASE_PLAY


@pytest.mark.parametrize("variant", ["argentine", "italian", "brazilian", "colombian"])
def test_taking_the_whole_pile_is_public(variant):
    game = build_game(
        variant,
        hands={0: "Kd Qs Jd 4h"},
        melds={0: ["5s 6s 7s"]},
        pile="9h 3d Ts 3d",
        phase="draw",
    )
    do(game, TAKE_PILE)
    assert hand(game, 0) == cards("Kd Qs Jd 4h 9h 3d Ts 3d")
    assert known(game, 0) == cards("9h 3d Ts 3d")
    assert pile(game) == []
    # playing a card taken from the pile makes it no longer known
    do_discard(game, "3d")
    assert known(game, 0) == cards("9h 3d Ts")


# ====================================================================== rediscard rules
@pytest.mark.parametrize(
    ("variant", "overrides", "rule"),
    [
        ("italian", {}, True),
        ("argentine", {}, False),
        ("brazilian", {}, False),
        ("colombian", {}, False),
        ("argentine", {"pile_no_rediscard": True}, True),
        ("italian", {"pile_no_rediscard": False}, False),
    ],
)
def test_pile_no_rediscard(variant, overrides, rule):
    def game_with(hand_text, pile_text):
        return build_game(
            variant,
            hands={0: hand_text},
            melds={0: ["5s 6s 7s"]},
            pile=pile_text,
            phase="draw",
            stock="Kh Kh Qh",
            **overrides,
        )

    game = game_with("Kd Qs Jd 4h", "9h")
    do(game, TAKE_PILE)
    if rule:
        assert sc(game, S_NO_DISCARD) == card("9h")
        refused(game, discard_action(card("9h")), ERR_REDISCARD)
    else:
        assert sc(game, S_NO_DISCARD) == -1
        assert discard_action(card("9h")) in legal(game)
    do_discard(game, "Kd")
    # the bar lasts one turn
    assert sc(game, S_PLAYER) == 1 and sc(game, S_NO_DISCARD) == -1
    # a copy held before the draw: the card may go back
    game = game_with("Kd Qs 9h 4h", "9h")
    do(game, TAKE_PILE)
    assert sc(game, S_NO_DISCARD) == -1
    do_discard(game, "9h")
    assert pile(game) == [card("9h")] and hand(game, 0) == cards("Kd Qs 9h 4h")
    # a pile of two cards: no bar
    game = game_with("Kd Qs Jd 4h", "9h 8d")
    do(game, TAKE_PILE)
    do_discard(game, "9h")
    assert hand(game, 0) == cards("Kd Qs Jd 4h 8d")


@pytest.mark.parametrize(
    ("variant", "overrides", "rule"),
    [
        ("brazilian", {}, True),
        ("argentine", {}, False),
        ("colombian", {}, False),
        ("argentine", {"peek_no_rediscard": True}, True),
        ("brazilian", {"peek_no_rediscard": False}, False),
    ],
)
def test_peek_no_rediscard(variant, overrides, rule):
    def game_with(hand_text):
        return build_game(
            variant,
            hands={0: hand_text},
            melds={0: ["5s 6s 7s"]},
            phase="peek",
            peek_card="9h",
            stock="Kh Kh Qh",
            **overrides,
        )

    game = game_with("Kd Qs Jd 4h")
    assert legal(game) == [PEEK_KEEP, PEEK_REJECT]
    do(game, PEEK_KEEP)
    assert hand(game, 0) == cards("Kd Qs Jd 4h 9h") and known(game, 0) == []
    if rule:
        refused(game, discard_action(card("9h")), ERR_REDISCARD)
    else:
        do_discard(game, "9h")
        assert pile(game) == [card("9h")]
        return
    do_discard(game, "Kd")
    assert pile(game) == [card("Kd")]
    # another 9h held before: the kept copy may go
    game = game_with("Kd Qs 9h 4h")
    do(game, PEEK_KEEP)
    do_discard(game, "9h")
    # rejected: the 9h lies on the pile, the Qh drawn instead may be discarded
    game = game_with("Kd Qs Jd 4h")
    do(game, PEEK_REJECT)
    assert pile(game) == [card("9h")] and hand(game, 0) == cards("Kd Qs Jd 4h Qh")
    do_discard(game, "Qh")
    assert pile(game) == [card("9h"), card("Qh")]


# ====================================================================== min_first_meld
def brazilian(hands, **kwargs):
    kwargs.setdefault("melds", {1: ["Kh Ks Kd"]})
    return build_game("brazilian", hands=hands, **kwargs)


def test_min_first_meld_fails_and_cards_return():
    game = brazilian({0: "3h 4h 5h Kd Qs"})
    assert sc(game, S_OPENED0) == 0
    do_open(game, "3h 4h 5h")  # 15 points, below 50
    assert melds(game, 0) == [cards("3h 4h 5h")]
    do_discard(game, "Kd")
    assert melds(game, 0) == []
    assert hand(game, 0) == cards("3h 4h 5h Qs")
    assert known(game, 0) == cards("3h 4h 5h")  # returned cards are seen by all
    assert pile(game) == [card("Kd")]
    assert sc(game, S_MIN_EXTRA0) == 15 and sc(game, S_OPENED0) == 0
    assert sc(game, S_PLAYER) == 1 and sc(game, S_PHASE) == PHASE_DRAW


def test_min_first_meld_may_discard_a_returned_card():
    game = brazilian({0: "3h 4h 5h Kd Qs"})
    do_open(game, "3h 4h 5h")
    assert discard_action(card("5h")) in legal(game)
    do_discard(game, "5h")
    assert melds(game, 0) == [] and hand(game, 0) == cards("3h 4h Kd Qs")
    assert known(game, 0) == cards("3h 4h")
    assert pile(game) == [card("5h")]


@pytest.mark.parametrize(
    ("match", "extra", "meld_texts", "adds", "stays"),
    [
        ((0, 0), 0, ["4h 5h 6h", "Kc Kd Ks"], ["7h"], True),  # exactly 50
        ((0, 0), 0, ["4h 5h 6h", "Kc Kd Ks"], [], False),  # 45
        ((1499, 0), 0, ["4h 5h 6h", "Kc Kd Ks"], ["7h"], True),  # 50 below 1500
        ((1500, 0), 0, ["4h 5h 6h", "Kc Kd Ks"], ["7h"], False),  # 50 < 75
        ((1500, 0), 0, ["Ah Ad As", "Kc Kd Ks"], [], True),  # 75
        ((0, 0), 15, ["Qh Qd Qs", "Kc Kd Ks"], [], False),  # 60 < 65 after one failure
        ((0, 0), 15, ["Qh Qd Qc", "Kc Kd Ks"], ["Qs"], True),  # 70
    ],
)
def test_min_first_meld_threshold(match, extra, meld_texts, adds, stays):
    all_cards = " ".join(meld_texts + adds)
    game = brazilian({0: all_cards + " Jd 9s"}, match_scores=match)
    game.state.scalars[0, S_MIN_EXTRA0] = extra
    refresh(game)
    for text in meld_texts:
        do_open(game, text)
    for c in adds:
        do_add(game, c, 0)
    do_discard(game, "9s")
    if stays:
        assert len(melds(game, 0)) == 2 and hand(game, 0) == cards("Jd")
        assert sc(game, S_OPENED0) == 1 and sc(game, S_MIN_EXTRA0) == extra
    else:
        assert melds(game, 0) == [] and hand(game, 0) == cards(all_cards + " Jd")
        assert sc(game, S_OPENED0) == 0 and sc(game, S_MIN_EXTRA0) == extra + 15


@pytest.mark.parametrize("seat", [0, 1])
@pytest.mark.parametrize(("own", "other", "stays"), [(1499, 1500, True), (1500, 1499, False)])
def test_min_first_meld_reads_the_teams_own_match_score(seat, own, other, stays):
    """Each team's minimum (50, or 75 from 1500 match points) follows its **own** match
    score: a 50-point first meld stays for the team just below 1500 and goes back for the
    team at 1500, whichever team plays and whatever the other team holds."""
    team = seat % 2
    scores = (own, other) if team == 0 else (other, own)
    game = build_game(
        "brazilian",
        hands={seat: "4h 5h 6h 7h Kc Kd Ks Jd 9s"},
        melds={1 - team: ["Qh Qs Qd"]},
        player=seat,
        match_scores=scores,
    )
    do_open(game, "4h 5h 6h")
    do_open(game, "Kc Kd Ks")
    do_add(game, "7h", 0)  # 20 + 30 = 50 points
    do_discard(game, "9s")
    if stays:
        assert len(melds(game, team)) == 2 and hand(game, seat) == cards("Jd")
        assert sc(game, S_OPENED0 + team) == 1 and sc(game, S_MIN_EXTRA0 + team) == 0
    else:
        assert melds(game, team) == [] and hand(game, seat) == cards("4h 5h 6h 7h Kc Kd Ks Jd")
        assert sc(game, S_OPENED0 + team) == 0 and sc(game, S_MIN_EXTRA0 + team) == 15
    assert sc(game, S_MIN_EXTRA0 + 1 - team) == 0  # the other team's minimum is untouched


def test_min_first_meld_once_opened_the_partner_melds_freely():
    game = brazilian({0: "3h 4h 5h Kd Qs"}, opened=(1, 0))
    do_open(game, "3h 4h 5h")
    do_discard(game, "Kd")
    assert melds(game, 0) == [cards("3h 4h 5h")] and sc(game, S_MIN_EXTRA0) == 0


def test_below_the_minimum_no_muerto_and_no_going_out():
    # the meld would empty the hand: a direct muerto, refused below the minimum
    game = brazilian({0: "3h 4h 5h"})
    refused(game, open_action("3h 4h 5h"), ERR_MIN_FIRST_MELD)
    game = brazilian({0: "3h 4h 5h 6h"})
    do_open(game, "3h 4h 5h")
    refused(game, add_action(card("6h"), 0), ERR_MIN_FIRST_MELD)
    # at 60 points the same emptying meld takes the muerto
    game = brazilian({0: "Qh Qd Qs Kc Kd Ks"}, melds={})
    do_open(game, "Kc Kd Ks")
    do_open(game, "Qh Qd Qs")
    assert muerto_status(game, 0)[0] == MUERTO_TAKEN
    assert game.state.muerto_how[0, 0, 0] == HOW_DIRECT
    assert len(hand(game, 0)) == 11 and sc(game, S_PHASE) == PHASE_PLAY
    # with the muertos gone: going out below the minimum is refused for that reason
    game = brazilian({0: "3h 4h 5h"}, muertos_taken={0: 1})
    refused(game, open_action("3h 4h 5h"), ERR_MIN_FIRST_MELD)
    # one card left below the minimum: its discard sends the melds back, no muerto
    game = brazilian({0: "3h 4h 5h Kd"})
    do_open(game, "3h 4h 5h")
    do_discard(game, "Kd")
    assert hand(game, 0) == cards("3h 4h 5h") and muerto_status(game, 0)[0] == MUERTO_UNTAKEN


@pytest.mark.parametrize(
    ("variant", "overrides", "rule"),
    [
        ("brazilian", {}, True),
        ("argentine", {}, False),
        ("italian", {}, False),
        ("colombian", {}, False),
        ("brazilian", {"min_first_meld": 0}, False),
        ("argentine", {"min_first_meld": 50}, True),
    ],
)
def test_min_first_meld_parameter(variant, overrides, rule):
    game = build_game(variant, hands={0: "3h 4h 5h Kd Qs"}, melds={1: ["Kh Ks Kd"]}, **overrides)
    do_open(game, "3h 4h 5h")
    do_discard(game, "Kd")
    if rule:
        assert melds(game, 0) == [] and hand(game, 0) == cards("3h 4h 5h Qs")
        assert sc(game, S_MIN_EXTRA0) == 15
    else:
        assert melds(game, 0) == [cards("3h 4h 5h")] and hand(game, 0) == cards("Qs")
        assert sc(game, S_MIN_EXTRA0) == 0


# ====================================================================== discard restrictions
@pytest.mark.parametrize(
    ("variant", "overrides", "rule"),
    [
        ("colombian", {}, True),
        ("argentine", {}, False),
        ("italian", {}, False),
        ("brazilian", {}, False),
        ("argentine", {"no_wild_discard": True}, True),
        ("colombian", {"no_wild_discard": False}, False),
    ],
)
def test_no_wild_discard(variant, overrides, rule):
    game = build_game(variant, hands={0: "2c * Kd Qs"}, melds={0: ["5s 6s 7s"]}, **overrides)
    if rule:
        refused(game, discard_action(card("2c")), ERR_WILD_DISCARD)
        refused(game, discard_action(JOKER), ERR_WILD_DISCARD)
        do_discard(game, "Kd")
    else:
        do_discard(game, "*")
        assert pile(game) == [JOKER]


@pytest.mark.parametrize(
    ("variant", "overrides", "rule"),
    [
        ("italian", {}, True),
        ("argentine", {}, False),
        ("brazilian", {}, False),
        ("colombian", {"no_wild_discard": False}, False),
        ("argentine", {"close_discard_not_wild": True}, True),
        ("italian", {"close_discard_not_wild": False}, False),
    ],
)
def test_close_discard_not_wild(variant, overrides, rule):
    table = {0: ["5s 6s 7s 8s 9s Ts Js"]}  # a clean canasta: every variant may go out

    def game_with(hand_text, **kw):
        return build_game(variant, hands={0: hand_text}, melds=table, **overrides, **kw)

    # the discard that goes out
    game = game_with("*", muertos_taken={0: 1})
    if rule:
        refused(game, discard_action(JOKER), ERR_CLOSE_WITH_WILD)
    else:
        do(game, discard_action(JOKER))
        assert game.done[0] and sc(game, S_WENT_OUT) == 0
    # a meld that leaves only a wild to go out with: the wild may not be the discard, so
    # the turn is finished by laying it (going out by melding), where that is allowed
    game = game_with("7h 8h 9h *", muertos_taken={0: 1})
    by_melding = not game.variant.close_requires_discard
    if rule and not by_melding:
        refused(game, open_action("7h 8h 9h"), ERR_TURN_UNFINISHABLE)
    else:
        do_open(game, "7h 8h 9h")
        if rule:
            assert legal(game) == sorted([add_action(JOKER, 0), add_action(JOKER, 1)])
            do(game, add_action(JOKER, 1))
            assert game.done[0] and sc(game, S_WENT_OUT) == 0
    # a 2 is as wild as a joker when it is discarded (it stands in no run there)
    game = game_with("2c", muertos_taken={0: 1})
    if rule:
        refused(game, discard_action(card("2c")), ERR_CLOSE_WITH_WILD)
    else:
        do_discard(game, "2c")
        assert game.done[0] and sc(game, S_WENT_OUT) == 0
    # a wild discard that does not go out, or that takes the muerto, is fine
    game = game_with("* Kd", muertos_taken={0: 1})
    do(game, discard_action(JOKER))
    assert hand(game, 0) == cards("Kd")
    game = game_with("*")
    do(game, discard_action(JOKER))
    assert muerto_status(game, 0)[0] != MUERTO_UNTAKEN


# ====================================================================== never stuck
def test_never_stuck_hand_of_wilds_gets_a_discard():
    # colombian: two wilds, no meld can take them (the group has its wild), the muerto is
    # gone: no_wild_discard is lifted for this discard
    game = build_game(
        "colombian",
        hands={0: "2c 2d", 1: "Kd"},
        melds={0: ["8h 8s 8d *"]},
        muertos_taken={0: 1},
    )
    assert legal(game) == [discard_action(card("2c")), discard_action(card("2d"))]
    assert game.action_error(discard_action(card("2c"))) == ERR_OK
    do_discard(game, "2d")
    assert pile(game) == [card("2d")] and hand(game, 0) == cards("2c")
    # with a muerto left, the hand of two wilds takes it instead: nothing is lifted
    game = build_game("colombian", hands={0: "2c 2d", 1: "Kd"}, melds={0: ["8h 8s 8d *"]})
    assert legal(game) == [TAKE_MUERTO_KEEP_WILDS]
    refused(game, discard_action(card("2c")), ERR_WILD_DISCARD)
    # with a meld that can take a wild, nothing is lifted either (the wild goes there)
    game = build_game(
        "colombian", hands={0: "2c 2d 9h"}, melds={0: ["8h 8s 8d"]}, muertos_taken={0: 1}
    )
    refused(game, discard_action(card("2c")), ERR_WILD_DISCARD)
    assert add_action(card("2c"), 0) in legal(game)
