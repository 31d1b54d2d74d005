#!/usr/bin/env bash
# The README's second command: build and run every test.
#   1. the release build's unit tests, CLI tests and the Python module's pytest suite
#      (ctest), the module built for a venv in build/venv (docs/python.md)
#   2. `pip install .` into that venv, and the Python tests again against what it installed
#   3. the unit tests again under AddressSanitizer + UndefinedBehaviorSanitizer
#   4. a short libFuzzer smoke run of each reader (clang)
# SKIP_SANITIZERS=1, SKIP_FUZZ=1 or SKIP_PYTHON=1 leave a stage out (for quick local runs
# only). PYTHON names the Python the venv is made from (default: python3).
set -euo pipefail
cd "$(dirname "$0")/.."
JOBS=${JOBS:-2}
FUZZ_SECONDS=${FUZZ_SECONDS:-20}
VENV=build/venv

if [ "${SKIP_PYTHON:-0}" != 1 ]; then
  echo "== Python venv ($VENV): nanobind, scikit-build-core, pytest, Ray"
  # --system-site-packages: Debian's NumPy and PyTorch (python3-torch, for the ONNX import
  # test) stay visible. That PyTorch is built against NumPy 1.x, and the newest pandas and
  # pyarrow (Ray Data's) need NumPy 2: hence the pins.
  [ -x "$VENV/bin/python" ] || "${PYTHON:-python3}" -m venv --system-site-packages "$VENV"
  # onnx and onnxruntime pinned to the releases the importer's schema table was generated
  # from (ctest onnx_schema_table; the newest node tests, onnx_latest_node_tests);
  # tokenizers for generate(text=...).
  "$VENV/bin/pip" install -q --disable-pip-version-check nanobind scikit-build-core pytest \
    "ray[data,serve]" "numpy<2" "pandas<3" "pyarrow<21" onnx==1.23.2 onnxruntime==1.32.0 \
    tokenizers
  export SY_PYTHON=$PWD/$VENV/bin/python
fi

echo "== release build and tests"
bash tools/build.sh
ctest --test-dir build/release --output-on-failure -j "$JOBS"

if [ "${SKIP_PYTHON:-0}" != 1 ]; then
  echo "== pip install . (the Python package), then its tests against the installed package"
  # A second build of the core, the plugins and the module, in build/<wheel tag>
  # (pyproject.toml). It costs little because both builds compile through ccache
  # (cmake/SwitchyardCcache.cmake) with the source tree as base directory, so this one
  # finds the release build's objects: 1 to 2 minutes on 2 cores (configure, links, stubs)
  # instead of 10 to compile the project again (docs/performance.md, "Python"). The same
  # compilers as the release build, by path: ccache keys on the compiler's name, and
  # scikit-build-core would otherwise take Python's (x86_64-linux-gnu-g++, not c++).
  # --no-build-isolation: the venv already has the build requirements.
  start=$(date +%s)
  CC=$(sed -n 's/^CMAKE_C_COMPILER:FILEPATH=//p' build/release/CMakeCache.txt) \
    CXX=$(sed -n 's/^CMAKE_CXX_COMPILER:FILEPATH=//p' build/release/CMakeCache.txt) \
    "$VENV/bin/pip" install -q --disable-pip-version-check --no-build-isolation .
  echo "pip install . took $(($(date +%s) - start)) s"
  # From another folder, without PYTHONPATH: the installed package, with the plugins and
  # programs it carries (tests/python/test_installed.py checks that it is that one).
  root=$PWD
  (cd "$(mktemp -d)" && SY_EXPECT_INSTALLED=1 SWITCHYARD_CLI="$root/build/release/bin/switchyard" \
    "$root/$VENV/bin/python" -m pytest -q \
    -p no:cacheprovider "$root/tests/python" --ignore="$root/tests/python/test_ray.py")
fi

