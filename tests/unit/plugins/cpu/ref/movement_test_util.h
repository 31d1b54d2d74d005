// Helpers shared by the movement and indexing reference kernel tests (movement_ref_test.cpp,
// indexing_ref_test.cpp): NumPy reference files written by tools/kernel_refs/movement.py
// into tests/data/kernels/movement/, and exact comparison (which selection_ref_test.cpp
// and sampling_ref_test.cpp use too, with their own files).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "kernel_test_util.h"
#include "test_util.h"

namespace sy::cpu::test {

using I = std::vector<int64_t>;

inline constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
inline constexpr double kInf = std::numeric_limits<double>::infinity();
inline constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
inline constexpr int64_t kMin = std::numeric_limits<int64_t>::min();

// Element-for-element: same dtype and shape, NaN where expected, exact unless rtol > 0.
inline void ExpectMatches(const Tensor& actual, const Tensor& expected, double rtol = 0.0) {
  ASSERT_EQ(DTypeName(actual.dtype()), DTypeName(expected.dtype()));
  ASSERT_EQ(actual.shape(), expected.shape());
  const std::vector<double> a = Values(actual);
  const std::vector<double> e = Values(expected);
  for (size_t i = 0; i < a.size(); ++i) {
    if (std::isnan(e[i])) {
      EXPECT_TRUE(std::isnan(a[i])) << "element " << i << " is " << a[i] << ", expected NaN";
    } else if (rtol == 0.0 || std::isinf(e[i])) {
      EXPECT_EQ(a[i], e[i]) << "element " << i;
    } else {
      EXPECT_NEAR(a[i], e[i], rtol * std::max(1.0, std::abs(e[i]))) << "element " << i;
    }
  }
}

inline void ExpectValues(const Tensor& actual, DType dtype, const Shape& shape,
                         const std::vector<double>& values) {
  ExpectMatches(actual, Make(dtype, shape, values));
}

inline Tensor Load(const std::string& file) {
  return LoadData("kernels/movement/" + file + ".npy");
}

// ---- NumPy reference files ----------------------------------------------------------

struct FileCase {
  std::string name;  // <name>_in<i>.npy, <name>_out<i>.npy
  std::string op;
  Attrs attrs;
  int inputs;
  int outputs = 1;
  double rtol = 0.0;
};

inline void RunFileCase(const FileCase& c) {
  SCOPED_TRACE(c.name + " (" + c.op + ")");
  std::vector<Tensor> inputs;
  for (int i = 0; i < c.inputs; ++i) {
    inputs.push_back(Load(c.name + "_in" + std::to_string(i)));
  }
  Expected<std::vector<Tensor>> out = RunRef(c.op, inputs, c.attrs, c.outputs);
  SY_ASSERT_OK(out);
  ASSERT_EQ(out->size(), static_cast<size_t>(c.outputs));
  for (int i = 0; i < c.outputs; ++i) {
    SCOPED_TRACE("output " + std::to_string(i));
    ExpectMatches((*out)[i], Load(c.name + "_out" + std::to_string(i)), c.rtol);
  }
}

// Attributes from a list (like sy::test::MakeAttrs, which lives outside this binary).
inline Attrs A(std::initializer_list<std::pair<std::string, AttrValue>> items) {
  Attrs attrs;
  for (const auto& [name, value] : items) attrs.Set(name, value);
  return attrs;
}

inline Tensor MakeI64(Shape shape, const std::vector<int64_t>& values) {
  Expected<Tensor> t = Tensor::Allocate(DType::kI64, std::move(shape));
  EXPECT_TRUE(t.ok());
  std::span<int64_t> v = t->mutable_values<int64_t>();
  EXPECT_EQ(v.size(), values.size());
  std::copy(values.begin(), values.end(), v.begin());
  return std::move(*t);
}

inline std::vector<int64_t> I64Values(const Tensor& t) {
  std::vector<int64_t> out;
  for (int64_t i = 0; i < t.element_count(); ++i) out.push_back(LoadInt(t.dtype(), t.data(), i));
  return out;
}

}  // namespace sy::cpu::test
