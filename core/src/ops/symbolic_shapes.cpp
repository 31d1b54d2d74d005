// The symbolic pass: walks the nodes in order, runs each op's symbolic rule and checks the
// inferred dims against the recorded ones.
#include "ops/symbolic_shapes.h"

#include "ops/symbolic_rules.h"
#include "switchyard/value_names.h"

namespace sy {
namespace {

// A value's dims as recorded: its dim expressions, or the constants of its type.
SymShape Recorded(const Value& value, DimAlgebra& algebra,
                  const DimAlgebra::DimOfResolver& dim_of) {
  SymShape shape;
  if (!value.is_symbolic()) {
    for (int64_t d : value.type.shape) shape.push_back(d < 0 ? algebra.Fresh() : DimPoly(d));
    return shape;
  }
  for (const DimExpr& d : value.symbolic_shape) shape.push_back(algebra.FromExpr(d, dim_of));
  return shape;
}

// Of two forms of one dim that the pass could not tell apart, the one that says more:
// a polynomial over an opaque term, the recorded over the inferred.
const DimPoly& Better(const DimExpr& recorded_expr, const DimPoly& recorded,
                      const DimPoly& inferred) {
  if (recorded_expr.is_unknown()) return inferred;
  if (!recorded.HasOpaque() || inferred.HasOpaque()) return recorded;
  return inferred;
}

}  // namespace

std::string SymShapeToString(const SymShape& shape) {
  std::string text = "[";
  for (size_t i = 0; i < shape.size(); ++i) text += (i ? ", " : "") + shape[i].ToString();
  return text + "]";
}

std::optional<int64_t> SymbolicNode::Int(std::string_view name) const {
  if (const AttrValue* v = node().attrs.Find(name)) {
    if (const auto* i = std::get_if<int64_t>(v)) return *i;
    return std::nullopt;
  }
  if (auto it = exprs.find(std::string(name)); it != exprs.end()) {
    if (it->second.size() == 1) return it->second[0].AsConst();
    return std::nullopt;
  }
  if (const AttrSpec* spec = schema.FindAttr(name); spec != nullptr && spec->default_value) {
    if (const auto* i = std::get_if<int64_t>(&*spec->default_value)) return *i;
  }
  return std::nullopt;
}

std::optional<DimPoly> SymbolicNode::IntDim(std::string_view name) const {
  if (auto it = exprs.find(std::string(name)); it != exprs.end()) {
    if (it->second.size() == 1) return it->second[0];
    return std::nullopt;
  }
  if (std::optional<int64_t> v = Int(name)) return DimPoly(*v);
  return std::nullopt;
}

std::optional<std::vector<DimPoly>> SymbolicNode::Ints(std::string_view name) const {
  if (const AttrValue* v = node().attrs.Find(name)) {
    const auto* ints = std::get_if<std::vector<int64_t>>(v);
    if (ints == nullptr) return std::nullopt;
    return std::vector<DimPoly>(ints->begin(), ints->end());
  }
  if (auto it = exprs.find(std::string(name)); it != exprs.end()) return it->second;
  return std::nullopt;
}

std::optional<std::vector<int64_t>> SymbolicNode::ConstInts(std::string_view name) const {
  std::optional<std::vector<DimPoly>> items = Ints(name);
  if (!items) return std::nullopt;
  std::vector<int64_t> out;
  for (const DimPoly& item : *items) {
    std::optional<int64_t> c = item.AsConst();
    if (!c) return std::nullopt;
    out.push_back(*c);
  }
  return out;
}

bool SymbolicNode::Has(std::string_view name) const {
  return node().attrs.Has(name) || exprs.count(std::string(name)) != 0;
}

std::string SymbolicNode::Input(size_t i) const {
  return "'" + PrintableName(graph.values[node().inputs[i]].name) + "' " + SymShapeToString(in(i));
}

Status SymbolicNode::Error(const std::string& what) const {
  return InvalidModel(graph.DescribeNode(index) + ": " + what);
}

Expected<std::vector<SymShape>> InferSymbolicShapes(const Graph& graph) {
  const size_t num_values = graph.values.size();
  std::vector<SymShape> dims(num_values);
  std::vector<bool> known(num_values, false);
  DimAlgebra algebra;
  // dim(V, A) reads the dims decided so far; an axis out of range stays opaque (the
  // example check and specialisation report it).
  const DimAlgebra::DimOfResolver dim_of = [&](int32_t id, int64_t axis) -> std::optional<DimPoly> {
    if (id < 0 || static_cast<size_t>(id) >= num_values || !known[id]) return std::nullopt;
    if (axis < 0 || axis >= static_cast<int64_t>(dims[id].size())) return std::nullopt;
    return dims[id][axis];
  };
  auto fill_recorded = [&](ValueId id) {
    if (id < 0 || static_cast<size_t>(id) >= num_values || known[id]) return;
    dims[id] = Recorded(graph.values[id], algebra, dim_of);
    known[id] = true;
  };
  for (ValueId id : graph.inputs) fill_recorded(id);
  for (const Constant& c : graph.constants) fill_recorded(c.value);

  const OpRegistry& registry = OpRegistry::Global();
  for (size_t index = 0; index < graph.nodes.size(); ++index) {
    const Node& node = graph.nodes[index];
    bool in_range = true;
    for (const auto* ids : {&node.inputs, &node.outputs}) {
      for (ValueId id : *ids)
        in_range = in_range && id >= 0 && static_cast<size_t>(id) < num_values;
    }
    if (!in_range) continue;  // ValidateGraphTypes' check at the examples reports it
    for (ValueId id : node.inputs) fill_recorded(id);

    std::optional<std::vector<SymShape>> inferred;
    const OpSchema* schema = registry.Find(node.op);
    SymbolicRule rule = schema != nullptr ? FindSymbolicRule(*schema) : nullptr;
    if (rule != nullptr) {
      SymbolicNode sym{graph, index, *schema, {}, {}, algebra};
      for (ValueId id : node.inputs) sym.inputs.push_back(&dims[id]);
      for (const auto& [name, expr] : node.attr_exprs) {
        std::vector<DimPoly>& items = sym.exprs[name];
        for (const DimExpr& item : expr.items) items.push_back(algebra.FromExpr(item, dim_of));
      }
      SY_ASSIGN_OR_RETURN(inferred, rule(sym));
      if (inferred && inferred->size() != node.outputs.size()) inferred.reset();
    }

    for (size_t k = 0; k < node.outputs.size(); ++k) {
      const ValueId id = node.outputs[k];
      const Value& value = graph.values[id];
      SymShape recorded = Recorded(value, algebra, dim_of);
      known[id] = true;
      // A rank other than the recorded one is reported by the example check, with sizes.
      if (!inferred || (*inferred)[k].size() != recorded.size()) {
        dims[id] = std::move(recorded);
        continue;
      }
      const SymShape& mine = (*inferred)[k];
      for (size_t d = 0; d < recorded.size(); ++d) {
        if (Compare(mine[d], recorded[d]) == DimOrder::kDifferent) {
          return InvalidModel(graph.DescribeNode(index) + " produces " + SymShapeToString(mine) +
                              (node.outputs.size() > 1 ? " as output " + std::to_string(k) : "") +
                              " but " + graph.DescribeValue(id) + " is recorded as " +
                              ValueTypeString(value) + ": dim " + std::to_string(d) + " is " +
                              mine[d].ToString() + " against " + recorded[d].ToString());
        }
      }
      SymShape chosen;
      for (size_t d = 0; d < recorded.size(); ++d) {
        chosen.push_back(value.is_symbolic() ? Better(value.symbolic_shape[d], recorded[d], mine[d])
                                             : recorded[d]);
      }
      dims[id] = std::move(chosen);
    }
  }
  for (size_t id = 0; id < num_values; ++id) {
    if (!known[id]) dims[id] = Recorded(graph.values[id], algebra, dim_of);
  }
  return dims;
}

}  // namespace sy
