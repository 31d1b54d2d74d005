#include "switchyard/shape.h"

#include <gtest/gtest.h>

#include "test_util.h"

namespace sy {
namespace {

TEST(Shape, ElementCount) {
  EXPECT_EQ(*CheckedElementCount(Shape{}), 1);
  EXPECT_EQ(*CheckedElementCount(Shape{2, 3, 4}), 24);
  EXPECT_EQ(*CheckedElementCount(Shape{5, 0, 7}), 0);
  // Zero anywhere wins even when the other dims would overflow.
  EXPECT_EQ(*CheckedElementCount(Shape{int64_t{1} << 40, 0, int64_t{1} << 40}), 0);
  SY_EXPECT_ERROR(CheckedElementCount(Shape{int64_t{1} << 40, int64_t{1} << 40}), "overflows");
  SY_EXPECT_ERROR(CheckedElementCount(Shape{2, -1}), "negative dimension -1");
  EXPECT_EQ(*CheckedElementCount(Shape{int64_t{1} << 30, int64_t{1} << 30}), int64_t{1} << 60);
  SY_EXPECT_ERROR(CheckedElementCount(Shape{int64_t{1} << 31, int64_t{1} << 30}), "2^60");
}

TEST(Shape, ToString) {
  EXPECT_EQ(ShapeToString(Shape{}), "[]");
  EXPECT_EQ(ShapeToString(Shape{2, 16}), "[2, 16]");
  EXPECT_EQ((TensorType{DType::kBF16, {3}}).ToString(), "bf16 [3]");
}

TEST(Shape, NormalizeAxis) {
  EXPECT_EQ(*NormalizeAxis(-1, 3), 2);
  EXPECT_EQ(*NormalizeAxis(0, 3), 0);
  EXPECT_EQ(*NormalizeAxis(-3, 3), 0);
  SY_EXPECT_ERROR(NormalizeAxis(3, 3), "axis 3 is out of range for rank 3 (expected -3 to 2)");
  SY_EXPECT_ERROR(NormalizeAxis(-4, 3), "out of range");
  SY_EXPECT_ERROR(NormalizeAxis(0, 0), "out of range for rank 0");
}

TEST(Shape, Broadcast) {
  EXPECT_EQ(*BroadcastShapes(Shape{2, 3}, Shape{3}), (Shape{2, 3}));
  EXPECT_EQ(*BroadcastShapes(Shape{4, 1, 5}, Shape{3, 1}), (Shape{4, 3, 5}));
  EXPECT_EQ(*BroadcastShapes(Shape{}, Shape{2, 2}), (Shape{2, 2}));
  EXPECT_EQ(*BroadcastShapes(Shape{0, 3}, Shape{1, 3}), (Shape{0, 3}));
  EXPECT_EQ(*BroadcastShapes(Shape{1}, Shape{0}), (Shape{0}));
  SY_EXPECT_ERROR(BroadcastShapes(Shape{2, 3}, Shape{4}),
                  "shapes [2, 3] and [4] do not broadcast (dimension 1: 3 vs 4)");
  SY_EXPECT_ERROR(BroadcastShapes(Shape{0}, Shape{2}), "do not broadcast");
}

TEST(Shape, BroadcastsTo) {
  EXPECT_TRUE(BroadcastsTo(Shape{3}, Shape{2, 3}));
  EXPECT_TRUE(BroadcastsTo(Shape{}, Shape{2, 3}));
  EXPECT_TRUE(BroadcastsTo(Shape{1, 3}, Shape{2, 3}));
  EXPECT_FALSE(BroadcastsTo(Shape{2, 3}, Shape{3}));
  EXPECT_FALSE(BroadcastsTo(Shape{2}, Shape{2, 3}));
}

}  // namespace
}  // namespace sy
