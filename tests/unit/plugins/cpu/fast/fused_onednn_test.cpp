// The oneDNN fused_matmul and fused_conv kernels of the `cpu` device (fast/onednn/),
// compared with the reference kernels (ref/fused_ref.cpp) on seeded random inputs: every
// activation, bias present, absent and in shapes the primitive cannot take as its bias,
// residual, trans_b, batched a with a 2-D b and batched b, b (or w) as a graph input and
// as a constant (prepacked at prepare), one thread and two; convs with groups, depthwise,
// strides, pads, 1-D and 3-D, residual with relu and clip. Each case checks that the
// oneDNN kernel ran (a prepared kernel was built: the fused kernels decline oneDNN's scalar
// reference implementation, so that means a JIT one), NaN and infinities come out as the
// reference's, and the cases the kernels decline still match the reference.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <memory>
#include <random>
#include <span>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#if SY_CPU_HAS_ONEDNN
#include <omp.h>

#include <filesystem>
#endif

#include "fast/fast_kernels.h"
#include "kernel_test_util.h"
#include "ref/ref_kernels.h"
#include "thread_pool.h"

namespace sy::cpu::test {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

const std::vector<std::string>& Activations() {
  static const std::vector<std::string> all = {"none",      "relu", "leaky_relu", "clip", "gelu",
                                               "gelu_tanh", "silu", "sigmoid",    "tanh"};
  return all;
}

Tensor Random(DType dtype, const Shape& shape, std::mt19937& rng) {
  std::uniform_real_distribution<double> dist(-1.0, 1.0);
  std::vector<double> values(static_cast<size_t>(ElementCount(shape)));
  for (double& v : values) v = dist(rng);
  return Make(dtype, shape, values);
}

Attrs ActivationAttrs(const std::string& activation) {
  Attrs attrs;
  attrs.Set("activation", activation);
  if (activation == "leaky_relu") attrs.Set("activation_alpha", 0.15);
  if (activation == "clip") {
    attrs.Set("clip_min", -0.25);
    attrs.Set("clip_max", 0.5);
  }
  return attrs;
}

// Whether the fast kernel must have run on oneDNN: built with it, f32 throughout.
bool ExpectOneDnn(const std::vector<Tensor>& inputs) {
#if SY_CPU_HAS_ONEDNN
  return std::all_of(inputs.begin(), inputs.end(),
                     [](const Tensor& t) { return t.dtype() == DType::kF32; });
#else
  (void)inputs;
  return false;
#endif
}

struct Options {
  std::vector<bool> constant;  // per input: a constant of the model
  bool expect_onednn = true;   // false: the case must be declined (the reference runs)
};

// Runs `op` on the fast table (one thread and two) and the reference, and compares: NaN
// where the reference has NaN, infinities exactly, finite values within `tol`.
void ExpectMatchesRef(const std::string& op, const std::vector<Tensor>& inputs, const Attrs& attrs,
                      double tol, const Options& options) {
  Expected<std::vector<Tensor>> ref = RunRef(op, inputs, attrs);
  ASSERT_TRUE(ref.ok()) << ref.status().ToString();
  const std::vector<double> want = Values((*ref)[0]);
  ThreadPool pool(2);
  for (ThreadPool* threads : {static_cast<ThreadPool*>(nullptr), &pool}) {
    SCOPED_TRACE(threads ? "2 threads" : "1 thread");
    bool prepared = false;
    Expected<std::vector<Tensor>> fast =
        RunPrepared(FastKernels(), op, inputs, options.constant, attrs, 1, threads, &prepared);
    ASSERT_TRUE(fast.ok()) << fast.status().ToString();
    ASSERT_EQ((*fast)[0].shape(), (*ref)[0].shape());
    EXPECT_EQ(prepared, options.expect_onednn && ExpectOneDnn(inputs))
        << (prepared ? "a oneDNN kernel ran where the reference should"
                     : "the oneDNN kernel declined the case");
    const std::vector<double> got = Values((*fast)[0]);
    double max_diff = 0.0;
    for (size_t i = 0; i < want.size(); ++i) {
      if (std::isnan(want[i])) {
        EXPECT_TRUE(std::isnan(got[i])) << "element " << i << ": got " << got[i];
      } else if (std::isinf(want[i])) {
        EXPECT_EQ(got[i], want[i]) << "element " << i;
      } else {
        ASSERT_TRUE(std::isfinite(got[i])) << "element " << i << ": got " << got[i];
        max_diff = std::max(max_diff, std::fabs(got[i] - want[i]));
      }
    }
    EXPECT_LE(max_diff, tol);
  }
}

// ---- fused_matmul --------------------------------------------------------------------

struct MatmulCase {
  Shape a, b;  // b as stored ([..., N, K] when trans_b)
  bool trans_b = false;
  int bias = 1;  // 0: none; 1: [N]; 2: the shape in bias_shape
  bool residual = false;
  Shape bias_shape = {};
};

std::string Describe(const MatmulCase& c) {
  return ShapeToString(c.a) + " x " + ShapeToString(c.b) + (c.trans_b ? " trans_b" : "") +
         (c.bias == 0   ? " no bias"
          : c.bias == 1 ? " bias [N]"
                        : " bias " + ShapeToString(c.bias_shape)) +
         (c.residual ? " residual" : "");
}

// Every case with b as an input and as a constant (and the bias too where it is expanded
// at prepare).
void CheckMatmul(const MatmulCase& c, const std::string& activation, std::mt19937& rng) {
  SCOPED_TRACE(Describe(c) + " activation " + activation);
  Attrs attrs = ActivationAttrs(activation);
  attrs.Set("trans_b", int64_t{c.trans_b ? 1 : 0});
  std::vector<Tensor> inputs = {Random(DType::kF32, c.a, rng), Random(DType::kF32, c.b, rng)};
  const int64_t k = c.a.back();
  const int64_t n = c.b.size() == 1 ? 1 : (c.trans_b ? c.b[c.b.size() - 2] : c.b.back());
  if (c.bias != 0)
    inputs.push_back(Random(DType::kF32, c.bias == 1 ? Shape{n} : c.bias_shape, rng));
  if (c.residual) {
    Expected<std::vector<Tensor>> shape_probe = RunRef("fused_matmul", inputs, attrs);
    ASSERT_TRUE(shape_probe.ok()) << shape_probe.status().ToString();
    inputs.push_back(Random(DType::kF32, (*shape_probe)[0].shape(), rng));
  }
  // A sum of k products of values in [-1, 1], plus bias and residual; every activation's
  // slope is at most 1.13 (gelu).
  const double tol = 1.5e-4 * std::sqrt(static_cast<double>(k) + 2.0);
  for (const bool constant : {false, true}) {
    SCOPED_TRACE(constant ? "b and bias constant" : "b and bias inputs");
    std::vector<bool> flags(inputs.size(), false);
    flags[1] = constant;
    if (inputs.size() > 2) flags[2] = constant;
    ExpectMatchesRef("fused_matmul", inputs, attrs, tol, {flags});
  }
}

TEST(FusedOneDnnTest, FastTableRunsTheReferenceForDeclinedCases) {
  ASSERT_NE(FastKernels().FindEntry("fused_matmul"), nullptr);
  ASSERT_NE(FastKernels().FindEntry("fused_conv"), nullptr);
  EXPECT_EQ(FastKernels().Find("fused_matmul"), &FusedMatmulRef);
  EXPECT_EQ(FastKernels().Find("fused_conv"), &FusedConvRef);
#if SY_CPU_HAS_ONEDNN
  EXPECT_NE(FastKernels().FindEntry("fused_matmul")->prepare, nullptr);
  EXPECT_NE(FastKernels().FindEntry("fused_conv")->prepare, nullptr);
#endif
}

TEST(FusedOneDnnTest, MatmulEveryActivationWithBiasAndResidual) {
  std::mt19937 rng(31);
  for (const std::string& activation : Activations()) {
    CheckMatmul({{17, 40}, {40, 24}, false, 1, true}, activation, rng);
  }
}

TEST(FusedOneDnnTest, MatmulBiasResidualAndTransposeCombinations) {
  std::mt19937 rng(32);
  const std::vector<MatmulCase> cases = {
      {{7, 13}, {13, 5}, false, 0, false},
      {{7, 13}, {13, 5}, false, 1, false},
      {{7, 13}, {13, 5}, false, 0, true},
      {{7, 13}, {5, 13}, true, 0, false},
      {{7, 13}, {5, 13}, true, 1, true},
      {{1, 64}, {96, 64}, true, 1, false},
      {{33, 70}, {70, 65}, false, 1, true},
      // bias shapes oneDNN does not take as the primitive's bias: broadcast at prepare
      // (constant) or per run into an output-sized buffer
      {{7, 13}, {13, 5}, false, 2, false, {7, 1}},
      {{7, 13}, {13, 5}, false, 2, true, {7, 5}},
      {{7, 13}, {13, 5}, false, 2, false, {1}},
      {{2, 7, 13}, {13, 5}, false, 2, true, {2, 1, 5}},
      {{3, 7, 13}, {5, 13}, true, 2, false, {7, 5}},
  };
  for (const MatmulCase& c : cases) {
    for (const std::string activation : {"relu", "gelu"}) CheckMatmul(c, activation, rng);
  }
}

TEST(FusedOneDnnTest, MatmulBatchesAndPromotedVectors) {
  std::mt19937 rng(33);
  const std::vector<MatmulCase> cases = {
      // batched a, 2-D b: folded into one [batch * M, K] product
      {{4, 6, 16}, {16, 9}, false, 1, true},
      {{2, 3, 6, 16}, {9, 16}, true, 1, true},
      // batched b (not prepacked), with broadcasting batch dims
      {{3, 6, 16}, {3, 16, 9}, false, 1, true},
      {{2, 1, 6, 16}, {3, 9, 16}, true, 1, true},
      {{6, 16}, {2, 16, 9}, false, 1, false},
      // 1-D a or b (promoted, the promoted dim dropped from the output)
      {{16}, {16, 9}, false, 1, true},
      {{16}, {2, 9, 16}, true, 1, false},
      {{5, 16}, {16}, false, 2, true, {5}},
      {{16}, {16}, false, 2, true, {}},
  };
  for (const MatmulCase& c : cases) CheckMatmul(c, "silu", rng);
}

// Large enough that oneDNN splits the work over both threads and blocks over K.
TEST(FusedOneDnnTest, MatmulBertFeedForwardShape) {
  std::mt19937 rng(34);
  CheckMatmul({{128, 384}, {384, 1536}, false, 1, false}, "gelu", rng);
  CheckMatmul({{128, 1536}, {384, 1536}, true, 1, true}, "none", rng);
}

// Each activation over a dense sweep of pre-activation values (a [n, 1] x b [[1]] is x
// exactly), so the post-op's own error shows: within 1e-6 * max(1, |y|) of the reference
// (docs/cpu-kernels.md has the measured ulps).
TEST(FusedOneDnnTest, ActivationPostOpsOnASweep) {
  std::vector<double> x;
  for (double v = -12.0; v <= 12.0; v += 1.0 / 512) x.push_back(v);
  for (double v = 12.0; v < 1e30; v *= 1.5) {
    x.push_back(v);
    x.push_back(-v);
  }
  const Shape a_shape = {static_cast<int64_t>(x.size()), 1};
  const std::vector<Tensor> inputs = {Make(DType::kF32, a_shape, x),
                                      Make(DType::kF32, {1, 1}, {1.0})};
  for (const std::string& activation : Activations()) {
    SCOPED_TRACE(activation);
    Attrs attrs = ActivationAttrs(activation);
    const Tensor want = RunRef1("fused_matmul", inputs, attrs);
    bool prepared = false;
    Expected<std::vector<Tensor>> got = RunPrepared(FastKernels(), "fused_matmul", inputs,
                                                    {false, true}, attrs, 1, nullptr, &prepared);
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    EXPECT_EQ(prepared, ExpectOneDnn(inputs));
    const std::vector<double> w = Values(want), g = Values((*got)[0]);
    double worst = 0.0, worst_x = 0.0;
    for (size_t i = 0; i < w.size(); ++i) {
      const double err = std::fabs(g[i] - w[i]) / std::max(1.0, std::fabs(w[i]));
      if (err > worst) {
        worst = err;
        worst_x = x[i];
      }
    }
    EXPECT_LE(worst, 1e-6) << "at x = " << worst_x;
  }
}

// NaN and infinities in a, b, bias or residual: the activations whose post-op treats them
// differently (relu, clip: NaN -> a number; gelu, gelu_tanh, silu: NaN at -inf) run on the
// reference for that call; the others keep NaN and infinities through the primitive.
TEST(FusedOneDnnTest, MatmulNaNAndInfinitiesAsTheReference) {
  std::mt19937 rng(35);
  for (const std::string& activation : Activations()) {
    SCOPED_TRACE(activation);
    Attrs attrs = ActivationAttrs(activation);
    std::vector<Tensor> inputs = {Random(DType::kF32, {6, 4}, rng),
                                  Random(DType::kF32, {4, 5}, rng), Random(DType::kF32, {5}, rng),
                                  Random(DType::kF32, {6, 5}, rng)};
    std::vector<double> a = Values(inputs[0]), r = Values(inputs[3]);
    a[0] = kNaN;    // row 0: NaN
    a[5] = kInf;    // row 1: +-inf, or NaN where products of both signs meet
    r[12] = -kInf;  // -inf before the activation
    r[13] = kNaN;
    inputs[0] = Make(DType::kF32, {6, 4}, a);
    inputs[3] = Make(DType::kF32, {6, 5}, r);
    ExpectMatchesRef("fused_matmul", inputs, attrs, 1e-4, {{false, false, false, false}});
    ExpectMatchesRef("fused_matmul", inputs, attrs, 1e-4, {{false, true, true, false}});
  }
  // A constant b holding NaN: declined at prepare where the guard applies.
  std::vector<Tensor> inputs = {Random(DType::kF32, {3, 4}, rng),
                                Make(DType::kF32, {4, 2}, {1, kNaN, 0, 1, 2, 3, 4, 5})};
  ExpectMatchesRef("fused_matmul", inputs, ActivationAttrs("relu"), 1e-4,
                   {{false, true}, /*expect_onednn=*/false});
  ExpectMatchesRef("fused_matmul", inputs, ActivationAttrs("tanh"), 1e-4, {{false, true}});
}

TEST(FusedOneDnnTest, DeclinedCasesMatchTheReference) {
  std::mt19937 rng(36);
  // clip with clip_min > clip_max: oneDNN's clip would give clip_min, the reference clip_max.
  Attrs clip = ActivationAttrs("clip");
  clip.Set("clip_min", 0.5);
  clip.Set("clip_max", -0.5);
  const std::vector<Tensor> mm = {Random(DType::kF32, {5, 6}, rng),
                                  Random(DType::kF32, {6, 3}, rng)};
  ExpectMatchesRef("fused_matmul", mm, clip, 1e-4, {{false, false}, false});
  // clip with an infinite bound, and with one bound absent (unbounded): both taken
  Attrs lower = ActivationAttrs("clip");
  lower.Set("clip_max", kInf);
  ExpectMatchesRef("fused_matmul", mm, lower, 1e-4, {{false, false}});
  Attrs upper;
  upper.Set("activation", std::string("clip"));
  upper.Set("clip_max", 0.1);
  ExpectMatchesRef("fused_matmul", mm, upper, 1e-4, {{false, true}});
  // other dtypes and empty dims
  ExpectMatchesRef("fused_matmul",
                   {Random(DType::kF64, {5, 6}, rng), Random(DType::kF64, {6, 3}, rng),
                    Random(DType::kF64, {3}, rng)},
                   ActivationAttrs("gelu"), 1e-12, {{false, true}, false});
  ExpectMatchesRef("fused_matmul",
                   {Random(DType::kF32, {0, 6}, rng), Random(DType::kF32, {6, 3}, rng),
                    Random(DType::kF32, {3}, rng)},
                   ActivationAttrs("relu"), 1e-4, {{false, true}, false});
  ExpectMatchesRef("fused_conv",
                   {Random(DType::kF64, {1, 2, 5, 5}, rng), Random(DType::kF64, {3, 2, 3, 3}, rng)},
                   ActivationAttrs("relu"), 1e-12, {{false, true}, false});
}

// ---- fused_conv ----------------------------------------------------------------------

struct ConvCase {
  Shape x;               // [N, C, spatial...]
  int64_t out_channels;  // M
  Shape kernel;          // spatial kernel dims
  int64_t group = 1;
  std::vector<int64_t> strides, pads, dilations;  // empty: attribute absent
  int inputs = 4;                                 // 2: x, w; 3: + bias; 4: + residual
};

std::string Describe(const ConvCase& c) {
  auto list = [](const std::vector<int64_t>& v) { return ShapeToString(v); };
  return "x " + ShapeToString(c.x) + " m " + std::to_string(c.out_channels) + " k " +
         ShapeToString(c.kernel) + " group " + std::to_string(c.group) + " strides " +
         list(c.strides) + " pads " + list(c.pads) + " dilations " + list(c.dilations) + " " +
         std::to_string(c.inputs) + " inputs";
}

void CheckConv(const ConvCase& c, const std::string& activation, std::mt19937& rng) {
  SCOPED_TRACE(Describe(c) + " activation " + activation);
  Shape w_shape = {c.out_channels, c.x[1] / c.group};
  w_shape.insert(w_shape.end(), c.kernel.begin(), c.kernel.end());
  std::vector<Tensor> inputs = {Random(DType::kF32, c.x, rng), Random(DType::kF32, w_shape, rng)};
  if (c.inputs > 2) inputs.push_back(Random(DType::kF32, {c.out_channels}, rng));
  Attrs attrs = ActivationAttrs(activation);
  if (!c.strides.empty()) attrs.Set("strides", c.strides);
  if (!c.pads.empty()) attrs.Set("pads", c.pads);
  if (!c.dilations.empty()) attrs.Set("dilations", c.dilations);
  attrs.Set("group", c.group);
  if (c.inputs > 3) {
    Expected<std::vector<Tensor>> shape_probe = RunRef("fused_conv", inputs, attrs);
    ASSERT_TRUE(shape_probe.ok()) << shape_probe.status().ToString();
    inputs.push_back(Random(DType::kF32, (*shape_probe)[0].shape(), rng));
  }
  const int64_t depth = ElementCount(std::span<const int64_t>(w_shape).subspan(1));
  const double tol = 1.5e-4 * std::sqrt(static_cast<double>(depth) + 2.0);
  // oneDNN 2.6's SSE4.1 depthwise kernel crashes in the residual's sum post-op unless the
  // channel count is a multiple of 4: the kernel declines those on such CPUs.
  const std::string description = OneDnnDescription();
  const bool sse41 = description.ends_with("sse41");
  const bool declined = sse41 && c.inputs > 3 && c.group == c.x[1] && c.out_channels == c.group &&
                        c.out_channels % 4 != 0;
  for (const bool constant : {false, true}) {
    SCOPED_TRACE(constant ? "w constant" : "w an input");
    std::vector<bool> flags(inputs.size(), false);
    flags[1] = constant;
    ExpectMatchesRef("fused_conv", inputs, attrs, tol, {flags, !declined});
  }
}

TEST(FusedOneDnnTest, ConvResidualReluAndClip) {
  std::mt19937 rng(41);
  const std::vector<ConvCase> cases = {
      {{2, 3, 7, 9}, 4, {3, 3}},
      {{1, 3, 13, 7}, 5, {3, 3}, 1, {2, 3}, {1, 1, 1, 1}},
      {{2, 4, 11, 10}, 6, {3, 3}, 1, {1, 1}, {1, 2, 0, 3}},
      {{1, 2, 12, 12}, 3, {3, 3}, 1, {1, 1}, {2, 2, 2, 2}, {2, 3}},
      // groups, depthwise, depthwise with a channel multiplier
      {{2, 4, 8, 8}, 6, {3, 3}, 2, {1, 1}, {1, 1, 1, 1}},
      {{1, 16, 9, 9}, 16, {3, 3}, 16, {2, 2}, {1, 1, 1, 1}},
      {{1, 16, 10, 10}, 16, {3, 3}, 16, {1, 1}, {1, 1, 1, 1}},
      {{1, 3, 9, 9}, 6, {3, 3}, 3},
      // 1x1, and a ResNet-like block size
      {{2, 8, 5, 7}, 3, {1, 1}},
      {{1, 64, 14, 14}, 64, {3, 3}, 1, {1, 1}, {1, 1, 1, 1}},
      // 1-D and 3-D
      {{2, 3, 11}, 4, {3}, 1, {2}, {1, 2}},
      {{1, 2, 5, 6, 4}, 3, {3, 2, 2}, 1, {}, {1, 0, 1, 1, 0, 1}},
  };
  for (const ConvCase& c : cases) {
    for (const std::string activation : {"relu", "clip"}) CheckConv(c, activation, rng);
  }
}

TEST(FusedOneDnnTest, ConvEveryActivationWithAndWithoutBiasAndResidual) {
  std::mt19937 rng(42);
  for (const std::string& activation : Activations()) {
    for (const int count : {2, 3, 4}) {
      ConvCase c{{1, 6, 8, 8}, 6, {3, 3}, 1, {}, {1, 1, 1, 1}};
      c.inputs = count;
      CheckConv(c, activation, rng);
      c.group = 6;  // depthwise
      CheckConv(c, activation, rng);
    }
  }
}

TEST(FusedOneDnnTest, ConvNaNAndInfinitiesAsTheReference) {
  std::mt19937 rng(43);
  for (const std::string activation : {"relu", "clip", "gelu", "silu", "tanh"}) {
    SCOPED_TRACE(activation);
    Attrs attrs = ActivationAttrs(activation);
    attrs.Set("pads", std::vector<int64_t>{1, 1, 1, 1});
    std::vector<Tensor> inputs = {
        Random(DType::kF32, {1, 2, 5, 5}, rng), Random(DType::kF32, {3, 2, 3, 3}, rng),
        Random(DType::kF32, {3}, rng), Random(DType::kF32, {1, 3, 5, 5}, rng)};
    std::vector<double> x = Values(inputs[0]), r = Values(inputs[3]);
    x[12] = kNaN;
    r[3] = -kInf;
    r[40] = kInf;
    inputs[0] = Make(DType::kF32, {1, 2, 5, 5}, x);
    inputs[3] = Make(DType::kF32, {1, 3, 5, 5}, r);
    ExpectMatchesRef("fused_conv", inputs, attrs, 1e-4, {{false, true, false, false}});
  }
}

// ---- Winograd (fast/onednn/onednn_conv.cpp) ------------------------------------------

// Sets an environment variable for its lifetime and restores what was there.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    const char* old = std::getenv(name);
    had_ = old != nullptr;
    if (had_) old_ = old;
    setenv(name, value, 1);
  }
  ~ScopedEnv() {
    if (had_) {
      setenv(name_, old_.c_str(), 1);
    } else {
      unsetenv(name_);
    }
  }

 private:
  const char* name_;
  bool had_ = false;
  std::string old_;
};

