// Fast resize for f32 and f64: the reference kernel's arithmetic (neural_ref.cpp: one axis
// at a time over double buffers, shrinking axes first, each output the sum of its taps
// from -0.0 in tap order, rounded once when stored; taps from plugins/common/
// resize_taps.h), so the results are bitwise the reference's, without what made the
// reference slow on large images (15-77 ns an element, 13x ONNX Runtime on DeepLabV3's
// upsampling): a dtype switch per element on load and store, one thread, and a last
// pass written to a double buffer and then copied. Here loads and stores are typed loops,
// every pass is split over the context's threads by output rows, and the last pass writes
// the output directly; the last axis's taps are grouped by count into arrays its loops
// gather from (GroupedTaps), and a nearest resize is a plain gather (GatherNearest).
// Built with -ffp-contract=off (CMakeLists.txt): an FMA would round
// the sums differently from the reference's.
#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>
#include <vector>

#include "fast/fast_kernels.h"
#include "fast/vec_math.h"
#include "ref/ref_kernels.h"
#include "resize_taps.h"
#include "thread_pool.h"

namespace sy::cpu {
namespace {

// One pass along an axis of `in` elements resized to `out`: src is [outer, in, inner],
// dst [outer, out, inner], rows [r0, r1) of dst's outer * out rows. A row of several
// elements accumulates tap by tap in `acc` (inner doubles), a vector loop per tap, as the
// reference accumulates its rows.
template <typename Dst>
void PassRows(const double* src, Dst* dst, const plugin::ResizeAxisTaps& taps, int64_t in,
              int64_t out, int64_t inner, double extrapolation, int64_t r0, int64_t r1,
              double* acc) {
  int64_t o = r0 / out, p = r0 % out;  // stepped along, not divided per row
  for (int64_t r = r0; r < r1; ++r, ++p) {
    if (p == out) {
      p = 0;
      ++o;
    }
    Dst* row = dst + r * inner;
    const size_t count = taps.count(p);
    if (count == 0) {  // outside the crop: overwritten after the last pass as well
      std::fill(row, row + inner, static_cast<Dst>(extrapolation));
      continue;
    }
    const plugin::ResizeTap* tap = taps.at(p);
    if (inner == 1) {
      const double* from = src + o * in;
      double sum = -0.0;
      for (size_t k = 0; k < count; ++k) sum += tap[k].weight * from[tap[k].index];
      row[0] = static_cast<Dst>(sum);
      continue;
    }
    std::fill(acc, acc + inner, -0.0);
    for (size_t k = 0; k < count; ++k) {
      const double w = tap[k].weight;
      const double* from = src + (o * in + tap[k].index) * inner;
      for (int64_t i = 0; i < inner; ++i) acc[i] += w * from[i];
    }
    for (int64_t i = 0; i < inner; ++i) row[i] = static_cast<Dst>(acc[i]);
  }
}

// The last axis's taps as structure-of-arrays, the outputs grouped by how many taps they
// read (1 to 4: nearest reads 1, linear 2 (1 where a coordinate lands on an input),
// cubic 4): in group c, output position[j] reads index[k * n + j] with weight[k * n + j]
// for k < c (n outputs in the group). A row then sums each output's taps in the
// reference's order with loops the compiler turns into gathers, where the general path
// (PassRows) walks each output's tap list.
struct TapGroup {
  std::vector<int32_t> position, index;
  std::vector<double> weight;
};
struct GroupedTaps {
  bool ok = false;                   // false: some output reads no tap or more than 4, or in > 2^31
  std::array<TapGroup, 5> by_count;  // [c]: the outputs reading c taps
};

GroupedTaps GroupOf(const plugin::ResizeAxisTaps& t, int64_t in, int64_t out) {
  GroupedTaps g;
  if (in > std::numeric_limits<int32_t>::max()) return g;
  for (int64_t p = 0; p < out; ++p) {
    const size_t c = t.count(p);
    if (c == 0 || c > 4) return g;
    g.by_count[c].position.push_back(static_cast<int32_t>(p));
  }
  for (size_t c = 1; c <= 4; ++c) {
    TapGroup& group = g.by_count[c];
    const size_t n = group.position.size();
    group.index.resize(c * n);
    group.weight.resize(c * n);
    for (size_t j = 0; j < n; ++j) {
      const plugin::ResizeTap* tap = t.at(group.position[j]);
      for (size_t k = 0; k < c; ++k) {
        group.index[k * n + j] = static_cast<int32_t>(tap[k].index);
        group.weight[k * n + j] = tap[k].weight;
      }
    }
  }
  g.ok = true;
  return g;
}

// Rows [r0, r1) of a last-axis pass, one tap group: dst[r, position[j]] = -0.0 + sum over
// k of weight[k, j] * src[r, index[k, j]], in tap order, rounded once to Dst.
template <size_t kTaps, typename Dst>
SY_CPU_ISA_CLONES void GroupRows(const double* src, Dst* dst, const TapGroup& g, int64_t in,
                                 int64_t out, int64_t r0, int64_t r1) {
  const auto n = static_cast<int64_t>(g.position.size());
  const int32_t* position = g.position.data();
  const int32_t* index = g.index.data();
  const double* weight = g.weight.data();
  for (int64_t r = r0; r < r1; ++r) {
    const double* from = src + r * in;
    Dst* row = dst + r * out;
    if (n == out) {  // every output of the row, in order: stored contiguously
      for (int64_t j = 0; j < n; ++j) {
        double sum = -0.0;
        for (size_t k = 0; k < kTaps; ++k) {
          sum += weight[static_cast<int64_t>(k) * n + j] *
                 from[index[static_cast<int64_t>(k) * n + j]];
        }
        row[j] = static_cast<Dst>(sum);
      }
      continue;
    }
    for (int64_t j = 0; j < n; ++j) {
      double sum = -0.0;
      for (size_t k = 0; k < kTaps; ++k) {
        sum +=
            weight[static_cast<int64_t>(k) * n + j] * from[index[static_cast<int64_t>(k) * n + j]];
      }
      row[position[j]] = static_cast<Dst>(sum);
    }
  }
}

template <typename Dst>
void GroupedPass(const double* src, Dst* dst, const GroupedTaps& g, int64_t in, int64_t out,
                 int64_t r0, int64_t r1) {
  GroupRows<1>(src, dst, g.by_count[1], in, out, r0, r1);
  GroupRows<2>(src, dst, g.by_count[2], in, out, r0, r1);
  GroupRows<3>(src, dst, g.by_count[3], in, out, r0, r1);
  GroupRows<4>(src, dst, g.by_count[4], in, out, r0, r1);
}

// Nearest resizing where every output reads one input element with weight 1 (nearest
// mode without a crop outside the input): the reference's -0.0 + 1.0 * x is x itself
// (-0.0 stays -0.0, NaN stays NaN), so the output is a gather of x, in x's type, with no
// double buffers. `index[d]` maps output coordinates of axis d to input ones.
template <typename T>
void GatherNearest(const ConstTensorView& x, const TensorView& y,
                   const std::vector<std::vector<int64_t>>& index, ThreadPool* pool) {
  const size_t rank = index.size();
  const Shape& xs = x.shape();
  const Shape& ys = y.shape();
  const int64_t out_last = ys[rank - 1];
  const int64_t rows = y.count() / out_last;
  const int64_t in_last = xs[rank - 1];
  const T* src = reinterpret_cast<const T*>(x.data);
  T* dst = reinterpret_cast<T*>(y.data);
  const int64_t* last = index[rank - 1].data();
  ParallelFor(pool, rows, std::max<int64_t>(1, fast::kCheapGrain / out_last),
              [&](int64_t r0, int64_t r1) {
                for (int64_t r = r0; r < r1; ++r) {
                  // The input row of output row r: its coordinates mapped axis by axis.
                  int64_t rest = r, offset = 0, stride = in_last;
                  for (size_t d = rank - 1; d-- > 0;) {
                    const int64_t coordinate = rest % ys[d];
                    rest /= ys[d];
                    offset += index[d][static_cast<size_t>(coordinate)] * stride;
                    stride *= xs[d];
                  }
                  const T* from = src + offset;
                  T* row = dst + r * out_last;
                  for (int64_t p = 0; p < out_last; ++p) row[p] = from[last[p]];
                }
              });
}

template <typename T>
Status ResizeOf(const KernelContext& ctx) {
  const ConstTensorView& x = ctx.inputs[0];
  const TensorView& y = ctx.outputs[0];
  if (y.count() == 0) return Status::Ok();
  const size_t rank = static_cast<size_t>(x.rank());
  const plugin::ResizeParams params = plugin::ResizeParams::FromAttrs(ctx.attrs);
  const plugin::ResizePlan plan = plugin::PlanResize(params, x.shape(), y.shape());
  const std::vector<plugin::ResizeAxisTaps>& taps = plan.taps;
  const std::vector<size_t>& passes = plan.passes;
  const bool any_outside = plan.any_outside;
  // Every output one input element with weight 1: a gather (GatherNearest).
  bool gather = rank > 0 && !any_outside;
  std::vector<std::vector<int64_t>> index(rank);
  for (size_t d = 0; d < rank && gather; ++d) {
    for (int64_t o = 0; gather && o < y.shape()[d]; ++o) {
      gather = taps[d].count(o) == 1 && taps[d].at(o)[0].weight == 1.0;
      if (gather) index[d].push_back(taps[d].at(o)[0].index);
    }
  }
  if (gather) {
    GatherNearest<T>(x, y, index, ctx.pool);
    return Status::Ok();
  }
  const T* xs = reinterpret_cast<const T*>(x.data);
  T* ys = reinterpret_cast<T*>(y.data);
  if (passes.empty()) {
    std::copy(xs, xs + x.count(), ys);
  } else {
    std::vector<double> cur(static_cast<size_t>(x.count()));
    ParallelFor(ctx.pool, x.count(), fast::kCheapGrain, [&](int64_t i0, int64_t i1) {
      for (int64_t i = i0; i < i1; ++i) cur[static_cast<size_t>(i)] = static_cast<double>(xs[i]);
    });
    Shape shape = x.shape();
    std::vector<double> next;
    for (size_t k = 0; k < passes.size(); ++k) {
      const size_t d = passes[k];
      const int64_t in = shape[d], out = y.shape()[d];
      int64_t outer = 1, inner = 1;
      for (size_t e = 0; e < d; ++e) outer *= shape[e];
      for (size_t e = d + 1; e < rank; ++e) inner *= shape[e];
      const bool last = k + 1 == passes.size();
      if (!last) next.resize(static_cast<size_t>(outer * out * inner));
      if (const GroupedTaps g = inner == 1 ? GroupOf(taps[d], in, out) : GroupedTaps{}; g.ok) {
        const int64_t rows_grain = std::max<int64_t>(1, fast::kCheapGrain / out);
        ParallelFor(ctx.pool, outer, rows_grain, [&](int64_t r0, int64_t r1) {
          if (last) {
            GroupedPass(cur.data(), ys, g, in, out, r0, r1);
          } else {
            GroupedPass(cur.data(), next.data(), g, in, out, r0, r1);
          }
        });
        if (!last) cur.swap(next);
        shape[d] = out;
        continue;
      }
      const int64_t grain = std::max<int64_t>(1, fast::kCheapGrain / std::max<int64_t>(inner, 1));
      ParallelFor(ctx.pool, outer * out, grain, [&](int64_t r0, int64_t r1) {
        std::vector<double> acc(inner > 1 ? static_cast<size_t>(inner) : 0);
        if (last) {
          PassRows(cur.data(), ys, taps[d], in, out, inner, params.extrapolation_value, r0, r1,
                   acc.data());
        } else {
          PassRows(cur.data(), next.data(), taps[d], in, out, inner, params.extrapolation_value, r0,
                   r1, acc.data());
        }
      });
      if (!last) cur.swap(next);
      shape[d] = out;
    }
  }
  plan.ForEachOutside(y.shape(),
                      [&](int64_t o) { ys[o] = static_cast<T>(params.extrapolation_value); });
  return Status::Ok();
}

Status Resize(const KernelContext& ctx) {
  if (ctx.inputs[0].dtype() == DType::kF32) return ResizeOf<float>(ctx);
  if (ctx.inputs[0].dtype() == DType::kF64) return ResizeOf<double>(ctx);
  return RefKernels().Find("resize")(ctx);
}

}  // namespace

void AddResizeFastKernels(KernelTable& table) { table.Add("resize", Resize); }

}  // namespace sy::cpu
