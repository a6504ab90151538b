"""Mutation testing of the Python layers with mutmut, one layer at a time (docs/TESTING.md).

    python scripts/tools/mutation.py                       # every layer, 40 mutants each (seed 0)
    python scripts/tools/mutation.py --layer agents --sample 100 --seed 3
    python scripts/tools/mutation.py --layer envs --full   # every mutant of the layer
    python scripts/tools/mutation.py --report              # the last results, no run
    python scripts/tools/mutation.py --layer agents --within 'burako_env.agents.aivat.*'

Each layer runs in ``.mutation/<layer>/`` (git-ignored): links to the sources and tests
and a ``pyproject.toml`` whose ``[tool.mutmut]`` names the layer's files
(``only_mutate``) and the tests that cover them, so the stats run (the layer's tests
once, recording which test reaches which function) and each mutant's run (only the
tests that reached its function, in a child forked from that one pytest session: the
numba kernels compile once per layer) stay short. mutmut keeps its results there, so a
second run only runs the mutants that have none (``--rerun`` runs the sample again).

mutmut skips decorated functions, so the numba kernels (``burako_env.jit``'s ``njit``,
``njit_kernel``, ``njit_parallel``) are never mutated; ``burako_env/core`` is not in any layer (the
compiled rules have hand-written mutants: ``scripts/tools/rule_mutants.py``).

The sample: mutmut writes every mutant of the layer (cheap), the script lists their
names, sorts them and draws ``--sample`` of them with ``random.Random(seed)``; mutmut
runs only those. ``--within`` draws among the mutants whose names match its globs only
(some modules of a layer: ``burako_env.agents.aivat.*``). Runs one test process at a
time (``--max-children 1``, no xdist) under ``nice``; ``--max-minutes`` stops a layer's
run (results so far are kept).
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from datetime import date
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]  # scripts/<folder>/ sits two below the root
WORK = ROOT / ".mutation"
#: what a layer's folder links to (mutmut copies the sources and tests into mutants/)
#: (docs/: tests that compare a shipped report with the page that quotes it)
LINKS = ("agents", "training", "tests", "configs", "scripts", "notebooks", "docs")
#: the top-level folders installed inside the package (pyproject's package-dir)
INSIDE = ("agents", "training")


@dataclass(frozen=True)
class Layer:
    only_mutate: tuple[str, ...]
    tests: tuple[str, ...]
    #: tests left out of the layer's runs: slow ones whose code other tests cover
    deselect: tuple[str, ...] = ()
    #: mutmut's process_isolation: "forkserver" where the tests run torch in the parent
    #: (a child forked after torch's thread pool started hangs: every mutant a timeout)
    isolation: str = "fork"


LAYERS = {
    "agents": Layer(
        only_mutate=("burako_env/agents/*", "burako_env/evaluation.py"),
        tests=(
            "tests/agents/test_agents.py",
            "tests/agents/test_agent_layers.py",
            "tests/agents/test_tournament.py",
            "tests/agents/test_evaluation.py",
            "tests/agents/test_weighted_heuristics.py",
            "tests/agents/test_pimc.py",
            "tests/agents/test_agent_settings.py",
            "tests/agents/test_network_kernels.py",
            "tests/agents/test_policy_search.py",
            "tests/agents/test_leaderboard.py",
            "tests/agents/test_aivat.py",
            "tests/agents/test_sequential.py",
            # the layer's code that other layers' tests exercise: the OpenSpiel search
            # agent, networks grown or given the card history, the policy file's refusals,
            # the policy's report for the web table (PPOAgent.think)
            "tests/envs/test_openspiel.py",
            "tests/training/test_network_growth.py",
            "tests/training/test_training.py::test_legal_only_logits_match_the_full_logits",
            "tests/training/test_checkpoint.py::test_a_policy_weight_that_is_not_real_floating_point_is_refused",
            "tests/training/test_checkpoint.py::test_weights_of_any_floating_dtype_still_load",
            "tests/reliability/test_hostile_input.py::test_a_policy_with_corrupted_weights_is_a_checkpoint_error",
            "tests/reliability/test_error_contract.py::test_policy_records_its_table_and_refuses_another",
            "tests/reliability/test_error_contract.py::test_cli_bad_checkpoint_files",
            "tests/frontends/test_narration.py::test_ppo_thinks_as_it_acts",
        ),
        deselect=(
            # 20 s: a notebook run end to end
            "tests/agents/test_tournament.py::test_notebook_runs",
            # the published reports against their page: the frontends layer runs it
            "tests/agents/test_leaderboard.py::test_the_shipped_reports_are_the_records_figures",
        ),
        isolation="forkserver",
    ),
    "training": Layer(
        only_mutate=("burako_env/training/*",),
        # every test of training/ but test_ray (it starts a Ray cluster)
        tests=(
            "tests/training/test_training.py",
            "tests/training/test_checkpoint.py",
            "tests/training/test_schedules.py",
            "tests/training/test_ppo_loss.py",
            "tests/training/test_league.py",
            "tests/training/test_train_configs.py",
            "tests/training/test_exploit.py",
            "tests/training/test_search_labels.py",
            "tests/training/test_network_growth.py",
            "tests/training/test_oracle_critic.py",
            "tests/training/test_ppo_terms.py",
            "tests/training/test_transitions.py",
            # the layer's code that other layers' tests exercise: resumes of damaged run
            # folders, the train command's refusals, the update threads, the evaluation
            "tests/reliability/test_error_contract.py::test_cli_failed_resume_keeps_config_yaml",
            "tests/reliability/test_error_contract.py::test_resume_falls_back_from_a_corrupt_last_checkpoint",
            "tests/reliability/test_error_contract.py::test_cli_ctrl_c_in_train_says_what_was_saved",
            "tests/reliability/test_error_contract.py::test_update_threads_default_follows_the_machine",
            "tests/reliability/test_error_contract.py::test_cli_train_bad_variant_leaves_no_run_folder",
            "tests/reliability/test_hostile_input.py::test_resume_of_a_corrupted_env_state_is_a_checkpoint_error",
            "tests/reliability/test_hostile_input.py::test_train_network_width_is_bounded",
            "tests/reliability/test_hostile_input.py::test_resume_removes_only_the_temporaries_a_killed_run_left",
            "tests/agents/test_evaluation.py::test_the_cli_training_evaluate_and_evaluate_agree_on_a_policy_file",
        ),
    ),
    "envs": Layer(
        # burako_env/gym holds the Gymnasium envs (single and vector), split from envs/
        only_mutate=("burako_env/envs/*", "burako_env/gym/*"),
        tests=(
            "tests/envs/test_envs.py",
            "tests/envs/test_global_state.py",
            "tests/envs/test_gym_vector.py",
            # the envs' argument checks (the rest of test_error_contract builds a wheel, forks)
            "tests/reliability/test_error_contract.py::test_raw_env_refuses_non_integer_actions",
            "tests/reliability/test_error_contract.py::test_wrapped_env_refuses_non_integer_actions",
            "tests/reliability/test_error_contract.py::test_gym_env_refuses_non_integer_actions",
            "tests/reliability/test_error_contract.py::test_integer_actions_of_numpy_types_are_accepted",
            "tests/reliability/test_error_contract.py::test_vector_env_refuses_coercion",
            "tests/reliability/test_error_contract.py::test_gym_opponents_by_name",
        ),
    ),
    "frontends": Layer(
        only_mutate=("burako_env/frontends/*", "burako_env/records.py"),
        tests=(
            "tests/frontends/test_cli.py",
            "tests/core/test_sweep.py",
            "tests/frontends/test_warmup.py",
            "tests/frontends/test_web_server.py",
            "tests/frontends/test_narration.py",
            "tests/frontends/test_rules_text.py",
            "tests/frontends/test_thinking.py",
            # the fast half: it compiles a one-line kernel in this process
            "tests/frontends/test_compile_notice.py",
            # SQLite and a PostgreSQL server of its own (skipped where none is installed)
            "tests/frontends/test_web_db.py",
            "tests/reliability/test_records.py",
            "tests/agents/test_tournament.py",
            # the commands whose tests live with what they run
            "tests/agents/test_leaderboard.py",
            "tests/training/test_exploit.py",
            "tests/training/test_search_labels.py::test_burako_distill_writes_the_labels_and_refuses_bad_input",
            "tests/training/test_schedules.py::test_burako_train_runs_a_chain_and_says_each_schedule",
            "tests/training/test_training.py::test_burako_train_runs_the_shipped_policys_recipe_by_default",
            "tests/training/test_train_configs.py::test_burako_train_runs_argentine_by_default",
            "tests/agents/test_sequential.py::test_cli_until_decided",
            "tests/agents/test_evaluation.py::test_the_cli_training_evaluate_and_evaluate_agree_on_a_policy_file",
            "tests/agents/test_pimc.py::test_cli_bot_names_with_settings",
            "tests/agents/test_policy_search.py::test_burako_play_against_ppo_search",
            "tests/agents/test_policy_search.py::test_web_table_offers_ppo_search",
            "tests/agents/test_weighted_heuristics.py::test_the_cli_plays_a_weighted_player",
            # the benchmarks (bench_envs.py imports burako_env.frontends.bench)
            "tests/envs/test_envs.py::test_bench_functions_run",
            "tests/envs/test_gym_vector.py::test_bench_functions",
            # the web sessions' golden games; records, simulate and the CLI's bounds
            "tests/table/test_golden_play.py",
            "tests/reliability/test_hostile_input.py::test_a_record_carries_house_rules_inline_and_replays",
            "tests/reliability/test_hostile_input.py::test_a_deal_costs_the_same_at_any_index",
            "tests/reliability/test_hostile_input.py::test_simulate_runs_in_bounded_batches_with_the_same_results",
            "tests/reliability/test_hostile_input.py::test_cli_values_with_no_end_are_errors",
            "tests/reliability/test_error_contract.py::test_cli_tournament_refuses_to_overwrite_without_force",
            # (not test_fuzz_inputs: under mutmut its `burako replay FIFO` case fails, mutmut's
            # trampoline raising "Could not figure out where the code to mutate is")
        ),
        deselect=(
            "tests/agents/test_tournament.py::test_notebook_runs",
            # cold compiles in fresh processes (minutes each): the compile notice's own tests
            "tests/frontends/test_compile_notice.py::test_a_cold_tournament_says_so_and_a_warm_one_says_nothing",
            "tests/frontends/test_compile_notice.py::test_simulate_says_so_cold_and_its_rate_leaves_the_compile_out",
            "tests/frontends/test_compile_notice.py::test_sweep_says_so_cold_and_its_rate_leaves_the_compile_out",
            "tests/frontends/test_compile_notice.py::test_the_python_api_says_so_once_cold_and_nothing_warm",
            "tests/frontends/test_compile_notice.py::test_after_burako_warmup_the_main_commands_say_nothing",
        ),
    ),
}

#: mutmut's exit codes, grouped as the report counts them (mutmut.stats.status_by_exit_code)
KILLED = {1, 3}
TIMEOUT = {36, -24, 24, 152, 255}
SURVIVED = {0}
NO_TESTS = {5, 33}


def status_of(code: int | None) -> str:
    if code is None:
        return "not run"
    if code in KILLED:
        return "killed"
    if code in TIMEOUT:
        return "timeout"
    if code in SURVIVED:
        return "survived"
    if code in NO_TESTS:
        return "no tests"
    return "other"


def layer_pyproject(layer: Layer) -> str:
    """The project's pyproject.toml with the layer's own [tool.mutmut] section."""
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    kept, skipping = [], False
    for line in text.splitlines():
        if re.match(r"^\[[A-Za-z]", line):
            skipping = line.strip() == "[tool.mutmut]"
        if not skipping:
            kept.append(line)
    pytest_args = ["-p", "no:xdist", "-p", "no:cacheprovider"]
    for test in layer.deselect:
        pytest_args += ["--deselect", test]
    section = [
        "[tool.mutmut]",
        'source_paths = ["burako_env"]',
        f"only_mutate = {json.dumps(list(layer.only_mutate))}",
        # agents/ and training/ also as the top-level folders some tests read
        'also_copy = ["configs", "scripts", "notebooks", "docs", "agents", "training"]',
        f"pytest_add_cli_args = {json.dumps(pytest_args)}",
        f"pytest_add_cli_args_test_selection = {json.dumps(list(layer.tests))}",
        # a mutant that loops is stopped after 2 x 4 x its tests' time in CPU seconds
        # (mutmut's 2 x 15 spent most of a bounded run on two timeouts)
        "timeout_multiplier = 4.0",
        f'process_isolation = "{layer.isolation}"',
    ]
    return "\n".join(kept + [""] + section) + "\n"


def link_tree(source: Path, target: Path) -> None:
    """``source``'s folders made at ``target``, each file a link to its source."""
    for root, dirs, files in os.walk(source):
        dirs[:] = [d for d in dirs if d != "__pycache__"]
        here = target / Path(root).relative_to(source)
        here.mkdir(parents=True, exist_ok=True)
        for file in files:
            (here / file).symlink_to(Path(root) / file)