// fused_conv with bias, residual and `activation` on the fast table (w constant, one
// thread and two), compared with the reference; returns the implementation oneDNN chose.
std::string RunConvAgainstRef(const Shape& x, int64_t m, const std::vector<int64_t>& strides,
                              int64_t group, const std::string& activation, std::mt19937& rng) {
  const Shape w_shape = {m, x[1] / group, 3, 3};
  std::vector<Tensor> inputs = {Random(DType::kF32, x, rng), Random(DType::kF32, w_shape, rng),
                                Random(DType::kF32, {m}, rng)};
  Attrs attrs = ActivationAttrs(activation);
  attrs.Set("pads", std::vector<int64_t>{1, 1, 1, 1});
  attrs.Set("strides", strides);
  attrs.Set("group", group);
  const Tensor shape_probe = RunRef1("fused_conv", inputs, attrs);
  inputs.push_back(Random(DType::kF32, shape_probe.shape(), rng));
  const std::vector<double> want = Values(RunRef1("fused_conv", inputs, attrs));
  const double tol = 1.5e-4 * std::sqrt(static_cast<double>(x[1] / group * 9) + 2.0);
  std::string implementation;
  ThreadPool pool(2);
  for (ThreadPool* threads : {static_cast<ThreadPool*>(nullptr), &pool}) {
    SCOPED_TRACE(threads ? "2 threads" : "1 thread");
    Expected<std::vector<Tensor>> got =
        RunPrepared(FastKernels(), "fused_conv", inputs, {false, true, false, false}, attrs, 1,
                    threads, nullptr, &implementation);
    EXPECT_TRUE(got.ok()) << got.status().ToString();
    if (!got.ok()) return "";
    const std::vector<double> values = Values((*got)[0]);
    double max_diff = 0.0;
    for (size_t i = 0; i < want.size(); ++i) {
      max_diff = std::max(max_diff, std::fabs(values[i] - want[i]));
    }
    EXPECT_LE(max_diff, tol);
  }
  return implementation;
}

