"""Distilling a search: the labels ``burako distill`` records (a search agent's decisions,
replayable into the very games it played, the same for any number of workers), their
file (round trip, every fault refused by name), and training with them (``distill.*``:
the policy moves towards the teacher, a run resumes exactly, bad files and changed files
are refused before anything is written)."""

from __future__ import annotations

import json
import re
import zipfile
from pathlib import Path

import numpy as np
import pytest
import torch
from typer.testing import CliRunner

from burako_env.agents.policy_file import load_network
from burako_env.core.game import Game
from burako_env.frontends.cli import app
from burako_env.training.checkpoint import CheckpointError, load_file
from burako_env.training.config import ConfigError
from burako_env.training.run import train
from burako_env.training.search_labels import (
    ARRAYS,
    SearchLabels,
    TrainingLabels,
    collect_search_labels,
    hand_seeds,
    policy_agreement,
)

TINY = Path(__file__).resolve().parents[2] / "configs" / "train" / "tiny.yaml"
#: a cheap teacher that searches (skip 0.95) and sometimes overrules its policy
TEACHER = "ppo_search:k=2,top=2,skip=0.95,budget_ms=0"
HANDS = 2


@pytest.fixture(scope="module")
def labels_file(tmp_path_factory) -> tuple[SearchLabels, Path]:
    labels = collect_search_labels(TEACHER, hands=HANDS, seed=3)
    path = tmp_path_factory.mktemp("labels") / "labels.npz"
    labels.save(path)
    return labels, path


def test_labels_replay_into_the_games_the_teacher_played(labels_file):
    """Every hand replays from its deal: the forced moves are the only legal ones, and at
    each recorded decision the player's observation and legal actions are the row's, and
    the row's pick is legal there; every row is used, each hand ends."""
    labels, _ = labels_file
    assert len(labels) > 0 and labels.meta["hands"] == HANDS
    row = 0
    for h in range(HANDS):
        game = Game("argentine", num_players=4, seed=hand_seeds(3, h)[0])
        while not game.is_over():
            legal = np.sort(game.legal_actions())
            if legal.size == 1:
                game.step_one(int(legal[0]))
                continue
            assert labels.hand[row] == h
            player = int(game.current_player[0])
            assert np.array_equal(labels.obs[row], game.observe_one(player))
            assert np.array_equal(labels.legal_ids(row), legal)
            game.step_one(int(labels.legal_ids(row)[labels.pick[row]]))
            row += 1
    assert row == len(labels)
    # unsearched decisions are the baseline's; some searched ones overrule it
    assert (labels.pick[~labels.searched] == labels.baseline[~labels.searched]).all()
    assert labels.searched.any() and (labels.changed & labels.searched).any()
    assert labels.meta["decisions"] > len(labels)  # forced moves are played, not recorded


def test_labels_do_not_depend_on_the_number_of_workers(labels_file):
    labels, _ = labels_file
    shared = collect_search_labels(TEACHER, hands=HANDS, seed=3, workers=2)
    for name in ARRAYS:
        assert np.array_equal(getattr(shared, name), getattr(labels, name)), name
    # only the file's record of how it was made says so
    assert (shared.meta["workers"], labels.meta["workers"]) == (2, 1)
    other = collect_search_labels(TEACHER, hands=1, seed=4)
    assert not np.array_equal(other.obs[:5], labels.obs[:5])


