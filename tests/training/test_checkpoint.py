"""Hostile training checkpoints and policy files (issue 59, items 1, 3, 7 and 8).

A checkpoint is checked whole, every section against what the running code relies on,
before any of it is used (``Trainer.check_checkpoint``), and the trainer refuses to write
one it could not load again. Every test here failed on the code before that issue's
fixes: the cases that read memory out of bounds (a crafted ``trainer.store.next`` or
``offsets``) run ``burako train --resume`` in a child interpreter under a memory cap and a
time limit (:func:`conftest.cli_capped`), so that the old code fails the test and not
the session; so does the fuzz over every section's fields (:func:`fuzz_checkpoint_fields`).
"""

from __future__ import annotations

import copy
import json
import math
import shutil
import sys
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from conftest import cli_capped, run_python  # noqa: E402

from burako_env.agents.policy_file import CheckpointError, load_network  # noqa: E402
from burako_env.training.checkpoint import load_file, save_file  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
TESTS = Path(__file__).resolve().parent
TINY = ROOT / "configs" / "train" / "tiny.yaml"
#: the tiny run, one update, no warm start nor evaluation, a snapshot in its league
TINY_SETTINGS = ["eval.every=0", "imitation.env_steps=0", "league.snapshot_every=1"]
SECTIONS = ("model", "optimizer", "progress", "league", "rng", "trainer", "env")


def make_run(folder: Path) -> Path:
    """The tiny run stopped after its first update (a checkpoint with every section)."""
    from burako_env.training.run import train

    train(TINY, TINY_SETTINGS, run_dir=folder, stop_after=1, verbose=False)
    return folder


@pytest.fixture(scope="module")
def tiny_run(tmp_path_factory) -> Path:
    return make_run(tmp_path_factory.mktemp("ckpt") / "run")


@pytest.fixture(scope="module")
def trainer(tiny_run):
    """A trainer of the tiny run's config (nothing written until it runs)."""
    from burako_env.training.config import load_config
    from burako_env.training.ppo import Trainer

    return Trainer(load_config(tiny_run / "config.yaml"), tiny_run)


def node_at(data, path: str):
    """``(parent, key)`` of ``path`` in a checkpoint (``trainer/store/next``,
    ``optimizer/param_groups/0/lr``: list indices as numbers; weights' names hold dots)."""

    def key_of(node, part: str):  # an index of a list, or a table's key (optimizer: ints)
        return part if isinstance(node, dict) and part in node else int(part)

    *parents, last = path.split("/")
    node = data
    for part in parents:
        node = node[key_of(node, part)]
    return node, key_of(node, last)


def crafted(tiny_run: Path, path: str, change) -> dict:
    """The tiny run's checkpoint with ``change(value)`` at ``path`` (a tensor is changed in
    place when ``change`` returns None)."""
    data = load_file(tiny_run / "checkpoints" / "last.pt")
    parent, key = node_at(data, path)
    value = change(parent[key])
    if value is not None:
        parent[key] = value
    return data


def resume_folder(tiny_run: Path, folder: Path, data: dict) -> Path:
    """A copy of the tiny run's folder whose last checkpoint is ``data`` (no numbered
    checkpoint to fall back to)."""
    shutil.copy(tiny_run / "config.yaml", folder / "config.yaml")
    (folder / "checkpoints").mkdir()
    save_file(data, folder / "checkpoints" / "last.pt")
    return folder


def set_item(index, value):
    def change(t):
        t.view(-1)[index] = value

    return change


