#!/usr/bin/env bash
# Create .venv and install burako with all its extras (train, web, ray) and dev (idempotent).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -x .venv/bin/python ]; then
  python3 -m venv .venv
fi
.venv/bin/python -m pip install --quiet --upgrade pip
# all: the train (torch), web and ray extras; dev: the test tools (tests/test_ray.py runs
# the distributed paths on a local cluster). The train extra asks for torch>=2.2; here it
# is pinned to the CPU build that this machine keeps on disk (pip's find-links), where
# the newest torch of the index would be a CUDA build of several GB. BURAKO_TORCH sets
# another requirement, e.g. BURAKO_TORCH=torch for the newest.
.venv/bin/python -m pip install --quiet -e ".[all,dev]" "${BURAKO_TORCH:-torch==2.13.0}"
