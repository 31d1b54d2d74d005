// The OpenCL C sources of kernels/*.cl, embedded at build time (cmake/EmbedKernels.cmake)
// and assembled into programs: a generated prelude of #defines (each tensor slot's
// element type, the op), then common.cl, then the op family's file.
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "switchyard/dtype.h"

namespace sy::opencl {

struct Device;

struct EmbeddedKernelSource {
  std::string_view name;  // the file's stem: "elementwise" for kernels/elementwise.cl
  std::string_view text;
};

// Every embedded file (generated).
std::span<const EmbeddedKernelSource> EmbeddedKernelSources();

// The text of kernels/<name>.cl; throws sy_sdk::Error (SY_ERROR_INTERNAL) when absent.
std::string_view KernelSource(std::string_view name);

// #defines of a tensor slot (ST_X, CT_X, LOAD_X, STORE_X, RT_X, IS_FLOAT_X, IS_F64_X)
// for `dtype`; see kernels/common.cl.
std::string SlotDefines(char slot, DType dtype);

// A program's source: the extension pragmas the dtypes need, `defines`, common.cl and
// kernels/<family>.cl. `uses_f64`: any slot is f64 (needs cl_khr_fp64).
std::string AssembleProgram(std::string_view family, const std::string& defines, bool uses_f64);

// The options every program is built with on `device` (no fast-math; correctly rounded
// division and square root where the device offers them).
std::string BuildOptions(const Device& device);

// The OpenCL C type of a compute value (float, double, long) of `dtype` and its size.
std::string_view ComputeTypeName(DType dtype);

}  // namespace sy::opencl
