// Shape rules and checks of the normalization ops (core/src/ops/normalization_schemas.cpp).
// Expected shapes are derived by hand from the ONNX operator definitions.
#include <gtest/gtest.h>

#include <limits>
#include <optional>

#include "test_util.h"

namespace sy {
namespace {

using test::F32;
using test::Infer;
using test::MakeAttrs;
using test::T;

std::optional<AttrValue> DefaultOf(std::string_view op, std::string_view attr) {
  const OpSchema* schema = OpRegistry::Global().Find(op);
  if (schema == nullptr || schema->FindAttr(attr) == nullptr) {
    ADD_FAILURE() << op << " has no attribute " << attr;
    return std::nullopt;
  }
  return schema->FindAttr(attr)->default_value;
}

TEST(NormalizationSchemas, RegisteredWithOnnxNamesAndDefaults) {
  const std::pair<const char*, const char*> names[] = {{"softmax", "Softmax"},
                                                       {"log_softmax", "LogSoftmax"},
                                                       {"layer_norm", "LayerNormalization"},
                                                       {"rms_norm", "RMSNormalization"},
                                                       {"batch_norm", "BatchNormalization"},
                                                       {"group_norm", "GroupNormalization"},
                                                       {"instance_norm", "InstanceNormalization"}};
  for (const auto& [name, onnx] : names) {
    const OpSchema* schema = OpRegistry::Global().Find(name);
    ASSERT_NE(schema, nullptr) << name;
    EXPECT_EQ(schema->onnx_name, onnx);
    EXPECT_EQ(schema->min_outputs, 1);
    EXPECT_EQ(schema->max_outputs, 1);
  }
  EXPECT_EQ(DefaultOf("softmax", "axis"), AttrValue(int64_t{-1}));
  EXPECT_EQ(DefaultOf("log_softmax", "axis"), AttrValue(int64_t{-1}));
  for (const char* op : {"layer_norm", "rms_norm"}) {
    EXPECT_EQ(DefaultOf(op, "axis"), AttrValue(int64_t{-1}));
    EXPECT_EQ(DefaultOf(op, "epsilon"), AttrValue(1e-5));
  }
  for (const char* op : {"batch_norm", "group_norm", "instance_norm"}) {
    EXPECT_EQ(DefaultOf(op, "epsilon"), AttrValue(1e-5));
  }
  EXPECT_EQ(DefaultOf("group_norm", "num_groups"), std::nullopt);
  EXPECT_TRUE(OpRegistry::Global().Find("group_norm")->FindAttr("num_groups")->required);
}

TEST(NormalizationSchemas, SoftmaxKeepsTheInputType) {
  EXPECT_OUTPUT(Infer("softmax", {F32({2, 3})}), F32({2, 3}));
  EXPECT_OUTPUT(Infer("softmax", {T(DType::kF16, {2, 3, 4})}, MakeAttrs({{"axis", int64_t{0}}})),
                T(DType::kF16, {2, 3, 4}));
  EXPECT_OUTPUT(
      Infer("log_softmax", {T(DType::kBF16, {2, 3, 4})}, MakeAttrs({{"axis", int64_t{-3}}})),
      T(DType::kBF16, {2, 3, 4}));
  EXPECT_OUTPUT(Infer("log_softmax", {T(DType::kF64, {5})}), T(DType::kF64, {5}));
  EXPECT_OUTPUT(Infer("softmax", {F32({0, 4})}, MakeAttrs({{"axis", int64_t{1}}})), F32({0, 4}));
}

TEST(NormalizationSchemas, SoftmaxErrors) {
  SY_EXPECT_ERROR(Infer("softmax", {F32({2, 3})}, MakeAttrs({{"axis", int64_t{2}}})),
                  "attribute axis 2 is out of range for rank 2 (expected -2 to 1)");
  SY_EXPECT_ERROR(Infer("log_softmax", {F32({2, 3})}, MakeAttrs({{"axis", int64_t{-3}}})),
                  "attribute axis -3 is out of range for rank 2");
  SY_EXPECT_ERROR(Infer("softmax", {F32({})}), "attribute axis -1 is out of range for rank 0");
  SY_EXPECT_ERROR(Infer("softmax", {T(DType::kI32, {2, 3})}), "input 0 (x) has dtype i32");
  SY_EXPECT_ERROR(Infer("softmax", {F32({2}), F32({2})}), "takes 1 input but has 2");
  SY_EXPECT_ERROR(Infer("softmax", {F32({2})}, MakeAttrs({{"axis", std::string("last")}})),
                  "attribute axis is \"last\" (string) but must be int");
  SY_EXPECT_ERROR(Infer("softmax", {F32({2})}, MakeAttrs({{"axes", int64_t{0}}})),
                  "unknown attribute axes");
}

TEST(NormalizationSchemas, LayerNormScaleAndBiasBroadcastToTheNormalizedDims) {
  EXPECT_OUTPUT(Infer("layer_norm", {F32({2, 3, 4}), F32({4}), F32({4})}), F32({2, 3, 4}));
  EXPECT_OUTPUT(Infer("layer_norm", {F32({2, 3, 4}), F32({4})}), F32({2, 3, 4}));  // no bias
  // axis 1: normalized dims [3, 4]; [3, 4], [1, 4], [4] and [] all broadcast to them.
  const Attrs axis1 = MakeAttrs({{"axis", int64_t{1}}});
  EXPECT_OUTPUT(Infer("layer_norm", {F32({2, 3, 4}), F32({3, 4}), F32({3, 4})}, axis1),
                F32({2, 3, 4}));
  EXPECT_OUTPUT(Infer("layer_norm", {F32({2, 3, 4}), F32({1, 4}), F32({4})}, axis1),
                F32({2, 3, 4}));
  EXPECT_OUTPUT(Infer("layer_norm", {F32({2, 3, 4}), F32({})}, axis1), F32({2, 3, 4}));
  // Negative axis counts from the end: -2 is 1 here.
  EXPECT_OUTPUT(
      Infer("layer_norm", {F32({2, 3, 4}), F32({3, 4})}, MakeAttrs({{"axis", int64_t{-2}}})),
      F32({2, 3, 4}));
  // axis 0 normalizes everything.
  EXPECT_OUTPUT(Infer("layer_norm", {T(DType::kF16, {2, 3}), T(DType::kF16, {2, 3})},
                      MakeAttrs({{"axis", int64_t{0}}, {"epsilon", 1e-6}})),
                T(DType::kF16, {2, 3}));
}

TEST(NormalizationSchemas, LayerNormErrors) {
  SY_EXPECT_ERROR(Infer("layer_norm", {F32({2, 3, 4}), F32({3})}),
                  "input scale has shape [3] which does not broadcast to the normalized dims [4] "
                  "of input x [2, 3, 4] (axis -1)");
  SY_EXPECT_ERROR(
      Infer("layer_norm", {F32({2, 3, 4}), F32({3}), F32({3})}, MakeAttrs({{"axis", int64_t{1}}})),
      "input scale has shape [3] which does not broadcast to the normalized dims "
      "[3, 4]");
  SY_EXPECT_ERROR(Infer("layer_norm", {F32({2, 3, 4}), F32({4}), F32({2, 4})}),
                  "input bias has shape [2, 4] which does not broadcast");
  // A parameter with more dims than the normalized ones does not broadcast to them.
  SY_EXPECT_ERROR(Infer("layer_norm", {F32({2, 3, 4}), F32({1, 4})}),
                  "input scale has shape [1, 4]");
  SY_EXPECT_ERROR(
      Infer("layer_norm", {F32({2, 3, 4}), F32({4})}, MakeAttrs({{"axis", int64_t{3}}})),
      "attribute axis 3 is out of range for rank 3");
  SY_EXPECT_ERROR(Infer("layer_norm", {F32({2, 3, 4}), F32({4})}, MakeAttrs({{"epsilon", -1.0}})),
                  "attribute epsilon is -1 but must be finite and >= 0");
  SY_EXPECT_ERROR(Infer("layer_norm", {F32({2, 3, 4}), T(DType::kF16, {4})}),
                  "input 1 (scale) has dtype f16 but must match input 0 (f32)");
  SY_EXPECT_ERROR(Infer("layer_norm", {F32({2, 3, 4})}), "takes 2 to 3 inputs but has 1");
  SY_EXPECT_ERROR(Infer("layer_norm", {T(DType::kI64, {4}), T(DType::kI64, {4})}),
                  "input 0 (x) has dtype i64");
}

TEST(NormalizationSchemas, RmsNorm) {
  EXPECT_OUTPUT(Infer("rms_norm", {F32({2, 5, 8}), F32({8})}), F32({2, 5, 8}));
  EXPECT_OUTPUT(
      Infer("rms_norm", {F32({2, 5, 8}), F32({5, 8})}, MakeAttrs({{"axis", int64_t{-2}}})),
      F32({2, 5, 8}));
  EXPECT_OUTPUT(Infer("rms_norm", {T(DType::kBF16, {2, 5, 8}), T(DType::kBF16, {2, 5, 8})},
                      MakeAttrs({{"axis", int64_t{0}}})),
                T(DType::kBF16, {2, 5, 8}));
  SY_EXPECT_ERROR(Infer("rms_norm", {F32({2, 5, 8}), F32({5})}),
                  "input scale has shape [5] which does not broadcast to the normalized dims [8]");
  SY_EXPECT_ERROR(Infer("rms_norm", {F32({2, 5, 8}), F32({8}), F32({8})}),
                  "takes 2 inputs but has 3");
  SY_EXPECT_ERROR(Infer("rms_norm", {F32({2, 5, 8}), F32({8})}, MakeAttrs({{"axis", int64_t{-4}}})),
                  "attribute axis -4 is out of range for rank 3");
  SY_EXPECT_ERROR(Infer("rms_norm", {F32({2, 5, 8}), F32({8})},
                        MakeAttrs({{"epsilon", std::numeric_limits<double>::quiet_NaN()}})),
                  "attribute epsilon is");
}

TEST(NormalizationSchemas, BatchNormTakesPerChannelParameters) {
  const Shape c3 = {3};
  EXPECT_OUTPUT(Infer("batch_norm", {F32({2, 3, 4, 4}), F32(c3), F32(c3), F32(c3), F32(c3)}),
                F32({2, 3, 4, 4}));
  EXPECT_OUTPUT(Infer("batch_norm", {F32({8, 3}), F32(c3), F32(c3), F32(c3), F32(c3)},
                      MakeAttrs({{"epsilon", 0.001}})),
                F32({8, 3}));
  const TensorType h = T(DType::kF16, c3);
  EXPECT_OUTPUT(Infer("batch_norm", {T(DType::kF16, {1, 3, 2, 2, 2}), h, h, h, h}),
                T(DType::kF16, {1, 3, 2, 2, 2}));
}

TEST(NormalizationSchemas, BatchNormErrors) {
  const Shape c3 = {3};
  SY_EXPECT_ERROR(Infer("batch_norm", {F32({3}), F32(c3), F32(c3), F32(c3), F32(c3)}),
                  "input x has shape [3] but must have rank at least 2");
  SY_EXPECT_ERROR(Infer("batch_norm", {F32({2, 3, 4}), F32({4}), F32(c3), F32(c3), F32(c3)}),
                  "input scale has shape [4] but must be [3] (one entry per channel: dimension "
                  "1 of input x [2, 3, 4])");
  SY_EXPECT_ERROR(Infer("batch_norm", {F32({2, 3, 4}), F32(c3), F32({1}), F32(c3), F32(c3)}),
                  "input bias has shape [1] but must be [3]");
  SY_EXPECT_ERROR(Infer("batch_norm", {F32({2, 3, 4}), F32(c3), F32(c3), F32({4}), F32(c3)}),
                  "input mean has shape [4] but must be [3]");
  SY_EXPECT_ERROR(Infer("batch_norm", {F32({2, 3, 4}), F32(c3), F32(c3), F32(c3), F32({3, 1})}),
                  "input var has shape [3, 1] but must be [3]");
  SY_EXPECT_ERROR(Infer("batch_norm", {F32({2, 3, 4}), F32(c3), F32(c3), F32(c3), F32(c3)},
                        MakeAttrs({{"epsilon", -0.5}})),
                  "attribute epsilon is -0.5 but must be finite and >= 0");
  SY_EXPECT_ERROR(Infer("batch_norm", {F32({2, 3, 4}), F32(c3), F32(c3), F32(c3)}),
                  "takes 5 inputs but has 4");
  SY_EXPECT_ERROR(
      Infer("batch_norm", {F32({2, 3, 4}), F32(c3), F32(c3), T(DType::kF64, c3), F32(c3)}),
      "input 3 (mean) has dtype f64 but must match input 0 (f32)");
  SY_EXPECT_ERROR(Infer("batch_norm", {F32({2, 3, 4}), F32(c3), F32(c3), F32(c3), F32(c3)},
                        MakeAttrs({{"momentum", 0.9}})),
                  "unknown attribute momentum");
}

TEST(NormalizationSchemas, GroupNorm) {
  const Attrs g3 = MakeAttrs({{"num_groups", int64_t{3}}});
  EXPECT_OUTPUT(Infer("group_norm", {F32({2, 6, 4, 4}), F32({6}), F32({6})}, g3),
                F32({2, 6, 4, 4}));
  EXPECT_OUTPUT(Infer("group_norm", {F32({2, 6}), F32({6}), F32({6})},
                      MakeAttrs({{"num_groups", int64_t{6}}, {"epsilon", 1e-3}})),
                F32({2, 6}));
  EXPECT_OUTPUT(Infer("group_norm", {F32({1, 6, 5}), F32({6}), F32({6})},
                      MakeAttrs({{"num_groups", int64_t{1}}})),
                F32({1, 6, 5}));
  SY_EXPECT_ERROR(Infer("group_norm", {F32({2, 6, 4}), F32({6}), F32({6})}),
                  "missing required attribute num_groups (int)");
  SY_EXPECT_ERROR(Infer("group_norm", {F32({2, 6, 4}), F32({6}), F32({6})},
                        MakeAttrs({{"num_groups", int64_t{4}}})),
                  "attribute num_groups is 4 but must divide the channels of input x [2, 6, 4] "
                  "(dimension 1, 6)");
  SY_EXPECT_ERROR(Infer("group_norm", {F32({2, 6, 4}), F32({6}), F32({6})},
                        MakeAttrs({{"num_groups", int64_t{0}}})),
                  "attribute num_groups is 0 but must be >= 1");
  // Opset 18's per-group scale is not accepted: opset 21 takes one entry per channel.
  SY_EXPECT_ERROR(Infer("group_norm", {F32({2, 6, 4}), F32({3}), F32({3})}, g3),
                  "input scale has shape [3] but must be [6]");
  SY_EXPECT_ERROR(Infer("group_norm", {F32({2, 6, 4}), F32({6}), F32({6, 1})}, g3),
                  "input bias has shape [6, 1] but must be [6]");
  SY_EXPECT_ERROR(Infer("group_norm", {F32({6}), F32({6}), F32({6})}, g3),
                  "input x has shape [6] but must have rank at least 2");
  SY_EXPECT_ERROR(Infer("group_norm", {F32({2, 6, 4}), F32({6}), F32({6})},
                        MakeAttrs({{"num_groups", int64_t{3}}, {"epsilon", -1.0}})),
                  "attribute epsilon");
  SY_EXPECT_ERROR(Infer("group_norm", {F32({2, 6, 4}), F32({6})}, g3), "takes 3 inputs but has 2");
}

TEST(NormalizationSchemas, InstanceNorm) {
  EXPECT_OUTPUT(Infer("instance_norm", {F32({2, 3, 5}), F32({3}), F32({3})}), F32({2, 3, 5}));
  EXPECT_OUTPUT(Infer("instance_norm",
                      {T(DType::kF16, {1, 2, 4, 4, 4}), T(DType::kF16, {2}), T(DType::kF16, {2})}),
                T(DType::kF16, {1, 2, 4, 4, 4}));
  SY_EXPECT_ERROR(Infer("instance_norm", {F32({2, 3}), F32({3}), F32({3})}),
                  "input x has shape [2, 3] but must have rank at least 3");
  SY_EXPECT_ERROR(Infer("instance_norm", {F32({2, 3, 5}), F32({3}), F32({2})}),
                  "input bias has shape [2] but must be [3]");
  SY_EXPECT_ERROR(Infer("instance_norm", {F32({2, 3, 5}), F32({5}), F32({3})}),
                  "input scale has shape [5] but must be [3]");
  SY_EXPECT_ERROR(Infer("instance_norm", {F32({2, 3, 5}), F32({3}), F32({3})},
                        MakeAttrs({{"epsilon", std::numeric_limits<double>::infinity()}})),
                  "attribute epsilon");
  SY_EXPECT_ERROR(
      Infer("instance_norm", {T(DType::kU8, {2, 3, 5}), T(DType::kU8, {3}), T(DType::kU8, {3})}),
      "input 0 (x) has dtype u8");
}

}  // namespace
}  // namespace sy
