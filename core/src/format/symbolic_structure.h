// Pass 1's checks of a graph with run-time sizes (docs/dynamic-shapes.md): what can be
// said of its symbols and expressions before any size is known.
#pragma once

#include "switchyard/graph.h"
#include "switchyard/status.h"

namespace sy {

// Every symbol used is declared and bound by some graph input's dim; graph inputs' dims
// are constants or plain symbols; constants are not symbolic; recorded dims are not
// negative constants and read no value's dims; attr_exprs read dims only of values
// defined before their node. A graph with no symbols passes untouched.
Status CheckSymbolicStructure(const Graph& graph);

}  // namespace sy
