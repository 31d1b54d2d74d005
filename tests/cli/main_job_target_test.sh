#!/usr/bin/env bash
# The quickstart's build target (sy_main_job, top-level CMakeLists.txt): it must bring the
# CLI, the helper programs the CLI starts and every bundled plugin (what tools/quickstart.sh
# runs), and nothing of the tests or benchmarks, whose ~200 extra build steps a first
# build should not pay for. Reads the Ninja build graph, so it needs a Ninja build tree.
# usage: main_job_target_test.sh BUILD_DIR EXPECTED_FILE...
set -u
if [ $# -lt 2 ]; then
  echo "usage: $0 BUILD_DIR EXPECTED_FILE..." >&2
  exit 2
fi
BUILD=$(cd "$1" && pwd)
shift
failures=0
fail() { echo "FAIL $*"; failures=$((failures + 1)); }

if [ ! -f "$BUILD/build.ninja" ]; then
  echo "SKIP: $BUILD is not a Ninja build tree"
  exit 77
fi
# What sy_main_job depends on directly, as absolute paths.
direct=$(ninja -C "$BUILD" -t query sy_main_job | sed -n '/input:/,/outputs:/p' |
  grep -v 'input:\|outputs:' | sed "s|^ *||; s|^\([^/]\)|$BUILD/\1|")
for file in "$@"; do
  grep -qxF "$file" <<<"$direct" || fail "sy_main_job does not build $file (it builds: $direct)"
done
# Everything it builds, transitively: no unit test, test plugin or benchmark among it.
inputs=$(ninja -C "$BUILD" -t inputs sy_main_job)
for pattern in 'bin/sy_[a-z_]*\(tests\|benchmark\)$' 'bin/onnx_node_tests$' \
  'libswitchyard_test_' '/tests/' '/benchmarks/'; do
  found=$(grep -m3 "$pattern" <<<"$inputs")
  [ -z "$found" ] || fail "sy_main_job builds test or benchmark files ($pattern): $found"
done
steps=$(ninja -C "$BUILD" -t commands sy_main_job | wc -l)
all=$(ninja -C "$BUILD" -t commands | wc -l)
echo "sy_main_job: $steps build steps of $all; direct dependencies:"
echo "$direct"
[ "$failures" -eq 0 ] && echo "main_job_target: ok" || echo "main_job_target: $failures failed"
[ "$failures" -eq 0 ]
