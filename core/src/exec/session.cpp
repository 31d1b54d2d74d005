// The public Session (switchyard/session.h): it creates the kind of session a graph needs
// (exec/session_kind.h) and gives the caller's view of it: the inputs the caller passes
// and the outputs a run returns (decoding state's are the session's own), and the checks
// of an IoBinding.
#include "switchyard/session.h"

#include <algorithm>

#include "exec/dynamic_session.h"
#include "exec/planned_session.h"
#include "exec/stateful_session.h"
#include "format/state_structure.h"
#include "switchyard/value_names.h"

namespace sy {

Session::Session(std::unique_ptr<SessionKind> kind, std::shared_ptr<StateStore> state)
    : state_(std::move(state)), kind_(std::move(kind)) {
  for (size_t k = 0; k < kind_->input_names().size(); ++k) {
    const std::string& name = kind_->input_names()[k];
    if (state_ != nullptr && (state_->IsStateInput(name) || name == state_->position_name)) {
      continue;
    }
    caller_input_names_.push_back(name);
    caller_input_types_.push_back(kind_->input_types()[k]);
  }
  const Graph& graph = kind_->source_graph();
  for (ValueId id : graph.outputs) {
    const bool next_state = std::any_of(graph.state.values.begin(), graph.state.values.end(),
                                        [id](const StateValue& v) { return v.output == id; });
    if (next_state) continue;
    caller_output_names_.push_back(graph.values[id].name);
    caller_output_types_.push_back(graph.values[id].type);
  }
}

Session::~Session() = default;

Expected<std::unique_ptr<Session>> Session::Make(const Graph& graph, const PluginHost* host,
                                                 const PlanOptions& options) {
  // A graph built in code has not been through the reader's check of its state.
  SY_RETURN_IF_ERROR(CheckStateStructure(graph));
  auto state = graph.state.empty() ? nullptr : std::make_shared<StateStore>(graph);
  std::unique_ptr<SessionKind> kind;
  if (graph.IsSymbolic()) {
    SY_ASSIGN_OR_RETURN(kind, DynamicSession::Create(graph, host, options, state));
  } else {
    SY_ASSIGN_OR_RETURN(kind, PlannedSession::Build(graph, host, options, nullptr, state));
  }
  if (state != nullptr) kind = std::make_unique<StatefulSession>(std::move(kind), state);
  return std::unique_ptr<Session>(new Session(std::move(kind), std::move(state)));
}

Expected<std::unique_ptr<Session>> Session::Create(const Graph& graph, const Device& device,
                                                   int optimize_level) {
  PlanOptions options;
  options.optimize_level = optimize_level;
  options.devices = {&device};
  options.use_hints_and_fallback = false;
  options.merge_islands = false;
  return Make(graph, nullptr, options);
}

Expected<std::unique_ptr<Session>> Session::Create(const Graph& graph, const PluginHost& host,
                                                   const PlanOptions& options) {
  return Make(graph, &host, options);
}

Expected<std::map<std::string, Tensor>> Session::Run(const std::map<std::string, Tensor>& inputs) {
  RunIo io;
  io.host = &inputs;
  return kind_->Run(io);
}

Status Session::Run(IoBinding& binding) {
  // The last run's device outputs, reused where nobody else holds them; results of a failed
  // run are empty.
  std::map<std::string, DeviceTensor> previous;
  std::swap(previous, binding.device_outputs_);
  binding.host_outputs_.clear();
  // Names, empties and shared storage refused before anything runs.
  const std::vector<std::string>& outputs = caller_output_names_;
  auto known = [&](const std::string& name) -> Status {
    if (std::find(outputs.begin(), outputs.end(), name) != outputs.end()) return Status::Ok();
    std::string list;
    for (const std::string& n : outputs) list += (list.empty() ? "" : ", ") + PrintableName(n);
    return InvalidArgument("output \"" + PrintableName(name) +
                           "\" is bound but the model has no such output " +
                           "(its outputs are: " + (list.empty() ? "none" : list) + ")");
  };
  for (const auto& [name, tensor] : binding.device_inputs_) {
    if (!tensor.valid()) {
      return InvalidArgument("input \"" + PrintableName(name) +
                             "\" is bound to an empty DeviceTensor");
    }
  }
  for (const auto& [name, tensor] : binding.output_into_) {
    SY_RETURN_IF_ERROR(known(name));
    if (!tensor.valid()) {
      return InvalidArgument("output \"" + PrintableName(name) +
                             "\" is bound to an empty DeviceTensor");
    }
    for (const auto& [input, bound] : binding.device_inputs_) {
      if (tensor.SharesStorageWith(bound)) {
        return InvalidArgument(
            "output \"" + PrintableName(name) + "\" is bound to the device tensor of input \"" +
            PrintableName(input) + "\": a run may not write what it reads (bind another)");
      }
    }
    for (const auto& [other, bound] : binding.output_into_) {
      if (other < name && tensor.SharesStorageWith(bound)) {
        return InvalidArgument("outputs \"" + PrintableName(other) + "\" and \"" +
                               PrintableName(name) + "\" are bound to the same device tensor");
      }
    }
  }
  for (const auto& [name, device] : binding.output_on_) SY_RETURN_IF_ERROR(known(name));
  RunIo io;
  io.host = &binding.host_inputs_;
  io.device = &binding.device_inputs_;
  io.output_into = &binding.output_into_;
  io.output_on = &binding.output_on_;
  io.device_outputs = &binding.device_outputs_;
  io.previous = &previous;
  Expected<std::map<std::string, Tensor>> ran = kind_->Run(io);
  if (!ran.ok()) {
    binding.device_outputs_.clear();
    return ran.status();
  }
  binding.host_outputs_ = std::move(*ran);
  return Status::Ok();
}

const Plan& Session::plan() const { return kind_->plan(); }
const Graph& Session::graph() const { return kind_->graph(); }
const OptimizeReport& Session::optimize_report() const { return kind_->optimize_report(); }
const Device& Session::device() const { return kind_->device(); }
const Graph* Session::symbolic_graph() const { return kind_->symbolic_graph(); }
const Session::Stats& Session::stats() const { return kind_->stats(); }
void Session::set_profiling(bool on) { kind_->set_profiling(on); }
bool Session::profiling() const { return kind_->profiling(); }
Profile& Session::profile() { return kind_->profile(); }
const Profile& Session::profile() const { return kind_->profile(); }

int64_t Session::state_length() const { return state_ != nullptr ? state_->length : 0; }

int64_t Session::state_capacity() const { return state_ != nullptr ? state_->capacity() : 0; }

int64_t Session::StatePositions(const std::map<std::string, Tensor>& inputs) const {
  if (state_ == nullptr) return 0;
  auto it = inputs.find(state_->advance_name);
  if (it == inputs.end() || it->second.type().rank() <= state_->advance_axis) return 0;
  return it->second.shape()[state_->advance_axis];
}

Status Session::Reset() {
  if (state_ == nullptr) {
    return InvalidArgument(
        "Reset: this session's model keeps no decoding state (docs/decoding.md)");
  }
  return state_->Clear();
}

}  // namespace sy
