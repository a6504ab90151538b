"""The hint for a player (``burako_env/frontends/thinking.py``): the advice in plain words
from the search's own numbers, the cards it moves, and Expert's plan for the turn, which
must read nothing the seat cannot see.

The advice is built here from hand-made search reports (``agents.pimc.SearchReport``), so
each case's numbers are known; the plan is played on real games.
"""

from __future__ import annotations

import numpy as np
import pytest

from burako_env.agents import make_agent
from burako_env.agents.pimc import CandidateReport, SearchReport
from burako_env.cards import parse_cards
from burako_env.core.actions import add_action, discard_action, open_actions_for
from burako_env.core.constants import DRAW_STOCK, PHASE_DRAW, PHASE_PEEK, PHASE_PLAY, TAKE_PILE
from burako_env.core.game import Game
from burako_env.core.state import copy_state, states_equal
from burako_env.frontends.thinking import (
    HINT_AGENT,
    PLAN_ENDS,
    expert_hint,
    hint_advice,
    hint_cards,
    hint_plan,
    policy_json,
    public_filter,
    search_json,
)


def card(text: str) -> int:
    return parse_cards(text)[0]


def candidate(action: int, redeals: int, margin: float, win: float = 0.5, base=None):
    """A candidate of a hand-made report; ``gain`` against ``base``'s margin (the
    baseline's), as the search pairs them."""
    gain = 0.0 if base is None else margin - base
    return CandidateReport(action, redeals, margin, 4.0, win, gain, 3.0)


def advice_of(choice: int, baseline: int, rows, objective: str = "margin") -> tuple[str, str]:
    redeals = max((c.redeals for c in rows), default=0)
    report = SearchReport(choice, baseline, objective, redeals, tuple(rows), False)
    return hint_advice(search_json(report, 0, "Expert"))


# ---------------------------------------------------------------- the advice in words
def test_draw_over_the_pile_says_the_margin_and_the_gap():
    rows = [candidate(DRAW_STOCK, 96, 40.2, base=0.4), candidate(TAKE_PILE, 96, 0.4)]
    advice, note = advice_of(DRAW_STOCK, TAKE_PILE, rows)
    assert advice == (
        "Draw a card from the stock: about +40 points for your team by the end of the hand, "
        "40 points better than your next choice (take the discard pile)."
    )
    assert "96 deals of the cards you cannot see" in note
    assert "average margin" in note


def test_taking_the_pile_over_drawing():
    rows = [candidate(DRAW_STOCK, 48, -4.6), candidate(TAKE_PILE, 48, 35.3, base=-4.6)]
    advice, _ = advice_of(TAKE_PILE, DRAW_STOCK, rows)
    assert advice == (
        "Take the discard pile: about +35 points for your team by the end of the hand, "
        "40 points better than your next choice (draw a card from the stock)."
    )


def test_a_discard_is_compared_with_the_move_searched_as_long_not_a_lucky_short_one():
    """The next choice is the other survivor of the last halving round (the same deals as
    the pick): a move dropped early with a higher average over fewer deals is not it."""
    nine, king, five = (discard_action(card(c)) for c in ("9s", "Kd", "5h"))
    rows = [
        candidate(nine, 64, 20.0, base=8.0),
        candidate(king, 64, 8.0),
        candidate(five, 16, 31.0, base=8.0),  # dropped in the first round
    ]
    advice, note = advice_of(nine, king, rows)
    assert advice == (
        "Discard 9♠: about +20 points for your team by the end of the hand, 12 points "
        "better than your next choice (discard K♦)."
    )
    assert "64 deals" in note


def test_laying_a_meld_kept_as_the_usual_move_says_when_another_averaged_more():
    """The search keeps its usual move unless another is clearly better: the advice says
    that another averaged more, not that the pick is better."""
    (run,) = open_actions_for(parse_cards("5h 6h 7h"))
    add = add_action(card("8h"), 0)
    rows = [candidate(run, 75, 47.1), candidate(add, 75, 55.3, base=47.1)]
    advice, _ = advice_of(run, run, rows)
    assert advice == (
        "Lay a run 5♥ 6♥ 7♥: about +47 points for your team by the end of the hand; "
        "add 8♥ to meld 0 averaged 8 points more, too little to be sure: Expert keeps its "
        "usual move unless another is clearly better."
    )


