// softmax and log_softmax along `axis` (kernels/softmax.cl): one work-item per row.
#include <string>

#include "cl_op.h"
#include "kernel_sources.h"

namespace sy::opencl {
namespace {

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
    kernel_ = ctx.Kernel("softmax", defines, dtype == DType::kF64, "sy_softmax");
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

bool SupportsSoftmax(const NodeInfo& node, const DeviceCaps& device, std::string& reason) {
  if (!node.inputs.empty() && !IsFloat(node.inputs[0].dtype)) {
    reason = node.op + " takes float dtypes only";
    return false;
  }
  return DTypesUsable(node.inputs, device, reason);
}

std::unique_ptr<ClOp> CreateSoftmax(const NodeInfo&) { return std::make_unique<SoftmaxOp>(); }

}  // namespace

void RegisterSoftmaxOps(ClOpRegistry& registry) {
  registry.Add("softmax", SupportsSoftmax, CreateSoftmax);
  registry.Add("log_softmax", SupportsSoftmax, CreateSoftmax);
}

}  // namespace sy::opencl