def test_label_files_round_trip_and_faults_are_named(labels_file, tmp_path):
    labels, path = labels_file
    back = SearchLabels.load(path)
    for name in ARRAYS:
        assert np.array_equal(getattr(back, name), getattr(labels, name)), name
    assert back.meta == labels.meta

    def refused(arrays: dict, meta: dict, match: str) -> None:
        bad = tmp_path / "bad.npz"
        with open(bad, "wb") as fh:
            np.savez(fh, **arrays, meta=np.array(json.dumps(meta)))
        with pytest.raises(ValueError, match=match):
            SearchLabels.load(bad)

    good = {name: getattr(labels, name) for name in ARRAYS}
    refused(dict(good, pick=labels.pick + 1000), labels.meta, "pick: a position past its list")
    refused(dict(good, obs=labels.obs[:, :-1]), labels.meta, "obs has shape")
    refused(dict(good, flat=labels.flat + 5000), labels.meta, "an action id out of range")
    refused(
        dict(good, searched=labels.searched.astype(np.int8)), labels.meta, "searched must be bool"
    )
    refused(dict(good, obs=labels.obs.astype(np.int64) + 40000), labels.meta, "obs must be int16")
    refused(good, dict(labels.meta, obs_size="1272"), "meta 'obs_size' must be a count")
    refused(good, dict(labels.meta, params="all"), "meta 'params' must be a list")
    refused(good, dict(labels.meta, format=99), "format 99")
    refused(
        {k: v for k, v in good.items() if k != "hand"}, labels.meta, r"lacks the arrays \['hand'\]"
    )
    objects = tmp_path / "objects.npz"
    np.savez(objects, **good, meta=np.array([{"a": 1}], dtype=object))
    with pytest.raises(ValueError, match="cannot be read as a label file"):
        SearchLabels.load(objects)
    cut = tmp_path / "cut.npz"
    cut.write_bytes(path.read_bytes()[:200])
    with pytest.raises(ValueError, match=re.escape(f"search-label file {str(cut)!r}")):
        SearchLabels.load(cut)
    junk = tmp_path / "junk.npz"
    junk.write_bytes(b"no zip at all")
    with pytest.raises(ValueError, match="cannot be read as a label file"):
        SearchLabels.load(junk)
    with pytest.raises(ValueError, match="does not exist"):
        SearchLabels.load(tmp_path / "missing.npz")
    assert zipfile.is_zipfile(path)  # the good file untouched by all of this


def _cross_entropy(policy: Path, labels: SearchLabels) -> float:
    """The policy's mean cross-entropy with the teacher's searched choices."""
    return policy_agreement(load_network(policy)[0], labels)["cross_entropy"]


def test_the_teachers_own_policy_agrees_wherever_the_search_did_not_overrule(labels_file):
    """The teacher searches over the shipped policy: that policy's argmax is the label at
    every searched decision but those the search overruled, and at none of those."""
    labels, _ = labels_file
    from burako_env.agents.ppo_agent import pretrained_path

    found = policy_agreement(load_network(pretrained_path())[0], labels)
    searched = int(labels.searched.sum())
    overruled = int((labels.changed & labels.searched).sum())
    assert (found["searched"], found["overruled"]) == (searched, overruled) and overruled
    assert found["overruled_agreement"] == 0.0
    assert found["agreement"] == pytest.approx(1 - overruled / searched)
    assert found["cross_entropy"] > 0


def test_the_distill_term_moves_the_policy_towards_the_teacher(labels_file, tmp_path):
    """The same tiny run with the term at weight 0 and at 20: the weighted run ends much
    closer to the teacher's choices; the scalars are logged."""
    labels, path = labels_file
    # a larger step than the tiny config's, so that 16 steps show where they lead
    common = ["eval.every=0", f"distill.data=[{path}]", "ppo.lr=3e-3", "ppo.anneal_lr=false"]
    train(TINY, common + ["distill.coef=0"], run_dir=tmp_path / "off", verbose=False)
    train(TINY, common + ["distill.coef=20"], run_dir=tmp_path / "on", verbose=False)
    off = _cross_entropy(tmp_path / "off" / "policy.pt", labels)
    on = _cross_entropy(tmp_path / "on" / "policy.pt", labels)
    assert on < off - 0.2, (on, off)
    from burako_env.training.evaluate import read_scalars

    scalars = read_scalars(tmp_path / "on")
    assert "losses/distill" in scalars and "charts/distill_agreement" in scalars


def test_a_run_with_labels_resumes_exactly_and_refuses_changed_labels(labels_file, tmp_path):
    _, path = labels_file
    common = ["eval.every=4", f"distill.data=[{path}]"]
    train(TINY, common, run_dir=tmp_path / "full", verbose=False)
    train(TINY, common, run_dir=tmp_path / "split", stop_after=2, verbose=False)
    stopped = load_file(tmp_path / "split" / "checkpoints" / "last.pt")
    assert stopped["progress"]["distill_digests"] and stopped["progress"]["update"] == 2
    train(run_dir=tmp_path / "split", resume=True, verbose=False)
    a = load_file(tmp_path / "full" / "checkpoints" / "last.pt")["model"]
    b = load_file(tmp_path / "split" / "checkpoints" / "last.pt")["model"]
    assert a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)
    # the same run folder, its label file changed since: refused, nothing touched
    changed = tmp_path / "changed.npz"
    labels = SearchLabels.load(path)
    labels.pick = labels.baseline.copy()
    labels.save(changed)
    train(
        TINY,
        ["eval.every=0", f"distill.data=[{changed}]"],
        run_dir=tmp_path / "c",
        stop_after=2,
        verbose=False,
    )
    changed.write_bytes(path.read_bytes())
    before = (tmp_path / "c" / "checkpoints" / "last.pt").read_bytes()
    with pytest.raises(CheckpointError, match="other distill.data files"):
        train(run_dir=tmp_path / "c", resume=True, verbose=False)
    assert (tmp_path / "c" / "checkpoints" / "last.pt").read_bytes() == before


