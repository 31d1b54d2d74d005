#include "switchyard/tensor.h"

#include <cstring>

#include <gtest/gtest.h>

#include "test_util.h"

namespace sy {
namespace {

TEST(Tensor, AllocateIsZeroedAndWritable) {
  Expected<Tensor> t = Tensor::Allocate(DType::kI32, {2, 3});
  SY_ASSERT_OK(t);
  EXPECT_EQ(t->element_count(), 6);
  EXPECT_EQ(t->byte_size(), 24u);
  EXPECT_TRUE(t->writable());
  for (int32_t v : t->values<int32_t>()) EXPECT_EQ(v, 0);
  t->mutable_values<int32_t>()[4] = 7;
  EXPECT_EQ(t->values<int32_t>()[4], 7);
}

TEST(Tensor, DefaultIsInvalid) { EXPECT_FALSE(Tensor().valid()); }

TEST(Tensor, EmptyAndScalar) {
  Expected<Tensor> empty = Tensor::Allocate(DType::kF32, {3, 0});
  SY_ASSERT_OK(empty);
  EXPECT_EQ(empty->element_count(), 0);
  EXPECT_EQ(empty->byte_size(), 0u);
  EXPECT_TRUE(empty->valid());
  Expected<Tensor> scalar = Tensor::Allocate(DType::kF64, {});
  SY_ASSERT_OK(scalar);
  EXPECT_EQ(scalar->element_count(), 1);
  EXPECT_EQ(scalar->byte_size(), 8u);
}

TEST(Tensor, AllocateRejectsOverflowAndImpossibleSizes) {
  SY_EXPECT_ERROR(Tensor::Allocate(DType::kF32, {int64_t{1} << 40, int64_t{1} << 40}), "overflows");
  // 2^60 elements of 8 bytes: 8 EiB, which no allocator can give.
  Expected<Tensor> huge = Tensor::Allocate(DType::kF64, {int64_t{1} << 60});
  EXPECT_FALSE(huge.ok());
  EXPECT_EQ(huge.status().code(), StatusCode::kResourceExhausted);
}

TEST(Tensor, ViewKeepsOwnerAliveAndIsReadOnly) {
  auto storage = std::make_shared<std::vector<float>>(std::vector<float>{1, 2, 3, 4});
  std::weak_ptr<std::vector<float>> watch = storage;
  Tensor view = Tensor::View(DType::kF32, {2, 2}, storage,
                             reinterpret_cast<const std::byte*>(storage->data()));
  storage.reset();
  EXPECT_FALSE(watch.expired());
  EXPECT_FALSE(view.writable());
  EXPECT_EQ(view.mutable_data(), nullptr);
  EXPECT_TRUE(view.mutable_values<float>().empty());
  EXPECT_EQ(view.values<float>()[3], 4.0f);
  Expected<Tensor> copy = view.Clone();
  SY_ASSERT_OK(copy);
  EXPECT_TRUE(copy->writable());
  EXPECT_TRUE(copy->BitwiseEquals(view));
  view = Tensor();
  EXPECT_TRUE(watch.expired());
}

TEST(Tensor, BitwiseEqualsComparesTypeAndBytes) {
  Tensor a = *Tensor::Allocate(DType::kF32, {2});
  Tensor b = *Tensor::Allocate(DType::kF32, {2});
  Tensor c = *Tensor::Allocate(DType::kI32, {2});
  Tensor d = *Tensor::Allocate(DType::kF32, {1, 2});
  EXPECT_TRUE(a.BitwiseEquals(b));
  EXPECT_FALSE(a.BitwiseEquals(c));
  EXPECT_FALSE(a.BitwiseEquals(d));
  b.mutable_values<float>()[1] = 1.0f;
  EXPECT_FALSE(a.BitwiseEquals(b));
}

}  // namespace
}  // namespace sy
