// Op cases of the sampling ops: random_uniform and random_normal (RandomCases), and
// `sample` (docs/ops.md, "Sampling"), in every logits dtype,
// each method, with f32 and f64 uniform numbers. Its i64 tokens are compared exactly: the
// op fixes the order of every sum, so a plugin that follows docs/ops.md picks the same
// token from the same numbers (the uniform numbers are random, so none lies within rounding
// of a boundary between two tokens).
//
// Uniform numbers are drawn in [0, 1) (Domain::kProbability); logits from kAny, [-2, 2),
// whose probabilities after exp stay within e^4 of each other, so that every method has
// several tokens to choose from. The special-values case puts NaN into the logits, which
// cpu-ref reports as a data error (the plugin must report one too), and infinities.
#include <string>

#include "conformance/op_cases_internal.h"

namespace sy::conformance::detail {
namespace {

struct SampleCase {
  std::string label;  // "<logits shape> <method and attributes>"
  Shape logits;
  Attrs attrs;  // method greedy (the default) runs without uniform numbers
};

Attrs Method(const std::string& method,
             std::initializer_list<std::pair<std::string, AttrValue>> more = {}) {
  Attrs a = A(more);
  a.Set("method", Str(method));
  return a;
}

bool Greedy(const Attrs& attrs) { return attrs.GetString("method", "greedy") == "greedy"; }

std::vector<CaseInput> SampleInputs(DType d, const SampleCase& c, DType uniform) {
  std::vector<CaseInput> inputs = {In(d, c.logits)};
  if (!Greedy(c.attrs)) inputs.push_back(In(uniform, {c.logits[0]}, Domain::kProbability));
  return inputs;
}

std::vector<OpCase> SampleCases() {
  const std::vector<SampleCase> cases = {
      {"[3,5] greedy", {3, 5}, {}},
      {"[1,1] greedy", {1, 1}, {}},
      {"[3,5] temperature", {3, 5}, Method("temperature")},
      {"[4,50] temperature=0.7", {4, 50}, Method("temperature", {{"temperature", F(0.7)}})},
      {"[4,50] temperature=3", {4, 50}, Method("temperature", {{"temperature", F(3.0)}})},
      {"[1,1] temperature", {1, 1}, Method("temperature")},
      {"[4,50] top_k=5", {4, 50}, Method("top_k", {{"top_k", I(5)}})},
      {"[5,13] top_k=1", {5, 13}, Method("top_k", {{"top_k", I(1)}})},
      {"[2,7] top_k=100", {2, 7}, Method("top_k", {{"top_k", I(100)}})},
      {"[4,50] top_p=0.9", {4, 50}, Method("top_p", {{"top_p", F(0.9)}})},
      {"[6,33] top_p=0.3 temperature=0.5",
       {6, 33},
       Method("top_p", {{"top_p", F(0.3)}, {"temperature", F(0.5)}})},
      {"[4,50] min_p=0.1", {4, 50}, Method("min_p", {{"min_p", F(0.1)}})},
      {"[6,33] min_p=0.6 temperature=2",
       {6, 33},
       Method("min_p", {{"min_p", F(0.6)}, {"temperature", F(2.0)}})},
      {"[16,1031] top_p=0.95 temperature=0.8",
       {16, 1031},
       Method("top_p", {{"top_p", F(0.95)}, {"temperature", F(0.8)}})},
      {"empty [0,5] temperature", {0, 5}, Method("temperature")},
      // Small temperatures spread p over many orders of magnitude: a GPU kernel that sorts
      // only the tokens above a floor of p must lower it (to 0 for the first).
      {"[4,1000] top_k=600 temperature=0.05",
       {4, 1000},
       Method("top_k", {{"top_k", I(600)}, {"temperature", F(0.05)}})},
      {"[4,1000] top_p=0.9999999 temperature=0.15",
       {4, 1000},
       Method("top_p", {{"top_p", F(0.9999999)}, {"temperature", F(0.15)}})},
      {"[4,1000] top_p=1 temperature=0.3",
       {4, 1000},
       Method("top_p", {{"top_p", F(1.0)}, {"temperature", F(0.3)}})},
  };
  CaseBuilder b("sample");
  for (DType d : SchemaDTypes("sample")) {
    for (const SampleCase& c : cases) {
      b.Add(d, c.label, SampleInputs(d, c, DType::kF32), c.attrs);
      if (!Greedy(c.attrs) && c.logits[0] > 0) {
        b.Add(d, c.label + " u=f64", SampleInputs(d, c, DType::kF64), c.attrs);
      }
    }
    // NaN logits are a data error; +-inf, 1e30 and the rest are logits like any other.
    for (const SampleCase& c : {cases[0], cases[3]}) {
      b.Special(d, "special " + c.label, SampleInputs(d, c, DType::kF32), c.attrs);
    }
  }
  const SampleCase large = {
      "[32,32768] top_p=0.9", {32, 32768}, Method("top_p", {{"top_p", F(0.9)}})};
  b.Large(DType::kF32, "1M " + large.label, SampleInputs(DType::kF32, large, DType::kF32),
          large.attrs);
  return b.Take();
}

// random_uniform / random_normal: the numbers are a function of the seed and the element
// index (switchyard/random_stream.h), so a plugin must give cpu-ref's values up to the
// rounding of its log, sqrt and cos. The input only gives the shape: its dtype varies.
std::vector<OpCase> RandomCases(std::string_view op) {
  const bool normal = op == "random_normal";
  const auto params = [&](int64_t seed, double a, double b, DType d) {
    Attrs attrs =
        A({{"seed", I(seed)}, {normal ? "mean" : "low", F(a)}, {normal ? "scale" : "high", F(b)}});
    attrs.Set("dtype", Str(std::string(DTypeName(d))));
    return attrs;
  };
  CaseBuilder b(op);
  // Labelled by the input's dtype (the shape's source, any dtype); the output's follows "->".
  for (DType d : SchemaDTypes(op)) {
    b.Add(d, "[7] -> f32 seed=0", {In(d, {7})}, params(0, 0.0, 1.0, DType::kF32));
    b.Add(d, "[3,4,5] -> f32 seed=42", {In(d, {3, 4, 5})}, params(42, -2.0, 3.0, DType::kF32));
    b.Add(d, "[] -> f64 seed=7", {In(d, {})}, params(7, 1.0, 2.0, DType::kF64));
    b.Add(d, "[2,1,3] -> f16 seed=-5", {In(d, {2, 1, 3})}, params(-5, 0.5, 0.5, DType::kF16));
    b.Add(d, "[33,17] -> bf16 seed=123456789", {In(d, {33, 17})},
          params(123456789, -10.0, 10.0, DType::kBF16));
    b.Add(d, "empty [0,3] -> f32", {In(d, {0, 3})}, params(1, 0.0, 1.0, DType::kF32));
  }
  b.Large(DType::kU8, "1M [1024,1024] -> f32", {In(DType::kU8, {1024, 1024})},
          params(99, 0.0, 1.0, DType::kF32));
  return b.Take();
}

}  // namespace

std::vector<OpCase> SamplingCases(std::string_view op) {
  if (op == "sample") return SampleCases();
  if (op == "random_uniform" || op == "random_normal") return RandomCases(op);
  return {};
}

}  // namespace sy::conformance::detail