def test_a_tie_and_a_negative_margin():
    nine, king = discard_action(card("9s")), discard_action(card("Kd"))
    rows = [candidate(nine, 32, -12.2), candidate(king, 32, -12.4, base=-12.2)]
    advice, _ = advice_of(nine, nine, rows)
    assert advice == (
        "Discard 9♠: about -12 points for your team by the end of the hand, as good as "
        "your next choice (discard K♦)."
    )


def test_a_win_objective_says_the_share_of_playouts_won():
    rows = [
        candidate(DRAW_STOCK, 40, 10.0, win=0.62, base=5.0),
        candidate(TAKE_PILE, 40, 5.0, win=0.5),
    ]
    advice, note = advice_of(DRAW_STOCK, TAKE_PILE, rows, objective="win")
    assert advice == (
        "Draw a card from the stock: your team wins 62% of Expert's playouts with it, "
        "12 percentage points better than your next choice (take the discard pile)."
    )
    assert "how many of those hands your team won" in note


def test_one_legal_move_is_said_as_such():
    report = SearchReport(DRAW_STOCK, DRAW_STOCK, "margin", 0, (), False)
    advice, _ = hint_advice(search_json(report, 0, "Expert"))
    assert advice == "Draw a card from the stock: it is your only move."


def test_hint_cards_are_the_cards_the_move_takes_from_the_hand():
    (run,) = open_actions_for(parse_cards("5h 6h 7h"))
    assert sorted(hint_cards(run)) == sorted(parse_cards("5h 6h 7h"))
    assert hint_cards(discard_action(card("9s"))) == [card("9s")]
    assert hint_cards(add_action(card("8h"), 3)) == [card("8h")]
    assert hint_cards(DRAW_STOCK) == [] and hint_cards(TAKE_PILE) == []


# ---------------------------------------------------------------- the plan for the turn
def _to_phase(seed: int, phase: int, players: int = 2, skip: int = 0) -> Game:
    """A game at its first position of ``phase`` with several legal moves, after ``skip``
    such positions, played by the greedy policy."""
    game = Game("argentine", num_players=players, seed=seed)
    bot = make_agent("greedy", seed=seed)
    seen = 0
    for _ in range(400):
        assert not game.is_over()
        if game.live_view().phase == phase and game.legal_actions().size > 1:
            if seen == skip:
                return game
            seen += 1
        game.step_one(bot.act_game(game))
    raise AssertionError("no such position")


def seeds(j: int) -> int:
    return 1000 + j


def test_the_plan_is_each_position_s_own_hint_and_leaves_the_game_alone():
    """Each move of the plan after the pick is what a hint at that position gives (the
    same agent and seed): following the plan, each hint names the next move; the turn's
    last move is a discard or the hand's end."""
    game = _to_phase(7, PHASE_PLAY)
    before = copy_state(game.state)
    hint = expert_hint(game, 999, next_seed=seeds)
    assert states_equal(game.state, before)  # the plan is played on a copy
    plan = hint["plan"]
    assert plan[0]["action"] == hint["choice"]["action"] and plan[0]["cards"] == hint["cards"]
    seat = int(game.current_player[0])
    replay = game.clone()
    for j, step in enumerate(plan):
        if j:
            assert make_agent(HINT_AGENT, seed=seeds(j)).think(replay).action == step["action"]
        replay.step_one(step["action"])
    assert hint["plan_end"] in PLAN_ENDS.values()
    if hint["plan_end"] == PLAN_ENDS["turn"]:
        assert plan[-1]["text"].startswith("discard")
        assert int(replay.current_player[0]) != seat


def test_the_plan_stops_at_a_draw_from_the_stock():
    for skip in range(6):
        game = _to_phase(3, PHASE_DRAW, skip=skip)
        hint = expert_hint(game, 5, next_seed=seeds)
        if hint["choice"]["action"] == DRAW_STOCK:
            assert hint["plan"] == [
                {"action": DRAW_STOCK, "text": "draw a card from the stock", "cards": []}
            ]
            assert hint["plan_end"] == PLAN_ENDS["draw"]
            return
    pytest.fail("no draw-phase position where Expert draws")


