// Reference kernels of the conv_pool family (conv, qlinear_conv, conv_transpose, max_pool,
// avg_pool, global_avg_pool): hand-derived cases (including the ONNX operator examples),
// identities (conv_transpose is conv's adjoint), and NumPy references written by
// tools/kernel_refs/linalg_conv.py into tests/data/kernels/linalg_conv/ (each case's
// attributes are repeated here under the script's case name).
#include "linalg_conv_pool_test_util.h"

namespace sy::cpu::test {
namespace {

// ---------------------------------------------------------------------------------------
// conv

TEST(ConvPoolRefConv, Hand1d) {
  // w = [1, 0, -1] with pads 1: y[i] = x[i - 1] - x[i + 1] (+ bias 10).
  const Tensor y =
      RunRef1("conv", {F32({1, 1, 5}, {1, 2, 3, 4, 5}), F32({1, 1, 3}, {1, 0, -1}), F32({1}, {10})},
              AttrsOf({{"pads", Ints({1, 1})}}));
  ExpectExact(y, {1, 1, 5}, {8, 8, 8, 8, 14});
}

TEST(ConvPoolRefConv, Hand2dStridesDilations) {
  // 4x4 input 0..15, 2x2 ones kernel dilated by 2, stride 2 in height, 1 in width.
  std::vector<double> x(16);
  for (int i = 0; i < 16; ++i) x[static_cast<size_t>(i)] = i;
  const Tensor y = RunRef1("conv", {F32({1, 1, 4, 4}, x), F32({1, 1, 2, 2}, {1, 1, 1, 1})},
                           AttrsOf({{"strides", Ints({2, 1})}, {"dilations", Ints({2, 2})}}));
  // Windows start at rows {0} (only one: (4 - 3) / 2 + 1 = 1) and columns {0, 1}:
  // x[0,0] + x[0,2] + x[2,0] + x[2,2] = 0 + 2 + 8 + 10 = 20; shifted right by one: 24.
  ExpectExact(y, {1, 1, 1, 2}, {20, 24});
}

TEST(ConvPoolRefConv, NumpyCases) {
  CheckCase("conv1d", "conv", {"x", "w", "b"},
            AttrsOf({{"strides", Ints({2})}, {"pads", Ints({1, 2})}}));
  CheckCase("conv2d_basic", "conv", {"x", "w"});
  CheckCase("conv2d_group", "conv", {"x", "w", "b"},
            AttrsOf({{"strides", Ints({2, 1})},
                     {"pads", Ints({1, 0, 2, 1})},
                     {"dilations", Ints({1, 2})},
                     {"group", int64_t{2}}}));
  CheckCase("conv2d_depthwise", "conv", {"x", "w", "b"},
            AttrsOf({{"pads", Ints({1, 1, 1, 1})}, {"group", int64_t{3}}}));
  CheckCase("conv3d", "conv", {"x", "w", "b"},
            AttrsOf({{"strides", Ints({1, 2, 1})},
                     {"pads", Ints({0, 1, 1, 1, 0, 0})},
                     {"dilations", Ints({2, 1, 1})}}));
  CheckCase("conv2d_f64", "conv", {"x", "w"}, AttrsOf({{"strides", Ints({2, 2})}}));
  CheckCase("conv2d_f16", "conv", {"x", "w", "b"}, AttrsOf({{"pads", Ints({1, 1, 1, 1})}}));
}

TEST(ConvPoolRefConv, BFloat16) {
  const Tensor y = RunRef1(
      "conv", {Make(DType::kBF16, {1, 1, 2, 2}, {1, 2, 3, 4}),
               Make(DType::kBF16, {1, 1, 2, 2}, {1, 1, 1, 1}), Make(DType::kBF16, {1}, {-2})});
  EXPECT_EQ(y.dtype(), DType::kBF16);
  ExpectExact(y, {1, 1, 1, 1}, {8});
}

TEST(ConvPoolRefConv, EmptyTensors) {
  // Empty batch.
  ExpectExact(RunRef1("conv", {F32({0, 2, 4}, {}), F32({3, 2, 2}, std::vector<double>(12, 1))}),
              {0, 3, 3}, {});
  // Empty spatial input whose pads still make one window: the output is the bias.
  ExpectExact(
      RunRef1("conv",
              {F32({1, 2, 0}, {}), F32({3, 2, 2}, std::vector<double>(12, 1)), F32({3}, {1, 2, 3})},
              AttrsOf({{"pads", Ints({1, 1})}})),
      {1, 3, 1}, {1, 2, 3});
  // No input channels: every output is its channel's bias.
  ExpectExact(RunRef1("conv", {F32({1, 0, 4}, {}), F32({2, 0, 3}, {}), F32({2}, {5, 6})}),
              {1, 2, 2}, {5, 5, 6, 6});
}

TEST(ConvPoolRefConv, NanAndInfPropagate) {
  // Only the windows that contain the NaN are NaN; inf * 0 is NaN.
  ExpectExact(RunRef1("conv", {F32({1, 1, 5}, {1, kNaN, 3, 4, 5}), F32({1, 1, 2}, {1, 1})}),
              {1, 1, 4}, {kNaN, kNaN, 7, 9});
  ExpectExact(RunRef1("conv", {F32({1, 1, 3}, {kInf, 1, 2}), F32({1, 1, 2}, {0, 1})}), {1, 1, 2},
              {kNaN, 2});
}

// ---------------------------------------------------------------------------------------
// qlinear_conv

// By hand: x u8 [1, 1, 4] = [10, 12, 9, 14] less x_zero_point 10 is x' = [0, 2, -1, 4]; w i8
// [2, 1, 3] = [[2, 1, 3], [-2, 0, 1]] less its per-channel zero points [1, -2] is
// w' = [[1, 0, 2], [0, 2, 3]]; bias [5, -3]; pads 1 on each side, so output o reads x'
// at o - 1, o, o + 1 and the taps at -1 and 4 add nothing (were the padding a raw 0
// rather than x_zero_point, o = 0 of channel 0 would gain 1 * (0 - 10) and o = 3 of
// channel 1 3 * (0 - 10)):
//   channel 0: 5 + [0*0 + 2*2, 1*0 + 0*2 + 2*-1, 1*2 + 0*-1 + 2*4, 1*-1 + 0*4]
//            = 5 + [4, -2, 10, -1] = [9, 3, 15, 4]
//   channel 1: -3 + [2*0 + 3*2, 0*0 + 2*2 + 3*-1, 0*2 + 2*-1 + 3*4, 0*-1 + 2*4]
//            = -3 + [6, 1, 10, 8] = [3, -2, 7, 5]
// x_scale 0.5, w_scale [0.5, 0.25], y_scale 0.5 (all exact in f32): multipliers
// 0.5 * 0.5 / 0.5 = 0.5 and 0.5 * 0.25 / 0.5 = 0.25. Products:
//   channel 0: [4.5, 1.5, 7.5, 2]       -> half to even: [4, 2, 8, 2]
//   channel 1: [0.75, -0.5, 1.75, 1.25] -> [1, -0 (a tie, to even), 2, 1]
// plus y_zero_point 100: [104, 102, 108, 102, 101, 100, 102, 101].
TEST(ConvPoolRefQLinearConv, HandZeroPointsPerChannelBiasPaddingAndTies) {
  const Tensor x = Make(DType::kU8, {1, 1, 4}, {10, 12, 9, 14});
  const Tensor w = Make(DType::kI8, {2, 1, 3}, {2, 1, 3, -2, 0, 1});
  const Tensor w_zero = Make(DType::kI8, {2}, {1, -2});
  const Tensor bias = Make(DType::kI32, {2}, {5, -3});
  const Attrs pads = AttrsOf({{"pads", Ints({1, 1})}});
  const auto run = [&](double x_scale, const Tensor& w_scale, double y_scale, DType y_type,
                       double y_zero) {
    return RunRef("qlinear_conv",
                  {x, F32({}, {x_scale}), Make(DType::kU8, {}, {10}), w, w_scale, w_zero,
                   F32({}, {y_scale}), Make(y_type, {}, {y_zero}), bias},
                  pads);
  };
  const Tensor w_scale = F32({2}, {0.5, 0.25});
  Expected<std::vector<Tensor>> y = run(0.5, w_scale, 0.5, DType::kU8, 100);
  ASSERT_TRUE(y.ok()) << y.status().message();
  EXPECT_EQ((*y)[0].dtype(), DType::kU8);
  ExpectExact((*y)[0], {1, 2, 4}, {104, 102, 108, 102, 101, 100, 102, 101});
  // y_scale 1/16: multipliers 4 and 2, no ties. With y_zero_point 3 (u8), channel 1's
  // -2 * 2 + 3 = -1 saturates to 0; with 230, channel 0's 9 * 4 + 230 = 266 and
  // 15 * 4 + 230 = 290 saturate to 255. As i8 with -100: all inside [-128, 127].
  y = run(0.5, w_scale, 0.0625, DType::kU8, 3);
  ASSERT_TRUE(y.ok()) << y.status().message();
  ExpectExact((*y)[0], {1, 2, 4}, {39, 15, 63, 19, 9, 0, 17, 13});
  y = run(0.5, w_scale, 0.0625, DType::kU8, 230);
  ASSERT_TRUE(y.ok()) << y.status().message();
  ExpectExact((*y)[0], {1, 2, 4}, {255, 242, 255, 246, 236, 226, 244, 240});
  y = run(0.5, w_scale, 0.0625, DType::kI8, -100);
  ASSERT_TRUE(y.ok()) << y.status().message();
  EXPECT_EQ((*y)[0].dtype(), DType::kI8);
  ExpectExact((*y)[0], {1, 2, 4}, {-64, -88, -40, -84, -94, -104, -86, -90});

  // Scales that are not positive and finite, and a multiplier that overflows, are
  // run-time errors naming the scale (and the output channel, w_scale being per channel).
  SY_EXPECT_ERROR(run(0.0, w_scale, 0.5, DType::kU8, 100),
                  "qlinear_conv: x_scale is 0 but scales must be positive and finite "
                  "(output channel 0)");
  SY_EXPECT_ERROR(run(0.5, F32({2}, {0.5, -0.25}), 0.5, DType::kU8, 100),
                  "qlinear_conv: w_scale is -0.25 but scales must be positive and finite "
                  "(output channel 1)");
  SY_EXPECT_ERROR(run(0.5, F32({}, {0.5}), kInf, DType::kU8, 100),
                  "qlinear_conv: y_scale is inf but scales must be positive and finite");
  SY_EXPECT_ERROR(run(0.5, F32({}, {0.5}), kNaN, DType::kU8, 100), "y_scale is nan");
  SY_EXPECT_ERROR(run(3e38, F32({}, {10}), 1, DType::kU8, 100),
                  "qlinear_conv: x_scale * w_scale / y_scale overflows f32");
}

// ---------------------------------------------------------------------------------------
// conv_transpose

TEST(ConvPoolRefConvTranspose, Hand1d) {
  // x = [1, 2], w = [1, 1, 1], stride 2: [1, 1, 1+2, 2, 2].
  const Tensor x = F32({1, 1, 2}, {1, 2});
  const Tensor w = F32({1, 1, 3}, {1, 1, 1});
  ExpectExact(RunRef1("conv_transpose", {x, w}, AttrsOf({{"strides", Ints({2})}})), {1, 1, 5},
              {1, 1, 3, 2, 2});
  // pads crop both ends; output_padding adds a zero at the end (then the bias).
  ExpectExact(
      RunRef1("conv_transpose", {x, w}, AttrsOf({{"strides", Ints({2})}, {"pads", Ints({1, 1})}})),
      {1, 1, 3}, {1, 3, 2});
  ExpectExact(RunRef1("conv_transpose", {x, w, F32({1}, {0.5})},
                      AttrsOf({{"strides", Ints({2})}, {"output_padding", Ints({1})}})),
              {1, 1, 6}, {1.5, 1.5, 3.5, 2.5, 2.5, 0.5});
  // Dilation 2: taps at 0, 2, 4 from each input position (stride 1): 1 at 0 2 4, 2 at 1 3 5.
  ExpectExact(RunRef1("conv_transpose", {x, w}, AttrsOf({{"dilations", Ints({2})}})), {1, 1, 6},
              {1, 2, 1, 2, 1, 2});
}

TEST(ConvPoolRefConvTranspose, HandGroups) {
  // Two groups of one channel each, two outputs per group: w [2, 2, 1].
  const Tensor y =
      RunRef1("conv_transpose", {F32({1, 2, 2}, {1, 2, 3, 4}), F32({2, 2, 1}, {1, 10, 100, 1000})},
              AttrsOf({{"group", int64_t{2}}}));
  ExpectExact(y, {1, 4, 2}, {1, 2, 10, 20, 300, 400, 3000, 4000});
}

TEST(ConvPoolRefConvTranspose, NumpyCases) {
  CheckCase(
      "convt1d", "conv_transpose", {"x", "w", "b"},
      AttrsOf({{"strides", Ints({2})}, {"pads", Ints({1, 0})}, {"output_padding", Ints({1})}}));
  CheckCase("convt2d_basic", "conv_transpose", {"x", "w"});
  CheckCase("convt2d_group", "conv_transpose", {"x", "w", "b"},
            AttrsOf({{"strides", Ints({2, 3})},
                     {"pads", Ints({0, 1, 1, 0})},
                     {"dilations", Ints({1, 2})},
                     {"group", int64_t{2}},
                     {"output_padding", Ints({1, 0})}}));
  CheckCase("convt3d", "conv_transpose", {"x", "w"},
            AttrsOf({{"strides", Ints({2, 1, 2})},
                     {"pads", Ints({1, 0, 0, 0, 1, 1})},
                     {"dilations", Ints({1, 2, 1})}}));
  CheckCase("convt2d_f16", "conv_transpose", {"x", "w"}, AttrsOf({{"strides", Ints({2, 2})}}));
}

// conv_transpose is conv's adjoint: <conv(x, w), u> == <x, conv_transpose(u, w)> for
// attributes where conv_transpose's output has x's shape.
TEST(ConvPoolRefConvTranspose, AdjointOfConv) {
  const Shape x_shape = {2, 4, 7, 6};
  const Shape w_shape = {6, 2, 3, 2};
  std::vector<double> xv(static_cast<size_t>(ElementCount(x_shape)));
  std::vector<double> wv(static_cast<size_t>(ElementCount(w_shape)));
  for (size_t i = 0; i < xv.size(); ++i) xv[i] = std::sin(0.37 * static_cast<double>(i) + 0.1);
  for (size_t i = 0; i < wv.size(); ++i) wv[i] = std::cos(0.91 * static_cast<double>(i));
  const Attrs attrs = AttrsOf({{"strides", Ints({2, 1})},
                               {"pads", Ints({1, 0, 1, 1})},
                               {"dilations", Ints({1, 2})},
                               {"group", int64_t{2}}});
  const Tensor x = Make(DType::kF64, x_shape, xv);
  const Tensor w = Make(DType::kF64, w_shape, wv);
  const Tensor cx = RunRef1("conv", {x, w}, attrs);
  ASSERT_EQ(cx.shape(), (Shape{2, 6, 4, 5}));
  std::vector<double> uv(static_cast<size_t>(cx.element_count()));
  for (size_t i = 0; i < uv.size(); ++i) uv[i] = std::cos(0.53 * static_cast<double>(i) + 0.3);
  const Tensor u = Make(DType::kF64, cx.shape(), uv);
  // (4 - 1) * 2 + 3 - 2 = 7 and (5 - 1) + 3 - 1 = 6 with output_padding [0, 0]: x's shape.
  const Tensor tu = RunRef1("conv_transpose", {u, w}, attrs);
  ASSERT_EQ(tu.shape(), x_shape);
  const std::vector<double> cxv = Values(cx);
  const std::vector<double> tuv = Values(tu);
  double lhs = 0.0;
  double rhs = 0.0;
  for (size_t i = 0; i < uv.size(); ++i) lhs += cxv[i] * uv[i];
  for (size_t i = 0; i < xv.size(); ++i) rhs += xv[i] * tuv[i];
  EXPECT_NEAR(lhs, rhs, 1e-9 * (1.0 + std::fabs(lhs)));
}

TEST(ConvPoolRefConvTranspose, BFloat16AndEmpty) {
  const Tensor y = RunRef1("conv_transpose", {Make(DType::kBF16, {1, 1, 2}, {1, 2}),
                                              Make(DType::kBF16, {1, 1, 2}, {1, 4})});
  EXPECT_EQ(y.dtype(), DType::kBF16);
  ExpectExact(y, {1, 1, 3}, {1, 6, 8});
  // No input channels: the bias alone.
  ExpectExact(RunRef1("conv_transpose", {F32({1, 0, 3}, {}), F32({0, 2, 2}, {}), F32({2}, {7, 8})}),
              {1, 2, 4}, {7, 7, 7, 7, 8, 8, 8, 8});
  ExpectExact(RunRef1("conv_transpose", {F32({0, 1, 3}, {}), F32({1, 2, 2}, {1, 1, 1, 1})}),
              {0, 2, 4}, {});
}

TEST(ConvPoolRefConvTranspose, NanPropagates) {
  ExpectExact(RunRef1("conv_transpose", {F32({1, 1, 3}, {1, kNaN, 1}), F32({1, 1, 1}, {2})}),
              {1, 1, 3}, {2, kNaN, 2});
}

// ---------------------------------------------------------------------------------------
// max_pool

TEST(ConvPoolRefMaxPool, Hand) {
  const Tensor x = F32({1, 1, 5}, {1, 3, 2, 5, 4});
  ExpectExact(
      RunRef1("max_pool", {x}, AttrsOf({{"kernel_shape", Ints({2})}, {"strides", Ints({2})}})),
      {1, 1, 2}, {3, 5});
  // ceil_mode keeps the last, partial window [4].
  ExpectExact(RunRef1("max_pool", {x},
                      AttrsOf({{"kernel_shape", Ints({2})},
                               {"strides", Ints({2})},
                               {"ceil_mode", int64_t{1}}})),
              {1, 1, 3}, {3, 5, 4});
}

TEST(ConvPoolRefMaxPool, PaddingNeverWins) {
  // All negative: a zero pad would win if padding took part.
  const Tensor y = RunRef1("max_pool", {F32({1, 1, 3}, {-3, -1, -2})},
                           AttrsOf({{"kernel_shape", Ints({2})}, {"pads", Ints({1, 1})}}));
  ExpectExact(y, {1, 1, 4}, {-3, -1, -1, -2});
}

TEST(ConvPoolRefMaxPool, NanAndInf) {
  const Attrs k2 = AttrsOf({{"kernel_shape", Ints({2})}});
  // NaN wins wherever it is in the window, first or later.
  ExpectExact(RunRef1("max_pool", {F32({1, 1, 4}, {1, kNaN, 3, 4})}, k2), {1, 1, 3},
              {kNaN, kNaN, 4});
  ExpectExact(RunRef1("max_pool", {F32({1, 1, 3}, {kNaN, 5, kInf})}, k2), {1, 1, 2}, {kNaN, kInf});
  ExpectExact(RunRef1("max_pool", {F32({1, 1, 3}, {-kInf, -kInf, 1})}, k2), {1, 1, 2}, {-kInf, 1});
}

TEST(ConvPoolRefMaxPool, NumpyCases) {
  CheckCase("maxpool1d", "max_pool", {"x"},
            AttrsOf({{"kernel_shape", Ints({3})}, {"strides", Ints({2})}, {"pads", Ints({1, 1})}}));
  CheckCase("maxpool2d_ceil", "max_pool", {"x"},
            AttrsOf({{"kernel_shape", Ints({3, 2})},
                     {"strides", Ints({2, 2})},
                     {"pads", Ints({1, 0, 1, 1})},
                     {"dilations", Ints({1, 2})},
                     {"ceil_mode", int64_t{1}}}));
  CheckCase("maxpool3d", "max_pool", {"x"},
            AttrsOf({{"kernel_shape", Ints({2, 2, 3})}, {"strides", Ints({2, 1, 2})}}));
  CheckCase("maxpool4d", "max_pool", {"x"},
            AttrsOf({{"kernel_shape", Ints({2, 2, 2, 2})}, {"strides", Ints({1, 2, 1, 2})}}));
  CheckCase(
      "maxpool2d_f16", "max_pool", {"x"},
      AttrsOf(
          {{"kernel_shape", Ints({2, 2})}, {"strides", Ints({2, 2})}, {"ceil_mode", int64_t{1}}}));
}

// A dilated window can miss x entirely: max_pool gives -inf (max of nothing), avg_pool
// NaN (0 / 0) without count_include_pad, 0 / (taps in the padded input) with it.
TEST(ConvPoolRefMaxPool, WindowWithoutInputElements) {
  // x = [7], kernel 2 dilated by 3 (taps 3 apart), pads [2, 1]: the one window has taps
  // at -2 and 1, both in the padding.
  const Attrs attrs =
      AttrsOf({{"kernel_shape", Ints({2})}, {"dilations", Ints({3})}, {"pads", Ints({2, 1})}});
  const Tensor x = F32({1, 1, 1}, {7});
  ExpectExact(RunRef1("max_pool", {x}, attrs), {1, 1, 1}, {-kInf});
  ExpectExact(RunRef1("avg_pool", {x}, attrs), {1, 1, 1}, {kNaN});
  Attrs cip = attrs;
  cip.Set("count_include_pad", int64_t{1});
  ExpectExact(RunRef1("avg_pool", {x}, cip), {1, 1, 1}, {0});
}

TEST(ConvPoolRefMaxPool, OtherDTypesAndEmpty) {
  const Tensor y = RunRef1("max_pool", {Make(DType::kBF16, {1, 1, 2, 2}, {1, -2, 3.5, 0})},
                           AttrsOf({{"kernel_shape", Ints({2, 2})}}));
  EXPECT_EQ(y.dtype(), DType::kBF16);
  ExpectExact(y, {1, 1, 1, 1}, {3.5});
  const Tensor y64 = RunRef1("max_pool", {Make(DType::kF64, {1, 1, 3}, {0.1, 1e300, -1e300})},
                             AttrsOf({{"kernel_shape", Ints({2})}}));
  EXPECT_EQ(y64.dtype(), DType::kF64);
  ExpectExact(y64, {1, 1, 2}, {1e300, 1e300});
  ExpectExact(RunRef1("max_pool", {F32({0, 2, 4}, {})}, AttrsOf({{"kernel_shape", Ints({2})}})),
              {0, 2, 3}, {});
  // Empty spatial input padded to one window: nothing to take the max of.
  ExpectExact(RunRef1("max_pool", {F32({1, 1, 0}, {})},
                      AttrsOf({{"kernel_shape", Ints({2})}, {"pads", Ints({1, 1})}})),
              {1, 1, 1}, {-kInf});
}

// ---------------------------------------------------------------------------------------
// avg_pool

std::vector<double> OneTo(int n) {
  std::vector<double> v(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) v[static_cast<size_t>(i)] = i + 1;
  return v;
}

TEST(ConvPoolRefAvgPool, OnnxExamples) {
  // ONNX's AveragePool examples: 5x5 input 1..25, kernel 5, pads 2.
  const Tensor x = F32({1, 1, 5, 5}, OneTo(25));
  const Attrs pads = AttrsOf({{"kernel_shape", Ints({5, 5})}, {"pads", Ints({2, 2, 2, 2})}});
  ExpectClose(RunRef1("avg_pool", {x}, pads), {1, 1, 5, 5},
              {7,    7.5, 8,    8.5, 9,    9.5, 10,   10.5, 11,   11.5, 12,   12.5, 13,
               13.5, 14,  14.5, 15,  15.5, 16,  16.5, 17,   17.5, 18,   18.5, 19},
              1e-6, 0);
  Attrs cip = pads;
  cip.Set("count_include_pad", int64_t{1});
  ExpectClose(RunRef1("avg_pool", {x}, cip), {1, 1, 5, 5},
              {2.52, 3.6, 4.8,  4.08, 3.24, 4.56,  6.4,  8.4,  7.04, 5.52, 7.2,  10,  13,
               10.8, 8.4, 6.96, 9.6,  12.4, 10.24, 7.92, 6.12, 8.4,  10.8, 8.88, 6.84},
              1e-6, 0);
  // averagepool_2d_ceil: 4x4 input 1..16, kernel 3, stride 2, ceil_mode.
  const Tensor x4 = F32({1, 1, 4, 4}, OneTo(16));
  ExpectExact(RunRef1("avg_pool", {x4},
                      AttrsOf({{"kernel_shape", Ints({3, 3})},
                               {"strides", Ints({2, 2})},
                               {"ceil_mode", int64_t{1}}})),
              {1, 1, 2, 2}, {6, 7.5, 12, 13.5});
  // averagepool_2d_dilations: kernel 2 dilated by 2, ceil_mode.
  ExpectExact(RunRef1("avg_pool", {x4},
                      AttrsOf({{"kernel_shape", Ints({2, 2})},
                               {"dilations", Ints({2, 2})},
                               {"ceil_mode", int64_t{1}}})),
              {1, 1, 2, 2}, {6, 7, 10, 11});
}

TEST(ConvPoolRefAvgPool, CeilModeOverhangIsNotCounted) {
  // [1, 2, 3, 4, 5], kernel 2, stride 2, ceil_mode: the last window holds only 5 and runs
  // past the (empty) end padding, so even with count_include_pad it divides by 1.
  const Tensor x = F32({1, 1, 5}, OneTo(5));
  for (const int64_t cip : {0, 1}) {
    SCOPED_TRACE("count_include_pad " + std::to_string(cip));
    ExpectExact(RunRef1("avg_pool", {x},
                        AttrsOf({{"kernel_shape", Ints({2})},
                                 {"strides", Ints({2})},
                                 {"ceil_mode", int64_t{1}},
                                 {"count_include_pad", cip}})),
                {1, 1, 3}, {1.5, 3.5, 5});
  }
  // x = [1, 2, 3, 4] with pads [1, 1], kernel 3, stride 2: windows start at -1, 1 and (by
  // ceil_mode) 3. The last covers 3 (x), 4 (the end pad, counted) and 5 (past the end pad,
  // not counted): 4 / 2.
  const Attrs attrs = AttrsOf({{"kernel_shape", Ints({3})},
                               {"strides", Ints({2})},
                               {"pads", Ints({1, 1})},
                               {"ceil_mode", int64_t{1}},
                               {"count_include_pad", int64_t{1}}});
  ExpectClose(RunRef1("avg_pool", {F32({1, 1, 4}, OneTo(4))}, attrs), {1, 1, 3},
              {3.0 / 3, 9.0 / 3, 4.0 / 2}, 1e-7, 0);
}

// The case of onnx/onnx#5276 with the values PyTorch's AvgPool1d(7, 3, 3, ceil_mode=True,
// count_include_pad=True) prints there: the last window (starting at 6) covers x[6..8],
// the end pad (9..11) and one tap past it (12), so it divides by 6, not by 7.
TEST(ConvPoolRefAvgPool, PyTorchCeilModeExample) {
  const Tensor x =
      F32({1, 2, 9}, {2.0903, 4.6493, 1.6320, -3.2051, 4.6975, 4.7296, 3.3653, -1.5815, -2.3832,
                      0.9628, -1.5899, -2.6820, 5.7529, 7.7346, -0.8910, -2.0151, 0.1313, -0.5374});
  const Tensor y = RunRef1("avg_pool", {x},
                           AttrsOf({{"kernel_shape", Ints({7})},
                                    {"strides", Ints({3})},
                                    {"pads", Ints({3, 3})},
                                    {"ceil_mode", int64_t{1}},
                                    {"count_include_pad", int64_t{1}}}));
  ExpectClose(y, {1, 2, 4}, {0.7381, 2.5656, 0.8032, -0.0999, 0.3491, 1.0389, 1.4536, -0.4035}, 0,
              1e-4);
}

TEST(ConvPoolRefAvgPool, NumpyCases) {
  const Attrs base = AttrsOf({{"kernel_shape", Ints({3, 3})},
                              {"strides", Ints({2, 2})},
                              {"pads", Ints({1, 1, 1, 1})},
                              {"ceil_mode", int64_t{1}}});
  CheckCase("avgpool2d_cip0", "avg_pool", {"x"}, base);
  Attrs cip = base;
  cip.Set("count_include_pad", int64_t{1});
  CheckCase("avgpool2d_cip1", "avg_pool", {"x"}, cip);
  CheckCase("avgpool1d_ceil_cip1", "avg_pool", {"x"},
            AttrsOf({{"kernel_shape", Ints({7})},
                     {"strides", Ints({3})},
                     {"pads", Ints({3, 3})},
                     {"ceil_mode", int64_t{1}},
                     {"count_include_pad", int64_t{1}}}));
  for (const int64_t c : {0, 1}) {
    CheckCase("avgpool3d_cip" + std::to_string(c), "avg_pool", {"x"},
              AttrsOf({{"kernel_shape", Ints({2, 3, 2})},
                       {"strides", Ints({3, 2, 2})},
                       {"pads", Ints({1, 0, 1, 0, 1, 0})},
                       {"dilations", Ints({2, 1, 2})},
                       {"ceil_mode", int64_t{1}},
                       {"count_include_pad", c}}));
  }
  CheckCase("avgpool2d_floor_cip1", "avg_pool", {"x"},
            AttrsOf({{"kernel_shape", Ints({2, 3})},
                     {"strides", Ints({2, 2})},
                     {"pads", Ints({1, 2, 0, 1})},
                     {"count_include_pad", int64_t{1}}}));
  CheckCase("avgpool2d_f16", "avg_pool", {"x"},
            AttrsOf({{"kernel_shape", Ints({3, 3})}, {"pads", Ints({1, 1, 1, 1})}}));
}

TEST(ConvPoolRefAvgPool, NanInfOtherDTypesAndEmpty) {
  const Attrs k2 = AttrsOf({{"kernel_shape", Ints({2})}});
  ExpectExact(RunRef1("avg_pool", {F32({1, 1, 3}, {1, kNaN, 3})}, k2), {1, 1, 2}, {kNaN, kNaN});
  ExpectExact(RunRef1("avg_pool", {F32({1, 1, 3}, {kInf, -kInf, 1})}, k2), {1, 1, 2},
              {kNaN, -kInf});
  const Tensor y = RunRef1("avg_pool", {Make(DType::kBF16, {1, 1, 3}, {1, 2, 6})}, k2);
  EXPECT_EQ(y.dtype(), DType::kBF16);
  ExpectExact(y, {1, 1, 2}, {1.5, 4});
  const Tensor y64 = RunRef1("avg_pool", {Make(DType::kF64, {1, 1, 3}, {0.1, 0.2, 1e300})}, k2);
  EXPECT_EQ(y64.dtype(), DType::kF64);
  ExpectExact(y64, {1, 1, 2}, {(0.1 + 0.2) / 2, (0.2 + 1e300) / 2});
  ExpectExact(RunRef1("avg_pool", {F32({2, 0, 3}, {})}, k2), {2, 0, 2}, {});
}

// ---------------------------------------------------------------------------------------
// global_avg_pool

TEST(ConvPoolRefGlobalAvgPool, Hand) {
  const Tensor y = RunRef1("global_avg_pool", {F32({1, 2, 2, 2}, {1, 2, 3, 4, -1, -1, 5, 9})});
  ExpectExact(y, {1, 2, 1, 1}, {2.5, 3});
}

TEST(ConvPoolRefGlobalAvgPool, NumpyCases) {
  CheckCase("gap2d", "global_avg_pool", {"x"});
  CheckCase("gap1d_f64", "global_avg_pool", {"x"});
  CheckCase("gap3d_f16", "global_avg_pool", {"x"});
}

TEST(ConvPoolRefGlobalAvgPool, NanBFloat16AndEmpty) {
  ExpectExact(RunRef1("global_avg_pool", {F32({1, 2, 2}, {kNaN, 1, 2, 4})}), {1, 2, 1}, {kNaN, 3});
  const Tensor y = RunRef1("global_avg_pool", {Make(DType::kBF16, {1, 1, 4}, {1, 2, 3, 6})});
  EXPECT_EQ(y.dtype(), DType::kBF16);
  ExpectExact(y, {1, 1, 1}, {3});
  // Mean of nothing is NaN (as in NumPy); an empty batch gives an empty output.
  ExpectExact(RunRef1("global_avg_pool", {F32({1, 2, 0}, {})}), {1, 2, 1}, {kNaN, kNaN});
  ExpectExact(RunRef1("global_avg_pool", {F32({0, 3, 4, 4}, {})}), {0, 3, 1, 1}, {});
}

// max_pool's indices (ONNX MaxPool's Indices): the flat index into x of each window's
// maximum, the first of equal ones; row-major over [N, C, H, W], or column-major within
// each plane (storage_order 1). Hand-derived on two channels.
TEST(ConvPoolRefMaxPool, IndicesRowAndColumnMajor) {
  const Tensor x = F32({1, 2, 2, 3}, {1, 5, 2, 4, 5, 0, 9, 8, 7, 6, 5, 4});
  for (int64_t order : {0, 1}) {
    Expected<std::vector<Tensor>> out = RunRef(
        "max_pool", {x}, AttrsOf({{"kernel_shape", Ints({2, 2})}, {"storage_order", order}}), 2);
    ASSERT_TRUE(out.ok()) << out.status().message();
    ExpectExact((*out)[0], {1, 2, 1, 2}, {5, 5, 9, 8});
    // Channel 0: both windows take x[0, 0, 0, 1] (the first 5). Channel 1 (base 6): 9 at
    // (0, 0) and 8 at (0, 1). Column-major in a 2 x 3 plane: (h, w) -> w * 2 + h.
    const std::vector<double> want =
        order == 0 ? std::vector<double>{1, 1, 6, 7} : std::vector<double>{2, 2, 6, 8};
    ExpectExact((*out)[1], {1, 2, 1, 2}, want);
    EXPECT_EQ((*out)[1].dtype(), DType::kI64);
  }
}

// deform_conv on x = 3 * row + col (3 x 3), a 2 x 2 kernel of ones: zero offsets are a
// plain conv; offsets of +0.5 along w sample between columns, and a sample past the last
// column reads half of it (its other neighbour is outside: 0). Hand-derived.
TEST(ConvPoolRefDeformConv, HandDerived) {
  std::vector<double> v(9);
  for (int i = 0; i < 9; ++i) v[static_cast<size_t>(i)] = i;
  const Tensor x = F32({1, 1, 3, 3}, v);
  const Tensor w = F32({1, 1, 2, 2}, {1, 1, 1, 1});
  std::vector<double> zero(32, 0.0), shift(32, 0.0);
  // offset [1, 2 * 4 taps, 2, 2]: tap t's h offsets at channel 2t, w offsets at 2t + 1.
  for (int t = 0; t < 4; ++t) {
    for (int p = 0; p < 4; ++p) shift[static_cast<size_t>((2 * t + 1) * 4 + p)] = 0.5;
  }
  ExpectClose(RunRef1("deform_conv", {x, w, F32({1, 8, 2, 2}, zero)}), {1, 1, 2, 2},
              {8, 12, 20, 24}, 1e-6, 1e-6);
  // (0,0): 0.5 + 1.5 + 3.5 + 4.5; (0,1): 1.5 + 0.5 * 2 + 4.5 + 0.5 * 5; (1,0): 3.5 + 4.5 +
  // 6.5 + 7.5; (1,1): 4.5 + 0.5 * 5 + 7.5 + 0.5 * 8.
  ExpectClose(RunRef1("deform_conv", {x, w, F32({1, 8, 2, 2}, shift)}), {1, 1, 2, 2},
              {10, 9.5, 22, 18.5}, 1e-6, 1e-6);
  // A mask of 0.5 halves every tap; the bias adds.
  ExpectClose(RunRef1("deform_conv", {x, w, F32({1, 8, 2, 2}, zero), F32({1}, {100}),
                                      F32({1, 4, 2, 2}, std::vector<double>(16, 0.5))}),
              {1, 1, 2, 2}, {104, 106, 110, 112}, 1e-6, 1e-6);
}

// roi_align on x = 4 * row + col (a plane bilinear sampling reproduces exactly), so
// every sample's value is its coordinate's: hand-derived.
TEST(ConvPoolRefRoiAlign, HandDerivedOnALinearPlane) {
  std::vector<double> v(16);
  for (int i = 0; i < 16; ++i) v[static_cast<size_t>(i)] = i;
  const Tensor x = F32({1, 1, 4, 4}, v);
  const Tensor index = Make(DType::kI64, {1}, {0});
  auto attrs = [](int64_t h, int64_t w, int64_t ratio, const char* coord) {
    return AttrsOf({{"output_height", h},
                    {"output_width", w},
                    {"sampling_ratio", ratio},
                    {"coordinate_transformation_mode", std::string(coord)}});
  };
  // Box (0, 0)-(3, 3), one bin, 2 x 2 samples at 0.75 and 2.25: 4 * 1.5 + 1.5.
  ExpectClose(RunRef1("roi_align", {x, F32({1, 4}, {0, 0, 3, 3}), index},
                      attrs(1, 1, 2, "output_half_pixel")),
              {1, 1, 1, 1}, {7.5}, 1e-6, 1e-6);
  // half_pixel shifts the box by -0.5: samples at 0.25 and 1.75 -> 4 * 1 + 1.
  ExpectClose(
      RunRef1("roi_align", {x, F32({1, 4}, {0, 0, 3, 3}), index}, attrs(1, 1, 2, "half_pixel")),
      {1, 1, 1, 1}, {5}, 1e-6, 1e-6);
  // Two bins across x (1.5 wide, adaptive: ceil(1.5) = 2 samples each): x samples 0.375,
  // 1.125 and 1.875, 2.625; y (3 high: 3 samples) 0.5, 1.5, 2.5 -> 6 + 0.75 and 6 + 2.25.
  ExpectClose(RunRef1("roi_align", {x, F32({1, 4}, {0, 0, 3, 3}), index},
                      attrs(1, 2, 0, "output_half_pixel")),
              {1, 1, 1, 2}, {6.75, 8.25}, 1e-6, 1e-6);
  // A batch index outside the batch is a data error.
  SY_EXPECT_ERROR(RunRef("roi_align", {x, F32({1, 4}, {0, 0, 3, 3}), Make(DType::kI64, {1}, {1})},
                         attrs(1, 1, 2, "half_pixel")),
                  "batch_indices[0] is 1, outside [0, 1)");
}

// ---------------------------------------------------------------------------------------
// These kernels (roi_align's batch indices aside) have no data-dependent errors; shape
// errors come from the schemas and reach the caller before the kernel runs.

TEST(ConvPoolRefErrors, SchemaErrorsReachTheCaller) {
  SY_EXPECT_ERROR(RunRef("matmul", {F32({2, 3}, std::vector<double>(6)), F32({2}, {1, 2})}),
                  "must equal input a's last dimension (3)");
  SY_EXPECT_ERROR(RunRef("avg_pool", {F32({1, 1, 4}, {1, 2, 3, 4})},
                         AttrsOf({{"kernel_shape", Ints({2})}, {"pads", Ints({2, 0})}})),
                  "pads");
}

}  // namespace
}  // namespace sy::cpu::test
