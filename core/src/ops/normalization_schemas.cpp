// Normalization ops of the catalogue (spec/ops.md, "Neural network"): softmax and
// log_softmax along one axis; layer_norm and rms_norm over x.shape[axis:] with scale (and
// bias) broadcast to those dims; batch_norm (inference), group_norm (opset 21: scale and
// bias per channel) and instance_norm over [N, C, spatial...] with per-channel parameters.
#include <cmath>

#include "ops/op_families.h"
#include "ops/shape_rule_helpers.h"

namespace sy::ops {
namespace {

constexpr DTypeSet kF = DTypeSet::Float();

AttrSpec Float(std::string_view name, double value) { return {name, AttrKind::kFloat, value}; }
AttrSpec Int(std::string_view name, int64_t value) { return {name, AttrKind::kInt, value}; }
AttrSpec Epsilon() { return Float("epsilon", 1e-5); }

// Every input is bound to the one type variable T (x and its parameters share a dtype).
OpSchema Norm(std::string_view name, std::string_view onnx, std::vector<InputSpec> inputs,
              std::vector<AttrSpec> attrs, ShapeRule rule) {
  return MakeSchema(name, onnx, kF, std::move(inputs), std::move(attrs), rule);
}

// epsilon is added to a variance before its square root: it must be finite and >= 0.
Status RequireEpsilon(const Attrs& attrs) {
  const double eps = attrs.GetFloat("epsilon");
  if (std::isfinite(eps) && eps >= 0) return Status::Ok();
  return AttrError("epsilon", "is " + AttrValueToString(eps) + " but must be finite and >= 0");
}

// Input `index` (named by the schema) must be the vector [channels] of x's dim 1.
Status RequirePerChannel(const InferContext& ctx, size_t index, std::string_view name) {
  const TensorType& param = ctx.input(index);
  const int64_t channels = ctx.input(0).shape[1];
  if (param.shape == Shape{channels}) return Status::Ok();
  return InvalidModel("input " + std::string(name) + " has shape " + ShapeToString(param.shape) +
                      " but must be [" + std::to_string(channels) +
                      "] (one entry per channel: dimension 1 of input x " +
                      ShapeToString(ctx.input(0).shape) + ")");
}

Expected<std::vector<TensorType>> InferSoftmax(const InferContext& ctx) {
  const TensorType& x = ctx.input(0);
  SY_RETURN_IF_ERROR(NormalizeAxis(ctx.attrs.GetInt("axis"), x.rank(), "attribute axis").status());
  return std::vector<TensorType>{x};
}

}  // namespace

// layer_norm (x, scale[, bias]) and rms_norm (x, scale): the parameters broadcast
// unidirectionally to the normalized dims x.shape[axis:].
Expected<std::vector<TensorType>> InferAxisNorm(const InferContext& ctx) {
  const TensorType& x = ctx.input(0);
  const int64_t raw_axis = ctx.attrs.GetInt("axis");
  SY_ASSIGN_OR_RETURN(const int64_t axis, NormalizeAxis(raw_axis, x.rank(), "attribute axis"));
  const Shape normalized(x.shape.begin() + axis, x.shape.end());
  for (size_t i = 1; i < ctx.num_inputs(); ++i) {
    const TensorType& param = ctx.input(i);
    if (!BroadcastsTo(param.shape, normalized)) {
      return InvalidModel("input " + std::string(i == 1 ? "scale" : "bias") + " has shape " +
                          ShapeToString(param.shape) +
                          " which does not broadcast to the normalized dims " +
                          ShapeToString(normalized) + " of input x " + ShapeToString(x.shape) +
                          " (axis " + std::to_string(raw_axis) + ")");
    }
  }
  SY_RETURN_IF_ERROR(RequireEpsilon(ctx.attrs));
  return std::vector<TensorType>{x};
}

namespace {

Expected<std::vector<TensorType>> InferBatchNorm(const InferContext& ctx) {
  SY_RETURN_IF_ERROR(RequireMinRank(ctx.input(0), "x", 2));
  SY_RETURN_IF_ERROR(RequirePerChannel(ctx, 1, "scale"));
  SY_RETURN_IF_ERROR(RequirePerChannel(ctx, 2, "bias"));
  SY_RETURN_IF_ERROR(RequirePerChannel(ctx, 3, "mean"));
  SY_RETURN_IF_ERROR(RequirePerChannel(ctx, 4, "var"));
  SY_RETURN_IF_ERROR(RequireEpsilon(ctx.attrs));
  return std::vector<TensorType>{ctx.input(0)};
}

Expected<std::vector<TensorType>> InferGroupNorm(const InferContext& ctx) {
  const TensorType& x = ctx.input(0);
  SY_RETURN_IF_ERROR(RequireMinRank(x, "x", 2));
  const int64_t groups = ctx.attrs.GetInt("num_groups");
  if (groups < 1) {
    return AttrError("num_groups", "is " + std::to_string(groups) + " but must be >= 1");
  }
  if (x.shape[1] % groups != 0) {
    return AttrError("num_groups", "is " + std::to_string(groups) +
                                       " but must divide the channels of input x " +
                                       ShapeToString(x.shape) + " (dimension 1, " +
                                       std::to_string(x.shape[1]) + ")");
  }
  SY_RETURN_IF_ERROR(RequirePerChannel(ctx, 1, "scale"));
  SY_RETURN_IF_ERROR(RequirePerChannel(ctx, 2, "bias"));
  SY_RETURN_IF_ERROR(RequireEpsilon(ctx.attrs));
  return std::vector<TensorType>{x};
}

Expected<std::vector<TensorType>> InferInstanceNorm(const InferContext& ctx) {
  SY_RETURN_IF_ERROR(RequireMinRank(ctx.input(0), "x", 3));
  SY_RETURN_IF_ERROR(RequirePerChannel(ctx, 1, "scale"));
  SY_RETURN_IF_ERROR(RequirePerChannel(ctx, 2, "bias"));
  SY_RETURN_IF_ERROR(RequireEpsilon(ctx.attrs));
  return std::vector<TensorType>{ctx.input(0)};
}

}  // namespace

void AddNormalizationSchemas(std::vector<OpSchema>& out) {
  out.push_back(Norm("softmax", "Softmax", {{"x", 0}}, {Int("axis", -1)}, InferSoftmax));
  out.push_back(Norm("log_softmax", "LogSoftmax", {{"x", 0}}, {Int("axis", -1)}, InferSoftmax));
  out.push_back(Norm("layer_norm", "LayerNormalization",
                     {{"x", 0}, {"scale", 0}, {"bias", 0, /*optional=*/true}},
                     {Int("axis", -1), Epsilon()}, InferAxisNorm));
  out.push_back(Norm("rms_norm", "RMSNormalization", {{"x", 0}, {"scale", 0}},
                     {Int("axis", -1), Epsilon()}, InferAxisNorm));
  out.push_back(Norm("batch_norm", "BatchNormalization",
                     {{"x", 0}, {"scale", 0}, {"bias", 0}, {"mean", 0}, {"var", 0}}, {Epsilon()},
                     InferBatchNorm));
  out.push_back(Norm("group_norm", "GroupNormalization", {{"x", 0}, {"scale", 0}, {"bias", 0}},
                     {{"num_groups", AttrKind::kInt, std::nullopt, /*required=*/true}, Epsilon()},
                     InferGroupNorm));
  out.push_back(Norm("instance_norm", "InstanceNormalization",
                     {{"x", 0}, {"scale", 0}, {"bias", 0}}, {Epsilon()}, InferInstanceNorm));
}

}  // namespace sy::ops
