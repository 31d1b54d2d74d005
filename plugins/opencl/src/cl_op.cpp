#include "cl_op.h"

#include <algorithm>

#include "kernel_sources.h"
#include "program_cache.h"

namespace sy::opencl {

cl_program PrepareContext::Program(std::string_view family, const std::string& defines,
                                   bool uses_f64) const {
  return device_.programs->Get(AssembleProgram(family, defines, uses_f64), BuildOptions(device_));
}

UniqueKernel PrepareContext::Kernel(std::string_view family, const std::string& defines,
                                    bool uses_f64, const char* kernel_name) const {
  cl_program program = Program(family, defines, uses_f64);
  cl_int err = CL_SUCCESS;
  UniqueKernel kernel(clCreateKernel(program, kernel_name, &err));
  CheckCl(err, std::string("clCreateKernel(") + kernel_name + ")");
  return kernel;
}

UniqueMem PrepareContext::Upload(std::span<const int64_t> values) const {
  std::vector<cl_long> copy(values.begin(), values.end());
  if (copy.empty()) copy.push_back(0);  // no zero-sized buffers in OpenCL
  cl_int err = CL_SUCCESS;
  UniqueMem mem(clCreateBuffer(device_.context.get(), CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                               copy.size() * sizeof(cl_long), copy.data(), &err));
  CheckCl(err, "clCreateBuffer (meta data)");
  return mem;
}

uint32_t PrepareContext::ErrorSlot(std::string message) {
  error_messages_.push_back(std::move(message));
  return static_cast<uint32_t>(error_messages_.size() - 1);
}

bool DTypesUsable(std::span<const TensorType> types, const DeviceCaps& device,
                  std::string& reason) {
  for (const TensorType& t : types) {
    if (t.dtype == DType::kF64 && !device.fp64) {
      reason = "f64 needs cl_khr_fp64, which this OpenCL device lacks";
      return false;
    }
  }
  return true;
}

bool SupportsFloatOnly(const NodeInfo& node, const DeviceCaps& device, std::string& reason) {
  if (!node.inputs.empty() && !IsFloat(node.inputs[0].dtype)) {
    reason = node.op + " takes float dtypes only";
    return false;
  }
  return DTypesUsable(node.inputs, device, reason);
}

void KernelArgs::Set(size_t size, const void* value) {
  CheckCl(clSetKernelArg(kernel_, index_, size, value),
          "clSetKernelArg(" + std::to_string(index_) + ")");
  ++index_;
}

KernelArgs& KernelArgs::Scalar(DType dtype, double value) {
  switch (dtype) {
    case DType::kF64:
      return Add(static_cast<cl_double>(value));
    case DType::kF32:
    case DType::kF16:
    case DType::kBF16:
      return Add(static_cast<cl_float>(value));
    default:
      return Add(static_cast<cl_long>(value));
  }
}

KernelArgs& KernelArgs::IntScalar(DType dtype, int64_t value) {
  if (IsFloat(dtype)) return Scalar(dtype, static_cast<double>(value));
  return Add(static_cast<cl_long>(value));
}

void Launch1D(cl_command_queue queue, cl_kernel kernel, uint64_t n) {
  if (n == 0) return;
  const size_t global = static_cast<size_t>(n);
  CheckCl(clEnqueueNDRangeKernel(queue, kernel, 1, nullptr, &global, nullptr, 0, nullptr, nullptr),
          "clEnqueueNDRangeKernel");
}

}  // namespace sy::opencl
