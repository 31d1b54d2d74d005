// The normalization family: softmax, log_softmax, layer_norm, rms_norm, batch_norm,
// group_norm and instance_norm (float dtypes): kernels/normalization.cu. Rows go to a warp
// or a block each (one thread each when the axis is not innermost). Semantics of
// plugins/cpu/src/ref/normalization_ref.cpp.
#include <string>
#include <vector>

#include "../kernels/normalization.h"
#include "cu_op.h"
#include "ops_util.h"

namespace sy::cuda {
namespace {

bool SupportsFloat(const NodeInfo& node, const DeviceCaps&, std::string& reason) {
  return SameFloat(node, reason);
}

// ---- softmax, log_softmax -----------------------------------------------------------------

class SoftmaxOp : public CuOp {
 public:
  void Prepare(PrepareContext& ctx) override {
    const NodeInfo& node = ctx.node();
    split_ = SplitAxis(node.inputs[0].shape, node.attrs.GetInt("axis", -1));
    log_ = node.op == "log_softmax";
    dtype_ = node.inputs[0].dtype;
  }
  void Enqueue(const EnqueueContext& ctx) override {
    if (ctx.outputs[0].count() == 0) return;
    CheckLaunch(kern::LaunchSoftmax(dtype_, log_, ctx.inputs[0].data, ctx.outputs[0].data,
                                    split_.outer, split_.n, split_.inner, ctx.stream),
                "softmax");
  }

 private:
  AxisSplit split_;
  bool log_ = false;
  DType dtype_ = DType::kF32;
};

std::unique_ptr<CuOp> CreateSoftmax(const NodeInfo&) { return std::make_unique<SoftmaxOp>(); }

// ---- layer_norm, rms_norm -----------------------------------------------------------------

class AxisNormOp : public CuOp {
 public:
  void Prepare(PrepareContext& ctx) override {
    const NodeInfo& node = ctx.node();
    const Shape& s = node.inputs[0].shape;
    const auto axis = static_cast<size_t>(NormAxis(node.attrs.GetInt("axis", -1), s.size()));
    const Shape normalized(s.begin() + static_cast<std::ptrdiff_t>(axis), s.end());
    outer_ = Product(s, 0, axis);
    n_ = ElementCount(normalized);
    rms_ = node.op == "rms_norm";
    has_bias_ = node.inputs.size() > 2;
    eps_ = node.attrs.GetFloat("epsilon", 1e-5);
    dtype_ = node.inputs[0].dtype;
    if (outer_ == 0 || n_ == 0) return;
    std::vector<Shape> params = {node.inputs[1].shape};
    params.push_back(has_bias_ ? node.inputs[2].shape : node.inputs[1].shape);
    std::vector<int64_t> meta;
    rank_ = CollapseBroadcast(normalized, params, meta);
    meta_ = ctx.Upload(meta);
  }
  void Enqueue(const EnqueueContext& ctx) override {
    if (outer_ == 0 || n_ == 0) return;
    CheckLaunch(kern::LaunchAxisNorm(dtype_, rms_, ctx.inputs[0].data, ctx.inputs[1].data,
                                     has_bias_ ? ctx.inputs[2].data : nullptr, ctx.outputs[0].data,
                                     outer_, n_, rank_, meta_, eps_, ctx.stream),
                "layer_norm / rms_norm");
  }

 private:
  int64_t outer_ = 0, n_ = 0;
  int rank_ = 1;
  bool rms_ = false, has_bias_ = false;
  double eps_ = 1e-5;
  DType dtype_ = DType::kF32;
  const int64_t* meta_ = nullptr;
};

std::unique_ptr<CuOp> CreateAxisNorm(const NodeInfo&) { return std::make_unique<AxisNormOp>(); }

// ---- batch_norm ---------------------------------------------------------------------------

class BatchNormOp : public CuOp {
 public:
  void Prepare(PrepareContext& ctx) override {
    const NodeInfo& node = ctx.node();
    const Shape& s = node.inputs[0].shape;
    count_ = ElementCount(s);
    channels_ = s.size() > 1 ? s[1] : 1;
    spatial_ = Product(s, 2, s.size());
    eps_ = node.attrs.GetFloat("epsilon", 1e-5);
    dtype_ = node.inputs[0].dtype;
  }
  void Enqueue(const EnqueueContext& ctx) override {
    if (count_ == 0) return;
    CheckLaunch(
        kern::LaunchBatchNorm(dtype_, ctx.inputs[0].data, ctx.inputs[1].data, ctx.inputs[2].data,
                              ctx.inputs[3].data, ctx.inputs[4].data, ctx.outputs[0].data, count_,
                              channels_, spatial_, eps_, ctx.stream),
        "batch_norm");
  }

