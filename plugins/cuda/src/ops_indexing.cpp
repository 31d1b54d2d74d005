// Indexing: gather, gather_elements, scatter_elements (none add mul max min),
// gather_nd (batch_dims), scatter_nd (none add mul max min), cache_write:
// kernels/indexing.cu.
// Semantics of plugins/cpu/src/ref/indexing_ref.cpp. An index outside
// [-size, size) sets the node's error flag (execute fails with SY_ERROR_DATA naming it)
// and is never used to address memory. The scatters are deterministic: scatter_elements
// has one thread per output element gather every update landing on it in index order;
// scatter_nd finds the first and last tuple naming each position with atomics (the result
// does not depend on their order), then applies the tuples in order, so with duplicates
// and reduction "none" the last write wins, as in the reference.
#include <climits>
#include <string>
#include <vector>

#include "../kernels/indexing.h"
#include "cu_op.h"
#include "ops_util.h"

namespace sy::cuda {
namespace {

std::string RangeMessage(const NodeInfo& node, int64_t axis, int64_t size) {
  return node.Describe() + ": an index is out of range for axis " + std::to_string(axis) +
         " of size " + std::to_string(size) + " (expected -" + std::to_string(size) +
         " <= index < " + std::to_string(size) + ")";
}

bool IndexTypesOk(const NodeInfo& node, size_t index_input, std::string& reason) {
  if (node.inputs.size() <= index_input || node.outputs.empty()) {
    reason = node.op + ": missing inputs or outputs";
    return false;
  }
  const DType it = node.inputs[index_input].dtype;
  if (it != DType::kI32 && it != DType::kI64) {
    reason = node.op + " takes i32 or i64 indices";
    return false;
  }
  return true;
}

int ReductionCode(const std::string& r) {
  if (r == "add") return 1;
  if (r == "mul") return 2;
  if (r == "max") return 3;
  if (r == "min") return 4;
  return 0;
}

// ---- gather ---------------------------------------------------------------------------------

class GatherOp : public CuOp {
 public:
  void Prepare(PrepareContext& ctx) override {
    const NodeInfo& node = ctx.node();
    const Shape& data = node.inputs[0].shape;
    const int64_t axis = NormAxis(node.attrs.GetInt("axis", 0), data.size());
    const auto a = static_cast<size_t>(axis);
    size_ = data[a];
    inner_ = Product(data, a + 1, data.size());
    count_ = ElementCount(node.inputs[1].shape);
    n_ = ElementCount(node.outputs[0].shape);
    elem_ = static_cast<int>(DTypeSize(node.inputs[0].dtype));
    idx64_ = node.inputs[1].dtype == DType::kI64;
    slot_ = ctx.ErrorSlot(RangeMessage(node, axis, size_));
  }
  void Enqueue(const EnqueueContext& ctx) override {
    if (n_ == 0 && count_ == 0) return;
    CheckLaunch(kern::LaunchGather(elem_, idx64_, ctx.inputs[0].data, ctx.inputs[1].data,
                                   ctx.outputs[0].data, n_, count_, inner_ == 0 ? 1 : inner_, size_,
                                   ctx.error_flags, slot_, ctx.stream),
                "gather");
  }

 private:
  int64_t size_ = 0, inner_ = 1, count_ = 0, n_ = 0;
  int elem_ = 4;
  bool idx64_ = true;
  uint32_t slot_ = 0;
};

std::unique_ptr<CuOp> CreateGather(const NodeInfo&) { return std::make_unique<GatherOp>(); }

bool SupportsGather(const NodeInfo& node, const DeviceCaps&, std::string& reason) {
  return IndexTypesOk(node, 1, reason);
}

// ---- gather_elements, scatter_elements --------------------------------------------------------

class GatherElementsOp : public CuOp {
 public:
  void Prepare(PrepareContext& ctx) override {
    const NodeInfo& node = ctx.node();
    const Shape& data = node.inputs[0].shape;
    const Shape& ind = node.inputs[1].shape;
    axis_ = static_cast<int>(NormAxis(node.attrs.GetInt("axis", 0), data.size()));
    size_ = data[static_cast<size_t>(axis_)];
    rank_ = static_cast<int>(data.size());
    n_ = ElementCount(ind);
    elem_ = static_cast<int>(DTypeSize(node.inputs[0].dtype));
    idx64_ = node.inputs[1].dtype == DType::kI64;
    slot_ = ctx.ErrorSlot(RangeMessage(node, axis_, size_));
    if (n_ == 0) return;
    std::vector<int64_t> meta(ind.begin(), ind.end());
    const std::vector<int64_t> xs = RowMajorStrides(data);
    meta.insert(meta.end(), xs.begin(), xs.end());
    meta_ = ctx.Upload(meta);
  }
  void Enqueue(const EnqueueContext& ctx) override {
    if (n_ == 0) return;
    CheckLaunch(kern::LaunchGatherElements(elem_, idx64_, ctx.inputs[0].data, ctx.inputs[1].data,
                                           ctx.outputs[0].data, n_, rank_, meta_, axis_, size_,
                                           ctx.error_flags, slot_, ctx.stream),
                "gather_elements");
  }

