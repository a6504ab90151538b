"""One evaluation (burako_env.evaluate): every kind of player (an Agent, a name, a
function, an sb3-like model, a real MaskablePPO) plays the same games for the same
policy; its pairings are the tournament's; bad players and bad actions are refused
naming what is wrong; and ``burako tournament ppo:PATH``, ``python -m
burako_env.training.evaluate`` and ``evaluate`` agree on one policy file and seed."""

from __future__ import annotations

import inspect
import json
from pathlib import Path

import numpy as np
import pytest
from gymnasium import spaces
from typer.testing import CliRunner

import burako_env
from burako_env.agents.adapters import FunctionAgent, PredictAgent
from burako_env.agents.base import Agent, checked_actions
from burako_env.agents.tournament import run_tournament
from burako_env.agents.tournament_results import TournamentResult
from burako_env.core.constants import NUM_ACTIONS, obs_layout
from burako_env.evaluation import EVAL_OPPONENTS, EVAL_SEED, as_agent, evaluate
from burako_env.frontends.cli import app
from burako_env.variants import load_variant

TABLE = {"variant": "argentine", "num_players": 2}
SIZE = obs_layout(2, load_variant("argentine").total_cards).size


def lowest_legal(obs, mask):
    """The lowest legal action id of each row."""
    return np.argmax(mask, axis=1)


class Lowest(Agent):
    name = "lowest"

    def act(self, obs, mask):
        return lowest_legal(obs, mask)


class FakeModel:
    """What evaluate needs of an sb3 model: predict(obs, action_masks=, deterministic=)."""

    def __init__(self, dtype=np.int16, size=SIZE):
        low, high = (-1, 1) if dtype == np.int16 else (-40.0, 40.0)
        self.observation_space = spaces.Box(low, high, (size,), dtype)
        self.seen: list[np.ndarray] = []

    def predict(self, obs, state=None, episode_start=None, deterministic=False, action_masks=None):
        assert deterministic and action_masks is not None
        self.seen.append(obs)
        return lowest_legal(obs, action_masks), None


def outcome(res: TournamentResult) -> list[tuple]:
    return [(p.b, p.hands, p.wins, p.losses, p.ties, p.mean_margin) for p in res.pairings]


# ------------------------------------------------------------------ every kind of player
def test_an_agent_a_function_and_a_model_of_one_policy_play_the_same_games():
    opponents = ("random", "greedy")
    results = {
        "agent": evaluate(Lowest(), opponents, hands=4, seed=3, **TABLE),
        "function": evaluate(lowest_legal, opponents, hands=4, seed=3, **TABLE),
        "lambda": evaluate(lambda o, m: m.argmax(axis=1), opponents, hands=4, seed=3, **TABLE),
        "model": evaluate(FakeModel(), opponents, hands=4, seed=3, **TABLE),
    }
    first = outcome(results["agent"])
    assert [b for b, *_ in first] == ["random", "greedy"] and first[0][1] == 4
    for kind, res in results.items():
        assert isinstance(res, TournamentResult), kind
        assert outcome(res) == first, kind
        assert res.num_players == 2 and res.seed == 3 and len(res.pairings) == 2
    assert results["function"].agents[0] == "lowest_legal"
    assert results["lambda"].agents[0] == "player"
    assert results["model"].agents[0] == "FakeModel"


def test_a_name_plays_the_tournaments_pairings():
    """evaluate(A, [B, C]) plays A's pairings of the round robin A, B, C: the same games."""
    names = ["random", "greedy", "discard_table"]
    full = run_tournament(names, hands_per_pairing=6, seed=4, progress=False, **TABLE)
    res = evaluate("random", names[1:], hands=6, seed=4, **TABLE)
    assert outcome(res) == outcome(full)[:2]
    assert res.agents == names and len(res.pairings) == 2
    assert set(res.ratings) == set(names)


def test_defaults_and_the_top_level_name():
    assert burako_env.evaluate is evaluate
    assert "evaluate" in burako_env.__all__
    params = inspect.signature(evaluate).parameters
    assert params["opponents"].default == EVAL_OPPONENTS == ("random", "greedy", "discard_table")
    assert params["seed"].default == EVAL_SEED == 0
    # the table a policy file records, else 4-player argentine
    res = evaluate("greedy", ["random"], hands=2)
    assert (res.variant, res.num_players, res.seed) == ("argentine", 4, EVAL_SEED)
    from burako_env.agents.ppo_agent import PPOAgent

    italian = PPOAgent.pretrained(variant="italian", num_players=4)
    res = evaluate(italian, ["random"], hands=1)
    assert (res.variant, res.num_players) == ("italian", 4)


def test_a_float_model_reads_normalised_observations():
    from burako_env.envs.observation import ObservationLayout

    model = FakeModel(np.float32)
    res = evaluate(model, ["random"], hands=2, **TABLE)
    assert res.pairings[0].hands == 2 and model.seen
    layout = ObservationLayout(load_variant(**TABLE))
    obs = model.seen[0]
    assert obs.dtype == np.float32 and obs.shape[1] == SIZE
    assert (obs >= layout.normalized_low).all() and (obs <= layout.normalized_high).all()
    raw = FakeModel(np.int16)
    evaluate(raw, ["random"], hands=2, **TABLE)
    assert raw.seen[0].dtype == np.int16
    with pytest.raises(ValueError, match=r"reads observations of shape \(99,\).*another table"):
        evaluate(FakeModel(size=99), ["random"], hands=2, **TABLE)


