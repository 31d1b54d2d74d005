// How the CUDA plugin implements an op (docs/cuda.md, "Adding an op").
//
// Each op family lives in one pair of files: ops_<family>.cpp (host side: supports,
// create, the CuOp subclass) and kernels/<family>.cu (the __global__ kernels and their
// launch wrappers, declared in kernels/<family>.h). A family registers, per op name, two
// functions with the CuOpRegistry (op_registry.cpp calls each family's Register*):
//   supports(node, device, reason)  may this device run the node as typed? (cheap)
//   create(node)                    a CuOp for one node of a partition
// A CuOp is prepared once (upload constant metadata, pick cuBLAS algorithms, size its
// workspace) and then enqueued on every execute on the executable's one stream. It never
// allocates, synchronises or copies to the host while enqueuing, so that a whole
// partition can be captured as a CUDA graph and replayed as one launch.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <cuda_runtime.h>

#include "broadcast.h"
#include "gpu_op_registry.h"
#include "switchyard/attrs.h"
#include "switchyard/plugin_cpp.h"
#include "switchyard/plugin_node.h"
#include "switchyard/shape.h"

namespace sy::cuda {

struct Device;      // cuda_runtime.h (the plugin's, next to this file)
class DeviceBlock;  // cuda_runtime.h

// NodeInfo and DecodeNode come from the SDK's plugin kit (switchyard/plugin_node.h);
// CollapseBroadcast is shared with the other GPU plugin (plugins/common/broadcast.h).
using plugin::CollapseBroadcast;
using plugin::DecodeNode;
using plugin::NodeInfo;

// A bound tensor at execute time: a device pointer to its first element (null when empty).
struct CuTensor {
  void* data = nullptr;
  const TensorType* type = nullptr;
  int64_t count() const { return ElementCount(type->shape); }
};

// What CuOp::Prepare may use. Everything it hands out lives as long as the executable.
class PrepareContext {
 public:
  PrepareContext(Device& device, const NodeInfo& node, std::vector<std::string>& error_messages)
      : device_(device), node_(node), error_messages_(error_messages) {}
  Device& device() const { return device_; }
  const NodeInfo& node() const { return node_; }

  // Device memory holding `values` (shapes, strides, offsets), owned by the executable.
  const int64_t* Upload(std::span<const int64_t> values);
  // Device scratch memory of `bytes` (a cuBLAS workspace, im2col columns), owned by the
  // executable, valid during every Enqueue.
  void* Scratch(uint64_t bytes);
  // A slot in the executable's error flags (device ints), for a kernel that detects data
  // errors (an index out of range, an integer division by zero). Execute fails with
  // SY_ERROR_DATA and `message` when a kernel set the flag.
  uint32_t ErrorSlot(std::string message);
  // The executable's stream (what Enqueue will receive), for work an op wants to do once
  // at prepare time; null when the context was made outside an executable.
  cudaStream_t stream() const { return stream_; }

 private:
  friend class CudaExecutable;
  Device& device_;
  const NodeInfo& node_;
  std::vector<std::string>& error_messages_;
  cudaStream_t stream_ = nullptr;
  // Upload and Scratch memory (pool blocks), taken over by the executable.
  std::vector<std::shared_ptr<DeviceBlock>> owned_;
};

// What CuOp::Enqueue receives.
struct EnqueueContext {
  cudaStream_t stream;
  std::span<const CuTensor> inputs;
  std::span<const CuTensor> outputs;
  int* error_flags;  // device ints, one per ErrorSlot of the executable
};

class CuOp {
 public:
  virtual ~CuOp() = default;
  virtual void Prepare(PrepareContext& ctx) = 0;
  // Launches kernels (or cuBLAS calls) on ctx.stream only. Throws sy_sdk::Error on a
  // launch failure (CheckCuda).
  virtual void Enqueue(const EnqueueContext& ctx) = 0;
  // False for an op that cannot be captured in a CUDA graph (none so far).
  virtual bool Capturable() const { return true; }
  // For an op whose data errors carry details an error slot's fixed message cannot (a
  // row, an index, a value): called after every execute once the stream has synchronised,
  // in step order (after the step's own error slots). It reads pinned host memory that
  // its Enqueue had the stream fill (cudaMemcpyAsync, captured with the rest) and throws
  // sy_sdk::Error(SY_ERROR_DATA, message) for an error; the executable prefixes
  // "execute: ". Default: nothing to check.
  virtual void CheckData() const {}
};

// The parts of a device the support decisions need.
struct DeviceCaps {
  int compute_major = 0, compute_minor = 0;
  bool bf16 = false;  // compute capability >= 8.0
};

// The op table (plugins/common/gpu_op_registry.h, shared with the other GPU plugin).
class CuOpRegistry : public plugin::GpuOpRegistry<DeviceCaps, CuOp> {
 public:
  // Every family registered (op_registry.cpp).
  static const CuOpRegistry& Global();
};
using SupportsFn = CuOpRegistry::SupportsFn;
using CreateFn = CuOpRegistry::CreateFn;

// The op families, named as core's catalogue names them (OpSchema::family, docs/ops.md):
// one src/ops_<family>.cpp and one kernels/<family>.cu each, registered by op_registry.cpp.
void RegisterElementwiseOps(CuOpRegistry& registry);    // unary, binary, cast, where, clip, ...
void RegisterLinalgOps(CuOpRegistry& registry);         // matmul, gemm (cuBLAS)
void RegisterMovementOps(CuOpRegistry& registry);       // reshape, transpose, slice, pad, ...
void RegisterIndexingOps(CuOpRegistry& registry);       // gather*, scatter*
void RegisterReductionOps(CuOpRegistry& registry);      // reduce_*, argmax, argmin, cumsum, topk
void RegisterNormalizationOps(CuOpRegistry& registry);  // softmax, log_softmax, the norms
void RegisterConvPoolOps(CuOpRegistry& registry);       // conv, conv_transpose, pools
void RegisterNeuralOps(CuOpRegistry& registry);         // attention, rotary, resize, grid_sample
void RegisterSamplingOps(CuOpRegistry& registry);       // sample

// ---- helpers for op implementations ----------------------------------------------------

// Throws sy_sdk::Error naming `what` and the CUDA error when err != cudaSuccess
// (cudaErrorMemoryAllocation becomes SY_ERROR_RESOURCE_EXHAUSTED, the rest INTERNAL).
void CheckCuda(cudaError_t err, std::string_view what);

}  // namespace sy::cuda
