// The normalization family: softmax and log_softmax along `axis` (kernels/normalization.cl,
// SY_SOFTMAX; one work-item per row); layer_norm, rms_norm and batch_norm (inference;
// kernels/normalization.cl); group_norm and instance_norm (one work-item
// per (sample, group)). Float dtypes only (the schemas'), computed in float (f32 f16 bf16)
// or double (f64).
#include <cmath>
#include <string>
#include <vector>

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

class SoftmaxOp : public ClOp {
 public:
  void Prepare(PrepareContext& ctx) override {
    const NodeInfo& node = ctx.node();
    const Shape& s = node.inputs[0].shape;
    const int64_t rank = static_cast<int64_t>(s.size());
    int64_t axis = node.attrs.GetInt("axis", -1);
    if (axis < 0) axis += rank;
    outer_ = 1, n_ = 1, inner_ = 1;
    for (int64_t d = 0; d < rank; ++d) {
      const int64_t v = s[static_cast<size_t>(d)];
      (d < axis ? outer_ : (d == axis ? n_ : inner_)) *= v;
    }
    const DType dtype = node.inputs[0].dtype;
    std::string defines = SlotDefines('A', dtype) + SlotDefines('Y', node.outputs[0].dtype);
    if (node.op == "log_softmax") defines += "#define LOG_SOFTMAX 1\n";
    kernel_ = ctx.Kernel("normalization", defines + "#define SY_SOFTMAX\n", dtype == DType::kF64,
                         "sy_softmax");
  }

  void Enqueue(const EnqueueContext& ctx) override {
    const uint64_t rows = static_cast<uint64_t>(outer_ * inner_);
    if (rows == 0 || n_ == 0) return;
    KernelArgs(kernel_.get())
        .Tensor(ctx.inputs[0])
        .Tensor(ctx.outputs[0])
        .Add(static_cast<cl_ulong>(rows))
        .Add(static_cast<cl_ulong>(n_))
        .Add(static_cast<cl_ulong>(inner_));
    Launch1D(ctx.queue, kernel_.get(), rows);
  }

 private:
  int64_t outer_ = 1, n_ = 1, inner_ = 1;
  UniqueKernel kernel_;
};

class GroupNormOp : public ClOp {
 public:
  void Prepare(PrepareContext& ctx) override {
    const NodeInfo& node = ctx.node();
    const Shape& s = node.inputs[0].shape;
    const int64_t batch = s.empty() ? 1 : s[0];
    const int64_t channels = s.size() > 1 ? s[1] : 1;
    spatial_ = 1;
    for (size_t d = 2; d < s.size(); ++d) spatial_ *= s[d];
    groups_ = channels;
    if (node.op == "group_norm") groups_ = node.attrs.GetInt("num_groups", 1);
    cpg_ = (channels == 0 || groups_ == 0) ? 1 : channels / groups_;
    rows_ = batch * groups_;
    eps_ = node.attrs.GetFloat("epsilon", 1e-5);
    dtype_ = node.inputs[0].dtype;
    const std::string defines = SlotDefines('A', dtype_) + SlotDefines('B', node.inputs[1].dtype) +
                                SlotDefines('C', node.inputs[2].dtype) +
                                SlotDefines('Y', node.outputs[0].dtype) + "#define GROUP_NORM 1\n";
    kernel_ = ctx.Kernel("normalization", defines, dtype_ == DType::kF64, "sy_group_norm");
  }

  void Enqueue(const EnqueueContext& ctx) override {
    if (rows_ == 0 || cpg_ * spatial_ == 0 || ctx.outputs[0].count() == 0) return;
    KernelArgs(kernel_.get())
        .Tensor(ctx.inputs[0])
        .Tensor(ctx.inputs[1])
        .Tensor(ctx.inputs[2])
        .Tensor(ctx.outputs[0])
        .Add(static_cast<cl_ulong>(rows_))
        .Add(static_cast<cl_ulong>(groups_))
        .Add(static_cast<cl_ulong>(cpg_))
        .Add(static_cast<cl_ulong>(spatial_))
        .Scalar(dtype_, eps_);
    Launch1D(ctx.queue, kernel_.get(), static_cast<uint64_t>(rows_));
  }

 private:
  int64_t rows_ = 0, groups_ = 1, cpg_ = 1, spatial_ = 1;
  double eps_ = 1e-5;
  DType dtype_ = DType::kF32;
  UniqueKernel kernel_;
};

std::unique_ptr<ClOp> CreateAxisNorm(const NodeInfo&) { return std::make_unique<AxisNormOp>(); }
std::unique_ptr<ClOp> CreateBatchNorm(const NodeInfo&) { return std::make_unique<BatchNormOp>(); }
std::unique_ptr<ClOp> CreateSoftmax(const NodeInfo&) { return std::make_unique<SoftmaxOp>(); }
std::unique_ptr<ClOp> CreateGroupNorm(const NodeInfo&) { return std::make_unique<GroupNormOp>(); }

}  // namespace

void RegisterNormalizationOps(ClOpRegistry& registry) {
  registry.Add("softmax", SupportsFloatOnly, CreateSoftmax);
  registry.Add("log_softmax", SupportsFloatOnly, CreateSoftmax);
  registry.Add("layer_norm", SupportsFloatOnly, CreateAxisNorm);
  registry.Add("rms_norm", SupportsFloatOnly, CreateAxisNorm);
  registry.Add("batch_norm", SupportsFloatOnly, CreateBatchNorm);
  registry.Add("group_norm", SupportsFloatOnly, CreateGroupNorm);
  registry.Add("instance_norm", SupportsFloatOnly, CreateGroupNorm);
}

}  // namespace sy::opencl
