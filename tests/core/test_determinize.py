"""Copies and determinizations of games (burako_env/core/determinize.py, Game.clone and
Game.determinize): what the viewer sees is kept, cards are conserved, every consistent
deal is equally likely, copies are independent."""

from __future__ import annotations

import math
from collections import Counter

import numpy as np
import pytest

from burako_env.checks import check_cards, check_hidden
from burako_env.core.actions import decode_action
from burako_env.core.constants import (
    MUERTO_PENDING,
    MUERTO_TAKEN,
    MUERTO_UNTAKEN,
    PHASE_PEEK,
    S_MUERTOS_LEFT,
    S_PEEK_CARD,
    S_PHASE,
    S_PLAYER,
)
from burako_env.core.game import Game
from burako_env.core.state import states_equal, untaken_packets

MELD_KINDS = {"open_group", "open_run", "open_wild_group", "add", "take_pile", "muerto_keep_wilds"}


def _random_action(game: Game, b: int, rng: np.random.Generator, meld_bias: float) -> int:
    """Uniform among the legal actions or, with probability ``meld_bias``, among the melds
    and pile takes (biased play reaches muertos, pending packets and going out)."""
    legal = game.legal_actions(b)
    if rng.random() < meld_bias:
        melds = [a for a in legal if decode_action(int(a)).kind in MELD_KINDS]
        if melds:
            return int(rng.choice(melds))
    return int(rng.choice(legal))


def _play_positions(variant: str, num_players: int, seed: int, games: int, meld_bias=0.7):
    """Yield (game, b, next_action) at every step of ``games`` random hands."""
    rng = np.random.default_rng(seed)
    game = Game(variant, num_players=num_players, batch_size=games, seed=seed)
    while not game.done.all():
        actions = np.full(games, -1, np.int64)
        for b in range(games):
            if not game.is_over(b):
                actions[b] = _random_action(game, b, rng, meld_bias)
        for b in range(games):
            if actions[b] >= 0:
                yield game, b, int(actions[b])
        game.step(actions)


def _hidden_pool(game: Game, b: int, viewer: int) -> Counter:
    """The multiset of the cards hidden from ``viewer`` (what a determinization shuffles)."""
    st = game.state
    pool: Counter = Counter(st.stock[b, : st.stock_len[b]].tolist())
    for t, m in untaken_packets(st, b, game.variant.muerto_pot == "shared"):
        pool.update(st.muertos[b, t, m].tolist())
    s = st.scalars[b]
    if s[S_PEEK_CARD] >= 0 and not (s[S_PHASE] == PHASE_PEEK and s[S_PLAYER] == viewer):
        pool[int(s[S_PEEK_CARD])] += 1
    for q in range(game.num_players):
        if q != viewer:
            for c in np.flatnonzero(st.hands[b, q] > st.known[b, q]):
                pool[int(c)] += int(st.hands[b, q, c] - st.known[b, q, c])
    return pool


@pytest.mark.parametrize(
    "variant, players",
    [("argentine", 4), ("brazilian", 4), ("colombian", 6), ("argentine", 2), ("italian", 4)],
)
def test_viewer_sees_the_same_game(variant, players):
    """Every viewer's observation of a determinization equals the original's, before and
    after the next action when it moves only named cards (checks.check_hidden); cards are
    conserved; hands keep sizes and known cards; the hidden cards are the same multiset;
    the acting viewer keeps their legal actions."""
    rng = np.random.default_rng(5)
    seen_phases = set()
    seen_pending = 0
    seen_pot_one = 0
    compared = 0
    for step, (game, b, action) in enumerate(_play_positions(variant, players, 3, 3)):
        st = game.state
        if st.scalars[b, S_PHASE] == PHASE_PEEK:
            seen_phases.add("peek")
        seen_pending += int((st.muerto_status[b] == MUERTO_PENDING).any())
        seen_pot_one += int(st.scalars[b, S_MUERTOS_LEFT] == 1)
        if step % 2:
            continue
        for viewer in range(players):
            compared += check_hidden(game, b, viewer, rng, action)
            d = game.determinize(viewer, rng, games=[b], count=2)
            for k in range(2):
                check_cards(d.state, k, game.variant)
                np.testing.assert_array_equal(d.state.known[k], st.known[b])
                np.testing.assert_array_equal(d.state.hands[k].sum(axis=1), st.hands[b].sum(axis=1))
                np.testing.assert_array_equal(d.state.hands[k, viewer], st.hands[b, viewer])
                assert _hidden_pool(d, k, viewer) == _hidden_pool(game, b, viewer)
                if viewer == st.scalars[b, S_PLAYER]:
                    np.testing.assert_array_equal(d.legal_actions(k), game.legal_actions(b))
    assert compared > 200
    if variant == "brazilian":
        assert seen_pot_one > 0, "no position with one packet left in the shared pot"
    if variant == "argentine" and players == 4:
        assert seen_pending > 0, "no position with a packet taken with the discard"


