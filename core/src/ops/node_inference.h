// One node's type inference as both loading (validate_types.cpp) and specialisation
// (specialize.cpp) run it.
#pragma once

#include <vector>

#include "switchyard/graph.h"
#include "switchyard/status.h"

namespace sy {

// The output types of graph.nodes[index] from its inputs' current types: an unknown op
// (with a "did you mean"), an id out of range and a schema's refusal are errors that
// name the node. Normalises the node's attrs in place. `scratch` is reused storage.
Expected<std::vector<TensorType>> InferNodeTypes(Graph& graph, size_t index,
                                                 std::vector<TensorType>& scratch);

}  // namespace sy
