#!/usr/bin/env bash
# Set up (if needed) and run the main job on its built-in defaults: a tournament of the
# built-in agents (random, greedy, discard_table, and ppo where its policy ships), 200
# hands per pairing of 4-player argentine, its table printed. Arguments go to
# `burako tournament` (e.g. --hands 1000 --out results).
set -euo pipefail
cd "$(dirname "$0")/.."
# only what the main job needs: the core and the ppo agent's torch (the train extra); once
bash scripts/setup.sh train
.venv/bin/burako tournament "$@"
