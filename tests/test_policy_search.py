"""The ``ppo_search`` agent (agents/policy_search.py): names and settings, legal and
seeded play, no use of hidden information beyond the player's observation and the
determinizations, and every place an agent plays (the tournament, the PettingZoo and
Gymnasium envs, ``burako play``, the web table)."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("torch")

from burako_env.agents import agent_names, make_agent  # noqa: E402
from burako_env.agents.policy_search import DEFAULTS, PolicySearchAgent  # noqa: E402
from burako_env.core.game import Game  # noqa: E402

#: small searches keep the tests fast; skip=1 searches every decision with a choice;
#: budget_ms=0 keeps them machine-independent
SMALL = "ppo_search:k=2,skip=1,budget_ms=0"


def _play_hand(game: Game, agents: dict, b: int = 0) -> list[int]:
    actions = []
    while not game.is_over(b):
        p = int(game.current_player[b])
        a = agents[p % 2].act_game(game, b)
        assert game.why_illegal(a, b) is None
        game.step_one(a, b)
        actions.append(a)
    return actions


# ---------------------------------------------------------------- names
def test_names_and_settings():
    assert "ppo_search" in agent_names() and "ppo_search:..." in agent_names()
    agent = make_agent("ppo_search")
    assert isinstance(agent, PolicySearchAgent) and agent.name == "ppo_search"
    assert (agent.k, agent.top, agent.skip, agent.prior, agent.z) == (
        DEFAULTS["k"],
        DEFAULTS["top"],
        DEFAULTS["skip"],
        DEFAULTS["prior"],
        DEFAULTS["z"],
    )
    agent = make_agent("ppo_search:k=64,top=3,skip=0.7,prior=0,rollout=greedy")
    assert (agent.k, agent.top, agent.skip, agent.prior, agent.rollout) == (
        64,
        3,
        0.7,
        0.0,
        "greedy",
    )
    assert agent.name == "ppo_search:k=64,top=3,skip=0.7,prior=0,rollout=greedy"
    assert make_agent("ppo_search", k=4).k == 4
    assert make_agent("ppo_search:objective=win,budget_ms=0").name == (
        "ppo_search:objective=win,budget_ms=0"
    )


@pytest.mark.parametrize(
    "name, message",
    [
        ("ppo_search:k=0", r"ppo_search: k must be a whole number >= 1, got '0'"),
        ("ppo_search:top=two", r"ppo_search: top must be a whole number >= 1"),
        ("ppo_search:skip=1.5", r"ppo_search: skip must be a number in \[0, 1\]"),
        ("ppo_search:prior=-1", r"ppo_search: prior must be a number >= 0"),
        ("ppo_search:z=x", r"ppo_search: z must be a number >= 0"),
        ("ppo_search:depth=3", r"ppo_search: unknown setting 'depth'; settings: k, top"),
        ("ppo_search:k", r"ppo_search: setting 'k' needs the form key=value"),
        ("ppo_search:rollout=ppo", r"ppo_search: rollout must be one of random, greedy"),
        ("ppo_search:objective=score", r"ppo_search: objective must be one of margin, win"),
        ("ppo_search:k=2,k=3", r"ppo_search: setting 'k' given twice"),
        ("ppo_search:policy=/nowhere/p.pt", r"nowhere"),
    ],
)
def test_bad_names_say_what_to_fix(name, message):
    with pytest.raises((ValueError, OSError), match=message):
        make_agent(name)


def test_act_on_observation_alone_is_refused():
    agent = make_agent(SMALL)
    game = Game("argentine")
    with pytest.raises(TypeError, match=r"call act_game\(game, b\)"):
        agent.act(game.observe_one(0)[None], game.legal_action_mask())


def test_a_table_without_a_policy_is_refused():
    agent = make_agent(SMALL)
    with pytest.raises(ValueError, match="no shipped PPO policy"):
        agent.act_game(Game("argentine", num_players=2, seed=0))


# ---------------------------------------------------------------- play
def test_plays_legal_and_is_seeded():
    """A whole hand against greedy: every action legal; the same seed plays the same."""
    runs = []
    for _ in range(2):
        game = Game("argentine", num_players=4, seed=21)
        agents = {0: make_agent(SMALL, seed=5), 1: make_agent("greedy", seed=6)}
        runs.append(_play_hand(game, agents))
        stats = agents[0].stats()
        assert stats["searched"] > 0 and stats["rollouts"] >= 2 * stats["searched"]
        assert stats["confident"] == 0  # skip=1: every decision with a choice searched
    assert runs[0] == runs[1]


def test_skip_plays_the_policy_when_it_is_sure():
    """skip=0: never a search, the policy's own most likely action (ppo's); the default
    skip searches only some decisions."""
    game = Game("argentine", num_players=4, seed=8)
    policy = make_agent("ppo", seed=0)
    never = make_agent("ppo_search:skip=0,budget_ms=0", seed=0)
    some = make_agent("ppo_search:k=2,budget_ms=0", seed=0)
    for _ in range(60):
        if game.is_over():
            break
        assert never.act_game(game) == policy.act_game(game)
        some.act_game(game)
        game.step_one(policy.act_game(game))
    assert never.stats()["searched"] == 0 and never.stats()["rollouts"] == 0
    s = some.stats()
    assert s["confident"] > 0 and s["searched"] > 0


def test_hidden_cards_dealt_again_change_nothing():
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
            a = make_agent(SMALL, seed=9).act_game(game)
            b = make_agent(SMALL, seed=9).act_game(twin)
            assert a == b
            checked += 1
        game.step_one(greedy.act_game(game))
    assert checked == 6


def test_search_leaves_the_game_untouched():
    from burako_env.core.state import states_equal

    game = Game("italian", num_players=4, seed=3)
    agent = make_agent("ppo_search:k=3,top=6,skip=1,budget_ms=0", seed=0)
    greedy = make_agent("greedy")
    for _ in range(30):
        before = game.snapshot()
        a = agent.act_game(game)
        assert game.why_illegal(a) is None
        assert states_equal(game.state, before)
        game.step_one(greedy.act_game(game))


def test_budget_bounds_the_decision():
    game = Game("argentine", num_players=4, seed=7)
    while game.legal_actions().size < 3:
        game.step_one(int(game.legal_actions()[0]))
    agent = make_agent("ppo_search:k=4096,top=3,skip=1,budget_ms=1", seed=0)
    agent.act_game(game)
    s = agent.stats()
    assert s["budget_hits"] == 1
    assert s["rollouts"] < 4096 * 3


# ---------------------------------------------------------------- where agents play
def test_tournament_and_envs():
    """ppo_search plays in the tournament (stepped path), the PettingZoo env
    (act_in_env) and the Gymnasium env's opponents."""
    from burako_env.agents.tournament import run_tournament
    from burako_env.envs.aec import act_in_env, env

    res = run_tournament([SMALL, "random"], "argentine", num_players=4, hands_per_pairing=2,
                         progress=False, workers=1)  # fmt: skip
    p = res.pairing(SMALL, "random")
    assert p.hands == 2 and not p.compiled

    e = env(variant="argentine", num_players=4)
    e.reset(seed=3)
    bots = {name: make_agent(SMALL, seed=i) for i, name in enumerate(e.possible_agents)}
    bots["player_1"] = bots["player_3"] = make_agent("greedy")
    steps = 0
    for name in e.agent_iter():
        obs, reward, term, trunc, info = e.last()
        e.step(None if term or trunc else act_in_env(e, bots[name]))
        steps += 1
    assert steps > 10

    from burako_env.envs.gym_env import BurakoGymEnv

    searcher = make_agent(SMALL, seed=2)
    g = BurakoGymEnv(variant="argentine", num_players=4, opponents=searcher)
    obs, info = g.reset(seed=0)
    greedy = make_agent("greedy")
    done = False
    while not done:
        a = int(greedy.act(obs[None], g.action_masks()[None])[0])
        obs, r, term, trunc, info = g.step(a)
        done = term or trunc
    assert searcher.stats()["decisions"] > 0


