// Schemas of matmul and gemm (core/src/ops/linalg_schemas.cpp). Expected shapes are
// derived by hand from the ONNX MatMul (numpy.matmul) and Gemm specifications.
#include <gtest/gtest.h>

#include "test_util.h"

namespace sy {
namespace {

using test::F32;
using test::Infer;
using test::MakeAttrs;
using test::T;

// Checks that an inference succeeded with exactly `want`.
::testing::AssertionResult Produces(const Expected<std::vector<TensorType>>& got,
                                    const std::vector<TensorType>& want) {
  if (!got.ok()) return ::testing::AssertionFailure() << got.status().ToString();
  if (*got == want) return ::testing::AssertionSuccess();
  auto render = [](const std::vector<TensorType>& types) {
    std::string text;
    for (const TensorType& t : types) text += (text.empty() ? "" : ", ") + t.ToString();
    return "{" + text + "}";
  };
  return ::testing::AssertionFailure() << "got " << render(*got) << ", want " << render(want);
}

// ---- matmul -------------------------------------------------------------------------

TEST(LinalgSchemas, MatmulIsRegisteredWithOnnxName) {
  const OpSchema* s = OpRegistry::Global().Find("matmul");
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->onnx_name, "MatMul");
  EXPECT_EQ(s->min_inputs(), 2);
  EXPECT_EQ(s->max_inputs(), 2);
  EXPECT_TRUE(s->attrs.empty());
}

TEST(LinalgSchemas, MatmulTwoD) {
  EXPECT_TRUE(Produces(Infer("matmul", {F32({2, 3}), F32({3, 4})}), {F32({2, 4})}));
  EXPECT_TRUE(Produces(Infer("matmul", {F32({1, 1}), F32({1, 1})}), {F32({1, 1})}));
}

TEST(LinalgSchemas, MatmulBothOneDIsADotProductGivingAScalar) {
  EXPECT_TRUE(Produces(Infer("matmul", {F32({3}), F32({3})}), {F32({})}));
}

TEST(LinalgSchemas, MatmulOneDFirstInputIsPromotedThenItsDimRemoved) {
  // [3] -> [1, 3]; [1, 3] x [3, 4] = [1, 4]; the promoted 1 is removed: [4].
  EXPECT_TRUE(Produces(Infer("matmul", {F32({3}), F32({3, 4})}), {F32({4})}));
  // Batched b: [3] x [5, 3, 4] -> [5, 4].
  EXPECT_TRUE(Produces(Infer("matmul", {F32({3}), F32({5, 3, 4})}), {F32({5, 4})}));
  EXPECT_TRUE(Produces(Infer("matmul", {F32({3}), F32({2, 5, 3, 4})}), {F32({2, 5, 4})}));
}

TEST(LinalgSchemas, MatmulOneDSecondInputIsPromotedThenItsDimRemoved) {
  // [3] -> [3, 1]; [2, 3] x [3, 1] = [2, 1]; the promoted 1 is removed: [2].
  EXPECT_TRUE(Produces(Infer("matmul", {F32({2, 3}), F32({3})}), {F32({2})}));
  EXPECT_TRUE(Produces(Infer("matmul", {F32({5, 2, 3}), F32({3})}), {F32({5, 2})}));
}

TEST(LinalgSchemas, MatmulBatchDimsBroadcast) {
  EXPECT_TRUE(Produces(Infer("matmul", {F32({7, 2, 3}), F32({7, 3, 4})}), {F32({7, 2, 4})}));
  // Only one side batched.
  EXPECT_TRUE(Produces(Infer("matmul", {F32({7, 2, 3}), F32({3, 4})}), {F32({7, 2, 4})}));
  EXPECT_TRUE(Produces(Infer("matmul", {F32({2, 3}), F32({7, 3, 4})}), {F32({7, 2, 4})}));
  // 1s stretch, and batch ranks differ (right-aligned).
  EXPECT_TRUE(Produces(Infer("matmul", {F32({1, 2, 3}), F32({6, 3, 4})}), {F32({6, 2, 4})}));
  EXPECT_TRUE(Produces(Infer("matmul", {F32({2, 1, 4, 3}), F32({5, 3, 6})}), {F32({2, 5, 4, 6})}));
  EXPECT_TRUE(
      Produces(Infer("matmul", {F32({8, 1, 2, 3}), F32({1, 9, 3, 4})}), {F32({8, 9, 2, 4})}));
}

TEST(LinalgSchemas, MatmulEmptyDims) {
  EXPECT_TRUE(Produces(Infer("matmul", {F32({0, 3}), F32({3, 4})}), {F32({0, 4})}));
  EXPECT_TRUE(Produces(Infer("matmul", {F32({2, 3}), F32({3, 0})}), {F32({2, 0})}));
  // K = 0: the product is all zeros but has the full [M, N] shape.
  EXPECT_TRUE(Produces(Infer("matmul", {F32({2, 0}), F32({0, 4})}), {F32({2, 4})}));
  EXPECT_TRUE(Produces(Infer("matmul", {F32({0}), F32({0})}), {F32({})}));
  EXPECT_TRUE(Produces(Infer("matmul", {F32({3}), F32({3, 0})}), {F32({0})}));
  // A batch dim of 0 broadcasts against 1.
  EXPECT_TRUE(Produces(Infer("matmul", {F32({0, 2, 3}), F32({1, 3, 4})}), {F32({0, 2, 4})}));
}

TEST(LinalgSchemas, MatmulKeepsTheInputDtype) {
  for (DType d : {DType::kF32, DType::kF16, DType::kBF16, DType::kF64, DType::kI32, DType::kI64,
                  DType::kI8, DType::kU8}) {
    EXPECT_TRUE(Produces(Infer("matmul", {T(d, {2, 3}), T(d, {3, 4})}), {T(d, {2, 4})}))
        << DTypeName(d);
  }
}

TEST(LinalgSchemas, MatmulRejectsScalars) {
  SY_EXPECT_ERROR(Infer("matmul", {F32({}), F32({3})}),
                  "input a is a scalar (shape []) but matmul needs rank at least 1");
  SY_EXPECT_ERROR(Infer("matmul", {F32({3}), F32({})}),
                  "input b is a scalar (shape []) but matmul needs rank at least 1");
  SY_EXPECT_ERROR(Infer("matmul", {F32({}), F32({})}), "input a is a scalar");
}

TEST(LinalgSchemas, MatmulRejectsMismatchedInnerDims) {
  SY_EXPECT_ERROR(Infer("matmul", {F32({4, 12}), F32({8, 3})}),
                  "input b has shape [8, 3] but its dimension 0 (8) must equal input a's last "
                  "dimension (12)");
  SY_EXPECT_ERROR(Infer("matmul", {F32({2, 4, 12}), F32({2, 8, 3})}),
                  "input b has shape [2, 8, 3] but its dimension 1 (8) must equal input a's "
                  "last dimension (12)");
  SY_EXPECT_ERROR(Infer("matmul", {F32({3}), F32({4})}),
                  "input b has shape [4] but its dimension 0 (4) must equal input a's last "
                  "dimension (3)");
  SY_EXPECT_ERROR(Infer("matmul", {F32({3}), F32({4, 5})}), "its dimension 0 (4)");
  SY_EXPECT_ERROR(Infer("matmul", {F32({2, 3}), F32({4})}), "its dimension 0 (4)");
  // The transposed orientation is not accepted.
  SY_EXPECT_ERROR(Infer("matmul", {F32({2, 3}), F32({4, 3})}), "its dimension 0 (4)");
}

TEST(LinalgSchemas, MatmulRejectsBatchDimsThatDoNotBroadcast) {
  SY_EXPECT_ERROR(Infer("matmul", {F32({2, 4, 3}), F32({3, 3, 5})}),
                  "input a has shape [2, 4, 3] and input b has shape [3, 3, 5] whose batch "
                  "dimensions [2] and [3] do not broadcast (2 vs 3)");
  SY_EXPECT_ERROR(Infer("matmul", {F32({2, 5, 4, 3}), F32({6, 3, 5})}),
                  "batch dimensions [2, 5] and [6] do not broadcast (5 vs 6)");
  // 0 does not stretch to another size.
  SY_EXPECT_ERROR(Infer("matmul", {F32({0, 2, 3}), F32({2, 3, 4})}), "(0 vs 2)");
}

TEST(LinalgSchemas, MatmulRejectsBadDtypes) {
  SY_EXPECT_ERROR(Infer("matmul", {T(DType::kBool, {2, 3}), T(DType::kBool, {3, 4})}),
                  "input 0 (a) has dtype bool but matmul accepts");
  SY_EXPECT_ERROR(Infer("matmul", {F32({2, 3}), T(DType::kF16, {3, 4})}),
                  "input 1 (b) has dtype f16 but must match input 0 (f32)");
  SY_EXPECT_ERROR(Infer("matmul", {T(DType::kI32, {2, 3}), T(DType::kI64, {3, 4})}),
                  "input 1 (b) has dtype i64 but must match input 0 (i32)");
}

TEST(LinalgSchemas, MatmulRejectsWrongArityAndAttributes) {
  SY_EXPECT_ERROR(Infer("matmul", {F32({2, 3})}), "takes 2 inputs but has 1");
  SY_EXPECT_ERROR(Infer("matmul", {F32({2, 3}), F32({3, 4}), F32({4})}),
                  "takes 2 inputs but has 3");
  SY_EXPECT_ERROR(Infer("matmul", {F32({2, 3}), F32({3, 4})}, {}, 2),
                  "produces 1 output but the node lists 2");
  SY_EXPECT_ERROR(Infer("matmul", {F32({2, 3}), F32({3, 4})}, {}, 0),
                  "produces 1 output but the node lists 0");
  SY_EXPECT_ERROR(Infer("matmul", {F32({2, 3}), F32({3, 4})}, MakeAttrs({{"trans_b", int64_t{1}}})),
                  "unknown attribute trans_b (matmul takes no attributes)");
}

// ---- gemm ---------------------------------------------------------------------------

TEST(LinalgSchemas, GemmIsRegisteredWithDefaults) {
  const OpSchema* s = OpRegistry::Global().Find("gemm");
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->onnx_name, "Gemm");
  EXPECT_EQ(s->min_inputs(), 2);
  EXPECT_EQ(s->max_inputs(), 3);
  Attrs attrs;
  const std::vector<TensorType> inputs{F32({4, 3}), F32({3, 5})};
  SY_ASSERT_OK(InferOutputTypes(*s, inputs, attrs, 1));
  EXPECT_EQ(attrs.GetFloat("alpha"), 1.0);
  EXPECT_EQ(attrs.GetFloat("beta"), 1.0);
  EXPECT_EQ(attrs.GetInt("trans_a", -1), 0);
  EXPECT_EQ(attrs.GetInt("trans_b", -1), 0);
}

