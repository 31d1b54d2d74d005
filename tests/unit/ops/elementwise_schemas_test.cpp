// Shape and dtype rules of the elementwise family, derived by hand from the ONNX
// operator definitions (NumPy broadcasting, bool comparison results, Cast's `to`).
#include <gtest/gtest.h>

#include "test_util.h"

namespace sy {
namespace {

using test::F32;
using test::Infer;
using test::MakeAttrs;
using test::T;

std::vector<TensorType> Ok(Expected<std::vector<TensorType>> result) {
  EXPECT_TRUE(result.ok()) << result.status().ToString();
  return result.ok() ? *result : std::vector<TensorType>{};
}

TEST(ElementwiseSchemas, UnaryKeepsTypeForEveryAllowedDType) {
  for (const char* op :
       {"exp",        "log",   "sqrt",         "reciprocal", "sin",      "cos",  "tan",
        "asin",       "acos",  "atan",         "erf",        "rsqrt",    "tanh", "asinh",
        "acosh",      "atanh", "sigmoid",      "relu",       "softplus", "silu", "gelu",
        "leaky_relu", "elu",   "hard_sigmoid", "hard_swish", "softsign", "mish", "selu",
        "floor",      "ceil",  "round"}) {
    for (DType d : {DType::kF32, DType::kF16, DType::kBF16, DType::kF64}) {
      EXPECT_EQ(Ok(Infer(op, {T(d, {2, 0, 3})})), (std::vector{T(d, {2, 0, 3})})) << op;
    }
    SY_EXPECT_ERROR(Infer(op, {T(DType::kI64, {2})}), "accepts f32 f16 bf16 f64");
  }
  for (const char* op : {"neg", "abs", "sign", "clip"}) {
    EXPECT_EQ(Ok(Infer(op, {T(DType::kI8, {})})), (std::vector{T(DType::kI8, {})})) << op;
    SY_EXPECT_ERROR(Infer(op, {T(DType::kBool, {1})}), "accepts");
  }
  EXPECT_EQ(Ok(Infer("not", {T(DType::kBool, {4})})), (std::vector{T(DType::kBool, {4})}));
  SY_EXPECT_ERROR(Infer("not", {F32({4})}), "not accepts bool");
}

TEST(ElementwiseSchemas, BinaryBroadcasts) {
  EXPECT_EQ(Ok(Infer("add", {F32({2, 1, 4}), F32({3, 1})})), (std::vector{F32({2, 3, 4})}));
  EXPECT_EQ(Ok(Infer("mul", {F32({}), F32({5})})), (std::vector{F32({5})}));
  EXPECT_EQ(Ok(Infer("sub", {F32({0, 3}), F32({1, 3})})), (std::vector{F32({0, 3})}));
  EXPECT_EQ(Ok(Infer("div", {T(DType::kI32, {2}), T(DType::kI32, {2})})),
            (std::vector{T(DType::kI32, {2})}));
  EXPECT_EQ(Ok(Infer("pow", {F32({2, 3}), F32({})})), (std::vector{F32({2, 3})}));
  EXPECT_EQ(Ok(Infer("max", {F32({3}), F32({2, 1})})), (std::vector{F32({2, 3})}));
  EXPECT_EQ(Ok(Infer("mod", {T(DType::kI64, {3}), T(DType::kI64, {3})})),
            (std::vector{T(DType::kI64, {3})}));
  SY_EXPECT_ERROR(Infer("add", {F32({2, 3}), F32({4})}), "do not broadcast");
  SY_EXPECT_ERROR(Infer("pow", {T(DType::kI32, {2}), T(DType::kI32, {2})}), "accepts");
}

TEST(ElementwiseSchemas, ComparisonsProduceBool) {
  for (const char* op : {"equal", "less", "less_equal", "greater", "greater_equal"}) {
    EXPECT_EQ(Ok(Infer(op, {F32({2, 3}), F32({3})})), (std::vector{T(DType::kBool, {2, 3})}));
    EXPECT_EQ(Ok(Infer(op, {T(DType::kBool, {1}), T(DType::kBool, {4})})),
              (std::vector{T(DType::kBool, {4})}));
  }
  for (const char* op : {"and", "or", "xor"}) {
    EXPECT_EQ(Ok(Infer(op, {T(DType::kBool, {2, 1}), T(DType::kBool, {3})})),
              (std::vector{T(DType::kBool, {2, 3})}));
    SY_EXPECT_ERROR(Infer(op, {T(DType::kU8, {1}), T(DType::kU8, {1})}), "accepts bool");
  }
}

TEST(ElementwiseSchemas, Where) {
  EXPECT_EQ(Ok(Infer("where", {T(DType::kBool, {2, 1}), F32({3}), F32({1, 3})})),
            (std::vector{F32({2, 3})}));
  EXPECT_EQ(Ok(Infer("where", {T(DType::kBool, {}), T(DType::kI64, {2}), T(DType::kI64, {2})})),
            (std::vector{T(DType::kI64, {2})}));
  SY_EXPECT_ERROR(Infer("where", {T(DType::kBool, {2}), F32({3}), F32({3})}), "do not broadcast");
  SY_EXPECT_ERROR(Infer("where", {T(DType::kBool, {2}), F32({2}), T(DType::kF64, {2})}),
                  "must match input 1");
}

TEST(ElementwiseSchemas, Prelu) {
  EXPECT_EQ(Ok(Infer("prelu", {F32({2, 3, 4}), F32({3, 1})})), (std::vector{F32({2, 3, 4})}));
  EXPECT_EQ(Ok(Infer("prelu", {F32({2, 3}), F32({})})), (std::vector{F32({2, 3})}));
  // The slope broadcasts to x only one way: it may not grow x.
  SY_EXPECT_ERROR(Infer("prelu", {F32({3}), F32({2, 3})}),
                  "input slope has shape [2, 3] which does not broadcast to input x's shape [3]");
}

TEST(ElementwiseSchemas, ClipAndCast) {
  EXPECT_EQ(Ok(Infer("clip", {F32({2})}, MakeAttrs({{"min", -1.0}, {"max", int64_t{1}}}))),
            (std::vector{F32({2})}));
  SY_EXPECT_ERROR(Infer("clip", {F32({2})}, MakeAttrs({{"min", 2.0}, {"max", 1.0}})),
                  "attribute min (2) is greater than max (1)");
  EXPECT_EQ(Ok(Infer("cast", {F32({2, 2})}, MakeAttrs({{"to", std::string("bf16")}}))),
            (std::vector{T(DType::kBF16, {2, 2})}));
  EXPECT_EQ(Ok(Infer("cast", {T(DType::kBool, {})}, MakeAttrs({{"to", std::string("i64")}}))),
            (std::vector{T(DType::kI64, {})}));
  SY_EXPECT_ERROR(Infer("cast", {F32({2})}, MakeAttrs({{"to", std::string("float")}})),
                  "attribute to is \"float\" but must be one of");
}

TEST(ElementwiseSchemas, Defaults) {
  const OpSchema* selu = OpRegistry::Global().Find("selu");
  std::vector<TensorType> in = {F32({1})};
  Attrs attrs;
  SY_ASSERT_OK(InferOutputTypes(*selu, in, attrs, 1));
  EXPECT_NEAR(attrs.GetFloat("alpha"), 1.6732632423543772, 1e-7);
  EXPECT_NEAR(attrs.GetFloat("gamma"), 1.0507009873554805, 1e-7);
  const OpSchema* gelu = OpRegistry::Global().Find("gelu");
  Attrs gelu_attrs;
  SY_ASSERT_OK(InferOutputTypes(*gelu, in, gelu_attrs, 1));
  EXPECT_EQ(gelu_attrs.GetString("approximate"), "none");
}

}  // namespace
}  // namespace sy

namespace sy {
namespace {

TEST(ElementwiseSchemas, ModFlag) {
  SY_EXPECT_ERROR(
      test::Infer("mod", {test::F32({2}), test::F32({2})}, test::MakeAttrs({{"fmod", int64_t{2}}})),
      "attribute fmod is 2, expected 0 or 1");
}

}  // namespace
}  // namespace sy
