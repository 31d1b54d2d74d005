// Symbolic shape inference (docs/dynamic-shapes.md, "In the format"): loading's check of a
// graph with run-time sizes for every size at once, before (and without) the check at the
// symbols' examples. Each node's output dims are inferred as canonical polynomials
// (ir/dim_poly.h) from its inputs' dims and its attributes, and compared with the dims
// its outputs record: a dim that differs for every binding of the symbols is an error
// naming the node, the values and the dims; a dim the algebra cannot decide (an opaque
// term) is left to the example check and to each specialisation.
#pragma once

#include <string>
#include <vector>

#include "ir/dim_poly.h"
#include "switchyard/graph.h"
#include "switchyard/status.h"

namespace sy {

using SymShape = std::vector<DimPoly>;

// "[batch, seq, 768]".
std::string SymShapeToString(const SymShape& shape);

// The dims of every value (indexed by ValueId) as the symbolic pass decides them: the
// inputs' and constants' as declared, each node's output as its rule infers it where the
// rule decides a dim and as recorded where it does not. An op without a symbolic rule
// takes its outputs' recorded dims ("?" a fresh atom). Errors are InvalidModel naming the
// node.
Expected<std::vector<SymShape>> InferSymbolicShapes(const Graph& graph);

// The pass itself, as ValidateGraphTypes runs it on a symbolic graph.
inline Status CheckSymbolicShapes(const Graph& graph) {
  return InferSymbolicShapes(graph).status();
}

}  // namespace sy
