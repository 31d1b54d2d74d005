// Data movement: reshape (a copy, or nothing when the host bound the same bytes),
// transpose and expand (kernels/movement.cl sy_strided_copy), concat (sy_copy_2d per
// input). Bit-exact on any dtype: kernels move elements as unsigned integers of the
// element's size, so f64 needs no cl_khr_fp64.
#include <algorithm>
#include <string>

#include "cl_op.h"
#include "kernel_sources.h"

namespace sy::opencl {
namespace {

std::string RawDefine(DType dtype) {
  switch (DTypeSize(dtype)) {
    case 1:
      return "#define RT uchar\n";
    case 2:
      return "#define RT ushort\n";
    case 4:
      return "#define RT uint\n";
    default:
      return "#define RT ulong\n";
  }
}

uint64_t Bytes(const TensorType& t) {
  return static_cast<uint64_t>(ElementCount(t.shape)) * DTypeSize(t.dtype);
}

int64_t Product(const Shape& s, size_t begin, size_t end) {
  int64_t p = 1;
  for (size_t d = begin; d < end; ++d) p *= s[d];
  return p;
}

// ---- reshape ------------------------------------------------------------------------------

class CopyOp : public ClOp {
 public:
  void Prepare(PrepareContext&) override {}
  void Enqueue(const EnqueueContext& ctx) override {
    const ClTensor& in = ctx.inputs[0];
    const ClTensor& out = ctx.outputs[0];
    const uint64_t bytes = Bytes(*out.type);
    if (bytes == 0 || (in.mem == out.mem && in.offset == out.offset)) return;
    CheckCl(clEnqueueCopyBuffer(ctx.queue, in.mem, out.mem, in.offset, out.offset, bytes, 0,
                                nullptr, nullptr),
            "clEnqueueCopyBuffer");
  }
};

// Every dtype (bit copies: f64 needs no cl_khr_fp64); arity and shapes were validated
// by the host and are checked again at prepare.
bool SupportsAny(const NodeInfo&, const DeviceCaps&, std::string&) { return true; }

std::unique_ptr<ClOp> CreateCopy(const NodeInfo&) { return std::make_unique<CopyOp>(); }

// ---- transpose and expand: y[i] = x[sum index_d(i) * stride_d] --------------------------------

class StridedCopyOp : public ClOp {
 public:
  void Prepare(PrepareContext& ctx) override {
    const NodeInfo& node = ctx.node();
    const Shape& in = node.inputs[0].shape;
    const Shape& out = node.outputs[0].shape;
    std::vector<int64_t> meta;
    if (node.op == "transpose") {
      std::vector<int64_t> perm = node.attrs.GetInts("perm");
      if (perm.empty()) {
        for (size_t d = in.size(); d-- > 0;) perm.push_back(static_cast<int64_t>(d));
      }
      std::vector<int64_t> strides(in.size(), 1);
      for (size_t d = in.size(); d-- > 1;) strides[d - 1] = strides[d] * in[d];
      rank_ = static_cast<int>(out.size());
      meta.assign(out.begin(), out.end());
      for (int64_t p : perm) meta.push_back(strides[static_cast<size_t>(p)]);
      if (rank_ == 0) {
        rank_ = 1;
        meta = {1, 0};
      }
    } else {  // expand
      const Shape inputs[] = {in};
      rank_ = CollapseBroadcast(out, inputs, meta);
    }
    meta.push_back(0);  // base offset
    meta_ = ctx.Upload(meta);
    kernel_ = ctx.Kernel("movement", RawDefine(node.outputs[0].dtype), false, "sy_strided_copy");
  }

  void Enqueue(const EnqueueContext& ctx) override {
    const uint64_t n = static_cast<uint64_t>(ctx.outputs[0].count());
    if (n == 0) return;
    KernelArgs(kernel_.get())
        .Tensor(ctx.inputs[0])
        .Tensor(ctx.outputs[0])
        .Add(static_cast<cl_ulong>(n))
        .Add(static_cast<cl_int>(rank_))
        .Add(meta_.get());
    Launch1D(ctx.queue, kernel_.get(), n);
  }

