// Fast `sample` (the sampling family) for the cpu device: the token of every row is the
// reference kernel's (ref/sampling_ref.cpp) bit for bit, for every method and dtype, with
// the same data errors. docs/ops.md ("Sampling") fixes every double operation and the order
// of every sum; what it leaves free is how the kept set is found, and that is where the
// reference spends its time (a sort of all V tokens by p for top_k and top_p: ~4.9 ms a row
// at V = 50257).
//
// What is done instead, each step giving the reference's set:
// - top_k and top_p look only at the candidates with p at or above a floor (2^-10, then
//   2^-20, 2^-40, then 0 when a floor leaves fewer than k, or a prefix short of top_p's
//   threshold). They are the first tokens by p, so the first k of them, or the prefix by p
//   over them, is the reference's. The same floors as the OpenCL and CUDA kernels.
// - top_k needs neither an order within the k kept (their sums run in index order) nor p
//   below the floor: nth_element picks the k, and exp runs only where z - m is above a cut
//   whose exp lies clearly below the floor (exp(-7) < 2^-10 by 7%), so the tokens skipped
//   could not have been candidates.
// - top_p sorts its candidates by p only as far as its prefix goes: blocks of doubling size,
//   each the largest of what is left (nth_element), then sorted; so a flat row whose floor
//   keeps most tokens still sorts only the prefix it keeps.
// - min_p skips exp where z - m < log(min_p) - 1 (p there is below min_p / e).
// - greedy compares the logits in their own type (f16 and bf16 widened to float, exactly):
//   conversion to double would not change the order.
// Rows are independent and run on the context's pool; each row records its token or its
// first data error, and the errors are reported afterwards in row order, as the reference
// (which stops at the first) reports them.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "fast/fast_kernels.h"
#include "ref/ref_kernels.h"
#include "ref/sample_params.h"
#include "switchyard/sample_errors.h"
#include "thread_pool.h"

namespace sy::cpu {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// A row's outcome: its token, or the data error the reference reports for it (a NaN first,
// then the uniform number).
struct RowResult {
  enum Error : uint8_t { kNone, kNaN, kUniform } error = kNone;
  int64_t token = 0;
  int64_t nan_at = 0;  // kNaN: the first NaN's index
  double u = 0.0;      // kUniform: the number
};

struct Cand {
  double p;
  int64_t i;
};

// The order "by p": p descending, then index ascending (p is never NaN).
inline bool ByP(const Cand& a, const Cand& b) { return a.p != b.p ? a.p > b.p : a.i < b.i; }
inline bool ByIndex(const Cand& a, const Cand& b) { return a.i < b.i; }

// The reference's p, for z != m (1 where z == m).
inline double P(double z, double m) { return z == m ? 1.0 : std::exp(z - m); }

// One thread's buffers for a row, sized for the row length, left uninitialised: a value
// initialised buffer is written whole on every call, and at V = 50257 the page faults and
// the memset of fresh pages cost as much as top_k itself.
struct Scratch {
  std::unique_ptr<double[]> p;    // every p (top_k: every z - m)
  std::unique_ptr<Cand[]> cands;  // top_k, top_p, min_p
  std::unique_ptr<float[]> f;     // f16 and bf16: the row widened to float (exactly)
};

// Scratch for the chunks that run at once. A chunk of ParallelFor runs on one thread from
// start to end, so no more chunks hold a slot at a time than the pool has threads. Built
// on the calling thread, so that no loop body allocates (they must not throw).
class ScratchSlots {
 public:
  ScratchSlots(int count, const SampleParams& a, DType dtype, int64_t v)
      : slots_(static_cast<size_t>(count)), used_(std::make_unique<std::atomic<bool>[]>(count)) {
    const size_t n = static_cast<size_t>(v);
    for (Scratch& s : slots_) {
      if (dtype == DType::kF16 || dtype == DType::kBF16)
        s.f = std::make_unique_for_overwrite<float[]>(n);
      if (a.method == SampleMethod::kGreedy) continue;
      if (a.method != SampleMethod::kMinP) s.p = std::make_unique_for_overwrite<double[]>(n);
      if (a.method != SampleMethod::kTemperature)
        s.cands = std::make_unique_for_overwrite<Cand[]>(n);
    }
  }
  Scratch* Claim() {
    for (;;) {
      for (size_t i = 0; i < slots_.size(); ++i) {
        if (!used_[i].exchange(true, std::memory_order_acquire)) return &slots_[i];
      }
    }
  }
  void Release(Scratch* s) {
    used_[static_cast<size_t>(s - slots_.data())].store(false, std::memory_order_release);
  }

