"""Checks the search agents' tests share (tests/test_pimc.py, tests/test_policy_search.py):
each takes the agent's small-search name and asserts what both agents must do."""

from __future__ import annotations

import numpy as np
import pytest

from burako_env.agents import make_agent
from burako_env.core.game import Game


def play_hand(game: Game, agents: dict, b: int = 0) -> list[int]:
    """Play the hand to its end, team ``t``'s players by ``agents[t]``: every action legal."""
    actions = []
    while not game.is_over(b):
        p = int(game.current_player[b])
        a = agents[p % 2].act_game(game, b)
        assert game.why_illegal(a, b) is None
        game.step_one(a, b)
        actions.append(a)
    return actions


def act_on_observation_alone_is_refused(small: str) -> None:
    agent = make_agent(small)
    game = Game("argentine")
    with pytest.raises(TypeError, match=r"call act_game\(game, b\)"):
        agent.act(game.observe_one(0)[None], game.legal_action_mask())


def plays_legal_and_is_seeded(small: str) -> list[dict]:
    """A whole hand against greedy, twice: every action legal; the same seed plays the
    same. The searcher's stats of each run."""
    runs, stats = [], []
    for _ in range(2):
        game = Game("argentine", num_players=4, seed=21)
        agents = {0: make_agent(small, seed=5), 1: make_agent("greedy", seed=6)}
        runs.append(play_hand(game, agents))
        stats.append(agents[0].stats())
        assert stats[-1]["searched"] > 0 and stats[-1]["rollouts"] >= 2 * stats[-1]["searched"]
    assert runs[0] == runs[1]
    return stats


def twins_get_the_same_decision(small: str) -> None:
    """The same observation with the hidden cards dealt again (a determinization of the
    game for the player to act) gets the same decision from the same seed."""
    game = Game("argentine", num_players=4, seed=4)
    greedy = make_agent("greedy")
    rng = np.random.default_rng(0)
    checked = 0
    while not game.is_over() and checked < 6:
        if game.legal_actions().size > 1 and rng.random() < 0.3:
            actor = int(game.current_player[0])
            twin = game.determinize(actor, rng)
            assert not np.array_equal(twin.state.stock, game.state.stock)
            assert np.array_equal(twin.observe_one(actor), game.observe_one(actor))
            a = make_agent(small, seed=9).act_game(game)
            b = make_agent(small, seed=9).act_game(twin)
            assert a == b
            checked += 1
        game.step_one(greedy.act_game(game))
    assert checked == 6


def search_leaves_the_game_untouched(game: Game, name: str, moves: int) -> None:
    from burako_env.core.state import states_equal

    agent = make_agent(name, seed=0)
    greedy = make_agent("greedy")
    for _ in range(moves):
        before = game.snapshot()
        a = agent.act_game(game)
        assert game.why_illegal(a) is None
        assert states_equal(game.state, before)
        game.step_one(greedy.act_game(game))


def budget_bound_decision(name: str) -> tuple[dict, Game]:
    """One decision with 3 legal actions or more (argentine, 4 players, seed 7) by the big
    search ``name`` with a 1 ms budget, which binds once: its stats and the game."""
    game = Game("argentine", num_players=4, seed=7)
    while game.legal_actions().size < 3:
        game.step_one(int(game.legal_actions()[0]))
    agent = make_agent(name, seed=0)
    agent.act_game(game)
    s = agent.stats()
    assert s["budget_hits"] == 1
    return s, game


def plays_in_tournament_and_envs(small: str, num_players: int, bots: dict) -> None:
    """``small`` plays in the tournament (stepped path), the PettingZoo env (act_in_env,
    ``bots`` by player name) and the Gymnasium env's opponents."""
    from burako_env.agents.tournament import run_tournament
    from burako_env.envs.aec import env
    from burako_env.table import act_in_env

    res = run_tournament([small, "random"], "argentine", num_players=num_players,
                         hands_per_pairing=2, progress=False, workers=1)  # fmt: skip
    p = res.pairing(small, "random")
    assert p.hands == 2 and not p.compiled

    e = env(variant="argentine", num_players=num_players)
    e.reset(seed=3)
    steps = 0
    for name in e.agent_iter():
        obs, reward, term, trunc, info = e.last()
        e.step(None if term or trunc else act_in_env(e, bots[name]))
        steps += 1
    assert steps > 10

    from burako_env.gym.single import BurakoGymEnv

    searcher = make_agent(small, seed=2)
    g = BurakoGymEnv(variant="argentine", num_players=num_players, opponents=searcher)
    obs, info = g.reset(seed=0)
    greedy = make_agent("greedy")
    done = False
    while not done:
        a = int(greedy.act(obs[None], g.action_masks()[None])[0])
        obs, r, term, trunc, info = g.step(a)
        done = term or trunc
    assert searcher.stats()["decisions"] > 0


def scripted_person_finishes(num_players: int, names: list[str]) -> list[str]:
    """``burako play``'s loop with bots ``names`` and, at seat 0, a scripted person who
    always plays the last legal action: the game finishes. The lines it printed."""
    from burako_env.frontends.play import make_bots, play_game

    game = Game("argentine", num_players=num_players, seed=1)
    bots = make_bots(game, 0, names, seed=0)
    lines: list[str] = []

    def read_move(prompt: str) -> str:
        return str(int(game.legal_actions()[-1]))

    res = play_game(game, 0, bots, read_move, lines.append)
    assert res.finished and res.reason == "over"
    return lines
