// Helpers for testing CPU kernels directly: build tensors from values, run a kernel the
// way the plugin will (core's shape rule infers and allocates the outputs, attributes are
// normalised first), and read results back as doubles.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "kernel.h"
#include "switchyard/tensor.h"

namespace sy::cpu::test {

// A tensor of `dtype` and `shape` holding `values` (row-major; converted like a store:
// floats rounded, integers wrapped, bool = value != 0). values.size() must match.
Tensor Make(DType dtype, Shape shape, const std::vector<double>& values);

// Every element as a double (integers and bool exactly, up to 2^53).
std::vector<double> Values(const Tensor& tensor);

// Runs `op` from `table` on `inputs`: checks and normalises `attrs` with the op's
// schema, allocates outputs of the inferred types, calls the kernel (with `pool` as
// KernelContext::pool; null runs on this thread). Errors from the schema or the kernel
// come back as the status.
Expected<std::vector<Tensor>> Run(const KernelTable& table, std::string_view op,
                                  const std::vector<Tensor>& inputs, Attrs attrs = {},
                                  int num_outputs = 1, ThreadPool* pool = nullptr);

// Run, saying which inputs are constants of the model (their bytes reach the kernel's
// prepare step, as weights do in a session); *prepared (when given) says whether a
// prepared kernel (a library primitive) ran rather than the plain kernel.
Expected<std::vector<Tensor>> RunPrepared(const KernelTable& table, std::string_view op,
                                          const std::vector<Tensor>& inputs,
                                          const std::vector<bool>& constant, Attrs attrs = {},
                                          int num_outputs = 1, ThreadPool* pool = nullptr,
                                          bool* prepared = nullptr,
                                          std::string* implementation = nullptr);

// Run with the reference kernels (RefKernels()).
Expected<std::vector<Tensor>> RunRef(std::string_view op, const std::vector<Tensor>& inputs,
                                     Attrs attrs = {}, int num_outputs = 1);

// The single output of RunRef, failing the test (and returning an empty tensor) on error.
Tensor RunRef1(std::string_view op, const std::vector<Tensor>& inputs, Attrs attrs = {});

// Loads tests/data/<relative> (.npy) from the source tree.
Tensor LoadData(std::string_view relative);

}  // namespace sy::cpu::test
