#!/usr/bin/env bash
# The plugin boundary (DESIGN.md's first rule): a plugin sees nothing of core but the SDK.
# Fails when
#   1. a source file under plugins/ or sdk/ includes a core header (a "switchyard/X" that
#      is not one of sdk/include/switchyard/, or any path into core/);
#   2. a CMake file under plugins/ or sdk/ names a core target (switchyard_core,
#      Switchyard::core, Switchyard::runtime);
#   3. a bundled plugin library defines a symbol that the core library defines (its
#      strong symbols: functions and data of core/src, not inline or template code of the
#      SDK's headers, which both may instantiate);
#   4. core's format layer (core/src/format/, core/src/ir/) includes a header of the op
#      catalogue, the scheduler, execution or the plugin host.
# Prints what it checked, so that the closing note of a change can quote it.
# usage: plugin_boundary.sh SOURCE_DIR BUILD_DIR
set -u
if [ $# -ne 2 ]; then
  echo "usage: $0 SOURCE_DIR BUILD_DIR" >&2
  exit 2
fi
SRC=$(cd "$1" && pwd)
BUILD=$(cd "$2" && pwd)
failures=0
fail() { echo "FAIL $*"; failures=$((failures + 1)); }

# --- 1. includes -----------------------------------------------------------------------
files=0
includes=0
while IFS= read -r file; do
  files=$((files + 1))
  while IFS= read -r header; do
    includes=$((includes + 1))
    case "$header" in
      switchyard/*)
        [ -f "$SRC/sdk/include/$header" ] ||
          fail "${file#"$SRC"/} includes \"$header\", which is not an SDK header"
        ;;
      *core/*) fail "${file#"$SRC"/} includes \"$header\", a path into core" ;;
    esac
  done < <(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*[<"]\([^>"]*\)[>"].*/\1/p' "$file")
done < <(find "$SRC/plugins" "$SRC/sdk" -type f \
  \( -name '*.h' -o -name '*.hpp' -o -name '*.c' -o -name '*.cpp' -o -name '*.cu' -o -name '*.cuh' \
  -o -name '*.m' -o -name '*.mm' \) | sort)
echo "includes: $files source files under plugins/ and sdk/, $includes #include lines," \
  "every switchyard/ header from sdk/include"

# --- 2. CMake targets ------------------------------------------------------------------
cmake_files=0
while IFS= read -r file; do
  cmake_files=$((cmake_files + 1))
  # Comments stripped: a comment may say what is not linked.
  if sed 's/#.*//' "$file" | grep -qE '(switchyard_core|Switchyard::core|Switchyard::runtime)'; then
    fail "${file#"$SRC"/} names a core target"
  fi
done < <(find "$SRC/plugins" "$SRC/sdk" -type f \( -name 'CMakeLists.txt' -o -name '*.cmake' \) | sort)
echo "cmake: $cmake_files CMake files under plugins/ and sdk/, none names a core target"

# --- 3. symbols ------------------------------------------------------------------------
core_lib=$(find "$BUILD" -name 'libswitchyard_core.a' -not -path '*/_deps/*' | head -1)
if [ -z "$core_lib" ]; then
  fail "no libswitchyard_core.a under $BUILD"
else
  core_symbols=$(mktemp)
  trap 'rm -f "$core_symbols"' EXIT
  nm --defined-only "$core_lib" 2>/dev/null | awk 'NF == 3 && $2 ~ /^[TDBR]$/ {print $3}' |
    sort -u >"$core_symbols"
  echo "symbols: libswitchyard_core.a defines $(wc -l <"$core_symbols") strong symbols"
  plugins=0
  for plugin in "$BUILD"/lib/switchyard/plugins/libswitchyard_*.so; do
    [ -f "$plugin" ] || continue
    plugins=$((plugins + 1))
    defined=$(nm --defined-only "$plugin" 2>/dev/null | awk 'NF == 3 {print $3}' | sort -u)
    if [ -z "$defined" ]; then
      echo "  $(basename "$plugin"): stripped, no symbol table to compare"
      continue
    fi
    shared=$(comm -12 "$core_symbols" <(echo "$defined"))
    count=$(echo "$defined" | wc -l)
    if [ -n "$shared" ]; then
      fail "$(basename "$plugin") defines $(echo "$shared" | wc -l) core symbols, e.g.:"
      echo "$shared" | head -5 | c++filt | sed 's/^/    /'
    else
      echo "  $(basename "$plugin"): $count symbols, 0 of them core's"
    fi
  done
  [ "$plugins" -gt 0 ] || fail "no plugin libraries in $BUILD/lib/switchyard/plugins"
fi

# --- 4. core's own layers --------------------------------------------------------------
# The format layer (core/src/format/, core/src/ir/) reads and writes files and knows no op,
# schedule or plugin: loading's second pass (the op catalogue) sits above it.
layer_files=0
while IFS= read -r file; do
  layer_files=$((layer_files + 1))
  while IFS= read -r header; do
    case "$header" in
      switchyard/op_schema.h | switchyard/plan.h | switchyard/session.h | \
        switchyard/optimize.h | switchyard/plugin_host.h | ops/* | sched/* | exec/* | opt/* | \
        plugin/*)
        fail "${file#"$SRC"/} (format layer) includes \"$header\""
        ;;
    esac
  done < <(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$file")
done < <(find "$SRC/core/src/format" "$SRC/core/src/ir" -type f \( -name '*.h' -o -name '*.cpp' \) | sort)
echo "layers: $layer_files files of core's format layer include nothing of ops, scheduling," \
  "execution or the plugin host"

if [ "$failures" -ne 0 ]; then
  echo "plugin boundary: $failures failure(s)"
  exit 1
fi
echo "plugin boundary: kept"
