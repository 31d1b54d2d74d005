// Op cases of the indexing ops: gather, gather_elements and scatter_elements, for every
// data dtype and both index dtypes. Indices are drawn from kIndex with the indexed
// axis's size as the limit (so negative indices, which wrap, are covered and none is out
// of range: out of range is a run-time error, not a result to compare).
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

}  // namespace

std::vector<OpCase> IndexingCases(std::string_view op) {
  if (op == "gather") return GatherCases();
  if (op == "gather_elements") return GatherElementsCases();
  if (op == "scatter_elements") return ScatterElementsCases();
  return {};
}

}  // namespace sy::conformance::detail
