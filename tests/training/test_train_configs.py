"""The shipped training configs: ``base:`` inheritance, and recipes that stay bit-identical.

``tests/data/train_configs_frozen.json`` is every shipped config as ``load_config(name)``
gave it on main at cf95451, before the variants' configs inherited from
``configs/train/base/hint_free.yaml`` and before ``default.yaml`` was renamed
``hinted.yaml`` (run E's recipe; ``burako train`` runs ``argentine`` with no --config).
A change to a shipped recipe must change that file on purpose.
"""

from __future__ import annotations

import inspect
import json
from pathlib import Path

import pytest
import yaml

from burako_env.training.config import (
    ConfigError,
    load_config,
    merge_config_data,
    shipped_configs,
)
from burako_env.variants import CONFIGS_DIR

FROZEN = json.loads((Path(__file__).parents[1] / "data" / "train_configs_frozen.json").read_text())
#: today's name of each frozen config (default.yaml is hinted.yaml now)
RENAMED = {"default": "hinted"}
TRAIN_DIR = CONFIGS_DIR / "train"
BASE = TRAIN_DIR / "base" / "hint_free.yaml"
VARIANT_CONFIGS = ("argentine", "italian", "brazilian", "colombian")


def _loaded(source) -> dict:
    """A config as plain JSON data (tuples as lists), as the frozen file holds it."""
    return json.loads(json.dumps(load_config(source).to_dict()))


def test_shipped_configs_are_the_frozen_ones():
    names = {RENAMED.get(name, name) for name in FROZEN}
    assert set(shipped_configs()) == names  # base/ holds no config to train
    for frozen_name, values in FROZEN.items():
        assert _loaded(RENAMED.get(frozen_name, frozen_name)) == values, frozen_name


def test_every_schedule_of_a_chain_is_the_frozen_ones():
    from burako_env.training.config import config_from_dict, schedule_configs

    for name in VARIANT_CONFIGS:
        now = [c.to_dict() for c in schedule_configs(load_config(name))]
        then = [c.to_dict() for c in schedule_configs(config_from_dict(FROZEN[name]))]
        assert now == then and len(now) == 1 + len(FROZEN[name]["fine_tunes"])


def test_burako_train_runs_argentine_by_default():
    from burako_env.frontends.commands.train import train

    assert inspect.signature(train).parameters["config"].default == "argentine"
    assert not (TRAIN_DIR / "default.yaml").exists()  # no file named for what it is not


def _leaves(data: dict, prefix: str = "") -> dict:
    out = {}
    for key, value in data.items():
        if isinstance(value, dict):
            out.update(_leaves(value, f"{prefix}{key}."))
        else:
            out[f"{prefix}{key}"] = value
    return out


@pytest.mark.parametrize("name", VARIANT_CONFIGS)
def test_a_variant_config_holds_only_its_differences(name):
    raw = yaml.safe_load((TRAIN_DIR / f"{name}.yaml").read_text())
    assert raw.pop("base") == "base/hint_free.yaml"
    base = _leaves(yaml.safe_load(BASE.read_text()))
    same = {k: v for k, v in _leaves(raw).items() if k in base and base[k] == v}
    assert not same, f"{name}.yaml repeats its base: {same}"


def _write(path: Path, data: dict) -> Path:
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return path


def test_a_file_over_a_shipped_base(tmp_path):
    mine = _write(
        tmp_path / "mine.yaml",
        {
            "base": "italian",
            "name": "mine",
            "ppo": {"lr": 1.0e-4},  # one key of a section: the section's others stay
            "league": {"heuristics": {"random": 0.05}},  # a mapping merges key by key
            "fine_tunes": [{"ppo.lr": 5.0e-5}],  # a list replaces the base's
        },
    )
    got, italian = _loaded(mine), _loaded("italian")
    assert got["ppo"] == {**italian["ppo"], "lr": 1.0e-4}
    assert got["league"]["heuristics"] == {**italian["league"]["heuristics"], "random": 0.05}
    assert got["fine_tunes"] == [{"ppo.lr": 5.0e-5}]
    rest = {k: v for k, v in got.items() if k not in ("name", "ppo", "league", "fine_tunes")}
    assert rest == {k: v for k, v in italian.items() if k in rest}
    # --set comes after the file and its base
    assert load_config(mine, ["ppo.lr=2e-4", "env.num_envs=64"]).ppo.lr == 2e-4