 private:
  std::vector<Scratch> slots_;
  std::unique_ptr<std::atomic<bool>[]> used_;
};

// The largest of x[0, n) (n >= 1) and whether any is NaN: eight lanes, so that the loop
// vectorises without reassociating anything.
template <typename T>
T MaxOf(const T* x, int64_t n, bool& any_nan) {
  constexpr int kLanes = 8;
  T m[kLanes];
  bool nan[kLanes];
  for (int j = 0; j < kLanes; ++j) {
    m[j] = -std::numeric_limits<T>::infinity();
    nan[j] = false;
  }
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    for (int j = 0; j < kLanes; ++j) {
      const T v = x[i + j];
      m[j] = v > m[j] ? v : m[j];
      nan[j] = nan[j] || v != v;
    }
  }
  for (; i < n; ++i) {
    m[0] = x[i] > m[0] ? x[i] : m[0];
    nan[0] = nan[0] || x[i] != x[i];
  }
  T best = m[0];
  any_nan = nan[0];
  for (int j = 1; j < kLanes; ++j) {
    best = m[j] > best ? m[j] : best;
    any_nan = any_nan || nan[j];
  }
  return best;
}

template <typename T>
int64_t FirstNaN(const T* x, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    if (x[i] != x[i]) return i;
  }
  return n;
}

// Greedy on x[0, n): the first index of the largest (NaN-free rows), else the NaN error.
template <typename T>
RowResult GreedyOf(const T* x, int64_t n) {
  RowResult r;
  bool any_nan = false;
  const T m = MaxOf(x, n, any_nan);
  if (any_nan) {
    r.error = RowResult::kNaN;
    r.nan_at = FirstNaN(x, n);
    return r;
  }
  int64_t i = 0;
  while (x[i] != m) ++i;  // a row all -inf has m = -inf, found at 0
  r.token = i;
  return r;
}

// Step 6 over every token: total in index order, then the walk.
int64_t WalkAll(const double* p, int64_t v, double u) {
  double total = 0.0;
  for (int64_t i = 0; i < v; ++i) total += p[i];
  const double target = u * total;
  double running = 0.0;
  for (int64_t i = 0; i < v; ++i) {
    running += p[i];
    if (running > target) return i;
  }
  return v - 1;  // rounding left no running sum above the target
}

// Step 6 over the kept tokens c[0, n), in index order (n >= 1).
int64_t WalkKept(const Cand* c, int64_t n, double u) {
  double total = 0.0;
  for (int64_t j = 0; j < n; ++j) total += c[j].p;
  const double target = u * total;
  double running = 0.0;
  for (int64_t j = 0; j < n; ++j) {
    running += c[j].p;
    if (running > target) return c[j].i;
  }
  return c[n - 1].i;
}

// The floors of p that top_k and top_p try in turn, and for each a cut on d = z - m below
// which exp(d) is certainly under the floor (exp(-7) = 0.93 * 2^-10, exp(-14) =
// 0.87 * 2^-20, exp(-28) = 0.76 * 2^-40): the last floor, 0, takes every token.
constexpr int kLevels = 4;
constexpr double kFloor[kLevels] = {0x1p-10, 0x1p-20, 0x1p-40, 0.0};
constexpr double kCut[kLevels] = {-7.0, -14.0, -28.0, -kInf};

