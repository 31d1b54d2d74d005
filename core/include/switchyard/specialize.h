// Specialisation (docs/dynamic-shapes.md): a graph with run-time sizes made static for
// one set of input shapes, so that everything after it (optimisation, placement, memory
// planning, plugins' prepare) sees concrete shapes only.
//
// The input shapes bind the graph's symbols; Specialize then walks the nodes in order,
// computes each attribute expression (which may read dims of values already inferred),
// infers every node's output types with the catalogue's shape rules and checks them
// against the recorded symbolic shapes. Every error starts with the binding
// ("with batch=2, seq=600: ") so that a message about one shape is read as such.
#pragma once

#include <functional>
#include <map>
#include <span>
#include <string>

#include "switchyard/graph.h"
#include "switchyard/status.h"

namespace sy {

using SymbolBinding = std::map<std::string, int64_t, std::less<>>;

// "batch=2, seq=7"
std::string BindingToString(const SymbolBinding& binding);

// The symbols' sizes as the graph inputs' shapes give them, one shape per graph input in
// order. Errors (kInvalidArgument) name the input: a wrong rank, a dim that differs from
// a constant dim, and two inputs that disagree on a symbol ("inputs 'input_ids' and
// 'attention_mask' disagree on seq: 7 and 9").
Expected<SymbolBinding> BindSymbols(const Graph& graph, std::span<const Shape> input_shapes);

// Graph input `input`'s shape with its symbols at their example sizes; kInvalidArgument
// naming the input and the symbol when one has no example.
Expected<Shape> ExampleShape(const Graph& graph, ValueId input);

// The declared examples of every symbol; kInvalidArgument when one has none.
Expected<SymbolBinding> ExampleBinding(const Graph& graph);

// The static graph for `binding` (which must give every declared symbol). Constants
// share storage with `graph`. Errors are kInvalidModel for a graph that is wrong at this
// binding (a recorded shape that disagrees, a shape rule that refuses) and
// kInvalidArgument for sizes that make an expression fail (a division by zero).
Expected<Graph> Specialize(const Graph& graph, const SymbolBinding& binding);

}  // namespace sy
