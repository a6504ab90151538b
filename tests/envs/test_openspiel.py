"""OpenSpiel smoke tests: the ``python_burako`` game passes OpenSpiel's own random
simulation checks, its chance nodes and tensors are what the module says, and the
``openspiel_ismcts`` agent plays legal moves in a tournament. Skipped, with the reason,
where the ``openspiel`` extra is not installed."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest

pyspiel = pytest.importorskip(
    "pyspiel", reason="OpenSpiel is not installed: pip install 'burako[openspiel]'"
)

import burako_env.openspiel as bo  # noqa: E402  (after the skip: it needs pyspiel)
from burako_env.agents import make_agent  # noqa: E402
from burako_env.core.constants import DRAW_STOCK, NUM_ACTIONS, NUM_CARD_TYPES  # noqa: E402
from burako_env.core.game import Game  # noqa: E402
from burako_env.core.state import states_equal  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]


def test_the_game_loads_by_name_for_two_and_four_players():
    assert bo.GAME_NAME in [t.short_name for t in pyspiel.registered_games()]
    game = pyspiel.load_game("python_burako")
    assert game.num_players() == 2
    assert game.num_distinct_actions() == NUM_ACTIONS
    assert game.get_type().chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
    four = pyspiel.load_game("python_burako(players=4)")
    assert four.num_players() == 4
    with pytest.raises(Exception, match="players must be 2 or 4"):
        pyspiel.load_game("python_burako(players=3)")


@pytest.mark.parametrize("players, sims", [(2, 2), (4, 1)])
def test_openspiels_random_simulation_checks_pass(players, sims):
    """OpenSpiel's own checks of a game (pyspiel.random_sim_test): random play to the end,
    every chance node's probabilities, legal actions, clones, returns, tensors."""
    game = pyspiel.load_game(f"python_burako(players={players},deal_seeds=50)")
    t0 = time.perf_counter()
    pyspiel.random_sim_test(game, num_sims=sims, serialize=False, verbose=False)
    assert time.perf_counter() - t0 < 120


def test_the_deal_and_the_draws_are_chance_nodes_and_the_tensors_have_their_shapes():
    game = pyspiel.load_game("python_burako(deal_seeds=7)")
    size = game.observation_tensor_size()
    assert game.observation_tensor_shape() == [size]
    assert game.information_state_tensor_shape() == [size]
    state = game.new_initial_state()
    assert state.is_chance_node()
    outcomes = state.chance_outcomes()
    assert [a for a, _ in outcomes] == list(range(7))
    assert sum(p for _, p in outcomes) == pytest.approx(1.0)
    state.apply_action(3)
    # the deal is the engine's deal of seed 3 (from the first seed, 0)
    engine = Game(num_players=2, seed=3)
    assert np.array_equal(state.engine.state.hands, engine.state.hands)
    player = state.current_player()
    assert player in (0, 1)
    tensor = np.asarray(state.observation_tensor(player))
    assert tensor.shape == (size,)
    assert np.array_equal(tensor, engine.observe_one(player).astype(np.float32))
    assert np.array_equal(np.asarray(state.information_state_tensor(player)), tensor)
    assert state.information_state_string(player) != state.information_state_string(1 - player)
    # a draw from the stock: a chance node over the stock's card types, by their counts
    rng = np.random.default_rng(0)
    while DRAW_STOCK not in state.legal_actions():
        state.apply_action(int(rng.choice(state.legal_actions())))
    player = state.current_player()
    stock = state.engine.state.stock[0, : state.engine.state.stock_len[0]].copy()
    hand = state.engine.state.hands[0, player].copy()
    state.apply_action(DRAW_STOCK)
    assert state.is_chance_node()
    draws = dict(state.chance_outcomes())
    counts = np.bincount(stock, minlength=NUM_CARD_TYPES)
    assert set(draws) == set(np.flatnonzero(counts).tolist())
    for card, p in draws.items():
        assert p == pytest.approx(counts[card] / stock.size)
    card = max(draws)
    state.apply_action(card)
    assert not state.is_chance_node()
    new = state.engine.state.hands[0, player]
    assert new[card] == hand[card] + 1 and new.sum() == hand.sum() + 1


def test_a_resampled_state_keeps_the_players_information_state():
    game = pyspiel.load_game("python_burako(players=4)")
    state = game.new_initial_state()
    state.apply_action(5)
    rng = np.random.default_rng(1)
    for _ in range(12):
        if state.is_chance_node():
            actions, probs = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(int(rng.choice(actions, p=probs)))
        else:
            state.apply_action(int(rng.choice(state.legal_actions())))
    player = state.current_player()
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    moved = 0
    for _ in range(5):
        other = state.resample_from_infostate(player, sampler)
        assert other.information_state_string(player) == state.information_state_string(player)
        assert other.legal_actions() == state.legal_actions()
        hands, again = state.engine.state.hands[0], other.engine.state.hands[0]
        assert np.array_equal(again[player], hands[player])  # their own hand stays
        assert np.array_equal(again.sum(axis=1), hands.sum(axis=1))  # every hand's size
        moved += not np.array_equal(again, hands)  # the hidden hands are dealt again
    assert moved > 0


