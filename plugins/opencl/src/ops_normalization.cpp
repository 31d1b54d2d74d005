// layer_norm, rms_norm and batch_norm (inference): kernels/normalization.cl. Float dtypes
// only (the schemas'), computed in float (f32 f16 bf16) or double (f64).
#include <string>

#include "cl_op.h"
#include "kernel_sources.h"

namespace sy::opencl {
namespace {

// For a parameter broadcasting (unidirectionally) to `dims`: its element offset for each
// row-major position of `dims`.
std::vector<int64_t> BroadcastOffsets(const Shape& dims, const Shape& param) {
  std::vector<int64_t> strides(dims.size(), 0);
  int64_t stride = 1;
  const size_t lead = dims.size() - param.size();
  for (size_t d = param.size(); d-- > 0;) {
    strides[lead + d] = param[d] == 1 ? 0 : stride;
    stride *= param[d];
  }
  const int64_t count = ElementCount(dims);
  std::vector<int64_t> offsets(static_cast<size_t>(count));
  std::vector<int64_t> index(dims.size(), 0);
  int64_t offset = 0;
  for (int64_t i = 0; i < count; ++i) {
    offsets[static_cast<size_t>(i)] = offset;
    for (size_t d = dims.size(); d-- > 0;) {
      offset += strides[d];
      if (++index[d] < dims[d]) break;
      offset -= strides[d] * dims[d];
      index[d] = 0;
    }
  }
  return offsets;
}

class AxisNormOp : public ClOp {
 public:
  void Prepare(PrepareContext& ctx) override {
    const NodeInfo& node = ctx.node();
    const Shape& s = node.inputs[0].shape;
    const int64_t rank = static_cast<int64_t>(s.size());
    int64_t axis = node.attrs.GetInt("axis", -1);
    if (axis < 0) axis += rank;
    const Shape normalized(s.begin() + axis, s.end());
    rows_ = 1;
    for (int64_t d = 0; d < axis; ++d) rows_ *= s[static_cast<size_t>(d)];
    n_ = ElementCount(normalized);
    eps_ = node.attrs.GetFloat("epsilon", 1e-5);
    dtype_ = node.inputs[0].dtype;
    has_bias_ = node.inputs.size() > 2;
    std::vector<int64_t> offsets = BroadcastOffsets(normalized, node.inputs[1].shape);
    if (has_bias_) {
      const std::vector<int64_t> bias = BroadcastOffsets(normalized, node.inputs[2].shape);
      offsets.insert(offsets.end(), bias.begin(), bias.end());
    }
    offsets_ = ctx.Upload(offsets);
    std::string defines = SlotDefines('A', dtype_) + SlotDefines('B', node.inputs[1].dtype) +
                          SlotDefines('Y', node.outputs[0].dtype) + "#define AXIS_NORM 1\n";
    if (has_bias_) defines += SlotDefines('C', node.inputs[2].dtype) + "#define HAS_BIAS 1\n";
    if (node.op == "rms_norm") defines += "#define RMS_NORM 1\n";
    kernel_ = ctx.Kernel("normalization", defines, dtype_ == DType::kF64, "sy_axis_norm");
  }

  void Enqueue(const EnqueueContext& ctx) override {
    if (rows_ == 0 || n_ == 0) return;
    const ClTensor& bias = has_bias_ ? ctx.inputs[2] : ctx.inputs[1];  // unused without
    KernelArgs(kernel_.get())
        .Tensor(ctx.inputs[0])
        .Tensor(ctx.inputs[1])
        .Tensor(bias)
        .Tensor(ctx.outputs[0])
        .Add(static_cast<cl_ulong>(rows_))
        .Add(static_cast<cl_ulong>(n_))
        .Scalar(dtype_, eps_)
        .Add(offsets_.get());
    Launch1D(ctx.queue, kernel_.get(), static_cast<uint64_t>(rows_));
  }

 private:
  int64_t rows_ = 0, n_ = 0;
  double eps_ = 1e-5;
  DType dtype_ = DType::kF32;
  bool has_bias_ = false;
  UniqueMem offsets_;
  UniqueKernel kernel_;
};

class BatchNormOp : public ClOp {
 public:
  void Prepare(PrepareContext& ctx) override {
    const NodeInfo& node = ctx.node();
    const Shape& s = node.inputs[0].shape;
    channels_ = s.size() > 1 ? s[1] : 1;
    spatial_ = 1;
    for (size_t d = 2; d < s.size(); ++d) spatial_ *= s[d];
    eps_ = node.attrs.GetFloat("epsilon", 1e-5);
    dtype_ = node.inputs[0].dtype;
    const std::string defines = SlotDefines('A', dtype_) + SlotDefines('Y', node.outputs[0].dtype) +
                                "#define BATCH_NORM 1\n";
    kernel_ = ctx.Kernel("normalization", defines, dtype_ == DType::kF64, "sy_batch_norm");
  }

  void Enqueue(const EnqueueContext& ctx) override {
    const uint64_t n = static_cast<uint64_t>(ctx.outputs[0].count());
    if (n == 0) return;
    KernelArgs args(kernel_.get());
    for (const ClTensor& t : ctx.inputs) args.Tensor(t);
    args.Tensor(ctx.outputs[0])
        .Add(static_cast<cl_ulong>(n))
        .Add(static_cast<cl_ulong>(channels_))
        .Add(static_cast<cl_ulong>(spatial_))
        .Scalar(dtype_, eps_);
    Launch1D(ctx.queue, kernel_.get(), n);
  }

 private:
  int64_t channels_ = 1, spatial_ = 1;
  double eps_ = 1e-5;
  DType dtype_ = DType::kF32;
  UniqueKernel kernel_;
};

bool SupportsNorm(const NodeInfo& node, const DeviceCaps& device, std::string& reason) {
  if (!node.inputs.empty() && !IsFloat(node.inputs[0].dtype)) {
    reason = node.op + " takes float dtypes only";
    return false;
  }
  return DTypesUsable(node.inputs, device, reason);
}

std::unique_ptr<ClOp> CreateAxisNorm(const NodeInfo&) { return std::make_unique<AxisNormOp>(); }
std::unique_ptr<ClOp> CreateBatchNorm(const NodeInfo&) { return std::make_unique<BatchNormOp>(); }

}  // namespace

void RegisterNormalizationOps(ClOpRegistry& registry) {
  registry.Add("layer_norm", SupportsNorm, CreateAxisNorm);
  registry.Add("rms_norm", SupportsNorm, CreateAxisNorm);
  registry.Add("batch_norm", SupportsNorm, CreateBatchNorm);
}

}  // namespace sy::opencl
