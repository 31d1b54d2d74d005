#!/usr/bin/env bash
# The README's first command: install dependencies, build, and run the main job on the
# bundled examples (today: validate each with `switchyard check`).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "$(id -u)" = 0 ]; then bash tools/install-deps.sh; else sudo bash tools/install-deps.sh; fi
bash tools/build.sh
for model in examples/*/*.json; do
  build/release/bin/switchyard check "$model"
done
