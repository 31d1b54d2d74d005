// Convolutions and pools. ONNX's auto_pad (SAME_UPPER, SAME_LOWER, VALID) and
// ConvTranspose's output_shape are resolved to explicit pads from the static shapes,
// because the catalogue takes explicit pads only.
#include <algorithm>
#include <cmath>
#include <limits>

#include "op_mapping.h"
#include "switchyard/shape.h"

namespace sy::onnx_import {

namespace {

struct Window {
  std::vector<int64_t> kernel, strides, dilations, pads;
  // auto_pad SAME_* on run-time sizes (docs/dynamic-shapes.md): the pads as expressions in
  // the input's sizes, attached to the emitted node; empty otherwise.
  std::vector<DimExpr> pad_exprs;
};

// Spatial parameters with ONNX defaults; pads resolved from auto_pad.
Expected<Window> ResolveWindow(NodeContext& ctx, const Shape& x, std::vector<int64_t> kernel,
                               ValueId x_id) {
  const size_t spatial = x.size() - 2;
  Window w;
  w.kernel = std::move(kernel);
  w.strides = ctx.AttrInts("strides").value_or(std::vector<int64_t>(spatial, 1));
  w.dilations = ctx.AttrInts("dilations").value_or(std::vector<int64_t>(spatial, 1));
  w.pads = ctx.AttrInts("pads").value_or(std::vector<int64_t>(2 * spatial, 0));
  if (w.kernel.size() != spatial || w.strides.size() != spatial || w.dilations.size() != spatial ||
      w.pads.size() != 2 * spatial) {
    return ctx.Invalid("kernel_shape, strides, dilations and pads do not match the input's " +
                       std::to_string(spatial) + " spatial dims");
  }
  const std::string auto_pad = ctx.AttrString("auto_pad", "NOTSET");
  if (auto_pad == "VALID") {
    std::fill(w.pads.begin(), w.pads.end(), 0);
  } else if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
    for (size_t i = 0; i < spatial; ++i) {
      const int64_t in = x[i + 2], s = w.strides[i];
      const int64_t dk = (w.kernel[i] - 1) * w.dilations[i] + 1;
      const int64_t out = s > 0 ? (in + s - 1) / s : 0;
      const int64_t total = std::max<int64_t>(0, (out - 1) * s + dk - in);
      const int64_t small = total / 2, large = total - total / 2;
      w.pads[i] = auto_pad == "SAME_UPPER" ? small : large;
      w.pads[i + spatial] = auto_pad == "SAME_UPPER" ? large : small;
    }
    // The pads depend on the input's size (its parity, with stride 2): with run-time
    // sizes they are computed at specialisation, by the same formula.
    const std::vector<DimExpr> dims = ctx.state().DimsOfValue(x_id);
    bool sized = false;
    for (size_t i = 0; i < spatial; ++i) sized = sized || !dims[i + 2].is_const();
    if (sized) {
      w.pad_exprs.assign(2 * spatial, DimExpr(0));
      for (size_t i = 0; i < spatial; ++i) {
        const DimExpr in = dims[i + 2], s = DimExpr(w.strides[i]);
        const int64_t dk = (w.kernel[i] - 1) * w.dilations[i] + 1;
        const DimExpr total = DimExpr::Binary(DimExpr::Kind::kMax, DimExpr(0),
                                              ((in + s - 1) / s - 1) * s + DimExpr(dk) - in);
        const DimExpr small = total / 2, large = total - total / 2;
        w.pad_exprs[i] = auto_pad == "SAME_UPPER" ? small : large;
        w.pad_exprs[i + spatial] = auto_pad == "SAME_UPPER" ? large : small;
      }
    }
  } else if (auto_pad != "NOTSET") {
    return ctx.Invalid("auto_pad '" + auto_pad +
                       "' is not one of NOTSET SAME_UPPER SAME_LOWER VALID");
  }
  return w;
}

// What Conv and ConvTranspose share: the rank check, the window (auto_pad resolved as
// for a convolution), the inputs, and the strides, dilations and group attributes.
struct ConvParts {
  std::vector<ValueId> inputs;
  Window window;
  Attrs attrs;
};

Expected<ConvParts> ConvCommon(NodeContext& ctx, ValueId x, ValueId w,
                               std::optional<ValueId> bias) {
  const Shape& xs = ctx.TypeOf(x).shape;
  const Shape& ws = ctx.TypeOf(w).shape;
  if (xs.size() < 3 || ws.size() != xs.size()) {
    return ctx.Invalid("needs X and W of equal rank >= 3, not " + ShapeToString(xs) + " and " +
                       ShapeToString(ws));
  }
  ConvParts parts;
  SY_ASSIGN_OR_RETURN(parts.window,
                      ResolveWindow(ctx, xs, std::vector<int64_t>(ws.begin() + 2, ws.end()), x));
  parts.inputs = {x, w};
  if (bias) parts.inputs.push_back(*bias);
  parts.attrs.Set("strides", parts.window.strides);
  parts.attrs.Set("dilations", parts.window.dilations);
  parts.attrs.Set("group", ctx.AttrInt("group", 1));
  return parts;
}

}  // namespace

