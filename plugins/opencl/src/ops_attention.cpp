// attention (kernels/attention.cl): one work-item per query row, with a scratch buffer of
// rows x Dv accumulators allocated at prepare. Float dtypes; the mask may be float
// (q's dtype, additive) or bool.
#include <cmath>
#include <string>

#include "cl_op.h"
#include "kernel_sources.h"

namespace sy::opencl {
namespace {

class AttentionOp : public ClOp {
 public:
  void Prepare(PrepareContext& ctx) override {
    const NodeInfo& node = ctx.node();
    const Shape& q = node.inputs[0].shape;
    const Shape& k = node.inputs[1].shape;
    const Shape& v = node.inputs[2].shape;
    dtype_ = node.inputs[0].dtype;
    hq_ = q[1], s_ = q[2], d_ = q[3], hkv_ = k[1], t_ = k[2], dv_ = v[3];
    rows_ = q[0] * hq_ * s_;
    scale_ = node.attrs.Has("scale") ? node.attrs.GetFloat("scale")
                                     : 1.0 / std::sqrt(static_cast<double>(d_));
    causal_ = node.attrs.GetInt("is_causal", 0) != 0;
    has_mask_ = node.inputs.size() > 3;
    std::string defines = SlotDefines('A', dtype_) + SlotDefines('Y', node.outputs[0].dtype);
    if (has_mask_) {
      const Shape& mask = node.inputs[3].shape;
      int64_t stride = 1;
      const size_t lead = 4 - mask.size();
      for (size_t d = mask.size(); d-- > 0;) {
        mask_strides_[lead + d] = mask[d] == 1 ? 0 : stride;
        stride *= mask[d];
      }
      defines += SlotDefines('M', node.inputs[3].dtype) + "#define HAS_MASK 1\n";
    }
    kernel_ = ctx.Kernel("attention", defines, dtype_ == DType::kF64, "sy_attention");
    const uint64_t scratch = static_cast<uint64_t>(rows_ * dv_) * (dtype_ == DType::kF64 ? 8 : 4);
    if (scratch > 0) scratch_ = std::make_unique<ClBuffer>(ctx.device(), scratch);
  }

  void Enqueue(const EnqueueContext& ctx) override {
    if (rows_ == 0 || dv_ == 0 || hkv_ == 0) return;
    const ClTensor& mask = has_mask_ ? ctx.inputs[3] : ctx.inputs[0];  // unused without
    KernelArgs args(kernel_.get());
    args.Tensor(ctx.inputs[0]).Tensor(ctx.inputs[1]).Tensor(ctx.inputs[2]).Tensor(mask);
    args.Tensor(ctx.outputs[0]).Add(scratch_->mem()).Add(static_cast<cl_ulong>(rows_));
    for (int64_t x : {hq_, s_, d_, hkv_, t_, dv_}) args.Add(static_cast<cl_long>(x));
    args.Scalar(dtype_, scale_).Add(static_cast<cl_int>(causal_ ? 1 : 0));
    for (int64_t x : mask_strides_) args.Add(static_cast<cl_long>(x));
    Launch1D(ctx.queue, kernel_.get(), static_cast<uint64_t>(rows_));
  }

 private:
  DType dtype_ = DType::kF32;
  int64_t hq_ = 0, s_ = 0, d_ = 0, hkv_ = 0, t_ = 0, dv_ = 0, rows_ = 0;
  double scale_ = 1.0;
  bool causal_ = false, has_mask_ = false;
  int64_t mask_strides_[4] = {0, 0, 0, 0};
  std::unique_ptr<ClBuffer> scratch_;
  UniqueKernel kernel_;
};

bool SupportsAttention(const NodeInfo& node, const DeviceCaps& device, std::string& reason) {
  if (!node.inputs.empty() && !IsFloat(node.inputs[0].dtype)) {
    reason = "attention takes float dtypes only";
    return false;
  }
  return DTypesUsable(node.inputs, device, reason);
}

std::unique_ptr<ClOp> CreateAttention(const NodeInfo&) { return std::make_unique<AttentionOp>(); }

}  // namespace

void RegisterAttentionOps(ClOpRegistry& registry) {
  registry.Add("attention", SupportsAttention, CreateAttention);
}

}  // namespace sy::opencl
