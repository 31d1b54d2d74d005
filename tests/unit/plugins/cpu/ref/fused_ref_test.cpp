// Reference kernels for the fused ops (ref/fused_ref.cpp): fused_matmul, fused_conv and
// add_layer_norm. Two kinds of check:
//  - hand-derived values: small products, convolutions and normalisations worked out on
//    paper, through every activation (whose closed forms are written out here);
//  - the definition: each fused op equals the chain of catalogue ops it stands for, run
//    op by op through the reference kernels of matmul, transpose, conv, add, layer_norm
//    and the activations. For fused_matmul and fused_conv that chain runs in f64 and is
//    rounded once to the dtype, which must give the fused result bit for bit (the fused
//    kernel rounds once too), special values included; add_layer_norm's chain runs in the
//    dtype itself (the sum is rounded before it is normalised).
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <numbers>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "fast/fast_kernels.h"
#include "neural_test_util.h"

namespace sy::cpu::test {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr DType kFloatDTypes[] = {DType::kF32, DType::kF16, DType::kBF16, DType::kF64};

// An activation as the fused ops name it (with its attributes), and the catalogue op
// (with its attributes) that defines it; an empty op is the identity.
struct Activation {
  std::string label;
  Attrs fused;
  std::string op;
  Attrs op_attrs;
};

std::vector<Activation> Activations() {
  auto act = [](std::string name, std::initializer_list<std::pair<std::string, AttrValue>> more) {
    Attrs a = MakeAttrs(more);
    a.Set("activation", name);
    return a;
  };
  return {
      {"none", act("none", {}), "", {}},
      {"relu", act("relu", {}), "relu", {}},
      {"leaky_relu", act("leaky_relu", {{"activation_alpha", 0.2}}), "leaky_relu",
       MakeAttrs({{"alpha", 0.2}})},
      {"leaky_relu default", act("leaky_relu", {}), "leaky_relu", MakeAttrs({{"alpha", 0.01}})},
      {"clip", act("clip", {{"clip_min", -0.5}, {"clip_max", 0.75}}), "clip",
       MakeAttrs({{"min", -0.5}, {"max", 0.75}})},
      {"clip max only", act("clip", {{"clip_max", 0.75}}), "clip", MakeAttrs({{"max", 0.75}})},
      {"clip unbounded", act("clip", {}), "clip", {}},
      {"gelu", act("gelu", {}), "gelu", {}},
      {"gelu_tanh", act("gelu_tanh", {}), "gelu", MakeAttrs({{"approximate", "tanh"}})},
      {"silu", act("silu", {}), "silu", {}},
      {"sigmoid", act("sigmoid", {}), "sigmoid", {}},
      {"tanh", act("tanh", {}), "tanh", {}},
  };
}

// The closed forms of the activations, for hand-derived expectations.
double Sigmoid(double x) { return 1 / (1 + std::exp(-x)); }
double ActivationOf(const std::string& label, double x) {
  if (label == "relu") return x < 0 ? 0 : x;
  if (label == "leaky_relu") return x < 0 ? 0.2 * x : x;
  if (label == "leaky_relu default") return x < 0 ? 0.01 * x : x;
  if (label == "clip") return std::min(std::max(x, -0.5), 0.75);
  if (label == "clip max only") return std::min(x, 0.75);
  if (label == "gelu") return 0.5 * x * (1 + std::erf(x / std::numbers::sqrt2));
  if (label == "gelu_tanh") {
    return 0.5 * x * (1 + std::tanh(std::sqrt(2 / std::numbers::pi) * (x + 0.044715 * x * x * x)));
  }
  if (label == "silu") return x * Sigmoid(x);
  if (label == "sigmoid") return Sigmoid(x);
  if (label == "tanh") return std::tanh(x);
  return x;  // none, clip unbounded
}

Attrs With(Attrs attrs, const std::string& name, AttrValue value) {
  attrs.Set(name, std::move(value));
  return attrs;
}

std::vector<double> Random(size_t n, uint32_t seed, double lo = -2, double hi = 2) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(lo, hi);
  std::vector<double> v(n);
  for (double& x : v) x = u(rng);
  return v;
}

Tensor RandomTensor(DType dtype, const Shape& shape, uint32_t seed) {
  return Make(dtype, shape, Random(static_cast<size_t>(ElementCount(shape)), seed));
}

