#include "cl_op.h"

#include <algorithm>

#include "kernel_sources.h"
#include "program_cache.h"
#include "switchyard/node_descriptors.h"

namespace sy::opencl {

std::string NodeInfo::Describe() const {
  std::string s = op;
  if (!name.empty()) s += " \"" + name + "\"";
  return s;
}

namespace {

[[noreturn]] void Invalid(const std::string& message) {
  throw sy_sdk::Error(SY_ERROR_INVALID_ARGUMENT, message);
}

AttrValue DecodeAttr(const sy_attr& a) {
  Expected<AttrValue> value = AttrFromC(a);
  if (!value.ok()) Invalid(value.status().message());
  return std::move(*value);
}

TensorType DecodeType(const sy_tensor_type& t) {
  Expected<TensorType> type = TensorTypeFromC(t);
  if (!type.ok()) Invalid(type.status().message());
  return std::move(*type);
}

}  // namespace

NodeInfo DecodeNode(const sy_node& node) {
  if (node.op == nullptr || (node.num_inputs && node.inputs == nullptr) ||
      (node.num_outputs && node.outputs == nullptr) || (node.num_attrs && node.attrs == nullptr)) {
    Invalid("malformed node");
  }
  NodeInfo info;
  info.op = node.op;
  info.name = node.name != nullptr ? node.name : "";
  for (uint32_t i = 0; i < node.num_inputs; ++i) info.inputs.push_back(DecodeType(node.inputs[i]));
  for (uint32_t i = 0; i < node.num_outputs; ++i) {
    info.outputs.push_back(DecodeType(node.outputs[i]));
  }
  for (uint32_t a = 0; a < node.num_attrs; ++a) {
    if (node.attrs[a].name == nullptr) Invalid("malformed attribute (no name)");
    info.attrs.Set(node.attrs[a].name, DecodeAttr(node.attrs[a]));
  }
  return info;
}

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

int CollapseBroadcast(std::span<const int64_t> out, std::span<const Shape> inputs,
                      std::vector<int64_t>& meta) {
  const size_t rank = out.size();
  const size_t k = inputs.size();
  // Per input, the element stride of each output dim (0 where it broadcasts).
  std::vector<std::vector<int64_t>> strides(k, std::vector<int64_t>(rank, 0));
  for (size_t j = 0; j < k; ++j) {
    const Shape& in = inputs[j];
    const size_t lead = rank - in.size();
    int64_t stride = 1;
    for (size_t d = in.size(); d-- > 0;) {
      strides[j][lead + d] = in[d] == 1 ? 0 : stride;
      stride *= in[d];
    }
  }
  std::vector<int64_t> dims;
  std::vector<std::vector<int64_t>> merged(k);
  for (size_t d = 0; d < rank; ++d) {
    if (out[d] == 1) continue;
    bool merge = !dims.empty();
    for (size_t j = 0; j < k && merge; ++j) {
      merge = merged[j].back() == strides[j][d] * out[d];
    }
    if (merge) {
      dims.back() *= out[d];
      for (size_t j = 0; j < k; ++j) merged[j].back() = strides[j][d];
    } else {
      dims.push_back(out[d]);
      for (size_t j = 0; j < k; ++j) merged[j].push_back(strides[j][d]);
    }
  }
  if (dims.empty()) {
    dims.push_back(1);
    for (size_t j = 0; j < k; ++j) merged[j].push_back(0);
  }
  meta = dims;
  for (size_t j = 0; j < k; ++j) meta.insert(meta.end(), merged[j].begin(), merged[j].end());
  return static_cast<int>(dims.size());
}

}  // namespace sy::opencl
