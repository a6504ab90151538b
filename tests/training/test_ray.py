"""Ray: tournaments, simulations and training on a real local cluster (a head and a second
node, one CPU each, on loopback) started here; the results equal the local runs."""

from __future__ import annotations

import os
import signal
import threading
import time
from pathlib import Path

import numpy as np
import pytest

# before Ray is imported: Ray takes 127.0.0.1 as this machine's address, so the test
# cluster listens on loopback only
os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")
ray = pytest.importorskip("ray")

from ray.cluster_utils import Cluster  # noqa: E402
from typer.testing import CliRunner  # noqa: E402

from burako_env.agents.base import Agent  # noqa: E402
from burako_env.agents.tournament import run_tournament  # noqa: E402
from burako_env.core.game import game_seeds  # noqa: E402
from burako_env.distributed import RayError, game_seeds_range, init_ray  # noqa: E402
from burako_env.frontends.cli import app  # noqa: E402
from burako_env.frontends.simulate import simulate  # noqa: E402
from burako_env.training.checkpoint import CheckpointError, load_file  # noqa: E402
from burako_env.training.run import train  # noqa: E402

TINY = Path(__file__).resolve().parents[2] / "configs" / "train" / "tiny.yaml"
NODE_STORE = 100 * 1024 * 1024
# the tiny config on 2 rollout workers, without the warm start, evaluated at the end
RAY_TINY = ["eval.every=4", "imitation.env_steps=0", "distributed.workers=2"]


class FirstLegal(Agent):
    """A plain Python agent (no compiled policy): the lowest legal action."""

    name = "first_legal"

    def act(self, obs, mask):
        return np.argmax(np.asarray(mask, bool), axis=1).astype(np.int64)


@pytest.fixture(scope="module")
def cluster():
    c = Cluster(
        initialize_head=True,
        head_node_args={
            "num_cpus": 1,
            "include_dashboard": False,
            "object_store_memory": NODE_STORE,
        },
    )
    c.add_node(num_cpus=1, object_store_memory=NODE_STORE)
    ray.init(address=c.address, logging_level="ERROR", log_to_driver=False)
    yield c
    ray.shutdown()
    c.shutdown()


def _plain(res) -> list:
    return [p.__dict__ | {"seconds": 0.0} for p in res.pairings] + [res.ratings]


def test_seeds_of_a_range_are_those_of_the_whole_batch():
    np.testing.assert_array_equal(game_seeds_range(17, 5, 9), game_seeds(17, 14)[5:])


def test_tournament_on_the_cluster_equals_the_local_run(cluster, tmp_path):
    kw = dict(
        variant="argentine",
        num_players=4,
        hands_per_pairing=48,
        seed=3,
        progress=False,
        chunk_deals=12,
    )
    names = ["random", "greedy", FirstLegal()]
    local = run_tournament(names, save_games=tmp_path / "local.jsonl", **kw)
    assert [p.compiled for p in local.pairings] == [True, False, False]
    for task_deals in (None, 5):  # 1 task per chunk, or 3 slices of each
        path = tmp_path / f"ray{task_deals}.jsonl"
        got = run_tournament(names, save_games=path, ray=True, task_deals=task_deals, **kw)
        assert _plain(got) == _plain(local)
        assert path.read_bytes() == (tmp_path / "local.jsonl").read_bytes()
        assert got.meta["ray"]["cpus"] == 2
        assert got.meta["ray"]["tasks"] == 2 * (1 if task_deals is None else 3)


def test_a_sequential_tournament_on_the_cluster_equals_the_local_run(cluster, tmp_path):
    """``until_decided``: the chunks of a decided pairing are cancelled and never booked,
    and a pairing with a Python agent plays a chunk only where the local run does."""
    kw = dict(
        variant="argentine",
        num_players=4,
        hands_per_pairing=96,
        seed=3,
        progress=False,
        chunk_deals=8,
        until_decided=(0.5, 0.55),
    )
    names = ["random", "greedy", FirstLegal(), "discard_table"]
    local = run_tournament(names, save_games=tmp_path / "local.jsonl", **kw)
    decided = [p.hands < 96 for p in local.pairings]
    assert any(decided) and not all(decided)  # some stop early, some play to the cap
    got = run_tournament(names, save_games=tmp_path / "ray.jsonl", ray=True, task_deals=5, **kw)
    assert _plain(got) == _plain(local)
    assert (tmp_path / "ray.jsonl").read_bytes() == (tmp_path / "local.jsonl").read_bytes()


def test_simulation_on_the_cluster_equals_the_local_run(cluster):
    local = simulate("argentine", 4, games=150, seed=7)
    got = simulate("argentine", 4, games=150, seed=7, ray=True, chunk=40)
    timing = {"seconds": 0, "compile_seconds": 0, "ray_compile_seconds": 0}
    assert got.__dict__ | timing == local.__dict__ | timing


