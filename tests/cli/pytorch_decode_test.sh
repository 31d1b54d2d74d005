#!/usr/bin/env bash
# Greedy decoding through decoding state against PyTorch (tools/pytorch_decode.py,
# docs/decoding.md): a GPT-2-style decoder in plain PyTorch and transformers'
# GPT2LMHeadModel (where transformers is installed), each exported in the decoder-with-past
# form, imported with --decoder-state 48 and run by `switchyard generate`: 32 greedy tokens
# equal to the module's own loop on cpu and cpu-ref (and OpenCL where a device exists), and
# seeded sampling reproducible. Skips (exit 77) when no Python here has PyTorch.
# usage: pytorch_decode_test.sh PATH_TO_SWITCHYARD SOURCE_DIR
set -u
SY=$1
SRC=$2
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
source "$(dirname "$0")/expect.sh"
source "$(dirname "$0")/find_torch_python.sh"

DEVICES=cpu,cpu-ref
"$SY" devices 2>/dev/null | grep -q "^opencl:0" && DEVICES=$DEVICES,opencl:0
"$PY" "$SRC/tools/pytorch_decode.py" --switchyard "$SY" --work "$TMP/decode" \
  --device "$DEVICES" >"$TMP/decode.txt" 2>&1
rc=$?
grep -vE "^  (exported|shape computation|its values|tracer warning)|UserWarning|torch.from_numpy" \
  "$TMP/decode.txt"
if [ "$rc" = 0 ] && grep -q "^decode: all match$" "$TMP/decode.txt" &&
  grep -q "^  gpt_past on cpu-ref: greedy matches; seeded top-k reproducible$" "$TMP/decode.txt" &&
  grep -q "^  gpt_optimum on cpu-ref: greedy matches; seeded top-k reproducible$" "$TMP/decode.txt"; then
  passes=$((passes + 1))
else
  echo "FAIL decoders with past: exit $rc"; failures=$((failures + 1))
fi
echo "$passes passed, $failures failed"
[ "$failures" = 0 ]
