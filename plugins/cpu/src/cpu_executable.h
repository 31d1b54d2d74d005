// A partition prepared for one of the CPU devices: kernels resolved, attributes decoded,
// the layout of each intermediate chosen and intermediate buffers allocated once at
// prepare time, then reused by every execute.
//
// Layouts: an intermediate that flows only between kernels that take channels-last (the
// oneDNN convolutions and pools, qlinear_conv, per-channel binary ops), possibly through
// pointwise steps, is stored channels-last, so those kernels skip their NCHW <-> NHWC
// reorders; everything the host binds (the partition's inputs and outputs) and everything
// another kernel reads stays row-major, the catalogue's layout (ChooseLayouts; Layout in
// kernel.h; docs/cpu-kernels.md, "Channels-last intermediates").
//
// A Session binds every value a partition produces (its arena plans their memory); the
// outputs it marks in sy_partition.outputs_internal (read by nothing outside the
// partition) are free to take another layout, as unbound intermediates are.
#pragma once

#include <memory>
#include <vector>

#include "half_as_f32.h"
#include "kernel.h"
#include "switchyard/plugin_cpp.h"
#include "switchyard/plugin_partition.h"

namespace sy::cpu {

class CpuExecutable : public sy_executable {
 public:
  // Throws sy_sdk::Error on a malformed partition or an op without a kernel. `pool` (may
  // be null: run on the executing thread) is the context's, borrowed: the host destroys
  // executables before shutting their context down.
  CpuExecutable(const KernelTable& table, const sy_partition& partition, ThreadPool* pool);
  // The same from a partition already decoded by the SDK's plugin kit.
  CpuExecutable(const KernelTable& table, const plugin::Partition& partition, ThreadPool* pool);

  void Execute(sy_buffer* const* buffers, uint32_t count) override;
  // The same, timing each step (one per node, in the partition's order) on the host's
  // steady clock (docs/profiling.md).
  void ExecuteTimed(sy_buffer* const* buffers, uint32_t count, sy_node_time* times,
                    uint32_t num_times) override;
  // Runs at the sizes `partition` gives (execute_resized; docs/plugin-abi.md, "Executables
  // that run at other sizes"): re-reads the value types and attributes when they differ
  // from the last run's, then runs as Execute does. Throws SY_ERROR_UNSUPPORTED for sizes
  // other than the prepared ones when a step runs a kernel prepared for its sizes that
  // cannot take the new ones (PreparedKernel::Resized: oneDNN's matmuls can, over the
  // weights they packed; convolutions and pools cannot), SY_ERROR_INVALID_ARGUMENT when
  // the partition's structure is not this one's.
  void ExecuteResized(const sy_partition& partition, sy_buffer* const* buffers,
                      uint32_t count) override;

  // How many steps run a kernel prepared at prepare time (a library primitive), for
  // tests.
  size_t prepared_step_count() const;
  // The values (indices into the partition's value table) stored channels-last, in
  // increasing order, for tests.
  std::vector<uint32_t> channels_last_values() const;

 private:
  struct Step {
    std::string op;
    KernelFn kernel = nullptr;
    std::unique_ptr<PreparedKernel> prepared;  // runs instead of `kernel` when set
    // Set when the step's f16 values run through its f32 kernel (half_as_f32.h); the
    // kernel and `prepared` then see f32 types.
    std::unique_ptr<HalfAsF32> half;
    Attrs attrs;
    std::vector<uint32_t> inputs;   // value indices
    std::vector<uint32_t> outputs;  // value indices
    // Views built once at prepare time; execute only refreshes their data pointers, so
    // dispatching a node allocates nothing.
    std::vector<ConstTensorView> input_views;
    std::vector<TensorView> output_views;
    // This run's magnitude bounds of the inputs and outputs (KernelContext::input_bounds).
    std::vector<double> input_bounds, output_bounds;
  };

  ThreadPool* pool_;  // passed to every kernel
  // The second half of prepare: stores channels-last each value whose layout the host
  // does not fix (`layout_fixed`, per value: the bound ones), that has a producing step
  // and whose producer and readers all accept it that way
  // (PreparedKernel::AcceptsChannelsLast*) or are layout-transparent (pointwise steps,
  // which join the values they read and write into one component that shares a layout),
  // then tells those kernels (UseLayouts).
  void ChooseLayouts(const std::vector<bool>& layout_fixed);
  // Whether `step` computes each output element from the same element of its inputs (or
  // their one element), so that its values may share any layout (ChooseLayouts).
  bool LayoutTransparent(const Step& step) const;
  // Execute's body; `times` (null: not timed) has one entry per step.
  void Run(sy_buffer* const* buffers, uint32_t count, sy_node_time* times);
  // ExecuteResized's checks: throws SY_ERROR_INVALID_ARGUMENT unless `partition` differs
  // from this executable's only in dims and attribute values.
  void CheckSameStructure(const plugin::Partition& partition) const;
  // ExecuteResized's second half: takes `partition`'s value types and attributes.
  void Resize(const plugin::Partition& partition);
  // Whether a node of `entry`'s op with these types runs its f16 values through the f32
  // kernel (half_as_f32.h says when).
  static bool RunsHalfAsF32(const KernelTable::Entry& entry, std::span<const TensorType> inputs,
                            std::span<const TensorType> outputs);
  // Grows half_scratch_ to what the largest half step needs at the current sizes.
  void SizeHalfScratch();
  // half_scratch_'s first 64-byte boundary, and the bytes from there to its end.
  std::byte* HalfScratch();
  size_t HalfScratchCapacity();

  std::vector<TensorType> values_;
  std::vector<uint32_t> bound_;  // the partition's bound values: inputs, then outputs
  std::vector<Step> steps_;
  plugin::HostValues host_values_;  // per value: where its bytes are this run
  std::vector<Layout> layouts_;     // per value: how its bytes are ordered
  std::vector<double> bounds_;      // per value: its magnitude bound in the current run
  // The sizes this executable runs at, as words (SizeWords in cpu_executable.cpp: value
  // dims and attribute values), so that execute_resized tells new sizes from the current
  // ones without decoding anything; those of the partition prepared until the first
  // resize. `size_scratch_` holds the words of the partition being compared, kept to
  // allocate nothing per run.
  std::vector<int64_t> size_words_, size_scratch_;
  // The f32 copies of one half step's f16 tensors while it runs (steps run one at a
  // time, so they share it); sized at prepare and resize, never per run.
  std::vector<std::byte> half_scratch_;
};

}  // namespace sy::cpu
