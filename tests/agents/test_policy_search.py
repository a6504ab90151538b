"""The ``ppo_search`` agent (agents/policy_search.py): names and settings, legal and
seeded play, no use of hidden information beyond the player's observation and the
determinizations, and every place an agent plays (the tournament, the PettingZoo and
Gymnasium envs, ``burako play``, the web table)."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("torch")

from conftest import (  # noqa: E402
    act_on_observation_alone_is_refused,
    budget_bound_decision,
    plays_in_tournament_and_envs,
    plays_legal_and_is_seeded,
    scripted_person_finishes,
    search_leaves_the_game_untouched,
    twins_get_the_same_decision,
)

from burako_env.agents import agent_names, make_agent  # noqa: E402
from burako_env.agents.policy_search import DEFAULTS, PolicySearchAgent  # noqa: E402
from burako_env.core.game import Game  # noqa: E402

#: small searches keep the tests fast; skip=1 searches every decision with a choice;
#: budget_ms=0 keeps them machine-independent
SMALL = "ppo_search:k=2,skip=1,budget_ms=0"
#: the same with the policy playing the rollouts (4 moves deep, then its value head)
POLICY_SMALL = "ppo_search:k=2,skip=1,budget_ms=0,rollout=policy,objective=win,prior=0.02,depth=4"


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
        ("ppo_search:width=3", r"ppo_search: unknown setting 'width'; settings: k, top"),
        ("ppo_search:depth=-1", r"ppo_search: depth must be a whole number >= 0"),
        (
            "ppo_search:rollout=policy,depth=30",
            r"rollout=policy with depth=30 and leaf=value values its leaves .* objective=win",
        ),
        (
            "ppo_search:rollout=policy,leaf=oracle",
            r"rollout=policy with depth=20000 and leaf=oracle .* objective=win",
        ),
        ("ppo_search:k", r"ppo_search: setting 'k' needs the form key=value"),
        ("ppo_search:rollout=ppo", r"ppo_search: rollout must be one of random, greedy"),
        ("ppo_search:objective=score", r"ppo_search: objective must be one of margin, win"),
        ("ppo_search:k=2,k=3", r"ppo_search: setting 'k' given twice"),
        ("ppo_search:policy=/nowhere/p.pt", r"nowhere"),
        ("ppo_search:leaf=hands", r"ppo_search: leaf must be one of value, oracle"),
        ("ppo_search:leaf=oracle", r"leaf=oracle values the leaves .* rollout=policy"),
        ("ppo_search:infer=0", r"ppo_search: infer must be a whole number >= 1"),
        ("ppo_search:infer=4", r"infer=4 weighs the worlds of the policy's own .* rollout=policy"),
        ("ppo_search:infer_power=2", r"ppo_search: infer_power must be a number in \[0, 1\]"),
        ("ppo_search:infer_seats=0", r"ppo_search: infer_seats must be a whole number >= 1"),
    ],
)
def test_bad_names_say_what_to_fix(name, message):
    with pytest.raises((ValueError, OSError), match=message):
        make_agent(name)


def test_act_on_observation_alone_is_refused():
    act_on_observation_alone_is_refused(SMALL)


def test_a_table_without_a_policy_is_refused():
    agent = make_agent(SMALL)
    with pytest.raises(ValueError, match="no shipped PPO policy"):
        agent.act_game(Game("argentine", num_players=2, seed=0))


# ---------------------------------------------------------------- play
def test_plays_legal_and_is_seeded():
    """A whole hand against greedy: every action legal; the same seed plays the same."""
    for stats in plays_legal_and_is_seeded(SMALL):
        assert stats["confident"] == 0  # skip=1: every decision with a choice searched


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


def test_think_is_act_games_decision_with_its_report():
    """think (what the web table calls to show a bot's thinking) decides as act_game
    does: the policy's own move when it is sure (no candidates), else the search's
    among the policy's favourites, baseline the policy's argmax; also with the policy's
    rollouts."""
    for name in ("ppo_search:skip=0,budget_ms=0", SMALL, POLICY_SMALL):
        game = Game("argentine", num_players=4, seed=8)
        policy = make_agent("ppo", seed=0)
        thinker, actor = make_agent(name, seed=0), make_agent(name, seed=0)
        for _ in range(12):
            report = thinker.think(game)
            assert report.action == actor.act_game(game)
            assert report.baseline == policy.act_game(game)
            if "skip=0" in name:
                assert report.action == report.baseline and report.candidates == ()
            elif game.legal_actions().size > 1:
                played = {c.action for c in report.candidates}
                assert report.baseline in played and report.action in played
                assert report.redeals > 0
            game.step_one(report.action)
        assert thinker.last_report is report


def test_hidden_cards_dealt_again_change_nothing():
    """The same observation with the hidden cards dealt again (a determinization of the
    game for the player to act) gets the same decision from the same seed."""
    twins_get_the_same_decision(SMALL)


def test_policy_rollouts_play_legal_and_are_seeded_and_blind():
    """rollout=policy: a whole hand, every action legal, the same seed the same play; a
    game whose hidden cards were dealt again gets the same decision."""
    for stats in plays_legal_and_is_seeded(POLICY_SMALL):
        assert stats["confident"] == 0
    twins_get_the_same_decision(POLICY_SMALL)


def three_candidates() -> tuple[Game, int, np.ndarray]:
    """An argentine game at its first decision with three legal actions or more: the
    game, the player to act and three of its legal actions."""
    game = Game("argentine", num_players=4, seed=5)
    while game.legal_actions().size < 3:
        game.step_one(int(game.legal_actions()[0]))
    return game, int(game.current_player[0]), game.legal_actions()[:3]


def test_policy_rollouts_value_a_finished_hand_by_its_result_and_a_leaf_by_the_value_head():
    """depth 0: every candidate valued by the value head right after it (strictly between
    a loss and a win); a depth past the hand's end: by the hand's result (0, 0.5 or 1,
    with its margin), the same world for every candidate."""
    from burako_env.agents.pimc import V_MARGIN, V_WIN

    game, viewer, cands = three_candidates()
    name = "ppo_search:rollout=policy,objective=win,prior=0.02,budget_ms=0"
    leaf = make_agent(f"{name},depth=0", seed=1)._policy_rollouts(game, 0, viewer, cands, 4)
    assert leaf.shape == (4, 3, 2)
    assert ((leaf[..., V_WIN] > 0) & (leaf[..., V_WIN] < 1)).all()
    assert (leaf[..., V_MARGIN] == 0).all() and np.unique(leaf[..., V_WIN]).size > 1
    end = make_agent(f"{name},depth=2000", seed=1)._policy_rollouts(game, 0, viewer, cands, 4)
    assert np.isin(end[..., V_WIN], (0.0, 0.5, 1.0)).all()
    assert (end[..., V_MARGIN] != 0).any()
    assert ((end[..., V_WIN] == 1) == (end[..., V_MARGIN] > 0)).all()


def test_policy_rollouts_to_the_hands_end_may_search_the_margin():
    """rollout=policy with objective=margin (every rollout to the hand's end): the
    decision follows the margins the rollouts found, not their wins; the same values with
    objective=win keep the baseline."""
    from burako_env.agents.pimc import NUM_VALUES, V_MARGIN, V_WIN

    game, viewer, _ = three_candidates()
    favourites = make_agent("ppo_search:skip=1,budget_ms=0").priors(game, 0, viewer)[0]
    runner_up = int(favourites[1])

    def rollouts(game, b, viewer, cands, k):
        """every candidate wins every world; the runner-up by 100 points more"""
        values = np.zeros((k, cands.size, NUM_VALUES))
        values[..., V_WIN] = 1.0
        values[:, cands == runner_up, V_MARGIN] = 100.0 + np.arange(k)[:, None]
        return values

    choices = {}
    for objective, prior in (("margin", 1), ("win", 0.0001)):
        agent = make_agent(
            f"ppo_search:rollout=policy,objective={objective},prior={prior},k=8,top=3,"
            "skip=1,budget_ms=0",
            seed=1,
        )
        agent._policy_rollouts = rollouts
        choices[objective] = agent.think(game).action
    assert choices == {"margin": runner_up, "win": int(favourites[0])}


class SteadyValue:
    """A network for the rollouts whose value head says 0.6 for the player to act's team
    everywhere (and which plays each list's first action)."""

    def hints(self, obs, legal, valid, mask):
        return None

    def act(self, obs, legal, valid, action, greedy, hint, oracle):
        import torch

        return legal[:, 0], None, None, torch.full((obs.shape[0],), 0.6)


@pytest.mark.parametrize("seat", [1, 2, 3])
def test_a_leaf_is_valued_for_the_searching_team(seat):
    """depth=0 values each candidate by the value head for the player to act next, turned
    into the searching player's team's win value: 0.8 when that player is on the team
    (after a draw: the searcher itself), 0.2 when an opponent (after a discard: the next
    seat). Seats 2 and 3 make sure the team is the seat's parity, at four players."""
    from burako_env.agents.pimc import V_WIN
    from burako_env.core.constants import DISCARD_BASE, NUM_ACTIONS, PHASE_DRAW, PHASE_PLAY

    agent = make_agent(
        "ppo_search:rollout=policy,objective=win,prior=0.02,budget_ms=0,depth=0", seed=1
    )
    agent._network = lambda game: SteadyValue()
    game = Game("argentine", num_players=4, seed=5)
    found = {}
    while len(found) < 2:
        legal = game.legal_actions()
        if int(game.current_player[0]) == seat and legal.size >= 2:
            phase = int(game.phase[0])
            discards = legal[(legal >= DISCARD_BASE) & (legal < NUM_ACTIONS)]
            if phase == PHASE_DRAW and "draw" not in found:
                found["draw"] = (game.clone(), legal[:2])
            elif phase == PHASE_PLAY and discards.size >= 2 and "discard" not in found:
                found["discard"] = (game.clone(), discards[:2])
        game.step_one(int(legal[-1]) if legal.size > 1 else int(legal[0]))
    for kind, want in (("draw", 0.8), ("discard", 0.2)):
        position, cands = found[kind]
        values = agent._policy_rollouts(position, 0, seat, cands, 3)
        np.testing.assert_allclose(values[..., V_WIN], want, err_msg=kind)


def test_the_baseline_plays_every_halving_round_however_it_fares():
    """Sequential halving measures every candidate's gain against the policy's own action
    (the baseline), so the baseline plays in every round even when it does worst: it is
    played on every determinization dealt, the candidate halved out on fewer."""
    from burako_env.agents.pimc import NUM_VALUES, V_MARGIN, V_WIN

    game, viewer, _ = three_candidates()
    agent = make_agent(
        "ppo_search:rollout=policy,objective=margin,prior=0,k=8,top=3,skip=1,budget_ms=0",
        seed=1,
    )
    favourites = [int(a) for a in agent.priors(game, 0, viewer)[0][:3]]
    margin = {favourites[0]: 0.0, favourites[1]: 20.0, favourites[2]: 10.0}

    def rollouts(game, b, viewer, cands, k):
        """the same margins in every world: the baseline's the lowest"""
        values = np.zeros((k, cands.size, NUM_VALUES))
        values[..., V_MARGIN] = [margin[int(a)] for a in cands]
        values[..., V_WIN] = 1.0
        return values

    agent._policy_rollouts = rollouts
    report = agent.think(game)
    played = {c.action: c.redeals for c in report.candidates}
    assert report.baseline == favourites[0] and report.action == favourites[1]
    assert played[favourites[0]] == played[favourites[1]] == report.redeals
    assert played[favourites[2]] < report.redeals


ORACLE_SMALL = POLICY_SMALL.replace("depth=4", "depth=0,leaf=oracle")


def test_oracle_leaves_read_the_sampled_worlds_hands_and_never_the_real_ones():
    """leaf=oracle: the shipped argentine policy's oracle critic values each leaf from
    the determinization's hands (its values differ from the value head's on the same
    worlds, and change when those worlds' hands are swapped between seats), and the
    decision stays blind to the real hidden cards."""
    from burako_env.agents.pimc import V_WIN

    game, viewer, cands = three_candidates()
    base = "ppo_search:rollout=policy,objective=win,prior=0.02,budget_ms=0,depth=0"
    oracle = make_agent(f"{base},leaf=oracle", seed=1)._policy_rollouts(game, 0, viewer, cands, 4)
    value = make_agent(base, seed=1)._policy_rollouts(game, 0, viewer, cands, 4)
    assert ((oracle[..., V_WIN] > 0) & (oracle[..., V_WIN] < 1)).all()
    assert np.abs(oracle[..., V_WIN] - value[..., V_WIN]).max() > 1e-3

    agent = make_agent(f"{base},leaf=oracle", seed=1)

    determinize = Game.determinize

    def swapped(self, viewer, rng, games, count):
        worlds = determinize(self, viewer, rng, games=games, count=count)
        hands = worlds.state.hands
        others = [(viewer + i) % 4 for i in (1, 2, 3)]
        hands[:, others] = hands[:, others[::-1]]  # the same cards, other seats
        return worlds

    import unittest.mock as mock

    with mock.patch.object(Game, "determinize", swapped):
        moved = agent._policy_rollouts(game, 0, viewer, cands, 4)
    assert np.abs(moved[..., V_WIN] - oracle[..., V_WIN]).max() > 1e-3
    twins_get_the_same_decision(ORACLE_SMALL)
    for stats in plays_legal_and_is_seeded(ORACLE_SMALL):
        assert stats["rollouts"] > 0


def test_oracle_leaves_need_an_oracle_critic():
    """The shipped brazilian policy has no oracle critic: leaf=oracle is refused at its
    table (the check and a decision), saying what to use instead."""
    game = Game("brazilian", num_players=4, seed=2)
    while game.legal_actions().size < 2:
        game.step_one(int(game.legal_actions()[0]))
    agent = make_agent(ORACLE_SMALL)
    message = r"leaf=oracle needs a policy trained with an oracle critic.*use leaf=value"
    with pytest.raises(ValueError, match=message):
        agent.check_table(game.variant)
    with pytest.raises(ValueError, match=message):
        make_agent(ORACLE_SMALL).act_game(game)


INFER_SMALL = POLICY_SMALL + ",infer=4"


def test_inference_plays_legal_and_is_seeded_and_blind():
    """infer=4: a whole hand, every action legal, the same seed the same play, worlds
    weighed at the decisions after a discard; a game whose hidden cards were dealt again
    gets the same decision (the weights read the worlds, never the real hands)."""
    for stats in plays_legal_and_is_seeded(INFER_SMALL):
        assert stats["inferred"] > 0
    twins_get_the_same_decision(INFER_SMALL)
    assert make_agent(INFER_SMALL).name.endswith(",infer=4")


def policy_table_decisions(seed: int, count: int):
    """Seat 0's first ``count`` draw decisions after a discard in 4-player argentine
    hands (seeds from ``seed`` on) whose every seat plays the shipped policy's argmax,
    so that every discard is the policy's own: yields each game."""
    from burako_env.core.constants import PHASE_DRAW, S_TURN

    policy = make_agent("ppo", seed=0)
    seen = 0
    while seen < count:
        game = Game("argentine", num_players=4, seed=seed)
        while not game.is_over() and seen < count:
            if game.phase[0] == PHASE_DRAW and game.current_player[0] == 0:
                if game.state.scalars[0, S_TURN] > 0 and game.state.pile_len[0] > 0:
                    seen += 1
                    yield game
            game.step_one(policy.act_game(game))
        seed += 1


def test_the_discard_likelihood_finds_the_real_hand():
    """The rewind of discard_logp: when every seat plays the policy, the real hand of the
    seat before seat 0 makes that seat's last discard (the pile's top) far likelier than
    the hands of random determinizations do, and is mostly the policy's own choice (the
    rewind is exact for that seat but for the table's later changes)."""
    agent = make_agent(INFER_SMALL, seed=0)
    rng = np.random.default_rng(0)
    seat = np.array([3])
    real, dealt = [], []
    for game in policy_table_decisions(seed=6, count=12):
        net = agent._network(game)
        top = np.array([game.state.pile[0, game.state.pile_len[0] - 1]], np.int64)
        real.append(PolicySearchAgent.discard_logp(game.clone(), seat, top, net)[0])
        worlds = game.determinize(0, rng, count=16)
        dealt.append(np.median(PolicySearchAgent.discard_logp(worlds, seat, top, net)))
    real, dealt = np.array(real), np.array(dealt)
    assert real.size == 12
    assert (real > dealt).mean() >= 0.9
    assert (np.exp(real) > 0.5).mean() >= 0.75


def test_the_rewind_lets_the_seat_discard_any_card_it_is_given_back():
    """discard_logp rewinds the seat to its discard with the card back in its hand and
    nothing forbidden: every card gets a likelihood (a negative log-probability, never
    the 0 of a discard the rewind would not allow)."""
    agent = make_agent(INFER_SMALL, seed=0)
    game = next(policy_table_decisions(seed=6, count=1))
    net = agent._network(game)
    cards = np.arange(12)
    seats = np.full(cards.size, 3)
    logp = [
        PolicySearchAgent.discard_logp(game.clone(), seats[i : i + 1], cards[i : i + 1], net)[0]
        for i in range(cards.size)
    ]
    assert all(value < 0 for value in logp), logp


def test_the_rewind_gives_the_card_back_beside_the_copies_the_seat_holds():
    """The rewound seat holds its hand of the world plus the card it discarded: a card it
    still holds a copy of (two decks) comes back as a second copy, no card is lost."""
    import unittest.mock as mock

    agent = make_agent(INFER_SMALL, seed=0)
    game = next(policy_table_decisions(seed=6, count=1))
    net = agent._network(game)
    hand = game.state.hands[0, 3].copy()
    card = int(np.flatnonzero(hand)[0])  # a card seat 3 holds
    rewound = []
    real_clone = Game.clone

    def clone(self, *args, **kwargs):
        rewound.append(real_clone(self, *args, **kwargs))
        return rewound[-1]

    with mock.patch.object(Game, "clone", clone):
        PolicySearchAgent.discard_logp(game, np.array([3]), np.array([card]), net)
    (back,) = rewound
    want = hand.copy()
    want[card] += 1
    np.testing.assert_array_equal(back.state.hands[0, 3], want)


def test_inference_keeps_the_likelier_worlds():
    """The worlds kept with infer=8 make the last discards likelier than the worlds they
    are drawn from (infer_power=1: the likelihood itself); with infer_power=0 every
    world weighs the same."""
    from burako_env.core.constants import S_TURN

    game = next(
        g
        for g in policy_table_decisions(seed=6, count=40)
        if g.state.pile_len[0] >= 3 and g.state.scalars[0, S_TURN] >= 3
    )
    seats = np.array([3, 2, 1])  # the seats before seat 0, the last to discard first
    end = game.state.pile_len[0]
    cards = game.state.pile[0, end - 3 : end][::-1].astype(np.int64)
    agent = make_agent(f"{POLICY_SMALL},infer=8,infer_power=1", seed=3)
    net = agent._network(game)

    def likelihood(worlds, kept=None):  # [3]: each seat's discard, averaged over worlds
        per_seat = [
            PolicySearchAgent.discard_logp(worlds, seats[i : i + 1], cards[i : i + 1], net)
            for i in range(3)
        ]
        return np.array([v if kept is None else v[kept] for v in per_seat]).mean(axis=1)

    kept = likelihood(*agent._inferred_worlds(game, 0, 0, 16))
    drawn = likelihood(game.determinize(0, 3, count=128))
    assert agent.stats()["inferred"] == 1
    # every seat's discard likelier, and most the previous seat's (its rewind is the most
    # exact; paired with another seat's card it gains a few nats at most)
    assert (kept > drawn + 2.0).all() and kept[0] > drawn[0] + 8.0, (kept, drawn)
    flat = make_agent(f"{POLICY_SMALL},infer=8,infer_power=0", seed=3)
    even = likelihood(*flat._inferred_worlds(game, 0, 0, 16))
    assert abs(even - drawn).sum() < abs(kept - drawn).sum()
    # infer_seats=1: the previous seat's discard alone weighs the worlds
    agent = make_agent(f"{POLICY_SMALL},infer=8,infer_power=1,infer_seats=1", seed=3)
    read = []
    discard_logp = PolicySearchAgent.discard_logp

    def spy(pool, seats, cards, net):
        read.append((seats.tolist(), cards.tolist()))
        return discard_logp(pool, seats, cards, net)

    import unittest.mock as mock

    with mock.patch.object(PolicySearchAgent, "discard_logp", staticmethod(spy)):
        agent._inferred_worlds(game, 0, 0, 16)
    assert read == [([3], cards[:1].tolist())]


def test_search_leaves_the_game_untouched():
    search_leaves_the_game_untouched(
        Game("italian", num_players=4, seed=3), "ppo_search:k=3,top=6,skip=1,budget_ms=0", 30
    )


def test_budget_bounds_the_decision():
    s, _ = budget_bound_decision("ppo_search:k=4096,top=3,skip=1,budget_ms=1")
    assert s["rollouts"] < 4096 * 3


# ---------------------------------------------------------------- where agents play
def test_tournament_and_envs():
    """ppo_search plays in the tournament (stepped path), the PettingZoo env
    (act_in_env) and the Gymnasium env's opponents."""
    bots = {f"player_{i}": make_agent(SMALL, seed=i) for i in range(4)}
    bots["player_1"] = bots["player_3"] = make_agent("greedy")
    plays_in_tournament_and_envs(SMALL, 4, bots)


def test_burako_play_against_ppo_search():
    """``burako play`` seats ppo_search bots: a scripted person finishes the game; the
    CLI keeps a name's settings together and reads a scripted stdin."""
    from typer.testing import CliRunner

    from burako_env.frontends.cli import app
    from burako_env.frontends.commands.play import split_bot_names

    lines = scripted_person_finishes(4, [SMALL, "greedy", SMALL])
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