def stage(name: str) -> Path:
    folder = WORK / name
    folder.mkdir(parents=True, exist_ok=True)
    for entry in LINKS:
        link = folder / entry
        if not link.is_symlink():
            link.symlink_to(ROOT / entry)
    # burako_env/ as a tree of links with agents/ and training/ inside it, where an install
    # puts them: mutmut names a mutant by its file's path (burako_env/agents/pimc.py:
    # burako_env.agents.pimc) and the trampoline matches that name with the function's
    # __module__; from the top-level agents/ the names were agents.pimc.*, the tests
    # import burako_env.agents.pimc, and every mutant of the two folders was "no tests"
    package = folder / "burako_env"
    if package.is_symlink():
        package.unlink()
    shutil.rmtree(package, ignore_errors=True)
    link_tree(ROOT / "burako_env", package)
    for inside in INSIDE:
        link_tree(ROOT / inside, package / inside)
    (folder / "pyproject.toml").write_text(layer_pyproject(LAYERS[name]), encoding="utf-8")
    return folder


def mutmut_command() -> list[str]:
    exe = Path(sys.executable).with_name("mutmut")
    if exe.exists():
        return [str(exe)]
    found = shutil.which("mutmut")
    if found is None:
        sys.exit("mutmut is not installed: pip install -e '.[dev]'")
    return [found]