# ------------------------------------------------------------------ memory read out of bounds
@pytest.mark.parametrize(
    "path, change, words",
    [
        # compute_gae read value[2**40]: SIGSEGV
        ("trainer/store/next", set_item(0, 2**40), "trainer.store.next[0] is 1099511627776"),
        # gather_lists read flat[2**40]: SIGSEGV
        ("trainer/store/offsets", set_item(1, 2**40), "trainer.store.offsets[1] is"),
        # compute_gae read past the store and trained on it, exit 0
        ("trainer/store/next", set_item(0, 10**6), "trainer.store.next[0] is 1000000"),
    ],
    ids=["next 2**40", "offsets 2**40", "next 10**6"],
)
def test_a_store_index_out_of_range_is_refused_by_train_resume(
    tiny_run, tmp_path, path, change, words
):
    run = resume_folder(tiny_run, tmp_path, crafted(tiny_run, path, change))
    before = (run / "checkpoints" / "last.pt").read_bytes()
    code, output = cli_capped("train", "--resume", run, timeout=240)
    assert code == 2, output[-3000:]
    assert "error:" in output and words in output and "Traceback" not in output, output
    assert (run / "checkpoints" / "last.pt").read_bytes() == before
    assert sorted(p.name for p in (run / "checkpoints").iterdir()) == ["last.pt"]


# ------------------------------------------------------------------ tracebacks and silent loads
def nan_at(index=0):
    return set_item(index, math.nan)


REFUSED = [
    # a traceback before (IndexError, OverflowError, UnboundLocalError...)
    ("trainer/last", set_item(0, 10**6), "trainer.last[0, 0] is 1000000"),
    ("trainer/store/flat", set_item(0, 5000), "trainer.store.flat[0] is 5000"),
    ("trainer/store/n", lambda n: 2**40, "trainer.store.n is 1099511627776"),
    ("league/ratings/greedy", lambda r: 1e300, "league.ratings['greedy'] is 1e+300"),
    ("progress/league_changes", lambda n: 3, "progress.league_changes is 3, outside 0..0"),
    # accepted silently before
    ("trainer/store/logp", nan_at(), "trainer.store.logp[0] is nan"),
    ("trainer/store/value", nan_at(1), "trainer.store.value[1] is nan"),
    ("trainer/store/reward", set_item(2, math.inf), "trainer.store.reward[2] is inf"),
    ("trainer/store/pick", set_item(0, -3), "trainer.store.pick[0] is -3"),
    ("trainer/store/next", set_item(0, 1), "trainer.last names transition"),
    ("trainer/ep_len", set_item(0, -5), "trainer.ep_len[0] is -5"),
    ("trainer/collected", lambda c: 3, "trainer.collected is 3, not a bool"),
    ("trainer/store/logp", lambda t: t.double(), "trainer.store.logp is float64"),
    ("optimizer/state/0/exp_avg", nan_at(), "optimizer.state[0].exp_avg holds NaN"),
    ("optimizer/state/0", lambda entry: 5, "optimizer.state[0] is int, not a table"),
    # a negative second moment: its square root is NaN, and so is every weight after a step
    ("optimizer/state/0/exp_avg_sq", set_item(0, -1.0), "optimizer.state[0].exp_avg_sq holds"),
    ("optimizer/param_groups/0/lr", lambda lr: math.nan, "optimizer.param_groups[0].lr is nan"),
    ("league/opponent", set_item(0, 50), "league.opponent[0] is 50"),
    ("league/learner_team", set_item(0, 7), "league.learner_team[0] is 7, expected 0 or 1"),
    ("league/agent_rng", set_item(slice(0, 4), 0), "league.agent_rng[0, 0] is [0, 0, 0, 0]"),
    ("league/snapshots/0/1/value_head.weight", nan_at(), "'value_head.weight' holds NaN"),
    (
        "league/snapshots/0/1/value_head.weight",
        lambda t: torch.zeros(t.shape[0], t.shape[1] + 1),
        "'value_head.weight' has shape",
    ),
    ("progress/update", lambda n: -1, "progress.update is -1, outside"),
    ("progress/best_score", lambda s: math.nan, "progress.best_score is nan"),
    ("rng/python_gauss", lambda g: math.nan, "rng.python_gauss is nan"),
    ("rng/python/624", lambda position: 625, "rng.python[624] is 625, outside 0..624"),
    ("progress/distill_digests", lambda d: [3], "progress.distill_digests is [3], not a list"),
    ("model/value_head.weight", lambda t: t.to(torch.int64), "'value_head.weight' holds int64"),
]