bool IsWinograd(const std::string& implementation) {
  return implementation.find("wino") != std::string::npos;
}

TEST(FusedOneDnnTest, ConvRunsWinogradWhereItPaysAndDirectElsewhere) {
  if (!ExpectOneDnn({Make(DType::kF32, {1}, {0.0})})) GTEST_SKIP() << "no oneDNN";
  // oneDNN 2.6 has its f32 Winograd kernel for AVX-512 only; elsewhere every conv is direct.
  const bool has_winograd = OneDnnDescription().find("avx512_core") != std::string::npos;
  std::mt19937 rng(44);
  for (const std::string activation : {"relu", "none"}) {
    SCOPED_TRACE(activation);
    // 16k channels, 3x3, stride 1, 16x16 outputs (>= 14x14): Winograd, in and out.
    EXPECT_EQ(IsWinograd(RunConvAgainstRef({1, 16, 16, 16}, 32, {1, 1}, 1, activation, rng)),
              has_winograd);
    EXPECT_EQ(IsWinograd(RunConvAgainstRef({2, 32, 14, 15}, 16, {1, 1}, 1, activation, rng)),
              has_winograd);
  }
  // Post-ops the Winograd kernel has no implementation for (clip, gelu) build the direct
  // one instead; either way the result is the reference's.
  for (const std::string activation : {"clip", "gelu", "leaky_relu"}) {
    SCOPED_TRACE(activation);
    RunConvAgainstRef({1, 16, 16, 16}, 32, {1, 1}, 1, activation, rng);
  }
  // Outside the rule: 13x13 outputs, stride 2, two groups, 8 input channels.
  EXPECT_FALSE(IsWinograd(RunConvAgainstRef({1, 16, 13, 13}, 16, {1, 1}, 1, "relu", rng)));
  EXPECT_FALSE(IsWinograd(RunConvAgainstRef({1, 16, 32, 32}, 16, {2, 2}, 1, "relu", rng)));
  EXPECT_FALSE(IsWinograd(RunConvAgainstRef({1, 32, 16, 16}, 32, {1, 1}, 2, "relu", rng)));
  EXPECT_FALSE(IsWinograd(RunConvAgainstRef({1, 8, 16, 16}, 16, {1, 1}, 1, "relu", rng)));
  // SWITCHYARD_CPU_WINOGRAD=0 keeps even a suitable conv direct.
  const ScopedEnv off("SWITCHYARD_CPU_WINOGRAD", "0");
  EXPECT_FALSE(IsWinograd(RunConvAgainstRef({1, 16, 16, 16}, 32, {1, 1}, 1, "relu", rng)));
}

