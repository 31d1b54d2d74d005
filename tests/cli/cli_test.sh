#!/usr/bin/env bash
# End-to-end tests of the `switchyard` CLI: exit codes, stdout/stderr contents.
# usage: cli_test.sh PATH_TO_SWITCHYARD SOURCE_DIR
set -u
SY=$1
SRC=$2
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
# expect NAME WANT_EXIT PATTERN -- COMMAND... (tests/cli/expect.sh)
source "$(dirname "$0")/expect.sh"

expect "SWITCHYARD_CPU_WINOGRAD unknown value" 1 'SWITCHYARD_CPU_WINOGRAD=on: expected 1 .* or 0' \
  -- env SWITCHYARD_CPU_WINOGRAD=on "$SY" run "$SRC/examples/mlp" --device cpu
expect "run with SWITCHYARD_CPU_WINOGRAD=0" 0 "match" \
  -- env SWITCHYARD_CPU_WINOGRAD=0 "$SY" run "$SRC/examples/cnn" --compare "$SRC/examples/cnn/expected"
for model in "$SRC"/examples/*/; do
  name=$(basename "$model")
  expect "check example $name" 0 ": ok: [0-9]+ values" -- "$SY" check "$model"
done
expect "check mlp summary" 0 \
  "15 values, 8 nodes, 6 constants; inputs: x f32 \[2, 12\]; outputs: y f32 \[2, 4\]; weights: 2192 bytes" \
  -- "$SY" check "$SRC/examples/mlp/mlp.json"
expect "check --json" 0 '^\{"model":".*mlp.json","ok":true,"values":15,"nodes":8,"constants":6,.*"weight_bytes":2192\}$' \
  -- "$SY" check --json "$SRC/examples/mlp/mlp"
expect "check --help" 0 "usage: switchyard check" -- "$SY" check --help
expect "check without a model" 2 "expected at least one MODEL" -- "$SY" check
expect "check unknown option" 2 "unrecognised option|unrecognized option" -- "$SY" check --bogus x
expect "check missing file" 1 "nope.json: cannot open: no such file" -- "$SY" check "$TMP/nope"

printf '{"format": "rml-graph", "version": 1, "values": [' >"$TMP/truncated.json"
expect "check truncated json" 1 "truncated.json: not valid JSON at line 1" -- "$SY" check "$TMP/truncated.json"
: >"$TMP/empty.json"
expect "check empty file" 1 "empty.json: not valid JSON.*empty document" -- "$SY" check "$TMP/empty.json"
cat >"$TMP/bad_shape.json" <<'JSON'
{"format": "rml-graph", "version": 1,
 "values": [{"name": "x", "dtype": "f32", "shape": [2, 12]},
            {"name": "w", "dtype": "f32", "shape": [12, 16]},
            {"name": "h", "dtype": "f32", "shape": [2, 8]}],
 "inputs": [0, 1], "outputs": [2],
 "nodes": [{"op": "matmul", "inputs": [0, 1], "outputs": [2], "name": "fc0"}]}
JSON
expect "check recorded type disagrees" 1 \
  'bad_shape.json: node 0 \(matmul\) "fc0" produces f32 \[2, 16\] but value 2 "h" is recorded as f32 \[2, 8\]' \
  -- "$SY" check "$TMP/bad_shape.json"
expect "check --json error" 1 '"ok":false,"error":".*bad_shape.json: node 0' -- "$SY" check --json "$TMP/bad_shape.json"
expect "check several, one bad" 1 "mlp.json: ok" -- "$SY" check "$SRC/examples/mlp" "$TMP/bad_shape.json"
printf 'not safetensors' >"$TMP/bad_shape.safetensors"
expect "check corrupt safetensors" 1 "bad_shape.safetensors" -- "$SY" check "$TMP/bad_shape.json"

expect "ops lists the catalogue" 0 "^126 ops$" -- "$SY" ops
expect "ops one op" 0 "attrs:   approximate \(string, default \"none\", one of none tanh\)" -- "$SY" ops gelu
expect "ops names the family" 0 "^  family:  movement$" -- "$SY" ops depth_to_space
expect "ops lists the selection family" 0 "^  family:  selection$" -- "$SY" ops non_max_suppression
expect "ops lists the sampling family" 0 "^  family:  sampling$" -- "$SY" ops sample
expect "ops --json" 0 '^\[\{"name":"abs","tag":200,"onnx":"Abs"' -- "$SY" ops --json
expect "ops --markdown" 0 '^\| op \| tag \| family \| ONNX \|' -- "$SY" ops --markdown
expect "ops names the op tag" 0 "^  tag:     0$" -- "$SY" ops matmul
expect "ops unknown op" 1 'unknown op "matmull"' -- "$SY" ops matmull
expect "ops --help" 0 "usage: switchyard ops" -- "$SY" ops --help

# Plugins, devices, and running every bundled example against NumPy's outputs on the
# fast device and on the reference device.
expect "plugins" 0 "loaded   cpu [0-9.]+ \(ABI 1\)" -- "$SY" plugins
expect "plugins --json" 0 '"name":"cpu"' -- "$SY" plugins --json
expect "plugins explicit bad path" 1 "plugin $TMP/nope.so: no such file" -- "$SY" plugins --plugin "$TMP/nope.so"
expect "devices" 0 "cpu:1  cpu-ref  kind cpu" -- "$SY" devices
expect "devices --json" 0 '"spec":"cpu:0".*"ops_supported":126' -- "$SY" devices --json
# The cpu device says which libraries and instruction set its kernels use.
expect "devices: cpu details" 0 '"name":"cpu".*"details":"matmul/gemm/conv f32: [^"]+(isa|core) ' \
  -- "$SY" devices --json
expect "SWITCHYARD_CPU_GEMM=openblas" 0 'matmul/gemm/conv f32: OpenBLAS' \
  -- env SWITCHYARD_CPU_GEMM=openblas "$SY" devices
expect "SWITCHYARD_CPU_GEMM unknown value" 1 'SWITCHYARD_CPU_GEMM=bogus: expected onednn .* or openblas' \
  -- env SWITCHYARD_CPU_GEMM=bogus "$SY" run "$SRC/examples/mlp" --device cpu
expect "run with SWITCHYARD_CPU_GEMM=openblas" 0 "match" \
  -- env SWITCHYARD_CPU_GEMM=openblas "$SY" run "$SRC/examples/cnn" --compare "$SRC/examples/cnn/expected"
for model in "$SRC"/examples/*/; do
  name=$(basename "$model")
  for device in cpu cpu-ref; do
    expect "run $name on $device" 0 "matches" -- "$SY" run "$model" --device "$device" --compare "$model/expected"
  done
