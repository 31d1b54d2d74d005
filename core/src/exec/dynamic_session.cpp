// Dynamic sessions (exec/dynamic_session.h; docs/dynamic-shapes.md): a graph with run-time
// sizes, specialised per set of input shapes, each specialisation a PlannedSession kept in
// a small LRU cache; a graph with data symbols runs in stages (exec/stages.h), each
// specialised once the sizes it needs are known.
#include <algorithm>

#include "exec/dynamic_session.h"
#include "exec/state_store.h"
#include "sched/placement.h"
#include "switchyard/value_names.h"

namespace sy {
namespace {

// The size a data symbol's value holds: one integer, 0 to kMaxElementCount.
Expected<int64_t> DataSize(const Tensor& t, const std::string& symbol, const std::string& value) {
  if (!IsInteger(t.dtype()) || t.element_count() != 1) {
    return InvalidArgument("symbol " + symbol + " takes its size from '" + PrintableName(value) +
                           "', which is " + t.type().ToString() + " (expected one integer)");
  }
  const double v = ElementAsDouble(t, 0);
  if (!(v >= 0) || v > static_cast<double>(kMaxElementCount)) {
    return InvalidArgument("symbol " + symbol + " takes its size from '" + PrintableName(value) +
                           "', which holds " + std::to_string(v) +
                           " (expected a size of 0 to 2^60)");
  }
  return static_cast<int64_t>(v);
}

}  // namespace

DynamicSession::~DynamicSession() {
  // The specialisations go before the shelf whose executables they share.
  stages_.clear();
}

const Device& DynamicSession::device() const {
  if (shown_ != nullptr) return shown_->device();
  // Before the first specialisation: the device it would try first, in the planner's
  // order (GPUs and accelerators before CPUs, reference devices not at all).
  if (!options_.devices.empty()) return *options_.devices.front();
  const std::vector<const Device*> order = sched::PlatformOrder(*host_);
  return order.empty() ? *host_->devices().front() : *order.front();
}

void DynamicSession::CountBuilt(const Session::Stats& made) {
  ++stats_.specializations;
  stats_.buffer_allocations += made.buffer_allocations;
  stats_.buffer_views += made.buffer_views;
  stats_.weights_in_place += made.weights_in_place;
  stats_.prepares += made.prepares;
  stats_.executables_resized += made.executables_resized;
}

Expected<std::unique_ptr<DynamicSession>> DynamicSession::Create(
    const Graph& graph, const PluginHost* host, const PlanOptions& options,
    const std::shared_ptr<StateStore>& state) {
  auto session = std::unique_ptr<DynamicSession>(new DynamicSession());
  DynamicSession& s = *session;
  s.graph_ = graph;
  s.host_ = host;
  s.state_ = state;  // every specialisation binds it
  s.options_ = options;
  s.options_.max_specializations = std::max<size_t>(1, options.max_specializations);
  // on_prepare serves this call only: a caller's progress display may not outlive it,
  // and later specialisations happen inside Run.
  s.options_.on_prepare = nullptr;
  SY_ASSIGN_OR_RETURN(s.stages_, SplitIntoStages(graph));
  for (ValueId id : graph.inputs) {
    s.input_names_.push_back(graph.values[id].name);
    s.input_types_.push_back(graph.values[id].type);
  }
  // Where the graph says how large its symbols usually are, the first specialisation of
  // a one-stage graph is built now: a graph that cannot be planned on the devices fails
  // here, not at the first run, and plan() has something to show.
  Expected<SymbolBinding> examples = ExampleBinding(graph);
  if (examples.ok() && s.stages_.size() == 1 && s.stages_[0].data.empty()) {
    std::vector<Shape> shapes;
    for (ValueId id : graph.inputs) {
      SY_ASSIGN_OR_RETURN(Shape shape, ExampleShape(graph, id));
      shapes.push_back(std::move(shape));
    }
    SY_ASSIGN_OR_RETURN(Graph specialised, Specialize(graph, *examples));
    SY_ASSIGN_OR_RETURN(std::unique_ptr<PlannedSession> first,
                        PlannedSession::Build(specialised, host, options, &s.shelf_, s.state_));
    s.CountBuilt(first->stats());
    s.shown_ = first.get();
    s.stages_[0].cache.push_front({std::move(shapes), {}, {}, std::move(first)});
  }
  return session;
}

Expected<PlannedSession*> DynamicSession::SpecializationFor(size_t stage_index,
                                                            const SymbolBinding* inputs) {
  Stage& stage = stages_[stage_index];
  // A later stage may use the graph's own symbols without reading an input that has them:
  // its key includes the graph inputs' shapes too.
  const bool staged = stages_.size() > 1;
  auto hit = std::find_if(stage.cache.begin(), stage.cache.end(), [&](const auto& e) {
    return e.shapes == shapes_ && e.data_sizes == data_sizes_ &&
           (!staged || e.input_shapes == input_shapes_);
  });
  if (hit != stage.cache.end()) {
    ++stats_.specialization_hits;
    if (hit != stage.cache.begin()) stage.cache.splice(stage.cache.begin(), stage.cache, hit);
    return stage.cache.front().session.get();
  }
  SY_ASSIGN_OR_RETURN(SymbolBinding binding, BindSymbols(stage.graph, shapes_));
  if (inputs != nullptr) binding.insert(inputs->begin(), inputs->end());
  for (size_t k = 0; k < stage.data.size(); ++k) binding[stage.data[k].first] = data_sizes_[k];
  SY_ASSIGN_OR_RETURN(Graph specialised, Specialize(stage.graph, binding));
  if (state_ != nullptr) state_->PinReaders(specialised);
  Expected<std::unique_ptr<PlannedSession>> built =
      PlannedSession::Build(specialised, host_, options_, &shelf_, state_);
  if (!built.ok()) {
    if (binding.empty()) return built.status();
    return built.status().WithContext("with " + BindingToString(binding));
  }
  CountBuilt((*built)->stats());
  if (stage.cache.size() >= options_.max_specializations) {
    // The least recently used goes first, with its device memory.
    if (shown_ == stage.cache.back().session.get()) shown_ = nullptr;
    stage.cache.pop_back();
    ++stats_.specializations_evicted;
  }
  stage.cache.push_front(
      {shapes_, data_sizes_, staged ? input_shapes_ : std::vector<Shape>{}, std::move(*built)});
  return stage.cache.front().session.get();
}

Expected<std::map<std::string, Tensor>> DynamicSession::RunSpecialization(PlannedSession& active,
                                                                          const RunIo& io) {
  shown_ = &active;
  // The specialisation records into this session's profile, so that one profile covers
  // every shape the session ran.
  active.set_profiling(profiling_);
  std::swap(active.profile(), profile_);
  // A run may prepare: where a plugin declines to run an executable at these sizes.
  const Session::Stats before = active.stats();
  Expected<std::map<std::string, Tensor>> outputs = active.Run(io);
  std::swap(active.profile(), profile_);
  const Session::Stats& after = active.stats();
  stats_.inputs_in_place += after.inputs_in_place - before.inputs_in_place;
  stats_.prepares += after.prepares - before.prepares;
  stats_.host_bytes_in += after.host_bytes_in - before.host_bytes_in;
  stats_.host_bytes_out += after.host_bytes_out - before.host_bytes_out;
  stats_.outputs_in_place += after.outputs_in_place - before.outputs_in_place;
  // Unsigned: a decline lowers the count, and the sum wraps back to the right value.
  stats_.executables_resized += after.executables_resized - before.executables_resized;
  return outputs;
}

Expected<Tensor> DynamicSession::HostValue(const RunIo& io, const std::string& name) {
  if (const Tensor* host = io.FindHost(name)) return *host;
  const DeviceTensor* on_device = io.FindDevice(name);
  if (on_device == nullptr) return InvalidArgument("missing input \"" + PrintableName(name) + "\"");
  SY_ASSIGN_OR_RETURN(Tensor copy, on_device->ToHost());
  stats_.host_bytes_in += copy.byte_size();
  return copy;
}

Expected<std::map<std::string, Tensor>> DynamicSession::Run(const RunIo& io) {
  // This run's input shapes, in graph input order; dtypes and names checked here because
  // a specialisation is looked up (or built) before any static session sees the inputs.
  input_shapes_.resize(input_names_.size());
  for (size_t k = 0; k < input_names_.size(); ++k) {
    if (state_ != nullptr && state_->IsStateInput(input_names_[k])) {
      // Decoding state has a fixed size, and its buffers are bound, not passed.
      input_shapes_[k] = input_types_[k].shape;
      continue;
    }
    const TensorType* type = io.FindType(input_names_[k]);
    if (type == nullptr) {
      return InvalidArgument("missing input \"" + PrintableName(input_names_[k]) + "\" (" +
                             ValueTypeString(graph_.values[graph_.inputs[k]]) + ")");
    }
    if (type->dtype != input_types_[k].dtype) {
      return InvalidArgument("input \"" + PrintableName(input_names_[k]) + "\" is " +
                             type->ToString() + " but the model expects " +
                             ValueTypeString(graph_.values[graph_.inputs[k]]));
    }
    input_shapes_[k].assign(type->shape.begin(), type->shape.end());
  }
  if (stages_.size() == 1) {
    // One stage: its inputs are graph inputs, though not always all of them (an input
    // that only gives a data symbol its value, as TopK's k, is read by no node).
    const Graph& stage_graph = stages_[0].graph;
    shapes_.clear();
    for (ValueId id : stage_graph.inputs) {
      const auto at =
          std::find(input_names_.begin(), input_names_.end(), stage_graph.values[id].name);
      if (at == input_names_.end()) {
        return Internal("stage 0 reads '" + PrintableName(stage_graph.values[id].name) +
                        "', which is not a graph input");
      }
      shapes_.push_back(input_shapes_[static_cast<size_t>(at - input_names_.begin())]);
    }
    data_sizes_.clear();
    for (const auto& [symbol, value] : stages_[0].data) {
      // A size read from a device tensor comes through the host (one integer).
      Expected<Tensor> t = HostValue(io, value);
      Expected<int64_t> size = t.ok() ? DataSize(*t, symbol, value) : t.status();
      if (!size.ok()) return size.status();
      data_sizes_.push_back(*size);
    }
    SY_ASSIGN_OR_RETURN(PlannedSession * active, SpecializationFor(0, nullptr));
    return RunSpecialization(*active, io);
  }

  // Stages: each reads the graph inputs and the values of earlier stages by name. Values
  // pass between stages through host memory (each stage's sizes are read from them); graph
  // inputs bound on a device go to the stages that read them as they are.
  SY_ASSIGN_OR_RETURN(SymbolBinding input_sizes, BindSymbols(graph_, input_shapes_));
  values_ = *io.host;
  for (size_t s = 0; s < stages_.size(); ++s) {
    const Stage& stage = stages_[s];
    std::map<std::string, Tensor> stage_inputs;
    std::map<std::string, DeviceTensor> stage_device_inputs;
    shapes_.clear();
    for (ValueId id : stage.graph.inputs) {
      const std::string& name = stage.graph.values[id].name;
      if (auto found = values_.find(name); found != values_.end()) {
        const Tensor& t = found->second;
        shapes_.emplace_back(t.shape().begin(), t.shape().end());
        stage_inputs.emplace(name, t);
      } else if (const DeviceTensor* t = io.FindDevice(name)) {
        shapes_.emplace_back(t->shape().begin(), t->shape().end());
        stage_device_inputs.emplace(name, *t);
      } else {
        return Internal("stage " + std::to_string(s) + " reads '" + PrintableName(name) +
                        "', which no earlier stage produced");
      }
    }
    data_sizes_.clear();
    for (const auto& [symbol, value] : stage.data) {
      auto found = values_.find(value);
      if (found == values_.end() && io.FindDevice(value) != nullptr) {
        SY_ASSIGN_OR_RETURN(Tensor copy, HostValue(io, value));
        found = values_.emplace(value, std::move(copy)).first;
      }
      if (found == values_.end()) {
        return Internal("symbol " + symbol + " takes its size from '" + PrintableName(value) +
                        "', which no earlier stage produced");
      }
      SY_ASSIGN_OR_RETURN(int64_t size, DataSize(found->second, symbol, value));
      data_sizes_.push_back(size);
    }
    SY_ASSIGN_OR_RETURN(PlannedSession * active, SpecializationFor(s, &input_sizes));
    RunIo stage_io;
    stage_io.host = &stage_inputs;
    stage_io.device = &stage_device_inputs;
    SY_ASSIGN_OR_RETURN(auto outputs, RunSpecialization(*active, stage_io));
    for (auto& [name, tensor] : outputs) values_.insert_or_assign(name, std::move(tensor));
  }
  std::map<std::string, Tensor> result;
  for (ValueId id : graph_.outputs) {
    const std::string& name = graph_.values[id].name;
    auto found = values_.find(name);
    const DeviceTensor* on_device = found == values_.end() ? io.FindDevice(name) : nullptr;
    if (found == values_.end() && on_device == nullptr) {
      return Internal("no stage produced output '" + PrintableName(name) + "'");
    }
    const Tensor* host = found != values_.end() ? &found->second : nullptr;
    SY_RETURN_IF_ERROR(DeliverOutput(io, name, host ? host->type() : on_device->type(), host,
                                     on_device, result, stats_, staging_));
  }
  values_.clear();
  return result;
}

}  // namespace sy
