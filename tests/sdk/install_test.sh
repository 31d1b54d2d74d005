#!/usr/bin/env bash
# The installed SDK end to end, as a vendor meets it:
#   1. `cmake --install BUILD_DIR` into a temporary prefix; the layout is complete and
#      holds no test plugins or test programs;
#   2. the installed CLI finds the installed CPU plugin and runs a bundled example;
#   3. sdk/examples/vendor_plugin is configured and built out of tree against that prefix
#      only (find_package(Switchyard) + switchyard_add_plugin), then loaded by the
#      installed CLI through SWITCHYARD_PLUGIN_PATH: listed, its device shown, its model
#      planned across vendor:0 and cpu:0 and run against NumPy's expected outputs; a
#      C-only project builds a plugin with the same package;
#   4. a host application is built against Switchyard::runtime from the prefix and runs
#      the same model;
#   5. every plugin (installed, the vendor's, and the build tree's, test plugins
#      included) exports exactly sy_plugin_query.
# usage: install_test.sh BUILD_DIR SOURCE_DIR
set -u
if [ $# -ne 2 ]; then
  echo "usage: $0 BUILD_DIR SOURCE_DIR" >&2
  exit 2
fi
BUILD=$(cd "$1" && pwd)
SRC=$(cd "$2" && pwd)
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
PREFIX=$TMP/prefix
# expect NAME WANT_EXIT PATTERN -- COMMAND... (tests/cli/expect.sh)
source "$SRC/tests/cli/expect.sh"
# check NAME COMMAND...: passes when COMMAND exits 0.
check() {
  local name=$1
  shift
  if "$@"; then passes=$((passes + 1)); else echo "FAIL $name"; failures=$((failures + 1)); fi
}
# fatal MESSAGE LOG: a step the rest depends on failed.
fatal() {
  echo "FAIL $1"; tail -40 "$2"
  echo "$passes passed, $((failures + 1)) failed"
  exit 1
}
# exports_only_entry FILE: the plugin's dynamic symbol table defines sy_plugin_query only.
exports_only_entry() {
  local exported
  exported=$(nm -D --defined-only "$1" | awk '{print $3}' | sort | tr '\n' ' ')
  if [ "$exported" = "sy_plugin_query " ]; then passes=$((passes + 1)); else
    echo "FAIL $1 exports: $exported"; failures=$((failures + 1)); fi
}

cache_value() { sed -n "s/^$1:[A-Z]*=//p" "$BUILD/CMakeCache.txt"; }
CXX_COMPILER=$(cache_value CMAKE_CXX_COMPILER)
SANITIZE=$(cache_value SY_SANITIZE)
GENERATOR=()
command -v ninja >/dev/null && GENERATOR=(-G Ninja)
# Out-of-tree builds: the prefix is the only place a Switchyard package may come from.
CONFIGURE=(cmake "${GENERATOR[@]}" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER="$CXX_COMPILER"
           -DCMAKE_PREFIX_PATH="$PREFIX" -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF)
# Run everything from a folder of its own, so that nothing is found relative to the
# source or build tree by accident, and without any plugin path from the caller.
cd "$TMP" || exit 1
unset SWITCHYARD_PLUGIN_PATH

# --- 1. install -----------------------------------------------------------------------
cmake --install "$BUILD" --prefix "$PREFIX" >"$TMP/install.log" 2>&1 ||
  fatal "cmake --install $BUILD" "$TMP/install.log"
for file in bin/switchyard lib/switchyard/plugins/libswitchyard_cpu.so lib/libswitchyard_core.a \
  lib/libswitchyard_plugin_kit.a \
  include/switchyard/plugin.h include/switchyard/plugin_cpp.h include/switchyard/status.h \
  include/switchyard/graph.h include/switchyard/plugin_host.h include/switchyard/plan.h \
  include/switchyard/session.h include/switchyard/model_io.h include/switchyard/tensor.h \
  lib/cmake/Switchyard/SwitchyardConfig.cmake lib/cmake/Switchyard/SwitchyardConfigVersion.cmake \
  lib/cmake/Switchyard/SwitchyardTargets.cmake lib/cmake/Switchyard/SwitchyardPlugin.cmake \
  lib/cmake/Switchyard/plugin_exports.map; do
  check "installed $file" test -f "$PREFIX/$file"
done
# Every header of both include trees, and nothing from the build or test trees.
for header in "$SRC"/sdk/include/switchyard/*.h "$SRC"/core/include/switchyard/*.h; do
  check "installed header $(basename "$header")" cmp -s "$header" \
    "$PREFIX/include/switchyard/$(basename "$header")"
done
unwanted=$(cd "$PREFIX" && find . \( -iname '*test*' -o -name 'sy_*' -o -name '*benchmark*' \
  -o -name '*fuzz*' \) -print)
check "no test plugins or programs installed (found: ${unwanted:-none})" test -z "$unwanted"
check "bin/ holds only the CLI" test "$(ls "$PREFIX/bin")" = switchyard
# The bundled plugins are those the build puts in lib/switchyard/plugins (test plugins
# live in test_plugins/).
check "plugins/ holds the bundled plugins, no others" \
  test "$(cd "$PREFIX/lib/switchyard/plugins" && ls)" = "$(cd "$BUILD/lib/switchyard/plugins" && ls)"

# --- 2. the installed CLI on its own ---------------------------------------------------
SY=$PREFIX/bin/switchyard
expect "installed CLI finds the installed CPU plugin" 0 \
  "loaded   cpu [0-9.]+ \(ABI 1\).*$PREFIX/lib/switchyard/plugins/libswitchyard_cpu.so" -- "$SY" plugins
expect "installed CLI runs an example" 0 "matches" \
  -- "$SY" run "$SRC/examples/mlp" --compare "$SRC/examples/mlp/expected"

# --- 3. the vendor plugin, out of tree -------------------------------------------------
VENDOR_BUILD=$TMP/vendor-build
# In a sanitizer build the installed plugin kit is instrumented too: the vendor plugin,
# which links it, then needs the sanitizer runtimes (the shared ones, which the
# instrumented host loads anyway).
PLUGIN_FLAGS=()
[ -n "$SANITIZE" ] && PLUGIN_FLAGS=(-DCMAKE_MODULE_LINKER_FLAGS="-fsanitize=$SANITIZE")
"${CONFIGURE[@]}" "${PLUGIN_FLAGS[@]}" -S "$SRC/sdk/examples/vendor_plugin" -B "$VENDOR_BUILD" \
  >"$TMP/vendor.log" 2>&1 || fatal "configure sdk/examples/vendor_plugin" "$TMP/vendor.log"
cmake --build "$VENDOR_BUILD" -j 1 >>"$TMP/vendor.log" 2>&1 ||
  fatal "build sdk/examples/vendor_plugin" "$TMP/vendor.log"
check "the vendor build used the installed package" \
  grep -q "^Switchyard_DIR:PATH=$PREFIX/lib/cmake/Switchyard\$" "$VENDOR_BUILD/CMakeCache.txt"
VENDOR_DIR=$VENDOR_BUILD/lib/switchyard/plugins
check "built libswitchyard_vendor.so" test -f "$VENDOR_DIR/libswitchyard_vendor.so"
exports_only_entry "$VENDOR_DIR/libswitchyard_vendor.so"

MODEL=$SRC/sdk/examples/vendor_plugin/model
WITH_VENDOR=(env "SWITCHYARD_PLUGIN_PATH=$VENDOR_DIR")
# The order is pinned so that other installed backends (an OpenCL device) do not change
# where the declined nodes go.
ORDER=(--device "vendor,cpu")
expect "vendor plugin listed" 0 "loaded   vendor 1\.0\.0 \(ABI 1\)" -- "${WITH_VENDOR[@]}" "$SY" plugins
expect "vendor device listed" 0 "vendor:0  vendor-accel  kind accelerator" \
  -- "${WITH_VENDOR[@]}" "$SY" devices
expect "vendor plan: hinted nodes on vendor:0" 0 '"act0" -> vendor:0  \[hint\]' \
  -- "${WITH_VENDOR[@]}" "$SY" plan "$MODEL" "${ORDER[@]}"
expect "vendor plan: matmul falls back to cpu:0" 0 \
  '"proj" -> cpu:0  \[fallback\] vendor:0 declined: vendor-accel does not run "matmul"' \
  -- "${WITH_VENDOR[@]}" "$SY" plan "$MODEL" "${ORDER[@]}"
expect "vendor plan --json: both devices" 0 \
  '"device":"vendor:0".*"device":"cpu:0"' \
  -- "${WITH_VENDOR[@]}" "$SY" plan --json "$MODEL" "${ORDER[@]}"
# Both devices address host memory and wrap it: values cross between them by pointer.
expect "vendor plan: copies between vendor:0 and cpu:0 are shared" 0 \
  'copies: [1-9][0-9]*, 0 B per run' \
  -- "${WITH_VENDOR[@]}" "$SY" plan "$MODEL" "${ORDER[@]}"
expect "vendor plan: a shared copy" 0 'shared: host memory read in place' \
  -- "${WITH_VENDOR[@]}" "$SY" plan "$MODEL" "${ORDER[@]}"
expect "vendor run matches NumPy" 0 "matches" \
  -- "${WITH_VENDOR[@]}" "$SY" run "$MODEL" "${ORDER[@]}" --compare "$MODEL/expected"
expect "vendor run --json on both devices" 0 \
  '"devices":"vendor:0 \(vendor-accel\), cpu:0 \(cpu\)".*"matches":true' \
  -- "${WITH_VENDOR[@]}" "$SY" run "$MODEL" "${ORDER[@]}" --json --compare "$MODEL/expected"
expect "vendor-only order with --strict refuses matmul" 1 "strict mode forbids" \
  -- "${WITH_VENDOR[@]}" "$SY" plan "$MODEL" --device vendor --strict
expect "the model runs without the vendor plugin (hints fall back)" 0 "matches" \
  -- "$SY" run "$MODEL" --device cpu --compare "$MODEL/expected"

# The vendor plugin proves itself with the installed conformance suite (against the
# installed cpu-ref), as a vendor's CI would.
expect "the vendor plugin conforms" 0 "^[0-9]+ passed, 0 failed, [0-9]+ skipped$" \
  -- "$SY" conformance --plugin "$VENDOR_DIR/libswitchyard_vendor.so" \
  --expectations "$SRC/sdk/examples/vendor_plugin/conformance-expectations.txt" \
  --junit "$TMP/vendor-conformance.xml"

# A plugin written in C against plugin.h alone, in a project without C++: the package
# must still load (Switchyard::sdk, switchyard_add_plugin; no runtime, so no Boost).
C_SRC=$TMP/c_plugin
mkdir -p "$C_SRC"
cat >"$C_SRC/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.20)
project(c_plugin C)
find_package(Switchyard CONFIG REQUIRED)
switchyard_add_plugin(c_example SOURCES plugin.c)
CMAKE
cat >"$C_SRC/plugin.c" <<'C'
#include "switchyard/plugin.h"
static const sy_plugin_api* table(void) { return NULL; }
SY_PLUGIN_EXPORT const sy_plugin_api* sy_plugin_query(uint32_t host_max_abi) {
  return host_max_abi < SY_PLUGIN_ABI_MIN_VERSION ? NULL : table();
}
C
cmake "${GENERATOR[@]}" -DCMAKE_PREFIX_PATH="$PREFIX" -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF \
  -S "$C_SRC" -B "$TMP/c-build" >"$TMP/c.log" 2>&1 && cmake --build "$TMP/c-build" >>"$TMP/c.log" 2>&1
C_SO=$TMP/c-build/lib/switchyard/plugins/libswitchyard_c_example.so
if [ -f "$C_SO" ]; then
  passes=$((passes + 1))
  exports_only_entry "$C_SO"
else
  echo "FAIL a C-only project builds a plugin with the package"; tail -20 "$TMP/c.log"
  failures=$((failures + 1))
fi

# --- 4. a host application against Switchyard::runtime ---------------------------------
APP_SRC=$TMP/host_app
mkdir -p "$APP_SRC"
cp "$SRC/tests/sdk/host_app.cpp" "$APP_SRC/main.cpp"
cat >"$APP_SRC/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.20)
project(host_app CXX)
find_package(Switchyard CONFIG REQUIRED COMPONENTS runtime)
add_executable(host_app main.cpp)
target_compile_features(host_app PRIVATE cxx_std_20)
target_link_libraries(host_app PRIVATE Switchyard::runtime)
CMAKE
APP_FLAGS=()
# A sanitized build installs a sanitized static runtime; its users link the sanitizers.
[ -n "$SANITIZE" ] && APP_FLAGS=(-DCMAKE_EXE_LINKER_FLAGS="-fsanitize=$SANITIZE")
"${CONFIGURE[@]}" "${APP_FLAGS[@]}" -S "$APP_SRC" -B "$TMP/host-app-build" >"$TMP/app.log" 2>&1 ||
  fatal "configure a host application against Switchyard::runtime" "$TMP/app.log"
cmake --build "$TMP/host-app-build" -j 1 >>"$TMP/app.log" 2>&1 ||
  fatal "build a host application against Switchyard::runtime" "$TMP/app.log"
expect "host application runs the vendor model" 0 "output z: f32 \[4, 6\]" \
  -- env "SWITCHYARD_PLUGIN_PATH=$PREFIX/lib/switchyard/plugins:$VENDOR_DIR" \
  "$TMP/host-app-build/host_app" "$MODEL"

# --- 5. exported symbols of every plugin -------------------------------------------------
exports_only_entry "$PREFIX/lib/switchyard/plugins/libswitchyard_cpu.so"
for plugin in "$BUILD"/lib/switchyard/plugins/*.so "$BUILD"/test_plugins/*/libswitchyard_*.so; do
  [ -e "$plugin" ] || continue
  case $plugin in
    */not_a_plugin/*) continue ;;  # deliberately lacks sy_plugin_query (not sy_add_plugin)
  esac
  exports_only_entry "$plugin"
done

echo "$passes passed, $failures failed"
[ "$failures" = 0 ]
