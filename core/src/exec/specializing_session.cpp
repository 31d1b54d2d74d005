// Dynamic sessions (docs/dynamic-shapes.md): a graph with run-time sizes, specialised per
// set of input shapes, each specialisation a static session kept in a small LRU cache;
// a graph with data symbols runs in stages (exec/stages.h), each specialised once the
// sizes it needs are known.
#include <algorithm>

#include "exec/specializations.h"
#include "exec/state_store.h"
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

const Graph* Session::symbolic_graph() const {
  return dynamic_ != nullptr ? &dynamic_->graph : nullptr;
}

Expected<std::unique_ptr<Session>> Session::CreateDynamic(
    const Graph& graph, const PluginHost* host, const PlanOptions& options,
    const std::shared_ptr<StateStore>& state) {
  auto session = std::unique_ptr<Session>(new Session());
  Session& s = *session;
  s.dynamic_ = std::make_unique<Specializations>();
  Specializations& d = *s.dynamic_;
  d.graph = graph;
  d.host = host;
  s.state_ = state;  // every specialisation binds it (Finish makes this session its owner)
  d.options = options;
  d.options.max_specializations = std::max<size_t>(1, options.max_specializations);
  // on_prepare serves this call only: a caller's progress display may not outlive it,
  // and later specialisations happen inside Run.
  d.options.on_prepare = nullptr;
  SY_ASSIGN_OR_RETURN(d.stages, SplitIntoStages(graph));
  s.graph_ = graph;
  for (ValueId id : graph.inputs) {
    s.input_names_.push_back(graph.values[id].name);
    s.input_types_.push_back(graph.values[id].type);
  }
  // Where the graph says how large its symbols usually are, the first specialisation of
  // a one-stage graph is built now: a graph that cannot be planned on the devices fails
  // here, not at the first run, and plan() has something to show.
  Expected<SymbolBinding> examples = ExampleBinding(graph);
  if (examples.ok() && d.stages.size() == 1 && d.stages[0].data.empty()) {
    std::vector<Shape> shapes;
    for (ValueId id : graph.inputs) {
      SY_ASSIGN_OR_RETURN(Shape shape, ExampleShape(graph, id));
      shapes.push_back(std::move(shape));
    }
    SY_ASSIGN_OR_RETURN(Graph specialised, Specialize(graph, *examples));
    SY_ASSIGN_OR_RETURN(std::unique_ptr<Session> first,
                        Build(specialised, host, options, &d.shelf, s.state_));
    s.stats_.specializations = 1;
    s.stats_.buffer_allocations += first->stats_.buffer_allocations;
    s.stats_.buffer_views += first->stats_.buffer_views;
    s.stats_.weights_in_place += first->stats_.weights_in_place;
    s.stats_.prepares += first->stats_.prepares;
    s.stats_.executables_resized += first->stats_.executables_resized;
    s.shown_ = first.get();
    d.stages[0].cache.push_front({std::move(shapes), {}, {}, std::move(first)});
  }
  return session;
}

Expected<Session*> Session::SpecializationFor(size_t stage_index, const SymbolBinding* inputs) {
  Specializations& d = *dynamic_;
  Stage& stage = d.stages[stage_index];
  // A later stage may use the graph's own symbols without reading an input that has them:
  // its key includes the graph inputs' shapes too.
  const bool staged = d.stages.size() > 1;
  auto hit = std::find_if(stage.cache.begin(), stage.cache.end(), [&](const auto& e) {
    return e.shapes == d.shapes && e.data_sizes == d.data_sizes &&
           (!staged || e.input_shapes == d.input_shapes);
  });
  if (hit != stage.cache.end()) {
    ++stats_.specialization_hits;
    if (hit != stage.cache.begin()) stage.cache.splice(stage.cache.begin(), stage.cache, hit);
    return stage.cache.front().session.get();
  }
  SY_ASSIGN_OR_RETURN(SymbolBinding binding, BindSymbols(stage.graph, d.shapes));
  if (inputs != nullptr) binding.insert(inputs->begin(), inputs->end());
  for (size_t k = 0; k < stage.data.size(); ++k) binding[stage.data[k].first] = d.data_sizes[k];
  SY_ASSIGN_OR_RETURN(Graph specialised, Specialize(stage.graph, binding));
  if (state_ != nullptr) state_->PinReaders(specialised);
  Expected<std::unique_ptr<Session>> built =
      Build(specialised, d.host, d.options, &d.shelf, state_);
  if (!built.ok()) {
    if (binding.empty()) return built.status();
    return built.status().WithContext("with " + BindingToString(binding));
  }
  const Stats& made = (*built)->stats_;
  ++stats_.specializations;
  stats_.buffer_allocations += made.buffer_allocations;
  stats_.buffer_views += made.buffer_views;
  stats_.weights_in_place += made.weights_in_place;
  stats_.prepares += made.prepares;
  stats_.executables_resized += made.executables_resized;
  if (stage.cache.size() >= d.options.max_specializations) {
    // The least recently used goes first, with its device memory.
    if (shown_ == stage.cache.back().session.get()) shown_ = nullptr;
    stage.cache.pop_back();
    ++stats_.specializations_evicted;
  }
  stage.cache.push_front(
      {d.shapes, d.data_sizes, staged ? d.input_shapes : std::vector<Shape>{}, std::move(*built)});
  return stage.cache.front().session.get();
}

