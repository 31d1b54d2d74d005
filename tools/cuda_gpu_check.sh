#!/usr/bin/env bash
# The CUDA plugin's check on a machine with an NVIDIA GPU (issue 8, "Verification";
# docs/cuda.md). One short script: build, then every check that needs the GPU, each with
# its own time limit, all within about 8 minutes on a 16-core machine.
#
#   1. the GPU and driver (nvidia-smi)
#   2. configure and build the release tree with the CUDA plugin (only the targets used)
#   3. the plugin's unit tests, GPU tests included (sy_cuda_tests; device-resident inputs
#      and outputs through a session among them)
#   4. every bundled example with --device cuda and --device cuda,cpu, against NumPy;
#      decoding (generate on the toy decoder) against NumPy's tokens; the real models
#      tools/gpu_models.sh packed (out/gpu-models) against PyTorch's outputs
#   5. the conformance suite on the cuda plugin (JUnit and the console report): first the
#      decoding ops alone (sample, cache_write: issue 16), then every case
#   6. the ONNX backend node tests on cuda:0 (when libonnx-testdata is installed)
#   7. benchmarks: sy_cuda_benchmark (benchmarks/cuda_benchmark.cpp: matmul 4096^3 f32 and
#      f16 through the plugin against a direct cuBLAS call, the dispatch-overhead chain
#      with and without CUDA-graph replay, per node; JSON in $OUT/cuda_benchmark.json, the
#      figures go to docs/performance.md; also the session with DeviceTensors bound), then
#      `switchyard bench` of the examples on cuda (with and without --io-binding) and cpu
#
# Everything goes to $OUT (default: out/cuda-check): one log per step and summary.txt with
# one line per step (PASS, FAIL, SKIP, TIMEOUT). Exit status: 0 when no step failed.
# Environment: BUILD (build directory, default build/cuda-check), JOBS (default: all
# cores), CUDA_ARCHS (default 90, the H100/H200; "80;90" for the release default),
# BUDGET (seconds for the whole run, default 470).
set -uo pipefail
cd "$(dirname "$0")/.."
SRC=$(pwd)
OUT=${OUT:-$SRC/out/cuda-check}
BUILD=${BUILD:-$SRC/build/cuda-check}
JOBS=${JOBS:-$(nproc)}
CUDA_ARCHS=${CUDA_ARCHS:-90}
BUDGET=${BUDGET:-470}
mkdir -p "$OUT"
SUMMARY=$OUT/summary.txt
: >"$SUMMARY"
START=$(date +%s)
FAILED=0

# step NAME LIMIT COMMAND...: runs COMMAND with its output in $OUT/NAME.log, at most LIMIT
# seconds and never past the overall budget; records the outcome in summary.txt.
step() {
  local name=$1 limit=$2
  shift 2
  local left=$((BUDGET - ($(date +%s) - START)))
  if [ "$left" -lt 10 ]; then
    echo "SKIP     $name (the ${BUDGET}s budget is spent)" | tee -a "$SUMMARY"
    return 0
  fi
  [ "$limit" -gt "$left" ] && limit=$left
  local t0 rc
  t0=$(date +%s)
  echo "== $name (limit ${limit}s)"
  timeout --kill-after=10 "$limit" "$@" >"$OUT/$name.log" 2>&1
  rc=$?
  local took=$(($(date +%s) - t0))
  local verdict=PASS
  if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
    verdict=TIMEOUT
    FAILED=1
  elif [ "$rc" = 77 ]; then
    verdict=SKIP
  elif [ "$rc" != 0 ]; then
    verdict="FAIL(exit $rc)"
    FAILED=1
  fi
  echo "$(printf '%-8s' "$verdict") $name (${took}s)" | tee -a "$SUMMARY"
  tail -n 3 "$OUT/$name.log" | sed 's/^/    /'
  return 0
}

SY=$BUILD/bin/switchyard

# 1. The machine (informational; step "devices" decides whether the plugin sees the GPU).
step gpu 20 bash -c 'nvidia-smi; nvidia-smi -q | head -60; PATH=$PATH:/usr/local/cuda/bin nvcc --version; true'

