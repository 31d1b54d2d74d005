// ONNX Attention (opsets 23 to 25) and RotaryEmbedding (opset 23) onto catalogue ops, and
// the attention and rotary emitters the com.microsoft ops share (attention_parts.h).
//
// Attention. The catalogue's `attention` takes q [B, Hq, S, D], k and v [B, Hkv, T, D]
// (grouped-query when Hq > Hkv), a scale, top-left `is_causal` and one mask (bool: true
// attends; float: added), and gives a fully masked row zeros, as ONNX's errata do. ONNX's
// op adds to that:
// - 3-D inputs [B, S, heads * D]: reshaped to heads and transposed (and back for Y);
// - a KV cache: past_key / past_value concatenated before k / v along T, the results
//   being present_key / present_value;
// - causal masking aligned bottom-right, `j <= i + offset`, the offset being the past
//   length (internal cache) or `nonpad_kv_seqlen[b] - S` (opset 24's external cache);
//   opset 24's padding mask `j < nonpad_kv_seqlen[b]`; opset 25's sliding window
//   `pos - left <= j <= pos + right` with pos = i + offset;
// - a mask shorter than T, padded with "masked" (-inf / false);
// - softcap (`softcap * tanh(scores / softcap)`, before the mask) and the optional
//   qk_matmul_output (modes 0 to 3), which need the scores themselves.
// Everything but the last item keeps the fused op: the extra conditions become one bool
// tensor `allowed` (from ranges of i and j, broadcast to [S, T] or [B, 1, S, T]) merged
// into the mask. With softcap or qk_matmul_output the node is decomposed into matmul,
// softmax and elementwise ops, computed as ONNX's reference does (rows whose bias is all
// -inf give zeros). softmax_precision only asks for at least that precision: the fused
// op accumulates in f32 or wider; the decomposition casts to it for the softmax.
//
// RotaryEmbedding. The catalogue's `rotary_embedding` takes cos/sin of [S, R/2] only,
// while ONNX's take per-batch [B, S, R/2] (or rows gathered by position_ids), so the op
// is decomposed into slices, products and concats of x in [B, S, H, D], as ONNX's
// reference computes it.
#include <cmath>
#include <limits>

#include "attention_parts.h"
#include "op_mapping.h"
#include "switchyard/shape.h"

