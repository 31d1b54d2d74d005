// The neural family: attention, rotary_embedding, resize and grid_sample (float dtypes):
// kernels/neural.cu. Attention is one fused kernel per query row with an online softmax
// over chunks of keys; resize reads per-axis taps computed here at prepare exactly as the
// reference computes them (plugins/cpu/src/ref/neural_ref.cpp) and sums in f64.
#include <algorithm>
#include <array>
#include <cmath>
#include <string>
#include <vector>

#include "../kernels/neural.h"
#include "cu_op.h"
#include "ops_util.h"
#include "resize_taps.h"

namespace sy::cuda {
namespace {

// ---- attention ----------------------------------------------------------------------------

constexpr size_t kMaxAttentionShared = 48 * 1024;  // no opt-in needed below this

class AttentionOp : public CuOp {
 public:
  void Prepare(PrepareContext& ctx) override {
    const NodeInfo& node = ctx.node();
    const Shape& q = node.inputs[0].shape;
    const Shape& k = node.inputs[1].shape;
    const Shape& v = node.inputs[2].shape;
    dims_.b = q[0];
    dims_.hq = q[1];
    dims_.s = q[2];
    dims_.d = q[3];
    dims_.hkv = k[1];
    dims_.t = k[2];
    dims_.dv = v[3];
    scale_ = node.attrs.Has("scale") ? node.attrs.GetFloat("scale")
                                     : 1.0 / std::sqrt(static_cast<double>(dims_.d));
    causal_ = node.attrs.GetInt("is_causal", 0) != 0;
    dtype_ = node.inputs[0].dtype;
    if (node.inputs.size() > 3) {
      const TensorType& mask = node.inputs[3];
      mask_kind_ = mask.dtype == DType::kBool ? 2 : 1;
      const std::vector<int64_t> strides = RowMajorStrides(mask.shape);
      const size_t lead = 4 - mask.shape.size();
      for (size_t d = 0; d < mask.shape.size(); ++d) {
        if (mask.shape[d] != 1) dims_.mask_strides[lead + d] = strides[d];
      }
    }
    count_ = ElementCount(node.outputs[0].shape);
  }
  void Enqueue(const EnqueueContext& ctx) override {
    if (count_ == 0) return;
    CheckLaunch(
        kern::LaunchAttention(dtype_, mask_kind_, ctx.inputs[0].data, ctx.inputs[1].data,
                              ctx.inputs[2].data, mask_kind_ != 0 ? ctx.inputs[3].data : nullptr,
                              ctx.outputs[0].data, dims_, scale_, causal_, ctx.stream),
        "attention");
  }

 private:
  kern::AttentionDims dims_;
  double scale_ = 1.0;
  bool causal_ = false;
  int mask_kind_ = 0;
  DType dtype_ = DType::kF32;
  int64_t count_ = 0;
};

std::unique_ptr<CuOp> CreateAttention(const NodeInfo&) { return std::make_unique<AttentionOp>(); }

bool SupportsAttention(const NodeInfo& node, const DeviceCaps&, std::string& reason) {
  if (node.inputs.size() < 3 || !SameFloat(node, reason, 3)) {
    if (reason.empty()) reason = "attention takes q, k, v and an optional mask";
    return false;
  }
  const Shape& q = node.inputs[0].shape;
  const Shape& k = node.inputs[1].shape;
  const Shape& v = node.inputs[2].shape;
  if (q.size() != 4 || k.size() != 4 || v.size() != 4) {
    reason = "attention on the CUDA plugin takes 4-D q, k and v ([B, H, S, D])";
    return false;
  }
  if (k[1] == 0 ? q[1] != 0 : q[1] % k[1] != 0) {
    reason = "attention: q's heads must be a multiple of k's";
    return false;
  }
  if (node.inputs.size() > 3) {
    const TensorType& mask = node.inputs[3];
    if (mask.dtype != DType::kBool && mask.dtype != node.inputs[0].dtype) {
      reason = "attention: a float mask must have q's dtype (" +
               std::string(DTypeName(node.inputs[0].dtype)) + ")";
      return false;
    }
    if (mask.shape.size() > 4) {
      reason = "attention: the mask has more than 4 dims";
      return false;
    }
  }
  const size_t shared = kern::AttentionSharedBytes(node.inputs[0].dtype, q[3], v[3]);
  if (shared > kMaxAttentionShared) {
    reason = "attention with head dims D = " + std::to_string(q[3]) +
             ", Dv = " + std::to_string(v[3]) + " needs " + std::to_string(shared) +
             " bytes of shared memory per block, over the CUDA plugin's 48 KiB";
    return false;
  }
  return true;
}

// ---- rotary_embedding ---------------------------------------------------------------------

class RotaryOp : public CuOp {
 public:
  void Prepare(PrepareContext& ctx) override {
    const NodeInfo& node = ctx.node();
    const Shape& s = node.inputs[0].shape;
    rows_ = s[0] * s[1];
    seq_ = s[2];
    dim_ = s[3];
    rotary_ = node.attrs.Has("rotary_dim") ? node.attrs.GetInt("rotary_dim") : dim_;
    interleaved_ = node.attrs.GetInt("interleaved", 0) != 0;
    dtype_ = node.inputs[0].dtype;
  }
  void Enqueue(const EnqueueContext& ctx) override {
    if (ctx.outputs[0].count() == 0) return;
    CheckLaunch(kern::LaunchRotary(dtype_, ctx.inputs[0].data, ctx.inputs[1].data,
                                   ctx.inputs[2].data, ctx.outputs[0].data, rows_, seq_, dim_,
                                   rotary_, interleaved_, ctx.stream),
                "rotary_embedding");
  }