def test_a_maskable_ppo_model_plays():
    pytest.importorskip("torch")
    sb3c = pytest.importorskip("sb3_contrib")
    from burako_env.gym.single import BurakoGymEnv

    for normalize in (False, True):
        env = BurakoGymEnv(normalize_obs=normalize, **TABLE)
        model = sb3c.MaskablePPO(
            "MlpPolicy", env, n_steps=64, policy_kwargs={"net_arch": [8]}, seed=0, device="cpu"
        )
        res = evaluate(model, ["random"], hands=2, **TABLE)
        assert res.agents[0] == "MaskablePPO" and res.pairings[0].hands == 2


# ------------------------------------------------------------------ refusals
def test_what_is_not_a_player_is_refused():
    with pytest.raises(TypeError, match="cannot evaluate a int: give an Agent"):
        evaluate(42, ["random"], hands=2)
    with pytest.raises(TypeError, match=r"not the class Lowest: pass an instance \(Lowest"):
        evaluate(Lowest, ["random"], hands=2)
    with pytest.raises(ValueError, match="unknown agent 'nobody'"):
        evaluate("nobody", ["random"], hands=2)
    with pytest.raises(ValueError, match="unknown agent 'nobody'"):
        evaluate("greedy", ["nobody"], hands=2)
    with pytest.raises(ValueError, match="at least one opponent"):
        evaluate("greedy", [], hands=2)
    with pytest.raises(ValueError, match="hands must be a whole number of at least 1"):
        evaluate("greedy", hands=0)
    assert isinstance(as_agent("greedy"), Agent)


@pytest.mark.parametrize(
    ("policy", "match"),
    [
        (lambda o, m: m.argmax(axis=1).astype(np.float64), "dtype float64: an action is a whole"),
        (lambda o, m: m.argmax(axis=1) > 0, "dtype bool"),
        (lambda o, m: m.argmax(axis=1)[:, None], r"shape \(\d+, 1\) for \d+ observations"),
        (lambda o, m: m.argmax(axis=1)[:1].repeat(len(m) + 1), r"for \d+ observations: one"),
        (lambda o, m: np.full(len(m), NUM_ACTIONS), "chose action 2541 for row 0: outside"),
        (lambda o, m: np.full(len(m), -1), "chose action -1 for row 0: outside"),
        # discarding card type 0 at the first decision (a draw): legal nowhere there
        (
            lambda o, m: np.full(len(m), NUM_ACTIONS - 53),
            r"illegal action 2488 \(discard .+\) in game",
        ),
    ],
)
def test_bad_actions_are_refused_naming_the_action_and_why(policy, match):
    with pytest.raises(ValueError, match=match):
        evaluate(policy, ["random"], hands=2, **TABLE)


def test_checked_actions():
    assert checked_actions([3, 4], 2, "x").dtype == np.int64
    assert checked_actions(np.array([1], np.int8), 1, "x").tolist() == [1]
    with pytest.raises(ValueError, match="policy 'p' returned actions of dtype <U1"):
        checked_actions(["a"], 1, "policy 'p'")
    with pytest.raises(ValueError, match=r"shape \(\) for 1 observations"):
        checked_actions(5, 1, "x")
    agent = FunctionAgent(lambda o, m: [0.5], name="half")
    with pytest.raises(ValueError, match="policy 'half' returned actions of dtype float64"):
        agent.act(np.zeros((1, SIZE), np.int16), np.ones((1, NUM_ACTIONS), bool))
    with pytest.raises(TypeError, match="needs a callable"):
        FunctionAgent(3)
    with pytest.raises(TypeError, match="needs a model with predict"):
        PredictAgent(object())


# ------------------------------------------------------------------ the three front doors agree
def _tiny_policy(path: Path) -> Path:
    import torch

    from burako_env.agents.network import BurakoNet
    from burako_env.training.checkpoint import policy_dict, save_file

    variant = load_variant("argentine", num_players=4)
    torch.manual_seed(0)
    size = obs_layout(4, variant.total_cards).size
    net = BurakoNet(4, variant.total_cards, hidden=16, encoder=8, meld_dim=4)
    save_file(policy_dict(net, variant, size), path)
    return path


def test_the_cli_training_evaluate_and_evaluate_agree_on_a_policy_file(tmp_path):
    pytest.importorskip("torch")
    from burako_env.training import evaluate as training_evaluate

    policy = _tiny_policy(tmp_path / "tiny.pt")
    # the defaults: seed 0 and argmax everywhere
    command = next(c for c in app.registered_commands if c.callback.__name__ == "tournament")
    assert inspect.signature(command.callback).parameters["seed"].default == EVAL_SEED
    params = inspect.signature(training_evaluate.evaluate_policy).parameters
    assert params["seed"].default == EVAL_SEED and params["greedy"].default is True

    out = tmp_path / "out"
    result = CliRunner().invoke(
        app,
        ["tournament", f"ppo:{policy}", "greedy", "--hands", "6", "--out", str(out)]
        + ["--no-progress"],
    )
    assert result.exit_code == 0, result.output
    cli = json.loads((out / "tournament.json").read_text())["pairings"][0]
    assert cli["hands"] == 6 and cli["b"] == "greedy"
    trained = training_evaluate.evaluate_policy(policy, ("greedy",), hands=6)["greedy"]
    ours = evaluate(f"ppo:{policy}", ["greedy"], hands=6).pairings[0]
    for key, theirs in (("win_rate", "win_rate"), ("wins", "wins"), ("ties", "ties")):
        assert cli[key] == trained[theirs] == getattr(ours, key), key
    assert cli["mean_margin"] == trained["margin"] == ours.mean_margin
    # and sampling differs from argmax only where asked for
    sampled = training_evaluate.evaluate_policy(policy, ("greedy",), hands=6, greedy=False)
    assert sampled["greedy"]["hands"] == 6
