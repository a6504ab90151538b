"""Rule tests of the numba core (RULES.md sections 3 to 8): helpers, the deal (3) and
illegal actions.

Every test draws a fixed table with :func:`build_game` (or deals with a fixed seed),
plays a list of actions and asserts the table, the hands and the scores concretely.
The other ``test_core_rules_*.py`` files import the helpers below.
"""

from __future__ import annotations

import re

import numpy as np
import pytest
from conftest import (
    card,
    cards,
    do_add,
    do_discard,
    hand,
    known,
    legal,
    melds,
    pile,
    refused,
    sc,
    stock_len,
)

from burako_env.cards import JOKER, NUM_CARD_TYPES, format_cards, is_wild
from burako_env.core.actions import (
    add_action,
    decode_action,
    describe_action,
    discard_action,
)
from burako_env.core.constants import (
    DRAW_STOCK,
    ERR_CLOSE_WITH_WILD,
    ERR_DOES_NOT_FIT,
    ERR_GAME_OVER,
    ERR_OK,
    ERR_OUT_OF_RANGE,
    ERR_PILE_TOO_SMALL,
    ERR_WILD_DISCARD,
    ERR_WRONG_PHASE,
    ERROR_MESSAGES,
    MUERTO_ABSENT,
    MUERTO_UNTAKEN,
    NUM_ACTIONS,
    PEEK_KEEP,
    PEEK_REJECT,
    PHASE_DRAW,
    PHASE_PEEK,
    PHASE_PLAY,
    S_DEALER,
    S_FIRST_PLAYER,
    S_HAND_INDEX,
    S_NO_DISCARD,
    S_PEEK_CARD,
    S_PHASE,
    S_PLAYER,
    TAKE_PILE,
)
from burako_env.core.game import Game, IllegalActionError
from burako_env.core.state import copy_state, states_equal
from burako_env.scenario import build_game


def test_a_step_takes_its_action_from_the_legal_list_and_names_a_stale_one():
    """The stepping kernels accept what the legal list holds (the mask tests hold it equal
    to action_error); a list left out of date by a hand edit is named, nothing moves."""
    for batch in (1, 2):  # the one-game kernel and the batch kernel
        game = Game("argentine", num_players=4, batch_size=batch, seed=5)
        actions = np.array([game.legal_actions(b)[0] for b in range(batch)], np.int64)
        assert game.action_error(int(actions[0])) == ERR_OK
        game.state.num_legal[0] = 0  # what an edit of the hand without refresh_legal leaves
        before = copy_state(game.state)
        with pytest.raises(RuntimeError, match=r"game 0: .* call Game.refresh_legal\(\)"):
            game.step(actions)
        assert states_equal(before, game.state)
        game.refresh_legal()
        game.step(actions)
        assert not states_equal(before, game.state)


# ====================================================================== 3. the deal
def deck_counts(game: Game) -> np.ndarray:
    v = game.variant
    want = np.full(NUM_CARD_TYPES, v.decks, np.int64)
    want[JOKER] = v.decks * v.jokers_per_deck
    return want


def table_counts(game: Game, b: int) -> np.ndarray:
    """Every card of game ``b`` wherever it lies (hands, muertos, stock, pile, peek)."""
    st = game.state
    got = st.hands[b].sum(axis=0).astype(np.int64)
    for t in range(2):
        for m in range(game.variant.muertos_per_team):
            for c in st.muertos[b, t, m]:
                got[c] += 1
    for c in st.stock[b, : st.stock_len[b]]:
        got[c] += 1
    for c in st.pile[b, : st.pile_len[b]]:
        got[c] += 1
    if st.scalars[b, S_PEEK_CARD] >= 0:
        got[st.scalars[b, S_PEEK_CARD]] += 1
    return got


