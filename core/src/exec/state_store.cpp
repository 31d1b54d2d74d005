#include "exec/state_store.h"

#include <algorithm>
#include <limits>

#include "switchyard/plan.h"

namespace sy {

StateStore::StateStore(const Graph& graph) {
  for (const StateValue& v : graph.state.values) {
    Entry e;
    e.name = graph.values[v.input].name;
    e.type = graph.values[v.input].type;
    e.axis = v.axis;
    e.bytes = static_cast<uint64_t>(ElementCount(e.type.shape)) * DTypeSize(e.type.dtype);
    entries_.push_back(std::move(e));
  }
  const DecodingState& st = graph.state;
  if (st.position >= 0) {
    position_name = graph.values[st.position].name;
    position_type = graph.values[st.position].type;
  }
  if (st.advance_input >= 0) advance_name = graph.values[st.advance_input].name;
  advance_axis = st.advance_axis;
}

bool StateStore::IsStateInput(const std::string& name) const {
  return std::any_of(entries_.begin(), entries_.end(),
                     [&](const Entry& e) { return e.name == name; });
}

StateStore::~StateStore() {
  for (Entry& e : entries_) {
    if (e.buffer != nullptr) e.device->plugin->api()->buffer_free(e.buffer);
  }
}

int64_t StateStore::capacity() const {
  int64_t fewest = std::numeric_limits<int64_t>::max();
  for (const Entry& e : entries_) fewest = std::min(fewest, e.type.shape[e.axis]);
  return fewest;
}

Expected<sy_buffer*> StateStore::BufferFor(size_t index, const Device& device) {
  Entry& e = entries_[index];
  if (e.buffer != nullptr) {
    if (e.device != &device) {
      return InvalidArgument("state '" + e.name + "' is kept on " + e.device->Spec() +
                             " but this plan reads it on " + device.Spec() +
                             " (a state value lives on one device for the session's life: "
                             "give its readers one backend hint)");
    }
    return e.buffer;
  }
  const Plugin& plugin = *device.plugin;
  sy_buffer* buffer = nullptr;
  SY_RETURN_IF_ERROR(
      plugin.TakeError(plugin.api()->buffer_alloc(plugin.context(), device.index, e.bytes, &buffer),
                       "allocating " + FormatBytes(e.bytes) + " on " + device.Spec() +
                           " for state '" + e.name + "'"));
  if (buffer == nullptr) {
    return Internal("plugin " + plugin.name() + ": buffer_alloc returned no buffer");
  }
  e.device = &device;
  e.buffer = buffer;
  SY_RETURN_IF_ERROR(Zero(e));
  return buffer;
}

void StateStore::PinReaders(Graph& graph) const {
  for (const StateValue& v : graph.state.values) {
    const std::string& name = graph.values[v.input].name;
    auto entry = std::find_if(entries_.begin(), entries_.end(),
                              [&](const Entry& e) { return e.name == name; });
    if (entry == entries_.end() || entry->device == nullptr) continue;
    for (Node& node : graph.nodes) {
      const bool reads =
          std::find(node.inputs.begin(), node.inputs.end(), v.input) != node.inputs.end();
      if (reads && node.backend.empty()) node.backend = entry->device->Spec();
    }
  }
}

Status StateStore::Zero(const Entry& e) {
  // Positions past the length are masked, never read as values; zeros keep them finite
  // (a masked position still multiplies into a sum as 0 * value).
  constexpr uint64_t kChunk = uint64_t{1} << 20;
  static const std::vector<std::byte> zeros(kChunk);
  const sy_plugin_api* api = e.device->plugin->api();
  for (uint64_t offset = 0; offset < e.bytes; offset += kChunk) {
    const uint64_t n = std::min(kChunk, e.bytes - offset);
    SY_RETURN_IF_ERROR(
        e.device->plugin->TakeError(api->copy_host_to_device(e.buffer, offset, zeros.data(), n),
                                    "clearing state '" + e.name + "' on " + e.device->Spec()));
  }
  return Status::Ok();
}

Status StateStore::Clear() {
  for (const Entry& e : entries_) {
    if (e.buffer != nullptr) SY_RETURN_IF_ERROR(Zero(e));
  }
  length = 0;
  return Status::Ok();
}

}  // namespace sy