def test_determinization_changes_hidden_cards_only_and_is_seeded():
    game = Game("argentine", batch_size=2, seed=9)
    a = game.determinize(0, 123)
    b = game.determinize(0, np.random.default_rng(123))
    c = game.determinize(0, 124)
    assert states_equal(a.state, b.state)
    assert not np.array_equal(a.state.stock, c.state.stock)
    assert not np.array_equal(a.state.hands[:, 1], game.state.hands[:, 1])
    np.testing.assert_array_equal(a.state.hands[:, 0], game.state.hands[:, 0])
    np.testing.assert_array_equal(a.state.pile, game.state.pile)
    np.testing.assert_array_equal(a.state.scalars, game.state.scalars)
    # later deals of a match come from the determinization's seed, not the real one
    assert not np.array_equal(a.state.rng, game.state.rng)


def test_determinization_depends_only_on_what_the_viewer_knows():
    """Two real games the viewer cannot tell apart (one a determinization of the other)
    give the same determinizations for one seed: nothing of the real deal leaks."""
    rng = np.random.default_rng(1)
    for game, b, _ in _play_positions("brazilian", 4, 8, 2):
        if rng.random() > 0.05:
            continue
        actor = int(game.current_player[b])
        real = game.clone(games=[b])
        other = real.determinize(actor, 99)
        if real.state.stock_len[0] >= 8:
            assert not np.array_equal(other.state.stock, real.state.stock)
        assert states_equal(real.determinize(actor, 5).state, other.determinize(actor, 5).state)


def test_side_information_is_cleaned():
    """A packet that became the stock, or was taken and played, no longer lists the real
    cards; a pending packet is rewritten from its taker's new hand."""
    from burako_env.scenario import build_game

    game = build_game(
        "argentine",
        hands={0: "3c 4c 5c 6c 7c", 1: "Kd Kh Ks 9d", 2: "8h 8d", 3: "Qc Qd Qh"},
        pile="Jd",
        player=0,
        phase="play",
        muertos_taken={1: 1},
    )
    st = game.state
    # team 1's packet taken with P1's last discard and unplayed: P1's hand is the packet
    st.muerto_status[0, 1, 0] = MUERTO_PENDING
    st.muerto_taker[0, 1, 0] = 1
    cards = np.repeat(np.arange(53), st.hands[0, 1])
    st.muertos[0, 1, 0, : len(cards)] = cards
    st.muertos[0, 0, 1] = 7  # a played packet's stale contents (colour only)
    st.muerto_status[0, 0, 1] = MUERTO_TAKEN
    d = game.determinize(0, 4)
    h = d.state.hands[0, 1]
    assert (d.state.muertos[0, 1, 0, : h.sum()] == np.repeat(np.arange(53), h)).all()
    assert (d.state.muertos[0, 0, 1] == 0).all()
    assert d.state.muerto_status[0, 0, 0] == MUERTO_UNTAKEN