namespace sy::onnx_import {
namespace {
constexpr double kInf = std::numeric_limits<double>::infinity();
}  // namespace

Dim DimOf(NodeContext& ctx, ValueId x, size_t axis) {
  return {ctx.TypeOf(x).shape[axis], ctx.state().DimsOfValue(x)[axis]};
}

Expected<int64_t> StaticSize(NodeContext& ctx, const Dim& d, std::string_view what) {
  if (!d.expr.is_const()) {
    return ctx.UnsupportedOp(std::string(what) + " is a run-time size (" + d.expr.ToString() +
                             "); this form of the op needs it fixed at import");
  }
  return d.example;
}

Expected<ValueId> SplitHeads(NodeContext& ctx, ValueId x, int64_t heads) {
  SY_ASSIGN_OR_RETURN(ValueId r, EmitReshape(ctx, x, {0, 0, heads, -1}));
  return EmitTranspose(ctx, r, {0, 2, 1, 3});
}

Expected<ValueId> EmitRange(NodeContext& ctx, const Dim& start, const Dim& limit) {
  Attrs attrs;
  attrs.Set("start", static_cast<double>(start.example));
  attrs.Set("limit", static_cast<double>(limit.example));
  attrs.Set("delta", 1.0);
  attrs.Set("dtype", std::string("i64"));
  SY_ASSIGN_OR_RETURN(ValueId out, ctx.Emit1("range", {}, std::move(attrs)));
  if (!start.expr.is_const()) ctx.AttachAttrExpr("start", {start.expr}, false);
  if (!limit.expr.is_const()) ctx.AttachAttrExpr("limit", {limit.expr}, false);
  return out;
}

Expected<ValueId> MergeHeads(NodeContext& ctx, ValueId x) {
  SY_ASSIGN_OR_RETURN(ValueId t, EmitTranspose(ctx, x, {0, 2, 1, 3}));
  return EmitReshape(ctx, t, {0, 0, -1});
}

Expected<ValueId> RepeatHeads(NodeContext& ctx, ValueId x, int64_t heads, const Dim& head_size,
                              int64_t group) {
  if (group == 1) return x;
  SY_ASSIGN_OR_RETURN(const int64_t dim, StaticSize(ctx, head_size, "the head size"));
  SY_ASSIGN_OR_RETURN(ValueId r, EmitReshape(ctx, x, {0, 0, 1, -1, dim}));
  Attrs expand;
  expand.Set("shape", std::vector<int64_t>{1, 1, group, 1, 1});
  SY_ASSIGN_OR_RETURN(ValueId e, ctx.Emit1("expand", {r}, std::move(expand)));
  return EmitReshape(ctx, e, {0, heads * group, -1, dim});
}

namespace {

Expected<ValueId> Slice(NodeContext& ctx, ValueId x, int64_t axis, int64_t start, int64_t end,
                        int64_t step = 1) {
  Attrs attrs;
  attrs.Set("starts", std::vector<int64_t>{start});
  attrs.Set("ends", std::vector<int64_t>{end});
  attrs.Set("axes", std::vector<int64_t>{axis});
  attrs.Set("steps", std::vector<int64_t>{step});
  return ctx.Emit1("slice", {x}, std::move(attrs));
}

Expected<ValueId> Concat(NodeContext& ctx, std::vector<ValueId> parts, int64_t axis) {
  Attrs attrs;
  attrs.Set("axis", axis);
  return ctx.Emit1("concat", std::move(parts), std::move(attrs));
}

Dim Plus(const Dim& a, const Dim& b) { return {a.example + b.example, a.expr + b.expr}; }
Dim Minus(const Dim& a) { return {-a.example, DimExpr(0) - a.expr}; }

// The mask after padding to T, the bool conditions of causal masking with an offset,
// padding (nonpad), the window and the mask's own length, and whether top-left causal is
// still left to the fused op.
struct Masking {
  std::optional<ValueId> mask;
  std::optional<ValueId> allowed;
  bool fused_causal = false;
};

Expected<Masking> BuildMasking(NodeContext& ctx, const AttentionSpec& a, bool need_causal_bias) {
  Masking m;
  const Dim s = DimOf(ctx, a.q, 2);
  const Dim t = DimOf(ctx, a.k, 2);
  std::optional<Dim> mask_len;  // set when the mask is shorter than T
  if (a.mask) {
    ValueId mask = *a.mask;
    const size_t mrank = ctx.TypeOf(mask).shape.size();
    if (mrank == 0) return ctx.Invalid("the attention mask must have rank >= 1");
    const Dim len = DimOf(ctx, mask, mrank - 1);
    if (!len.expr.SameAs(t.expr) && len.example != 1) {
      if (len.example > t.example) {
        return ctx.Invalid("the attention mask's last dim (" + std::to_string(len.example) +
                           ") exceeds the key length " + std::to_string(t.example));
      }
      std::vector<int64_t> pads(2 * mrank, 0);
      std::vector<DimExpr> pad_exprs(2 * mrank, DimExpr(0));
      pads[2 * mrank - 1] = t.example - len.example;
      pad_exprs[2 * mrank - 1] = t.expr - len.expr;
      Attrs attrs;
      attrs.Set("pads", pads);
      SY_ASSIGN_OR_RETURN(mask, ctx.Emit1("pad", {mask}, std::move(attrs)));
      if (!pad_exprs.back().is_const()) ctx.AttachAttrExpr("pads", pad_exprs);
      mask_len = len;
    }
    m.mask = mask;
  }
  if (a.left_window < -1 || a.right_window < -1) {
    return ctx.Invalid("left_window_size and right_window_size must be -1 or >= 0");
  }
  const bool windowed = a.left_window >= 0 || a.right_window >= 0;
  const bool explicit_causal =
      a.causal && (a.past_length || a.nonpad || windowed || need_causal_bias);
  m.fused_causal = a.causal && !explicit_causal;
  if (!explicit_causal && !windowed && !a.nonpad && !mask_len) return m;

  SY_ASSIGN_OR_RETURN(ValueId j, EmitRange(ctx, ConstDim(0), t));  // [T]
  std::vector<ValueId> conds;
  const auto cond = [&](std::string_view op, ValueId x, ValueId y) -> Status {
    SY_ASSIGN_OR_RETURN(ValueId c, ctx.Emit1(op, {x, y}));
    conds.push_back(c);
    return Status::Ok();
  };
  std::optional<ValueId> nonpad_b;  // the valid key counts as i64 [B, 1, 1, 1]
  if (a.nonpad) {
    SY_ASSIGN_OR_RETURN(ValueId n64, CastTo(ctx, *a.nonpad, DType::kI64));
    SY_ASSIGN_OR_RETURN(nonpad_b, EmitReshape(ctx, n64, {-1, 1, 1, 1}));
    SY_RETURN_IF_ERROR(cond("less", j, *nonpad_b));
  }
  if (explicit_causal || windowed) {
    // The absolute position of each query: i + offset, [S, 1] or [B, 1, S, 1].
    ValueId pos;
    if (a.nonpad) {
      SY_ASSIGN_OR_RETURN(ValueId i_minus_s, EmitRange(ctx, Minus(s), ConstDim(0)));
      SY_ASSIGN_OR_RETURN(ValueId col, EmitReshape(ctx, i_minus_s, {-1, 1}));
      SY_ASSIGN_OR_RETURN(pos, ctx.Emit1("add", {col, *nonpad_b}));
    } else {
      const Dim offset = a.past_length.value_or(ConstDim(0));
      SY_ASSIGN_OR_RETURN(ValueId i, EmitRange(ctx, offset, Plus(offset, s)));
      SY_ASSIGN_OR_RETURN(pos, EmitReshape(ctx, i, {-1, 1}));
    }
    if (a.causal) SY_RETURN_IF_ERROR(cond("less_equal", j, pos));
    if (a.left_window >= 0) {
      SY_ASSIGN_OR_RETURN(ValueId l, ctx.Scalar(DType::kI64, static_cast<double>(a.left_window)));
      SY_ASSIGN_OR_RETURN(ValueId lo, ctx.Emit1("sub", {pos, l}));
      SY_RETURN_IF_ERROR(cond("greater_equal", j, lo));
    }
    if (a.right_window >= 0) {
      SY_ASSIGN_OR_RETURN(ValueId r, ctx.Scalar(DType::kI64, static_cast<double>(a.right_window)));
      SY_ASSIGN_OR_RETURN(ValueId hi, ctx.Emit1("add", {pos, r}));
      SY_RETURN_IF_ERROR(cond("less_equal", j, hi));
    }
  }
  if (mask_len) {
    // Keys past the mask's end are masked: j < its length, as a [1] tensor.
    SY_ASSIGN_OR_RETURN(ValueId len, EmitRange(ctx, *mask_len, Plus(*mask_len, ConstDim(1))));
    SY_RETURN_IF_ERROR(cond("less", j, len));
  }
  ValueId all = conds[0];
  for (size_t c = 1; c < conds.size(); ++c) {
    SY_ASSIGN_OR_RETURN(all, ctx.Emit1("and", {all, conds[c]}));
  }
  m.allowed = all;
  return m;
}

// The additive bias of the decomposition: the mask (a bool one as 0 / -inf) plus -inf
// where `allowed` is false; none when neither is there.
Expected<std::optional<ValueId>> AdditiveBias(NodeContext& ctx, const Masking& m, DType dtype) {
  std::optional<ValueId> bias;
  SY_ASSIGN_OR_RETURN(ValueId zero, ctx.Scalar(dtype, 0.0));
  SY_ASSIGN_OR_RETURN(ValueId ninf, ctx.Scalar(dtype, -kInf));
  if (m.mask) {
    if (ctx.TypeOf(*m.mask).dtype == DType::kBool) {
      SY_ASSIGN_OR_RETURN(bias, ctx.Emit1("where", {*m.mask, zero, ninf}));
    } else {
      bias = *m.mask;
    }
  }
  if (m.allowed) {
    SY_ASSIGN_OR_RETURN(ValueId b, ctx.Emit1("where", {*m.allowed, zero, ninf}));
    if (bias) {
      SY_ASSIGN_OR_RETURN(b, ctx.Emit1("add", {*bias, b}));
    }
    bias = b;
  }
  return bias;
}

// y = softmax(softcap(scale * q k^T) + bias) v, computed op by op, and the scores asked for.
Expected<AttentionResult> DecomposedAttention(NodeContext& ctx, const AttentionSpec& a,
                                              const Masking& m) {
  const DType dtype = ctx.TypeOf(a.q).dtype;
  int64_t hq = 1, hkv = 1;
  if (!a.q_heads.expr.SameAs(a.kv_heads.expr)) {
    SY_ASSIGN_OR_RETURN(hq, StaticSize(ctx, a.q_heads, "the number of q heads"));
    SY_ASSIGN_OR_RETURN(hkv, StaticSize(ctx, a.kv_heads, "the number of kv heads"));
    if (hkv <= 0 || hq % hkv != 0) {
      return ctx.Invalid("q has " + std::to_string(hq) + " heads, not a multiple of kv's " +
                         std::to_string(hkv));
    }
  }
  SY_ASSIGN_OR_RETURN(ValueId k, RepeatHeads(ctx, a.k, hkv, a.k_head_size, hq / hkv));
  SY_ASSIGN_OR_RETURN(ValueId v, RepeatHeads(ctx, a.v, hkv, a.v_head_size, hq / hkv));
  SY_ASSIGN_OR_RETURN(ValueId kt, EmitTranspose(ctx, k, {0, 1, 3, 2}));
  SY_ASSIGN_OR_RETURN(ValueId qk, ctx.Emit1("matmul", {a.q, kt}));
  const double scale =
      a.scale.value_or(1.0 / std::sqrt(static_cast<double>(ctx.TypeOf(a.q).shape[3])));
  SY_ASSIGN_OR_RETURN(ValueId scale_c, ctx.Scalar(dtype, scale));
  SY_ASSIGN_OR_RETURN(ValueId scores, ctx.Emit1("mul", {qk, scale_c}));
  if (a.softcap > 0) {
    SY_ASSIGN_OR_RETURN(ValueId cap, ctx.Scalar(dtype, a.softcap));
    SY_ASSIGN_OR_RETURN(ValueId d, ctx.Emit1("div", {scores, cap}));
    SY_ASSIGN_OR_RETURN(ValueId th, ctx.Emit1("tanh", {d}));
    SY_ASSIGN_OR_RETURN(scores, ctx.Emit1("mul", {th, cap}));
  }
  SY_ASSIGN_OR_RETURN(std::optional<ValueId> bias, AdditiveBias(ctx, m, dtype));
  ValueId biased = scores;
  if (bias) {
    SY_ASSIGN_OR_RETURN(biased, ctx.Emit1("add", {scores, *bias}));
  }
  // softmax_precision: float (1) or double (11) wider than the inputs.
  std::optional<DType> wide;
  if (a.softmax_precision == 1 && dtype != DType::kF32 && dtype != DType::kF64) wide = DType::kF32;
  if (a.softmax_precision == 11 && dtype != DType::kF64) wide = DType::kF64;
  SY_ASSIGN_OR_RETURN(ValueId to_softmax, CastTo(ctx, biased, wide.value_or(dtype)));
  Attrs axis;
  axis.Set("axis", int64_t{-1});
  SY_ASSIGN_OR_RETURN(ValueId p, ctx.Emit1("softmax", {to_softmax}, std::move(axis)));
  SY_ASSIGN_OR_RETURN(p, CastTo(ctx, p, dtype));
  // A row with nothing to attend (its bias all -inf, or every biased score -inf) is zeros.
  Attrs last;
  last.Set("axes", std::vector<int64_t>{-1});
  last.Set("keepdims", int64_t{1});
  SY_ASSIGN_OR_RETURN(ValueId ninf, ctx.Scalar(dtype, -kInf));
  SY_ASSIGN_OR_RETURN(ValueId zero, ctx.Scalar(dtype, 0.0));
  SY_ASSIGN_OR_RETURN(ValueId row_max, ctx.Emit1("reduce_max", {biased}, last));
  SY_ASSIGN_OR_RETURN(ValueId dead, ctx.Emit1("equal", {row_max, ninf}));
  if (bias) {
    SY_ASSIGN_OR_RETURN(ValueId bias_max, ctx.Emit1("reduce_max", {*bias}, last));
    SY_ASSIGN_OR_RETURN(ValueId masked, ctx.Emit1("equal", {bias_max, ninf}));
    SY_ASSIGN_OR_RETURN(dead, ctx.Emit1("or", {dead, masked}));
  }
  SY_ASSIGN_OR_RETURN(p, ctx.Emit1("where", {dead, zero, p}));
  AttentionResult result;
  if (a.want_qk) result.qk = a.qk_mode == 3 ? p : a.qk_mode == 2 ? biased : scores;
  SY_ASSIGN_OR_RETURN(result.y, ctx.Emit1("matmul", {p, v}));
  return result;
}

}  // namespace

Expected<AttentionResult> EmitAttention(NodeContext& ctx, const AttentionSpec& a) {
  if (a.qk_mode < 0 || a.qk_mode > 3) {
    return ctx.Invalid("qk_matmul_output_mode must be 0 to 3, not " + std::to_string(a.qk_mode));
  }
  const bool decompose = a.softcap > 0 || a.want_qk;
  SY_ASSIGN_OR_RETURN(Masking m, BuildMasking(ctx, a, decompose));
  if (decompose) return DecomposedAttention(ctx, a, m);
  std::optional<ValueId> mask = m.mask;
  if (m.allowed) {
    if (!mask) {
      mask = m.allowed;
    } else if (ctx.TypeOf(*mask).dtype == DType::kBool) {
      SY_ASSIGN_OR_RETURN(mask, ctx.Emit1("and", {*mask, *m.allowed}));
    } else {
      const DType dtype = ctx.TypeOf(*mask).dtype;
      SY_ASSIGN_OR_RETURN(ValueId zero, ctx.Scalar(dtype, 0.0));
      SY_ASSIGN_OR_RETURN(ValueId ninf, ctx.Scalar(dtype, -kInf));
      SY_ASSIGN_OR_RETURN(ValueId b, ctx.Emit1("where", {*m.allowed, zero, ninf}));
      SY_ASSIGN_OR_RETURN(mask, ctx.Emit1("add", {*mask, b}));
    }
  }
  std::vector<ValueId> inputs{a.q, a.k, a.v};
  if (mask) inputs.push_back(*mask);
  Attrs attrs;
  if (a.scale) attrs.Set("scale", *a.scale);
  attrs.Set("is_causal", int64_t{m.fused_causal ? 1 : 0});
  AttentionResult result;
  SY_ASSIGN_OR_RETURN(result.y, ctx.Emit1("attention", std::move(inputs), std::move(attrs)));
  return result;
}

Expected<ValueId> EmitRotary(NodeContext& ctx, ValueId x4, ValueId cos, ValueId sin, int64_t dim,
                             int64_t rotary, bool interleaved) {
  if (rotary <= 0 || rotary > dim || rotary % 2 != 0) {
    return ctx.Invalid("the rotary dim " + std::to_string(rotary) +
                       " must be even and in (0, head size " + std::to_string(dim) + "]");
  }
  for (ValueId c : {cos, sin}) {
    const Shape& shape = ctx.TypeOf(c).shape;
    if (shape.size() != 3 || shape[2] != rotary / 2) {
      return ctx.Invalid("the cos and sin caches must give [batch, sequence, " +
                         std::to_string(rotary / 2) + "] (the rotary dim / 2), not " +
                         ShapeToString(shape));
    }
  }
  SY_ASSIGN_OR_RETURN(ValueId cos4, EmitReshape(ctx, cos, {0, 0, 1, -1}));
  SY_ASSIGN_OR_RETURN(ValueId sin4, EmitReshape(ctx, sin, {0, 0, 1, -1}));
  ValueId rotate = x4;
  if (rotary < dim) {
    SY_ASSIGN_OR_RETURN(rotate, Slice(ctx, x4, 3, 0, rotary));
  }
  ValueId x1, x2;
  if (interleaved) {
    SY_ASSIGN_OR_RETURN(x1, Slice(ctx, rotate, 3, 0, rotary, 2));
    SY_ASSIGN_OR_RETURN(x2, Slice(ctx, rotate, 3, 1, rotary, 2));
  } else {
    SY_ASSIGN_OR_RETURN(x1, Slice(ctx, rotate, 3, 0, rotary / 2));
    SY_ASSIGN_OR_RETURN(x2, Slice(ctx, rotate, 3, rotary / 2, rotary));
  }
  SY_ASSIGN_OR_RETURN(ValueId c1, ctx.Emit1("mul", {cos4, x1}));
  SY_ASSIGN_OR_RETURN(ValueId s2, ctx.Emit1("mul", {sin4, x2}));
  SY_ASSIGN_OR_RETURN(ValueId real, ctx.Emit1("sub", {c1, s2}));
  SY_ASSIGN_OR_RETURN(ValueId s1, ctx.Emit1("mul", {sin4, x1}));
  SY_ASSIGN_OR_RETURN(ValueId c2, ctx.Emit1("mul", {cos4, x2}));
  SY_ASSIGN_OR_RETURN(ValueId imag, ctx.Emit1("add", {s1, c2}));
  ValueId rotated;
  if (interleaved) {
    SY_ASSIGN_OR_RETURN(ValueId r5, EmitReshape(ctx, real, {0, 0, 0, -1, 1}));
    SY_ASSIGN_OR_RETURN(ValueId i5, EmitReshape(ctx, imag, {0, 0, 0, -1, 1}));
    SY_ASSIGN_OR_RETURN(ValueId pairs, Concat(ctx, {r5, i5}, 4));
    SY_ASSIGN_OR_RETURN(rotated, EmitReshape(ctx, pairs, {0, 0, 0, -1}));
  } else {
    SY_ASSIGN_OR_RETURN(rotated, Concat(ctx, {real, imag}, 3));
  }
  if (rotary < dim) {
    SY_ASSIGN_OR_RETURN(ValueId pass, Slice(ctx, x4, 3, rotary, dim));
    SY_ASSIGN_OR_RETURN(rotated, Concat(ctx, {rotated, pass}, 3));
  }
  return rotated;
}

Expected<ValueId> RotaryInput(NodeContext& ctx, ValueId x, int64_t heads) {
  if (ctx.TypeOf(x).shape.size() == 4) return EmitTranspose(ctx, x, {0, 2, 1, 3});
  return EmitReshape(ctx, x, {0, 0, heads, -1});
}

Expected<ValueId> RotaryOutput(NodeContext& ctx, ValueId y4, size_t rank) {
  if (rank == 4) return EmitTranspose(ctx, y4, {0, 2, 1, 3});
  return EmitReshape(ctx, y4, {0, 0, -1});
}

namespace {

Status MapAttention(NodeContext& ctx) {
  SY_ASSIGN_OR_RETURN(ValueId q, ctx.Input(0));
  SY_ASSIGN_OR_RETURN(ValueId k, ctx.Input(1));
  SY_ASSIGN_OR_RETURN(ValueId v, ctx.Input(2));
  const size_t rank = ctx.TypeOf(q).shape.size();
  if (ctx.TypeOf(k).shape.size() != rank || ctx.TypeOf(v).shape.size() != rank ||
      (rank != 3 && rank != 4)) {
    return ctx.Invalid("Q, K and V must all be 3-D or all 4-D");
  }
  AttentionSpec a;
  if (rank == 3) {
    const int64_t hq = ctx.AttrInt("q_num_heads", 0);
    const int64_t hkv = ctx.AttrInt("kv_num_heads", 0);
    if (hq <= 0 || hkv <= 0) {
      return ctx.Invalid("3-D inputs need positive q_num_heads and kv_num_heads attributes");
    }
    a.q_heads = ConstDim(hq);
    a.kv_heads = ConstDim(hkv);
    const Dim k_hidden = DimOf(ctx, k, 2), v_hidden = DimOf(ctx, v, 2);
    a.k_head_size = {k_hidden.example / hkv, k_hidden.expr / DimExpr(hkv)};
    a.v_head_size = {v_hidden.example / hkv, v_hidden.expr / DimExpr(hkv)};
    SY_ASSIGN_OR_RETURN(a.q, SplitHeads(ctx, q, hq));
    SY_ASSIGN_OR_RETURN(a.k, SplitHeads(ctx, k, hkv));
    SY_ASSIGN_OR_RETURN(a.v, SplitHeads(ctx, v, hkv));
  } else {
    a.q = q, a.k = k, a.v = v;
    a.q_heads = DimOf(ctx, q, 1);
    a.kv_heads = DimOf(ctx, k, 1);
    a.k_head_size = DimOf(ctx, k, 3);
    a.v_head_size = DimOf(ctx, v, 3);
  }
  if (ctx.HasInput(4) != ctx.HasInput(5)) {
    return ctx.Invalid("past_key and past_value must be given together");
  }
  if (ctx.HasInput(4)) {
    SY_ASSIGN_OR_RETURN(ValueId past_key, ctx.Input(4));
    SY_ASSIGN_OR_RETURN(ValueId past_value, ctx.Input(5));
    a.past_length = DimOf(ctx, past_key, 2);
    SY_ASSIGN_OR_RETURN(a.k, Concat(ctx, {past_key, a.k}, 2));
    SY_ASSIGN_OR_RETURN(a.v, Concat(ctx, {past_value, a.v}, 2));
  }
  if (ctx.HasInput(6)) {
    if (a.past_length) return ctx.Invalid("nonpad_kv_seqlen cannot be combined with past_key");
    SY_ASSIGN_OR_RETURN(a.nonpad, ctx.Input(6));
  }
  if (ctx.num_outputs() > 1 && ctx.OutputWanted(1)) ctx.SetOutput(1, a.k);
  if (ctx.num_outputs() > 2 && ctx.OutputWanted(2)) ctx.SetOutput(2, a.v);
  if (ctx.HasInput(3)) {
    SY_ASSIGN_OR_RETURN(a.mask, ctx.Input(3));
  }
  a.causal = ctx.AttrInt("is_causal", 0) != 0;
  a.left_window = ctx.AttrInt("left_window_size", -1);
  a.right_window = ctx.AttrInt("right_window_size", -1);
  if (const auto* s = ctx.Attr("scale")) a.scale = s->f();
  a.softcap = ctx.AttrFloat("softcap", 0.0);
  a.qk_mode = ctx.AttrInt("qk_matmul_output_mode", 0);
  a.want_qk = ctx.num_outputs() > 3 && ctx.OutputWanted(3);
  a.softmax_precision = ctx.AttrInt("softmax_precision", 0);
  SY_ASSIGN_OR_RETURN(AttentionResult r, EmitAttention(ctx, a));
  if (r.qk) ctx.SetOutput(3, *r.qk);
  ValueId y = r.y;
  if (rank == 3) {
    SY_ASSIGN_OR_RETURN(y, MergeHeads(ctx, y));
  }
  ctx.SetOutput(0, y);
  return Status::Ok();
}

Status MapRotaryEmbedding(NodeContext& ctx) {
  SY_ASSIGN_OR_RETURN(ValueId x, ctx.Input(0));
  SY_ASSIGN_OR_RETURN(ValueId cos, ctx.Input(1));
  SY_ASSIGN_OR_RETURN(ValueId sin, ctx.Input(2));
  const size_t rank = ctx.TypeOf(x).shape.size();
  if (rank != 3 && rank != 4) return ctx.Invalid("X must be 3-D or 4-D");
  const int64_t heads = rank == 3 ? ctx.AttrInt("num_heads", 0) : 1;
  if (heads <= 0) return ctx.Invalid("a 3-D input needs a positive num_heads attribute");
  SY_ASSIGN_OR_RETURN(ValueId x4, RotaryInput(ctx, x, heads));  // [B, S, H, D]
  const Dim last = DimOf(ctx, x, rank - 1);
  SY_ASSIGN_OR_RETURN(
      const int64_t dim,
      StaticSize(ctx, {last.example / heads, last.expr / DimExpr(heads)}, "the head size"));
  const int64_t given = ctx.AttrInt("rotary_embedding_dim", 0);
  if (ctx.HasInput(3)) {
    SY_ASSIGN_OR_RETURN(ValueId pos, ctx.Input(3));
    SY_ASSIGN_OR_RETURN(cos, ctx.Emit1("gather", {cos, pos}));
    SY_ASSIGN_OR_RETURN(sin, ctx.Emit1("gather", {sin, pos}));
  }
  SY_ASSIGN_OR_RETURN(ValueId rotated, EmitRotary(ctx, x4, cos, sin, dim, given == 0 ? dim : given,
                                                  ctx.AttrInt("interleaved", 0) != 0));
  SY_ASSIGN_OR_RETURN(ValueId out, RotaryOutput(ctx, rotated, rank));
  ctx.SetOutput(0, out);
  return Status::Ok();
}

// A tensor of `dims` (run-time sizes kept) filled with `value`: a scalar constant expanded.
Expected<ValueId> Filled(NodeContext& ctx, DType dtype, double value,
                         const std::vector<Dim>& dims) {
  SY_ASSIGN_OR_RETURN(ValueId scalar, ctx.Scalar(dtype, value, Shape(dims.size(), 1)));
  std::vector<int64_t> example;
  std::vector<DimExpr> exprs;
  bool symbolic = false;
  for (const Dim& d : dims) {
    example.push_back(d.example);
    exprs.push_back(d.expr);
    symbolic = symbolic || !d.expr.is_const();
  }
  Attrs attrs;
  attrs.Set("shape", example);
  SY_ASSIGN_OR_RETURN(ValueId out, ctx.Emit1("expand", {scalar}, std::move(attrs)));
  if (symbolic) ctx.AttachAttrExpr("shape", std::move(exprs));
  return out;
}

// LinearAttention (opset 27) onto the catalogue's linear_attention, one recurrence for
// its four update rules: `linear` (decay 0, no delta), `gated` (decay given), `delta`
// (beta given) and `gated_delta` (both). 3-D inputs are split into heads; decay
// [B, T, Hkv] or [B, T, Hkv * Dk] and beta [B, T, Hkv] or [B, T, 1] become [B, Hkv, T, .];
// an absent past state is zeros.
Status MapLinearAttention(NodeContext& ctx) {
  const std::string rule = ctx.AttrString("update_rule", "gated_delta");
  if (rule != "linear" && rule != "gated" && rule != "delta" && rule != "gated_delta") {
    return ctx.Invalid("update_rule must be linear, gated, delta or gated_delta, not '" + rule +
                       "'");
  }
  const bool gated = rule == "gated" || rule == "gated_delta";
  const bool delta = rule == "delta" || rule == "gated_delta";
  if (gated != ctx.HasInput(4)) {
    return ctx.Invalid("update_rule " + rule + (gated ? " needs" : " takes no") + " decay input");
  }
  if (delta != ctx.HasInput(5)) {
    return ctx.Invalid("update_rule " + rule + (delta ? " needs" : " takes no") + " beta input");
  }
  const int64_t hq = ctx.AttrInt("q_num_heads", 0), hkv = ctx.AttrInt("kv_num_heads", 0);
  if (hq <= 0 || hkv <= 0 || hq % hkv != 0) {
    return ctx.Invalid("q_num_heads must be a positive multiple of a positive kv_num_heads");
  }
  SY_ASSIGN_OR_RETURN(ValueId q3, ctx.Input(0));
  SY_ASSIGN_OR_RETURN(ValueId k3, ctx.Input(1));
  SY_ASSIGN_OR_RETURN(ValueId v3, ctx.Input(2));
  for (ValueId x : {q3, k3, v3}) {
    if (ctx.TypeOf(x).shape.size() != 3) return ctx.Invalid("query, key and value must be 3-D");
  }
  const DType dtype = ctx.TypeOf(q3).dtype;
  SY_ASSIGN_OR_RETURN(ValueId q, SplitHeads(ctx, q3, hq));
  SY_ASSIGN_OR_RETURN(ValueId k, SplitHeads(ctx, k3, hkv));
  SY_ASSIGN_OR_RETURN(ValueId v, SplitHeads(ctx, v3, hkv));
  const Dim k_hidden = DimOf(ctx, k3, 2), v_hidden = DimOf(ctx, v3, 2);
  SY_ASSIGN_OR_RETURN(
      const int64_t dk,
      StaticSize(ctx, {k_hidden.example / hkv, k_hidden.expr / DimExpr(hkv)}, "the key head size"));
  SY_ASSIGN_OR_RETURN(const int64_t dv,
                      StaticSize(ctx, {v_hidden.example / hkv, v_hidden.expr / DimExpr(hkv)},
                                 "the value head size"));
  // Per-step tensors [B, T, heads * width] -> [B, heads, T, width].
  const auto per_step = [&](ValueId x, int64_t heads) -> Expected<ValueId> {
    SY_ASSIGN_OR_RETURN(x, CastTo(ctx, x, dtype));
    SY_ASSIGN_OR_RETURN(ValueId r, EmitReshape(ctx, x, {0, 0, heads, -1}));
    return EmitTranspose(ctx, r, {0, 2, 1, 3});
  };
  const Dim batch = DimOf(ctx, q, 0), steps = DimOf(ctx, q, 2);
  // A constant filling [B, heads, T, 1]: decay (0) or beta (1) where the rule has none.
  const auto per_step_fill = [&](int64_t heads, double value) {
    return Filled(ctx, dtype, value, {batch, ConstDim(heads), steps, ConstDim(1)});
  };
  ValueId decay, beta;
  if (gated) {
    SY_ASSIGN_OR_RETURN(ValueId g, ctx.Input(4));
    const Shape gs = ctx.TypeOf(g).shape;
    if (gs.size() != 3 || (gs[2] != hkv && gs[2] != hkv * dk)) {
      return ctx.Invalid("decay must be [B, T, kv_num_heads] or [B, T, kv_num_heads * Dk]");
    }
    SY_ASSIGN_OR_RETURN(decay, per_step(g, hkv));
  } else {
    SY_ASSIGN_OR_RETURN(decay, per_step_fill(hkv, 0.0));
  }
  if (delta) {
    SY_ASSIGN_OR_RETURN(ValueId bt, ctx.Input(5));
    const Shape bs = ctx.TypeOf(bt).shape;
    if (bs.size() != 3 || (bs[2] != hkv && bs[2] != 1)) {
      return ctx.Invalid("beta must be [B, T, kv_num_heads] or [B, T, 1]");
    }
    SY_ASSIGN_OR_RETURN(beta, per_step(bt, bs[2]));
  } else {
    SY_ASSIGN_OR_RETURN(beta, per_step_fill(1, 1.0));
  }
  ValueId state;
  if (ctx.HasInput(3)) {
    SY_ASSIGN_OR_RETURN(ValueId p, ctx.Input(3));
    SY_ASSIGN_OR_RETURN(state, CastTo(ctx, p, dtype));
  } else {
    SY_ASSIGN_OR_RETURN(
        state, Filled(ctx, dtype, 0.0, {batch, ConstDim(hkv), ConstDim(dk), ConstDim(dv)}));
  }
  Attrs attrs;
  if (const auto* s = ctx.Attr("scale"); s != nullptr && s->f() != 0) attrs.Set("scale", s->f());
  attrs.Set("delta", int64_t{delta ? 1 : 0});
  SY_ASSIGN_OR_RETURN(
      std::vector<ValueId> out,
      ctx.Emit("linear_attention", {q, k, v, state, decay, beta}, std::move(attrs), 2));
  SY_ASSIGN_OR_RETURN(ValueId y, MergeHeads(ctx, out[0]));
  ctx.SetOutput(0, y);
  if (ctx.num_outputs() > 1 && ctx.OutputWanted(1)) {
    const DType state_dtype = ctx.HasInput(3) ? ctx.InputType(3).dtype : dtype;
    SY_ASSIGN_OR_RETURN(ValueId present, CastTo(ctx, out[1], state_dtype));
    ctx.SetOutput(1, present);
  }
  return Status::Ok();
}

}  // namespace

void AddAttentionMappings(MappingTable& table) {
  table.At("Attention", {23, 25}).map = MapAttention;
  table.At("RotaryEmbedding", {23, kMappingsCheckedThrough}).map = MapRotaryEmbedding;
  table.At("LinearAttention", {27, kMappingsCheckedThrough}).map = MapLinearAttention;
}

}  // namespace sy::onnx_import
