// A partition prepared for one OpenCL device: each node's ClOp picked, its programs
// compiled and kernels created, intermediates allocated, all at prepare time. Execute
// enqueues every node on the executable's own in-order queue, waits once (ABI v1 is
// synchronous), then checks the data-error flags the kernels may have set. At other sizes
// (execute_resized, SY_DEVICE_FLAG_RESIZABLE) each op is prepared again for them, its
// programs from the program cache, and intermediates grow where they must: a dynamic
// session runs one executable at every size.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "cl_op.h"
#include "cl_runtime.h"
#include "switchyard/plugin_partition.h"

namespace sy::opencl {

class OpenClExecutable : public sy_executable {
 public:
  // Throws sy_sdk::Error: SY_ERROR_INVALID_ARGUMENT for a malformed partition or node
  // types that disagree with the op's shape rule, SY_ERROR_UNSUPPORTED for a node the
  // device declines, SY_ERROR_INTERNAL with the build log when a kernel does not compile.
  OpenClExecutable(Device& device, const sy_partition& partition);

  void Execute(sy_buffer* const* buffers, uint32_t count) override;
  // The same, waiting for each node (clFinish) and timing it on the host's clock: the
  // launch included, the queue drained between nodes (docs/profiling.md).
  void ExecuteTimed(sy_buffer* const* buffers, uint32_t count, sy_node_time* times,
                    uint32_t num_times) override;
  // Throws SY_ERROR_INVALID_ARGUMENT for a partition of another structure (only dims and
  // attribute values may change), and what prepare throws for the new sizes.
  void ExecuteResized(const sy_partition& partition, sy_buffer* const* buffers,
                      uint32_t count) override;

 private:
  // What depends on the sizes: steps (ops prepared), values, intermediates, error slots.
  void Build(const plugin::Partition& partition);
  // execute_resized's partition has this one's structure: nodes, operands, bound values,
  // dtypes and ranks (else SY_ERROR_INVALID_ARGUMENT).
  void CheckSameStructure(const plugin::Partition& partition) const;
  // True when `partition` (of the same structure) has the sizes and attribute values this
  // executable runs.
  bool SameSizes(const plugin::Partition& partition) const;
  // Execute's body; `times` (null: not timed) has one entry per step.
  void Run(sy_buffer* const* buffers, uint32_t count, sy_node_time* times);

  struct Step {
    NodeInfo node;
    std::unique_ptr<ClOp> op;
    std::vector<uint32_t> inputs, outputs;  // value indices
    std::vector<ClTensor> input_tensors, output_tensors;
    size_t first_slot = 0, num_slots = 0;  // its error slots
  };
  // Throws the first data error of the last execute, in step order: a step's error
  // slots, then its own check (ClOp::CheckData).
  void CheckErrors() const;

  Device& device_;
  UniqueQueue queue_;
  std::vector<TensorType> values_;
  std::vector<Step> steps_;
  std::vector<uint32_t> bound_;                   // partition inputs, then outputs
  std::vector<std::unique_ptr<ClBuffer>> owned_;  // per value: its intermediate, or null
  std::vector<ClTensor> tensors_;                 // per value: where its bytes are
  std::vector<uint64_t> bytes_;                   // per value
  std::vector<std::string> error_messages_;       // per error slot
  UniqueMem error_flags_;                         // ints, one per slot (at least one)
  std::vector<cl_int> flags_host_;
};

// Whether `device` can run `node`; the reason otherwise (supports_node).
bool SupportsNode(const Device& device, const NodeInfo& node, std::string& reason);

}  // namespace sy::opencl
