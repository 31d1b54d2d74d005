// The sampling family's reference kernel (`sample`) against NumPy reference files
// (tools/kernel_refs/sampling.py -> tests/data/kernels/sampling/) and cases derived by hand
// from docs/ops.md ("Sampling"): each method, ties, k above the vocabulary, a temperature
// that changes the pick, uniform numbers on and around the boundaries between tokens,
// several rows, infinite logits, every logits dtype, and the data errors. Then
// random_uniform / random_normal: splitmix64's published outputs, their moments over many
// draws, determinism, and each element depending on the seed and its index alone.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "movement_test_util.h"
#include "ref/ref_kernels.h"

namespace sy::cpu::test {
namespace {

// ---- NumPy reference files ----------------------------------------------------------

struct SampleFile {
  std::string name;  // <name>_in0.npy (logits), <name>_in1.npy (uniform), <name>_out0.npy
  Attrs attrs;
  bool uniform = true;  // whether there is an in1 (greedy runs without)
  bool bf16 = false;    // in0 holds bf16 values as f64 (NumPy has no bf16)
};

Tensor LoadSampling(const std::string& file) {
  return LoadData("kernels/sampling/" + file + ".npy");
}

void RunSampleFile(const SampleFile& c) {
  SCOPED_TRACE(c.name);
  std::vector<Tensor> inputs = {LoadSampling(c.name + "_in0")};
  if (c.bf16) inputs[0] = Make(DType::kBF16, inputs[0].shape(), Values(inputs[0]));
  if (c.uniform) inputs.push_back(LoadSampling(c.name + "_in1"));
  Expected<std::vector<Tensor>> out = RunRef("sample", inputs, c.attrs);
  SY_ASSERT_OK(out);
  ExpectMatches((*out)[0], LoadSampling(c.name + "_out0"));
}

Attrs M(const std::string& method,
        std::initializer_list<std::pair<std::string, AttrValue>> more = {}) {
  Attrs a = A(more);
  a.Set("method", method);
  return a;
}

TEST(SamplingRef, MatchesNumpy) {
  const SampleFile cases[] = {
      {"greedy_f32", {}, false},
      {"greedy_f16", {}, false},
      {"greedy_bf16", {}, false, true},
      {"greedy_f64_with_uniform", M("greedy")},
      {"temperature_f32", M("temperature")},
      {"temperature_f32_t0.3", M("temperature", {{"temperature", 0.3}})},
      {"temperature_f64_t2.5", M("temperature", {{"temperature", 2.5}})},
      {"temperature_f32_masked", M("temperature")},
      {"top_k_f32", M("top_k", {{"top_k", int64_t{5}}})},
      {"top_k_bf16_ties", M("top_k", {{"top_k", int64_t{3}}}), true, true},
      {"top_k_f32_k_above_v", M("top_k", {{"top_k", int64_t{100}}})},
      {"top_k_f16_t0.5", M("top_k", {{"top_k", int64_t{4}}, {"temperature", 0.5}})},
      {"top_p_f32", M("top_p", {{"top_p", 0.9}})},
      {"top_p_bf16", M("top_p", {{"top_p", 0.5}}), true, true},
      {"top_p_f32_large_v", M("top_p", {{"top_p", 0.95}, {"temperature", 0.8}})},
      {"top_p_f64_small", M("top_p", {{"top_p", 0.05}})},
      {"min_p_f32", M("min_p", {{"min_p", 0.05}})},
      {"min_p_f16", M("min_p", {{"min_p", 0.3}})},
      {"min_p_f64_t1.7", M("min_p", {{"min_p", 0.2}, {"temperature", 1.7}})},
      {"temperature_f32_empty", M("temperature")},
  };
  for (const SampleFile& c : cases) RunSampleFile(c);
}

// ---- hand-derived cases ----------------------------------------------------------------

// The tokens `sample` picks for `logits` [N, V] of `dtype` with one uniform number per row
// (f64 unless `udtype` says otherwise).
std::vector<int64_t> Pick(const Attrs& attrs, DType dtype, Shape shape,
                          const std::vector<double>& logits, const std::vector<double>& u,
                          DType udtype = DType::kF64) {
  std::vector<Tensor> inputs = {Make(dtype, std::move(shape), logits)};
  if (!u.empty()) inputs.push_back(Make(udtype, {static_cast<int64_t>(u.size())}, u));
  Expected<std::vector<Tensor>> out = RunRef("sample", inputs, attrs);
  EXPECT_TRUE(out.ok()) << out.status().ToString();
  return out.ok() ? I64Values((*out)[0]) : std::vector<int64_t>{};
}

// One row of f64 logits, one uniform number: the token.
int64_t Pick1(const Attrs& attrs, const std::vector<double>& logits, double u) {
  const std::vector<int64_t> t =
      Pick(attrs, DType::kF64, {1, static_cast<int64_t>(logits.size())}, logits, {u});
  return t.empty() ? -1 : t[0];
}

using V = std::vector<int64_t>;

const double kLn3 = std::log(3.0);
// The largest f32 and f64 below 1.
const double kBelowOneF32 = std::nextafter(1.0f, 0.0f);
const double kBelowOne = std::nextafter(1.0, 0.0);

TEST(SamplingRef, GreedyTakesTheFirstLargest) {
  const Attrs greedy = M("greedy");
  EXPECT_EQ(Pick(greedy, DType::kF32, {1, 5}, {0.5, 2, -1, 2, 1.5}, {}), (V{1}));
  // Rows are independent; -inf is just small, +inf the largest, all -inf picks the first.
  EXPECT_EQ(
      Pick(greedy, DType::kF32, {3, 3}, {-kInf, -kInf, -3, 1, kInf, kInf, -kInf, -kInf, -kInf}, {}),
      (V{2, 1, 0}));
  // A vocabulary of one.
  EXPECT_EQ(Pick(greedy, DType::kF64, {2, 1}, {7, -7}, {}), (V{0, 0}));
  // Given uniform numbers (even out of range) greedy does not read them.
  EXPECT_EQ(Pick(greedy, DType::kF32, {1, 3}, {0, 1, 0}, {5.0}), (V{1}));
}

TEST(SamplingRef, TemperatureWorkedExample) {
  // logits [0, ln 3], temperature 1: z = [0, ln 3], p = [e^-ln3, 1] = [1/3, 1], total 4/3;
  // token 0 while u * 4/3 < 1/3, that is u < 1/4.
  const Attrs t1 = M("temperature");
  EXPECT_EQ(Pick1(t1, {0, kLn3}, 0.0), 0);
  EXPECT_EQ(Pick1(t1, {0, kLn3}, 0.2), 0);
  EXPECT_EQ(Pick1(t1, {0, kLn3}, 0.249), 0);
  EXPECT_EQ(Pick1(t1, {0, kLn3}, 0.251), 1);
  EXPECT_EQ(Pick1(t1, {0, kLn3}, 0.3), 1);
  EXPECT_EQ(Pick1(t1, {0, kLn3}, kBelowOne), 1);
  // Temperature 0.5: z = [0, 2 ln 3], p = [1/9, 1], token 0 only for u < 1/10.
  const Attrs t05 = M("temperature", {{"temperature", 0.5}});
  EXPECT_EQ(Pick1(t05, {0, kLn3}, 0.099), 0);
  EXPECT_EQ(Pick1(t05, {0, kLn3}, 0.2), 1);  // temperature 1 picks 0 here
  // Temperature 2: z = [0, ln 3 / 2], p = [1/sqrt 3, 1], token 0 for u < 1/(1 + sqrt 3)
  // (0.366).
  const Attrs t2 = M("temperature", {{"temperature", 2.0}});
  EXPECT_EQ(Pick1(t2, {0, kLn3}, 0.3), 0);  // temperature 1 picks 1 here
  EXPECT_EQ(Pick1(t1, {0, kLn3}, 0.3), 1);
  EXPECT_EQ(Pick1(t2, {0, kLn3}, 0.37), 1);
}

TEST(SamplingRef, ExactBoundariesGoToTheNextToken) {
  // Four equal logits: p = 1 each, total 4, target 4u; the token is the first whose running
  // sum (1, 2, 3, 4) exceeds the target, so u = 1/4 exactly is token 1, not 0.
  const Attrs t = M("temperature");
  const std::vector<double> equal = {0.5, 0.5, 0.5, 0.5};
  EXPECT_EQ(Pick1(t, equal, 0.0), 0);
  EXPECT_EQ(Pick1(t, equal, std::nextafter(0.25, 0.0)), 0);
  EXPECT_EQ(Pick1(t, equal, 0.25), 1);
  EXPECT_EQ(Pick1(t, equal, 0.5), 2);
  EXPECT_EQ(Pick1(t, equal, std::nextafter(0.75, 0.0)), 2);
  EXPECT_EQ(Pick1(t, equal, 0.75), 3);
  EXPECT_EQ(Pick1(t, equal, kBelowOne), 3);
  // The same with f32 uniform numbers, the largest below 1 included.
  EXPECT_EQ(Pick(t, DType::kF32, {1, 4}, equal, {kBelowOneF32}, DType::kF32), (V{3}));
  EXPECT_EQ(Pick(t, DType::kF32, {1, 4}, equal, {0.25}, DType::kF32), (V{1}));
}

TEST(SamplingRef, SeveralRowsEachWithItsOwnNumber) {
  const Attrs t = M("temperature");
  // Two rows of four equal logits and a third of [0, ln 3].
  const std::vector<double> logits = {0, 0, 0, 0, 3, 3, 3, 3, 0, kLn3, -kInf, -kInf};
  EXPECT_EQ(Pick(t, DType::kF64, {3, 4}, logits, {0.1, 0.9, 0.2}), (V{0, 3, 0}));
  EXPECT_EQ(Pick(t, DType::kF64, {3, 4}, logits, {0.6, 0.3, 0.26}), (V{2, 1, 1}));
}

TEST(SamplingRef, InfiniteLogits) {
  const Attrs t = M("temperature");
  // Masked (-inf) tokens have p = 0 and are never chosen, even at a boundary: with
  // [0, -inf, 0] the running sums are 1, 1, 2 and u = 1/2 (target 1) skips token 1.
  EXPECT_EQ(Pick1(t, {0, -kInf, 0}, 0.5), 2);
  EXPECT_EQ(Pick1(t, {0, -kInf, 0}, 0.49), 0);
  // +inf logits share the mass: p = 1 where z is +inf, 0 elsewhere.
  EXPECT_EQ(Pick1(t, {kInf, 0, kInf}, 0.49), 0);
  EXPECT_EQ(Pick1(t, {kInf, 0, kInf}, 0.5), 2);
  // A row all -inf: every token is at the maximum, p = 1 each.
  EXPECT_EQ(Pick1(t, {-kInf, -kInf, -kInf}, 0.5), 1);
}

TEST(SamplingRef, TopK) {
  // logits [1, 3, 2, 3]: p = [e^-2, 1, e^-1, 1]; by p descending, index ascending the
  // order is 1, 3, 2, 0.
  const std::vector<double> logits = {1, 3, 2, 3};
  auto k = [](int64_t n) { return M("top_k", {{"top_k", n}}); };
  EXPECT_EQ(Pick1(k(1), logits, kBelowOne), 1);  // the tie at the top goes to index 1
  EXPECT_EQ(Pick1(k(1), logits, 0.0), 1);
  // k = 2 keeps {1, 3}, total 2: token 1 while 2u < 1.
  EXPECT_EQ(Pick1(k(2), logits, 0.49), 1);
  EXPECT_EQ(Pick1(k(2), logits, 0.5), 3);
  // k = 3 keeps {1, 2, 3}: running sums 1, 1 + e^-1 (1.368), 2 + e^-1 (2.368).
  EXPECT_EQ(Pick1(k(3), logits, 0.4), 1);   // target 0.947
  EXPECT_EQ(Pick1(k(3), logits, 0.45), 2);  // target 1.066
  EXPECT_EQ(Pick1(k(3), logits, 0.6), 3);   // target 1.421
  // Ties at the cut go to the lower index: [5, 5, 5] with k = 2 never picks token 2.
  EXPECT_EQ(Pick1(k(2), {5, 5, 5}, kBelowOne), 1);
  // k above the vocabulary keeps everything.
  EXPECT_EQ(Pick1(k(10), {5, 5, 5}, kBelowOne), 2);
  EXPECT_EQ(Pick1(k(4), logits, kBelowOne), 3);
  EXPECT_EQ(Pick1(k(4), logits, 0.0), 0);
  // Temperature first: at temperature 100, p are all near 1 and k = 4 makes token 0 likely.
  EXPECT_EQ(Pick1(M("top_k", {{"top_k", int64_t{4}}, {"temperature", 100.0}}), logits, 0.2), 0);
}

TEST(SamplingRef, TopP) {
  // p = [0.25, 1, 0.5, 0.75] (logits the logs of 0.1, 0.4, 0.2, 0.3), sum 2.5; by p the
  // order is 1, 3, 2, 0 with prefix sums 1, 1.75, 2.25, 2.5 (0.4, 0.7, 0.9, 1 of the mass).
  const std::vector<double> logits = {std::log(0.1), std::log(0.4), std::log(0.2), std::log(0.3)};
  auto p = [](double v) { return M("top_p", {{"top_p", v}}); };
  EXPECT_EQ(Pick1(p(0.3), logits, kBelowOne), 1);  // {1}
  EXPECT_EQ(Pick1(p(0.45), logits, 0.5), 1);       // {1, 3}, total 1.75, target 0.875
  EXPECT_EQ(Pick1(p(0.45), logits, 0.6), 3);       // target 1.05
  EXPECT_EQ(Pick1(p(0.45), logits, kBelowOne), 3);
  EXPECT_EQ(Pick1(p(0.8), logits, 0.4), 1);  // {1, 2, 3}, total 2.25: sums 1, 1.5, 2.25
  EXPECT_EQ(Pick1(p(0.8), logits, 0.5), 2);
  EXPECT_EQ(Pick1(p(0.8), logits, 0.7), 3);
  EXPECT_EQ(Pick1(p(1.0), logits, 0.05), 0);  // everything: sums 0.25, 1.25, 1.75, 2.5
  // "Reaches" is >=: four equal p, top_p 0.5 keeps exactly two (prefix 2 = 0.5 * 4)...
  const std::vector<double> equal = {0, 0, 0, 0};
  EXPECT_EQ(Pick1(p(0.5), equal, kBelowOne), 1);
  // ...and a little more takes a third; ties are broken by index.
  EXPECT_EQ(Pick1(p(0.51), equal, kBelowOne), 2);
  EXPECT_EQ(Pick1(p(1e-9), equal, kBelowOne), 0);  // at least one token
}

TEST(SamplingRef, MinP) {
  // p = [0.25, 1, 0.5, 0.75] as above.
  const std::vector<double> logits = {std::log(0.1), std::log(0.4), std::log(0.2), std::log(0.3)};
  auto m = [](double v) { return M("min_p", {{"min_p", v}}); };
  EXPECT_EQ(Pick1(m(0.6), logits, 0.5), 1);  // {1, 3}, total 1.75, target 0.875
  EXPECT_EQ(Pick1(m(0.6), logits, 0.6), 3);
  EXPECT_EQ(Pick1(m(0.3), logits, 0.0), 1);  // {1, 2, 3}: token 0 is out
  EXPECT_EQ(Pick1(m(0.3), logits, 0.5), 2);
  EXPECT_EQ(Pick1(m(0.0), logits, 0.0), 0);        // everything
  EXPECT_EQ(Pick1(m(1.0), logits, kBelowOne), 1);  // only the largest (p = 1)
  // p >= min_p, inclusive: two tokens at the maximum both stay at min_p 1.
  EXPECT_EQ(Pick1(m(1.0), {0, 0, -kInf}, 0.5), 1);
  EXPECT_EQ(Pick1(m(1.0), {0, 0, -1}, 0.49), 0);
}

TEST(SamplingRef, EveryLogitsDType) {
  // [1, 3, 2, 3] is exact in every float dtype; top_k 3 with u = 0.45 is token 2 (TopK).
  const Attrs k3 = M("top_k", {{"top_k", int64_t{3}}});
  for (DType d : {DType::kF32, DType::kF16, DType::kBF16, DType::kF64}) {
    SCOPED_TRACE(std::string(DTypeName(d)));
    for (DType ud : {DType::kF32, DType::kF64}) {
      EXPECT_EQ(Pick(k3, d, {1, 4}, {1, 3, 2, 3}, {0.45}, ud), (V{2}));
      EXPECT_EQ(Pick(M("greedy"), d, {1, 4}, {1, 3, 2, 3}, {}), (V{1}));
      EXPECT_EQ(Pick(M("temperature"), d, {2, 4}, {0, 0, 0, 0, 2, 2, 2, 2}, {0.3, 0.8}, ud),
                (V{1, 3}));
    }
  }
  // f16 rounds 1000.3 and 1000.4 to the same value: a tie that f32 tells apart.
  EXPECT_EQ(Pick(M("greedy"), DType::kF16, {1, 2}, {1000.3, 1000.4}, {}), (V{0}));
  EXPECT_EQ(Pick(M("greedy"), DType::kF32, {1, 2}, {1000.3, 1000.4}, {}), (V{1}));
}

TEST(SamplingRef, DataErrorsNameTheRowAndTheValue) {
  auto error = [](const Attrs& attrs, const std::vector<double>& logits,
                  const std::vector<double>& u) {
    std::vector<Tensor> inputs = {Make(
        DType::kF32,
        {static_cast<int64_t>(u.empty() ? 2 : u.size()), static_cast<int64_t>(logits.size()) / 2},
        logits)};
    if (!u.empty()) inputs.push_back(Make(DType::kF64, {static_cast<int64_t>(u.size())}, u));
    return RunRef("sample", inputs, attrs).status();
  };
  const Attrs t = M("temperature");
  Status s = error(t, {0, 1, 2, 3, kNaN, 5}, {0.5, 0.5});
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);  // SY_ERROR_DATA (kernel_error.h)
  EXPECT_NE(s.message().find("sample: row 1 of logits has a NaN at index 1"), std::string::npos)
      << s.message();
  s = error(M("greedy"), {kNaN, 1, 2, 3}, {});
  EXPECT_NE(s.message().find("row 0 of logits has a NaN at index 0"), std::string::npos)
      << s.message();
  s = error(t, {0, 1, 2, 3}, {0.5, 1.0});
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("sample: uniform[1] (row 1) is 1, outside [0, 1)"), std::string::npos)
      << s.message();
  s = error(M("top_p", {{"top_p", 0.5}}), {0, 1, 2, 3}, {-0.25, 0.5});
  EXPECT_NE(s.message().find("uniform[0] (row 0) is -0.25, outside [0, 1)"), std::string::npos)
      << s.message();
  s = error(M("min_p", {{"min_p", 0.5}}), {0, 1, 2, 3}, {0.5, kNaN});
  EXPECT_NE(s.message().find("uniform[1] (row 1) is nan, outside [0, 1)"), std::string::npos)
      << s.message();
  s = error(t, {0, 1, 2, 3}, {0.5, kInf});
  EXPECT_NE(s.message().find("is inf, outside [0, 1)"), std::string::npos) << s.message();
  s = error(t, {0, 1, 2, 3}, {0.5, 1.0000000000000002});
  EXPECT_NE(s.message().find("is 1.0000000000000002, outside"), std::string::npos) << s.message();
}

