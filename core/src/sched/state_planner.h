// Where a graph's decoding state lives (docs/decoding.md): each state value's device and
// whether the graph writes it in place. Part of the memory plan (memory_planner.cpp),
// which leaves state out of the arena.
#pragma once

#include "switchyard/plan.h"

namespace sy::sched {

// Fills plan.states from plan.nodes (the placement). A state value lives on the device
// whose nodes read its input; its input read on two devices, or read by no node, and an
// output that no node produces are errors naming the state and the nodes.
Status PlanStates(const Graph& graph, Plan& plan);

}  // namespace sy::sched