TEST(FusedOneDnnTest, WinogradChoiceReadsTheEnvironment) {
  {
    const ScopedEnv unset("SWITCHYARD_CPU_WINOGRAD", "");
    ASSERT_TRUE(WinogradChoice().ok());
    EXPECT_TRUE(*WinogradChoice());
  }
  {
    const ScopedEnv on("SWITCHYARD_CPU_WINOGRAD", "1");
    EXPECT_TRUE(*WinogradChoice());
  }
  {
    const ScopedEnv off("SWITCHYARD_CPU_WINOGRAD", "0");
    EXPECT_FALSE(*WinogradChoice());
  }
  const ScopedEnv bad("SWITCHYARD_CPU_WINOGRAD", "yes");
  const Expected<bool> choice = WinogradChoice();
  ASSERT_FALSE(choice.ok());
  EXPECT_NE(choice.status().message().find("expected 1"), std::string::npos)
      << choice.status().message();
}

#if SY_CPU_HAS_ONEDNN
// ---- magnitude bounds (KernelContext::input_bounds / output_bounds) --------------------

// Prepares `op` on the fast table with inputs 1.. constant and runs it once with the given
// input bounds; returns the output bound the kernel left (+inf: none).
double RunWithBounds(const std::string& op, const std::vector<Tensor>& inputs, const Attrs& attrs,
                     std::vector<double> input_bounds, Tensor& y) {
  const KernelTable::Entry* entry = FastKernels().FindEntry(op);
  EXPECT_NE(entry, nullptr);
  std::vector<TensorType> types;
  std::vector<ConstTensorView> views;
  std::vector<const std::byte*> constants;
  for (size_t i = 0; i < inputs.size(); ++i) {
    types.push_back(inputs[i].type());
    views.push_back({inputs[i].type(), inputs[i].data()});
    constants.push_back(i == 0 ? nullptr : inputs[i].data());
  }
  Expected<std::vector<Tensor>> ref = RunRef(op, inputs, attrs);
  EXPECT_TRUE(ref.ok());
  y = *Tensor::Allocate(DType::kF32, (*ref)[0].shape());
  const std::vector<TensorType> out_types = {y.type()};
  std::unique_ptr<PreparedKernel> kernel =
      entry->prepare({op, types, out_types, attrs, constants, 1});
  EXPECT_NE(kernel, nullptr);
  if (kernel == nullptr) return 0.0;
  std::vector<TensorView> out = {{y.type(), y.mutable_data()}};
  std::vector<double> output_bounds = {std::numeric_limits<double>::infinity()};
  const KernelContext ctx{op, views, out, attrs, nullptr, input_bounds, output_bounds};
  EXPECT_TRUE(kernel->Run(ctx).ok());
  return output_bounds[0];
}

