// The reduction family: reduce_sum reduce_mean reduce_max reduce_min reduce_prod
// (kernels/reduction.cl, one work-item per output element; global_avg_pool of the conv_pool
// family reuses this op), argmax argmin cumsum topk (kernels/reduction.cl too: one work-item per
// line along the axis). Floats and integers.
#include <algorithm>
#include <limits>
#include <string>
#include <vector>

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

bool SupportsUsableDTypes(const NodeInfo& node, const DeviceCaps& device, std::string& reason) {
  return DTypesUsable(node.inputs, device, reason);
}

// x seen as [outer, n, inner] around `axis` (negative counts from the end).
struct AxisSplit {
  int64_t outer = 1, n = 1, inner = 1;
};

AxisSplit SplitAxis(const Shape& s, int64_t axis) {
  const int64_t rank = static_cast<int64_t>(s.size());
  if (axis < 0) axis += rank;
  AxisSplit v;
  for (int64_t d = 0; d < rank; ++d) {
    const int64_t dim = s[static_cast<size_t>(d)];
    if (d < axis) {
      v.outer *= dim;
    } else if (d == axis) {
      v.n = dim;
    } else {
      v.inner *= dim;
    }
  }
  return v;
}

class ArgOp : public ClOp {
 public:
  void Prepare(PrepareContext& ctx) override {
    const NodeInfo& node = ctx.node();
    v_ = SplitAxis(node.inputs[0].shape, node.attrs.GetInt("axis", 0));
    last_ = node.attrs.GetInt("select_last_index", 0) == 1 ? 1 : 0;
    const DType dtype = node.inputs[0].dtype;
    const std::string defines =
        SlotDefines('A', dtype) + "#define ARG_OP " + (node.op == "argmax" ? "1" : "0") + "\n";
    kernel_ = ctx.Kernel("reduction", defines, dtype == DType::kF64, "sy_arg");
  }

  void Enqueue(const EnqueueContext& ctx) override {
    const uint64_t lines = static_cast<uint64_t>(v_.outer * v_.inner);
    if (lines == 0 || v_.n == 0 || ctx.outputs[0].count() == 0) return;
    KernelArgs(kernel_.get())
        .Tensor(ctx.inputs[0])
        .Tensor(ctx.outputs[0])
        .Add(static_cast<cl_ulong>(v_.outer))
        .Add(static_cast<cl_ulong>(v_.n))
        .Add(static_cast<cl_ulong>(v_.inner))
        .Add(static_cast<cl_int>(last_));
    Launch1D(ctx.queue, kernel_.get(), lines);
  }

 private:
  AxisSplit v_;
  int last_ = 0;
  UniqueKernel kernel_;
};

// cumsum and cumprod.
class CumsumOp : public ClOp {
 public:
  void Prepare(PrepareContext& ctx) override {
    const NodeInfo& node = ctx.node();
    v_ = SplitAxis(node.inputs[0].shape, node.attrs.GetInt("axis", 0));
    exclusive_ = node.attrs.GetInt("exclusive", 0) == 1 ? 1 : 0;
    reverse_ = node.attrs.GetInt("reverse", 0) == 1 ? 1 : 0;
    const DType dtype = node.inputs[0].dtype;
    const std::string defines = SlotDefines('A', dtype) + SlotDefines('Y', node.outputs[0].dtype) +
                                "#define CUMSUM " + (node.op == "cumprod" ? "2" : "1") + "\n";
    kernel_ = ctx.Kernel("reduction", defines, dtype == DType::kF64, "sy_cumsum");
  }

  void Enqueue(const EnqueueContext& ctx) override {
    const uint64_t lines = static_cast<uint64_t>(v_.outer * v_.inner);
    if (lines == 0 || v_.n == 0) return;
    KernelArgs(kernel_.get())
        .Tensor(ctx.inputs[0])
        .Tensor(ctx.outputs[0])
        .Add(static_cast<cl_ulong>(v_.outer))
        .Add(static_cast<cl_ulong>(v_.n))
        .Add(static_cast<cl_ulong>(v_.inner))
        .Add(static_cast<cl_int>(exclusive_))
        .Add(static_cast<cl_int>(reverse_));
    Launch1D(ctx.queue, kernel_.get(), lines);
  }

 private:
  AxisSplit v_;
  int exclusive_ = 0, reverse_ = 0;
  UniqueKernel kernel_;
};

class TopkOp : public ClOp {
 public:
  void Prepare(PrepareContext& ctx) override {
    const NodeInfo& node = ctx.node();
    const Shape& s = node.inputs[0].shape;
    int64_t axis = node.attrs.GetInt("axis", -1);
    if (axis < 0) axis += static_cast<int64_t>(s.size());
    v_ = SplitAxis(s, axis);
    k_ = node.outputs[0].shape[static_cast<size_t>(axis)];
    largest_ = node.attrs.GetInt("largest", 1) == 1 ? 1 : 0;
    const DType dtype = node.inputs[0].dtype;
    const std::string defines = SlotDefines('A', dtype) + "#define TOPK 1\n";
    kernel_ = ctx.Kernel("reduction", defines, dtype == DType::kF64, "sy_topk");
  }

  void Enqueue(const EnqueueContext& ctx) override {
    const uint64_t lines = static_cast<uint64_t>(v_.outer * v_.inner);
    if (lines == 0 || v_.n == 0 || k_ == 0) return;
    KernelArgs(kernel_.get())
        .Tensor(ctx.inputs[0])
        .Tensor(ctx.outputs[0])
        .Tensor(ctx.outputs[1])
        .Add(static_cast<cl_ulong>(v_.outer))
        .Add(static_cast<cl_ulong>(v_.n))
        .Add(static_cast<cl_ulong>(v_.inner))
        .Add(static_cast<cl_ulong>(k_))
        .Add(static_cast<cl_int>(largest_));
    Launch1D(ctx.queue, kernel_.get(), lines);
  }

 private:
  AxisSplit v_;
  int64_t k_ = 0;
  int largest_ = 1;
  UniqueKernel kernel_;
};

std::unique_ptr<ClOp> CreateArg(const NodeInfo&) { return std::make_unique<ArgOp>(); }
std::unique_ptr<ClOp> CreateCumsum(const NodeInfo&) { return std::make_unique<CumsumOp>(); }
std::unique_ptr<ClOp> CreateTopk(const NodeInfo&) { return std::make_unique<TopkOp>(); }

}  // namespace

std::unique_ptr<ClOp> CreateReduceOp(const NodeInfo&) { return std::make_unique<ReduceOp>(); }

void RegisterReductionOps(ClOpRegistry& registry) {
  for (const char* op : {"reduce_sum", "reduce_mean", "reduce_max", "reduce_min", "reduce_prod"}) {
    registry.Add(op, SupportsUsableDTypes, CreateReduceOp);
  }
  registry.Add("argmax", SupportsUsableDTypes, CreateArg);
  registry.Add("argmin", SupportsUsableDTypes, CreateArg);
  registry.Add("cumsum", SupportsUsableDTypes, CreateCumsum);
  registry.Add("cumprod", SupportsUsableDTypes, CreateCumsum);
  registry.Add("topk", SupportsUsableDTypes, CreateTopk);
}

}  // namespace sy::opencl