done
# The optimization pass off and at its highest level: every example still matches NumPy.
for model in "$SRC"/examples/*/; do
  name=$(basename "$model")
  for level in 0 2; do
    expect "run $name --optimize $level" 0 "matches" \
      -- "$SY" run "$model" --optimize "$level" --compare "$model/expected"
  done
done
expect "plan --optimize out of range" 2 "--optimize -1: expected 0" \
  -- "$SY" plan "$SRC/examples/mlp" --optimize -1
expect "run --optimize out of range" 2 "--optimize 3: expected 0 \(none\), 1 \(default\) or 2" \
  -- "$SY" run "$SRC/examples/mlp" --optimize 3
expect "plan shows what was fused" 0 "fused   fused_matmul on cpu:0: .*\"mlp.fc1\".*-> fused_matmul" \
  -- "$SY" plan "$SRC/examples/transformer" --device cpu
expect "plan --optimize 0 fuses nothing" 0 "optimization level 0: 28 -> 28 nodes, 0 rewrites" \
  -- "$SY" plan "$SRC/examples/transformer" --optimize 0
expect "plan --json optimization" 0 '"optimization":\{"level":1,.*"rule":"add_layer_norm","applied":true' \
  -- "$SY" plan "$SRC/examples/transformer" --device cpu --json
expect "run --json" 0 '"device":"cpu:0".*"matches":true' -- "$SY" run "$SRC/examples/mlp" --json --compare "$SRC/examples/mlp/expected"
expect "run --out" 0 "y: f32 \[2, 4\]" -- "$SY" run "$SRC/examples/mlp" --out "$TMP/out"
[ -f "$TMP/out/y.npy" ] && passes=$((passes + 1)) || { echo "FAIL run --out wrote no y.npy"; failures=$((failures + 1)); }
expect "run unknown input" 1 'the model has no input "nope"' -- "$SY" run "$SRC/examples/mlp" --input nope=random
expect "run bad input file" 1 "cannot open" -- "$SY" run "$SRC/examples/mlp" --input "x=$TMP/missing.npy"
cp "$SRC/examples/transformer/transformer.json" "$SRC/examples/transformer/transformer.safetensors" "$TMP/"
expect "run missing input" 1 'missing input "tokens"' -- "$SY" run "$TMP/transformer"
expect "run wrong input shape" 1 'input "x" is f32 \[2, 3\] but the model expects f32 \[2, 12\]' \
  -- "$SY" run "$SRC/examples/mlp" --input "x=$SRC/tests/data/npy/f32_2x3.npy"
expect "run unknown device" 1 'no device "tpu"' -- "$SY" run "$SRC/examples/mlp" --device tpu
expect "run random input" 0 "ran on cpu:0" -- "$SY" run "$SRC/examples/mlp" --input x=random
# Hostile value names: nothing is read or written outside the folders given, and names
# are printed with control characters escaped (docs/security.md).
mkdir -p "$TMP/hostile/inputs" "$TMP/out_hostile"
cat >"$TMP/hostile/hostile.json" <<'JSON'
{"format": "rml-graph", "version": 1,
 "values": [{"name": "../../secret", "dtype": "f32", "shape": [2]},
            {"name": "../escaped\u001b[31m", "dtype": "f32", "shape": [2]}],
 "inputs": [0], "outputs": [1],
 "nodes": [{"op": "relu", "inputs": [0], "outputs": [1], "name": "act"}]}
JSON
cp "$SRC/tests/data/npy/f32_2x3.npy" "$TMP/secret.npy"
expect "run does not read an input from outside inputs/" 1 'missing input "../../secret"' \
  -- "$SY" run "$TMP/hostile"
cp "$SRC/examples/mlp/inputs/x.npy" "$TMP/x12.npy"
python_free_npy() {  # a [2] f32 .npy of [-1, 2] with the header NumPy writes
  printf '\x93NUMPY\x01\x00\x76\x00'
  local dict="{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }"
  printf '%s' "$dict"; printf '%*s' $((127 - 10 - ${#dict})) ''; printf '\n'
  printf '\x00\x00\x80\xbf\x00\x00\x00\x40'
}
python_free_npy >"$TMP/hostile/inputs/%2E.%2F..%2Fsecret.npy"
expect "run writes an output named ../escaped inside --out, printed escaped" 0 \
  '^\.\./escaped\\x1B\[31m: f32 \[2\] \[0, 2\]' -- "$SY" run "$TMP/hostile" --out "$TMP/out_hostile"
[ -f "$TMP/out_hostile/%2E.%2Fescaped%1B[31m.npy" ] && [ ! -e "$TMP/escaped"* ] &&
  passes=$((passes + 1)) || { echo "FAIL hostile output name: wrong file written"; ls -la "$TMP" "$TMP/out_hostile"; failures=$((failures + 1)); }
mkdir -p "$TMP/out_link"
echo "keep me" >"$TMP/link_target"
ln -s "$TMP/link_target" "$TMP/out_link/y.npy"
expect "run --out refuses a symbolic link in the folder" 1 "y.npy: is a symbolic link" \
  -- "$SY" run "$SRC/examples/mlp" --out "$TMP/out_link"
grep -qx "keep me" "$TMP/link_target" && passes=$((passes + 1)) ||
  { echo "FAIL run --out wrote through a symbolic link"; failures=$((failures + 1)); }
# A hard link planted in --out: the output replaces it (written beside it, renamed into
# place); the file it was linked to keeps its contents.
mkdir -p "$TMP/out_hard"
echo "keep me" >"$TMP/hard_target"
ln "$TMP/hard_target" "$TMP/out_hard/y.npy"
expect "run --out replaces a hard link in the folder" 0 "y" \
  -- "$SY" run "$SRC/examples/mlp" --out "$TMP/out_hard"
grep -qx "keep me" "$TMP/hard_target" && [ "$(stat -c %h "$TMP/hard_target")" = 1 ] &&
  passes=$((passes + 1)) || { echo "FAIL run --out wrote through a hard link"; failures=$((failures + 1)); }
expect "run --input refuses a device file" 1 "not a regular file" \
  -- "$SY" run "$SRC/examples/mlp" --input x=/dev/zero
# Arguments out of range are usage errors (exit 2) naming the option.
expect "run --rtol nan" 2 "--rtol nan: expected a finite tolerance" \
  -- "$SY" run "$SRC/examples/mlp" --compare "$SRC/examples/mlp/expected" --rtol nan
expect "run --atol -1" 2 "--atol -1.* expected a finite tolerance" \
  -- "$SY" run "$SRC/examples/mlp" --compare "$SRC/examples/mlp/expected" --atol -1
expect "run --threads -1" 2 "--threads -1: expected 0 \(the number of cores\) to 4096" \
  -- "$SY" run "$SRC/examples/mlp" --threads -1
expect "bench --threads too many" 2 "--threads 100000" -- "$SY" bench "$SRC/examples/mlp" --threads 100000
expect "run --device twice" 1 "--device cpu,cpu:0: cpu:0 is cpu:0, which is already in the list" \
  -- "$SY" run "$SRC/examples/mlp" --device cpu,cpu:0
expect "bench" 0 "median [0-9.]+ us, min [0-9.]+ us, max [0-9.]+ us, p90 [0-9.]+ us, p99 [0-9.]+ us over 5 runs" \
  -- "$SY" bench "$SRC/examples/mlp" --repeat 5
expect "bench without inputs uses seeded random data" 0 \
  "no value given for tokens .*: using seeded random data \(--seed 3\)" \
  -- "$SY" bench "$TMP/transformer" --repeat 2 --seed 3
expect "bench --json percentiles" 0 '"p90_us":[0-9.eE+-]+,"p99_us":' -- "$SY" bench "$SRC/examples/mlp" --repeat 3 --json
expect "bench --json" 0 '"median_us":.*"median_cpu_us":' -- "$SY" bench "$SRC/examples/cnn" --device cpu-ref --repeat 2 --json
expect "bench bad repeat" 2 "--repeat" -- "$SY" bench "$SRC/examples/mlp" --repeat 0

# Scheduling across devices (switchyard plan, run and bench with device options). The
# scheduler's test plugins (tests/plugins: "partial" runs a few f32 ops over host memory,
# "remote" has two GPUs with memory the host cannot address) are found through
# SWITCHYARD_PLUGIN_PATH, as a vendor's plugin would be.
TP="$(dirname "$SY")/../test_plugins"
WITH_TEST_PLUGINS=(env "SWITCHYARD_PLUGIN_PATH=$TP/partial:$TP/remote")
# devices says so when a plugin answers the op-level supports_node query with errors.
expect "devices: warns on failing op queries" 0 \
  "warning: misbehaving:0: [0-9]+ of [0-9]+ op-level supports_node queries .* returned an error.*first: [a-z_]+: node has no inputs" \
  -- env SY_MISBEHAVING_OP_QUERY_FAILS=1 "$SY" devices --plugin "$TP/misbehaving/libswitchyard_test_misbehaving.so"
expect "devices: no warning for a plugin that answers" 0 "misbehaving:0 .*ops 6/" \
  -- "$SY" devices --plugin "$TP/misbehaving/libswitchyard_test_misbehaving.so"
expect "plan one device" 0 "partitions: 1" -- "$SY" plan "$SRC/examples/mlp"
expect "plan --json" 0 '"nodes":\[\{"index":0,[^}]*"device":"cpu:0","reason":"order"' \
  -- "$SY" plan --json "$SRC/examples/mlp"
expect "plan --json copies" 0 '"copy_count":[1-9][0-9]*,"copy_bytes":[1-9]' \
  -- "${WITH_TEST_PLUGINS[@]}" "$SY" plan --json "$SRC/examples/transformer" --device partial
expect "plan explains a fallback" 0 '"embed" -> cpu:0  \[fallback\] partial:0 declined: op "gather" is not in' \
  -- "${WITH_TEST_PLUGINS[@]}" "$SY" plan "$SRC/examples/transformer" --device partial
expect "plan default order prefers GPUs" 0 "9 nodes on remote:0 \(remote-gpu0\)" \
  -- "${WITH_TEST_PLUGINS[@]}" "$SY" plan "$SRC/examples/cnn" --optimize 0
expect "plan --strict" 1 '"embed" would fall back to cpu:0 .*strict mode forbids falling back' \
  -- "${WITH_TEST_PLUGINS[@]}" "$SY" plan "$SRC/examples/transformer" --device partial --strict
expect "plan says why a device keeps the plain nodes" 0 \
  "kept    fused_matmul on partial:0: .*partial:0 does not run fused_matmul" \
  -- "${WITH_TEST_PLUGINS[@]}" "$SY" plan "$SRC/examples/mlp" --device partial --no-island-pass
expect "plan --memory-limit" 1 \
  'cpu:0 \(cpu\) cannot hold the plan: it needs .* but the memory limit set for it is 1.0 KiB' \
  -- "$SY" plan "$SRC/examples/cnn" --memory-limit cpu=1KiB
expect "--memory-limit cpu=0 is refused (it meant no limit)" 2 "a limit of 0 bytes would hold nothing" \
  -- "$SY" plan "$SRC/examples/cnn" --memory-limit cpu=0
expect "plan bad --memory-limit" 2 '"lots" is not a byte size' \
  -- "$SY" plan "$SRC/examples/mlp" --memory-limit cpu=lots
expect "plan --memory-limit unknown device" 2 'no device "tpu"' \
  -- "$SY" plan "$SRC/examples/mlp" --memory-limit tpu=1MiB
expect "plan --help" 0 "usage: switchyard plan" -- "$SY" plan --help
for model in mlp cnn transformer; do
  expect "run $model on partial + cpu" 0 "matches" -- "${WITH_TEST_PLUGINS[@]}" "$SY" run \
    "$SRC/examples/$model" --device partial --compare "$SRC/examples/$model/expected"
  expect "run $model on remote" 0 "ran on remote:0 \\(remote-gpu0\\)" -- "${WITH_TEST_PLUGINS[@]}" \
    "$SY" run "$SRC/examples/$model" --compare "$SRC/examples/$model/expected"
done
expect "run --strict fails before running" 1 "strict mode forbids" \
  -- "${WITH_TEST_PLUGINS[@]}" "$SY" run "$SRC/examples/cnn" --device partial --strict
expect "bench --io-binding on a device without host memory" 0 \
  "inputs and outputs bound on remote:0; host memory traffic 0 B per run" \
  -- "${WITH_TEST_PLUGINS[@]}" "$SY" bench "$SRC/examples/transformer" --device remote --io-binding --repeat 2
expect "bench without --io-binding copies" 0 '"io_binding":false,"host_bytes_per_run":[1-9]' \
  -- "${WITH_TEST_PLUGINS[@]}" "$SY" bench "$SRC/examples/transformer" --device remote --repeat 2 --json
expect "bench mixed devices" 0 '"devices":"cpu:0 \(cpu\), partial:0 \(partial-accel\)".*"median_us"' \
  -- "${WITH_TEST_PLUGINS[@]}" "$SY" bench "$SRC/examples/transformer" --device partial --repeat 2 --json

# Profiles (docs/profiling.md): a Chrome trace with a track per device, the time by op,
# and the placement summary on stderr.
expect "run --profile" 0 "time by op \(profile written to .*run.json\):" \
  -- "$SY" run "$SRC/examples/cnn" --profile "$TMP/run.json"
expect "run --profile wrote a trace" 0 '"traceEvents":\[.*"cat":"node".*"thread_name".*"cpu:0 \(cpu\)"' \
  -- cat "$TMP/run.json"
expect "bench --profile --json" 0 '"profile":\[\{"op":"[a-z_]+","count":[0-9]+,"total_us":' \
  -- "$SY" bench "$SRC/examples/transformer" --repeat 3 --profile "$TMP/bench.json" --json
expect "bench --profile text" 0 "time by op over the 3 timed runs" \
  -- "$SY" bench "$SRC/examples/mlp" --repeat 3 --profile "$TMP/bench.json"
expect "--profile to a folder that does not exist" 1 "--profile $TMP/nope/p.json: cannot write" \
  -- "$SY" run "$SRC/examples/mlp" --profile "$TMP/nope/p.json"
expect "run: placement summary" 0 "switchyard run: [0-9]+ nodes: [0-9]+ on cpu:0, 0 copies" \
  -- "$SY" run "$SRC/examples/mlp"
expect "bench: placement summary with copies" 0 \
  "switchyard bench: [0-9]+ nodes: [0-9]+ on partial:0, [0-9]+ on cpu:0 \([0-9]+ as fallback\), [0-9]+ copies.* moved per run" \
  -- "${WITH_TEST_PLUGINS[@]}" "$SY" bench "$SRC/examples/transformer" --device partial --repeat 2

# Differential runs (docs/profiling.md): each node checked alone on cpu-ref with the
# device's inputs; the misbehaving test plugin's relu adds 1 to its first element.
expect "compare cnn" 0 "all 6 nodes within their ops' conformance tolerances" \
  -- "$SY" compare "$SRC/examples/cnn"
mkdir -p "$TMP/relu3"
cat >"$TMP/relu3/relu3.json" <<'JSON'
{"format": "rml-graph", "version": 1,
 "values": [{"name": "x", "dtype": "f32", "shape": [2, 3]}, {"name": "a", "dtype": "f32", "shape": [2, 3]},
            {"name": "r", "dtype": "f32", "shape": [2, 3]}, {"name": "y", "dtype": "f32", "shape": [2, 3]}],
 "inputs": [0], "outputs": [3],
 "nodes": [{"op": "tanh", "name": "t1", "inputs": [0], "outputs": [1]},
           {"op": "relu", "name": "r", "inputs": [1], "outputs": [2], "backend": "misbehaving"},
           {"op": "tanh", "name": "t2", "inputs": [2], "outputs": [3]}]}
JSON
MISBEHAVING="$TP/misbehaving/libswitchyard_test_misbehaving.so"
expect "compare finds the diverging node" 1 \
  'first node out of tolerance: node 1 \(relu\) "r" on misbehaving:0: r: 1 of 6 elements differ' \
  -- "$SY" compare "$TMP/relu3" --plugin "$MISBEHAVING" --input x=random --out "$TMP/cmp"
expect "compare --out wrote the node's inputs" 0 "a.npy" -- ls "$TMP/cmp"
expect "compare --json" 1 '"first_out_of_tolerance":1' \
  -- "$SY" compare "$TMP/relu3" --plugin "$MISBEHAVING" --input x=random --json
expect "compare notes random inputs" 0 "switchyard compare: note: no value given for x" \
  -- "$SY" compare "$TMP/relu3"
expect "compare --reference unknown" 2 '--reference: no device "nope"' \
  -- "$SY" compare "$SRC/examples/mlp" --reference nope
expect "compare --help" 0 "usage: switchyard compare" -- "$SY" compare --help

# A progress line on a terminal (script(1) gives the command one), never in a pipe.
if command -v script >/dev/null; then
  CONFORMANCE_OPS=matmul,conv,softmax,layer_norm,attention,gather,reduce_sum,add,mul,exp
  expect "conformance shows progress on a terminal" 0 "switchyard conformance: [0-9]+/1184 " \
    -- script -qec "$SY conformance --plugin cpu --ops $CONFORMANCE_OPS" /dev/null
fi
expect "no progress line in a pipe" 0 "^0$" \
  -- bash -c "$SY conformance --plugin cpu --ops matmul,conv,softmax,gather,add,mul 2>&1 | grep -c 'switchyard conformance: [0-9]'; true"

# The plan as a picture (docs/scheduling.md): Graphviz text that dot accepts, and an SVG.
expect "plan --dot" 0 'label="partition 0 on cpu:0"; fontname' \
  -- "$SY" plan "$SRC/examples/cnn" --dot
expect "plan --dot across devices" 0 'style=dashed, color="#e31a1c", penwidth=2, label="(copy [0-9.]+ [KM]?i?B|read in place)"' \
  -- "${WITH_TEST_PLUGINS[@]}" "$SY" plan "$SRC/examples/transformer" --device partial --dot
if command -v dot >/dev/null; then
  "${WITH_TEST_PLUGINS[@]}" "$SY" plan "$SRC/examples/transformer" --device partial --dot >"$TMP/plan.dot"
  expect "dot accepts plan --dot" 0 "<svg" -- dot -Tsvg "$TMP/plan.dot"
  expect "plan --svg" 0 "wrote $TMP/plan.svg" -- "$SY" plan "$SRC/examples/mlp" --svg "$TMP/plan.svg"
  expect "plan --svg wrote an SVG" 0 "</svg>" -- cat "$TMP/plan.svg"
else
  echo "note: Graphviz's dot is not installed; the --svg rendering checks are skipped"
fi
expect "plan --svg without Graphviz" 1 "--svg needs Graphviz's dot, which is not installed" \
  -- env PATH=/nonexistent "$SY" plan "$SRC/examples/mlp" --svg "$TMP/never.svg"

# Isolated plugins (docs/plugin-isolation.md): the CPU plugin in a worker computes the
# same; a plugin that crashes or hangs in execute fails the run with the reason, exit 1,
# instead of taking the process down or hanging it.
NEG="$TMP/neg"
mkdir -p "$NEG"
cat >"$NEG/neg.json" <<'JSON'
{"format": "rml-graph", "version": 1,
 "values": [{"name": "x", "dtype": "f32", "shape": [4]}, {"name": "y", "dtype": "f32", "shape": [4]}],
 "inputs": [0], "outputs": [1],
 "nodes": [{"op": "neg", "name": "n", "inputs": [0], "outputs": [1]}]}
JSON
CRASHER="$TP/crash_in_execute/libswitchyard_test_crash_in_execute.so"
HANGER="$TP/hang_in_execute/libswitchyard_test_hang_in_execute.so"
for model in mlp cnn transformer; do
  expect "run $model with --isolate cpu" 0 "matches" -- "$SY" run "$SRC/examples/$model" \
    --isolate cpu --compare "$SRC/examples/$model/expected"
done
expect "plugins --isolate all" 0 "loaded   cpu .*\[isolated: worker pid [0-9]+\]" \
  -- "$SY" plugins --isolate all
expect "plugins --json --isolate" 0 '"name":"cpu","version":"[^"]*","abi_version":1,"isolated":true,"worker_pid":[0-9]+' \
  -- "$SY" plugins --json --isolate cpu
expect "bench --isolate" 0 '"median_us"' -- "$SY" bench "$SRC/examples/mlp" --isolate all --repeat 3 --json
expect "bench --io-binding --isolate" 0 '"io_binding":true,"host_bytes_per_run":0' \
  -- "$SY" bench "$SRC/examples/mlp" --isolate all --io-binding --repeat 3 --json
expect "run --isolate --profile times nodes in the worker" 0 "^fused_conv +[0-9.]+%" \
  -- "$SY" run "$SRC/examples/cnn" --isolate cpu --profile "$TMP/isolated.json"
expect "crash in execute, isolated" 1 \
  'plugin hostile: execute: device hostile:0, execute: its worker process \(pid [0-9]+\) crashed \(SIGSEGV' \
  -- "$SY" run "$NEG" --plugin "$CRASHER" --device hostile --input x=random --isolate hostile
expect "hang in execute, isolated with --timeout" 1 \
  'device hostile:0, execute: its worker process \(pid [0-9]+\) did not answer within 1 s \(--timeout\) and was killed' \
  -- "$SY" run "$NEG" --plugin "$HANGER" --device hostile --input x=random --isolate all --timeout 1
# A plugin whose constructor writes the probe's old verdict ("ok") and ends the process with
# _exit(0) (issue 37): its verdict lacks the nonce the host sends only once the probe has
# finished, so it is rejected and never loaded here. It used to pass, and then end the host
# from its constructor: `plugins` printed nothing and a failing `run --compare` exited 0.
FORGER=(env "SWITCHYARD_PLUGIN_PATH=$TP/forge_verdict" "XDG_CACHE_HOME=$TMP/forge_cache")
expect "plugins: a forged probe verdict is rejected" 0 \
  "rejected .*libswitchyard_test_forge_verdict.so: the probe's report was not its own \(a verdict written before the probe finished its checks\)" \
  -- "${FORGER[@]}" "$SY" plugins
mkdir -p "$TMP/wrong_mlp"
mlp_y="$SRC/examples/mlp/expected/y.npy"
{ head -c $(($(wc -c <"$mlp_y") - 4)) "$mlp_y"; printf '\x00\x00\xc8\x42'; } >"$TMP/wrong_mlp/y.npy"
expect "run --compare that fails still fails with a forger on the path" 1 "y: f32 \[2, 4\] .* DIFFERS from" \
  -- "${FORGER[@]}" "$SY" run "$SRC/examples/mlp" --compare "$TMP/wrong_mlp"
# A crash while a process the plugin forked holds the worker's socket: seen at once as a
# crash (the host watches the worker process), not as a timeout.
FORKER="$TP/fork_and_crash_in_execute/libswitchyard_test_fork_and_crash_in_execute.so"
started=$SECONDS
expect "crash in execute while a forked child holds the socket, isolated" 1 \
  'device hostile:0, execute: its worker process \(pid [0-9]+\) crashed \(SIGSEGV' \
  -- "$SY" run "$NEG" --plugin "$FORKER" --device hostile --input x=random --isolate all --timeout 30
if [ $((SECONDS - started)) -lt 20 ]; then passes=$((passes + 1)); else
  echo "FAIL the isolated crash took $((SECONDS - started)) s"; failures=$((failures + 1)); fi
expect "--timeout without --isolate" 2 "--timeout needs --isolate" \
  -- "$SY" run "$SRC/examples/mlp" --timeout 5
expect "--timeout not a positive number" 2 "--timeout -1.0+: expected seconds above 0" \
  -- "$SY" run "$SRC/examples/mlp" --isolate all --timeout -1
expect "--timeout nan" 2 "--timeout nan: expected seconds above 0" \
  -- "$SY" run "$SRC/examples/mlp" --isolate all --timeout nan
expect "--isolate an unknown plugin" 1 "--isolate cpux: no plugin of that name or path was loaded \(loaded: cpu" \
  -- "$SY" run "$SRC/examples/mlp" --isolate cpux
expect "--isolate without the worker program" 1 "cannot start /nonexistent/worker" \
  -- env SWITCHYARD_PLUGIN_WORKER=/nonexistent/worker "$SY" run "$SRC/examples/mlp" --isolate all

# The OpenCL plugin, when it is built and finds a device (PoCL in CI): every example on
# the device alone and with the CPU taking what it declines, against NumPy.
OPENCL="$(dirname "$SY")/../lib/switchyard/plugins/libswitchyard_opencl.so"
if [ -f "$OPENCL" ] && "$SY" devices | grep -q "^opencl:0"; then
  for model in mlp cnn transformer; do
    expect "run $model on opencl" 0 "ran on opencl:0" -- "$SY" run "$SRC/examples/$model" \
      --device opencl --compare "$SRC/examples/$model/expected"
    expect "run $model on opencl,cpu" 0 "matches" -- "$SY" run "$SRC/examples/$model" \
      --device opencl,cpu --compare "$SRC/examples/$model/expected"
    expect "run $model on opencl --profile times its nodes" 0 "^(conv|fused_matmul|matmul|gather|add) " \
      -- "$SY" run "$SRC/examples/$model" --device opencl --profile "$TMP/opencl.json"
  done
  cat >"$TMP/tile.json" <<'JSON'
{"format": "rml-graph", "version": 1,
 "values": [{"name": "x", "dtype": "f32", "shape": [2, 3]},
            {"name": "t", "dtype": "f32", "shape": [4, 3]},
            {"name": "y", "dtype": "f32", "shape": [4, 3]}],
 "inputs": [0], "outputs": [2],
 "nodes": [{"op": "tile", "inputs": [0], "outputs": [1], "attrs": {"repeats": [2, 1]}, "name": "rep"},
           {"op": "relu", "inputs": [1], "outputs": [2], "name": "act"}]}
JSON
  expect "plan puts the whole graph on opencl" 0 '^partitions: 1$' \
    -- "$SY" plan "$TMP/tile.json" --device opencl
  expect "plan explains the order" 0 '"rep" -> opencl:0  \[order\]' \
    -- "$SY" plan "$TMP/tile.json" --device opencl
else
  echo "note: no OpenCL device; the OpenCL runs are skipped"
fi

# The CUDA plugin, when it is built: on a GPU, every example on the device alone and with
# the CPU taking what it declines; without one, it is listed with the reason.
CUDA="$(dirname "$SY")/../lib/switchyard/plugins/libswitchyard_cuda.so"
if [ -f "$CUDA" ] && "$SY" devices | grep -q "^cuda:0"; then
  for model in mlp cnn transformer; do
    expect "run $model on cuda,cpu" 0 "matches" -- "$SY" run "$SRC/examples/$model" \
      --device cuda,cpu --compare "$SRC/examples/$model/expected"
  done
elif [ -f "$CUDA" ]; then
  expect "plugins: cuda rejected with the reason" 0 \
    "rejected .*libswitchyard_cuda.so: no devices: no CUDA device: " -- "$SY" plugins
  expect "devices: cuda has no devices, with the reason" 0 \
    "^libswitchyard_cuda.so: no devices: no CUDA device: " -- "$SY" devices
  expect "run --device cuda names the reason" 1 'plugin cuda has no devices: no CUDA device' \
    -- "$SY" run "$SRC/examples/mlp" --device cuda --input x=random
  echo "note: no CUDA device; the CUDA runs are skipped"
fi

# Plugins export exactly their entry symbol.
for plugin in "$(dirname "$SY")"/../lib/switchyard/plugins/*.so; do
  exported=$(nm -D --defined-only "$plugin" | awk '{print $3}' | sort | tr '\n' ' ')
  if [ "$exported" = "sy_plugin_query " ]; then passes=$((passes + 1)); else
    echo "FAIL $plugin exports: $exported"; failures=$((failures + 1)); fi
done

expect "no command" 2 "usage: switchyard <command>" -- "$SY"
expect "unknown command" 2 "unknown command 'frobnicate'" -- "$SY" frobnicate
# Run-time sizes (docs/dynamic-shapes.md): x [batch, seq, 4] and m [batch, seq].
cat >"$TMP/dyn.json" <<'JSON'
{"format": "rml-graph", "version": 1,
 "symbols": [{"name": "batch", "example": 2}, {"name": "seq", "example": 3}],
 "values": [{"name": "x", "dtype": "f32", "shape": ["batch", "seq", 4]},
            {"name": "w", "dtype": "f32", "shape": [4, 2]},
            {"name": "m", "dtype": "f32", "shape": ["batch", "seq"]},
            {"name": "h", "dtype": "f32", "shape": ["batch", "seq", 2]},
            {"name": "y", "dtype": "f32", "shape": ["batch*seq", 2]}],
 "inputs": [0, 2], "outputs": [4],
 "constants": [{"value": 1, "data": [1, 0, 0, 1, 1, 1, -1, 2]}],
 "nodes": [{"op": "matmul", "inputs": [0, 1], "outputs": [3]},
           {"op": "reshape", "inputs": [3], "outputs": [4], "attr_exprs": {"shape": ["batch*seq", 2]}}]}
JSON
expect "check run-time sizes" 0 "inputs: x f32 \[batch, seq, 4\], m f32 \[batch, seq\]; outputs: y f32 \[batch\*seq, 2\].*run-time sizes: batch \(e.g. 2\), seq \(e.g. 3\)" \
  -- "$SY" check "$TMP/dyn.json"
expect "check --json run-time sizes" 0 '"shape":\["batch","seq",4\].*"symbols":\[\{"name":"batch","example":2\}' \
  -- "$SY" check --json "$TMP/dyn.json"
expect "plan --input-shape" 0 "planned for inputs x f32 \[5, 7, 4\], m f32 \[5, 7\]" \
  -- "$SY" plan "$TMP/dyn.json" --input-shape x=5,7,4 --input-shape m=5,7
expect "plan --input-shape --json" 0 '"specialized_for":\[\{"name":"x","dtype":"f32","shape":\[5,7,4\]' \
  -- "$SY" plan "$TMP/dyn.json" --input-shape x=5,7,4 --input-shape m=5,7 --json
expect "plan --input-shape disagreeing" 2 "inputs 'x' and 'm' disagree on seq: 7 \(dim 1 of 'x'\) and 9" \
  -- "$SY" plan "$TMP/dyn.json" --input-shape x=5,7,4 --input-shape m=5,9
expect "plan --input-shape unknown input" 2 "--input-shape q: the model has no input of that name" \
  -- "$SY" plan "$TMP/dyn.json" --input-shape q=1
# Random inputs of a dynamic model: its plan at their shapes is checked before 160 GB of
# data is made for them (issue 37).
expect "run: a dynamic model's plan is refused before its random inputs are made" 1 \
  "at the shapes of the random inputs \(batch=100000, seq=100000\), before making them: device cpu:0 \(cpu\) cannot hold the plan" \
  -- "$SY" run "$TMP/dyn.json" --input x=random --input m=random --input-shape x=100000,100000,4 \
     --input-shape m=100000,100000 --memory-limit cpu=1MiB
expect "bench: the same for inputs it fills" 1 "at the shapes of the random inputs" \
  -- "$SY" bench "$TMP/dyn.json" --input-shape x=100000,100000,4 --input-shape m=100000,100000 \
     --memory-limit cpu=1MiB
expect "run: random inputs that fit run" 0 "y: f32 \[600, 2\]" \
  -- "$SY" run "$TMP/dyn.json" --input x=random --input m=random --input-shape x=20,30,4 \
     --input-shape m=20,30
expect "run at the examples" 0 "y: f32 \[6, 2\]" \
  -- "$SY" run "$TMP/dyn.json" --input x=random --input m=random
expect "run --input-shape" 0 "y: f32 \\[20, 2\\]" \
  -- "$SY" run "$TMP/dyn.json" --input x=random --input m=random --input-shape x=4,5,4 --input-shape m=4,5
expect "run --input-shape disagreeing" 1 "inputs 'x' and 'm' disagree on batch: 4 \\(dim 0 of 'x'\\) and 3" \
  -- "$SY" run "$TMP/dyn.json" --input x=random --input m=random --input-shape x=4,5,4 --input-shape m=3,5
expect "run without inputs names the symbols" 1 'missing input "x" \(f32 \[batch, seq, 4\]\)' \
  -- "$SY" run "$TMP/dyn.json"
# bench and compare make random data for inputs given no value, at --input-shape
# (docs/dynamic-shapes.md); run does so only for --input NAME=random (above).
expect "run --input-shape alone still asks for the input" 1 'missing input "x" \(f32 \[batch, seq, 4\]\)' \
  -- "$SY" run "$TMP/dyn.json" --input-shape x=4,5,4 --input-shape m=4,5
expect "compare fills inputs at --input-shape" 0 "node 1 \(reshape\) on cpu:0: y f32 \[20, 2\]" \
  -- "$SY" compare "$TMP/dyn.json" --device cpu --input-shape x=4,5,4 --input-shape m=4,5
expect "bench fills inputs at --input-shape" 1 "bench: inputs 'x' and 'm' disagree on batch: 4 \(dim 0 of 'x'\) and 3" \
  -- "$SY" bench "$TMP/dyn.json" --repeat 1 --input-shape x=4,5,4 --input-shape m=3,5
expect "bench fills inputs at the examples" 0 "no value given for x, m \(no --input, no <model>/inputs file\): using seeded random data" \
  -- "$SY" bench "$TMP/dyn.json" --repeat 1
# A device that runs executables at other sizes (SY_DEVICE_FLAG_RESIZABLE): one prepare
# serves every shape (docs/plugin-abi.md, "Executables that run at other sizes").
zeros_npy() {  # zeros_npy "(2, 3)" 6: an f32 .npy of zeros with the header NumPy writes
  printf '\x93NUMPY\x01\x00\x76\x00'
  local dict="{'descr': '<f4', 'fortran_order': False, 'shape': $1, }"
  printf '%s' "$dict"; printf '%*s' $((127 - 10 - ${#dict})) ''; printf '\n'
  head -c $(($2 * 4)) /dev/zero
}
cat >"$TMP/dyn_relu.json" <<'JSON'
{"format": "rml-graph", "version": 1,
 "symbols": [{"name": "batch", "example": 2}, {"name": "seq", "example": 3}],
 "values": [{"name": "x", "dtype": "f32", "shape": ["batch", "seq"]},
            {"name": "y", "dtype": "f32", "shape": ["batch", "seq"]}],
 "inputs": [0], "outputs": [1],
 "nodes": [{"op": "relu", "inputs": [0], "outputs": [1]}]}
JSON
for shape in "1 2" "2 5" "3 1"; do
  set -- $shape
  mkdir -p "$TMP/dyn_runs/$1x$2/inputs"
  zeros_npy "($1, $2)" $(($1 * $2)) >"$TMP/dyn_runs/$1x$2/inputs/x.npy"
done
expect "run --run-dir on a resizable device prepares once" 0 \
  "3 runs: 4 specialisations built, 0 runs from the cache, 0 evicted; 1 partitions prepared, 3 run on an executable prepared for other sizes" \
  -- "$SY" run "$TMP/dyn_relu.json" --device cpu-ref --run-dir "$TMP/dyn_runs/1x2" \
  --run-dir "$TMP/dyn_runs/2x5" --run-dir "$TMP/dyn_runs/3x1"
# Decoding state (docs/decoding.md): k [1, 4, 2] kept between runs, appended in place.
cat >"$TMP/state.json" <<'JSON'
{"format": "rml-graph", "version": 1,
 "values": [{"name": "x", "dtype": "f32", "shape": [1, 1, 2]},
            {"name": "pos", "dtype": "i64", "shape": []},
            {"name": "k", "dtype": "f32", "shape": [1, 4, 2]},
            {"name": "k_next", "dtype": "f32", "shape": [1, 4, 2]},
            {"name": "sum", "dtype": "f32", "shape": [1, 2]}],
 "inputs": [0, 1, 2], "outputs": [4, 3],
 "nodes": [{"op": "cache_write", "inputs": [2, 0, 1], "outputs": [3], "attrs": {"axis": 1}},
           {"op": "reduce_sum", "inputs": [3], "outputs": [4], "attrs": {"axes": [1], "keepdims": 0}}],
 "state": {"values": [{"input": 2, "output": 3, "axis": 1}], "position": 1,
           "advance": {"input": 0, "axis": 1}}}
JSON
expect "check shows the decoding state" 0 "decoding state: k \(capacity 4\)" -- "$SY" check "$TMP/state.json"
expect "plan shows where the state lives" 0 'value 2 "k" f32 \[1, 4, 2\] on cpu:0, capacity 4 along axis 1: written in place by cache_write' \
  -- "$SY" plan "$TMP/state.json"
expect "run takes only the caller's inputs" 0 "sum: f32 \[1, 2\]" -- "$SY" run "$TMP/state.json" --input x=random
expect "run refuses the state as an input" 1 '--input k: the model has no input "k" \(its inputs: x\)' \
  -- "$SY" run "$TMP/state.json" --input x=random --input k=random
expect "bench starts a new sequence when the state is full" 0 "over 20 runs" \
  -- "$SY" bench "$TMP/state.json" --input x=random
# generate (docs/decoding.md): the toy decoder of tools/make_toy_decoder.py, whose NumPy
# reference wrote the expected continuations of the prompt 1,2,3.
DEC="$SRC/tests/data/decoder/model.json"
for dev in cpu cpu-ref; do
  expect "generate greedy on $dev matches NumPy" 0 "\"tokens\":\\[$(cat "$SRC/tests/data/decoder/greedy_1_2_3.txt")\\]" \
    -- "$SY" generate "$DEC" --prompt 1,2,3 --max-new-tokens 12 --device "$dev" --json
done
if [ -f "$OPENCL" ] && "$SY" devices | grep -q "^opencl:0"; then
  # The cache's readers split across devices (a hint puts the transpose of the keys on the
  # cpu): the state stays on opencl:0 and its next contents are copied to the cpu.
  sed 's/"op": "transpose",/"op": "transpose", "backend": "cpu",/' "$DEC" >"$TMP/dec_split.json"
  expect "generate with the cache read on two devices matches NumPy" 0 \
    "^$(cat "$SRC/tests/data/decoder/greedy_1_2_3.txt")\$" \
    -- "$SY" generate "$TMP/dec_split.json" --prompt 1,2,3 --max-new-tokens 12 --device opencl,cpu
  expect "generate greedy on opencl (state on the device) matches NumPy" 0 \
    "\"tokens\":\\[$(cat "$SRC/tests/data/decoder/greedy_1_2_3.txt")\\],\"prompt_tokens\":3,\"device\":\"opencl:0\"" \
    -- "$SY" generate "$DEC" --prompt 1,2,3 --max-new-tokens 12 --device opencl --json
fi
expect "generate top-k sampling matches NumPy" 0 "^$(cat "$SRC/tests/data/decoder/top_k4_t0.8_seed7_1_2_3.txt")\$" \
  -- "$SY" generate "$DEC" --prompt 1,2,3 --max-new-tokens 12 --sample top-k --top-k 4 --temperature 0.8 --seed 7
# --seed is 0 to 2^64 - 1 as Python's seed is: -1 was wrapped to 4294967295.
expect "generate --seed -1 is refused" 2 "--seed -1: expected a whole number from 0 to 2\^64 - 1" \
  -- "$SY" generate "$DEC" --prompt 1,2,3 --sample top-k --top-k 4 --seed -1
expect "generate --seed 2^64 - 1" 0 "" \
  -- "$SY" generate "$DEC" --prompt 1,2,3 --sample top-k --top-k 4 --seed 18446744073709551615
expect "run --seed 1e3 is refused" 2 "--seed 1e3: expected a whole number" \
  -- "$SY" run "$SRC/examples/mlp" --input x=random --seed 1e3
expect "compare a stateful model with run-time sizes (state as ordinary inputs)" 0 \
  "all 17 nodes within their ops' conformance tolerances" \
  -- "$SY" compare "$DEC" --device cpu --input-shape input_ids=1,3
expect "generate: a token outside the vocabulary" 1 "prompt token 16 is outside the vocabulary \\(0 to 15\\)" \
  -- "$SY" generate "$DEC" --prompt 1,16
expect "generate: past the capacity" 1 "the prompt's 30 tokens and 8 new ones need 37 positions, but the model's state holds 32" \
  -- "$SY" generate "$DEC" --prompt "$(seq -s, 0 29 | sed 's/[0-9]*/1/g')" --max-new-tokens 8
