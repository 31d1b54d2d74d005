// Comparing two graphs field by field, for the round-trip tests of the encodings (unit
// tests, and onnx_node_tests on every imported node-test model): the first difference
// as text, or an empty string when the graphs are the same, every constant's bytes
// included (NaNs by bit pattern).
#pragma once

#include <bit>
#include <cstdint>
#include <string>

#include "switchyard/graph.h"

namespace sy::test {

// Equal values; floats by bit pattern.
inline bool SameAttr(const AttrValue& a, const AttrValue& b) {
  if (a.index() != b.index()) return false;
  auto bits = [](double d) { return std::bit_cast<uint64_t>(d); };
  if (const double* x = std::get_if<double>(&a)) return bits(*x) == bits(std::get<double>(b));
  if (const auto* x = std::get_if<std::vector<double>>(&a)) {
    const auto& y = std::get<std::vector<double>>(b);
    if (x->size() != y.size()) return false;
    for (size_t i = 0; i < x->size(); ++i) {
      if (bits((*x)[i]) != bits(y[i])) return false;
    }
    return true;
  }
  return a == b;
}

inline std::string DimsDiffer(const Value& a, const Value& b) {
  if (a.type != b.type) return a.type.ToString() + " vs " + b.type.ToString();
  if (a.symbolic_shape.size() != b.symbolic_shape.size()) return "symbolic rank";
  for (size_t d = 0; d < a.symbolic_shape.size(); ++d) {
    // By text, which is the tree ("?" is not SameAs another "?": two unknowns may differ).
    if (a.symbolic_shape[d].ToString() != b.symbolic_shape[d].ToString()) {
      return "dim " + std::to_string(d) + ": " + a.symbolic_shape[d].ToString() + " vs " +
             b.symbolic_shape[d].ToString();
    }
  }
  return "";
}

inline std::string GraphDiff(const Graph& a, const Graph& b) {
  if (a.producer != b.producer) return "producer";
  if (a.values.size() != b.values.size()) return "value count";
  for (size_t i = 0; i < a.values.size(); ++i) {
    if (a.values[i].name != b.values[i].name) return "value " + std::to_string(i) + " name";
    const std::string dims = DimsDiffer(a.values[i], b.values[i]);
    if (!dims.empty()) return "value " + std::to_string(i) + ": " + dims;
  }
  if (a.inputs != b.inputs) return "inputs";
  if (a.outputs != b.outputs) return "outputs";
  if (a.constants.size() != b.constants.size()) return "constant count";
  for (size_t i = 0; i < a.constants.size(); ++i) {
    const Constant& x = a.constants[i];
    const Constant& y = b.constants[i];
    if (x.value != y.value || x.tensor_name != y.tensor_name || !x.data.BitwiseEquals(y.data)) {
      return "constant " + std::to_string(i);
    }
  }
  if (a.nodes.size() != b.nodes.size()) return "node count";
  for (size_t i = 0; i < a.nodes.size(); ++i) {
    const Node& x = a.nodes[i];
    const Node& y = b.nodes[i];
    const std::string where = "node " + std::to_string(i) + " (" + x.op + ")";
    if (x.op != y.op || x.inputs != y.inputs || x.outputs != y.outputs || x.name != y.name ||
        x.backend != y.backend) {
      return where;
    }
    // Attributes compare as values; floats by bits, so NaN attributes round-trip too.
    if (x.attrs.size() != y.attrs.size()) return where + ": attribute count";
    for (auto xi = x.attrs.begin(), yi = y.attrs.begin(); xi != x.attrs.end(); ++xi, ++yi) {
      if (xi->first != yi->first || xi->second.index() != yi->second.index()) {
        return where + ": attribute " + xi->first;
      }
      if (!SameAttr(xi->second, yi->second)) return where + ": attribute " + xi->first + " value";
    }
    if (x.attr_exprs.size() != y.attr_exprs.size()) return where + ": attr_exprs count";
    for (auto xi = x.attr_exprs.begin(), yi = y.attr_exprs.begin(); xi != x.attr_exprs.end();
         ++xi, ++yi) {
      if (xi->first != yi->first || xi->second.is_list != yi->second.is_list ||
          xi->second.items.size() != yi->second.items.size()) {
        return where + ": attr_exprs " + xi->first;
      }
      for (size_t k = 0; k < xi->second.items.size(); ++k) {
        if (xi->second.items[k].ToString() != yi->second.items[k].ToString()) {
          return where + ": attr_exprs " + xi->first;
        }
      }
    }
  }
  if (a.symbols.size() != b.symbols.size()) return "symbol count";
  for (size_t i = 0; i < a.symbols.size(); ++i) {
    if (a.symbols[i].name != b.symbols[i].name || a.symbols[i].example != b.symbols[i].example ||
        a.symbols[i].value != b.symbols[i].value) {
      return "symbol " + std::to_string(i);
    }
  }
  const DecodingState& x = a.state;
  const DecodingState& y = b.state;
  if (x.values.size() != y.values.size() || x.position != y.position ||
      x.advance_input != y.advance_input || x.advance_axis != y.advance_axis ||
      x.end_tokens != y.end_tokens) {
    return "state";
  }
  for (size_t i = 0; i < x.values.size(); ++i) {
    if (x.values[i].input != y.values[i].input || x.values[i].output != y.values[i].output ||
        x.values[i].axis != y.values[i].axis) {
      return "state value " + std::to_string(i);
    }
  }
  return "";
}

}  // namespace sy::test