// ---- random_uniform, random_normal ---------------------------------------------------

Attrs RandomAttrs(const std::string& dtype, int64_t seed,
                  std::initializer_list<std::pair<std::string, AttrValue>> more = {}) {
  Attrs a = A(more);
  a.Set("dtype", dtype);
  a.Set("seed", seed);
  return a;
}

Tensor Like(Shape shape) {
  return Make(DType::kU8, shape, std::vector<double>(static_cast<size_t>(ElementCount(shape))));
}

// splitmix64 seeded with 0 starts e220a8397b1dcdaf 6e789e6aa1b965f4 06c45d188009454f
// (Vigna's reference implementation); random_uniform f64 over [0, 1) is each >> 11 / 2^53.
TEST(RandomRef, UniformIsSplitmix64sPublishedStream) {
  const Tensor y = RunRef1("random_uniform", {Like({3})}, RandomAttrs("f64", 0));
  const std::vector<double> v = Values(y);
  const uint64_t want[] = {0xe220a8397b1dcdafull, 0x6e789e6aa1b965f4ull, 0x06c45d188009454full};
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(v[i], static_cast<double>(want[i] >> 11) * 0x1.0p-53) << i;
  }
}

TEST(RandomRef, UniformMomentsAndRange) {
  constexpr int64_t kN = 200000;
  const Tensor y = RunRef1("random_uniform", {Like({kN})},
                           RandomAttrs("f32", 42, {{"low", -2.0}, {"high", 3.0}}));
  EXPECT_EQ(y.dtype(), DType::kF32);
  double sum = 0, sq = 0;
  int below_half = 0;
  for (double x : Values(y)) {
    ASSERT_GE(x, -2.0);
    ASSERT_LE(x, 3.0);
    sum += x;
    sq += x * x;
    below_half += x < 0.5;
  }
  const double mean = sum / kN, var = sq / kN - mean * mean;
  // mean 0.5 and variance 25/12; 5 standard errors of each.
  EXPECT_NEAR(mean, 0.5, 5 * std::sqrt(25.0 / 12 / kN));
  EXPECT_NEAR(var, 25.0 / 12, 5 * 25.0 * std::sqrt(1.0 / 180 / kN));
  EXPECT_NEAR(below_half, kN / 2, 5 * std::sqrt(kN / 4.0));
}

