// ONNX FlexAttention (ai.onnx.preview, opset 1): scaled dot-product attention over rank-4
// heads with two optional modifier graphs, PyTorch's flex_attention as an ONNX op:
//   scores = (q * sqrt(scale)) (k * sqrt(scale))^T      in q's dtype
//   scores = score_mod(scores)                          in the softmax dtype
//   probs  = prob_mod(softmax(scores, axis -1))
//   y      = probs v                                    in the softmax dtype, cast back
// The modifiers are graphs of one [B, Hq, L, S] input and one output of the same shape;
// they are imported in place (ImportState::import_body, as control-flow bodies are), so
// whatever ops they use (masks built from ranges over the score's shape, softcaps,
// positional biases, values captured from the outer graph) run as ordinary catalogue ops.
// The computation follows ONNX's reference (onnx/reference/ops/aionnx_preview) step by
// step, rounding where it rounds: the scale is split as sqrt(scale) on q and on k, the
// softmax dtype is softmax_precision or, by default, f32 for f16/bf16 inputs and the
// inputs' own otherwise, and a row whose scores are all -inf is NaN there and here (no
// zeroing, unlike ONNX Attention's errata: FlexAttention does not define it).
// Grouped-query attention repeats each k/v head for its group of q heads.
#include <cmath>

#include "attention_parts.h"
#include "onnx_tensor.h"
#include "op_mapping.h"
#include "switchyard/shape.h"

