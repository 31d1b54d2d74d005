#!/usr/bin/env bash
# The PyTorch path end to end (tools/pytorch_roundtrip.py): each bundled example written
# as a torch.nn.Module holding the example's weights and checked against its expected/
# outputs, exported with torch.onnx.export, imported with `switchyard import`, run with
# `switchyard run` on cpu and cpu-ref (and OpenCL) and compared with PyTorch's own
# outputs; then with a dynamic batch axis fixed at import by --input-shape, and at opset 9;
# then the zoo of tools/pytorch_zoo.py on the same devices.
# Skips (exit 77) when no Python here has PyTorch: $SY_PYTHON, /usr/bin/python3 (Debian's
# python3-torch), python3.
# usage: pytorch_test.sh PATH_TO_SWITCHYARD SOURCE_DIR
set -u
SY=$1
SRC=$2
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
# expect NAME WANT_EXIT PATTERN -- COMMAND... (tests/cli/expect.sh)
source "$(dirname "$0")/expect.sh"

# PY: a Python with PyTorch, or exit 77 (tests/cli/find_torch_python.sh)
source "$(dirname "$0")/find_torch_python.sh"
ROUNDTRIP=("$PY" "$SRC/tools/pytorch_roundtrip.py" --switchyard "$SY" --examples "$SRC/examples")

# The full round trip, static shapes, on cpu and cpu-ref (and OpenCL when a device
# exists); the log keeps the per-output differences.
DEVICES=cpu,cpu-ref
"$SY" devices 2>/dev/null | grep -q "^opencl:0" && DEVICES=$DEVICES,opencl:0
"${ROUNDTRIP[@]}" --device "$DEVICES" --work "$TMP/static" >"$TMP/static.txt" 2>&1
rc=$?
cat "$TMP/static.txt"
want="^3 of 3 examples match \(round trip on ${DEVICES//,/, }\)$"
if [ "$rc" = 0 ] && grep -Eq "$want" "$TMP/static.txt"; then
  passes=$((passes + 1))
else
  echo "FAIL round trip: exit $rc"; failures=$((failures + 1))
fi
# Every output was compared: 3 against expected/, then 3 against PyTorch per device.
n=$(grep -Ec "^    (y|logits|hidden): matches, max \|diff\| " "$TMP/static.txt")
want_n=$((3 + 3 * $(tr , '\n' <<<"$DEVICES" | wc -l)))
[ "$n" = "$want_n" ] && passes=$((passes + 1)) || {
  echo "FAIL round trip compared $n outputs, expected $want_n"; failures=$((failures + 1)); }

# The same exports with the graph optimization pass off (the run above has it on): the
# written-out attention, gelu and bias adds match PyTorch too.
expect "round trip --optimize 0" 0 "^3 of 3 examples match \(round trip on cpu\)$" \
  -- "${ROUNDTRIP[@]}" --optimize 0 --work "$TMP/unoptimized"

# A dynamic batch axis in the .onnx (Shape/Gather/Concat computations in the
# transformer), made static by `switchyard import --input-shape` at another batch size
# than the one traced, and run on new inputs of that size.
expect "dynamic batch axis, batch 3" 0 "^3 of 3 examples match \(round trip on cpu\)$" \
  -- "${ROUNDTRIP[@]}" --dynamic-batch --batch 3 --work "$TMP/dynamic"
# The oldest opset whose export of the transformer PyTorch supports (Erf needs 9):
# LayerNormalization decomposed into ReduceMean, Sub, Pow, Sqrt, Div.
expect "opset 9" 0 "^3 of 3 examples match \(round trip on cpu\)$" \
  -- "${ROUNDTRIP[@]}" --opset 9 --work "$TMP/opset9"

# The zoo (tools/pytorch_zoo.py): small models around the PyTorch modules whose exports
# the importer decomposes (LSTM, GRU, RNN, Einsum, Resize, ConvTranspose, the norms,
# integer and indexing ops, nn.TransformerEncoderLayer), random weights, opset 17,
# static shapes, on the same devices; a failed import fails the test with the importer's
# message and the export's ONNX ops in the log.
ZOO=("$PY" "$SRC/tools/pytorch_zoo.py" --switchyard "$SY")
"${ZOO[@]}" --device "$DEVICES" --work "$TMP/zoo" --table >"$TMP/zoo.txt" 2>&1
rc=$?
cat "$TMP/zoo.txt"
models=$("${ZOO[@]}" --list | wc -l)
want="^$models of $models zoo models match \(on ${DEVICES//,/, }\)$"
if [ "$rc" = 0 ] && [ "$models" -ge 11 ] && grep -Eq "$want" "$TMP/zoo.txt"; then
  passes=$((passes + 1))
else
  echo "FAIL zoo: exit $rc ($models models)"; failures=$((failures + 1))
fi
# Every model was compared on every device.
n=$(grep -Ec "^  Switchyard on .* against PyTorch " "$TMP/zoo.txt")
want_n=$((models * $(tr , '\n' <<<"$DEVICES" | wc -l)))
[ "$n" = "$want_n" ] && passes=$((passes + 1)) || {
  echo "FAIL zoo compared $n model-device pairs, expected $want_n"; failures=$((failures + 1)); }

# The script's own errors.
expect "unknown example" 2 "unknown example nope" -- "${ROUNDTRIP[@]}" --only nope
expect "--batch without --dynamic-batch" 2 "--batch needs --dynamic-batch" -- "${ROUNDTRIP[@]}" --batch 3
expect "zoo: unknown model" 2 "unknown model nope" -- "${ZOO[@]}" --only nope
expect "missing binary" 1 "no switchyard binary at $TMP/none" \
  -- "$PY" "$SRC/tools/pytorch_roundtrip.py" --switchyard "$TMP/none" --only mlp
# Without torch (an import of it made to fail, no other Python tried): the skip code.
expect "no torch: skip" 77 "PyTorch is not installed" \
  -- env SY_PYTORCH_ROUNDTRIP_REEXEC=1 "$PY" -c \
  'import runpy, sys; sys.modules["torch"] = None; sys.argv = sys.argv[1:]; runpy.run_path(sys.argv[0], run_name="__main__")' \
  "$SRC/tools/pytorch_roundtrip.py"
expect "zoo, no torch: skip" 77 "PyTorch is not installed" \
  -- env SY_PYTORCH_ROUNDTRIP_REEXEC=1 "$PY" -c \
  'import runpy, sys; sys.modules["torch"] = None; sys.argv = sys.argv[1:]; runpy.run_path(sys.argv[0], run_name="__main__")' \
  "$SRC/tools/pytorch_zoo.py"

echo "$passes passed, $failures failed"
[ "$failures" = 0 ]
