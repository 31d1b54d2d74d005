// Internal: a session whose graph keeps decoding state between runs (docs/decoding.md;
// exec/session_kind.h): a PlannedSession or DynamicSession whose plans bind the state's
// buffers (which live in the StateStore), wrapped in the checks and bookkeeping of each
// run: the state's inputs are not the caller's to pass, the run must fit in the capacity,
// the position input is filled with the positions held, and the length grows on success.
#pragma once

#include <memory>

#include "exec/session_kind.h"
#include "exec/state_store.h"

namespace sy {

class StatefulSession final : public SessionKind {
 public:
  StatefulSession(std::unique_ptr<SessionKind> inner, std::shared_ptr<StateStore> state)
      : state_(std::move(state)), inner_(std::move(inner)) {}

  Expected<std::map<std::string, Tensor>> Run(const RunIo& io) override;

  const Plan& plan() const override { return inner_->plan(); }
  const Graph& graph() const override { return inner_->graph(); }
  const OptimizeReport& optimize_report() const override { return inner_->optimize_report(); }
  const Device& device() const override { return inner_->device(); }
  const std::vector<std::string>& input_names() const override { return inner_->input_names(); }
  const std::vector<TensorType>& input_types() const override { return inner_->input_types(); }
  const Graph& source_graph() const override { return inner_->source_graph(); }
  const Graph* symbolic_graph() const override { return inner_->symbolic_graph(); }

  Session::Stats& stats() override { return inner_->stats(); }
  Profile& profile() override { return inner_->profile(); }
  bool profiling() const override { return inner_->profiling(); }
  void set_profiling(bool on) override { inner_->set_profiling(on); }

 private:
  std::shared_ptr<StateStore> state_;
  std::unique_ptr<SessionKind> inner_;  // destroyed first: its plans bind the state's buffers
};

}  // namespace sy