 private:
  int rank_ = 1;
  UniqueKernel kernel_;
  UniqueMem meta_;
};

std::unique_ptr<ClOp> CreateStridedCopy(const NodeInfo&) {
  return std::make_unique<StridedCopyOp>();
}

// ---- concat --------------------------------------------------------------------------------

class ConcatOp : public ClOp {
 public:
  void Prepare(PrepareContext& ctx) override {
    const NodeInfo& node = ctx.node();
    const Shape& out = node.outputs[0].shape;
    int64_t axis = node.attrs.GetInt("axis", 0);
    if (axis < 0) axis += static_cast<int64_t>(out.size());
    const size_t ax = static_cast<size_t>(axis);
    y_cols_ = Product(out, ax, out.size());
    int64_t col0 = 0;
    for (const TensorType& in : node.inputs) {
      const int64_t cols = Product(in.shape, ax, in.shape.size());
      parts_.push_back({cols, col0});
      col0 += cols;
    }
    kernel_ = ctx.Kernel("movement", RawDefine(node.outputs[0].dtype), false, "sy_copy_2d");
  }

  void Enqueue(const EnqueueContext& ctx) override {
    for (size_t k = 0; k < parts_.size(); ++k) {
      const uint64_t n = static_cast<uint64_t>(ctx.inputs[k].count());
      if (n == 0) continue;
      KernelArgs(kernel_.get())
          .Tensor(ctx.inputs[k])
          .Tensor(ctx.outputs[0])
          .Add(static_cast<cl_ulong>(n))
          .Add(static_cast<cl_ulong>(parts_[k].cols))
          .Add(static_cast<cl_ulong>(y_cols_))
          .Add(static_cast<cl_ulong>(parts_[k].col0));
      Launch1D(ctx.queue, kernel_.get(), n);
    }
  }

 private:
  struct Part {
    int64_t cols, col0;
  };
  std::vector<Part> parts_;
  int64_t y_cols_ = 0;
  UniqueKernel kernel_;
};

std::unique_ptr<ClOp> CreateConcat(const NodeInfo&) { return std::make_unique<ConcatOp>(); }

// ---- gather ---------------------------------------------------------------------------------

class GatherOp : public ClOp {
 public:
  void Prepare(PrepareContext& ctx) override {
    const NodeInfo& node = ctx.node();
    const Shape& data = node.inputs[0].shape;
    int64_t axis = node.attrs.GetInt("axis", 0);
    if (axis < 0) axis += static_cast<int64_t>(data.size());
    const size_t a = static_cast<size_t>(axis);
    size_ = data[a];
    inner_ = Product(data, a + 1, data.size());
    count_ = ElementCount(node.inputs[1].shape);
    const std::string it = node.inputs[1].dtype == DType::kI32 ? "int" : "long";
    slot_ =
        ctx.ErrorSlot(node.Describe() + ": an index is out of range for axis " +
                      std::to_string(axis) + " of size " + std::to_string(size_) + " (expected -" +
                      std::to_string(size_) + " <= index < " + std::to_string(size_) + ")");
    kernel_ = ctx.Kernel("movement", RawDefine(node.outputs[0].dtype) + "#define IT " + it + "\n",
                         false, "sy_gather");
  }

  void Enqueue(const EnqueueContext& ctx) override {
    const uint64_t n = static_cast<uint64_t>(ctx.outputs[0].count());
    const uint64_t j = static_cast<uint64_t>(count_);
    if (n == 0 && j == 0) return;
    KernelArgs(kernel_.get())
        .Tensor(ctx.inputs[0])
        .Tensor(ctx.inputs[1])
        .Tensor(ctx.outputs[0])
        .Add(static_cast<cl_ulong>(n))
        .Add(static_cast<cl_ulong>(j))
        .Add(static_cast<cl_ulong>(inner_ == 0 ? 1 : inner_))
        .Add(static_cast<cl_long>(size_))
        .Add(ctx.error_flags)
        .Add(static_cast<cl_uint>(slot_));
    Launch1D(ctx.queue, kernel_.get(), std::max(n, j));
  }

 private:
  int64_t size_ = 0, inner_ = 1, count_ = 0;
  uint32_t slot_ = 0;
  UniqueKernel kernel_;
};

std::unique_ptr<ClOp> CreateGather(const NodeInfo&) { return std::make_unique<GatherOp>(); }

}  // namespace

void RegisterMovementOps(ClOpRegistry& registry) {
  registry.Add("gather", SupportsAny, CreateGather);
  registry.Add("reshape", SupportsAny, CreateCopy);
  registry.Add("transpose", SupportsAny, CreateStridedCopy);
  registry.Add("expand", SupportsAny, CreateStridedCopy);
  registry.Add("concat", SupportsAny, CreateConcat);
}

}  // namespace sy::opencl
