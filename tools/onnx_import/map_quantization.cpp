// ONNX's linear quantization ops, decomposed onto float and integer catalogue ops:
//   DequantizeLinear  y = (x - zero_point) * scale
//   QuantizeLinear    y = saturate(round_half_even(x / scale) + zero_point)
//   DynamicQuantizeLinear: uint8 with scale and zero point from the data's range
//   MatMulInteger / ConvInteger: products of zero-point-shifted integers, exactly (matmul
//     in integers; conv in f64, exact for any sum below 2^53)
//   QLinearMatMul / QLinearConv: the product of the shifted integers in f32 (exact while
//     partial sums stay below 2^24) rescaled by a_scale * b_scale / y_scale and
//     requantized.
//   com.microsoft QOperator ops (ONNX Runtime's quantize_static with QuantFormat.QOperator):
//     QGemm as QLinearMatMul (the shifted integers' product in f32, C added, rescaled);
//     QLinearAdd, QLinearMul, QLinearSigmoid, QLinearLeakyRelu, QLinearSoftmax,
//     QLinearReduceMean, QLinearWhere, QLinearGlobalAveragePool,
//     QLinearAveragePool and QLinearConcat as their float op between a dequantization of
//     each input and a quantization of the output, which is what ONNX Runtime's own
//     kernels compute (in float, rounded once);
//   com.microsoft MatMulNBits: onto quant_matmul, whose weights stay packed (seed 000);
//     ONNX Runtime's packed zero points are unpacked at import to one per block.
// Per-axis scales and zero points (1-D, one per channel) are reshaped to broadcast along
// their axis; blocked ones (opset 21's block_size) are repeated over their blocks.
#include <cmath>
#include <limits>
#include <sstream>

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

// DynamicQuantizeLinear's arithmetic on x: the u8 codes and zero point as floats (whole
// numbers from 0 to 255), and the scale, from x's range widened to hold 0.
struct DynamicCodes {
  ValueId codes, zero_point, scale;
};
Expected<DynamicCodes> DynamicQuantizeCodes(NodeContext& ctx, ValueId x) {
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
  return DynamicCodes{y, zp_f, scale};
}

