// ONNX Runtime's com.microsoft ops that its own tools write (the transformers optimizer's
// fusions, onnxruntime-genai's model builder), mapped onto the catalogue with the
// semantics of ONNX Runtime's ContribOperators documentation:
//   Gelu, FastGelu, BiasGelu, QuickGelu, BiasAdd, FusedMatMul,
//   SkipLayerNormalization, SkipSimplifiedLayerNormalization.
// The default-domain SimplifiedLayerNormalization and ONNX's RMSNormalization are in
// map_neural.cpp with the other norms. The quantized contrib ops (MatMulNBits, Q*) and
// the attention ops are not mapped here yet (docs/onnx-import.md).
#include "op_mapping.h"
#include "switchyard/shape.h"

namespace sy::onnx_import {
namespace {

constexpr std::string_view kMs = "com.microsoft:";

Status Out(NodeContext& ctx, size_t k, Expected<ValueId> value) {
  if (!value.ok()) return value.status();
  ctx.SetOutput(k, *value);
  return Status::Ok();
}

// x + bias, where the node has input `k` (else x).
Expected<ValueId> AddIfGiven(NodeContext& ctx, ValueId x, size_t k) {
  if (!ctx.HasInput(k)) return x;
  SY_ASSIGN_OR_RETURN(ValueId bias, ctx.Input(k));
  return ctx.Emit1("add", {x, bias});
}

Expected<ValueId> Gelu(NodeContext& ctx, ValueId x, std::string_view approximate) {
  Attrs attrs;
  attrs.Set("approximate", std::string(approximate));
  return ctx.Emit1("gelu", {x}, std::move(attrs));
}

// Gelu (com.microsoft): the erf form.
Status MapMsGelu(NodeContext& ctx) {
  SY_ASSIGN_OR_RETURN(ValueId x, ctx.Input(0));
  return Out(ctx, 0, Gelu(ctx, x, "none"));
}

// FastGelu(X[, bias]): the tanh approximation of gelu(X + bias).
Status MapFastGelu(NodeContext& ctx) {
  SY_ASSIGN_OR_RETURN(ValueId x, ctx.Input(0));
  SY_ASSIGN_OR_RETURN(ValueId xb, AddIfGiven(ctx, x, 1));
  return Out(ctx, 0, Gelu(ctx, xb, "tanh"));
}

// BiasGelu(A, B): gelu(A + B), erf form.
Status MapBiasGelu(NodeContext& ctx) {
  SY_ASSIGN_OR_RETURN(ValueId a, ctx.Input(0));
  SY_ASSIGN_OR_RETURN(ValueId ab, AddIfGiven(ctx, a, 1));
  return Out(ctx, 0, Gelu(ctx, ab, "none"));
}

// QuickGelu(X; alpha = 1.702): X * sigmoid(alpha * X).
Status MapQuickGelu(NodeContext& ctx) {
  SY_ASSIGN_OR_RETURN(ValueId x, ctx.Input(0));
  SY_ASSIGN_OR_RETURN(ValueId alpha,
                      ctx.Scalar(ctx.TypeOf(x).dtype, ctx.AttrFloat("alpha", 1.702)));
  SY_ASSIGN_OR_RETURN(ValueId ax, ctx.Emit1("mul", {x, alpha}));
  SY_ASSIGN_OR_RETURN(ValueId s, ctx.Emit1("sigmoid", {ax}));
  return Out(ctx, 0, ctx.Emit1("mul", {x, s}));
}

// BiasAdd(X, bias, skip): X + bias + skip.
Status MapBiasAdd(NodeContext& ctx) {
  SY_ASSIGN_OR_RETURN(ValueId x, ctx.Input(0));
  SY_ASSIGN_OR_RETURN(ValueId xb, AddIfGiven(ctx, x, 1));
  return Out(ctx, 0, AddIfGiven(ctx, xb, 2));
}

// The last two axes of x swapped.
Expected<ValueId> SwapLastTwo(NodeContext& ctx, ValueId x) {
  const size_t rank = ctx.TypeOf(x).shape.size();
  if (rank < 2) return ctx.Invalid("transA/transB need operands of rank 2 or more");
  std::vector<int64_t> perm(rank);
  for (size_t d = 0; d < rank; ++d) perm[d] = static_cast<int64_t>(d);
  std::swap(perm[rank - 1], perm[rank - 2]);
  Attrs attrs;
  attrs.Set("perm", perm);
  return ctx.Emit1("transpose", {x}, std::move(attrs));
}

// FusedMatMul(A, B; transA, transB, alpha): alpha * op(A) @ op(B). transBatchA/B (which
// move the batch dims into the matrix) are not mapped.
Status MapFusedMatMul(NodeContext& ctx) {
  if (ctx.AttrInt("transBatchA", 0) != 0 || ctx.AttrInt("transBatchB", 0) != 0) {
    return ctx.UnsupportedOp("FusedMatMul with transBatchA or transBatchB is not mapped");
  }
  SY_ASSIGN_OR_RETURN(ValueId a, ctx.Input(0));
  SY_ASSIGN_OR_RETURN(ValueId b, ctx.Input(1));
  if (ctx.AttrInt("transA", 0) != 0) {
    SY_ASSIGN_OR_RETURN(a, SwapLastTwo(ctx, a));
  }
  if (ctx.AttrInt("transB", 0) != 0) {
    SY_ASSIGN_OR_RETURN(b, SwapLastTwo(ctx, b));
  }
  SY_ASSIGN_OR_RETURN(ValueId y, ctx.Emit1("matmul", {a, b}));
  const double alpha = ctx.AttrFloat("alpha", 1.0);
  if (alpha == 1.0) return Out(ctx, 0, y);
  SY_ASSIGN_OR_RETURN(ValueId scale, ctx.Scalar(ctx.TypeOf(y).dtype, alpha));
  return Out(ctx, 0, ctx.Emit1("mul", {y, scale}));
}

// Skip(Simplified)LayerNormalization(input, skip, gamma, [beta,] [bias]; epsilon):
// s = input + skip (+ bias), normalised over the last axis: layer_norm with gamma and
// beta, or rms_norm with gamma (the simplified form). Output 3 is s; outputs 1 and 2
// (mean, inverse standard deviation; the simplified form has no mean) are computed from
// their definitions.
Status MapSkipNorm(NodeContext& ctx, bool simplified) {
  SY_ASSIGN_OR_RETURN(ValueId input, ctx.Input(0));
  SY_ASSIGN_OR_RETURN(ValueId skip, ctx.Input(1));
  SY_ASSIGN_OR_RETURN(ValueId gamma, ctx.Input(2));
  SY_ASSIGN_OR_RETURN(ValueId sum, ctx.Emit1("add", {input, skip}));
  const size_t bias_at = simplified ? 3 : 4;
  SY_ASSIGN_OR_RETURN(sum, AddIfGiven(ctx, sum, bias_at));
  const double epsilon = ctx.AttrFloat("epsilon", 1e-12);
  Attrs attrs;
  attrs.Set("axis", int64_t{-1});
  attrs.Set("epsilon", epsilon);
  std::vector<ValueId> inputs{sum, gamma};
  if (!simplified && ctx.HasInput(3)) {
    SY_ASSIGN_OR_RETURN(ValueId beta, ctx.Input(3));
    inputs.push_back(beta);
  }
  SY_ASSIGN_OR_RETURN(ValueId y, ctx.Emit1(simplified ? "rms_norm" : "layer_norm", inputs, attrs));
  ctx.SetOutput(0, y);
  if (ctx.OutputWanted(1) || ctx.OutputWanted(2)) {
    if (simplified && ctx.OutputWanted(1)) {
      return ctx.UnsupportedOp(
          "SkipSimplifiedLayerNormalization's output 1 (mean) is not mapped: an RMS norm "
          "computes no mean, and ONNX Runtime leaves it unset");
    }
    SY_ASSIGN_OR_RETURN(NormStats stats, EmitNormStats(ctx, sum, -1, epsilon, !simplified));
    if (!simplified) ctx.SetOutput(1, stats.mean);
    ctx.SetOutput(2, stats.inv_std_dev);
  }
  if (ctx.OutputWanted(3)) ctx.SetOutput(3, sum);
  return Status::Ok();
}

Status MapSkipLayerNorm(NodeContext& ctx) { return MapSkipNorm(ctx, false); }
Status MapSkipSimplifiedLayerNorm(NodeContext& ctx) { return MapSkipNorm(ctx, true); }

}  // namespace

void AddContribMappings(MappingTable& table) {
  const auto ms = [](std::string_view op) { return std::string(kMs) + std::string(op); };
  table.At(ms("Gelu")).map = MapMsGelu;
  table.At(ms("FastGelu")).map = MapFastGelu;
  table.At(ms("BiasGelu")).map = MapBiasGelu;
  table.At(ms("QuickGelu")).map = MapQuickGelu;
  table.At(ms("BiasAdd")).map = MapBiasAdd;
  table.At(ms("FusedMatMul")).map = MapFusedMatMul;
  table.At(ms("SkipLayerNormalization")).map = MapSkipLayerNorm;
  table.At(ms("SkipSimplifiedLayerNormalization")).map = MapSkipSimplifiedLayerNorm;
}

}  // namespace sy::onnx_import
