// Writing the binary graph section (format/graph_binary.h; the layout is in
// docs/format.md, "Binary encoding", and graph_binary_reader.cpp reads it back).
#include <limits>
#include <unordered_set>

#include "format/byte_io.h"
#include "format/graph_binary.h"
#include "switchyard/op_tags.h"

namespace sy::format {
namespace {

Status CheckFitsU32(size_t n, const std::string& what) {
  if (n > std::numeric_limits<uint32_t>::max()) {
    return InvalidArgument(what + " has " + std::to_string(n) +
                           " entries, more than the binary encoding's u32 counts hold");
  }
  return Status::Ok();
}

Status PutString(ByteWriter& out, const std::string& s, const std::string& what) {
  SY_RETURN_IF_ERROR(CheckFitsU32(s.size(), what));
  out.String(s);
  return Status::Ok();
}

Status PutIds(ByteWriter& out, const std::vector<ValueId>& ids, const std::string& what) {
  SY_RETURN_IF_ERROR(CheckFitsU32(ids.size(), what));
  out.U32(static_cast<uint32_t>(ids.size()));
  for (ValueId id : ids) out.U32(static_cast<uint32_t>(id));
  return Status::Ok();
}

// Expressions travel in their text form (DimExpr::ToString), which the reader parses
// with the JSON path's parser and bounds; one those bounds refuse (a tree built in code,
// deeper or longer than text may be) is refused here rather than written unreadable.
Status PutExpr(ByteWriter& out, const DimExpr& expr, const std::string& what) {
  const std::string text = expr.ToString();
  if (Status parsed = DimExpr::Parse(text).status(); !parsed.ok()) {
    return InvalidArgument(what + ": the expression cannot be written as the format's text (" +
                           parsed.message() + ")");
  }
  out.String(text);
  return Status::Ok();
}

// A u32 length, then the numbers (ints or floats attributes).
template <typename T>
Status PutNumbers(ByteWriter& out, const std::vector<T>& list, const std::string& what) {
  SY_RETURN_IF_ERROR(CheckFitsU32(list.size(), what));
  out.U32(static_cast<uint32_t>(list.size()));
  for (T v : list) out.Put(v);
  return Status::Ok();
}

Status PutAttr(ByteWriter& out, const std::string& name, const AttrValue& value,
               const std::string& where) {
  SY_RETURN_IF_ERROR(PutString(out, name, where));
  out.U8(static_cast<uint8_t>(KindOf(value)));
  const std::string what = where + ": attribute " + name;
  switch (KindOf(value)) {
    case AttrKind::kInt:
      out.I64(std::get<int64_t>(value));
      break;
    case AttrKind::kFloat:
      out.F64(std::get<double>(value));
      break;
    case AttrKind::kString:
      SY_RETURN_IF_ERROR(PutString(out, std::get<std::string>(value), what));
      break;
    case AttrKind::kInts:
      return PutNumbers(out, std::get<std::vector<int64_t>>(value), what);
    case AttrKind::kFloats:
      return PutNumbers(out, std::get<std::vector<double>>(value), what);
    case AttrKind::kStrings: {
      const auto& list = std::get<std::vector<std::string>>(value);
      SY_RETURN_IF_ERROR(CheckFitsU32(list.size(), what));
      out.U32(static_cast<uint32_t>(list.size()));
      for (const std::string& s : list) SY_RETURN_IF_ERROR(PutString(out, s, what));
      break;
    }
  }
  return Status::Ok();
}

Status PutNode(ByteWriter& out, const Graph& graph, size_t index) {
  const Node& node = graph.nodes[index];
  const std::string where = graph.DescribeNode(index);
  const std::optional<uint16_t> tag = FindOpTag(node.op);
  if (!tag) {
    return InvalidArgument(where + ": op \"" + node.op +
                           "\" has no op tag, so the binary encoding cannot name it (expected "
                           "a catalogue op; docs/format.md, \"Op tags\")");
  }
  out.U16(*tag);
  SY_RETURN_IF_ERROR(CheckFitsU32(node.attrs.size(), where + ": attrs"));
  out.U32(static_cast<uint32_t>(node.attrs.size()));
  for (const auto& [name, value] : node.attrs) SY_RETURN_IF_ERROR(PutAttr(out, name, value, where));
  out.U32(static_cast<uint32_t>(node.attr_exprs.size()));
  for (const auto& [name, expr] : node.attr_exprs) {
    const std::string what = where + ": attr_exprs." + name;
    // What the reader (and the JSON reader) refuses is refused here too.
    if (!expr.is_list && expr.items.size() != 1) {
      return InvalidArgument(what + " is one value with " + std::to_string(expr.items.size()) +
                             " items (expected exactly one)");
    }
    SY_RETURN_IF_ERROR(PutString(out, name, where));
    out.U8(expr.is_list ? 1 : 0);
    SY_RETURN_IF_ERROR(CheckFitsU32(expr.items.size(), what));
    out.U32(static_cast<uint32_t>(expr.items.size()));
    for (const DimExpr& item : expr.items) {
      if (item.is_unknown()) return InvalidArgument(what + " is \"?\", expected a computable dim");
      SY_RETURN_IF_ERROR(PutExpr(out, item, what));
    }
  }
  SY_RETURN_IF_ERROR(PutIds(out, node.inputs, where + ": inputs"));
  SY_RETURN_IF_ERROR(PutIds(out, node.outputs, where + ": outputs"));
  SY_RETURN_IF_ERROR(PutString(out, node.name, where + ": name"));
  return PutString(out, node.backend, where + ": backend");
}

void PutState(ByteWriter& out, const DecodingState& state) {
  out.U8(state.empty() ? 0 : 1);
  if (state.empty()) return;
  out.U32(static_cast<uint32_t>(state.values.size()));
  for (const StateValue& v : state.values) {
    out.U32(static_cast<uint32_t>(v.input));
    out.U32(static_cast<uint32_t>(v.output));
    out.I64(v.axis);
  }
  out.I32(state.position);
  out.U32(static_cast<uint32_t>(state.advance_input));
  out.I64(state.advance_axis);
  out.U32(static_cast<uint32_t>(state.end_tokens.size()));
  for (int64_t token : state.end_tokens) out.I64(token);
}

}  // namespace

Expected<std::vector<WeightRange>> PlanWeights(const Graph& graph, uint64_t& size) {
  std::vector<WeightRange> ranges;
  ranges.reserve(graph.constants.size());
  std::unordered_set<std::string_view> names;
  uint64_t end = 0;
  for (const Constant& c : graph.constants) {
    if (!c.tensor_name.empty() && !names.insert(c.tensor_name).second) {
      return InvalidArgument("two constants are stored as tensor \"" + c.tensor_name +
                             "\" (expected unique tensor names)");
    }
    const uint64_t offset = (end + kWeightAlignment - 1) / kWeightAlignment * kWeightAlignment;
    ranges.push_back({offset, c.data.byte_size()});
    end = offset + c.data.byte_size();
  }
  size = end;
  return ranges;
}

Expected<std::string> EncodeGraph(const Graph& graph, std::span<const WeightRange> ranges) {
  if (ranges.size() != graph.constants.size()) {
    return InvalidArgument("EncodeGraph: " + std::to_string(ranges.size()) + " weight ranges for " +
                           std::to_string(graph.constants.size()) + " constants");
  }
  ByteWriter out;
  out.U32(kGraphSectionVersion);
  SY_RETURN_IF_ERROR(PutString(out, graph.producer, "producer"));

  SY_RETURN_IF_ERROR(CheckFitsU32(graph.symbols.size(), "symbols"));
  out.U32(static_cast<uint32_t>(graph.symbols.size()));
  for (const DimSymbol& s : graph.symbols) {
    out.String(s.name);
    out.I64(s.example);
    out.I32(s.value);
  }

  SY_RETURN_IF_ERROR(CheckFitsU32(graph.values.size(), "values"));
  out.U32(static_cast<uint32_t>(graph.values.size()));
  for (size_t id = 0; id < graph.values.size(); ++id) {
    const Value& v = graph.values[id];
    // Described once, and only where something is wrong or symbolic.
    auto described = [&] { return graph.DescribeValue(static_cast<ValueId>(id)); };
    if (v.name.size() > std::numeric_limits<uint32_t>::max()) {
      return CheckFitsU32(v.name.size(), described());
    }
    out.String(v.name);
    out.U8(static_cast<uint8_t>(v.type.dtype));
    out.U32(static_cast<uint32_t>(v.type.shape.size()));
    for (size_t d = 0; d < v.type.shape.size(); ++d) {
      // A constant dim as itself; any other as -1 and its expression. A negative constant
      // would read as that marker: no graph that loads has one.
      const bool constant = !v.is_symbolic() || v.symbolic_shape[d].is_const();
      const int64_t size =
          v.is_symbolic() && constant ? v.symbolic_shape[d].value() : v.type.shape[d];
      if (constant && size < 0) {
        return InvalidArgument(described() + ": shape[" + std::to_string(d) + "] is " +
                               std::to_string(size) + " (expected a size of 0 or more)");
      }
      if (constant) {
        out.I64(size);
      } else {
        out.I64(-1);
        SY_RETURN_IF_ERROR(PutExpr(out, v.symbolic_shape[d], described()));
      }
    }
  }
  SY_RETURN_IF_ERROR(PutIds(out, graph.inputs, "inputs"));

  out.U32(static_cast<uint32_t>(graph.constants.size()));
  for (size_t i = 0; i < graph.constants.size(); ++i) {
    const Constant& c = graph.constants[i];
    if (c.value < 0 || static_cast<size_t>(c.value) >= graph.values.size()) {
      return InvalidArgument("constant " + std::to_string(i) + " names value " +
                             std::to_string(c.value) + ", out of range [0, " +
                             std::to_string(graph.values.size()) + ")");
    }
    const Value& value = graph.values[c.value];
    if (value.is_symbolic() || c.data.type() != value.type) {
      return InvalidArgument("constant " + std::to_string(i) + " for " +
                             graph.DescribeValue(c.value) + " holds " + c.data.type().ToString() +
                             " but the value is " + ValueTypeString(value) +
                             " (expected the same static type)");
    }
    out.U32(static_cast<uint32_t>(c.value));
    SY_RETURN_IF_ERROR(PutString(out, c.tensor_name, "constant " + std::to_string(i)));
    out.U64(ranges[i].offset);
    out.U64(ranges[i].size);
  }

  SY_RETURN_IF_ERROR(CheckFitsU32(graph.nodes.size(), "nodes"));
  out.U32(static_cast<uint32_t>(graph.nodes.size()));
  for (size_t i = 0; i < graph.nodes.size(); ++i) SY_RETURN_IF_ERROR(PutNode(out, graph, i));
  SY_RETURN_IF_ERROR(PutIds(out, graph.outputs, "outputs"));
  PutState(out, graph.state);
  return out.Take();
}

}  // namespace sy::format
