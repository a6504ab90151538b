#!/usr/bin/env bash
# Set up (if needed) and run the main job on its built-in defaults: a tournament of the
# built-in agents (random, greedy, discard_table, and ppo where its policy ships), 200
# hands per pairing of 4-player argentine, its table printed. Arguments go to
# `burako tournament` (e.g. --hands 1000 --out results).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
.venv/bin/burako tournament "$@"