# ---------------------------------------------------------------- uniformity
#: the chi-square test rejects at p < 1e-4: with fixed seeds the test is deterministic, and
#: a correct shuffle fails it for one seed in 10,000; a biased one (say, a hand that never
#: gets a card of the stock's) fails by orders of magnitude
CHI2_P = 1e-4
Z_CHI2 = 3.719016485455709  # the standard normal's 1 - CHI2_P quantile


def chi2_threshold(dof: int) -> float:
    """The 1 - CHI2_P quantile of chi-square with ``dof`` degrees of freedom (Wilson and
    Hilferty's cube-root normal approximation: 2% high at 6 dof, 0.1% at 119: a
    little lenient at few outcomes)."""
    h = 2.0 / (9.0 * dof)
    return dof * (1.0 - h + Z_CHI2 * math.sqrt(h)) ** 3


def _small_position(hands: dict[int, str], unknown: dict[int, str], stock: str):
    """A position whose hidden cards are only ``stock`` and, for each player q in
    ``unknown``, the cards ``unknown[q]`` of their hand ``hands[q]`` (the rest known);
    every other card is in the viewer's (P0's) hand, every muerto taken."""
    from burako_env.cards import parse_cards
    from burako_env.scenario import build_game

    probe = build_game("argentine", hands=hands, stock=stock, muertos_taken={0: 2, 1: 2})
    st = probe.state
    placed = st.hands[0].sum(axis=0).astype(np.int64)
    for c in st.stock[0, : st.stock_len[0]]:
        placed[c] += 1
    from burako_env.checks import deck_counts

    rest = deck_counts(probe.variant) - placed
    from burako_env.cards import format_cards

    cards0 = [c for c in range(53) for _ in range(int(rest[c]))]
    game = build_game(
        "argentine",
        hands={0: format_cards(cards0), **hands},
        stock=stock,
        muertos_taken={0: 2, 1: 2},
        player=0,
        phase="draw",
        pile="",
    )
    st = game.state
    for q, text in hands.items():
        known = Counter(parse_cards(text))
        known.subtract(parse_cards(unknown.get(q, "")))
        for c, k in known.items():
            st.known[0, q, c] = k
    check_cards(st, 0, game.variant)
    return game


def _outcome(game: Game, k: int) -> tuple:
    st = game.state
    hands = tuple(
        tuple(np.repeat(np.arange(53), st.hands[k, q] - st.known[k, q]).tolist())
        for q in range(1, game.num_players)
    )
    return tuple(st.stock[k, : st.stock_len[k]].tolist()), hands


def _expected(game: Game) -> Counter:
    """Outcome -> number of orders of the physical hidden cards that deal it."""
    from itertools import permutations

    st = game.state
    stock_n = int(st.stock_len[0])
    sizes = [int((st.hands[0, q] - st.known[0, q]).sum()) for q in range(1, game.num_players)]
    pool = list(st.stock[0, :stock_n])
    for q in range(1, game.num_players):
        pool += np.repeat(np.arange(53), st.hands[0, q] - st.known[0, q]).tolist()
    counts: Counter = Counter()
    for order in permutations(range(len(pool))):
        cards = [int(pool[i]) for i in order]
        hands, pos = [], stock_n
        for n in sizes:
            hands.append(tuple(sorted(cards[pos : pos + n])))
            pos += n
        counts[tuple(cards[:stock_n]), tuple(hands)] += 1
    return counts


