// After placement: the island pass, then partitions (maximal runs of consecutive nodes
// on one device), the copies between devices and the weights each device needs.
#pragma once

#include <vector>

#include "sched/support_oracle.h"
#include "switchyard/plan.h"

namespace sy::sched {

// The cost model of docs/scheduling.md, in microseconds.
struct TransferCostModel {
  double copy_latency_us = 20.0;               // a copy that involves device memory
  double host_copy_latency_us = 1.0;           // both sides in host memory (a memcpy)
  double bytes_per_us = 10000.0;               // 10 GB/s for copies, staged ones count twice
  double host_compute_bytes_per_us = 10000.0;  // light ops on a less preferred device
  size_t max_island_nodes = 8;
};

// Estimated cost of every copy a placement needs (graph inputs from and outputs to the
// host included, as each run pays them).
double TransferCost(const Graph& graph, const std::vector<NodePlacement>& placements,
                    const std::vector<const Device*>& devices, const TransferCostModel& model);

// Moves runs of at most model.max_island_nodes nodes to a neighbouring run's device when
// that device supports them all and the copies saved outweigh the slowdown. Nodes on an
// honoured hint never move.
Status MergeIslands(const Graph& graph, const std::vector<const Device*>& devices,
                    SupportOracle& oracle, const TransferCostModel& model,
                    std::vector<NodePlacement>& placements);

// Fills plan.partitions, plan.copies and plan.weights from plan.nodes.
void BuildPartitions(const Graph& graph, Plan& plan);

}  // namespace sy::sched
