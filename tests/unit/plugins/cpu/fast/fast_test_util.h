// Helpers for the threaded fast kernels' tests: run a kernel of FastKernels() with a
// pool of 1, 2 and 4 threads, compare each result with the reference kernel within a
// tolerance, and check that the thread count never changes a single bit of the result.
#pragma once

#include <cmath>
#include <memory>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>

#include "fast/fast_kernels.h"
#include "kernel_test_util.h"
#include "test_util.h"
#include "thread_pool.h"

namespace sy::cpu::test {

// Pools shared by the tests (created on first use, joined at exit).
inline ThreadPool* Pool(int threads) {
  static ThreadPool one(1), two(2), four(4);
  return threads == 1 ? &one : threads == 2 ? &two : &four;
}

// n uniform values in [lo, hi].
inline std::vector<double> Uniform(size_t n, double lo, double hi, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(lo, hi);
  std::vector<double> v(n);
  for (double& x : v) x = u(rng);
  return v;
}

// `values` with the special values NaN, +-inf, +-0 written over a few spread positions.
inline std::vector<double> WithSpecials(std::vector<double> values) {
  const double specials[] = {std::nan(""), INFINITY, -INFINITY, 0.0, -0.0};
  for (size_t k = 0; k < 5 && k < values.size(); ++k) {
    values[(k * 7919 + 3) % values.size()] = specials[k];
  }
  return values;
}

// |fast - ref| <= rel * |ref| + abs; NaN where the reference is NaN, equal infinities.
struct Tolerance {
  double rel;
  double abs;
};

inline void ExpectClose(const Tensor& fast, const Tensor& ref, Tolerance tol,
                        std::string_view what) {
  const std::vector<double> a = Values(fast), b = Values(ref);
  ASSERT_EQ(a.size(), b.size()) << what;
  int failures = 0;
  for (size_t i = 0; i < a.size() && failures < 5; ++i) {
    bool ok;
    if (std::isnan(b[i])) {
      ok = std::isnan(a[i]);
    } else if (std::isinf(b[i])) {
      ok = a[i] == b[i];
    } else {
      ok = std::fabs(a[i] - b[i]) <= tol.rel * std::fabs(b[i]) + tol.abs;
    }
    if (!ok) {
      ++failures;
      ADD_FAILURE() << what << ": element " << i << " is " << a[i] << ", reference " << b[i];
    }
  }
}

// Whether oneDNN generates VNNI code here (its description names the instruction set):
// the integer kernels (matmul_integer, qlinear_conv) take their oneDNN paths only then.
inline bool OneDnnHasVnni() {
  const std::string d = OneDnnDescription();
  for (const char* isa : {"vnni", "bf16", "amx"}) {
    if (d.find(isa) != std::string::npos) return true;
  }
  return false;
}

// Equal element for element, the sign of zero included; NaNs are equal whatever their
// sign and payload (which a vectorised and a scalar loop may order differently).
inline bool SameValues(const Tensor& a, const Tensor& b) {
  const std::vector<double> p = Values(a), q = Values(b);
  if (p.size() != q.size()) return false;
  for (size_t i = 0; i < p.size(); ++i) {
    const bool same = std::isnan(p[i]) ? std::isnan(q[i])
                                       : p[i] == q[i] && std::signbit(p[i]) == std::signbit(q[i]);
    if (!same) return false;
  }
  return true;
}

// Runs `op` of FastKernels() with 1, 2 and 4 threads (and with no pool) and compares each
// run with the reference kernel; the threaded runs must equal the unthreaded one exactly
// (NaN payloads aside).
inline void ExpectMatchesReference(std::string_view op, const std::vector<Tensor>& inputs,
                                   Tolerance tol, Attrs attrs = {}) {
  Expected<std::vector<Tensor>> ref = RunRef(op, inputs, attrs);
  SY_ASSERT_OK(ref);
  Expected<std::vector<Tensor>> inline_run = Run(FastKernels(), op, inputs, attrs);
  SY_ASSERT_OK(inline_run);
  const std::string what = std::string(op) + " " + inputs[0].type().ToString();
  ExpectClose((*inline_run)[0], (*ref)[0], tol, what);
  for (int threads : {1, 2, 4}) {
    Expected<std::vector<Tensor>> fast = Run(FastKernels(), op, inputs, attrs, 1, Pool(threads));
    SY_ASSERT_OK(fast);
    EXPECT_TRUE(SameValues((*fast)[0], (*inline_run)[0]))
        << what << ": " << threads << " threads changed the result";
  }
}

}  // namespace sy::cpu::test