@pytest.mark.parametrize(
    "hands, unknown, stock, outcomes",
    [
        # five distinct hidden cards: 120 deals, all equally likely
        ({1: "3c 4d", 2: "5h 6s", 3: "7c 8d"}, {1: "4d", 2: "6s", 3: "8d"}, "9h Ts", 120),
        # two copies of 4d and a hand of two unknown cards: 4d 4d in P1's hand is one deal
        # made by two orders of the physical cards, as likely as 4d 6s (made by four)
        ({1: "3c 4d 4d", 2: "6s"}, {1: "4d 4d", 2: "6s"}, "9h", 7),
    ],
)
def test_every_consistent_deal_equally_likely(hands, unknown, stock, outcomes):
    game = _small_position(hands, unknown, stock)
    expected = _expected(game)
    assert len(expected) == outcomes
    seen: Counter = Counter()
    n = 0
    rng = np.random.default_rng(2024)
    for _ in range(10):
        d = game.determinize(0, rng, games=[0], count=1500)
        for k in range(d.batch_size):
            seen[_outcome(d, k)] += 1
        n += d.batch_size
    assert set(seen) <= set(expected), "a deal inconsistent with the viewer's knowledge"
    total = sum(expected.values())
    chi2 = sum((seen[o] - n * w / total) ** 2 / (n * w / total) for o, w in expected.items())
    assert chi2 < chi2_threshold(len(expected) - 1), (chi2, len(expected))
    # a biased count fails the same test: the check has teeth
    biased = Counter(seen)
    worst = min(expected, key=lambda o: expected[o])
    biased[worst] = 0
    chi2_biased = sum(
        (biased[o] - n * w / total) ** 2 / (n * w / total) for o, w in expected.items()
    )
    assert chi2_biased > chi2_threshold(len(expected) - 1)


def test_chi2_threshold_matches_tables():
    # chi-square quantiles at 1 - 1e-4 from tables: 6 dof 27.856, 119 dof 185.086
    assert 0 <= chi2_threshold(6) - 27.856 < 0.6
    assert abs(chi2_threshold(119) - 185.086) < 0.2


# ---------------------------------------------------------------- copies
def test_clone_is_independent():
    game = Game("brazilian", batch_size=3, seed=1)
    before = game.snapshot()
    copy = game.clone()
    assert states_equal(copy.state, game.state)
    rng = np.random.default_rng(0)
    for _ in range(30):
        copy.step([int(rng.choice(copy.legal_actions(b))) for b in range(3)])
    assert states_equal(game.state, before)
    game.step([int(game.legal_actions(b)[0]) for b in range(3)])
    one = game.clone(games=[2])
    assert one.batch_size == 1
    np.testing.assert_array_equal(one.observe_one(0), game.observe_one(0, 2))
    np.testing.assert_array_equal(one.legal_actions(), game.legal_actions(2))
    game.step([int(game.legal_actions(b)[0]) for b in range(3)])
    assert not np.array_equal(one.state.scalars[0], game.state.scalars[2])


def test_a_match_cloned_as_a_hand_ends_where_the_match_deals_again():
    """``clone(episode="hand")`` of a match: the move that ends the hand ends the copy,
    with the hand's own score items, where the match deals its next hand."""
    game = Game("argentine", num_players=2, episode="match", seed=4)
    rng = np.random.default_rng(0)
    while True:
        copy = game.clone(episode="hand")
        assert copy.episode == "hand" and game.episode == "match"
        a = int(rng.choice(game.legal_actions()))
        game.step_one(a)
        copy.step_one(a)
        if game.view(0).hands_ended:
            break
        assert not copy.is_over()
    assert copy.is_over() and not game.is_over()
    assert copy.view(0).hands_ended == game.view(0).hands_ended == 1
    np.testing.assert_array_equal(copy.state.score_items[0], game.state.score_items[0])
    assert game.view(0).step == 0  # the match dealt its next hand; the copy did not
    with pytest.raises(ValueError, match="episode must be one of"):
        game.clone(episode="set")


def test_bad_arguments_are_named():
    game = Game("argentine", batch_size=2)
    with pytest.raises(ValueError, match="viewer must be a seat 0..3"):
        game.determinize(4, 0)
    with pytest.raises(ValueError, match="game indices must lie in 0..1"):
        game.determinize(0, 0, games=[2])
    with pytest.raises(ValueError, match="count must be a positive"):
        game.determinize(0, 0, count=0)
    with pytest.raises(TypeError, match="rng must be a numpy Generator or an integer seed"):
        game.determinize(0, "seven")
    with pytest.raises(ValueError, match="game indices"):
        game.clone(games=[-1])
