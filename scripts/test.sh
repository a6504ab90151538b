#!/usr/bin/env bash
# Set up (if needed) and run the whole test suite, as CI does.
set -euo pipefail
cd "$(dirname "$0")/.."
# every extra (the tests cover the web table, Ray, RLlib, OpenSpiel) and the test tools
bash scripts/setup.sh all,dev
# the habits as tools (docs/TESTING.md, "Habits as tools"): the checks of
# .pre-commit-config.yaml, each in its checking mode (nothing is rewritten), each failing
# the run on a finding; about 10 s with mypy's cache (.mypy_cache), a minute without
.venv/bin/python -m ruff check .
.venv/bin/python -m ruff format --check .
.venv/bin/python -m codespell_lib
.venv/bin/python -m mypy
# the long random simulations (marked slow) run with a smaller count of games per
# configuration; `BURAKO_SIM_GAMES=2000 bash scripts/test.sh` runs the full count
export BURAKO_SIM_GAMES="${BURAKO_SIM_GAMES:-40}"
# the first run compiles the numba kernels (cached on disk afterwards)
.venv/bin/python -m pytest -q -n 2 --dist loadfile "$@"