 private:
  int64_t count_ = 0, channels_ = 1, spatial_ = 1;
  double eps_ = 1e-5;
  DType dtype_ = DType::kF32;
};

std::unique_ptr<CuOp> CreateBatchNorm(const NodeInfo&) { return std::make_unique<BatchNormOp>(); }

// ---- group_norm, instance_norm ------------------------------------------------------------

class GroupNormOp : public CuOp {
 public:
  void Prepare(PrepareContext& ctx) override {
    const NodeInfo& node = ctx.node();
    const Shape& s = node.inputs[0].shape;
    const int64_t batch = s.empty() ? 1 : s[0];
    const int64_t channels = s.size() > 1 ? s[1] : 1;
    spatial_ = Product(s, 2, s.size());
    groups_ = node.op == "group_norm" ? node.attrs.GetInt("num_groups", 1) : channels;
    cpg_ = (channels == 0 || groups_ == 0) ? 1 : channels / groups_;
    rows_ = batch * groups_;
    eps_ = node.attrs.GetFloat("epsilon", 1e-5);
    dtype_ = node.inputs[0].dtype;
    count_ = ElementCount(s);
  }
  void Enqueue(const EnqueueContext& ctx) override {
    if (count_ == 0 || rows_ == 0) return;
    CheckLaunch(kern::LaunchGroupNorm(dtype_, ctx.inputs[0].data, ctx.inputs[1].data,
                                      ctx.inputs[2].data, ctx.outputs[0].data, rows_, groups_, cpg_,
                                      spatial_, eps_, ctx.stream),
                "group_norm / instance_norm");
  }

 private:
  int64_t rows_ = 0, groups_ = 1, cpg_ = 1, spatial_ = 1, count_ = 0;
  double eps_ = 1e-5;
  DType dtype_ = DType::kF32;
};

std::unique_ptr<CuOp> CreateGroupNorm(const NodeInfo&) { return std::make_unique<GroupNormOp>(); }

bool SupportsGroupNorm(const NodeInfo& node, const DeviceCaps&, std::string& reason) {
  if (!SameFloat(node, reason)) return false;
  const Shape& s = node.inputs[0].shape;
  if (s.size() < 2) {
    reason = node.op + " needs x of rank >= 2";
    return false;
  }
  if (node.op == "group_norm") {
    const int64_t groups = node.attrs.GetInt("num_groups", 1);
    if (groups <= 0 || (s[1] != 0 && s[1] % groups != 0)) {
      reason = "group_norm: num_groups must divide the channels";
      return false;
    }
  }
  return true;
}

bool SupportsAxisNorm(const NodeInfo& node, const DeviceCaps&, std::string& reason) {
  if (node.inputs.size() < 2 || !SameFloat(node, reason)) {
    if (reason.empty()) reason = node.op + " takes x, scale and an optional bias";
    return false;
  }
  return true;
}

bool SupportsBatchNorm(const NodeInfo& node, const DeviceCaps&, std::string& reason) {
  if (node.inputs.size() != 5 || !SameFloat(node, reason)) {
    if (reason.empty()) reason = "batch_norm takes x, scale, bias, mean and var";
    return false;
  }
  return true;
}

}  // namespace

void RegisterNormalizationOps(CuOpRegistry& registry) {
  registry.Add("softmax", SupportsFloat, CreateSoftmax);
  registry.Add("log_softmax", SupportsFloat, CreateSoftmax);
  registry.Add("layer_norm", SupportsAxisNorm, CreateAxisNorm);
  registry.Add("rms_norm", SupportsAxisNorm, CreateAxisNorm);
  registry.Add("batch_norm", SupportsBatchNorm, CreateBatchNorm);
  registry.Add("group_norm", SupportsGroupNorm, CreateGroupNorm);
  registry.Add("instance_norm", SupportsGroupNorm, CreateGroupNorm);
}

}  // namespace sy::cuda
