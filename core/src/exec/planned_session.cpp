// Building a PlannedSession (exec/planned_session.h): optimize, plan, place the values,
// prepare the partitions, bind where each run's inputs and outputs go.
#include "exec/planned_session.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <unordered_map>

#include "exec/planned_session_parts.h"
#include "exec/shared_executables.h"
#include "exec/state_store.h"
#include "plugin/node_descriptors.h"
#include "sched/plan_builder.h"

namespace sy {

PlannedSession::~PlannedSession() {
  // Executables go back to their plugins first (unless another specialisation still runs
  // them), then buffers, views before arenas.
  steps_.clear();
  while (!buffers_.empty()) buffers_.pop_back();
}

const Device& PlannedSession::device() const {
  return *plan_.devices[plan_.partitions.empty() ? 0 : plan_.partitions[0].device];
}

Expected<const SessionBuffer*> PlannedSession::Allocate(const Device& device, uint64_t bytes,
                                                        std::string_view what) {
  auto buffer = std::make_unique<SessionBuffer>();
  buffer->device = &device;
  buffer->bytes = bytes;
  const Plugin& plugin = *device.plugin;
  ++stats_.buffer_allocations;
  SY_RETURN_IF_ERROR(plugin.TakeError(
      plugin.api()->buffer_alloc(plugin.context(), device.index, bytes, &buffer->handle),
      "allocating " + FormatBytes(bytes) + " on " + device.Spec() + " for " + std::string(what)));
  if (buffer->handle == nullptr) {
    return Internal("plugin " + plugin.name() + ": buffer_alloc returned no buffer");
  }
  buffer->host = plugin.api()->buffer_host_pointer(buffer->handle);
  buffers_.push_back(std::move(buffer));
  return buffers_.back().get();
}

Expected<const SessionBuffer*> PlannedSession::Slice(const SessionBuffer& arena, uint64_t offset,
                                                     uint64_t bytes, std::string_view what) {
  const Plugin& plugin = *arena.device->plugin;
  if (plugin.api()->buffer_view == nullptr) return Allocate(*arena.device, bytes, what);
  auto view = std::make_unique<SessionBuffer>();
  view->device = arena.device;
  view->bytes = bytes;
  ++stats_.buffer_views;
  SY_RETURN_IF_ERROR(
      plugin.TakeError(plugin.api()->buffer_view(arena.handle, offset, bytes, &view->handle),
                       "buffer_view for " + std::string(what)));
  if (view->handle == nullptr) {
    return Internal("plugin " + plugin.name() + ": buffer_view returned no buffer");
  }
  view->host = plugin.api()->buffer_host_pointer(view->handle);
  buffers_.push_back(std::move(view));
  return buffers_.back().get();
}

// Where each (value, device) of the plan lives.
struct PlannedSession::Residency {
  explicit Residency(size_t devices) : num_devices(devices) {}
  int64_t Key(ValueId v, int32_t d) const { return static_cast<int64_t>(v) * num_devices + d; }
  const SessionBuffer* at(ValueId v, int32_t d) const { return buffers.at(Key(v, d)); }
  const SessionBuffer* Find(ValueId v, int32_t d) const {
    auto it = buffers.find(Key(v, d));
    return it == buffers.end() ? nullptr : it->second;
  }
  size_t num_devices;
  std::unordered_map<int64_t, const SessionBuffer*> buffers;
  // Per plan copy: its destination reads the source's bytes in place (no step).
  std::vector<bool> copy_shared;
};

Expected<std::unique_ptr<PlannedSession>> PlannedSession::Build(
    const Graph& input_graph, const PluginHost* host, const PlanOptions& options,
    ExecutableShelf* shelf, const std::shared_ptr<StateStore>& state) {
  auto session = std::unique_ptr<PlannedSession>(new PlannedSession());
  PlannedSession& s = *session;
  s.state_ = state;
  // The optimization pass (switchyard/optimize.h) rewrites for the devices the plan will
  // use; the session plans and runs the graph it returns.
  SY_ASSIGN_OR_RETURN(OptimizedGraph optimized,
                      OptimizeGraph(input_graph, host, options, options.optimize_level));
  s.graph_ = std::move(optimized.graph);
  s.optimize_report_ = std::move(optimized.report);
  if (shelf != nullptr) shelf->InternConstants(s.graph_);
  // One description of the nodes serves the plan's support queries and the prepares (and
  // the runs of executables prepared for other sizes, which keep it).
  s.descriptors_ = std::make_unique<NodeDescriptors>(s.graph_);
  SY_ASSIGN_OR_RETURN(s.plan_, sched::BuildPlan(s.graph_, *s.descriptors_, host, options));
  Residency where(s.plan_.devices.size());
  SY_RETURN_IF_ERROR(s.PlaceValues(where));
  SY_RETURN_IF_ERROR(s.PrepareSteps(*s.descriptors_, where, options.on_prepare, shelf));
  s.BindInputsAndOutputs(where);
  const bool keeps_descriptors = std::any_of(
      s.steps_.begin(), s.steps_.end(), [](const auto& step) { return step->sized != nullptr; });
  if (!keeps_descriptors) s.descriptors_.reset();
  return session;
}

Status PlannedSession::PlaceValues(Residency& where) {
  const Plan& plan = plan_;
  const Graph& graph = graph_;
  // Arenas, then a slice of one for every (value, device) the plan holds.
  std::vector<const SessionBuffer*> arenas(plan.devices.size(), nullptr);
  for (size_t d = 0; d < plan.devices.size(); ++d) {
    bool used = false;
    for (const ArenaSlot& slot : plan.slots) used = used || slot.device == static_cast<int32_t>(d);
    if (!used) continue;
    SY_ASSIGN_OR_RETURN(arenas[d],
                        Allocate(*plan.devices[d], plan.memory[d].arena_bytes, "the arena"));
  }
  for (const ArenaSlot& slot : plan.slots) {
    SY_ASSIGN_OR_RETURN(
        where.buffers[where.Key(slot.value, slot.device)],
        Slice(*arenas[slot.device], slot.offset, slot.bytes, graph.DescribeValue(slot.value)));
  }
  // Decoding state: the session's buffers, kept between runs (and between a dynamic
  // session's specialisations); an output written in place is the same buffer.
  for (const PlanState& st : plan.states) {
    const StateValue& v = graph.state.values[st.index];
    if (state_ == nullptr) return Internal("a plan with decoding state but no state store");
    const Device& device = *plan.devices[st.device];
    SY_ASSIGN_OR_RETURN(sy_buffer * handle, state_->BufferFor(st.index, device));
    auto buffer = std::make_unique<SessionBuffer>();
    buffer->device = &device;
    buffer->handle = handle;
    buffer->owned = false;  // the store's
    buffer->bytes = state_->entries()[st.index].bytes;
    buffer->host = device.plugin->api()->buffer_host_pointer(handle);
    buffers_.push_back(std::move(buffer));
    where.buffers[where.Key(v.input, st.device)] = buffers_.back().get();
    if (st.in_place) where.buffers[where.Key(v.output, st.device)] = buffers_.back().get();
  }
  // A reshape's output on a device that takes reshapes in place: its input's buffer (the
  // same handle, which is how the plugin knows to leave the bytes be).
  for (const PlanAlias& alias : plan.aliases) {
    where.buffers[where.Key(alias.value, alias.device)] = where.at(alias.source, alias.device);
  }
  // Weights: read in place by host-memory devices that wrap host memory where their
  // storage is read-only (graph_ holds it, the model file's mapping, as long as the session
  // lives, and plugins only read buffers bound this way), else uploaded once per device
  // that reads them.
  std::unordered_map<ValueId, const Constant*> constants;
  for (const Constant& c : graph.constants) constants[c.value] = &c;
  for (size_t d = 0; d < plan.devices.size(); ++d) {
    const Device& device = *plan.devices[d];
    for (ValueId id : plan.weights[d]) {
      const Tensor& data = constants.at(id)->data;
      const auto address = reinterpret_cast<uintptr_t>(data.data());
      // Only read-only storage (a model file's mapping): a writable tensor may be the
      // caller's, which could change it after Create, so the session keeps a copy.
      if (device.host_memory() && !data.writable() && data.byte_size() > 0 &&
          address % DTypeSize(data.dtype()) == 0) {
        // The plugin reads, never writes, a wrapped buffer (plugin.h, buffer_wrap_host).
        if (const SessionBuffer* wrapped =
                WrapHost(device, const_cast<std::byte*>(data.data()), data.byte_size())) {
          where.buffers[where.Key(id, static_cast<int32_t>(d))] = wrapped;
          ++stats_.weights_in_place;
          continue;
        }
      }
      const std::string what = "constant " + graph.DescribeValue(id);
      SY_ASSIGN_OR_RETURN(const SessionBuffer* buffer, Allocate(device, data.byte_size(), what));
      SY_RETURN_IF_ERROR(
          device.plugin->TakeError(device.plugin->api()->copy_host_to_device(
                                       buffer->handle, 0, data.data(), data.byte_size()),
                                   "uploading " + what + " to " + device.Spec()));
      where.buffers[where.Key(id, static_cast<int32_t>(d))] = buffer;
    }
  }
  // Shared copies: the destination device reads the source's arena slice in place, which
  // stays put for the session's life. A plugin that declines (it accepted the probe at
  // load time, so this is unexpected) gets a buffer of its own and a copy each run.
  where.copy_shared.assign(plan.copies.size(), false);
  for (size_t k = 0; k < plan.copies.size(); ++k) {
    const PlanCopy& c = plan.copies[k];
    if (!c.shared) continue;
    const SessionBuffer* source = where.at(c.value, c.from_device);
    const Device& to = *plan.devices[c.to_device];
    const std::string what =
        graph.DescribeValue(c.value) + " from " + plan.devices[c.from_device]->Spec();
    const SessionBuffer* wrapped =
        source->host != nullptr ? WrapHost(to, source->host, c.bytes) : nullptr;
    if (wrapped != nullptr) {
      where.buffers[where.Key(c.value, c.to_device)] = wrapped;
      where.copy_shared[k] = true;
      ++stats_.values_shared;
      continue;
    }
    SY_ASSIGN_OR_RETURN(where.buffers[where.Key(c.value, c.to_device)],
                        Allocate(to, c.bytes, what));
  }
  return Status::Ok();
}

const SessionBuffer* PlannedSession::WrapHost(const Device& device, void* host, uint64_t bytes) {
  const sy_plugin_api* api = device.plugin->api();
  if (api->buffer_wrap_host == nullptr) return nullptr;
  auto buffer = std::make_unique<SessionBuffer>();
  buffer->device = &device;
  buffer->bytes = bytes;
  buffer->host = host;
  sy_error* error =
      api->buffer_wrap_host(device.plugin->context(), device.index, host, bytes, &buffer->handle);
  if (error != nullptr) {
    api->error_destroy(error);
    return nullptr;
  }
  if (buffer->handle == nullptr) return nullptr;
  // Freed before the arena it points into: buffers_ goes in reverse order of creation.
  buffers_.push_back(std::move(buffer));
  return buffers_.back().get();
}

Status PlannedSession::PrepareSteps(const NodeDescriptors& descriptors, const Residency& where,
                                    const PrepareCallback& on_prepare, ExecutableShelf* shelf) {
  const Plan& plan = plan_;
  const Graph& graph = graph_;
  // Steps: the copies before each partition, then the partition.
  uint64_t staging_bytes = 0;
  size_t next_copy = 0;
  // Values read outside the partition that produces them (graph outputs, or read by a
  // node of another partition), computed once for every partition's prepare below.
  std::vector<size_t> partition_of(graph.nodes.size(), 0);
  std::vector<int64_t> produced_in(graph.values.size(), -1);
  for (size_t k = 0; k < plan.partitions.size(); ++k) {
    for (size_t n : plan.partitions[k].nodes) partition_of[n] = k;
    for (ValueId id : plan.partitions[k].produced) produced_in[id] = static_cast<int64_t>(k);
  }
  std::vector<bool> read_outside(graph.values.size(), false);
  for (ValueId id : graph.outputs) read_outside[id] = true;
  for (size_t n = 0; n < graph.nodes.size(); ++n) {
    for (ValueId id : graph.nodes[n].inputs) {
      if (produced_in[id] != static_cast<int64_t>(partition_of[n])) read_outside[id] = true;
    }
  }
  for (size_t k = 0; k < plan.partitions.size(); ++k) {
    const PlanPartition& part = plan.partitions[k];
    for (; next_copy < plan.copies.size() && plan.copies[next_copy].before_partition == k;
         ++next_copy) {
      if (where.copy_shared[next_copy]) continue;  // read in place: nothing to do per run
      const PlanCopy& c = plan.copies[next_copy];
      auto step = std::make_unique<Step>(Step::Kind::kCopy);
      step->partition = k;
      step->copy = Route(where.at(c.value, c.from_device), where.at(c.value, c.to_device), c.bytes,
                         "copying " + graph.DescribeValue(c.value) + " from " +
                             plan.devices[c.from_device]->Spec() + " to " +
                             plan.devices[c.to_device]->Spec(),
                         staging_bytes);
      steps_.push_back(std::move(step));
    }
    const Device& device = *plan.devices[part.device];
    auto step = std::make_unique<Step>(Step::Kind::kExecute);
    step->partition = k;
    step->plugin = device.plugin;
    step->device = &device;
    for (ValueId id : part.inputs) step->bound.push_back(where.at(id, part.device)->handle);
    for (ValueId id : part.produced) step->bound.push_back(where.at(id, part.device)->handle);
    // Every value the partition produces is bound: the host's memory plan covers them
    // all, so the plugin needs no memory of its own for intermediates.
    // Produced values nothing outside this partition reads: the plugin may keep those in
    // a layout of its choice.
    std::vector<bool> internal;
    for (ValueId id : part.produced) internal.push_back(!read_outside[id]);
    auto descriptor = std::make_unique<PartitionDescriptor>(descriptors, graph, part.nodes,
                                                            part.inputs, part.produced, internal);
    // On a device that runs executables at other sizes, one prepared for another
    // specialisation's partition of this structure serves this one too.
    const bool resizable =
        shelf != nullptr && device.resizable() && device.plugin->api()->execute_resized != nullptr;
    std::shared_ptr<SharedExecutable> found;
    if (resizable) {
      step->shelf = shelf;
      step->shelf_key = PartitionStructureKey(device, descriptor->get());
      found = shelf->Find(step->shelf_key);
    }
    if (found != nullptr) {
      step->owner = std::move(found);
      step->executable = step->owner->handle;
      step->borrowed = true;
      ++stats_.executables_resized;
    } else {
      SY_RETURN_IF_ERROR(
          PrepareStep(*step, device, *descriptor,
                      "prepare of partition " + std::to_string(k) + " on " + device.Spec(), [&] {
                        if (on_prepare) {
                          on_prepare(k, plan.partitions.size(), device);
                        }
                      }));
      if (resizable) shelf->Put(step->shelf_key, step->owner);
    }
    if (resizable) step->sized = std::move(descriptor);
    step->node_times.resize(part.nodes.size());
    steps_.push_back(std::move(step));
  }
  // Decoding state not written in place: the output's bytes go into the state's buffer
  // once everything that reads the old contents has run (the end of the run).
  for (const PlanState& st : plan.states) {
    if (st.in_place) continue;
    const StateValue& v = graph.state.values[st.index];
    int32_t producer = -1;
    for (size_t n = 0; n < graph.nodes.size(); ++n) {
      for (ValueId id : graph.nodes[n].outputs) {
        if (id == v.output) producer = plan.nodes[n].device;
      }
    }
    auto step = std::make_unique<Step>(Step::Kind::kCopy);
    step->partition = plan.partitions.empty() ? 0 : plan.partitions.size() - 1;
    step->copy = Route(where.at(v.output, producer), where.at(v.input, st.device),
                       state_->entries()[st.index].bytes,
                       "copying " + graph.DescribeValue(v.output) + " into state '" +
                           graph.values[v.input].name + "'",
                       staging_bytes);
    steps_.push_back(std::move(step));
  }
  staging_.resize(staging_bytes);
  return Status::Ok();
}

Status PlannedSession::PrepareStep(Step& step, const Device& device,
                                   const PartitionDescriptor& descriptor, const std::string& what,
                                   const std::function<void()>& before) {
  ++stats_.prepares;
  if (before) before();
  sy_executable* handle = nullptr;
  const Status prepared =
      device.plugin->TakeError(device.plugin->api()->prepare(device.plugin->context(), device.index,
                                                             &descriptor.get(), &handle),
                               what);
  if (prepared.ok() && handle == nullptr) {
    return Internal("plugin " + device.plugin->name() + ": prepare returned no executable");
  }
  SY_RETURN_IF_ERROR(prepared);
  step.owner = std::make_shared<SharedExecutable>(device.plugin, handle);
  step.owner->sized_for = step.sizes_id;
  step.executable = handle;
  return Status::Ok();
}

void PlannedSession::BindInputsAndOutputs(const Residency& where) {
  const Plan& plan = plan_;
  const Graph& graph = graph_;
  // Graph inputs: where each run uploads them.
  std::vector<bool> is_input(graph.values.size(), false);
  std::vector<bool> is_state(graph.values.size(), false);  // bound by PlaceValues, not passed
  for (const StateValue& v : graph.state.values) is_state[v.input] = is_state[v.output] = true;
  for (ValueId id : graph.inputs) {
    is_input[id] = true;
    if (is_state[id]) continue;
    input_names_.push_back(graph.values[id].name);
    input_types_.push_back(graph.values[id].type);
    std::vector<InputTarget> targets;
    for (size_t d = 0; d < plan.devices.size(); ++d) {
      const SessionBuffer* buffer = where.Find(id, static_cast<int32_t>(d));
      if (buffer == nullptr) continue;
      InputTarget target;
      target.buffer = buffer;
      const Device& device = *plan.devices[d];
      target.in_place = device.host_memory() && device.plugin->api()->buffer_wrap_host != nullptr;
      // Every target records its uses: a bound device tensor takes the buffer's place on
      // any device, a wrapped host tensor on host-memory ones.
      for (size_t step = 0; step < steps_.size(); ++step) {
        for (size_t b = 0; b < steps_[step]->bound.size(); ++b) {
          if (steps_[step]->bound[b] == target.buffer->handle) target.uses.push_back({step, b});
        }
      }
      targets.push_back(std::move(target));
    }
    input_targets_.push_back(std::move(targets));
  }
  std::unordered_map<ValueId, const Constant*> constants;
  for (const Constant& c : graph.constants) constants[c.value] = &c;
  std::vector<int32_t> producer(graph.values.size(), -1);
  for (size_t n = 0; n < graph.nodes.size(); ++n) {
    for (ValueId id : graph.nodes[n].outputs) producer[id] = plan.nodes[n].device;
  }
  for (ValueId id : graph.outputs) {
    if (is_state[id]) continue;  // the next run's state, not a result
    Output out;
    out.name = graph.values[id].name;
    out.type = graph.values[id].type;
    if (is_input[id]) {
      for (size_t k = 0; k < graph.inputs.size(); ++k) {
        if (graph.inputs[k] == id) out.from_input = static_cast<int64_t>(k);
      }
    } else if (auto it = constants.find(id); it != constants.end()) {
      out.fixed = it->second->data;
    } else {
      out.source = where.at(id, producer[id]);
      // A bound device tensor may take the source's place only where nothing else holds
      // those bytes: no other (value, device) shares the buffer (a reshape alias) and no
      // plan copy moves or wraps the value.
      const bool copied = std::any_of(plan.copies.begin(), plan.copies.end(),
                                      [id](const PlanCopy& c) { return c.value == id; });
      const auto sharing = std::count_if(where.buffers.begin(), where.buffers.end(),
                                         [&](const auto& e) { return e.second == out.source; });
      out.redirectable = !copied && sharing == 1;
      for (size_t step = 0; step < steps_.size() && out.redirectable; ++step) {
        if (steps_[step]->is_copy()) {
          const Transfer& t = steps_[step]->copy;
          if (t.from == out.source || t.to == out.source) out.redirectable = false;
          continue;
        }
        for (size_t b = 0; b < steps_[step]->bound.size(); ++b) {
          if (steps_[step]->bound[b] == out.source->handle) out.uses.push_back({step, b});
        }
      }
      if (!out.redirectable) out.uses.clear();
    }
    outputs_.push_back(std::move(out));
  }
  output_targets_.resize(outputs_.size());
  output_in_place_.resize(outputs_.size());
}

}  // namespace sy