expect "generate: a model without state" 1 "keeps no decoding state" \
  -- "$SY" generate "$SRC/examples/mlp" --prompt 1
expect "generate: a bad sampler option" 2 "attribute temperature" \
  -- "$SY" generate "$DEC" --prompt 1 --sample temperature --temperature 0
expect "generate: a malformed prompt" 2 '"x" is not a token id' -- "$SY" generate "$DEC" --prompt 1,x
# End tokens (a model's EOS ids, state.end_tokens): generate stops after the first one it
# picks (7, the third greedy token), unless --ignore-eos.
sed 's/^ "state": {$/ "state": {"end_tokens": [7],/' "$DEC" > "$TMP/dec_eos.json"
expect "generate stops at an end token" 0 "^14,1,7\$" \
  -- "$SY" generate "$TMP/dec_eos.json" --prompt 1,2,3 --max-new-tokens 12
expect "generate --json says why it stopped" 0 '"tokens":\[14,1,7\].*"stopped":"end_token"' \
  -- "$SY" generate "$TMP/dec_eos.json" --prompt 1,2,3 --max-new-tokens 12 --json
expect "generate --ignore-eos goes on" 0 "^$(cat "$SRC/tests/data/decoder/greedy_1_2_3.txt")\$" \
  -- "$SY" generate "$TMP/dec_eos.json" --prompt 1,2,3 --max-new-tokens 12 --ignore-eos
