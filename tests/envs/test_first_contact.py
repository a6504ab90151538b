"""A researcher's first hour (issue 56): what a first script meets.

* A misspelt environment keyword (``opponent=`` for ``opponents=``) is blamed on the
  environment, with the closest keywords (difflib), its own keywords listed apart from the
  rule parameters; it was reported as an unknown parameter of the variant file, with the
  46 rule parameters and never the env's own keywords.
* The single Gymnasium env gives ``info["action_mask"]`` at reset and every step, as the
  vector env does.
* A run with a hint (the tiny config's discard_table) says so in its first line.
"""

from __future__ import annotations

from pathlib import Path

import gymnasium
import numpy as np
import pytest

import burako_env  # noqa: F401  (registers Burako-v1)
from burako_env import burako_v1
from burako_env.core.constants import NUM_ACTIONS
from burako_env.envs.vector import VectorEnv
from burako_env.gym.single import BurakoGymEnv
from burako_env.variants import (
    PARAMETERS,
    UnknownKeywordError,
    VariantError,
    check_env_keywords,
)

ROOT = Path(__file__).resolve().parents[2]


# ---------------------------------------------------------------- misspelt keywords
@pytest.mark.parametrize(
    ("make", "env", "guess"),
    [
        (lambda: gymnasium.make("Burako-v1", opponent="greedy"), "Burako-v1", "opponents"),
        (lambda: BurakoGymEnv(normalise_obs=True), "Burako-v1", "normalize_obs"),
        (lambda: burako_v1.env(copy_observation=True), "burako_v1", "copy_observations"),
        (lambda: VectorEnv(num_env=2), "VectorEnv", "num_envs"),
        (
            lambda: gymnasium.make_vec(
                "burako_env:Burako-v1",
                num_envs=2,
                vectorization_mode="vector_entry_point",
                oponents="greedy",  # misspelt on purpose: codespell:ignore oponents
            ),
            "Burako-v1 vector env",
            "opponents",
        ),
        # a misspelt rule parameter: the closest rule parameter
        (lambda: burako_v1.env(stok_end=2), "burako_v1", "stock_end"),
    ],
)
def test_a_misspelt_env_keyword_is_the_env_s_and_says_what_was_meant(make, env, guess):
    with pytest.raises(UnknownKeywordError) as raised:
        make()
    message = str(raised.value)
    assert message.startswith(env)
    assert f"(did you mean '{guess}'" in message
    own, rules = message.split("Its own keywords: ")[1].split("; besides, ")
    assert "variant" in own.split(", ") and "num_players" in own.split(", ")
    assert "stock_end" not in own  # the rule parameters are listed apart
    assert "stock_end" in rules and "num_players" not in rules  # the env's own, once
    assert "configs/variants" not in message  # not the variant file's fault
    # what code catching the old error (a VariantError) or Python's own (TypeError) sees
    assert isinstance(raised.value, VariantError) and isinstance(raised.value, TypeError)


def test_rule_parameters_still_override_the_variant_through_the_envs():
    env = gymnasium.make("Burako-v1", stock_end=2, opponents="greedy")
    assert env.unwrapped.variant.stock_end == 2
    assert burako_v1.env(target=1500).unwrapped.variant.target == 1500
    assert VectorEnv(num_envs=2, hand_size=9).variant.hand_size == 9


def test_check_env_keywords_lists_every_unknown_and_passes_rule_parameters():
    def make(variant="argentine", opponents=None, **overrides):
        """A stand-in env."""

    check_env_keywords({"stock_end": 2, "num_players": 4}, make, "probe")  # all rules
    with pytest.raises(UnknownKeywordError) as raised:
        check_env_keywords({"zzz": 1, "opponent": "x"}, make, "probe")
    message = str(raised.value)
    assert "'zzz', 'opponent' (did you mean 'opponents'?)" in message  # no guess for zzz
    assert "Its own keywords: variant, opponents;" in message
    assert len(message.split("lists them): ")[1].split(", ")) == len(PARAMETERS)


# ---------------------------------------------------------------- info["action_mask"]
def test_the_gym_env_gives_the_action_mask_in_info_at_reset_and_every_step():
    env = gymnasium.make("Burako-v1", opponents="greedy")
    obs, info = env.reset(seed=3)
    rng = np.random.default_rng(0)
    steps = 0
    while True:
        mask = info["action_mask"]
        assert mask.dtype == np.bool_ and mask.shape == (NUM_ACTIONS,)
        assert np.array_equal(mask, env.unwrapped.action_masks())
        legal = np.flatnonzero(mask)
        assert np.array_equal(np.sort(legal), np.sort(env.unwrapped.legal_actions()))
        mask[:] = False  # a copy: the env's own mask is untouched
        assert env.unwrapped.action_masks().any()
        obs, reward, terminated, truncated, info = env.step(int(rng.choice(legal)))
        steps += 1
        if terminated or truncated:
            break
    assert steps > 1
    assert not info["action_mask"].any()  # the episode is over: no action is legal


def test_the_action_mask_after_an_illegal_action_is_all_false():
    env = BurakoGymEnv()
    _, info = env.reset(seed=0)
    illegal = int(np.flatnonzero(~info["action_mask"])[0])
    _, reward, terminated, _, info = env.step(illegal)
    assert terminated and reward == -1.0 and "illegal_action" in info
    assert info["action_mask"].shape == (NUM_ACTIONS,) and not info["action_mask"].any()


# ---------------------------------------------------------------- the tiny config's hint
def test_a_hinted_run_says_so_in_its_first_line():
    """The tiny config "beat greedy" by playing its discard_table hint, nothing saying
    so: the run's first line names the hint; a hint-free config's says nothing of one."""
    from burako_env.training.config import load_config
    from burako_env.training.run import hint_note

    note = hint_note(load_config("tiny"))
    assert note.startswith("; hinted by discard_table") and "evals include it" in note
    assert hint_note(load_config("argentine")) == ""  # the hint-free recipe
    assert note in (ROOT / "README.md").read_text(encoding="utf-8")  # the checked example