if [ "${SKIP_SANITIZERS:-0}" != 1 ]; then
  echo "== unit tests under AddressSanitizer and UndefinedBehaviorSanitizer"
  # No CUDA plugin in this build: without a GPU its kernels never run (ASan would check
  # only the zero-device path the release build tests already), and nvcc adds minutes.
  cmake -S . -B build/asan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DSY_SANITIZE=address,undefined \
    -DSY_BUILD_BENCHMARKS=OFF -DSY_BUILD_CUDA=OFF >/dev/null
  cmake --build build/asan -j "$JOBS"
  # intercept_tls_get_addr=0: GCC 12's sanitizer runtime can mistake a dynamic TLS block
  # for a pre-2.25 glibc one and hand LeakSanitizer a bogus range to scan, which crashes
  # its tracer at exit ("Tracer caught signal 11", google/sanitizers#1322); with several
  # plugins and the ICD loaded it happens every time. Leaks are still detected.
  ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:allocator_may_return_null=1:intercept_tls_get_addr=0 \
    UBSAN_OPTIONS=print_stacktrace=1 \
    ctest --test-dir build/asan --output-on-failure -j "$JOBS"
fi

if [ "${SKIP_FUZZ:-0}" != 1 ]; then
  echo "== fuzz smoke (${FUZZ_SECONDS}s per target)"
  CC=clang CXX=clang++ cmake -S . -B build/fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DSY_BUILD_FUZZERS=ON -DSY_BUILD_TESTS=OFF -DSY_BUILD_TOOLS=OFF \
    -DSY_BUILD_BENCHMARKS=OFF -DSY_SANITIZE=address,undefined >/dev/null
  targets="graph_json single_file safetensors npy plugin_table probe_cache probe_report"
  # The ONNX importer's target where the importer is built (protobuf); its seeds are
  # the ONNX node tests' models (libonnx-testdata).
  if [ -d /usr/share/libonnx-testdata/data/node ] && command -v protoc >/dev/null; then
    targets="$targets onnx_import"
  fi
  cmake --build build/fuzz -j "$JOBS" --target $(printf 'fuzz_%s ' $targets)
  for target in $targets; do
    corpus=$(mktemp -d)
    case $target in
      graph_json) cp examples/*/*.json "$corpus/" ;;
      single_file)
        # The examples and the toy decoder (run-time sizes, state) as single files.
        for m in examples/*/ tests/data/decoder/model; do
          build/release/bin/switchyard convert "$m" -o "$corpus/$(basename "$m").symodel" >/dev/null
        done ;;
      safetensors) cp examples/*/*.safetensors "$corpus/" ;;
      npy) cp tests/data/npy/*.npy "$corpus/" ;;
      plugin_table) printf '\x01\x02\x03\x04\x05\x06\x07\x08' >"$corpus/seed" ;;
      probe_cache)
        printf '/p/libswitchyard_cpu.so\t2049\t131\t4096\t1700000000000000000\t1700000000000000001\tok\t\n/p/libx.so\t1\t2\t3\t4\t5\trejected\tcrashed in initialize (SIGSEGV)\n' >"$corpus/seed" ;;
      probe_report)
        # The first byte picks the chunk size; then an honest report (the target's nonce),
        # and the old forged verdict.
        printf '\x07step start\nstep dlopen\nstep initialize\nstep shutdown\nready\nok 0123456789abcdef0123456789abcdef\n' >"$corpus/honest"
        printf '\x01step dlopen\nok\n' >"$corpus/forged" ;;
      onnx_import)
        for d in /usr/share/libonnx-testdata/data/node/test_*/; do
          cp "$d/model.onnx" "$corpus/$(basename "$d").onnx"
        done ;;
    esac
    build/fuzz/bin/fuzz_$target -max_total_time="$FUZZ_SECONDS" -max_len=16384 \
      -rss_limit_mb=2048 -print_final_stats=0 "$corpus" 2>&1 | tail -n 2
    rm -rf "$corpus"
  done
fi
echo "== all tests passed"
