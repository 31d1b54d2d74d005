#!/usr/bin/env bash
# Configures and builds the release tree in build/release (incremental; -j2 by default).
set -euo pipefail
cd "$(dirname "$0")/.."
JOBS=${JOBS:-2}
cmake -S . -B build/release -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build/release -j "$JOBS"