@pytest.mark.parametrize("path, change, words", REFUSED, ids=[c[0] for c in REFUSED])
def test_a_crafted_checkpoint_is_refused_naming_the_key_before_use(
    tiny_run, trainer, tmp_path, path, change, words
):
    run = resume_folder(tiny_run, tmp_path, crafted(tiny_run, path, change))
    weights = copy.deepcopy(trainer.net.state_dict())
    last = trainer.last.copy()
    with pytest.raises(CheckpointError) as info:
        trainer.load(run / "checkpoints" / "last.pt")
    assert words in str(info.value) and "is corrupted" in str(info.value)
    # nothing was used: the trainer holds what it held
    assert all(torch.equal(v, trainer.net.state_dict()[k]) for k, v in weights.items())
    assert (trainer.last == last).all()


def test_a_warm_started_run_that_never_evaluates_marks_no_policy_best(tmp_path):
    """``best_policy.pt`` is the best policy by evaluation: a run with ``eval.every=0``
    writes none, not even for its starting policy. (A run of its own, stopped after the
    start's checkpoint: mutmut counts a module fixture's run for the first test only.)"""
    from burako_env.training.run import train

    run = tmp_path / "run"
    # the warm start (imitation) on: the start's checkpoint is written before any update
    train(TINY, ["eval.every=0"], run_dir=run, stop_after=0, verbose=False)
    assert (run / "checkpoints" / "last.pt").is_file()
    assert not (run / "best_policy.pt").exists()
    assert not (run / "checkpoints" / "best.pt").exists()


def test_the_run_writes_no_checkpoint_it_could_not_load(tiny_run, tmp_path):
    """A run whose state went NaN (or a learning rate NaN) refuses to save: the last
    checkpoint stays as it was, loadable."""
    from burako_env.training.config import load_config
    from burako_env.training.ppo import Trainer

    run = tmp_path / "run"
    shutil.copytree(tiny_run, run)
    trainer = Trainer(load_config(run / "config.yaml"), run)
    last = run / "checkpoints" / "last.pt"
    trainer.load(last)
    before = last.read_bytes()
    with torch.no_grad():
        trainer.net.value_head.weight[0, 0] = math.nan
    with pytest.raises(CheckpointError, match="model weight 'value_head.weight' holds NaN"):
        trainer.save()
    assert last.read_bytes() == before
    trainer.load(last)
    trainer.optimizer.param_groups[0]["lr"] = math.nan
    with pytest.raises(CheckpointError, match=r"param_groups\[0\].lr is nan"):
        trainer.save()
    assert last.read_bytes() == before


# ------------------------------------------------------------------ weights of a policy file
def shipped() -> dict:
    return torch.load(ROOT / "burako_env/data/ppo_argentine_4p.pt", weights_only=True)


WEIGHTS = [
    ("complex NaN", lambda t: t.to(torch.complex64) * complex(0, math.nan), "complex64"),
    ("complex 1e30", lambda t: t.to(torch.complex64) + 1e30j, "complex64"),
    ("int64 2**62", lambda t: torch.full(t.shape, 2**62, dtype=torch.int64), "int64"),
    ("bool", lambda t: t > 0, "holds bool values"),
    ("uint8", lambda t: t.to(torch.uint8), "holds uint8 values"),
    ("meta", lambda t: torch.empty(t.shape, device="meta"), "meta tensor"),
    ("sparse", lambda t: t.to_sparse(), "sparse_coo tensor"),
    ("text", lambda t: "weights", "is str, not a tensor"),
]


@pytest.mark.parametrize("kind, change, words", WEIGHTS, ids=[w[0] for w in WEIGHTS])
def test_a_policy_weight_that_is_not_real_floating_point_is_refused(tmp_path, kind, change, words):
    data = shipped()
    name = "trunk.0.weight"
    data["model"][name] = change(data["model"][name])
    bad = tmp_path / "bad.pt"
    torch.save(data, bad)
    with pytest.raises(CheckpointError, match=f"weight {name!r}") as info:
        load_network(bad)
    assert words in str(info.value)


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16, torch.float64])
def test_weights_of_any_floating_dtype_still_load(tmp_path, dtype):
    data = shipped()
    data["model"] = {k: v.to(dtype) for k, v in data["model"].items()}
    path = tmp_path / "policy.pt"
    torch.save(data, path)
    net, _ = load_network(path)
    assert net.trunk[0].weight.dtype == torch.float32