def test_burako_play_against_ppo_search():
    """``burako play`` seats ppo_search bots: a scripted person finishes the game; the
    CLI keeps a name's settings together and reads a scripted stdin."""
    from typer.testing import CliRunner

    from burako_env.frontends.cli import app
    from burako_env.frontends.commands.play import split_bot_names
    from burako_env.frontends.play import make_bots, play_game

    game = Game("argentine", num_players=4, seed=1)
    bots = make_bots(game, 0, [SMALL, "greedy", SMALL], seed=0)
    lines = []

    def read_move(prompt: str) -> str:
        return str(int(game.legal_actions()[-1]))

    res = play_game(game, 0, bots, read_move, lines.append)
    assert res.finished and res.reason == "over"
    assert any("ppo_search" in line for line in lines)

    assert split_bot_names(f"{SMALL},greedy") == [SMALL, "greedy"]
    res = CliRunner().invoke(
        app, ["play", "--seat", "1", "--bots", f"{SMALL},greedy,{SMALL}"], input="quit\n"
    )
    assert res.exit_code == 0, res.output
    assert f"P0 ({SMALL}):" in res.output and "You left the game." in res.output
    res = CliRunner().invoke(app, ["play", "--bots", "ppo_search:k=0"], input="quit\n")
    assert res.exit_code == 2 and "k must be a whole number" in res.output


def test_web_table_offers_ppo_search():
    """The web table lists ppo_search among its bots, plays it, and its bots share the
    loaded policy with the ppo bots."""
    pytest.importorskip("starlette")
    from starlette.testclient import TestClient

    from burako_env.frontends.web.app import create_app

    app = create_app(records_dir=None, bot_delay=0)
    client = TestClient(app)
    assert "ppo_search" in client.get("/api/options").json()["bots"]
    r = client.post(
        "/api/games", json={"seed": 3, "bots": ["ppo_search", "ppo", "ppo_search"], "seat": 0}
    )
    assert r.status_code == 201, r.text
    view = r.json()
    for _ in range(12):  # the person draws and discards; the bots answer
        if view["over"]:
            break
        if view["to_act"] != view["seat"]:
            r = client.post(f"/api/games/{view['id']}/bot")
        else:
            move = {"action": view["moves"][-1]["action"]}
            r = client.post(f"/api/games/{view['id']}/move", json=move)
        assert r.status_code == 200, r.text
        view = r.json()
    session = next(iter(app.state.store._games.values()))[0]
    nets = {id(getattr(b, "net_agent", b).net) for b in session.bots.values()}
    assert len(nets) == 1
    assert any(
        isinstance(b, PolicySearchAgent) and b.stats()["decisions"] for b in session.bots.values()
    )