double MaxAbsOf(const Tensor& t) {
  double m = 0.0;
  for (double v : Values(t)) m = std::max(m, std::fabs(v));
  return m;
}

TEST(FusedOneDnnTest, ConvBoundsItsOutputAndTrustsOnlyBoundedInputs) {
  if (!ExpectOneDnn({Make(DType::kF32, {1}, {0.0})})) GTEST_SKIP() << "no oneDNN";
  std::mt19937 rng(45);
  Attrs attrs = ActivationAttrs("relu");
  attrs.Set("pads", std::vector<int64_t>{1, 1, 1, 1});
  std::vector<Tensor> in = {Random(DType::kF32, {1, 4, 6, 6}, rng),
                            Random(DType::kF32, {5, 4, 3, 3}, rng), Random(DType::kF32, {5}, rng)};
  // The bound: max|x| (found by the guard's scan) times the largest per-channel sum of |w|,
  // plus max|bias|, 1% wide; and at least max|y|.
  double w_sum = 0.0;
  const std::vector<double> w = Values(in[1]);
  for (int m = 0; m < 5; ++m) {
    double sum = 0.0;
    for (int i = 0; i < 36; ++i) sum += std::fabs(w[m * 36 + i]);
    w_sum = std::max(w_sum, sum);
  }
  const double want = (MaxAbsOf(in[0]) * w_sum + MaxAbsOf(in[2])) * 1.01;
  Tensor y;
  const double bound = RunWithBounds("fused_conv", in, attrs, {kInf, kInf, kInf}, y);
  EXPECT_NEAR(bound, want, 1e-5 * want);
  EXPECT_GE(bound, MaxAbsOf(y));
  // A NaN in an x the run does not bound: scanned, the reference runs, NaN comes out, and
  // no bound is passed on.
  std::vector<double> x = Values(in[0]);
  x[20] = kNaN;
  in[0] = Make(DType::kF32, {1, 4, 6, 6}, x);
  EXPECT_TRUE(std::isinf(RunWithBounds("fused_conv", in, attrs, {kInf, kInf, kInf}, y)));
  bool any_nan = false;
  for (double v : Values(y)) any_nan |= std::isnan(v);
  EXPECT_TRUE(any_nan);
  // The same x with a bound claimed for it: the scan is skipped (oneDNN's relu turns the
  // NaN into 0), which is what lets a chain of convs scan only its first input.
  RunWithBounds("fused_conv", in, attrs, {1.0, kInf, kInf}, y);
  any_nan = false;
  for (double v : Values(y)) any_nan |= std::isnan(v);
  EXPECT_FALSE(any_nan);
}