expect "generate: more prompts than the model's sequences" 1 "2 prompts, but the model decodes 1 sequences at once" \
  -- "$SY" generate "$DEC" --prompt 1,2,3 --prompt 4
sed 's/^ "state": {$/ "state": {"end_tokens": [99],/' "$DEC" > "$TMP/dec_eos99.json"
expect "generate: an end token outside the vocabulary" 1 "end token 99 \\(state.end_tokens\\) is outside its vocabulary of 16" \
  -- "$SY" generate "$TMP/dec_eos99.json" --prompt 1,2,3
expect "--max-specializations range" 2 "--max-specializations 0: expected 1 to 1024" \
  -- "$SY" run "$TMP/dyn.json" --max-specializations 0

# Names with control characters are printed escaped: none can forge a line of output.
cat > "$TMP/ctrl.json" <<'JSON'
{"format": "rml-graph", "version": 1,
 "values": [{"name": "x\nfake: ok", "dtype": "f32", "shape": [2]},
            {"name": "y\u001b[2K", "dtype": "f32", "shape": [2]}],
 "inputs": [0], "outputs": [1], "constants": [],
 "nodes": [{"op": "relu", "inputs": [0], "outputs": [1], "name": "n\nok: forged"}]}
JSON
expect "check escapes value names" 0 'inputs: x\\nfake: ok f32 \[2\]; outputs: y\\x1B\[2K' \
  -- "$SY" check "$TMP/ctrl.json"
