// Fused ops: catalogue extensions that the graph optimization pass (core/src/opt/) writes
// in place of common chains, and that a plugin may run in one pass over memory. Each is
// defined as the chain it replaces (docs/ops.md, "Fused ops"), so a model may also use
// them directly:
//   fused_matmul(a, b[, bias[, residual]])   = act(matmul(a, trans_b ? b^T : b) + bias + residual)
//   fused_conv(x, w[, bias[, residual]])     = act(conv(x, w, bias) + residual)
//   add_layer_norm(a, b, scale[, bias])      = layer_norm(a + b, scale, bias)[, a + b]
// act is one of the catalogue's activations, named by the `activation` attribute.
#include <cmath>

#include "ops/op_families.h"
#include "ops/shape_rule_helpers.h"

namespace sy::ops {
namespace {

constexpr DTypeSet kF = DTypeSet::Float();

AttrSpec Float(std::string_view name, double value) { return {name, AttrKind::kFloat, value}; }
AttrSpec OptionalFloat(std::string_view name) { return {name, AttrKind::kFloat, std::nullopt}; }
AttrSpec Int(std::string_view name, int64_t value) { return {name, AttrKind::kInt, value}; }
AttrSpec OptionalInts(std::string_view name) { return {name, AttrKind::kInts, std::nullopt}; }

// The activation attributes fused_matmul and fused_conv share.
std::vector<AttrSpec> ActivationAttrs() {
  return {{"activation",
           AttrKind::kString,
           std::string("none"),
           false,
           {"none", "relu", "leaky_relu", "clip", "gelu", "gelu_tanh", "silu", "sigmoid", "tanh"}},
          Float("activation_alpha", 0.01),  // leaky_relu's slope
          OptionalFloat("clip_min"),
          OptionalFloat("clip_max")};
}

Status CheckActivation(const Attrs& attrs) {
  const double alpha = attrs.GetFloat("activation_alpha");
  if (!std::isfinite(alpha)) {
    return AttrError("activation_alpha", "is " + AttrValueToString(alpha) + " but must be finite");
  }
  const bool is_clip = attrs.GetString("activation") == "clip";
  for (std::string_view bound : {"clip_min", "clip_max"}) {
    if (attrs.Has(bound) && !is_clip) {
      return AttrError(bound, "is set but activation is \"" + attrs.GetString("activation") +
                                  "\" (only clip takes bounds)");
    }
    if (attrs.Has(bound) && std::isnan(attrs.GetFloat(bound))) {
      return AttrError(bound, "is NaN");
    }
  }
  return Status::Ok();
}

// `residual` must have the output's shape exactly: it is added element by element.
Status CheckResidual(const InferContext& ctx, size_t index, const Shape& out) {
  if (ctx.num_inputs() <= index || ctx.input(index).shape == out) return Status::Ok();
  return InvalidModel("input residual has shape " + ShapeToString(ctx.input(index).shape) +
                      " but must equal the output shape " + ShapeToString(out));
}

Expected<std::vector<TensorType>> InferFusedMatmul(const InferContext& ctx) {
  const int64_t trans_b = ctx.attrs.GetInt("trans_b");
  if (trans_b != 0 && trans_b != 1) {
    return AttrError("trans_b", "is " + std::to_string(trans_b) + " but must be 0 or 1");
  }
  SY_RETURN_IF_ERROR(CheckActivation(ctx.attrs));
  TensorType b = ctx.input(1);
  if (trans_b == 1) {
    if (b.rank() < 2) {
      return InvalidModel("input b has shape " + ShapeToString(b.shape) +
                          " but trans_b = 1 needs rank at least 2");
    }
    std::swap(b.shape[b.rank() - 1], b.shape[b.rank() - 2]);
  }
  const TensorType operands[2] = {ctx.input(0), b};
  const InferContext product{operands, ctx.attrs, 1};
  SY_ASSIGN_OR_RETURN(std::vector<TensorType> out, InferMatmul(product));
  if (ctx.num_inputs() >= 3 && !BroadcastsTo(ctx.input(2).shape, out[0].shape)) {
    return InvalidModel("input bias has shape " + ShapeToString(ctx.input(2).shape) +
                        " which does not broadcast to the output shape " +
                        ShapeToString(out[0].shape));
  }
  SY_RETURN_IF_ERROR(CheckResidual(ctx, 3, out[0].shape));
  return out;
}

Expected<std::vector<TensorType>> InferFusedConv(const InferContext& ctx) {
  SY_RETURN_IF_ERROR(CheckActivation(ctx.attrs));
  const InferContext conv{ctx.inputs.subspan(0, std::min<size_t>(ctx.num_inputs(), 3)), ctx.attrs,
                          1};
  SY_ASSIGN_OR_RETURN(std::vector<TensorType> out, InferConv(conv));
  SY_RETURN_IF_ERROR(CheckResidual(ctx, 3, out[0].shape));
  return out;
}

Expected<std::vector<TensorType>> InferAddLayerNorm(const InferContext& ctx) {
  const TensorType& a = ctx.input(0);
  const TensorType& b = ctx.input(1);
  if (!BroadcastsTo(b.shape, a.shape)) {
    return InvalidModel("input b has shape " + ShapeToString(b.shape) +
                        " which does not broadcast to input a's shape " + ShapeToString(a.shape));
  }
  // layer_norm's rule over (a, scale[, bias]).
  std::vector<TensorType> norm_inputs = {a};
  for (size_t i = 2; i < ctx.num_inputs(); ++i) norm_inputs.push_back(ctx.input(i));
  const InferContext norm{norm_inputs, ctx.attrs, 1};
  Expected<std::vector<TensorType>> normalized = InferAxisNorm(norm);
  if (!normalized.ok()) {
    // layer_norm's messages call the normalized input x; here it is a (+ b).
    std::string message = normalized.status().message();
    for (size_t at = message.find("input x"); at != std::string::npos;
         at = message.find("input x", at)) {
      message.replace(at, 7, "input a");
    }
    return Status(normalized.status().code(), message);
  }
  std::vector<TensorType> out = std::move(*normalized);
  if (ctx.num_outputs == 2) out.push_back(a);  // the sum a + b
  return out;
}

}  // namespace

void AddFusedSchemas(std::vector<OpSchema>& out) {
  std::vector<AttrSpec> matmul_attrs = {Int("trans_b", 0)};
  for (AttrSpec& a : ActivationAttrs()) matmul_attrs.push_back(std::move(a));
  out.push_back(MakeSchema(
      "fused_matmul", "", kF,
      {{"a", 0}, {"b", 0}, {"bias", 0, /*optional=*/true}, {"residual", 0, /*optional=*/true}},
      std::move(matmul_attrs), InferFusedMatmul));
  out.back().cost = OpCost::kCompute;

  std::vector<AttrSpec> conv_attrs = {OptionalInts("strides"), OptionalInts("pads"),
                                      OptionalInts("dilations"), Int("group", 1)};
  for (AttrSpec& a : ActivationAttrs()) conv_attrs.push_back(std::move(a));
  out.push_back(MakeSchema(
      "fused_conv", "", kF,
      {{"x", 0}, {"w", 0}, {"bias", 0, /*optional=*/true}, {"residual", 0, /*optional=*/true}},
      std::move(conv_attrs), InferFusedConv));
  out.back().cost = OpCost::kCompute;

  OpSchema add_norm = MakeSchema("add_layer_norm", "", kF,
                                 {{"a", 0}, {"b", 0}, {"scale", 0}, {"bias", 0, /*optional=*/true}},
                                 {Int("axis", -1), Float("epsilon", 1e-5)}, InferAddLayerNorm);
  add_norm.max_outputs = 2;
  out.push_back(std::move(add_norm));
}

}  // namespace sy::ops
