// Plan::Build with the node descriptions supplied by the caller, for a Session, which
// sends the same descriptions to the plugins' prepare afterwards. Internal: the
// descriptions are the plugin host's encoding (plugin/node_descriptors.h), not part of
// the public plan.h.
#pragma once

#include "plugin/node_descriptors.h"
#include "switchyard/plan.h"

namespace sy::sched {

// As Plan::Build, asking plugins about the nodes as `descriptors` (of `graph`) describe
// them.
Expected<Plan> BuildPlan(const Graph& graph, const NodeDescriptors& descriptors,
                         const PluginHost* host, const PlanOptions& options);

}  // namespace sy::sched
