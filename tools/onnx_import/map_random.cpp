// ONNX's random ops onto the catalogue's counter-based random_uniform / random_normal
// (docs/ops.md, "Sampling"): element i is a function of the seed and i alone.
// - RandomUniformLike / RandomNormalLike: the op on the input (its shape; dtype from the
//   attribute, else the input's).
// - RandomUniform / RandomNormal: the op on a u8 zero `expand`ed to the `shape` attribute.
// - Bernoulli: ONNX's own function body, cast(random_uniform(p) < p).
// - Dropout in training mode (map_elementwise.cpp) draws its mask from EmitRandomUniform.
// - Multinomial: per row, softmax of the logits, its running sum, and for each sample the
//   number of classes whose running sum is at most a uniform number (the inverse CDF),
//   at most C - 1 (a sum that rounds below 1).
// Seeds. ONNX's seed is a float: its 32 bits are the catalogue's seed, so different
// seeds give different streams. A node without one gets a seed hashed (FNV-1a) from its
// first output's name, so that two random nodes of a model draw different numbers and a
// model gives the same numbers every run on every backend. ONNX leaves the values to the
// implementation ("may not produce the same values in different implementations"); what
// differs from ONNX Runtime, which draws new numbers each run, is that ours repeat from
// run to run (docs/onnx-import.md).
#include <cstring>

#include "onnx_tensor.h"
#include "op_mapping.h"

namespace sy::onnx_import {
namespace {

int64_t SeedOf(NodeContext& ctx) {
  if (const onnx::AttributeProto* a = ctx.Attr("seed")) {
    if (a->type() == onnx::AttributeProto::INT) return a->i();  // Dropout's seed is an int
    const float f = a->f();
    uint32_t bits = 0;
    std::memcpy(&bits, &f, sizeof bits);
    return static_cast<int64_t>(bits);
  }
  uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : ctx.node().output(0)) h = (h ^ c) * 0x100000001b3ull;
  return static_cast<int64_t>(h >> 1);
}

// The dtype attribute (an ONNX type code), else `fallback`; float dtypes only.
Expected<DType> FloatDType(NodeContext& ctx, std::optional<DType> fallback) {
  std::optional<DType> d = fallback;
  if (const onnx::AttributeProto* a = ctx.Attr("dtype")) {
    d = DTypeFromOnnx(static_cast<int32_t>(a->i()));
  }
  if (!d || !IsFloat(*d)) {
    return ctx.Invalid("the output dtype must be FLOAT16, BFLOAT16, FLOAT or DOUBLE");
  }
  return *d;
}

Expected<ValueId> EmitRandom(NodeContext& ctx, bool normal, ValueId like, DType dtype, double a,
                             double b) {
  Attrs attrs;
  attrs.Set("dtype", std::string(DTypeName(dtype)));
  attrs.Set("seed", SeedOf(ctx));
  attrs.Set(normal ? "mean" : "low", a);
  attrs.Set(normal ? "scale" : "high", b);
  return ctx.Emit1(normal ? "random_normal" : "random_uniform", {like}, std::move(attrs));
}

}  // namespace

Expected<ValueId> EmitRandomUniform(NodeContext& ctx, ValueId like, DType dtype) {
  return EmitRandom(ctx, false, like, dtype, 0.0, 1.0);
}