# ------------------------------------------------------------------ refusals (issue 59)
def dealt_state_at_a_draw(seed: int = 3):
    """A state dealt by outcome ``seed`` and played at random up to a legal DRAW_STOCK."""
    game = pyspiel.load_game("python_burako(deal_seeds=7)")
    state = game.new_initial_state()
    state.apply_action(seed)
    rng = np.random.default_rng(0)
    while DRAW_STOCK not in state.legal_actions():
        state.apply_action(int(rng.choice(state.legal_actions())))
    return state


def snapshot(state):
    """What a refusal must leave as it was: the history, the node, the engine's arrays."""
    return state.history(), state.current_player(), state.pending, state.engine.state.copy()


def assert_untouched(state, before) -> None:
    history, player, pending, games = before
    assert state.history() == history
    assert state.current_player() == player and state.pending == pending
    assert states_equal(state.engine.state, games)


def test_an_illegal_player_action_is_refused_in_the_engines_words_before_the_history():
    """A second DRAW_STOCK became a chance node (the history grew) and failed only at its
    outcome, after the stock had been reordered."""
    state = dealt_state_at_a_draw()
    state.apply_action(DRAW_STOCK)
    state.apply_action(int(state.chance_outcomes()[0][0]))  # the draw's card
    assert DRAW_STOCK not in state.legal_actions()
    for illegal in (DRAW_STOCK, NUM_ACTIONS + 5):
        before = snapshot(state)
        why = state.engine.why_illegal(illegal)
        with pytest.raises(ValueError) as info:
            state.apply_action(illegal)
        assert str(info.value).startswith(f"illegal action {illegal} (")
        assert str(info.value).endswith(why)
        assert_untouched(state, before)
    state.apply_action(state.legal_actions()[0])  # the state plays on


def test_a_draw_outcome_not_in_the_stock_is_refused_before_the_history():
    """It was numpy's IndexError, with the outcome already in the history."""
    state = dealt_state_at_a_draw()
    state.apply_action(DRAW_STOCK)
    left = [a for a, _ in state.chance_outcomes()]
    missing = next(c for c in range(NUM_CARD_TYPES) if c not in left)
    for outcome in (missing, NUM_CARD_TYPES + 100):
        before = snapshot(state)
        with pytest.raises(ValueError, match=f"outcome {outcome} is no card type left"):
            state.apply_action(outcome)
        assert_untouched(state, before)
    state.apply_action(left[0])
    assert not state.is_chance_node()


def test_a_deal_outcome_outside_the_deals_is_refused(monkeypatch):
    game = pyspiel.load_game("python_burako(deal_seeds=7)")
    state = game.new_initial_state()
    for outcome in (7, 1000):
        with pytest.raises(ValueError, match=r"outcome \d+ is not a deal: .* 0..6"):
            state.apply_action(outcome)
        assert state.history() == [] and state.engine is None and state.is_chance_node()

    def fail(self, seed=None):
        raise RuntimeError("the deal failed")

    # a deal that fails half way (here: the engine's reset) leaves the state not dealt
    monkeypatch.setattr(Game, "reset", fail)
    with pytest.raises(RuntimeError, match="the deal failed"):
        state.apply_action(3)
    assert state.engine is None and state.history() == [] and str(state) == "(not dealt)"
    monkeypatch.undo()
    state.apply_action(3)
    assert state.current_player() in (0, 1)


def test_the_ismcts_agent_plays_legal_moves_in_a_tournament():
    from burako_env.agents.tournament import run_tournament
    from burako_env.table import needs_game

    agent = make_agent("openspiel_ismcts:sims=4", seed=2)
    assert needs_game(agent) and agent.name == "openspiel_ismcts:sims=4"
    with pytest.raises(TypeError, match="act_game"):
        agent.act(np.zeros((1, 1), np.int16), np.ones((1, NUM_ACTIONS), bool))
    with pytest.raises(ValueError, match="unknown setting"):
        make_agent("openspiel_ismcts:k=3")
    # the tournament checks every move of an agent it does not compile (a refused one
    # raises, naming the agent)
    res = run_tournament(
        ["openspiel_ismcts:sims=4", "random"],
        "argentine",
        num_players=2,
        hands_per_pairing=2,
        progress=False,
        workers=1,
    )
    p = res.pairing("openspiel_ismcts:sims=4", "random")
    assert p.hands == 2 and not p.compiled


def test_the_ismcts_agent_decides_a_legal_action_from_the_game():
    agent = make_agent("openspiel_ismcts:sims=6,worlds=3", seed=0)
    game = Game(num_players=4, seed=7)
    for _ in range(40):
        if game.is_over():
            break
        legal = set(game.legal_actions(0).tolist())
        a = agent.act_game(game, 0)
        assert a in legal
        game.step_one(a)
    assert agent.searched > 0


def test_without_openspiel_the_module_and_the_agent_name_the_extra():
    code = textwrap.dedent(
        """
        import sys
        sys.modules["pyspiel"] = None  # as if OpenSpiel were not installed
        from burako_env.extras import MissingExtra
        from burako_env.agents import make_agent
        for what in ("module", "agent"):
            try:
                if what == "module":
                    import burako_env.openspiel
                else:
                    make_agent("openspiel_ismcts")
            except MissingExtra as exc:
                print(exc.extra, exc)
        """
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT
    ).stdout.splitlines()
    assert out == [
        "openspiel burako_env.openspiel needs pyspiel: pip install 'burako[openspiel]'",
        "openspiel the openspiel_ismcts agent needs pyspiel: pip install 'burako[openspiel]'",
    ]
