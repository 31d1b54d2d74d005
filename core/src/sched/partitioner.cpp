#include "sched/partitioner.h"

#include <algorithm>
#include <cstdio>
#include <set>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

#include "switchyard/op_schema.h"

namespace sy::sched {
namespace {

uint64_t ValueBytes(const Graph& graph, ValueId id) {
  const TensorType& t = graph.values[id].type;
  return static_cast<uint64_t>(ElementCount(t.shape)) * DTypeSize(t.dtype);
}

// Whether a copy between the two devices (-1 = the host) goes through host memory
// twice: neither side is host memory and no plugin offers a direct path.
bool Staged(const std::vector<const Device*>& devices, int32_t from, int32_t to) {
  if (from < 0 || to < 0) return false;
  const Device& a = *devices[from];
  const Device& b = *devices[to];
  if (a.host_memory() || b.host_memory()) return false;
  return !(a.plugin == b.plugin && a.plugin->api()->copy_device_to_device != nullptr);
}

// Host memory to a device that reads host memory in place: a pointer, no copy.
bool Shared(const std::vector<const Device*>& devices, int32_t from, int32_t to) {
  return from >= 0 && to >= 0 && devices[from]->host_memory() && devices[to]->wraps_host;
}

double CopyCost(const std::vector<const Device*>& devices, int32_t from, int32_t to, uint64_t bytes,
                const TransferCostModel& model) {
  // A shared copy moves no bytes; switching partitions still costs its latency.
  if (Shared(devices, from, to)) return model.host_copy_latency_us;
  const bool host_from = from < 0 || devices[from]->host_memory();
  const bool host_to = to < 0 || devices[to]->host_memory();
  const double latency = host_from && host_to ? model.host_copy_latency_us : model.copy_latency_us;
  const double passes = Staged(devices, from, to) ? 2.0 : 1.0;
  return latency + passes * static_cast<double>(bytes) / model.bytes_per_us;
}

// Ops whose work grows faster than their bytes (the schema's cost class): the island
// pass never moves them, since they are where a preferred device earns its place.
bool IsHeavy(std::string_view op) {
  const OpSchema* schema = OpRegistry::Global().Find(op);
  return schema != nullptr && schema->cost == OpCost::kCompute;
}

}  // namespace

double TransferCost(const Graph& graph, const std::vector<NodePlacement>& placements,
                    const std::vector<const Device*>& devices, const TransferCostModel& model) {
  // Where each value is produced: -1 the host (graph inputs), -2 constants (uploaded once
  // per session, so free per run), else a device.
  std::vector<int32_t> producer(graph.values.size(), -1);
  for (const Constant& c : graph.constants) producer[c.value] = -2;
  for (size_t n = 0; n < graph.nodes.size(); ++n) {
    for (ValueId id : graph.nodes[n].outputs) producer[id] = placements[n].device;
  }
  std::set<std::pair<ValueId, int32_t>> moved;  // (value, destination) pairs paid for
  double cost = 0;
  auto need = [&](ValueId id, int32_t to) {
    const int32_t from = producer[id];
    if (from == -2 || from == to || !moved.insert({id, to}).second) return;
    cost += CopyCost(devices, from, to, ValueBytes(graph, id), model);
  };
  for (size_t n = 0; n < graph.nodes.size(); ++n) {
    for (ValueId id : graph.nodes[n].inputs) need(id, placements[n].device);
  }
  for (ValueId id : graph.outputs) need(id, -1);
  return cost;
}

Status MergeIslands(const Graph& graph, const std::vector<const Device*>& devices,
                    SupportOracle& oracle, const TransferCostModel& model,
                    std::vector<NodePlacement>& placements) {
  const size_t n = placements.size();
  // Each pass looks at every run once; a move merges runs, so passes are few.
  for (bool changed = true; changed;) {
    changed = false;
    size_t begin = 0;
    while (begin < n) {
      size_t end = begin + 1;
      while (end < n && placements[end].device == placements[begin].device) ++end;
      const int32_t here = placements[begin].device;
      bool movable = end - begin <= model.max_island_nodes;
      double touched_bytes = 0;
      for (size_t k = begin; k < end && movable; ++k) {
        movable = placements[k].reason != PlacementReason::kHint && !IsHeavy(graph.nodes[k].op);
        for (ValueId id : graph.nodes[k].inputs) touched_bytes += ValueBytes(graph, id);
        for (ValueId id : graph.nodes[k].outputs) touched_bytes += ValueBytes(graph, id);
      }
      std::vector<int32_t> targets;
      if (begin > 0) targets.push_back(placements[begin - 1].device);
      if (end < n && (targets.empty() || targets[0] != placements[end].device)) {
        targets.push_back(placements[end].device);
      }
      for (int32_t target : targets) {
        if (!movable || target < 0) continue;
        bool supported = true;
        for (size_t k = begin; k < end && supported; ++k) {
          SY_ASSIGN_OR_RETURN(supported, oracle.Supports(k, static_cast<size_t>(target)));
        }
        if (!supported) continue;
        // Moving to a less preferred device (later in the list) runs the nodes slower.
        const double slowdown = target > here ? touched_bytes / model.host_compute_bytes_per_us : 0;
        const double before = TransferCost(graph, placements, devices, model);
        std::vector<NodePlacement> trial = placements;
        for (size_t k = begin; k < end; ++k) trial[k].device = target;
        const double after = TransferCost(graph, trial, devices, model);
        if (after + slowdown >= before) continue;
        char saved[96];
        std::snprintf(saved, sizeof saved, "%.1f us of copies for %.1f us of slower compute",
                      before - after, slowdown);
        for (size_t k = begin; k < end; ++k) {
          placements[k].device = target;
          placements[k].reason = PlacementReason::kIsland;
          placements[k].detail = "moved from " + devices[here]->Spec() + " to " +
                                 devices[target]->Spec() + " (island pass: saves " + saved +
                                 "; was: " + placements[k].detail + ")";
        }
        changed = true;
        break;
      }
      begin = end;
    }
  }
  return Status::Ok();
}

void BuildPartitions(const Graph& graph, Plan& plan) {
  plan.partitions.clear();
  plan.copies.clear();
  plan.weights.assign(plan.devices.size(), {});
  std::vector<int32_t> producer(graph.values.size(), -1);  // device; -1 graph input
  std::vector<bool> is_constant(graph.values.size(), false);
  for (const Constant& c : graph.constants) is_constant[c.value] = true;
  std::set<std::pair<ValueId, int32_t>> present;           // (value, device) already there
  std::unordered_set<ValueId> produced_here, listed_here;  // of the current partition
  for (size_t n = 0; n < graph.nodes.size(); ++n) {
    const int32_t device = plan.nodes[n].device;
    if (plan.partitions.empty() || plan.partitions.back().device != device) {
      plan.partitions.push_back(PlanPartition{device, {}, {}, {}});
      produced_here.clear();
      listed_here.clear();
    }
    PlanPartition& part = plan.partitions.back();
    part.nodes.push_back(n);
    for (ValueId id : graph.nodes[n].inputs) {
      if (produced_here.count(id) || !listed_here.insert(id).second) continue;
      part.inputs.push_back(id);
      if (!present.insert({id, device}).second) continue;  // already on this device
      if (is_constant[id]) {
        plan.weights[device].push_back(id);
      } else if (producer[id] >= 0 && producer[id] != device) {
        plan.copies.push_back(PlanCopy{id, producer[id], device, ValueBytes(graph, id),
                                       plan.partitions.size() - 1,
                                       Staged(plan.devices, producer[id], device),
                                       Shared(plan.devices, producer[id], device)});
      }
    }
    for (ValueId id : graph.nodes[n].outputs) {
      producer[id] = device;
      present.insert({id, device});
      produced_here.insert(id);
      part.produced.push_back(id);
    }
  }
}

}  // namespace sy::sched