 private:
  int64_t rows_ = 0, seq_ = 0, dim_ = 0, rotary_ = 0;
  bool interleaved_ = false;
  DType dtype_ = DType::kF32;
};

std::unique_ptr<CuOp> CreateRotary(const NodeInfo&) { return std::make_unique<RotaryOp>(); }

bool SupportsRotary(const NodeInfo& node, const DeviceCaps&, std::string& reason) {
  if (node.inputs.size() != 3 || !SameFloat(node, reason)) {
    if (reason.empty()) reason = "rotary_embedding takes x, cos and sin";
    return false;
  }
  if (node.inputs[0].shape.size() != 4) {
    reason = "rotary_embedding on the CUDA plugin takes 4-D x ([B, H, S, D])";
    return false;
  }
  return true;
}

// ---- resize -------------------------------------------------------------------------------
// The taps of each output coordinate, per axis, are plugins/common's (as the CPU reference
// computes them); the kernel's table holds up to four per coordinate, so antialias and
// tf_crop_and_resize are declined (SupportsResize).

constexpr size_t kMaxResizeRank = 8;

class ResizeOp : public CuOp {
 public:
  void Prepare(PrepareContext& ctx) override {
    const NodeInfo& node = ctx.node();
    const Shape& xs = node.inputs[0].shape;
    const Shape& ys = node.outputs[0].shape;
    dtype_ = node.inputs[0].dtype;
    count_ = ElementCount(ys);
    if (count_ == 0) return;
    rank_ = static_cast<int>(xs.size());
    const plugin::ResizeParams params = plugin::ResizeParams::FromAttrs(node.attrs);
    // meta: out dims, x strides, first table entry per axis, then the table.
    std::vector<int64_t> meta(ys.begin(), ys.end());
    const std::vector<int64_t> strides = RowMajorStrides(xs);
    meta.insert(meta.end(), strides.begin(), strides.end());
    std::vector<int64_t> table;
    for (size_t d = 0; d < xs.size(); ++d) {
      const int64_t in = xs[d];
      const int64_t out = ys[d];
      const plugin::ResizeAxisTaps taps = plugin::ComputeResizeAxisTaps(params, d, in, out);
      meta.push_back(static_cast<int64_t>(table.size() / 9));
      for (int64_t xo = 0; xo < out; ++xo) {
        const size_t count = taps.count(xo);
        if (count == 0 || count > 4) {
          throw sy_sdk::Error(SY_ERROR_INTERNAL, node.Describe() + ": resize tap count " +
                                                     std::to_string(count) + " out of range");
        }
        int64_t entry[9] = {static_cast<int64_t>(count), 0, 0, 0, 0, 0, 0, 0, 0};
        for (size_t k = 0; k < count; ++k) {
          entry[1 + k] = taps.at(xo)[k].index;
          entry[5 + k] = DoubleBits(taps.at(xo)[k].weight);
        }
        table.insert(table.end(), entry, entry + 9);
      }
    }
    meta.insert(meta.end(), table.begin(), table.end());
    if (meta.empty()) meta.push_back(0);  // rank 0: one element, no taps
    meta_ = ctx.Upload(meta);
  }
  void Enqueue(const EnqueueContext& ctx) override {
    if (count_ == 0) return;
    CheckLaunch(kern::LaunchResize(dtype_, ctx.inputs[0].data, ctx.outputs[0].data, count_, rank_,
                                   meta_, ctx.stream),
                "resize");
  }

