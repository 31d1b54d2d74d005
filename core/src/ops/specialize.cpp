// Specialize: a graph with run-time sizes made static for one binding of its symbols.
#include "switchyard/specialize.h"

#include <algorithm>
#include <set>

#include "ops/node_inference.h"
#include "switchyard/op_schema.h"
#include "switchyard/value_names.h"

namespace sy {
namespace {

// The value of attribute expression `expr` in the kind the op's schema gives it.
Expected<AttrValue> EvaluateAttr(const OpSchema* schema, const std::string& name,
                                 const AttrExpr& expr, const DimExpr::Bindings& bindings) {
  std::vector<int64_t> items;
  for (const DimExpr& item : expr.items) {
    Expected<int64_t> v = item.Evaluate(bindings);
    if (!v.ok()) return v.status().WithContext("attribute " + name + " = " + item.ToString());
    items.push_back(*v);
  }
  const AttrSpec* spec = schema != nullptr ? schema->FindAttr(name) : nullptr;
  const AttrKind kind = spec != nullptr ? spec->kind : AttrKind::kInts;
  if (expr.is_list) {
    if (kind == AttrKind::kFloats)
      return AttrValue(std::vector<double>(items.begin(), items.end()));
    return AttrValue(std::move(items));
  }
  if (items.size() != 1) return InvalidModel("attribute " + name + " has no expression");
  if (kind == AttrKind::kFloat) return AttrValue(static_cast<double>(items[0]));
  return AttrValue(items[0]);
}

// True when `inferred` fits what the value records: its dtype and rank, and every dim
// that is not "?" evaluates to the inferred size.
Expected<bool> MatchesRecorded(const Value& value, const TensorType& inferred,
                               const SymbolBinding& binding) {
  if (!value.is_symbolic()) return inferred == value.type;
  if (inferred.dtype != value.type.dtype || inferred.rank() != value.type.rank()) return false;
  const DimExpr::Bindings symbols{&binding, nullptr};
  for (size_t d = 0; d < value.symbolic_shape.size(); ++d) {
    const DimExpr& dim = value.symbolic_shape[d];
    if (dim.is_unknown()) continue;
    SY_ASSIGN_OR_RETURN(int64_t size, dim.Evaluate(symbols));
    if (size != inferred.shape[d]) return false;
  }
  return true;
}

// Value::run_time_dims from the recorded dims, before Specialize clears them.
void MarkRunTimeDims(Value& value) {
  for (size_t d = 0; d < value.symbolic_shape.size(); ++d) {
    if (!value.symbolic_shape[d].is_const())
      value.run_time_dims |= uint64_t{1} << std::min<size_t>(d, 63);
  }
}

}  // namespace

std::string BindingToString(const SymbolBinding& binding) {
  std::string text;
  for (const auto& [name, size] : binding) {
    text += (text.empty() ? "" : ", ") + name + "=" + std::to_string(size);
  }
  return text;
}

Expected<SymbolBinding> BindSymbols(const Graph& graph, std::span<const Shape> input_shapes) {
  if (input_shapes.size() != graph.inputs.size()) {
    return InvalidArgument("expected shapes for " + std::to_string(graph.inputs.size()) +
                           " graph inputs, got " + std::to_string(input_shapes.size()));
  }
  SymbolBinding binding;
  std::map<std::string, std::pair<size_t, size_t>, std::less<>> bound_by;  // (input, axis)
  for (size_t i = 0; i < graph.inputs.size(); ++i) {
    const Value& value = graph.values[graph.inputs[i]];
    const Shape& shape = input_shapes[i];
    const std::string input = "input '" + PrintableName(value.name) + "'";
    if (static_cast<int64_t>(shape.size()) != value.type.rank()) {
      return InvalidArgument(input + " has shape " + ShapeToString(shape) +
                             " but the graph takes " + ValueTypeString(value) + " (rank " +
                             std::to_string(value.type.rank()) + ")");
    }
    for (size_t d = 0; d < shape.size(); ++d) {
      const bool symbolic = value.is_symbolic() && !value.symbolic_shape[d].is_const();
      if (symbolic && value.symbolic_shape[d].kind() != DimExpr::Kind::kSymbol) {
        continue;  // an expression of symbols: checked below, once they are all bound
      }
      if (!symbolic) {
        if (shape[d] != value.type.shape[d]) {
          return InvalidArgument(input + " has shape " + ShapeToString(shape) +
                                 " but the graph takes " + ValueTypeString(value) + ": dim " +
                                 std::to_string(d) + " must be " +
                                 std::to_string(value.type.shape[d]));
        }
        continue;
      }
      const std::string& symbol = value.symbolic_shape[d].symbol();
      auto [it, inserted] = binding.emplace(symbol, shape[d]);
      if (inserted) {
        bound_by[symbol] = {i, d};
      } else if (it->second != shape[d]) {
        const auto [first, axis] = bound_by[symbol];
        const std::string first_name = PrintableName(graph.values[graph.inputs[first]].name);
        return InvalidArgument(
            (first == i ? input + " disagrees with itself on " + symbol
                        : "inputs '" + first_name + "' and '" + PrintableName(value.name) +
                              "' disagree on " + symbol) +
            ": " + std::to_string(it->second) + " (dim " + std::to_string(axis) + " of '" +
            first_name + "') and " + std::to_string(shape[d]) + " (dim " + std::to_string(d) +
            " of '" + PrintableName(value.name) + "')");
      }
    }
  }
  // Input dims that are expressions of the symbols bound above (pass 1 allows nothing
  // else): each must equal its expression's value.
  const DimExpr::Bindings bindings{&binding, nullptr};
  for (size_t i = 0; i < graph.inputs.size(); ++i) {
    const Value& value = graph.values[graph.inputs[i]];
    for (size_t d = 0; d < value.symbolic_shape.size(); ++d) {
      const DimExpr& dim = value.symbolic_shape[d];
      if (dim.is_const() || dim.kind() == DimExpr::Kind::kSymbol) continue;
      const std::string input = "input '" + PrintableName(value.name) + "'";
      Expected<int64_t> expected = dim.Evaluate(bindings);
      if (!expected.ok()) {
        return InvalidArgument(input + " dim " + std::to_string(d) + ": " +
                               expected.status().message());
      }
      if (*expected != input_shapes[i][d]) {
        return InvalidArgument(input + " has shape " + ShapeToString(input_shapes[i]) +
                               " but the graph takes " + ValueTypeString(value) + ": dim " +
                               std::to_string(d) + " must be " + dim.ToString() + " = " +
                               std::to_string(*expected) + " with " + BindingToString(binding));
      }
    }
  }
  return binding;
}

Expected<Shape> ExampleShape(const Graph& graph, ValueId input) {
  const Value& value = graph.values[input];
  Shape shape = value.type.shape;
  SymbolBinding examples;
  for (const DimSymbol& s : graph.symbols) {
    if (s.example >= 0) examples[s.name] = s.example;
  }
  const DimExpr::Bindings bindings{&examples, nullptr};
  // A dim is a symbol or an expression of other dims' symbols (pass 1 allows no other).
  for (size_t d = 0; d < value.symbolic_shape.size(); ++d) {
    const DimExpr& dim = value.symbolic_shape[d];
    if (dim.is_const()) continue;
    std::set<std::string> used;
    dim.CollectSymbols(used);
    for (const std::string& name : used) {
      if (examples.count(name) == 0) {
        return InvalidArgument("input \"" + PrintableName(value.name) + "\" is " +
                               ValueTypeString(value) + " and " + name + " has no example size");
      }
    }
    SY_ASSIGN_OR_RETURN(shape[d], dim.Evaluate(bindings));
  }
  return shape;
}

Expected<SymbolBinding> ExampleBinding(const Graph& graph) {
  SymbolBinding binding;
  for (const DimSymbol& symbol : graph.symbols) {
    if (symbol.example < 0) {
      return InvalidArgument("symbol " + symbol.name + " has no example size");
    }
    binding[symbol.name] = symbol.example;
  }
  return binding;
}

Expected<Graph> Specialize(const Graph& graph, const SymbolBinding& binding) {
  const std::string with = binding.empty() ? "" : "with " + BindingToString(binding) + ": ";
  for (const DimSymbol& symbol : graph.symbols) {
    if (binding.find(symbol.name) == binding.end()) {
      return InvalidArgument(with + "symbol " + symbol.name + " has no size");
    }
  }
  Graph out = graph;
  out.symbols.clear();
  const DimExpr::Bindings symbols_only{&binding, nullptr};
  for (ValueId id : out.inputs) {
    Value& value = out.values[id];
    for (size_t d = 0; d < value.symbolic_shape.size(); ++d) {
      Expected<int64_t> size = value.symbolic_shape[d].Evaluate(symbols_only);
      if (!size.ok()) return size.status().WithContext(with + out.DescribeValue(id));
      value.type.shape[d] = *size;
    }
    MarkRunTimeDims(value);
    value.symbolic_shape.clear();
    Status count = CheckedElementCount(value.type.shape).status();
    if (!count.ok()) return count.WithContext(with + "graph input " + out.DescribeValue(id));
  }

  const OpRegistry& registry = OpRegistry::Global();
  DimExpr::Bindings bindings{
      &binding, [&out](int32_t id, int64_t axis) -> Expected<int64_t> {
        const Shape& shape = out.values[id].type.shape;
        if (axis < 0 || axis >= static_cast<int64_t>(shape.size())) {
          return InvalidModel("dim(" + std::to_string(id) + "," + std::to_string(axis) +
                              ") reads axis " + std::to_string(axis) + " of " +
                              out.DescribeValue(id) + ", which has shape " + ShapeToString(shape));
        }
        return shape[axis];
      }};
  std::vector<TensorType> scratch;
  for (size_t index = 0; index < out.nodes.size(); ++index) {
    Node& node = out.nodes[index];
    for (const auto& [name, expr] : node.attr_exprs) {
      Expected<AttrValue> value = EvaluateAttr(registry.Find(node.op), name, expr, bindings);
      if (!value.ok()) return value.status().WithContext(with + out.DescribeNode(index));
      node.attrs.Set(name, std::move(*value));
    }
    node.attr_exprs.clear();
    Expected<std::vector<TensorType>> inferred = InferNodeTypes(out, index, scratch);
    if (!inferred.ok()) {
      if (with.empty()) return inferred.status();
      return inferred.status().WithContext(with.substr(0, with.size() - 2));
    }
    for (size_t k = 0; k < node.outputs.size(); ++k) {
      const ValueId id = node.outputs[k];
      Value& value = out.values[id];
      Expected<bool> matches = MatchesRecorded(value, (*inferred)[k], binding);
      if (!matches.ok()) return matches.status().WithContext(with + out.DescribeValue(id));
      if (!*matches) {
        return InvalidModel(
            with + out.DescribeNode(index) + " produces " + (*inferred)[k].ToString() +
            (node.outputs.size() > 1 ? " as output " + std::to_string(k) : "") + " but " +
            out.DescribeValue(id) + " is recorded as " + ValueTypeString(value));
      }
      value.type = std::move((*inferred)[k]);
      MarkRunTimeDims(value);
      value.symbolic_shape.clear();
    }
  }
  // A value no node produces and no input binds (none after pass 1) stays as recorded.
  for (const Value& value : out.values) {
    if (value.is_symbolic()) {
      return InvalidModel(with + "a value is left with a symbolic shape: " + value.name);
    }
  }
  return out;
}

}  // namespace sy
