// The conformance suite's comparison: distances in units in the last place of each
// float dtype (hand-derived neighbours), and what Compare reports.
#include "conformance/compare.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace sy::conformance {
namespace {

TEST(UlpDistanceTest, CountsRepresentableStepsInEachDtype) {
  EXPECT_EQ(UlpDistance(DType::kF64, 1.0, std::nextafter(1.0, 2.0)), 1.0);
  EXPECT_EQ(UlpDistance(DType::kF64, 1.0, std::nextafter(std::nextafter(1.0, 0.0), 0.0)), 2.0);
  EXPECT_EQ(UlpDistance(DType::kF32, 1.0, std::nextafter(1.0f, 2.0f)), 1.0);
  EXPECT_EQ(UlpDistance(DType::kF16, 1.0, 1.0 + 1.0 / 1024), 1.0);  // f16 has 10 fraction bits
  EXPECT_EQ(UlpDistance(DType::kBF16, 1.0, 1.0 + 1.0 / 128), 1.0);  // bf16 has 7
  EXPECT_EQ(UlpDistance(DType::kF64, 0.0, -0.0), 0.0);
  // Across zero: the smallest denormals on either side are two steps apart.
  const double tiny = std::numeric_limits<double>::denorm_min();
  EXPECT_EQ(UlpDistance(DType::kF64, tiny, -tiny), 2.0);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_EQ(UlpDistance(DType::kF32, nan, nan), 0.0);
  EXPECT_TRUE(std::isinf(UlpDistance(DType::kF32, nan, 1.0)));
}

TEST(CompareTest, ReportsTheFirstBadElementAndTheCount) {
  Tensor want = *Tensor::Allocate(DType::kF32, {3});
  Tensor got = *Tensor::Allocate(DType::kF32, {3});
  for (int i = 0; i < 3; ++i) want.mutable_values<float>()[i] = got.mutable_values<float>()[i] = i;
  Tolerance exact;
  exact.exact = true;
  EXPECT_EQ(Compare(got, want, exact), "");
  got.mutable_values<float>()[1] = 1.5f;
  const std::string problem = Compare(got, want, exact);
  EXPECT_NE(problem.find("1 of 3 elements differ; first at 1: got 1.5, expected 1"),
            std::string::npos)
      << problem;
  Tolerance loose;
  loose.abs = 0.6;
  EXPECT_EQ(Compare(got, want, loose), "");
}

}  // namespace
}  // namespace sy::conformance