 private:
  int axis_ = 0, rank_ = 1, elem_ = 4;
  int64_t size_ = 0, n_ = 0;
  bool idx64_ = true;
  uint32_t slot_ = 0;
  const int64_t* meta_ = nullptr;
};

std::unique_ptr<CuOp> CreateGatherElements(const NodeInfo&) {
  return std::make_unique<GatherElementsOp>();
}

bool SupportsGatherElements(const NodeInfo& node, const DeviceCaps&, std::string& reason) {
  if (!IndexTypesOk(node, 1, reason)) return false;
  if (node.inputs[0].shape.size() != node.inputs[1].shape.size() || node.inputs[0].shape.empty()) {
    reason = node.op + " needs data and indices of one rank >= 1";
    return false;
  }
  return true;
}

class ScatterElementsOp : public CuOp {
 public:
  void Prepare(PrepareContext& ctx) override {
    const NodeInfo& node = ctx.node();
    const Shape& data = node.inputs[0].shape;
    const Shape& ind = node.inputs[1].shape;
    axis_ = static_cast<int>(NormAxis(node.attrs.GetInt("axis", 0), data.size()));
    rank_ = static_cast<int>(data.size());
    n_ = ElementCount(data);
    j_ = ElementCount(ind);
    dtype_ = node.inputs[0].dtype;
    idx64_ = node.inputs[1].dtype == DType::kI64;
    reduction_ = ReductionCode(node.attrs.GetString("reduction", "none"));
    slot_ = ctx.ErrorSlot(RangeMessage(node, axis_, data[static_cast<size_t>(axis_)]));
    std::vector<int64_t> meta(data.begin(), data.end());
    meta.insert(meta.end(), ind.begin(), ind.end());
    const std::vector<int64_t> is = RowMajorStrides(ind);
    meta.insert(meta.end(), is.begin(), is.end());
    const std::vector<int64_t> xs = RowMajorStrides(data);
    meta.insert(meta.end(), xs.begin(), xs.end());
    meta_ = ctx.Upload(meta);
    // Without a reduction and with long index lines along the axis, the last writer of
    // each element is found with atomics (O(J + n)) instead of each element scanning its
    // line (O(n * line)).
    if (reduction_ == 0 && ind[static_cast<size_t>(axis_)] > kScanLimit && n_ > 0) {
      last_ = static_cast<unsigned long long*>(
          ctx.Scratch(static_cast<uint64_t>(n_) * sizeof(unsigned long long)));
    }
  }
  void Enqueue(const EnqueueContext& ctx) override {
    if (n_ == 0 && j_ == 0) return;
    if (last_ != nullptr) {
      CheckLaunch(kern::LaunchScatterElementsLast(
                      static_cast<int>(DTypeSize(dtype_)), idx64_, ctx.inputs[0].data,
                      ctx.inputs[1].data, ctx.inputs[2].data, ctx.outputs[0].data, n_, j_, rank_,
                      meta_, axis_, last_, ctx.error_flags, slot_, ctx.stream),
                  "scatter_elements");
      return;
    }
    CheckLaunch(
        kern::LaunchScatterElements(dtype_, reduction_, idx64_, ctx.inputs[0].data,
                                    ctx.inputs[1].data, ctx.inputs[2].data, ctx.outputs[0].data, n_,
                                    j_, rank_, meta_, axis_, ctx.error_flags, slot_, ctx.stream),
        "scatter_elements");
  }