// Equal element for element: the same value and sign of zero, or both NaN.
void ExpectSame(const Tensor& got, const Tensor& want, const std::string& what) {
  ASSERT_EQ(got.type(), want.type()) << what;
  const std::vector<double> g = Values(got), w = Values(want);
  int reported = 0;
  for (size_t i = 0; i < g.size() && reported < 5; ++i) {
    const bool same = std::isnan(w[i]) ? std::isnan(g[i])
                                       : g[i] == w[i] && std::signbit(g[i]) == std::signbit(w[i]);
    if (!same) {
      ++reported;
      ADD_FAILURE() << what << ": element " << i << " is " << g[i] << " but the chain gives "
                    << w[i];
    }
  }
}

// `x` (f64) through the catalogue's activation op, or unchanged.
Tensor Activate(const Tensor& x, const Activation& act) {
  return act.op.empty() ? x : RunRef1(act.op, {x}, act.op_attrs);
}

// The chain fused_matmul stands for, op by op in f64, rounded once to `dtype`.
Tensor MatmulChain(const std::vector<Tensor>& inputs, const Attrs& attrs, const Activation& act,
                   DType dtype) {
  std::vector<Tensor> in;
  for (const Tensor& t : inputs) in.push_back(As(t, DType::kF64));
  Tensor b = in[1];
  if (attrs.GetInt("trans_b", 0) == 1) {
    std::vector<int64_t> perm(b.shape().size());
    for (size_t d = 0; d < perm.size(); ++d) perm[d] = static_cast<int64_t>(d);
    std::swap(perm[perm.size() - 1], perm[perm.size() - 2]);
    b = RunRef1("transpose", {b}, MakeAttrs({{"perm", perm}}));
  }
  Tensor y = RunRef1("matmul", {in[0], b});
  for (size_t i = 2; i < in.size(); ++i) y = RunRef1("add", {y, in[i]});
  return As(Activate(y, act), dtype);
}

// The chain fused_conv stands for: conv (with its bias), add residual, activation.
Tensor ConvChain(const std::vector<Tensor>& inputs, const Attrs& conv_attrs, const Activation& act,
                 DType dtype) {
  std::vector<Tensor> in;
  for (const Tensor& t : inputs) in.push_back(As(t, DType::kF64));
  std::vector<Tensor> conv_in(in.begin(), in.begin() + std::min<size_t>(in.size(), 3));
  Tensor y = RunRef1("conv", conv_in, conv_attrs);
  if (in.size() > 3) y = RunRef1("add", {y, in[3]});
  return As(Activate(y, act), dtype);
}

// ---------------------------------------------------------------------------------------
// fused_matmul

// a [2,3] x b [3,2] = [[4, -1], [10, -1]]; + bias [0.5, -0.5] + residual [[-5, 1], [0, 2]]
// = [[-0.5, -0.5], [10.5, 0.5]].
const std::vector<double> kA = {1, 2, 3, 4, 5, 6};
const std::vector<double> kB = {1, 0, 0, 1, 1, -1};
const std::vector<double> kBT = {1, 0, 1, 0, 1, -1};  // kB transposed, [2,3]
const std::vector<double> kPre = {-0.5, -0.5, 10.5, 0.5};

TEST(FusedMatmulRef, HandValuesThroughEveryActivation) {
  for (const Activation& act : Activations()) {
    std::vector<double> want;
    for (double v : kPre) want.push_back(ActivationOf(act.label, v));
    for (DType dt : kFloatDTypes) {
      const std::vector<Tensor> in = {Make(dt, {2, 3}, kA), Make(dt, {3, 2}, kB),
                                      Make(dt, {2}, {0.5, -0.5}), Make(dt, {2, 2}, {-5, 1, 0, 2})};
      const Tensor y = RunRef1("fused_matmul", in, act.fused);
      EXPECT_EQ(y.dtype(), dt);
      ExpectValues(y, {2, 2}, want, Tol(dt), act.label + " " + std::string(DTypeName(dt)));
      // trans_b: b given as [N, K].
      const std::vector<Tensor> in_t = {in[0], Make(dt, {2, 3}, kBT), in[2], in[3]};
      ExpectValues(RunRef1("fused_matmul", in_t, With(act.fused, "trans_b", int64_t{1})), {2, 2},
                   want, Tol(dt), act.label + " trans_b");
    }
  }
}