expect "plan escapes node names" 0 'node 0 \(relu\) "n\\nok: forged" -> cpu:0' \
  -- "$SY" plan "$TMP/ctrl.json"
for cmd in check plan; do
  if "$SY" $cmd "$TMP/ctrl.json" 2>&1 | grep -Eq '^(fake: ok|ok: forged)'; then
    echo "FAIL $cmd prints a forged line"; failures=$((failures + 1))
  else passes=$((passes + 1)); fi
done
# The same names in the errors of run and bench: the session's (missing, unknown, wrong
# type) and the CLI's own (--input). An f64 [2] .npy for the wrong type:
{ printf '\x93NUMPY\x01\x00\x76\x00'
  dict="{'descr': '<f8', 'fortran_order': False, 'shape': (2,), }"
  printf '%s' "$dict"; printf '%*s' $((127 - 10 - ${#dict})) ''; printf '\n'
  head -c 16 /dev/zero; } >"$TMP/f64x2.npy"
# A dynamic model's inputs are checked by the specialising session.
sed 's/"name": "x\\nfake: ok", "dtype": "f32", "shape": \[2\]/"name": "x\\nfake: ok", "dtype": "f32", "shape": ["n"]/; s/"name": "y\\u001b\[2K", "dtype": "f32", "shape": \[2\]/"name": "y\\u001b[2K", "dtype": "f32", "shape": ["n"]/; s/^{"format": "rml-graph", "version": 1,$/&\n "symbols": [{"name": "n", "example": 2}],/' \
  "$TMP/ctrl.json" >"$TMP/ctrl_dyn.json"
nl_name=$'x\nfake: ok'
esc_name=$'q\e[2K'
forged() {  # forged NAME COMMAND...: fails when the command prints a line "fake: ok"
  local name=$1
  shift
  if "$@" 2>&1 | grep -Eq '^fake: ok'; then
    echo "FAIL $name prints a forged line"; failures=$((failures + 1))
  else passes=$((passes + 1)); fi
}
expect "run: missing input escapes its name" 1 'run: missing input "x\\nfake: ok" \(f32 \[2\]\)' \
  -- "$SY" run "$TMP/ctrl.json"
forged "run: missing input" "$SY" run "$TMP/ctrl.json"
expect "run: missing dynamic input escapes its name" 1 'run: missing input "x\\nfake: ok" \(f32 \[n\]\)' \
  -- "$SY" run "$TMP/ctrl_dyn.json"
forged "run: missing dynamic input" "$SY" run "$TMP/ctrl_dyn.json"
for cmd in run bench; do
  expect "$cmd: --input that cannot be opened escapes its name" 1 \
    "$cmd: --input x\\\\nfake: ok: cannot open $TMP/none.npy" \
    -- "$SY" $cmd "$TMP/ctrl.json" --input "$nl_name=$TMP/none.npy"
  forged "$cmd: --input that cannot be opened" "$SY" $cmd "$TMP/ctrl.json" --input "$nl_name=$TMP/none.npy"
done
expect "run: --input of no input escapes both names" 1 \
  'run: --input q\\x1B\[2K: the model has no input "q\\x1B\[2K" \(its inputs: x\\nfake: ok\)' \
  -- "$SY" run "$TMP/ctrl.json" --input "$esc_name=random"
forged "run: --input of no input" "$SY" run "$TMP/ctrl.json" --input "$esc_name=random"
expect "run: input of the wrong type escapes its name" 1 \
  'run: input "x\\nfake: ok" is f64 \[2\] but the model expects f32 \[2\]' \
  -- "$SY" run "$TMP/ctrl.json" --input "$nl_name=$TMP/f64x2.npy"
forged "run: input of the wrong type" "$SY" run "$TMP/ctrl.json" --input "$nl_name=$TMP/f64x2.npy"
expect "run: dynamic input of the wrong type escapes its name" 1 \
  'run: input "x\\nfake: ok" is f64 \[2\] but the model expects f32 \[n\]' \
  -- "$SY" run "$TMP/ctrl_dyn.json" --input "$nl_name=$TMP/f64x2.npy"
forged "run: dynamic input of the wrong type" "$SY" run "$TMP/ctrl_dyn.json" --input "$nl_name=$TMP/f64x2.npy"

# A graph with no nodes (its output is its input) says so instead of "ran on  in".
cat > "$TMP/no_nodes.json" <<'JSON'
{"format": "rml-graph", "version": 1, "values": [{"name": "x", "dtype": "f32", "shape": [2]}],
 "inputs": [0], "outputs": [0], "constants": [], "nodes": []}
JSON
expect "run a graph without nodes" 0 "ran on no device \(the graph has no nodes to run\)" \
  -- "$SY" run "$TMP/no_nodes.json" --input x=random

# Random data that cannot be allocated is an error, not an abort (issue: bad_variant_access).
# (Not under AddressSanitizer, whose shadow memory cannot be mapped under ulimit -v.)
if bash -c "ulimit -v 2000000; '$SY' ops >/dev/null 2>&1"; then
  expect "random input beyond memory: run" 1 "random data for f32 \[600000000\]: cannot allocate" \
    -- bash -c "ulimit -v 2000000; '$SY' run '$SRC/examples/mlp' --input x=random --input-shape x=600000000"
  expect "random input beyond memory: bench" 1 "random data for f32 \[600000000\]: cannot allocate" \
    -- bash -c "ulimit -v 2000000; '$SY' bench '$SRC/examples/mlp' --input x=random --input-shape x=600000000"
else
  echo "note: no ulimit -v runs for this build (a sanitizer's shadow memory needs more)"
fi

# quantize: weights on each block's grid are kept exactly, so the quant_matmul graph gives
# the f32 graph's outputs bit for bit. w [32, 2] in 4-bit blocks of 16 with zero points:
# column 0 is 0..15 then 7.5 down to 0 in steps of 0.5 (scales 1 and 0.5, zero point 0),
# column 1 is -15..0 twice (scale 1, zero point 15). x: a row of ones, a row of l % 3.
w_data=$(for l in $(seq 0 31); do
  if [ "$l" -lt 16 ]; then c0=$l; else c0=$(awk "BEGIN{print (31-$l)*0.5}"); fi
  c1=$(( l < 16 ? l - 15 : l - 31 ))
  printf '%s, %s, ' "$c0" "$c1"; done | sed 's/, $//')
x_data=$( (for l in $(seq 0 31); do printf '1, '; done; for l in $(seq 0 31); do printf '%s, ' $(( l % 3 )); done) | sed 's/, $//')
cat > "$TMP/grid.json" <<JSON
{"format": "rml-graph", "version": 1,
 "values": [{"name": "x", "dtype": "f32", "shape": [2, 32]},
            {"name": "w", "dtype": "f32", "shape": [32, 2]},
            {"name": "y", "dtype": "f32", "shape": [2, 2]}],
 "inputs": [0], "outputs": [2],
 "constants": [{"value": 1, "data": [$w_data]}],
 "nodes": [{"op": "matmul", "inputs": [0, 1], "outputs": [2], "name": "fc"}]}
JSON
cat > "$TMP/grid_x.json" <<JSON
{"format": "rml-graph", "version": 1,
 "values": [{"name": "c", "dtype": "f32", "shape": [2, 32]},
            {"name": "x", "dtype": "f32", "shape": [2, 32]}],
 "inputs": [], "outputs": [1],
 "constants": [{"value": 0, "data": [$x_data]}],
 "nodes": [{"op": "relu", "inputs": [0], "outputs": [1]}]}
JSON
expect "quantize test input" 0 "x: f32 \[2, 32\]" \
  -- "$SY" run "$TMP/grid_x.json" --device cpu-ref --out "$TMP/grid_in"
expect "quantize test reference" 0 "y: f32 \[2, 2\]" \
  -- "$SY" run "$TMP/grid.json" --device cpu-ref --input "x=$TMP/grid_in/x.npy" --out "$TMP/grid_f32"
expect "quantize 4-bit on the grid: no error" 0 'node 0 \(quant_matmul\) "fc": \[32, 2\] relative RMS error 0, max \|error\| 0' \
  -- "$SY" quantize "$TMP/grid.json" -o "$TMP/grid_q4" --block 16
expect "quantize: the summary" 0 "1 of 1 matmuls quantized \(4-bit blocks of 16, zero points\)" \
  -- "$SY" quantize "$TMP/grid.json" -o "$TMP/grid_q4" --block 16
for dev in cpu cpu-ref opencl; do
  expect "quantized graph equals the f32 one exactly on $dev" 0 "y: .* matches" \
    -- "$SY" run "$TMP/grid_q4" --device "$dev" --input "x=$TMP/grid_in/x.npy" \
       --compare "$TMP/grid_f32" --rtol 0 --atol 0
done
# The same weights as a gemm's b [2, 32] with trans_b, alpha 2 (folded into the weights),
# beta 0.5 on a constant c (folded into c, added after): powers of two keep it exact.
w_t=$(for j in 0 1; do for l in $(seq 0 31); do
  if [ "$j" = 0 ]; then if [ "$l" -lt 16 ]; then v=$l; else v=$(awk "BEGIN{print (31-$l)*0.5}"); fi
  else v=$(( l < 16 ? l - 15 : l - 31 )); fi; printf '%s, ' "$v"; done; done | sed 's/, $//')
cat > "$TMP/grid_gemm.json" <<JSON
{"format": "rml-graph", "version": 1,
 "values": [{"name": "x", "dtype": "f32", "shape": [2, 32]},
            {"name": "w", "dtype": "f32", "shape": [2, 32]},
            {"name": "c", "dtype": "f32", "shape": [2]},
            {"name": "y", "dtype": "f32", "shape": [2, 2]}],
 "inputs": [0], "outputs": [3],
 "constants": [{"value": 1, "data": [$w_t]}, {"value": 2, "data": [1, -3]}],
 "nodes": [{"op": "gemm", "inputs": [0, 1, 2], "outputs": [3], "name": "fc",
            "attrs": {"trans_b": 1, "alpha": 2.0, "beta": 0.5}}]}
JSON
expect "quantize gemm reference" 0 "y: f32 \[2, 2\]" \
  -- "$SY" run "$TMP/grid_gemm.json" --device cpu-ref --input "x=$TMP/grid_in/x.npy" --out "$TMP/gemm_f32"
expect "quantize a gemm with trans_b, alpha, beta and c" 0 'node 0 \(quant_matmul\) "fc": \[32, 2\] relative RMS error 0, max \|error\| 0' \
  -- "$SY" quantize "$TMP/grid_gemm.json" -o "$TMP/gemm_q4" --block 16
for dev in cpu cpu-ref opencl; do
  expect "quantized gemm equals the f32 one exactly on $dev" 0 "y: .* matches" \
    -- "$SY" run "$TMP/gemm_q4" --device "$dev" --input "x=$TMP/grid_in/x.npy" \
       --compare "$TMP/gemm_f32" --rtol 0 --atol 0
done
expect "quantize int8 symmetric --json" 0 '"bits":8,"block_size":32,"symmetric":true,.*"relative_rms_error":' \
  -- "$SY" quantize "$SRC/examples/mlp" -o "$TMP/mlp_q8" --weights int8 --symmetric --json
expect "quantized mlp checks" 0 "ok: .* nodes" -- "$SY" check "$TMP/mlp_q8"
expect "quantize bad --weights" 2 "--weights int3: expected int4 or int8" \
  -- "$SY" quantize "$SRC/examples/mlp" -o "$TMP/x" --weights int3
expect "quantize bad --block" 2 "block size 24: expected a power of two from 16 to 256" \
  -- "$SY" quantize "$SRC/examples/mlp" -o "$TMP/x" --block 24
expect "quantize without -o" 2 "expected -o OUT" -- "$SY" quantize "$SRC/examples/mlp"
expect "quantize a missing model" 1 "nope.json: cannot open" -- "$SY" quantize "$TMP/nope" -o "$TMP/x"
# convert: the single-file model (docs/format.md), both ways, bit for bit; every command
# takes either encoding.
for name in mlp cnn transformer; do
  mkdir -p "$TMP/one/$name" && cp -r "$SRC/examples/$name/inputs" "$SRC/examples/$name/expected" "$TMP/one/$name/"
  expect "convert $name to one file" 0 "$name.symodel: converted .*$name.json" \
    -- "$SY" convert "$SRC/examples/$name" -o "$TMP/one/$name/$name.symodel"
  expect "run $name from one file (its folder)" 0 "matches" \
    -- "$SY" run "$TMP/one/$name" --compare "$TMP/one/$name/expected"
  expect "convert $name back to JSON" 0 "back_$name.json: converted .*$name.symodel" \
    -- "$SY" convert "$TMP/one/$name/$name.symodel" -o "$TMP/one/back_$name"
  expect "convert $name to one file again" 0 "converted" \
    -- "$SY" convert "$TMP/one/back_$name" -o "$TMP/one/again_$name.symodel"
  expect "the round trip is bit-exact ($name)" 0 "" \
    -- cmp "$TMP/one/$name/$name.symodel" "$TMP/one/again_$name.symodel"
done
expect "check a single file" 0 "mlp.symodel: ok: 15 values, 8 nodes, 6 constants" \
  -- "$SY" check "$TMP/one/mlp/mlp.symodel"
expect "check a single file by its stem" 0 "mlp.symodel: ok" -- "$SY" check "$TMP/one/mlp/mlp"
expect "plan a single file" 0 "mlp.symodel: 3 nodes" -- "$SY" plan "$TMP/one/mlp/mlp.symodel"
expect "bench a single file" 0 "median" -- "$SY" bench "$TMP/one/mlp/mlp.symodel" --warmup 1 --repeat 2
expect "compare a single file" 0 "mlp.symodel on cpu" -- "$SY" compare "$TMP/one/mlp/mlp.symodel" --device cpu
expect "convert --json" 0 '^\{"model":".*mlp.json","output":".*m2.symodel","nodes":8,"constants":6,"weight_bytes":2192,"load_ms":' \
  -- "$SY" convert "$SRC/examples/mlp" -o "$TMP/one/m2.symodel" --json
expect "quantize writes one file" 0 "q.symodel" \
  -- "$SY" quantize "$SRC/examples/mlp" -o "$TMP/one/q.symodel"
expect "a quantized single file checks" 0 "q.symodel: ok" -- "$SY" check "$TMP/one/q.symodel"
printf 'SYMODEL\0garbage' >"$TMP/one/bad.symodel"
expect "check a truncated single file" 1 "bad.symodel: the file is 15 bytes, shorter than the 64-byte header" \
  -- "$SY" check "$TMP/one/bad.symodel"
head -c 300 "$TMP/one/mlp/mlp.symodel" >"$TMP/one/cut.symodel"
expect "run a cut single file" 1 "cut.symodel: byte 16: the graph section" \
  -- "$SY" run "$TMP/one/cut.symodel"
expect "convert without -o" 2 "expected -o OUT" -- "$SY" convert "$SRC/examples/mlp"
expect "convert a missing model" 1 "nope.json: cannot open" -- "$SY" convert "$TMP/nope" -o "$TMP/x.symodel"
expect "convert --help" 0 "usage: switchyard convert" -- "$SY" convert --help
expect "--help" 0 "commands:" -- "$SY" --help
expect "--version" 0 "^switchyard [0-9]+\.[0-9]+\.[0-9]+" -- "$SY" --version

echo "$passes passed, $failures failed"
[ "$failures" = 0 ]
