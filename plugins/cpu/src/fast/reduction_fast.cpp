// Fast reduce_sum, reduce_mean, reduce_max and reduce_min for f32 over trailing axes (the reduced
// axes are the last k of the input, as for axes = [-1], or all of them): the input is
// then [rows, n] with one output per row, and rows are split over the context's threads.
// Other dtypes, other axes and empty rows go to the reference kernel.
//
// Sums accumulate in double, as the reference kernel does, so results match it to the
// final rounding; reduce_max and reduce_min propagate NaN (ref/reduction_ref.cpp).
#include <limits>
#include <vector>

#include "fast/fast_kernels.h"
#include "fast/vec_math.h"
#include "ref/ref_kernels.h"
#include "thread_pool.h"

namespace sy::cpu {
namespace {

enum class Reduce { kSum, kMean, kMax, kMin };

// The number of trailing dims reduced, or -1 when the reduced axes are not the last k.
int64_t TrailingReducedDims(const ConstTensorView& x, const Attrs& attrs) {
  const int64_t rank = x.rank();
  const std::vector<int64_t> axes = attrs.GetInts("axes");
  if (axes.empty()) return rank;  // every axis
  std::vector<bool> reduced(static_cast<size_t>(rank), false);
  for (int64_t axis : axes) reduced[static_cast<size_t>(axis < 0 ? axis + rank : axis)] = true;
  int64_t k = 0;
  while (k < rank && reduced[static_cast<size_t>(rank - 1 - k)]) ++k;
  for (int64_t d = 0; d < rank - k; ++d) {
    if (reduced[static_cast<size_t>(d)]) return -1;
  }
  return k;
}

SY_CPU_ISA_CLONES double RowSum(const float* x, int64_t n) {
  // Independent accumulators: the loop is not one serial dependency chain.
  double acc[fast::kSumLanes] = {};
  int64_t i = 0;
  for (; i + fast::kSumLanes <= n; i += fast::kSumLanes) {
    for (int j = 0; j < fast::kSumLanes; ++j) acc[j] += static_cast<double>(x[i + j]);
  }
  for (; i < n; ++i) acc[0] += static_cast<double>(x[i]);
  return fast::CombineSums(acc);
}

// The row's maximum (kMin: minimum); NaN when it holds one.
template <bool kMin>
SY_CPU_ISA_CLONES float RowExtreme(const float* x, int64_t n) {
  constexpr int kLanes = 8;
  // b beats a: the larger (kMin: the smaller).
  const auto beats = [](float b, float a) { return kMin ? b < a : b > a; };
  float m[kLanes];
  bool nan[kLanes];
  for (int j = 0; j < kLanes; ++j) {
    m[j] = kMin ? std::numeric_limits<float>::infinity() : -std::numeric_limits<float>::infinity();
    nan[j] = false;
  }
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    for (int j = 0; j < kLanes; ++j) {
      const float v = x[i + j];
      m[j] = beats(v, m[j]) ? v : m[j];
      nan[j] = nan[j] || v != v;
    }
  }
  for (; i < n; ++i) {
    m[0] = beats(x[i], m[0]) ? x[i] : m[0];
    nan[0] = nan[0] || x[i] != x[i];
  }
  float best = m[0];
  bool any_nan = nan[0];
  for (int j = 1; j < kLanes; ++j) {
    best = beats(m[j], best) ? m[j] : best;
    any_nan = any_nan || nan[j];
  }
  return any_nan ? std::numeric_limits<float>::quiet_NaN() : best;
}

template <Reduce kOp>
Status ReduceKernel(const KernelContext& ctx) {
  const ConstTensorView& x = ctx.inputs[0];
  const TensorView& y = ctx.outputs[0];
  const int64_t k = x.dtype() == DType::kF32 ? TrailingReducedDims(x, ctx.attrs) : -1;
  int64_t n = 1;
  for (int64_t d = x.rank() - k; k >= 0 && d < x.rank(); ++d)
    n *= x.shape()[static_cast<size_t>(d)];
  if (k < 0 || n == 0 || !fast::IsF32Aligned(x.data) || !fast::IsF32Aligned(y.data)) {
    return RefKernels().Find(ctx.op)(ctx);
  }
  const int64_t rows = y.count();
  const float* in = reinterpret_cast<const float*>(x.data);
  float* out = reinterpret_cast<float*>(y.data);
  ParallelFor(ctx.pool, rows, fast::RowGrain(fast::kCheapGrain, n),
              [in, out, n](int64_t begin, int64_t end) {
                for (int64_t r = begin; r < end; ++r) {
                  const float* row = in + r * n;
                  if constexpr (kOp == Reduce::kMax || kOp == Reduce::kMin) {
                    out[r] = RowExtreme<kOp == Reduce::kMin>(row, n);
                  } else if constexpr (kOp == Reduce::kMean) {
                    out[r] = static_cast<float>(RowSum(row, n) / static_cast<double>(n));
                  } else {
                    out[r] = static_cast<float>(RowSum(row, n));
                  }
                }
              });
  return Status::Ok();
}

}  // namespace

void AddReductionFastKernels(KernelTable& table) {
  table.Add("reduce_sum", ReduceKernel<Reduce::kSum>);
  table.Add("reduce_mean", ReduceKernel<Reduce::kMean>);
  table.Add("reduce_max", ReduceKernel<Reduce::kMax>);
  table.Add("reduce_min", ReduceKernel<Reduce::kMin>);
}

}  // namespace sy::cpu
