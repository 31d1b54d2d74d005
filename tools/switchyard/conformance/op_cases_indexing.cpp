// Op cases of the indexing ops: gather, gather_elements, scatter_elements, gather_nd,
// scatter_nd and cache_write (and the extensions tfidf_vectorizer and tree_ensemble), for every
// data dtype and both index dtypes. Indices are drawn from kIndex with the indexed axis's size as
// the limit (gather_nd and scatter_nd: each entry of an index tuple with the size of the dim it
// indexes), so negative indices, which wrap, are covered and none is out of range: out of range is
// a run-time error, not a result to compare.
#include <algorithm>
#include <string>

#include "conformance/op_cases_internal.h"

namespace sy::conformance::detail {
namespace {

// One case for every (data dtype, index dtype): shapes of data, indices (and updates,
// which take the shape of indices), the indexed axis's size, the attributes.
struct Indexing {
  std::string label;
  Shape data, indices;
  int64_t limit;  // the size of the indexed axis
  Attrs attrs;
  Domain domain = Domain::kIndex;
};

// Labels read "<dtype> <data shape> <attrs> <index dtype> <indices shape>".
std::vector<OpCase> Expand(std::string_view op, const std::vector<Indexing>& cases,
                           const std::vector<Indexing>& special, const Indexing& large,
                           bool with_updates, bool (*skip)(DType, const Indexing&) = nullptr) {
  CaseBuilder b(op);
  auto inputs = [&](DType d, DType ti, const Indexing& c) {
    std::vector<CaseInput> in = {In(d, c.data), In(ti, c.indices, c.domain, c.limit)};
    if (with_updates) in.push_back(In(d, c.indices));
    return in;
  };
  for (DType d : SchemaDTypes(op)) {
    for (DType ti : kIndexDTypes) {
      const std::string index_name(DTypeName(ti));
      for (const Indexing& c : cases) {
        if (skip != nullptr && skip(d, c)) continue;
        b.Add(d, c.label + " " + index_name + " " + ShapeLabel(c.indices), inputs(d, ti, c),
              c.attrs);
      }
      if (IsFloat(d)) {
        for (const Indexing& c : special) {
          b.Special(d, "special " + c.label + " " + index_name + " " + ShapeLabel(c.indices),
                    inputs(d, ti, c), c.attrs);
        }
      }
    }
  }
  b.Large(DType::kF32, "1M " + large.label + " i64 " + ShapeLabel(large.indices),
          inputs(DType::kF32, DType::kI64, large), large.attrs);
  return b.Take();
}

Attrs Axis(int64_t axis) { return A({{"axis", I(axis)}}); }

std::vector<OpCase> GatherCases() {
  const std::vector<Indexing> cases = {
      {"[5,4] axis=0", {5, 4}, {3}, 5, Axis(0)},
      {"[5,4] axis=1", {5, 4}, {2, 3}, 4, Axis(1)},
      {"[2,5,3] axis=-1", {2, 5, 3}, {4}, 3, Axis(-1)},
      {"[2,5,3] axis=1 scalar", {2, 5, 3}, {}, 5, Axis(1)},
      {"[7]", {7}, {4, 2}, 7, {}},
      {"[1,1,7,13] axis=2", {1, 1, 7, 13}, {5}, 7, Axis(2)},
      {"[5,4] repeated", {5, 4}, {9}, 5, Axis(0), Domain::kNonNegativeIndex},
      {"empty [5,4]", {5, 4}, {0}, 5, Axis(0)},
      {"empty [3,0] axis=0", {3, 0}, {2}, 3, Axis(0)},
      {"empty [0,4] axis=1", {0, 4}, {3}, 4, Axis(1)},
  };
  return Expand("gather", cases, {cases[0]},
                {"[1024,1025] axis=0", {1024, 1025}, {1024}, 1024, Axis(0)}, false);
}

std::vector<OpCase> GatherElementsCases() {
  const std::vector<Indexing> cases = {
      {"[4,5] axis=0", {4, 5}, {3, 5}, 4, Axis(0)},
      {"[4,5] axis=1", {4, 5}, {4, 2}, 5, Axis(1)},
      {"[4,5] axis=-1 longer", {4, 5}, {2, 7}, 5, Axis(-1)},
      {"[2,3,5] axis=1", {2, 3, 5}, {2, 4, 3}, 3, Axis(1)},
      {"[7]", {7}, {9}, 7, {}},
      {"[1,1,7,13] axis=3", {1, 1, 7, 13}, {1, 1, 7, 20}, 13, Axis(3)},
      {"empty [4,5] axis=0", {4, 5}, {0, 5}, 4, Axis(0)},
      {"empty [0,5] axis=1", {0, 5}, {0, 3}, 5, Axis(1)},
  };
  return Expand("gather_elements", cases, {cases[0]},
                {"[1024,1025] axis=1", {1024, 1025}, {1024, 1025}, 1025, Axis(1)}, false);
}

Attrs Scatter(int64_t axis, std::string reduction) {
  Attrs a = Axis(axis);
  if (reduction != "none") a.Set("reduction", Str(std::move(reduction)));
  return a;
}

// add and mul on bool are cpu-ref decisions (or / and), not ONNX: left out.
bool SkipBoolArithmetic(DType d, const Indexing& c) {
  const std::string r = c.attrs.GetString("reduction", "none");
  return d == DType::kBool && (r == "add" || r == "mul");
}

// With reduction "none", duplicate indices are undefined (ONNX): those cases index along
// an axis of size 1 in `indices`, so that each element is written once. The reductions
// take duplicates (the point of them).
std::vector<OpCase> ScatterElementsCases() {
  const std::vector<Indexing> cases = {
      {"[4,5] axis=0", {4, 5}, {1, 5}, 4, Scatter(0, "none")},
      {"[4,5] axis=1", {4, 5}, {3, 1}, 5, Scatter(1, "none")},
      {"[2,3,5] axis=-1", {2, 3, 5}, {2, 3, 1}, 5, Scatter(-1, "none")},
      {"[1,1,7,13] axis=2", {1, 1, 7, 13}, {1, 1, 1, 9}, 7, Scatter(2, "none")},
      {"[7]", {7}, {1}, 7, {}},
      {"[4,5] axis=0 add", {4, 5}, {3, 5}, 4, Scatter(0, "add")},
      {"[4,5] axis=1 mul", {4, 5}, {4, 3}, 5, Scatter(1, "mul")},
      {"[4,5] axis=0 max", {4, 5}, {6, 5}, 4, Scatter(0, "max")},
      {"[4,5] axis=1 min", {4, 5}, {2, 7}, 5, Scatter(1, "min")},
      {"[7] add", {7}, {12}, 7, Scatter(0, "add")},
      {"[2,3,5] axis=1 max", {2, 3, 5}, {2, 5, 4}, 3, Scatter(1, "max")},
      {"empty [4,5] axis=0", {4, 5}, {0, 5}, 4, Scatter(0, "none")},
      {"empty [4,5] axis=1 add", {4, 5}, {4, 0}, 5, Scatter(1, "add")},
      {"empty [0,5] axis=1", {0, 5}, {0, 3}, 5, Scatter(1, "none")},
  };
  // Special values through "none" (a copy) and "max" (NaN propagates); not through "add",
  // whose result with duplicates depends on the order and precision of accumulation.
  return Expand("scatter_elements", cases, {cases[0], cases[7]},
                {"[1024,1025] axis=0", {1024, 1025}, {1, 1025}, 1024, Scatter(0, "none")}, true,
                SkipBoolArithmetic);
}

// ---- gather_nd, scatter_nd ----

// One case of gather_nd / scatter_nd: data and indices shapes (indices' last dim k is the
// length of each index tuple), attributes. The tuples index data's dims batch_dims ..
// batch_dims + k - 1; scatter_nd's updates take indices.shape[:-1] + data.shape[k:].
struct IndexingND {
  std::string label;
  Shape data, indices;
  Attrs attrs;
};

std::string Reduction(const Attrs& attrs) { return attrs.GetString("reduction", "none"); }

// The index input of a case: tuples over the dims they index; scatter_nd without a
// reduction draws distinct tuples (duplicates there are undefined in ONNX).
CaseInput IndexTuples(DType ti, const IndexingND& c, bool scatter) {
  CaseInput in = In(ti, c.indices, Domain::kIndex);
  const auto b = static_cast<size_t>(c.attrs.GetInt("batch_dims", 0));
  const auto k = static_cast<size_t>(c.indices.back());
  in.tuple_dims.assign(c.data.begin() + static_cast<std::ptrdiff_t>(b),
                       c.data.begin() + static_cast<std::ptrdiff_t>(b + k));
  if (scatter && Reduction(c.attrs) == "none") {
    in.distinct_tuples = std::max<int64_t>(1, ElementCount(c.indices) / static_cast<int64_t>(k));
  }
  return in;
}

Shape UpdatesShape(const IndexingND& c) {
  Shape s(c.indices.begin(), c.indices.end() - 1);
  s.insert(s.end(), c.data.begin() + static_cast<std::ptrdiff_t>(c.indices.back()), c.data.end());
  return s;
}

// Labels read "<dtype> <data shape> <attrs> <index dtype> <indices shape>".
std::vector<OpCase> ExpandND(std::string_view op, const std::vector<IndexingND>& cases,
                             const std::vector<IndexingND>& special, const IndexingND& large) {
  const bool scatter = op == "scatter_nd";
  CaseBuilder b(op);
  auto inputs = [&](DType d, DType ti, const IndexingND& c) {
    std::vector<CaseInput> in = {In(d, c.data), IndexTuples(ti, c, scatter)};
    if (scatter) in.push_back(In(d, UpdatesShape(c)));
    return in;
  };
  for (DType d : SchemaDTypes(op)) {
    for (DType ti : kIndexDTypes) {
      const std::string index_name(DTypeName(ti));
      for (const IndexingND& c : cases) {
        // add and mul on bool are cpu-ref decisions (or / and), not ONNX: left out.
        const std::string r = Reduction(c.attrs);
        if (d == DType::kBool && (r == "add" || r == "mul")) continue;
        b.Add(d, c.label + " " + index_name + " " + ShapeLabel(c.indices), inputs(d, ti, c),
              c.attrs);
      }
      if (IsFloat(d)) {
        for (const IndexingND& c : special) {
          b.Special(d, "special " + c.label + " " + index_name + " " + ShapeLabel(c.indices),
                    inputs(d, ti, c), c.attrs);
        }
      }
    }
  }
  b.Large(DType::kF32, "1M " + large.label + " i64 " + ShapeLabel(large.indices),
          inputs(DType::kF32, DType::kI64, large), large.attrs);
  return b.Take();
}

Attrs BatchDims(int64_t b) { return A({{"batch_dims", I(b)}}); }

std::vector<OpCase> GatherNDCases() {
  const std::vector<IndexingND> cases = {
      {"[5,4] k=1", {5, 4}, {3, 1}, {}},
      {"[5,4] k=2", {5, 4}, {2, 3, 2}, {}},
      {"[2,5,3] k=2", {2, 5, 3}, {4, 2}, {}},
      {"[2,5,3] k=3 one tuple", {2, 5, 3}, {3}, {}},
      {"[1,1,7,13] k=3", {1, 1, 7, 13}, {5, 3}, {}},
      {"[7] k=1 repeated", {7}, {4, 3, 1}, {}},
      {"[2,5,3] batch_dims=1 k=1", {2, 5, 3}, {2, 4, 1}, BatchDims(1)},
      {"[2,5,3] batch_dims=1 k=2", {2, 5, 3}, {2, 3, 2}, BatchDims(1)},
      {"[2,3,5,4] batch_dims=2 k=1", {2, 3, 5, 4}, {2, 3, 2, 1}, BatchDims(2)},
      {"empty [5,4]", {5, 4}, {0, 1}, {}},
      {"empty [3,0] k=1", {3, 0}, {2, 1}, {}},
      {"empty [0,4] batch_dims=1", {0, 4}, {0, 2, 1}, BatchDims(1)},
  };
  return ExpandND("gather_nd", cases, {cases[0], cases[7]},
                  {"[1024,1025] k=1", {1024, 1025}, {1024, 1}, {}});
}

Attrs ScatterND(std::string reduction) {
  Attrs a;
  if (reduction != "none") a.Set("reduction", Str(std::move(reduction)));
  return a;
}

// Without a reduction the tuples are distinct (IndexTuples); the reductions take
// duplicates (the point of them).
std::vector<OpCase> ScatterNDCases() {
  const std::vector<IndexingND> cases = {
      {"[4,5] k=1", {4, 5}, {3, 1}, {}},
      {"[4,5] k=2", {4, 5}, {2, 3, 2}, {}},
      {"[2,3,5] k=2", {2, 3, 5}, {4, 2}, {}},
      {"[2,3,5] k=1 one tuple", {2, 3, 5}, {1}, {}},
      {"[1,1,7,13] k=3", {1, 1, 7, 13}, {5, 3}, {}},
      {"[7] k=1", {7}, {4, 1}, {}},
      {"[4,5] k=1 add", {4, 5}, {6, 1}, ScatterND("add")},
      {"[4,5] k=2 mul", {4, 5}, {7, 2}, ScatterND("mul")},
      {"[4,5] k=1 max", {4, 5}, {6, 1}, ScatterND("max")},
      {"[2,3,5] k=2 min", {2, 3, 5}, {3, 3, 2}, ScatterND("min")},
      {"[7] k=1 add", {7}, {12, 1}, ScatterND("add")},
      {"[2,3,5] k=3 max", {2, 3, 5}, {40, 3}, ScatterND("max")},
      {"empty [4,5]", {4, 5}, {0, 1}, {}},
      {"empty [4,5] k=2 add", {4, 5}, {0, 2}, ScatterND("add")},
      {"empty [0,5]", {0, 5}, {0, 1}, {}},
      {"empty [4,0] k=1", {4, 0}, {2, 1}, {}},
  };
  // Special values through "none" (a copy) and "max" (NaN propagates); not through "add",
  // whose result with duplicates depends on the order and precision of accumulation.
  return ExpandND("scatter_nd", cases, {cases[0], cases[8]},
                  {"[1024,1025] k=1", {1024, 1025}, {512, 1}, {}});
}

// ---- cache_write ----

// Cache and update shapes and the axis; the offset (one integer of either index dtype) is
// drawn in [0, capacity - n], so every write fits (one that does not is a run-time error,
// not a result to compare).
struct CacheWriteCase {
  std::string label;
  Shape cache, update;
  int64_t axis;
};

std::vector<OpCase> CacheWriteCases() {
  const std::vector<CacheWriteCase> cases = {
      {"[2,3,8,4] one token axis=2", {2, 3, 8, 4}, {2, 3, 1, 4}, 2},
      {"[1,2,6,3] prompt of 4 axis=2", {1, 2, 6, 3}, {1, 2, 4, 3}, 2},
      {"[5,3] whole capacity axis=0", {5, 3}, {5, 3}, 0},
      {"[2,7] axis=-1", {2, 7}, {2, 3}, -1},
      {"[4] rank 1", {4}, {1}, 0},
      {"empty update [2,4,3]", {2, 4, 3}, {2, 0, 3}, 1},
      {"empty cache [0,4]", {0, 4}, {0, 2}, 1},
  };
  CaseBuilder b("cache_write");
  auto inputs = [](DType d, DType ti, const CacheWriteCase& c, int64_t shape_one) {
    const int64_t axis = c.axis < 0 ? c.axis + static_cast<int64_t>(c.cache.size()) : c.axis;
    const int64_t room = c.cache[static_cast<size_t>(axis)] - c.update[static_cast<size_t>(axis)];
    CaseInput offset = In(ti, shape_one ? Shape{1} : Shape{}, Domain::kNonNegativeIndex, room + 1);
    return std::vector<CaseInput>{In(d, c.cache), In(d, c.update), offset};
  };
  for (DType d : SchemaDTypes("cache_write")) {
    for (DType ti : kIndexDTypes) {
      const std::string index_name(DTypeName(ti));
      for (size_t k = 0; k < cases.size(); ++k) {
        const CacheWriteCase& c = cases[k];
        const int64_t shape_one = static_cast<int64_t>(k % 2);  // offsets of shape [] and [1]
        b.Add(d, c.label + " " + index_name + " offset " + (shape_one ? "[1]" : "[]"),
              inputs(d, ti, c, shape_one), A({{"axis", I(c.axis)}}));
      }
      if (IsFloat(d)) {
        b.Special(d, "special " + cases[0].label + " " + index_name, inputs(d, ti, cases[0], 0),
                  A({{"axis", I(cases[0].axis)}}));
      }
    }
  }
  const CacheWriteCase large{"[4,16,2048,8] one token", {4, 16, 2048, 8}, {4, 16, 1, 8}, 2};
  b.Large(DType::kF32, "1M " + large.label, inputs(DType::kF32, DType::kI64, large, 0),
          A({{"axis", I(large.axis)}}));
  return b.Take();
}

// tfidf_vectorizer: tokens in [0, 6) so that the pool's n-grams over {0 .. 5} are often
// hit; unigrams to trigrams, with skips, each mode, with and without weights.
std::vector<OpCase> TfIdfCases() {
  auto attrs = [](std::string mode, int64_t min_n, int64_t max_n, int64_t skip, bool weights) {
    Attrs a;
    a.Set("mode", Str(std::move(mode)));
    a.Set("min_gram_length", I(min_n));
    a.Set("max_gram_length", I(max_n));
    a.Set("max_skip_count", I(skip));
    // unigrams 0..3, bigrams (1,2) (2,3) (0,5), trigram (1,2,3)
    a.Set("ngram_counts", Ints({0, 4, 10}));
    a.Set("ngram_indexes", Ints({0, 1, 2, 3, 4, 5, 6, 7}));
    a.Set("pool", Ints({0, 1, 2, 3, 1, 2, 2, 3, 0, 5, 1, 2, 3}));
    if (weights) a.Set("weights", Floats({0.5, 1, 1.5, 2, 2.5, 3, 3.5, 4}));
    return a;
  };
  CaseBuilder b("tfidf_vectorizer");
  for (DType d : SchemaDTypes("tfidf_vectorizer")) {
    const CaseInput row = In(d, {23}, Domain::kNonNegativeIndex, 6);
    const CaseInput rows = In(d, {4, 17}, Domain::kNonNegativeIndex, 6);
    b.Add(d, "[23] TF 1-3 grams", {row}, attrs("TF", 1, 3, 0, false));
    b.Add(d, "[23] TF 2-3 grams skip 2", {row}, attrs("TF", 2, 3, 2, false));
    b.Add(d, "[4,17] IDF weights skip 1", {rows}, attrs("IDF", 1, 2, 1, true));
    b.Add(d, "[4,17] TFIDF weights 1-3 grams skip 3", {rows}, attrs("TFIDF", 1, 3, 3, true));
    b.Add(d, "[4,17] TFIDF no weights", {rows}, attrs("TFIDF", 1, 1, 0, false));
    b.Add(d, "empty [0,5]", {In(d, {0, 5})}, attrs("TF", 1, 2, 0, false));
  }
  b.Large(DType::kI64, "1M [1048576] TF 1-3 grams",
          {In(DType::kI64, {1048576}, Domain::kNonNegativeIndex, 6)}, attrs("TF", 1, 3, 0, false));
  return b.Take();
}

// tree_ensemble: x in [-2, 2) over 4 features; two trees with splits inside that range,
// every comparison mode (set membership too, on values x can only hit exactly where the
// generator's grid does), one leaf with two votes; each aggregate and post transform.
std::vector<OpCase> TreeEnsembleCases() {
  auto attrs = [](std::string aggregate, std::string post, bool base) {
    Attrs a;
    a.Set("n_targets", I(2));
    a.Set("aggregate_function", Str(std::move(aggregate)));
    a.Set("post_transform", Str(std::move(post)));
    a.Set("tree_roots", Ints({0, 4}));
    a.Set("nodes_featureids", Ints({0, 1, 2, 3, 3, 2, 1}));
    a.Set("nodes_modes",
          AttrValue{std::vector<std::string>{"BRANCH_LEQ", "BRANCH_LT", "BRANCH_GTE", "BRANCH_GT",
                                             "BRANCH_EQ", "BRANCH_NEQ", "BRANCH_MEMBER"}});
    a.Set("nodes_splits", Floats({0.25, -0.5, 1, 0, 0, 0.5, 0}));
    // tree 0: 0 -> (1, 2); 1 -> (leaf 0, 3); 2 -> (leaf 1, leaf 2); 3 -> (leaf 3, leaf 4)
    // tree 1: 4 -> (leaf 5, 5); 5 -> (6, leaf 6); 6 -> (leaf 7, leaf 8)
    a.Set("nodes_truenodeids", Ints({1, 0, 1, 3, 5, 6, 7}));
    a.Set("nodes_trueleafs", Ints({0, 1, 1, 1, 1, 0, 1}));
    a.Set("nodes_falsenodeids", Ints({2, 3, 2, 4, 5, 6, 8}));
    a.Set("nodes_falseleafs", Ints({0, 0, 1, 1, 0, 1, 1}));
    a.Set("nodes_missing_value_tracks_true", Ints({1, 0, 0, 1, 0, 1, 0}));
    a.Set("membership_values", Floats({-1, 0, 1.5}));
    a.Set("membership_counts", Ints({3}));
    a.Set("leaf_offsets", Ints({0, 1, 2, 4, 5, 6, 7, 8, 9, 10}));
    a.Set("leaf_targetids", Ints({0, 1, 0, 1, 0, 1, 1, 0, 1, 0}));
    a.Set("leaf_weights", Floats({0.5, -1, 2, 0.25, -0.75, 1.5, 0.125, -2, 1, 0.375}));
    if (base) a.Set("base_values", Floats({0.5, -0.25}));
    return a;
  };
  CaseBuilder b("tree_ensemble");
  for (DType d : SchemaDTypes("tree_ensemble")) {
    for (const char* aggregate : {"SUM", "AVERAGE", "MIN", "MAX"}) {
      b.Add(d, std::string("[9,4] ") + aggregate, {In(d, {9, 4})}, attrs(aggregate, "NONE", false));
    }
    for (const char* post : {"SOFTMAX", "LOGISTIC", "SOFTMAX_ZERO", "PROBIT"}) {
      b.Add(d, std::string("[9,4] SUM base ") + post, {In(d, {9, 4}, Domain::kSmall)},
            attrs("SUM", post, true));
    }
    b.Add(d, "[1,4] AVERAGE base", {In(d, {1, 4})}, attrs("AVERAGE", "NONE", true));
    b.Add(d, "empty [0,4]", {In(d, {0, 4})}, attrs("SUM", "NONE", false));
  }
  b.Large(DType::kF32, "1M [262144,4] SUM", {In(DType::kF32, {262144, 4})},
          attrs("SUM", "NONE", false));
  return b.Take();
}

}  // namespace

std::vector<OpCase> IndexingCases(std::string_view op) {
  if (op == "gather") return GatherCases();
  if (op == "gather_elements") return GatherElementsCases();
  if (op == "scatter_elements") return ScatterElementsCases();
  if (op == "gather_nd") return GatherNDCases();
  if (op == "scatter_nd") return ScatterNDCases();
  if (op == "cache_write") return CacheWriteCases();
  if (op == "tfidf_vectorizer") return TfIdfCases();
  if (op == "tree_ensemble") return TreeEnsembleCases();
  return {};
}

}  // namespace sy::conformance::detail
