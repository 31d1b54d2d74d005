// The fused attention's AVX-512 softmax loops (fast/softmax_avx512.h) against double
// precision: every element of e^(x - m) within 2 ulp (relative 2.4e-7) and 0 below -87,
// the sum within the sum of those errors; the row maximum exact; every row length from 0
// to 70 (whole vectors, tails of every size). Skipped on a CPU without AVX-512F and FMA.
#include "fast/softmax_avx512.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

namespace sy::cpu::fast {
namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();

TEST(SoftmaxAvx512, RowMaxOfEveryLength) {
  if (!HasSoftmaxAvx512()) GTEST_SKIP() << "no AVX-512F with FMA on this CPU";
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> uniform(-50.0f, 50.0f);
  EXPECT_EQ(RowMaxAvx512(nullptr, 0), -kInf);
  for (int64_t n = 1; n <= 70; ++n) {
    std::vector<float> x(static_cast<size_t>(n));
    for (float& v : x) v = uniform(rng);
    x[static_cast<size_t>(n - 1)] = 60.0f;  // the last element, in the tail when there is one
    EXPECT_EQ(RowMaxAvx512(x.data(), n), 60.0f) << n;
    x[0] = -kInf;
    x[static_cast<size_t>(n - 1)] = -kInf;
    float expected = -kInf;
    for (float v : x) expected = std::max(expected, v);
    EXPECT_EQ(RowMaxAvx512(x.data(), n), expected) << n;
  }
}

TEST(SoftmaxAvx512, ExpAndSumMatchesDoublePrecision) {
  if (!HasSoftmaxAvx512()) GTEST_SKIP() << "no AVX-512F with FMA on this CPU";
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> uniform(-95.0f, 0.0f);
  for (int64_t n = 0; n <= 70; ++n) {
    for (const float m : {0.0f, 3.5f, -20.0f}) {
      std::vector<float> x(static_cast<size_t>(n) + 1, 123.0f);  // one more: must stay
      for (int64_t j = 0; j < n; ++j) x[static_cast<size_t>(j)] = m + uniform(rng);
      if (n > 2) x[1] = -kInf;  // a masked key
      if (n > 0) x[0] = m;      // the maximum itself: e^0 = 1
      const std::vector<float> in = x;
      const float sum = ExpAndSumAvx512(x.data(), n, m);
      double expected_sum = 0.0, tolerance = 0.0;
      for (int64_t j = 0; j < n; ++j) {
        const double shifted = static_cast<double>(in[static_cast<size_t>(j)]) - m;
        const double e = shifted < -87.0 ? 0.0 : std::exp(shifted);
        const float got = x[static_cast<size_t>(j)];
        // The argument x - m is rounded to f32 first, as the portable loop does.
        const double exact =
            shifted < -87.0 ? 0.0 : std::exp(static_cast<double>(in[static_cast<size_t>(j)] - m));
        EXPECT_NEAR(got, exact, 2.4e-7 * exact + 1e-44) << "n " << n << " j " << j;
        expected_sum += e;
        tolerance += 2.4e-7 * e + std::fabs(e - exact);
      }
      EXPECT_NEAR(sum, expected_sum, tolerance + 1e-6 * expected_sum) << "n " << n;
      EXPECT_EQ(x[static_cast<size_t>(n)], 123.0f) << "wrote past the row, n " << n;
    }
  }
}

TEST(SoftmaxAvx512, BelowMinus87GivesZero) {
  if (!HasSoftmaxAvx512()) GTEST_SKIP() << "no AVX-512F with FMA on this CPU";
  std::vector<float> x = {-87.5f, -100.0f, -kInf, -86.9f, 0.0f};
  const float sum = ExpAndSumAvx512(x.data(), 5, 0.0f);
  EXPECT_EQ(x[0], 0.0f);
  EXPECT_EQ(x[1], 0.0f);
  EXPECT_EQ(x[2], 0.0f);
  const double e = std::exp(static_cast<double>(-86.9f));
  EXPECT_NEAR(x[3], e, 2.4e-7 * e);
  EXPECT_EQ(x[4], 1.0f);
  EXPECT_NEAR(sum, 1.0 + e, 1e-7);
}

}  // namespace
}  // namespace sy::cpu::fast