TEST(FusedMatmulRef, BiasAndResidualOptionalAndBroadcast) {
  const Tensor a = Make(DType::kF64, {2, 3}, kA);
  const Tensor b = Make(DType::kF64, {3, 2}, kB);
  ExpectValues(RunRef1("fused_matmul", {a, b}), {2, 2}, {4, -1, 10, -1}, 0);
  // A bias of one element, one per row ([2,1]), one per column ([2]).
  ExpectValues(RunRef1("fused_matmul", {a, b, Make(DType::kF64, {}, {1})}), {2, 2}, {5, 0, 11, 0},
               0);
  ExpectValues(RunRef1("fused_matmul", {a, b, Make(DType::kF64, {2, 1}, {1, -10})}), {2, 2},
               {5, 0, 0, -11}, 0);
  ExpectValues(RunRef1("fused_matmul", {a, b, Make(DType::kF64, {2}, {1, -10})}), {2, 2},
               {5, -11, 11, -11}, 0);
  // 1-D promotions: [3] x [3,2] -> [2]; [2,3] x [3] -> [2], with a scalar bias.
  ExpectValues(RunRef1("fused_matmul", {Make(DType::kF64, {3}, {1, 2, 3}), b}), {2}, {4, -1}, 0);
  ExpectValues(
      RunRef1("fused_matmul", {a, Make(DType::kF64, {3}, {1, 1, 1}), Make(DType::kF64, {}, {-6})}),
      {2}, {0, 9}, 0);
  // K = 0: the product is zeros and the bias passes through the activation.
  ExpectValues(RunRef1("fused_matmul",
                       {Make(DType::kF32, {2, 0}, {}), Make(DType::kF32, {0, 3}, {}),
                        Make(DType::kF32, {3}, {-1, 0, 2})},
                       MakeAttrs({{"activation", "relu"}})),
               {2, 3}, {0, 0, 2, 0, 0, 2}, 0);
  // M = 0: an empty output.
  EXPECT_EQ(RunRef1("fused_matmul", {Make(DType::kF32, {0, 3}, {}), As(b, DType::kF32)}).shape(),
            (Shape{0, 2}));
}

TEST(FusedMatmulRef, EqualsTheChainWithBatchBroadcasting) {
  struct Case {
    Shape a, b, bias;
    int64_t trans_b;
  };
  const Case cases[] = {
      {{2, 1, 3, 5}, {4, 5, 7}, {7}, 0},
      {{2, 1, 3, 5}, {4, 7, 5}, {3, 1}, 1},
      {{3, 5}, {2, 5, 4}, {2, 1, 4}, 0},
      {{2, 3, 5}, {5, 4}, {}, 0},
      {{5}, {3, 5, 2}, {2}, 0},
      {{4, 5}, {5}, {4}, 0},
      {{2, 3, 5}, {2, 4, 5}, {2, 3, 4}, 1},
      {{1, 6, 8}, {8, 3}, {1, 1, 3}, 0},
  };
  uint32_t seed = 1;
  for (const Case& c : cases) {
    for (DType dt : kFloatDTypes) {
      const Tensor a = RandomTensor(dt, c.a, seed++);
      const Tensor b = RandomTensor(dt, c.b, seed++);
      const Tensor bias = RandomTensor(dt, c.bias, seed++);
      const Attrs shape_attrs = MakeAttrs({{"trans_b", c.trans_b}});
      const Shape out = RunRef1("fused_matmul", {a, b}, shape_attrs).shape();
      const Tensor residual = RandomTensor(dt, out, seed++);
      const std::vector<Tensor> all = {a, b, bias, residual};
      for (const Activation& act : Activations()) {
        const Attrs attrs = With(act.fused, "trans_b", c.trans_b);
        const std::string what = act.label + " " + a.type().ToString() + " x " +
                                 b.type().ToString() + " trans_b=" + std::to_string(c.trans_b);
        for (size_t n : {2, 3, 4}) {
          const std::vector<Tensor> in(all.begin(), all.begin() + static_cast<ptrdiff_t>(n));
          ExpectSame(RunRef1("fused_matmul", in, attrs), MatmulChain(in, attrs, act, dt),
                     what + " inputs=" + std::to_string(n));
        }
      }
    }
  }
}