def test_a_base_by_relative_path_and_a_chain(tmp_path):
    (tmp_path / "sub").mkdir()
    _write(tmp_path / "sub" / "first.yaml", {"base": "tiny", "seed": 7})
    second = _write(tmp_path / "second.yaml", {"base": "sub/first.yaml", "name": "second"})
    cfg = load_config(second)
    assert (cfg.seed, cfg.name, cfg.env.num_envs) == (7, "second", load_config("tiny").env.num_envs)


def test_a_missing_base_says_what_to_give(tmp_path):
    bad = _write(tmp_path / "bad.yaml", {"base": "no_such_recipe", "seed": 2})
    with pytest.raises(ConfigError, match=r"its base 'no_such_recipe' is no file .*shipped"):
        load_config(bad)
    bad = _write(tmp_path / "bad.yaml", {"base": "gone/recipe.yaml"})
    with pytest.raises(ConfigError, match=r"its base 'gone/recipe.yaml' is no file"):
        load_config(bad)


@pytest.mark.parametrize("base", [3, "", ["tiny"], {"name": "tiny"}])
def test_a_base_that_names_nothing_is_refused(tmp_path, base):
    bad = _write(tmp_path / "bad.yaml", {"base": base})
    with pytest.raises(ConfigError, match=r"base must be a shipped config's name .*argentine"):
        load_config(bad)


def test_a_base_chain_that_loops_is_refused(tmp_path):
    _write(tmp_path / "a.yaml", {"base": "b.yaml", "seed": 1})
    _write(tmp_path / "b.yaml", {"base": "a.yaml", "seed": 2})
    with pytest.raises(ConfigError, match=r"its base chain loops \(.*a\.yaml -> .*b\.yaml"):
        load_config(tmp_path / "a.yaml")
    _write(tmp_path / "self.yaml", {"base": "self.yaml"})
    with pytest.raises(ConfigError, match="its base chain loops"):
        load_config(tmp_path / "self.yaml")


def test_a_base_chain_is_bounded(tmp_path):
    from burako_env.limits import MAX_BASE_CHAIN

    def chain(length: int) -> Path:  # file 0 says base: file 1, ..., the last base: tiny
        for i in range(length):
            base = f"c{i + 1}.yaml" if i + 1 < length else "tiny"
            _write(tmp_path / f"c{i}.yaml", {"base": base, "seed": i + 2})
        return tmp_path / "c0.yaml"

    # MAX_BASE_CHAIN files in all, the shipped tiny.yaml the last: loads
    assert load_config(chain(MAX_BASE_CHAIN - 1)).seed == 2
    with pytest.raises(ConfigError, match=f"longer than {MAX_BASE_CHAIN} files .*merge some"):
        load_config(chain(MAX_BASE_CHAIN))


def test_a_bad_key_over_a_base_is_named(tmp_path):
    bad = _write(tmp_path / "bad.yaml", {"base": "argentine", "ppo": {"lrr": 1.0e-4}})
    with pytest.raises(ConfigError, match=r"unknown config key 'ppo.lrr'; known keys of ppo"):
        load_config(bad)
    bad = _write(tmp_path / "bad.yaml", {"base": "argentine", "ppo": {"lr": "fast"}})
    with pytest.raises(ConfigError, match="ppo.lr"):
        load_config(bad)


def test_merge_leaves_its_inputs_alone():
    base = {"ppo": {"lr": 1.0, "gamma": 0.9}, "fine_tunes": [{"ppo.lr": 1.0}]}
    data = {"ppo": {"lr": 2.0}, "fine_tunes": []}
    merged = merge_config_data(base, data)
    assert merged == {"ppo": {"lr": 2.0, "gamma": 0.9}, "fine_tunes": []}
    assert base == {"ppo": {"lr": 1.0, "gamma": 0.9}, "fine_tunes": [{"ppo.lr": 1.0}]}
    merged["ppo"]["gamma"] = 0.5
    assert base["ppo"]["gamma"] == 0.9