GENERATE = """
from mutmut.__main__ import create_mutants
from mutmut.mutation.trampoline import set_mutant_under_test
from mutmut.utils.file_utils import copy_also_copy_files, copy_src_dir
set_mutant_under_test("mutant_generation")
copy_src_dir()
copy_also_copy_files()
create_mutants(1)
"""


def generate(folder: Path) -> None:
    """Write every mutant of the layer (what ``mutmut run`` does first)."""
    subprocess.run(
        [sys.executable, "-c", GENERATE], cwd=folder, check=True, stdout=subprocess.DEVNULL
    )


def results(folder: Path) -> dict[str, int | None]:
    """Every mutant of the layer and its exit code (None: not run)."""
    out: dict[str, int | None] = {}
    for meta in sorted((folder / "mutants").rglob("*.py.meta")):
        out.update(json.loads(meta.read_text(encoding="utf-8"))["exit_code_by_key"])
    return out


def durations(folder: Path) -> dict[str, float]:
    """Seconds each mutant's run took, of those run."""
    out: dict[str, float] = {}
    for meta in sorted((folder / "mutants").rglob("*.py.meta")):
        out.update(json.loads(meta.read_text(encoding="utf-8"))["durations_by_key"])
    return out


def sample(names: list[str], n: int | None, seed: int) -> list[str]:
    names = sorted(names)
    if n is None or n >= len(names):
        return names
    return sorted(random.Random(seed).sample(names, n))