TEST(FusedOneDnnTest, ConvPassesNoBoundWhereItsSumsCouldOverflow) {
  if (!ExpectOneDnn({Make(DType::kF32, {1}, {0.0})})) GTEST_SKIP() << "no oneDNN";
  // |x| 1e19 and |w| 1e19: the products' bound is far above kLargestBound.
  const std::vector<Tensor> in = {Make(DType::kF32, {1, 1, 3, 3}, std::vector<double>(9, 1e19)),
                                  Make(DType::kF32, {1, 1, 3, 3}, std::vector<double>(9, -1e19))};
  Tensor y;
  EXPECT_TRUE(
      std::isinf(RunWithBounds("fused_conv", in, ActivationAttrs("relu"), {kInf, kInf}, y)));
}

TEST(FusedOneDnnTest, PoolsPassTheirInputsBoundOn) {
  if (!ExpectOneDnn({Make(DType::kF32, {1}, {0.0})})) GTEST_SKIP() << "no oneDNN";
  std::mt19937 rng(46);
  Attrs attrs;
  attrs.Set("kernel_shape", std::vector<int64_t>{2, 2});
  const std::vector<Tensor> in = {Random(DType::kF32, {1, 3, 6, 6}, rng)};
  Tensor y;
  EXPECT_NEAR(RunWithBounds("max_pool", in, attrs, {2.0}, y), 2.02, 1e-12);
  EXPECT_NEAR(RunWithBounds("avg_pool", in, attrs, {2.0}, y), 2.02, 1e-12);
  // max_pool scans an x the run does not bound, which bounds it; avg_pool does not scan.
  EXPECT_NEAR(RunWithBounds("max_pool", in, attrs, {kInf}, y), MaxAbsOf(in[0]) * 1.01, 1e-6);
  EXPECT_TRUE(std::isinf(RunWithBounds("avg_pool", in, attrs, {kInf}, y)));
}
#endif

