// Op cases of the selection ops: non_zero, compress, unique (every dtype) and
// non_max_suppression (every float dtype). Each writes a fixed-capacity output and an i64
// count last, with zeros past the count (docs/ops.md, "Selection"), and every output is
// compared exactly: a plugin must select the same elements in the same order and leave
// the rest zero (the suite fills output buffers with a guard pattern first, so an entry
// left unwritten fails).
//
// Values are drawn so that the data decides something: non_zero and unique take small
// non-negative integers (kNonNegativeIndex, floats too: zeros and repeats are common);
// unique's cases along an axis draw from {0, 1}, so that whole slices repeat.
// non_max_suppression's boxes stay in [-0.99, 0.99) (or, with center_point_box, centres
// and sizes in [0.1, 4)), so that many overlap; its special-values cases put NaN and
// infinities in the scores only: a box at 1e30 has an area that overflows f32 but not
// cpu-ref's double, so its IoU would legitimately differ in an f32 kernel.
#include <string>

#include "conformance/op_cases_internal.h"

namespace sy::conformance::detail {
namespace {

// One case of an op with a single data input x: its shape, attributes and how its values
// are drawn (limit: kNonNegativeIndex's bound).
struct DataCase {
  std::string label;
  Shape x;
  Attrs attrs;
  Domain domain = Domain::kNonNegativeIndex;
  int64_t limit = 3;
};

CaseInput Data(DType d, const DataCase& c) { return In(d, c.x, c.domain, c.limit); }

Attrs Axis(int64_t axis) { return A({{"axis", I(axis)}}); }
Attrs Unsorted(Attrs a = {}) {
  a.Set("sorted", I(0));
  return a;
}

// ---- non_zero ----

std::vector<OpCase> NonZeroCases() {
  const std::vector<DataCase> cases = {
      {"[3,5]", {3, 5}, {}},
      {"[2,3,4]", {2, 3, 4}, {}},
      {"[1,1,7,13]", {1, 1, 7, 13}, {}},
      {"[1031]", {1031}, {}},
      {"[3,5] dense", {3, 5}, {}, Domain::kAny},
      {"[4,6] zeros", {4, 6}, {}, Domain::kNonNegativeIndex, 1},
      {"scalar []", {}, {}},
      {"empty [0,4]", {0, 4}, {}},
  };
  CaseBuilder b("non_zero");
  for (DType d : SchemaDTypes("non_zero")) {
    for (const DataCase& c : cases) {
      if (d == DType::kBool && c.limit == 1) continue;  // bool inputs are random 0/1
      b.Add(d, c.label, {Data(d, c)}, c.attrs, 2);
    }
    if (IsFloat(d)) b.Special(d, "special [9,13]", {In(d, {9, 13})}, {}, 2);
  }
  b.Large(DType::kF32, "1M [1024,1025]",
          {In(DType::kF32, {1024, 1025}, Domain::kNonNegativeIndex, 3)}, {}, 2);
  return b.Take();
}

// ---- compress ----

struct CompressCase {
  std::string label;  // "<x shape> <axis> <condition shape>"
  Shape x;
  int64_t condition;  // its length
  Attrs attrs;
};

std::vector<OpCase> CompressCases() {
  const std::vector<CompressCase> cases = {
      {"[3,5] axis=0 [3]", {3, 5}, 3, Axis(0)},
      {"[3,5] axis=1 shorter [4]", {3, 5}, 4, Axis(1)},
      {"[3,5] axis=-1 longer [7]", {3, 5}, 7, Axis(-1)},
      {"[2,3,4] axis=1 [3]", {2, 3, 4}, 3, Axis(1)},
      {"[1,1,7,13] axis=3 [13]", {1, 1, 7, 13}, 13, Axis(3)},
      {"[3,5] flat [11]", {3, 5}, 11, {}},
      {"[3,5] flat longer [20]", {3, 5}, 20, {}},
      {"scalar [] flat [1]", {}, 1, {}},
      {"empty [3,5] axis=0 [0]", {3, 5}, 0, Axis(0)},
      {"empty [0,4] axis=1 [4]", {0, 4}, 4, Axis(1)},
  };
  CaseBuilder b("compress");
  auto inputs = [](DType d, const CompressCase& c) {
    return std::vector<CaseInput>{In(d, c.x), In(DType::kBool, {c.condition})};
  };
  for (DType d : SchemaDTypes("compress")) {
    for (const CompressCase& c : cases) b.Add(d, c.label, inputs(d, c), c.attrs, 2);
    if (IsFloat(d)) {
      const CompressCase& c = cases[4];
      b.Special(d, "special " + c.label, inputs(d, c), c.attrs, 2);
    }
  }
  const CompressCase large = {"[1024,1025] axis=0 [1024]", {1024, 1025}, 1024, Axis(0)};
  b.Large(DType::kF32, "1M " + large.label, inputs(DType::kF32, large), large.attrs, 2);
  return b.Take();
}

// ---- unique ----

std::vector<OpCase> UniqueCases() {
  const std::vector<DataCase> cases = {
      {"[3,5]", {3, 5}, {}, Domain::kNonNegativeIndex, 4},
      {"[3,5] sorted=0", {3, 5}, Unsorted(), Domain::kNonNegativeIndex, 4},
      {"[1031]", {1031}, {}, Domain::kNonNegativeIndex, 50},
      {"[4,6] dense", {4, 6}, {}, Domain::kAny},
      {"[6,3] axis=0", {6, 3}, Axis(0), Domain::kNonNegativeIndex, 2},
      {"[6,3] axis=0 sorted=0", {6, 3}, Unsorted(Axis(0)), Domain::kNonNegativeIndex, 2},
      {"[2,5,2] axis=1", {2, 5, 2}, Axis(1), Domain::kNonNegativeIndex, 2},
      {"[3,6] axis=-1 sorted=0", {3, 6}, Unsorted(Axis(-1)), Domain::kNonNegativeIndex, 2},
      {"scalar []", {}, {}},
      {"empty [0,4]", {0, 4}, {}},
      {"empty [0,4] axis=1", {0, 4}, Axis(1)},
  };
  CaseBuilder b("unique");
  for (DType d : SchemaDTypes("unique")) {
    for (const DataCase& c : cases) b.Add(d, c.label, {Data(d, c)}, c.attrs, 5);
    if (IsFloat(d)) {
      // NaN (one value, above +inf), -0 and +0 (one value, the first occurrence's bits).
      b.Special(d, "special [9,13]", {In(d, {9, 13})}, {}, 5);
      b.Special(d, "special [9,13] sorted=0", {In(d, {9, 13})}, Unsorted(), 5);
    }
  }
  // About 1M elements in x and y; n (262144 slices of 4 values in {0, 1, 2}) for the
  // three index outputs, so that the case stays within the suite's size.
  b.Large(DType::kF32, "1M [262144,4] axis=0",
          {In(DType::kF32, {262144, 4}, Domain::kNonNegativeIndex, 3)}, Axis(0), 5);
  return b.Take();
}

// ---- non_max_suppression ----

struct NmsCase {
  std::string label;  // "<boxes> <scores> <attributes>"
  int64_t batches, classes, boxes;
  Attrs attrs;
};

Attrs Nms(int64_t max, double iou) {
  return A({{"max_output_boxes_per_class", I(max)}, {"iou_threshold", F(iou)}});
}
Attrs WithScore(Attrs a, double score) {
  a.Set("score_threshold", F(score));
  return a;
}
Attrs Centered(Attrs a) {
  a.Set("center_point_box", I(1));
  return a;
}

std::vector<CaseInput> NmsInputs(DType d, const NmsCase& c, Domain scores) {
  const bool centered = c.attrs.GetInt("center_point_box", 0) == 1;
  return {In(d, {c.batches, c.boxes, 4}, centered ? Domain::kPositive : Domain::kUnit),
          In(d, {c.batches, c.classes, c.boxes}, scores)};
}

std::vector<OpCase> NonMaxSuppressionCases() {
  const std::vector<NmsCase> cases = {
      {"[1,6,4] [1,1,6] max=3 iou=0.5", 1, 1, 6, Nms(3, 0.5)},
      {"[2,12,4] [2,3,12] max=5 iou=0.3 score=0.1", 2, 3, 12, WithScore(Nms(5, 0.3), 0.1)},
      {"[1,20,4] [1,2,20] max=20 iou=0", 1, 2, 20, Nms(20, 0.0)},
      {"[1,20,4] [1,2,20] max=100 iou=1", 1, 2, 20, Nms(100, 1.0)},
      {"[1,33,4] [1,5,33] max=20 iou=0.45 score=0", 1, 5, 33, WithScore(Nms(20, 0.45), 0.0)},
      {"[3,9,4] [3,1,9] max=4 iou=0.5 center", 3, 1, 9, Centered(Nms(4, 0.5))},
      {"[2,16,4] [2,2,16] max=16 iou=0.2 center", 2, 2, 16, Centered(Nms(16, 0.2))},
      {"empty [1,6,4] [1,2,6] max=-1", 1, 2, 6, Nms(-1, 0.5)},
      {"empty [2,0,4] [2,3,0] max=5", 2, 3, 0, Nms(5, 0.5)},
  };
  CaseBuilder b("non_max_suppression");
  for (DType d : SchemaDTypes("non_max_suppression")) {
    for (const NmsCase& c : cases) b.Add(d, c.label, NmsInputs(d, c, Domain::kUnit), c.attrs, 2);
    // NaN scores rank first; with a threshold they are never above it.
    for (const NmsCase& c : {cases[0], cases[1]}) {
      b.Special(d, "special " + c.label, NmsInputs(d, c, Domain::kAny), c.attrs, 2);
    }
  }
  const NmsCase large = {"[1,1024,4] [1,1025,1024] max=10 iou=0.2", 1, 1025, 1024, Nms(10, 0.2)};
  b.Large(DType::kF32, "1M " + large.label, NmsInputs(DType::kF32, large, Domain::kUnit),
          large.attrs, 2);
  return b.Take();
}

}  // namespace

std::vector<OpCase> SelectionCases(std::string_view op) {
  if (op == "non_zero") return NonZeroCases();
  if (op == "compress") return CompressCases();
  if (op == "unique") return UniqueCases();
  if (op == "non_max_suppression") return NonMaxSuppressionCases();
  return {};
}

}  // namespace sy::conformance::detail
