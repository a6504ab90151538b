#!/usr/bin/env bash
# Set up (if needed) and run the whole test suite, as CI does.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
.venv/bin/ruff check .
# the first run compiles the numba kernels (cached on disk afterwards)
.venv/bin/python -m pytest -q -n 2 --dist loadfile "$@"
