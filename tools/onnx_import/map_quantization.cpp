// ONNX's linear quantization ops, decomposed onto float and integer catalogue ops:
//   DequantizeLinear  y = (x - zero_point) * scale
//   QuantizeLinear    y = saturate(round_half_even(x / scale) + zero_point)
//   DynamicQuantizeLinear: uint8 with scale and zero point from the data's range
//   MatMulInteger / ConvInteger: products of zero-point-shifted integers, exactly (matmul
//     in integers; conv in f64, exact for any sum below 2^53)
//   QLinearMatMul / QLinearConv: the integer product rescaled by a_scale * b_scale /
//     y_scale and requantized.
// Per-axis scales and zero points (1-D, one per channel) are reshaped to broadcast along
// their axis; blocked ones (opset 21's block_size) are repeated over their blocks.
#include <cmath>
#include <limits>

#include "host_tensor_ops.h"
#include "op_mapping.h"
#include "switchyard/shape.h"

namespace sy::onnx_import {
namespace {

// Opset 21's blocked form (block_size > 0): x's size `dim` along the (normalized) axis
// and the constant indices i / block that repeat a per-block parameter over it, built
// once for the node's scale and zero point. block 0: per-tensor or per-axis.
struct Blocking {
  int64_t block = 0;
  int64_t dim = 0;
  int64_t axis = 0;
  ValueId index = -1;
};
Expected<Blocking> BlockingOf(NodeContext& ctx, ValueId x, int64_t axis) {
  Blocking b;
  b.block = ctx.AttrInt("block_size", 0);
  if (b.block < 0) return ctx.Invalid("block_size must be >= 0");
  if (b.block == 0) return b;
  const Shape xs = ctx.TypeOf(x).shape;
  Expected<int64_t> a = NormalizeAxis(axis, static_cast<int64_t>(xs.size()));
  if (!a.ok()) return ctx.Invalid(a.status().message());
  b.axis = *a;
  b.dim = xs[static_cast<size_t>(*a)];
  std::vector<double> index(static_cast<size_t>(b.dim));
  for (int64_t i = 0; i < b.dim; ++i)
    index[static_cast<size_t>(i)] = static_cast<double>(i / b.block);
  SY_ASSIGN_OR_RETURN(Tensor t, FromDoubles(DType::kI64, {b.dim}, index));
  b.index = ctx.state().AddConstant(t, ctx.node().output(0) + "/blocks");
  return b;
}

// A blocked parameter (x's rank, ceil(dim / block) entries along the axis) repeated along
// that axis by a `gather` of the block indices, so that it matches x's `dim` elements.
Expected<ValueId> RepeatBlocks(NodeContext& ctx, ValueId p, int64_t rank, const Blocking& b) {
  const Shape ps = ctx.TypeOf(p).shape;
  const auto along = static_cast<size_t>(b.axis);
  if (static_cast<int64_t>(ps.size()) != rank || ps[along] * b.block < b.dim ||
      (ps[along] - 1) * b.block >= b.dim) {
    return ctx.Invalid("a blocked scale or zero point must have x's rank and ceil(" +
                       std::to_string(b.dim) + " / " + std::to_string(b.block) +
                       ") entries along axis " + std::to_string(b.axis) + ", not " +
                       ShapeToString(ps));
  }
  Attrs attrs;
  attrs.Set("axis", b.axis);
  return ctx.Emit1("gather", {p, b.index}, std::move(attrs));
}

// A per-channel parameter placed to broadcast along `axis` of x (rank `rank`): a 1-D one
// reshaped, a blocked one (`blocking` with block > 0) repeated over its blocks; scalars
// and size-1 vectors pass through.
Expected<ValueId> AlongAxis(NodeContext& ctx, ValueId p, int64_t axis, int64_t rank,
                            const Blocking& blocking = {}) {
  if (blocking.block > 0) return RepeatBlocks(ctx, p, rank, blocking);
  const Shape& ps = ctx.TypeOf(p).shape;
  if (ps.size() != 1 || ps[0] == 1 || rank <= 1) return p;
  Expected<int64_t> a = NormalizeAxis(axis, rank);
  if (!a.ok()) return ctx.Invalid(a.status().message());
  Shape shape(static_cast<size_t>(rank), 1);
  shape[*a] = ps[0];
  Attrs attrs;
  attrs.Set("shape", std::vector<int64_t>(shape.begin(), shape.end()));
  return ctx.Emit1("reshape", {p}, std::move(attrs));
}

// The optional zero point of input `i`, cast to `dtype` and placed along `axis`; a zero
// scalar when absent.
Expected<ValueId> ZeroPoint(NodeContext& ctx, size_t i, DType dtype, int64_t axis, int64_t rank,
                            const Blocking& blocking = {}) {
  if (!ctx.HasInput(i)) return ctx.Scalar(dtype, 0);
  SY_ASSIGN_OR_RETURN(ValueId zp, ctx.Input(i));
  SY_ASSIGN_OR_RETURN(zp, CastTo(ctx, zp, dtype));
  return AlongAxis(ctx, zp, axis, rank, blocking);
}

// saturate(round(v) + zero_point) in the zero point's integer type, else opset 21's
// output_dtype, else u8: 8- and 16-bit integers.
Expected<ValueId> Requantize(NodeContext& ctx, ValueId v, size_t zp_input, int64_t axis,
                             const Blocking& blocking = {}) {
  const DType f = ctx.TypeOf(v).dtype;
  const int64_t rank = static_cast<int64_t>(ctx.TypeOf(v).shape.size());
  DType q = DType::kU8;
  if (ctx.HasInput(zp_input)) {
    q = ctx.InputType(zp_input).dtype;
  } else if (const int64_t code = ctx.AttrInt("output_dtype", 0); code != 0) {
    SY_ASSIGN_OR_RETURN(q, DTypeParam(ctx, code, "output_dtype"));
  }
  if (q != DType::kU8 && q != DType::kI8 && q != DType::kU16 && q != DType::kI16) {
    return ctx.Fail(
        ImportProblem::kUnsupportedType,
        "quantizes to " + std::string(DTypeName(q)) + "; the importer handles u8, i8, u16 and i16");
  }
  SY_ASSIGN_OR_RETURN(ValueId r, ctx.Emit1("round", {v}));
  SY_ASSIGN_OR_RETURN(ValueId zp, ZeroPoint(ctx, zp_input, f, axis, rank, blocking));
  SY_ASSIGN_OR_RETURN(r, ctx.Emit1("add", {r, zp}));
  const bool is_signed = q == DType::kI8 || q == DType::kI16;
  const int bits = q == DType::kU8 || q == DType::kI8 ? 8 : 16;
  Attrs clip;
  clip.Set("min", is_signed ? -std::ldexp(1.0, bits - 1) : 0.0);
  clip.Set("max", is_signed ? std::ldexp(1.0, bits - 1) - 1 : std::ldexp(1.0, bits) - 1);
  SY_ASSIGN_OR_RETURN(r, ctx.Emit1("clip", {r}, std::move(clip)));
  return CastTo(ctx, r, q);
}

Status MapDequantize(NodeContext& ctx) {
  SY_ASSIGN_OR_RETURN(ValueId x, ctx.Input(0));
  SY_ASSIGN_OR_RETURN(ValueId scale, ctx.Input(1));
  const DType f = ctx.TypeOf(scale).dtype;
  const int64_t rank = static_cast<int64_t>(ctx.TypeOf(x).shape.size());
  const int64_t axis = ctx.AttrInt("axis", 1);
  SY_ASSIGN_OR_RETURN(const Blocking b, BlockingOf(ctx, x, axis));
  SY_ASSIGN_OR_RETURN(ValueId xf, CastTo(ctx, x, f));
  SY_ASSIGN_OR_RETURN(ValueId zp, ZeroPoint(ctx, 2, f, axis, rank, b));
  SY_ASSIGN_OR_RETURN(ValueId shifted, ctx.Emit1("sub", {xf, zp}));
  SY_ASSIGN_OR_RETURN(scale, AlongAxis(ctx, scale, axis, rank, b));
  SY_ASSIGN_OR_RETURN(ValueId out, ctx.Emit1("mul", {shifted, scale}));
  ctx.SetOutput(0, out);
  return Status::Ok();
}

Status MapQuantize(NodeContext& ctx) {
  SY_ASSIGN_OR_RETURN(ValueId x, ctx.Input(0));
  SY_ASSIGN_OR_RETURN(ValueId scale, ctx.Input(1));
  const DType f = ctx.TypeOf(scale).dtype;
  const int64_t rank = static_cast<int64_t>(ctx.TypeOf(x).shape.size());
  const int64_t axis = ctx.AttrInt("axis", 1);
  SY_ASSIGN_OR_RETURN(const Blocking b, BlockingOf(ctx, x, axis));
  SY_ASSIGN_OR_RETURN(ValueId xf, CastTo(ctx, x, f));
  SY_ASSIGN_OR_RETURN(scale, AlongAxis(ctx, scale, axis, rank, b));
  SY_ASSIGN_OR_RETURN(ValueId scaled, ctx.Emit1("div", {xf, scale}));
  SY_ASSIGN_OR_RETURN(ValueId out, Requantize(ctx, scaled, 2, axis, b));
  ctx.SetOutput(0, out);
  return Status::Ok();
}

Status MapDynamicQuantize(NodeContext& ctx) {
  SY_ASSIGN_OR_RETURN(ValueId x, ctx.Input(0));
  const DType f = ctx.TypeOf(x).dtype;
  Attrs all;
  all.Set("keepdims", int64_t{0});
  SY_ASSIGN_OR_RETURN(ValueId zero, ctx.Scalar(f, 0));
  SY_ASSIGN_OR_RETURN(ValueId hi, ctx.Emit1("reduce_max", {x}, all));
  SY_ASSIGN_OR_RETURN(ValueId lo, ctx.Emit1("reduce_min", {x}, all));
  SY_ASSIGN_OR_RETURN(hi, ctx.Emit1("max", {hi, zero}));
  SY_ASSIGN_OR_RETURN(lo, ctx.Emit1("min", {lo, zero}));
  SY_ASSIGN_OR_RETURN(ValueId range, ctx.Emit1("sub", {hi, lo}));
  SY_ASSIGN_OR_RETURN(ValueId qmax, ctx.Scalar(f, 255));
  SY_ASSIGN_OR_RETURN(ValueId scale, ctx.Emit1("div", {range, qmax}));
  SY_ASSIGN_OR_RETURN(ValueId neg_lo, ctx.Emit1("neg", {lo}));
  SY_ASSIGN_OR_RETURN(ValueId zp_f, ctx.Emit1("div", {neg_lo, scale}));
  SY_ASSIGN_OR_RETURN(zp_f, ctx.Emit1("round", {zp_f}));
  Attrs clip;
  clip.Set("min", 0.0);
  clip.Set("max", 255.0);
  SY_ASSIGN_OR_RETURN(zp_f, ctx.Emit1("clip", {zp_f}, clip));
  SY_ASSIGN_OR_RETURN(ValueId y, ctx.Emit1("div", {x, scale}));
  SY_ASSIGN_OR_RETURN(y, ctx.Emit1("round", {y}));
  SY_ASSIGN_OR_RETURN(y, ctx.Emit1("add", {y, zp_f}));
  SY_ASSIGN_OR_RETURN(y, ctx.Emit1("clip", {y}, clip));
  SY_ASSIGN_OR_RETURN(y, CastTo(ctx, y, DType::kU8));
  SY_ASSIGN_OR_RETURN(ValueId zp, CastTo(ctx, zp_f, DType::kU8));
  ctx.SetOutput(0, y);
  ctx.SetOutput(1, scale);
  ctx.SetOutput(2, zp);
  return Status::Ok();
}

// x - zero_point as `dtype` (the zero point along `axis`, for per-channel weights).
Expected<ValueId> Shifted(NodeContext& ctx, size_t x_input, size_t zp_input, DType dtype,
                          int64_t axis) {
  SY_ASSIGN_OR_RETURN(ValueId x, ctx.Input(x_input));
  const int64_t rank = static_cast<int64_t>(ctx.TypeOf(x).shape.size());
  SY_ASSIGN_OR_RETURN(x, CastTo(ctx, x, dtype));
  if (!ctx.HasInput(zp_input)) return x;
  SY_ASSIGN_OR_RETURN(ValueId zp, ZeroPoint(ctx, zp_input, dtype, axis, rank));
  return ctx.Emit1("sub", {x, zp});
}

Status MapMatMulInteger(NodeContext& ctx) {
  // a's zero point is per row (axis -2 of a), b's per column (the last axis).
  const int64_t a_rank = static_cast<int64_t>(ctx.InputType(0).shape.size());
  SY_ASSIGN_OR_RETURN(ValueId a, Shifted(ctx, 0, 2, DType::kI32, a_rank >= 2 ? -2 : 0));
  SY_ASSIGN_OR_RETURN(ValueId b, Shifted(ctx, 1, 3, DType::kI32, -1));
  SY_ASSIGN_OR_RETURN(ValueId out, ctx.Emit1("matmul", {a, b}));
  ctx.SetOutput(0, out);
  return Status::Ok();
}

Status MapConvInteger(NodeContext& ctx) {
  SY_ASSIGN_OR_RETURN(ValueId x, Shifted(ctx, 0, 2, DType::kF64, 1));
  SY_ASSIGN_OR_RETURN(ValueId w, Shifted(ctx, 1, 3, DType::kF64, 0));
  SY_ASSIGN_OR_RETURN(ValueId acc, EmitConv(ctx, x, w, std::nullopt));
  SY_ASSIGN_OR_RETURN(ValueId out, CastTo(ctx, acc, DType::kI32));
  ctx.SetOutput(0, out);
  return Status::Ok();
}

// The QLinear ops' tail: the integer accumulator `acc` (inputs 1, 4, 6 are a_scale,
// b_scale, y_scale; 7 is y_zero_point) scaled by a_scale * b_scale / y_scale in f64, with
// b's scale along `b_axis`, then requantized. Binds output 0.
Status RescaleAndRequantize(NodeContext& ctx, ValueId acc, int64_t b_axis) {
  const DType f = ctx.InputType(1).dtype;
  const int64_t rank = static_cast<int64_t>(ctx.TypeOf(acc).shape.size());
  SY_ASSIGN_OR_RETURN(ValueId as, ctx.Input(1));
  SY_ASSIGN_OR_RETURN(ValueId bs, ctx.Input(4));
  SY_ASSIGN_OR_RETURN(ValueId ys, ctx.Input(6));
  SY_ASSIGN_OR_RETURN(bs, AlongAxis(ctx, bs, b_axis, rank));
  SY_ASSIGN_OR_RETURN(ValueId m, ctx.Emit1("mul", {as, bs}));
  SY_ASSIGN_OR_RETURN(m, ctx.Emit1("div", {m, ys}));
  SY_ASSIGN_OR_RETURN(m, CastTo(ctx, m, DType::kF64));
  SY_ASSIGN_OR_RETURN(acc, CastTo(ctx, acc, DType::kF64));
  SY_ASSIGN_OR_RETURN(ValueId real, ctx.Emit1("mul", {acc, m}));
  SY_ASSIGN_OR_RETURN(real, CastTo(ctx, real, f));
  SY_ASSIGN_OR_RETURN(ValueId out, Requantize(ctx, real, 7, b_axis));
  ctx.SetOutput(0, out);
  return Status::Ok();
}

Status MapQLinearMatMul(NodeContext& ctx) {
  const int64_t a_rank = static_cast<int64_t>(ctx.InputType(0).shape.size());
  SY_ASSIGN_OR_RETURN(ValueId a, Shifted(ctx, 0, 2, DType::kI32, a_rank >= 2 ? -2 : 0));
  SY_ASSIGN_OR_RETURN(ValueId b, Shifted(ctx, 3, 5, DType::kI32, -1));
  SY_ASSIGN_OR_RETURN(ValueId acc, ctx.Emit1("matmul", {a, b}));
  return RescaleAndRequantize(ctx, acc, -1);
}

Status MapQLinearConv(NodeContext& ctx) {
  SY_ASSIGN_OR_RETURN(ValueId x, Shifted(ctx, 0, 2, DType::kF64, 1));
  SY_ASSIGN_OR_RETURN(ValueId w, Shifted(ctx, 3, 5, DType::kF64, 0));
  std::optional<ValueId> bias;
  if (ctx.HasInput(8)) {
    SY_ASSIGN_OR_RETURN(ValueId b, ctx.Input(8));
    SY_ASSIGN_OR_RETURN(b, CastTo(ctx, b, DType::kF64));
    bias = b;
  }
  SY_ASSIGN_OR_RETURN(ValueId acc, EmitConv(ctx, x, w, bias));
  return RescaleAndRequantize(ctx, acc, 1);
}

}  // namespace
void AddQuantizationMappings(MappingTable& table) {
  table.At("DequantizeLinear").map = MapDequantize;
  table.At("QuantizeLinear").map = MapQuantize;
  table.At("DynamicQuantizeLinear").map = MapDynamicQuantize;
  table.At("MatMulInteger").map = MapMatMulInteger;
  table.At("ConvInteger").map = MapConvInteger;
  table.At("QLinearMatMul").map = MapQLinearMatMul;
  table.At("QLinearConv").map = MapQLinearConv;
}

}  // namespace sy::onnx_import
