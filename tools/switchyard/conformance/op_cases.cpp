// CasesFor: the shared case builder and the dispatch to the family files
// (op_cases_<family>.cpp), which hold the cases themselves.
#include "conformance/op_cases.h"

#include "conformance/op_cases_internal.h"
#include "switchyard/model_io.h"
#include "switchyard/op_schema.h"

namespace sy::conformance {
namespace detail {

std::string ShapeLabel(const Shape& shape) { return IntsLabel(shape); }

std::string IntsLabel(const std::vector<int64_t>& values) {
  std::string text = "[";
  for (size_t i = 0; i < values.size(); ++i) {
    if (i > 0) text += ",";
    text += std::to_string(values[i]);
  }
  return text + "]";
}

Attrs A(std::initializer_list<std::pair<std::string, AttrValue>> items) {
  Attrs attrs;
  for (const auto& [name, value] : items) attrs.Set(name, value);
  return attrs;
}

Attrs Window(std::vector<int64_t> strides, std::vector<int64_t> pads,
             std::vector<int64_t> dilations, int64_t group) {
  Attrs a;
  if (!strides.empty()) a.Set("strides", Ints(std::move(strides)));
  if (!pads.empty()) a.Set("pads", Ints(std::move(pads)));
  if (!dilations.empty()) a.Set("dilations", Ints(std::move(dilations)));
  if (group != 1) a.Set("group", I(group));
  return a;
}

std::vector<DType> SchemaDTypes(std::string_view op, size_t var) {
  std::vector<DType> dtypes;
  const OpSchema* schema = OpRegistry::Global().Find(op);
  if (schema == nullptr || var >= schema->type_vars.size()) return dtypes;
  for (int d = 0; d < kNumDTypes; ++d) {
    const auto dtype = static_cast<DType>(d);
    if (schema->type_vars[var].allowed.contains(dtype)) dtypes.push_back(dtype);
  }
  return dtypes;
}

// f16, bf16, f64 and the narrow integers that ONNX's INT16 / UINT16 / UINT32 brought
// (i16 u16 u32) are optional for a plugin; the rest are mandatory.
bool MandatoryDType(DType dtype) {
  return dtype != DType::kF16 && dtype != DType::kBF16 && dtype != DType::kF64 &&
         dtype != DType::kI16 && dtype != DType::kU16 && dtype != DType::kU32;
}

OpCase& CaseBuilder::Add(DType dtype, std::string_view rest, std::vector<CaseInput> inputs,
                         Attrs attrs, int num_outputs) {
  OpCase c;
  c.op = op_;
  c.label = std::string(DTypeName(dtype));
  if (!rest.empty()) {
    // "f32->i8 ..." (cast) continues the dtype without a space.
    if (rest.substr(0, 2) != "->") c.label += " ";
    c.label += rest;
  }
  c.inputs = std::move(inputs);
  c.attrs = std::move(attrs);
  c.num_outputs = num_outputs;
  c.mandatory = MandatoryDType(dtype);
  cases_.push_back(std::move(c));
  return cases_.back();
}

OpCase& CaseBuilder::Special(DType dtype, std::string_view rest, std::vector<CaseInput> inputs,
                             Attrs attrs, int num_outputs) {
  OpCase& c = Add(dtype, rest, std::move(inputs), std::move(attrs), num_outputs);
  c.special_values = true;
  return c;
}

OpCase& CaseBuilder::Large(DType dtype, std::string_view rest, std::vector<CaseInput> inputs,
                           Attrs attrs, int num_outputs) {
  OpCase& c = Add(dtype, rest, std::move(inputs), std::move(attrs), num_outputs);
  c.mandatory = false;
  return c;
}

}  // namespace detail

std::vector<OpCase> CasesFor(std::string_view op) {
  using Family = std::vector<OpCase> (*)(std::string_view);
  static constexpr Family kFamilies[] = {
      detail::UnaryCases,         detail::BinaryCases,    detail::MovementCases,
      detail::IndexingCases,      detail::ReductionCases, detail::LinalgConvCases,
      detail::NormalizationCases, detail::NeuralCases,    detail::FusedCases,
      detail::SelectionCases,     detail::SamplingCases,
  };
  if (OpRegistry::Global().Find(op) == nullptr) return {};
  for (Family family : kFamilies) {
    std::vector<OpCase> cases = family(op);
    if (!cases.empty()) return cases;
  }
  return {};
}

Expected<Graph> CaseGraph(const OpCase& c) {
  const OpSchema* schema = OpRegistry::Global().Find(c.op);
  if (schema == nullptr) return NotFound("unknown op \"" + c.op + "\"");
  Graph graph;
  std::vector<TensorType> types;
  for (size_t i = 0; i < c.inputs.size(); ++i) {
    graph.values.push_back({"in" + std::to_string(i), c.inputs[i].type});
    graph.inputs.push_back(static_cast<ValueId>(i));
    types.push_back(c.inputs[i].type);
  }
  Attrs attrs = c.attrs;
  SY_ASSIGN_OR_RETURN(std::vector<TensorType> outputs,
                      InferOutputTypes(*schema, types, attrs, c.num_outputs));
  Node node;
  node.op = c.op;
  node.name = c.label;
  node.attrs = attrs;
  node.inputs = graph.inputs;
  for (size_t k = 0; k < outputs.size(); ++k) {
    graph.values.push_back({"out" + std::to_string(k), outputs[k]});
    node.outputs.push_back(static_cast<ValueId>(graph.values.size() - 1));
    graph.outputs.push_back(node.outputs.back());
  }
  graph.nodes.push_back(std::move(node));
  SY_RETURN_IF_ERROR(ValidateGraphTypes(graph));
  return graph;
}

}  // namespace sy::conformance