Expected<ValueId> EmitConv(NodeContext& ctx, ValueId x, ValueId w, std::optional<ValueId> bias) {
  SY_ASSIGN_OR_RETURN(ConvParts parts, ConvCommon(ctx, x, w, bias));
  parts.attrs.Set("pads", parts.window.pads);
  SY_ASSIGN_OR_RETURN(ValueId out, ctx.Emit1("conv", parts.inputs, std::move(parts.attrs)));
  if (!parts.window.pad_exprs.empty()) ctx.AttachAttrExpr("pads", parts.window.pad_exprs);
  return out;
}

Expected<ValueId> EmitQLinearConv(NodeContext& ctx, const std::vector<ValueId>& inputs) {
  SY_ASSIGN_OR_RETURN(ConvParts parts, ConvCommon(ctx, inputs[0], inputs[3], std::nullopt));
  parts.attrs.Set("pads", parts.window.pads);
  SY_ASSIGN_OR_RETURN(ValueId out, ctx.Emit1("qlinear_conv", inputs, std::move(parts.attrs)));
  if (!parts.window.pad_exprs.empty()) ctx.AttachAttrExpr("pads", parts.window.pad_exprs);
  return out;
}

namespace {

Status MapConv(NodeContext& ctx) {
  SY_ASSIGN_OR_RETURN(ValueId x, ctx.Input(0));
  SY_ASSIGN_OR_RETURN(ValueId w, ctx.Input(1));
  std::optional<ValueId> bias;
  if (ctx.HasInput(2)) {
    SY_ASSIGN_OR_RETURN(ValueId b, ctx.Input(2));
    bias = b;
  }
  if (ctx.node().op_type() == "Conv") {
    SY_ASSIGN_OR_RETURN(ValueId out, EmitConv(ctx, x, w, bias));
    ctx.SetOutput(0, out);
    return Status::Ok();
  }
  // ConvTranspose: pads come from its own attributes, or from output_shape / auto_pad.
  SY_ASSIGN_OR_RETURN(ConvParts parts, ConvCommon(ctx, x, w, bias));
  const Shape& xs = ctx.TypeOf(x).shape;
  const Window& win = parts.window;
  Attrs& attrs = parts.attrs;
  std::vector<ValueId>& inputs = parts.inputs;
  const size_t spatial = xs.size() - 2;
  std::vector<int64_t> output_padding =
      ctx.AttrInts("output_padding").value_or(std::vector<int64_t>(spatial, 0));
  std::vector<int64_t> pads = ctx.AttrInts("pads").value_or(std::vector<int64_t>(2 * spatial, 0));
  if (output_padding.size() != spatial || pads.size() != 2 * spatial) {
    return ctx.Invalid("output_padding or pads do not match the spatial dims");
  }
  const std::string auto_pad = ctx.AttrString("auto_pad", "NOTSET");
  std::optional<std::vector<int64_t>> output_shape = ctx.AttrInts("output_shape");
  if (!output_shape && (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER")) {
    output_shape = std::vector<int64_t>(spatial);
    for (size_t i = 0; i < spatial; ++i) (*output_shape)[i] = xs[i + 2] * win.strides[i];
  }
  if (auto_pad == "VALID") std::fill(pads.begin(), pads.end(), 0);
  if (output_shape) {
    // Pads from the input's size: not kept as expressions (yet).
    const std::vector<DimExpr> dims = ctx.state().DimsOfValue(x);
    for (size_t i = 0; i < spatial; ++i) {
      if (!dims[i + 2].is_const()) {
        return ctx.Fail(ImportProblem::kNeedsValue,
                        "ConvTranspose with output_shape or auto_pad SAME on an input whose "
                        "spatial sizes are known only at run time; import with --input-shape "
                        "for a static model");
      }
    }
    // output_shape may list only the spatial dims or the whole shape.
    std::vector<int64_t> spatial_out = *output_shape;
    if (spatial_out.size() == spatial + 2)
      spatial_out.erase(spatial_out.begin(), spatial_out.begin() + 2);
    if (spatial_out.size() != spatial) return ctx.Invalid("output_shape has the wrong length");
    for (size_t i = 0; i < spatial; ++i) {
      const int64_t dk = (win.kernel[i] - 1) * win.dilations[i] + 1;
      int64_t total = win.strides[i] * (xs[i + 2] - 1) + output_padding[i] + dk - spatial_out[i];
      if (total < 0) {  // more output than the kernel covers: extend with output padding
        output_padding[i] += -total;
        total = 0;
      }
      const int64_t small = total / 2, large = total - total / 2;
      pads[i] = auto_pad == "SAME_UPPER" ? small : large;
      pads[i + spatial] = auto_pad == "SAME_UPPER" ? large : small;
    }
  }
  attrs.Set("pads", pads);
  attrs.Set("output_padding", output_padding);
  SY_ASSIGN_OR_RETURN(ValueId out, ctx.Emit1("conv_transpose", inputs, std::move(attrs)));
  ctx.SetOutput(0, out);
  return Status::Ok();
}

// The node's max_pool or avg_pool of `x` (the node's window attributes resolved against
// x's shape), with max_pool's indices as a second output when `with_indices`.
Expected<std::vector<ValueId>> EmitPool(NodeContext& ctx, ValueId x, bool is_max,
                                        bool with_indices) {
  const Shape& xs = ctx.TypeOf(x).shape;
  if (xs.size() < 3) return ctx.Invalid("needs an input of rank >= 3, not " + ShapeToString(xs));
  auto kernel = ctx.AttrInts("kernel_shape");
  if (!kernel) return ctx.Invalid("has no kernel_shape");
  SY_ASSIGN_OR_RETURN(Window win, ResolveWindow(ctx, xs, *kernel, x));
  Attrs attrs;
  attrs.Set("kernel_shape", win.kernel);
  attrs.Set("strides", win.strides);
  attrs.Set("pads", win.pads);
  attrs.Set("dilations", win.dilations);
  attrs.Set("ceil_mode", ctx.AttrInt("ceil_mode", 0));
  if (!is_max) attrs.Set("count_include_pad", ctx.AttrInt("count_include_pad", 0));
  if (with_indices) attrs.Set("storage_order", ctx.AttrInt("storage_order", 0));
  SY_ASSIGN_OR_RETURN(std::vector<ValueId> outs, ctx.Emit(is_max ? "max_pool" : "avg_pool", {x},
                                                          std::move(attrs), with_indices ? 2 : 1));
  if (!win.pad_exprs.empty()) ctx.AttachAttrExpr("pads", win.pad_exprs);
  return outs;
}

Status MapPool(NodeContext& ctx) {
  const bool is_max = ctx.node().op_type() == "MaxPool";
  const bool with_indices = is_max && ctx.OutputWanted(1);
  SY_ASSIGN_OR_RETURN(ValueId x, ctx.Input(0));
  // MaxPool-12 on 8- and 16-bit integers: in f32, which holds each of their values
  // exactly (a maximum picks one of them; no window is all padding).
  const DType dtype = ctx.TypeOf(x).dtype;
  const bool small_int =
      dtype == DType::kI8 || dtype == DType::kU8 || dtype == DType::kI16 || dtype == DType::kU16;
  if (is_max && small_int) {
    SY_ASSIGN_OR_RETURN(x, CastTo(ctx, x, DType::kF32));
  }
  SY_ASSIGN_OR_RETURN(std::vector<ValueId> outs, EmitPool(ctx, x, is_max, with_indices));
  ValueId out = outs[0];
  if (is_max && small_int) {
    SY_ASSIGN_OR_RETURN(out, CastTo(ctx, out, dtype));
  }
  ctx.SetOutput(0, out);
  if (with_indices) ctx.SetOutput(1, outs[1]);
  return Status::Ok();
}

// DeformConv (19, 22; 2-D) onto the catalogue's deform_conv; a mask without a bias gets
// a zero bias (the catalogue's optional inputs end where the first one is absent).
Status MapDeformConv(NodeContext& ctx) {
  std::vector<ValueId> inputs;
  for (size_t i = 0; i < 3; ++i) {
    SY_ASSIGN_OR_RETURN(ValueId v, ctx.Input(i));
    inputs.push_back(v);
  }
  const TensorType xt = ctx.TypeOf(inputs[0]);
  const TensorType wt = ctx.TypeOf(inputs[1]);
  if (xt.shape.size() != 4) {
    return ctx.UnsupportedOp("input X of rank " + std::to_string(xt.shape.size()) +
                             " is outside the catalogue (deform_conv is 2-D)");
  }
  if (auto k = ctx.AttrInts("kernel_shape");
      k && (k->size() != 2 || (*k)[0] != wt.shape[2] || (*k)[1] != wt.shape[3])) {
    return ctx.Invalid("kernel_shape differs from W's kernel dims");
  }
  if (ctx.HasInput(3) || ctx.HasInput(4)) {
    ValueId bias = -1;
    if (ctx.HasInput(3)) {
      SY_ASSIGN_OR_RETURN(bias, ctx.Input(3));
    } else {
      SY_ASSIGN_OR_RETURN(bias, ctx.Scalar(xt.dtype, 0, {wt.shape[0]}));
    }
    inputs.push_back(bias);
  }
  if (ctx.HasInput(4)) {
    SY_ASSIGN_OR_RETURN(ValueId mask, ctx.Input(4));
    inputs.push_back(mask);
  }
  Attrs attrs;
  attrs.Set("strides", ctx.AttrInts("strides").value_or(std::vector<int64_t>{1, 1}));
  attrs.Set("pads", ctx.AttrInts("pads").value_or(std::vector<int64_t>{0, 0, 0, 0}));
  attrs.Set("dilations", ctx.AttrInts("dilations").value_or(std::vector<int64_t>{1, 1}));
  attrs.Set("group", ctx.AttrInt("group", 1));
  attrs.Set("offset_group", ctx.AttrInt("offset_group", 1));
  SY_ASSIGN_OR_RETURN(ValueId out, ctx.Emit1("deform_conv", inputs, std::move(attrs)));
  ctx.SetOutput(0, out);
  return Status::Ok();
}

// RoiAlign (10, 16) onto the catalogue's roi_align. Opset 10 has no
// coordinate_transformation_mode and computes as output_half_pixel; 16 defaults to
// half_pixel.
Status MapRoiAlign(NodeContext& ctx) {
  std::vector<ValueId> inputs;
  for (size_t i = 0; i < 3; ++i) {
    SY_ASSIGN_OR_RETURN(ValueId v, ctx.Input(i));
    inputs.push_back(v);
  }
  SY_ASSIGN_OR_RETURN(inputs[1], CastTo(ctx, inputs[1], ctx.TypeOf(inputs[0]).dtype));
  Attrs attrs;
  attrs.Set("mode", ctx.AttrString("mode", "avg"));
  attrs.Set("output_height", ctx.AttrInt("output_height", 1));
  attrs.Set("output_width", ctx.AttrInt("output_width", 1));
  attrs.Set("sampling_ratio", ctx.AttrInt("sampling_ratio", 0));
  attrs.Set("spatial_scale", ctx.AttrFloat("spatial_scale", 1.0));
  attrs.Set("coordinate_transformation_mode",
            ctx.since_version() >= 16
                ? ctx.AttrString("coordinate_transformation_mode", "half_pixel")
                : std::string("output_half_pixel"));
  SY_ASSIGN_OR_RETURN(ValueId out, ctx.Emit1("roi_align", inputs, std::move(attrs)));
  ctx.SetOutput(0, out);
  return Status::Ok();
}

// LpPool: (sum over the window of |x|^p)^(1/p), as an average pool of |x|^p that counts
// the padding (zeros) times the kernel's volume.
Status MapLpPool(NodeContext& ctx) {
  SY_ASSIGN_OR_RETURN(ValueId x, ctx.Input(0));
  const TensorType type = ctx.TypeOf(x);
  if (type.shape.size() < 3) {
    return ctx.Invalid("needs an input of rank >= 3, not " + ShapeToString(type.shape));
  }
  auto kernel = ctx.AttrInts("kernel_shape");
  if (!kernel) return ctx.Invalid("has no kernel_shape");
  // LpPool-1's p is a float; later versions' an int.
  const double p =
      ctx.since_version() < 2 ? ctx.AttrFloat("p", 2.0) : static_cast<double>(ctx.AttrInt("p", 2));
  if (!(p > 0) || !std::isfinite(p)) return ctx.Invalid("p must be positive");
  SY_ASSIGN_OR_RETURN(Window win, ResolveWindow(ctx, type.shape, *kernel, x));
  double volume = 1;
  for (int64_t k : win.kernel) volume *= static_cast<double>(k);
  ValueId powered;
  if (p == 2) {
    SY_ASSIGN_OR_RETURN(powered, ctx.Emit1("mul", {x, x}));
  } else {
    SY_ASSIGN_OR_RETURN(ValueId a, ctx.Emit1("abs", {x}));
    powered = a;
    if (p != 1) {
      SY_ASSIGN_OR_RETURN(ValueId e, ctx.Scalar(type.dtype, p));
      SY_ASSIGN_OR_RETURN(powered, ctx.Emit1("pow", {a, e}));
    }
  }
  Attrs attrs;
  attrs.Set("kernel_shape", win.kernel);
  attrs.Set("strides", win.strides);
  attrs.Set("pads", win.pads);
  attrs.Set("dilations", win.dilations);
  attrs.Set("ceil_mode", ctx.AttrInt("ceil_mode", 0));
  attrs.Set("count_include_pad", int64_t{1});
  SY_ASSIGN_OR_RETURN(ValueId avg, ctx.Emit1("avg_pool", {powered}, std::move(attrs)));
  if (!win.pad_exprs.empty()) ctx.AttachAttrExpr("pads", win.pad_exprs);
  SY_ASSIGN_OR_RETURN(ValueId n, ctx.Scalar(type.dtype, volume));
  SY_ASSIGN_OR_RETURN(ValueId out, ctx.Emit1("mul", {avg, n}));
  if (p == 2) {
    SY_ASSIGN_OR_RETURN(out, ctx.Emit1("sqrt", {out}));
  } else if (p != 1) {
    SY_ASSIGN_OR_RETURN(ValueId inv, ctx.Scalar(type.dtype, 1.0 / p));
    SY_ASSIGN_OR_RETURN(out, ctx.Emit1("pow", {out, inv}));
  }
  ctx.SetOutput(0, out);
  return Status::Ok();
}

// CausalConvWithState (opset 27): a depthwise conv1d over the past state (or k - 1 zeros)
// followed by the input, `silu` when asked; the new state the last k - 1 steps of that.
Status MapCausalConvWithState(NodeContext& ctx) {
  SY_ASSIGN_OR_RETURN(ValueId x, ctx.Input(0));
  SY_ASSIGN_OR_RETURN(ValueId w, ctx.Input(1));
  const Shape xs = ctx.TypeOf(x).shape;
  const Shape ws = ctx.TypeOf(w).shape;
  if (xs.size() != 3 || ws.size() != 3 || ws[1] != 1 || ws[0] != xs[1] || ws[2] < 1) {
    return ctx.Invalid("needs input [B, C, L] and weight [C, 1, k], not " + ShapeToString(xs) +
                       " and " + ShapeToString(ws));
  }
  const int64_t k = ws[2];
  const std::string activation = ctx.AttrString("activation", "none");
  if (activation != "none" && activation != "silu" && activation != "swish") {
    return ctx.Invalid("activation must be none, silu or swish, not '" + activation + "'");
  }
  ValueId padded = x;
  if (ctx.HasInput(3)) {
    SY_ASSIGN_OR_RETURN(ValueId past, ctx.Input(3));
    Attrs cat;
    cat.Set("axis", int64_t{2});
    SY_ASSIGN_OR_RETURN(padded, ctx.Emit1("concat", {past, x}, std::move(cat)));
  } else if (k > 1) {
    Attrs pad;
    pad.Set("pads", std::vector<int64_t>{0, 0, k - 1, 0, 0, 0});
    SY_ASSIGN_OR_RETURN(padded, ctx.Emit1("pad", {x}, std::move(pad)));
  }
  std::vector<ValueId> inputs{padded, w};
  if (ctx.HasInput(2)) {
    SY_ASSIGN_OR_RETURN(ValueId bias, ctx.Input(2));
    inputs.push_back(bias);
  }
  Attrs conv;
  conv.Set("group", xs[1]);
  SY_ASSIGN_OR_RETURN(ValueId out, ctx.Emit1("conv", std::move(inputs), std::move(conv)));
  if (activation != "none") {
    SY_ASSIGN_OR_RETURN(out, ctx.Emit1("silu", {out}));
  }
  ctx.SetOutput(0, out);
  if (ctx.num_outputs() > 1 && ctx.OutputWanted(1)) {
    // The last k - 1 steps; k = 1 leaves an empty state (a slice from the end to the end).
    constexpr int64_t kEnd = std::numeric_limits<int64_t>::max();
    Attrs tail;
    tail.Set("starts", std::vector<int64_t>{k > 1 ? -(k - 1) : kEnd});
    tail.Set("ends", std::vector<int64_t>{kEnd});
    tail.Set("axes", std::vector<int64_t>{2});
    SY_ASSIGN_OR_RETURN(ValueId state, ctx.Emit1("slice", {padded}, std::move(tail)));
    ctx.SetOutput(1, state);
  }
  return Status::Ok();
}

Status MapGlobalPool(NodeContext& ctx) {
  SY_ASSIGN_OR_RETURN(ValueId x, ctx.Input(0));
  if (ctx.node().op_type() == "GlobalAveragePool") {
    SY_ASSIGN_OR_RETURN(ValueId out, ctx.Emit1("global_avg_pool", {x}));
    ctx.SetOutput(0, out);
    return Status::Ok();
  }
  const TensorType type = ctx.TypeOf(x);
  const int64_t rank = static_cast<int64_t>(type.shape.size());
  std::vector<int64_t> axes;
  for (int64_t d = 2; d < rank; ++d) axes.push_back(d);
  Attrs attrs;
  attrs.Set("axes", axes);
  attrs.Set("keepdims", int64_t{1});
  if (ctx.node().op_type() == "GlobalMaxPool") {
    SY_ASSIGN_OR_RETURN(ValueId out, ctx.Emit1("reduce_max", {x}, std::move(attrs)));
    ctx.SetOutput(0, out);
    return Status::Ok();
  }
  // GlobalLpPool: (sum over the spatial dims of |x|^p)^(1/p).
  const double p =
      ctx.since_version() < 2 ? ctx.AttrFloat("p", 2.0) : static_cast<double>(ctx.AttrInt("p", 2));
  if (!(p > 0) || !std::isfinite(p)) return ctx.Invalid("p must be positive");
  SY_ASSIGN_OR_RETURN(ValueId a, ctx.Emit1("abs", {x}));
  SY_ASSIGN_OR_RETURN(ValueId e, ctx.Scalar(type.dtype, p));
  SY_ASSIGN_OR_RETURN(ValueId powered, ctx.Emit1("pow", {a, e}));
  SY_ASSIGN_OR_RETURN(ValueId sum, ctx.Emit1("reduce_sum", {powered}, std::move(attrs)));
  SY_ASSIGN_OR_RETURN(ValueId inv, ctx.Scalar(type.dtype, 1.0 / p));
  SY_ASSIGN_OR_RETURN(ValueId out, ctx.Emit1("pow", {sum, inv}));
  ctx.SetOutput(0, out);
  return Status::Ok();
}

// LRN: y = x / (bias + alpha / size * sum over a window of `size` channels of x^2)^beta.
// The channel window sum is a convolution of x^2, viewed as [N, 1, C, rest], with a
// [1, 1, size, 1] kernel of ones.
Status MapLrn(NodeContext& ctx) {
  SY_ASSIGN_OR_RETURN(ValueId x, ctx.Input(0));
  const TensorType type = ctx.TypeOf(x);
  if (type.shape.size() < 3) return ctx.Invalid("needs an input of rank >= 3");
  const int64_t size = ctx.AttrInt("size", 0);
  if (size <= 0) return ctx.Invalid("size must be positive");
  const double alpha = ctx.AttrFloat("alpha", 1e-4), beta = ctx.AttrFloat("beta", 0.75),
               bias = ctx.AttrFloat("bias", 1.0);
  const int64_t n = type.shape[0], c = type.shape[1];
  const int64_t rest = ElementCount(std::span(type.shape).subspan(2));
  SY_ASSIGN_OR_RETURN(ValueId sq, ctx.Emit1("mul", {x, x}));
  Attrs view;
  view.Set("shape", std::vector<int64_t>{n, 1, c, rest});
  SY_ASSIGN_OR_RETURN(ValueId sq4, ctx.Emit1("reshape", {sq}, std::move(view)));
  SY_ASSIGN_OR_RETURN(ValueId ones, ctx.Scalar(type.dtype, 1.0, {1, 1, size, 1}));
  Attrs conv;
  conv.Set("pads", std::vector<int64_t>{(size - 1) / 2, 0, size - 1 - (size - 1) / 2, 0});
  SY_ASSIGN_OR_RETURN(ValueId sum4, ctx.Emit1("conv", {sq4, ones}, std::move(conv)));
  Attrs back;
  back.Set("shape", std::vector<int64_t>(type.shape.begin(), type.shape.end()));
  SY_ASSIGN_OR_RETURN(ValueId sum, ctx.Emit1("reshape", {sum4}, std::move(back)));
  SY_ASSIGN_OR_RETURN(ValueId scale, ctx.Scalar(type.dtype, alpha / static_cast<double>(size)));
  SY_ASSIGN_OR_RETURN(ValueId b, ctx.Scalar(type.dtype, bias));
  SY_ASSIGN_OR_RETURN(ValueId p, ctx.Scalar(type.dtype, beta));
  SY_ASSIGN_OR_RETURN(ValueId scaled, ctx.Emit1("mul", {sum, scale}));
  SY_ASSIGN_OR_RETURN(ValueId based, ctx.Emit1("add", {scaled, b}));
  SY_ASSIGN_OR_RETURN(ValueId denom, ctx.Emit1("pow", {based, p}));
  SY_ASSIGN_OR_RETURN(ValueId out, ctx.Emit1("div", {x, denom}));
  ctx.SetOutput(0, out);
  return Status::Ok();
}

}  // namespace

Expected<ValueId> EmitAveragePool(NodeContext& ctx, ValueId x) {
  SY_ASSIGN_OR_RETURN(std::vector<ValueId> outs, EmitPool(ctx, x, false, false));
  return outs[0];
}

void AddConvPoolMappings(MappingTable& table) {
  table.At("Conv").map = MapConv;
  table.At("ConvTranspose").map = MapConv;
  table.At("MaxPool").map = MapPool;
  table.At("RoiAlign").map = MapRoiAlign;
  table.At("DeformConv").map = MapDeformConv;
  table.At("AveragePool").map = MapPool;
  table.At("LpPool").map = MapLpPool;
  table.At("GlobalAveragePool").map = MapGlobalPool;
  table.At("GlobalMaxPool").map = MapGlobalPool;
  table.At("GlobalLpPool").map = MapGlobalPool;
  table.At("LRN").map = MapLrn;
  table.At("CausalConvWithState").map = MapCausalConvWithState;
}

}  // namespace sy::onnx_import