TEST(LinalgSchemas, GemmWithoutC) {
  EXPECT_TRUE(Produces(Infer("gemm", {F32({4, 3}), F32({3, 5})}), {F32({4, 5})}));
}

TEST(LinalgSchemas, GemmTransposes) {
  // trans_a: a is [K, M] = [3, 4].
  EXPECT_TRUE(
      Produces(Infer("gemm", {F32({3, 4}), F32({3, 5})}, MakeAttrs({{"trans_a", int64_t{1}}})),
               {F32({4, 5})}));
  // trans_b: b is [N, K] = [5, 3].
  EXPECT_TRUE(
      Produces(Infer("gemm", {F32({4, 3}), F32({5, 3})}, MakeAttrs({{"trans_b", int64_t{1}}})),
               {F32({4, 5})}));
  EXPECT_TRUE(Produces(Infer("gemm", {F32({3, 4}), F32({5, 3})},
                             MakeAttrs({{"trans_a", int64_t{1}}, {"trans_b", int64_t{1}}})),
                       {F32({4, 5})}));
}

TEST(LinalgSchemas, GemmCBroadcastsUnidirectionallyToMN) {
  const TensorType a = F32({4, 3});
  const TensorType b = F32({3, 5});
  for (const Shape& c : std::vector<Shape>{{4, 5}, {1, 5}, {4, 1}, {1, 1}, {5}, {1}, {}}) {
    EXPECT_TRUE(Produces(Infer("gemm", {a, b, F32(c)}), {F32({4, 5})})) << ShapeToString(c);
  }
  // With transposes, C is checked against the transposed product's [M, N].
  EXPECT_TRUE(Produces(Infer("gemm", {F32({3, 4}), F32({5, 3}), F32({4, 1})},
                             MakeAttrs({{"trans_a", int64_t{1}}, {"trans_b", int64_t{1}}})),
                       {F32({4, 5})}));
}

