// Linear algebra, softmax family, normalisations, Resize and GridSample. ONNX's pre-13 Softmax,
// LogSoftmax and Hardmax work on the input coerced to 2-D at `axis`; they are mapped as a
// reshape around the catalogue op.
#include <algorithm>
#include <cmath>

#include "host_tensor_ops.h"
#include "op_mapping.h"
#include "switchyard/shape.h"

namespace sy::onnx_import {
namespace {

Status MapMatMul(NodeContext& ctx) {
  SY_ASSIGN_OR_RETURN(ValueId a, ctx.Input(0));
  SY_ASSIGN_OR_RETURN(ValueId b, ctx.Input(1));
  SY_ASSIGN_OR_RETURN(ValueId out, ctx.Emit1("matmul", {a, b}));
  ctx.SetOutput(0, out);
  return Status::Ok();
}

Status MapGemm(NodeContext& ctx) {
  SY_ASSIGN_OR_RETURN(ValueId a, ctx.Input(0));
  SY_ASSIGN_OR_RETURN(ValueId b, ctx.Input(1));
  std::vector<ValueId> inputs{a, b};
  if (ctx.HasInput(2)) {
    SY_ASSIGN_OR_RETURN(ValueId c, ctx.Input(2));
    inputs.push_back(c);
  }
  Attrs attrs;
  attrs.Set("alpha", ctx.AttrFloat("alpha", 1.0));
  attrs.Set("beta", ctx.AttrFloat("beta", 1.0));
  attrs.Set("trans_a", ctx.AttrInt("transA", 0));
  attrs.Set("trans_b", ctx.AttrInt("transB", 0));
  SY_ASSIGN_OR_RETURN(ValueId out, ctx.Emit1("gemm", inputs, std::move(attrs)));
  ctx.SetOutput(0, out);
  return Status::Ok();
}

// One-hot of the (first) maximum along `axis`, in x's dtype.
Expected<ValueId> Hardmax(NodeContext& ctx, ValueId x, int64_t axis) {
  const TensorType type = ctx.TypeOf(x);
  const int64_t rank = static_cast<int64_t>(type.shape.size());
  Expected<int64_t> a = NormalizeAxis(axis, rank);
  if (!a.ok()) return ctx.Invalid(a.status().message());
  Attrs attrs;
  attrs.Set("axis", *a);
  attrs.Set("keepdims", int64_t{1});
  SY_ASSIGN_OR_RETURN(ValueId am, ctx.Emit1("argmax", {x}, std::move(attrs)));
  Shape iota_shape(static_cast<size_t>(rank), 1);
  iota_shape[*a] = type.shape[*a];
  Attrs range;
  range.Set("start", 0.0);
  range.Set("limit", static_cast<double>(type.shape[*a]));
  range.Set("delta", 1.0);
  range.Set("dtype", std::string("i64"));
  SY_ASSIGN_OR_RETURN(ValueId iota, ctx.Emit1("range", {}, std::move(range)));
  SY_ASSIGN_OR_RETURN(iota, EmitReshape(ctx, iota, iota_shape));
  SY_ASSIGN_OR_RETURN(ValueId hit, ctx.Emit1("equal", {am, iota}));
  Attrs cast;
  cast.Set("to", std::string(DTypeName(type.dtype)));
  return ctx.Emit1("cast", {hit}, std::move(cast));
}

Status MapSoftmaxFamily(NodeContext& ctx) {
  const std::string& type = ctx.node().op_type();
  SY_ASSIGN_OR_RETURN(ValueId x, ctx.Input(0));
  const Shape shape = ctx.TypeOf(x).shape;
  const int64_t rank = static_cast<int64_t>(shape.size());
  const std::string op = type == "Softmax" ? "softmax" : type == "LogSoftmax" ? "log_softmax" : "";
  const auto apply = [&](ValueId in, int64_t axis) -> Expected<ValueId> {
    if (op.empty()) return Hardmax(ctx, in, axis);
    Attrs attrs;
    attrs.Set("axis", axis);
    return ctx.Emit1(op, {in}, std::move(attrs));
  };
  ValueId out;
  if (ctx.since_version() >= 13) {
    SY_ASSIGN_OR_RETURN(out, apply(x, ctx.AttrInt("axis", -1)));
  } else {
    int64_t axis = ctx.AttrInt("axis", 1);
    if (axis < 0) axis += rank;
    if (axis < 0 || axis > rank) return ctx.Invalid("axis is out of range");
    const Shape flat{ElementCount(std::span(shape).subspan(0, axis)),
                     ElementCount(std::span(shape).subspan(axis))};
    SY_ASSIGN_OR_RETURN(ValueId x2, EmitReshape(ctx, x, flat));
    SY_ASSIGN_OR_RETURN(ValueId y2, apply(x2, 1));
    SY_ASSIGN_OR_RETURN(out, EmitReshape(ctx, y2, shape));
  }
  ctx.SetOutput(0, out);
  return Status::Ok();
}

Status MapStatsNorm(NodeContext& ctx);

// BatchNormalization in training mode (opset 14+: training_mode; before, any of the
// statistics outputs asked for): the batch's own mean and (biased) variance over every
// axis but 1 normalize x, and the running statistics are updated with `momentum`:
// running = input * momentum + batch * (1 - momentum). Outputs: y, running mean and var,
// and before opset 14 the batch mean and var (saved_mean, saved_var), as ONNX's
// reference computes them.
Status MapBatchNormTraining(NodeContext& ctx) {
  std::vector<ValueId> in;
  for (size_t i = 0; i < 5; ++i) {
    SY_ASSIGN_OR_RETURN(ValueId id, ctx.Input(i));
    in.push_back(id);
  }
  const TensorType xt = ctx.TypeOf(in[0]);  // a copy: emitting may move the graph's types
  const int64_t rank = static_cast<int64_t>(xt.shape.size());
  if (rank < 2) return ctx.Invalid("input X must have rank >= 2 (N, C, ...)");
  std::vector<int64_t> axes{0};
  for (int64_t d = 2; d < rank; ++d) axes.push_back(d);
  Attrs keep;
  keep.Set("axes", axes);
  keep.Set("keepdims", int64_t{1});
  SY_ASSIGN_OR_RETURN(ValueId mean_kept, ctx.Emit1("reduce_mean", {in[0]}, keep));
  SY_ASSIGN_OR_RETURN(ValueId deviation, ctx.Emit1("sub", {in[0], mean_kept}));
  SY_ASSIGN_OR_RETURN(ValueId square, ctx.Emit1("mul", {deviation, deviation}));
  Attrs drop = keep;
  drop.Set("keepdims", int64_t{0});
  SY_ASSIGN_OR_RETURN(ValueId var, ctx.Emit1("reduce_mean", {square}, drop));
  SY_ASSIGN_OR_RETURN(ValueId mean, EmitReshape(ctx, mean_kept, {-1}));
  Attrs eps;
  eps.Set("epsilon", ctx.AttrFloat("epsilon", 1e-5));
  SY_ASSIGN_OR_RETURN(ValueId y,
                      ctx.Emit1("batch_norm", {in[0], in[1], in[2], mean, var}, std::move(eps)));
  ctx.SetOutput(0, y);
  const double momentum = ctx.AttrFloat("momentum", 0.9);
  auto running = [&](ValueId input, ValueId batch) -> Expected<ValueId> {
    const DType dtype = ctx.TypeOf(input).dtype;
    SY_ASSIGN_OR_RETURN(ValueId m, ctx.Scalar(dtype, momentum));
    SY_ASSIGN_OR_RETURN(ValueId rest, ctx.Scalar(dtype, 1 - momentum));
    SY_ASSIGN_OR_RETURN(ValueId kept, ctx.Emit1("mul", {input, m}));
    SY_ASSIGN_OR_RETURN(ValueId added, ctx.Emit1("mul", {batch, rest}));
    return ctx.Emit1("add", {kept, added});
  };
  if (ctx.OutputWanted(1)) {
    SY_ASSIGN_OR_RETURN(ValueId out, running(in[3], mean));
    ctx.SetOutput(1, out);
  }
  if (ctx.OutputWanted(2)) {
    SY_ASSIGN_OR_RETURN(ValueId out, running(in[4], var));
    ctx.SetOutput(2, out);
  }
  if (ctx.OutputWanted(3)) ctx.SetOutput(3, mean);
  if (ctx.OutputWanted(4)) ctx.SetOutput(4, var);
  return Status::Ok();
}

Status MapBatchNorm(NodeContext& ctx) {
  if (ctx.since_version() < 9 && ctx.AttrInt("spatial", 1) == 0) {
    return ctx.UnsupportedOp("spatial=0 (per-element statistics) is outside the catalogue");
  }
  const bool training = ctx.since_version() >= 14 ? ctx.AttrInt("training_mode", 0) != 0
                                                  : ctx.OutputWanted(1) || ctx.OutputWanted(2) ||
                                                        ctx.OutputWanted(3) || ctx.OutputWanted(4);
  if (training) return MapBatchNormTraining(ctx);
  return MapStatsNorm(ctx);
}

// BatchNormalization (inference: x, scale, bias, mean, var) and InstanceNormalization
// (x, scale, bias): every input carries over, and the epsilon.
Status MapStatsNorm(NodeContext& ctx) {
  const bool batch = ctx.node().op_type() == "BatchNormalization";
  std::vector<ValueId> inputs;
  for (size_t i = 0; i < (batch ? 5u : 3u); ++i) {
    SY_ASSIGN_OR_RETURN(ValueId id, ctx.Input(i));
    inputs.push_back(id);
  }
  Attrs attrs;
  attrs.Set("epsilon", ctx.AttrFloat("epsilon", 1e-5));
  SY_ASSIGN_OR_RETURN(ValueId out,
                      ctx.Emit1(batch ? "batch_norm" : "instance_norm", inputs, std::move(attrs)));
  ctx.SetOutput(0, out);
  return Status::Ok();
}

}  // namespace

Expected<NormStats> EmitNormStats(NodeContext& ctx, ValueId x, int64_t axis, double epsilon,
                                  bool centred) {
  const TensorType type = ctx.TypeOf(x);
  const int64_t rank = static_cast<int64_t>(type.shape.size());
  Expected<int64_t> first = NormalizeAxis(axis, rank);
  if (!first.ok()) return ctx.Invalid(first.status().message());
  std::vector<int64_t> axes;
  for (int64_t d = *first; d < rank; ++d) axes.push_back(d);
  Attrs reduce;
  reduce.Set("axes", axes);
  reduce.Set("keepdims", int64_t{1});
  NormStats stats;
  ValueId deviation = x;
  if (centred) {
    SY_ASSIGN_OR_RETURN(stats.mean, ctx.Emit1("reduce_mean", {x}, reduce));
    SY_ASSIGN_OR_RETURN(deviation, ctx.Emit1("sub", {x, stats.mean}));
  }
  SY_ASSIGN_OR_RETURN(ValueId squared, ctx.Emit1("mul", {deviation, deviation}));
  SY_ASSIGN_OR_RETURN(ValueId variance, ctx.Emit1("reduce_mean", {squared}, reduce));
  SY_ASSIGN_OR_RETURN(ValueId eps, ctx.Scalar(type.dtype, epsilon));
  SY_ASSIGN_OR_RETURN(ValueId shifted, ctx.Emit1("add", {variance, eps}));
  SY_ASSIGN_OR_RETURN(stats.inv_std_dev, ctx.Emit1("rsqrt", {shifted}));
  return stats;
}

namespace {

// LayerNormalization; its optional Mean and InvStdDev outputs are computed alongside
// from their definitions (reduce_mean over the normalised axes, kept dims).
Status MapLayerNorm(NodeContext& ctx) {
  SY_ASSIGN_OR_RETURN(ValueId x, ctx.Input(0));
  SY_ASSIGN_OR_RETURN(ValueId scale, ctx.Input(1));
  std::vector<ValueId> inputs{x, scale};
  if (ctx.HasInput(2)) {
    SY_ASSIGN_OR_RETURN(ValueId bias, ctx.Input(2));
    inputs.push_back(bias);
  }
  const int64_t axis = ctx.AttrInt("axis", -1);
  const double epsilon = ctx.AttrFloat("epsilon", 1e-5);
  Attrs attrs;
  attrs.Set("axis", axis);
  attrs.Set("epsilon", epsilon);
  SY_ASSIGN_OR_RETURN(ValueId out, ctx.Emit1("layer_norm", inputs, std::move(attrs)));
  ctx.SetOutput(0, out);
  if (ctx.OutputWanted(1) || ctx.OutputWanted(2)) {
    SY_ASSIGN_OR_RETURN(NormStats stats, EmitNormStats(ctx, x, axis, epsilon, true));
    ctx.SetOutput(1, stats.mean);
    ctx.SetOutput(2, stats.inv_std_dev);
  }
  return Status::Ok();
}

// RMSNormalization (opset 23) and ONNX Runtime's SimplifiedLayerNormalization (which
// its tools write at any opset): x / sqrt(mean(x^2 over [axis, rank)) + epsilon) * scale.
// SimplifiedLayerNormalization's optional inv_std_var output is computed alongside.
Status MapRmsNorm(NodeContext& ctx) {
  SY_ASSIGN_OR_RETURN(ValueId x, ctx.Input(0));
  SY_ASSIGN_OR_RETURN(ValueId scale, ctx.Input(1));
  const int64_t axis = ctx.AttrInt("axis", -1);
  const double epsilon = ctx.AttrFloat("epsilon", 1e-5);
  Attrs attrs;
  attrs.Set("axis", axis);
  attrs.Set("epsilon", epsilon);
  SY_ASSIGN_OR_RETURN(ValueId out, ctx.Emit1("rms_norm", {x, scale}, std::move(attrs)));
  ctx.SetOutput(0, out);
  if (ctx.num_outputs() > 1 && ctx.OutputWanted(1)) {
    SY_ASSIGN_OR_RETURN(NormStats stats, EmitNormStats(ctx, x, axis, epsilon, false));
    ctx.SetOutput(1, stats.inv_std_dev);
  }
  return Status::Ok();
}

// MeanVarianceNormalization: (x - E[x]) / (sqrt(E[x^2] - E[x]^2) + 1e-9), as ONNX's
// function body defines it.
Status MapMvn(NodeContext& ctx) {
  SY_ASSIGN_OR_RETURN(ValueId x, ctx.Input(0));
  const DType dtype = ctx.TypeOf(x).dtype;
  Attrs reduce;
  reduce.Set("axes", ctx.AttrInts("axes").value_or(std::vector<int64_t>{0, 2, 3}));
  reduce.Set("keepdims", int64_t{1});
  SY_ASSIGN_OR_RETURN(ValueId mean, ctx.Emit1("reduce_mean", {x}, reduce));
  SY_ASSIGN_OR_RETURN(ValueId x2, ctx.Emit1("mul", {x, x}));
  SY_ASSIGN_OR_RETURN(ValueId ex2, ctx.Emit1("reduce_mean", {x2}, reduce));
  SY_ASSIGN_OR_RETURN(ValueId m2, ctx.Emit1("mul", {mean, mean}));
  SY_ASSIGN_OR_RETURN(ValueId var, ctx.Emit1("sub", {ex2, m2}));
  SY_ASSIGN_OR_RETURN(ValueId sd, ctx.Emit1("sqrt", {var}));
  SY_ASSIGN_OR_RETURN(ValueId eps, ctx.Scalar(dtype, 1e-9));
  SY_ASSIGN_OR_RETURN(ValueId den, ctx.Emit1("add", {sd, eps}));
  SY_ASSIGN_OR_RETURN(ValueId num, ctx.Emit1("sub", {x, mean}));
  SY_ASSIGN_OR_RETURN(ValueId out, ctx.Emit1("div", {num, den}));
  ctx.SetOutput(0, out);
  return Status::Ok();
}

// LpNormalization: x / ||x||_p along `axis` (p 1 or 2), 0 where the norm is 0 (ONNX's
// reference and test data).
Status MapLpNormalization(NodeContext& ctx) {
  SY_ASSIGN_OR_RETURN(ValueId x, ctx.Input(0));
  const DType dtype = ctx.TypeOf(x).dtype;
  const int64_t p = ctx.AttrInt("p", 2);
  if (p != 1 && p != 2) return ctx.Invalid("p must be 1 or 2, not " + std::to_string(p));
  Attrs reduce;
  reduce.Set("axes", std::vector<int64_t>{ctx.AttrInt("axis", -1)});
  reduce.Set("keepdims", int64_t{1});
  ValueId norm;
  if (p == 1) {
    SY_ASSIGN_OR_RETURN(ValueId a, ctx.Emit1("abs", {x}));
    SY_ASSIGN_OR_RETURN(norm, ctx.Emit1("reduce_sum", {a}, std::move(reduce)));
  } else {
    SY_ASSIGN_OR_RETURN(ValueId sq, ctx.Emit1("mul", {x, x}));
    SY_ASSIGN_OR_RETURN(ValueId sum, ctx.Emit1("reduce_sum", {sq}, std::move(reduce)));
    SY_ASSIGN_OR_RETURN(norm, ctx.Emit1("sqrt", {sum}));
  }
  SY_ASSIGN_OR_RETURN(ValueId zero, ctx.Scalar(dtype, 0.0));
  SY_ASSIGN_OR_RETURN(ValueId is_zero, ctx.Emit1("equal", {norm, zero}));
  SY_ASSIGN_OR_RETURN(ValueId q, ctx.Emit1("div", {x, norm}));
  SY_ASSIGN_OR_RETURN(ValueId out, ctx.Emit1("where", {is_zero, zero, q}));
  ctx.SetOutput(0, out);
  return Status::Ok();
}

// GroupNormalization onto the catalogue's group_norm, which takes per-channel scale and
// bias (opset 21). Opset 18's are per group: each repeated over its group's channels.
Status MapGroupNormalization(NodeContext& ctx) {
  SY_ASSIGN_OR_RETURN(ValueId x, ctx.Input(0));
  SY_ASSIGN_OR_RETURN(ValueId scale, ctx.Input(1));
  SY_ASSIGN_OR_RETURN(ValueId bias, ctx.Input(2));
  const int64_t groups = ctx.AttrInt("num_groups", 0);
  if (groups <= 0) return ctx.Invalid("num_groups must be positive");
  if (ctx.since_version() < 21) {
    const std::vector<DimExpr> dims = ctx.state().DimsOf(ctx.node().input(0));
    if (dims.size() < 2 || !dims[1].is_const() || dims[1].value() % groups != 0) {
      return ctx.UnsupportedOp(
          "GroupNormalization-18 needs a channel count fixed at import that num_groups "
          "divides");
    }
    const int64_t per_group = dims[1].value() / groups;
    for (ValueId* v : {&scale, &bias}) {
      Attrs column;
      column.Set("shape", std::vector<int64_t>{groups, 1});
      SY_ASSIGN_OR_RETURN(ValueId c, ctx.Emit1("reshape", {*v}, std::move(column)));
      Attrs expand;
      expand.Set("shape", std::vector<int64_t>{groups, per_group});
      SY_ASSIGN_OR_RETURN(ValueId e, ctx.Emit1("expand", {c}, std::move(expand)));
      Attrs flat;
      flat.Set("shape", std::vector<int64_t>{groups * per_group});
      SY_ASSIGN_OR_RETURN(*v, ctx.Emit1("reshape", {e}, std::move(flat)));
    }
  }
  Attrs attrs;
  attrs.Set("num_groups", groups);
  attrs.Set("epsilon", ctx.AttrFloat("epsilon", 1e-5));
  SY_ASSIGN_OR_RETURN(ValueId out, ctx.Emit1("group_norm", {x, scale, bias}, std::move(attrs)));
  ctx.SetOutput(0, out);
  return Status::Ok();
}

// Resize (opset 10+) and Upsample (opset 7-9) onto the catalogue's resize: nearest,
// linear and cubic modes (cubic_coeff_a, exclude_outside, antialias), every coordinate
// mode of Resize-19 (tf_crop_and_resize with a constant roi and extrapolation_value),
// axes and keep_aspect_ratio_policy.
Status MapResize(NodeContext& ctx) {
  const bool upsample = ctx.node().op_type() == "Upsample";
  SY_ASSIGN_OR_RETURN(ValueId x, ctx.Input(0));
  const Shape& shape = ctx.TypeOf(x).shape;
  const int64_t rank = static_cast<int64_t>(shape.size());
  std::string mode = ctx.AttrString("mode", "nearest");
  if (mode == "bilinear" || mode == "trilinear") mode = "linear";  // Upsample-7 spellings
  if (mode != "nearest" && mode != "linear" && mode != "cubic") {
    return ctx.UnsupportedOp("mode '" + mode +
                             "' is outside the catalogue (nearest, linear, cubic)");
  }
  std::string ctm = ctx.AttrString("coordinate_transformation_mode", "half_pixel");
  std::string nearest_mode = ctx.AttrString("nearest_mode", "round_prefer_floor");
  if (upsample || ctx.since_version() < 11) {
    ctm = "asymmetric";
    nearest_mode = "floor";
  }
  const int64_t antialias = ctx.AttrInt("antialias", 0);
  if (antialias != 0 && mode == "nearest") {
    return ctx.Invalid(
        "antialias is 1 but mode is nearest (antialias applies to linear and "
        "cubic)");
  }
  const std::string policy = ctx.AttrString("keep_aspect_ratio_policy", "stretch");
  if (policy != "stretch" && policy != "not_larger" && policy != "not_smaller") {
    return ctx.Invalid("keep_aspect_ratio_policy must be stretch, not_larger or not_smaller");
  }
  std::optional<std::vector<double>> scales;
  std::optional<std::vector<int64_t>> sizes;
  if (upsample && ctx.since_version() < 9) {
    scales = ctx.AttrFloats("scales");
  } else {
    const size_t scales_at = upsample || ctx.since_version() < 11 ? 1 : 2;
    if (ctx.HasInput(scales_at)) {
      SY_ASSIGN_OR_RETURN(Tensor t, ctx.StaticInput(scales_at, "scales"));
      if (t.element_count() > 0) scales = ToDoubles(t);
    }
    if (!upsample && ctx.since_version() >= 11 && ctx.HasInput(3)) {
      SY_ASSIGN_OR_RETURN(std::vector<int64_t> s, ctx.StaticInts(3, "sizes"));
      if (!s.empty()) sizes = std::move(s);
    }
  }
  // roi (opset 11+ input 1): read by tf_crop_and_resize only, starts then ends of the
  // axes resized.
  std::optional<std::vector<double>> roi;
  if (!upsample && ctx.since_version() >= 11 && ctm == "tf_crop_and_resize") {
    if (!ctx.HasInput(1)) return ctx.Invalid("tf_crop_and_resize needs input roi");
    SY_ASSIGN_OR_RETURN(Tensor t, ctx.StaticInput(1, "roi"));
    roi = ToDoubles(t);
  }
  // opset 18 `axes`: the scales or sizes given are for these axes only.
  if (auto axes = ctx.AttrInts("axes")) {
    std::vector<double> full_scales(static_cast<size_t>(rank), 1.0);
    std::vector<int64_t> full_sizes(shape.begin(), shape.end());
    for (size_t i = 0; i < axes->size(); ++i) {
      Expected<int64_t> a = NormalizeAxis((*axes)[i], rank);
      if (!a.ok()) return ctx.Invalid(a.status().message());
      if (scales && i < scales->size()) full_scales[*a] = (*scales)[i];
      if (sizes && i < sizes->size()) full_sizes[*a] = (*sizes)[i];
    }
    if (scales) scales = full_scales;
    if (sizes) sizes = full_sizes;
    if (roi) {
      if (roi->size() != 2 * axes->size()) {
        return ctx.Invalid("roi has " + std::to_string(roi->size()) + " entries but must have " +
                           std::to_string(2 * axes->size()) + " (a start and an end per axis)");
      }
      std::vector<double> full_roi(static_cast<size_t>(rank), 0.0);
      full_roi.resize(static_cast<size_t>(2 * rank), 1.0);
      for (size_t i = 0; i < axes->size(); ++i) {
        const int64_t a = (*axes)[i] < 0 ? (*axes)[i] + rank : (*axes)[i];
        full_roi[static_cast<size_t>(a)] = (*roi)[i];
        full_roi[static_cast<size_t>(a + rank)] = (*roi)[axes->size() + i];
      }
      roi = std::move(full_roi);
    }
  }
  // opset 18 keep_aspect_ratio_policy: one scale for every axis sized (axes, or all),
  // the smallest (not_larger) or largest (not_smaller) of sizes / dims; the output is
  // round_half_up(scale * dim) and coordinates use the scale (ONNX's reference): the
  // catalogue's resize given both sizes (the output) and scales (the mapping).
  if (policy != "stretch" && sizes) {
    std::vector<int64_t> sized;
    if (auto axes = ctx.AttrInts("axes")) {
      for (int64_t a : *axes) sized.push_back(a < 0 ? a + rank : a);
    } else {
      for (int64_t a = 0; a < rank; ++a) sized.push_back(a);
    }
    std::optional<double> scale;
    for (int64_t a : sized) {
      if (a < 0 || a >= rank || shape[a] <= 0) return ctx.Invalid("axes or sizes out of range");
      const double r = static_cast<double>((*sizes)[a]) / static_cast<double>(shape[a]);
      if (!scale) scale = r;
      scale = policy == "not_larger" ? std::min(*scale, r) : std::max(*scale, r);
    }
    std::vector<double> full(static_cast<size_t>(rank), 1.0);
    for (int64_t a : sized) {
      full[a] = *scale;
      (*sizes)[a] = static_cast<int64_t>(*scale * static_cast<double>(shape[a]) + 0.5);
    }
    scales = full;
  }
  if (ctm != "half_pixel" && ctm != "asymmetric" && ctm != "align_corners" &&
      ctm != "pytorch_half_pixel" && ctm != "tf_half_pixel_for_nn" &&
      ctm != "half_pixel_symmetric" && ctm != "tf_crop_and_resize") {
    return ctx.Invalid("coordinate_transformation_mode '" + ctm +
                       "' is not one of ONNX's (half_pixel half_pixel_symmetric asymmetric "
                       "align_corners pytorch_half_pixel tf_half_pixel_for_nn "
                       "tf_crop_and_resize)");
  }
  Attrs attrs;
  if (sizes) attrs.Set("sizes", *sizes);
  if (scales && (!sizes || policy != "stretch")) attrs.Set("scales", *scales);
  if (!sizes && !scales) return ctx.Invalid("has neither scales nor sizes");
  attrs.Set("mode", mode);
  attrs.Set("coordinate_transformation_mode", ctm);
  attrs.Set("nearest_mode", nearest_mode);
  if (mode == "cubic") attrs.Set("cubic_coeff_a", ctx.AttrFloat("cubic_coeff_a", -0.75));
  if (mode != "nearest") {
    attrs.Set("exclude_outside", ctx.AttrInt("exclude_outside", 0));
    attrs.Set("antialias", antialias);
  }
  if (roi) {
    attrs.Set("roi", *roi);
    attrs.Set("extrapolation_value", ctx.AttrFloat("extrapolation_value", 0.0));
  }
  SY_ASSIGN_OR_RETURN(ValueId out, ctx.Emit1("resize", {x}, std::move(attrs)));
  ctx.SetOutput(0, out);
  return Status::Ok();
}

// GridSample (opset 16; opset 20's N-D form where x is 4-D or 5-D, its `linear` and `cubic`
// spelling bilinear and bicubic) onto the catalogue's grid_sample. A grid of another float
// dtype than x is cast to x's.
Status MapGridSample(NodeContext& ctx) {
  SY_ASSIGN_OR_RETURN(ValueId x, ctx.Input(0));
  SY_ASSIGN_OR_RETURN(ValueId grid, ctx.Input(1));
  const TensorType xt = ctx.TypeOf(x);  // a copy: emitting may move the graph's types
  if (xt.shape.size() != 4 && xt.shape.size() != 5) {
    return ctx.UnsupportedOp("input X of rank " + std::to_string(xt.shape.size()) +
                             " is outside the catalogue (grid_sample takes [N, C, H, W] or "
                             "[N, C, D, H, W])");
  }
  std::string mode = ctx.AttrString("mode", "bilinear");
  if (mode == "linear") mode = "bilinear";  // opset 20 spellings
  if (mode == "cubic") mode = "bicubic";
  if (ctx.TypeOf(grid).dtype != xt.dtype) {
    Attrs cast;
    cast.Set("to", std::string(DTypeName(xt.dtype)));
    SY_ASSIGN_OR_RETURN(grid, ctx.Emit1("cast", {grid}, std::move(cast)));
  }
  Attrs attrs;
  attrs.Set("mode", mode);
  attrs.Set("padding_mode", ctx.AttrString("padding_mode", "zeros"));
  attrs.Set("align_corners", ctx.AttrInt("align_corners", 0));
  SY_ASSIGN_OR_RETURN(ValueId out, ctx.Emit1("grid_sample", {x, grid}, std::move(attrs)));
  ctx.SetOutput(0, out);
  return Status::Ok();
}

}  // namespace

void AddNeuralMappings(MappingTable& table) {
  table.At("MatMul").map = MapMatMul;
  table.At("Gemm").map = MapGemm;
  table.At("Softmax").map = MapSoftmaxFamily;
  table.At("LogSoftmax").map = MapSoftmaxFamily;
  table.At("Hardmax").map = MapSoftmaxFamily;
  table.At("BatchNormalization").map = MapBatchNorm;
  table.At("InstanceNormalization").map = MapStatsNorm;
  table.At("LayerNormalization").map = MapLayerNorm;
  table.At("RMSNormalization").map = MapRmsNorm;
  table.At("SimplifiedLayerNormalization").map = MapRmsNorm;
  table.At("MeanVarianceNormalization").map = MapMvn;
  table.At("LpNormalization").map = MapLpNormalization;
  table.At("GroupNormalization").map = MapGroupNormalization;
  table.At("Resize").map = MapResize;
  table.At("Upsample").map = MapResize;
  table.At("GridSample").map = MapGridSample;
}

}  // namespace sy::onnx_import