# ------------------------------------------------------------------ the fuzz over every field
def leaves(node, path: str, out: list) -> list:
    """``(path, value)`` of the containers and leaves under ``node`` (a few entries of
    large tables: four weights of a network or of the games' arrays, three words of a
    generator; every key of the others)."""
    out.append((path, node))
    if isinstance(node, dict):
        keys = list(node)
        if len(keys) > 16:
            keys = [keys[0], keys[1], keys[len(keys) // 2], keys[-1]]
        for key in keys:
            leaves(node[key], f"{path}/{key}", out)
    elif isinstance(node, (list, tuple)):
        picks = range(len(node)) if len(node) <= 8 else (0, len(node) // 2, len(node) - 1)
        for i in picks:
            leaves(node[i], f"{path}/{i}", out)
    return out


def mutations(value) -> list[tuple[str, object]]:
    """Hostile replacements of ``value``: NaN, huge, negative, another dtype or type, another
    shape (a function of the value: a tensor is copied first)."""
    if isinstance(value, torch.Tensor):
        t = value.clone()
        flat = t.reshape(-1)
        out = [
            ("dtype", t.to(torch.float64 if not t.is_floating_point() else torch.int64)),
            (
                "shape",
                torch.cat([flat, flat[:1]]) if flat.numel() else torch.zeros(1, dtype=t.dtype),
            ),
            ("text", "0"),
        ]
        if flat.numel():
            for kind, number in (("nan", math.nan), ("huge", None), ("negative", -7)):
                if t.dtype == torch.bool or (kind == "nan" and not t.is_floating_point()):
                    continue
                if t.dtype == torch.uint8 and kind == "negative":
                    continue
                if number is None:
                    number = 1e30 if t.is_floating_point() else torch.iinfo(t.dtype).max
                changed = t.clone()
                changed.reshape(-1)[-1] = number
                out.append((kind, changed))
        return out
    if isinstance(value, bool):
        return [("int", 2), ("text", "yes"), ("none", None)]
    if isinstance(value, (int, float)):
        return [("nan", math.nan), ("huge", 2**70), ("negative", -3), ("text", "1"), ("none", None)]
    if isinstance(value, str):
        return [("number", 5), ("none", None), ("text", "\x00" * 3)]
    if value is None:
        return [("nan", math.nan), ("text", "x")]
    if isinstance(value, (list, tuple)):
        return [("none", None), ("empty", []), ("text", "x")]
    if isinstance(value, dict):
        return [("none", None), ("list", [])]
    return [("none", None)]


def fuzz_checkpoint_fields(run_dir: str) -> dict:
    """Every section's fields of the tiny run's checkpoint (a few entries of large tables)
    replaced by NaN, huge, negative, another dtype, type or shape: each checkpoint is
    refused with a clear CheckpointError naming the section (:func:`test_fuzz_inputs.
    assert_clear`), or, when it holds values the run can use, loads and trains an update
    (saving refuses only a state gone bad). Runs in a child interpreter; returns counts."""
    from conftest import assert_clear

    from burako_env.training.config import load_config
    from burako_env.training.ppo import Trainer

    run = Path(run_dir)
    base = load_file(run / "checkpoints" / "last.pt")
    cfg = load_config(run / "config.yaml")
    checker = Trainer(cfg, run / "checker")
    player = Trainer(cfg, run / "player")
    counts = {"fields": 0, "cases": 0, "refused": 0, "trained": 0, "refused_at_save": 0}
    accepted = []  # the cases trained on, for the report
    for section in SECTIONS:
        for path, value in leaves(base[section], section, []):
            counts["fields"] += 1
            for kind, replacement in mutations(value):
                data = copy.copy(base)
                data[section] = copy.deepcopy(base[section])
                parent, key = node_at(data, path) if "/" in path else (data, path)
                if isinstance(parent, tuple):
                    continue  # a (name, weights) pair: its entries are fuzzed one by one
                parent[key] = replacement
                counts["cases"] += 1
                where = f"{path} -> {kind}"
                try:
                    checker.check_checkpoint(data)
                except CheckpointError as exc:
                    assert_clear(exc, (CheckpointError,))
                    assert section in str(exc), (where, str(exc))
                    counts["refused"] += 1
                    continue
                except Exception as exc:  # noqa: BLE001 - a traceback: the finding
                    raise AssertionError(f"{where}: {type(exc).__name__}: {exc}") from exc
                file = run / "fuzzed.pt"
                save_file(data, file)
                try:  # the games' arrays are checked as they load, before any is set
                    player.load(file)
                except CheckpointError as exc:
                    assert_clear(exc, (CheckpointError,))
                    assert section == "env", (where, str(exc))
                    counts["refused"] += 1
                    continue
                try:
                    player.run(stop_after=1, verbose=False)
                except CheckpointError as exc:
                    assert_clear(exc, (CheckpointError,))
                    assert "no checkpoint is written" in str(exc), (where, str(exc))
                    counts["refused_at_save"] += 1
                    continue
                counts["trained"] += 1
                accepted.append(where)
    return {**counts, "accepted": accepted, "updates": player.update}


def test_fuzz_checkpoint_fields(tiny_run, tmp_path):
    """The fuzz in a child interpreter under a memory cap and a time limit: a crash or a
    hang fails the test, not the session."""
    run = tmp_path / "run"
    shutil.copytree(tiny_run, run)
    code = f"""
        import json, sys
        sys.path[:0] = [{str(TESTS)!r}, {str(TESTS.parent)!r}]  # the module, conftest
        import test_checkpoint
        print("counts", json.dumps(test_checkpoint.fuzz_checkpoint_fields({str(run)!r})))
    """
    done = run_python(code, timeout=900, cap=True)
    signal = f" (killed by signal {-done.returncode})" if done.returncode < 0 else ""
    assert done.returncode == 0, (
        f"exit {done.returncode}{signal}\n{done.stdout[-3000:]}\n{done.stderr[-8000:]}"
    )
    line = next(ln for ln in done.stdout.splitlines() if ln.startswith("counts "))
    counts = json.loads(line.split(" ", 1)[1])
    print(counts, file=sys.stderr)
    assert counts["fields"] >= 80 and counts["refused"] >= 0.8 * counts["cases"], counts


def test_the_checks_leave_every_generator_alone(tiny_run, trainer):
    """The checks run at every save: a draw from the run's generators there (a network
    built to learn its shapes drew torch's) made a resumed run differ from an
    uninterrupted one."""
    import random

    data = load_file(tiny_run / "checkpoints" / "last.pt")
    before = (torch.get_rng_state(), random.getstate(), trainer.rng.bit_generator.state)
    trainer.check_checkpoint(data)
    trainer.league.check_state_dict(data["league"])
    after = (torch.get_rng_state(), random.getstate(), trainer.rng.bit_generator.state)
    assert torch.equal(before[0], after[0]) and before[1:] == after[1:]


# ------------------------------------------------------------------ another table's checkpoint
@pytest.mark.parametrize(
    "key, value, words",
    [
        ("name", "italian", "its variant is 'italian', expected 'argentine'"),
        ("num_players", 2, "its number of players is 2, expected 4"),
        ("obs_size", 7, "its observation size is 7, expected"),
        ("params", [0, 1], "its variant parameters is '(vector)', expected '(vector)'"),
    ],
)
def test_a_checkpoint_of_another_table_is_refused_naming_what_differs(key, value, words):
    """Resuming (``Trainer.load``) compares the file's table with the run's: the refusal
    names the file and the property that differs, in words a user knows."""
    from burako_env.agents.policy_file import variant_info
    from burako_env.core.constants import obs_layout
    from burako_env.training.checkpoint import check_compatible
    from burako_env.variants import load_variant

    table = load_variant("argentine")
    expected = variant_info(table, obs_layout(4, table.total_cards).size)
    check_compatible({"variant": dict(expected)}, expected, "last.pt")  # its own: accepted
    with pytest.raises(CheckpointError) as info:
        check_compatible({"variant": {**expected, key: value}}, expected, "last.pt")
    text = str(info.value)
    assert text.startswith("checkpoint 'last.pt' does not match this setup: ") and words in text
