#!/usr/bin/env bash
# Set up (if needed) and run the main job on its built-in defaults.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
.venv/bin/burako simulate "$@"