@pytest.mark.parametrize(
    ("variant", "players", "hand_size", "muertos"),
    [
        ("argentine", 2, 22, 1),
        ("argentine", 4, 11, 1),
        ("italian", 2, 11, 1),
        ("italian", 4, 11, 1),
        ("brazilian", 4, 11, 1),
        ("colombian", 4, 11, 1),
        ("colombian", 6, 11, 2),
        ("colombian", 8, 11, 3),
    ],
)
def test_deal_sizes_and_every_card_somewhere(variant, players, hand_size, muertos):
    game = Game(variant, num_players=players, batch_size=64, seed=3)
    st = game.state
    v = game.variant
    assert v.hand_size == hand_size and v.muertos_per_team == muertos
    for b in range(64):
        assert np.array_equal(table_counts(game, b), deck_counts(game))
        cutter = (players - 2) % players  # hand 0: dealer players - 1, cutter before it
        kept = int(st.known[b, cutter].sum())
        # the cutter's kept wilds (colombian) count in the hand: it is dealt that many fewer
        for p in range(players):
            assert st.hands[b, p].sum() == hand_size
            assert st.known[b, p].sum() == (kept if p == cutter else 0)
        for t in range(2):
            status = [int(s) for s in st.muerto_status[b, t]]
            assert status == [MUERTO_UNTAKEN] * muertos + [MUERTO_ABSENT] * (3 - muertos)
        upcard = v.opening_first == "upcard"
        assert st.pile_len[b] == (1 if upcard else 0)
        assert (st.scalars[b, S_PEEK_CARD] >= 0) == (not upcard)
        assert st.stock_len[b] == v.total_cards - players * hand_size - 2 * muertos * 11 - 1
        assert st.scalars[b, S_PHASE] == (PHASE_DRAW if upcard else PHASE_PEEK)
        assert st.scalars[b, S_DEALER] == players - 1
        assert st.scalars[b, S_PLAYER] == st.scalars[b, S_FIRST_PLAYER] == 0


@pytest.mark.parametrize("variant", ["argentine", "brazilian", "colombian"])
def test_peek_keep(variant):
    game = Game(variant, seed=11)
    peek = sc(game, S_PEEK_CARD)
    before = hand(game, 0)
    n_stock = stock_len(game)
    assert sc(game, S_PHASE) == PHASE_PEEK and pile(game) == []
    assert legal(game) == [PEEK_KEEP, PEEK_REJECT]
    game.step_one(PEEK_KEEP)
    assert hand(game, 0) == sorted(before + [peek])
    assert pile(game) == [] and stock_len(game) == n_stock
    assert sc(game, S_PHASE) == PHASE_PLAY and sc(game, S_PEEK_CARD) == -1
    assert known(game, 0) == []  # a kept peeked card stays private


@pytest.mark.parametrize("variant", ["argentine", "brazilian", "colombian"])
def test_peek_reject_lays_the_card_and_draws_the_next(variant):
    game = Game(variant, seed=12)
    peek = sc(game, S_PEEK_CARD)
    before = hand(game, 0)
    n_stock = stock_len(game)
    next_card = int(game.state.stock[0, n_stock - 1])
    game.step_one(PEEK_REJECT)
    assert pile(game) == [peek]
    assert hand(game, 0) == sorted(before + [next_card])
    assert stock_len(game) == n_stock - 1
    assert sc(game, S_PHASE) == PHASE_PLAY and sc(game, S_PLAYER) == 0


def test_upcard_opening_italian():
    game = Game("italian", seed=13)
    assert sc(game, S_PHASE) == PHASE_DRAW and sc(game, S_PEEK_CARD) == -1
    (up,) = pile(game)
    assert legal(game) == [DRAW_STOCK, TAKE_PILE]
    refused(game, PEEK_KEEP, ERR_WRONG_PHASE)
    held = game.state.hands[0, 0, up]
    before = hand(game, 0)
    game.step_one(TAKE_PILE)
    assert hand(game, 0) == sorted(before + [up]) and pile(game) == []
    assert game.state.known[0, 0, up] == 1  # a card taken from the pile is public
    # pile_no_rediscard: the one-card pile's card may not go back unless a copy was held
    assert sc(game, S_NO_DISCARD) == (-1 if held else up)


