// Serialises a Graph as rml-graph v1 JSON. The layout is meant to be read by people:
// one value, constant or node per line, like the examples in spec/graph-format.md.
#include <cmath>

#include <boost/json.hpp>

#include "format/inline_data.h"
#include "switchyard/model_io.h"

namespace sy {
namespace {

namespace bj = boost::json;

bj::value AttrToJson(const AttrValue& value) {
  switch (KindOf(value)) {
    case AttrKind::kInt:
      return std::get<int64_t>(value);
    case AttrKind::kFloat:
      return std::get<double>(value);
    case AttrKind::kString:
      return bj::string(std::get<std::string>(value));
    case AttrKind::kInts: {
      bj::array a;
      for (int64_t i : std::get<std::vector<int64_t>>(value)) a.emplace_back(i);
      return a;
    }
    case AttrKind::kFloats: {
      bj::array a;
      for (double d : std::get<std::vector<double>>(value)) a.emplace_back(d);
      return a;
    }
    case AttrKind::kStrings: {
      bj::array a;
      for (const std::string& s : std::get<std::vector<std::string>>(value)) a.emplace_back(s);
      return a;
    }
  }
  return nullptr;
}

// JSON has no NaN or infinity (boost would write the invalid tokens NaN and Infinity).
Status CheckFiniteAttr(const std::string& name, const AttrValue& value) {
  std::vector<double> floats;
  if (const double* d = std::get_if<double>(&value)) floats.push_back(*d);
  if (const auto* list = std::get_if<std::vector<double>>(&value)) floats = *list;
  for (double d : floats) {
    if (!std::isfinite(d)) {
      return InvalidArgument("attribute " + name + " is " + AttrValueToString(value) +
                             ", which JSON cannot hold (expected finite numbers)");
    }
  }
  return Status::Ok();
}

// An attribute computed at specialisation: a list of numbers and expression strings, or
// one expression string.
bj::value AttrExprToJson(const AttrExpr& expr) {
  auto item = [](const DimExpr& e) -> bj::value {
    if (e.is_const()) return e.value();
    return bj::string(e.ToString());
  };
  if (!expr.is_list) return expr.items.empty() ? bj::value(nullptr) : item(expr.items[0]);
  bj::array a;
  for (const DimExpr& e : expr.items) a.push_back(item(e));
  return a;
}

bj::array IdsToJson(const std::vector<ValueId>& ids) {
  bj::array a;
  for (ValueId id : ids) a.emplace_back(id);
  return a;
}

// Appends `"key": [` + one serialised item per line + `]`.
void AppendArray(std::string& out, std::string_view key, const std::vector<bj::value>& items,
                 bool last) {
  out += "  \"";
  out += key;
  out += "\": [";
  for (size_t i = 0; i < items.size(); ++i) {
    out += i == 0 ? "\n    " : ",\n    ";
    out += bj::serialize(items[i]);
  }
  out += items.empty() ? "]" : "\n  ]";
  out += last ? "\n" : ",\n";
}

}  // namespace

Expected<std::string> SerializeGraphJson(const Graph& graph) {
  std::vector<bj::value> values;
  for (const Value& v : graph.values) {
    bj::array shape;
    for (size_t d = 0; d < v.type.shape.size(); ++d) {
      // A symbolic dim is written as its expression text; constants stay numbers.
      if (v.is_symbolic() && !v.symbolic_shape[d].is_const()) {
        shape.emplace_back(bj::string(v.symbolic_shape[d].ToString()));
      } else {
        shape.emplace_back(v.type.shape[d]);
      }
    }
    values.push_back(bj::object{{"name", v.name},
                                {"dtype", std::string(DTypeName(v.type.dtype))},
                                {"shape", std::move(shape)}});
  }
  std::vector<bj::value> constants;
  for (size_t i = 0; i < graph.constants.size(); ++i) {
    const Constant& c = graph.constants[i];
    bj::object obj{{"value", c.value}};
    if (!c.tensor_name.empty()) {
      obj["tensor"] = c.tensor_name;
    } else {
      Expected<bj::array> data = TensorToInlineData(c.data);
      if (!data.ok()) {
        return data.status().WithContext("constant " + std::to_string(i) + " for " +
                                         graph.DescribeValue(c.value));
      }
      obj["data"] = std::move(*data);
    }
    constants.push_back(std::move(obj));
  }
  std::vector<bj::value> nodes;
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    const Node& n = graph.nodes[i];
    bj::object obj{
        {"op", n.op}, {"inputs", IdsToJson(n.inputs)}, {"outputs", IdsToJson(n.outputs)}};
    if (!n.attrs.empty()) {
      bj::object attrs;
      for (const auto& [name, value] : n.attrs) {
        Status finite = CheckFiniteAttr(name, value);
        if (!finite.ok()) return finite.WithContext(graph.DescribeNode(i));
        attrs[name] = AttrToJson(value);
      }
      obj["attrs"] = std::move(attrs);
    }
    if (!n.attr_exprs.empty()) {
      bj::object exprs;
      for (const auto& [name, expr] : n.attr_exprs) exprs[name] = AttrExprToJson(expr);
      obj["attr_exprs"] = std::move(exprs);
    }
    if (!n.name.empty()) obj["name"] = n.name;
    if (!n.backend.empty()) obj["backend"] = n.backend;
    nodes.push_back(std::move(obj));
  }
  bj::array symbols;
  for (const DimSymbol& symbol : graph.symbols) {
    bj::object obj{{"name", symbol.name}};
    if (symbol.example >= 0) obj["example"] = symbol.example;
    if (symbol.from_data()) obj["value"] = symbol.value;
    symbols.emplace_back(std::move(obj));
  }

  std::string out = "{\n  \"format\": \"rml-graph\",\n  \"version\": 1,\n";
  if (!graph.producer.empty()) {
    out += "  \"producer\": " + bj::serialize(bj::value(graph.producer)) + ",\n";
  }
  if (!symbols.empty()) out += "  \"symbols\": " + bj::serialize(symbols) + ",\n";
  AppendArray(out, "values", values, false);
  out += "  \"inputs\": " + bj::serialize(IdsToJson(graph.inputs)) + ",\n";
  out += "  \"outputs\": " + bj::serialize(IdsToJson(graph.outputs)) + ",\n";
  AppendArray(out, "constants", constants, false);
  if (!graph.state.empty()) {
    AppendArray(out, "nodes", nodes, false);
    const DecodingState& st = graph.state;
    bj::array state_values;
    for (const StateValue& v : st.values) {
      state_values.emplace_back(
          bj::object{{"input", v.input}, {"output", v.output}, {"axis", v.axis}});
    }
    bj::object state{
        {"values", std::move(state_values)},
        {"advance", bj::object{{"input", st.advance_input}, {"axis", st.advance_axis}}}};
    if (st.position >= 0) state["position"] = st.position;
    if (!st.end_tokens.empty()) {
      state["end_tokens"] = bj::array(st.end_tokens.begin(), st.end_tokens.end());
    }
    out += "  \"state\": " + bj::serialize(state) + "\n";
  } else {
    AppendArray(out, "nodes", nodes, true);
  }
  out += "}\n";
  return out;
}

}  // namespace sy