def choose(
    names: list[str], n: int | None, seed: int, within: list[str] | None = None
) -> list[str]:
    """The mutants a run draws: :func:`sample` of ``names``, among those that match one of
    the globs ``within`` where given (a ValueError naming them when none does: a typo
    would otherwise run nothing and report an empty sample)."""
    pool = names
    if within:
        pool = [m for m in names if any(fnmatch.fnmatchcase(m, g) for g in within)]
        if not pool:
            raise ValueError(
                f"--within {' '.join(within)}: no mutant of the layer matches (mutmut names "
                "them MODULE.x_FUNCTION__mutmut_N, e.g. 'burako_env.agents.aivat.*')"
            )
    return sample(pool, n, seed)


def run_mutmut(folder: Path, names: list[str], max_minutes: float | None) -> int:
    cmd = ["nice", "-n", "10", *mutmut_command(), "run", "--max-children", "1", *names]
    env = dict(os.environ)
    env.pop("PYTEST_ADDOPTS", None)
    proc = subprocess.Popen(cmd, cwd=folder, env=env, start_new_session=True)
    try:
        return proc.wait(timeout=None if max_minutes is None else max_minutes * 60)
    except subprocess.TimeoutExpired:
        print(f"--max-minutes {max_minutes} reached: stopping (results so far are kept)")
        os.killpg(proc.pid, signal.SIGINT)
        try:
            return proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            return proc.wait()


def show(folder: Path, name: str) -> str:
    done = subprocess.run(
        [*mutmut_command(), "show", name], cwd=folder, capture_output=True, text=True
    )
    return done.stdout.strip()


