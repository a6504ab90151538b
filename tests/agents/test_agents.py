"""The heuristic agents: every row of the discard table and each piece of meld advice of
RULES.md section 11, on constructed tables; legality over whole games; the registry."""

from __future__ import annotations

import numpy as np
import pytest

from burako_env.agents import make_agent, register_agent
from burako_env.agents.base import Agent, RandomAgent
from burako_env.agents.heuristic import DiscardTableAgent, GreedyAgent
from burako_env.agents.policy_context import layout_of_obs
from burako_env.agents.policy_scores import NUM_WEIGHTS, W_DANGER_FIT, default_weights
from burako_env.cards import parse_card
from burako_env.core.actions import decode_action, describe_action
from burako_env.core.constants import (
    ADD_BASE,
    DISCARD_BASE,
    DRAW_STOCK,
    OPEN_GROUP_BASE,
    OPEN_RUN_BASE,
    OPEN_WILD_GROUP_BASE,
    TAKE_PILE,
)
from burako_env.core.game import Game
from burako_env.scenario import build_game

# ---------------------------------------------------------------- helpers
# Four players: seat 0 (team 0) acts, seat 1 is the next opponent, seat 2 the partner.
OPP_HAND = "8d Jc 5d 6d Ts 6h Jd 8s 5s 4s"


def choose(game, name="discard_table", **kw) -> int:
    agent = make_agent(name, seed=0, **kw)
    obs = game.observe()
    mask = game.legal_action_mask()
    a = int(agent.act(obs, mask)[0])
    assert mask[0, a], f"{name} chose an illegal action {describe_action(a)}"
    return a


def discarded(a: int) -> int:
    assert a >= DISCARD_BASE, f"expected a discard, got {describe_action(a)}"
    return a - DISCARD_BASE


def card(text: str) -> int:
    return parse_card(text)


def opp_hand(n: int) -> str:
    return " ".join(OPP_HAND.split()[:n])


def table(hand, next_opp=8, pile="", own=(), opp=(), variant="argentine", **kw):
    return build_game(
        variant,
        4,
        hands={0: hand, 1: opp_hand(next_opp), 2: "9d 9c 8c", 3: "Jh 9h 4h"},
        melds={0: list(own), 1: list(opp)},
        pile=pile,
        player=0,
        phase="play",
        **kw,
    )


def is_open(a: int, kind: str) -> bool:
    return decode_action(a).kind == kind


# ---------------------------------------------------------------- the discard table
# next opponent holds 1 card, pile empty: never a card that fits their melds
def test_one_card_pile_empty_never_a_card_that_fits_their_melds():
    opp = ["5s 6s 7s"]
    assert discarded(choose(table("8s 4c 4d", next_opp=8, opp=opp))) == card("8s")
    assert discarded(choose(table("8s 4c 4d", next_opp=1, opp=opp))) != card("8s")


def test_one_card_pile_empty_prefers_a_card_stuck_in_own_team():
    # Ad has a neighbour (3d) in hand; 5c is stuck (no pair, no neighbour, no meld) but the
    # last opponent is known to hold a 5, so with many cards the ace goes first
    def game(n):
        g = table("Ad 3d 5c Kd Ks", next_opp=n)
        g.state.hands[0, 3, card("5h")] += 1
        g.state.known[0, 3, card("5h")] += 1
        return g

    assert discarded(choose(game(8))) != card("5c")
    assert discarded(choose(game(1))) == card("5c")


def test_one_card_pile_empty_opens_something_for_the_partner():
    # Tc and Ts look alike; the partner is known to hold Th (took it from the pile)
    def game(partner_knows):
        g = table("Tc Ts 4d 4h", next_opp=1)
        if partner_knows:
            g.state.hands[0, 2, card("Th")] += 1
            g.state.known[0, 2, card("Th")] += 1
        return g

    assert discarded(choose(game(True))) in (card("Tc"), card("Ts"))


def test_one_card_pile_not_empty_never_pairs_with_the_pile():
    assert discarded(choose(table("Kd 4c 4d", next_opp=8, pile="Kh"))) == card("Kd")
    assert discarded(choose(table("Kd 4c 4d", next_opp=1, pile="Kh"))) != card("Kd")


# the six other nines lie in our runs: a 9 cannot open anything for them (safe, "tendida")
NINES_ON_TABLE = ["7c 8c 9c", "9c Tc Jc", "7d 8d 9d", "9d Td Jd", "7h 8h 9h", "9h Th Jh"]


def nines(n, pile=""):
    g = build_game(
        "argentine",
        4,
        hands={0: "9s 9s Kd", 1: opp_hand(n), 2: "4d 5c 6h", 3: "Qh Qs 4h"},
        melds={0: NINES_ON_TABLE},
        pile=pile,
        player=0,
        phase="play",
    )
    return g


