#!/usr/bin/env bash
# Create .venv and install burako with all its extras (train, web, ray, rllib) and dev
# (idempotent).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -x .venv/bin/python ]; then
  python3 -m venv .venv
fi
.venv/bin/python -m pip install --quiet --upgrade pip
# all: the train (torch), web, ray and rllib extras; dev: the test tools (tests/test_ray.py
# runs the distributed paths on a local cluster, tests/test_rllib.py PPO on RLlib). The
# train and rllib extras ask for torch>=2.2; here it is pinned to the CPU build that this
# machine keeps on disk (pip's find-links), where the newest torch of the index would be a
# CUDA build of several GB. The rllib extra also pins gymnasium to RLlib's version
# (ray[rllib]'s own pin, 1.2.2 for ray 2.60). BURAKO_TORCH sets
# another requirement, e.g. BURAKO_TORCH=torch for the newest.
.venv/bin/python -m pip install --quiet -e ".[all,dev]" "${BURAKO_TORCH:-torch==2.13.0}"
