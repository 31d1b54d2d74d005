// A partition prepared for one CUDA device: each node's CuOp picked and prepared (meta
// data uploaded, cuBLAS set up), intermediates allocated from the device's pool, one
// stream. Execute enqueues every node on that stream with no host synchronisation in
// between, or replays a CUDA graph of them (below), then synchronises once (ABI v1 is
// synchronous) and checks the data-error flags the kernels may have set.
//
// CUDA graphs: when every op is Capturable, the first execute captures the stream's work
// (flag reset, every node, flag read-back) into a graph and launches it; later executes
// with the same bound buffer addresses replay it as one launch. New addresses are
// captured again (cudaGraphExecUpdate keeps the instantiated graph when the topology is
// unchanged). SWITCHYARD_CUDA_GRAPHS=0 (read at prepare) enqueues every node every time.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "cu_op.h"
#include "cuda_runtime.h"

namespace sy::cuda {

class CudaExecutable : public sy_executable {
 public:
  // Throws sy_sdk::Error: SY_ERROR_INVALID_ARGUMENT for a malformed partition or node
  // types that disagree with the op's shape rule, SY_ERROR_UNSUPPORTED for a node the
  // device declines (with the reason), SY_ERROR_RESOURCE_EXHAUSTED when memory runs out.
  CudaExecutable(Device& device, const sy_partition& partition);
  ~CudaExecutable() override;

  void Execute(sy_buffer* const* buffers, uint32_t count) override;
  // The same, each node directly on the stream (no graph) with a CUDA event after it, so
  // each node's device time comes from cudaEventElapsedTime, measured from an event
  // recorded before the first node (docs/profiling.md).
  void ExecuteTimed(sy_buffer* const* buffers, uint32_t count, sy_node_time* times,
                    uint32_t num_times) override;

  // How the last Execute ran (for tests and docs/cuda.md's measurements).
  enum class Mode { kNone, kDirect, kCaptured, kReplayed };
  Mode last_mode() const { return last_mode_; }
  bool uses_graphs() const { return graphs_; }

 private:
  struct Step {
    NodeInfo node;
    std::unique_ptr<CuOp> op;
    std::vector<uint32_t> inputs, outputs;  // value indices
    std::vector<CuTensor> input_tensors, output_tensors;
    size_t first_slot = 0, num_slots = 0;  // its error slots
  };
  // Owned CUDA objects, released in the destructor (the device made current first).
  struct Handles {
    cudaStream_t stream = nullptr;
    cudaGraphExec_t graph = nullptr;
    int* flags_host = nullptr;  // pinned
    ~Handles();
  };

  // Points the steps' tensors at this execute's buffers.
  void Bind(sy_buffer* const* buffers, uint32_t count);
  // Enqueues every step (and the error flags' reset and read-back); with `after`, records
  // after[n] once step n is enqueued.
  void EnqueueAll(const std::vector<cudaEvent_t>* after = nullptr);
  // Throws the first data error of the last execute, in step order: a step's error
  // slots (flags a kernel set), then its own check (CuOp::CheckData).
  void CheckFlags() const;
  // Captures EnqueueAll into handles_.graph; false (and graphs off for this executable)
  // when the stream cannot be captured.
  bool Capture();

  Device& device_;
  Handles handles_;
  std::vector<TensorType> values_;
  std::vector<uint64_t> bytes_;                      // per value
  std::vector<void*> data_;                          // per value: the device address bound or owned
  std::vector<uint32_t> bound_;                      // partition inputs, then outputs
  std::vector<std::shared_ptr<DeviceBlock>> owned_;  // intermediates, meta data, scratch
  std::shared_ptr<DeviceBlock> flags_;               // device ints, one per error slot
  std::vector<std::string> error_messages_;          // per error slot
  bool graphs_ = false;
  bool graph_empty_ = false;     // the captured graph has no nodes
  std::vector<void*> captured_;  // bound addresses the graph was captured with
  Mode last_mode_ = Mode::kNone;
  std::vector<Step> steps_;  // declared last: ops go before their memory
};

// Whether `device` can run `node`; the reason otherwise (supports_node).
bool SupportsNode(const Device& device, const NodeInfo& node, std::string& reason);

}  // namespace sy::cuda