# 2. Configure (the tests and the benchmarks too when GTest and Google Benchmark are
#    installed) and build only what the checks use.
configure() {
  cmake -S "$SRC" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DSY_BUILD_CUDA=ON "-DCMAKE_CUDA_ARCHITECTURES=$CUDA_ARCHS" "$@"
}
build() {
  { configure -DSY_BUILD_TESTS=ON -DSY_BUILD_BENCHMARKS=ON ||
    configure -DSY_BUILD_TESTS=ON -DSY_BUILD_BENCHMARKS=OFF ||
    configure -DSY_BUILD_TESTS=OFF -DSY_BUILD_BENCHMARKS=ON ||
    configure -DSY_BUILD_TESTS=OFF -DSY_BUILD_BENCHMARKS=OFF; } || return 1
  local targets=(switchyard switchyard_cpu switchyard_cuda switchyard-plugin-probe
    switchyard-plugin-worker)
  for t in sy_cuda_tests onnx_node_tests sy_cuda_benchmark; do
    ninja -C "$BUILD" -t targets all 2>/dev/null | grep -q "^$t:" && targets+=("$t")
  done
  echo "targets: ${targets[*]}"
  cmake --build "$BUILD" -j "$JOBS" --target "${targets[@]}"
}
# The steps run under timeout(1), in a child bash: they see these functions and variables.
export SRC OUT BUILD JOBS CUDA_ARCHS SY
export -f configure build

step build 300 bash -c build
if [ ! -x "$SY" ] || [ ! -f "$BUILD/lib/switchyard/plugins/libswitchyard_cuda.so" ]; then
  echo "the build failed: nothing else can run (see $OUT/build.log)" | tee -a "$SUMMARY"
  exit 1
fi

# The plugin must see the GPU; say why not otherwise and stop.
step devices 30 bash -c "'$SY' plugins && '$SY' devices && '$SY' devices | grep -q '^cuda:0'"
if ! grep -q "^cuda:0" "$OUT/devices.log"; then
  echo "the cuda plugin has no device here (see $OUT/devices.log): nothing else can run" |
    tee -a "$SUMMARY"
  exit 1
fi

# 3. Unit tests, the GPU ones included.
if [ -x "$BUILD/bin/sy_cuda_tests" ]; then
  step unit_tests 60 "$BUILD/bin/sy_cuda_tests" --gtest_output="xml:$OUT/sy_cuda_tests.xml"
else
  echo "SKIP     unit_tests (GTest not installed)" | tee -a "$SUMMARY"
fi

# 4. The bundled examples against NumPy, on the GPU (the plan shows what it declines) and
#    with the CPU named as the fallback.
examples() {
  local rc=0
  for model in mlp cnn transformer; do
    for device in cuda cuda,cpu; do
      echo "-- $model --device $device"
      [ "$device" = cuda ] && "$SY" plan "$SRC/examples/$model" --device cuda | tail -n 40
      "$SY" run "$SRC/examples/$model" --device "$device" \
        --compare "$SRC/examples/$model/expected" || rc=1
    done
  done
  return $rc
}
export -f examples
step examples 60 bash -c examples

