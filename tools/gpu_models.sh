#!/usr/bin/env bash
# Packs real models for the GPU check (tools/cuda_gpu_check.sh, step real_models): the GPU
# machine has no PyTorch and no ONNX importer, so the models are exported and imported
# here and travel as model folders, each with PyTorch's outputs as the expected ones:
#
#   out/gpu-models/NAME/NAME.json, NAME.safetensors     `switchyard import` of the export
#   out/gpu-models/NAME/inputs/*.npy                    the inputs PyTorch ran
#   out/gpu-models/NAME/expected/*.npy                  PyTorch's outputs
#
# From tools/real_model_bench.py's work folder (its exports and imports; run it first, e.g.
# with --rounds 0 to export, import and check without timing). The device tool carries at
# most 64 MiB with the working tree, so the default set is what fits: MobileNetV2 and
# ResNet-18 (about 59 MiB of weights); NAMES picks others.
#
#   tools/gpu_models.sh [WORK [NAMES]]     defaults: /tmp/sy-real-models mobilenet_v2,resnet18
#
# Exit status: 0 when every model was packed; 1 when one is missing or the set exceeds
# 62 MiB.
set -euo pipefail
cd "$(dirname "$0")/.."
WORK=${1:-/tmp/sy-real-models}
NAMES=${2:-mobilenet_v2,resnet18}
DEST=out/gpu-models
rm -rf "$DEST"
mkdir -p "$DEST"
for name in ${NAMES//,/ }; do
  src=$WORK/$name
  if [ ! -f "$src/sy/model.json" ] || [ ! -d "$src/pytorch" ] || [ ! -d "$src/inputs" ]; then
    echo "gpu_models: $src has no export and import (run tools/real_model_bench.py --only $name" \
      "--rounds 0 first)" >&2
    exit 1
  fi
  mkdir -p "$DEST/$name/expected"
  # A model folder: NAME/NAME.json beside NAME.safetensors, as examples/ are.
  cp "$src/sy/model.json" "$DEST/$name/$name.json"
  if [ -f "$src/sy/model.safetensors" ]; then
    cp "$src/sy/model.safetensors" "$DEST/$name/$name.safetensors"
  fi
  cp -r "$src/inputs" "$DEST/$name/"
  cp "$src"/pytorch/*.npy "$DEST/$name/expected/"
done
bytes=$(du -sb "$DEST" | cut -f1)
echo "gpu_models: $DEST holds $(ls "$DEST" | tr '\n' ' ')($((bytes / 1048576)) MiB)"
if [ "$bytes" -gt $((62 * 1048576)) ]; then
  echo "gpu_models: more than 62 MiB: the device tool carries 64 MiB in all" >&2
  exit 1
fi