def test_a_worker_killed_during_a_tournament_changes_nothing(cluster):
    import psutil

    kw = dict(variant="argentine", num_players=4, hands_per_pairing=1200, seed=11, progress=False)
    names = ["greedy", "discard_table"]
    local = run_tournament(names, **kw)
    killed: list[int] = []
    stop = threading.Event()

    def kill_one_running_task() -> None:
        while not stop.is_set() and not killed:
            for proc in psutil.process_iter(["pid", "cmdline"]):
                cmd = " ".join(proc.info["cmdline"] or [])
                if cmd.startswith("ray::play_tournament_chunk"):
                    os.kill(proc.info["pid"], signal.SIGKILL)
                    killed.append(proc.info["pid"])
                    return
            time.sleep(0.005)

    killer = threading.Thread(target=kill_one_running_task)
    killer.start()
    try:
        got = run_tournament(names, ray=True, task_deals=100, **kw)
    finally:
        stop.set()
        killer.join()
    assert killed, "no running tournament task was found to kill"
    assert _plain(got) == _plain(local)


def test_an_unreachable_cluster_is_named(cluster):
    runner = CliRunner()
    res = runner.invoke(
        app, ["tournament", "random", "greedy", "--hands", "4", "--ray-address", "127.0.0.1:1"]
    )
    assert res.exit_code == 2
    assert "error: cannot reach the Ray cluster at '127.0.0.1:1'" in res.output
    with pytest.raises(RayError, match="not HOST:PORT"):
        init_ray("nowhere")


@pytest.fixture(scope="module")
def ray_runs(cluster, tmp_path_factory):
    """The tiny run on 2 rollout workers uninterrupted, and stopped after 2 updates and
    resumed."""
    root = tmp_path_factory.mktemp("ray_runs")
    full = train(TINY, RAY_TINY, run_dir=root / "full", verbose=False, ray=True)
    train(TINY, RAY_TINY, run_dir=root / "split", stop_after=2, verbose=False, ray=True)
    assert load_file(root / "split" / "checkpoints" / "last.pt")["progress"]["update"] == 2
    split = train(run_dir=root / "split", resume=True, verbose=False, ray=True)
    return root, full, split


def _differences(a, b, path="") -> list[str]:
    import torch

    if isinstance(a, dict):
        if set(a) != set(b):
            return [f"{path}: keys {sorted(set(a) ^ set(b))}"]
        return [d for k in a for d in _differences(a[k], b[k], f"{path}/{k}")]
    if isinstance(a, (list, tuple)):
        if len(a) != len(b):
            return [f"{path}: lengths"]
        pairs = enumerate(zip(a, b, strict=True))
        return [d for i, (x, y) in pairs for d in _differences(x, y, f"{path}[{i}]")]
    if isinstance(a, torch.Tensor):
        return [] if torch.equal(a, b) else [path]
    return [] if a == b else [f"{path}: {a!r} != {b!r}"]


def test_training_on_two_rollout_workers_resumes_exactly(ray_runs):
    root, full, split = ray_runs
    assert full["update"] == split["update"] == 4
    assert full["global_step"] == 4 * 16 * 64
    a = load_file(root / "full" / "checkpoints" / "last.pt")
    b = load_file(root / "split" / "checkpoints" / "last.pt")
    assert len(a["workers"]) == 2 and "env" not in a
    assert [int(w["games"]) for w in a["workers"]] == [8, 8]
    assert a["league"]["snapshots"], "the league took snapshots"
    assert _differences(a, b) == []
    assert full["eval"] == split["eval"]


def test_a_second_identical_run_matches(ray_runs, tmp_path):
    root, full, _ = ray_runs
    again = train(TINY, RAY_TINY, run_dir=tmp_path / "again", verbose=False, ray=True)
    a = load_file(root / "full" / "checkpoints" / "last.pt")
    b = load_file(tmp_path / "again" / "checkpoints" / "last.pt")
    assert _differences(a, b) == []
    assert again["eval"] == full["eval"]


def test_overlap_is_left_aside_on_ray(ray_runs, tmp_path):
    """The shipped configs set ``overlap``; on Ray the rollouts are the workers', so the
    run is the one without it, number for number."""
    root, full, _ = ray_runs
    run = tmp_path / "overlap"
    out = train(TINY, RAY_TINY + ["overlap=true"], run_dir=run, verbose=False, ray=True)
    a = load_file(root / "full" / "checkpoints" / "last.pt")
    b = load_file(run / "checkpoints" / "last.pt")
    assert "overlap: true" in (run / "config.yaml").read_text()  # as asked; left aside
    assert _differences(a, b) == []
    assert out["eval"] == full["eval"]


def test_resuming_in_the_other_mode_is_refused(ray_runs):
    root, _, _ = ray_runs
    with pytest.raises(CheckpointError, match="resume it with --ray"):
        train(run_dir=root / "full", resume=True, verbose=False)


def test_a_dead_rollout_actor_is_replaced_and_the_rollout_is_the_same(cluster, tmp_path):
    from burako_env.training.config import load_config
    from burako_env.training.distributed import DistributedTrainer

    cfg = load_config(TINY, RAY_TINY + ["ppo.num_steps=16"])
    batches = []
    for kill in (False, True):
        trainer = DistributedTrainer(cfg, tmp_path / f"kill{kill}")
        try:
            trainer.collect()
            trainer.learn()
            if kill:
                ray.kill(trainer.actors[1])
            trainer.collect()
            batches.append((trainer.store.obs[: trainer.store.n].copy(), trainer.batch_adv.copy()))
            assert trainer.actor_restarts == int(kill)
        finally:
            trainer.close()
    np.testing.assert_array_equal(batches[0][0], batches[1][0])
    np.testing.assert_array_equal(batches[0][1], batches[1][1])
