// Plan::Build: placement, the island pass, partitions and copies, the memory plan.
#include "switchyard/plan.h"

#include "plugin/node_descriptors.h"
#include "sched/memory_planner.h"
#include "sched/partitioner.h"
#include "sched/placement.h"
#include "sched/plan_builder.h"
#include "sched/support_oracle.h"

namespace sy {

std::string_view PlacementReasonName(PlacementReason reason) {
  switch (reason) {
    case PlacementReason::kHint:
      return "hint";
    case PlacementReason::kOrder:
      return "order";
    case PlacementReason::kFallback:
      return "fallback";
    case PlacementReason::kIsland:
      return "island";
  }
  return "?";
}

uint64_t Plan::CopyBytes() const {
  uint64_t total = 0;
  for (const PlanCopy& c : copies) total += c.shared ? 0 : c.bytes;
  return total;
}

Expected<Plan> Plan::Build(const Graph& graph, const PluginHost* host, const PlanOptions& options) {
  const NodeDescriptors descriptors(graph);
  return sched::BuildPlan(graph, descriptors, host, options);
}

namespace sched {

Expected<Plan> BuildPlan(const Graph& graph, const NodeDescriptors& descriptors,
                         const PluginHost* host, const PlanOptions& options) {
  Plan plan;
  plan.devices = options.devices;
  if (plan.devices.empty() && host != nullptr) plan.devices = sched::PlatformOrder(*host);
  if (plan.devices.empty()) {
    return NotFound("no device to run on (see 'switchyard plugins' and 'switchyard devices')");
  }
  for (const Device* d : plan.devices) {
    if (d == nullptr || d->plugin == nullptr) return InvalidArgument("plan: a device is null");
  }
  sched::SupportOracle oracle(descriptors, plan.devices);
  SY_RETURN_IF_ERROR(sched::PlaceNodes(graph, host, options, plan.devices, oracle, plan.nodes));
  if (options.merge_islands && !options.strict) {
    SY_RETURN_IF_ERROR(
        sched::MergeIslands(graph, plan.devices, oracle, sched::TransferCostModel{}, plan.nodes));
  }
  sched::BuildPartitions(graph, plan);
  SY_RETURN_IF_ERROR(sched::PlanMemory(graph, options, plan));
  return plan;
}

}  // namespace sched
}  // namespace sy
