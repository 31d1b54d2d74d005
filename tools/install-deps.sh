#!/usr/bin/env bash
# Installs everything Switchyard needs to build and test on Debian 12 (run as root).
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends \
  cmake ninja-build g++ clang libclang-rt-14-dev clang-format \
  libboost1.81-dev libboost-json1.81-dev libboost-program-options1.81-dev \
  libboost-filesystem1.81-dev \
  libgtest-dev libgmock-dev libbenchmark-dev libopenblas-dev libdnnl-dev \
  ocl-icd-opencl-dev opencl-headers pocl-opencl-icd clinfo libclblast-dev \
  libonnx-dev libprotobuf-dev libonnx-testdata python3-torch \
  graphviz python3 ca-certificates >/dev/null
echo "install-deps: done"
