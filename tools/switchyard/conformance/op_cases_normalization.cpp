// Op cases of the normalization ops: softmax, log_softmax, layer_norm, rms_norm,
// batch_norm, group_norm and instance_norm (float dtypes only).
//
// Special values only for softmax and log_softmax: their exponentials of x - max never
// overflow, so NaN and infinities come out the same whatever the precision of the
// intermediates. The other norms square values: 1e30 squared is finite in cpu-ref's double
// but infinite in an f32 variance, a difference of intermediate precision, not semantics.
#include <string>

#include "conformance/op_cases_internal.h"

namespace sy::conformance::detail {
namespace {

// A case: label, input shapes (and domains), attributes.
struct Norm {
  std::string label;
  std::vector<Shape> inputs;
  Attrs attrs;
};

// batch_norm's variance (input 4) must be positive: sqrt(var + epsilon) of a negative
// variance is NaN on both sides and tests nothing.
Domain InputDomain(std::string_view op, size_t index) {
  return op == "batch_norm" && index == 4 ? Domain::kPositive : Domain::kAny;
}

std::vector<OpCase> Expand(std::string_view op, const std::vector<Norm>& cases,
                           const std::vector<Norm>& special, const Norm& large) {
  CaseBuilder b(op);
  auto inputs = [op](DType d, const Norm& c) {
    std::vector<CaseInput> in;
    for (size_t i = 0; i < c.inputs.size(); ++i) {
      in.push_back(In(d, c.inputs[i], InputDomain(op, i)));
    }
    return in;
  };
  for (DType d : SchemaDTypes(op)) {
    for (const Norm& c : cases) b.Add(d, c.label, inputs(d, c), c.attrs);
    for (const Norm& c : special) b.Special(d, "special " + c.label, inputs(d, c), c.attrs);
  }
  b.Large(DType::kF32, "1M " + large.label, inputs(DType::kF32, large), large.attrs);
  return b.Take();
}

Attrs Axis(int64_t axis) { return A({{"axis", I(axis)}}); }

std::vector<OpCase> SoftmaxCases(std::string_view op) {
  return Expand(op,
                {
                    {"[3,5]", {{3, 5}}, {}},
                    {"[3,5] axis=0", {{3, 5}}, Axis(0)},
                    {"[2,3,5] axis=1", {{2, 3, 5}}, Axis(1)},
                    {"[2,3,5] axis=-3", {{2, 3, 5}}, Axis(-3)},
                    {"[1,1,7,13]", {{1, 1, 7, 13}}, {}},
                    {"[1031]", {{1031}}, {}},
                    {"[3,1031]", {{3, 1031}}, {}},
                    {"[4,1]", {{4, 1}}, {}},
                    {"empty [0,5]", {{0, 5}}, {}},
                    {"empty [3,0]", {{3, 0}}, {}},
                },
                {{"[9,13]", {{9, 13}}, {}}, {"[9,13] axis=0", {{9, 13}}, Axis(0)}},
                {"[1024,1025]", {{1024, 1025}}, {}});
}

Attrs Eps(Attrs a, double epsilon) {
  a.Set("epsilon", F(epsilon));
  return a;
}

// layer_norm (with and without bias) and rms_norm: parameters broadcast to the
// normalized dims x.shape[axis:]. No scalar: no axis is in range for rank 0.
std::vector<OpCase> AxisNormCases(std::string_view op) {
  const bool bias = op == "layer_norm";
  // Appends the bias shape for layer_norm only.
  auto in = [bias](Shape x, Shape scale, Shape b) {
    std::vector<Shape> shapes = {std::move(x), std::move(scale)};
    if (bias) shapes.push_back(std::move(b));
    return shapes;
  };
  std::vector<Norm> cases = {
      {"[3,5]", in({3, 5}, {5}, {5}), {}},
      {"[2,3,5] axis=-2", in({2, 3, 5}, {3, 5}, {3, 5}), Axis(-2)},
      {"[2,3,5] axis=1 scale=[1,5]", in({2, 3, 5}, {1, 5}, {5}), Axis(1)},
      {"[2,3,4] axis=0", in({2, 3, 4}, {2, 3, 4}, {2, 3, 4}), Axis(0)},
      {"[3,5] scale=[]", in({3, 5}, {}, {1}), {}},
      {"[1,1,7,13]", in({1, 1, 7, 13}, {13}, {13}), {}},
      {"[3,1031]", in({3, 1031}, {1031}, {1031}), {}},
      {"[3,5] epsilon=0.1", in({3, 5}, {5}, {5}), Eps({}, 0.1)},
      {"[4,1]", in({4, 1}, {1}, {1}), {}},
      {"empty [0,5]", in({0, 5}, {5}, {5}), {}},
      {"empty [3,0]", in({3, 0}, {0}, {0}), {}},
  };
  if (bias) cases.push_back({"[3,5] no bias", {{3, 5}, {5}}, {}});
  return Expand(op, cases, {}, {"[1024,1025]", in({1024, 1025}, {1025}, {1025}), {}});
}

std::vector<OpCase> BatchNormCases() {
  auto in = [](Shape x, int64_t c) { return std::vector<Shape>{std::move(x), {c}, {c}, {c}, {c}}; };
  return Expand("batch_norm",
                {
                    {"[2,3,5,7]", in({2, 3, 5, 7}, 3), {}},
                    {"[2,3]", in({2, 3}, 3), {}},
                    {"[1,4,7]", in({1, 4, 7}, 4), {}},
                    {"[1,2,3,4,5]", in({1, 2, 3, 4, 5}, 2), {}},
                    {"[1,1,7,13]", in({1, 1, 7, 13}, 1), {}},
                    {"[2,3,5,7] epsilon=0.001", in({2, 3, 5, 7}, 3), Eps({}, 0.001)},
                    {"empty [0,3,4,4]", in({0, 3, 4, 4}, 3), {}},
                    {"empty [2,0,4]", in({2, 0, 4}, 0), {}},
                },
                {}, {"[4,16,128,128]", in({4, 16, 128, 128}, 16), {}});
}

std::vector<OpCase> GroupNormCases() {
  auto in = [](Shape x) {
    const int64_t c = x[1];
    return std::vector<Shape>{std::move(x), {c}, {c}};
  };
  auto groups = [](int64_t g) { return A({{"num_groups", I(g)}}); };
  return Expand("group_norm",
                {
                    {"[2,6,5,7] groups=3", in({2, 6, 5, 7}), groups(3)},
                    {"[2,6,5,7] groups=1", in({2, 6, 5, 7}), groups(1)},
                    {"[2,6,5,7] groups=6", in({2, 6, 5, 7}), groups(6)},
                    {"[2,4,9] groups=2", in({2, 4, 9}), groups(2)},
                    {"[1,4,2,3,5] groups=2", in({1, 4, 2, 3, 5}), groups(2)},
                    {"[3,4] groups=2", in({3, 4}), groups(2)},
                    {"[1,8,7,13] groups=4 epsilon=0.01", in({1, 8, 7, 13}), Eps(groups(4), 0.01)},
                    {"empty [0,6,5,7] groups=3", in({0, 6, 5, 7}), groups(3)},
                    {"empty [2,6,0,7] groups=3", in({2, 6, 0, 7}), groups(3)},
                },
                {}, {"[2,32,128,128] groups=8", in({2, 32, 128, 128}), groups(8)});
}

std::vector<OpCase> InstanceNormCases() {
  auto in = [](Shape x) {
    const int64_t c = x[1];
    return std::vector<Shape>{std::move(x), {c}, {c}};
  };
  return Expand("instance_norm",
                {
                    {"[2,3,5,7]", in({2, 3, 5, 7}), {}},
                    {"[2,4,9]", in({2, 4, 9}), {}},
                    {"[1,2,3,4,5]", in({1, 2, 3, 4, 5}), {}},
                    {"[1,3,1,1]", in({1, 3, 1, 1}), {}},
                    {"[1,2,31,33]", in({1, 2, 31, 33}), {}},
                    {"[2,3,5,7] epsilon=0.01", in({2, 3, 5, 7}), Eps({}, 0.01)},
                    {"empty [0,3,5,7]", in({0, 3, 5, 7}), {}},
                    {"empty [2,3,0]", in({2, 3, 0}), {}},
                },
                {}, {"[2,32,128,128]", in({2, 32, 128, 128}), {}});
}

}  // namespace

std::vector<OpCase> NormalizationCases(std::string_view op) {
  if (op == "softmax" || op == "log_softmax") return SoftmaxCases(op);
  if (op == "layer_norm" || op == "rms_norm") return AxisNormCases(op);
  if (op == "batch_norm") return BatchNormCases();
  if (op == "group_norm") return GroupNormCases();
  if (op == "instance_norm") return InstanceNormCases();
  return {};
}

}  // namespace sy::conformance::detail