def _finish_turn(game: Game) -> None:
    """Open the turn (keep the peek / draw) and discard the first legal discard."""
    if sc(game, S_PHASE) == PHASE_PEEK:
        game.step_one(PEEK_KEEP)
    elif sc(game, S_PHASE) == PHASE_DRAW:
        game.step_one(DRAW_STOCK)
    discards = [a for a in legal(game) if decode_action(a).kind == "discard"]
    game.step_one(discards[0])


@pytest.mark.parametrize(
    ("variant", "first", "later"),
    [
        ("argentine", "peek", "peek"),
        ("italian", "upcard", "upcard"),
        ("brazilian", "peek", "upcard"),
        ("colombian", "peek", "peek"),
    ],
)
def test_opening_first_and_later_hands(variant, first, later):
    game = Game(variant, episode="match", seed=5, max_turns=1)
    for k, want in enumerate([first, later, later]):
        assert sc(game, S_HAND_INDEX) == k
        if want == "peek":
            assert sc(game, S_PHASE) == PHASE_PEEK and pile(game) == []
            assert sc(game, S_PEEK_CARD) >= 0
        else:
            assert sc(game, S_PHASE) == PHASE_DRAW and len(pile(game)) == 1
            assert sc(game, S_PEEK_CARD) == -1
        _finish_turn(game)


def test_opening_overrides():
    game = Game("argentine", episode="match", seed=5, max_turns=1, opening_later="upcard")
    assert sc(game, S_PHASE) == PHASE_PEEK
    _finish_turn(game)
    assert sc(game, S_PHASE) == PHASE_DRAW and len(pile(game)) == 1
    game = Game("italian", seed=5, opening_first="peek")
    assert sc(game, S_PHASE) == PHASE_PEEK and pile(game) == []


@pytest.mark.parametrize(
    ("variant", "players"), [("argentine", 2), ("brazilian", 4), ("colombian", 6)]
)
def test_dealer_and_first_player_rotate_over_a_match(variant, players):
    game = Game(variant, num_players=players, episode="match", seed=8, max_turns=1)
    for k in range(2 * players + 1):
        assert sc(game, S_HAND_INDEX) == k
        assert sc(game, S_DEALER) == (k - 1) % players
        assert sc(game, S_FIRST_PLAYER) == k % players
        assert sc(game, S_PLAYER) == k % players
        assert not game.done[0]
        _finish_turn(game)


def test_play_goes_in_seat_order():
    game = build_game(
        "argentine",
        hands={0: "Kc Qd", 1: "Kd Qh", 2: "Ks Qs", 3: "Kh Qc"},
        phase="draw",
        stock="4h 3s 3d 3h 3s 4d",
    )
    drawn = []
    for p in (0, 1, 2, 3, 0):
        assert sc(game, S_PLAYER) == p and sc(game, S_PHASE) == PHASE_DRAW
        top = int(game.state.stock[0, stock_len(game) - 1])
        game.step_one(DRAW_STOCK)
        assert game.state.hands[0, p, top] >= 1
        game.step_one(discard_action(top))
        drawn.append(top)
    assert sc(game, S_PLAYER) == 1
    assert pile(game) == drawn
    assert drawn == [card(x) for x in "4d 3s 3h 3d 3s".split()]


