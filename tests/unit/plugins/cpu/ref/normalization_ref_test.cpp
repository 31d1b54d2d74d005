// Reference kernels for softmax, log_softmax, layer_norm, rms_norm, batch_norm, group_norm
// and instance_norm, checked against NumPy (tools/kernel_refs/neural.py), hand-derived
// values and identities. None of these ops has a data-dependent error: every check is
// the schema's, so the error tests here only confirm that schema errors surface.
#include <cmath>
#include <limits>

#include <gtest/gtest.h>

#include "neural_test_util.h"

namespace sy::cpu::test {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

Attrs Axis(int64_t axis) { return MakeAttrs({{"axis", axis}}); }

// ---------------------------------------------------------------------------------------
// softmax, log_softmax

TEST(NeuralRefSoftmax, MatchesNumPyAlongEachAxisF32AndF64) {
  const Tensor x = Ref("softmax_x");
  for (DType dt : {DType::kF32, DType::kF64}) {
    const Tensor xt = As(x, dt);
    ExpectClose(RunRef1("softmax", {xt}, Axis(1)), Ref("softmax_axis1_y"), "softmax axis 1");
    ExpectClose(RunRef1("softmax", {xt}, Axis(-1)), Ref("softmax_axisneg1_y"), "axis -1");
    ExpectClose(RunRef1("softmax", {xt}), Ref("softmax_axisneg1_y"), "default axis");
    ExpectClose(RunRef1("log_softmax", {xt}, Axis(0)), Ref("log_softmax_axis0_y"), "log axis 0");
    ExpectClose(RunRef1("log_softmax", {xt}, Axis(-2)), Ref("log_softmax_axisneg2_y"),
                "log axis -2");
  }
}

TEST(NeuralRefSoftmax, NaNAndInfinitiesAsNumPy) {
  // Rows: all -inf (NaN), a NaN (NaN), +inf (NaN), one -inf (0 / -inf there), large
  // magnitudes (stable thanks to the max subtraction).
  const Tensor x = Ref("softmax_special_x");
  ExpectClose(RunRef1("softmax", {x}), Ref("softmax_special_y"), "softmax");
  ExpectClose(RunRef1("log_softmax", {x}), Ref("log_softmax_special_y"), "log_softmax");
  const std::vector<double> y = Values(RunRef1("softmax", {x}));
  EXPECT_TRUE(std::isnan(y[0]) && std::isnan(y[1]) && std::isnan(y[2]));  // all -inf row
  EXPECT_EQ(y[10], 0.0);                                                  // -inf in row 3
}

TEST(NeuralRefSoftmax, F16AndBF16) {
  ExpectClose(RunRef1("softmax", {Ref("softmax_f16_x")}), Ref("softmax_f16_y"), "f16");
  const Tensor xb = As(Ref("softmax_bf16_x"), DType::kBF16);
  const Tensor y = RunRef1("log_softmax", {xb}, Axis(0));
  EXPECT_EQ(y.dtype(), DType::kBF16);
  ExpectClose(y, Ref("log_softmax_bf16_axis0_y"), "bf16");
}

TEST(NeuralRefSoftmax, HandValuesAndIdentities) {
  const Tensor x = Make(DType::kF64, {3}, {1, 2, 3});
  const double s = std::exp(1.0) + std::exp(2.0) + std::exp(3.0);
  ExpectValues(RunRef1("softmax", {x}), {3},
               {std::exp(1.0) / s, std::exp(2.0) / s, std::exp(3.0) / s}, 1e-15);
  ExpectValues(RunRef1("log_softmax", {x}), {3},
               {1 - std::log(s), 2 - std::log(s), 3 - std::log(s)}, 1e-15);
  // A size-1 axis: softmax 1, log_softmax 0; shifting a row changes nothing.
  ExpectValues(RunRef1("softmax", {Make(DType::kF32, {2, 1}, {-5, 7})}, Axis(1)), {2, 1}, {1, 1},
               0);
  ExpectValues(RunRef1("log_softmax", {Make(DType::kF32, {2, 1}, {-5, 7})}, Axis(1)), {2, 1},
               {0, 0}, 0);
  const Tensor shifted = Make(DType::kF64, {3}, {101, 102, 103});
  ExpectClose(RunRef1("softmax", {shifted}), RunRef1("softmax", {x}), 1e-15);
  // Rows sum to 1.
  const std::vector<double> y = Values(RunRef1("softmax", {Ref("softmax_x")}, Axis(1)));
  for (int o = 0; o < 2; ++o) {
    for (int i = 0; i < 4; ++i) {
      EXPECT_NEAR(y[o * 12 + i] + y[o * 12 + 4 + i] + y[o * 12 + 8 + i], 1.0, 1e-6);
    }
  }
}

TEST(NeuralRefSoftmax, EmptyTensorsAndScalarRejected) {
  EXPECT_EQ(RunRef1("softmax", {Make(DType::kF32, {2, 0, 3}, {})}, Axis(1)).shape(),
            (Shape{2, 0, 3}));
  EXPECT_EQ(RunRef1("log_softmax", {Make(DType::kF32, {0, 4}, {})}).shape(), (Shape{0, 4}));
  // A scalar has no axis to normalise along: the schema rejects it.
  SY_EXPECT_ERROR(RunRef("softmax", {Make(DType::kF32, {}, {1})}), "axis");
  SY_EXPECT_ERROR(RunRef("softmax", {Make(DType::kF32, {2}, {1, 2})}, Axis(1)), "axis");
}

// ---------------------------------------------------------------------------------------
// layer_norm, rms_norm

TEST(NeuralRefLayerNorm, MatchesNumPyWithBroadcastScaleAndBias) {
  const Tensor x = Ref("norm_x");              // [2, 3, 4]
  const Tensor scale = Ref("ln_axis1_scale");  // [4] broadcast to [3, 4]
  const Tensor bias = Ref("ln_axis1_bias");    // [3, 1]
  ExpectClose(RunRef1("layer_norm", {x, scale, bias}, Axis(1)), Ref("ln_axis1_y"), "axis 1");
  ExpectClose(
      RunRef1("layer_norm", {x, scale}, MakeAttrs({{"axis", int64_t{-1}}, {"epsilon", 1e-3}})),
      Ref("ln_axisneg1_y"), "axis -1, no bias");
  ExpectClose(
      RunRef1("layer_norm", {Ref("ln_f64_x"), Ref("ln_f64_scale"), Ref("ln_f64_bias")}, Axis(0)),
      Ref("ln_f64_axis0_y"), "f64, every dim");
  ExpectClose(RunRef1("layer_norm", {Ref("ln_f16_x"), Ref("ln_f16_scale"), Ref("ln_f16_bias")}),
              Ref("ln_f16_y"), "f16");
}

TEST(NeuralRefLayerNorm, HandValuesConstantRowsAndNaN) {
  // Row [1, 3]: mean 2, variance 1 -> [-1, 1] / sqrt(1 + eps); a constant row -> bias.
  const Tensor x = Make(DType::kF64, {3, 2}, {1, 3, 5, 5, kNaN, 0});
  const Tensor scale = Make(DType::kF64, {2}, {2, 3});
  const Tensor bias = Make(DType::kF64, {2}, {0.5, -0.5});
  const double r = 1 / std::sqrt(1 + 1e-5);
  ExpectValues(RunRef1("layer_norm", {x, scale, bias}), {3, 2},
               {-2 * r + 0.5, 3 * r - 0.5, 0.5, -0.5, kNaN, kNaN}, 1e-15);
}

TEST(NeuralRefLayerNorm, EmptyAndScalar) {
  const Tensor s = Make(DType::kF32, {4}, {1, 1, 1, 1});
  EXPECT_EQ(RunRef1("layer_norm", {Make(DType::kF32, {0, 4}, {}), s}).shape(), (Shape{0, 4}));
  EXPECT_EQ(
      RunRef1("layer_norm", {Make(DType::kF32, {3, 0}, {}), Make(DType::kF32, {1}, {1})}).shape(),
      (Shape{3, 0}));
  SY_EXPECT_ERROR(RunRef("layer_norm", {Make(DType::kF32, {}, {1}), Make(DType::kF32, {}, {1})}),
                  "axis");
}

TEST(NeuralRefRmsNorm, MatchesNumPy) {
  ExpectClose(RunRef1("rms_norm", {Ref("norm_x"), Ref("rms_scale")}, Axis(-2)),
              Ref("rms_axisneg2_y"), "f32 axis -2");
  ExpectClose(
      RunRef1("rms_norm", {Ref("rms_f64_x"), Ref("rms_f64_scale")}, MakeAttrs({{"epsilon", 0.5}})),
      Ref("rms_f64_y"), "f64 epsilon 0.5");
  const Tensor y = RunRef1(
      "rms_norm", {As(Ref("rms_bf16_x"), DType::kBF16), As(Ref("rms_bf16_scale"), DType::kBF16)});
  EXPECT_EQ(y.dtype(), DType::kBF16);
  ExpectClose(y, Ref("rms_bf16_y"), "bf16");
}

TEST(NeuralRefRmsNorm, HandValuesNoMeanSubtraction) {
  // [3, 4]: mean of squares 12.5; a constant row is not zeroed (unlike layer_norm).
  const Tensor x = Make(DType::kF64, {2, 2}, {3, 4, 2, 2});
  const Tensor scale = Make(DType::kF64, {1}, {2});
  const double r = std::sqrt(12.5);
  ExpectValues(RunRef1("rms_norm", {x, scale}, MakeAttrs({{"epsilon", 0.0}})), {2, 2},
               {6 / r, 8 / r, 2, 2}, 1e-15);
  EXPECT_EQ(
      RunRef1("rms_norm", {Make(DType::kF16, {2, 0}, {}), Make(DType::kF16, {1}, {1})}).shape(),
      (Shape{2, 0}));
}

// ---------------------------------------------------------------------------------------
// batch_norm, group_norm, instance_norm

TEST(NeuralRefBatchNorm, MatchesNumPy) {
  ExpectClose(RunRef1("batch_norm", {Ref("bn_x"), Ref("bn_scale"), Ref("bn_bias"), Ref("bn_mean"),
                                     Ref("bn_var")}),
              Ref("bn_y"), "rank 4");
  ExpectClose(RunRef1("batch_norm",
                      {Ref("bn_rank2_x"), Ref("bn_rank2_scale"), Ref("bn_rank2_bias"),
                       Ref("bn_rank2_mean"), Ref("bn_rank2_var")},
                      MakeAttrs({{"epsilon", 1e-3}})),
              Ref("bn_rank2_y"), "rank 2, f64");
}

TEST(NeuralRefBatchNorm, HandValuesF16NaNAndEmpty) {
  // Channel 0: (x - 1) / sqrt(4) * 2 + 1; channel 1: (x - 0) / sqrt(0.25) * 1 + 0.
  const Tensor x = Make(DType::kF16, {1, 2, 2}, {3, kNaN, 1, -2});
  const Tensor scale = Make(DType::kF16, {2}, {2, 1});
  const Tensor bias = Make(DType::kF16, {2}, {1, 0});
  const Tensor mean = Make(DType::kF16, {2}, {1, 0});
  const Tensor var = Make(DType::kF16, {2}, {4, 0.25});
  const Tensor y =
      RunRef1("batch_norm", {x, scale, bias, mean, var}, MakeAttrs({{"epsilon", 0.0}}));
  EXPECT_EQ(y.dtype(), DType::kF16);
  ExpectValues(y, {1, 2, 2}, {3, kNaN, 2, -4}, 0);
  const Tensor p = Make(DType::kF32, {3}, {1, 1, 1});
  EXPECT_EQ(RunRef1("batch_norm", {Make(DType::kF32, {0, 3, 2}, {}), p, p, p, p}).shape(),
            (Shape{0, 3, 2}));
}

TEST(NeuralRefGroupNorm, MatchesNumPyForEveryGroupCount) {
  for (int64_t groups : {1, 3, 6}) {
    ExpectClose(RunRef1("group_norm", {Ref("gn_x"), Ref("gn_scale"), Ref("gn_bias")},
                        MakeAttrs({{"num_groups", groups}})),
                Ref("gn_g" + std::to_string(groups) + "_y"), "groups " + std::to_string(groups));
  }
  ExpectClose(RunRef1("group_norm", {Ref("gn_f16_x"), Ref("gn_f16_scale"), Ref("gn_f16_bias")},
                      MakeAttrs({{"num_groups", int64_t{2}}})),
              Ref("gn_f16_g2_y"), "f16");
}

TEST(NeuralRefGroupNorm, HandValuesAndEmpty) {
  // Two groups of two channels of one element: [1, 3] and [5, 7] both normalise to
  // [-1, 1]; then per-channel scale and bias.
  const Tensor x = Make(DType::kF64, {1, 4}, {1, 3, 5, 7});
  const Tensor scale = Make(DType::kF64, {4}, {1, 2, 3, 4});
  const Tensor bias = Make(DType::kF64, {4}, {0, 0, 1, -1});
  ExpectValues(RunRef1("group_norm", {x, scale, bias},
                       MakeAttrs({{"num_groups", int64_t{2}}, {"epsilon", 0.0}})),
               {1, 4}, {-1, 2, -2, 3}, 1e-15);
  const Tensor p0 = Make(DType::kF32, {0}, {});
  EXPECT_EQ(RunRef1("group_norm", {Make(DType::kF32, {2, 0, 3}, {}), p0, p0},
                    MakeAttrs({{"num_groups", int64_t{2}}}))
                .shape(),
            (Shape{2, 0, 3}));
  const Tensor p2 = Make(DType::kF32, {2}, {1, 1});
  EXPECT_EQ(RunRef1("group_norm", {Make(DType::kF32, {3, 2, 0}, {}), p2, p2},
                    MakeAttrs({{"num_groups", int64_t{1}}}))
                .shape(),
            (Shape{3, 2, 0}));
  SY_EXPECT_ERROR(RunRef("group_norm", {Make(DType::kF32, {1, 2}, {1, 2}), p2, p2},
                         MakeAttrs({{"num_groups", int64_t{3}}})),
                  "num_groups");
}

TEST(NeuralRefInstanceNorm, MatchesNumPy) {
  ExpectClose(RunRef1("instance_norm", {Ref("norm_x"), Ref("in_scale"), Ref("in_bias")}),
              Ref("in_y"), "rank 3");
  ExpectClose(
      RunRef1("instance_norm", {Ref("in_rank5_x"), Ref("in_rank5_scale"), Ref("in_rank5_bias")},
              MakeAttrs({{"epsilon", 0.01}})),
      Ref("in_rank5_y"), "rank 5, f64");
}

TEST(NeuralRefInstanceNorm, HandValuesBF16AndEmpty) {
  // [1, 2, 3, 4]: mean 2.5, variance 1.25; scale 2, bias 1.
  const Tensor x = Make(DType::kBF16, {1, 1, 4}, {1, 2, 3, 4});
  const Tensor scale = Make(DType::kBF16, {1}, {2});
  const Tensor bias = Make(DType::kBF16, {1}, {1});
  const double r = 2 / std::sqrt(1.25);
  const Tensor y = RunRef1("instance_norm", {x, scale, bias}, MakeAttrs({{"epsilon", 0.0}}));
  EXPECT_EQ(y.dtype(), DType::kBF16);
  ExpectValues(y, {1, 1, 4}, {1 - 1.5 * r, 1 - 0.5 * r, 1 + 0.5 * r, 1 + 1.5 * r}, 1e-2);
  const Tensor p = Make(DType::kF32, {2}, {1, 1});
  EXPECT_EQ(RunRef1("instance_norm", {Make(DType::kF32, {1, 2, 0}, {}), p, p}).shape(),
            (Shape{1, 2, 0}));
  EXPECT_EQ(RunRef1("instance_norm", {Make(DType::kF32, {0, 2, 3}, {}), p, p}).shape(),
            (Shape{0, 2, 3}));
  SY_EXPECT_ERROR(RunRef("instance_norm", {Make(DType::kF32, {1, 2}, {1, 2}), p, p}), "rank");
}

}  // namespace
}  // namespace sy::cpu::test
