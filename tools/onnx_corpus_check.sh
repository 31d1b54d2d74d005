#!/usr/bin/env bash
# Imports every model of an exporter corpus (tools/onnx_corpus.py) with `switchyard
# import`, runs it on a device with the corpus' inputs and prints each output's max |diff|
# against ONNX Runtime's outputs stored beside it.
# usage: onnx_corpus_check.sh CORPUS_DIR [DEVICE] [SWITCHYARD]   (default cpu, build/release)
set -u
CORPUS=$1
DEVICE=${2:-cpu}
SY=${3:-$(dirname "$0")/../build/release/bin/switchyard}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
imported=0 total=0
for d in "$CORPUS"/*/; do
  name=$(basename "$d")
  [ -f "$d/model.onnx" ] || continue
  total=$((total + 1))
  if ! "$SY" import "$d/model.onnx" -o "$WORK/$name/model" >"$WORK/$name.import" 2>&1; then
    echo "$name: import failed: $(tail -1 "$WORK/$name.import")"
    continue
  fi
  imported=$((imported + 1))
  cp -r "$d/inputs" "$WORK/$name/"
  "$SY" run "$WORK/$name/model" --device "$DEVICE" --threads 1 --compare "$d/ort" \
    >"$WORK/$name.run" 2>&1
  diffs=$(grep -o "max |diff| [0-9.e+-]*" "$WORK/$name.run" | awk '{print $3}' | sort -g | tail -1)
  echo "$name: imported; on $DEVICE max |diff| against ONNX Runtime ${diffs:-(no output compared: $(tail -1 "$WORK/$name.run"))}"
done
echo "$imported of $total models imported"
