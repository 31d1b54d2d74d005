// Indexing ops of the catalogue (spec/ops.md, "Shape and data movement"): the ops that
// move data through an index tensor: gather, gather_elements, scatter_elements; and
// gather_nd, scatter_nd, cache_write (extensions of v1, docs/ops.md). Data takes every dtype,
// indices i32 or i64; shapes follow the ONNX operators of the same names. And the extension
// tfidf_vectorizer (ONNX TfIdfVectorizer on integer tokens): n-gram lookups into a pool;
// and tree_ensemble (tree_ensemble_schema.cpp).
#include <algorithm>

#include "ops/op_families.h"
#include "ops/shape_rule_helpers.h"

namespace sy::ops {
namespace {

constexpr DTypeSet kAll = DTypeSet::All();
constexpr DTypeSet kInd = DTypeSet::IndexTypes();

AttrSpec Int(std::string_view name, int64_t value) { return {name, AttrKind::kInt, value}; }

std::string Str(int64_t v) { return std::to_string(v); }

// "attribute axis 3 is out of range for rank 2 (expected -2 to 1)".
Expected<int64_t> NormalizeAttrAxis(const InferContext& ctx, std::string_view attr, int64_t rank) {
  return NormalizeAxis(ctx.attrs.GetInt(attr), rank, "attribute " + std::string(attr));
}

// ---- gather, gather_elements, scatter_elements ----

OpSchema Indexing(std::string_view name, std::string_view onnx, ShapeRule rule,
                  std::vector<InputSpec> inputs, std::vector<AttrSpec> attrs) {
  OpSchema s = MakeSchema(name, onnx, kAll, std::move(inputs), std::move(attrs), rule);
  s.type_vars = {{"T", kAll}, {"Tind", kInd}};
  return s;
}

// ONNX Gather: output = data[:axis] + indices.shape + data[axis+1:].
Expected<std::vector<TensorType>> InferGather(const InferContext& ctx) {
  const TensorType& data = ctx.input(0);
  const TensorType& indices = ctx.input(1);
  SY_RETURN_IF_ERROR(RequireMinRank(data, "data", 1));
  SY_ASSIGN_OR_RETURN(const int64_t axis, NormalizeAttrAxis(ctx, "axis", data.rank()));
  Shape shape(data.shape.begin(), data.shape.begin() + axis);
  shape.insert(shape.end(), indices.shape.begin(), indices.shape.end());
  shape.insert(shape.end(), data.shape.begin() + axis + 1, data.shape.end());
  return std::vector<TensorType>{{data.dtype, std::move(shape)}};
}

// Indices of GatherElements / ScatterElements: the rank of data, and off the axis no
// larger than data (as onnxruntime checks), so that every index tuple names an element.
Status CheckElementIndices(const TensorType& data, const TensorType& indices, int64_t axis) {
  SY_RETURN_IF_ERROR(RequireRank(indices, "indices", data.rank()));
  for (int64_t d = 0; d < data.rank(); ++d) {
    if (d != axis && indices.shape[d] > data.shape[d]) {
      return InvalidModel("input indices has shape " + ShapeToString(indices.shape) +
                          " which exceeds input data's shape " + ShapeToString(data.shape) +
                          " on dimension " + Str(d) + " (only axis " + Str(axis) +
                          " may be larger)");
    }
  }
  return Status::Ok();
}

Expected<std::vector<TensorType>> InferGatherElements(const InferContext& ctx) {
  const TensorType& data = ctx.input(0);
  const TensorType& indices = ctx.input(1);
  SY_RETURN_IF_ERROR(RequireMinRank(data, "data", 1));
  SY_ASSIGN_OR_RETURN(const int64_t axis, NormalizeAttrAxis(ctx, "axis", data.rank()));
  SY_RETURN_IF_ERROR(CheckElementIndices(data, indices, axis));
  return std::vector<TensorType>{{data.dtype, indices.shape}};
}

Expected<std::vector<TensorType>> InferScatterElements(const InferContext& ctx) {
  const TensorType& data = ctx.input(0);
  const TensorType& indices = ctx.input(1);
  const TensorType& updates = ctx.input(2);
  SY_RETURN_IF_ERROR(RequireMinRank(data, "data", 1));
  SY_ASSIGN_OR_RETURN(const int64_t axis, NormalizeAttrAxis(ctx, "axis", data.rank()));
  SY_RETURN_IF_ERROR(CheckElementIndices(data, indices, axis));
  if (updates.shape != indices.shape) {
    return InvalidModel("input updates has shape " + ShapeToString(updates.shape) +
                        " but must equal input indices' shape " + ShapeToString(indices.shape));
  }
  return std::vector<TensorType>{data};
}

// ---- gather_nd, scatter_nd ----

// The last dim of indices (k, the length of each index tuple) for GatherND / ScatterND:
// 1 <= k <= max_k, the dims of data that a tuple can name.
Expected<int64_t> IndexTupleLength(const TensorType& data, const TensorType& indices, int64_t max_k,
                                   const std::string& which) {
  const int64_t k = indices.shape.back();
  if (k < 1 || k > max_k) {
    return InvalidModel("input indices has shape " + ShapeToString(indices.shape) +
                        " whose last dim " + Str(k) + " (the length of each index tuple) must be " +
                        "between 1 and " + Str(max_k) + " (the rank of input data, shape " +
                        ShapeToString(data.shape) + std::string(which) + ")");
  }
  return k;
}

// ONNX GatherND (opset 13): the first batch_dims dims of data and indices are shared;
// each tuple of the last dim of indices (k entries) names a slice of data at dims
// batch_dims .. batch_dims + k - 1. Output = indices.shape[:-1] + data.shape[batch_dims + k:].
Expected<std::vector<TensorType>> InferGatherND(const InferContext& ctx) {
  const TensorType& data = ctx.input(0);
  const TensorType& indices = ctx.input(1);
  SY_RETURN_IF_ERROR(RequireMinRank(data, "data", 1));
  SY_RETURN_IF_ERROR(RequireMinRank(indices, "indices", 1));
  const int64_t b = ctx.attrs.GetInt("batch_dims");
  const int64_t limit = std::min(data.rank(), indices.rank());
  if (b < 0 || b >= limit) {
    return AttrError("batch_dims", "is " + Str(b) + " but must be between 0 and " + Str(limit - 1) +
                                       " (below the ranks of input data, " + Str(data.rank()) +
                                       ", and input indices, " + Str(indices.rank()) + ")");
  }
  for (int64_t d = 0; d < b; ++d) {
    if (indices.shape[d] != data.shape[d]) {
      return InvalidModel("input indices has shape " + ShapeToString(indices.shape) +
                          " but its first " + Str(b) + " dims (batch_dims) must equal input " +
                          "data's, whose shape is " + ShapeToString(data.shape));
    }
  }
  SY_ASSIGN_OR_RETURN(const int64_t k,
                      IndexTupleLength(data, indices, data.rank() - b,
                                       b == 0 ? std::string() : ", less batch_dims " + Str(b)));
  Shape shape(indices.shape.begin(), indices.shape.end() - 1);
  shape.insert(shape.end(), data.shape.begin() + b + k, data.shape.end());
  return std::vector<TensorType>{{data.dtype, std::move(shape)}};
}

// ONNX ScatterND (opset 18): each tuple of the last dim of indices (k entries) names a
// slice data[i_0, ..., i_k-1, ...] that the matching slice of updates replaces (or is
// reduced into). updates.shape = indices.shape[:-1] + data.shape[k:]; output = data.
Expected<std::vector<TensorType>> InferScatterND(const InferContext& ctx) {
  const TensorType& data = ctx.input(0);
  const TensorType& indices = ctx.input(1);
  const TensorType& updates = ctx.input(2);
  SY_RETURN_IF_ERROR(RequireMinRank(data, "data", 1));
  SY_RETURN_IF_ERROR(RequireMinRank(indices, "indices", 1));
  SY_ASSIGN_OR_RETURN(const int64_t k, IndexTupleLength(data, indices, data.rank(), ""));
  Shape want(indices.shape.begin(), indices.shape.end() - 1);
  want.insert(want.end(), data.shape.begin() + k, data.shape.end());
  if (updates.shape != want) {
    return InvalidModel("input updates has shape " + ShapeToString(updates.shape) +
                        " but must be " + ShapeToString(want) +
                        " (input indices' shape without its last dim, then input data's dims " +
                        "from " + Str(k) + " on)");
  }
  return std::vector<TensorType>{data};
}

// ---- cache_write ----

// cache_write (an extension, docs/ops.md): the fixed-capacity write of autoregressive
// decoding (seed 003's WriteSlice with a run-time offset). y is `cache` with `update`
// written at [offset, offset + n) along `axis`, n being update's size there; every other
// dim of update equals cache's. `offset` holds one integer, read at run time, so a graph
// that appends a token's keys keeps its shapes from token to token.
Expected<std::vector<TensorType>> InferCacheWrite(const InferContext& ctx) {
  const TensorType& cache = ctx.input(0);
  const TensorType& update = ctx.input(1);
  const TensorType& offset = ctx.input(2);
  SY_RETURN_IF_ERROR(RequireMinRank(cache, "cache", 1));
  SY_ASSIGN_OR_RETURN(const int64_t axis, NormalizeAttrAxis(ctx, "axis", cache.rank()));
  SY_RETURN_IF_ERROR(RequireRank(update, "update", cache.rank()));
  for (int64_t d = 0; d < cache.rank(); ++d) {
    if (d != axis && update.shape[d] != cache.shape[d]) {
      return InvalidModel("input update has shape " + ShapeToString(update.shape) +
                          " but must equal input cache's shape " + ShapeToString(cache.shape) +
                          " on every dim but axis " + Str(axis) + " (dim " + Str(d) + ")");
    }
  }
  if (update.shape[axis] > cache.shape[axis]) {
    return InvalidModel("input update writes " + Str(update.shape[axis]) + " entries along axis " +
                        Str(axis) + " but input cache holds " + Str(cache.shape[axis]) +
                        " there (its capacity)");
  }
  if (offset.rank() > 1 || ElementCount(offset.shape) != 1) {
    return InvalidModel("input offset has shape " + ShapeToString(offset.shape) +
                        " but must hold one integer (shape [] or [1])");
  }
  return std::vector<TensorType>{cache};
}

// tfidf_vectorizer: x [C] or [N, C] of token ids -> f32 [S] or [N, S], S = max(ngram_indexes)
// + 1. The pool holds the n-grams of each length n back to back from ngram_counts[n - 1].
Expected<std::vector<TensorType>> InferTfIdf(const InferContext& ctx) {
  const TensorType& x = ctx.input(0);
  if (x.rank() != 1 && x.rank() != 2) {
    return InvalidModel("input x has shape " + ShapeToString(x.shape) +
                        " but must have rank 1 ([C]) or 2 ([N, C])");
  }
  const int64_t min_n = ctx.attrs.GetInt("min_gram_length");
  const int64_t max_n = ctx.attrs.GetInt("max_gram_length");
  if (min_n < 1 || max_n < min_n) {
    return AttrError("min_gram_length", "and max_gram_length must satisfy 1 <= min <= max, not " +
                                            Str(min_n) + " and " + Str(max_n));
  }
  if (const int64_t skip = ctx.attrs.GetInt("max_skip_count"); skip < 0) {
    return AttrError("max_skip_count", "is " + Str(skip) + " but must be >= 0");
  }
  const std::vector<int64_t> counts = ctx.attrs.GetInts("ngram_counts");
  const std::vector<int64_t> indexes = ctx.attrs.GetInts("ngram_indexes");
  const std::vector<int64_t> pool = ctx.attrs.GetInts("pool");
  int64_t grams = 0;
  for (size_t i = 0; i < counts.size(); ++i) {
    const int64_t begin = counts[i];
    const int64_t end = i + 1 < counts.size() ? counts[i + 1] : static_cast<int64_t>(pool.size());
    const auto n = static_cast<int64_t>(i) + 1;
    if (begin < 0 || end < begin || end > static_cast<int64_t>(pool.size()) ||
        (end - begin) % n != 0) {
      return AttrError("ngram_counts", "has " + Str(begin) + " at index " + Str(n - 1) +
                                           ", which does not start a whole number of " + Str(n) +
                                           "-grams of the pool (" + Str(pool.size()) + " ids)");
    }
    grams += (end - begin) / n;
  }
  if (static_cast<int64_t>(indexes.size()) != grams) {
    return AttrError("ngram_indexes", "has " + Str(indexes.size()) +
                                          " entries but the pool holds " + Str(grams) + " n-grams");
  }
  int64_t size = 0;
  for (int64_t i : indexes) {
    if (i < 0 || i >= (int64_t{1} << 24)) {
      return AttrError("ngram_indexes", "has " + Str(i) + " but entries must be in [0, 2^24)");
    }
    size = std::max(size, i + 1);
  }
  if (ctx.attrs.Has("weights") &&
      static_cast<int64_t>(ctx.attrs.GetFloats("weights").size()) < size) {
    return AttrError("weights", "has fewer entries than the output's " + Str(size));
  }
  Shape out = x.rank() == 1 ? Shape{size} : Shape{x.shape[0], size};
  return std::vector<TensorType>{{DType::kF32, std::move(out)}};
}

}  // namespace

void AddIndexingSchemas(std::vector<OpSchema>& out) {
  out.push_back(
      Indexing("gather", "Gather", InferGather, {{"data", 0}, {"indices", 1}}, {Int("axis", 0)}));
  out.push_back(Indexing("gather_elements", "GatherElements", InferGatherElements,
                         {{"data", 0}, {"indices", 1}}, {Int("axis", 0)}));
  out.push_back(Indexing(
      "scatter_elements", "ScatterElements", InferScatterElements,
      {{"data", 0}, {"indices", 1}, {"updates", 0}},
      {Int("axis", 0),
       {"reduction", AttrKind::kString, "none", false, {"none", "add", "mul", "max", "min"}}}));
  out.push_back(Indexing("gather_nd", "GatherND", InferGatherND, {{"data", 0}, {"indices", 1}},
                         {Int("batch_dims", 0)}));
  out.push_back(Indexing(
      "scatter_nd", "ScatterND", InferScatterND, {{"data", 0}, {"indices", 1}, {"updates", 0}},
      {{"reduction", AttrKind::kString, "none", false, {"none", "add", "mul", "max", "min"}}}));
  {  // Extension (docs/ops.md): ONNX TfIdfVectorizer on integer tokens.
    OpSchema s =
        MakeSchema("tfidf_vectorizer", "TfIdfVectorizer", kInd, {{"x", 0}},
                   {{"mode", AttrKind::kString, std::nullopt, true, {"TF", "IDF", "TFIDF"}},
                    {"min_gram_length", AttrKind::kInt, std::nullopt, true, {}},
                    {"max_gram_length", AttrKind::kInt, std::nullopt, true, {}},
                    {"max_skip_count", AttrKind::kInt, std::nullopt, true, {}},
                    {"ngram_counts", AttrKind::kInts, std::nullopt, true, {}},
                    {"ngram_indexes", AttrKind::kInts, std::nullopt, true, {}},
                    {"pool", AttrKind::kInts, std::nullopt, true, {}},
                    {"weights", AttrKind::kFloats, std::nullopt, false, {}}},
                   InferTfIdf);
    out.push_back(std::move(s));
  }
  AddTreeEnsembleSchema(out);  // Extension (docs/ops.md): ONNX ai.onnx.ml TreeEnsemble.
  out.push_back(Indexing("cache_write", "", InferCacheWrite,
                         {{"cache", 0}, {"update", 0}, {"offset", 1}},
                         {{"axis", AttrKind::kInt, std::nullopt, true, {}}}));
}

}  // namespace sy::ops
