#!/usr/bin/env bash
# Create .venv and install burako with its dev and ray extras (idempotent).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -x .venv/bin/python ]; then
  python3 -m venv .venv
fi
.venv/bin/python -m pip install --quiet --upgrade pip
# torch is pinned to the CPU build that this machine keeps on disk
# ray: tests/test_ray.py runs the distributed paths on a local cluster
.venv/bin/python -m pip install --quiet -e ".[dev,ray]"
