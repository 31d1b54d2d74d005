// Remaining neural-network ops of the catalogue (spec/ops.md, "Neural network"): resize
// with static scales or sizes, attention (ONNX opset 23,
// 4-D inputs, grouped-query heads, optional float or bool mask) and rotary_embedding
// (ONNX opset 23, x [B, H, S, D] with cos/sin caches [S, rotary_dim / 2]); and the
// extensions grid_sample (ONNX GridSample opset 16) and linear_attention (ONNX
// LinearAttention opset 27, as one recurrence with decay and delta inputs; docs/ops.md
// "Extensions to spec v1").
#include <algorithm>
#include <cmath>
#include <string>

#include "ops/op_families.h"
#include "ops/shape_rule_helpers.h"

namespace sy::ops {
namespace {

constexpr DTypeSet kF = DTypeSet::Float();

AttrSpec Flag(std::string_view name) { return {name, AttrKind::kInt, int64_t{0}}; }
AttrSpec String(std::string_view name, std::string_view value,
                std::vector<std::string_view> allowed) {
  return {name, AttrKind::kString, std::string(value), false, std::move(allowed)};
}

std::string Str(int64_t v) { return std::to_string(v); }

// A 0/1 attribute (is_causal, interleaved): anything else is an error naming it.
Status RequireFlag(const Attrs& attrs, std::string_view name) {
  const int64_t v = attrs.GetInt(name);
  if (v == 0 || v == 1) return Status::Ok();
  return AttrError(name, "is " + Str(v) + " but must be 0 or 1");
}

// resize's mode attributes beyond their allowed values: antialias only for linear and
// cubic; roi (starts then ends, 2 * rank finite entries) with tf_crop_and_resize only.
Status CheckResizeModes(const Attrs& attrs, size_t rank) {
  SY_RETURN_IF_ERROR(RequireFlag(attrs, "antialias"));
  if (attrs.GetInt("antialias") != 0 && attrs.GetString("mode") == "nearest") {
    return AttrError("antialias", "is 1 but mode nearest has no antialiasing (linear or cubic)");
  }
  const bool crop = attrs.GetString("coordinate_transformation_mode") == "tf_crop_and_resize";
  if (!attrs.Has("roi")) {
    if (crop) {
      return AttrError("roi",
                       "is missing but coordinate_transformation_mode "
                       "tf_crop_and_resize needs it (starts then ends, one per dim)");
    }
    return Status::Ok();
  }
  if (!crop) {
    return AttrError("roi",
                     "is given but only coordinate_transformation_mode "
                     "tf_crop_and_resize reads it");
  }
  const std::vector<double> roi = attrs.GetFloats("roi");
  if (roi.size() != 2 * rank) {
    return AttrError("roi", "has " + std::to_string(roi.size()) + " entries but must have " +
                                std::to_string(2 * rank) +
                                " (a start for every dimension of input x, then an end)");
  }
  for (size_t i = 0; i < roi.size(); ++i) {
    if (!std::isfinite(roi[i])) {
      return AttrError("roi", "has " + AttrValueToString(roi[i]) + " at index " +
                                  std::to_string(i) + " but every entry must be finite");
    }
  }
  return Status::Ok();
}

// resize: scales (floats) and/or sizes (ints), one entry per dim of x. With sizes the
// output is sizes; with scales alone it is floor(dim * scale). Given both (the extension
// for ONNX's keep_aspect_ratio_policy, docs/ops.md), sizes is the output and scales the
// coordinate mapping.
Expected<std::vector<TensorType>> InferResize(const InferContext& ctx) {
  const TensorType& x = ctx.input(0);
  const bool has_scales = ctx.attrs.Has("scales");
  const bool has_sizes = ctx.attrs.Has("sizes");
  if (!has_scales && !has_sizes) {
    return InvalidModel("needs attribute scales or sizes (or both) but has neither");
  }
  const size_t rank = x.shape.size();
  auto require_size = [&](std::string_view attr, size_t size) -> Status {
    if (size == rank) return Status::Ok();
    return AttrError(attr, "has " + std::to_string(size) + " entries but must have " +
                               std::to_string(rank) + " (one per dimension of input x " +
                               ShapeToString(x.shape) + ")");
  };
  SY_RETURN_IF_ERROR(CheckResizeModes(ctx.attrs, rank));
  Shape out(rank);
  if (has_scales) {
    const std::vector<double> scales = ctx.attrs.GetFloats("scales");
    SY_RETURN_IF_ERROR(require_size("scales", scales.size()));
    for (size_t i = 0; i < rank; ++i) {
      if (!std::isfinite(scales[i]) || scales[i] <= 0) {
        return AttrError("scales", "has " + AttrValueToString(scales[i]) + " at index " +
                                       std::to_string(i) + " but every entry must be > 0");
      }
      const double dim = std::floor(static_cast<double>(x.shape[i]) * scales[i]);
      if (dim > static_cast<double>(kMaxElementCount)) {
        return AttrError("scales", "has " + AttrValueToString(scales[i]) + " at index " +
                                       std::to_string(i) + " which makes dimension " +
                                       std::to_string(i) + " too large");
      }
      out[i] = static_cast<int64_t>(dim);
    }
  }
  if (has_sizes) {
    const std::vector<int64_t> sizes = ctx.attrs.GetInts("sizes");
    SY_RETURN_IF_ERROR(require_size("sizes", sizes.size()));
    for (size_t i = 0; i < rank; ++i) {
      if (sizes[i] < 0) {
        return AttrError("sizes", "has " + Str(sizes[i]) + " at index " + std::to_string(i) +
                                      " but every entry must be >= 0");
      }
      if (x.shape[i] == 0 && sizes[i] != 0) {
        return AttrError("sizes", "has " + Str(sizes[i]) + " at index " + std::to_string(i) +
                                      " but dimension " + std::to_string(i) + " of input x " +
                                      ShapeToString(x.shape) +
                                      " is empty and can only be resized to 0");
      }
      out[i] = sizes[i];
    }
  }
  if (const double a = ctx.attrs.GetFloat("cubic_coeff_a"); !std::isfinite(a)) {
    return AttrError("cubic_coeff_a", "is " + AttrValueToString(a) + " but must be finite");
  }
  SY_RETURN_IF_ERROR(RequireFlag(ctx.attrs, "exclude_outside"));
  return std::vector<TensorType>{{x.dtype, std::move(out)}};
}

// grid_sample: x [N, C, H, W], grid [N, H_out, W_out, 2] -> [N, C, H_out, W_out].
Expected<std::vector<TensorType>> InferGridSample(const InferContext& ctx) {
  const TensorType& x = ctx.input(0);
  const TensorType& grid = ctx.input(1);
  const size_t rank = x.shape.size();
  if (rank != 4 && rank != 5) {
    return InvalidModel("input x has shape " + ShapeToString(x.shape) +
                        " but must have rank 4 ([N, C, H, W]) or 5 ([N, C, D, H, W])");
  }
  SY_RETURN_IF_ERROR(RequireRank(grid, "grid", static_cast<int64_t>(rank)));
  const int64_t spatial = static_cast<int64_t>(rank) - 2;
  if (grid.shape[0] != x.shape[0]) {
    return DimError("grid", grid, 0, "equal input x's batch " + Str(x.shape[0]));
  }
  if (grid.shape[rank - 1] != spatial) {
    return DimError("grid", grid, static_cast<int64_t>(rank) - 1,
                    "be " + Str(spatial) + " (one coordinate per spatial axis of x)");
  }
  SY_RETURN_IF_ERROR(RequireFlag(ctx.attrs, "align_corners"));
  if (rank == 5 && ctx.attrs.GetString("mode") == "bicubic") {
    return AttrError("mode", "is \"bicubic\", which takes 4-D x only (as ONNX's GridSample)");
  }
  Shape out = {x.shape[0], x.shape[1]};
  for (size_t d = 1; d + 1 < rank; ++d) out.push_back(grid.shape[d]);
  if (std::find(out.begin(), out.end(), 0) == out.end()) {
    for (size_t d = 2; d < rank; ++d) {
      if (x.shape[d] == 0) {
        return DimError("x", x, static_cast<int64_t>(d),
                        "be positive (the output samples from it)");
      }
    }
  }
  return std::vector<TensorType>{{x.dtype, std::move(out)}};
}

// q [B, Hq, S, D], k [B, Hkv, T, D], v [B, Hkv, T, Dv], mask broadcasting to
// [B, Hq, S, T] -> [B, Hq, S, Dv].
Expected<std::vector<TensorType>> InferAttention(const InferContext& ctx) {
  const TensorType& q = ctx.input(0);
  const TensorType& k = ctx.input(1);
  const TensorType& v = ctx.input(2);
  SY_RETURN_IF_ERROR(RequireRank(q, "q", 4));
  SY_RETURN_IF_ERROR(RequireRank(k, "k", 4));
  SY_RETURN_IF_ERROR(RequireRank(v, "v", 4));
  const int64_t batch = q.shape[0];
  const int64_t q_heads = q.shape[1];
  const int64_t kv_heads = k.shape[1];
  if (k.shape[0] != batch) return DimError("k", k, 0, "equal input q's batch " + Str(batch));
  if (k.shape[3] != q.shape[3]) {
    return DimError("k", k, 3, "equal input q's head size " + Str(q.shape[3]));
  }
  if (kv_heads == 0 ? q_heads != 0 : q_heads % kv_heads != 0) {
    return DimError("k", k, 1,
                    "divide input q's number of heads " + Str(q_heads) + " (grouped-query)");
  }
  if (v.shape[0] != batch) return DimError("v", v, 0, "equal input q's batch " + Str(batch));
  if (v.shape[1] != kv_heads) {
    return DimError("v", v, 1, "equal input k's number of heads " + Str(kv_heads));
  }
  if (v.shape[2] != k.shape[2]) {
    return DimError("v", v, 2, "equal input k's sequence length " + Str(k.shape[2]));
  }
  if (ctx.num_inputs() == 4) {
    const TensorType& mask = ctx.input(3);
    if (mask.dtype != DType::kBool && mask.dtype != q.dtype) {
      return InvalidModel("input mask has dtype " + std::string(DTypeName(mask.dtype)) +
                          " but must be bool or input q's dtype " +
                          std::string(DTypeName(q.dtype)));
    }
    const Shape scores = {batch, q_heads, q.shape[2], k.shape[2]};
    if (!BroadcastsTo(mask.shape, scores)) {
      return InvalidModel("input mask has shape " + ShapeToString(mask.shape) +
                          " which does not broadcast to the attention scores' shape " +
                          ShapeToString(scores) + " ([B, Hq, S, T])");
    }
  }
  if (const AttrValue* scale = ctx.attrs.Find("scale");
      scale != nullptr && !std::isfinite(std::get<double>(*scale))) {
    return AttrError("scale", "is " + AttrValueToString(*scale) + " but must be finite");
  }
  SY_RETURN_IF_ERROR(RequireFlag(ctx.attrs, "is_causal"));
  return std::vector<TensorType>{{q.dtype, {batch, q_heads, q.shape[2], v.shape[3]}}};
}

// linear_attention (extension, docs/ops.md): q [B, Hq, T, Dk], k [B, Hkv, T, Dk], v [B, Hkv,
// T, Dv], state [B, Hkv, Dk, Dv], decay [B, Hkv, T, 1 or Dk], beta [B, Hkv or 1, T, 1] ->
// y [B, Hq, T, Dv] and the final state.
Expected<std::vector<TensorType>> InferLinearAttention(const InferContext& ctx) {
  const TensorType& q = ctx.input(0);
  const TensorType& k = ctx.input(1);
  const TensorType& v = ctx.input(2);
  const TensorType& state = ctx.input(3);
  const TensorType& decay = ctx.input(4);
  const TensorType& beta = ctx.input(5);
  for (auto [t, name] : {std::pair{&q, "q"},
                         {&k, "k"},
                         {&v, "v"},
                         {&state, "state"},
                         {&decay, "decay"},
                         {&beta, "beta"}}) {
    SY_RETURN_IF_ERROR(RequireRank(*t, name, 4));
  }
  const int64_t batch = q.shape[0], hq = q.shape[1], steps = q.shape[2], dk = q.shape[3];
  const int64_t hkv = k.shape[1], dv = v.shape[3];
  if (k.shape != Shape{batch, hkv, steps, dk}) {
    return InvalidModel("input k has shape " + ShapeToString(k.shape) + " but must be [" +
                        Str(batch) + ", Hkv, " + Str(steps) + ", " + Str(dk) + "] (q's B, T, Dk)");
  }
  if (hkv == 0 ? hq != 0 : hq % hkv != 0) {
    return DimError("k", k, 1, "divide input q's number of heads " + Str(hq) + " (grouped)");
  }
  if (v.shape[0] != batch || v.shape[1] != hkv || v.shape[2] != steps) {
    return InvalidModel("input v has shape " + ShapeToString(v.shape) + " but must be [" +
                        Str(batch) + ", " + Str(hkv) + ", " + Str(steps) + ", Dv]");
  }
  const Shape state_shape{batch, hkv, dk, dv};
  if (state.shape != state_shape) {
    return InvalidModel("input state has shape " + ShapeToString(state.shape) + " but must be " +
                        ShapeToString(state_shape) + " ([B, Hkv, Dk, Dv])");
  }
  if (decay.shape[0] != batch || decay.shape[1] != hkv || decay.shape[2] != steps ||
      (decay.shape[3] != 1 && decay.shape[3] != dk)) {
    return InvalidModel("input decay has shape " + ShapeToString(decay.shape) + " but must be [" +
                        Str(batch) + ", " + Str(hkv) + ", " + Str(steps) + ", 1 or " + Str(dk) +
                        "]");
  }
  if (beta.shape[0] != batch || (beta.shape[1] != hkv && beta.shape[1] != 1) ||
      beta.shape[2] != steps || beta.shape[3] != 1) {
    return InvalidModel("input beta has shape " + ShapeToString(beta.shape) + " but must be [" +
                        Str(batch) + ", " + Str(hkv) + " or 1, " + Str(steps) + ", 1]");
  }
  if (const AttrValue* scale = ctx.attrs.Find("scale");
      scale != nullptr && !std::isfinite(std::get<double>(*scale))) {
    return AttrError("scale", "is " + AttrValueToString(*scale) + " but must be finite");
  }
  SY_RETURN_IF_ERROR(RequireFlag(ctx.attrs, "delta"));
  return std::vector<TensorType>{{q.dtype, {batch, hq, steps, dv}}, {q.dtype, state_shape}};
}

// x [B, H, S, D]; cos and sin [S, rotary_dim / 2] -> x's type.
Expected<std::vector<TensorType>> InferRotaryEmbedding(const InferContext& ctx) {
  const TensorType& x = ctx.input(0);
  SY_RETURN_IF_ERROR(RequireRank(x, "x", 4));
  const int64_t head_size = x.shape[3];
  int64_t rotary_dim = head_size;
  if (ctx.attrs.Has("rotary_dim")) {
    rotary_dim = ctx.attrs.GetInt("rotary_dim");
    if (rotary_dim < 2 || rotary_dim % 2 != 0 || rotary_dim > head_size) {
      return AttrError("rotary_dim", "is " + Str(rotary_dim) +
                                         " but must be even, positive and at most input x's "
                                         "head size (dimension 3 of " +
                                         ShapeToString(x.shape) + ")");
    }
  } else if (head_size % 2 != 0) {
    return DimError("x", x, 3, "be even (the head size, rotated in pairs)");
  }
  const Shape cache = {x.shape[2], rotary_dim / 2};
  for (const size_t i : {size_t{1}, size_t{2}}) {
    if (ctx.input(i).shape != cache) {
      return InvalidModel(
          "input " + std::string(i == 1 ? "cos" : "sin") + " has shape " +
          ShapeToString(ctx.input(i).shape) + " but must be " + ShapeToString(cache) +
          " ([S, rotary_dim / 2] with S = dimension 2 of input x " + ShapeToString(x.shape) + ")");
    }
  }
  SY_RETURN_IF_ERROR(RequireFlag(ctx.attrs, "interleaved"));
  return std::vector<TensorType>{x};
}

OpSchema Schema(std::string_view name, std::string_view onnx, DTypeSet allowed,
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

}  // namespace

void AddNeuralSchemas(std::vector<OpSchema>& out) {
  out.push_back(
      Schema("resize", "Resize", kF, {{"x", 0}},
             {{"scales", AttrKind::kFloats, std::nullopt},
              {"sizes", AttrKind::kInts, std::nullopt},
              String("mode", "nearest", {"nearest", "linear", "cubic"}),
              String("coordinate_transformation_mode", "half_pixel",
                     {"half_pixel", "asymmetric", "align_corners", "pytorch_half_pixel",
                      "tf_half_pixel_for_nn", "half_pixel_symmetric", "tf_crop_and_resize"}),
              String("nearest_mode", "round_prefer_floor",
                     {"round_prefer_floor", "round_prefer_ceil", "floor", "ceil"}),
              {"cubic_coeff_a", AttrKind::kFloat, -0.75},
              Flag("exclude_outside"),
              // Extensions (docs/ops.md): ONNX Resize-18's antialias, its roi input
              // and extrapolation_value as attributes.
              Flag("antialias"),
              {"roi", AttrKind::kFloats, std::nullopt},
              {"extrapolation_value", AttrKind::kFloat, 0.0}},
             InferResize));
  // Extension (docs/ops.md): x and grid share the float dtype T.
  out.push_back(Schema(
      "grid_sample", "GridSample", kF, {{"x", 0}, {"grid", 0}},
      {String("mode", "bilinear", {"bilinear", "nearest", "bicubic"}),
       String("padding_mode", "zeros", {"zeros", "border", "reflection"}), Flag("align_corners")},
      InferGridSample));
  {
    OpSchema s =
        Schema("attention", "Attention", kF,
               {{"q", 0}, {"k", 0}, {"v", 0}, {"mask", 1, /*optional=*/true}},
               {{"scale", AttrKind::kFloat, std::nullopt}, Flag("is_causal")}, InferAttention);
    // The mask is bool or q's float dtype (checked by the shape rule).
    s.type_vars.push_back({"M", kF | DTypeSet::Bool()});
    s.cost = OpCost::kCompute;
    out.push_back(std::move(s));
  }
  {
    OpSchema s =
        Schema("linear_attention", "LinearAttention", kF,
               {{"q", 0}, {"k", 0}, {"v", 0}, {"state", 0}, {"decay", 0}, {"beta", 0}},
               {{"scale", AttrKind::kFloat, std::nullopt}, Flag("delta")}, InferLinearAttention);
    s.min_outputs = 2;
    s.max_outputs = 2;
    s.cost = OpCost::kCompute;
    out.push_back(std::move(s));
  }
  out.push_back(Schema(
      "rotary_embedding", "RotaryEmbedding", kF, {{"x", 0}, {"cos", 0}, {"sin", 0}},
      {Flag("interleaved"), {"rotary_dim", AttrKind::kInt, std::nullopt}}, InferRotaryEmbedding));
}

}  // namespace sy::ops
