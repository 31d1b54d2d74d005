// reduce_sum reduce_mean reduce_max reduce_min reduce_prod (floats and integers) and
// global_avg_pool (floats): kernels/reduction.cl, one work-item per output element.
#include <limits>
#include <string>

#include "cl_op.h"
#include "element_bits.h"
#include "kernel_sources.h"

namespace sy::opencl {
namespace {

using plugin::IntRange;

int ReduceCode(std::string_view op) {
  if (op == "reduce_mean" || op == "global_avg_pool") return 1;
  if (op == "reduce_max") return 2;
  if (op == "reduce_min") return 3;
  if (op == "reduce_prod") return 4;
  return 0;
}

class ReduceOp : public ClOp {
 public:
  void Prepare(PrepareContext& ctx) override {
    const NodeInfo& node = ctx.node();
    const Shape& s = node.inputs[0].shape;
    const size_t rank = s.size();
    std::vector<bool> reduced(rank, false);
    if (node.op == "global_avg_pool") {
      for (size_t d = 2; d < rank; ++d) reduced[d] = true;
    } else {
      const std::vector<int64_t> axes = node.attrs.GetInts("axes");
      if (axes.empty()) reduced.assign(rank, true);
      for (int64_t a : axes)
        reduced[static_cast<size_t>(a < 0 ? a + static_cast<int64_t>(rank) : a)] = true;
    }
    // Merge adjacent dims of the same kind (x is contiguous, so they stay contiguous).
    std::vector<int64_t> dims, flags;
    for (size_t d = 0; d < rank; ++d) {
      if (s[d] == 1) continue;
      if (!dims.empty() && flags.back() == (reduced[d] ? 1 : 0)) {
        dims.back() *= s[d];
      } else {
        dims.push_back(s[d]);
        flags.push_back(reduced[d] ? 1 : 0);
      }
    }
    if (dims.empty()) dims = {1}, flags = {0};
    group_ = 1;
    for (size_t d = 0; d < rank; ++d) {
      if (reduced[d]) group_ *= s[d];
    }
    std::vector<int64_t> strides(dims.size(), 1);
    for (size_t d = dims.size(); d-- > 1;) strides[d - 1] = strides[d] * dims[d];
    rank_ = static_cast<int>(dims.size());
    std::vector<int64_t> meta = dims;
    meta.insert(meta.end(), flags.begin(), flags.end());
    meta.insert(meta.end(), strides.begin(), strides.end());
    meta_ = ctx.Upload(meta);
    const DType dtype = node.inputs[0].dtype;
    std::tie(lo_, hi_) = IntRange(dtype);
    const std::string defines = SlotDefines('A', dtype) + SlotDefines('Y', node.outputs[0].dtype) +
                                "#define REDUCE_OP " + std::to_string(ReduceCode(node.op)) + "\n";
    kernel_ = ctx.Kernel("reduction", defines, dtype == DType::kF64, "sy_reduce");
  }

  void Enqueue(const EnqueueContext& ctx) override {
    const uint64_t n = static_cast<uint64_t>(ctx.outputs[0].count());
    if (n == 0) return;
    KernelArgs(kernel_.get())
        .Tensor(ctx.inputs[0])
        .Tensor(ctx.outputs[0])
        .Add(static_cast<cl_ulong>(n))
        .Add(static_cast<cl_ulong>(group_))
        .Add(static_cast<cl_int>(rank_))
        .Add(meta_.get())
        .Add(static_cast<cl_long>(lo_))
        .Add(static_cast<cl_long>(hi_));
    Launch1D(ctx.queue, kernel_.get(), n);
  }

 private:
  int64_t group_ = 1, lo_ = 0, hi_ = 0;
  int rank_ = 1;
  UniqueMem meta_;
  UniqueKernel kernel_;
};

bool SupportsReduce(const NodeInfo& node, const DeviceCaps& device, std::string& reason) {
  if (node.op == "global_avg_pool" && !node.inputs.empty() && !IsFloat(node.inputs[0].dtype)) {
    reason = "global_avg_pool takes float dtypes only";
    return false;
  }
  return DTypesUsable(node.inputs, device, reason);
}

std::unique_ptr<ClOp> CreateReduce(const NodeInfo&) { return std::make_unique<ReduceOp>(); }

}  // namespace

void RegisterReductionOps(ClOpRegistry& registry) {
  for (const char* op : {"reduce_sum", "reduce_mean", "reduce_max", "reduce_min", "reduce_prod",
                         "global_avg_pool"}) {
    registry.Add(op, SupportsReduce, CreateReduce);
  }
}

}  // namespace sy::opencl