def test_two_cards_pile_empty_a_safe_card():
    assert discarded(choose(nines(8))) == card("Kd")
    assert discarded(choose(nines(2))) == card("9s")


def test_two_cards_pile_not_empty_a_safe_card():
    assert discarded(choose(nines(8, pile="3c"))) == card("Kd")
    assert discarded(choose(nines(2, pile="3c"))) == card("9s")


def test_three_cards_pile_empty_a_safe_card_where_possible():
    assert discarded(choose(nines(3))) == card("9s")


def test_three_cards_pile_not_empty_no_rule():
    assert discarded(choose(nines(3, pile="3c"))) == card("Kd")


def test_more_than_three_cards_take_the_pile_before_it_grows():
    # nothing to meld from it, but two of its cards pair with the hand: take it
    g = build_game(
        "argentine",
        4,
        hands={0: "Kd 7c 9h 4s Qd 5c 8d Js Th 3c 6s", 1: opp_hand(8), 2: "9d", 3: "Jh"},
        pile="Kc 7h 2c",
        player=0,
        phase="draw",
    )
    assert choose(g) == TAKE_PILE
    assert choose(g, "greedy") == TAKE_PILE  # 7c 7h + 2c is a group: greedy melds from it
    g2 = build_game(
        "argentine",
        4,
        hands={0: "Kd 7c 9h 4s Qd 5c 8d Js Th 3c 6s", 1: opp_hand(8), 2: "9d", 3: "Jh"},
        pile="As 5h",
        player=0,
        phase="draw",
    )
    assert choose(g2, "greedy") == DRAW_STOCK


def test_a_card_of_a_closed_canasta_is_always_good():
    # colombian: a group of seven queens is closed; a queen fits nowhere and, the rank being
    # on the table, opens nothing (unique_group_rank = table)
    closed = ["Qc Qd Qh Qs Qc Qd Qh"]
    g = table("Qs Kd 4c 4d", next_opp=8, opp=closed, variant="colombian")
    assert discarded(choose(g)) == card("Qs")
    # six queens: not closed, so the queen fits their group: keep it from them
    g = table("Qs Kd 4c 4d", next_opp=8, opp=["Qc Qd Qh Qs Qc Qd"], variant="colombian")
    assert discarded(choose(g)) != card("Qs")


# ---------------------------------------------------------------- meld advice
LONG = "5c 9s Jd 3d Kh"  # filler so the hand stays large (no dumping)


@pytest.mark.parametrize("name", ["greedy", "discard_table"])
def test_opens_the_higher_value_group_first(name):
    g = table("Kc Kd Kh 4c 4d 4h " + LONG)
    a = choose(g, name)
    assert is_open(a, "open_group") and decode_action(a).cards[0] % 13 == 12  # kings


@pytest.mark.parametrize("name", ["greedy", "discard_table"])
def test_prefers_a_run_when_a_card_fits_both(name):
    g = table("7h 8h 9h 9c 9d Ks Jd 4c")
    a = choose(g, name)
    assert is_open(a, "open_run"), describe_action(a)


def test_does_not_open_a_run_whose_missing_cards_are_on_the_table():
    # both 3h and both 7h are in the opponents' groups: 4h 5h 6h can never reach seven
    opp = ["3h 3h 3c", "7h 7h 7c"]
    g = table("4h 5h 6h Kc Qd 9s Jd 3d Ac Ts", opp=opp)
    assert not is_open(choose(g), "open_run")
    assert is_open(choose(g, "greedy"), "open_run")
    # with a 7h still unseen the run is alive
    g = table("4h 5h 6h Kc Qd 9s Jd 3d Ac Ts", opp=["3h 3h 3c", "7h 7c 7d"])
    assert is_open(choose(g), "open_run")


def test_opens_aces_without_a_wild():
    g = table("Ac Ad * 9h 5c 7d Qs Kh Th 3s")
    a = choose(g)
    assert not (is_open(a, "open_group") and decode_action(a).cards[0] % 13 == 0)
    a = choose(g, "greedy")  # the most valuable meld: A A *
    assert is_open(a, "open_group") and decode_action(a).wild == 52
    # three aces: the clean group
    a = choose(table("Ac Ad Ah * 9h 5c 7d Qs Kd Th"))
    assert is_open(a, "open_group") and decode_action(a).wild == -1


def test_a_run_opened_with_a_wild_two_takes_the_two_of_its_suit():
    g = table("7h 8h 2h 2c Kd Qs 4c 9s 5d Jc")
    a = choose(g)
    assert is_open(a, "open_run") and decode_action(a).wild == card("2h"), describe_action(a)


