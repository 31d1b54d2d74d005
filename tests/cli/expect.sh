# Shared by the shell tests (cli_test.sh, conformance_test.sh, tests/sdk/install_test.sh);
# sourced, with `failures` and `passes` counters the caller reports at the end.
failures=0
passes=0

# expect NAME WANT_EXIT PATTERN -- COMMAND...: runs COMMAND, checks its exit code and that
# stdout+stderr matches the extended regex PATTERN; on a mismatch prints the output.
expect() {
  local name=$1 want=$2 pattern=$3
  shift 4
  local out rc
  out=$("$@" 2>&1)
  rc=$?
  if [ "$rc" != "$want" ]; then
    echo "FAIL $name: exit $rc, expected $want"; echo "$out" | tail -30
    failures=$((failures + 1)); return
  fi
  if ! grep -Eq -- "$pattern" <<<"$out"; then
    echo "FAIL $name: output does not match /$pattern/"; echo "$out" | tail -30
    failures=$((failures + 1)); return
  fi
  passes=$((passes + 1))
}
