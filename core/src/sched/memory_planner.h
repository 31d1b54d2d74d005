// The memory plan: every value a device holds during a run gets a slice of that
// device's one arena, placed by liveness so that values whose lifetimes do not overlap
// share bytes; then each device's need (arena peak plus weights) is checked against its
// limit before anything is allocated.
#pragma once

#include "switchyard/plan.h"

namespace sy::sched {

// Alignment of every slot's offset (what buffer_view promises plugins).
inline constexpr uint64_t kArenaAlignment = 256;

// Fills plan.slots and plan.memory from plan.partitions and plan.copies. Fails with
// kResourceExhausted, giving the numbers, when a device cannot hold its part.
Status PlanMemory(const Graph& graph, const PlanOptions& options, Plan& plan);

}  // namespace sy::sched