def test_bad_distill_settings_and_foreign_labels_are_refused_before_a_run_folder(
    labels_file, tmp_path
):
    labels, path = labels_file
    cases = [
        ([f"distill.data=[{tmp_path / 'none.npz'}]"], "distill.data[0]"),
        ([f"distill.data=[{path}]", "distill.coef=-1"], "distill.coef"),
        ([f"distill.data=[{path}]", "distill.minibatch=0"], "distill.minibatch"),
    ]
    foreign = tmp_path / "italian.npz"
    SearchLabels(
        **{n: getattr(labels, n) for n in ARRAYS}, meta=dict(labels.meta, params=[0])
    ).save(foreign)
    cases.append(([f"distill.data=[{foreign}]"], "was recorded at"))
    nothing = tmp_path / "nothing.npz"
    unsearched = SearchLabels(**{n: getattr(labels, n) for n in ARRAYS}, meta=labels.meta)
    unsearched.searched = np.zeros_like(labels.searched)
    unsearched.save(nothing)
    cases.append(([f"distill.data=[{nothing}]"], "no searched decision"))
    for overrides, match in cases:
        with pytest.raises(ConfigError, match=re.escape(match)):
            train(TINY, overrides, run_dir=tmp_path / "run", verbose=False)
        assert not (tmp_path / "run").exists()
    # every decision may be learnt (distill.searched_only=false): no error then
    TrainingLabels.load([str(nothing)], Game("argentine").variant, labels.obs.shape[1], False)


def test_burako_distill_writes_the_labels_and_refuses_bad_input(tmp_path):
    runner = CliRunner()
    out = tmp_path / "l.npz"
    args = ["distill", "--teacher", TEACHER, "--hands", "1", "--seed", "5", "--no-progress"]
    result = runner.invoke(app, [*args, "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert "decisions of 1 hands" in result.output
    assert len(SearchLabels.load(out)) > 0
    before = out.read_bytes()
    result = runner.invoke(app, [*args, "--out", str(out)])
    assert result.exit_code == 2 and "already exists" in result.output
    result = runner.invoke(app, ["distill", "--teacher", "pimc:k=x", "--out", str(out), "--force"])
    assert result.exit_code == 2 and "pimc" in result.output
    result = runner.invoke(app, ["distill", "--teacher", "greedy", "--out", str(out), "--force"])
    assert result.exit_code == 2 and "reports no search" in result.output
    # it names the search agents to give instead
    assert "such as ppo_search or pimc" in " ".join(result.output.split())
    result = runner.invoke(app, ["distill", "--out", str(tmp_path / "l.txt")])
    assert result.exit_code == 2 and ".npz" in result.output
    assert out.read_bytes() == before  # every refusal left the file as it was


def test_labels_joined_from_several_parts_keep_each_decisions_legal_list():
    """The workers' parts are joined one after the other: each decision keeps its own
    legal list, whatever the number of parts (three here, of unequal sizes)."""
    lists = [[[1, 2, 3], [4]], [[5, 6]], [[7], [8, 9], [10, 11, 12, 13]]]

    def part(decisions: list[list[int]], first_hand: int) -> SearchLabels:
        n = len(decisions)
        return SearchLabels(
            obs=np.zeros((n, 3), np.int16),
            flat=np.array([a for d in decisions for a in d], np.int16),
            offsets=np.concatenate([[0], np.cumsum([len(d) for d in decisions])]).astype(np.int64),
            pick=np.zeros(n, np.int64),
            baseline=np.zeros(n, np.int64),
            searched=np.ones(n, np.bool_),
            hand=np.full(n, first_hand, np.int64),
        )

    joined = SearchLabels.join([part(d, i) for i, d in enumerate(lists)], {"obs_size": 3})
    every = [d for decisions in lists for d in decisions]
    assert len(joined) == len(every)
    got = [
        joined.flat[joined.offsets[i] : joined.offsets[i + 1]].tolist() for i in range(len(joined))
    ]
    assert got == every
    assert joined.hand.tolist() == [0, 0, 1, 2, 2, 2]