namespace sy::onnx_import {
namespace {

// Imports modifier graph `attr` on `x`, checking it keeps x's shape and dtype.
Expected<ValueId> ApplyModifier(NodeContext& ctx, std::string_view attr, ValueId x) {
  const onnx::AttributeProto* a = ctx.Attr(attr);
  if (a == nullptr) return x;
  if (!a->has_g()) return ctx.Invalid(std::string(attr) + " must be a graph attribute");
  const onnx::GraphProto& body = a->g();
  if (body.input_size() != 1 || body.output_size() != 1) {
    return ctx.Invalid(std::string(attr) + " must have exactly one input and one output, not " +
                       std::to_string(body.input_size()) + " and " +
                       std::to_string(body.output_size()));
  }
  KnownValue in;
  in.id = x;
  in.type = ctx.TypeOf(x);
  std::vector<std::string> outputs;
  const std::string origin = " (" + std::string(attr) + " of " + ctx.Describe() + ")";
  SY_RETURN_IF_ERROR(ctx.state().import_body(body, origin, {in}, outputs));
  if (outputs.size() != 1) return ctx.Invalid(std::string(attr) + " gave no output");
  SY_ASSIGN_OR_RETURN(ValueId y, ctx.state().Materialize(outputs[0]));
  const TensorType want = ctx.TypeOf(x), got = ctx.TypeOf(y);
  if (got.dtype != want.dtype || got.shape != want.shape) {
    const auto describe = [](const TensorType& t) {
      return std::string(DTypeName(t.dtype)) + " " + ShapeToString(t.shape);
    };
    return ctx.Invalid(std::string(attr) + " must give a " + describe(want) +
                       " like its input, not " + describe(got));
  }
  return y;
}

// The softmax's dtype: softmax_precision when given, else f32 for inputs narrower than
// f32 and the inputs' dtype otherwise.
Expected<DType> SoftmaxDType(NodeContext& ctx, DType input) {
  const onnx::AttributeProto* a = ctx.Attr("softmax_precision");
  if (a == nullptr) {
    return input == DType::kF16 || input == DType::kBF16 ? DType::kF32 : input;
  }
  const std::optional<DType> d = DTypeFromOnnx(static_cast<int32_t>(a->i()));
  if (!d || (*d != DType::kF32 && *d != DType::kF16 && *d != DType::kBF16 && *d != DType::kF64)) {
    return ctx.Invalid("softmax_precision must be FLOAT, FLOAT16, BFLOAT16 or DOUBLE, not type " +
                       std::to_string(a->i()));
  }
  return *d;
}

Status MapFlexAttention(NodeContext& ctx) {
  SY_ASSIGN_OR_RETURN(ValueId q, ctx.Input(0));
  SY_ASSIGN_OR_RETURN(ValueId k, ctx.Input(1));
  SY_ASSIGN_OR_RETURN(ValueId v, ctx.Input(2));
  const TensorType qt = ctx.TypeOf(q);
  if (qt.shape.size() != 4 || ctx.TypeOf(k).shape.size() != 4 || ctx.TypeOf(v).shape.size() != 4) {
    return ctx.Invalid("Q, K and V must be rank-4 [batch, heads, sequence, head_size]");
  }
  const Dim q_heads = DimOf(ctx, q, 1), kv_heads = DimOf(ctx, k, 1);
  int64_t group = 1, hkv = 1;
  if (!q_heads.expr.SameAs(kv_heads.expr)) {
    SY_ASSIGN_OR_RETURN(const int64_t hq, StaticSize(ctx, q_heads, "the number of q heads"));
    SY_ASSIGN_OR_RETURN(hkv, StaticSize(ctx, kv_heads, "the number of kv heads"));
    if (hkv <= 0 || hq % hkv != 0) {
      return ctx.Invalid("Q has " + std::to_string(hq) + " heads, not a multiple of K's " +
                         std::to_string(hkv));
    }
    group = hq / hkv;
  }
  SY_ASSIGN_OR_RETURN(k, RepeatHeads(ctx, k, hkv, DimOf(ctx, k, 3), group));
  SY_ASSIGN_OR_RETURN(v, RepeatHeads(ctx, v, hkv, DimOf(ctx, v, 3), group));

  // The scale as the reference rounds it: sqrt of the f32 scale, in q's dtype, on both sides.
  SY_ASSIGN_OR_RETURN(const int64_t head_size, StaticSize(ctx, DimOf(ctx, q, 3), "the head size"));
  const double scale = ctx.Attr("scale") != nullptr
                           ? static_cast<double>(ctx.AttrFloat("scale", 0.0))
                           : 1.0 / std::sqrt(static_cast<double>(head_size));
  const auto sqrt_scale = static_cast<double>(std::sqrt(static_cast<float>(scale)));
  SY_ASSIGN_OR_RETURN(ValueId s, ctx.Scalar(qt.dtype, sqrt_scale));
  SY_ASSIGN_OR_RETURN(ValueId qs, ctx.Emit1("mul", {q, s}));
  SY_ASSIGN_OR_RETURN(ValueId ks, ctx.Emit1("mul", {k, s}));
  SY_ASSIGN_OR_RETURN(ValueId kt, EmitTranspose(ctx, ks, {0, 1, 3, 2}));
  SY_ASSIGN_OR_RETURN(ValueId scores, ctx.Emit1("matmul", {qs, kt}));

  SY_ASSIGN_OR_RETURN(const DType wide, SoftmaxDType(ctx, qt.dtype));
  SY_ASSIGN_OR_RETURN(scores, CastTo(ctx, scores, wide));
  SY_ASSIGN_OR_RETURN(scores, ApplyModifier(ctx, "score_mod", scores));
  Attrs axis;
  axis.Set("axis", int64_t{-1});
  SY_ASSIGN_OR_RETURN(ValueId probs, ctx.Emit1("softmax", {scores}, std::move(axis)));
  SY_ASSIGN_OR_RETURN(probs, ApplyModifier(ctx, "prob_mod", probs));
  SY_ASSIGN_OR_RETURN(ValueId vw, CastTo(ctx, v, wide));
  SY_ASSIGN_OR_RETURN(ValueId y, ctx.Emit1("matmul", {probs, vw}));
  SY_ASSIGN_OR_RETURN(y, CastTo(ctx, y, ctx.TypeOf(v).dtype));
  ctx.SetOutput(0, y);
  return Status::Ok();
}

}  // namespace

void AddFlexAttentionMappings(MappingTable& table) {
  table.At("ai.onnx.preview:FlexAttention").map = MapFlexAttention;
}

}  // namespace sy::onnx_import
