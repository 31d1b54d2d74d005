// Kernels of the reduction family (src/ops_reduction.cpp; global_avg_pool in
// src/ops_conv_pool.cpp): reduce_sum/mean/max/min/prod over any axes, argmax/argmin,
// cumsum, topk.
// Semantics of plugins/cpu/src/ref/reduction_ref.cpp: floats accumulate in f32 (f32, f16,
// bf16) or f64, max/min propagate NaN, the empty set gives 0 / NaN (float mean) / 0
// (integer mean) / the dtype's lowest / highest / 1; integers wrap in 64 bits and an
// integer mean sums exactly in 128 bits and truncates toward zero.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <vector>

#include "switchyard/dtype.h"
#include "switchyard/shape.h"

namespace sy::cuda::kern {

enum class ReduceKind : int { kSum = 0, kMean = 1, kMax = 2, kMin = 3, kProd = 4 };

// x (contiguous) with its dims split into kept and reduced ones: adjacent dims of the same
// kind merged, dims of size 1 dropped. meta = kept dims[kr], kept strides[kr], reduced
// dims[rr], reduced strides[rr] (strides in elements of x). `team`: threads cooperating
// on one output element (1, 32 or 256).
struct ReducePlan {
  int64_t n_out = 0, group = 0;
  int kept_rank = 0, red_rank = 0;
  int team = 1;
  std::vector<int64_t> meta;
};

inline ReducePlan PlanReduce(const Shape& s, const std::vector<bool>& reduced) {
  ReducePlan p;
  std::vector<int64_t> strides(s.size(), 1);
  for (size_t d = s.size(); d-- > 1;) strides[d - 1] = strides[d] * s[d];
  std::vector<int64_t> kd, ks, rd, rs;
  int last_kind = -1;  // kind of the previous dim kept in a list (0 kept, 1 reduced)
  p.n_out = 1;
  p.group = 1;
  for (size_t d = 0; d < s.size(); ++d) {
    if (reduced[d]) {
      p.group *= s[d];
    } else {
      p.n_out *= s[d];
    }
    if (s[d] == 1) continue;
    const int kind = reduced[d] ? 1 : 0;
    std::vector<int64_t>& dims = kind ? rd : kd;
    std::vector<int64_t>& st = kind ? rs : ks;
    if (last_kind == kind && !dims.empty()) {
      dims.back() *= s[d];
      st.back() = strides[d];
    } else {
      dims.push_back(s[d]);
      st.push_back(strides[d]);
    }
    last_kind = kind;
  }
  p.kept_rank = static_cast<int>(kd.size());
  p.red_rank = static_cast<int>(rd.size());
  for (const auto* v : {&kd, &ks, &rd, &rs}) p.meta.insert(p.meta.end(), v->begin(), v->end());
  if (p.meta.empty()) p.meta.push_back(0);
  const bool red_contiguous = rs.empty() || rs.back() == 1;
  if (p.group <= 16) {
    p.team = 1;
  } else if (red_contiguous) {
    p.team = (p.group <= 4096 || p.n_out > 4096) ? 32 : 256;
  } else {
    // Reduced dims outside the kept ones: neighbouring outputs are neighbours in memory,
    // so one thread per output reads coalesced; few outputs need a team each.
    p.team = p.n_out >= 2048 ? 1 : (p.group <= 4096 ? 32 : 256);
  }
  return p;
}

// y[o] = reduction of the plan's group of x for o < plan.n_out; `meta` is plan.meta in
// device memory. y has x's dtype.
cudaError_t LaunchReduce(ReduceKind kind, DType dtype, const void* x, void* y,
                         const ReducePlan& plan, const int64_t* meta, cudaStream_t stream);

// argmax / argmin along the middle dim of x seen as [outer, n, inner]: y (i64) [outer,
// inner]. NaN counts as the most extreme value; ties go to the first index, or the last
// with `last`. n > 0.
cudaError_t LaunchArgReduce(bool is_max, bool last, DType dtype, const void* x, int64_t* y,
                            int64_t outer, int64_t n, int64_t inner, cudaStream_t stream);

// cumsum along the middle dim of [outer, n, inner] (exclusive, reverse): floats in f32
// (f64 for f64), integers wrapping in 64 bits.
cudaError_t LaunchCumsum(DType dtype, const void* x, void* y, int64_t outer, int64_t n,
                         int64_t inner, bool exclusive, bool reverse, cudaStream_t stream);

// topk along the middle dim of [outer, n, inner]: values [outer, k, inner] (bits copied),
// indices (i64) likewise, always sorted; ties to the lower index; NaN is larger than
// every number.
cudaError_t LaunchTopk(DType dtype, const void* x, void* values, int64_t* indices, int64_t outer,
                       int64_t n, int64_t inner, int64_t k, bool largest, cudaStream_t stream);

}  // namespace sy::cuda::kern
