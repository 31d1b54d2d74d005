#!/usr/bin/env bash
# The newest onnx release's backend node tests: generated at test time from the `onnx`
# package of the test Python (tools/gen_onnx_node_tests.py; nothing of it is committed),
# then imported and run on every device by onnx_node_tests against the expectations for
# that release. Skips (exit 77) where that Python has no onnx.
# usage: latest_node_tests.sh PYTHON SOURCE_DIR ONNX_NODE_TESTS WORK_DIR [ARGS...]
set -u
PY=$1
SRC=$2
RUNNER=$3
WORK=$4
shift 4
if ! "$PY" -c "import onnx" 2>/dev/null; then
  echo "latest_node_tests: skipped: $PY has no onnx package (tools/test.sh installs it)"
  exit 77
fi
"$PY" "$SRC/tools/gen_onnx_node_tests.py" "$WORK" || exit 1
echo "onnx node tests of $(cat "$WORK/ONNX_VERSION")"
exec "$RUNNER" --data "$WORK/node" --expectations "$SRC/tests/onnx/expectations_latest.txt" "$@"
