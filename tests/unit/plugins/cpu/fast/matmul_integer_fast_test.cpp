// matmul_integer's cpu kernels (fast/matmul_integer_fast.cpp, fast/onednn/
// onednn_matmul_integer.cpp) against the reference kernel, bit for bit: every pairing of
// u8 and i8, zero points absent, scalar, per row and per column, batch dims on a, row
// counts the prepared kernel was not built for, K large enough that f32 would not be exact
// (the f64 path), and with b a constant (prepared: oneDNN's u8 x s8 product on CPUs with
// VNNI, else b widened once) or not.
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "fast/fast_kernels.h"
#include "fast_test_util.h"
#include "kernel_test_util.h"

namespace sy::cpu::test {
namespace {

Tensor Bytes(DType dtype, const Shape& shape, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> value(dtype == DType::kU8 ? 0 : -128,
                                           dtype == DType::kU8 ? 255 : 127);
  std::vector<double> v(static_cast<size_t>(ElementCount(shape)));
  for (double& x : v) x = value(rng);
  return Make(dtype, shape, v);
}

struct Case {
  Shape a, b;
  int64_t za_count, zb_count;  // -1: absent; 0: scalar []; else 1-D of that size
};

std::vector<Tensor> Inputs(const Case& c, DType ta, DType tb, uint32_t seed) {
  std::vector<Tensor> in = {Bytes(ta, c.a, seed), Bytes(tb, c.b, seed + 1)};
  if (c.za_count >= 0 || c.zb_count >= 0) {
    in.push_back(c.za_count > 0 ? Bytes(ta, {c.za_count}, seed + 2) : Bytes(ta, {}, seed + 2));
  }
  if (c.zb_count >= 0) {
    in.push_back(c.zb_count > 0 ? Bytes(tb, {c.zb_count}, seed + 3) : Bytes(tb, {}, seed + 3));
  }
  return in;
}

TEST(MatmulIntegerFast, EqualsTheReferenceBitForBit) {
  const Case cases[] = {
      {{3, 5}, {5, 7}, -1, -1},        {{17, 33}, {33, 13}, 17, 13},   {{2, 3, 40}, {40, 9}, 0, 9},
      {{64, 384}, {384, 96}, 0, 0},    {{1, 1536}, {1536, 40}, 0, -1}, {{5}, {5, 7}, 0, 0},
      {{128, 300}, {300, 33}, 128, 0}, {{4, 2000}, {2000, 8}, 4, 8},
  };
  uint32_t seed = 1;
  for (const Case& c : cases) {
    for (const DType ta : {DType::kU8, DType::kI8}) {
      for (const DType tb : {DType::kU8, DType::kI8}) {
        const std::vector<Tensor> in = Inputs(c, ta, tb, seed += 7);
        SCOPED_TRACE(::testing::Message() << DTypeName(ta) << " " << ShapeToString(c.a) << " x "
                                          << DTypeName(tb) << " " << ShapeToString(c.b));
        const Tensor want = RunRef1("matmul_integer", in);
        Expected<std::vector<Tensor>> plain = test::Run(FastKernels(), "matmul_integer", in);
        SY_ASSERT_OK(plain);
        EXPECT_TRUE(SameValues((*plain)[0], want)) << "plain kernel";
        // b and its zero point constants of the model: the prepared kernel.
        std::vector<bool> constant(in.size(), false);
        constant[1] = true;
        if (in.size() > 3) constant[3] = true;
        for (int threads : {1, 2}) {
          bool prepared = false;
          std::string implementation;
          Expected<std::vector<Tensor>> run =
              RunPrepared(FastKernels(), "matmul_integer", in, constant, {}, 1, Pool(threads),
                          &prepared, &implementation);
          SY_ASSERT_OK(run);
          EXPECT_TRUE(prepared);
          EXPECT_TRUE(SameValues((*run)[0], want))
              << implementation << ", " << threads << " threads";
          if (ta == DType::kI8) {
            EXPECT_EQ(implementation, "widened_sgemm");
          } else if (OneDnnHasVnni()) {
            EXPECT_EQ(implementation, "onednn_matmul_u8s8");
          }
        }
      }
    }
  }
}

// A b of 255s against an a of 255s with K = 1500: partial sums pass 2^24, so the widened
// product runs in f64 (and oneDNN's stays exact in 32 bits).
TEST(MatmulIntegerFast, LargeSumsStayExact) {
  const std::vector<Tensor> in = {Make(DType::kU8, {3, 1500}, std::vector<double>(4500, 255)),
                                  Make(DType::kU8, {1500, 2}, std::vector<double>(3000, 255)),
                                  Make(DType::kU8, {}, {0}), Make(DType::kU8, {}, {0})};
  const Tensor want = RunRef1("matmul_integer", in);
  EXPECT_EQ(Values(want)[0], 1500.0 * 255 * 255);
  Expected<std::vector<Tensor>> plain = test::Run(FastKernels(), "matmul_integer", in);
  SY_ASSERT_OK(plain);
  EXPECT_TRUE(SameValues((*plain)[0], want));
  Expected<std::vector<Tensor>> run =
      RunPrepared(FastKernels(), "matmul_integer", in, {false, true, false, true});
  SY_ASSERT_OK(run);
  EXPECT_TRUE(SameValues((*run)[0], want));
}

}  // namespace
}  // namespace sy::cpu::test