TEST(FusedMatmulRef, SpecialValuesAsTheChain) {
  // NaN, +-inf and large values in a, the bias and the residual: inf * 0 is NaN, inf - inf
  // is NaN, silu/gelu(-inf) is -0, sigmoid(-inf) is 0, clip keeps NaN.
  const Tensor a = Make(DType::kF64, {3, 2}, {kInf, 1, -kInf, 0, kNaN, 2});
  const Tensor b = Make(DType::kF64, {2, 3}, {1, 0, -1, 1, 1, 1});
  const Tensor bias = Make(DType::kF64, {3}, {0, kInf, 1e308});
  const Tensor residual = Make(DType::kF64, {3, 3}, {0, 1, 2, -kInf, 0, -1e308, 0, 0, 0});
  for (const Activation& act : Activations()) {
    for (DType dt : kFloatDTypes) {
      const std::vector<Tensor> in = {As(a, dt), As(b, dt), As(bias, dt), As(residual, dt)};
      ExpectSame(RunRef1("fused_matmul", in, act.fused), MatmulChain(in, act.fused, act, dt),
                 act.label + " " + std::string(DTypeName(dt)));
    }
  }
  // By hand, for relu: row 0 is [inf, NaN, -inf] + [0, inf, 1e308] + [0, 1, 2].
  const std::vector<double> y =
      Values(RunRef1("fused_matmul", {a, b, bias, residual}, MakeAttrs({{"activation", "relu"}})));
  EXPECT_EQ(y[0], kInf);
  EXPECT_TRUE(std::isnan(y[1]));
  EXPECT_EQ(y[2], 0);
}

TEST(FusedMatmulRef, OneRoundingForTheWholeChain) {
  // 1 + 2^-11 + 2^-11 is 1 + 2^-10 in double but 1 in f16 when each step rounds (the
  // f16 spacing at 1 is 2^-10, and 1 + 2^-11 is a tie to even): the fused op rounds once.
  const double h = std::ldexp(1.0, -11);
  const Tensor a = Make(DType::kF16, {1, 1}, {1});
  const Tensor b = Make(DType::kF16, {1, 1}, {1});
  const Tensor bias = Make(DType::kF16, {1}, {h});
  const Tensor residual = Make(DType::kF16, {1, 1}, {h});
  ExpectValues(RunRef1("fused_matmul", {a, b, bias, residual}), {1, 1}, {1 + 2 * h}, 0);
}

TEST(FusedMatmulRef, SchemaErrorsSurface) {
  const Tensor a = Make(DType::kF32, {2, 3}, kA);
  const Tensor b = Make(DType::kF32, {3, 2}, kB);
  EXPECT_FALSE(RunRef("fused_matmul",
                      {a, b, Make(DType::kF32, {2}, {0, 0}), Make(DType::kF32, {2, 1}, {0, 0})})
                   .ok());  // residual must have the output shape exactly
  EXPECT_FALSE(
      RunRef("fused_matmul", {a, b}, MakeAttrs({{"activation", "relu"}, {"clip_min", 0.0}}))
          .ok());  // bounds only with clip
  EXPECT_FALSE(RunRef("fused_matmul", {a, Make(DType::kF32, {3}, {1, 2, 3})},
                      MakeAttrs({{"trans_b", int64_t{1}}}))
                   .ok());  // trans_b needs rank 2
  EXPECT_FALSE(RunRef("fused_matmul", {a, b}, MakeAttrs({{"activation", "mish"}})).ok());
}

// ---------------------------------------------------------------------------------------
// fused_conv