def test_a_clean_meld_is_not_dirtied_to_no_purpose():
    own = ["8s 9s Ts"]
    g = table("* Kd Qh 4c 5d 9h 3s Ah 6c Td", own=own)
    a = choose(g)
    assert not (a >= ADD_BASE and a < DISCARD_BASE), describe_action(a)
    # but a wild that completes the team's first canasta goes on
    g = table("* Kd Qh 4c 5d 9h 3s Ah 6c Td", own=["8s 9s Ts Js Qs Ks"])
    assert decode_action(choose(g)).kind == "add"


def test_feeds_the_partner_who_took_the_pile():
    def game():
        g = table("Jh Js Jd Qh Qs Qc 5c 9d Kc 3s 7c")
        for c in ("Qd", "Qd"):
            g.state.hands[0, 2, card(c)] += 1
            g.state.known[0, 2, card(c)] += 1
        return g

    queens = decode_action(choose(game())).cards[0] % 13
    jacks = decode_action(choose(game(), "greedy")).cards[0] % 13
    assert (queens, jacks) == (11, 10)


def going_out_table(match_scores):
    return build_game(
        "argentine",
        4,
        hands={
            0: "Kc Kd Ks 7h",
            1: "5c 6c 7c 8c 9c 4d 5d 6d 7d 8d 9d",
            2: "4h 5h",
            3: "Qh Th 9h 4c 3s 6s 7s",
        },
        melds={
            0: ["3c 3d 3h 3s 3c 3d *"],
            1: ["Ac Ad Ah As Ac Ad Ah", "8s 9s Ts Js Qs Ks As", "Jc Jd Jh Js Jc Jd Jh", "4s 5s 6s"],
        },
        muertos_taken={0: 1, 1: 1},
        player=0,
        phase="play",
        episode="match",
        match_scores=match_scores,
    )


def test_goes_out_near_the_target_not_while_behind():
    # the opponents are far ahead in this hand: laying the kings leaves one card, whose
    # discard goes out and ends the hand behind; far from the target, play on
    a = choose(going_out_table((0, 0)))
    assert a >= DISCARD_BASE, describe_action(a)
    assert is_open(choose(going_out_table((0, 0)), "greedy"), "open_group")
    # near the target, going out wins the match
    a = choose(going_out_table((2950, 1000)))
    assert is_open(a, "open_group"), describe_action(a)


def test_takes_the_muerto_at_once():
    g = table("Kc Kd Ks")
    assert is_open(choose(g), "open_group")  # empties the hand: the muerto, direct


# ---------------------------------------------------------------- greedy
def test_greedy_lays_every_meld_and_discards_the_least_useful_card():
    g = table("Kd 4c 4d 9h 9s 7c 8c Qs Qh Qd")
    a = choose(g, "greedy")
    assert a < DISCARD_BASE  # the queens
    g = table("Kd 4c 4d 9h 9s 7c 8c")
    assert discarded(choose(g, "greedy")) == card("Kd")


# ---------------------------------------------------------------- legality, API
@pytest.mark.parametrize(
    "variant,players",
    [
        ("argentine", 4),
        ("argentine", 2),
        ("italian", 4),
        ("brazilian", 4),
        ("colombian", 4),
        ("colombian", 6),
    ],
)
@pytest.mark.parametrize("name", ["random", "greedy", "discard_table"])
def test_agents_only_choose_legal_actions(variant, players, name):
    game = Game(variant, num_players=players, batch_size=8, seed=7)
    agents = [make_agent(name, seed=s) for s in range(players)]
    for _ in range(5000):
        if game.done.all():
            break
        obs = game.observe()
        mask = game.legal_action_mask()
        seat = game.current_player
        actions = np.full(8, -1, np.int64)
        for p in range(players):
            rows = np.flatnonzero((seat == p) & ~game.done)
            if rows.size:
                actions[rows] = agents[p].act(obs[rows], mask[rows])
        live = ~game.done
        assert mask[np.flatnonzero(live), actions[live]].all()
        game.step(actions)  # checked by the engine as well
    assert game.done.all()


def test_act_one_matches_act_and_reads_int8_masks():
    game = Game("argentine", num_players=4, batch_size=1, seed=3)
    for name in ("greedy", "discard_table"):
        a1 = make_agent(name, seed=1)
        a2 = make_agent(name, seed=1)
        obs = game.observe()
        mask = game.legal_action_mask()
        one = a1.act_one({"observation": obs[0], "action_mask": mask[0].astype(np.int8)})
        assert one == int(a2.act(obs, mask)[0])