 private:
  int axis_ = 0, rank_ = 1, reduction_ = 0;
  int64_t n_ = 0, j_ = 0;
  DType dtype_ = DType::kF32;
  bool idx64_ = true;
  uint32_t slot_ = 0;
  const int64_t* meta_ = nullptr;
  unsigned long long* last_ = nullptr;
  static constexpr int64_t kScanLimit = 32;
};

std::unique_ptr<CuOp> CreateScatterElements(const NodeInfo&) {
  return std::make_unique<ScatterElementsOp>();
}

bool SupportsScatter(const NodeInfo& node, const DeviceCaps&, std::string& reason) {
  if (!IndexTypesOk(node, 1, reason)) return false;
  if (node.inputs.size() != 3 || node.inputs[2].dtype != node.inputs[0].dtype ||
      node.outputs[0].dtype != node.inputs[0].dtype) {
    reason = node.op +
             " takes data, indices and updates, with updates and the output in data's "
             "dtype";
    return false;
  }
  if (node.op == "scatter_elements" &&
      (node.inputs[0].shape.size() != node.inputs[1].shape.size() ||
       node.inputs[0].shape.empty())) {
    reason = "scatter_elements needs data and indices of one rank >= 1";
    return false;
  }
  if (node.op == "scatter_nd") {
    const Shape& ind = node.inputs[1].shape;
    if (ind.empty() || ind.back() < 1) {
      reason = "scatter_nd needs indices with a last dim >= 1";
      return false;
    }
    if (ElementCount(ind) / ind.back() > INT_MAX) {
      reason = "scatter_nd takes at most 2^31 - 1 index tuples on the CUDA plugin";
      return false;
    }
  }
  return true;
}

// ---- gather_nd, scatter_nd -------------------------------------------------------------------

// The index tuples' dims (first .. first + k - 1 of data): their sizes, then their
// row-major strides.
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

class GatherNDOp : public CuOp {
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
    per_batch_ = tuples > 0 && batches > 0 ? tuples / batches : 1;
    if (per_batch_ == 0) per_batch_ = 1;
    n_ = ElementCount(node.outputs[0].shape);
    e_ = ElementCount(ind);
    elem_ = static_cast<int>(DTypeSize(node.inputs[0].dtype));
    idx64_ = node.inputs[1].dtype == DType::kI64;
    meta_ = ctx.Upload(TupleMeta(data, b, k));
    slot_ = ctx.ErrorSlot(TupleRangeMessage(node, b, k));
  }
  void Enqueue(const EnqueueContext& ctx) override {
    if (n_ == 0 && e_ == 0) return;
    CheckLaunch(
        kern::LaunchGatherND(elem_, idx64_, ctx.inputs[0].data, ctx.inputs[1].data,
                             ctx.outputs[0].data, n_, e_, k_, inner_ == 0 ? 1 : inner_, per_batch_,
                             positions_, meta_, ctx.error_flags, slot_, ctx.stream),
        "gather_nd");
  }

 private:
  int k_ = 1, elem_ = 4;
  int64_t positions_ = 1, inner_ = 1, per_batch_ = 1, n_ = 0, e_ = 0;
  bool idx64_ = true;
  uint32_t slot_ = 0;
  const int64_t* meta_ = nullptr;
};

std::unique_ptr<CuOp> CreateGatherND(const NodeInfo&) { return std::make_unique<GatherNDOp>(); }

bool SupportsGatherND(const NodeInfo& node, const DeviceCaps&, std::string& reason) {
  if (!IndexTypesOk(node, 1, reason)) return false;
  const Shape& ind = node.inputs[1].shape;
  const auto b = node.attrs.GetInt("batch_dims", 0);
  if (ind.empty() || ind.back() < 1 || b < 0 ||
      static_cast<size_t>(b) + static_cast<size_t>(ind.back()) > node.inputs[0].shape.size()) {
    reason = "gather_nd: index tuples must have 1 <= k <= rank(data) - batch_dims entries";
    return false;
  }
  return true;
}

class ScatterNDOp : public CuOp {
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
    dtype_ = node.inputs[0].dtype;
    idx64_ = node.inputs[1].dtype == DType::kI64;
    reduction_ = ReductionCode(node.attrs.GetString("reduction", "none"));
    meta_ = ctx.Upload(TupleMeta(data, 0, k));
    slot_ = ctx.ErrorSlot(TupleRangeMessage(node, 0, k));
    if (tuples_ > 0) {
      tuple_positions_ =
          static_cast<int64_t*>(ctx.Scratch(static_cast<uint64_t>(tuples_) * sizeof(int64_t)));
    }
    if (count_ > 0) {
      ranges_ = static_cast<int*>(ctx.Scratch(static_cast<uint64_t>(2 * positions_) * sizeof(int)));
    }
  }
  void Enqueue(const EnqueueContext& ctx) override {
    if (count_ == 0 && tuples_ == 0) return;
    CheckLaunch(kern::LaunchScatterND(
                    dtype_, reduction_, idx64_, ctx.inputs[0].data, ctx.inputs[1].data,
                    ctx.inputs[2].data, ctx.outputs[0].data, count_, inner_, positions_, tuples_,
                    k_, meta_, tuple_positions_, ranges_, ctx.error_flags, slot_, ctx.stream),
                "scatter_nd");
  }

