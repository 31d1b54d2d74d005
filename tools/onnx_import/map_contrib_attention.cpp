// The attention-family com.microsoft ops that ONNX Runtime's transformers optimizer and
// model builders write, onto the emitters of attention_parts.h, with the semantics of
// ONNX Runtime's ContribOperators documentation and CPU kernels:
// - EmbedLayerNormalization: word + position (+ segment) embedding rows (`gather`),
//   `layer_norm`; mask_index the count of mask entries equal to 1 (zeros without a mask);
//   embedding_sum the sum before the norm.
// - RotaryEmbedding: ONNX's rotary embedding with ONNX Runtime's input order; position_ids
//   [B, S] pick cache rows, a [1] tensor is the first position (rows offset .. offset+S-1).
// - MultiHeadAttention: 3-D query / key / value (or 4-D key / value already split into
//   heads, for cross attention over a precomputed cache), the input projection's bias,
//   key_padding_mask ([B] lengths, [B, T] or [B, S, T] of 1 = attend), attention_bias,
//   past_key / past_value concatenated into present_key / present_value, unidirectional
//   (causal after the past).
// - Attention: the input projection (`matmul` with the merged weights, bias, split by
//   qkv_hidden_sizes), then as MultiHeadAttention; mask_index also as [2B] (end, start) for
//   left padding; past / present as [2, B, N, T, H].
// Masked keys get -inf (ONNX Runtime adds mask_filter_value, -10000 by default): the same
// result except for a query with no key left to attend, which gives zeros here (the
// catalogue's attention) and ONNX Runtime's average of all values. Refused with a reason:
// packed QKV / KV, buffer sharing (past_sequence_length, past_present_share_buffer),
// cache_indirection, do_rotary, the qk output, mask_index forms [3B + 2] and 4-D,
// packed batching and a rotary scale other than 1.
#include <limits>

#include "attention_parts.h"
#include "host_tensor_ops.h"
#include "op_mapping.h"
#include "switchyard/shape.h"