TEST(FusedConvRef, HandValuesStridesPadsResidualReluAndClip) {
  // x = 1..9 in [1,1,3,3], w all ones [1,1,3,3], strides 2, pads 1: each output sums a 2x2
  // corner of x: [12, 16, 24, 28]; bias -20 and residual 1 give [-7, -3, 5, 9].
  std::vector<double> x(9);
  for (int i = 0; i < 9; ++i) x[i] = i + 1;
  const Attrs window = MakeAttrs(
      {{"strides", std::vector<int64_t>{2, 2}}, {"pads", std::vector<int64_t>{1, 1, 1, 1}}});
  for (DType dt : kFloatDTypes) {
    const std::vector<Tensor> in = {Make(dt, {1, 1, 3, 3}, x),
                                    Make(dt, {1, 1, 3, 3}, std::vector<double>(9, 1)),
                                    Make(dt, {1}, {-20}), Make(dt, {1, 1, 2, 2}, {1, 1, 1, 1})};
    ExpectValues(RunRef1("fused_conv", in, window), {1, 1, 2, 2}, {-7, -3, 5, 9}, 0);
    ExpectValues(RunRef1("fused_conv", in, With(window, "activation", "relu")), {1, 1, 2, 2},
                 {0, 0, 5, 9}, 0);
    Attrs clip = With(window, "activation", "clip");
    clip.Set("clip_min", -5.0);
    clip.Set("clip_max", 6.0);
    ExpectValues(RunRef1("fused_conv", in, clip), {1, 1, 2, 2}, {-5, -3, 5, 6}, 0);
    // Without the residual, and without bias and residual.
    ExpectValues(RunRef1("fused_conv", {in[0], in[1], in[2]}, With(window, "activation", "relu")),
                 {1, 1, 2, 2}, {0, 0, 4, 8}, 0);
    ExpectValues(RunRef1("fused_conv", {in[0], in[1]}, window), {1, 1, 2, 2}, {12, 16, 24, 28}, 0);
  }
}

TEST(FusedConvRef, HandValuesGroups) {
  // Two groups of one channel: c0 = [1, 2, 3, 4] with w0 all ones gives 10; c1 = [10, 20,
  // 30, 40] with w1 = [1, 0, 0, -1] gives -30. bias [0, 5], residual [-20, 0]: [-10, -25];
  // leaky_relu 0.5: [-5, -12.5].
  const Tensor x = Make(DType::kF32, {1, 2, 2, 2}, {1, 2, 3, 4, 10, 20, 30, 40});
  const Tensor w = Make(DType::kF32, {2, 1, 2, 2}, {1, 1, 1, 1, 1, 0, 0, -1});
  const Tensor bias = Make(DType::kF32, {2}, {0, 5});
  const Tensor residual = Make(DType::kF32, {1, 2, 1, 1}, {-20, 0});
  const Attrs attrs =
      MakeAttrs({{"group", int64_t{2}}, {"activation", "leaky_relu"}, {"activation_alpha", 0.5}});
  ExpectValues(RunRef1("fused_conv", {x, w, bias, residual}, attrs), {1, 2, 1, 1}, {-5, -12.5}, 0);
}

TEST(FusedConvRef, EqualsTheChain) {
  struct Case {
    Shape x, w;
    Attrs attrs;
  };
  const std::vector<Case> cases = {
      {{1, 4, 5, 5},
       {4, 2, 3, 3},
       MakeAttrs({{"group", int64_t{2}},
                  {"strides", std::vector<int64_t>{2, 2}},
                  {"pads", std::vector<int64_t>{1, 1, 1, 1}}})},
      {{2, 3, 7, 6},
       {5, 3, 3, 2},
       MakeAttrs({{"strides", std::vector<int64_t>{2, 1}},
                  {"pads", std::vector<int64_t>{1, 0, 2, 1}},
                  {"dilations", std::vector<int64_t>{1, 2}}})},
      {{1, 6, 6, 5},
       {6, 1, 3, 3},
       MakeAttrs({{"group", int64_t{6}}, {"pads", std::vector<int64_t>{1, 1, 1, 1}}})},
      {{2, 3, 11}, {4, 3, 3}, MakeAttrs({{"strides", std::vector<int64_t>{2}}})},
      {{1, 2, 3, 4, 5}, {3, 2, 2, 2, 2}, {}},
  };
  uint32_t seed = 100;
  for (const Case& c : cases) {
    for (DType dt : kFloatDTypes) {
      const Tensor x = RandomTensor(dt, c.x, seed++);
      const Tensor w = RandomTensor(dt, c.w, seed++);
      const Tensor bias = RandomTensor(dt, {c.w[0]}, seed++);
      const Shape out = RunRef1("conv", {x, w}, c.attrs).shape();
      const Tensor residual = RandomTensor(dt, out, seed++);
      const std::vector<Tensor> all = {x, w, bias, residual};
      for (const Activation& act : Activations()) {
        Attrs attrs = c.attrs;
        for (const auto& [name, value] : act.fused) attrs.Set(name, value);
        for (size_t n : {2, 3, 4}) {
          const std::vector<Tensor> in(all.begin(), all.begin() + static_cast<ptrdiff_t>(n));
          ExpectSame(RunRef1("fused_conv", in, attrs), ConvChain(in, c.attrs, act, dt),
                     act.label + " " + x.type().ToString() + " inputs=" + std::to_string(n));
        }
      }
    }
  }
}

