#!/usr/bin/env bash
# `switchyard conformance` end to end: the CPU plugin and the working test plugins
# conform; the misbehaving test plugin's crash, hang, wrong value and out-of-bounds write
# are each detected and reported while the run goes on; expectations, JUnit and errors.
# usage: conformance_test.sh PATH_TO_SWITCHYARD SOURCE_DIR
set -u
SY=$1
SRC=$2
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
TP="$(dirname "$SY")/../test_plugins"
# expect NAME WANT_EXIT PATTERN -- COMMAND... (tests/cli/expect.sh)
source "$(dirname "$0")/expect.sh"

# The CPU plugin's fast device against cpu-ref: every case of the catalogue.
expect "cpu conforms" 0 "^[0-9]+ passed, 0 failed, [0-9]+ skipped$" \
  -- "$SY" conformance --plugin cpu --junit "$TMP/cpu.xml"
grep -q '<testsuite name="conv"' "$TMP/cpu.xml" && passes=$((passes + 1)) || {
  echo "FAIL cpu JUnit has no conv suite"; failures=$((failures + 1)); }

# The scheduler's test plugins: partial declines most ops (unsupported, with reasons);
# remote keeps its buffers out of host reach and must still pass everything it runs.
expect "partial conforms" 0 "^[0-9]+ passed, 0 failed, [0-9]+ skipped$" \
  -- "$SY" conformance --plugin "$TP/partial/libswitchyard_test_partial.so" --scope mandatory
expect "remote conforms" 0 "^[0-9]+ passed, 0 failed, [0-9]+ skipped$" \
  -- "$SY" conformance --plugin "$TP/remote/libswitchyard_test_remote.so" --scope mandatory \
  --ops api,add,matmul,conv,gather,softmax,layer_norm,reduce_sum,transpose,concat,where

# The OpenCL plugin, when built and a device exists (PoCL in CI), with its expectations.
OPENCL="$(dirname "$SY")/../lib/switchyard/plugins/libswitchyard_opencl.so"
if [ -f "$OPENCL" ] && "$SY" devices | grep -q "^opencl:0"; then
  expect "opencl conforms" 0 "^[0-9]+ passed, 0 failed, [0-9]+ skipped$" \
    -- "$SY" conformance --plugin "$OPENCL" --scope mandatory \
    --expectations "$SRC/plugins/opencl/conformance-expectations.txt"
else
  echo "note: no OpenCL device; its conformance run is skipped"
fi

# The CUDA plugin, when built: with a GPU, the suite with its expectations (if it has
# them); without one, the run skips every case with the plugin's reason and succeeds.
CUDA="$(dirname "$SY")/../lib/switchyard/plugins/libswitchyard_cuda.so"
if [ -f "$CUDA" ] && "$SY" devices | grep -q "^cuda:0"; then
  CUDA_EXPECT=()
  [ -f "$SRC/plugins/cuda/conformance-expectations.txt" ] &&
    CUDA_EXPECT=(--expectations "$SRC/plugins/cuda/conformance-expectations.txt")
  expect "cuda conforms" 0 "^[0-9]+ passed, 0 failed, [0-9]+ skipped$" \
    -- "$SY" conformance --plugin "$CUDA" --scope mandatory "${CUDA_EXPECT[@]}"
elif [ -f "$CUDA" ]; then
  expect "cuda without a device skips" 0 "^every case skipped: .*no devices: no CUDA device" \
    -- "$SY" conformance --plugin cuda --ops api,add,relu
  expect "cuda without a device: summary" 0 "^0 passed, 0 failed, [1-9][0-9]* skipped$" \
    -- "$SY" conformance --plugin "$CUDA" --ops add
  expect "cuda without a device: JSON" 0 '"passed":0,"failed":0,"skipped":[1-9]' \
    -- "$SY" conformance --plugin "$CUDA" --ops add --json
  echo "note: no CUDA device; the CUDA conformance run is skipped"
fi

# The misbehaving plugin: each kind of failure is recorded and the run goes on.
MIS="$TP/misbehaving/libswitchyard_test_misbehaving.so"
"$SY" conformance --plugin "$MIS" --ops add,mul,neg,abs,relu,sigmoid,tanh \
  --cases 'f32 scalar*' --timeout 2 --junit "$TMP/mis.xml" >"$TMP/mis.txt" 2>&1