 private:
  int k_ = 1, reduction_ = 0;
  int64_t positions_ = 1, inner_ = 1, count_ = 0, tuples_ = 0;
  DType dtype_ = DType::kF32;
  bool idx64_ = true;
  uint32_t slot_ = 0;
  const int64_t* meta_ = nullptr;
  int64_t* tuple_positions_ = nullptr;
  int* ranges_ = nullptr;
};

std::unique_ptr<CuOp> CreateScatterND(const NodeInfo&) { return std::make_unique<ScatterNDOp>(); }

// ---- cache_write ---------------------------------------------------------------------------

// update written into cache at the run-time offset (kernels/indexing.cu). When the host
// binds y to cache's own bytes (decoding state in place; the device declares
// SY_DEVICE_FLAG_CACHE_WRITE_IN_PLACE) only the update's elements move.
class CacheWriteOp : public CuOp {
 public:
  void Prepare(PrepareContext& ctx) override {
    const NodeInfo& node = ctx.node();
    const Shape& cache = node.inputs[0].shape;
    const auto axis = static_cast<size_t>(NormAxis(node.attrs.GetInt("axis"), cache.size()));
    outer_ = Product(cache, 0, axis);
    capacity_ = cache[axis];
    n_ = node.inputs[1].shape[axis];
    inner_ = Product(cache, axis + 1, cache.size());
    elem_ = static_cast<int>(DTypeSize(node.inputs[0].dtype));
    idx64_ = node.inputs[2].dtype == DType::kI64;
    slot_ = ctx.ErrorSlot(node.Describe() + ": the offset writing " + std::to_string(n_) +
                          " entries along axis " + std::to_string(axis) + " is outside 0 to " +
                          std::to_string(capacity_ - n_) + " (the cache holds " +
                          std::to_string(capacity_) + ")");
  }
  void Enqueue(const EnqueueContext& ctx) override {
    const bool copy = ctx.inputs[0].data != ctx.outputs[0].data;
    CheckLaunch(kern::LaunchCacheWrite(elem_, idx64_, ctx.inputs[0].data, ctx.inputs[1].data,
                                       ctx.inputs[2].data, ctx.outputs[0].data, outer_, capacity_,
                                       n_, inner_, copy, ctx.error_flags, slot_, ctx.stream),
                "cache_write");
  }

 private:
  int64_t outer_ = 1, capacity_ = 0, n_ = 0, inner_ = 1;
  int elem_ = 4;
  bool idx64_ = true;
  uint32_t slot_ = 0;
};

std::unique_ptr<CuOp> CreateCacheWrite(const NodeInfo&) { return std::make_unique<CacheWriteOp>(); }

bool SupportsCacheWrite(const NodeInfo& node, const DeviceCaps&, std::string& reason) {
  return IndexTypesOk(node, 2, reason);
}

}  // namespace

void RegisterIndexingOps(CuOpRegistry& registry) {
  registry.Add("gather", SupportsGather, CreateGather);
  registry.Add("gather_elements", SupportsGatherElements, CreateGatherElements);
  registry.Add("scatter_elements", SupportsScatter, CreateScatterElements);
  registry.Add("gather_nd", SupportsGatherND, CreateGatherND);
  registry.Add("cache_write", SupportsCacheWrite, CreateCacheWrite);
  registry.Add("scatter_nd", SupportsScatter, CreateScatterND);
}

}  // namespace sy::cuda
