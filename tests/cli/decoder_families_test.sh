#!/usr/bin/env bash
# Decoder families from transformers (tools/decoder_families.py, docs/decoding.md): a
# Llama (rotary, grouped heads, the padding mask transformers 5 builds from
# attention_mask) and a GPT-2 (learned positions), exported with past key/values and an
# attention mask, imported with --decoder-state, and decoded by switchyard generate: 32
# greedy tokens equal to PyTorch's own loop on cpu and cpu-ref (and OpenCL where a device
# exists). A representative subset in CI time; the script runs all nine families and
# both exporters. Skips (exit 77) when no Python here has torch, numpy and transformers
# (SY_PYTHON names one).
# usage: decoder_families_test.sh PATH_TO_SWITCHYARD SOURCE_DIR
set -u
SY=$1
SRC=$2
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
# PY: a Python with torch, numpy and transformers, or exit 77
PY_EXTRA_MODULES=transformers
source "$(dirname "$0")/find_torch_python.sh"
DEVICES=cpu,cpu-ref
"$SY" devices 2>/dev/null | grep -q "^opencl:0" && DEVICES=$DEVICES,opencl:0
"$PY" "$SRC/tools/decoder_families.py" --switchyard "$SY" --work "$TMP" --only '^(llama|gpt2)$' \
  --exporter torchscript --device "$DEVICES" 2>&1 | grep -E "^(ok|FAIL|decoder families|decoder_families)"
exit "${PIPESTATUS[0]}"