 private:
  DType dtype_ = DType::kF32;
  int64_t count_ = 0;
  int rank_ = 0;
  const int64_t* meta_ = nullptr;
};

std::unique_ptr<CuOp> CreateResize(const NodeInfo&) { return std::make_unique<ResizeOp>(); }

bool SupportsResize(const NodeInfo& node, const DeviceCaps&, std::string& reason) {
  if (node.inputs.size() != 1 || !SameFloat(node, reason)) {
    if (reason.empty()) reason = "resize takes one input";
    return false;
  }
  if (node.inputs[0].shape.size() > kMaxResizeRank) {
    reason = "resize on the CUDA plugin takes rank <= 8";
    return false;
  }
  if (node.attrs.GetInt("antialias", 0) != 0) {
    reason = "resize with antialias is not implemented in the CUDA plugin";
    return false;
  }
  if (node.attrs.GetString("coordinate_transformation_mode") == "tf_crop_and_resize") {
    reason = "resize's tf_crop_and_resize is not implemented in the CUDA plugin";
    return false;
  }
  return true;
}

// ---- grid_sample --------------------------------------------------------------------------

class GridSampleOp : public CuOp {
 public:
  void Prepare(PrepareContext& ctx) override {
    const NodeInfo& node = ctx.node();
    const Shape& x = node.inputs[0].shape;
    const Shape& y = node.outputs[0].shape;
    n_ = x[0];
    c_ = x[1];
    h_ = x[2];
    w_ = x[3];
    ho_ = y[2];
    wo_ = y[3];
    const std::string mode = node.attrs.GetString("mode", "bilinear");
    interp_ = mode == "nearest" ? 0 : mode == "bicubic" ? 2 : 1;
    const std::string padding = node.attrs.GetString("padding_mode", "zeros");
    padding_ = padding == "border" ? 1 : padding == "reflection" ? 2 : 0;
    align_ = node.attrs.GetInt("align_corners", 0) != 0;
    dtype_ = node.inputs[0].dtype;
  }
  void Enqueue(const EnqueueContext& ctx) override {
    if (ctx.outputs[0].count() == 0) return;
    CheckLaunch(
        kern::LaunchGridSample(dtype_, ctx.inputs[0].data, ctx.inputs[1].data, ctx.outputs[0].data,
                               n_, c_, h_, w_, ho_, wo_, interp_, padding_, align_, ctx.stream),
        "grid_sample");
  }

 private:
  int64_t n_ = 0, c_ = 0, h_ = 0, w_ = 0, ho_ = 0, wo_ = 0;
  int interp_ = 1, padding_ = 0;
  bool align_ = false;
  DType dtype_ = DType::kF32;
};

std::unique_ptr<CuOp> CreateGridSample(const NodeInfo&) { return std::make_unique<GridSampleOp>(); }

bool SupportsGridSample(const NodeInfo& node, const DeviceCaps&, std::string& reason) {
  if (node.inputs.size() != 2 || !SameFloat(node, reason)) {
    if (reason.empty()) reason = "grid_sample takes x and grid";
    return false;
  }
  if (node.inputs[0].shape.size() != 4 || node.inputs[1].shape.size() != 4 ||
      node.outputs[0].shape.size() != 4) {
    reason = "grid_sample on the CUDA plugin takes 4-D x and grid";
    return false;
  }
  return true;
}

}  // namespace

void RegisterNeuralOps(CuOpRegistry& registry) {
  registry.Add("attention", SupportsAttention, CreateAttention);
  registry.Add("rotary_embedding", SupportsRotary, CreateRotary);
  registry.Add("resize", SupportsResize, CreateResize);
  registry.Add("grid_sample", SupportsGridSample, CreateGridSample);
}

}  // namespace sy::cuda