TEST(LinalgSchemas, GemmAlphaAndBetaAcceptIntsAndFloats) {
  EXPECT_TRUE(Produces(Infer("gemm", {F32({4, 3}), F32({3, 5}), F32({5})},
                             MakeAttrs({{"alpha", 0.5}, {"beta", int64_t{2}}})),
                       {F32({4, 5})}));
  EXPECT_TRUE(Produces(
      Infer("gemm", {F32({4, 3}), F32({3, 5})}, MakeAttrs({{"alpha", -1.0}, {"beta", 0.0}})),
      {F32({4, 5})}));
}

TEST(LinalgSchemas, GemmEmptyDims) {
  EXPECT_TRUE(Produces(Infer("gemm", {F32({0, 3}), F32({3, 5}), F32({5})}), {F32({0, 5})}));
  EXPECT_TRUE(Produces(Infer("gemm", {F32({4, 3}), F32({3, 0}), F32({4, 1})}), {F32({4, 0})}));
  // K = 0: alpha * A * B is all zeros of shape [M, N].
  EXPECT_TRUE(Produces(Infer("gemm", {F32({4, 0}), F32({0, 5})}), {F32({4, 5})}));
  EXPECT_TRUE(Produces(Infer("gemm", {F32({0, 3}), F32({3, 5}), F32({0, 5})}), {F32({0, 5})}));
  // C of [1, 5] broadcasts to M = 0; a C with 0 rows does not broadcast to M = 4.
  EXPECT_TRUE(Produces(Infer("gemm", {F32({0, 3}), F32({3, 5}), F32({1, 5})}), {F32({0, 5})}));
  SY_EXPECT_ERROR(Infer("gemm", {F32({4, 3}), F32({3, 5}), F32({0, 5})}),
                  "input c has shape [0, 5] which does not broadcast");
}