def _drawing_position(seed: int, players: int) -> tuple[Game, dict]:
    """The first draw-phase position where Expert's hint is to draw from the stock."""
    for skip in range(8):
        game = _to_phase(seed, PHASE_DRAW, players=players, skip=skip)
        hint = expert_hint(game, 21, next_seed=seeds)
        if hint["choice"]["action"] == DRAW_STOCK:
            return game, hint
    pytest.fail("no draw-phase position where Expert draws")


@pytest.mark.parametrize(
    "phase,skip", [(PHASE_PEEK, 0), (PHASE_DRAW, 0), (PHASE_PLAY, 0), (PHASE_PLAY, 3)]
)
def test_the_hint_and_its_plan_read_only_the_seats_information(phase, skip):
    """The whole hint (advice, cards, plan and where it stops) is the same on the real
    game and on games whose cards hidden from the seat were dealt again: it cannot tell
    the seat a card of the stock, a muerto or another hand (a plan that went on past a
    draw from the stock would name the card drawn). The peek: the first player keeps or
    rejects the stock's top card, which only they have seen."""
    if phase == PHASE_DRAW:
        game, real = _drawing_position(11, 4)
    else:
        game = _to_phase(11, phase, players=4, skip=skip)
        real = expert_hint(game, 21, next_seed=seeds)
    seat = int(game.current_player[0])
    for k in range(2):
        other = game.determinize(seat, 500 + k)
        assert not np.array_equal(other.state.stock[0], game.state.stock[0])
        assert expert_hint(other, 21, next_seed=seeds) == real


def test_a_cache_of_reports_gives_the_same_hints():
    game = _to_phase(7, PHASE_PLAY)
    reports: dict = {}
    first = expert_hint(game, 999, next_seed=seeds, reports=reports)
    assert len(reports) == len(first["plan"])  # the pick and each later decision
    later = game.clone()
    later.step_one(first["plan"][0]["action"])
    if len(first["plan"]) > 1:
        cached = expert_hint(later, seeds(1), next_seed=lambda j: seeds(j + 1), reports=reports)
        fresh = expert_hint(later, seeds(1), next_seed=lambda j: seeds(j + 1))
        assert cached == fresh and cached["choice"]["action"] == first["plan"][1]["action"]


def test_hint_plan_alone_starts_with_the_move_given():
    game = _to_phase(7, PHASE_PLAY)
    legal = [int(a) for a in game.legal_actions()]
    discard = next(a for a in legal if a >= discard_action(0))
    plan, end = hint_plan(game, discard, seeds)
    assert plan == [{"action": discard, "text": plan[0]["text"], "cards": hint_cards(discard)}]
    assert end in ("turn", "hand")


def test_the_policy_panel_gives_each_shown_move_its_probability():
    """Hard's panel (a PolicyReport): the most likely moves with the network's
    probabilities, rounded to 3 places, the move played marked, the value rounded."""
    from burako_env.agents.ppo_agent import PolicyReport

    a, b, c = (discard_action(card(x)) for x in ("Kh", "3c", "9d"))
    report = PolicyReport(b, 0.12345, ((a, 0.61234), (b, 0.25), (c, 0.13766)))
    panel = policy_json(report, 1, "Hard", top=2)
    got = [(row["action"], row["probability"], row["choice"]) for row in panel["candidates"]]
    assert got == [(a, 0.612, False), (b, 0.25, True)]
    assert panel["value"] == 0.123 and panel["seat"] == 1 and not panel["withheld"]
    summary = panel["summary"]
    assert summary.startswith("Hard's network gave ") and "a 25% chance" in summary


def test_the_public_filter_shows_moves_of_cards_known_to_be_in_the_hand():
    """The cards of a pile just taken are known to all to be in the taker's hand: a
    discard of one may be shown to the other seats, a discard of a card from the hand
    it held before may not."""
    from burako_env.scenario import build_game

    game = build_game(
        "argentine", hands={0: "3c 4c 5c", 1: "8c 9d Kd"}, pile="7h 6s", player=1, phase="draw"
    )
    game.step_one(TAKE_PILE)
    shown = public_filter(game, 1)
    for text, public in (("7h", True), ("6s", True), ("Kd", False), ("9d", False)):
        assert shown(discard_action(card(text))) is public, text
