#!/usr/bin/env bash
# The README's first command: install dependencies, build, and run the main job on the
# bundled examples: validate each, run it on the CPU plugin and compare every output with
# the NumPy-computed expected/*.npy beside it.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "$(id -u)" = 0 ]; then bash tools/install-deps.sh; else sudo bash tools/install-deps.sh; fi
# Only what the main job needs (the CLI, its helper programs, the bundled plugins), not the
# tests and benchmarks: tools/test.sh builds those.
bash tools/build.sh sy_main_job
for model in examples/*/; do
  build/release/bin/switchyard check "$model"
  build/release/bin/switchyard run "$model" --compare "$model/expected"
done