TEST(FusedConvRef, EmptyAndErrors) {
  const Tensor w = Make(DType::kF32, {2, 1, 1, 1}, {1, 2});
  EXPECT_EQ(RunRef1("fused_conv", {Make(DType::kF32, {0, 1, 3, 3}, {}), w}).shape(),
            (Shape{0, 2, 3, 3}));
  // The residual must have the output's shape; clip's bounds only with clip.
  const Tensor x = Make(DType::kF32, {1, 1, 1, 1}, {3});
  EXPECT_FALSE(RunRef("fused_conv", {x, w, Make(DType::kF32, {2}, {0, 0}),
                                     Make(DType::kF32, {1, 2, 1, 2}, {0, 0, 0, 0})})
                   .ok());
  EXPECT_FALSE(RunRef("fused_conv", {x, w}, MakeAttrs({{"clip_max", 1.0}})).ok());
  ExpectValues(RunRef1("fused_conv", {x, w}, MakeAttrs({{"activation", "tanh"}})), {1, 2, 1, 1},
               {std::tanh(3.0), std::tanh(6.0)}, 1e-6);
}

// ---------------------------------------------------------------------------------------
// add_layer_norm

// a [2,3] + b [3] = [[1, 3, 5], [0, 1, 2]]: row means 3 and 1, variances 8/3 and 2/3.
TEST(AddLayerNormRef, HandValuesBothOutputCounts) {
  const double eps = 1e-5;
  const double r0 = 1 / std::sqrt(8.0 / 3 + eps);
  const double r1 = 1 / std::sqrt(2.0 / 3 + eps);
  const std::vector<double> scale = {1, 2, 0.5};
  const std::vector<double> bias = {0, 1, -1};
  const std::vector<double> norm = {-2 * r0, 0, 2 * r0, -1 * r1, 0, 1 * r1};
  std::vector<double> with_bias(6), without_bias(6);
  for (size_t i = 0; i < 6; ++i) {
    without_bias[i] = norm[i] * scale[i % 3];
    with_bias[i] = without_bias[i] + bias[i % 3];
  }
  for (DType dt : kFloatDTypes) {
    const Tensor a = Make(dt, {2, 3}, {1, 2, 3, 0, 0, 0});
    const Tensor b = Make(dt, {3}, {0, 1, 2});
    const std::vector<Tensor> in = {a, b, Make(dt, {3}, scale), Make(dt, {3}, bias)};
    Expected<std::vector<Tensor>> two = RunRef("add_layer_norm", in, {}, 2);
    SY_ASSERT_OK(two);
    ASSERT_EQ(two->size(), 2u);
    ExpectValues((*two)[0], {2, 3}, with_bias, Tol(dt), "y");
    ExpectValues((*two)[1], {2, 3}, {1, 3, 5, 0, 1, 2}, 0, "sum");
    ExpectValues(RunRef1("add_layer_norm", in), {2, 3}, with_bias, Tol(dt), "one output");
    ExpectValues(RunRef1("add_layer_norm", {a, b, in[2]}), {2, 3}, without_bias, Tol(dt),
                 "no bias");
  }
}

// The chain: add (in the dtype), then layer_norm of that sum; both outputs.
void ExpectChain(const std::vector<Tensor>& in, const Attrs& attrs, const std::string& what) {
  const Tensor sum = RunRef1("add", {in[0], in[1]});
  std::vector<Tensor> norm_in = {sum};
  for (size_t i = 2; i < in.size(); ++i) norm_in.push_back(in[i]);
  const Tensor y = RunRef1("layer_norm", norm_in, attrs);
  Expected<std::vector<Tensor>> two = RunRef("add_layer_norm", in, attrs, 2);
  SY_ASSERT_OK(two);
  ExpectSame((*two)[0], y, what + " y");
  ExpectSame((*two)[1], sum, what + " sum");
  ExpectSame(RunRef1("add_layer_norm", in, attrs), y, what + " one output");
}

