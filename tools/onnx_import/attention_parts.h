// The attention and rotary-embedding computations that ONNX's Attention / RotaryEmbedding
// (map_attention.cpp) and ONNX Runtime's com.microsoft attention ops
// (map_contrib_attention.cpp) share: each mapping brings its inputs to one layout and
// describes its masking; these emit the catalogue nodes.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "import_context.h"

namespace sy::onnx_import {

// A dim of a value: its size at the import's example sizes and its expression in the
// run-time size symbols (a constant in a static import).
struct Dim {
  int64_t example = 0;
  DimExpr expr;
};
Dim DimOf(NodeContext& ctx, ValueId x, size_t axis);
inline Dim ConstDim(int64_t n) { return {n, DimExpr(n)}; }
// A size a decomposition needs fixed at import, or a clear refusal naming `what`.
Expected<int64_t> StaticSize(NodeContext& ctx, const Dim& d, std::string_view what);

// Small emitters (EmitReshape and EmitTranspose are op_mapping.h's).
// i64 range(start, limit), bounds that may be run-time sizes.
Expected<ValueId> EmitRange(NodeContext& ctx, const Dim& start, const Dim& limit);
// [B, S, heads * D] -> [B, heads, S, D], and back.
Expected<ValueId> SplitHeads(NodeContext& ctx, ValueId x, int64_t heads);
Expected<ValueId> MergeHeads(NodeContext& ctx, ValueId x);
// k or v [B, Hkv, T, D] with each head repeated `group` times in place: [B, Hkv * group,
// T, D], heads h0 h0 h1 h1 ... (ONNX's reference, np.repeat on axis 1).
Expected<ValueId> RepeatHeads(NodeContext& ctx, ValueId x, int64_t heads, const Dim& head_size,
                              int64_t group);

// One attention: q [B, Hq, S, D], k [B, Hkv, T, D], v [B, Hkv, T, Dv] (any KV cache
// already concatenated), Hq a multiple of Hkv.
struct AttentionSpec {
  ValueId q = -1, k = -1, v = -1;
  // bool (true attends) or additive float in q's dtype, broadcasting one way to
  // [B, Hq, S, T]; its last dim may be shorter than T (the rest is masked).
  std::optional<ValueId> mask;
  bool causal = false;                          // key j masked past query i + offset
  std::optional<Dim> past_length;               // the offset (bottom-right alignment); else 0
  std::optional<ValueId> nonpad;                // [B] valid keys per batch (ONNX opset 24)
  int64_t left_window = -1, right_window = -1;  // -1: unbounded (ONNX opset 25)
  std::optional<double> scale;                  // default 1 / sqrt(D)
  double softcap = 0;                           // > 0: softcap * tanh(scores / softcap)
  bool want_qk = false;                         // also return the scores (ONNX's qk_matmul_output)
  int64_t qk_mode = 0;            // which scores: 0/1 raw (softcapped), 2 biased, 3 softmax
  int64_t softmax_precision = 0;  // an ONNX type code: softmax at least this wide
  // Head counts and sizes as the node's inputs give them, static where those are.
  Dim q_heads, kv_heads, k_head_size, v_head_size;
};
struct AttentionResult {
  ValueId y = -1;  // [B, Hq, S, Dv]
  std::optional<ValueId> qk;
};
Expected<AttentionResult> EmitAttention(NodeContext& ctx, const AttentionSpec& spec);

// Rotary embedding of x [B, S, H, D] with cos/sin [B or 1, S, R/2] (rows already picked
// by position), R even and at most D: halves (or even/odd elements when interleaved)
// rotated, the rest of each head passed through.
Expected<ValueId> EmitRotary(NodeContext& ctx, ValueId x4, ValueId cos, ValueId sin,
                             int64_t head_size, int64_t rotary_dim, bool interleaved);
// A rotary op's input as [B, S, H, D]: 4-D [B, H, S, D] transposed, 3-D [B, S, H * D]
// split by `heads`; and its result back in the input's layout (`rank` 3 or 4).
Expected<ValueId> RotaryInput(NodeContext& ctx, ValueId x, int64_t heads);
Expected<ValueId> RotaryOutput(NodeContext& ctx, ValueId y4, size_t rank);

}  // namespace sy::onnx_import