TEST(RandomRef, NormalMomentsAndTails) {
  constexpr int64_t kN = 200000;
  const Tensor y = RunRef1("random_normal", {Like({400, 500})},
                           RandomAttrs("f64", 7, {{"mean", 1.0}, {"scale", 2.0}}));
  EXPECT_EQ(y.shape(), (Shape{400, 500}));
  double sum = 0, sq = 0;
  int within_one_sigma = 0;
  for (double x : Values(y)) {
    ASSERT_TRUE(std::isfinite(x));
    sum += x;
    sq += (x - 1.0) * (x - 1.0);
    within_one_sigma += std::fabs(x - 1.0) < 2.0;
  }
  const double mean = sum / kN, var = sq / kN;
  EXPECT_NEAR(mean, 1.0, 5 * 2.0 / std::sqrt(kN));
  EXPECT_NEAR(var, 4.0, 5 * 4.0 * std::sqrt(2.0 / kN));  // var of s^2: 2 sigma^4 / n
  const double p = 0.6826894921370859;                   // P(|z| < 1)
  EXPECT_NEAR(within_one_sigma, p * kN, 5 * std::sqrt(kN * p * (1 - p)));
}

TEST(RandomRef, ElementsDependOnSeedAndIndexAlone) {
  const std::vector<double> small =
      Values(RunRef1("random_normal", {Like({10})}, RandomAttrs("f32", 5)));
  const std::vector<double> large =
      Values(RunRef1("random_normal", {Like({4, 25})}, RandomAttrs("f32", 5)));
  const std::vector<double> again =
      Values(RunRef1("random_normal", {Like({10})}, RandomAttrs("f32", 5)));
  const std::vector<double> other =
      Values(RunRef1("random_normal", {Like({10})}, RandomAttrs("f32", 6)));
  EXPECT_EQ(small, again);
  EXPECT_EQ(small, std::vector<double>(large.begin(), large.begin() + 10));
  int same = 0;
  for (size_t i = 0; i < 10; ++i) same += small[i] == other[i];
  EXPECT_EQ(same, 0);
}

