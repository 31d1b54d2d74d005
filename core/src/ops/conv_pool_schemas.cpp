// Convolution and pooling ops of the catalogue (spec/ops.md, "Neural network"): conv and
// conv_transpose over [N, C, spatial...] with 1 to 3 spatial dims, max_pool and avg_pool
// with explicit pads (ONNX order: all begins, then all ends) and ceil_mode, and
// global_avg_pool (auto_pad is not part of the catalogue); and the extensions deform_conv
// (ONNX DeformConv, 2-D) and roi_align (ONNX RoiAlign).
#include <cmath>
#include <string>

#include "ops/op_families.h"
#include "ops/shape_rule_helpers.h"

namespace sy::ops {
namespace {

constexpr DTypeSet kF = DTypeSet::Float();

AttrSpec Int(std::string_view name, int64_t value) { return {name, AttrKind::kInt, value}; }
AttrSpec Flag(std::string_view name) { return {name, AttrKind::kInt, int64_t{0}}; }
AttrSpec OptionalInts(std::string_view name) { return {name, AttrKind::kInts, std::nullopt}; }

std::string Str(int64_t v) { return std::to_string(v); }

// A 0/1 attribute (ceil_mode, count_include_pad): anything else is an error naming it.
Status RequireFlag(const Attrs& attrs, std::string_view name) {
  const int64_t v = attrs.GetInt(name);
  if (v == 0 || v == 1) return Status::Ok();
  return AttrError(name, "is " + Str(v) + " but must be 0 or 1");
}

// An optional ints attribute of `size` entries, each >= min_value; `fill` everywhere when
// absent. `what` says what the entries stand for, for the length message.
Expected<std::vector<int64_t>> ReadList(const Attrs& attrs, std::string_view name, size_t size,
                                        int64_t fill, int64_t min_value, std::string_view what) {
  if (!attrs.Has(name)) return std::vector<int64_t>(size, fill);
  std::vector<int64_t> values = attrs.GetInts(name);
  if (values.size() != size) {
    return AttrError(name, "has " + std::to_string(values.size()) + " entries but must have " +
                               std::to_string(size) + " (" + std::string(what) + ")");
  }
  for (size_t i = 0; i < size; ++i) {
    if (values[i] < min_value) {
      return AttrError(name, "has " + Str(values[i]) + " at index " + std::to_string(i) +
                                 " but every entry must be >= " + Str(min_value));
    }
  }
  return values;
}

// The window attributes shared by conv, conv_transpose and the pools, read for `spatial`
// spatial dims.
struct Window {
  std::vector<int64_t> strides, pads, dilations;
};

Expected<Window> ReadWindow(const Attrs& attrs, size_t spatial) {
  Window w;
  const std::string per_dim = "one per spatial dimension of input x";
  const std::string per_side = "a begin and an end for each spatial dimension of input x";
  SY_ASSIGN_OR_RETURN(w.strides, ReadList(attrs, "strides", spatial, 1, 1, per_dim));
  SY_ASSIGN_OR_RETURN(w.pads, ReadList(attrs, "pads", 2 * spatial, 0, 0, per_side));
  SY_ASSIGN_OR_RETURN(w.dilations, ReadList(attrs, "dilations", spatial, 1, 1, per_dim));
  return w;
}

Status TooLarge(size_t dim) {
  return InvalidModel("output spatial dimension " + std::to_string(dim) +
                      " overflows: the attributes or input shapes are too large");
}

// The dilated extent (k - 1) * dilation + 1 of a kernel of k >= 1 taps.
Expected<int64_t> Extent(int64_t k, int64_t dilation, size_t dim) {
  int64_t extent = 0;
  if (__builtin_mul_overflow(k - 1, dilation, &extent) ||
      __builtin_add_overflow(extent, 1, &extent)) {
    return TooLarge(dim);
  }
  return extent;
}

// An empty output dim is legal only when the input dim is empty too.
Status RequireOutputDim(int64_t out, int64_t in, size_t dim, const std::string& why) {
  if (out >= 1 || (out == 0 && in == 0)) return Status::Ok();
  return InvalidModel("output spatial dimension " + std::to_string(dim) + " would be " + Str(out) +
                      ": " + why);
}

// Sliding-window output size (conv, pools): floor or ceil((in + pads - extent) / stride) + 1;
// with ceil_mode a last window that would start in the right padding is dropped.
Expected<int64_t> SlidingDim(int64_t in, int64_t k, const Window& w, size_t dim, size_t spatial,
                             bool ceil_mode, std::string_view kernel_source) {
  SY_ASSIGN_OR_RETURN(const int64_t extent, Extent(k, w.dilations[dim], dim));
  const int64_t pad_b = w.pads[dim];
  const int64_t pad_e = w.pads[spatial + dim];
  int64_t padded = 0;
  if (__builtin_add_overflow(in, pad_b, &padded) ||
      __builtin_add_overflow(padded, pad_e, &padded)) {
    return TooLarge(dim);
  }
  const int64_t span = padded - extent;  // both in [0, 2^63): cannot overflow
  const int64_t stride = w.strides[dim];
  int64_t steps = span / stride;  // truncates toward zero; fix up to floor or ceil
  if (span % stride != 0 && (span < 0) != ceil_mode) steps += ceil_mode ? 1 : -1;
  int64_t out = steps + 1;
  int64_t last_start = 0;  // of the last window, relative to the left padding's start
  if (ceil_mode && out >= 1 &&
      (__builtin_mul_overflow(out - 1, stride, &last_start) || last_start >= in + pad_b)) {
    --out;
  }
  SY_RETURN_IF_ERROR(RequireOutputDim(out, in, dim,
                                      "input x's spatial size " + Str(in) + " with pads " +
                                          Str(pad_b) + " + " + Str(pad_e) +
                                          " is smaller than the " + std::string(kernel_source) +
                                          " kernel size " + Str(k) + " dilated to " + Str(extent)));
  return out;
}

// x [N, C, spatial...] with 1 to 3 spatial dims (conv, conv_transpose).
Status RequireConvInput(const TensorType& x) {
  if (x.rank() >= 3 && x.rank() <= 5) return Status::Ok();
  return InvalidModel("input x has shape " + ShapeToString(x.shape) +
                      " but must have rank 3, 4 or 5 ([N, C] and 1 to 3 spatial dims)");
}

// The checks conv, conv_transpose, deform_conv and qlinear_conv share: w's rank and kernel
// dims, group, bias (input `bias_index` when present). `w_in_dim` is the dim of w that
// holds x's channels (1 for conv, 0 for conv_transpose); w is input `w_index`.
Status CheckConvOperands(const InferContext& ctx, int64_t w_in_dim, int64_t group,
                         int64_t out_channels, size_t bias_index = 2, size_t w_index = 1) {
  const TensorType& x = ctx.input(0);
  const TensorType& w = ctx.input(w_index);
  const int64_t channels = x.shape[1];
  if (w.rank() != x.rank()) {
    return InvalidModel("input w has shape " + ShapeToString(w.shape) + " but must have rank " +
                        Str(x.rank()) + " like input x " + ShapeToString(x.shape));
  }
  if (group < 1) return AttrError("group", "is " + Str(group) + " but must be >= 1");
  if (channels % group != 0) {
    return AttrError("group", "is " + Str(group) + " but must divide input x's channels (" +
                                  Str(channels) + ")");
  }
  const int64_t expected_in = w_in_dim == 1 ? channels / group : channels;
  if (w.shape[w_in_dim] != expected_in) {
    return InvalidModel("input w has shape " + ShapeToString(w.shape) + " but its dimension " +
                        Str(w_in_dim) + " (" + Str(w.shape[w_in_dim]) +
                        ") must equal input x's channels (" + Str(channels) + ")" +
                        (w_in_dim == 1 ? " / group (" + Str(group) + ")" : ""));
  }
  if (w_in_dim == 1 && out_channels % group != 0) {
    return InvalidModel("input w has shape " + ShapeToString(w.shape) + " but its dimension 0 (" +
                        Str(out_channels) + ", the output channels) must be divisible by group (" +
                        Str(group) + ")");
  }
  for (int64_t d = 2; d < w.rank(); ++d) {
    if (w.shape[d] < 1) {
      return InvalidModel("input w has shape " + ShapeToString(w.shape) +
                          " but its kernel dimension " + Str(d) + " must be at least 1");
    }
  }
  if (ctx.num_inputs() > bias_index && ctx.input(bias_index).shape != Shape{out_channels}) {
    return InvalidModel("input bias has shape " + ShapeToString(ctx.input(bias_index).shape) +
                        " but must be [" + Str(out_channels) + "] (one entry per output channel)");
  }
  return Status::Ok();
}

}  // namespace

// conv's output for w at input `w_index` and bias at `bias_index` (qlinear_conv's are
// elsewhere): x's dtype, [N, M, out...].
Expected<std::vector<TensorType>> InferConvWith(const InferContext& ctx, size_t w_index,
                                                size_t bias_index) {
  const TensorType& x = ctx.input(0);
  SY_RETURN_IF_ERROR(RequireConvInput(x));
  const TensorType& w = ctx.input(w_index);
  const int64_t group = ctx.attrs.GetInt("group");
  const int64_t out_channels = w.rank() > 0 ? w.shape[0] : 0;
  SY_RETURN_IF_ERROR(CheckConvOperands(ctx, 1, group, out_channels, bias_index, w_index));
  const size_t spatial = x.shape.size() - 2;
  SY_ASSIGN_OR_RETURN(const Window win, ReadWindow(ctx.attrs, spatial));
  Shape out = {x.shape[0], out_channels};
  for (size_t i = 0; i < spatial; ++i) {
    SY_ASSIGN_OR_RETURN(const int64_t dim, SlidingDim(x.shape[2 + i], w.shape[2 + i], win, i,
                                                      spatial, false, "input w's"));
    out.push_back(dim);
  }
  return std::vector<TensorType>{{x.dtype, std::move(out)}};
}

Expected<std::vector<TensorType>> InferConv(const InferContext& ctx) {
  return InferConvWith(ctx, 1, 2);
}

namespace {

// qlinear_conv (ONNX QLinearConv): x, x_scale, x_zero_point, w, w_scale, w_zero_point,
// y_scale, y_zero_point[, bias]. conv's shapes for x, w and bias; x's and y's scale and
// zero point are scalars ([] or [1]), w's a scalar or one per output channel ([M]); the
// output has y_zero_point's dtype.
Expected<std::vector<TensorType>> InferQLinearConv(const InferContext& ctx) {
  SY_ASSIGN_OR_RETURN(std::vector<TensorType> out, InferConvWith(ctx, 3, 8));
  const int64_t out_channels = ctx.input(3).shape[0];
  const auto check = [&](size_t index, std::string_view name, bool per_channel) -> Status {
    const Shape& z = ctx.input(index).shape;
    if (z.empty() || (z.size() == 1 && (z[0] == 1 || (per_channel && z[0] == out_channels)))) {
      return Status::Ok();
    }
    return InvalidModel(
        "input " + std::string(name) + " has shape " + ShapeToString(z) +
        " but must be a scalar ([] or [1])" +
        (per_channel ? " or one per output channel ([" + Str(out_channels) + "])" : std::string()));
  };
  SY_RETURN_IF_ERROR(check(1, "x_scale", false));
  SY_RETURN_IF_ERROR(check(2, "x_zero_point", false));
  SY_RETURN_IF_ERROR(check(4, "w_scale", true));
  SY_RETURN_IF_ERROR(check(5, "w_zero_point", true));
  SY_RETURN_IF_ERROR(check(6, "y_scale", false));
  SY_RETURN_IF_ERROR(check(7, "y_zero_point", false));
  out[0].dtype = ctx.input(7).dtype;
  return out;
}

Expected<std::vector<TensorType>> InferConvTranspose(const InferContext& ctx) {
  const TensorType& x = ctx.input(0);
  SY_RETURN_IF_ERROR(RequireConvInput(x));
  const TensorType& w = ctx.input(1);
  const int64_t group = ctx.attrs.GetInt("group");
  int64_t out_channels = 0;
  if (w.rank() >= 2 && __builtin_mul_overflow(w.shape[1], group, &out_channels)) {
    return AttrError("group", "is " + Str(group) + " which overflows the output channels");
  }
  SY_RETURN_IF_ERROR(CheckConvOperands(ctx, 0, group, out_channels));
  const size_t spatial = x.shape.size() - 2;
  SY_ASSIGN_OR_RETURN(const Window win, ReadWindow(ctx.attrs, spatial));
  SY_ASSIGN_OR_RETURN(
      const std::vector<int64_t> output_padding,
      ReadList(ctx.attrs, "output_padding", spatial, 0, 0, "one per spatial dimension of input x"));
  Shape out = {x.shape[0], out_channels};
  for (size_t i = 0; i < spatial; ++i) {
    const int64_t stride = win.strides[i];
    const int64_t dilation = win.dilations[i];
    if (output_padding[i] >= stride && output_padding[i] >= dilation) {
      return AttrError("output_padding", "has " + Str(output_padding[i]) + " at index " +
                                             std::to_string(i) +
                                             " but must be less than strides (" + Str(stride) +
                                             ") or dilations (" + Str(dilation) + ")");
    }
    const int64_t in = x.shape[2 + i];
    SY_ASSIGN_OR_RETURN(const int64_t extent, Extent(w.shape[2 + i], dilation, i));
    // stride * (in - 1) + output_padding + extent - pad_begin - pad_end
    int64_t dim = 0;
    if (__builtin_mul_overflow(stride, in - 1, &dim) ||
        __builtin_add_overflow(dim, output_padding[i], &dim) ||
        __builtin_add_overflow(dim, extent, &dim) ||
        __builtin_sub_overflow(dim, win.pads[i], &dim) ||
        __builtin_sub_overflow(dim, win.pads[spatial + i], &dim)) {
      return TooLarge(i);
    }
    SY_RETURN_IF_ERROR(RequireOutputDim(
        dim, in, i,
        "the transposed convolution of input x's spatial size " + Str(in) + " produces " +
            Str(dim + win.pads[i] + win.pads[spatial + i]) + " elements before pads " +
            Str(win.pads[i]) + " + " + Str(win.pads[spatial + i]) + " are removed"));
    out.push_back(dim);
  }
  return std::vector<TensorType>{{x.dtype, std::move(out)}};
}

Expected<std::vector<TensorType>> InferPool(const InferContext& ctx) {
  const TensorType& x = ctx.input(0);
  SY_RETURN_IF_ERROR(RequireMinRank(x, "x", 3));
  const size_t spatial = x.shape.size() - 2;
  SY_ASSIGN_OR_RETURN(const std::vector<int64_t> kernel,
                      ReadList(ctx.attrs, "kernel_shape", spatial, 1, 1,
                               "one per spatial dimension of input x " + ShapeToString(x.shape)));
  SY_ASSIGN_OR_RETURN(const Window win, ReadWindow(ctx.attrs, spatial));
  SY_RETURN_IF_ERROR(RequireFlag(ctx.attrs, "ceil_mode"));
  if (ctx.attrs.Has("count_include_pad")) {
    SY_RETURN_IF_ERROR(RequireFlag(ctx.attrs, "count_include_pad"));
  }
  const bool ceil_mode = ctx.attrs.GetInt("ceil_mode") == 1;
  Shape out = {x.shape[0], x.shape[1]};
  for (size_t i = 0; i < spatial; ++i) {
    // A window entirely inside the padding would have nothing to pool.
    SY_ASSIGN_OR_RETURN(const int64_t extent, Extent(kernel[i], win.dilations[i], i));
    for (const size_t p : {i, spatial + i}) {
      if (win.pads[p] >= extent) {
        return AttrError("pads", "has " + Str(win.pads[p]) + " at index " + std::to_string(p) +
                                     " but must be less than the dilated kernel size " +
                                     Str(extent) + " of spatial dimension " + std::to_string(i));
      }
    }
    SY_ASSIGN_OR_RETURN(const int64_t dim, SlidingDim(x.shape[2 + i], kernel[i], win, i, spatial,
                                                      ceil_mode, "attribute kernel_shape's"));
    out.push_back(dim);
  }
  if (ctx.attrs.Has("storage_order")) SY_RETURN_IF_ERROR(RequireFlag(ctx.attrs, "storage_order"));
  if (ctx.num_outputs == 2) {  // max_pool's indices (extension, docs/ops.md)
    return std::vector<TensorType>{{x.dtype, out}, {DType::kI64, out}};
  }
  return std::vector<TensorType>{{x.dtype, std::move(out)}};
}

Expected<std::vector<TensorType>> InferGlobalPool(const InferContext& ctx) {
  const TensorType& x = ctx.input(0);
  SY_RETURN_IF_ERROR(RequireMinRank(x, "x", 3));
  Shape out(x.shape.size(), 1);
  out[0] = x.shape[0];
  out[1] = x.shape[1];
  return std::vector<TensorType>{{x.dtype, std::move(out)}};
}

// deform_conv: x [N, C, H, W], w [oC, C / group, kH, kW], offset [N, offset_group * 2 *
// kH * kW, oH, oW], bias [oC], mask [N, offset_group * kH * kW, oH, oW] -> [N, oC, oH, oW]
// (oH, oW as conv's).
Expected<std::vector<TensorType>> InferDeformConv(const InferContext& ctx) {
  const TensorType& x = ctx.input(0);
  const TensorType& w = ctx.input(1);
  SY_RETURN_IF_ERROR(RequireRank(x, "x", 4));
  const int64_t group = ctx.attrs.GetInt("group");
  const int64_t out_channels = w.rank() > 0 ? w.shape[0] : 0;
  SY_RETURN_IF_ERROR(CheckConvOperands(ctx, 1, group, out_channels, 3));
  SY_ASSIGN_OR_RETURN(const Window win, ReadWindow(ctx.attrs, 2));
  Shape out = {x.shape[0], out_channels};
  for (size_t i = 0; i < 2; ++i) {
    SY_ASSIGN_OR_RETURN(const int64_t dim,
                        SlidingDim(x.shape[2 + i], w.shape[2 + i], win, i, 2, false, "input w's"));
    out.push_back(dim);
  }
  const int64_t og = ctx.attrs.GetInt("offset_group");
  if (og < 1 || x.shape[1] % og != 0) {
    return AttrError("offset_group", "is " + Str(og) +
                                         " but must be >= 1 and divide input x's "
                                         "channels (" +
                                         Str(x.shape[1]) + ")");
  }
  const int64_t taps = w.shape[2] * w.shape[3];
  const Shape offset_shape = {x.shape[0], og * 2 * taps, out[2], out[3]};
  if (ctx.input(2).shape != offset_shape) {
    return InvalidModel("input offset has shape " + ShapeToString(ctx.input(2).shape) +
                        " but must be " + ShapeToString(offset_shape) +
                        " ([N, offset_group * 2 * kH * kW, oH, oW])");
  }
  if (ctx.num_inputs() > 4) {
    const Shape mask_shape = {x.shape[0], og * taps, out[2], out[3]};
    if (ctx.input(4).shape != mask_shape) {
      return InvalidModel("input mask has shape " + ShapeToString(ctx.input(4).shape) +
                          " but must be " + ShapeToString(mask_shape) +
                          " ([N, offset_group * kH * kW, oH, oW])");
    }
  }
  return std::vector<TensorType>{{x.dtype, std::move(out)}};
}

// roi_align: x [N, C, H, W], rois [R, 4], batch_indices [R] -> [R, C, output_height,
// output_width].
Expected<std::vector<TensorType>> InferRoiAlign(const InferContext& ctx) {
  const TensorType& x = ctx.input(0);
  const TensorType& rois = ctx.input(1);
  const TensorType& index = ctx.input(2);
  SY_RETURN_IF_ERROR(RequireRank(x, "x", 4));
  SY_RETURN_IF_ERROR(RequireRank(rois, "rois", 2));
  SY_RETURN_IF_ERROR(RequireRank(index, "batch_indices", 1));
  if (rois.shape[1] != 4) {
    return DimError("rois", rois, 1, "be 4 (x1, y1, x2, y2)");
  }
  if (index.shape[0] != rois.shape[0]) {
    return DimError("batch_indices", index, 0, "equal the number of rois " + Str(rois.shape[0]));
  }
  const int64_t h = ctx.attrs.GetInt("output_height"), w = ctx.attrs.GetInt("output_width");
  if (h < 1) return AttrError("output_height", "is " + Str(h) + " but must be >= 1");
  if (w < 1) return AttrError("output_width", "is " + Str(w) + " but must be >= 1");
  if (const int64_t r = ctx.attrs.GetInt("sampling_ratio"); r < 0) {
    return AttrError("sampling_ratio", "is " + Str(r) + " but must be >= 0 (0: adaptive)");
  }
  if (const double s = ctx.attrs.GetFloat("spatial_scale"); !std::isfinite(s)) {
    return AttrError("spatial_scale", "is " + AttrValueToString(s) + " but must be finite");
  }
  return std::vector<TensorType>{{x.dtype, {rois.shape[0], x.shape[1], h, w}}};
}

OpSchema Schema(std::string_view name, std::string_view onnx, std::vector<InputSpec> inputs,
                std::vector<AttrSpec> attrs, ShapeRule rule) {
  return MakeSchema(name, onnx, kF, std::move(inputs), std::move(attrs), rule);
}

std::vector<AttrSpec> PoolAttrs(bool with_count_include_pad) {
  std::vector<AttrSpec> attrs = {{"kernel_shape", AttrKind::kInts, std::nullopt, /*required=*/true},
                                 OptionalInts("strides"),
                                 OptionalInts("pads"),
                                 OptionalInts("dilations"),
                                 Flag("ceil_mode")};
  if (with_count_include_pad) attrs.push_back(Flag("count_include_pad"));
  return attrs;
}

}  // namespace

void AddConvPoolSchemas(std::vector<OpSchema>& out) {
  const std::vector<InputSpec> conv_inputs = {{"x", 0}, {"w", 0}, {"bias", 0, /*optional=*/true}};
  out.push_back(Schema(
      "conv", "Conv", conv_inputs,
      {OptionalInts("strides"), OptionalInts("pads"), OptionalInts("dilations"), Int("group", 1)},
      InferConv));
  out.back().cost = OpCost::kCompute;
  {  // Extension (docs/ops.md): ONNX QLinearConv, the integer conv of quantized models.
    OpSchema s = MakeSchema(
        "qlinear_conv", "QLinearConv", DTypeSet{DType::kU8, DType::kI8},
        {{"x", 0},
         {"x_scale", 3},
         {"x_zero_point", 0},
         {"w", 1},
         {"w_scale", 3},
         {"w_zero_point", 1},
         {"y_scale", 3},
         {"y_zero_point", 2},
         {"bias", 4, /*optional=*/true}},
        {OptionalInts("strides"), OptionalInts("pads"), OptionalInts("dilations"), Int("group", 1)},
        InferQLinearConv);
    s.type_vars.push_back({"T2", DTypeSet{DType::kU8, DType::kI8}});
    s.type_vars.push_back({"T3", DTypeSet{DType::kU8, DType::kI8}});
    s.type_vars.push_back({"Tf", DTypeSet{DType::kF32}});
    s.type_vars.push_back({"Ti", DTypeSet{DType::kI32}});
    s.cost = OpCost::kCompute;
    out.push_back(std::move(s));
  }
  out.push_back(Schema("conv_transpose", "ConvTranspose", conv_inputs,
                       {OptionalInts("strides"), OptionalInts("pads"), OptionalInts("dilations"),
                        Int("group", 1), OptionalInts("output_padding")},
                       InferConvTranspose));
  out.back().cost = OpCost::kCompute;
  {  // Extension (docs/ops.md): an optional second output, ONNX MaxPool's Indices.
    std::vector<AttrSpec> attrs = PoolAttrs(false);
    attrs.push_back(Flag("storage_order"));
    out.push_back(Schema("max_pool", "MaxPool", {{"x", 0}}, std::move(attrs), InferPool));
    out.back().max_outputs = 2;
  }
  out.push_back(Schema("avg_pool", "AveragePool", {{"x", 0}}, PoolAttrs(true), InferPool));
  out.push_back(Schema("global_avg_pool", "GlobalAveragePool", {{"x", 0}}, {}, InferGlobalPool));
  // Extension (docs/ops.md): ONNX DeformConv (2-D).
  out.push_back(Schema("deform_conv", "DeformConv",
                       {{"x", 0},
                        {"w", 0},
                        {"offset", 0},
                        {"bias", 0, /*optional=*/true},
                        {"mask", 0, /*optional=*/true}},
                       {OptionalInts("strides"), OptionalInts("pads"), OptionalInts("dilations"),
                        Int("group", 1), Int("offset_group", 1)},
                       InferDeformConv));
  out.back().cost = OpCost::kCompute;
  {  // Extension (docs/ops.md): ONNX RoiAlign.
    OpSchema s = Schema("roi_align", "RoiAlign", {{"x", 0}, {"rois", 0}, {"batch_indices", 1}},
                        {{"mode", AttrKind::kString, std::string("avg"), false, {"avg", "max"}},
                         Int("output_height", 1),
                         Int("output_width", 1),
                         Int("sampling_ratio", 0),
                         {"spatial_scale", AttrKind::kFloat, 1.0},
                         {"coordinate_transformation_mode",
                          AttrKind::kString,
                          std::string("half_pixel"),
                          false,
                          {"half_pixel", "output_half_pixel"}}},
                        InferRoiAlign);
    s.type_vars.push_back({"Tind", DTypeSet::IndexTypes()});
    out.push_back(std::move(s));
  }
}

}  // namespace sy::ops
