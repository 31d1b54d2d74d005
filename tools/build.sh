#!/usr/bin/env bash
# Configures and builds the release tree in build/release (incremental; -j2 by default).
# bash tools/build.sh [TARGET]: every target, or only TARGET and what it needs (e.g.
# sy_main_job: the CLI, its helper programs and the bundled plugins; tools/quickstart.sh).
# SY_PYTHON=PATH: also the Python module, for that Python (which needs nanobind;
# tools/test.sh makes such a venv); docs/python.md.
set -euo pipefail
cd "$(dirname "$0")/.."
JOBS=${JOBS:-2}
python_args=()
if [ -n "${SY_PYTHON:-}" ]; then
  python_args=(-DSY_BUILD_PYTHON=ON "-DPython_EXECUTABLE=$SY_PYTHON")
fi
cmake -S . -B build/release -G Ninja -DCMAKE_BUILD_TYPE=Release "${python_args[@]}" >/dev/null
target_args=()
if [ $# -gt 0 ]; then
  target_args=(--target "$1")
fi
cmake --build build/release -j "$JOBS" "${target_args[@]}"