def test_partners_share_melds_and_nobody_touches_the_opponents():
    game = build_game(
        "argentine",
        hands={0: "8s 8h Kc", 1: "8h 8s Kd", 2: "Kh Qh", 3: "Ks Qs"},
        melds={0: ["5s 6s 7s"], 1: ["5h 6h 7h"]},
    )
    # seat 0 adds to its team's run of spades; the 8h fits no meld of team 0
    assert add_action(card("8s"), 0) in legal(game)
    refused(game, add_action(card("8h"), 0), ERR_DOES_NOT_FIT)
    do_add(game, "8s", 0)
    assert melds(game, 0) == [cards("5s 6s 7s 8s")]
    assert melds(game, 1) == [cards("5h 6h 7h")]
    do_discard(game, "Kc")
    game.step_one(DRAW_STOCK)
    # seat 1 (team 1): its slot 0 is the run of hearts
    refused(game, add_action(card("8s"), 0), ERR_DOES_NOT_FIT)
    do_add(game, "8h", 0)
    assert melds(game, 1) == [cards("5h 6h 7h 8h")]
    assert melds(game, 0) == [cards("5s 6s 7s 8s")]


# ====================================================================== cutter_keeps_wilds
def test_cutter_keeps_wilds_in_the_deal():
    game = Game("colombian", batch_size=600, seed=21)
    st = game.state
    kept_seen = {0: 0, 1: 0, 2: 0}
    for b in range(600):
        cutter = 2  # hand 0: dealer 3, cutter 2
        kept = int(st.known[b, cutter].sum())
        kept_seen[kept] += 1
        for c in np.flatnonzero(st.known[b, cutter]):
            assert is_wild(int(c))
        # RULES.md 3: the cutter's hand is dealt short by the kept wilds (11 - kept dealt
        # cards), and the kept wilds, shown to all, complete it
        dealt = st.hands[b, cutter] - st.known[b, cutter]
        assert np.all(dealt >= 0)
        assert dealt.sum() == 11 - kept
        assert st.hands[b, cutter].sum() == 11
        for p in (0, 1, 3):
            assert st.hands[b, p].sum() == 11 and st.known[b, p].sum() == 0
        assert np.array_equal(table_counts(game, b), deck_counts(game))
    # the bottom card is a wild about 12 times in 108: both counts occur in 600 deals
    assert kept_seen[1] > 20 and kept_seen[2] > 0


def test_cutter_rotates_with_the_dealer_in_a_match():
    """Hand 1 of a match: dealer 0, so the cutter is seat 3; only it may hold shown wilds."""
    game = Game("colombian", batch_size=300, episode="match", seed=4, max_turns=1)
    for _ in range(2):  # keep the peek, then discard: the hand ends at max_turns 1
        actions = []
        for b in range(300):
            n = game.state.num_legal[b]
            la = sorted(int(a) for a in game.state.legal[b, :n])
            actions.append(la[0] if la[0] == PEEK_KEEP else la[-1])
        game.step(actions)
    st = game.state
    assert np.all(st.scalars[:, S_HAND_INDEX] == 1) and np.all(st.scalars[:, S_DEALER] == 0)
    assert st.known[:, (0, 1, 2)].sum() == 0
    kept = st.known[:, 3].sum(axis=1)
    assert (kept == 1).sum() > 10 and (kept == 2).sum() > 0
    assert np.all(st.hands.sum(axis=2) == 11)


@pytest.mark.parametrize(
    ("overrides", "hand_size", "jokers", "muertos"),
    [
        ({"hand_size": 9}, 9, 2, 1),
        ({"jokers_per_deck": 0}, 11, 0, 1),
        ({"jokers_per_deck": 2}, 11, 4, 1),
        ({"muertos_per_team": 2}, 11, 2, 2),
        ({"decks": 3}, 11, 3, 1),
    ],
)
def test_deal_parameters(overrides, hand_size, jokers, muertos):
    game = Game("argentine", batch_size=16, seed=2, **overrides)
    st = game.state
    assert deck_counts(game)[JOKER] == jokers
    for b in range(16):
        assert np.array_equal(table_counts(game, b), deck_counts(game))
        assert np.all(st.hands[b].sum(axis=1) == hand_size)
        assert list(st.muerto_status[b, 0]) == [MUERTO_UNTAKEN] * muertos + [MUERTO_ABSENT] * (
            3 - muertos
        )