Expected<std::map<std::string, Tensor>> Session::RunSpecialization(Session& active,
                                                                   const RunIo& io) {
  shown_ = &active;
  // The specialisation records into this session's profile, so that one profile covers
  // every shape the session ran.
  active.profiling_ = profiling_;
  std::swap(active.profile_, profile_);
  // A run may prepare: where a plugin declines to run an executable at these sizes.
  const Stats before = active.stats_;
  Expected<std::map<std::string, Tensor>> outputs = active.RunUnstated(io);
  std::swap(active.profile_, profile_);
  const Stats& after = active.stats_;
  stats_.inputs_in_place += after.inputs_in_place - before.inputs_in_place;
  stats_.prepares += after.prepares - before.prepares;
  stats_.host_bytes_in += after.host_bytes_in - before.host_bytes_in;
  stats_.host_bytes_out += after.host_bytes_out - before.host_bytes_out;
  stats_.outputs_in_place += after.outputs_in_place - before.outputs_in_place;
  // Unsigned: a decline lowers the count, and the sum wraps back to the right value.
  stats_.executables_resized += after.executables_resized - before.executables_resized;
  return outputs;
}

Expected<Tensor> Session::HostValue(const RunIo& io, const std::string& name) {
  if (const Tensor* host = io.FindHost(name)) return *host;
  const DeviceTensor* on_device = io.FindDevice(name);
  if (on_device == nullptr) return InvalidArgument("missing input \"" + PrintableName(name) + "\"");
  SY_ASSIGN_OR_RETURN(Tensor copy, on_device->ToHost());
  stats_.host_bytes_in += copy.byte_size();
  return copy;
}

