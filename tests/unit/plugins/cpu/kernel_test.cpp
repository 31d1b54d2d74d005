// Element access helpers of kernel.h.
#include "kernel.h"

#include <cmath>

#include <gtest/gtest.h>

namespace sy::cpu {
namespace {

TEST(KernelHelpers, StoreFloatRoundsOnceToHalf) {
  // 1 + 2^-11 + 2^-30 lies just above the f16 tie between 1 and 1 + 2^-10, so the one
  // correct rounding is up (0x3c01). Through a float it would first become exactly the
  // tie and then round to even (0x3c00).
  std::byte out[2];
  StoreFloat(DType::kF16, out, 0, 1.0 + std::ldexp(1.0, -11) + std::ldexp(1.0, -30));
  uint16_t bits;
  std::memcpy(&bits, out, 2);
  EXPECT_EQ(bits, 0x3c01);
  StoreFloat(DType::kF16, out, 0, -(1.0 + std::ldexp(1.0, -11) + std::ldexp(1.0, -30)));
  std::memcpy(&bits, out, 2);
  EXPECT_EQ(bits, 0xbc01);
  // The same for bf16 (8 mantissa bits): 1 + 2^-8 + 2^-40 rounds up to 1 + 2^-7.
  StoreFloat(DType::kBF16, out, 0, 1.0 + std::ldexp(1.0, -8) + std::ldexp(1.0, -40));
  std::memcpy(&bits, out, 2);
  EXPECT_EQ(bits, 0x3f81);
  // Exact ties and exact values are unaffected.
  StoreFloat(DType::kF16, out, 0, 1.0 + std::ldexp(1.0, -11));
  std::memcpy(&bits, out, 2);
  EXPECT_EQ(bits, 0x3c00);
  StoreFloat(DType::kF16, out, 0, 65504.0);
  std::memcpy(&bits, out, 2);
  EXPECT_EQ(bits, 0x7bff);
  StoreFloat(DType::kF16, out, 0, 1e300);
  std::memcpy(&bits, out, 2);
  EXPECT_EQ(bits, 0x7c00);
}

TEST(KernelHelpers, IntegerStoresWrap) {
  std::byte out[8];
  StoreInt(DType::kU8, out, 0, 300);
  EXPECT_EQ(LoadInt(DType::kU8, out, 0), 44);
  StoreInt(DType::kI8, out, 0, -129);
  EXPECT_EQ(LoadInt(DType::kI8, out, 0), 127);
  StoreInt(DType::kI32, out, 0, int64_t{1} << 32);
  EXPECT_EQ(LoadInt(DType::kI32, out, 0), 0);
  StoreInt(DType::kBool, out, 0, 7);
  EXPECT_EQ(LoadInt(DType::kBool, out, 0), 1);
}

TEST(KernelHelpers, BroadcastCursorWalksRowMajor) {
  const Shape out = {2, 3}, in = {3};
  BroadcastCursor c(out, in);
  std::vector<int64_t> offsets;
  for (int i = 0; i < 6; ++i, c.Next()) offsets.push_back(c.offset());
  EXPECT_EQ(offsets, (std::vector<int64_t>{0, 1, 2, 0, 1, 2}));
  BroadcastCursor col(out, Shape{2, 1});
  offsets.clear();
  for (int i = 0; i < 6; ++i, col.Next()) offsets.push_back(col.offset());
  EXPECT_EQ(offsets, (std::vector<int64_t>{0, 0, 0, 1, 1, 1}));
}

}  // namespace
}  // namespace sy::cpu
