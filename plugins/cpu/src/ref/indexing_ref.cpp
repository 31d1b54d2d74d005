// Reference kernels of the indexing family (spec/ops.md, "Shape and data movement"):
// gather, gather_elements, scatter_elements, and the extensions gather_nd and scatter_nd
// (docs/ops.md). Data takes every dtype and moves as whole elements (bytes); only the
// scatters' reductions compute values (floats in double, integers in int64_t, bool as
// 0/1).
//
// Semantics decisions beyond ONNX's text:
// - an index outside [-size, size) of the axis it indexes is a run-time error; negative
//   indices count from the end. Every index is checked before anything is written, even
//   when the output is empty.
// - scatter_elements and scatter_nd with reduction "none" and duplicate indices
//   (undefined in ONNX): the last write in row-major order of `indices` wins. Reductions
//   accumulate in double (floats) or int64_t (integers, wrapping) and round once on
//   store; max/min propagate NaN (like np.maximum / np.minimum). On bool, add/max act as
//   "or" and mul/min as "and".
#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "ref/movement_helpers.h"
#include "ref/ref_kernels.h"

namespace sy::cpu {
namespace {

using namespace movement;  // NOLINT(build/namespaces): the family's shared helpers

// ---- gather, gather_elements, scatter_elements ----

Status Gather(const KernelContext& ctx) {
  const ConstTensorView& data = ctx.inputs[0];
  const ConstTensorView& indices = ctx.inputs[1];
  const TensorView& y = ctx.outputs[0];
  const int64_t axis = Axis(ctx.attrs.GetInt("axis"), data.rank());
  const size_t a = static_cast<size_t>(axis);
  const int64_t size = data.shape()[a];
  std::vector<int64_t> idx;
  SY_RETURN_IF_ERROR(LoadIndices(ctx.op, indices, axis, size, idx));
  const int64_t outer = Product(data.shape(), 0, a);
  const size_t chunk = static_cast<size_t>(Product(data.shape(), a + 1, data.shape().size())) *
                       ElemSize(data.dtype());
  const size_t m = idx.size();
  for (int64_t o = 0; o < outer; ++o) {
    for (size_t j = 0; j < m; ++j) {
      CopyBytes(y.data + (static_cast<size_t>(o) * m + j) * chunk,
                data.data + static_cast<size_t>(o * size + idx[j]) * chunk, chunk);
    }
  }
  return Status::Ok();
}

// For gather_elements / scatter_elements: the element offset into data of each entry of
// indices (row-major), with the index replacing the coordinate on `axis`.
Status ElementOffsets(const KernelContext& ctx, std::vector<int64_t>& offsets) {
  const ConstTensorView& data = ctx.inputs[0];
  const ConstTensorView& indices = ctx.inputs[1];
  const int64_t axis = Axis(ctx.attrs.GetInt("axis"), data.rank());
  const size_t a = static_cast<size_t>(axis);
  SY_RETURN_IF_ERROR(LoadIndices(ctx.op, indices, axis, data.shape()[a], offsets));
  const std::vector<int64_t> strides = Strides(data.shape());
  Odometer it(indices.shape());
  for (int64_t& offset : offsets) {
    int64_t off = 0;
    for (size_t d = 0; d < strides.size(); ++d) {
      off += (d == a ? offset : it.index()[d]) * strides[d];
    }
    offset = off;
    it.Next();
  }
  return Status::Ok();
}

Status GatherElements(const KernelContext& ctx) {
  const ConstTensorView& data = ctx.inputs[0];
  const TensorView& y = ctx.outputs[0];
  std::vector<int64_t> offsets;
  SY_RETURN_IF_ERROR(ElementOffsets(ctx, offsets));
  const size_t es = ElemSize(data.dtype());
  for (size_t i = 0; i < offsets.size(); ++i) {
    std::memcpy(y.data + i * es, data.data + static_cast<size_t>(offsets[i]) * es, es);
  }
  return Status::Ok();
}

double FloatReduce(const std::string& reduction, double acc, double v) {
  if (reduction == "add") return acc + v;
  if (reduction == "mul") return acc * v;
  if (std::isnan(acc) || std::isnan(v)) return std::nan("");
  return reduction == "max" ? std::max(acc, v) : std::min(acc, v);
}

int64_t IntReduce(const std::string& reduction, int64_t acc, int64_t v) {
  const auto ua = static_cast<uint64_t>(acc);
  const auto uv = static_cast<uint64_t>(v);
  if (reduction == "add") return static_cast<int64_t>(ua + uv);
  if (reduction == "mul") return static_cast<int64_t>(ua * uv);
  return reduction == "max" ? std::max(acc, v) : std::min(acc, v);
}

// y = data, then updates[i] written to (or reduced into) y[offsets[i]] in order of i:
// scatter_elements and scatter_nd once their (checked) offsets are known.
Status ScatterByOffsets(const KernelContext& ctx, const std::vector<int64_t>& offsets) {
  const ConstTensorView& data = ctx.inputs[0];
  const ConstTensorView& updates = ctx.inputs[2];
  const TensorView& y = ctx.outputs[0];
  const DType dt = data.dtype();
  const size_t es = ElemSize(dt);
  CopyBytes(y.data, data.data, static_cast<size_t>(data.count()) * es);
  const std::string reduction = ctx.attrs.GetString("reduction");
  if (reduction == "none") {
    for (size_t i = 0; i < offsets.size(); ++i) {  // later writes win
      std::memcpy(y.data + static_cast<size_t>(offsets[i]) * es, updates.data + i * es, es);
    }
    return Status::Ok();
  }
  // Accumulate each touched element in double / int64_t, then round once on store.
  std::vector<bool> touched(static_cast<size_t>(data.count()), false);
  if (IsFloat(dt)) {
    std::vector<double> acc(touched.size());
    for (size_t i = 0; i < offsets.size(); ++i) {
      const auto o = static_cast<size_t>(offsets[i]);
      const double v = LoadFloat(dt, updates.data, static_cast<int64_t>(i));
      acc[o] =
          FloatReduce(reduction, touched[o] ? acc[o] : LoadFloat(dt, data.data, offsets[i]), v);
      touched[o] = true;
    }
    for (size_t o = 0; o < acc.size(); ++o) {
      if (touched[o]) StoreFloat(dt, y.data, static_cast<int64_t>(o), acc[o]);
    }
  } else {
    std::vector<int64_t> acc(touched.size());
    for (size_t i = 0; i < offsets.size(); ++i) {
      const auto o = static_cast<size_t>(offsets[i]);
      const int64_t v = LoadInt(dt, updates.data, static_cast<int64_t>(i));
      acc[o] = IntReduce(reduction, touched[o] ? acc[o] : LoadInt(dt, data.data, offsets[i]), v);
      touched[o] = true;
    }
    for (size_t o = 0; o < acc.size(); ++o) {
      if (touched[o]) StoreInt(dt, y.data, static_cast<int64_t>(o), acc[o]);
    }
  }
  return Status::Ok();
}

Status ScatterElements(const KernelContext& ctx) {
  std::vector<int64_t> offsets;
  SY_RETURN_IF_ERROR(ElementOffsets(ctx, offsets));  // before any write
  return ScatterByOffsets(ctx, offsets);
}

// ---- gather_nd, scatter_nd ----

// The tuples of the last dim of `indices` (k entries each), naming positions in data's
// dims first .. first + k - 1, as row-major slot numbers over those dims: slots[t] for
// tuple t. Negative entries count from the end; every entry is checked.
Status LoadIndexTuples(std::string_view op, const ConstTensorView& data,
                       const ConstTensorView& indices, size_t first, std::vector<int64_t>& slots) {
  const Shape& ds = data.shape();
  const int64_t k = indices.shape().back();  // >= 1 (the schema)
  slots.assign(static_cast<size_t>(indices.count() / k), 0);
  for (size_t t = 0; t < slots.size(); ++t) {
    int64_t slot = 0;
    for (int64_t c = 0; c < k; ++c) {
      const size_t axis = first + static_cast<size_t>(c);
      int64_t v = 0;
      SY_RETURN_IF_ERROR(NormalizeIndex(
          op, LoadInt(indices.dtype(), indices.data, static_cast<int64_t>(t) * k + c),
          static_cast<int64_t>(axis), ds[axis], v));
      slot = slot * ds[axis] + v;
    }
    slots[t] = slot;
  }
  return Status::Ok();
}

// data [B..., S..., R...] (batch_dims dims B, k dims S named by each tuple, the rest R),
// indices [B..., J..., k]: y[b, j, r] = data[b, slot(indices[b, j]), r].
Status GatherND(const KernelContext& ctx) {
  const ConstTensorView& data = ctx.inputs[0];
  const ConstTensorView& indices = ctx.inputs[1];
  const TensorView& y = ctx.outputs[0];
  const Shape& ds = data.shape();
  const auto b = static_cast<size_t>(ctx.attrs.GetInt("batch_dims"));
  const auto k = static_cast<size_t>(indices.shape().back());
  std::vector<int64_t> slots;
  SY_RETURN_IF_ERROR(LoadIndexTuples(ctx.op, data, indices, b, slots));  // before any write
  if (slots.empty()) return Status::Ok();
  const int64_t batches = Product(ds, 0, b);  // > 0: indices shares these dims
  const auto per_batch = slots.size() / static_cast<size_t>(batches);
  const int64_t slots_per_batch = Product(ds, b, b + k);
  const size_t chunk = static_cast<size_t>(Product(ds, b + k, ds.size())) * ElemSize(data.dtype());
  for (size_t t = 0; t < slots.size(); ++t) {
    const auto batch = static_cast<int64_t>(t / per_batch);
    CopyBytes(y.data + t * chunk,
              data.data + static_cast<size_t>(batch * slots_per_batch + slots[t]) * chunk, chunk);
  }
  return Status::Ok();
}

// data [S..., R...] (k dims S named by each tuple), indices [J..., k], updates [J..., R...]:
// updates[j, r] goes to y[slot(indices[j]), r], in order of j.
Status ScatterND(const KernelContext& ctx) {
  const ConstTensorView& data = ctx.inputs[0];
  const ConstTensorView& indices = ctx.inputs[1];
  std::vector<int64_t> slots;
  SY_RETURN_IF_ERROR(LoadIndexTuples(ctx.op, data, indices, 0, slots));  // before any write
  const Shape& ds = data.shape();
  const auto k = static_cast<size_t>(indices.shape().back());
  const int64_t inner = Product(ds, k, ds.size());
  std::vector<int64_t> offsets(slots.size() * static_cast<size_t>(inner));
  for (size_t t = 0; t < slots.size(); ++t) {
    for (int64_t r = 0; r < inner; ++r) {
      offsets[t * static_cast<size_t>(inner) + static_cast<size_t>(r)] = slots[t] * inner + r;
    }
  }
  return ScatterByOffsets(ctx, offsets);
}

// ---- cache_write ----

// y = cache with update written at [offset, offset + n) along axis. When the host binds y
// to cache's own buffer (the session's state, written in place), only the n entries
// move; otherwise cache is copied first.
Status CacheWrite(const KernelContext& ctx) {
  const ConstTensorView& cache = ctx.inputs[0];
  const ConstTensorView& update = ctx.inputs[1];
  const TensorView& y = ctx.outputs[0];
  const Shape& cs = cache.shape();
  const int64_t axis = Axis(ctx.attrs.GetInt("axis"), static_cast<int64_t>(cs.size()));
  const int64_t capacity = cs[static_cast<size_t>(axis)];
  const int64_t n = update.shape()[static_cast<size_t>(axis)];
  const int64_t offset = LoadInt(ctx.inputs[2].dtype(), ctx.inputs[2].data, 0);
  if (offset < 0 || offset > capacity - n) {
    return InvalidArgument(std::string(ctx.op) + ": offset " + Str(offset) + " writing " + Str(n) +
                           " entries along axis " + Str(axis) +
                           " needs a capacity of at least offset + " + Str(n) +
                           ", and the cache holds " + Str(capacity) +
                           (offset < 0 ? " (a negative offset is never valid)" : ""));
  }
  const size_t elem = ElemSize(cache.dtype());
  if (y.data != cache.data)
    CopyBytes(y.data, cache.data, static_cast<size_t>(cache.count()) * elem);
  const int64_t outer = Product(cs, 0, static_cast<size_t>(axis));
  const auto inner =
      static_cast<size_t>(Product(cs, static_cast<size_t>(axis) + 1, cs.size())) * elem;
  for (int64_t o = 0; o < outer; ++o) {
    CopyBytes(y.data + static_cast<size_t>(o * capacity + offset) * inner,
              update.data + static_cast<size_t>(o * n) * inner, static_cast<size_t>(n) * inner);
  }
  return Status::Ok();
}

// ---- tfidf_vectorizer ----
// ONNX TfIdfVectorizer as its reference (onnx/reference/ops/op_tfidf_vectorizer.py) and
// onnxruntime count: the pool's n-grams of lengths min_gram_length .. max_gram_length are
// looked up from every start position of a row, their items skip_distance apart, for
// each skip_distance from 1 to max_skip_count + 1 (unigrams on the first pass only); a
// lookup stops at the first prefix that no pool n-gram has. TF gives the counts, IDF
// weights[i] (or 1) where a count is positive, TFIDF weights[i] * count (or the count).
Status TfIdfVectorizer(const KernelContext& ctx) {
  const ConstTensorView& x = ctx.inputs[0];
  const TensorView& y = ctx.outputs[0];
  const int64_t min_n = ctx.attrs.GetInt("min_gram_length");
  const int64_t max_n = ctx.attrs.GetInt("max_gram_length");
  const int64_t max_skip = ctx.attrs.GetInt("max_skip_count");
  const std::vector<int64_t> counts = ctx.attrs.GetInts("ngram_counts");
  const std::vector<int64_t> indexes = ctx.attrs.GetInts("ngram_indexes");
  const std::vector<int64_t> pool = ctx.attrs.GetInts("pool");
  const std::string mode = ctx.attrs.GetString("mode");
  const std::vector<double> weights =
      ctx.attrs.Has("weights") ? ctx.attrs.GetFloats("weights") : std::vector<double>{};
  // The pool's n-grams of the lengths counted -> output index; every prefix of them.
  std::map<std::vector<int64_t>, int64_t> grams;
  std::set<std::vector<int64_t>> prefixes;
  size_t id = 0;
  for (size_t i = 0; i < counts.size(); ++i) {
    const auto n = static_cast<int64_t>(i) + 1;
    const int64_t end = i + 1 < counts.size() ? counts[i + 1] : static_cast<int64_t>(pool.size());
    for (int64_t at = counts[i]; at + n <= end; at += n, ++id) {
      if (n < min_n || n > max_n) continue;
      std::vector<int64_t> gram(pool.begin() + at, pool.begin() + at + n);
      for (size_t k = 1; k <= gram.size(); ++k) prefixes.emplace(gram.begin(), gram.begin() + k);
      grams[gram] = indexes[id];
    }
  }
  const int64_t size = y.shape().back();
  const int64_t rows = x.rank() == 1 ? 1 : x.shape()[0];
  const int64_t row_len = x.shape().back();
  std::vector<double> freq(static_cast<size_t>(rows * size), 0.0);
  std::vector<int64_t> gram;
  for (int64_t r = 0; r < rows; ++r) {
    int64_t start_n = min_n;
    for (int64_t skip = 1; skip <= max_skip + 1; ++skip) {
      for (int64_t start = 0; start < row_len; ++start) {
        if (start + skip * (start_n - 1) >= row_len) break;
        gram.clear();
        for (int64_t item = start; item < row_len && static_cast<int64_t>(gram.size()) < max_n;
             item += skip) {
          gram.push_back(LoadInt(x.dtype(), x.data, r * row_len + item));
          if (prefixes.count(gram) == 0) break;
          if (static_cast<int64_t>(gram.size()) < start_n) continue;
          if (auto hit = grams.find(gram); hit != grams.end()) {
            freq[static_cast<size_t>(r * size + hit->second)] += 1;
          }
        }
      }
      if (start_n == 1) {
        ++start_n;
        if (start_n > max_n) break;
      }
    }
  }
  for (int64_t i = 0; i < rows * size; ++i) {
    const double f = freq[static_cast<size_t>(i)];
    const double w = weights.empty() ? 1.0 : weights[static_cast<size_t>(i % size)];
    double v = f;
    if (mode == "IDF") {
      v = f > 0 ? w : 0.0;
    } else if (mode == "TFIDF") {
      v = w * f;
    }
    StoreFloat(y.dtype(), y.data, i, v);
  }
  return Status::Ok();
}

}  // namespace

void AddIndexingRefKernels(KernelTable& table) {
  table.Add("tfidf_vectorizer", TfIdfVectorizer);
  AddTreeEnsembleRefKernel(table);
  table.Add("gather", Gather);
  table.Add("gather_elements", GatherElements);
  table.Add("scatter_elements", ScatterElements);
  table.Add("gather_nd", GatherND);
  table.Add("scatter_nd", ScatterND);
  table.Add("cache_write", CacheWrite);
}

}  // namespace sy::cpu
