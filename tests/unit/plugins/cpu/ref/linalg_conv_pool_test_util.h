// Helpers shared by the linalg and conv_pool reference kernel tests (linalg_ref_test.cpp,
// conv_pool_ref_test.cpp): NumPy references written by tools/kernel_refs/linalg_conv.py
// into tests/data/kernels/linalg_conv/, and tolerant comparison.
#pragma once

#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "kernel_test_util.h"
#include "test_util.h"

namespace sy::cpu::test {

// Attributes from name/value pairs (local: test_util.cpp is not part of this binary).
inline Attrs AttrsOf(std::initializer_list<std::pair<std::string, AttrValue>> items) {
  Attrs attrs;
  for (const auto& [name, value] : items) attrs.Set(name, value);
  return attrs;
}

inline constexpr double kInf = std::numeric_limits<double>::infinity();
inline constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

inline std::vector<int64_t> Ints(std::initializer_list<int64_t> v) { return v; }

// Expects `got` to have `shape` and `want` within atol + rtol * |want| (NaN matches NaN,
// infinities match exactly). Reports at most a few mismatching elements.
inline void ExpectClose(const Tensor& got, const Shape& shape, const std::vector<double>& want,
                        double rtol, double atol) {
  ASSERT_EQ(got.shape(), shape);
  const std::vector<double> values = Values(got);
  ASSERT_EQ(values.size(), want.size());
  int failures = 0;
  for (size_t i = 0; i < want.size() && failures < 5; ++i) {
    const double g = values[i];
    const double w = want[i];
    bool ok = false;
    if (std::isnan(w)) {
      ok = std::isnan(g);
    } else if (std::isinf(w)) {
      ok = g == w;
    } else {
      ok = std::fabs(g - w) <= atol + rtol * std::fabs(w);
    }
    if (!ok) {
      ++failures;
      ADD_FAILURE() << "element " << i << ": got " << g << ", want " << w;
    }
  }
}

inline void ExpectExact(const Tensor& got, const Shape& shape, const std::vector<double>& want) {
  ExpectClose(got, shape, want, 0.0, 0.0);
}

// Tolerance for a float result rounded once from a double accumulation.
inline double RelTol(DType dtype) {
  switch (dtype) {
    case DType::kF64:
      return 1e-12;
    case DType::kF32:
      return 1e-6;
    default:
      return 2e-3;  // f16, bf16
  }
}

inline Tensor Data(std::string_view name, std::string_view role) {
  return LoadData("kernels/linalg_conv/" + std::string(name) + "_" + std::string(role) + ".npy");
}

// Runs `op` on the inputs `roles` of NumPy case `name` and compares with its `y`.
inline void CheckCase(std::string_view name, std::string_view op,
                      std::initializer_list<const char*> roles, Attrs attrs = {}) {
  SCOPED_TRACE("case " + std::string(name));
  std::vector<Tensor> inputs;
  for (const char* role : roles) inputs.push_back(Data(name, role));
  const Tensor want = Data(name, "y");
  const Tensor got = RunRef1(op, inputs, std::move(attrs));
  ASSERT_EQ(got.dtype(), inputs[0].dtype());
  const double rtol = IsFloat(got.dtype()) ? RelTol(got.dtype()) : 0.0;
  ExpectClose(got, want.shape(), Values(want), rtol, rtol * 1e-6);
}

inline Tensor F32(Shape shape, const std::vector<double>& values) {
  return Make(DType::kF32, std::move(shape), values);
}

}  // namespace sy::cpu::test
