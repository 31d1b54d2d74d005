// The first step of planning: a device for every node, with the reason (plan.h lists
// the rules). Devices are indices into a list that starts as the order and grows with
// hinted devices and the CPU fallback as they are needed.
#pragma once

#include <vector>

#include "sched/support_oracle.h"
#include "switchyard/plan.h"

namespace sy::sched {

// The default order: discrete GPUs, accelerators, integrated GPUs, then CPUs, in load
// order within a kind; reference devices never.
std::vector<const Device*> PlatformOrder(const PluginHost& host);

// Fills `placements` (one per node). `devices` holds the order on entry; hinted devices
// and the fallback are appended. Fails when a node has no device, or in strict mode
// when a node falls back or a hint cannot be honoured.
Status PlaceNodes(const Graph& graph, const PluginHost* host, const PlanOptions& options,
                  std::vector<const Device*>& devices, SupportOracle& oracle,
                  std::vector<NodePlacement>& placements);

}  // namespace sy::sched