// top_k with k < V: the first k by p, from the candidates of the highest floor that has
// at least k. d = z - m is computed once, in a loop that vectorises, for every level.
template <typename T>
int64_t TopK(const T* x, double t, double m, int64_t v, int64_t k, double u, double* d, Cand* c) {
  for (int64_t i = 0; i < v; ++i) d[i] = static_cast<double>(x[i]) / t - m;
  for (int level = 0;; ++level) {
    int64_t n = 0;
    for (int64_t i = 0; i < v; ++i) {
      // z <= m, and z - m is 0 (NaN where both are infinite) exactly when z == m.
      if (!(d[i] < 0.0)) {
        c[n++] = {1.0, i};
      } else if (d[i] >= kCut[level]) {
        const double p = std::exp(d[i]);
        if (p >= kFloor[level]) c[n++] = {p, i};
      }
    }
    if (n < k) continue;  // the last level has n = V > k
    std::nth_element(c, c + k, c + n, ByP);
    std::sort(c, c + k, ByIndex);
    return WalkKept(c, k, u);
  }
}

// top_p: the shortest prefix by p whose sum reaches top_p * S, from the candidates of the
// highest floor whose prefix reaches it; every token when even all of them fall short.
int64_t TopP(const double* p, int64_t v, double top_p, double u, Cand* c) {
  double all = 0.0;  // S, in ascending index order
  for (int64_t i = 0; i < v; ++i) all += p[i];
  const double threshold = top_p * all;
  for (int level = 0; level < kLevels; ++level) {
    int64_t n = 0;
    for (int64_t i = 0; i < v; ++i) {
      if (p[i] >= kFloor[level]) c[n++] = {p[i], i};
    }
    // The prefix, one block of the largest remaining candidates at a time, each sorted.
    double prefix = 0.0;
    int64_t cut = -1;
    for (int64_t begin = 0, block = 64; begin < n && cut < 0; block *= 2) {
      const int64_t end = std::min(n, begin + block);
      if (end < n) std::nth_element(c + begin, c + end, c + n, ByP);
      std::sort(c + begin, c + end, ByP);
      for (int64_t j = begin; j < end; ++j) {
        prefix += c[j].p;
        if (prefix >= threshold) {
          cut = j + 1;
          break;
        }
      }
      begin = end;
    }
    if (cut < 0) continue;
    std::sort(c, c + cut, ByIndex);
    return WalkKept(c, cut, u);
  }
  return WalkAll(p, v, u);  // rounding left the prefix short: every token is kept
}

// min_p: the tokens with p >= min_p, found in index order.
template <typename T>
int64_t MinP(const T* x, double t, double m, int64_t v, double min_p, double u, Cand* c) {
  // Below log(min_p) - 1, p < min_p / e: exp is skipped there. Not for subnormal min_p,
  // where exp's results have too few bits for such a margin to mean anything.
  const double cut = min_p >= 0x1p-1000 ? std::log(min_p) - 1.0 : -kInf;
  int64_t n = 0;
  for (int64_t i = 0; i < v; ++i) {
    if (const double z = static_cast<double>(x[i]) / t; z == m) {
      if (1.0 >= min_p) c[n++] = {1.0, i};
    } else if (const double d = z - m; d >= cut) {
      const double p = std::exp(d);
      if (p >= min_p) c[n++] = {p, i};
    }
  }
  return WalkKept(c, n, u);  // n >= 1: the largest has p = 1 >= min_p
}

// A non-greedy row x[0, v) of float or double: its token, or its data error.
template <typename T>
RowResult RowOf(const T* x, int64_t v, double u, const SampleParams& a, Scratch& s) {
  RowResult r;
  bool any_nan = false;
  const T max_x = MaxOf(x, v, any_nan);
  if (any_nan) {
    r.error = RowResult::kNaN;
    r.nan_at = FirstNaN(x, v);
    return r;
  }
  if (!(u >= 0.0 && u < 1.0)) {
    r.error = RowResult::kUniform;
    r.u = u;
    return r;
  }
  // The reference's m = max z: division by t > 0, correctly rounded, never reverses an
  // order, so the largest quotient is the quotient of the largest logit.
  const double t = a.temperature;
  const double m = static_cast<double>(max_x) / t;
  switch (a.method) {
    case SampleMethod::kTopK:
      if (a.top_k < v) {
        r.token = TopK(x, t, m, v, a.top_k, u, s.p.get(), s.cands.get());
        return r;
      }
      break;  // k >= V keeps every token
    case SampleMethod::kMinP:
      r.token = MinP(x, t, m, v, a.min_p, u, s.cands.get());
      return r;
    default:
      break;
  }
  double* p = s.p.get();
  for (int64_t i = 0; i < v; ++i) p[i] = P(static_cast<double>(x[i]) / t, m);
  r.token = a.method == SampleMethod::kTopP ? TopP(p, v, a.top_p, u, s.cands.get())
                                            : WalkAll(p, v, u);  // temperature, top_k with k >= V
  return r;
}

