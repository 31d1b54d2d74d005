// Op cases of the reductions and scans: reduce_sum reduce_mean reduce_max reduce_min
// reduce_prod, argmax argmin, cumsum and topk, for every float and integer dtype.
//
// Reduced extents stay modest (at most ~1000 terms, and at most 13 for reduce_prod, whose
// products of values in [-2, 2) would otherwise under- or overflow in a way that depends on
// the order of multiplication): a tolerance can then bound an f32 kernel's summation
// error against cpu-ref's double accumulation.
#include <string>

#include "conformance/op_cases_internal.h"

namespace sy::conformance::detail {
namespace {

struct Reduction {
  std::string label;
  Shape x;
  Attrs attrs;
};

Attrs Axes(std::vector<int64_t> axes, int64_t keepdims = 1) {
  Attrs a = A({{"axes", Ints(std::move(axes))}});
  if (keepdims != 1) a.Set("keepdims", I(keepdims));
  return a;
}

std::vector<OpCase> Expand(std::string_view op, const std::vector<Reduction>& cases,
                           const std::vector<Reduction>& special, const Reduction& large,
                           int num_outputs = 1, bool special_mandatory = true) {
  CaseBuilder b(op);
  for (DType d : SchemaDTypes(op)) {
    for (const Reduction& c : cases) b.Add(d, c.label, {In(d, c.x)}, c.attrs, num_outputs);
    if (!IsFloat(d)) continue;
    for (const Reduction& c : special) {
      OpCase& added = b.Special(d, "special " + c.label, {In(d, c.x)}, c.attrs, num_outputs);
      if (!special_mandatory) added.mandatory = false;
    }
  }
  b.Large(DType::kF32, "1M " + large.label, {In(DType::kF32, large.x)}, large.attrs, num_outputs);
  return b.Take();
}

// reduce_*: every axis (axes absent, and axes = []), one axis, several, negative axes,
// keepdims 0, a scalar, and empty inputs (reducing an empty set gives the reduction's
// identity: 0, 1, -inf/+inf or the dtype's lowest/highest, NaN for a float mean).
std::vector<OpCase> ReduceCases(std::string_view op) {
  const bool prod = op == "reduce_prod";
  std::vector<Reduction> cases = {
      {"[3,5]", {3, 5}, {}},
      {"[3,5] axes=[]", {3, 5}, Axes({})},
      {"[3,5] axes=[1] keepdims=0", {3, 5}, Axes({1}, 0)},
      {"[3,5] axes=[0]", {3, 5}, Axes({0})},
      {"[2,3,5] axes=[0,2]", {2, 3, 5}, Axes({0, 2})},
      {"[2,3,5] axes=[-1]", {2, 3, 5}, Axes({-1})},
      {"[2,3,5] axes=[-2] keepdims=0", {2, 3, 5}, Axes({-2}, 0)},
      {"[1,1,7,13] axes=[2,3]", {1, 1, 7, 13}, Axes({2, 3})},
      {"[2,3,4,5] axes=[3,1] keepdims=0", {2, 3, 4, 5}, Axes({3, 1}, 0)},
      {"scalar []", {}, {}},
      {"scalar [] keepdims=0", {}, Axes({}, 0)},
      {"empty [0,4] axes=[0]", {0, 4}, Axes({0})},
      {"empty [0,4] axes=[1]", {0, 4}, Axes({1})},
      {"empty [2,0,3] keepdims=0", {2, 0, 3}, Axes({}, 0)},
  };
  if (prod) {
    cases.push_back({"[33,13] axes=[1]", {33, 13}, Axes({1})});
  } else {
    cases.push_back({"[1031] keepdims=0", {1031}, Axes({}, 0)});
    cases.push_back({"[3,1031] axes=[1]", {3, 1031}, Axes({1})});
    cases.push_back({"[257,3] axes=[0] keepdims=0", {257, 3}, Axes({0}, 0)});
  }
  // Special values only for max and min, which select. A sum's result depends on its
  // order once values of 1e30 and -1e30 meet (1e30 + 1.5 - 1e30 is 0 in f32 and 1.5 in
  // cpu-ref's double), a mean of two -3e38 is finite in double but -inf after an f32 sum,
  // and products over- and underflow by order.
  std::vector<Reduction> special;
  if (op == "reduce_max" || op == "reduce_min") {
    special = {{"[9,13] axes=[1]", {9, 13}, Axes({1})}, {"[9,13] axes=[0]", {9, 13}, Axes({0})}};
  }
  const Reduction large = prod ? Reduction{"[131200,8] axes=[1]", {131200, 8}, Axes({1})}
                               : Reduction{"[1025,1024] axes=[0]", {1025, 1024}, Axes({0})};
  return Expand(op, cases, special, large);
}

Attrs Arg(int64_t axis, int64_t keepdims = 1, int64_t select_last_index = 0) {
  Attrs a = A({{"axis", I(axis)}});
  if (keepdims != 1) a.Set("keepdims", I(keepdims));
  if (select_last_index != 0) a.Set("select_last_index", I(select_last_index));
  return a;
}

// argmax / argmin: ties are frequent among the integer inputs ([-20, 20]), so the first
// and last index rules are both exercised.
std::vector<OpCase> ArgCases(std::string_view op) {
  const std::vector<Reduction> cases = {
      {"[3,5]", {3, 5}, {}},
      {"[3,5] axis=1 keepdims=0", {3, 5}, Arg(1, 0)},
      {"[3,5] axis=-1 last", {3, 5}, Arg(-1, 1, 1)},
      {"[2,3,5] axis=1", {2, 3, 5}, Arg(1)},
      {"[2,3,5] axis=0 keepdims=0 last", {2, 3, 5}, Arg(0, 0, 1)},
      {"[1,1,7,13] axis=3", {1, 1, 7, 13}, Arg(3)},
      {"[1031] keepdims=0", {1031}, Arg(0, 0)},
      {"[41,3] axis=0 last", {41, 3}, Arg(0, 1, 1)},
      {"empty [0,4] axis=1", {0, 4}, Arg(1)},
      {"empty [3,0] axis=0 keepdims=0", {3, 0}, Arg(0, 0)},
  };
  // NaN ordering follows NumPy (cpu-ref documents it); ONNX does not say, so these are
  // outside the mandatory scope.
  const std::vector<Reduction> special = {{"[9,13] axis=1", {9, 13}, Arg(1)},
                                          {"[9,13] axis=0 last", {9, 13}, Arg(0, 1, 1)}};
  return Expand(op, cases, special, {"[1024,1025] axis=1", {1024, 1025}, Arg(1)}, 1, false);
}

Attrs Cumsum(int64_t axis, int64_t exclusive = 0, int64_t reverse = 0) {
  Attrs a = A({{"axis", I(axis)}});
  if (exclusive != 0) a.Set("exclusive", I(exclusive));
  if (reverse != 0) a.Set("reverse", I(reverse));
  return a;
}

// cumsum and cumprod (whose products of O(1) values stay finite over these extents, or
// reach 0 or infinity the same way in every precision the tolerance allows).
std::vector<OpCase> CumsumCases(std::string_view op) {
  const std::vector<Reduction> cases = {
      {"[3,5] axis=0", {3, 5}, Cumsum(0)},
      {"[3,5] axis=1", {3, 5}, Cumsum(1)},
      {"[3,5] axis=-1 exclusive", {3, 5}, Cumsum(-1, 1)},
      {"[3,5] axis=1 reverse", {3, 5}, Cumsum(1, 0, 1)},
      {"[3,5] axis=0 exclusive reverse", {3, 5}, Cumsum(0, 1, 1)},
      {"[2,3,5] axis=1", {2, 3, 5}, Cumsum(1)},
      {"[1,1,7,13] axis=-2 reverse", {1, 1, 7, 13}, Cumsum(-2, 0, 1)},
      {"[1031] axis=0", {1031}, Cumsum(0)},
      {"[1031] axis=0 exclusive", {1031}, Cumsum(0, 1)},
      {"empty [0,4] axis=1", {0, 4}, Cumsum(1)},
      {"empty [3,0] axis=1 reverse", {3, 0}, Cumsum(1, 0, 1)},
  };
  // No special values: like a sum, a prefix sum through 1e30 and -1e30 depends on order.
  return Expand(op, cases, {}, {"[1024,1025] axis=1", {1024, 1025}, Cumsum(1)});
}

Attrs Topk(int64_t k, int64_t axis = -1, int64_t largest = 1, int64_t sorted = 1) {
  Attrs a = A({{"k", I(k)}});
  if (axis != -1) a.Set("axis", I(axis));
  if (largest != 1) a.Set("largest", I(largest));
  if (sorted != 1) a.Set("sorted", I(sorted));
  return a;
}

// topk: values and i64 indices. Ties (frequent among integers) go to the lower index, as
// ONNX says. sorted = 0 leaves the order to the plugin, so it appears only with k = 1.
std::vector<OpCase> TopkCases() {
  const std::vector<Reduction> cases = {
      {"[3,5] k=3", {3, 5}, Topk(3)},
      {"[3,5] k=3 smallest", {3, 5}, Topk(3, -1, 0)},
      {"[3,5] axis=0 k=2", {3, 5}, Topk(2, 0)},
      {"[3,5] k=5", {3, 5}, Topk(5)},
      {"[3,5] k=0", {3, 5}, Topk(0)},
      {"[3,5] k=1 unsorted", {3, 5}, Topk(1, -1, 1, 0)},
      {"[2,3,5] axis=1 k=2 smallest", {2, 3, 5}, Topk(2, 1, 0)},
      {"[1,1,7,13] axis=2 k=4", {1, 1, 7, 13}, Topk(4, 2)},
      {"[1031] k=10", {1031}, Topk(10)},
      {"[1031] k=7 smallest", {1031}, Topk(7, 0, 0)},
      {"empty [0,5] k=3", {0, 5}, Topk(3)},
      {"empty [3,0] k=0", {3, 0}, Topk(0)},
  };
  // NaN's place in the order is a cpu-ref decision (ONNX is silent): not mandatory.
  const std::vector<Reduction> special = {{"[9,13] k=4", {9, 13}, Topk(4)},
                                          {"[9,13] k=4 smallest", {9, 13}, Topk(4, -1, 0)}};
  return Expand("topk", cases, special, {"[1024,1025] k=8", {1024, 1025}, Topk(8)}, 2, false);
}

}  // namespace

std::vector<OpCase> ReductionCases(std::string_view op) {
  if (op == "reduce_sum" || op == "reduce_mean" || op == "reduce_max" || op == "reduce_min" ||
      op == "reduce_prod") {
    return ReduceCases(op);
  }
  if (op == "argmax" || op == "argmin") return ArgCases(op);
  if (op == "cumsum" || op == "cumprod") return CumsumCases(op);
  if (op == "topk") return TopkCases();
  return {};
}

}  // namespace sy::conformance::detail