Expected<std::map<std::string, Tensor>> Session::RunDynamic(const RunIo& io) {
  Specializations& d = *dynamic_;
  // This run's input shapes, in graph input order; dtypes and names checked here because
  // a specialisation is looked up (or built) before any static session sees the inputs.
  d.input_shapes.resize(input_names_.size());
  for (size_t k = 0; k < input_names_.size(); ++k) {
    if (state_ != nullptr && state_->IsStateInput(input_names_[k])) {
      // Decoding state has a fixed size, and its buffers are bound, not passed.
      d.input_shapes[k] = input_types_[k].shape;
      continue;
    }
    const TensorType* type = io.FindType(input_names_[k]);
    if (type == nullptr) {
      return InvalidArgument("missing input \"" + PrintableName(input_names_[k]) + "\" (" +
                             ValueTypeString(d.graph.values[d.graph.inputs[k]]) + ")");
    }
    if (type->dtype != input_types_[k].dtype) {
      return InvalidArgument("input \"" + PrintableName(input_names_[k]) + "\" is " +
                             type->ToString() + " but the model expects " +
                             ValueTypeString(d.graph.values[d.graph.inputs[k]]));
    }
    d.input_shapes[k].assign(type->shape.begin(), type->shape.end());
  }
  if (d.stages.size() == 1) {
    // One stage: its inputs are graph inputs, though not always all of them (an input
    // that only gives a data symbol its value, as TopK's k, is read by no node).
    const Graph& stage_graph = d.stages[0].graph;
    d.shapes.clear();
    for (ValueId id : stage_graph.inputs) {
      const auto at =
          std::find(input_names_.begin(), input_names_.end(), stage_graph.values[id].name);
      if (at == input_names_.end()) {
        return Internal("stage 0 reads '" + PrintableName(stage_graph.values[id].name) +
                        "', which is not a graph input");
      }
      d.shapes.push_back(d.input_shapes[static_cast<size_t>(at - input_names_.begin())]);
    }
    d.data_sizes.clear();
    for (const auto& [symbol, value] : d.stages[0].data) {
      // A size read from a device tensor comes through the host (one integer).
      Expected<Tensor> t = HostValue(io, value);
      Expected<int64_t> size = t.ok() ? DataSize(*t, symbol, value) : t.status();
      if (!size.ok()) return size.status();
      d.data_sizes.push_back(*size);
    }
    SY_ASSIGN_OR_RETURN(Session * active, SpecializationFor(0, nullptr));
    return RunSpecialization(*active, io);
  }

  // Stages: each reads the graph inputs and the values of earlier stages by name. Values
  // pass between stages through host memory (each stage's sizes are read from them); graph
  // inputs bound on a device go to the stages that read them as they are.
  SY_ASSIGN_OR_RETURN(SymbolBinding input_sizes, BindSymbols(d.graph, d.input_shapes));
  d.values = *io.host;
  for (size_t s = 0; s < d.stages.size(); ++s) {
    const Stage& stage = d.stages[s];
    std::map<std::string, Tensor> stage_inputs;
    std::map<std::string, DeviceTensor> stage_device_inputs;
    d.shapes.clear();
    for (ValueId id : stage.graph.inputs) {
      const std::string& name = stage.graph.values[id].name;
      if (auto found = d.values.find(name); found != d.values.end()) {
        const Tensor& t = found->second;
        d.shapes.emplace_back(t.shape().begin(), t.shape().end());
        stage_inputs.emplace(name, t);
      } else if (const DeviceTensor* t = io.FindDevice(name)) {
        d.shapes.emplace_back(t->shape().begin(), t->shape().end());
        stage_device_inputs.emplace(name, *t);
      } else {
        return Internal("stage " + std::to_string(s) + " reads '" + PrintableName(name) +
                        "', which no earlier stage produced");
      }
    }
    d.data_sizes.clear();
    for (const auto& [symbol, value] : stage.data) {
      auto found = d.values.find(value);
      if (found == d.values.end() && io.FindDevice(value) != nullptr) {
        SY_ASSIGN_OR_RETURN(Tensor copy, HostValue(io, value));
        found = d.values.emplace(value, std::move(copy)).first;
      }
      if (found == d.values.end()) {
        return Internal("symbol " + symbol + " takes its size from '" + PrintableName(value) +
                        "', which no earlier stage produced");
      }
      SY_ASSIGN_OR_RETURN(int64_t size, DataSize(found->second, symbol, value));
      d.data_sizes.push_back(size);
    }
    SY_ASSIGN_OR_RETURN(Session * active, SpecializationFor(s, &input_sizes));
    RunIo stage_io;
    stage_io.host = &stage_inputs;
    stage_io.device = &stage_device_inputs;
    SY_ASSIGN_OR_RETURN(auto outputs, RunSpecialization(*active, stage_io));
    for (auto& [name, tensor] : outputs) d.values.insert_or_assign(name, std::move(tensor));
  }
  std::map<std::string, Tensor> result;
  for (ValueId id : d.graph.outputs) {
    const std::string& name = d.graph.values[id].name;
    auto found = d.values.find(name);
    const DeviceTensor* on_device = found == d.values.end() ? io.FindDevice(name) : nullptr;
    if (found == d.values.end() && on_device == nullptr) {
      return Internal("no stage produced output '" + PrintableName(name) + "'");
    }
    const Tensor* host = found != d.values.end() ? &found->second : nullptr;
    SY_RETURN_IF_ERROR(
        DeliverOutput(io, name, host ? host->type() : on_device->type(), host, on_device, result));
  }
  d.values.clear();
  return result;
}

}  // namespace sy
