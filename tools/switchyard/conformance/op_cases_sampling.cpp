// Op cases of the sampling op: `sample` (docs/ops.md, "Sampling"), in every logits dtype,
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

}  // namespace

std::vector<OpCase> SamplingCases(std::string_view op) {
  if (op == "sample") return SampleCases();
  return {};
}

}  // namespace sy::conformance::detail
