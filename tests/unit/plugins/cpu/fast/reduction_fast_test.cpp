// The fast reduce_sum, reduce_mean, reduce_max and reduce_min kernels
// against the reference kernels: trailing axes (the last, several, all), keepdims, row
// lengths below and above the parallel grain, odd sizes, NaN and infinities, with 1, 2
// and 4 threads; other axes and dtypes go to the reference kernel.
#include <vector>

#include "fast_test_util.h"

namespace sy::cpu::test {
namespace {

using sy::test::MakeAttrs;

// Sums accumulate in double like the reference, so only the order of additions and the
// final rounding to f32 differ.
constexpr Tolerance kTol{2e-7, 1e-9};

Attrs Axes(std::vector<int64_t> axes, int64_t keepdims = 1) {
  return MakeAttrs({{"axes", std::move(axes)}, {"keepdims", keepdims}});
}

TEST(ReductionFast, TrailingAxesMatchReference) {
  const Shape shapes[] = {{1, 1}, {3, 5}, {7, 4097}, {300, 129}, {5000, 17}, {2, 3, 101}};
  for (const char* op : {"reduce_sum", "reduce_mean", "reduce_max", "reduce_min"}) {
    for (const Shape& shape : shapes) {
      const auto n = static_cast<size_t>(ElementCount(shape));
      const Tensor x = Make(DType::kF32, shape, Uniform(n, -4, 4, static_cast<uint32_t>(n)));
      const auto rank = static_cast<int64_t>(shape.size());
      ExpectMatchesReference(op, {x}, kTol, Axes({-1}));
      ExpectMatchesReference(op, {x}, kTol, Axes({rank - 1}, 0));
      ExpectMatchesReference(op, {x}, kTol, Axes({}));  // every axis: one row
      if (rank == 3) ExpectMatchesReference(op, {x}, kTol, Axes({1, 2}, 0));
    }
  }
}

TEST(ReductionFast, NaNAndInfinities) {
  for (const char* op : {"reduce_sum", "reduce_mean", "reduce_max", "reduce_min"}) {
    // Row 0 holds NaN; row 1 +inf and -inf (sum NaN); row 2 only -inf; row 3 plain.
    const double nan = std::nan(""), inf = INFINITY;
    std::vector<double> v = Uniform(4 * 9, -1, 1, 3);
    v[4] = nan;
    v[9 + 2] = inf;
    v[9 + 7] = -inf;
    for (int k = 0; k < 9; ++k) v[18 + k] = -inf;
    ExpectMatchesReference(op, {Make(DType::kF32, {4, 9}, v)}, kTol, Axes({-1}));
    // Above the grain, so that rows are split over threads.
    std::vector<double> big = WithSpecials(Uniform(4000 * 33, -4, 4, 4));
    ExpectMatchesReference(op, {Make(DType::kF32, {4000, 33}, big)}, kTol, Axes({-1}));
  }
}

TEST(ReductionFast, OtherCasesUseTheReference) {
  const Tensor x = Make(DType::kF32, {4, 6}, Uniform(24, -4, 4, 9));
  for (const char* op : {"reduce_sum", "reduce_mean", "reduce_max", "reduce_min"}) {
    ExpectMatchesReference(op, {x}, kTol, Axes({0}));                               // leading axis
    ExpectMatchesReference(op, {Make(DType::kF32, {3, 0}, {})}, kTol, Axes({-1}));  // empty rows
    ExpectMatchesReference(op, {Make(DType::kF64, {2, 3}, Uniform(6, -1, 1, 2))}, {0, 0},
                           Axes({-1}));
    ExpectMatchesReference(op, {Make(DType::kI32, {2, 3}, {1, 2, 3, -4, 5, 6})}, {0, 0},
                           Axes({-1}));
  }
}

}  // namespace
}  // namespace sy::cpu::test
