// PrepareContext's memory and error slots (cu_op.h). Node decoding and broadcast
// collapsing are shared with the OpenCL plugin (plugins/common); CheckCuda lives in
// cuda_runtime.cpp.
#include "cu_op.h"

#include <algorithm>

#include "cuda_runtime.h"

namespace sy::cuda {

const int64_t* PrepareContext::Upload(std::span<const int64_t> values) {
  if (values.empty()) return nullptr;
  const uint64_t bytes = values.size() * sizeof(int64_t);
  auto block = std::make_shared<DeviceBlock>(device_, bytes);
  UseDevice(device_.ordinal);
  CheckCuda(cudaMemcpy(block->data(), values.data(), bytes, cudaMemcpyHostToDevice),
            "cudaMemcpy (meta data)");
  owned_.push_back(block);
  return static_cast<const int64_t*>(block->data());
}

void* PrepareContext::Scratch(uint64_t bytes) {
  if (bytes == 0) return nullptr;
  auto block = std::make_shared<DeviceBlock>(device_, bytes);
  owned_.push_back(block);
  return block->data();
}

uint32_t PrepareContext::ErrorSlot(std::string message) {
  error_messages_.push_back(std::move(message));
  return static_cast<uint32_t>(error_messages_.size() - 1);
}

}  // namespace sy::cuda
