// Schemas of the fused ops (core/src/ops/fused_schemas.cpp): each produces what the chain
// it stands for produces; shapes derived by hand.
#include <gtest/gtest.h>

#include "test_util.h"

namespace sy {
namespace {

using test::F32;
using test::Infer;
using test::MakeAttrs;
using test::T;

TEST(FusedSchemas, FusedMatmulShapesBiasResidualAndTransB) {
  Expected<std::vector<TensorType>> y =
      Infer("fused_matmul", {F32({2, 5, 8}), F32({8, 12}), F32({12}), F32({2, 5, 12})});
  ASSERT_TRUE(y.ok()) << y.status().ToString();
  EXPECT_EQ((*y)[0], F32({2, 5, 12}));
  // trans_b: b [.., N, K].
  y = Infer("fused_matmul", {F32({3, 8}), F32({4, 8})}, MakeAttrs({{"trans_b", int64_t{1}}}));
  ASSERT_TRUE(y.ok()) << y.status().ToString();
  EXPECT_EQ((*y)[0], F32({3, 4}));
  SY_EXPECT_ERROR(Infer("fused_matmul", {F32({3, 8}), F32({8, 4}), F32({5})}),
                  "input bias has shape [5] which does not broadcast to the output shape [3, 4]");
  SY_EXPECT_ERROR(Infer("fused_matmul", {F32({3, 8}), F32({8, 4}), F32({4}), F32({1, 4})}),
                  "input residual has shape [1, 4] but must equal the output shape [3, 4]");
  SY_EXPECT_ERROR(
      Infer("fused_matmul", {F32({3, 8}), F32({8})}, MakeAttrs({{"trans_b", int64_t{1}}})),
      "trans_b = 1 needs rank at least 2");
  SY_EXPECT_ERROR(
      Infer("fused_matmul", {F32({3, 8}), F32({8, 4})}, MakeAttrs({{"trans_b", int64_t{2}}})),
      "trans_b is 2 but must be 0 or 1");
  SY_EXPECT_ERROR(Infer("fused_matmul", {T(DType::kI32, {3, 8}), T(DType::kI32, {8, 4})}), "i32");
}

TEST(FusedSchemas, ActivationAttributes) {
  EXPECT_TRUE(Infer("fused_matmul", {F32({3, 8}), F32({8, 4})},
                    MakeAttrs({{"activation", std::string("clip")}, {"clip_max", 6.0}}))
                  .ok());
  SY_EXPECT_ERROR(Infer("fused_matmul", {F32({3, 8}), F32({8, 4})},
                        MakeAttrs({{"activation", std::string("relu")}, {"clip_min", 0.0}})),
                  "clip_min is set but activation is \"relu\"");
  SY_EXPECT_ERROR(Infer("fused_matmul", {F32({3, 8}), F32({8, 4})},
                        MakeAttrs({{"activation", std::string("swish")}})),
                  "swish");
}

TEST(FusedSchemas, FusedConvIsConvPlusResidual) {
  Expected<std::vector<TensorType>> y =
      Infer("fused_conv", {F32({1, 4, 6, 6}), F32({8, 4, 3, 3}), F32({8}), F32({1, 8, 4, 4})});
  ASSERT_TRUE(y.ok()) << y.status().ToString();
  EXPECT_EQ((*y)[0], F32({1, 8, 4, 4}));
  SY_EXPECT_ERROR(
      Infer("fused_conv", {F32({1, 4, 6, 6}), F32({8, 4, 3, 3}), F32({8}), F32({1, 8, 6, 6})}),
      "input residual has shape [1, 8, 6, 6] but must equal the output shape [1, 8, 4, 4]");
  SY_EXPECT_ERROR(Infer("fused_conv", {F32({1, 4, 6, 6}), F32({8, 3, 3, 3})}),
                  "must equal input x's channels (4)");
}

TEST(FusedSchemas, AddLayerNormOneOrTwoOutputs) {
  Expected<std::vector<TensorType>> y =
      Infer("add_layer_norm", {F32({2, 5, 16}), F32({16}), F32({16}), F32({16})}, {}, 2);
  ASSERT_TRUE(y.ok()) << y.status().ToString();
  ASSERT_EQ(y->size(), 2u);
  EXPECT_EQ((*y)[0], F32({2, 5, 16}));
  EXPECT_EQ((*y)[1], F32({2, 5, 16}));
  SY_EXPECT_ERROR(Infer("add_layer_norm", {F32({2, 5, 16}), F32({5, 2, 16}), F32({16})}),
                  "input b has shape [5, 2, 16] which does not broadcast to input a's shape");
  SY_EXPECT_ERROR(Infer("add_layer_norm", {F32({2, 16}), F32({16}), F32({8})}),
                  "of input a [2, 16]");
  SY_EXPECT_ERROR(Infer("add_layer_norm", {F32({2, 16}), F32({16}), F32({16})}, {}, 3), "output");
}

}  // namespace
}  // namespace sy