TEST(LinalgSchemas, GemmKeepsFloatDtypes) {
  for (DType d : {DType::kF32, DType::kF16, DType::kBF16, DType::kF64}) {
    EXPECT_TRUE(Produces(Infer("gemm", {T(d, {2, 3}), T(d, {3, 4}), T(d, {4})}), {T(d, {2, 4})}))
        << DTypeName(d);
  }
}

TEST(LinalgSchemas, GemmRejectsOperandsThatAreNotRankTwo) {
  SY_EXPECT_ERROR(Infer("gemm", {F32({2, 4, 3}), F32({3, 5})}),
                  "input a has shape [2, 4, 3] but must have rank 2");
  SY_EXPECT_ERROR(Infer("gemm", {F32({3}), F32({3, 5})}),
                  "input a has shape [3] but must have rank 2");
  SY_EXPECT_ERROR(Infer("gemm", {F32({4, 3}), F32({3})}),
                  "input b has shape [3] but must have rank 2");
  SY_EXPECT_ERROR(Infer("gemm", {F32({}), F32({3, 5})}),
                  "input a has shape [] but must have rank 2");
  SY_EXPECT_ERROR(Infer("gemm", {F32({4, 3}), F32({})}),
                  "input b has shape [] but must have rank 2");
}

TEST(LinalgSchemas, GemmRejectsMismatchedInnerDims) {
  SY_EXPECT_ERROR(Infer("gemm", {F32({4, 3}), F32({4, 5})}),
                  "input b has shape [4, 5] but its dimension 0 (4) must equal input a's "
                  "dimension 1 (3) (trans_a = 0, trans_b = 0)");
  SY_EXPECT_ERROR(
      Infer("gemm", {F32({3, 4}), F32({4, 5})}, MakeAttrs({{"trans_a", int64_t{1}}})),
      "input b has shape [4, 5] but its dimension 0 (4) must equal input a's dimension 0 (3) "
      "(trans_a = 1, trans_b = 0)");
  SY_EXPECT_ERROR(
      Infer("gemm", {F32({4, 3}), F32({3, 5})}, MakeAttrs({{"trans_b", int64_t{1}}})),
      "input b has shape [3, 5] but its dimension 1 (5) must equal input a's dimension 1 (3) "
      "(trans_a = 0, trans_b = 1)");
}

