#!/usr/bin/env bash
# Installs everything Switchyard needs to build and test on Debian 12 (run as root).
# python3-dev and python3-venv: the Python module (docs/python.md), whose Python-side tools
# (nanobind, scikit-build-core, pytest, Ray) tools/test.sh installs from PyPI into a venv;
# ccache: the release build and `pip install .` share compiled objects through it.
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends \
  cmake ninja-build g++ clang libclang-rt-14-dev clang-format \
  libboost1.81-dev libboost-json1.81-dev libboost-program-options1.81-dev \
  libboost-filesystem1.81-dev \
  libgtest-dev libgmock-dev libbenchmark-dev libopenblas-dev libdnnl-dev \
  ocl-icd-opencl-dev opencl-headers pocl-opencl-icd clinfo libclblast-dev \
  libprotobuf-dev protobuf-compiler libonnx-testdata python3-torch \
  graphviz python3 ca-certificates pkg-config \
  libjpeg-dev libpng-dev libtiff-dev libwebp-dev libopenjp2-7-dev \
  python3-dev python3-venv python3-numpy ccache >/dev/null
echo "install-deps: done"
