"""A run of several schedules (``fine_tunes``): each starts from the last one's policy, the
chain resumes exactly across its schedules, and a bad entry is refused before anything is
written (docs/TRAINING.md, "Several schedules in one run")."""

from __future__ import annotations

import pytest
import torch

from burako_env.agents.heuristic import WEIGHT_PRESETS
from burako_env.training.checkpoint import load_file
from burako_env.training.config import ConfigError, load_config, schedule_configs
from burako_env.training.ppo import Trainer
from burako_env.training.run import TrainingInterrupted, train

CHAIN = ["fine_tunes=[{ppo.lr: 1.0e-4}, {ppo.total_env_steps: 2048}]", "eval.every=0"]


def _weights(path):
    return load_file(path, kind="policy")["model"]


def _same_weights(a, b) -> bool:
    return a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)


@pytest.fixture(scope="module")
def chain(tmp_path_factory):
    """An uninterrupted run of three schedules of the tiny config."""
    run_dir = tmp_path_factory.mktemp("chain") / "run"
    summary = train("tiny", CHAIN, run_dir=run_dir, verbose=False)
    return run_dir, summary


def test_each_schedule_starts_from_the_last_ones_policy(chain):
    run_dir, summary = chain
    assert [s["updates_run"] for s in summary["schedules"]] == [4, 4, 2]
    assert summary["run_dir"] == str(run_dir)
    first, second, third = (
        load_config(run_dir / f"schedule-{i}" / "config.yaml") for i in (1, 2, 3)
    )
    assert first.init_policy is None and not first.fine_tunes
    assert second.init_policy == str(run_dir / "schedule-1" / "policy.pt")
    assert third.init_policy == str(run_dir / "schedule-2" / "policy.pt")
    # the entry's keys, and only they, change the schedule's config
    assert (first.ppo.lr, second.ppo.lr, third.ppo.lr) == (3e-4, 1e-4, 3e-4)
    assert third.ppo.total_env_steps == 2048 and second.ppo.total_env_steps == 4096
    # the run folder keeps the whole recipe, and the last schedule's policy
    assert len(load_config(run_dir / "config.yaml").fine_tunes) == 2
    assert _same_weights(
        _weights(run_dir / "policy.pt"), _weights(run_dir / "schedule-3" / "policy.pt")
    )
    assert not _same_weights(
        _weights(run_dir / "schedule-2" / "policy.pt"),
        _weights(run_dir / "schedule-3" / "policy.pt"),
    )


def test_a_fine_tune_starts_where_the_last_schedule_ended(tmp_path, monkeypatch):
    """Schedule 2's network at its start is schedule 1's final network (no warm start)."""
    run_dir = tmp_path / "run"
    train("tiny", CHAIN, run_dir=run_dir, verbose=False, stop_after=4)
    assert not (run_dir / "schedule-2").exists()  # stopped right after schedule 1
    seen = {}
    run = Trainer.run

    def record_the_start(self, *args, **kwargs):
        seen["start"] = {k: v.clone() for k, v in self.net.state_dict().items()}
        seen["imitated"] = self.imitated
        return run(self, *args, **kwargs)

    monkeypatch.setattr(Trainer, "run", record_the_start)
    train(run_dir=run_dir, resume=True, verbose=False, stop_after=1)
    assert _same_weights(seen["start"], _weights(run_dir / "schedule-1" / "policy.pt"))
    assert seen["imitated"]  # no warm start: the policy is the start


def test_a_chain_resumes_exactly_across_its_schedules(chain, tmp_path):
    run_dir = tmp_path / "run"
    s = train("tiny", CHAIN, run_dir=run_dir, verbose=False, stop_after=3)
    assert [x["updates_run"] for x in s["schedules"]] == [3]
    assert not (run_dir / "policy.pt").exists()  # no schedule has finished
    s = train(
        overrides=["keep_checkpoints=3"], run_dir=run_dir, resume=True, verbose=False, stop_after=6
    )
    assert [x["updates_run"] for x in s["schedules"]] == [1, 4, 1]
    # a resume's --set reaches the run's config and every schedule it runs
    assert load_config(run_dir / "config.yaml").keep_checkpoints == 3
    assert load_config(run_dir / "schedule-3" / "config.yaml").keep_checkpoints == 3
    s = train(run_dir=run_dir, resume=True, verbose=False)
    assert [x["updates_run"] for x in s["schedules"]] == [1]
    assert _same_weights(_weights(run_dir / "policy.pt"), _weights(chain[0] / "policy.pt"))
    # a finished chain resumed runs nothing
    s = train(run_dir=run_dir, resume=True, verbose=False)
    assert s["schedules"] == []
    with pytest.raises(FileExistsError, match="already holds a run"):
        train("tiny", CHAIN, run_dir=run_dir, verbose=False)


