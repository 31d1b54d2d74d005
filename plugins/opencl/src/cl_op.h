// How the OpenCL plugin implements an op (docs/opencl.md, "Adding an op").
//
// Each op family lives in one file (ops_elementwise.cpp, ops_linalg.cpp, ...) and
// registers, per op name, two functions with the ClOpRegistry (op_registry.cpp calls
// each family's Register* function):
//   supports(node, device, reason)  may this device run the node as typed? (cheap: no
//                                   compilation; the answer of supports_node)
//   create(node)                    a ClOp for one node of a partition
// A ClOp is prepared once (compile its programs, create kernels, upload constant
// metadata) and then enqueued on every execute. It never allocates or compiles while
// enqueuing, and never waits: the executable enqueues every node, then waits once.
#pragma once

#include <CL/cl.h>

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "broadcast.h"
#include "cl_runtime.h"
#include "gpu_op_registry.h"
#include "switchyard/attrs.h"
#include "switchyard/plugin_cpp.h"
#include "switchyard/plugin_node.h"
#include "switchyard/shape.h"

namespace sy::opencl {

// NodeInfo and DecodeNode come from the SDK's plugin kit (switchyard/plugin_node.h);
// CollapseBroadcast is shared with the other GPU plugin (plugins/common/broadcast.h).
using plugin::CollapseBroadcast;
using plugin::DecodeNode;
using plugin::NodeInfo;

// A bound tensor at execute time: device memory and the byte offset of its first element.
struct ClTensor {
  cl_mem mem = nullptr;  // null for an empty tensor
  uint64_t offset = 0;
  const TensorType* type = nullptr;
  int64_t count() const { return ElementCount(type->shape); }
};

// What ClOp::Prepare may use.
class PrepareContext {
 public:
  // `error_messages`: the executable's, one per error slot.
  PrepareContext(Device& device, const NodeInfo& node, std::vector<std::string>& error_messages)
      : device_(device), node_(node), error_messages_(error_messages) {}
  Device& device() const { return device_; }
  const NodeInfo& node() const { return node_; }

  // The built program of kernels/<family>.cl with `defines` (compiled once per device;
  // see program_cache.h), and a new kernel object of it (owned by the caller).
  cl_program Program(std::string_view family, const std::string& defines, bool uses_f64) const;
  UniqueKernel Kernel(std::string_view family, const std::string& defines, bool uses_f64,
                      const char* kernel_name) const;
  // A read-only device buffer holding `values` (meta data such as shapes and strides).
  UniqueMem Upload(std::span<const int64_t> values) const;
  // A slot in the executable's error flags, for a kernel that detects data errors (an
  // integer division by zero). Execute fails with SY_ERROR_DATA and `message` when the
  // kernel set the flag.
  uint32_t ErrorSlot(std::string message);

 private:
  Device& device_;
  const NodeInfo& node_;
  std::vector<std::string>& error_messages_;
};

// What ClOp::Enqueue receives.
struct EnqueueContext {
  cl_command_queue queue;
  std::span<const ClTensor> inputs;
  std::span<const ClTensor> outputs;
  cl_mem error_flags;  // ints, one per ErrorSlot of the executable
};

class ClOp {
 public:
  virtual ~ClOp() = default;
  virtual void Prepare(PrepareContext& ctx) = 0;
  virtual void Enqueue(const EnqueueContext& ctx) = 0;
  // For an op whose data errors carry details an error slot's fixed message cannot (a
  // row, an index, a value): called after every execute once the queue has finished, in
  // step order (after the step's own error slots). It reads host memory that its Enqueue
  // had the queue fill (a non-blocking read, done by then) and throws
  // sy_sdk::Error(SY_ERROR_DATA, message) for an error; the executable prefixes
  // "execute: ". Default: nothing to check.
  virtual void CheckData() const {}
};

// The parts of a device the support decisions need.
struct DeviceCaps {
  bool fp16 = false;
  bool fp64 = false;
  size_t max_work_group_size = 1;
};

// The op table (plugins/common/gpu_op_registry.h, shared with the other GPU plugin).
class ClOpRegistry : public plugin::GpuOpRegistry<DeviceCaps, ClOp> {
 public:
  // Every family registered (op_registry.cpp).
  static const ClOpRegistry& Global();
};
using SupportsFn = ClOpRegistry::SupportsFn;
using CreateFn = ClOpRegistry::CreateFn;

// The op families, named as core's catalogue names them (OpSchema::family, docs/ops.md):
// one ops_<family>.cpp file each, registered by op_registry.cpp.
void RegisterElementwiseOps(ClOpRegistry& registry);
void RegisterLinalgOps(ClOpRegistry& registry);
void RegisterMovementOps(ClOpRegistry& registry);
void RegisterIndexingOps(ClOpRegistry& registry);
void RegisterReductionOps(ClOpRegistry& registry);
void RegisterNormalizationOps(ClOpRegistry& registry);
void RegisterConvPoolOps(ClOpRegistry& registry);
void RegisterNeuralOps(ClOpRegistry& registry);
void RegisterSamplingOps(ClOpRegistry& registry);

// The reduction family's op (ops_reduction.cpp), which global_avg_pool reuses: a mean
// over the spatial dims.
std::unique_ptr<ClOp> CreateReduceOp(const NodeInfo& node);

// ---- helpers for op implementations ----------------------------------------------------

// The reason of every decline for an op that is registered but not implemented for this
// dtype or device: "f64 needs cl_khr_fp64, which this device lacks" etc. Returns true
// when every dtype in `types` is usable on the device.
bool DTypesUsable(std::span<const TensorType> types, const DeviceCaps& device, std::string& reason);

// The supports test of ops that take float dtypes only (the schema's set): declines an
// integer or bool input 0 ("<op> takes float dtypes only"), then as DTypesUsable.
bool SupportsFloatOnly(const NodeInfo& node, const DeviceCaps& device, std::string& reason);

// A kernel argument of any trivially copyable type, or a cl_mem.
class KernelArgs {
 public:
  KernelArgs(cl_kernel kernel) : kernel_(kernel) {}
  template <typename T>
  KernelArgs& Add(const T& value) {
    Set(sizeof(T), &value);
    return *this;
  }
  // A tensor: (mem, byte offset) as two arguments.
  KernelArgs& Tensor(const ClTensor& t) {
    Add(t.mem);
    return Add(static_cast<cl_ulong>(t.offset));
  }
  // A compute-type scalar of `dtype` (float, double or long): `value` converted.
  KernelArgs& Scalar(DType dtype, double value);
  KernelArgs& IntScalar(DType dtype, int64_t value);  // long for integer dtypes
  // A __local buffer of `bytes` (allocated by the launch).
  KernelArgs& Local(size_t bytes) {
    Set(bytes, nullptr);
    return *this;
  }

 private:
  void Set(size_t size, const void* value);
  cl_kernel kernel_;
  cl_uint index_ = 0;
};

// Enqueues `kernel` over n work-items (nothing when n is 0).
void Launch1D(cl_command_queue queue, cl_kernel kernel, uint64_t n);

}  // namespace sy::opencl
