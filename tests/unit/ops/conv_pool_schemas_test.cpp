// Shape rules and checks of conv, conv_transpose and the pools
// (core/src/ops/conv_pool_schemas.cpp). Expected shapes are derived by hand from the ONNX
// formulas; several match the shapes of the ONNX backend node tests named in comments.
#include <gtest/gtest.h>

#include "test_util.h"

namespace sy {
namespace {

using test::F32;
using test::Infer;
using test::MakeAttrs;
using test::T;

using Ints = std::vector<int64_t>;

TEST(ConvPoolSchemas, RegisteredWithOnnxNamesAndAttributes) {
  const std::pair<const char*, const char*> names[] = {{"conv", "Conv"},
                                                       {"conv_transpose", "ConvTranspose"},
                                                       {"max_pool", "MaxPool"},
                                                       {"avg_pool", "AveragePool"},
                                                       {"global_avg_pool", "GlobalAveragePool"}};
  for (const auto& [name, onnx] : names) {
    const OpSchema* schema = OpRegistry::Global().Find(name);
    ASSERT_NE(schema, nullptr) << name;
    EXPECT_EQ(schema->onnx_name, onnx);
    EXPECT_EQ(schema->FindAttr("auto_pad"), nullptr) << name;
  }
  const OpSchema* conv = OpRegistry::Global().Find("conv");
  EXPECT_EQ(conv->FindAttr("group")->default_value, AttrValue(int64_t{1}));
  EXPECT_EQ(conv->min_inputs(), 2);
  EXPECT_EQ(conv->max_inputs(), 3);
  const OpSchema* max_pool = OpRegistry::Global().Find("max_pool");
  EXPECT_TRUE(max_pool->FindAttr("kernel_shape")->required);
  EXPECT_NE(max_pool->FindAttr("dilations"), nullptr);
  EXPECT_EQ(max_pool->FindAttr("count_include_pad"), nullptr);
  const OpSchema* avg_pool = OpRegistry::Global().Find("avg_pool");
  EXPECT_NE(avg_pool->FindAttr("dilations"), nullptr);
  EXPECT_EQ(avg_pool->FindAttr("count_include_pad")->default_value, AttrValue(int64_t{0}));
  EXPECT_EQ(avg_pool->FindAttr("ceil_mode")->default_value, AttrValue(int64_t{0}));
}

TEST(ConvPoolSchemas, Conv2dDefaults) {
  // 32 - 3 + 1 = 30
  EXPECT_OUTPUT(Infer("conv", {F32({1, 3, 32, 32}), F32({8, 3, 3, 3})}), F32({1, 8, 30, 30}));
  EXPECT_OUTPUT(Infer("conv", {F32({4, 3, 32, 32}), F32({8, 3, 3, 3}), F32({8})}),
                F32({4, 8, 30, 30}));
  EXPECT_OUTPUT(Infer("conv", {T(DType::kF16, {0, 3, 5, 5}), T(DType::kF16, {8, 3, 3, 3})}),
                T(DType::kF16, {0, 8, 3, 3}));
  // test_basic_conv_with_padding: [1, 1, 5, 5] * [1, 1, 3, 3], pads 1 -> [1, 1, 5, 5]
  EXPECT_OUTPUT(Infer("conv", {F32({1, 1, 5, 5}), F32({1, 1, 3, 3})},
                      MakeAttrs({{"pads", Ints{1, 1, 1, 1}}})),
                F32({1, 1, 5, 5}));
}

TEST(ConvPoolSchemas, Conv1dAnd3d) {
  // floor((10 + 1 + 1 - 3) / 2) + 1 = 5
  EXPECT_OUTPUT(Infer("conv", {F32({2, 4, 10}), F32({6, 4, 3})},
                      MakeAttrs({{"strides", Ints{2}}, {"pads", Ints{1, 1}}})),
                F32({2, 6, 5}));
  EXPECT_OUTPUT(Infer("conv", {F32({1, 2, 8, 8, 8}), F32({4, 2, 3, 3, 3})},
                      MakeAttrs({{"pads", Ints{1, 1, 1, 1, 1, 1}}})),
                F32({1, 4, 8, 8, 8}));
  // floor((8 + 2 - 3) / 2) + 1 = 4
  EXPECT_OUTPUT(Infer("conv", {F32({1, 2, 8, 8, 8}), F32({4, 2, 3, 3, 3})},
                      MakeAttrs({{"pads", Ints{1, 1, 1, 1, 1, 1}}, {"strides", Ints{2, 2, 2}}})),
                F32({1, 4, 4, 4, 4}));
  // Per-dim kernels: 6 - 1 + 1, 7 - 2 + 1, 8 - 3 + 1
  EXPECT_OUTPUT(Infer("conv", {F32({1, 1, 6, 7, 8}), F32({2, 1, 1, 2, 3})}), F32({1, 2, 6, 6, 6}));
}

TEST(ConvPoolSchemas, ConvStridesPadsDilations) {
  // H: floor((7 - 3) / 2) + 1 = 3; W: floor((8 - 3) / 3) + 1 = 2
  EXPECT_OUTPUT(
      Infer("conv", {F32({1, 1, 7, 8}), F32({1, 1, 3, 3})}, MakeAttrs({{"strides", Ints{2, 3}}})),
      F32({1, 1, 3, 2}));
  // pads are [h_begin, w_begin, h_end, w_end]: H 5 + 0 + 2 - 3 + 1 = 5, W 5 + 1 + 3 - 3 + 1 = 7
  EXPECT_OUTPUT(Infer("conv", {F32({1, 1, 5, 5}), F32({1, 1, 3, 3})},
                      MakeAttrs({{"pads", Ints{0, 1, 2, 3}}})),
                F32({1, 1, 5, 7}));
  // Dilation 2 makes a 3-tap kernel span 5: 10 - 5 + 1 = 6
  EXPECT_OUTPUT(Infer("conv", {F32({1, 1, 10, 10}), F32({1, 1, 3, 3})},
                      MakeAttrs({{"dilations", Ints{2, 2}}})),
                F32({1, 1, 6, 6}));
  // test_conv_with_strides_and_asymmetric_padding: [1, 1, 7, 5], k 3, strides 2,
  // pads [1, 0, 1, 0] -> H floor((7 + 2 - 3) / 2) + 1 = 4, W floor((5 - 3) / 2) + 1 = 2
  EXPECT_OUTPUT(Infer("conv", {F32({1, 1, 7, 5}), F32({1, 1, 3, 3})},
                      MakeAttrs({{"strides", Ints{2, 2}}, {"pads", Ints{1, 0, 1, 0}}})),
                F32({1, 1, 4, 2}));
  // All three: H floor((9 + 1 + 0 - 5) / 2) + 1 = 3, W floor((9 + 0 + 2 - 3) / 1) + 1 = 9
  EXPECT_OUTPUT(
      Infer("conv", {F32({1, 1, 9, 9}), F32({1, 1, 3, 3})},
            MakeAttrs(
                {{"strides", Ints{2, 1}}, {"dilations", Ints{2, 1}}, {"pads", Ints{1, 0, 0, 2}}})),
      F32({1, 1, 3, 9}));
  // An empty spatial dim stays empty with a 1-tap kernel.
  EXPECT_OUTPUT(Infer("conv", {F32({1, 1, 0, 4}), F32({1, 1, 1, 1})}), F32({1, 1, 0, 4}));
}

TEST(ConvPoolSchemas, ConvGroups) {
  EXPECT_OUTPUT(
      Infer("conv", {F32({1, 4, 6, 6}), F32({8, 2, 3, 3})}, MakeAttrs({{"group", int64_t{2}}})),
      F32({1, 8, 4, 4}));
  // Depthwise
  EXPECT_OUTPUT(Infer("conv", {F32({1, 4, 6, 6}), F32({4, 1, 3, 3}), F32({4})},
                      MakeAttrs({{"group", int64_t{4}}})),
                F32({1, 4, 4, 4}));
  EXPECT_OUTPUT(
      Infer("conv", {F32({1, 4, 6}), F32({12, 1, 3})}, MakeAttrs({{"group", int64_t{4}}})),
      F32({1, 12, 4}));
}

TEST(ConvPoolSchemas, ConvOperandErrors) {
  SY_EXPECT_ERROR(Infer("conv", {F32({1, 3, 5, 5}), F32({8, 4, 3, 3})}),
                  "input w has shape [8, 4, 3, 3] but its dimension 1 (4) must equal input x's "
                  "channels (3) / group (1)");
  SY_EXPECT_ERROR(
      Infer("conv", {F32({1, 4, 5, 5}), F32({8, 4, 3, 3})}, MakeAttrs({{"group", int64_t{2}}})),
      "input w has shape [8, 4, 3, 3] but its dimension 1 (4) must equal input x's "
      "channels (4) / group (2)");
  SY_EXPECT_ERROR(
      Infer("conv", {F32({1, 4, 5, 5}), F32({8, 1, 3, 3})}, MakeAttrs({{"group", int64_t{3}}})),
      "attribute group is 3 but must divide input x's channels (4)");
  SY_EXPECT_ERROR(
      Infer("conv", {F32({1, 4, 5, 5}), F32({7, 2, 3, 3})}, MakeAttrs({{"group", int64_t{2}}})),
      "input w has shape [7, 2, 3, 3] but its dimension 0 (7, the output channels) "
      "must be divisible by group (2)");
  SY_EXPECT_ERROR(
      Infer("conv", {F32({1, 4, 5, 5}), F32({8, 4, 3, 3})}, MakeAttrs({{"group", int64_t{0}}})),
      "attribute group is 0 but must be >= 1");
  SY_EXPECT_ERROR(Infer("conv", {F32({1, 3}), F32({8, 3})}),
                  "input x has shape [1, 3] but must have rank 3, 4 or 5");
  SY_EXPECT_ERROR(Infer("conv", {F32({1, 1, 2, 2, 2, 2}), F32({1, 1, 1, 1, 1, 1})}),
                  "input x has shape [1, 1, 2, 2, 2, 2] but must have rank 3, 4 or 5");
  SY_EXPECT_ERROR(Infer("conv", {F32({1, 3, 5, 5}), F32({8, 3, 3})}),
                  "input w has shape [8, 3, 3] but must have rank 4 like input x [1, 3, 5, 5]");
  SY_EXPECT_ERROR(Infer("conv", {F32({1, 3, 5, 5}), F32({8, 3, 0, 3})}),
                  "input w has shape [8, 3, 0, 3] but its kernel dimension 2 must be at least 1");
  SY_EXPECT_ERROR(Infer("conv", {F32({1, 3, 5, 5}), F32({8, 3, 3, 3}), F32({3})}),
                  "input bias has shape [3] but must be [8] (one entry per output channel)");
  SY_EXPECT_ERROR(Infer("conv", {F32({1, 3, 5, 5}), F32({8, 3, 3, 3}), F32({8, 1})}),
                  "input bias has shape [8, 1] but must be [8]");
  SY_EXPECT_ERROR(Infer("conv", {F32({1, 3, 5, 5}), T(DType::kF16, {8, 3, 3, 3})}),
                  "input 1 (w) has dtype f16 but must match input 0 (f32)");
  SY_EXPECT_ERROR(Infer("conv", {T(DType::kI32, {1, 3, 5, 5}), T(DType::kI32, {8, 3, 3, 3})}),
                  "input 0 (x) has dtype i32");
  SY_EXPECT_ERROR(Infer("conv", {F32({1, 3, 5, 5})}), "takes 2 to 3 inputs but has 1");
}

TEST(ConvPoolSchemas, ConvAttributeErrors) {
  const TensorType x = F32({1, 3, 5, 5});
  const TensorType w = F32({8, 3, 3, 3});
  SY_EXPECT_ERROR(Infer("conv", {x, w}, MakeAttrs({{"strides", Ints{1}}})),
                  "attribute strides has 1 entries but must have 2 (one per spatial dimension "
                  "of input x)");
  SY_EXPECT_ERROR(Infer("conv", {x, w}, MakeAttrs({{"strides", Ints{1, 0}}})),
                  "attribute strides has 0 at index 1 but every entry must be >= 1");
  SY_EXPECT_ERROR(Infer("conv", {x, w}, MakeAttrs({{"pads", Ints{1, 1}}})),
                  "attribute pads has 2 entries but must have 4 (a begin and an end for each "
                  "spatial dimension of input x)");
  SY_EXPECT_ERROR(Infer("conv", {x, w}, MakeAttrs({{"pads", Ints{-1, 0, 0, 0}}})),
                  "attribute pads has -1 at index 0 but every entry must be >= 0");
  SY_EXPECT_ERROR(Infer("conv", {x, w}, MakeAttrs({{"dilations", Ints{1, 1, 1}}})),
                  "attribute dilations has 3 entries but must have 2");
  SY_EXPECT_ERROR(Infer("conv", {x, w}, MakeAttrs({{"dilations", Ints{-2, 1}}})),
                  "attribute dilations has -2 at index 0 but every entry must be >= 1");
  SY_EXPECT_ERROR(Infer("conv", {x, w}, MakeAttrs({{"auto_pad", std::string("SAME_UPPER")}})),
                  "unknown attribute auto_pad");
  SY_EXPECT_ERROR(Infer("conv", {x, w}, MakeAttrs({{"kernel_shape", Ints{3, 3}}})),
                  "unknown attribute kernel_shape");
  SY_EXPECT_ERROR(Infer("conv", {x, w}, MakeAttrs({{"group", 1.5}})),
                  "attribute group is 1.5 (float) but must be int");
}

TEST(ConvPoolSchemas, ConvKernelLargerThanInput) {
  // floor((2 - 3) / 1) + 1 = 0
  SY_EXPECT_ERROR(Infer("conv", {F32({1, 1, 2, 4}), F32({1, 1, 3, 3})}),
                  "output spatial dimension 0 would be 0: input x's spatial size 2 with pads 0 + "
                  "0 is smaller than the input w's kernel size 3 dilated to 3");
  // W: floor((4 - 9) / 1) + 1 = -4
  SY_EXPECT_ERROR(
      Infer("conv", {F32({1, 1, 4, 4}), F32({1, 1, 1, 3})}, MakeAttrs({{"dilations", Ints{1, 4}}})),
      "output spatial dimension 1 would be -4");
  // Padding makes it fit: 2 + 1 + 0 - 3 + 1 = 1
  EXPECT_OUTPUT(Infer("conv", {F32({1, 1, 2}), F32({1, 1, 3})}, MakeAttrs({{"pads", Ints{1, 0}}})),
                F32({1, 1, 1}));
  SY_EXPECT_ERROR(Infer("conv", {F32({1, 1, 4}), F32({1, 1, 3})},
                        MakeAttrs({{"pads", Ints{int64_t{1} << 62, int64_t{1} << 62}}})),
                  "overflows");
}

TEST(ConvPoolSchemas, ConvTranspose) {
  // test_convtranspose: 1 * (3 - 1) + 3 = 5; output channels = w dim 1 * group = 2
  EXPECT_OUTPUT(Infer("conv_transpose", {F32({1, 1, 3, 3}), F32({1, 2, 3, 3})}), F32({1, 2, 5, 5}));
  // test_convtranspose_1d
  EXPECT_OUTPUT(Infer("conv_transpose", {F32({1, 1, 3}), F32({1, 2, 3})}), F32({1, 2, 5}));
  // test_convtranspose_3d: [1, 1, 3, 4, 5] -> [1, 2, 5, 6, 7]
  EXPECT_OUTPUT(Infer("conv_transpose", {F32({1, 1, 3, 4, 5}), F32({1, 2, 3, 3, 3})}),
                F32({1, 2, 5, 6, 7}));
  // strides [3, 2]: H 3 * 2 + 3 = 9, W 2 * 2 + 3 = 7
  EXPECT_OUTPUT(Infer("conv_transpose", {F32({1, 1, 3, 3}), F32({1, 2, 3, 3})},
                      MakeAttrs({{"strides", Ints{3, 2}}})),
                F32({1, 2, 9, 7}));
  // test_convtranspose_output_shape's equivalent: output_padding [1, 1] -> [10, 8]
  EXPECT_OUTPUT(Infer("conv_transpose", {F32({1, 1, 3, 3}), F32({1, 2, 3, 3}), F32({2})},
                      MakeAttrs({{"strides", Ints{3, 2}}, {"output_padding", Ints{1, 1}}})),
                F32({1, 2, 10, 8}));
  // test_convtranspose_pads: pads [1, 2, 1, 2] -> H 9 - 2 = 7, W 7 - 4 = 3
  EXPECT_OUTPUT(Infer("conv_transpose", {F32({1, 1, 3, 3}), F32({1, 2, 3, 3})},
                      MakeAttrs({{"strides", Ints{3, 2}}, {"pads", Ints{1, 2, 1, 2}}})),
                F32({1, 2, 7, 3}));
  // test_convtranspose_dilations: k 2 dilated by 2 spans 3: 2 + 3 = 5
  EXPECT_OUTPUT(Infer("conv_transpose", {F32({1, 1, 3, 3}), F32({1, 1, 2, 2})},
                      MakeAttrs({{"dilations", Ints{2, 2}}})),
                F32({1, 1, 5, 5}));
  // output_padding below the dilation (not the stride) is allowed: 2 + 1 + 5 = 8
  EXPECT_OUTPUT(Infer("conv_transpose", {F32({1, 1, 3}), F32({1, 1, 3})},
                      MakeAttrs({{"dilations", Ints{2}}, {"output_padding", Ints{1}}})),
                F32({1, 1, 8}));
  // Groups: x channels 4 = w dim 0; output channels 3 * 2 = 6; 5 - 1 + 3 = 7
  EXPECT_OUTPUT(Infer("conv_transpose", {F32({2, 4, 5, 5}), F32({4, 3, 3, 3}), F32({6})},
                      MakeAttrs({{"group", int64_t{2}}})),
                F32({2, 6, 7, 7}));
}

TEST(ConvPoolSchemas, ConvTransposeErrors) {
  SY_EXPECT_ERROR(Infer("conv_transpose", {F32({1, 4, 5, 5}), F32({3, 2, 3, 3})}),
                  "input w has shape [3, 2, 3, 3] but its dimension 0 (3) must equal input x's "
                  "channels (4)");
  SY_EXPECT_ERROR(Infer("conv_transpose", {F32({1, 4, 5, 5}), F32({4, 3, 3, 3}), F32({3})},
                        MakeAttrs({{"group", int64_t{2}}})),
                  "input bias has shape [3] but must be [6]");
  SY_EXPECT_ERROR(Infer("conv_transpose", {F32({1, 4, 5, 5}), F32({4, 3, 3, 3})},
                        MakeAttrs({{"group", int64_t{3}}})),
                  "attribute group is 3 but must divide input x's channels (4)");
  SY_EXPECT_ERROR(Infer("conv_transpose", {F32({1, 1, 3, 3}), F32({1, 1, 3, 3})},
                        MakeAttrs({{"strides", Ints{2, 2}}, {"output_padding", Ints{2, 0}}})),
                  "attribute output_padding has 2 at index 0 but must be less than strides (2) "
                  "or dilations (1)");
  SY_EXPECT_ERROR(Infer("conv_transpose", {F32({1, 1, 3, 3}), F32({1, 1, 3, 3})},
                        MakeAttrs({{"output_padding", Ints{0, 1}}})),
                  "attribute output_padding has 1 at index 1 but must be less than strides (1) "
                  "or dilations (1)");
  SY_EXPECT_ERROR(Infer("conv_transpose", {F32({1, 1, 3, 3}), F32({1, 1, 3, 3})},
                        MakeAttrs({{"output_padding", Ints{0}}})),
                  "attribute output_padding has 1 entries but must have 2");
  SY_EXPECT_ERROR(Infer("conv_transpose", {F32({1, 1, 3, 3}), F32({1, 1, 3, 3})},
                        MakeAttrs({{"output_padding", Ints{0, -1}}})),
                  "attribute output_padding has -1 at index 1 but every entry must be >= 0");
  // 1 * 0 + 1 - 1 - 1 = -1
  SY_EXPECT_ERROR(Infer("conv_transpose", {F32({1, 1, 1, 1}), F32({1, 1, 1, 1})},
                        MakeAttrs({{"pads", Ints{1, 0, 1, 0}}})),
                  "output spatial dimension 0 would be -1: the transposed convolution of input "
                  "x's spatial size 1 produces 1 elements before pads 1 + 1 are removed");
  SY_EXPECT_ERROR(Infer("conv_transpose", {F32({1, 1, 3, 3}), F32({1, 1, 3})}),
                  "input w has shape [1, 1, 3] but must have rank 4");
  SY_EXPECT_ERROR(Infer("conv_transpose", {F32({1, 1, 3, 3}), F32({1, 1, 3, 3})},
                        MakeAttrs({{"strides", Ints{0, 1}}})),
                  "attribute strides has 0 at index 0");
  SY_EXPECT_ERROR(Infer("conv_transpose", {F32({1, 1, 3, 3}), F32({1, 1, 3, 3})},
                        MakeAttrs({{"output_shape", Ints{5, 5}}})),
                  "unknown attribute output_shape");
}

TEST(ConvPoolSchemas, MaxPool) {
  const auto pool = [](Shape x, Attrs attrs) { return Infer("max_pool", {F32(x)}, attrs); };
  // test_maxpool_2d_default: [1, 3, 32, 32], k 2 -> 31
  EXPECT_OUTPUT(pool({1, 3, 32, 32}, MakeAttrs({{"kernel_shape", Ints{2, 2}}})),
                F32({1, 3, 31, 31}));
  EXPECT_OUTPUT(
      pool({1, 3, 32, 32}, MakeAttrs({{"kernel_shape", Ints{2, 2}}, {"strides", Ints{2, 2}}})),
      F32({1, 3, 16, 16}));
  // test_maxpool_1d_default and test_maxpool_3d_default
  EXPECT_OUTPUT(pool({1, 3, 32}, MakeAttrs({{"kernel_shape", Ints{2}}})), F32({1, 3, 31}));
  EXPECT_OUTPUT(pool({1, 3, 32, 32, 32}, MakeAttrs({{"kernel_shape", Ints{2, 2, 2}}})),
                F32({1, 3, 31, 31, 31}));
  // test_maxpool_2d_pads: 28 + 2 + 2 - 3 + 1 = 30
  EXPECT_OUTPUT(
      pool({1, 3, 28, 28}, MakeAttrs({{"kernel_shape", Ints{3, 3}}, {"pads", Ints{2, 2, 2, 2}}})),
      F32({1, 3, 30, 30}));
  // test_maxpool_2d_dilations: k 2 dilated by 2 spans 3: 4 - 3 + 1 = 2
  EXPECT_OUTPUT(
      pool({1, 1, 4, 4}, MakeAttrs({{"kernel_shape", Ints{2, 2}}, {"dilations", Ints{2, 2}}})),
      F32({1, 1, 2, 2}));
  // test_maxpool_2d_strides: [1, 3, 32, 32], k 5, strides 3: floor(27 / 3) + 1 = 10
  EXPECT_OUTPUT(
      pool({1, 3, 32, 32}, MakeAttrs({{"kernel_shape", Ints{5, 5}}, {"strides", Ints{3, 3}}})),
      F32({1, 3, 10, 10}));
  EXPECT_OUTPUT(Infer("max_pool", {T(DType::kF16, {2, 1, 5, 6})},
                      MakeAttrs({{"kernel_shape", Ints{1, 2}}, {"strides", Ints{1, 2}}})),
                T(DType::kF16, {2, 1, 5, 3}));
}

TEST(ConvPoolSchemas, PoolCeilMode) {
  const auto pool = [](Shape x, Attrs attrs) { return Infer("max_pool", {F32(x)}, attrs); };
  // test_maxpool_2d_ceil: (4 - 3) / 2 = 0.5 -> ceil 1 -> 2 (floor gives 1)
  const Attrs ceil =
      MakeAttrs({{"kernel_shape", Ints{3, 3}}, {"strides", Ints{2, 2}}, {"ceil_mode", int64_t{1}}});
  EXPECT_OUTPUT(pool({1, 1, 4, 4}, ceil), F32({1, 1, 2, 2}));
  EXPECT_OUTPUT(
      pool({1, 1, 4, 4}, MakeAttrs({{"kernel_shape", Ints{3, 3}}, {"strides", Ints{2, 2}}})),
      F32({1, 1, 1, 1}));
  // test_maxpool_2d_ceil_output_size_reduce_by_one: ceil((2 - 1) / 2) + 1 = 2, but the
  // second window would start at 2, past the input: dropped -> 1
  EXPECT_OUTPUT(pool({1, 1, 2, 2}, MakeAttrs({{"kernel_shape", Ints{1, 1}},
                                              {"strides", Ints{2, 2}},
                                              {"ceil_mode", int64_t{1}}})),
                F32({1, 1, 1, 1}));
  // 1-D, len 5, k 2, s 2: ceil(3 / 2) + 1 = 3 (last window starts at 4 < 5: kept)
  EXPECT_OUTPUT(
      pool({1, 1, 5},
           MakeAttrs({{"kernel_shape", Ints{2}}, {"strides", Ints{2}}, {"ceil_mode", int64_t{1}}})),
      F32({1, 1, 3}));
  // With pads [1, 1]: ceil(5 / 2) + 1 = 4, but window 3 starts at 6 >= 5 + 1: dropped -> 3
  EXPECT_OUTPUT(pool({1, 1, 5}, MakeAttrs({{"kernel_shape", Ints{2}},
                                           {"strides", Ints{2}},
                                           {"pads", Ints{1, 1}},
                                           {"ceil_mode", int64_t{1}}})),
                F32({1, 1, 3}));
  // A window that starts in the left padding and overhangs the input is kept:
  // len 2, k 3, s 2, ceil: ceil(-1 / 2) + 1 = 1
  EXPECT_OUTPUT(
      pool({1, 1, 2},
           MakeAttrs({{"kernel_shape", Ints{3}}, {"strides", Ints{2}}, {"ceil_mode", int64_t{1}}})),
      F32({1, 1, 1}));
  // test_averagepool_3d_dilations_large_count_include_pad_is_1_ceil_mode_is_True:
  // k 5 dilated by 2 spans 9; (32 + 2 - 9) / 3 = 8.33 -> ceil 9 -> 10 (last start 27 < 33)
  const Attrs avg = MakeAttrs({{"kernel_shape", Ints{5, 5, 5}},
                               {"strides", Ints{3, 3, 3}},
                               {"dilations", Ints{2, 2, 2}},
                               {"pads", Ints{1, 1, 1, 1, 1, 1}},
                               {"count_include_pad", int64_t{1}},
                               {"ceil_mode", int64_t{1}}});
  EXPECT_OUTPUT(Infer("avg_pool", {F32({1, 1, 32, 32, 32})}, avg), F32({1, 1, 10, 10, 10}));
  Attrs avg_floor = avg;
  avg_floor.Set("ceil_mode", int64_t{0});
  EXPECT_OUTPUT(Infer("avg_pool", {F32({1, 1, 32, 32, 32})}, avg_floor), F32({1, 1, 9, 9, 9}));
}

TEST(ConvPoolSchemas, AvgPool) {
  // test_averagepool_2d_pads_count_include_pad: 28 + 4 - 3 + 1 = 30
  EXPECT_OUTPUT(Infer("avg_pool", {F32({1, 3, 28, 28})},
                      MakeAttrs({{"kernel_shape", Ints{3, 3}},
                                 {"pads", Ints{2, 2, 2, 2}},
                                 {"count_include_pad", int64_t{1}}})),
                F32({1, 3, 30, 30}));
  // test_averagepool_2d_pads: [1, 3, 28, 28], k 3, pads 2 (count_include_pad 0)
  EXPECT_OUTPUT(Infer("avg_pool", {F32({1, 3, 28, 28})},
                      MakeAttrs({{"kernel_shape", Ints{3, 3}}, {"pads", Ints{2, 2, 2, 2}}})),
                F32({1, 3, 30, 30}));
  // test_averagepool_2d_precomputed_strides: [1, 1, 5, 5], k 2, s 2 -> 2
  EXPECT_OUTPUT(Infer("avg_pool", {F32({1, 1, 5, 5})},
                      MakeAttrs({{"kernel_shape", Ints{2, 2}}, {"strides", Ints{2, 2}}})),
                F32({1, 1, 2, 2}));
  EXPECT_OUTPUT(Infer("avg_pool", {T(DType::kF64, {3, 2, 7})},
                      MakeAttrs({{"kernel_shape", Ints{3}}, {"pads", Ints{0, 2}}})),
                T(DType::kF64, {3, 2, 7}));
}

TEST(ConvPoolSchemas, PoolErrors) {
  SY_EXPECT_ERROR(Infer("max_pool", {F32({1, 1, 4, 4})}),
                  "missing required attribute kernel_shape (ints)");
  SY_EXPECT_ERROR(Infer("avg_pool", {F32({1, 1, 4, 4})}, MakeAttrs({{"kernel_shape", Ints{2}}})),
                  "attribute kernel_shape has 1 entries but must have 2 (one per spatial "
                  "dimension of input x [1, 1, 4, 4])");
  SY_EXPECT_ERROR(Infer("max_pool", {F32({1, 1, 4, 4})}, MakeAttrs({{"kernel_shape", Ints{2, 0}}})),
                  "attribute kernel_shape has 0 at index 1 but every entry must be >= 1");
  SY_EXPECT_ERROR(Infer("max_pool", {F32({4, 4})}, MakeAttrs({{"kernel_shape", Ints{2, 2}}})),
                  "input x has shape [4, 4] but must have rank at least 3");
  const Attrs k2 = MakeAttrs({{"kernel_shape", Ints{2, 2}}});
  const auto with = [&](std::string name, AttrValue v) {
    Attrs a = k2;
    a.Set(std::move(name), std::move(v));
    return a;
  };
  SY_EXPECT_ERROR(Infer("max_pool", {F32({1, 1, 4, 4})}, with("ceil_mode", int64_t{2})),
                  "attribute ceil_mode is 2 but must be 0 or 1");
  SY_EXPECT_ERROR(Infer("avg_pool", {F32({1, 1, 4, 4})}, with("count_include_pad", int64_t{-1})),
                  "attribute count_include_pad is -1 but must be 0 or 1");
  SY_EXPECT_ERROR(Infer("max_pool", {F32({1, 1, 4, 4})}, with("count_include_pad", int64_t{1})),
                  "unknown attribute count_include_pad");
  SY_EXPECT_ERROR(Infer("max_pool", {F32({1, 1, 4, 4})}, with("storage_order", int64_t{2})),
                  "attribute storage_order is 2 but must be 0 or 1");
  SY_EXPECT_ERROR(Infer("avg_pool", {F32({1, 1, 4, 4})}, with("storage_order", int64_t{0})),
                  "unknown attribute storage_order");
  SY_EXPECT_ERROR(Infer("max_pool", {F32({1, 1, 4, 4})}, with("strides", Ints{2})),
                  "attribute strides has 1 entries but must have 2");
  SY_EXPECT_ERROR(Infer("avg_pool", {F32({1, 1, 4, 4})}, with("strides", Ints{0, 2})),
                  "attribute strides has 0 at index 0 but every entry must be >= 1");
  SY_EXPECT_ERROR(Infer("max_pool", {F32({1, 1, 4, 4})}, with("dilations", Ints{1, 0})),
                  "attribute dilations has 0 at index 1 but every entry must be >= 1");
  SY_EXPECT_ERROR(Infer("max_pool", {F32({1, 1, 4, 4})}, with("pads", Ints{0, 0, 0})),
                  "attribute pads has 3 entries but must have 4");
  SY_EXPECT_ERROR(Infer("avg_pool", {F32({1, 1, 4, 4})}, with("pads", Ints{0, 0, -1, 0})),
                  "attribute pads has -1 at index 2 but every entry must be >= 0");
  // A pad as large as the window would leave windows with nothing but padding.
  SY_EXPECT_ERROR(Infer("max_pool", {F32({1, 1, 4, 4})}, with("pads", Ints{0, 0, 0, 2})),
                  "attribute pads has 2 at index 3 but must be less than the dilated kernel size 2 "
                  "of spatial dimension 1");
  EXPECT_OUTPUT(Infer("max_pool", {F32({1, 1, 4, 4})},
                      MakeAttrs({{"kernel_shape", Ints{2, 2}},
                                 {"dilations", Ints{2, 1}},
                                 {"pads", Ints{2, 0, 2, 0}}})),
                F32({1, 1, 6, 3}));
  SY_EXPECT_ERROR(Infer("max_pool", {F32({1, 1, 2, 4})}, MakeAttrs({{"kernel_shape", Ints{3, 3}}})),
                  "output spatial dimension 0 would be 0: input x's spatial size 2 with pads 0 + "
                  "0 is smaller than the attribute kernel_shape's kernel size 3 dilated to 3");
  SY_EXPECT_ERROR(Infer("max_pool", {T(DType::kI8, {1, 1, 4, 4})}, k2), "input 0 (x) has dtype i8");
  SY_EXPECT_ERROR(Infer("avg_pool", {F32({1, 1, 4, 4}), F32({1})}, k2), "takes 1 input but has 2");
}

TEST(ConvPoolSchemas, GlobalAvgPool) {
  EXPECT_OUTPUT(Infer("global_avg_pool", {F32({2, 3, 7, 7})}), F32({2, 3, 1, 1}));
  EXPECT_OUTPUT(Infer("global_avg_pool", {F32({2, 3, 5})}), F32({2, 3, 1}));
  EXPECT_OUTPUT(Infer("global_avg_pool", {T(DType::kBF16, {1, 2, 3, 4, 5})}),
                T(DType::kBF16, {1, 2, 1, 1, 1}));
  SY_EXPECT_ERROR(Infer("global_avg_pool", {F32({2, 3})}),
                  "input x has shape [2, 3] but must have rank at least 3");
  SY_EXPECT_ERROR(Infer("global_avg_pool", {T(DType::kI64, {2, 3, 4})}),
                  "input 0 (x) has dtype i64");
  SY_EXPECT_ERROR(
      Infer("global_avg_pool", {F32({2, 3, 4})}, MakeAttrs({{"kernel_shape", Ints{4}}})),
      "unknown attribute kernel_shape");
}

}  // namespace
}  // namespace sy