TEST(RandomRef, NarrowDtypesRoundTheDoubleOnce) {
  const std::vector<double> wide =
      Values(RunRef1("random_uniform", {Like({64})}, RandomAttrs("f64", 3, {{"high", 10.0}})));
  for (const char* dt : {"f16", "bf16", "f32"}) {
    const Tensor narrow =
        RunRef1("random_uniform", {Like({64})}, RandomAttrs(dt, 3, {{"high", 10.0}}));
    const DType d = *ParseDTypeName(dt);
    EXPECT_EQ(narrow.dtype(), d);
    EXPECT_EQ(Values(narrow), Values(Make(d, {64}, wide))) << dt;
  }
}

TEST(RandomRef, SchemaRefusesBadParameters) {
  EXPECT_FALSE(RunRef("random_uniform", {Like({2})}, RandomAttrs("i32", 0)).ok());
  EXPECT_FALSE(RunRef("random_normal", {Like({2})}, RandomAttrs("f32", 0, {{"scale", -1.0}})).ok());
  const Status s =
      RunRef("random_uniform", {Like({2})}, RandomAttrs("f32", 0, {{"low", 2.0}, {"high", 1.0}}))
          .status();
  EXPECT_NE(s.message().find("above high"), std::string::npos) << s.message();
}

}  // namespace
}  // namespace sy::cpu::test