def summarize(name: str, folder: Path, meta: dict) -> dict:
    """Counts over the chosen mutants. A verdict mutmut no longer holds (a change of the
    layer's tests resets them all) is kept from the previous summary: a mutant killed by
    a selection of tests is killed by any selection that contains it."""
    current = results(folder)
    chosen = meta.get("chosen_names") or sorted(current)
    earlier = meta.get("codes", {})
    codes = {k: current.get(k) if current.get(k) is not None else earlier.get(k) for k in chosen}
    counts: dict[str, int] = {}
    for key in chosen:
        status = status_of(codes.get(key))
        counts[status] = counts.get(status, 0) + 1
    run = sum(v for k, v in counts.items() if k != "not run")
    # (mutmut records no duration for a mutant run through its fork server)
    took = [v for k, v in durations(folder).items() if k in set(chosen) and v > 0]
    # a full run: every mutant at the sample's mean time (mutants with no tests take none)
    full_minutes = len(current) * sum(took) / len(took) / 60 if took else None
    caught = counts.get("killed", 0) + counts.get("timeout", 0)
    summary = {
        "layer": name,
        "mutants": len(current),
        "chosen": len(chosen),
        "run": run,
        "counts": counts,
        "kill_rate": round(caught / run, 4) if run else None,
        "mean_seconds": round(sum(took) / len(took), 1) if took else None,
        "timed": len(took),
        "full_run_minutes_estimate": round(full_minutes) if full_minutes else None,
        "not_killed": sorted(
            k for k in chosen if status_of(codes.get(k)) not in ("killed", "timeout", "not run")
        ),
        "codes": codes,
    }
    return {**meta, **summary}


def print_summary(s: dict, folder: Path, diffs: bool) -> None:
    rate = "-" if s["kill_rate"] is None else f"{100 * s['kill_rate']:.1f}%"
    mode = "full" if s.get("full") else f"sample {s['chosen']} (seed {s.get('seed')})"
    if s.get("within"):
        mode += f" within {' '.join(s['within'])}"
    counts = ", ".join(f"{k} {v}" for k, v in sorted(s["counts"].items()))
    print(f"{s['layer']:10s} {mode}: of {s['mutants']} mutants, run {s['run']}: {counts}; ", end="")
    print(f"killed {rate} ({s.get('date')}, {s.get('minutes', '?')} min)")
    if s.get("full_run_minutes_estimate"):
        print(
            f"  {s['mean_seconds']} s a mutant ({s.get('timed')} timed): a full run of the "
            f"layer would take about {s['full_run_minutes_estimate']} min"
        )
    for key in s["not_killed"]:
        print(f"  not killed: {key}")
        if diffs:
            print("    " + show(folder, key).replace("\n", "\n    "))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--layer", action="append", choices=sorted(LAYERS), help="default: all")
    ap.add_argument("--sample", type=int, default=40, help="mutants per layer (default 40)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--full", action="store_true", help="every mutant of the layer")
    ap.add_argument("--names", nargs="+", help="run these mutants (mutmut names or globs)")
    ap.add_argument(
        "--within", nargs="+", metavar="GLOB", help="draw the sample among these mutants only"
    )
    ap.add_argument("--rerun", action="store_true", help="run chosen mutants that have a result")
    ap.add_argument("--max-minutes", type=float, help="stop a layer's run after this long")
    ap.add_argument("--report", action="store_true", help="print the last results, run nothing")
    ap.add_argument("--diffs", action="store_true", help="print each survivor's diff")
    args = ap.parse_args(argv)

    for name in args.layer or list(LAYERS):
        folder = stage(name)
        summary_path = folder / "summary.json"
        earlier = {}
        if summary_path.exists():
            earlier = json.loads(summary_path.read_text(encoding="utf-8"))
        if args.report:
            if earlier:
                s = summarize(name, folder, earlier)
                summary_path.write_text(json.dumps(s, indent=1), encoding="utf-8")
                print_summary(s, folder, args.diffs)
            continue
        start = time.monotonic()
        generate(folder)
        names = sorted(results(folder))
        if args.names:
            # re-run these (e.g. survivors after a new test) within the earlier sample
            todo = sorted(set(args.names))
            chosen = earlier.get("chosen_names") or todo
            meta = {**earlier, "rerun": sorted(set(earlier.get("rerun", [])) | set(todo))}
        else:
            try:
                chosen = choose(names, None if args.full else args.sample, args.seed, args.within)
            except ValueError as exc:
                print(f"mutation.py: {exc}", file=sys.stderr)
                return 2
            codes = results(folder)
            todo = chosen if args.rerun else [k for k in chosen if codes.get(k) is None]
            meta = {"full": args.full, "seed": None if args.full else args.seed}
            if args.within:
                meta["within"] = args.within
        print(f"== {name}: {len(names)} mutants, {len(chosen)} chosen, {len(todo)} to run")
        if todo:
            run_mutmut(folder, todo, args.max_minutes)
        meta |= {
            "date": date.today().isoformat(),
            "minutes": round((time.monotonic() - start) / 60, 1),
            "chosen_names": chosen,
        }
        s = summarize(name, folder, meta)
        summary_path.write_text(json.dumps(s, indent=1), encoding="utf-8")
        print_summary(s, folder, args.diffs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
