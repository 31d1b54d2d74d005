#include "ops/shape_rule_helpers.h"

namespace sy::ops {

OpSchema MakeSchema(std::string_view name, std::string_view onnx, DTypeSet allowed,
                    std::vector<InputSpec> inputs, std::vector<AttrSpec> attrs, ShapeRule rule) {
  OpSchema s;
  s.name = name;
  s.onnx_name = onnx;
  s.type_vars = OneTypeVar(allowed);
  s.inputs = std::move(inputs);
  s.attrs = std::move(attrs);
  s.infer = rule;
  return s;
}

Expected<std::vector<TensorType>> SameAsFirstInput(const InferContext& ctx) {
  return std::vector<TensorType>{ctx.input(0)};
}

Expected<std::vector<TensorType>> BroadcastAll(const InferContext& ctx) {
  Shape shape = ctx.input(0).shape;
  for (size_t i = 1; i < ctx.num_inputs(); ++i) {
    SY_ASSIGN_OR_RETURN(shape, BroadcastShapes(shape, ctx.input(i).shape));
  }
  return std::vector<TensorType>{{ctx.input(0).dtype, std::move(shape)}};
}

Expected<std::vector<TensorType>> BroadcastToBool(const InferContext& ctx) {
  SY_ASSIGN_OR_RETURN(auto types, BroadcastAll(ctx));
  types[0].dtype = DType::kBool;
  return types;
}

std::string DescribeInput(const OpSchema& schema, size_t index, const TensorType& type) {
  std::string name;
  if (!schema.inputs.empty()) {
    const size_t spec = std::min(index, schema.inputs.size() - 1);
    name = std::string(schema.inputs[spec].name);
  }
  return "input " + std::to_string(index) + (name.empty() ? "" : " (" + name + ")") + " " +
         type.ToString();
}

Status RequireRank(const TensorType& type, std::string_view input_name, int64_t rank) {
  if (type.rank() == rank) return Status::Ok();
  return InvalidModel("input " + std::string(input_name) + " has shape " +
                      ShapeToString(type.shape) + " but must have rank " + std::to_string(rank));
}

Status RequireMinRank(const TensorType& type, std::string_view input_name, int64_t min_rank) {
  if (type.rank() >= min_rank) return Status::Ok();
  return InvalidModel("input " + std::string(input_name) + " has shape " +
                      ShapeToString(type.shape) + " but must have rank at least " +
                      std::to_string(min_rank));
}

Status RequireListSize(const Attrs& attrs, std::string_view attr, size_t size) {
  const AttrValue* v = attrs.Find(attr);
  if (v == nullptr) return Status::Ok();
  size_t actual = 0;
  if (const auto* ints = std::get_if<std::vector<int64_t>>(v)) actual = ints->size();
  if (const auto* floats = std::get_if<std::vector<double>>(v)) actual = floats->size();
  if (const auto* strings = std::get_if<std::vector<std::string>>(v)) actual = strings->size();
  if (actual == size) return Status::Ok();
  return AttrError(
      attr, "has " + std::to_string(actual) + " entries but must have " + std::to_string(size));
}

Status AttrError(std::string_view attr, std::string_view what) {
  return InvalidModel("attribute " + std::string(attr) + " " + std::string(what));
}

// "input k has shape [..] but its dimension 1 (3) must <rule>"
Status DimError(std::string_view input, const TensorType& type, int64_t dim,
                const std::string& rule) {
  return InvalidModel("input " + std::string(input) + " has shape " + ShapeToString(type.shape) +
                      " but its dimension " + std::to_string(dim) + " (" +
                      std::to_string(type.shape[dim]) + ") must " + rule);
}

}  // namespace sy::ops