namespace {

template <bool kNormal, bool kLike>
Status MapRandom(NodeContext& ctx) {
  ValueId like = -1;
  std::optional<DType> fallback = DType::kF32;
  if (kLike) {
    SY_ASSIGN_OR_RETURN(like, ctx.Input(0));
    fallback = ctx.TypeOf(like).dtype;
  } else {
    const std::optional<std::vector<int64_t>> shape = ctx.AttrInts("shape");
    if (!shape) return ctx.Invalid("has no shape attribute");
    for (int64_t d : *shape) {
      if (d < 0) return ctx.Invalid("its shape attribute has a negative dim");
    }
    SY_ASSIGN_OR_RETURN(ValueId zero, ctx.Scalar(DType::kU8, 0.0));
    Attrs expand;
    expand.Set("shape", *shape);
    SY_ASSIGN_OR_RETURN(like, ctx.Emit1("expand", {zero}, std::move(expand)));
  }
  SY_ASSIGN_OR_RETURN(const DType dtype, FloatDType(ctx, fallback));
  const double a = kNormal ? ctx.AttrFloat("mean", 0.0) : ctx.AttrFloat("low", 0.0);
  const double b = kNormal ? ctx.AttrFloat("scale", 1.0) : ctx.AttrFloat("high", 1.0);
  SY_ASSIGN_OR_RETURN(ValueId y, EmitRandom(ctx, kNormal, like, dtype, a, b));
  ctx.SetOutput(0, y);
  return Status::Ok();
}

Status MapBernoulli(NodeContext& ctx) {
  SY_ASSIGN_OR_RETURN(ValueId p, ctx.Input(0));
  const DType pt = ctx.TypeOf(p).dtype;
  if (!IsFloat(pt)) return ctx.Invalid("input must hold float probabilities");
  std::optional<DType> out = pt;
  if (const onnx::AttributeProto* a = ctx.Attr("dtype")) {
    out = DTypeFromOnnx(static_cast<int32_t>(a->i()));
    if (!out) return ctx.Invalid("dtype " + std::to_string(a->i()) + " has no catalogue dtype");
  }
  SY_ASSIGN_OR_RETURN(ValueId u, EmitRandom(ctx, false, p, pt, 0.0, 1.0));
  SY_ASSIGN_OR_RETURN(ValueId hit, ctx.Emit1("less", {u, p}));
  SY_ASSIGN_OR_RETURN(ValueId y, CastTo(ctx, hit, *out));
  ctx.SetOutput(0, y);
  return Status::Ok();
}

Status MapMultinomial(NodeContext& ctx) {
  SY_ASSIGN_OR_RETURN(ValueId x, ctx.Input(0));
  const TensorType xt = ctx.TypeOf(x);
  if (xt.shape.size() != 2 || !IsFloat(xt.dtype)) {
    return ctx.Invalid("input must be float logits [batch_size, class_size]");
  }
  const int64_t samples = ctx.AttrInt("sample_size", 1);
  if (samples < 1) return ctx.Invalid("sample_size must be at least 1");
  const std::optional<DType> out = DTypeFromOnnx(static_cast<int32_t>(ctx.AttrInt("dtype", 6)));
  if (!out || (*out != DType::kI32 && *out != DType::kI64)) {
    return ctx.Invalid("dtype must be INT32 or INT64");
  }
  const int64_t classes = xt.shape[1];
  if (classes < 1) return ctx.Invalid("class_size must be at least 1");
  // The running sum of each row's probabilities, as [B, 1, C].
  Attrs axis1;
  axis1.Set("axis", int64_t{1});
  SY_ASSIGN_OR_RETURN(ValueId probs, ctx.Emit1("softmax", {x}, axis1));
  SY_ASSIGN_OR_RETURN(ValueId cdf, ctx.Emit1("cumsum", {probs}, axis1));
  SY_ASSIGN_OR_RETURN(cdf, EmitReshape(ctx, cdf, {0, 1, classes}));
  // One uniform number per sample, [B, S, 1]: drawn over a [B, S] tensor made from x's
  // first column (batch sizes known only at run time kept).
  Attrs first;
  first.Set("starts", std::vector<int64_t>{0});
  first.Set("ends", std::vector<int64_t>{1});
  first.Set("axes", std::vector<int64_t>{1});
  SY_ASSIGN_OR_RETURN(ValueId column, ctx.Emit1("slice", {x}, std::move(first)));
  Attrs expand;
  expand.Set("shape", std::vector<int64_t>{1, samples});
  SY_ASSIGN_OR_RETURN(ValueId like, ctx.Emit1("expand", {column}, std::move(expand)));
  SY_ASSIGN_OR_RETURN(ValueId u, EmitRandom(ctx, false, like, xt.dtype, 0.0, 1.0));
  SY_ASSIGN_OR_RETURN(u, EmitReshape(ctx, u, {0, samples, 1}));
  SY_ASSIGN_OR_RETURN(ValueId below, ctx.Emit1("less_equal", {cdf, u}));
  SY_ASSIGN_OR_RETURN(ValueId counts, CastTo(ctx, below, DType::kI64));
  Attrs last;
  last.Set("axes", std::vector<int64_t>{2});
  last.Set("keepdims", int64_t{0});
  SY_ASSIGN_OR_RETURN(ValueId index, ctx.Emit1("reduce_sum", {counts}, std::move(last)));
  SY_ASSIGN_OR_RETURN(ValueId top, ctx.Scalar(DType::kI64, static_cast<double>(classes - 1)));
  SY_ASSIGN_OR_RETURN(index, ctx.Emit1("min", {index, top}));
  SY_ASSIGN_OR_RETURN(index, CastTo(ctx, index, *out));
  ctx.SetOutput(0, index);
  return Status::Ok();
}

}  // namespace

void AddRandomMappings(MappingTable& table) {
  table.At("RandomUniformLike").map = MapRandom<false, true>;
  table.At("RandomNormalLike").map = MapRandom<true, true>;
  table.At("RandomUniform").map = MapRandom<false, false>;
  table.At("RandomNormal").map = MapRandom<true, false>;
  table.At("Bernoulli").map = MapBernoulli;
  table.At("Multinomial").map = MapMultinomial;
}

}  // namespace sy::onnx_import
