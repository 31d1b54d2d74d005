// Shape rules and checks of resize, depth_to_space, space_to_depth, attention,
// rotary_embedding and grid_sample (core/src/ops/neural_schemas.cpp; depth_to_space and
// space_to_depth are in movement_schemas.cpp). Expected shapes are
// derived by hand from the ONNX operator definitions (attention and rotary_embedding:
// opset 23; grid_sample: GridSample opset 16).
#include <gtest/gtest.h>

#include <limits>

#include "test_util.h"

namespace sy {
namespace {

using test::F32;
using test::Infer;
using test::MakeAttrs;
using test::T;

using Ints = std::vector<int64_t>;
using Floats = std::vector<double>;

TEST(NeuralSchemas, RegisteredWithOnnxNamesAndDefaults) {
  const std::pair<const char*, const char*> names[] = {{"resize", "Resize"},
                                                       {"depth_to_space", "DepthToSpace"},
                                                       {"space_to_depth", "SpaceToDepth"},
                                                       {"attention", "Attention"},
                                                       {"rotary_embedding", "RotaryEmbedding"},
                                                       {"grid_sample", "GridSample"}};
  for (const auto& [name, onnx] : names) {
    const OpSchema* schema = OpRegistry::Global().Find(name);
    ASSERT_NE(schema, nullptr) << name;
    EXPECT_EQ(schema->onnx_name, onnx);
    EXPECT_EQ(schema->max_outputs, 1);
  }
  const OpSchema* resize = OpRegistry::Global().Find("resize");
  EXPECT_EQ(resize->FindAttr("mode")->default_value, AttrValue(std::string("nearest")));
  EXPECT_EQ(resize->FindAttr("coordinate_transformation_mode")->default_value,
            AttrValue(std::string("half_pixel")));
  EXPECT_EQ(resize->FindAttr("nearest_mode")->default_value,
            AttrValue(std::string("round_prefer_floor")));
  EXPECT_EQ(resize->FindAttr("cubic_coeff_a")->default_value, AttrValue(-0.75));
  EXPECT_EQ(resize->FindAttr("exclude_outside")->default_value, AttrValue(int64_t{0}));
  const OpSchema* grid_sample = OpRegistry::Global().Find("grid_sample");
  EXPECT_EQ(grid_sample->FindAttr("mode")->default_value, AttrValue(std::string("bilinear")));
  EXPECT_EQ(grid_sample->FindAttr("padding_mode")->default_value, AttrValue(std::string("zeros")));
  EXPECT_EQ(grid_sample->FindAttr("align_corners")->default_value, AttrValue(int64_t{0}));
  EXPECT_EQ(OpRegistry::Global().Find("depth_to_space")->FindAttr("mode")->default_value,
            AttrValue(std::string("DCR")));
  EXPECT_EQ(OpRegistry::Global().Find("space_to_depth")->FindAttr("mode"), nullptr);
  const OpSchema* attention = OpRegistry::Global().Find("attention");
  EXPECT_EQ(attention->FindAttr("scale")->default_value, std::nullopt);
  EXPECT_EQ(attention->FindAttr("is_causal")->default_value, AttrValue(int64_t{0}));
  EXPECT_EQ(attention->min_inputs(), 3);
  EXPECT_EQ(attention->max_inputs(), 4);
  const OpSchema* rotary = OpRegistry::Global().Find("rotary_embedding");
  EXPECT_EQ(rotary->FindAttr("rotary_dim")->default_value, std::nullopt);
  EXPECT_EQ(rotary->FindAttr("interleaved")->default_value, AttrValue(int64_t{0}));
}

TEST(NeuralSchemas, ResizeWithScalesFloorsEachDim) {
  EXPECT_OUTPUT(Infer("resize", {F32({1, 3, 4, 5})}, MakeAttrs({{"scales", Floats{1, 1, 2, 2}}})),
                F32({1, 3, 8, 10}));
  EXPECT_OUTPUT(
      Infer("resize", {F32({1, 3, 4, 8})}, MakeAttrs({{"scales", Floats{1, 1, 0.5, 0.75}}})),
      F32({1, 3, 2, 6}));
  // floor(5 * 1.5) = 7, floor(5 * 0.5) = 2
  EXPECT_OUTPUT(
      Infer("resize", {T(DType::kF16, {1, 1, 5, 5})},
            MakeAttrs({{"scales", Floats{1, 1, 1.5, 0.5}},
                       {"mode", std::string("linear")},
                       {"coordinate_transformation_mode", std::string("align_corners")}})),
      T(DType::kF16, {1, 1, 7, 2}));
  // Integer scales are accepted as floats.
  EXPECT_OUTPUT(Infer("resize", {F32({2, 3})}, MakeAttrs({{"scales", Ints{3, 2}}})), F32({6, 6}));
  // floor(3 * 0.25) = 0: an empty dim is legal.
  EXPECT_OUTPUT(Infer("resize", {F32({3})}, MakeAttrs({{"scales", Floats{0.25}}})), F32({0}));
}

TEST(NeuralSchemas, ResizeWithSizes) {
  EXPECT_OUTPUT(Infer("resize", {F32({1, 3, 4, 5})},
                      MakeAttrs({{"sizes", Ints{1, 3, 10, 12}},
                                 {"nearest_mode", std::string("floor")},
                                 {"coordinate_transformation_mode", std::string("asymmetric")}})),
                F32({1, 3, 10, 12}));
  EXPECT_OUTPUT(Infer("resize", {F32({1, 3, 4, 5})}, MakeAttrs({{"sizes", Ints{1, 3, 1, 1}}})),
                F32({1, 3, 1, 1}));
  EXPECT_OUTPUT(Infer("resize", {F32({0, 3})}, MakeAttrs({{"sizes", Ints{0, 6}}})), F32({0, 6}));
  // Both: sizes is the output, scales the coordinate mapping (keep_aspect_ratio_policy).
  EXPECT_OUTPUT(Infer("resize", {F32({2, 3})},
                      MakeAttrs({{"scales", Floats{1.5, 1.5}}, {"sizes", Ints{3, 5}}})),
                F32({3, 5}));
}

TEST(NeuralSchemas, ResizeErrors) {
  const TensorType x = F32({1, 3, 4, 5});
  SY_EXPECT_ERROR(Infer("resize", {x}),
                  "needs attribute scales or sizes (or both) but has neither");
  SY_EXPECT_ERROR(
      Infer("resize", {x}, MakeAttrs({{"sizes", Ints{1, 3, 8, 10}}, {"antialias", int64_t{1}}})),
      "attribute antialias is 1 but mode nearest has no antialiasing");
  SY_EXPECT_ERROR(
      Infer("resize", {x},
            MakeAttrs({{"sizes", Ints{1, 3, 8, 10}},
                       {"coordinate_transformation_mode", std::string("tf_crop_and_resize")}})),
      "attribute roi is missing but coordinate_transformation_mode "
      "tf_crop_and_resize needs it");
  SY_EXPECT_ERROR(
      Infer("resize", {x},
            MakeAttrs({{"sizes", Ints{1, 3, 8, 10}}, {"roi", Floats{0, 0, 0, 0, 1, 1, 1, 1}}})),
      "attribute roi is given but only coordinate_transformation_mode "
      "tf_crop_and_resize reads it");
  SY_EXPECT_ERROR(
      Infer("resize", {x},
            MakeAttrs({{"sizes", Ints{1, 3, 8, 10}},
                       {"coordinate_transformation_mode", std::string("tf_crop_and_resize")},
                       {"roi", Floats{0, 0, 1, 1}}})),
      "attribute roi has 4 entries but must have 8");
  SY_EXPECT_ERROR(Infer("resize", {x}, MakeAttrs({{"scales", Floats{2, 2}}})),
                  "attribute scales has 2 entries but must have 4 (one per dimension of input x "
                  "[1, 3, 4, 5])");
  SY_EXPECT_ERROR(Infer("resize", {x}, MakeAttrs({{"sizes", Ints{8, 10}}})),
                  "attribute sizes has 2 entries but must have 4");
  SY_EXPECT_ERROR(Infer("resize", {x}, MakeAttrs({{"scales", Floats{1, 1, 0, 2}}})),
                  "attribute scales has 0 at index 2 but every entry must be > 0");
  SY_EXPECT_ERROR(Infer("resize", {x}, MakeAttrs({{"scales", Floats{1, 1, -2, 2}}})),
                  "attribute scales has -2 at index 2");
  SY_EXPECT_ERROR(
      Infer("resize", {x},
            MakeAttrs({{"scales", Floats{1, 1, 2, std::numeric_limits<double>::infinity()}}})),
      "at index 3 but every entry must be > 0");
  SY_EXPECT_ERROR(Infer("resize", {x}, MakeAttrs({{"scales", Floats{1, 1, 1e30, 1}}})),
                  "which makes dimension 2 too large");
  SY_EXPECT_ERROR(Infer("resize", {x}, MakeAttrs({{"sizes", Ints{1, 3, -1, 5}}})),
                  "attribute sizes has -1 at index 2 but every entry must be >= 0");
  SY_EXPECT_ERROR(Infer("resize", {F32({1, 0})}, MakeAttrs({{"sizes", Ints{1, 4}}})),
                  "attribute sizes has 4 at index 1 but dimension 1 of input x [1, 0] is empty");
  SY_EXPECT_ERROR(Infer("resize", {x},
                        MakeAttrs({{"sizes", Ints{1, 3, 8, 10}}, {"mode", std::string("area")}})),
                  "attribute mode is \"area\" but must be one of: nearest, linear, cubic");
  SY_EXPECT_ERROR(
      Infer("resize", {x},
            MakeAttrs({{"sizes", Ints{1, 3, 8, 10}},
                       {"coordinate_transformation_mode", std::string("tf_crop")}})),
      "attribute coordinate_transformation_mode is \"tf_crop\" but must be "
      "one of: half_pixel, asymmetric, align_corners, pytorch_half_pixel, tf_half_pixel_for_nn, "
      "half_pixel_symmetric, tf_crop_and_resize");
  SY_EXPECT_ERROR(Infer("resize", {x},
                        MakeAttrs({{"sizes", Ints{1, 3, 8, 10}}, {"exclude_outside", int64_t{2}}})),
                  "attribute exclude_outside is 2 but must be 0 or 1");
  SY_EXPECT_ERROR(Infer("resize", {x},
                        MakeAttrs({{"sizes", Ints{1, 3, 8, 10}},
                                   {"cubic_coeff_a", std::numeric_limits<double>::quiet_NaN()}})),
                  "attribute cubic_coeff_a is nan but must be finite");
  SY_EXPECT_ERROR(
      Infer("resize", {x},
            MakeAttrs({{"sizes", Ints{1, 3, 8, 10}}, {"nearest_mode", std::string("round")}})),
      "attribute nearest_mode is \"round\" but must be one of");
  SY_EXPECT_ERROR(Infer("resize", {x}, MakeAttrs({{"sizes", Floats{1, 3, 8.5, 10}}})),
                  "attribute sizes is [1, 3, 8.5, 10] (floats) but must be ints");
  SY_EXPECT_ERROR(Infer("resize", {T(DType::kI32, {1, 3})}, MakeAttrs({{"sizes", Ints{1, 6}}})),
                  "input 0 (x) has dtype i32");
  SY_EXPECT_ERROR(
      Infer("resize", {x}, MakeAttrs({{"sizes", Ints{1, 3, 8, 10}}, {"antialias", int64_t{2}}})),
      "attribute antialias is 2 but must be 0 or 1");
}

TEST(NeuralSchemas, ResizeCubicAndTheExtraCoordinateModes) {
  // The mode and coordinate transformation do not change the output shape.
  EXPECT_OUTPUT(Infer("resize", {F32({1, 3, 4, 5})},
                      MakeAttrs({{"scales", Floats{1, 1, 2, 1.5}},
                                 {"mode", std::string("cubic")},
                                 {"cubic_coeff_a", -0.5},
                                 {"exclude_outside", int64_t{1}}})),
                F32({1, 3, 8, 7}));
  for (const char* coord : {"pytorch_half_pixel", "tf_half_pixel_for_nn"}) {
    EXPECT_OUTPUT(Infer("resize", {T(DType::kF64, {2, 4})},
                        MakeAttrs({{"sizes", Ints{1, 9}},
                                   {"mode", std::string("cubic")},
                                   {"coordinate_transformation_mode", std::string(coord)}})),
                  T(DType::kF64, {1, 9}));
  }
}

// grid_sample: x [N, C, H, W], grid [N, H_out, W_out, 2] -> [N, C, H_out, W_out].
TEST(NeuralSchemas, GridSample) {
  EXPECT_OUTPUT(Infer("grid_sample", {F32({2, 3, 5, 7}), F32({2, 4, 6, 2})}), F32({2, 3, 4, 6}));
  EXPECT_OUTPUT(Infer("grid_sample", {T(DType::kF16, {1, 1, 3, 2}), T(DType::kF16, {1, 2, 4, 2})},
                      MakeAttrs({{"mode", std::string("bicubic")},
                                 {"padding_mode", std::string("reflection")},
                                 {"align_corners", int64_t{1}}})),
                T(DType::kF16, {1, 1, 2, 4}));
  // Empty outputs, also from an empty input plane.
  EXPECT_OUTPUT(Infer("grid_sample", {F32({0, 3, 5, 7}), F32({0, 4, 6, 2})}), F32({0, 3, 4, 6}));
  EXPECT_OUTPUT(Infer("grid_sample", {F32({1, 3, 0, 7}), F32({1, 0, 6, 2})}), F32({1, 3, 0, 6}));
  EXPECT_OUTPUT(Infer("grid_sample", {F32({1, 0, 0, 0}), F32({1, 2, 2, 2})}), F32({1, 0, 2, 2}));
  // Volumetric (extension): x [N, C, D, H, W], grid [N, Do, Ho, Wo, 3].
  EXPECT_OUTPUT(Infer("grid_sample", {F32({2, 3, 4, 5, 7}), F32({2, 2, 4, 6, 3})}),
                F32({2, 3, 2, 4, 6}));
}

TEST(NeuralSchemas, GridSampleErrors) {
  SY_EXPECT_ERROR(Infer("grid_sample", {F32({1, 3, 5}), F32({1, 4, 6, 2})}),
                  "input x has shape [1, 3, 5] but must have rank 4 ([N, C, H, W]) or 5");
  SY_EXPECT_ERROR(Infer("grid_sample", {F32({1, 3, 4, 5, 7}), F32({1, 4, 6, 3})}),
                  "input grid has shape [1, 4, 6, 3] but must have rank 5");
  SY_EXPECT_ERROR(Infer("grid_sample", {F32({1, 3, 4, 5, 7}), F32({1, 2, 4, 6, 2})}),
                  "its dimension 4 (2) must be 3 (one coordinate per spatial axis of x)");
  SY_EXPECT_ERROR(Infer("grid_sample", {F32({1, 3, 4, 5, 7}), F32({1, 2, 4, 6, 3})},
                        MakeAttrs({{"mode", std::string("bicubic")}})),
                  "attribute mode is \"bicubic\", which takes 4-D x only");
  SY_EXPECT_ERROR(Infer("grid_sample", {F32({1, 3, 5, 7}), F32({1, 4, 2})}),
                  "input grid has shape [1, 4, 2] but must have rank 4");
  SY_EXPECT_ERROR(Infer("grid_sample", {F32({2, 3, 5, 7}), F32({1, 4, 6, 2})}),
                  "input grid has shape [1, 4, 6, 2] but its dimension 0 (1) must equal input "
                  "x's batch 2");
  SY_EXPECT_ERROR(Infer("grid_sample", {F32({1, 3, 5, 7}), F32({1, 4, 6, 3})}),
                  "its dimension 3 (3) must be 2 (one coordinate per spatial axis of x)");
  SY_EXPECT_ERROR(Infer("grid_sample", {F32({1, 3, 0, 7}), F32({1, 4, 6, 2})}),
                  "input x has shape [1, 3, 0, 7] but its dimension 2 (0) must be positive");
  SY_EXPECT_ERROR(Infer("grid_sample", {F32({1, 3, 5, 7}), T(DType::kF64, {1, 4, 6, 2})}), "grid");
  SY_EXPECT_ERROR(
      Infer("grid_sample", {T(DType::kI32, {1, 3, 5, 7}), T(DType::kI32, {1, 4, 6, 2})}),
      "input 0 (x) has dtype i32");
  SY_EXPECT_ERROR(Infer("grid_sample", {F32({1, 3, 5, 7}), F32({1, 4, 6, 2})},
                        MakeAttrs({{"mode", std::string("linear")}})),
                  "attribute mode is \"linear\" but must be one of: bilinear, nearest, bicubic");
  SY_EXPECT_ERROR(
      Infer("grid_sample", {F32({1, 3, 5, 7}), F32({1, 4, 6, 2})},
            MakeAttrs({{"padding_mode", std::string("edge")}})),
      "attribute padding_mode is \"edge\" but must be one of: zeros, border, reflection");
  SY_EXPECT_ERROR(Infer("grid_sample", {F32({1, 3, 5, 7}), F32({1, 4, 6, 2})},
                        MakeAttrs({{"align_corners", int64_t{2}}})),
                  "attribute align_corners is 2 but must be 0 or 1");
}

TEST(NeuralSchemas, DepthToSpaceAndSpaceToDepth) {
  // [N, C, H, W] -> [N, C / b^2, H * b, W * b]
  EXPECT_OUTPUT(
      Infer("depth_to_space", {F32({1, 8, 2, 3})}, MakeAttrs({{"blocksize", int64_t{2}}})),
      F32({1, 2, 4, 6}));
  EXPECT_OUTPUT(Infer("depth_to_space", {T(DType::kI64, {2, 18, 1, 2})},
                      MakeAttrs({{"blocksize", int64_t{3}}, {"mode", std::string("CRD")}})),
                T(DType::kI64, {2, 2, 3, 6}));
  EXPECT_OUTPUT(Infer("depth_to_space", {T(DType::kBool, {1, 4, 2, 2})},
                      MakeAttrs({{"blocksize", int64_t{1}}})),
                T(DType::kBool, {1, 4, 2, 2}));
  // [N, C, H, W] -> [N, C * b^2, H / b, W / b]
  EXPECT_OUTPUT(
      Infer("space_to_depth", {F32({1, 2, 4, 6})}, MakeAttrs({{"blocksize", int64_t{2}}})),
      F32({1, 8, 2, 3}));
  EXPECT_OUTPUT(Infer("space_to_depth", {T(DType::kU8, {3, 1, 9, 3})},
                      MakeAttrs({{"blocksize", int64_t{3}}})),
                T(DType::kU8, {3, 9, 3, 1}));
}

TEST(NeuralSchemas, DepthToSpaceAndSpaceToDepthErrors) {
  const Attrs b2 = MakeAttrs({{"blocksize", int64_t{2}}});
  SY_EXPECT_ERROR(Infer("depth_to_space", {F32({1, 8, 2, 3})}),
                  "missing required attribute blocksize (int)");
  SY_EXPECT_ERROR(Infer("space_to_depth", {F32({1, 8, 2, 2})}),
                  "missing required attribute blocksize");
  SY_EXPECT_ERROR(
      Infer("depth_to_space", {F32({1, 8, 2, 3})}, MakeAttrs({{"blocksize", int64_t{0}}})),
      "attribute blocksize is 0 but must be between 1 and 2^31");
  SY_EXPECT_ERROR(
      Infer("space_to_depth", {F32({1, 8, 2, 2})}, MakeAttrs({{"blocksize", int64_t{-2}}})),
      "attribute blocksize is -2");
  SY_EXPECT_ERROR(Infer("depth_to_space", {F32({1, 6, 2, 3})}, b2),
                  "input x has shape [1, 6, 2, 3] but its dimension 1 (6) must be divisible by "
                  "blocksize * blocksize (2 * 2)");
  SY_EXPECT_ERROR(Infer("depth_to_space", {F32({8, 2, 3})}, b2),
                  "input x has shape [8, 2, 3] but must have rank 4");
  SY_EXPECT_ERROR(Infer("depth_to_space", {F32({1, 8, 2, 3})},
                        MakeAttrs({{"blocksize", int64_t{2}}, {"mode", std::string("DRC")}})),
                  "attribute mode is \"DRC\" but must be one of: DCR, CRD");
  SY_EXPECT_ERROR(Infer("space_to_depth", {F32({1, 2, 5, 6})}, b2),
                  "input x has shape [1, 2, 5, 6] but its dimension 2 (5) must be divisible by "
                  "blocksize (2)");
  SY_EXPECT_ERROR(Infer("space_to_depth", {F32({1, 2, 4, 3})}, b2),
                  "its dimension 3 (3) must be divisible by blocksize (2)");
  SY_EXPECT_ERROR(Infer("space_to_depth", {F32({1, 2, 4, 4, 1})}, b2), "must have rank 4");
  SY_EXPECT_ERROR(Infer("space_to_depth", {F32({1, 2, 4, 4})},
                        MakeAttrs({{"blocksize", int64_t{2}}, {"mode", std::string("DCR")}})),
                  "unknown attribute mode");
}

TEST(NeuralSchemas, Attention) {
  // q [B, Hq, S, D], k [B, Hkv, T, D], v [B, Hkv, T, Dv] -> [B, Hq, S, Dv]
  EXPECT_OUTPUT(Infer("attention", {F32({2, 8, 10, 64}), F32({2, 8, 12, 64}), F32({2, 8, 12, 32})}),
                F32({2, 8, 10, 32}));
  // Grouped-query: 8 query heads share 2 key/value heads.
  EXPECT_OUTPUT(Infer("attention", {F32({2, 8, 10, 64}), F32({2, 2, 12, 64}), F32({2, 2, 12, 64})},
                      MakeAttrs({{"scale", 0.125}, {"is_causal", int64_t{1}}})),
                F32({2, 8, 10, 64}));
  // Multi-query: one key/value head.
  EXPECT_OUTPUT(Infer("attention", {T(DType::kF16, {1, 4, 3, 8}), T(DType::kF16, {1, 1, 5, 8}),
                                    T(DType::kF16, {1, 1, 5, 16})}),
                T(DType::kF16, {1, 4, 3, 16}));
}

TEST(NeuralSchemas, AttentionMasks) {
  const TensorType q = F32({2, 8, 10, 64});
  const TensorType k = F32({2, 2, 12, 64});
  const TensorType v = F32({2, 2, 12, 32});
  const TensorType out = F32({2, 8, 10, 32});
  EXPECT_OUTPUT(Infer("attention", {q, k, v, F32({10, 12})}), out);        // additive
  EXPECT_OUTPUT(Infer("attention", {q, k, v, F32({2, 8, 10, 12})}), out);  // full
  EXPECT_OUTPUT(Infer("attention", {q, k, v, F32({1, 8, 1, 12})}), out);   // broadcast
  EXPECT_OUTPUT(Infer("attention", {q, k, v, T(DType::kBool, {2, 1, 10, 12})}), out);
  EXPECT_OUTPUT(Infer("attention", {q, k, v, T(DType::kBool, {12})}), out);
  EXPECT_OUTPUT(Infer("attention", {T(DType::kBF16, {1, 2, 3, 4}), T(DType::kBF16, {1, 2, 5, 4}),
                                    T(DType::kBF16, {1, 2, 5, 4}), T(DType::kBF16, {3, 5})}),
                T(DType::kBF16, {1, 2, 3, 4}));
  SY_EXPECT_ERROR(Infer("attention", {q, k, v, T(DType::kF16, {10, 12})}),
                  "input mask has dtype f16 but must be bool or input q's dtype f32");
  SY_EXPECT_ERROR(Infer("attention", {q, k, v, T(DType::kI32, {10, 12})}),
                  "input 3 (mask) has dtype i32");
  // The mask's rows are S = 10 and its columns T = 12, never the other way round.
  SY_EXPECT_ERROR(Infer("attention", {q, k, v, F32({12, 10})}),
                  "input mask has shape [12, 10] which does not broadcast to the attention "
                  "scores' shape [2, 8, 10, 12] ([B, Hq, S, T])");
  // Per key/value head is not per query head: [2, 2, 10, 12] does not broadcast.
  SY_EXPECT_ERROR(Infer("attention", {q, k, v, F32({2, 2, 10, 12})}),
                  "input mask has shape [2, 2, 10, 12]");
  SY_EXPECT_ERROR(Infer("attention", {q, k, v, F32({1, 2, 8, 10, 12})}),
                  "input mask has shape [1, 2, 8, 10, 12] which does not broadcast");
  SY_EXPECT_ERROR(Infer("attention", {q, k, v, F32({10, 12}), F32({10, 12})}),
                  "takes 3 to 4 inputs but has 5");
}

TEST(NeuralSchemas, AttentionErrors) {
  const TensorType q = F32({2, 8, 10, 64});
  SY_EXPECT_ERROR(Infer("attention", {F32({2, 10, 64}), F32({2, 12, 64}), F32({2, 12, 64})}),
                  "input q has shape [2, 10, 64] but must have rank 4");
  SY_EXPECT_ERROR(Infer("attention", {q, F32({2, 12, 64}), F32({2, 8, 12, 64})}),
                  "input k has shape [2, 12, 64] but must have rank 4");
  SY_EXPECT_ERROR(Infer("attention", {q, F32({2, 8, 12, 64}), F32({2, 8, 12})}),
                  "input v has shape [2, 8, 12] but must have rank 4");
  SY_EXPECT_ERROR(Infer("attention", {q, F32({1, 8, 12, 64}), F32({1, 8, 12, 64})}),
                  "input k has shape [1, 8, 12, 64] but its dimension 0 (1) must equal input q's "
                  "batch 2");
  SY_EXPECT_ERROR(Infer("attention", {q, F32({2, 8, 12, 32}), F32({2, 8, 12, 64})}),
                  "input k has shape [2, 8, 12, 32] but its dimension 3 (32) must equal input q's "
                  "head size 64");
  SY_EXPECT_ERROR(Infer("attention", {q, F32({2, 3, 12, 64}), F32({2, 3, 12, 64})}),
                  "input k has shape [2, 3, 12, 64] but its dimension 1 (3) must divide input q's "
                  "number of heads 8 (grouped-query)");
  SY_EXPECT_ERROR(Infer("attention", {q, F32({2, 16, 12, 64}), F32({2, 16, 12, 64})}),
                  "its dimension 1 (16) must divide input q's number of heads 8");
  SY_EXPECT_ERROR(Infer("attention", {q, F32({2, 0, 12, 64}), F32({2, 0, 12, 64})}),
                  "its dimension 1 (0) must divide input q's number of heads 8");
  SY_EXPECT_ERROR(Infer("attention", {q, F32({2, 2, 12, 64}), F32({1, 2, 12, 64})}),
                  "input v has shape [1, 2, 12, 64] but its dimension 0 (1) must equal input q's "
                  "batch 2");
  SY_EXPECT_ERROR(Infer("attention", {q, F32({2, 2, 12, 64}), F32({2, 4, 12, 64})}),
                  "input v has shape [2, 4, 12, 64] but its dimension 1 (4) must equal input k's "
                  "number of heads 2");
  SY_EXPECT_ERROR(Infer("attention", {q, F32({2, 2, 12, 64}), F32({2, 2, 11, 64})}),
                  "input v has shape [2, 2, 11, 64] but its dimension 2 (11) must equal input k's "
                  "sequence length 12");
  const TensorType k = F32({2, 2, 12, 64});
  SY_EXPECT_ERROR(Infer("attention", {q, k, k}, MakeAttrs({{"is_causal", int64_t{2}}})),
                  "attribute is_causal is 2 but must be 0 or 1");
  SY_EXPECT_ERROR(Infer("attention", {q, k, k},
                        MakeAttrs({{"scale", std::numeric_limits<double>::quiet_NaN()}})),
                  "attribute scale is nan but must be finite");
  SY_EXPECT_ERROR(Infer("attention", {q, k, k}, MakeAttrs({{"scale", std::string("auto")}})),
                  "attribute scale is \"auto\" (string) but must be float");
  SY_EXPECT_ERROR(Infer("attention", {q, T(DType::kF16, {2, 2, 12, 64}), k}),
                  "input 1 (k) has dtype f16 but must match input 0 (f32)");
  SY_EXPECT_ERROR(Infer("attention", {T(DType::kI32, {1, 1, 1, 1}), T(DType::kI32, {1, 1, 1, 1}),
                                      T(DType::kI32, {1, 1, 1, 1})}),
                  "input 0 (q) has dtype i32");
  SY_EXPECT_ERROR(Infer("attention", {q, k}), "takes 3 to 4 inputs but has 2");
  SY_EXPECT_ERROR(Infer("attention", {q, k, k}, MakeAttrs({{"softcap", 0.0}})),
                  "unknown attribute softcap");
}

TEST(NeuralSchemas, RotaryEmbedding) {
  // x [B, H, S, D], cos and sin [S, rotary_dim / 2] with rotary_dim = D by default
  EXPECT_OUTPUT(Infer("rotary_embedding", {F32({2, 4, 10, 64}), F32({10, 32}), F32({10, 32})}),
                F32({2, 4, 10, 64}));
  // Partial rotation of the first 32 of 64 dims.
  EXPECT_OUTPUT(Infer("rotary_embedding", {F32({2, 4, 10, 64}), F32({10, 16}), F32({10, 16})},
                      MakeAttrs({{"rotary_dim", int64_t{32}}, {"interleaved", int64_t{1}}})),
                F32({2, 4, 10, 64}));
  EXPECT_OUTPUT(
      Infer("rotary_embedding",
            {T(DType::kF16, {1, 1, 3, 5}), T(DType::kF16, {3, 1}), T(DType::kF16, {3, 1})},
            MakeAttrs({{"rotary_dim", int64_t{2}}})),
      T(DType::kF16, {1, 1, 3, 5}));
}

TEST(NeuralSchemas, RotaryEmbeddingErrors) {
  const TensorType x = F32({2, 4, 10, 64});
  const TensorType c32 = F32({10, 32});
  const auto with_dim = [](int64_t d) { return MakeAttrs({{"rotary_dim", d}}); };
  SY_EXPECT_ERROR(Infer("rotary_embedding", {x, F32({10, 16}), F32({10, 16})}, with_dim(33)),
                  "attribute rotary_dim is 33 but must be even, positive and at most input x's "
                  "head size (dimension 3 of [2, 4, 10, 64])");
  SY_EXPECT_ERROR(Infer("rotary_embedding", {x, F32({10, 0}), F32({10, 0})}, with_dim(0)),
                  "attribute rotary_dim is 0 but must be even, positive");
  SY_EXPECT_ERROR(Infer("rotary_embedding", {x, F32({10, 64}), F32({10, 64})}, with_dim(128)),
                  "attribute rotary_dim is 128");
  SY_EXPECT_ERROR(Infer("rotary_embedding", {F32({1, 1, 3, 5}), F32({3, 2}), F32({3, 2})}),
                  "input x has shape [1, 1, 3, 5] but its dimension 3 (5) must be even");
  SY_EXPECT_ERROR(Infer("rotary_embedding", {x, F32({10, 16}), F32({10, 16})}),
                  "input cos has shape [10, 16] but must be [10, 32] ([S, rotary_dim / 2] with S "
                  "= dimension 2 of input x [2, 4, 10, 64])");
  SY_EXPECT_ERROR(Infer("rotary_embedding", {x, c32, F32({12, 32})}),
                  "input sin has shape [12, 32] but must be [10, 32]");
  // The ONNX form without position_ids ([B, S, rotary_dim / 2]) is not the catalogue's.
  SY_EXPECT_ERROR(Infer("rotary_embedding", {x, F32({2, 10, 32}), F32({2, 10, 32})}),
                  "input cos has shape [2, 10, 32] but must be [10, 32]");
  SY_EXPECT_ERROR(Infer("rotary_embedding", {F32({2, 10, 64}), c32, c32}),
                  "input x has shape [2, 10, 64] but must have rank 4");
  SY_EXPECT_ERROR(
      Infer("rotary_embedding", {x, c32, c32}, MakeAttrs({{"interleaved", int64_t{2}}})),
      "attribute interleaved is 2 but must be 0 or 1");
  SY_EXPECT_ERROR(Infer("rotary_embedding", {x, T(DType::kF16, {10, 32}), c32}),
                  "input 1 (cos) has dtype f16 but must match input 0 (f32)");
  SY_EXPECT_ERROR(Infer("rotary_embedding", {x, c32}), "takes 3 inputs but has 2");
  SY_EXPECT_ERROR(Infer("rotary_embedding", {x, c32, c32}, MakeAttrs({{"num_heads", int64_t{4}}})),
                  "unknown attribute num_heads");
}

}  // namespace
}  // namespace sy
