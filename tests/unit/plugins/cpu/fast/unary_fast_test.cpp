// The fast unary kernels (fast/unary_fast.cpp) against the reference kernels: f32, f16
// and bf16 over each function's interesting range (overflow, subnormal results,
// saturation), NaN, +-inf and +-0, sizes below and above the parallel threshold, odd
// sizes, with 1, 2 and 4 threads. Other dtypes go to the reference kernel.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "fast_test_util.h"

namespace sy::cpu::test {
namespace {

struct Case {
  const char* op;
  double lo, hi;  // input range
  double rel;     // f32 tolerance: relative (f16 and bf16: their own rounding dominates)
  double abs;     // and absolute
};

// f32 tolerances: the fast kernels compute in f32 (a few ulp, ~1.2e-7 each); the
// reference computes in double and rounds once. erf and gelu: see their sweep below. Absolute
// 1e-44: a few subnormal ulp (exp near -100). silu multiplies a subnormal sigmoid by x (up to 100
// of its ulp). The inverse maps (asin ... atanh) run over and past their domains (NaN outside).
const Case kCases[] = {
    {"neg", -10, 10, 0, 0},           {"abs", -10, 10, 0, 0},
    {"relu", -10, 10, 0, 0},          {"sqrt", -1, 100, 2e-7, 0},
    {"rsqrt", -1, 100, 3e-7, 0},      {"reciprocal", -10, 10, 2e-7, 0},
    {"exp", -110, 90, 3e-7, 1e-44},   {"log", -1, 100, 2e-7, 0},
    {"tanh", -12, 12, 4e-7, 0},       {"sigmoid", -100, 100, 4e-7, 1e-44},
    {"silu", -100, 100, 5e-7, 1e-42}, {"erf", -5, 5, 3e-7, 0},
    {"gelu", -12, 12, 3.5e-7, 1e-44}, {"asin", -1.1, 1.1, 3e-7, 0},
    {"acos", -1.1, 1.1, 3e-7, 0},     {"atan", -100, 100, 3e-7, 0},
    {"asinh", -100, 100, 3e-7, 0},    {"acosh", 0.5, 100, 3e-7, 0},
    {"atanh", -1.1, 1.1, 3e-7, 0},    {"round", -1e3, 1e3, 0, 0},
};

// Sizes below and above two chunks of kCostlyGrain (4096) and kCheapGrain (16384).
const int64_t kSizes[] = {1, 7, 1000, 8191, 40001, 100003};

TEST(UnaryFast, F32MatchesReference) {
  for (const Case& c : kCases) {
    for (int64_t n : kSizes) {
      std::vector<double> v =
          WithSpecials(Uniform(static_cast<size_t>(n), c.lo, c.hi, static_cast<uint32_t>(n)));
      // Tiny magnitudes, where polynomial paths (tanh) and cancellations show.
      for (size_t i = 11; i < v.size(); i += 97) v[i] *= 1e-6;
      ExpectMatchesReference(c.op, {Make(DType::kF32, {n}, v)}, {c.rel, c.abs});
    }
  }
}

// round: ties to even, exactly as the reference, on the ties themselves, -0, and values
// beyond 2^23 (already integers).
TEST(UnaryFast, RoundTiesToEven) {
  ExpectMatchesReference(
      "round",
      {Make(DType::kF32, {12},
            {0.5, 1.5, 2.5, -0.5, -1.5, -2.5, -0.0, 0.49999997, 8388609, -8388609.5, 1e30, -3.5})},
      {0, 0});
}

// cast: the pairs quantized and f16 models run on activations take vector loops; each
// must equal the reference bit for bit (saturation, truncation, NaN to 0, one rounding),
// over values past every bound.
TEST(UnaryFast, CastPairsMatchReferenceExactly) {
  const std::vector<std::pair<DType, DType>> pairs = {
      {DType::kF32, DType::kU8}, {DType::kF32, DType::kI8},  {DType::kU8, DType::kF32},
      {DType::kI8, DType::kF32}, {DType::kI32, DType::kF32}, {DType::kU8, DType::kI32},
      {DType::kI8, DType::kI32}};
  for (const auto& [from, to] : pairs) {
    for (int64_t n : kSizes) {
      std::vector<double> v = Uniform(static_cast<size_t>(n), -300, 300, 17);
      if (from == DType::kF32) {
        v = WithSpecials(v);
      } else {
        const double lo = from == DType::kU8 ? 0 : from == DType::kI8 ? -128 : -2147483648.0;
        const double hi = from == DType::kU8 ? 255 : from == DType::kI8 ? 127 : 2147483647.0;
        for (size_t i = 0; i < v.size(); ++i) {
          v[i] = i % 3 == 0 ? (i % 2 == 0 ? lo : hi)
                            : std::clamp(std::round(v[i] * (i % 7 + 1)), lo, hi);
        }
        if (from == DType::kI32 && n > 5) v[5] = 16777217;  // rounds to even in f32
      }
      const Attrs attrs = sy::test::MakeAttrs({{"to", std::string(DTypeName(to))}});
      SCOPED_TRACE(std::string(DTypeName(from)) + " -> " + std::string(DTypeName(to)) + ", n " +
                   std::to_string(n));
      ExpectMatchesReference("cast", {Make(from, {n}, v)}, {0, 0}, attrs);
    }
  }
}

TEST(UnaryFast, GeluTanhApproximation) {
  const Attrs attrs = sy::test::MakeAttrs({{"approximate", "tanh"}});
  for (int64_t n : kSizes) {
    std::vector<double> v = WithSpecials(Uniform(static_cast<size_t>(n), -12, 12, 5));
    ExpectMatchesReference("gelu", {Make(DType::kF32, {n}, v)}, {6e-7, 1e-40}, attrs);
  }
  // Cubes beyond the f32 range still give the limits (x, -0).
  ExpectMatchesReference("gelu", {Make(DType::kF32, {4}, {1e20, -1e20, 3e38, -3e38})}, {1e-6, 0},
                         attrs);
}

// clip: exact against the reference (a clamped element is the bound rounded once), with
// both bounds, one, none, NaN bounds (no clamping), bounds that are not f32 values, and
// NaN, infinities and -0 in x; f16, bf16 and the integers go to the reference kernel.
TEST(UnaryFast, ClipMatchesReferenceExactly) {
  const double kNaN = std::numeric_limits<double>::quiet_NaN();
  const std::vector<std::vector<std::pair<std::string, double>>> bounds = {
      {{"min", 0.0}, {"max", 6.0}},
      {{"min", -0.1}, {"max", 0.3}},
      {{"min", 1.0}},
      {{"max", -2.5}},
      {},
      {{"min", kNaN}, {"max", 1.0}}};
  for (const auto& b : bounds) {
    Attrs attrs;
    for (const auto& [name, value] : b) attrs.Set(name, value);
    for (int64_t n : kSizes) {
      const std::vector<double> v =
          WithSpecials(Uniform(static_cast<size_t>(n), -10, 10, static_cast<uint32_t>(n)));
      ExpectMatchesReference("clip", {Make(DType::kF32, {n}, v)}, {0, 0}, attrs);
      ExpectMatchesReference("clip", {Make(DType::kF16, {n}, v)}, {0, 0}, attrs);
    }
  }
}

// hard_sigmoid (default and other alpha, beta) and hard_swish: the reference's f32 results
// exactly (both compute in double), NaN, infinities (hard_swish: x at +inf, -0 at -inf)
// and -0 included; f16 within one rounding of it.
TEST(UnaryFast, HardSigmoidAndHardSwishMatchReferenceExactly) {
  for (int64_t n : kSizes) {
    const std::vector<double> v =
        WithSpecials(Uniform(static_cast<size_t>(n), -8, 8, static_cast<uint32_t>(n) + 3));
    ExpectMatchesReference("hard_swish", {Make(DType::kF32, {n}, v)}, {0, 0});
    ExpectMatchesReference("hard_swish", {Make(DType::kF16, {n}, v)}, {1e-3, 1e-7});
    ExpectMatchesReference("hard_sigmoid", {Make(DType::kF32, {n}, v)}, {0, 0});
    Attrs attrs;
    attrs.Set("alpha", 1.0 / 6.0);
    attrs.Set("beta", 0.5);
    ExpectMatchesReference("hard_sigmoid", {Make(DType::kF32, {n}, v)}, {0, 0}, attrs);
  }
  ExpectMatchesReference("hard_swish", {Make(DType::kF32, {4}, {INFINITY, -INFINITY, -0.0, 3e38})},
                         {0, 0});
}

TEST(UnaryFast, F32ExpAcrossTheWholeRange) {
  // Dense over [-104, 89]: overflow to inf above ~88.72, subnormals below ~-87.3, zero
  // below ~-103.9; each result within 2 ulp (relative 2.4e-7) or 1e-44 in the subnormals.
  std::vector<double> v;
  for (double x = -104.5; x < 89.5; x += 0.00371) v.push_back(x);
  const auto n = static_cast<int64_t>(v.size());
  ExpectMatchesReference("exp", {Make(DType::kF32, {n}, v)}, {2.4e-7, 1e-44});
}

// erf and gelu's erf form (fast::Erf, fast::GeluErf: polynomial and rational fits, no
// libm) over dense sweeps of their whole ranges against the double reference. Measured
// over every f32 input (erf on [0, 5], beyond which it is exactly 1; gelu on [-16, 16]):
// erf within 2.55 ulp (relative 1.8e-7), gelu within 4.19 ulp (relative 2.75e-7) wherever
// the result is a normal float; the subnormal results of gelu's tail (gelu(-14) ~ 1e-43,
// nonzero down to x ~ -14.35) within 2 of their steps (1.4e-45).
TEST(UnaryFast, F32ErfAndGeluAcrossTheWholeRange) {
  std::vector<double> v;
  for (double x = -6.5; x < 6.5; x += 0.000137) v.push_back(x);
  auto n = static_cast<int64_t>(v.size());
  ExpectMatchesReference("erf", {Make(DType::kF32, {n}, v)}, {2.2e-7, 0});
  v.clear();
  for (double x = -15.5; x < 9.0; x += 0.000211) v.push_back(x);
  n = static_cast<int64_t>(v.size());
  ExpectMatchesReference("gelu", {Make(DType::kF32, {n}, v)}, {3.2e-7, 3e-45});
  // Tiny arguments (erf(x) = 2x / sqrt(pi) there, gelu(x) = x / 2), subnormals included.
  v = {1e-10, -3e-20, 1e-30, -1e-38, 1e-40, -1e-44};
  ExpectMatchesReference("erf", {Make(DType::kF32, {6}, v)}, {2e-7, 1e-45});
  ExpectMatchesReference("gelu", {Make(DType::kF32, {6}, v)}, {2e-7, 1e-45});
}

// The special values exactly as the reference gives them: erf(+-inf) = +-1, erf(-0) = -0;
// gelu(+inf) = +inf, gelu(-inf) = -0, gelu(-0) = -0, and -0 for every x below the tail's
// underflow (-15, -1e30, the lowest float); NaN propagates.
TEST(UnaryFast, ErfAndGeluSpecialValues) {
  const std::vector<double> v = {INFINITY, -INFINITY, std::nan(""), 0.0,    -0.0,
                                 -15.0,    -1e30,     -3.4e38,      3.4e38, 1e30};
  const auto n = static_cast<int64_t>(v.size());
  for (const char* op : {"erf", "gelu"}) {
    const Tensor x = Make(DType::kF32, {n}, v);
    Expected<std::vector<Tensor>> fast = sy::cpu::test::Run(FastKernels(), op, {x});
    SY_ASSERT_OK(fast);
    EXPECT_TRUE(SameValues((*fast)[0], RunRef1(op, {x}))) << op;
  }
}

TEST(UnaryFast, HalfAndBfloat16ComputeInF32) {
  for (const Case& c : kCases) {
    for (int64_t n : {int64_t{5}, int64_t{300}, int64_t{40001}}) {
      const std::vector<double> v =
          WithSpecials(Uniform(static_cast<size_t>(n), c.lo, c.hi, static_cast<uint32_t>(n)));
      // One unit in the last place of the storage type: an f32 result a few ulp from the
      // double one can round the other way at a near-tie. Absolute: the smallest
      // subnormal (f16) and the underflow scale of exp in bf16.
      ExpectMatchesReference(c.op, {Make(DType::kF16, {n}, v)}, {1e-3, 6e-8});
      ExpectMatchesReference(c.op, {Make(DType::kBF16, {n}, v)}, {8e-3, 1e-38});
    }
  }
}

TEST(UnaryFast, OtherDtypesUseTheReference) {
  ExpectMatchesReference("exp", {Make(DType::kF64, {3}, {-1.0, 0.0, 2.5})}, {0, 0});
  ExpectMatchesReference("neg", {Make(DType::kI32, {3}, {-1, 0, 2147483647})}, {0, 0});
  ExpectMatchesReference("abs", {Make(DType::kI8, {3}, {-128, -3, 5})}, {0, 0});
  ExpectMatchesReference("sqrt", {Make(DType::kF32, {0}, {})}, {0, 0});
}

}  // namespace
}  // namespace sy::cpu::test