Status MapDynamicQuantize(NodeContext& ctx) {
  SY_ASSIGN_OR_RETURN(ValueId x, ctx.Input(0));
  SY_ASSIGN_OR_RETURN(const DynamicCodes q, DynamicQuantizeCodes(ctx, x));
  SY_ASSIGN_OR_RETURN(ValueId y, CastTo(ctx, q.codes, DType::kU8));
  SY_ASSIGN_OR_RETURN(ValueId zp, CastTo(ctx, q.zero_point, DType::kU8));
  ctx.SetOutput(0, y);
  ctx.SetOutput(1, q.scale);
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

// MatMulInteger onto the catalogue's matmul_integer (u8/i8 operands and zero points as
// they are: the cpu device multiplies bytes, docs/ops.md) where its zero points are
// scalars or 1-D (a's per row, b's per column); other zero-point shapes (ONNX allows
// [..., M, 1] per batch) onto matmul over the shifted operands in i32.
// What matmul_integer takes (docs/ops.md): u8 or i8 operands, and a zero point (input
// `zero`, where given) that is a scalar ([] or [1]) or 1-D of `per` elements.
bool IsByte(DType d) { return d == DType::kU8 || d == DType::kI8; }
bool ScalarOrOneDZeroPoint(NodeContext& ctx, size_t zero, int64_t per) {
  if (!ctx.HasInput(zero)) return true;
  const Shape& z = ctx.InputType(zero).shape;
  return z.empty() || (z.size() == 1 && (z[0] == 1 || z[0] == per));
}

Status MapMatMulInteger(NodeContext& ctx) {
  const Shape& as = ctx.InputType(0).shape;
  const Shape& bs = ctx.InputType(1).shape;
  if (IsByte(ctx.InputType(0).dtype) && IsByte(ctx.InputType(1).dtype) && !as.empty() &&
      bs.size() >= 2 && ScalarOrOneDZeroPoint(ctx, 2, as.size() >= 2 ? as[as.size() - 2] : 1) &&
      ScalarOrOneDZeroPoint(ctx, 3, bs.back())) {
    SY_ASSIGN_OR_RETURN(ValueId a, ctx.Input(0));
    SY_ASSIGN_OR_RETURN(ValueId b, ctx.Input(1));
    std::vector<ValueId> inputs = {a, b};
    if (ctx.HasInput(2) || ctx.HasInput(3)) {
      ValueId za;
      if (ctx.HasInput(2)) {
        SY_ASSIGN_OR_RETURN(za, ctx.Input(2));
      } else {  // b's zero point alone: a's is 0
        const std::vector<double> zeros = {0.0};
        SY_ASSIGN_OR_RETURN(Tensor zero, FromDoubles(ctx.InputType(0).dtype, {}, zeros));
        za = ctx.state().AddConstant(zero, ctx.node().output(0) + "/a_zero_point");
      }
      inputs.push_back(za);
    }
    if (ctx.HasInput(3)) {
      SY_ASSIGN_OR_RETURN(ValueId zb, ctx.Input(3));
      inputs.push_back(zb);
    }
    SY_ASSIGN_OR_RETURN(ValueId out, ctx.Emit1("matmul_integer", inputs));
    ctx.SetOutput(0, out);
    return Status::Ok();
  }
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

// The QLinear ops' tail: the accumulator `acc` (inputs 1, 4, 6 are a_scale, b_scale,
// y_scale; 7 is y_zero_point) scaled by a_scale * b_scale / y_scale, with b's scale along
// `b_axis`, then requantized. Binds output 0. An integer accumulator (exact) is scaled in
// f64; an f32 one (QLinearConv's, already rounded where it exceeds 2^24) in f32, which
// the vector kernels run.
Status RescaleAndRequantize(NodeContext& ctx, ValueId acc, int64_t b_axis) {
  const DType compute = ctx.TypeOf(acc).dtype == DType::kF32 ? DType::kF32 : DType::kF64;
  const DType f = ctx.InputType(1).dtype;
  const int64_t rank = static_cast<int64_t>(ctx.TypeOf(acc).shape.size());
  SY_ASSIGN_OR_RETURN(ValueId as, ctx.Input(1));
  SY_ASSIGN_OR_RETURN(ValueId bs, ctx.Input(4));
  SY_ASSIGN_OR_RETURN(ValueId ys, ctx.Input(6));
  SY_ASSIGN_OR_RETURN(bs, AlongAxis(ctx, bs, b_axis, rank));
  SY_ASSIGN_OR_RETURN(ValueId m, ctx.Emit1("mul", {as, bs}));
  SY_ASSIGN_OR_RETURN(m, ctx.Emit1("div", {m, ys}));
  SY_ASSIGN_OR_RETURN(m, CastTo(ctx, m, compute));
  SY_ASSIGN_OR_RETURN(acc, CastTo(ctx, acc, compute));
  SY_ASSIGN_OR_RETURN(ValueId real, ctx.Emit1("mul", {acc, m}));
  SY_ASSIGN_OR_RETURN(real, CastTo(ctx, real, f));
  SY_ASSIGN_OR_RETURN(ValueId out, Requantize(ctx, real, 7, b_axis));
  ctx.SetOutput(0, out);
  return Status::Ok();
}

// QLinearMatMul: the product of the zero-point-shifted integers in f32, as QLinearConv
// (below) and for the same reasons: oneDNN's matmul over weights prepacked once, exact
// while partial sums stay below 2^24.
Status MapQLinearMatMul(NodeContext& ctx) {
  const int64_t a_rank = static_cast<int64_t>(ctx.InputType(0).shape.size());
  SY_ASSIGN_OR_RETURN(ValueId a, Shifted(ctx, 0, 2, DType::kF32, a_rank >= 2 ? -2 : 0));
  SY_ASSIGN_OR_RETURN(ValueId b, Shifted(ctx, 3, 5, DType::kF32, -1));
  SY_ASSIGN_OR_RETURN(ValueId acc, ctx.Emit1("matmul", {a, b}));
  return RescaleAndRequantize(ctx, acc, -1);
}

// QLinearConv: the conv of the zero-point-shifted integers in f32 (oneDNN's conv with its
// weights prepacked, where ConvInteger's exact int32 result needs f64): exact while every
// partial sum stays below 2^24 (depthwise and small convs), otherwise rounded like any
// f32 conv before the requantization rounds it again, which moves a result only where it
// lies within f32 rounding of a tie (as a QDQ model's float conv does, or ONNX Runtime's
// own saturating u8s8 kernels by more; docs/onnx-import.md).
// Onto the catalogue's qlinear_conv where its operands are what it takes (u8/i8 codes and
// zero points, f32 scales, scalars where it wants them; docs/ops.md): every QLinearConv
// ONNX Runtime's quantizers write, and every QDQ unit the importer folds (qdq_folding.cpp).
// Otherwise the shifted integers' conv in f32 as below.
bool QLinearConvTakes(NodeContext& ctx) {
  const auto scalar = [&ctx](size_t i) {
    return ctx.HasInput(i) && ElementCount(ctx.InputType(i).shape) == 1 &&
           ctx.InputType(i).shape.size() <= 1;
  };
  if (ctx.InputType(0).shape.size() < 3 || ctx.InputType(3).shape.empty()) return false;
  const int64_t channels = ctx.InputType(3).shape[0];
  const auto per_channel = [&](size_t i) {
    const Shape& s = ctx.InputType(i).shape;
    return ctx.HasInput(i) && (scalar(i) || (s.size() == 1 && s[0] == channels));
  };
  for (size_t i : {1, 4, 6}) {
    if (!ctx.HasInput(i) || ctx.InputType(i).dtype != DType::kF32) return false;
  }
  return IsByte(ctx.InputType(0).dtype) && IsByte(ctx.InputType(3).dtype) && scalar(1) &&
         scalar(2) && ctx.InputType(2).dtype == ctx.InputType(0).dtype && per_channel(4) &&
         per_channel(5) && ctx.InputType(5).dtype == ctx.InputType(3).dtype && scalar(6) &&
         scalar(7) && IsByte(ctx.InputType(7).dtype) &&
         (!ctx.HasInput(8) ||
          (ctx.InputType(8).dtype == DType::kI32 && ctx.InputType(8).shape == Shape{channels}));
}

Status MapQLinearConv(NodeContext& ctx) {
  if (QLinearConvTakes(ctx)) {
    std::vector<ValueId> inputs;
    for (size_t i = 0; i < 9; ++i) {
      if (i == 8 && !ctx.HasInput(8)) break;
      SY_ASSIGN_OR_RETURN(ValueId v, ctx.Input(i));
      inputs.push_back(v);
    }
    SY_ASSIGN_OR_RETURN(ValueId out, EmitQLinearConv(ctx, inputs));
    ctx.SetOutput(0, out);
    return Status::Ok();
  }
  SY_ASSIGN_OR_RETURN(ValueId x, Shifted(ctx, 0, 2, DType::kF32, 1));
  SY_ASSIGN_OR_RETURN(ValueId w, Shifted(ctx, 3, 5, DType::kF32, 0));
  std::optional<ValueId> bias;
  if (ctx.HasInput(8)) {
    SY_ASSIGN_OR_RETURN(ValueId b, ctx.Input(8));
    SY_ASSIGN_OR_RETURN(b, CastTo(ctx, b, DType::kF32));
    bias = b;
  }
  SY_ASSIGN_OR_RETURN(ValueId acc, EmitConv(ctx, x, w, bias));
  return RescaleAndRequantize(ctx, acc, 1);
}

// ---- QOperator ops (com.microsoft). Input `x` dequantized with the scale and zero point
// of inputs `scale` and `zp` (per tensor: the activations these ops take).
Expected<ValueId> DequantizedInput(NodeContext& ctx, size_t x, size_t scale, size_t zp) {
  SY_ASSIGN_OR_RETURN(ValueId s, ctx.Input(scale));
  SY_ASSIGN_OR_RETURN(ValueId v, Shifted(ctx, x, zp, ctx.TypeOf(s).dtype, 1));
  return ctx.Emit1("mul", {v, s});
}

// Binds output 0 to `v` quantized with the scale of input `scale` and the zero point of
// input `zp` (u8 when absent).
Status BindQuantized(NodeContext& ctx, Expected<ValueId> v, size_t scale, size_t zp) {
  if (!v.ok()) return v.status();
  SY_ASSIGN_OR_RETURN(ValueId s, ctx.Input(scale));
  SY_ASSIGN_OR_RETURN(ValueId scaled, ctx.Emit1("div", {*v, s}));
  SY_ASSIGN_OR_RETURN(ValueId out, Requantize(ctx, scaled, zp, 1));
  ctx.SetOutput(0, out);
  return Status::Ok();
}

Status RefuseChannelsLast(NodeContext& ctx) {
  if (ctx.AttrInt("channels_last", 0) == 0) return Status::Ok();
  return ctx.UnsupportedOp(ctx.node().op_type() + " with channels_last = 1 is not mapped");
}

// QLinearAdd / QLinearMul(A, A_scale, A_zp, B, B_scale, B_zp, C_scale, C_zp).
Status MapQLinearBinary(NodeContext& ctx, std::string_view op) {
  SY_ASSIGN_OR_RETURN(ValueId a, DequantizedInput(ctx, 0, 1, 2));
  SY_ASSIGN_OR_RETURN(ValueId b, DequantizedInput(ctx, 3, 4, 5));
  return BindQuantized(ctx, ctx.Emit1(op, {a, b}), 6, 7);
}

// QLinearSigmoid / QLinearLeakyRelu(X, X_scale, X_zp, Y_scale, Y_zp).
Status MapQLinearUnary(NodeContext& ctx, std::string_view op, Attrs attrs = {}) {
  SY_ASSIGN_OR_RETURN(ValueId x, DequantizedInput(ctx, 0, 1, 2));
  return BindQuantized(ctx, ctx.Emit1(op, {x}, std::move(attrs)), 3, 4);
}

Status MapQLinearLeakyRelu(NodeContext& ctx) {
  Attrs attrs;
  attrs.Set("alpha", ctx.AttrFloat("alpha", 0.01));
  return MapQLinearUnary(ctx, "leaky_relu", std::move(attrs));
}

// QLinearGlobalAveragePool(X, x_scale, x_zp, y_scale, y_zp; channels_last).
Status MapQLinearGlobalAveragePool(NodeContext& ctx) {
  SY_RETURN_IF_ERROR(RefuseChannelsLast(ctx));
  SY_ASSIGN_OR_RETURN(ValueId x, DequantizedInput(ctx, 0, 1, 2));
  return BindQuantized(ctx, ctx.Emit1("global_avg_pool", {x}), 3, 4);
}

// QLinearAveragePool(X, x_scale, x_zp, y_scale, y_zp; AveragePool's attributes).
Status MapQLinearAveragePool(NodeContext& ctx) {
  SY_RETURN_IF_ERROR(RefuseChannelsLast(ctx));
  SY_ASSIGN_OR_RETURN(ValueId x, DequantizedInput(ctx, 0, 1, 2));
  return BindQuantized(ctx, EmitAveragePool(ctx, x), 3, 4);
}

// QLinearSoftmax(X, X_scale, x_zp, y_scale, y_zp; axis, opset): Softmax of the given
// opset's semantics: from 13 along `axis`, before it over x flattened to 2-D at `axis`.
Status MapQLinearSoftmax(NodeContext& ctx) {
  if (ctx.Attr("opset") == nullptr) return ctx.Invalid("needs the opset attribute");
  SY_ASSIGN_OR_RETURN(ValueId x, DequantizedInput(ctx, 0, 1, 2));
  const Shape shape = ctx.TypeOf(x).shape;
  const auto rank = static_cast<int64_t>(shape.size());
  Expected<int64_t> axis = NormalizeAxis(ctx.AttrInt("axis", -1), rank);
  if (!axis.ok()) return ctx.Invalid(axis.status().message());
  Attrs last;
  if (ctx.AttrInt("opset", 13) >= 13) {
    last.Set("axis", *axis);
    return BindQuantized(ctx, ctx.Emit1("softmax", {x}, std::move(last)), 3, 4);
  }
  int64_t outer = 1;
  for (int64_t d = 0; d < *axis; ++d) outer *= shape[static_cast<size_t>(d)];
  SY_ASSIGN_OR_RETURN(ValueId flat, EmitReshape(ctx, x, {outer, -1}));
  last.Set("axis", int64_t{1});
  SY_ASSIGN_OR_RETURN(ValueId p, ctx.Emit1("softmax", {flat}, std::move(last)));
  return BindQuantized(ctx, EmitReshape(ctx, p, std::vector<int64_t>(shape.begin(), shape.end())),
                       3, 4);
}

// QLinearReduceMean(data, data_scale, data_zp, reduced_scale, reduced_zp; axes, keepdims).
Status MapQLinearReduceMean(NodeContext& ctx) {
  if (!ctx.HasInput(4) && ctx.InputType(0).dtype != DType::kU8) {
    return ctx.UnsupportedOp(
        "QLinearReduceMean of i8 data without reduced_zero_point is not mapped (its output "
        "type would be the data's)");
  }
  const std::optional<std::vector<int64_t>> axes = ctx.AttrInts("axes");
  if (!axes || ctx.Attr("keepdims") == nullptr) return ctx.Invalid("needs axes and keepdims");
  SY_ASSIGN_OR_RETURN(ValueId x, DequantizedInput(ctx, 0, 1, 2));
  Attrs attrs;
  attrs.Set("axes", *axes);
  attrs.Set("keepdims", ctx.AttrInt("keepdims", 1));
  return BindQuantized(ctx, ctx.Emit1("reduce_mean", {x}, std::move(attrs)), 3, 4);
}

// QLinearWhere(condition, X, x_scale, x_zp, Y, y_scale, y_zp, z_scale, z_zp).
Status MapQLinearWhere(NodeContext& ctx) {
  SY_ASSIGN_OR_RETURN(ValueId cond, ctx.Input(0));
  SY_ASSIGN_OR_RETURN(ValueId x, DequantizedInput(ctx, 1, 2, 3));
  SY_ASSIGN_OR_RETURN(ValueId y, DequantizedInput(ctx, 4, 5, 6));
  return BindQuantized(ctx, ctx.Emit1("where", {cond, x, y}), 7, 8);
}

// QLinearConcat(Y_scale, Y_zp, (X, X_scale, X_zp)...; axis).
Status MapQLinearConcat(NodeContext& ctx) {
  if (ctx.num_inputs() < 5 || (ctx.num_inputs() - 2) % 3 != 0) {
    return ctx.Invalid(
        "QLinearConcat takes Y_scale, Y_zero_point and triples (X, X_scale, "
        "X_zero_point), not " +
        std::to_string(ctx.num_inputs()) + " inputs");
  }
  std::vector<ValueId> parts;
  for (size_t i = 2; i < ctx.num_inputs(); i += 3) {
    SY_ASSIGN_OR_RETURN(ValueId x, DequantizedInput(ctx, i, i + 1, i + 2));
    parts.push_back(x);
  }
  Attrs attrs;
  attrs.Set("axis", ctx.AttrInt("axis", 0));
  return BindQuantized(ctx, ctx.Emit1("concat", parts, std::move(attrs)), 0, 1);
}

// QGemm(A, a_scale, a_zp, B, b_scale, b_zp[, C, y_scale, y_zp]; alpha, transA, transB): the
// product of the zero-point-shifted A and B in f32 (as QLinearMatMul), C (int32, scale
// a_scale * b_scale) added, times alpha * a_scale * b_scale (b's per column); then
// quantized with y_scale and y_zp, or float output without y_scale.
Status MapQGemm(NodeContext& ctx) {
  const bool trans_a = ctx.AttrInt("transA", 0) != 0;
  const bool trans_b = ctx.AttrInt("transB", 0) != 0;
  SY_ASSIGN_OR_RETURN(ValueId a, Shifted(ctx, 0, 2, DType::kF32, 0));
  SY_ASSIGN_OR_RETURN(ValueId b, Shifted(ctx, 3, 5, DType::kF32, trans_b ? 0 : 1));
  if (trans_a) {
    SY_ASSIGN_OR_RETURN(a, EmitTranspose(ctx, a, {1, 0}));
  }
  if (trans_b) {
    SY_ASSIGN_OR_RETURN(b, EmitTranspose(ctx, b, {1, 0}));
  }
  SY_ASSIGN_OR_RETURN(ValueId acc, ctx.Emit1("matmul", {a, b}));
  if (ctx.HasInput(6)) {
    SY_ASSIGN_OR_RETURN(ValueId c, ctx.Input(6));
    SY_ASSIGN_OR_RETURN(c, CastTo(ctx, c, DType::kF32));
    SY_ASSIGN_OR_RETURN(acc, ctx.Emit1("add", {acc, c}));
  }
  const DType f = ctx.InputType(1).dtype;
  SY_ASSIGN_OR_RETURN(ValueId as, ctx.Input(1));
  SY_ASSIGN_OR_RETURN(ValueId bs, ctx.Input(4));
  SY_ASSIGN_OR_RETURN(bs, AlongAxis(ctx, bs, 1, 2));
  SY_ASSIGN_OR_RETURN(ValueId m, ctx.Emit1("mul", {as, bs}));
  SY_ASSIGN_OR_RETURN(ValueId alpha, ctx.Scalar(f, ctx.AttrFloat("alpha", 1.0)));
  SY_ASSIGN_OR_RETURN(m, ctx.Emit1("mul", {m, alpha}));
  SY_ASSIGN_OR_RETURN(ValueId real, ctx.Emit1("mul", {acc, m}));
  SY_ASSIGN_OR_RETURN(real, CastTo(ctx, real, f));
  if (!ctx.HasInput(7)) {
    ctx.SetOutput(0, real);
    return Status::Ok();
  }
  return BindQuantized(ctx, real, 7, 8);
}

// DynamicQuantizeMatMul(A, B, b_scale[, b_zero_point, bias]) (com.microsoft, what
// quantize_dynamic writes for MatMul in ONNX Runtime's older formats): A quantized as
// DynamicQuantizeLinear does, the exact integer product with B less its zero point (per
// column along N), scaled by a_scale * b_scale, bias added.
Status MapDynamicQuantizeMatMul(NodeContext& ctx) {
  SY_ASSIGN_OR_RETURN(ValueId x, ctx.Input(0));
  SY_ASSIGN_OR_RETURN(const DynamicCodes q, DynamicQuantizeCodes(ctx, x));
  ValueId acc;
  const Shape& bs_shape = ctx.InputType(1).shape;
  if (IsByte(ctx.InputType(1).dtype) && bs_shape.size() >= 2 &&
      ScalarOrOneDZeroPoint(ctx, 3, bs_shape.back())) {
    // The codes (integers 0 to 255) and their zero point as bytes: matmul_integer, which
    // the cpu device multiplies as bytes.
    SY_ASSIGN_OR_RETURN(ValueId codes, CastTo(ctx, q.codes, DType::kU8));
    SY_ASSIGN_OR_RETURN(ValueId zero, CastTo(ctx, q.zero_point, DType::kU8));
    SY_ASSIGN_OR_RETURN(ValueId b, ctx.Input(1));
    std::vector<ValueId> inputs = {codes, b, zero};
    if (ctx.HasInput(3)) {
      SY_ASSIGN_OR_RETURN(ValueId bz, ctx.Input(3));
      inputs.push_back(bz);
    }
    SY_ASSIGN_OR_RETURN(acc, ctx.Emit1("matmul_integer", inputs));
  } else {
    SY_ASSIGN_OR_RETURN(ValueId a, ctx.Emit1("sub", {q.codes, q.zero_point}));
    SY_ASSIGN_OR_RETURN(a, CastTo(ctx, a, DType::kI32));
    SY_ASSIGN_OR_RETURN(ValueId b, Shifted(ctx, 1, 3, DType::kI32, -1));
    SY_ASSIGN_OR_RETURN(acc, ctx.Emit1("matmul", {a, b}));
  }
  const DType f = ctx.TypeOf(x).dtype;
  SY_ASSIGN_OR_RETURN(acc, CastTo(ctx, acc, f));
  SY_ASSIGN_OR_RETURN(ValueId bs, ctx.Input(2));
  SY_ASSIGN_OR_RETURN(ValueId m, ctx.Emit1("mul", {q.scale, bs}));
  SY_ASSIGN_OR_RETURN(ValueId y, ctx.Emit1("mul", {acc, m}));
  if (ctx.HasInput(4)) {
    SY_ASSIGN_OR_RETURN(ValueId bias, ctx.Input(4));
    SY_ASSIGN_OR_RETURN(y, ctx.Emit1("add", {y, bias}));
  }
  ctx.SetOutput(0, y);
  return Status::Ok();
}

// MatMulNBits(A, B, scales[, zero_points, g_idx, bias]; K, N, bits, block_size) with the
// semantics of ONNX Runtime's ContribOperators documentation: A [..., K] times B^T, B
// [N, k_blocks, blob] holding `bits`-bit codes low-first; scales [N * k_blocks] or
// [N, k_blocks]; zero points packed `8 / bits` a byte per row of blocks (uint8), or one
// per block in A's dtype; g_idx mapping each k to its block; bias [N] added last.
// quant_matmul takes 4 and 8 bits and integer zero points; g_idx only as the plain
// k / block_size order (what every writer but GPTQ's act-order emits).
Status MapMatMulNBits(NodeContext& ctx) {
  const int64_t k = ctx.AttrInt("K", -1);
  const int64_t n = ctx.AttrInt("N", -1);
  const int64_t bits = ctx.AttrInt("bits", 4);
  const int64_t block = ctx.AttrInt("block_size", 0);
  if (k <= 0 || n <= 0) return ctx.Invalid("attributes K and N must be positive");
  if (bits != 4 && bits != 8) {
    return ctx.UnsupportedOp("MatMulNBits with bits = " + std::to_string(bits) +
                             " is not mapped (quant_matmul takes 4- and 8-bit codes)");
  }
  if (block < 16 || block > 256 || (block & (block - 1)) != 0) {
    return ctx.UnsupportedOp("MatMulNBits with block_size " + std::to_string(block) +
                             " is not mapped (quant_matmul takes powers of two from 16 to 256)");
  }
  const int64_t k_blocks = (k + block - 1) / block;
  const int64_t blob = block * bits / 8;
  SY_ASSIGN_OR_RETURN(ValueId a, ctx.Input(0));
  const TensorType& at = ctx.TypeOf(a);
  if (at.shape.empty() || at.shape.back() != k) {
    return ctx.Invalid("input A has shape " + ShapeToString(at.shape) +
                       " but its last dimension must be K = " + std::to_string(k));
  }
  if (ctx.InputType(1).dtype != DType::kU8) {
    return ctx.UnsupportedOp("MatMulNBits with B of dtype " +
                             std::string(DTypeName(ctx.InputType(1).dtype)) +
                             " is not mapped (packed uint8 only)");
  }
  const auto reshaped = [&](ValueId v, const Shape& shape,
                            std::string_view name) -> Expected<ValueId> {
    const Shape& have = ctx.TypeOf(v).shape;
    if (ElementCount(have) != ElementCount(shape)) {
      return ctx.Invalid("input " + std::string(name) + " has shape " + ShapeToString(have) +
                         " but must hold " + ShapeToString(shape) + " (" +
                         std::to_string(ElementCount(shape)) + " elements)");
    }
    return EmitReshape(ctx, v, std::vector<int64_t>(shape.begin(), shape.end()));
  };
  SY_ASSIGN_OR_RETURN(ValueId b, ctx.Input(1));
  SY_ASSIGN_OR_RETURN(b, reshaped(b, {n, k_blocks, blob}, "B"));
  SY_ASSIGN_OR_RETURN(ValueId scales, ctx.Input(2));
  SY_ASSIGN_OR_RETURN(scales, reshaped(scales, {n, k_blocks}, "scales"));
  std::vector<ValueId> inputs = {a, b, scales};
  if (ctx.HasInput(3)) {
    const Tensor* zp = ctx.ConstantInput(3);
    if (zp == nullptr) {
      return ctx.UnsupportedOp("MatMulNBits with zero points computed at run time is not mapped");
    }
    const std::vector<double> packed = ToDoubles(*zp);
    std::vector<double> zeros(static_cast<size_t>(n * k_blocks));
    const int64_t limit = int64_t{1} << bits;
    if (zp->dtype() == DType::kU8) {
      const int64_t row_bytes = (k_blocks * bits + 7) / 8;
      if (static_cast<int64_t>(packed.size()) != n * row_bytes) {
        return ctx.Invalid("input zero_points (uint8) must hold N * ceil(k_blocks * bits / 8) = " +
                           std::to_string(n * row_bytes) + " bytes, not " +
                           std::to_string(packed.size()));
      }
      for (int64_t j = 0; j < n; ++j) {
        for (int64_t i = 0; i < k_blocks; ++i) {
          const auto byte =
              static_cast<int64_t>(packed[static_cast<size_t>(j * row_bytes + i * bits / 8)]);
          zeros[static_cast<size_t>(j * k_blocks + i)] =
              static_cast<double>(bits == 8 ? byte : (byte >> (4 * (i % 2))) & 0xF);
        }
      }
    } else {
      if (static_cast<int64_t>(packed.size()) != n * k_blocks) {
        return ctx.Invalid(
            "input zero_points must hold N * k_blocks = " + std::to_string(n * k_blocks) +
            " values, not " + std::to_string(packed.size()));
      }
      for (size_t i = 0; i < packed.size(); ++i) {
        const double z = packed[i];
        if (!(z >= 0 && z < static_cast<double>(limit)) || z != std::floor(z)) {
          std::ostringstream text;
          text << z;
          return ctx.UnsupportedOp("MatMulNBits with a zero point of " + text.str() +
                                   " is not mapped (quant_matmul's zero points are codes, "
                                   "integers from 0 to " +
                                   std::to_string(limit - 1) + ")");
        }
        zeros[i] = z;
      }
    }
    SY_ASSIGN_OR_RETURN(Tensor t, FromDoubles(DType::kU8, {n, k_blocks}, zeros));
    inputs.push_back(ctx.state().AddConstant(t, ctx.node().output(0) + "/zero_points"));
  }
  if (ctx.HasInput(4)) {
    SY_ASSIGN_OR_RETURN(std::vector<int64_t> g_idx, ctx.StaticInts(4, "g_idx"));
    bool plain = static_cast<int64_t>(g_idx.size()) == k;
    for (int64_t i = 0; plain && i < k; ++i) plain = g_idx[static_cast<size_t>(i)] == i / block;
    if (!plain) {
      return ctx.UnsupportedOp(
          "MatMulNBits with a g_idx other than k / block_size (act-order "
          "GPTQ) is not mapped");
    }
  }
  Attrs attrs;
  attrs.Set("bits", bits);
  attrs.Set("block_size", block);
  // ONNX Runtime's levels: 4 lets the product quantize A to int8 per block (docs/ops.md).
  attrs.Set("accuracy_level", ctx.AttrInt("accuracy_level", 0));
  SY_ASSIGN_OR_RETURN(ValueId y, ctx.Emit1("quant_matmul", inputs, std::move(attrs)));
  if (ctx.HasInput(5)) {
    SY_ASSIGN_OR_RETURN(ValueId bias, ctx.Input(5));
    SY_ASSIGN_OR_RETURN(y, ctx.Emit1("add", {y, bias}));
  }
  ctx.SetOutput(0, y);
  return Status::Ok();
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
  const auto ms = [](std::string_view op) { return "com.microsoft:" + std::string(op); };
  // ONNX Runtime's own Q/DQ (what its tools write for 4- and 16-bit types below opset
  // 21): ONNX's semantics with `axis` (and `block_size` where given).
  table.At(ms("DequantizeLinear")).map = MapDequantize;
  table.At(ms("QuantizeLinear")).map = MapQuantize;
  table.At(ms("MatMulNBits")).map = MapMatMulNBits;
  table.At(ms("DynamicQuantizeMatMul")).map = MapDynamicQuantizeMatMul;
  table.At(ms("QGemm")).map = MapQGemm;
  table.At(ms("QLinearAdd")).map = [](NodeContext& ctx) { return MapQLinearBinary(ctx, "add"); };
  table.At(ms("QLinearMul")).map = [](NodeContext& ctx) { return MapQLinearBinary(ctx, "mul"); };
  table.At(ms("QLinearSigmoid")).map = [](NodeContext& ctx) {
    return MapQLinearUnary(ctx, "sigmoid");
  };
  table.At(ms("QLinearLeakyRelu")).map = MapQLinearLeakyRelu;
  table.At(ms("QLinearGlobalAveragePool")).map = MapQLinearGlobalAveragePool;
  table.At(ms("QLinearAveragePool")).map = MapQLinearAveragePool;
  table.At(ms("QLinearConcat")).map = MapQLinearConcat;
  table.At(ms("QLinearSoftmax")).map = MapQLinearSoftmax;
  table.At(ms("QLinearReduceMean")).map = MapQLinearReduceMean;
  table.At(ms("QLinearWhere")).map = MapQLinearWhere;
}

}  // namespace sy::onnx_import