#if SY_CPU_HAS_ONEDNN
int ThreadsOfThisProcess() {
  int count = 0;
  for ([[maybe_unused]] const auto& entry :
       std::filesystem::directory_iterator("/proc/self/task")) {
    ++count;
  }
  return count;
}

// A one-thread context's oneDNN kernels never start a wider OpenMP team, whatever count the
// host left on its thread: a team's idle threads spin between runs and double the CPU time
// of a one-thread run. And the host's count is given back. (ctest runs each test in its own
// process, so no earlier test has started OpenMP's threads.)
TEST(FusedOneDnnTest, OneThreadKernelsStartNoOpenMpTeamAndKeepTheHostsCount) {
  omp_set_num_threads(4);
  const int threads_before = ThreadsOfThisProcess();
  std::mt19937 rng(44);
  Attrs conv_attrs = ActivationAttrs("relu");
  conv_attrs.Set("pads", std::vector<int64_t>{1, 1, 1, 1});
  const std::vector<Tensor> conv_inputs = {Random(DType::kF32, {1, 16, 20, 20}, rng),
                                           Random(DType::kF32, {32, 16, 3, 3}, rng),
                                           Random(DType::kF32, {32}, rng)};
  const std::vector<Tensor> matmul_inputs = {Random(DType::kF32, {64, 96}, rng),
                                             Random(DType::kF32, {96, 80}, rng)};
  for (int run = 0; run < 2; ++run) {
    bool prepared = false;
    Expected<std::vector<Tensor>> conv =
        RunPrepared(FastKernels(), "fused_conv", conv_inputs, {false, true, true}, conv_attrs, 1,
                    nullptr, &prepared);
    ASSERT_TRUE(conv.ok()) << conv.status().ToString();
    EXPECT_TRUE(prepared);
    Expected<std::vector<Tensor>> matmul =
        RunPrepared(FastKernels(), "fused_matmul", matmul_inputs, {false, true},
                    ActivationAttrs("relu"), 1, nullptr, &prepared);
    ASSERT_TRUE(matmul.ok()) << matmul.status().ToString();
    EXPECT_TRUE(prepared);
  }
  EXPECT_EQ(ThreadsOfThisProcess(), threads_before) << "an OpenMP team was started";
  EXPECT_EQ(omp_get_max_threads(), 4) << "the host's OpenMP thread count was not given back";
}
#endif

}  // namespace
}  // namespace sy::cpu::test