# 4b. Decoding: the toy decoder (tests/data/decoder/, tools/make_toy_decoder.py) greedy and
#     seeded top-k on the GPU, its state and the sample op on cuda, against the NumPy
#     reference's tokens.
generate() {
  local rc=0 dec=$SRC/tests/data/decoder device sampling
  # (sampling options, file of the reference's tokens) pairs
  local -a cases=("--sample greedy" greedy_1_2_3.txt
    "--sample top-k --top-k 4 --temperature 0.8 --seed 7" top_k4_t0.8_seed7_1_2_3.txt)
  for device in cuda cuda,cpu; do
    for ((k = 0; k < ${#cases[@]}; k += 2)); do
      local got want
      # shellcheck disable=SC2086  # the options are words
      got=$("$SY" generate "$dec/model.json" --prompt 1,2,3 --max-new-tokens 12 \
        --device "$device" ${cases[k]} --json) || rc=1
      want=$(cat "$dec/${cases[k + 1]}")
      echo "$device ${cases[k]}: $got"
      echo "$got" | grep -q "\"tokens\":\[$want\]" || { echo "  expected tokens [$want]"; rc=1; }
    done
  done
  "$SY" plan "$dec/model.json" --device cuda | tail -n 20
  return $rc
}
export -f generate
step generate 60 bash -c generate

# 4c. Real models (tools/gpu_models.sh packs them on a machine with PyTorch: MobileNetV2
#     and ResNet-18 by default, carried here in out/gpu-models) against PyTorch's outputs,
#     on the GPU and with the CPU as the fallback; then their latency on cuda with host
#     tensors and with the inputs and outputs on the GPU (--io-binding).
real_models() {
  local dir=${GPU_MODELS:-$SRC/out/gpu-models} rc=0 found=0
  for model in "$dir"/*/; do
    [ -d "$model/expected" ] || continue
    found=1
    for device in cuda cuda,cpu; do
      echo "-- $(basename "$model") --device $device"
      "$SY" run "$model" --device "$device" --compare "$model/expected" --rtol 1e-3 --atol 1e-3 |
        tail -n 3 || rc=1
    done
    "$SY" bench "$model" --device cuda --repeat 50 --json || rc=1
    "$SY" bench "$model" --device cuda --repeat 50 --io-binding --json || rc=1
  done
  if [ "$found" = 0 ]; then
    echo "no packed models in $dir (tools/gpu_models.sh makes them; carry out/gpu-models)"
    return 77
  fi
  return $rc
}
export -f real_models
step real_models 90 bash -c real_models

# 5. The conformance suite. First the decoding ops on their own (sample, whose token must
#    be the reference's in every case, and cache_write), so that their verdict stands even
#    when the whole suite runs out of time; then every case (mandatory and the rest).
conformance_decoding() {
  local expect=()
  [ -f "$SRC/plugins/cuda/conformance-expectations.txt" ] &&
    expect=(--expectations "$SRC/plugins/cuda/conformance-expectations.txt")
  "$SY" conformance --plugin cuda --ops sample,cache_write --scope all --timeout 60 \
    --list-unsupported --junit "$OUT/conformance-cuda-decoding.xml" "${expect[@]}"
}
export -f conformance_decoding
step conformance_decoding 90 bash -c conformance_decoding

conformance() {
  local expect=()
  [ -f "$SRC/plugins/cuda/conformance-expectations.txt" ] &&
    expect=(--expectations "$SRC/plugins/cuda/conformance-expectations.txt")
  "$SY" conformance --plugin cuda --scope all --timeout 60 --list-unsupported \
    --junit "$OUT/conformance-cuda.xml" "${expect[@]}"
}
export -f conformance
step conformance 200 bash -c conformance

# 6. The ONNX backend node tests on the GPU (77: no test data installed).
if [ -x "$BUILD/bin/onnx_node_tests" ]; then
  step onnx_node_tests 120 "$BUILD/bin/onnx_node_tests" --device cuda:0 \
    --expectations "$SRC/tests/onnx/expectations.txt" --report "$OUT/onnx-node-tests-cuda.md"
else
  echo "SKIP     onnx_node_tests (not built: ONNX or GTest missing)" | tee -a "$SUMMARY"
fi

# 7. Benchmarks. First sy_cuda_benchmark: matmul 4096^3 f32/f16 through a session and
#    through the plugin's execute against direct cuBLAS (target: execute >= 80%), and the
#    add chain at N = 10, 100, 1000 with CUDA graphs on and off (per node: the slope).
#    Estimated under a minute with min_time 0.2 s (not yet timed on a GPU); exit 1 when a
#    benchmark failed or computed a wrong result.
if [ -x "$BUILD/bin/sy_cuda_benchmark" ]; then
  step cuda_benchmark 120 "$BUILD/bin/sy_cuda_benchmark" --benchmark_min_time=0.2 \
    --benchmark_format=console --benchmark_out="$OUT/cuda_benchmark.json" \
    --benchmark_out_format=json
  sed -n '/^summary:/,$p' "$OUT/cuda_benchmark.log"
else
  echo "SKIP     cuda_benchmark (not built: Google Benchmark missing)" | tee -a "$SUMMARY"
fi

# Then the bundled examples, on the GPU and on the CPU.
bench() {
  for model in mlp cnn transformer; do
    for device in cuda cpu; do
      echo "-- $model on $device"
      "$SY" bench "$SRC/examples/$model" --device "$device" --repeat 50 --json || return 1
    done
    echo "-- $model on cuda, inputs and outputs on the GPU"
    "$SY" bench "$SRC/examples/$model" --device cuda --repeat 50 --io-binding --json || return 1
  done
  echo "-- transformer on cuda without CUDA graphs"
  SWITCHYARD_CUDA_GRAPHS=0 "$SY" bench "$SRC/examples/transformer" --device cuda --repeat 50 --json
}
export -f bench
step bench 60 bash -c bench

echo "== summary ($(($(date +%s) - START))s; logs in $OUT)"
cat "$SUMMARY"
exit $FAILED