def test_ctrl_c_in_a_later_schedule_says_how_to_go_on(chain, tmp_path, monkeypatch):
    run_dir = tmp_path / "run"
    learn = Trainer.learn

    def learn_until_the_fine_tune(self):
        if self.cfg.ppo.lr == 1e-4:  # schedule 2's first update
            raise KeyboardInterrupt
        return learn(self)

    monkeypatch.setattr(Trainer, "learn", learn_until_the_fine_tune)
    with pytest.raises(TrainingInterrupted) as exc:
        train("tiny", CHAIN, run_dir=run_dir, verbose=False)
    # a fine-tune checkpoints its start (update 0): the message names it, and the
    # command that goes on with the whole chain
    words = exc.value.message
    assert "the last checkpoint is update 0 in" in words
    assert str(run_dir / "schedule-2" / "checkpoints" / "last.pt") in words
    assert words.endswith(f"burako train --resume {run_dir}")
    assert (run_dir / "policy.pt").is_file()  # schedule 1's, finished
    monkeypatch.setattr(Trainer, "learn", learn)
    train(run_dir=run_dir, resume=True, verbose=False)
    assert _same_weights(_weights(run_dir / "policy.pt"), _weights(chain[0] / "policy.pt"))


@pytest.mark.parametrize(
    "entry, words",
    [
        ("[{ppo.lrr: 1.0}]", "fine_tunes[0]': unknown config key 'ppo.lrr'"),
        ("[{}, {ppo.lr: -1}]", "fine_tunes[1]': config key 'ppo.lr' must be positive"),
        ("[{init_policy: x.pt}]", "a fine-tune may not set 'init_policy'"),
        ("[{fine_tunes: []}]", "a fine-tune may not set 'fine_tunes'"),
        ("[3]", "'fine_tunes[0]' must be a mapping"),
        ("{ppo.lr: 1.0}", "'fine_tunes' must be a list"),
        ("[{league.heuristics.nobody: 1.0}]", "fine_tunes[0]': config key 'league.heuristics'"),
    ],
)
def test_a_bad_fine_tune_is_refused_before_anything_is_written(entry, words, tmp_path):
    with pytest.raises(ConfigError, match="fine_tunes") as exc:
        train("tiny", [f"fine_tunes={entry}"], run_dir=tmp_path / "run", verbose=False)
    assert words in str(exc.value)
    assert not (tmp_path / "run").exists()


@pytest.mark.parametrize("variant", ["argentine", "italian", "brazilian", "colombian"])
def test_every_schedule_of_a_shipped_recipe_keeps_its_unseen_opponents_unseen(variant):
    """The shipped recipes are chains (the commands their policies came from, one
    command each), and no schedule's league meets the unseen presets; each chain fits
    issue 32's 2-hour budget in env steps at the fine-tunes' measured speed."""
    stages = schedule_configs(load_config(variant))
    assert len(stages) >= 3
    unseen = {f"discard_table:{p}" for p in WEIGHT_PRESETS}
    for stage in stages:
        assert stage.network.hint is None and stage.env.variant == variant
        assert not set(stage.league.heuristics) & unseen
        assert set(stage.eval.opponents) & unseen
    assert all(s.init_policy is None for s in stages)  # set when each schedule starts
    assert sum(s.ppo.total_env_steps for s in stages) <= 128_000_000


def test_burako_train_runs_a_chain_and_says_each_schedule(tmp_path):
    from typer.testing import CliRunner

    from burako_env.frontends.cli import app

    run_dir = tmp_path / "run"
    args = ["train", "--config", "tiny", "--run-dir", str(run_dir), "--set", "eval.every=0"]
    res = CliRunner().invoke(app, [*args, "--set", "fine_tunes=[{ppo.lr: 1.0e-4}]"])
    assert res.exit_code == 0, res.output
    assert f"schedule 1 of 2 (fresh): {run_dir / 'schedule-1'}" in res.output
    assert f"schedule 2 of 2 (from {run_dir / 'schedule-1' / 'policy.pt'})" in res.output
    assert (run_dir / "policy.pt").is_file()
    bad = CliRunner().invoke(app, [*args, "--set", "fine_tunes=[{ppo.lrr: 1}]"])
    assert bad.exit_code == 2 and "fine_tunes[0]" in bad.output
    assert "unknown config key 'ppo.lrr'" in bad.output


def test_a_chain_that_cannot_start_leaves_no_run_folder(tmp_path):
    run_dir = tmp_path / "run"
    with pytest.raises(Exception, match="no/such/policy.pt"):
        train(
            "tiny",
            ["fine_tunes=[{}]", "init_policy=no/such/policy.pt"],
            run_dir=run_dir,
            verbose=False,
        )
    assert not run_dir.exists()


def test_ctrl_c_before_a_fine_tunes_first_checkpoint_keeps_the_finished_ones(
    chain, tmp_path, monkeypatch
):
    """Stopped in schedule 2's step-0 evaluation (before it saves anything): its folder
    goes, schedule 1 stays, and the message says how to go on with the chain."""
    run_dir = tmp_path / "run"
    evaluate = Trainer.evaluate_and_log

    def stop_in_the_fine_tunes_first_evaluation(self, verbose):
        if self.cfg.ppo.lr == 1e-4:
            raise KeyboardInterrupt
        return evaluate(self, verbose)

    monkeypatch.setattr(Trainer, "evaluate_and_log", stop_in_the_fine_tunes_first_evaluation)
    args = [c for c in CHAIN if not c.startswith("eval.")] + ["eval.every=4"]
    with pytest.raises(TrainingInterrupted) as exc:
        train("tiny", args, run_dir=run_dir, verbose=False)
    assert exc.value.message == (
        "interrupted during update 0 of schedule 2, before its first checkpoint; schedule 1 "
        f"is finished: continue with: burako train --resume {run_dir}"
    )
    assert not (run_dir / "schedule-2").exists() and (run_dir / "schedule-1").is_dir()