def test_agents_play_the_pettingzoo_env():
    aec = pytest.importorskip("burako_env.envs.aec")
    env = aec.env(variant="argentine", num_players=4)
    env.reset(seed=5)
    agents = {
        a: make_agent("discard_table" if i % 2 else "greedy", seed=i)
        for i, a in enumerate(env.possible_agents)
    }
    for _ in range(3000):
        agent = env.agent_selection
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
        else:
            env.step(agents[agent].act_one(obs))
        if not env.agents:
            break
    assert not env.agents


def test_layout_is_read_from_the_observation():
    for variant, n in [("argentine", 2), ("colombian", 6), ("italian", 4)]:
        g = Game(variant, num_players=n)
        assert layout_of_obs(g.observe()[0]) == tuple(g.layout)


def test_registry_and_seeds():
    assert isinstance(make_agent("random"), RandomAgent)
    assert isinstance(make_agent("greedy"), GreedyAgent)
    assert isinstance(make_agent("discard_table"), DiscardTableAgent)
    with pytest.raises(ValueError, match="unknown agent"):
        make_agent("nope")

    class Fixed(Agent):
        name = "fixed"

        def __init__(self, arg, seed=0):
            super().__init__(seed)
            self.arg = arg

        def act(self, obs, mask):
            return np.argmax(mask, axis=1)

    register_agent("fixedtest", Fixed, prefix=True)
    assert make_agent("fixedtest:abc").arg == "abc"
    # weights: an array or a dict of names
    ag = make_agent("discard_table", weights={"DANGER_FIT": 7})
    assert ag.weights[W_DANGER_FIT] == 7 and ag.weights.shape == (NUM_WEIGHTS,)
    assert (make_agent("greedy").weights == default_weights()).all()
    with pytest.raises(ValueError):
        make_agent("greedy", weights=np.zeros(3))
    # same seed, same choices (random ties come from the agent's seed)
    g = Game("argentine", num_players=4, batch_size=16, seed=1)
    obs, mask = g.observe(), g.legal_action_mask()
    for name in ("random", "greedy", "discard_table"):
        assert (
            make_agent(name, seed=4).act(obs, mask) == make_agent(name, seed=4).act(obs, mask)
        ).all()


def test_finished_games_get_minus_one():
    g = Game("argentine", num_players=4, batch_size=2, seed=1)
    obs, mask = g.observe(), g.legal_action_mask()
    mask[1] = False
    out = make_agent("greedy").act(obs, mask)
    assert out[1] == -1 and mask[0, out[0]]


def test_action_kinds_are_in_range():
    # the policies decode actions with the constants' ranges
    assert OPEN_GROUP_BASE < OPEN_RUN_BASE < OPEN_WILD_GROUP_BASE < ADD_BASE < DISCARD_BASE


class _ModeModel:
    """A Stable-Baselines3-like model: the lowest legal action when ``deterministic``, the
    highest (standing for a sample) when not; it notes the mode it was asked for."""

    def __init__(self) -> None:
        self.modes: list[bool] = []

    def predict(self, obs, action_masks=None, deterministic=False):
        self.modes.append(deterministic)
        ids = np.arange(action_masks.shape[1])
        legal = np.where(action_masks, ids, -1 if not deterministic else ids.size)
        return (legal.min(axis=1) if deterministic else legal.max(axis=1)), None


@pytest.mark.parametrize("deterministic", [True, False])
def test_predict_agent_passes_its_mode_to_the_model(deterministic):
    """``PredictAgent(deterministic=False)`` asks the model to sample (the default plays
    the most likely action)."""
    from burako_env.agents.adapters import PredictAgent

    mask = np.zeros((2, 10), bool)
    mask[0, [2, 5, 7]] = True
    mask[1, [1, 4]] = True
    obs = np.zeros((2, 3), np.int16)
    model = _ModeModel()
    agent = PredictAgent(model, deterministic=deterministic)
    actions = agent.act(obs, mask)
    assert model.modes == [deterministic]
    assert actions.tolist() == ([2, 1] if deterministic else [7, 4])
    model = _ModeModel()
    PredictAgent(model).act(obs, mask)
    assert model.modes == [True]  # the default


def test_the_shipped_policy_plays_under_the_name_ppo():
    """Tables and tournaments show the shipped policy as ``ppo``, the name ``make_agent``
    takes, not as its file's name."""
    from burako_env.agents.ppo_agent import PPOAgent

    assert PPOAgent.pretrained().label == "ppo"
    assert PPOAgent.pretrained(variant="italian", num_players=4).label == "ppo"
    assert make_agent("ppo").label == "ppo"
