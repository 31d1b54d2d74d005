// The indexing family: gather (kernels/indexing.cl sy_gather), gather_elements,
// scatter_elements (with its reductions), gather_nd, scatter_nd and cache_write (likewise;
// kernels/indexing.cl). Semantics: plugins/cpu/src/ref/indexing_ref.cpp. Data moves
// bit-exact on any dtype (as unsigned integers of its size); the scatters' float
// reductions accumulate in double, as the reference does, and so need cl_khr_fp64.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "cl_op.h"
#include "element_bits.h"
#include "kernel_sources.h"
#include "movement_util.h"
#include "switchyard/half.h"

namespace sy::opencl {
namespace {

bool SupportsAny(const NodeInfo&, const DeviceCaps&, std::string&) { return true; }

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
    kernel_ = ctx.Kernel("indexing", RawDefine(node.outputs[0].dtype) + "#define IT " + it + "\n",
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

// ---- gather_elements, scatter_elements -------------------------------------------------------

std::string IndexTypeDefine(DType dtype) {
  return std::string("#define IT ") + (dtype == DType::kI32 ? "int" : "long") + "\n";
}

std::string RangeMessage(const NodeInfo& node, int64_t axis, int64_t size) {
  return node.Describe() + ": an index is out of range for axis " + std::to_string(axis) +
         " of size " + std::to_string(size) + " (expected -" + std::to_string(size) +
         " <= index < " + std::to_string(size) + ")";
}

class GatherElementsOp : public ClOp {
 public:
  void Prepare(PrepareContext& ctx) override {
    const NodeInfo& node = ctx.node();
    const Shape& data = node.inputs[0].shape;
    const Shape& ind = node.inputs[1].shape;
    axis_ = static_cast<int>(NormAxis(node.attrs.GetInt("axis", 0), data.size()));
    size_ = data[static_cast<size_t>(axis_)];
    rank_ = static_cast<int>(data.size());
    std::vector<int64_t> meta(ind.begin(), ind.end());
    const std::vector<int64_t> xs = RowMajorStrides(data);
    meta.insert(meta.end(), xs.begin(), xs.end());
    meta_ = ctx.Upload(meta);
    slot_ = ctx.ErrorSlot(RangeMessage(node, axis_, size_));
    kernel_ = ctx.Kernel("indexing",
                         RawDefine(node.inputs[0].dtype) + IndexTypeDefine(node.inputs[1].dtype),
                         false, "sy_gather_elements");
  }
  void Enqueue(const EnqueueContext& ctx) override {
    const uint64_t n = static_cast<uint64_t>(ctx.inputs[1].count());
    if (n == 0) return;
    KernelArgs(kernel_.get())
        .Tensor(ctx.inputs[0])
        .Tensor(ctx.inputs[1])
        .Tensor(ctx.outputs[0])
        .Add(static_cast<cl_ulong>(n))
        .Add(static_cast<cl_int>(rank_))
        .Add(meta_.get())
        .Add(static_cast<cl_int>(axis_))
        .Add(static_cast<cl_long>(size_))
        .Add(ctx.error_flags)
        .Add(static_cast<cl_uint>(slot_));
    Launch1D(ctx.queue, kernel_.get(), n);
  }

 private:
  int axis_ = 0, rank_ = 1;
  int64_t size_ = 0;
  uint32_t slot_ = 0;
  UniqueMem meta_;
  UniqueKernel kernel_;
};

std::unique_ptr<ClOp> CreateGatherElements(const NodeInfo&) {
  return std::make_unique<GatherElementsOp>();
}

int ReductionCode(const std::string& r) {
  if (r == "add") return 1;
  if (r == "mul") return 2;
  if (r == "max") return 3;
  if (r == "min") return 4;
  return 0;
}

// The program defines of scatter_elements and scatter_nd for the node's data and index
// dtypes and reduction: RT, IT, REDUCE (ReductionCode) and, for a reduction, ACC, LOADV,
// STOREV and REDUCE_FN. `f64` says whether the program accumulates in double.
std::string ScatterDefines(const NodeInfo& node, bool& f64) {
  const DType dt = node.inputs[0].dtype;
  const int reduce = ReductionCode(node.attrs.GetString("reduction", "none"));
  std::string defines = RawDefine(dt) + IndexTypeDefine(node.inputs[1].dtype) + "#define REDUCE " +
                        std::to_string(reduce) + "\n";
  f64 = false;
  if (reduce != 0) {
    defines += SlotDefines('A', dt);
    const bool is_float = IsFloat(dt);
    f64 = is_float;
    if (is_float) {
      defines += "#define ACC double\n#define LOADV(p, i) ((double)LOAD_A(p, i))\n";
      switch (dt) {
        case DType::kF32:
          defines += "#define STOREV(p, i, v) ((p)[i] = (float)(v))\n";
          break;
        case DType::kF16:
          defines +=
              "#define STOREV(p, i, v) vstore_half_rte(sy_double_to_float_odd(v), (i), (p))\n";
          break;
        case DType::kBF16:
          defines +=
              "#define STOREV(p, i, v) ((p)[i] = sy_float_to_bf16(sy_double_to_float_odd(v)))\n";
          break;
        default:
          defines += "#define STOREV(p, i, v) ((p)[i] = (v))\n";
          break;
      }
    } else {
      defines += "#define ACC long\n#define LOADV(p, i) LOAD_A(p, i)\n";
      defines += "#define STOREV(p, i, v) STORE_A(p, i, v)\n";
    }
    switch (reduce) {
      case 1:
        defines += is_float ? "#define REDUCE_FN(a, b) ((a) + (b))\n"
                            : "#define REDUCE_FN(a, b) ((long)((ulong)(a) + (ulong)(b)))\n";
        break;
      case 2:
        defines += is_float ? "#define REDUCE_FN(a, b) ((a) * (b))\n"
                            : "#define REDUCE_FN(a, b) ((long)((ulong)(a) * (ulong)(b)))\n";
        break;
      case 3:
        defines += is_float ? "#define REDUCE_FN(a, b) ((isnan(a) || isnan(b)) ? (double)NAN : "
                              "((a) < (b) ? (b) : (a)))\n"
                            : "#define REDUCE_FN(a, b) ((a) < (b) ? (b) : (a))\n";
        break;
      default:
        defines += is_float ? "#define REDUCE_FN(a, b) ((isnan(a) || isnan(b)) ? (double)NAN : "
                              "((b) < (a) ? (b) : (a)))\n"
                            : "#define REDUCE_FN(a, b) ((b) < (a) ? (b) : (a))\n";
        break;
    }
  }
  return defines;
}

class ScatterElementsOp : public ClOp {
 public:
  void Prepare(PrepareContext& ctx) override {
    const NodeInfo& node = ctx.node();
    const Shape& data = node.inputs[0].shape;
    const Shape& ind = node.inputs[1].shape;
    axis_ = static_cast<int>(NormAxis(node.attrs.GetInt("axis", 0), data.size()));
    rank_ = static_cast<int>(data.size());
    std::vector<int64_t> meta(data.begin(), data.end());
    meta.insert(meta.end(), ind.begin(), ind.end());
    const std::vector<int64_t> is = RowMajorStrides(ind);
    meta.insert(meta.end(), is.begin(), is.end());
    meta_ = ctx.Upload(meta);
    slot_ = ctx.ErrorSlot(RangeMessage(node, axis_, data[static_cast<size_t>(axis_)]));
    bool f64 = false;
    const std::string defines = ScatterDefines(node, f64);
    kernel_ = ctx.Kernel("indexing", defines, f64, "sy_scatter_elements");
  }
  void Enqueue(const EnqueueContext& ctx) override {
    const uint64_t n = static_cast<uint64_t>(ctx.outputs[0].count());
    const uint64_t j = static_cast<uint64_t>(ctx.inputs[1].count());
    if (n == 0 && j == 0) return;
    KernelArgs(kernel_.get())
        .Tensor(ctx.inputs[0])
        .Tensor(ctx.inputs[1])
        .Tensor(ctx.inputs[2])
        .Tensor(ctx.outputs[0])
        .Add(static_cast<cl_ulong>(n))
        .Add(static_cast<cl_ulong>(j))
        .Add(static_cast<cl_int>(rank_))
        .Add(meta_.get())
        .Add(static_cast<cl_int>(axis_))
        .Add(ctx.error_flags)
        .Add(static_cast<cl_uint>(slot_));
    Launch1D(ctx.queue, kernel_.get(), std::max(n, j));
  }

 private:
  int axis_ = 0, rank_ = 1;
  uint32_t slot_ = 0;
  UniqueMem meta_;
  UniqueKernel kernel_;
};

std::unique_ptr<ClOp> CreateScatterElements(const NodeInfo&) {
  return std::make_unique<ScatterElementsOp>();
}

// ---- gather_nd, scatter_nd -----------------------------------------------------------------

// The index tuples of gather_nd / scatter_nd over data's dims first .. first + k - 1 (k =
// the last dim of the indices): meta = those dims' sizes, then their row-major strides
// (the tuple's position among them), as sy_tuple_position reads it.
std::vector<int64_t> TupleMeta(const Shape& data, size_t first, size_t k) {
  const Shape dims(data.begin() + static_cast<std::ptrdiff_t>(first),
                   data.begin() + static_cast<std::ptrdiff_t>(first + k));
  std::vector<int64_t> meta(dims.begin(), dims.end());
  const std::vector<int64_t> strides = RowMajorStrides(dims);
  meta.insert(meta.end(), strides.begin(), strides.end());
  return meta;
}

std::string TupleRangeMessage(const NodeInfo& node, size_t first, size_t k) {
  const Shape& data = node.inputs[0].shape;
  const Shape dims(data.begin() + static_cast<std::ptrdiff_t>(first),
                   data.begin() + static_cast<std::ptrdiff_t>(first + k));
  return node.Describe() + ": an index is out of range for the axis it indexes (axes " +
         std::to_string(first) + " to " + std::to_string(first + k - 1) + " of data, sizes " +
         ShapeToString(dims) + "; expected -size <= index < size)";
}

class GatherNDOp : public ClOp {
 public:
  void Prepare(PrepareContext& ctx) override {
    const NodeInfo& node = ctx.node();
    const Shape& data = node.inputs[0].shape;
    const Shape& ind = node.inputs[1].shape;
    const auto b = static_cast<size_t>(node.attrs.GetInt("batch_dims", 0));
    const auto k = static_cast<size_t>(ind.back());
    k_ = static_cast<int>(k);
    positions_ = Product(data, b, b + k);
    inner_ = Product(data, b + k, data.size());
    const int64_t tuples = ElementCount(ind) / static_cast<int64_t>(k);
    const int64_t batches = Product(data, 0, b);
    per_batch_ = tuples > 0 ? tuples / batches : 1;
    meta_ = ctx.Upload(TupleMeta(data, b, k));
    slot_ = ctx.ErrorSlot(TupleRangeMessage(node, b, k));
    kernel_ = ctx.Kernel("indexing",
                         RawDefine(node.inputs[0].dtype) + IndexTypeDefine(node.inputs[1].dtype),
                         false, "sy_gather_nd");
  }
  void Enqueue(const EnqueueContext& ctx) override {
    const uint64_t n = static_cast<uint64_t>(ctx.outputs[0].count());
    const uint64_t e = static_cast<uint64_t>(ctx.inputs[1].count());
    if (n == 0 && e == 0) return;
    KernelArgs(kernel_.get())
        .Tensor(ctx.inputs[0])
        .Tensor(ctx.inputs[1])
        .Tensor(ctx.outputs[0])
        .Add(static_cast<cl_ulong>(n))
        .Add(static_cast<cl_ulong>(e))
        .Add(static_cast<cl_int>(k_))
        .Add(static_cast<cl_ulong>(inner_ == 0 ? 1 : inner_))
        .Add(static_cast<cl_ulong>(per_batch_))
        .Add(static_cast<cl_long>(positions_))
        .Add(meta_.get())
        .Add(ctx.error_flags)
        .Add(static_cast<cl_uint>(slot_));
    Launch1D(ctx.queue, kernel_.get(), std::max(n, e));
  }

 private:
  int k_ = 1;
  int64_t positions_ = 1, inner_ = 1, per_batch_ = 1;
  uint32_t slot_ = 0;
  UniqueMem meta_;
  UniqueKernel kernel_;
};

std::unique_ptr<ClOp> CreateGatherND(const NodeInfo&) { return std::make_unique<GatherNDOp>(); }

// Three launches (kernels/indexing.cl): the first and last tuple naming each position of
// data's first k dims, found with 32-bit atomics into a scratch buffer (so at most
// INT_MAX tuples, SupportsScatter), then one work-item per output element.
class ScatterNDOp : public ClOp {
 public:
  void Prepare(PrepareContext& ctx) override {
    const NodeInfo& node = ctx.node();
    const Shape& data = node.inputs[0].shape;
    const Shape& ind = node.inputs[1].shape;
    const auto k = static_cast<size_t>(ind.back());
    k_ = static_cast<int>(k);
    positions_ = Product(data, 0, k);
    inner_ = Product(data, k, data.size());
    count_ = ElementCount(data);
    tuples_ = ElementCount(ind) / static_cast<int64_t>(k);
    meta_ = ctx.Upload(TupleMeta(data, 0, k));
    slot_ = ctx.ErrorSlot(TupleRangeMessage(node, 0, k));
    // Never empty buffers: a kernel argument must be a valid cl_mem.
    tuple_positions_ = std::make_unique<ClBuffer>(
        ctx.device(), static_cast<uint64_t>(std::max<int64_t>(tuples_, 1)) * 8);
    ranges_ = std::make_unique<ClBuffer>(ctx.device(),
                                         static_cast<uint64_t>(count_ > 0 ? positions_ : 1) * 8);
    bool f64 = false;
    const std::string defines = ScatterDefines(node, f64);
    init_ = ctx.Kernel("indexing", defines, f64, "sy_scatter_nd_init");
    index_ = ctx.Kernel("indexing", defines, f64, "sy_scatter_nd_index");
    apply_ = ctx.Kernel("indexing", defines, f64, "sy_scatter_nd");
  }
  void Enqueue(const EnqueueContext& ctx) override {
    const bool with_ranges = count_ > 0;
    if (with_ranges) {
      KernelArgs(init_.get()).Add(ranges_->mem()).Add(static_cast<cl_ulong>(positions_));
      Launch1D(ctx.queue, init_.get(), static_cast<uint64_t>(positions_));
    }
    if (tuples_ > 0) {
      KernelArgs(index_.get())
          .Tensor(ctx.inputs[1])
          .Add(static_cast<cl_ulong>(tuples_))
          .Add(static_cast<cl_int>(k_))
          .Add(meta_.get())
          .Add(tuple_positions_->mem())
          .Add(ranges_->mem())
          .Add(static_cast<cl_int>(with_ranges ? 1 : 0))
          .Add(ctx.error_flags)
          .Add(static_cast<cl_uint>(slot_));
      Launch1D(ctx.queue, index_.get(), static_cast<uint64_t>(tuples_));
    }
    if (with_ranges) {
      KernelArgs(apply_.get())
          .Tensor(ctx.inputs[0])
          .Tensor(ctx.inputs[2])
          .Tensor(ctx.outputs[0])
          .Add(static_cast<cl_ulong>(count_))
          .Add(static_cast<cl_ulong>(inner_))
          .Add(tuple_positions_->mem())
          .Add(ranges_->mem());
      Launch1D(ctx.queue, apply_.get(), static_cast<uint64_t>(count_));
    }
  }

 private:
  int k_ = 1;
  int64_t positions_ = 1, inner_ = 1, count_ = 0, tuples_ = 0;
  uint32_t slot_ = 0;
  UniqueMem meta_;
  std::unique_ptr<ClBuffer> tuple_positions_, ranges_;
  UniqueKernel init_, index_, apply_;
};

std::unique_ptr<ClOp> CreateScatterND(const NodeInfo&) { return std::make_unique<ScatterNDOp>(); }

// Float reductions accumulate in double, as the reference does. scatter_nd counts its
// tuples in 32-bit atomics.
bool SupportsScatter(const NodeInfo& node, const DeviceCaps& device, std::string& reason) {
  if (!DTypesUsable(node.inputs, device, reason)) return false;
  if (IsFloat(node.inputs[0].dtype) && node.attrs.GetString("reduction", "none") != "none" &&
      !device.fp64) {
    reason = node.op + "'s float reductions accumulate in double, which needs cl_khr_fp64";
    return false;
  }
  if (node.op == "scatter_nd") {
    const Shape& ind = node.inputs[1].shape;
    if (ElementCount(ind) / ind.back() > std::numeric_limits<int32_t>::max()) {
      reason = "scatter_nd takes at most 2^31 - 1 index tuples on OpenCL";
      return false;
    }
  }
  return true;
}

// ---- cache_write ---------------------------------------------------------------------------

// update written into cache at the run-time offset (kernels/indexing.cl sy_cache_write).
// When the host binds y to cache's own bytes (decoding state in place; the device declares
// SY_DEVICE_FLAG_CACHE_WRITE_IN_PLACE) only the update's elements move.
class CacheWriteOp : public ClOp {
 public:
  void Prepare(PrepareContext& ctx) override {
    const NodeInfo& node = ctx.node();
    const Shape& cache = node.inputs[0].shape;
    const size_t axis = NormAxis(node.attrs.GetInt("axis"), cache.size());
    outer_ = Product(cache, 0, axis);
    capacity_ = cache[axis];
    n_ = node.inputs[1].shape[axis];
    inner_ = Product(cache, axis + 1, cache.size());
    slot_ = ctx.ErrorSlot(node.Describe() + ": the offset writing " + std::to_string(n_) +
                          " entries along axis " + std::to_string(axis) + " is outside 0 to " +
                          std::to_string(capacity_ - n_) + " (the cache holds " +
                          std::to_string(capacity_) + ")");
    kernel_ = ctx.Kernel("indexing",
                         RawDefine(node.inputs[0].dtype) + IndexTypeDefine(node.inputs[2].dtype),
                         false, "sy_cache_write");
  }
  void Enqueue(const EnqueueContext& ctx) override {
    const ClTensor& cache = ctx.inputs[0];
    const ClTensor& y = ctx.outputs[0];
    const bool copy = cache.mem != y.mem || cache.offset != y.offset;
    const uint64_t items =
        static_cast<uint64_t>(copy ? outer_ * capacity_ * inner_ : outer_ * n_ * inner_);
    KernelArgs(kernel_.get())
        .Tensor(cache)
        .Tensor(ctx.inputs[1])
        .Tensor(ctx.inputs[2])
        .Tensor(y)
        .Add(static_cast<cl_ulong>(outer_))
        .Add(static_cast<cl_ulong>(capacity_))
        .Add(static_cast<cl_ulong>(n_))
        .Add(static_cast<cl_ulong>(inner_))
        .Add(static_cast<cl_int>(copy ? 1 : 0))
        .Add(ctx.error_flags)
        .Add(static_cast<cl_uint>(slot_));
    Launch1D(ctx.queue, kernel_.get(), std::max<uint64_t>(items, 1));  // item 0 checks the offset
  }

 private:
  int64_t outer_ = 1, capacity_ = 0, n_ = 0, inner_ = 1;
  uint32_t slot_ = 0;
  UniqueKernel kernel_;
};

std::unique_ptr<ClOp> CreateCacheWrite(const NodeInfo&) { return std::make_unique<CacheWriteOp>(); }

}  // namespace
void RegisterIndexingOps(ClOpRegistry& registry) {
  registry.Add("gather", SupportsAny, CreateGather);
  registry.Add("gather_elements", SupportsAny, CreateGatherElements);
  registry.Add("scatter_elements", SupportsScatter, CreateScatterElements);
  registry.Add("gather_nd", SupportsAny, CreateGatherND);
  registry.Add("scatter_nd", SupportsScatter, CreateScatterND);
  registry.Add("cache_write", SupportsAny, CreateCacheWrite);
}

}  // namespace sy::opencl
