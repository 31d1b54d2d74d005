// The per-op rules of the symbolic pass (symbolic_shapes.h): what each catalogue op does
// to its inputs' dims, as canonical polynomials.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "ops/symbolic_shapes.h"
#include "switchyard/op_schema.h"

namespace sy {

// One node as its rule sees it.
struct SymbolicNode {
  const Graph& graph;
  size_t index;
  const OpSchema& schema;
  std::vector<const SymShape*> inputs;
  // attr_exprs evaluated with the dims decided so far (dim(V,A) resolved).
  std::map<std::string, std::vector<DimPoly>> exprs;
  DimAlgebra& algebra;

  const Node& node() const { return graph.nodes[index]; }
  const SymShape& in(size_t i) const { return *inputs[i]; }
  size_t num_outputs() const { return node().outputs.size(); }
  // An int attribute: static, an expression that is a constant, or the schema's default;
  // nullopt when absent or not a constant.
  std::optional<int64_t> Int(std::string_view name) const;
  // An int attribute as a size: a constant or an expression.
  std::optional<DimPoly> IntDim(std::string_view name) const;
  // An ints attribute: static entries as constants, or the expression's items.
  std::optional<std::vector<DimPoly>> Ints(std::string_view name) const;
  // Only constant entries (axes, perm, steps).
  std::optional<std::vector<int64_t>> ConstInts(std::string_view name) const;
  bool Has(std::string_view name) const;

  // "'a' [batch, seq]": input i with its dims.
  std::string Input(size_t i) const;
  // InvalidModel "node 3 (add) \"sum\": <what>".
  Status Error(const std::string& what) const;
};

// The outputs' dims; nullopt where the rule does not decide them (attributes it does
// not read, a rank it does not expect): the recorded dims stand. Errors only for sizes
// that differ at every binding.
using SymbolicRule = Expected<std::optional<std::vector<SymShape>>> (*)(SymbolicNode& node);

// The rule of an op, or nullptr when it has none.
SymbolicRule FindSymbolicRule(const OpSchema& schema);

}  // namespace sy
