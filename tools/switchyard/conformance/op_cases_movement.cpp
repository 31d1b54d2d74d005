// Op cases of the shape and data movement ops without index inputs: reshape transpose
// expand concat split slice pad tile range trilu. They take every dtype and (except pad's
// constant and range) only move elements, so every dtype gets the same shapes, and the
// float dtypes a special-values case too (NaN payloads, -0 and denormals must survive the
// move bit for bit).
#include <string>

#include "conformance/op_cases_internal.h"

namespace sy::conformance::detail {
namespace {

// One case, for every dtype: its label (after the dtype), input shapes, attributes and
// output count.
struct Move {
  std::string label;
  std::vector<Shape> inputs;
  Attrs attrs;
  int outputs = 1;
};

// Adds `moves` for every dtype of `op`, a special-values copy of the first one for each
// float dtype, and the 1M case.
std::vector<OpCase> Expand(std::string_view op, const std::vector<Move>& moves, const Move& large) {
  CaseBuilder b(op);
  for (DType d : SchemaDTypes(op)) {
    for (const Move& m : moves) {
      std::vector<CaseInput> inputs;
      for (const Shape& s : m.inputs) inputs.push_back(In(d, s));
      b.Add(d, m.label, std::move(inputs), m.attrs, m.outputs);
    }
    if (IsFloat(d)) {
      const Move& m = moves.front();
      std::vector<CaseInput> inputs;
      for (const Shape& s : m.inputs) inputs.push_back(In(d, s));
      b.Special(d, "special " + m.label, std::move(inputs), m.attrs, m.outputs);
    }
  }
  std::vector<CaseInput> inputs;
  for (const Shape& s : large.inputs) inputs.push_back(In(DType::kF32, s));
  b.Large(DType::kF32, "1M " + large.label, std::move(inputs), large.attrs, large.outputs);
  return b.Take();
}

std::vector<OpCase> ReshapeCases() {
  auto shape = [](std::vector<int64_t> s) { return A({{"shape", Ints(std::move(s))}}); };
  return Expand("reshape",
                {
                    {"[3,5]->[5,3]", {{3, 5}}, shape({5, 3})},
                    {"[2,3,4]->[-1,4]", {{2, 3, 4}}, shape({-1, 4})},
                    {"[2,3,4]->[0,-1]", {{2, 3, 4}}, shape({0, -1})},
                    {"[1,1,7,13]->[7,13]", {{1, 1, 7, 13}}, shape({7, 13})},
                    {"[3,5]->[15]", {{3, 5}}, shape({15})},
                    {"scalar []->[1,1]", {{}}, shape({1, 1})},
                    {"scalar [1]->[]", {{1}}, shape({})},
                    {"empty [0,4]->[0,2,2]", {{0, 4}}, shape({0, 2, 2})},
                    {"empty [2,0,3]->[6,0]", {{2, 0, 3}}, shape({6, 0})},
                },
                {"[1024,1025]->[1025,1024]", {{1024, 1025}}, shape({1025, 1024})});
}

std::vector<OpCase> TransposeCases() {
  auto perm = [](std::vector<int64_t> p) { return A({{"perm", Ints(std::move(p))}}); };
  return Expand("transpose",
                {
                    {"[3,5]", {{3, 5}}, {}},
                    {"[2,3,5] perm=[0,2,1]", {{2, 3, 5}}, perm({0, 2, 1})},
                    {"[2,3,5,7] perm=[0,2,3,1]", {{2, 3, 5, 7}}, perm({0, 2, 3, 1})},
                    {"[2,3,5,7] perm=[3,1,0,2]", {{2, 3, 5, 7}}, perm({3, 1, 0, 2})},
                    {"[1,1,7,13] perm=[0,1,3,2]", {{1, 1, 7, 13}}, perm({0, 1, 3, 2})},
                    {"[2,3,4,5,3] perm=[4,2,0,3,1]", {{2, 3, 4, 5, 3}}, perm({4, 2, 0, 3, 1})},
                    {"[2,3,5] default", {{2, 3, 5}}, {}},
                    {"[1031]", {{1031}}, {}},
                    {"scalar []", {{}}, {}},
                    {"empty [0,3,2] perm=[2,0,1]", {{0, 3, 2}}, perm({2, 0, 1})},
                },
                {"[1024,1025]", {{1024, 1025}}, {}});
}

std::vector<OpCase> ExpandCases() {
  auto shape = [](std::vector<int64_t> s) { return A({{"shape", Ints(std::move(s))}}); };
  return Expand("expand",
                {
                    {"[3,1] shape=[3,5]", {{3, 1}}, shape({3, 5})},
                    {"[5] shape=[2,3,5]", {{5}}, shape({2, 3, 5})},
                    {"[2,1,6] shape=[4,1]", {{2, 1, 6}}, shape({4, 1})},
                    {"[7,1,13] shape=[1,5,1]", {{7, 1, 13}}, shape({1, 5, 1})},
                    {"[3,5] shape=[]", {{3, 5}}, shape({})},
                    {"scalar [] shape=[2,3]", {{}}, shape({2, 3})},
                    {"empty [1,3] shape=[0,3]", {{1, 3}}, shape({0, 3})},
                    {"empty [0,1] shape=[0,4]", {{0, 1}}, shape({0, 4})},
                },
                {"[1,1025] shape=[1024,1025]", {{1, 1025}}, shape({1024, 1025})});
}

std::vector<OpCase> ConcatCases() {
  auto axis = [](int64_t a) { return A({{"axis", I(a)}}); };
  return Expand("concat",
                {
                    {"axis=0 [2,3]+[4,3]", {{2, 3}, {4, 3}}, axis(0)},
                    {"axis=-1 [2,1]+[2,3]+[2,2]", {{2, 1}, {2, 3}, {2, 2}}, axis(-1)},
                    {"axis=1 [1,2,7,13]+[1,3,7,13]", {{1, 2, 7, 13}, {1, 3, 7, 13}}, axis(1)},
                    {"axis=2 [2,3,1]+[2,3,4]", {{2, 3, 1}, {2, 3, 4}}, axis(2)},
                    {"axis=0 [1,3]x5", {{1, 3}, {1, 3}, {1, 3}, {1, 3}, {1, 3}}, axis(0)},
                    {"axis=0 [1031]+[17]", {{1031}, {17}}, axis(0)},
                    {"single [3,5]", {{3, 5}}, axis(0)},
                    {"empty axis=1 [2,0]+[2,3]", {{2, 0}, {2, 3}}, axis(1)},
                    {"empty axis=0 [0,3]+[0,3]", {{0, 3}, {0, 3}}, axis(0)},
                    {"empty axis=1 [0,2]+[0,3]", {{0, 2}, {0, 3}}, axis(1)},
                },
                {"axis=0 [512,1025]+[512,1025]", {{512, 1025}, {512, 1025}}, axis(0)});
}

std::vector<OpCase> SplitCases() {
  auto sizes = [](int64_t axis, std::vector<int64_t> s) {
    return A({{"axis", I(axis)}, {"sizes", Ints(std::move(s))}});
  };
  auto axis = [](int64_t a) { return A({{"axis", I(a)}}); };
  return Expand("split",
                {
                    {"axis=0 sizes=[2,3] [5,4]", {{5, 4}}, sizes(0, {2, 3}), 2},
                    {"axis=1 sizes=[1,4,5] [3,10]", {{3, 10}}, sizes(1, {1, 4, 5}), 3},
                    {"axis=-1 sizes=[3,4] [2,3,7]", {{2, 3, 7}}, sizes(-1, {3, 4}), 2},
                    {"axis=1 sizes=[1,3] [1,4,7,13]", {{1, 4, 7, 13}}, sizes(1, {1, 3}), 2},
                    {"axis=0 equal [6,5]", {{6, 5}}, axis(0), 3},
                    {"axis=0 uneven [7,3]", {{7, 3}}, axis(0), 3},
                    {"[5,4] default", {{5, 4}}, {}, 2},
                    {"axis=1 sizes=[0,5] [3,5]", {{3, 5}}, sizes(1, {0, 5}), 2},
                    {"single [3,5]", {{3, 5}}, axis(1), 1},
                    {"sizes=[1000,31] [1031]", {{1031}}, sizes(0, {1000, 31}), 2},
                    {"empty axis=1 sizes=[2,2] [0,4]", {{0, 4}}, sizes(1, {2, 2}), 2},
                },
                {"axis=1 [1024,1025]", {{1024, 1025}}, axis(1), 2});
}

std::vector<OpCase> SliceCases() {
  auto slice = [](std::vector<int64_t> starts, std::vector<int64_t> ends,
                  std::vector<int64_t> axes = {}, std::vector<int64_t> steps = {}) {
    Attrs a = A({{"starts", Ints(std::move(starts))}, {"ends", Ints(std::move(ends))}});
    if (!axes.empty()) a.Set("axes", Ints(std::move(axes)));
    if (!steps.empty()) a.Set("steps", Ints(std::move(steps)));
    return a;
  };
  return Expand(
      "slice",
      {
          {"[5,7] starts=[1,2] ends=[4,6]", {{5, 7}}, slice({1, 2}, {4, 6})},
          {"[5,7] starts=[-4] ends=[-1]", {{5, 7}}, slice({-4}, {-1})},
          {"[5,7] axes=[-1] steps=[2]", {{5, 7}}, slice({1}, {7}, {-1}, {2})},
          {"[5,7] reverse steps=[-1,-2]",
           {{5, 7}},
           slice({6, 4}, {-1000, -1000}, {1, 0}, {-1, -2})},
          {"[5,7] clamped ends=[1000,1000]", {{5, 7}}, slice({0, 0}, {1000, 1000})},
          {"[2,3,5,7] axes=[2,3] steps=[2,3]",
           {{2, 3, 5, 7}},
           slice({1, 1}, {4, 6}, {2, 3}, {2, 3})},
          {"[1031] steps=[3]", {{1031}}, slice({3}, {1030}, {0}, {3})},
          {"empty [5,7] starts=[3] ends=[1]", {{5, 7}}, slice({3}, {1})},
          {"empty [5,7] steps=[-1]", {{5, 7}}, slice({-100}, {100}, {1}, {-1})},
          {"empty [0,7] axes=[1]", {{0, 7}}, slice({1}, {5}, {1})},
      },
      {"[1024,1050] starts=[0,3] ends=[1024,1028]", {{1024, 1050}}, slice({0, 3}, {1024, 1028})});
}

std::vector<OpCase> PadCases() {
  auto pad = [](std::vector<int64_t> pads, std::string mode = "constant", double value = 0) {
    Attrs a = A({{"pads", Ints(std::move(pads))}});
    if (mode != "constant") a.Set("mode", Str(mode));
    if (value != 0) a.Set("value", F(value));
    return a;
  };
  std::vector<OpCase> cases = Expand(
      "pad",
      {
          {"[3,5] pads=[1,2,0,1]", {{3, 5}}, pad({1, 2, 0, 1})},
          {"[3,5] pads=[1,2,0,1] value=3", {{3, 5}}, pad({1, 2, 0, 1}, "constant", 3)},
          {"[3,5] reflect pads=[2,1,1,4]", {{3, 5}}, pad({2, 1, 1, 4}, "reflect")},
          {"[3,5] edge pads=[2,1,1,4]", {{3, 5}}, pad({2, 1, 1, 4}, "edge")},
          {"[3,5] crop pads=[-1,0,0,-2]", {{3, 5}}, pad({-1, 0, 0, -2})},
          {"[1,2,7,13] pads=[0,0,1,2,0,0,3,1]", {{1, 2, 7, 13}}, pad({0, 0, 1, 2, 0, 0, 3, 1})},
          {"[1,2,7,13] reflect pads=[0,0,1,2,0,0,3,1]",
           {{1, 2, 7, 13}},
           pad({0, 0, 1, 2, 0, 0, 3, 1}, "reflect")},
          {"[1,2,7,13] edge pads=[0,1,3,0,0,0,1,5]",
           {{1, 2, 7, 13}},
           pad({0, 1, 3, 0, 0, 0, 1, 5}, "edge")},
          {"[1031] pads=[3,5]", {{1031}}, pad({3, 5})},
          {"scalar [] pads=[]", {{}}, pad({})},
          {"empty [0,4] pads=[1,0,1,0]", {{0, 4}}, pad({1, 0, 1, 0})},
          {"empty [0,4] edge pads=[0,1,0,1]", {{0, 4}}, pad({0, 1, 0, 1}, "edge")},
      },
      {"[1024,1023] pads=[0,1,0,1]", {{1024, 1023}}, pad({0, 1, 0, 1})});
  // A fractional pad value, for the float dtypes only (integers would truncate it).
  CaseBuilder b("pad");
  for (DType d : SchemaDTypes("pad")) {
    if (IsFloat(d)) {
      b.Add(d, "[3,5] pads=[1,2,0,1] value=-1.5", {In(d, {3, 5})},
            pad({1, 2, 0, 1}, "constant", -1.5));
    }
  }
  for (OpCase& c : b.Take()) cases.push_back(std::move(c));
  return cases;
}

std::vector<OpCase> TileCases() {
  auto repeats = [](std::vector<int64_t> r) { return A({{"repeats", Ints(std::move(r))}}); };
  return Expand("tile",
                {
                    {"[3,5] repeats=[2,3]", {{3, 5}}, repeats({2, 3})},
                    {"[3,5] repeats=[1,1]", {{3, 5}}, repeats({1, 1})},
                    {"[2,1,3] repeats=[1,4,2]", {{2, 1, 3}}, repeats({1, 4, 2})},
                    {"[1,1,7,13] repeats=[2,3,1,2]", {{1, 1, 7, 13}}, repeats({2, 3, 1, 2})},
                    {"[1031] repeats=[2]", {{1031}}, repeats({2})},
                    {"scalar [] repeats=[]", {{}}, repeats({})},
                    {"empty [3,5] repeats=[0,2]", {{3, 5}}, repeats({0, 2})},
                    {"empty [0,3] repeats=[2,2]", {{0, 3}}, repeats({2, 2})},
                },
                {"[512,205] repeats=[2,5]", {{512, 205}}, repeats({2, 5})});
}

// range: no inputs; the dtype attribute picks the output dtype. Deltas are exact in
// every float dtype so that start + i * delta has one rounding at most on either side.
std::vector<OpCase> RangeCases() {
  CaseBuilder b("range");
  auto range = [](DType d, double start, double limit, double delta) {
    return A({{"start", F(start)},
              {"limit", F(limit)},
              {"delta", F(delta)},
              {"dtype", Str(std::string(DTypeName(d)))}});
  };
  for (DType d : SchemaDTypes("range")) {
    b.Add(d, "0:10:1", {}, range(d, 0, 10, 1));
    b.Add(d, "single 2:3:1", {}, range(d, 2, 3, 1));
    b.Add(d, "empty 5:5:1", {}, range(d, 5, 5, 1));
    b.Add(d, "empty 5:0:1", {}, range(d, 5, 0, 1));
    if (IsInteger(d) && !IsSigned(d)) {
      b.Add(d, "3:17:2", {}, range(d, 3, 17, 2));
      b.Add(d, "30:2:-4", {}, range(d, 30, 2, -4));
      b.Add(d, "0:250:1", {}, range(d, 0, 250, 1));
    } else {
      b.Add(d, "-3:7:2", {}, range(d, -3, 7, 2));
      b.Add(d, "10:-5:-3", {}, range(d, 10, -5, -3));
      b.Add(d, "-100:100:1", {}, range(d, -100, 100, 1));
    }
    if (IsFloat(d)) {
      b.Add(d, "0.5:4:0.25", {}, range(d, 0.5, 4, 0.25));
      b.Add(d, "-1:1.1:0.5", {}, range(d, -1, 1.1, 0.5));
      b.Add(d, "3:-2:-0.75", {}, range(d, 3, -2, -0.75));
    }
  }
  b.Large(DType::kF32, "1M 0:1049600:1", {}, range(DType::kF32, 0, 1049600, 1));
  return b.Take();
}

std::vector<OpCase> TriluCases() {
  auto trilu = [](int64_t upper, int64_t k) { return A({{"upper", I(upper)}, {"k", I(k)}}); };
  return Expand("trilu",
                {
                    {"[5,7]", {{5, 7}}, {}},
                    {"[5,7] upper=0", {{5, 7}}, trilu(0, 0)},
                    {"[5,7] k=2", {{5, 7}}, trilu(1, 2)},
                    {"[5,7] upper=0 k=-1", {{5, 7}}, trilu(0, -1)},
                    {"[7,5] k=-2", {{7, 5}}, trilu(1, -2)},
                    {"[5,7] k=10", {{5, 7}}, trilu(1, 10)},
                    {"[5,7] upper=0 k=-10", {{5, 7}}, trilu(0, -10)},
                    {"[2,3,4,6]", {{2, 3, 4, 6}}, {}},
                    {"[1,1,7,13] upper=0 k=3", {{1, 1, 7, 13}}, trilu(0, 3)},
                    {"empty [0,3,3]", {{0, 3, 3}}, {}},
                    {"empty [3,0]", {{3, 0}}, trilu(0, 0)},
                },
                {"[1024,1025]", {{1024, 1025}}, {}});
}

}  // namespace

// bitcast: every dtype to every other of its size but bool (floats' bit patterns from
// integers include NaNs and subnormals: the comparison is bit for bit).
std::vector<OpCase> BitcastCases() {
  CaseBuilder b("bitcast");
  for (DType from : SchemaDTypes("bitcast")) {
    for (DType to : SchemaDTypes("bitcast")) {
      if (to == DType::kBool || DTypeSize(to) != DTypeSize(from)) continue;
      const Attrs attrs = A({{"to", Str(std::string(DTypeName(to)))}});
      const std::string arrow = "->" + std::string(DTypeName(to));
      b.Add(from, arrow + " [3,5]", {In(from, {3, 5})}, attrs);
      b.Add(from, arrow + " [1031]", {In(from, {1031})}, attrs);
      b.Add(from, arrow + " scalar []", {In(from, {})}, attrs);
      b.Add(from, arrow + " empty [0,3]", {In(from, {0, 3})}, attrs);
    }
  }
  b.Large(DType::kF32, "->i32 1M [1024,1025]", {In(DType::kF32, {1024, 1025})},
          A({{"to", Str("i32")}}));
  return b.Take();
}

std::vector<OpCase> MovementCases(std::string_view op) {
  if (op == "bitcast") return BitcastCases();
  if (op == "reshape") return ReshapeCases();
  if (op == "transpose") return TransposeCases();
  if (op == "expand") return ExpandCases();
  if (op == "concat") return ConcatCases();
  if (op == "split") return SplitCases();
  if (op == "slice") return SliceCases();
  if (op == "pad") return PadCases();
  if (op == "tile") return TileCases();
  if (op == "range") return RangeCases();
  if (op == "trilu") return TriluCases();
  return {};
}

}  // namespace sy::conformance::detail
