#include "sched/memory_planner.h"

#include <algorithm>
#include <limits>
#include <numeric>
#include <set>
#include <unordered_map>

#include "sched/state_planner.h"

namespace sy::sched {
namespace {

// Byte counts saturate at 2^64 - 1 rather than wrap (a graph of huge values would
// otherwise "need 4.0 EiB", or fit): every sum and alignment here goes through these.
constexpr uint64_t kSaturated = std::numeric_limits<uint64_t>::max();
uint64_t SatAdd(uint64_t a, uint64_t b) { return a > kSaturated - b ? kSaturated : a + b; }
uint64_t AlignUp(uint64_t bytes) {
  if (bytes > kSaturated - (kArenaAlignment - 1)) return kSaturated;
  return (bytes + kArenaAlignment - 1) / kArenaAlignment * kArenaAlignment;
}
std::string Bytes(uint64_t v) { return v == kSaturated ? "more than 16 EiB" : FormatBytes(v); }

// Greedy by size (as TensorFlow Lite's arena planner): the largest slots are placed
// first, each at the lowest offset where it overlaps no placed slot that is alive at the
// same time. Returns the arena's size.
uint64_t AssignOffsets(std::vector<ArenaSlot*>& slots) {
  std::sort(slots.begin(), slots.end(), [](const ArenaSlot* a, const ArenaSlot* b) {
    return a->bytes != b->bytes ? a->bytes > b->bytes : a->first < b->first;
  });
  // Placed slots ordered by start time; with the longest lifetime seen so far, the scan
  // for slots alive at the same time stays short in long chains of short-lived values.
  std::vector<const ArenaSlot*> placed;
  int64_t longest = 0;
  std::vector<const ArenaSlot*> live;  // placed slots overlapping the current one in time
  uint64_t arena = 0;
  for (ArenaSlot* slot : slots) {
    live.clear();
    auto end = std::upper_bound(placed.begin(), placed.end(), slot->last,
                                [](int64_t t, const ArenaSlot* s) { return t < s->first; });
    for (auto it = end; it != placed.begin();) {
      const ArenaSlot* other = *--it;
      if (other->first < slot->first - longest) break;  // this and earlier ones ended before
      if (other->last >= slot->first) live.push_back(other);
    }
    std::sort(live.begin(), live.end(),
              [](const ArenaSlot* a, const ArenaSlot* b) { return a->offset < b->offset; });
    uint64_t offset = 0;
    const uint64_t need = AlignUp(slot->bytes);
    for (const ArenaSlot* other : live) {
      if (SatAdd(offset, need) <= other->offset) break;  // fits in the gap before `other`
      offset = std::max(offset, SatAdd(other->offset, AlignUp(other->bytes)));
    }
    slot->offset = offset;
    arena = std::max(arena, SatAdd(offset, need));
    placed.insert(std::upper_bound(placed.begin(), placed.end(), slot->first,
                                   [](int64_t t, const ArenaSlot* s) { return t < s->first; }),
                  slot);
    longest = std::max(longest, slot->last - slot->first);
  }
  return arena;
}

}  // namespace

Status PlanMemory(const Graph& graph, const PlanOptions& options, Plan& plan) {
  const size_t num_devices = plan.devices.size();
  const int64_t end_of_run = 2 * static_cast<int64_t>(graph.nodes.size()) + 1;
  plan.slots.clear();
  std::unordered_map<int64_t, size_t> slot_of;  // value * num_devices + device -> slot
  auto key = [&](ValueId v, int32_t d) { return static_cast<int64_t>(v) * num_devices + d; };
  auto bytes_of = [&](ValueId v) {
    const TensorType& t = graph.values[v].type;
    return static_cast<uint64_t>(ElementCount(t.shape)) * DTypeSize(t.dtype);
  };
  // A shared copy's destination is its source's bytes (no slot of its own): every use of
  // (v, to) keeps the source (v, from) alive instead.
  std::unordered_map<int64_t, int32_t> shared_from;
  for (const PlanCopy& copy : plan.copies) {
    if (copy.shared) shared_from[key(copy.value, copy.to_device)] = copy.from_device;
  }
  std::vector<bool> is_constant(graph.values.size(), false);
  for (const Constant& c : graph.constants) is_constant[c.value] = true;
  std::vector<bool> is_input(graph.values.size(), false);
  for (ValueId id : graph.inputs) is_input[id] = true;
  // Decoding state lives outside the arena, in buffers the session keeps between runs
  // (PlanStates): its inputs, and the outputs written in place, take no slot.
  // Only on the state's own device: a copy of the state's next contents to another device
  // (a reader placed elsewhere) has a slot there as any copy does.
  SY_RETURN_IF_ERROR(PlanStates(graph, plan));
  std::set<int64_t> external;  // key(value, device)
  for (const PlanState& st : plan.states) {
    const StateValue& v = graph.state.values[st.index];
    external.insert(key(v.input, st.device));
    if (st.in_place) external.insert(key(v.output, st.device));
  }

  // Reshapes in place: on a device that declares SY_DEVICE_FLAG_RESHAPE_IN_PLACE a
  // reshape's output is its input's bytes, so every use of the output keeps the input's
  // slot alive instead. Not when the input is a constant (weights live outside the arena),
  // a graph input (a run may bind the caller's memory there instead) or a shared copy (its
  // bytes are another device's). A chain of reshapes ends at its first input.
  plan.aliases.clear();
  std::unordered_map<int64_t, ValueId> alias_source;  // key(output, d) -> source value
  for (const PlanPartition& part : plan.partitions) {
    if (!plan.devices[part.device]->reshape_in_place()) continue;
    for (size_t n : part.nodes) {
      const Node& node = graph.nodes[n];
      if (node.op != "reshape" || node.inputs.size() != 1 || node.outputs.size() != 1) continue;
      ValueId source = node.inputs[0];
      const ValueId output = node.outputs[0];
      if (is_constant[source] || is_input[source] || bytes_of(source) != bytes_of(output) ||
          shared_from.count(key(source, part.device)) != 0) {
        continue;
      }
      if (auto it = alias_source.find(key(source, part.device)); it != alias_source.end()) {
        source = it->second;
      }
      alias_source[key(output, part.device)] = source;
      plan.aliases.push_back(PlanAlias{output, part.device, source});
    }
  }

  // Creates the slot of (v, d) starting at `time`, or extends an existing one to it.
  auto touch = [&](ValueId v, int32_t d, int64_t time) {
    if (auto it = shared_from.find(key(v, d)); it != shared_from.end()) d = it->second;
    if (external.count(key(v, d)) != 0) return;
    if (auto it = alias_source.find(key(v, d)); it != alias_source.end()) v = it->second;
    auto [it, inserted] = slot_of.emplace(key(v, d), plan.slots.size());
    if (inserted) {
      plan.slots.push_back(ArenaSlot{v, d, 0, bytes_of(v), time, time});
    } else {
      ArenaSlot& s = plan.slots[it->second];
      s.first = std::min(s.first, time);
      s.last = std::max(s.last, time);
    }
  };

  std::vector<int32_t> producer(graph.values.size(), -1);

  size_t next_copy = 0;
  for (size_t k = 0; k < plan.partitions.size(); ++k) {
    const PlanPartition& part = plan.partitions[k];
    const int64_t start = 2 * static_cast<int64_t>(part.nodes.front());
    for (; next_copy < plan.copies.size() && plan.copies[next_copy].before_partition == k;
         ++next_copy) {
      const PlanCopy& copy = plan.copies[next_copy];
      touch(copy.value, copy.from_device, start);  // the source is read then
      touch(copy.value, copy.to_device, start);
    }
    for (ValueId id : part.inputs) {
      if (is_input[id]) touch(id, part.device, 0);  // uploaded when the run starts
    }
    for (size_t n : part.nodes) {
      const int64_t time = 2 * static_cast<int64_t>(n) + 1;
      for (ValueId id : graph.nodes[n].inputs) {
        if (!is_constant[id]) touch(id, part.device, time);
      }
      for (ValueId id : graph.nodes[n].outputs) {
        touch(id, part.device, time);
        producer[id] = part.device;
      }
    }
  }
  for (ValueId id : graph.outputs) {
    if (producer[id] >= 0) touch(id, producer[id], end_of_run);  // read back at the end
  }

  plan.memory.assign(num_devices, DeviceMemory{});
  std::vector<std::vector<ArenaSlot*>> per_device(num_devices);
  for (ArenaSlot& s : plan.slots) {
    per_device[s.device].push_back(&s);
    uint64_t& unshared = plan.memory[s.device].unshared_bytes;
    unshared = SatAdd(unshared, AlignUp(s.bytes));
  }
  for (const PlanAlias& a : plan.aliases) {
    uint64_t& in_place = plan.memory[a.device].reshape_in_place_bytes;
    in_place = SatAdd(in_place, AlignUp(bytes_of(a.value)));
  }
  std::vector<bool> counted(graph.values.size(), false);  // an output listed twice is one copy
  for (const StateValue& v : graph.state.values) counted[v.output] = true;  // never copied out
  for (ValueId id : graph.outputs) {
    if (producer[id] >= 0 && !counted[id]) {
      uint64_t& out = plan.memory[producer[id]].output_bytes;
      out = SatAdd(out, bytes_of(id));
    }
    counted[id] = true;
  }
  for (const PlanState& st : plan.states) {
    uint64_t& state = plan.memory[st.device].state_bytes;
    state = SatAdd(state, AlignUp(bytes_of(graph.state.values[st.index].input)));
  }
  for (size_t d = 0; d < num_devices; ++d) {
    DeviceMemory& m = plan.memory[d];
    m.arena_bytes = AssignOffsets(per_device[d]);
    for (ValueId id : plan.weights[d])
      m.weight_bytes = SatAdd(m.weight_bytes, AlignUp(bytes_of(id)));
    const auto limit = options.memory_limits.find(plan.devices[d]);
    m.user_limit = limit != options.memory_limits.end();
    m.limit_bytes = m.user_limit ? limit->second : plan.devices[d]->memory_bytes;
    // On a device whose memory is the host's, the outputs copied to the caller are held
    // with the arena at the end of a run.
    const bool host = plan.devices[d]->host_memory();
    const uint64_t outputs = host ? m.output_bytes : 0;
    m.peak_bytes = SatAdd(SatAdd(m.arena_bytes, m.weight_bytes), SatAdd(m.state_bytes, outputs));
    // A limit the user set is enforced whatever its value (0 too); a device that declares
    // 0 bytes declares no size.
    if ((m.user_limit || m.limit_bytes != 0) && m.peak_bytes > m.limit_bytes) {
      return ResourceExhausted(
          "device " + plan.devices[d]->Spec() + " (" + plan.devices[d]->name +
          ") cannot hold the plan: it needs " + Bytes(m.peak_bytes) + " (arena peak " +
          Bytes(m.arena_bytes) + " + weights " + Bytes(m.weight_bytes) +
          (m.state_bytes != 0 ? " + decoding state " + Bytes(m.state_bytes) : "") +
          (outputs != 0 ? " + outputs " + Bytes(outputs) + " copied to the caller" : "") +
          ") but " + (m.user_limit ? "the memory limit set for it is " : "it declares only ") +
          Bytes(m.limit_bytes));
    }
  }
  return Status::Ok();
}

}  // namespace sy::sched