def test_cutter_keeps_wilds_off():
    for variant, overrides in (("argentine", {}), ("colombian", {"cutter_keeps_wilds": False})):
        game = Game(variant, batch_size=300, seed=21, **overrides)
        assert game.state.known.sum() == 0
        assert np.all(game.state.hands.sum(axis=2) == 11)
    game = Game("argentine", batch_size=300, seed=21, cutter_keeps_wilds=True)
    assert game.state.known.sum() > 0
    assert np.all(game.state.hands.sum(axis=2) == 11)


# ====================================================================== illegal actions
@pytest.mark.parametrize(
    ("variant", "action", "code", "kwargs"),
    [
        ("colombian", discard_action(card("2c")), ERR_WILD_DISCARD, {}),
        ("argentine", TAKE_PILE, ERR_PILE_TOO_SMALL, {"phase": "draw", "pile": "Qd"}),
        ("argentine", add_action(card("Kc"), 0), ERR_DOES_NOT_FIT, {}),
        ("argentine", NUM_ACTIONS, ERR_OUT_OF_RANGE, {}),
        ("argentine", -3, ERR_OUT_OF_RANGE, {}),
        ("argentine", DRAW_STOCK, ERR_WRONG_PHASE, {}),
        ("italian", discard_action(card("*")), ERR_CLOSE_WITH_WILD, {"muertos_taken": {0: 1}}),
    ],
)
def test_illegal_action_raises_and_changes_nothing(variant, action, code, kwargs):
    melds_ = {0: ["5s 6s 7s 8s 9s Ts Js"]}
    hands = {0: "*" if variant == "italian" else "2c Kc 3d"}
    game = build_game(variant, hands=hands, melds=melds_, **kwargs)
    before = copy_state(game.state)
    assert game.action_error(action) == code
    assert game.why_illegal(action) == ERROR_MESSAGES[code]
    with pytest.raises(IllegalActionError) as info:
        game.step_one(action)
    message = str(info.value)
    assert ERROR_MESSAGES[code] in message
    if 0 <= action < NUM_ACTIONS:
        assert describe_action(action) in message
    assert info.value.action == action and info.value.code == code
    assert states_equal(before, game.state)
    # the batch step checks before anything moves, and says the same (-1 means "skip")
    if action >= 0:
        with pytest.raises(IllegalActionError, match=re.escape(ERROR_MESSAGES[code])):
            game.step([action])
        assert states_equal(before, game.state)


def test_actions_after_the_hand_are_refused():
    game = build_game(
        "argentine", hands={0: "Kc"}, melds={0: ["5s 6s 7s 8s 9s Ts Js"]}, muertos_taken={0: 1}
    )
    do_discard(game, "Kc")
    assert game.done[0] and legal(game) == []
    before = copy_state(game.state)
    with pytest.raises(IllegalActionError, match="game is over") as info:
        game.step_one(DRAW_STOCK)
    assert info.value.code == ERR_GAME_OVER
    assert describe_action(DRAW_STOCK) in str(info.value)
    assert states_equal(before, game.state)


def test_legal_mask_matches_action_error():
    game = build_game(
        "colombian",
        hands={0: "2c * 7h 8h 9h Kc Kd", 1: "3c"},
        melds={0: ["Ks Ks *"], 1: ["Qh Qs Qc"]},
    )
    mask = game.legal_action_mask()[0]
    for a in range(NUM_ACTIONS):
        assert mask[a] == (game.action_error(a) == ERR_OK), describe_action(a)
        # why_illegal answers a listed action from the list, the others from the checks
        assert mask[a] == (game.why_illegal(a) is None), describe_action(a)
    assert sorted(np.flatnonzero(mask)) == legal(game)
    assert format_cards(hand(game, 0))  # the helpers read the same hand
