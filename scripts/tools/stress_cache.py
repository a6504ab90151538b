"""Start cold processes at once on one empty numba cache folder, again and again, and
check that every one plays what a single cold process plays (docs/RELIABILITY.md).

Each run: an empty ``NUMBA_CACHE_DIR``; ``--processes`` processes of
``scripts/tools/cache_digest.py`` started together, each in another order (``--order i``: they
compile the same kernels at the same time, each for another record type first); then
one more process on the cache they left (it loads everything). A run fails when a
process crashes, hangs past ``--timeout`` or prints a digest other than the reference (a
single cold process's, computed first).

    python scripts/tools/stress_cache.py --runs 20 --processes 4
    python scripts/tools/stress_cache.py --pytest --runs 10   # the -n 2 cold test run instead

``--pytest`` runs instead, each on an empty cache folder, the cold ``pytest -n 2`` (xdist's
default distribution) over the core's test files, where two workers compile the same
kernels at once, then a warm single process (``-n 0``) on the cache they left: a run
fails when either pytest fails, crashes or hangs.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]  # scripts/<folder>/ sits two below the root
DIGEST = [sys.executable, str(ROOT / "scripts" / "tools" / "cache_digest.py")]
PYTEST_FILES = [
    "tests/core/test_core_random.py",
    "tests/core/test_core_rules.py",
    "tests/core/test_core_rules_v1.py",
    "tests/reliability/test_fuzz_api.py",
]


def _env(cache: Path) -> dict[str, str]:
    env = dict(os.environ, NUMBA_CACHE_DIR=str(cache))
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    return env


def _finish(proc: subprocess.Popen, timeout: float) -> tuple[str, str]:
    """(digest or a failure word, stderr tail) of a started digest process."""
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        return "hang", f"no result in {timeout:.0f} s"
    if proc.returncode:
        return f"exit {proc.returncode}", err[-1500:]
    try:
        return json.loads(out.strip().splitlines()[-1])["digest"], ""
    except (ValueError, IndexError, KeyError):
        return "no digest", (out + err)[-1500:]


def digest_processes(cache: Path, count: int, timeout: float) -> list[tuple[str, str]]:
    """Start ``count`` digest processes at once on ``cache``, process i with ``--order i``
    (each compiles for another record type first); their results in order."""
    procs = [
        subprocess.Popen(
            [*DIGEST, "--order", str(i)],
            cwd=ROOT,
            env=_env(cache),
            text=True,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        for i in range(count)
    ]
    return [_finish(p, timeout) for p in procs]


def reference_digest(timeout: float) -> str:
    with tempfile.TemporaryDirectory(prefix="burako-cache-") as tmp:
        ((digest, err),) = digest_processes(Path(tmp), 1, timeout)
    if len(digest) != 16:
        raise SystemExit(f"the single cold process failed: {digest}\n{err}")
    return digest


def concurrent_run(reference: str, processes: int, timeout: float) -> list[str]:
    """One run: ``processes`` cold at once, then one warm; the failures, described."""
    failures = []
    with tempfile.TemporaryDirectory(prefix="burako-cache-") as tmp:
        cold = digest_processes(Path(tmp), processes, timeout)
        warm = digest_processes(Path(tmp), 1, timeout)
    for i, (digest, err) in enumerate(cold + warm):
        who = f"process {i}" if i < processes else "warm process"
        if digest != reference:
            failures.append(f"{who}: {digest} (reference {reference}) {err}".strip())
    return failures


def pytest_run(timeout: float) -> list[str]:
    """The cold ``pytest -n 2`` over the core's tests, then one warm single process
    (``-n 0``) on the cache the workers left; the failures, described."""
    failures = []
    with tempfile.TemporaryDirectory(prefix="burako-cache-") as tmp:
        cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"]
        for what, workers, files in (
            ("cold pytest -n 2", "2", PYTEST_FILES),
            ("warm pytest -n 0", "0", PYTEST_FILES[:1]),
        ):
            try:
                out = subprocess.run(
                    [*cmd, "-n", workers, *files],
                    cwd=ROOT,
                    env=_env(Path(tmp)),
                    capture_output=True,
                    text=True,
                    timeout=timeout,
                )
            except subprocess.TimeoutExpired:
                failures.append(f"{what}: no result in {timeout:.0f} s (a hang)")
                break
            last = (out.stdout.strip().splitlines() or ["(no output)"])[-1]
            if out.returncode:
                failures.append(f"{what}: exit {out.returncode}: {last}")
                break
    return failures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--processes", type=int, default=4)
    parser.add_argument("--timeout", type=float, default=1800.0, help="seconds per process")
    parser.add_argument("--pytest", action="store_true", help="the cold pytest -n 2 run")
    args = parser.parse_args()
    if args.runs < 1 or args.processes < 1 or not args.timeout > 0:
        parser.error("--runs, --processes and --timeout must be positive")
    reference = None if args.pytest else reference_digest(args.timeout)
    if reference:
        print(f"reference digest (one cold process): {reference}", flush=True)
    failed = 0
    for run in range(1, args.runs + 1):
        t0 = time.perf_counter()
        if args.pytest:
            failures = pytest_run(args.timeout)
        else:
            failures = concurrent_run(reference, args.processes, args.timeout)
        failed += bool(failures)
        verdict = "ok" if not failures else "FAILED"
        print(f"run {run}: {verdict} in {time.perf_counter() - t0:.0f} s", flush=True)
        for line in failures:
            print("  " + line.replace("\n", "\n  "), flush=True)
    what = "cold pytest -n 2 runs" if args.pytest else f"runs of {args.processes} processes"
    print(f"{args.runs} {what}: {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
