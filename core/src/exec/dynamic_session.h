// Internal: a session of a graph with run-time sizes (docs/dynamic-shapes.md;
// exec/session_kind.h): each run with a set of input shapes not seen before specialises
// the graph (switchyard/specialize.h) and builds a PlannedSession for those shapes; the
// last PlanOptions::max_specializations of them are kept per stage, least recently used
// first out, so that a run with a seen set of shapes allocates nothing. A graph with data
// symbols runs in stages (exec/stages.h), each specialised once the sizes it needs are
// known.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "exec/planned_session.h"
#include "exec/shared_executables.h"
#include "exec/stages.h"
#include "switchyard/specialize.h"

namespace sy {

class DynamicSession final : public SessionKind {
 public:
  // Checks and keeps `graph`; where its symbols have examples and it runs in one stage,
  // the first specialisation is built now (a graph the devices cannot run fails here, and
  // plan() has something to show). `state` (may be null): the decoding state every
  // specialisation binds.
  static Expected<std::unique_ptr<DynamicSession>> Create(const Graph& graph,
                                                          const PluginHost* host,
                                                          const PlanOptions& options,
                                                          const std::shared_ptr<StateStore>& state);
  ~DynamicSession() override;

  Expected<std::map<std::string, Tensor>> Run(const RunIo& io) override;

  // The last specialisation used; before any, the graph as given with an empty plan.
  const Plan& plan() const override { return shown_ ? shown_->plan() : empty_plan_; }
  const Graph& graph() const override { return shown_ ? shown_->graph() : graph_; }
  const OptimizeReport& optimize_report() const override {
    return shown_ ? shown_->optimize_report() : empty_report_;
  }
  const Device& device() const override;
  // Every graph input, state included, as recorded (dims that are symbols are -1).
  const std::vector<std::string>& input_names() const override { return input_names_; }
  const std::vector<TensorType>& input_types() const override { return input_types_; }
  const Graph& source_graph() const override { return graph_; }
  const Graph* symbolic_graph() const override { return &graph_; }

  Session::Stats& stats() override { return stats_; }
  Profile& profile() override { return profile_; }
  bool profiling() const override { return profiling_; }
  void set_profiling(bool on) override { profiling_ = on; }

 private:
  DynamicSession() = default;
  // The specialisation of stage `stage` for the shapes and data sizes in the scratch
  // below, from the cache or built (with `inputs`' sizes of the graph's own symbols).
  Expected<PlannedSession*> SpecializationFor(size_t stage, const SymbolBinding* inputs);
  Expected<std::map<std::string, Tensor>> RunSpecialization(PlannedSession& active,
                                                            const RunIo& io);
  // Input `name` in host memory: the host tensor, or a device tensor's copy (a data
  // symbol's size is read on the host).
  Expected<Tensor> HostValue(const RunIo& io, const std::string& name);
  // A new specialisation's device memory and prepares, counted into stats_.
  void CountBuilt(const Session::Stats& made);

  Graph graph_;  // as given, symbols and all
  const PluginHost* host_ = nullptr;
  PlanOptions options_;  // without on_prepare, which serves Create only
  std::shared_ptr<StateStore> state_;
  std::vector<std::string> input_names_;
  std::vector<TensorType> input_types_;
  // Executables of its specialisations that other specialisations may run at their sizes;
  // declared before `stages_` so that it outlives their sessions, which point at it.
  ExecutableShelf shelf_;
  // Each stage's cache holds at most options_.max_specializations sessions, most recently
  // used first; each lives until it is evicted or this session is destroyed.
  std::vector<Stage> stages_;
  const PlannedSession* shown_ = nullptr;  // owned by a stage's cache
  Plan empty_plan_;
  OptimizeReport empty_report_;
  Session::Stats stats_;
  bool profiling_ = false;
  Profile profile_;
  std::vector<std::byte> staging_;  // for outputs of a staged run delivered between devices
  // Scratch of one run: the graph inputs' shapes, each stage's input shapes and data sizes,
  // and the tensors of a staged run by value name.
  std::vector<Shape> input_shapes_;
  std::vector<Shape> shapes_;
  std::vector<int64_t> data_sizes_;
  std::map<std::string, Tensor> values_;
};

}  // namespace sy
