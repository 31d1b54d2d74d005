// Elementwise ops of the catalogue (spec/ops.md, "Elementwise"): unary maps, binary and
// ternary broadcasting ops, comparisons, logic, cast. The inverse trigonometric and
// hyperbolic maps (asin acos atan asinh acosh atanh) and the bitwise ops (bitwise_and
// bitwise_or bitwise_xor bitwise_not bit_shift) extend spec v1 (docs/ops.md, "Extensions to
// spec v1").
#include <cmath>

#include "ops/op_families.h"
#include "ops/shape_rule_helpers.h"

namespace sy::ops {
namespace {

constexpr DTypeSet kF = DTypeSet::Float();
constexpr DTypeSet kFI = DTypeSet::Numeric();
constexpr DTypeSet kFIB = DTypeSet::All();
constexpr DTypeSet kB = DTypeSet::Bool();
constexpr DTypeSet kI = DTypeSet::Integer();

OpSchema Unary(std::string_view name, std::string_view onnx, DTypeSet allowed,
               std::vector<AttrSpec> attrs = {}) {
  return MakeSchema(name, onnx, allowed, {{"x", 0}}, std::move(attrs), SameAsFirstInput);
}

OpSchema Binary(std::string_view name, std::string_view onnx, DTypeSet allowed, ShapeRule rule,
                std::vector<AttrSpec> attrs = {}) {
  return MakeSchema(name, onnx, allowed, {{"a", 0}, {"b", 0}}, std::move(attrs), rule);
}

AttrSpec Float(std::string_view name, double value) { return {name, AttrKind::kFloat, value}; }

Expected<std::vector<TensorType>> InferPrelu(const InferContext& ctx) {
  const TensorType& x = ctx.input(0);
  const TensorType& slope = ctx.input(1);
  if (!BroadcastsTo(slope.shape, x.shape)) {
    return InvalidModel("input slope has shape " + ShapeToString(slope.shape) +
                        " which does not broadcast to input x's shape " + ShapeToString(x.shape));
  }
  return std::vector<TensorType>{x};
}

Expected<std::vector<TensorType>> InferWhere(const InferContext& ctx) {
  SY_ASSIGN_OR_RETURN(Shape shape, BroadcastShapes(ctx.input(0).shape, ctx.input(1).shape));
  SY_ASSIGN_OR_RETURN(shape, BroadcastShapes(shape, ctx.input(2).shape));
  return std::vector<TensorType>{{ctx.input(1).dtype, std::move(shape)}};
}

Expected<std::vector<TensorType>> InferClip(const InferContext& ctx) {
  const AttrValue* min = ctx.attrs.Find("min");
  const AttrValue* max = ctx.attrs.Find("max");
  if (min && max && std::get<double>(*min) > std::get<double>(*max)) {
    return AttrError("min", "(" + AttrValueToString(*min) + ") is greater than max (" +
                                AttrValueToString(*max) + ")");
  }
  return std::vector<TensorType>{ctx.input(0)};
}

Expected<std::vector<TensorType>> InferMod(const InferContext& ctx) {
  const int64_t fmod = ctx.attrs.GetInt("fmod");
  if (fmod != 0 && fmod != 1)
    return AttrError("fmod", "is " + std::to_string(fmod) + ", expected 0 or 1");
  return BroadcastAll(ctx);
}

Expected<std::vector<TensorType>> InferCast(const InferContext& ctx) {
  const std::string to = ctx.attrs.GetString("to");
  const std::optional<DType> dtype = ParseDTypeName(to);
  if (!dtype) return AttrError("to", "is \"" + to + "\" which is not a dtype");
  return std::vector<TensorType>{{*dtype, ctx.input(0).shape}};
}

std::vector<std::string_view> DTypeNames() {
  return {"f32", "f16", "bf16", "f64", "i8", "u8", "i16", "u16", "i32", "u32", "i64", "bool"};
}

}  // namespace

void AddElementwiseSchemas(std::vector<OpSchema>& out) {
  out.push_back(Unary("neg", "Neg", kFI));
  out.push_back(Unary("abs", "Abs", kFI));
  out.push_back(Unary("sign", "Sign", kFI));
  for (auto [name, onnx] : {std::pair{"exp", "Exp"},
                            {"log", "Log"},
                            {"sqrt", "Sqrt"},
                            {"reciprocal", "Reciprocal"},
                            {"sin", "Sin"},
                            {"cos", "Cos"},
                            {"tan", "Tan"},
                            {"asin", "Asin"},
                            {"acos", "Acos"},
                            {"atan", "Atan"},
                            {"erf", "Erf"},
                            {"rsqrt", ""},
                            {"tanh", "Tanh"},
                            {"asinh", "Asinh"},
                            {"acosh", "Acosh"},
                            {"atanh", "Atanh"},
                            {"sigmoid", "Sigmoid"},
                            {"relu", "Relu"},
                            {"softplus", "Softplus"},
                            {"silu", ""},
                            {"hard_swish", "HardSwish"},
                            {"softsign", "Softsign"},
                            {"mish", "Mish"},
                            {"floor", "Floor"},
                            {"ceil", "Ceil"},
                            {"round", "Round"}}) {
    out.push_back(Unary(name, onnx, kF));
  }
  out.push_back(Unary("gelu", "Gelu", kF,
                      {{"approximate", AttrKind::kString, "none", false, {"none", "tanh"}}}));
  out.push_back(Unary("leaky_relu", "LeakyRelu", kF, {Float("alpha", 0.01)}));
  out.push_back(Unary("elu", "Elu", kF, {Float("alpha", 1.0)}));
  out.push_back(
      Unary("hard_sigmoid", "HardSigmoid", kF, {Float("alpha", 0.2), Float("beta", 0.5)}));
  out.push_back(Unary(
      "selu", "Selu", kF,
      {Float("alpha", 1.67326319217681884765625), Float("gamma", 1.05070102214813232421875)}));
  {
    OpSchema s =
        Unary("clip", "Clip", kFI,
              {{"min", AttrKind::kFloat, std::nullopt}, {"max", AttrKind::kFloat, std::nullopt}});
    s.infer = InferClip;
    out.push_back(std::move(s));
  }
  out.push_back(Unary("not", "Not", kB));
  {
    OpSchema s =
        Unary("cast", "Cast", kFIB, {{"to", AttrKind::kString, std::nullopt, true, DTypeNames()}});
    s.infer = InferCast;
    out.push_back(std::move(s));
  }
  {
    OpSchema s = Binary("prelu", "PRelu", kF, InferPrelu);
    s.inputs = {{"x", 0}, {"slope", 0}};
    out.push_back(std::move(s));
  }

  for (auto [name, onnx] : {std::pair{"add", "Add"},
                            {"sub", "Sub"},
                            {"mul", "Mul"},
                            {"div", "Div"},
                            {"max", "Max"},
                            {"min", "Min"}}) {
    out.push_back(Binary(name, onnx, kFI, BroadcastAll));
  }
  out.push_back(Binary("pow", "Pow", kF, BroadcastAll));
  out.push_back(Binary("mod", "Mod", kFI, InferMod, {{"fmod", AttrKind::kInt, int64_t{0}}}));
  for (auto [name, onnx] : {std::pair{"equal", "Equal"},
                            {"less", "Less"},
                            {"less_equal", "LessOrEqual"},
                            {"greater", "Greater"},
                            {"greater_equal", "GreaterOrEqual"}}) {
    out.push_back(Binary(name, onnx, kFIB, BroadcastToBool));
  }
  for (auto [name, onnx] : {std::pair{"and", "And"}, {"or", "Or"}, {"xor", "Xor"}}) {
    out.push_back(Binary(name, onnx, kB, BroadcastAll));
  }
  // Bitwise ops on the integers' two's-complement bits (extensions: docs/ops.md).
  for (auto [name, onnx] : {std::pair{"bitwise_and", "BitwiseAnd"},
                            {"bitwise_or", "BitwiseOr"},
                            {"bitwise_xor", "BitwiseXor"}}) {
    out.push_back(Binary(name, onnx, kI, BroadcastAll));
  }
  out.push_back(Unary("bitwise_not", "BitwiseNot", kI));
  out.push_back(Binary("bit_shift", "BitShift", kI, BroadcastAll,
                       {{"direction", AttrKind::kString, std::nullopt, true, {"left", "right"}}}));
  {
    OpSchema s;
    s.name = "where";
    s.onnx_name = "Where";
    s.type_vars = {{"B", kB}, {"T", kFIB}};
    s.inputs = {{"cond", 0}, {"a", 1}, {"b", 1}};
    s.infer = InferWhere;
    out.push_back(std::move(s));
  }
}

}  // namespace sy::ops
