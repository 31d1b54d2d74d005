// conv, max_pool and avg_pool over 1 to 3 spatial dims (kernels/conv.cl): direct kernels,
// one work-item per output element. Float dtypes. conv_transpose is in ops_misc.cpp.
#include <string>

#include "cl_op.h"
#include "kernel_sources.h"

namespace sy::opencl {
namespace {

std::vector<int64_t> IntsOr(const Attrs& attrs, std::string_view name, size_t size, int64_t fill) {
  if (!attrs.Has(name)) return std::vector<int64_t>(size, fill);
  std::vector<int64_t> values = attrs.GetInts(name);
  values.resize(size, fill);
  return values;
}

// Per spatial dim: in, out, kernel, stride, pad_begin, pad_end, dilation.
std::vector<int64_t> WindowMeta(const NodeInfo& node, const Shape& kernel) {
  const Shape& x = node.inputs[0].shape;
  const Shape& y = node.outputs[0].shape;
  const size_t spatial = x.size() - 2;
  const std::vector<int64_t> strides = IntsOr(node.attrs, "strides", spatial, 1);
  const std::vector<int64_t> pads = IntsOr(node.attrs, "pads", 2 * spatial, 0);
  const std::vector<int64_t> dilations = IntsOr(node.attrs, "dilations", spatial, 1);
  std::vector<int64_t> meta;
  for (size_t d = 0; d < spatial; ++d) {
    for (int64_t v :
         {x[d + 2], y[d + 2], kernel[d], strides[d], pads[d], pads[spatial + d], dilations[d]}) {
      meta.push_back(v);
    }
  }
  return meta;
}

int64_t Count(const Shape& s, size_t begin) {
  int64_t p = 1;
  for (size_t d = begin; d < s.size(); ++d) p *= s[d];
  return p;
}

class ConvOp : public ClOp {
 public:
  void Prepare(PrepareContext& ctx) override {
    const NodeInfo& node = ctx.node();
    const Shape& x = node.inputs[0].shape;
    const Shape& w = node.inputs[1].shape;
    const Shape kernel(w.begin() + 2, w.end());
    spatial_ = static_cast<int>(x.size() - 2);
    channels_ = x[1];
    out_channels_ = node.outputs[0].shape[1];
    group_ = node.attrs.GetInt("group", 1);
    in_count_ = Count(x, 2);
    out_count_ = Count(node.outputs[0].shape, 2);
    tap_count_ = Count(w, 2);
    has_bias_ = node.inputs.size() > 2;
    meta_ = ctx.Upload(WindowMeta(node, kernel));
    const DType dtype = node.inputs[0].dtype;
    std::string defines =
        SlotDefines('A', dtype) + SlotDefines('Y', node.outputs[0].dtype) + "#define CONV 1\n";
    if (has_bias_) defines += SlotDefines('C', node.inputs[2].dtype) + "#define HAS_BIAS 1\n";
    kernel_ = ctx.Kernel("conv", defines, dtype == DType::kF64, "sy_conv");
  }

  void Enqueue(const EnqueueContext& ctx) override {
    const uint64_t n = static_cast<uint64_t>(ctx.outputs[0].count());
    if (n == 0) return;
    const ClTensor& bias = has_bias_ ? ctx.inputs[2] : ctx.inputs[1];  // unused without
    KernelArgs args(kernel_.get());
    args.Tensor(ctx.inputs[0]).Tensor(ctx.inputs[1]).Tensor(bias).Tensor(ctx.outputs[0]);
    args.Add(static_cast<cl_ulong>(n))
        .Add(static_cast<cl_long>(channels_))
        .Add(static_cast<cl_long>(out_channels_))
        .Add(static_cast<cl_long>(group_))
        .Add(static_cast<cl_int>(spatial_))
        .Add(static_cast<cl_long>(in_count_))
        .Add(static_cast<cl_long>(out_count_))
        .Add(static_cast<cl_long>(tap_count_))
        .Add(meta_.get());
    Launch1D(ctx.queue, kernel_.get(), n);
  }

 private:
  int spatial_ = 0;
  int64_t channels_ = 0, out_channels_ = 0, group_ = 1, in_count_ = 0, out_count_ = 0,
          tap_count_ = 0;
  bool has_bias_ = false;
  UniqueMem meta_;
  UniqueKernel kernel_;
};

class PoolOp : public ClOp {
 public:
  void Prepare(PrepareContext& ctx) override {
    const NodeInfo& node = ctx.node();
    const Shape& x = node.inputs[0].shape;
    const size_t spatial = x.size() - 2;
    const std::vector<int64_t> kernel = IntsOr(node.attrs, "kernel_shape", spatial, 1);
    spatial_ = static_cast<int>(spatial);
    in_count_ = Count(x, 2);
    out_count_ = Count(node.outputs[0].shape, 2);
    tap_count_ = 1;
    for (int64_t k : kernel) tap_count_ *= k;
    meta_ = ctx.Upload(WindowMeta(node, kernel));
    const DType dtype = node.inputs[0].dtype;
    std::string defines =
        SlotDefines('A', dtype) + SlotDefines('Y', node.outputs[0].dtype) + "#define POOL 1\n";
    if (node.op == "max_pool") defines += "#define MAX_POOL 1\n";
    if (node.attrs.GetInt("count_include_pad", 0) != 0) defines += "#define COUNT_INCLUDE_PAD 1\n";
    kernel_ = ctx.Kernel("conv", defines, dtype == DType::kF64, "sy_pool");
  }

  void Enqueue(const EnqueueContext& ctx) override {
    const uint64_t n = static_cast<uint64_t>(ctx.outputs[0].count());
    if (n == 0) return;
    KernelArgs(kernel_.get())
        .Tensor(ctx.inputs[0])
        .Tensor(ctx.outputs[0])
        .Add(static_cast<cl_ulong>(n))
        .Add(static_cast<cl_int>(spatial_))
        .Add(static_cast<cl_long>(in_count_))
        .Add(static_cast<cl_long>(out_count_))
        .Add(static_cast<cl_long>(tap_count_))
        .Add(meta_.get());
    Launch1D(ctx.queue, kernel_.get(), n);
  }

 private:
  int spatial_ = 0;
  int64_t in_count_ = 0, out_count_ = 0, tap_count_ = 0;
  UniqueMem meta_;
  UniqueKernel kernel_;
};

bool SupportsWindow(const NodeInfo& node, const DeviceCaps& device, std::string& reason) {
  if (!node.inputs.empty()) {
    if (!IsFloat(node.inputs[0].dtype)) {
      reason = node.op + " takes float dtypes only";
      return false;
    }
    const size_t rank = node.inputs[0].shape.size();
    if (rank < 3 || rank > 5) {
      reason = node.op + ": 1 to 3 spatial dims";
      return false;
    }
  }
  return DTypesUsable(node.inputs, device, reason);
}

std::unique_ptr<ClOp> CreateConv(const NodeInfo&) { return std::make_unique<ConvOp>(); }
std::unique_ptr<ClOp> CreatePool(const NodeInfo&) { return std::make_unique<PoolOp>(); }

}  // namespace

void RegisterConvOps(ClOpRegistry& registry) {
  registry.Add("conv", SupportsWindow, CreateConv);
  registry.Add("max_pool", SupportsWindow, CreatePool);
  registry.Add("avg_pool", SupportsWindow, CreatePool);
}

}  // namespace sy::opencl