// Row r of `logits`; `u` is its uniform number (unread for greedy).
RowResult Row(const ConstTensorView& logits, int64_t r, int64_t v, double u, const SampleParams& a,
              Scratch& s) {
  const DType dt = logits.dtype();
  const std::byte* base = logits.data + r * v * static_cast<int64_t>(DTypeSize(dt));
  const bool greedy = a.method == SampleMethod::kGreedy;
  if (dt == DType::kF32) {
    const float* x = reinterpret_cast<const float*>(base);
    return greedy ? GreedyOf(x, v) : RowOf(x, v, u, a, s);
  }
  if (dt == DType::kF64) {
    const double* x = reinterpret_cast<const double*>(base);
    return greedy ? GreedyOf(x, v) : RowOf(x, v, u, a, s);
  }
  // f16 and bf16 widen to float exactly: the order, and every double computed from them,
  // are those of the values the reference loads.
  float* f = s.f.get();
  uint16_t h;
  for (int64_t i = 0; i < v; ++i) {
    std::memcpy(&h, base + i * 2, 2);
    f[i] = dt == DType::kF16 ? HalfToFloat(h) : BFloat16ToFloat(h);
  }
  return greedy ? GreedyOf(f, v) : RowOf(f, v, u, a, s);
}

Status Sample(const KernelContext& ctx) {
  const ConstTensorView& logits = ctx.inputs[0];
  const TensorView& token = ctx.outputs[0];
  const size_t esize = static_cast<size_t>(DTypeSize(logits.dtype()));
  // The typed pointers below read the buffers as arrays of their element type; host
  // buffers are aligned, but the ABI does not promise it.
  if (reinterpret_cast<uintptr_t>(logits.data) % esize != 0) {
    return RefKernels().Find(ctx.op)(ctx);
  }
  const SampleParams a = ReadSampleParams(ctx.attrs);
  const int64_t n = logits.shape()[0];
  const int64_t v = logits.shape()[1];
  if (n == 0) return Status::Ok();
  std::vector<double> u;  // as the reference loads them
  if (a.method != SampleMethod::kGreedy) {
    const ConstTensorView& uniform = ctx.inputs[1];
    u.resize(static_cast<size_t>(n));
    for (int64_t r = 0; r < n; ++r)
      u[static_cast<size_t>(r)] = LoadFloat(uniform.dtype(), uniform.data, r);
  }
  std::vector<RowResult> results(static_cast<size_t>(n));
  const int threads = ctx.pool != nullptr ? ctx.pool->num_threads() : 1;
  ScratchSlots scratch(static_cast<int>(std::min<int64_t>(threads, n)), a, logits.dtype(), v);
  // A row of 50257 costs tens of microseconds even greedy: one row a chunk unless V is small.
  const int64_t grain = std::max<int64_t>(1, 16384 / v);
  ParallelFor(ctx.pool, n, grain, [&](int64_t begin, int64_t end) {
    Scratch* s = scratch.Claim();
    for (int64_t r = begin; r < end; ++r) {
      const double ur = u.empty() ? 0.0 : u[static_cast<size_t>(r)];
      results[static_cast<size_t>(r)] = Row(logits, r, v, ur, a, *s);
    }
    scratch.Release(s);
  });
  for (int64_t r = 0; r < n; ++r) {
    const RowResult& res = results[static_cast<size_t>(r)];
    if (res.error == RowResult::kNaN) {
      return InvalidArgument(plugin::SampleNanMessage(ctx.op, r, res.nan_at));
    }
    if (res.error == RowResult::kUniform) {
      return InvalidArgument(plugin::SampleUniformMessage(ctx.op, r, res.u));
    }
    std::memcpy(token.data + r * 8, &res.token, 8);
  }
  return Status::Ok();
}

}  // namespace

void AddSamplingFastKernels(KernelTable& table) { table.Add("sample", Sample); }

}  // namespace sy::cpu
