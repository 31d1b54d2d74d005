// Importing a model whose inputs have run-time sizes (docs/dynamic-shapes.md).
//
// The import traces the model at example sizes, so every mapping works on concrete
// shapes as in a static import. Alongside, the constants that exporters compute from
// sizes (Shape, then Gather, Concat, Add, ... on it) carry each element as an expression
// in the size symbols (KnownValue::dims); the ops that take such a constant as a static
// attribute (Reshape, Expand, Slice, Range, ConstantOfShape, Tile, Split) record the
// expression (Node::attr_exprs), to be computed when the graph is specialised.
#pragma once

#include "import_context.h"
#include "op_mapping.h"

namespace sy::onnx_import {

// Handles `ctx`'s node when its sizes matter: Shape and Size (whose results get their
// expressions), arithmetic on size constants (folded, with expressions), Range and
// ConstantOfShape of run-time sizes (emitted as catalogue ops with attr_exprs). Returns
// false for a node it leaves to the ordinary mapping.
Expected<bool> ImportSizeNode(NodeContext& ctx, const OpMapping& mapping);

// A constant of sizes (KnownValue::dims) that a run-time op reads: computed at run time,
// one catalogue `range` of one element per size (its bounds are the size expressions),
// concatenated and reshaped to the constant's shape. Named after `name`.
Expected<ValueId> MaterializeSizes(ImportState& state, const std::string& name,
                                   const Tensor& example, const std::vector<DimExpr>& dims);

// The graph of the second trace must be the first's at other sizes: the same nodes, and
// the same attributes and constants once the first is specialised at the second's sizes.
// `first` becomes the graph with run-time sizes: each value's dims that differ between
// the traces are "?" (the specialisation infers them). Errors name the first node or
// constant that depends on the sizes in a way the importer did not express.
Status MergeTraces(Graph& first, const Graph& second);

}  // namespace sy::onnx_import
