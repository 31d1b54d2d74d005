// Helpers shared by the elementwise reference kernel tests (header only).
#pragma once

#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "kernel_test_util.h"
#include "test_util.h"

namespace sy::cpu::test {

inline constexpr double kInf = std::numeric_limits<double>::infinity();
inline constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
inline constexpr DType kFloatDTypes[] = {DType::kF32, DType::kF16, DType::kBF16, DType::kF64};

// Attrs from a list: A({{"alpha", 0.5}, {"approximate", "tanh"}}).
inline Attrs A(std::initializer_list<std::pair<std::string, AttrValue>> items) {
  Attrs attrs;
  for (const auto& [name, value] : items) attrs.Set(name, value);
  return attrs;
}

// `t`'s values in `dtype` (rounded or wrapped like a store).
inline Tensor Convert(const Tensor& t, DType dtype) { return Make(dtype, t.shape(), Values(t)); }

// Every element of an integer or bool tensor, exactly.
inline std::vector<int64_t> Ints(const Tensor& t) {
  std::vector<int64_t> out(static_cast<size_t>(t.element_count()));
  for (size_t i = 0; i < out.size(); ++i) {
    out[i] = LoadInt(t.dtype(), t.data(), static_cast<int64_t>(i));
  }
  return out;
}

// Like Make, for integer values a double cannot hold exactly.
inline Tensor MakeInts(DType dtype, Shape shape, const std::vector<int64_t>& values) {
  Tensor t = Make(dtype, std::move(shape), std::vector<double>(values.size(), 0.0));
  for (size_t i = 0; i < values.size() && t.mutable_data() != nullptr; ++i) {
    StoreInt(dtype, t.mutable_data(), static_cast<int64_t>(i), values[i]);
  }
  return t;
}

// Relative and absolute tolerance for results computed in double and rounded to `dtype`
// (both sides are rounded to the dtype, so they differ by at most about one unit).
inline std::pair<double, double> Tolerance(DType dtype) {
  switch (dtype) {
    case DType::kF64:
      return {1e-12, 1e-300};
    case DType::kF32:
      return {1e-6, 1e-40};
    case DType::kF16:
      return {2e-3, 1e-7};
    case DType::kBF16:
      return {1e-2, 1e-40};
    default:
      return {0, 0};
  }
}

// NaN matches NaN, infinities match exactly, everything else within the dtype's tolerance.
inline void ExpectClose(const std::vector<double>& got, const std::vector<double>& want,
                        DType dtype) {
  ASSERT_EQ(got.size(), want.size());
  const auto [rtol, atol] = Tolerance(dtype);
  for (size_t i = 0; i < got.size(); ++i) {
    if (std::isnan(want[i])) {
      EXPECT_TRUE(std::isnan(got[i])) << "element " << i << ": got " << got[i] << ", want NaN";
    } else if (std::isinf(want[i])) {
      EXPECT_EQ(got[i], want[i]) << "element " << i;
    } else {
      EXPECT_LE(std::fabs(got[i] - want[i]), atol + rtol * std::fabs(want[i]))
          << "element " << i << ": got " << got[i] << ", want " << want[i];
    }
  }
}

}  // namespace sy::cpu::test