rc=$?
check() {  # check NAME PATTERN: the misbehaving run's output matches
  if grep -Eq -- "$2" "$TMP/mis.txt"; then passes=$((passes + 1)); else
    echo "FAIL misbehaving: $1 (no /$2/)"; tail -30 "$TMP/mis.txt"; failures=$((failures + 1)); fi
}
[ "$rc" = 1 ] && passes=$((passes + 1)) || { echo "FAIL misbehaving exit $rc, expected 1"; failures=$((failures + 1)); }
check "crash recorded" '^crashed: neg "f32 .*": the worker was killed by signal'
check "hang recorded" '^hung: abs "f32 .*": no result after 2 s'
check "wrong value found" '^fail: relu "f32 .*": 1 of [0-9]+ elements differ; first at 0'
check "write past the output found" '^fail: sigmoid "f32 .*": wrote outside its output buffer: output 0: byte [0-9]+'
check "correct ops pass" '^add +[1-9][0-9]* +0 +0 '
check "declined ops are unsupported" '^tanh +0 +0 +[1-9]'
check "summary line" '^[0-9]+ passed, [0-9]+ failed, [0-9]+ skipped$'
grep -q '<failure type="crashed"' "$TMP/mis.xml" && grep -q '<failure type="hung"' "$TMP/mis.xml" &&
  grep -q '<skipped message="unsupported' "$TMP/mis.xml" && passes=$((passes + 1)) || {
  echo "FAIL misbehaving JUnit"; head -30 "$TMP/mis.xml"; failures=$((failures + 1)); }

# A plugin that forks a child holding the worker's pipe open, then crashes
# (fork_and_crash_in_execute): the parent watches the worker process, not only the pipe,
# so the case is crashed at once, not hung at the timeout, and the child is ended with the
# worker's process group (gone, or a zombie its new parent has not reaped).
FORKER="$TP/fork_and_crash_in_execute/libswitchyard_test_fork_and_crash_in_execute.so"
started=$SECONDS
expect "crash while a forked child holds the pipe" 1 \
  '^crashed: neg "f32 .*": the worker was killed by signal' \
  -- env SY_TEST_FORKED_PID_FILE="$TMP/forked.pid" "$SY" conformance --plugin "$FORKER" \
  --ops neg --cases 'f32 scalar*' --timeout 30
if [ $((SECONDS - started)) -lt 20 ]; then passes=$((passes + 1)); else
  echo "FAIL the forked child's crash took $((SECONDS - started)) s"; failures=$((failures + 1)); fi
forked=$(cat "$TMP/forked.pid" 2>/dev/null)
sleep 0.2
if [ -n "$forked" ] && { ! kill -0 "$forked" 2>/dev/null ||
  [ "$(awk '{print $3}' "/proc/$forked/stat" 2>/dev/null)" = Z ]; }; then
  passes=$((passes + 1))
else
  echo "FAIL the plugin's forked child (pid '$forked') outlived the conformance worker"
  failures=$((failures + 1))
fi

# Expectations: listed failures become expected failures; a listed pass is unexpected.
cat >"$TMP/expect.txt" <<'TXT'
# known problems of the misbehaving plugin
relu f32 scal*: adds one to the first element on purpose
add f32 *: claimed broken, but it works
TXT
expect "expectations" 1 '^unexpected pass: add "f32 .*": passes, but expectations line 3' \
  -- "$SY" conformance --plugin "$MIS" --ops add,relu --cases 'f32 scalar*' --expectations "$TMP/expect.txt"
grep -v '^add' "$TMP/expect.txt" >"$TMP/expect2.txt"
expect "expected failures only" 0 '^[0-9]+ passed, 0 failed, [1-9][0-9]* skipped$' \
  -- "$SY" conformance --plugin "$MIS" --ops add,relu --cases 'f32 scalar*' --expectations "$TMP/expect2.txt"
expect "--json" 1 '"failed":[1-9][0-9]*,.*"outcome":"fail"' \
  -- "$SY" conformance --plugin "$MIS" --ops relu --cases 'f32 scalar*' --json

# Command-line errors.
expect "no --plugin" 2 "--plugin is required" -- "$SY" conformance
expect "unknown op" 2 'unknown op "nope"' -- "$SY" conformance --plugin cpu --ops nope
expect "bad scope" 2 "--scope must be mandatory or all" -- "$SY" conformance --plugin cpu --scope some
expect "missing plugin file" 1 "no such file" -- "$SY" conformance --plugin "$TMP/none.so"
expect "unknown plugin name" 1 'no loaded plugin of that name' -- "$SY" conformance --plugin nosuch
printf 'relu\n' >"$TMP/bad.txt"
expect "malformed expectations" 2 'bad.txt:1: expected "<op glob> <label glob>: <reason>"' \
  -- "$SY" conformance --plugin cpu --ops relu --expectations "$TMP/bad.txt"
expect "not a plugin" 1 "failed" -- "$SY" conformance --plugin "$SRC/README.md" --ops api
expect "--help" 0 "usage: switchyard conformance" -- "$SY" conformance --help

echo "$passes passed, $failures failed"
[ "$failures" = 0 ]