TEST(LinalgSchemas, GemmRejectsCThatDoesNotBroadcast) {
  const TensorType a = F32({4, 3});
  const TensorType b = F32({3, 5});
  SY_EXPECT_ERROR(Infer("gemm", {a, b, F32({4})}),
                  "input c has shape [4] which does not broadcast to the output shape [M, N] = "
                  "[4, 5]");
  SY_EXPECT_ERROR(Infer("gemm", {a, b, F32({3, 5})}), "input c has shape [3, 5]");
  SY_EXPECT_ERROR(Infer("gemm", {a, b, F32({5, 4})}), "input c has shape [5, 4]");
  // Unidirectional: C may not have more dims than [M, N], nor stretch the output.
  SY_EXPECT_ERROR(Infer("gemm", {a, b, F32({1, 4, 5})}), "input c has shape [1, 4, 5]");
  SY_EXPECT_ERROR(Infer("gemm", {F32({1, 3}), b, F32({4, 5})}),
                  "input c has shape [4, 5] which does not broadcast to the output shape [M, N] "
                  "= [1, 5]");
}

TEST(LinalgSchemas, GemmRejectsBadAttributes) {
  const TensorType a = F32({4, 3});
  const TensorType b = F32({3, 5});
  SY_EXPECT_ERROR(Infer("gemm", {a, b}, MakeAttrs({{"trans_a", int64_t{2}}})),
                  "attribute trans_a is 2 but must be 0 or 1");
  SY_EXPECT_ERROR(Infer("gemm", {a, b}, MakeAttrs({{"trans_b", int64_t{-1}}})),
                  "attribute trans_b is -1 but must be 0 or 1");
  SY_EXPECT_ERROR(Infer("gemm", {a, b}, MakeAttrs({{"trans_a", 0.5}})),
                  "attribute trans_a is 0.5 (float) but must be int");
  SY_EXPECT_ERROR(Infer("gemm", {a, b}, MakeAttrs({{"alpha", "one"}})),
                  "attribute alpha is \"one\" (string) but must be float");
  SY_EXPECT_ERROR(Infer("gemm", {a, b}, MakeAttrs({{"beta", std::vector<double>{1.0}}})),
                  "attribute beta is [1] (floats) but must be float");
  SY_EXPECT_ERROR(Infer("gemm", {a, b}, MakeAttrs({{"transA", int64_t{1}}})),
                  "unknown attribute transA (gemm takes alpha, beta, trans_a, trans_b)");
}

TEST(LinalgSchemas, GemmRejectsBadDtypes) {
  SY_EXPECT_ERROR(Infer("gemm", {T(DType::kI32, {4, 3}), T(DType::kI32, {3, 5})}),
                  "input 0 (a) has dtype i32 but gemm accepts f32 f16 bf16 f64");
  SY_EXPECT_ERROR(Infer("gemm", {F32({4, 3}), F32({3, 5}), T(DType::kF64, {5})}),
                  "input 2 (c) has dtype f64 but must match input 0 (f32)");
  SY_EXPECT_ERROR(Infer("gemm", {F32({4, 3}), T(DType::kBool, {3, 5})}),
                  "input 1 (b) has dtype bool but gemm accepts");
}

TEST(LinalgSchemas, GemmRejectsWrongArity) {
  SY_EXPECT_ERROR(Infer("gemm", {F32({4, 3})}), "takes 2 to 3 inputs but has 1");
  SY_EXPECT_ERROR(Infer("gemm", {F32({4, 3}), F32({3, 5}), F32({5}), F32({5})}),
                  "takes 2 to 3 inputs but has 4");
  SY_EXPECT_ERROR(Infer("gemm", {F32({4, 3}), F32({3, 5})}, {}, 2),
                  "produces 1 output but the node lists 2");
}

}  // namespace
}  // namespace sy
