"""``discard_table`` with other weights: the presets (``cautious``, ``thrifty``) and
``discard_table:name=value`` settings that evaluations use as opponents no training met."""

from __future__ import annotations

import numpy as np
import pytest
from typer.testing import CliRunner

from burako_env.agents import make_agent, policy_scores
from burako_env.agents.heuristic import (
    WEIGHT_NAMES,
    WEIGHT_PRESETS,
    parse_weight_spec,
    weights_from,
)
from burako_env.agents.policy_scores import NUM_WEIGHTS, default_weights
from burako_env.agents.tournament import run_tournament
from burako_env.core.game import Game
from burako_env.frontends.cli import app


def test_weight_names_follow_the_policy_constants():
    assert len(WEIGHT_NAMES) == NUM_WEIGHTS
    for index, name in enumerate(WEIGHT_NAMES):
        assert getattr(policy_scores, f"W_{name.upper()}") == index


@pytest.mark.parametrize("preset", sorted(WEIGHT_PRESETS))
def test_a_preset_changes_exactly_its_weights(preset):
    agent = make_agent(f"discard_table:{preset}", seed=3)
    assert agent.name == f"discard_table:{preset}"
    changed = {WEIGHT_NAMES[i] for i in np.nonzero(agent.weights != default_weights())[0].tolist()}
    expected = {
        k
        for k, v in WEIGHT_PRESETS[preset].items()
        if v != default_weights()[WEIGHT_NAMES.index(k)]
    }
    assert changed == expected and changed


def test_settings_after_a_preset_override_it():
    spec = parse_weight_spec("cautious, go_out_margin=25,danger_fit=7.5")
    assert spec["go_out_margin"] == 25 and spec["danger_fit"] == 7.5
    assert spec["danger_known"] == WEIGHT_PRESETS["cautious"]["danger_known"]
    w = weights_from({"W_DANGER_FIT": 9})  # the constant's own name works too
    assert w[policy_scores.W_DANGER_FIT] == 9


@pytest.mark.parametrize(
    "spec, words",
    [
        ("reckless", ["unknown weight preset 'reckless'", "cautious", "danger_fit"]),
        ("danger_fits=3", ["unknown weight 'danger_fits'", "danger_fit"]),
        ("danger_fit=high", ["weight 'danger_fit' must be a finite number", "'high'"]),
        ("go_out_margin=inf", ["weight 'go_out_margin' must be a finite number"]),
        ("danger_fit=nan", ["weight 'danger_fit' must be a finite number"]),
        (",", ["empty weight settings", "cautious"]),
    ],
)
def test_bad_settings_are_named(spec, words):
    with pytest.raises(ValueError) as err:
        make_agent(f"discard_table:{spec}")
    for word in words:
        assert word in str(err.value)


def test_the_weights_change_the_play():
    game = Game("argentine", num_players=4, batch_size=64, seed=11)
    plain, cautious = (
        make_agent("discard_table", seed=1),
        make_agent("discard_table:cautious", seed=1),
    )
    differ = decisions = 0
    for _ in range(400):
        obs, mask = game.observe(), game.legal_action_mask()
        a = plain.act(obs, mask)
        live = ~game.done & (mask.sum(1) > 1)
        differ += int(((cautious.act(obs, mask) != a) & live).sum())
        decisions += int(live.sum())
        for b in np.nonzero(~game.done)[0]:
            game.step_one(int(a[b]), int(b))
        if game.done.all():
            break
    # the same observations, another choice in a few percent of the real decisions
    assert decisions > 1000 and 0.01 < differ / decisions < 0.5


def test_a_weighted_player_plays_the_same_in_the_kernel_and_stepped():
    def play(compiled):
        res = run_tournament(
            ["discard_table:thrifty", "discard_table"],
            "argentine",
            num_players=4,
            hands_per_pairing=40,
            seed=5,
            workers=1,
            progress=False,
            compiled=compiled,
        )
        return res.pairings[0]

    kernel, stepped = play(None), play(False)
    assert (kernel.a, kernel.b) == ("discard_table:thrifty", "discard_table")
    # the compiled kernel reads the agent's own weights, as its act() does
    assert (kernel.wins, kernel.losses, kernel.ties, kernel.mean_margin) == (
        stepped.wins,
        stepped.losses,
        stepped.ties,
        stepped.mean_margin,
    )


def test_the_cli_plays_a_weighted_player():
    res = CliRunner().invoke(
        app, ["tournament", "discard_table:cautious", "greedy", "--hands", "4", "--no-progress"]
    )
    assert res.exit_code == 0, res.output
    assert "discard_table:cautious" in res.output
    bad = CliRunner().invoke(
        app, ["tournament", "discard_table:reckless", "greedy", "--hands", "2"]
    )
    assert bad.exit_code != 0 and "unknown weight preset 'reckless'" in bad.output


def test_a_training_league_takes_weighted_players_and_names_bad_ones():
    from burako_env.training.config import ConfigError, load_config

    cfg = load_config("tiny", ['league.heuristics={"discard_table:danger_fit=60": 0.2}'])
    assert cfg.league.heuristics == {"discard_table:danger_fit=60": 0.2}
    with pytest.raises(ConfigError) as err:
        load_config("tiny", ['league.heuristics={"discard_table:reckless": 0.2}'])
    assert "league.heuristics" in str(err.value)
    assert "unknown weight preset 'reckless'" in str(err.value)
