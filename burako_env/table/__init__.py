"""The table: agents seated at games, played until a seat outside decides.

Every caller that plays agents against each other goes through here: the tournament
(:mod:`burako_env.agents.tournament`), the Gymnasium envs (:mod:`burako_env.gym`), the
terminal game and the web table's bots (:func:`next_move`), PettingZoo's loop
(:func:`act_in_env`)::

    from burako_env.agents import make_agent
    from burako_env.core.game import Game, game_seeds, generator_words
    from burako_env.table import Seating, Table

    game = Game("argentine", batch_size=8, deal=False)
    game.state.rng[:] = game_seeds(0, 8)      # each game deals from its own generator
    seating = Seating.duplicate(make_agent("greedy"), make_agent("ppo"), 4, 4)
    agent_rng = generator_words(1, 8 * 4).reshape(8, 4, 4)  # per game and seat
    table = Table(game, seating, agent_rng)
    table.play()                              # deal every game and play it to its end

* :class:`Seating` (:mod:`~burako_env.table.seating`): which agent sits in each seat of
  each game, with builders for the tables the project plays (:meth:`Seating.duplicate`,
  :class:`OpponentSeating`);
* :class:`Table` (:mod:`~burako_env.table.table`): deals, plays until an external seat
  (a learner, agent ``None``) must decide or until the end, resumes with the external
  moves; the one place that dispatches on how an agent decides
  (:meth:`burako_env.agents.base.Agent.decides`) and checks an agent's move;
* the compiled play loop (:mod:`~burako_env.table.kernel`).

Layers: the table sits above the agents and the core and below everything that plays
agents; the envs of :mod:`burako_env.envs` never import it (``tests/layers/test_layers.py``).
"""

from burako_env.table.seating import LEARNER, OpponentSeating, Seating
from burako_env.table.table import (
    IllegalAgentMove,
    Table,
    act_in_env,
    can_read,
    check_move,
    kernel_policy,
    needs_game,
    next_move,
    play_stepped,
)

__all__ = [
    "IllegalAgentMove",
    "LEARNER",
    "OpponentSeating",
    "Seating",
    "Table",
    "act_in_env",
    "can_read",
    "check_move",
    "kernel_policy",
    "needs_game",
    "next_move",
    "play_stepped",
]
