// Reference kernels of the sampling family (docs/ops.md, "Sampling"): random_uniform and
// random_normal (at the end), and `sample`, one token
// per row of logits [N, V], chosen by `method` from the caller's uniform number for that
// row. Written step for step from docs/ops.md, whose order of operations is part of the
// op: every sum runs in double, in the order given there, so that a backend that follows
// it picks the same token from the same numbers.
//
// Data errors (SY_ERROR_DATA): a NaN logit, and, for the methods that read it, a uniform
// number that is NaN or outside [0, 1). Each message names the row and the value.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <string>
#include <vector>

#include "ref/ref_kernels.h"
#include "ref/sample_params.h"
#include "switchyard/random_stream.h"
#include "switchyard/sample_errors.h"

namespace sy::cpu {
namespace {

// The index of the largest of `row`, the first one on ties (no NaN: checked before).
int64_t Greedy(const std::vector<double>& row) {
  int64_t best = 0;
  for (size_t i = 1; i < row.size(); ++i) {
    if (row[i] > row[static_cast<size_t>(best)]) best = static_cast<int64_t>(i);
  }
  return best;
}

// The token of one row of logits (already loaded as doubles, none NaN) for uniform `u`.
int64_t SampleRow(const std::vector<double>& logits, double u, const SampleParams& a) {
  const size_t v = logits.size();
  // z = logit / temperature; p = exp(z - max z), written as 1 where z is the maximum, so
  // that an infinite maximum gives 1 for the tokens at it (and 0 for the rest with +inf,
  // where inf - inf would be NaN; a row all -inf gives every token 1).
  std::vector<double> z(v);
  for (size_t i = 0; i < v; ++i) z[i] = logits[i] / a.temperature;
  const double max_z = *std::max_element(z.begin(), z.end());
  std::vector<double> p(v);
  for (size_t i = 0; i < v; ++i) p[i] = z[i] == max_z ? 1.0 : std::exp(z[i] - max_z);

  std::vector<char> keep(v, 0);
  if (a.method == SampleMethod::kTemperature) {
    std::fill(keep.begin(), keep.end(), 1);
  } else if (a.method == SampleMethod::kMinP) {
    for (size_t i = 0; i < v; ++i) keep[i] = p[i] >= a.min_p ? 1 : 0;
  } else {
    // top_k and top_p walk the tokens by p descending, index ascending.
    std::vector<size_t> order(v);
    std::iota(order.begin(), order.end(), size_t{0});
    std::sort(order.begin(), order.end(),
              [&p](size_t x, size_t y) { return p[x] != p[y] ? p[x] > p[y] : x < y; });
    if (a.method == SampleMethod::kTopK) {
      const size_t k = std::min(static_cast<size_t>(a.top_k), v);
      for (size_t j = 0; j < k; ++j) keep[order[j]] = 1;
    } else {
      double all = 0.0;  // in ascending index order
      for (size_t i = 0; i < v; ++i) all += p[i];
      const double threshold = a.top_p * all;
      double prefix = 0.0;
      for (size_t j = 0; j < v; ++j) {
        keep[order[j]] = 1;
        prefix += p[order[j]];
        if (prefix >= threshold) break;  // else (rounding) every token is kept
      }
    }
  }

  double total = 0.0;  // kept tokens, ascending index order: the walk's own order
  for (size_t i = 0; i < v; ++i) {
    if (keep[i]) total += p[i];
  }
  const double target = u * total;
  double running = 0.0;
  int64_t last = -1;
  for (size_t i = 0; i < v; ++i) {
    if (!keep[i]) continue;
    running += p[i];
    last = static_cast<int64_t>(i);
    if (running > target) return last;
  }
  return last;  // rounding left no running sum above the target
}

Status Sample(const KernelContext& ctx) {
  const ConstTensorView& logits = ctx.inputs[0];
  const TensorView& token = ctx.outputs[0];
  const SampleParams a = ReadSampleParams(ctx.attrs);
  const int64_t n = logits.shape()[0];
  const int64_t v = logits.shape()[1];
  std::vector<double> row(static_cast<size_t>(v));
  for (int64_t r = 0; r < n; ++r) {
    for (int64_t i = 0; i < v; ++i) {
      row[static_cast<size_t>(i)] = LoadFloat(logits.dtype(), logits.data, r * v + i);
      if (std::isnan(row[static_cast<size_t>(i)])) {
        return InvalidArgument(plugin::SampleNanMessage(ctx.op, r, i));
      }
    }
    int64_t chosen = 0;
    if (a.method == SampleMethod::kGreedy) {
      chosen = Greedy(row);  // greedy does not read uniform
    } else {
      const ConstTensorView& uniform = ctx.inputs[1];
      const double u = LoadFloat(uniform.dtype(), uniform.data, r);
      if (!(u >= 0.0 && u < 1.0)) {
        return InvalidArgument(plugin::SampleUniformMessage(ctx.op, r, u));
      }
      chosen = SampleRow(row, u, a);
    }
    std::memcpy(token.data + r * 8, &chosen, 8);
  }
  return Status::Ok();
}

// random_uniform / random_normal: element i from the seed's stream
// (switchyard/random_stream.h), computed in double and rounded once to the dtype.
template <bool kNormal>
Status Random(const KernelContext& ctx) {
  const TensorView& y = ctx.outputs[0];
  const auto seed = static_cast<uint64_t>(ctx.attrs.GetInt("seed"));
  const double a = ctx.attrs.GetFloat(kNormal ? "mean" : "low");
  const double b = ctx.attrs.GetFloat(kNormal ? "scale" : "high");
  const int64_t n = ElementCount(y.shape());
  for (int64_t i = 0; i < n; ++i) {
    const auto at = static_cast<uint64_t>(i);
    StoreFloat(y.dtype(), y.data, i,
               kNormal ? RandomNormalAt(seed, at, a, b) : RandomUniformAt(seed, at, a, b));
  }
  return Status::Ok();
}

}  // namespace

void AddSamplingRefKernels(KernelTable& table) {
  table.Add("sample", Sample);
  table.Add("random_uniform", Random<false>);
  table.Add("random_normal", Random<true>);
}

}  // namespace sy::cpu
