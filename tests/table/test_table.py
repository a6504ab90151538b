"""The table (burako_env/table/): who sits where, who decides now, and how.

The games every caller plays through it are held bit-identical by
tests/table/test_golden_play.py; here, the table's own contract: the seating builders, the
generators' state, a broken agent named, a duck-typed agent seated, the one-game move.
"""

from __future__ import annotations

import numpy as np
import pytest

from burako_env.agents import make_agent
from burako_env.agents.base import Agent, Batched, Compiled, PerGame
from burako_env.core.game import Game, game_seeds, generator_words
from burako_env.table import (
    IllegalAgentMove,
    Seating,
    Table,
    kernel_policy,
    needs_game,
    next_move,
)
from burako_env.table.table import decision_of


class Illegal(Agent):
    """Always action 0 (draw from the stock): illegal as soon as it has drawn."""

    name = "always_draw"

    def act(self, obs, mask):
        return np.zeros(len(mask), np.int64)


class FirstLegal:
    """Not an Agent: any object with act(obs, mask) sits at the table."""

    name = "first_legal"

    def act(self, obs, mask):
        return np.argmax(np.asarray(mask, bool), axis=1)


def _table(a, b, deals=3, players=4):
    game = Game("argentine", num_players=players, batch_size=2 * deals, deal=False)
    game.state.rng[:] = game_seeds(9, 2 * deals)
    rng = generator_words(5, 2 * deals * players).reshape(2 * deals, players, 4)
    return Table(game, Seating.duplicate(a, b, deals, players), rng)


def test_duplicate_seats_the_sides_then_swaps_them():
    seating = Seating.duplicate("a", "b", 2, 4)
    assert seating.agents == ["a", "b"]
    assert seating.seat_agent.tolist() == [[0, 1, 0, 1]] * 2 + [[1, 0, 1, 0]] * 2


def test_how_an_agent_decides():
    assert isinstance(make_agent("greedy").decides(), Compiled)
    assert isinstance(make_agent("random").decides(), Compiled)
    assert isinstance(make_agent("pimc:k=2").decides(), PerGame)
    assert isinstance(Illegal().decides(), Batched)  # the default: batches of games
    assert isinstance(decision_of(FirstLegal()), Batched)  # no decides(): its act
    assert kernel_policy(make_agent("greedy")) is not None
    assert kernel_policy(FirstLegal()) is None
    assert needs_game(make_agent("pimc:k=2")) and not needs_game(FirstLegal())


def test_a_broken_agent_is_named_and_its_game_left_as_it_was():
    table = _table(make_agent("greedy"), Illegal())
    with pytest.raises(IllegalAgentMove, match=r"agent 'always_draw' chose illegal action 0"):
        table.play()
    assert table.waiting.any()  # the game stopped at the refused move, not past it


def test_a_duck_typed_agent_plays_whole_games():
    table = _table(make_agent("greedy"), FirstLegal())
    table.play()
    assert table.game.done.all() and not table.compiled
    assert (table.n_actions > 0).all()


def test_the_generators_state_round_trips_and_is_checked():
    table = _table(make_agent("random"), make_agent("greedy"))
    saved = table.state_dict()
    table.play()
    assert not np.array_equal(saved["agent_rng"], table.agent_rng)  # random drew from it
    table.load_state_dict(saved)
    assert np.array_equal(saved["agent_rng"], table.agent_rng)
    with pytest.raises(ValueError, match="agent_rng must be integers of shape"):
        table.load_state_dict({"agent_rng": saved["agent_rng"][:1]})
    zero = saved["agent_rng"].copy()
    zero[0, 0] = 0
    with pytest.raises(ValueError, match="all-zero generator state"):
        table.load_state_dict({"agent_rng": zero})


def test_next_move_checks_the_move_and_names_the_agent():
    game = Game("argentine", num_players=4, seed=3)
    a = next_move(FirstLegal(), game, 0)  # observation and mask taken from the game
    assert game.why_illegal(a) is None
    game.step_one(a)
    assert next_move(FirstLegal(), game, 0) == int(np.sort(game.legal_actions(0))[0])
    with pytest.raises(IllegalAgentMove, match="always_draw"):
        next_move(Illegal(), game, 0)  # it has drawn: drawing again is refused
