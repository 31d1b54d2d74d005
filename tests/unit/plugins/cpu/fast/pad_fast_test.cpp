// pad's fast kernel (fast/pad_fast.cpp), constant mode, against the reference kernel, bit
// for bit: pads on every side, negative pads that crop, zero and non-zero values, f32,
// i64, u8 and bool, ranks 1 to 5, and 1, 2 and 4 threads; edge and reflect go to the
// reference.
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "fast/fast_kernels.h"
#include "fast_test_util.h"
#include "kernel_test_util.h"

namespace sy::cpu::test {
namespace {

using sy::test::MakeAttrs;

Tensor Counting(DType dtype, const Shape& shape) {
  std::vector<double> v(static_cast<size_t>(ElementCount(shape)));
  for (size_t i = 0; i < v.size(); ++i)
    v[i] = dtype == DType::kBool ? i % 3 == 0 : static_cast<double>(i % 97) - 40;
  return Make(dtype, shape, v);
}

TEST(PadFast, ConstantModeEqualsTheReference) {
  struct Case {
    Shape x;
    std::vector<int64_t> pads;
  };
  const Case cases[] = {
      {{1, 3, 17, 19}, {0, 0, 1, 2, 0, 0, 3, 1}},
      {{2, 64, 35, 35}, {0, 0, 1, 1, 0, 0, 1, 1}},
      {{1, 7, 14, 14, 96}, {0, 0, 0, 0, 0, 0, 0, 3, 5, 0}},
      {{4, 9}, {-1, 2, 1, -3}},
      {{33}, {5, 0}},
      {{2, 3, 4}, {-2, 0, 0, 0, 0, 0}},  // crops every row away
      {{}, {}},                          // a scalar
      {{0, 3}, {1, 0, 1, 1}},            // an empty input
  };
  for (const Case& c : cases) {
    for (const DType dtype : {DType::kF32, DType::kI64, DType::kU8, DType::kBool}) {
      for (const double value : {0.0, 2.5}) {
        const Tensor x = Counting(dtype, c.x);
        const Attrs attrs =
            MakeAttrs({{"pads", c.pads}, {"mode", std::string("constant")}, {"value", value}});
        SCOPED_TRACE(::testing::Message()
                     << ShapeToString(c.x) << " " << DTypeName(dtype) << " value " << value);
        ExpectMatchesReference("pad", {x}, Tolerance{0, 0}, attrs);
      }
    }
  }
  const Attrs edge =
      MakeAttrs({{"pads", std::vector<int64_t>{1, 2, 2, 1}}, {"mode", std::string("reflect")}});
  ExpectMatchesReference("pad", {Counting(DType::kF32, {5, 6})}, Tolerance{0, 0}, edge);
}

}  // namespace
}  // namespace sy::cpu::test
