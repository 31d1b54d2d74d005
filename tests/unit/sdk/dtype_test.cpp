#include "switchyard/dtype.h"

#include <cmath>
#include <limits>

#include <gtest/gtest.h>

#include "switchyard/half.h"
#include "switchyard/plugin.h"

namespace sy {
namespace {

TEST(DType, NamesRoundTrip) {
  const char* names[] = {"f32", "f16", "bf16", "f64", "i8",  "u8",
                         "i32", "i64", "bool", "i16", "u16", "u32"};
  const char* st[] = {"F32", "F16", "BF16", "F64", "I8",  "U8",
                      "I32", "I64", "BOOL", "I16", "U16", "U32"};
  const size_t sizes[] = {4, 2, 2, 8, 1, 1, 4, 8, 1, 2, 2, 4};
  for (int i = 0; i < kNumDTypes; ++i) {
    const DType d = static_cast<DType>(i);
    EXPECT_EQ(DTypeName(d), names[i]);
    EXPECT_EQ(SafetensorsDTypeName(d), st[i]);
    EXPECT_EQ(DTypeSize(d), sizes[i]);
    EXPECT_EQ(ParseDTypeName(names[i]), d);
    EXPECT_EQ(ParseSafetensorsDTypeName(st[i]), d);
  }
  EXPECT_FALSE(ParseDTypeName("float32").has_value());
  EXPECT_FALSE(ParseDTypeName("F32").has_value());
  EXPECT_FALSE(ParseSafetensorsDTypeName("f32").has_value());
  EXPECT_FALSE(ParseSafetensorsDTypeName("F8_E4M3").has_value());
}

TEST(DType, Classes) {
  EXPECT_TRUE(IsFloat(DType::kBF16));
  EXPECT_FALSE(IsFloat(DType::kI32));
  EXPECT_TRUE(IsInteger(DType::kU8));
  EXPECT_FALSE(IsInteger(DType::kBool));
  EXPECT_TRUE(IsSigned(DType::kI8));
  EXPECT_FALSE(IsSigned(DType::kU8));
  EXPECT_EQ(DTypeSet::Float().ToString(), "f32 f16 bf16 f64");
  EXPECT_EQ(DTypeSet::Integer().ToString(), "i8 u8 i16 u16 i32 u32 i64");
  EXPECT_TRUE(IsSigned(DType::kI16));
  EXPECT_FALSE(IsSigned(DType::kU32));
  // The enum's values are the plugin ABI's codes.
  EXPECT_EQ(static_cast<int>(DType::kI16), SY_DTYPE_I16);
  EXPECT_EQ(static_cast<int>(DType::kU16), SY_DTYPE_U16);
  EXPECT_EQ(static_cast<int>(DType::kU32), SY_DTYPE_U32);
  EXPECT_EQ(DTypeSet().ToString(), "(none)");
  EXPECT_TRUE(DTypeSet::All().contains(DType::kBool));
  EXPECT_FALSE(DTypeSet::Numeric().contains(DType::kBool));
}

// Reference bit patterns from the IEEE 754 binary16 and bfloat16 definitions.
TEST(Half, KnownValues) {
  EXPECT_EQ(FloatToHalf(1.0f), 0x3c00);
  EXPECT_EQ(FloatToHalf(-2.0f), 0xc000);
  EXPECT_EQ(FloatToHalf(65504.0f), 0x7bff);                // largest finite
  EXPECT_EQ(FloatToHalf(65520.0f), 0x7c00);                // rounds to infinity
  EXPECT_EQ(FloatToHalf(5.9604644775390625e-8f), 0x0001);  // smallest subnormal
  EXPECT_EQ(FloatToHalf(6.103515625e-5f), 0x0400);         // smallest normal
  EXPECT_EQ(FloatToHalf(0.0f), 0x0000);
  EXPECT_EQ(FloatToHalf(-0.0f), 0x8000);
  EXPECT_EQ(FloatToHalf(std::numeric_limits<float>::infinity()), 0x7c00);
  EXPECT_EQ(FloatToHalf(1.0f + 1.0f / 2048), 0x3c00);  // tie rounds to even
  EXPECT_EQ(FloatToHalf(1.0f + 3.0f / 2048), 0x3c02);  // tie rounds to even (up)
  EXPECT_TRUE(std::isnan(HalfToFloat(FloatToHalf(std::nanf("")))));
  EXPECT_EQ(HalfToFloat(0x3555), 0.333251953125f);
  EXPECT_EQ(HalfToFloat(0x0001), 5.9604644775390625e-8f);
  EXPECT_EQ(HalfToFloat(0xfc00), -std::numeric_limits<float>::infinity());

  EXPECT_EQ(FloatToBFloat16(1.0f), 0x3f80);
  EXPECT_EQ(FloatToBFloat16(-3.0f), 0xc040);
  EXPECT_EQ(BFloat16ToFloat(0x4049), 3.140625f);
  EXPECT_EQ(FloatToBFloat16(3.14159265f), 0x4049);
  EXPECT_TRUE(std::isnan(BFloat16ToFloat(FloatToBFloat16(std::nanf("")))));
}

TEST(Half, EveryHalfRoundTrips) {
  for (uint32_t bits = 0; bits < 0x10000; ++bits) {
    const uint16_t h = static_cast<uint16_t>(bits);
    const float f = HalfToFloat(h);
    if (std::isnan(f)) continue;
    ASSERT_EQ(FloatToHalf(f), h) << "bits " << bits;
    ASSERT_EQ(FloatToBFloat16(BFloat16ToFloat(h)), h) << "bf16 bits " << bits;
  }
}

}  // namespace
}  // namespace sy
