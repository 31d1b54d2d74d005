// Internal: a session of one graph with static shapes (exec/session_kind.h): the graph as
// the optimization pass left it, its plan, one arena per device sliced as the memory plan
// says, the constants uploaded once (or read in place), every partition prepared, and the
// steps a run takes in order: copies between devices and partition executions.
//
// Owned by the public Session, or by a DynamicSession's cache as one specialisation.
// It holds buffers and executables of its devices' plugins: destroyed before the
// PluginHost.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "exec/session_kind.h"
#include "exec/transfers.h"

namespace sy {

class NodeDescriptors;
class PartitionDescriptor;
class ExecutableShelf;  // executables a dynamic session's specialisations share
class StateStore;       // a session's decoding state (docs/decoding.md)

class PlannedSession final : public SessionKind {
 public:
  // Optimizes, plans and prepares `graph` (static shapes, validated). `shelf` (may be
  // null): the dynamic session's executables that devices declaring
  // SY_DEVICE_FLAG_RESIZABLE run at other sizes (exec/shared_executables.h). `state` (may
  // be null): the decoding state the plan binds.
  static Expected<std::unique_ptr<PlannedSession>> Build(const Graph& graph, const PluginHost* host,
                                                         const PlanOptions& options,
                                                         ExecutableShelf* shelf,
                                                         const std::shared_ptr<StateStore>& state);
  ~PlannedSession() override;
  PlannedSession(const PlannedSession&) = delete;
  PlannedSession& operator=(const PlannedSession&) = delete;

  // One run: the inputs bound or copied where the steps read them, the steps in order,
  // the outputs delivered. Errors leave the session usable.
  Expected<std::map<std::string, Tensor>> Run(const RunIo& io) override;

  const Plan& plan() const override { return plan_; }
  const Graph& graph() const override { return graph_; }
  const OptimizeReport& optimize_report() const override { return optimize_report_; }
  const Device& device() const override;
  // Every graph input but the decoding state's (which the plan binds).
  const std::vector<std::string>& input_names() const override { return input_names_; }
  const std::vector<TensorType>& input_types() const override { return input_types_; }
  const Graph& source_graph() const override { return graph_; }
  const Graph* symbolic_graph() const override { return nullptr; }

  Session::Stats& stats() override { return stats_; }
  Profile& profile() override { return profile_; }
  bool profiling() const override { return profiling_; }
  void set_profiling(bool on) override { profiling_ = on; }

 private:
  PlannedSession() = default;
  struct Step;
  struct Residency;
  // Build's three builders, in order. PlaceValues: arenas and their slices, weights, shared
  // copies' wrapped buffers. PrepareSteps: the copies and each partition's prepare.
  // BindInputsAndOutputs: where each run puts the graph inputs and reads the outputs.
  Status PlaceValues(Residency& where);
  using PrepareCallback = std::function<void(size_t, size_t, const Device&)>;
  Status PrepareSteps(const NodeDescriptors& descriptors, const Residency& where,
                      const PrepareCallback& on_prepare, ExecutableShelf* shelf);
  // Prepares `descriptor` on `device` into `step` (counted in stats_.prepares); `before`
  // (may be empty) runs first. `what` leads an error's message.
  Status PrepareStep(Step& step, const Device& device, const PartitionDescriptor& descriptor,
                     const std::string& what, const std::function<void()>& before);
  void BindInputsAndOutputs(const Residency& where);
  // A buffer of `device` over `bytes` of host memory the session owns (an arena slice of
  // another device), owned by buffers_; null when the plugin declines.
  const SessionBuffer* WrapHost(const Device& device, void* host, uint64_t bytes);
  // A buffer of `bytes` on `device`, owned by buffers_.
  Expected<const SessionBuffer*> Allocate(const Device& device, uint64_t bytes,
                                          std::string_view what);
  // A slice of `arena` (or, when the plugin has no buffer_view, a buffer of its own).
  Expected<const SessionBuffer*> Slice(const SessionBuffer& arena, uint64_t offset, uint64_t bytes,
                                       std::string_view what);
  // Run's parts: the inputs bound or copied where the steps read them, and the outputs'
  // device targets (written in place where the plan allows).
  Status BindRunInputs(const RunIo& io);
  Status BindRunOutputs(const RunIo& io);
  // Profiling: the events of one step that ran from `start` to `end`.
  void RecordStep(const Step& step, std::chrono::steady_clock::time_point start,
                  std::chrono::steady_clock::time_point end, bool nodes_timed);

  Graph graph_;  // as planned; shares constant storage with the caller's graph
  // graph_'s node descriptions, kept only while a step runs an executable prepared for
  // other sizes (Step::resized points into them).
  std::unique_ptr<NodeDescriptors> descriptors_;
  OptimizeReport optimize_report_;
  Plan plan_;
  Session::Stats stats_;
  // Every device buffer (arenas, views, weights), freed in reverse order of creation so
  // that views go before their arenas.
  std::vector<std::unique_ptr<SessionBuffer>> buffers_;
  std::vector<std::unique_ptr<Step>> steps_;  // partitions and copies, in order
  std::vector<std::byte> staging_;            // host memory for copies between two device memories
  std::vector<std::string> input_names_;
  std::vector<TensorType> input_types_;
  // Where each graph input goes: a planned buffer on every device that reads it, and
  // for host-memory devices that can wrap host memory, the places in the steps' bound
  // lists to point at the caller's tensor instead (no copy).
  struct InputTarget {
    const SessionBuffer* buffer = nullptr;
    std::vector<std::pair<size_t, size_t>> uses;  // (step, index into its bound list)
    bool in_place = false;                        // the device wraps host memory (buffer_wrap_host)
  };
  std::vector<std::vector<InputTarget>> input_targets_;               // per graph input
  std::vector<std::pair<sy_buffer*, const sy_plugin_api*>> wrapped_;  // this run's
  struct Output {
    std::string name;
    TensorType type;
    const SessionBuffer* source = nullptr;  // the producing device's buffer, or null when
    Tensor fixed;                           // a constant,
    int64_t from_input = -1;                // or a graph input
    // Where the plan lets a bound device tensor take source's place for a run (nothing
    // else shares source's bytes: no alias, no copy of the value), the places in the
    // steps' bound lists that hold source.
    bool redirectable = false;
    std::vector<std::pair<size_t, size_t>> uses;
  };
  std::vector<Output> outputs_;
  // Per output, this run's device target (invalid: to the host) and whether its producer
  // writes it in place; scratch of Run.
  std::vector<DeviceTensor> output_targets_;
  std::vector<bool> output_in_place_;
  bool profiling_ = false;
  Profile profile_;
  std::vector<std::string> node_shapes_;  // per graph node, for profiles; built on first use
  // Decoding state whose buffers the plan binds (shared with the session that owns it).
  std::shared_ptr<StateStore> state_;
};

}  // namespace sy