namespace sy::onnx_import {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

Expected<ValueId> Iota(NodeContext& ctx, const Dim& n) { return EmitRange(ctx, ConstDim(0), n); }

Expected<ValueId> SliceLast(NodeContext& ctx, ValueId x, int64_t start, int64_t end) {
  Attrs attrs;
  attrs.Set("starts", std::vector<int64_t>{start});
  attrs.Set("ends", std::vector<int64_t>{end});
  attrs.Set("axes", std::vector<int64_t>{-1});
  return ctx.Emit1("slice", {x}, std::move(attrs));
}

// x with a leading dim of 1 (run-time sizes kept).
Expected<ValueId> LeadingOne(NodeContext& ctx, ValueId x) {
  const Shape shape = ctx.TypeOf(x).shape;
  std::vector<int64_t> target{1};
  target.insert(target.end(), shape.begin(), shape.end());
  std::vector<DimExpr> exprs{DimExpr(1)};
  bool symbolic = false;
  for (const DimExpr& d : ctx.state().DimsOfValue(x)) {
    exprs.push_back(d);
    symbolic = symbolic || !d.is_const();
  }
  SY_ASSIGN_OR_RETURN(ValueId out, EmitReshape(ctx, x, std::move(target)));
  if (symbolic) ctx.AttachAttrExpr("shape", std::move(exprs));
  return out;
}

Status RefuseIf(NodeContext& ctx, bool present, std::string_view what) {
  if (!present) return Status::Ok();
  return ctx.UnsupportedOp(std::string(what) + " is not supported by the importer");
}

// ONNX Runtime's key masks as one bool mask broadcasting to [B, N, S, T] (true attends):
// [B] valid lengths (right padding), [2B] ends then starts (left padding), [B, T] and
// [B, S, T] of 1 = attend.
Expected<ValueId> KeyMask(NodeContext& ctx, ValueId mask, const Dim& batch, const Dim& t) {
  const Shape shape = ctx.TypeOf(mask).shape;
  SY_ASSIGN_OR_RETURN(ValueId m64, CastTo(ctx, mask, DType::kI64));
  if (shape.size() == 1) {
    SY_ASSIGN_OR_RETURN(ValueId j, Iota(ctx, t));  // [T]
    const DimExpr n = ctx.state().DimsOfValue(mask)[0];
    if (n.SameAs(batch.expr)) {
      SY_ASSIGN_OR_RETURN(ValueId len, EmitReshape(ctx, m64, {-1, 1, 1, 1}));
      return ctx.Emit1("less", {j, len});
    }
    if (n.SameAs(batch.expr * DimExpr(2))) {
      SY_ASSIGN_OR_RETURN(ValueId pairs, EmitReshape(ctx, m64, {2, -1, 1, 1, 1}));
      Attrs at;
      at.Set("axis", int64_t{0});
      SY_ASSIGN_OR_RETURN(ValueId zero, ctx.Scalar(DType::kI64, 0.0));
      SY_ASSIGN_OR_RETURN(ValueId one, ctx.Scalar(DType::kI64, 1.0));
      SY_ASSIGN_OR_RETURN(ValueId end, ctx.Emit1("gather", {pairs, zero}, at));
      SY_ASSIGN_OR_RETURN(ValueId start, ctx.Emit1("gather", {pairs, one}, at));
      SY_ASSIGN_OR_RETURN(ValueId before_end, ctx.Emit1("less", {j, end}));
      SY_ASSIGN_OR_RETURN(ValueId after_start, ctx.Emit1("greater_equal", {j, start}));
      return ctx.Emit1("and", {before_end, after_start});
    }
    return ctx.UnsupportedOp("a 1-D mask of " + n.ToString() +
                             " entries (only [batch] lengths and [2 * batch] ends and starts)");
  }
  SY_ASSIGN_OR_RETURN(ValueId one, ctx.Scalar(DType::kI64, 1.0));
  SY_ASSIGN_OR_RETURN(ValueId attend, ctx.Emit1("equal", {m64, one}));
  if (shape.size() == 2) return EmitReshape(ctx, attend, {0, 1, 1, -1});
  if (shape.size() == 3) return EmitReshape(ctx, attend, {0, 1, 0, -1});
  return ctx.UnsupportedOp("a " + std::to_string(shape.size()) + "-D mask");
}

// The mask the attention takes: the key mask (bool) and attention_bias (float) combined.
Expected<std::optional<ValueId>> CombineMasks(NodeContext& ctx, std::optional<ValueId> keys,
                                              std::optional<ValueId> bias, DType dtype) {
  if (!bias) return keys;
  if (!keys) return bias;
  SY_ASSIGN_OR_RETURN(ValueId zero, ctx.Scalar(dtype, 0.0));
  SY_ASSIGN_OR_RETURN(ValueId ninf, ctx.Scalar(dtype, -kInf));
  SY_ASSIGN_OR_RETURN(ValueId additive, ctx.Emit1("where", {*keys, zero, ninf}));
  SY_ASSIGN_OR_RETURN(ValueId sum, ctx.Emit1("add", {*bias, additive}));
  return std::optional<ValueId>(sum);
}

// Runs the attention of q, k, v [B, N, S|T, H] (past already concatenated) with the key
// mask input `mask_at` and attention_bias input `bias_at` of the node, and binds output 0.
Status FinishAttention(NodeContext& ctx, AttentionSpec& a, size_t mask_at, size_t bias_at,
                       int64_t heads) {
  const DType dtype = ctx.TypeOf(a.q).dtype;
  std::optional<ValueId> keys, bias;
  if (ctx.HasInput(mask_at)) {
    SY_ASSIGN_OR_RETURN(ValueId m, ctx.Input(mask_at));
    // The batch as the node's 3-D input 0 gives it, so that a symbolic batch compares
    // with the mask's.
    SY_ASSIGN_OR_RETURN(ValueId input0, ctx.Input(0));
    SY_ASSIGN_OR_RETURN(keys, KeyMask(ctx, m, DimOf(ctx, input0, 0), DimOf(ctx, a.k, 2)));
  }
  if (ctx.HasInput(bias_at)) {
    SY_ASSIGN_OR_RETURN(bias, ctx.Input(bias_at));
  }
  SY_ASSIGN_OR_RETURN(a.mask, CombineMasks(ctx, keys, bias, dtype));
  a.causal = ctx.AttrInt("unidirectional", 0) != 0;
  if (const auto* s = ctx.Attr("scale"); s != nullptr && s->f() != 0) a.scale = s->f();
  a.q_heads = a.kv_heads = ConstDim(heads);
  a.k_head_size = DimOf(ctx, a.k, 3);
  a.v_head_size = DimOf(ctx, a.v, 3);
  SY_ASSIGN_OR_RETURN(AttentionResult r, EmitAttention(ctx, a));
  SY_ASSIGN_OR_RETURN(ValueId y, MergeHeads(ctx, r.y));
  ctx.SetOutput(0, y);
  return Status::Ok();
}

Status MapMultiHeadAttention(NodeContext& ctx) {
  const int64_t heads = ctx.AttrInt("num_heads", 0);
  if (heads <= 0) return ctx.Invalid("num_heads must be positive");
  SY_RETURN_IF_ERROR(RefuseIf(ctx, !ctx.HasInput(1), "packed QKV (no key input)"));
  SY_RETURN_IF_ERROR(RefuseIf(ctx, ctx.HasInput(8), "past_sequence_length (buffer sharing)"));
  SY_RETURN_IF_ERROR(RefuseIf(ctx, ctx.HasInput(9), "cache_indirection (beam search)"));
  SY_RETURN_IF_ERROR(RefuseIf(ctx, ctx.num_outputs() > 3 && ctx.OutputWanted(3), "the qk output"));
  SY_ASSIGN_OR_RETURN(ValueId q, ctx.Input(0));
  SY_ASSIGN_OR_RETURN(ValueId k, ctx.Input(1));
  if (!ctx.HasInput(2)) return ctx.UnsupportedOp("packed KV (no value input)");
  SY_ASSIGN_OR_RETURN(ValueId v, ctx.Input(2));
  const size_t k_rank = ctx.TypeOf(k).shape.size();
  if (ctx.TypeOf(q).shape.size() != 3 || (k_rank != 3 && k_rank != 4) ||
      ctx.TypeOf(v).shape.size() != k_rank) {
    return ctx.UnsupportedOp("query must be 3-D and key / value both 3-D or both 4-D (BNSH)");
  }
  if (ctx.HasInput(3)) {
    SY_ASSIGN_OR_RETURN(ValueId bias, ctx.Input(3));
    if (k_rank == 4) return ctx.UnsupportedOp("a bias with 4-D key and value");
    const Shape qs = ctx.TypeOf(q).shape;
    const Shape ks = ctx.TypeOf(k).shape;
    const Shape vs = ctx.TypeOf(v).shape;
    const int64_t dq = qs[2], dk = ks[2], dv = vs[2];
    if (ctx.TypeOf(bias).shape != Shape{dq + dk + dv}) {
      return ctx.Invalid("bias must be [" + std::to_string(dq + dk + dv) + "]");
    }
    SY_ASSIGN_OR_RETURN(ValueId bq, SliceLast(ctx, bias, 0, dq));
    SY_ASSIGN_OR_RETURN(ValueId bk, SliceLast(ctx, bias, dq, dq + dk));
    SY_ASSIGN_OR_RETURN(ValueId bv, SliceLast(ctx, bias, dq + dk, dq + dk + dv));
    SY_ASSIGN_OR_RETURN(q, ctx.Emit1("add", {q, bq}));
    SY_ASSIGN_OR_RETURN(k, ctx.Emit1("add", {k, bk}));
    SY_ASSIGN_OR_RETURN(v, ctx.Emit1("add", {v, bv}));
  }
  AttentionSpec a;
  SY_ASSIGN_OR_RETURN(a.q, SplitHeads(ctx, q, heads));
  if (k_rank == 3) {
    SY_ASSIGN_OR_RETURN(a.k, SplitHeads(ctx, k, heads));
    SY_ASSIGN_OR_RETURN(a.v, SplitHeads(ctx, v, heads));
  } else {
    a.k = k, a.v = v;
  }
  if (ctx.HasInput(6) != ctx.HasInput(7)) {
    return ctx.Invalid("past_key and past_value must be given together");
  }
  if (ctx.HasInput(6)) {
    if (k_rank == 4) return ctx.UnsupportedOp("a past with 4-D key and value");
    SY_ASSIGN_OR_RETURN(ValueId past_key, ctx.Input(6));
    SY_ASSIGN_OR_RETURN(ValueId past_value, ctx.Input(7));
    a.past_length = DimOf(ctx, past_key, 2);
    Attrs cat;
    cat.Set("axis", int64_t{2});
    SY_ASSIGN_OR_RETURN(a.k, ctx.Emit1("concat", {past_key, a.k}, cat));
    SY_ASSIGN_OR_RETURN(a.v, ctx.Emit1("concat", {past_value, a.v}, cat));
  }
  if (ctx.num_outputs() > 1 && ctx.OutputWanted(1)) ctx.SetOutput(1, a.k);
  if (ctx.num_outputs() > 2 && ctx.OutputWanted(2)) ctx.SetOutput(2, a.v);
  return FinishAttention(ctx, a, 4, 5, heads);
}

Status MapContribAttention(NodeContext& ctx) {
  const int64_t heads = ctx.AttrInt("num_heads", 0);
  if (heads <= 0) return ctx.Invalid("num_heads must be positive");
  SY_RETURN_IF_ERROR(RefuseIf(ctx, ctx.AttrInt("do_rotary", 0) != 0, "do_rotary"));
  SY_RETURN_IF_ERROR(
      RefuseIf(ctx, ctx.AttrInt("past_present_share_buffer", 0) != 0, "past_present_share_buffer"));
  SY_RETURN_IF_ERROR(RefuseIf(ctx, ctx.HasInput(6), "past_sequence_length (buffer sharing)"));
  SY_ASSIGN_OR_RETURN(ValueId x, ctx.Input(0));
  SY_ASSIGN_OR_RETURN(ValueId w, ctx.Input(1));
  const Shape ws = ctx.TypeOf(w).shape;
  if (ctx.TypeOf(x).shape.size() != 3 || ws.size() != 2) {
    return ctx.Invalid("input must be [B, S, D] and weights [D, Dq + Dk + Dv]");
  }
  std::vector<int64_t> sizes = ctx.AttrInts("qkv_hidden_sizes").value_or(std::vector<int64_t>{});
  if (sizes.empty()) {
    if (ws[1] % 3 != 0) return ctx.Invalid("the weights' second dim must divide by 3");
    sizes = {ws[1] / 3, ws[1] / 3, ws[1] / 3};
  }
  if (sizes.size() != 3 || sizes[0] + sizes[1] + sizes[2] != ws[1] || sizes[0] != sizes[1] ||
      sizes[0] % heads != 0 || sizes[2] % heads != 0) {
    return ctx.Invalid(
        "qkv_hidden_sizes must be (Dq, Dq, Dv), multiples of num_heads, summing "
        "to the weights' second dim");
  }
  SY_ASSIGN_OR_RETURN(ValueId proj, ctx.Emit1("matmul", {x, w}));
  if (ctx.HasInput(2)) {
    SY_ASSIGN_OR_RETURN(ValueId b, ctx.Input(2));
    SY_ASSIGN_OR_RETURN(proj, ctx.Emit1("add", {proj, b}));
  }
  SY_ASSIGN_OR_RETURN(ValueId q, SliceLast(ctx, proj, 0, sizes[0]));
  SY_ASSIGN_OR_RETURN(ValueId k, SliceLast(ctx, proj, sizes[0], sizes[0] + sizes[1]));
  SY_ASSIGN_OR_RETURN(ValueId v, SliceLast(ctx, proj, sizes[0] + sizes[1], ws[1]));
  AttentionSpec a;
  SY_ASSIGN_OR_RETURN(a.q, SplitHeads(ctx, q, heads));
  SY_ASSIGN_OR_RETURN(a.k, SplitHeads(ctx, k, heads));
  SY_ASSIGN_OR_RETURN(a.v, SplitHeads(ctx, v, heads));
  if (ctx.HasInput(4)) {
    SY_ASSIGN_OR_RETURN(ValueId past, ctx.Input(4));
    if (ctx.TypeOf(past).shape.size() != 5 || ctx.TypeOf(past).shape[0] != 2) {
      return ctx.Invalid("past must be [2, B, N, P, H]");
    }
    a.past_length = DimOf(ctx, past, 3);
    Attrs at;
    at.Set("axis", int64_t{0});
    Attrs cat;
    cat.Set("axis", int64_t{2});
    for (ValueId* part : {&a.k, &a.v}) {
      SY_ASSIGN_OR_RETURN(ValueId index, ctx.Scalar(DType::kI64, part == &a.k ? 0.0 : 1.0));
      SY_ASSIGN_OR_RETURN(ValueId p, ctx.Emit1("gather", {past, index}, at));
      SY_ASSIGN_OR_RETURN(*part, ctx.Emit1("concat", {p, *part}, cat));
    }
  }
  if (ctx.num_outputs() > 1 && ctx.OutputWanted(1)) {
    SY_ASSIGN_OR_RETURN(ValueId k5, LeadingOne(ctx, a.k));
    SY_ASSIGN_OR_RETURN(ValueId v5, LeadingOne(ctx, a.v));
    Attrs cat;
    cat.Set("axis", int64_t{0});
    SY_ASSIGN_OR_RETURN(ValueId present, ctx.Emit1("concat", {k5, v5}, cat));
    ctx.SetOutput(1, present);
  }
  return FinishAttention(ctx, a, 3, 5, heads);
}

// A GroupQueryAttention whose present_key the model declares as long as past_key (a
// buffer shared between them, written in place at seqlens_k[b] + 1 - S), or whose
// total_sequence_length, known at import, is not the past length plus the new tokens:
// refused, since the mapping below concatenates past and new keys.
Status RefuseSharedBuffer(NodeContext& ctx, const Dim& past) {
  const std::string shared =
      "a KV buffer shared between past and present (past_present_share_buffer) is not "
      "mapped yet";
  if (ctx.num_outputs() > 1 && ctx.OutputWanted(1)) {
    const onnx::TensorShapeProto* declared = ctx.state().DeclaredShape(ctx.node().output(1));
    if (declared != nullptr && declared->dim_size() == 4) {
      const onnx::TensorShapeProto::Dimension& d = declared->dim(2);
      const bool same =
          (d.has_dim_value() && past.expr.is_const() && d.dim_value() == past.example) ||
          (d.has_dim_param() && past.expr.kind() == DimExpr::Kind::kSymbol &&
           SymbolName(d.dim_param()) == past.expr.symbol());
      if (same) return ctx.UnsupportedOp(shared + ": present_key is declared as long as past_key");
    }
  }
  if (const Tensor* total = ctx.ConstantInput(6); total != nullptr && past.expr.is_const()) {
    const std::vector<int64_t> t = ToInt64s(*total);
    const Dim s = DimOf(ctx, *ctx.Input(0), 1);
    if (t.size() == 1 && s.expr.is_const() && t[0] != past.example + s.example) {
      return ctx.UnsupportedOp(shared + ": total_sequence_length " + std::to_string(t[0]) +
                               " is not the past length plus the new tokens");
    }
  }
  return Status::Ok();
}

// GroupQueryAttention, as ONNX Runtime's CPU kernel computes it when past and present are
// separate buffers: present = past followed by the new keys and values (so the past
// length P is past_key's dim 2, and query s sits at position P + s); keys at or past
// seqlens_k[b] + 1 are masked (padding), causal masking is bottom-right after the past,
// local_window_size is a window of that many keys; rotary embedding (do_rotary) of the new q and k
// at positions P + s or position_ids; packed QKV when key is absent.
Status MapGroupQueryAttention(NodeContext& ctx) {
  const int64_t hq = ctx.AttrInt("num_heads", 0);
  const int64_t hkv = ctx.AttrInt("kv_num_heads", 0);
  if (hq <= 0 || hkv <= 0 || hq % hkv != 0) {
    return ctx.Invalid("num_heads must be a positive multiple of a positive kv_num_heads");
  }
  SY_RETURN_IF_ERROR(RefuseIf(ctx, ctx.HasInput(11), "head_sink"));
  SY_RETURN_IF_ERROR(RefuseIf(
      ctx, ctx.HasInput(12) || ctx.HasInput(13) || ctx.AttrInt("kv_cache_bit_width", 0) != 0,
      "a quantized KV cache (k_scale, v_scale, kv_cache_bit_width)"));
  SY_RETURN_IF_ERROR(RefuseIf(ctx, ctx.HasInput(16), "query_seqlens (padded chunked prefill)"));
  SY_RETURN_IF_ERROR(RefuseIf(ctx, ctx.HasInput(14) || ctx.HasInput(15),
                              "q_norm_weight / k_norm_weight (ONNX Runtime's CPU kernel refuses "
                              "them too, so there is no reference to check them against)"));
  SY_RETURN_IF_ERROR(RefuseIf(ctx, ctx.AttrInt("smooth_softmax", 0) != 0, "smooth_softmax"));
  SY_RETURN_IF_ERROR(
      RefuseIf(ctx, ctx.AttrInt("sliding_window_cache", 0) != 0, "sliding_window_cache"));
  SY_RETURN_IF_ERROR(RefuseIf(
      ctx, ctx.AttrInt("qk_output", 0) != 0 || (ctx.num_outputs() > 3 && ctx.OutputWanted(3)),
      "the qk output"));
  SY_ASSIGN_OR_RETURN(ValueId q, ctx.Input(0));
  const Shape qs = ctx.TypeOf(q).shape;
  if (qs.size() != 3) return ctx.Invalid("query must be [B, S, hidden]");
  ValueId k, v;
  int64_t head = 0;
  if (!ctx.HasInput(1)) {  // packed: [B, S, (Nq + 2 Nkv) * H]
    if (qs[2] % (hq + 2 * hkv) != 0) return ctx.Invalid("packed QKV width does not divide");
    head = qs[2] / (hq + 2 * hkv);
    SY_ASSIGN_OR_RETURN(ValueId pq, SliceLast(ctx, q, 0, hq * head));
    SY_ASSIGN_OR_RETURN(k, SliceLast(ctx, q, hq * head, (hq + hkv) * head));
    SY_ASSIGN_OR_RETURN(v, SliceLast(ctx, q, (hq + hkv) * head, qs[2]));
    q = pq;
  } else {
    if (qs[2] % hq != 0) return ctx.Invalid("num_heads must divide the query width");
    head = qs[2] / hq;
    SY_ASSIGN_OR_RETURN(k, ctx.Input(1));
    SY_ASSIGN_OR_RETURN(v, ctx.Input(2));
  }
  if (!ctx.HasInput(3) || !ctx.HasInput(4)) {
    return ctx.Invalid("past_key and past_value are required (length 0 for a first prompt)");
  }
  SY_ASSIGN_OR_RETURN(ValueId past_key, ctx.Input(3));
  SY_ASSIGN_OR_RETURN(ValueId past_value, ctx.Input(4));
  const Dim past = DimOf(ctx, past_key, 2);
  SY_RETURN_IF_ERROR(RefuseSharedBuffer(ctx, past));
  // [B, S, N, H] views for the rotary embedding.
  SY_ASSIGN_OR_RETURN(ValueId q4, EmitReshape(ctx, q, {0, 0, hq, head}));
  SY_ASSIGN_OR_RETURN(ValueId k4, EmitReshape(ctx, k, {0, 0, hkv, head}));
  if (ctx.AttrInt("do_rotary", 0) != 0) {
    if (!ctx.HasInput(7) || !ctx.HasInput(8)) return ctx.Invalid("do_rotary needs cos/sin caches");
    SY_ASSIGN_OR_RETURN(ValueId cos, ctx.Input(7));
    SY_ASSIGN_OR_RETURN(ValueId sin, ctx.Input(8));
    if (ctx.TypeOf(cos).shape.size() != 2) return ctx.Invalid("cos_cache must be 2-D");
    const int64_t rotary = 2 * ctx.TypeOf(cos).shape[1];
    ValueId pos;
    if (ctx.HasInput(9)) {
      SY_ASSIGN_OR_RETURN(pos, ctx.Input(9));
    } else {
      const Dim s = DimOf(ctx, q4, 1);
      SY_ASSIGN_OR_RETURN(ValueId r,
                          EmitRange(ctx, past, {past.example + s.example, past.expr + s.expr}));
      SY_ASSIGN_OR_RETURN(pos, EmitReshape(ctx, r, {1, -1}));
    }
    SY_ASSIGN_OR_RETURN(ValueId c, ctx.Emit1("gather", {cos, pos}));
    SY_ASSIGN_OR_RETURN(ValueId sn, ctx.Emit1("gather", {sin, pos}));
    const bool interleaved = ctx.AttrInt("rotary_interleaved", 0) != 0;
    SY_ASSIGN_OR_RETURN(q4, EmitRotary(ctx, q4, c, sn, head, rotary, interleaved));
    SY_ASSIGN_OR_RETURN(k4, EmitRotary(ctx, k4, c, sn, head, rotary, interleaved));
  }
  AttentionSpec a;
  SY_ASSIGN_OR_RETURN(a.q, EmitTranspose(ctx, q4, {0, 2, 1, 3}));
  SY_ASSIGN_OR_RETURN(ValueId kh, EmitTranspose(ctx, k4, {0, 2, 1, 3}));
  SY_ASSIGN_OR_RETURN(ValueId vh, SplitHeads(ctx, v, hkv));
  Attrs cat;
  cat.Set("axis", int64_t{2});
  SY_ASSIGN_OR_RETURN(a.k, ctx.Emit1("concat", {past_key, kh}, cat));
  SY_ASSIGN_OR_RETURN(a.v, ctx.Emit1("concat", {past_value, vh}, cat));
  if (ctx.num_outputs() > 1 && ctx.OutputWanted(1)) ctx.SetOutput(1, a.k);
  if (ctx.num_outputs() > 2 && ctx.OutputWanted(2)) ctx.SetOutput(2, a.v);
  // Keys j < seqlens_k[b] + 1 are valid.
  SY_ASSIGN_OR_RETURN(ValueId seqlens, ctx.Input(5));
  SY_ASSIGN_OR_RETURN(ValueId lens64, CastTo(ctx, seqlens, DType::kI64));
  SY_ASSIGN_OR_RETURN(ValueId one, ctx.Scalar(DType::kI64, 1.0));
  SY_ASSIGN_OR_RETURN(ValueId total, ctx.Emit1("add", {lens64, one}));
  SY_ASSIGN_OR_RETURN(ValueId total4, EmitReshape(ctx, total, {-1, 1, 1, 1}));
  SY_ASSIGN_OR_RETURN(ValueId j, Iota(ctx, DimOf(ctx, a.k, 2)));
  SY_ASSIGN_OR_RETURN(ValueId valid, ctx.Emit1("less", {j, total4}));
  std::optional<ValueId> bias;
  if (ctx.HasInput(10)) {
    SY_ASSIGN_OR_RETURN(bias, ctx.Input(10));
  }
  SY_ASSIGN_OR_RETURN(a.mask, CombineMasks(ctx, valid, bias, ctx.TypeOf(a.q).dtype));
  a.causal = ctx.AttrInt("causal", 1) != 0;
  a.past_length = past;
  // local_window_size W: each query sees its W most recent keys, itself included (ONNX
  // Runtime's CPU kernel), a left window of W - 1.
  const int64_t window = ctx.AttrInt("local_window_size", -1);
  if (window == 0 || window < -1) return ctx.Invalid("local_window_size must be -1 or positive");
  if (window > 0) a.left_window = window - 1;
  if (const auto* sc = ctx.Attr("scale"); sc != nullptr && sc->f() != 0) a.scale = sc->f();
  a.softcap = ctx.AttrFloat("softcap", 0.0);
  a.q_heads = ConstDim(hq);
  a.kv_heads = ConstDim(hkv);
  a.k_head_size = a.v_head_size = ConstDim(head);
  SY_ASSIGN_OR_RETURN(AttentionResult r, EmitAttention(ctx, a));
  SY_ASSIGN_OR_RETURN(ValueId y, MergeHeads(ctx, r.y));
  ctx.SetOutput(0, y);
  return Status::Ok();
}

Status MapContribRotaryEmbedding(NodeContext& ctx) {
  SY_RETURN_IF_ERROR(
      RefuseIf(ctx, ctx.AttrInt("is_packed_batching", 0) != 0, "is_packed_batching"));
  SY_RETURN_IF_ERROR(RefuseIf(ctx, ctx.AttrFloat("scale", 1.0) != 1.0, "a scale other than 1"));
  SY_ASSIGN_OR_RETURN(ValueId x, ctx.Input(0));
  SY_ASSIGN_OR_RETURN(ValueId pos, ctx.Input(1));
  SY_ASSIGN_OR_RETURN(ValueId cos, ctx.Input(2));
  SY_ASSIGN_OR_RETURN(ValueId sin, ctx.Input(3));
  const size_t rank = ctx.TypeOf(x).shape.size();
  if (rank != 3 && rank != 4) return ctx.Invalid("input must be 3-D or 4-D");
  if (ctx.TypeOf(cos).shape.size() != 2) return ctx.Invalid("cos_cache must be 2-D");
  const int64_t half = ctx.TypeOf(cos).shape[1];
  int64_t rotary = ctx.AttrInt("rotary_embedding_dim", 0);
  int64_t heads = ctx.AttrInt("num_heads", 0);
  const Dim last = DimOf(ctx, x, rank - 1);
  int64_t dim;
  if (rank == 4) {
    SY_ASSIGN_OR_RETURN(dim, StaticSize(ctx, last, "the head size"));
  } else {
    SY_ASSIGN_OR_RETURN(const int64_t hidden, StaticSize(ctx, last, "the hidden size"));
    if (heads <= 0) heads = hidden / (2 * half);  // ONNX Runtime: head size from the cache
    if (heads <= 0 || hidden % heads != 0) {
      return ctx.Invalid("num_heads must divide the hidden size " + std::to_string(hidden));
    }
    dim = hidden / heads;
  }
  if (rotary == 0) rotary = 2 * half;
  SY_ASSIGN_OR_RETURN(ValueId x4, RotaryInput(ctx, x, heads));  // [B, S, H, D]
  // Positions: [B, S] as given, or a [1] offset followed by the sequence.
  SY_ASSIGN_OR_RETURN(ValueId p64, CastTo(ctx, pos, DType::kI64));
  if (ctx.TypeOf(pos).shape.size() == 1) {
    SY_ASSIGN_OR_RETURN(ValueId s, Iota(ctx, DimOf(ctx, x4, 1)));
    SY_ASSIGN_OR_RETURN(ValueId s2, EmitReshape(ctx, s, {1, -1}));
    SY_ASSIGN_OR_RETURN(p64, ctx.Emit1("add", {s2, p64}));
  }
  SY_ASSIGN_OR_RETURN(ValueId c, ctx.Emit1("gather", {cos, p64}));
  SY_ASSIGN_OR_RETURN(ValueId s, ctx.Emit1("gather", {sin, p64}));
  SY_ASSIGN_OR_RETURN(ValueId rotated,
                      EmitRotary(ctx, x4, c, s, dim, rotary, ctx.AttrInt("interleaved", 0) != 0));
  SY_ASSIGN_OR_RETURN(ValueId out, RotaryOutput(ctx, rotated, rank));
  ctx.SetOutput(0, out);
  return Status::Ok();
}

Status MapEmbedLayerNormalization(NodeContext& ctx) {
  SY_ASSIGN_OR_RETURN(ValueId ids, ctx.Input(0));
  SY_ASSIGN_OR_RETURN(ValueId word, ctx.Input(2));
  SY_ASSIGN_OR_RETURN(ValueId position, ctx.Input(3));
  SY_ASSIGN_OR_RETURN(ValueId gamma, ctx.Input(5));
  SY_ASSIGN_OR_RETURN(ValueId beta, ctx.Input(6));
  if (ctx.TypeOf(ids).shape.size() != 2) return ctx.Invalid("input_ids must be [B, S]");
  SY_ASSIGN_OR_RETURN(ValueId sum, ctx.Emit1("gather", {word, ids}));
  ValueId pos_rows;
  if (ctx.HasInput(8)) {
    SY_ASSIGN_OR_RETURN(ValueId pos, ctx.Input(8));
    SY_ASSIGN_OR_RETURN(pos_rows, ctx.Emit1("gather", {position, pos}));
  } else {
    SY_ASSIGN_OR_RETURN(ValueId s, Iota(ctx, DimOf(ctx, ids, 1)));
    SY_ASSIGN_OR_RETURN(pos_rows, ctx.Emit1("gather", {position, s}));
  }
  SY_ASSIGN_OR_RETURN(sum, ctx.Emit1("add", {sum, pos_rows}));
  if (ctx.HasInput(1) != ctx.HasInput(4)) {
    return ctx.Invalid("segment_ids and segment_embedding must be given together");
  }
  if (ctx.HasInput(1)) {
    SY_ASSIGN_OR_RETURN(ValueId seg_ids, ctx.Input(1));
    SY_ASSIGN_OR_RETURN(ValueId seg, ctx.Input(4));
    SY_ASSIGN_OR_RETURN(ValueId rows, ctx.Emit1("gather", {seg, seg_ids}));
    SY_ASSIGN_OR_RETURN(sum, ctx.Emit1("add", {sum, rows}));
  }
  Attrs norm;
  norm.Set("axis", int64_t{-1});
  norm.Set("epsilon", ctx.AttrFloat("epsilon", 1e-12));
  SY_ASSIGN_OR_RETURN(ValueId out, ctx.Emit1("layer_norm", {sum, gamma, beta}, std::move(norm)));
  ctx.SetOutput(0, out);
  if (ctx.num_outputs() > 1 && ctx.OutputWanted(1)) {
    ValueId index;
    if (ctx.HasInput(7)) {
      SY_ASSIGN_OR_RETURN(ValueId mask, ctx.Input(7));
      SY_ASSIGN_OR_RETURN(ValueId m64, CastTo(ctx, mask, DType::kI64));
      SY_ASSIGN_OR_RETURN(ValueId one, ctx.Scalar(DType::kI64, 1.0));
      SY_ASSIGN_OR_RETURN(ValueId ones, ctx.Emit1("equal", {m64, one}));
      SY_ASSIGN_OR_RETURN(ValueId counted, CastTo(ctx, ones, DType::kI32));
      Attrs reduce;
      reduce.Set("axes", std::vector<int64_t>{1});
      reduce.Set("keepdims", int64_t{0});
      SY_ASSIGN_OR_RETURN(index, ctx.Emit1("reduce_sum", {counted}, std::move(reduce)));
    } else {
      SY_ASSIGN_OR_RETURN(ValueId zero, CastTo(ctx, ids, DType::kI32));
      Attrs first;
      first.Set("starts", std::vector<int64_t>{0});
      first.Set("ends", std::vector<int64_t>{1});
      first.Set("axes", std::vector<int64_t>{1});
      SY_ASSIGN_OR_RETURN(ValueId col, ctx.Emit1("slice", {zero}, std::move(first)));
      SY_ASSIGN_OR_RETURN(ValueId z, ctx.Scalar(DType::kI32, 0.0));
      SY_ASSIGN_OR_RETURN(ValueId zeros, ctx.Emit1("mul", {col, z}));
      SY_ASSIGN_OR_RETURN(index, EmitReshape(ctx, zeros, {-1}));
    }
    ctx.SetOutput(1, index);
  }
  if (ctx.num_outputs() > 2 && ctx.OutputWanted(2)) ctx.SetOutput(2, sum);
  return Status::Ok();
}

}  // namespace

void AddContribAttentionMappings(MappingTable& table) {
  table.At("com.microsoft:MultiHeadAttention").map = MapMultiHeadAttention;
  table.At("com.microsoft:Attention").map = MapContribAttention;
  table.At("com.microsoft:GroupQueryAttention").map = MapGroupQueryAttention;
  table.At("com.microsoft:RotaryEmbedding").map = MapContribRotaryEmbedding;
  table.At("com.microsoft:EmbedLayerNormalization").map = MapEmbedLayerNormalization;
}

}  // namespace sy::onnx_import
