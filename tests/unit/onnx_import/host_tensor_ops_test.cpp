// The host evaluator behind folding, against hand-derived results.
#include "host_tensor_ops.h"

#include <gtest/gtest.h>

namespace sy::onnx_import {
namespace {

Tensor Ints(Shape shape, std::vector<int64_t> v) { return *FromInt64s(DType::kI64, shape, v); }
Tensor Floats(Shape shape, std::vector<double> v) { return *FromDoubles(DType::kF32, shape, v); }

TEST(HostTensorOpsTest, SliceClampsAndStepsBackwards) {
  const Tensor x = Ints({6}, {0, 1, 2, 3, 4, 5});
  // [5:0:-2] -> 5, 3, 1; an end past the front clamps to "before 0".
  EXPECT_EQ(ToInt64s(*SliceHost(x, std::vector<int64_t>{5}, std::vector<int64_t>{0}, {},
                                std::vector<int64_t>{-2})),
            (std::vector<int64_t>{5, 3, 1}));
  EXPECT_EQ(ToInt64s(*SliceHost(x, std::vector<int64_t>{-1}, std::vector<int64_t>{INT64_MIN}, {},
                                std::vector<int64_t>{-1})),
            (std::vector<int64_t>{5, 4, 3, 2, 1, 0}));
  EXPECT_EQ(
      ToInt64s(*SliceHost(x, std::vector<int64_t>{2}, std::vector<int64_t>{INT64_MAX}, {}, {})),
      (std::vector<int64_t>{2, 3, 4, 5}));
  const Tensor m = Ints({2, 3}, {0, 1, 2, 3, 4, 5});
  Expected<Tensor> col =
      SliceHost(m, std::vector<int64_t>{1}, std::vector<int64_t>{2}, std::vector<int64_t>{-1}, {});
  ASSERT_TRUE(col.ok());
  EXPECT_EQ(col->shape(), (Shape{2, 1}));
  EXPECT_EQ(ToInt64s(*col), (std::vector<int64_t>{1, 4}));
  // An empty axis stepped backwards reads nothing (clamping [0, dim - 1] must not be
  // asked of dim 0).
  Expected<Tensor> empty = SliceHost(Ints({0}, {}), std::vector<int64_t>{-1},
                                     std::vector<int64_t>{INT64_MIN}, {}, std::vector<int64_t>{-1});
  ASSERT_TRUE(empty.ok());
  EXPECT_EQ(empty->shape(), (Shape{0}));
}

TEST(HostTensorOpsTest, GatherWrapsNegativeIndicesAndRejectsOutOfRange) {
  const Tensor shape = Ints({4}, {2, 3, 5, 7});
  EXPECT_EQ(ToInt64s(*GatherHost(shape, Ints({2}, {-1, 0}), 0)), (std::vector<int64_t>{7, 2}));
  const Tensor scalar_index = *FromInt64s(DType::kI64, {}, std::vector<int64_t>{1});
  Expected<Tensor> picked = GatherHost(shape, scalar_index, 0);
  ASSERT_TRUE(picked.ok());
  EXPECT_TRUE(picked->shape().empty());
  EXPECT_FALSE(GatherHost(shape, Ints({1}, {4}), 0).ok());
}

TEST(HostTensorOpsTest, ConcatAndTranspose) {
  Tensor parts[] = {Ints({1, 2}, {1, 2}), Ints({1, 2}, {3, 4})};
  EXPECT_EQ(ToInt64s(*ConcatHost(parts, 0)), (std::vector<int64_t>{1, 2, 3, 4}));
  Expected<Tensor> side = ConcatHost(parts, 1);
  ASSERT_TRUE(side.ok());
  EXPECT_EQ(side->shape(), (Shape{1, 4}));
  const Tensor m = Ints({2, 3}, {0, 1, 2, 3, 4, 5});
  EXPECT_EQ(ToInt64s(*TransposeHost(m, std::vector<int64_t>{1, 0})),
            (std::vector<int64_t>{0, 3, 1, 4, 2, 5}));
}

TEST(HostTensorOpsTest, IntegerArithmeticFollowsOnnx) {
  const Tensor a = Ints({4}, {7, -7, 7, -7});
  const Tensor b = Ints({4}, {2, 2, -2, -2});
  EXPECT_EQ(ToInt64s(*BinaryHost("Div", a, b)), (std::vector<int64_t>{3, -3, -3, 3}));
  EXPECT_EQ(ToInt64s(*BinaryHost("Mod", a, b)), (std::vector<int64_t>{1, 1, -1, -1}));
  EXPECT_FALSE(BinaryHost("Div", a, Ints({1}, {0})).ok());
  // Broadcasting [2, 1] with [3].
  Expected<Tensor> sum = BinaryHost("Add", Ints({2, 1}, {10, 20}), Ints({3}, {1, 2, 3}));
  ASSERT_TRUE(sum.ok());
  EXPECT_EQ(sum->shape(), (Shape{2, 3}));
  EXPECT_EQ(ToInt64s(*sum), (std::vector<int64_t>{11, 12, 13, 21, 22, 23}));
  Expected<Tensor> less = BinaryHost("Less", a, b);
  EXPECT_EQ(less->dtype(), DType::kBool);
}

TEST(HostTensorOpsTest, CastTruncatesAndSaturates) {
  const Tensor f = Floats({4}, {2.9, -2.9, 1e10, -1e10});
  EXPECT_EQ(ToInt64s(*CastHost(f, DType::kI32)),
            (std::vector<int64_t>{2, -2, 2147483647, -2147483648LL}));
}

TEST(HostTensorOpsTest, ReduceAndExpandAndWhere) {
  const Tensor m = Ints({2, 3}, {1, 2, 3, 4, 5, 6});
  EXPECT_EQ(ToInt64s(*ReduceHost("ReduceProd", m, {}, false)), (std::vector<int64_t>{720}));
  Expected<Tensor> rows = ReduceHost("ReduceSum", m, std::vector<int64_t>{1}, true);
  ASSERT_TRUE(rows.ok());
  EXPECT_EQ(rows->shape(), (Shape{2, 1}));
  EXPECT_EQ(ToInt64s(*rows), (std::vector<int64_t>{6, 15}));
  Expected<Tensor> e = ExpandHost(Ints({2, 1}, {1, 2}), {2, 2});
  EXPECT_EQ(ToInt64s(*e), (std::vector<int64_t>{1, 1, 2, 2}));
  const Tensor cond = *FromInt64s(DType::kBool, {2}, std::vector<int64_t>{1, 0});
  EXPECT_EQ(ToInt64s(*WhereHost(cond, Ints({2}, {1, 2}), Ints({1}, {9}))),
            (std::vector<int64_t>{1, 9}));
}

}  // namespace
}  // namespace sy::onnx_import
