#include "format/symbolic_structure.h"

#include <map>
#include <set>

namespace sy {
namespace {

// `where` describes the user for the message; called only when something is wrong, since
// graphs of thousands of values would otherwise build thousands of descriptions.
template <typename Where>
Status CheckDeclared(const std::set<std::string>& used, const std::set<std::string>& declared,
                     const Where& where) {
  for (const std::string& name : used) {
    if (declared.count(name) == 0) {
      return InvalidModel(where() + " uses symbol " + name +
                          ", which \"symbols\" does not declare (expected every symbol a shape "
                          "or expression uses to be declared)");
    }
  }
  return Status::Ok();
}

}  // namespace

Status CheckSymbolicStructure(const Graph& graph) {
  if (graph.symbols.empty() && !graph.IsSymbolic()) return Status::Ok();
  std::set<std::string> declared;
  for (const DimSymbol& s : graph.symbols) declared.insert(s.name);

  for (size_t id = 0; id < graph.values.size(); ++id) {
    const Value& value = graph.values[id];
    if (!value.is_symbolic()) continue;
    auto where = [&] { return graph.DescribeValue(static_cast<ValueId>(id)); };
    for (size_t d = 0; d < value.symbolic_shape.size(); ++d) {
      const DimExpr& dim = value.symbolic_shape[d];
      if (dim.is_const() && dim.value() < 0) {
        return InvalidModel(where() + ": shape[" + std::to_string(d) + "] is " +
                            std::to_string(dim.value()) + ", expected a size of 0 or more");
      }
      std::set<int32_t> reads;
      dim.CollectValues(reads);
      if (!reads.empty()) {
        return InvalidModel(where() + ": shape[" + std::to_string(d) + "] is " + dim.ToString() +
                            ", but a recorded shape may not read another value's dims (expected "
                            "symbols, constants and \"?\")");
      }
      std::set<std::string> used;
      dim.CollectSymbols(used);
      SY_RETURN_IF_ERROR(CheckDeclared(used, declared, where));
    }
  }

  // An input dim that is a symbol binds it; one that is an expression of symbols bound so
  // (an attention mask's past + seq) is checked against them when a run binds them.
  std::set<std::string> bound;
  std::map<std::string, ValueId> data_symbols;  // name -> the value that binds it
  for (ValueId id : graph.inputs) {
    for (const DimExpr& dim : graph.values[id].symbolic_shape) {
      if (dim.kind() == DimExpr::Kind::kSymbol) bound.insert(dim.symbol());
    }
  }
  for (ValueId id : graph.inputs) {
    const Value& value = graph.values[id];
    for (size_t d = 0; d < value.symbolic_shape.size(); ++d) {
      const DimExpr& dim = value.symbolic_shape[d];
      if (dim.is_const() || dim.kind() == DimExpr::Kind::kSymbol) continue;
      std::set<std::string> used;
      dim.CollectSymbols(used);
      const std::string what = "graph input " + graph.DescribeValue(id) + ": shape[" +
                               std::to_string(d) + "] is " + dim.ToString();
      if (dim.is_unknown()) {
        return InvalidModel(what +
                            ", expected a constant, a symbol or an expression of symbols "
                            "(an input's sizes are what binds the symbols)");
      }
      for (const std::string& name : used) {
        if (bound.count(name) == 0) {
          return InvalidModel(what + ", but no graph input's dim is " + name +
                              " itself (expected an input dim expression to use only symbols "
                              "that other input dims bind)");
        }
      }
    }
  }
  for (const DimSymbol& s : graph.symbols) {
    if (s.from_data()) {
      if (static_cast<size_t>(s.value) >= graph.values.size()) {
        return InvalidModel("symbol " + s.name + " is bound by value " + std::to_string(s.value) +
                            ", out of range [0, " + std::to_string(graph.values.size()) + ")");
      }
      const Value& v = graph.values[s.value];
      if (!IsInteger(v.type.dtype) || v.is_symbolic() || ElementCount(v.type.shape) != 1) {
        return InvalidModel("symbol " + s.name + " is bound by " + graph.DescribeValue(s.value) +
                            ", which is " + ValueTypeString(v) +
                            " (expected an integer tensor of one element)");
      }
      data_symbols[s.name] = s.value;
      continue;
    }
    if (bound.count(s.name) == 0) {
      return InvalidModel("symbol " + s.name +
                          " is declared but no graph input's shape has it (expected each "
                          "symbol to be the size of some input dim)");
    }
  }
  for (const Constant& c : graph.constants) {
    if (graph.values[c.value].is_symbolic()) {
      return InvalidModel("constant for " + graph.DescribeValue(c.value) +
                          " has a symbolic shape (expected constants to have static shapes)");
    }
  }

  // The node that defines each value: -1 for graph inputs and constants.
  std::vector<int64_t> producer(graph.values.size(), -1);
  for (size_t n = 0; n < graph.nodes.size(); ++n) {
    for (ValueId out : graph.nodes[n].outputs) producer[out] = static_cast<int64_t>(n);
  }
  // A data symbol's value is a graph input or a node output (a constant's size would be
  // no run-time size), defined before every node that uses the symbol.
  std::vector<bool> is_input(graph.values.size(), false);
  for (ValueId id : graph.inputs) is_input[id] = true;
  for (const auto& [name, value] : data_symbols) {
    if (!is_input[value] && producer[value] < 0) {
      return InvalidModel("symbol " + name + " is bound by " + graph.DescribeValue(value) +
                          ", which is not a graph input or a node output (expected a value "
                          "known only at run time)");
    }
  }
  for (size_t n = 0; n < graph.nodes.size(); ++n) {
    std::set<std::string> used;
    for (const auto& [attr, expr] : graph.nodes[n].attr_exprs) {
      for (const DimExpr& e : expr.items) e.CollectSymbols(used);
    }
    for (ValueId out : graph.nodes[n].outputs) {
      for (const DimExpr& e : graph.values[out].symbolic_shape) e.CollectSymbols(used);
    }
    for (const std::string& name : used) {
      auto it = data_symbols.find(name);
      if (it != data_symbols.end() && producer[it->second] >= static_cast<int64_t>(n)) {
        return InvalidModel(graph.DescribeNode(n) + " uses symbol " + name + ", which " +
                            graph.DescribeValue(it->second) +
                            " binds only after it (expected the value before the node)");
      }
    }
  }
  for (size_t n = 0; n < graph.nodes.size(); ++n) {
    for (const auto& entry : graph.nodes[n].attr_exprs) {
      const AttrExpr& expr = entry.second;
      // (A lambda may not capture a structured binding before C++20's clang 16.)
      auto where = [&] { return graph.DescribeNode(n) + ": attr_exprs." + entry.first; };
      for (const DimExpr& item : expr.items) {
        std::set<std::string> used;
        item.CollectSymbols(used);
        SY_RETURN_IF_ERROR(CheckDeclared(used, declared, where));
        std::set<int32_t> reads;
        item.CollectValues(reads);
        for (int32_t id : reads) {
          if (id < 0 || static_cast<size_t>(id) >= graph.values.size()) {
            return InvalidModel(where() + " reads the dims of value " + std::to_string(id) +
                                ", out of range [0, " + std::to_string(graph.values.size()) + ")");
          }
          if (producer[id] >= static_cast<int64_t>(n)) {
            return InvalidModel(where() + " reads the dims of " + graph.DescribeValue(id) +
                                ", which is not defined before the node");
          }
        }
      }
    }
  }
  return Status::Ok();
}

}  // namespace sy
