// Pass 1's checks of a graph's decoding state (docs/decoding.md): what the "state" member
// says must fit the graph's inputs and outputs before a session can keep anything.
#pragma once

#include "switchyard/graph.h"
#include "switchyard/status.h"

namespace sy {

// Each state input is a graph input and each output a graph output, none used twice;
// input and output have one static type, the same, and `axis` is one of its axes; the
// position input is a graph input of i32 or i64 holding one integer, not a state input;
// the advance input is a graph input other than those, `advance_axis` one of its axes.
// State with data symbols (sizes decided by data, run in stages) is refused. A graph
// without state passes untouched.
Status CheckStateStructure(const Graph& graph);

}  // namespace sy
