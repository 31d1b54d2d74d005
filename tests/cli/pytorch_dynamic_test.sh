#!/usr/bin/env bash
# Dynamic dimensions from PyTorch (tools/pytorch_dynamic.py): small models (a BERT-style
# encoder with an attention mask, a batch-dynamic CNN, a GPT-2-style decoder with a
# key/value cache, and transformers' BertModel and GPT2LMHeadModel where transformers is
# installed), each exported ONCE with torch.onnx.export dynamic_axes, imported once with
# `switchyard import`, and run in ONE session per device over 3 shapes (the decoders' with
# an empty past among them) with `switchyard run --run-dir`, every output compared with
# PyTorch's own.
# Skips (exit 77) when no Python here has PyTorch: $SY_PYTHON, /usr/bin/python3 (Debian's
# python3-torch), python3.
# usage: pytorch_dynamic_test.sh PATH_TO_SWITCHYARD SOURCE_DIR
set -u
SY=$1
SRC=$2
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
# expect NAME WANT_EXIT PATTERN -- COMMAND... (tests/cli/expect.sh)
source "$(dirname "$0")/expect.sh"

# PY: a Python with PyTorch, or exit 77 (tests/cli/find_torch_python.sh)
source "$(dirname "$0")/find_torch_python.sh"
DYNAMIC=("$PY" "$SRC/tools/pytorch_dynamic.py" --switchyard "$SY")

# The PyTorch side alone: every export traced, its run folders written, and checked with
# onnxruntime at every shape where onnxruntime is installed.
expect "export only" 0 "^([0-9]+) of \1 models match \(export\)" \
  -- "${DYNAMIC[@]}" --export-only --work "$TMP/export"

# The whole path on cpu and cpu-ref (and OpenCL when a device exists): one import per
# model, one session per device over all its shapes; the log keeps the commands and
# Switchyard's per-output differences.
DEVICES=cpu,cpu-ref
"$SY" devices 2>/dev/null | grep -q "^opencl:0" && DEVICES=$DEVICES,opencl:0
"${DYNAMIC[@]}" --device "$DEVICES" --work "$TMP/dynamic" >"$TMP/dynamic.txt" 2>&1
rc=$?
cat "$TMP/dynamic.txt"
# N of N: the models that ran (the transformers ones are skipped without transformers).
models=$(sed -nE "s/^([0-9]+) of \1 models match \(on ${DEVICES//,/, }\)(;.*)?$/\1/p" \
  "$TMP/dynamic.txt")
if [ "$rc" = 0 ] && [ "${models:-0}" -ge 3 ]; then
  passes=$((passes + 1))
else
  echo "FAIL dynamic dimensions: exit $rc (${models:-no} models matched)"
  failures=$((failures + 1))
fi
# Every model ran one session on every device.
n=$(grep -Ec "^  Switchyard on .*: all [0-9]+ runs match " "$TMP/dynamic.txt")
want_n=$((${models:-0} * $(tr , '\n' <<<"$DEVICES" | wc -l)))
if [ "$n" -gt 0 ] && [ "$n" = "$want_n" ]; then
  passes=$((passes + 1))
else
  echo "FAIL dynamic dimensions ran $n model-device sessions, expected $want_n"
  failures=$((failures + 1))
fi
# The decoder's first run has an empty past: its inputs and expected presents are there.
if [ -f "$TMP/dynamic/gpt_past/run0/inputs/past_key_0.npy" ] &&
  [ -f "$TMP/dynamic/gpt_past/run2/expected/present_value_1.npy" ] &&
  [ -f "$TMP/dynamic/bert_encoder/run2/inputs/attention_mask.npy" ]; then
  passes=$((passes + 1))
else
  echo "FAIL run folders missing under $TMP/dynamic"; failures=$((failures + 1))
fi

# The script's own errors.
expect "list" 0 "^gpt_past " -- "${DYNAMIC[@]}" --list
expect "unknown model" 2 "unknown model nope" -- "${DYNAMIC[@]}" --only nope
expect "missing binary" 1 "no switchyard binary at $TMP/none" \
  -- "$PY" "$SRC/tools/pytorch_dynamic.py" --switchyard "$TMP/none" --only cnn_batch
# Without torch (an import of it made to fail, no other Python tried): the skip code.
expect "no torch: skip" 77 "PyTorch is not installed" \
  -- env SY_PYTORCH_ROUNDTRIP_REEXEC=1 "$PY" -c \
  'import runpy, sys; sys.modules["torch"] = None; sys.argv = sys.argv[1:]; runpy.run_path(sys.argv[0], run_name="__main__")' \
  "$SRC/tools/pytorch_dynamic.py"

echo "$passes passed, $failures failed"
[ "$failures" = 0 ]