TEST(AddLayerNormRef, EqualsTheChain) {
  struct Case {
    Shape a, b, scale;
    int64_t axis;
  };
  const Case cases[] = {
      {{3, 5}, {3, 5}, {5}, -1},       {{3, 5}, {5}, {5}, -1},
      {{2, 3, 5}, {3, 1}, {3, 5}, -2}, {{2, 3, 5}, {1, 5}, {1, 5}, 1},
      {{2, 3, 4}, {}, {2, 3, 4}, 0},   {{4, 1}, {4, 1}, {1}, -1},
      {{2, 3, 5}, {2, 1, 5}, {}, -1},  {{1, 1, 7, 13}, {13}, {13}, -1},
  };
  uint32_t seed = 200;
  for (const Case& c : cases) {
    for (DType dt : kFloatDTypes) {
      // An offset larger than the spread: where the sum is rounded matters.
      const Tensor a =
          Make(dt, c.a, Random(static_cast<size_t>(ElementCount(c.a)), seed++, 30, 34));
      const Tensor b = RandomTensor(dt, c.b, seed++);
      const Tensor scale = RandomTensor(dt, c.scale, seed++);
      const Tensor bias = RandomTensor(dt, c.scale, seed++);
      const Attrs attrs = MakeAttrs({{"axis", c.axis}, {"epsilon", 1e-3}});
      const std::string what = a.type().ToString() + " + " + b.type().ToString();
      ExpectChain({a, b, scale, bias}, attrs, what);
      ExpectChain({a, b, scale}, attrs, what + " no bias");
    }
  }
}

TEST(AddLayerNormRef, SpecialValuesAndEmpty) {
  // A NaN or an infinity in a row makes that row NaN (its mean is); other rows are kept.
  const Tensor a = Make(DType::kF32, {3, 2}, {kNaN, 1, kInf, 0, 1, 2});
  const Tensor b = Make(DType::kF32, {2}, {0, 0});
  const Tensor scale = Make(DType::kF32, {2}, {1, 1});
  Expected<std::vector<Tensor>> out =
      RunRef("add_layer_norm", {a, b, scale}, MakeAttrs({{"epsilon", 0.0}}), 2);
  SY_ASSERT_OK(out);
  const std::vector<double> y = Values((*out)[0]);
  EXPECT_TRUE(std::isnan(y[0]) && std::isnan(y[1]) && std::isnan(y[2]) && std::isnan(y[3]));
  EXPECT_EQ(y[4], -1);
  EXPECT_EQ(y[5], 1);
  EXPECT_EQ(Values((*out)[1])[2], kInf);
  ExpectChain({a, b, scale}, {}, "special");
  // Empty rows and no rows.
  ExpectChain({Make(DType::kF32, {0, 5}, {}), Make(DType::kF32, {5}, std::vector<double>(5, 1)),
               Make(DType::kF32, {5}, std::vector<double>(5, 1))},
              {}, "[0,5]");
  ExpectChain(
      {Make(DType::kF32, {3, 0}, {}), Make(DType::kF32, {3, 0}, {}), Make(DType::kF32, {0}, {})},
      {}, "[3,0]");
  // b must broadcast to a (not the other way).
  EXPECT_FALSE(RunRef("add_layer_norm", {Make(DType::kF32, {2}, {1, 2}),
                                         Make(DType::kF32, {3, 2}, {1, 2, 3, 4, 5, 6}),
                                         Make(DType::kF32, {2}, {1, 1})})
                   .ok());
}

// The cpu device takes every fused op (its tuned kernels or, through the fallback, these).
TEST(FusedRef, CpuDeviceHasEveryFusedOp) {
  for (const char* op : {"fused_matmul", "fused_conv", "add_layer_norm"}) {
    EXPECT_NE(FastKernels().Find(op), nullptr) << op;
  }
}

}  // namespace
}  // namespace sy::cpu::test
