// Dynamic sessions (docs/dynamic-shapes.md): a graph with run-time sizes, specialised per
// set of input shapes, each specialisation a static session kept in a small LRU cache.
#include <algorithm>

#include "exec/specializations.h"
#include "switchyard/specialize.h"

namespace sy {

const Graph* Session::symbolic_graph() const {
  return dynamic_ != nullptr ? &dynamic_->graph : nullptr;
}

Expected<std::unique_ptr<Session>> Session::CreateDynamic(const Graph& graph,
                                                          const PluginHost* host,
                                                          const PlanOptions& options) {
  auto session = std::unique_ptr<Session>(new Session());
  Session& s = *session;
  s.dynamic_ = std::make_unique<Specializations>();
  s.dynamic_->graph = graph;
  s.dynamic_->host = host;
  s.dynamic_->options = options;
  s.dynamic_->options.max_specializations = std::max<size_t>(1, options.max_specializations);
  // on_prepare serves this call only: a caller's progress display may not outlive it,
  // and later specialisations happen inside Run.
  s.dynamic_->options.on_prepare = nullptr;
  s.graph_ = graph;
  for (ValueId id : graph.inputs) {
    s.input_names_.push_back(graph.values[id].name);
    s.input_types_.push_back(graph.values[id].type);
  }
  // Where the graph says how large its symbols usually are, the first specialisation is
  // built now: a graph that cannot be planned on the devices fails here, not at the
  // first run, and plan() has something to show.
  if (Expected<SymbolBinding> examples = ExampleBinding(graph); examples.ok()) {
    std::vector<Shape> shapes;
    for (ValueId id : graph.inputs) {
      const Value& value = graph.values[id];
      Shape shape = value.type.shape;
      for (size_t d = 0; d < value.symbolic_shape.size(); ++d) {
        if (!value.symbolic_shape[d].is_const()) {
          shape[d] = examples->at(value.symbolic_shape[d].symbol());
        }
      }
      shapes.push_back(std::move(shape));
    }
    SY_ASSIGN_OR_RETURN(Graph specialised, Specialize(graph, *examples));
    SY_ASSIGN_OR_RETURN(std::unique_ptr<Session> first, Build(specialised, host, options));
    s.stats_.specializations = 1;
    s.stats_.buffer_allocations += first->stats_.buffer_allocations;
    s.stats_.buffer_views += first->stats_.buffer_views;
    s.stats_.prepares += first->stats_.prepares;
    s.shown_ = first.get();
    s.dynamic_->cache.push_front({std::move(shapes), std::move(first)});
  }
  return session;
}

Expected<std::map<std::string, Tensor>> Session::RunDynamic(
    const std::map<std::string, Tensor>& inputs) {
  Specializations& d = *dynamic_;
  // This run's input shapes, in graph input order; dtypes and names checked here because
  // a specialisation is looked up (or built) before any static session sees the inputs.
  d.shapes.resize(input_names_.size());
  for (size_t k = 0; k < input_names_.size(); ++k) {
    auto it = inputs.find(input_names_[k]);
    if (it == inputs.end()) {
      return InvalidArgument("missing input \"" + input_names_[k] + "\" (" +
                             ValueTypeString(d.graph.values[d.graph.inputs[k]]) + ")");
    }
    if (it->second.dtype() != input_types_[k].dtype) {
      return InvalidArgument("input \"" + input_names_[k] + "\" is " +
                             it->second.type().ToString() + " but the model expects " +
                             ValueTypeString(d.graph.values[d.graph.inputs[k]]));
    }
    d.shapes[k].assign(it->second.shape().begin(), it->second.shape().end());
  }
  auto hit = std::find_if(d.cache.begin(), d.cache.end(),
                          [&](const Specializations::Entry& e) { return e.shapes == d.shapes; });
  if (hit != d.cache.end()) {
    ++stats_.specialization_hits;
    if (hit != d.cache.begin()) d.cache.splice(d.cache.begin(), d.cache, hit);
  } else {
    SY_ASSIGN_OR_RETURN(SymbolBinding binding, BindSymbols(d.graph, d.shapes));
    SY_ASSIGN_OR_RETURN(Graph specialised, Specialize(d.graph, binding));
    Expected<std::unique_ptr<Session>> built = Build(specialised, d.host, d.options);
    if (!built.ok()) return built.status().WithContext("with " + BindingToString(binding));
    const Stats& made = (*built)->stats_;
    ++stats_.specializations;
    stats_.buffer_allocations += made.buffer_allocations;
    stats_.buffer_views += made.buffer_views;
    stats_.prepares += made.prepares;
    if (d.cache.size() >= d.options.max_specializations) {
      // The least recently used goes first, with its device memory.
      if (shown_ == d.cache.back().session.get()) shown_ = nullptr;
      d.cache.pop_back();
      ++stats_.specializations_evicted;
    }
    d.cache.push_front({d.shapes, std::move(*built)});
  }
  Session& active = *d.cache.front().session;
  shown_ = &active;
  // The specialisation records into this session's profile, so that one profile covers
  // every shape the session ran.
  active.profiling_ = profiling_;
  std::swap(active.profile_, profile_);
  const uint64_t in_place_before = active.stats_.inputs_in_place;
  Expected<std::map<std::string, Tensor>> outputs = active.Run(inputs);
  std::swap(active.profile_, profile_);
  stats_.inputs_in_place += active.stats_.inputs_in_place - in_place_before;
  return outputs;
}

}  // namespace sy
