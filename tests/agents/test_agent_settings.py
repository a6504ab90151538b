"""The agents' one settings parser (agents/settings.py): every agent with settings reads
them through it, so its errors are the same words for pimc, ppo_search,
openspiel_ismcts and the weighted heuristics."""

from __future__ import annotations

import pytest

from burako_env.agents.heuristic import parse_weight_spec
from burako_env.agents.settings import parse_settings

KEYS = ("k", "rollout")


def test_pairs_are_read_as_text_in_order():
    got = parse_settings("k=64, rollout = greedy", "pimc", KEYS, "pimc:k=64")
    assert got == {"k": "64", "rollout": "greedy"}
    assert list(got) == ["k", "rollout"]
    assert parse_settings("", "pimc", KEYS, "pimc:k=64") == {}
    assert parse_settings("k=4,", "pimc", KEYS, "pimc:k=64") == {"k": "4"}  # empty part


@pytest.mark.parametrize(
    "text, message",
    [
        ("k", r"pimc: setting 'k' needs the form key=value \(e.g. pimc:k=64\); keys: k, rollout"),
        ("depth=3", r"pimc: unknown setting 'depth'; settings: k, rollout"),
        ("k=2,k=3", r"pimc: setting 'k' given twice"),
    ],
)
def test_a_bad_setting_names_the_agent_and_the_fix(text, message):
    with pytest.raises(ValueError, match=message):
        parse_settings(text, "pimc", KEYS, "pimc:k=64")


def test_presets_stand_for_their_pairs_and_later_pairs_override_them():
    presets = {"calm": {"a": 1.0, "b": 2.0}}
    got = parse_settings("calm,b=5", "x", None, "x:calm", presets, what="weight")
    assert got == {"a": 1.0, "b": "5"}
    with pytest.raises(ValueError, match=r"unknown weight preset 'wild'; presets: calm, or "):
        parse_settings("wild", "x", None, "x:calm", presets, what="weight", named=["a", "b"])
    with pytest.raises(ValueError, match="'b' given twice"):
        parse_settings("b=1,b=2", "x", None, "x:calm", presets, what="weight")


def test_the_weights_read_through_it():
    assert parse_weight_spec("cautious,go_out_margin=25")["go_out_margin"] == 25.0
    with pytest.raises(ValueError, match="given twice"):
        parse_weight_spec("danger_fit=1,danger_fit=2")
    with pytest.raises(ValueError, match="or name=value with a weight of: .*danger_fit"):
        parse_weight_spec("reckless")
