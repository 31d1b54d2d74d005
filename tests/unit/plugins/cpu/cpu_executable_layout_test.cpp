// CpuExecutable's choice of layouts (cpu_executable.h, Layout in kernel.h): values that
// flow only between oneDNN convs are stored channels-last, so the convs skip their
// NCHW <-> NHWC reorders; bound values and values any other kernel reads stay row-major.
// Each graph is prepared as one partition twice, on the `cpu` device's kernels
// (FastKernels) and on the reference kernels (RefKernels), run on the same inputs, and
// the bound outputs compared; the tests also check which values were stored channels-last
// (CpuExecutable::channels_last_values).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "cpu_executable.h"
#include "fast/fast_kernels.h"
#include "graph_builder.h"
#include "ref/ref_kernels.h"
#include "thread_pool.h"
#include "whole_graph_partition.h"

namespace sy::cpu::test {
namespace {

using sy::test::GraphBuilder;

// Whether the `cpu` kernels run convs on oneDNN here (built with it, and not sent to
// OpenBLAS by SWITCHYARD_CPU_GEMM); without it nothing is stored channels-last.
bool OneDnnRuns() { return !OneDnnDescription().empty(); }

Tensor RandomF32(Shape shape, double scale, uint32_t seed) {
  Tensor t = *Tensor::Allocate(DType::kF32, std::move(shape));
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> uniform(-scale, scale);
  for (float& v : t.mutable_values<float>()) v = uniform(rng);
  return t;
}

// A conv-family node whose output has `shape`; returns the output.
ValueId ConvNode(GraphBuilder& g, const std::string& op, std::vector<ValueId> inputs, Shape shape,
                 const std::string& name, Attrs attrs = {}) {
  const ValueId out = g.Value(name, DType::kF32, std::move(shape));
  g.Node(op, std::move(inputs), {out}, std::move(attrs), name);
  return out;
}

Attrs ConvAttrs(std::vector<int64_t> pads, std::vector<int64_t> strides = {}, int64_t group = 1,
                const std::string& activation = "") {
  Attrs a;
  if (!pads.empty()) a.Set("pads", std::move(pads));
  if (!strides.empty()) a.Set("strides", std::move(strides));
  if (group != 1) a.Set("group", group);
  if (!activation.empty()) a.Set("activation", activation);
  return a;
}

// Expects every output within 2e-5 of the reference's largest magnitude (plus 1e-6), NaN
// where the reference has NaN.
void ExpectClose(const std::vector<Tensor>& got, const std::vector<Tensor>& want,
                 const std::string& what) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t k = 0; k < got.size(); ++k) {
    ASSERT_EQ(got[k].type(), want[k].type());
    const auto g = got[k].values<float>(), w = want[k].values<float>();
    double scale = 0, worst = 0;
    int nan_mismatches = 0;
    for (float v : w) {
      if (std::isfinite(v)) scale = std::max(scale, std::fabs(static_cast<double>(v)));
    }
    for (size_t i = 0; i < w.size(); ++i) {
      if (std::isnan(w[i]) || std::isnan(g[i])) {
        nan_mismatches += std::isnan(w[i]) != std::isnan(g[i]) ? 1 : 0;
        continue;
      }
      worst = std::max(worst, std::fabs(static_cast<double>(g[i]) - w[i]));
    }
    EXPECT_EQ(nan_mismatches, 0) << what << ", output " << k;
    EXPECT_LE(worst, 2e-5 * scale + 1e-6) << what << ", output " << k << " (scale " << scale << ")";
  }
}

// A chain with everything the layout choice has to get right:
//   c1 = fused_conv(x, relu)                  x bound: read row-major; c1 channels-last
//   c2 = fused_conv(c1, depthwise, stride 2, clip 0..6)        channels-last in and out
//   c3 = conv(c2, 1x1)                        also read by an add: stays row-major
//   s  = add(c3, c3)                                                     graph output
//   c4 = fused_conv(c3, residual c2, relu)    residual channels-last, x row-major
//   c5 = fused_conv(c4, residual c4, leaky)   a graph output: row-major, read by c6 too
//   c6 = conv(c5, stride 2)                                              graph output
//   d  = conv(c1, 1x1)                        read only by e, which oneDNN declines
//   e  = fused_conv(d, clip 1..0)             (clip_min > clip_max: the reference runs it)
struct Chain {
  Graph graph;
  ValueId x, c1, c2, c3, c4, c5, d;
};

Chain BuildChain() {
  GraphBuilder g;
  Chain c;
  c.x = g.Input("x", DType::kF32, {2, 8, 10, 10});
  auto w = [&](const std::string& name, Shape shape, uint32_t seed) {
    return g.Const(name, RandomF32(std::move(shape), 0.4, seed));
  };
  c.c1 = ConvNode(g, "fused_conv", {c.x, w("w1", {16, 8, 3, 3}, 1), w("b1", {16}, 2)},
                  {2, 16, 10, 10}, "c1", ConvAttrs({1, 1, 1, 1}, {}, 1, "relu"));
  Attrs clip = ConvAttrs({1, 1, 1, 1}, {2, 2}, 16, "clip");
  clip.Set("clip_min", 0.0);
  clip.Set("clip_max", 6.0);
  c.c2 = ConvNode(g, "fused_conv", {c.c1, w("w2", {16, 1, 3, 3}, 3), w("b2", {16}, 4)},
                  {2, 16, 5, 5}, "c2", clip);
  c.c3 = ConvNode(g, "conv", {c.c2, w("w3", {16, 16, 1, 1}, 5), w("b3", {16}, 6)}, {2, 16, 5, 5},
                  "c3");
  g.Output(g.Binary("add", c.c3, c.c3, "s"));
  c.c4 = ConvNode(g, "fused_conv", {c.c3, w("w4", {16, 16, 3, 3}, 7), w("b4", {16}, 8), c.c2},
                  {2, 16, 5, 5}, "c4", ConvAttrs({1, 1, 1, 1}, {}, 1, "relu"));
  Attrs leaky = ConvAttrs({}, {}, 1, "leaky_relu");
  leaky.Set("activation_alpha", 0.1);
  c.c5 = ConvNode(g, "fused_conv", {c.c4, w("w5", {16, 16, 1, 1}, 9), w("b5", {16}, 10), c.c4},
                  {2, 16, 5, 5}, "c5", leaky);
  g.Output(c.c5);
  g.Output(ConvNode(g, "conv", {c.c5, w("w6", {4, 16, 3, 3}, 11)}, {2, 4, 2, 2}, "c6",
                    ConvAttrs({}, {2, 2})));
  c.d = ConvNode(g, "conv", {c.c1, w("wd", {8, 16, 1, 1}, 12), w("bd", {8}, 13)}, {2, 8, 10, 10},
                 "d");
  Attrs declined = ConvAttrs({1, 1, 1, 1}, {}, 1, "clip");
  declined.Set("clip_min", 1.0);
  declined.Set("clip_max", 0.0);
  g.Output(ConvNode(g, "fused_conv", {c.d, w("we", {8, 8, 3, 3}, 14), w("be", {8}, 15)},
                    {2, 8, 10, 10}, "e", declined));
  c.graph = g.Build();
  return c;
}

class CpuExecutableLayoutTest : public testing::TestWithParam<int> {
 protected:
  // The `cpu` device's executable with GetParam() threads (0: no pool).
  std::unique_ptr<CpuExecutable> Fast(const WholeGraphPartition& p) {
    if (GetParam() > 0) pool_ = std::make_unique<ThreadPool>(GetParam());
    return std::make_unique<CpuExecutable>(FastKernels(), p.get(), pool_.get());
  }
  static std::unique_ptr<CpuExecutable> Ref(const WholeGraphPartition& p) {
    return std::make_unique<CpuExecutable>(RefKernels(), p.get(), nullptr);
  }

 private:
  std::unique_ptr<ThreadPool> pool_;
};

TEST_P(CpuExecutableLayoutTest, ConvChainKeepsIntermediatesChannelsLast) {
  const Chain c = BuildChain();
  const WholeGraphPartition p(c.graph, {});
  std::unique_ptr<CpuExecutable> fast = Fast(p);
  std::unique_ptr<CpuExecutable> ref = Ref(p);
  EXPECT_TRUE(ref->channels_last_values().empty());
  if (OneDnnRuns()) {
    // Every conv but e runs on oneDNN; c1, c2 and c4 flow only between them.
    EXPECT_EQ(fast->prepared_step_count(), 7u);
    std::vector<uint32_t> want = {p.Local(c.c1), p.Local(c.c2), p.Local(c.c4)};
    std::sort(want.begin(), want.end());
    EXPECT_EQ(fast->channels_last_values(), want);
  } else {
    EXPECT_TRUE(fast->channels_last_values().empty());
  }
  const std::map<ValueId, Tensor> feeds = {{c.x, RandomF32({2, 8, 10, 10}, 1.0, 99)}};
  const std::vector<Tensor> expected = p.Run(*ref, feeds);
  ExpectClose(p.Run(*fast, feeds), expected, "first run");
  // New inputs (the kernels keep their buffers between runs), then x misaligned, which
  // sends c1 to its fallback kernel, whose output must then be written channels-last.
  for (const size_t misalign : {0, 2}) {
    const std::map<ValueId, Tensor> other = {
        {c.x, RandomF32({2, 8, 10, 10}, 1.0, 100 + static_cast<uint32_t>(misalign))}};
    ExpectClose(p.Run(*fast, other, misalign), p.Run(*ref, other),
                "x misaligned by " + std::to_string(misalign));
  }
}

TEST_P(CpuExecutableLayoutTest, NonFiniteInputsTakeTheFallbackInEitherLayout) {
  // A NaN in x: the relu and clip convs hand such calls to the reference kernel, which
  // then reads and writes c1, c2 and c4 through row-major copies.
  const Chain c = BuildChain();
  const WholeGraphPartition p(c.graph, {});
  std::unique_ptr<CpuExecutable> fast = Fast(p);
  std::unique_ptr<CpuExecutable> ref = Ref(p);
  Tensor x = RandomF32({2, 8, 10, 10}, 1.0, 5);
  x.mutable_values<float>()[800 + 3 * 10 + 4] = std::nanf("");  // batch 1, channel 0
  const std::map<ValueId, Tensor> feeds = {{c.x, x}};
  ExpectClose(p.Run(*fast, feeds), p.Run(*ref, feeds), "NaN in x");
}

TEST_P(CpuExecutableLayoutTest, ValuesReadByAnotherPartitionStayRowMajor) {
  // c2 is bound as an output (another partition reads it): only c1 and c4 remain.
  const Chain c = BuildChain();
  const WholeGraphPartition p(c.graph, {c.c2});
  std::unique_ptr<CpuExecutable> fast = Fast(p);
  if (OneDnnRuns()) {
    std::vector<uint32_t> want = {p.Local(c.c1), p.Local(c.c4)};
    std::sort(want.begin(), want.end());
    EXPECT_EQ(fast->channels_last_values(), want);
  }
  const std::map<ValueId, Tensor> feeds = {{c.x, RandomF32({2, 8, 10, 10}, 1.0, 7)}};
  ExpectClose(p.Run(*fast, feeds), p.Run(*Ref(p), feeds), "c2 bound");
}

TEST_P(CpuExecutableLayoutTest, OneDimensionalConvChain) {
  // Channels-last for 1-D convs is NWC; strided depthwise then pointwise with a residual.
  GraphBuilder g;
  const ValueId x = g.Input("x", DType::kF32, {1, 6, 33});
  const ValueId a = ConvNode(g, "conv", {x, g.Const("wa", RandomF32({12, 6, 3}, 0.5, 1))},
                             {1, 12, 16}, "a", ConvAttrs({1, 0}, {2}));
  const ValueId b = ConvNode(g, "fused_conv", {a, g.Const("wb", RandomF32({12, 1, 5}, 0.5, 2))},
                             {1, 12, 16}, "b", ConvAttrs({2, 2}, {}, 12, "relu"));
  g.Output(ConvNode(
      g, "fused_conv",
      {b, g.Const("wc", RandomF32({12, 12, 1}, 0.5, 3)), g.Const("bc", RandomF32({12}, 0.5, 4)), a},
      {1, 12, 16}, "c", ConvAttrs({}, {}, 1, "tanh")));
  const Graph graph = g.Build();
  const WholeGraphPartition p(graph, {});
  std::unique_ptr<CpuExecutable> fast = Fast(p);
  if (OneDnnRuns()) {
    std::vector<uint32_t> want = {p.Local(a), p.Local(b)};
    std::sort(want.begin(), want.end());
    EXPECT_EQ(fast->channels_last_values(), want);
  }
  const std::map<ValueId, Tensor> feeds = {{x, RandomF32({1, 6, 33}, 1.0, 8)}};
  ExpectClose(p.Run(*fast, feeds), p.Run(*Ref(p), feeds), "1-D");
}

TEST_P(CpuExecutableLayoutTest, PoolsKeepAConvChainChannelsLast) {
  // A ResNet stem and head: conv -> max_pool -> conv (residual) -> avg_pool -> conv ->
  // global_avg_pool. The pools read and write channels-last, so every intermediate but the
  // global pool's [N, C, 1, 1] result (a graph output) is stored that way; then a NaN in x
  // sends the max_pool to its reference fallback through row-major copies.
  GraphBuilder g;
  const ValueId x = g.Input("x", DType::kF32, {2, 3, 16, 16});
  const ValueId a = ConvNode(g, "fused_conv", {x, g.Const("wa", RandomF32({8, 3, 3, 3}, 0.5, 1))},
                             {2, 8, 16, 16}, "a", ConvAttrs({1, 1, 1, 1}, {}, 1, "relu"));
  Attrs max_attrs;
  max_attrs.Set("kernel_shape", std::vector<int64_t>{3, 3});
  max_attrs.Set("strides", std::vector<int64_t>{2, 2});
  max_attrs.Set("pads", std::vector<int64_t>{1, 1, 1, 1});
  const ValueId m = ConvNode(g, "max_pool", {a}, {2, 8, 8, 8}, "m", max_attrs);
  const ValueId b = ConvNode(
      g, "fused_conv",
      {m, g.Const("wb", RandomF32({8, 8, 3, 3}, 0.3, 2)), g.Const("bb", RandomF32({8}, 0.3, 3)), m},
      {2, 8, 8, 8}, "b", ConvAttrs({1, 1, 1, 1}, {}, 1, "relu"));
  Attrs avg_attrs;
  avg_attrs.Set("kernel_shape", std::vector<int64_t>{2, 2});
  avg_attrs.Set("strides", std::vector<int64_t>{2, 2});
  const ValueId v = ConvNode(g, "avg_pool", {b}, {2, 8, 4, 4}, "v", avg_attrs);
  const ValueId c =
      ConvNode(g, "conv", {v, g.Const("wc", RandomF32({16, 8, 1, 1}, 0.5, 4))}, {2, 16, 4, 4}, "c");
  g.Output(ConvNode(g, "global_avg_pool", {c}, {2, 16, 1, 1}, "pooled"));
  const Graph graph = g.Build();
  const WholeGraphPartition p(graph, {});
  std::unique_ptr<CpuExecutable> fast = Fast(p);
  if (OneDnnRuns()) {
    EXPECT_EQ(fast->prepared_step_count(), 6u);
    std::vector<uint32_t> want = {p.Local(a), p.Local(m), p.Local(b), p.Local(v), p.Local(c)};
    std::sort(want.begin(), want.end());
    EXPECT_EQ(fast->channels_last_values(), want);
  }
  Tensor input = RandomF32({2, 3, 16, 16}, 1.0, 9);
  ExpectClose(p.Run(*fast, {{x, input}}), p.Run(*Ref(p), {{x, input}}), "finite x");
  input.mutable_values<float>()[3 * 256 + 5 * 16 + 7] = std::nanf("");  // batch 1
  ExpectClose(p.Run(*fast, {{x, input}}), p.Run(*Ref(p), {{x, input}}), "NaN in x");
}

TEST_P(CpuExecutableLayoutTest, WinogradConvsReorderFromAndToEveryLayout) {
  // A ResNet basic block at sizes oneDNN's Winograd kernel takes (fast/onednn/onednn_conv.cpp:
  // 3x3, stride 1, 16k channels, >= 14x14), whose blocked layout is neither row-major nor
  // channels-last: a reads the bound x row-major and writes channels-last; b reads a
  // channels-last as x and as its residual and writes row-major (a graph output); c reads
  // b row-major and writes channels-last for the direct stride-2 d.
  GraphBuilder g;
  const ValueId x = g.Input("x", DType::kF32, {1, 16, 16, 16});
  const ValueId a = ConvNode(
      g, "fused_conv",
      {x, g.Const("wa", RandomF32({32, 16, 3, 3}, 0.3, 1)), g.Const("ba", RandomF32({32}, 0.3, 2))},
      {1, 32, 16, 16}, "a", ConvAttrs({1, 1, 1, 1}, {}, 1, "relu"));
  const ValueId b = ConvNode(g, "fused_conv",
                             {a, g.Const("wb", RandomF32({32, 32, 3, 3}, 0.2, 3)),
                              g.Const("bb", RandomF32({32}, 0.3, 4)), a},
                             {1, 32, 16, 16}, "b", ConvAttrs({1, 1, 1, 1}, {}, 1, "relu"));
  g.Output(b);
  const ValueId c = ConvNode(g, "conv", {b, g.Const("wc", RandomF32({16, 32, 3, 3}, 0.2, 5))},
                             {1, 16, 16, 16}, "c", ConvAttrs({1, 1, 1, 1}));
  g.Output(ConvNode(g, "conv", {c, g.Const("wd", RandomF32({16, 16, 3, 3}, 0.2, 6))}, {1, 16, 8, 8},
                    "d", ConvAttrs({1, 1, 1, 1}, {2, 2})));
  const Graph graph = g.Build();
  const WholeGraphPartition p(graph, {});
  std::unique_ptr<CpuExecutable> fast = Fast(p);
  if (OneDnnRuns()) {
    std::vector<uint32_t> want = {p.Local(a), p.Local(c)};
    std::sort(want.begin(), want.end());
    EXPECT_EQ(fast->channels_last_values(), want);
  }
  const Tensor input = RandomF32({1, 16, 16, 16}, 1.0, 7);
  ExpectClose(p.Run(*fast, {{x, input}}), p.Run(*Ref(p), {{x, input}}), "basic block");
}

TEST_P(CpuExecutableLayoutTest, ConvsTrustOnlyBoundsThatCannotOverflow) {
  // a = relu(conv(x)) with |x| and |w| near 1e19: its sums overflow to +inf, so it passes no
  // bound on; b = clip(conv(a), 0, 6) with weights of both signs then gets inf - inf = NaN,
  // which only its own scan of a can send to the reference (oneDNN's clip would give 0).
  GraphBuilder g;
  const ValueId x = g.Input("x", DType::kF32, {1, 2, 4, 4});
  Tensor wa = *Tensor::Allocate(DType::kF32, {2, 2, 1, 1});
  for (float& v : wa.mutable_values<float>()) v = 3e19f;
  const ValueId a = ConvNode(g, "fused_conv", {x, g.Const("wa", wa)}, {1, 2, 4, 4}, "a",
                             ConvAttrs({}, {}, 1, "relu"));
  Tensor wb = *Tensor::Allocate(DType::kF32, {2, 2, 1, 1});
  wb.mutable_values<float>()[0] = 1.0f;
  wb.mutable_values<float>()[1] = -1.0f;
  wb.mutable_values<float>()[2] = 0.5f;
  wb.mutable_values<float>()[3] = 0.25f;
  Attrs clip = ConvAttrs({}, {}, 1, "clip");
  clip.Set("clip_min", 0.0);
  clip.Set("clip_max", 6.0);
  g.Output(ConvNode(g, "fused_conv", {a, g.Const("wb", wb)}, {1, 2, 4, 4}, "b", clip));
  const Graph graph = g.Build();
  const WholeGraphPartition p(graph, {});
  std::unique_ptr<CpuExecutable> fast = Fast(p);
  Tensor input = *Tensor::Allocate(DType::kF32, {1, 2, 4, 4});
  for (float& v : input.mutable_values<float>()) v = 2e19f;
  const std::vector<Tensor> want = p.Run(*Ref(p), {{x, input}});
  const auto w = want[0].values<float>();
  EXPECT_TRUE(std::isnan(w[0]));  // channel 0: inf - inf
  EXPECT_EQ(w[16], 6.0f);         // channel 1: +inf, clipped
  ExpectClose(p.Run(*fast, {{x, input}}), want, "overflowing a");
}

// qlinear_conv's codes (u8 and i8) between two qlinear_convs are stored channels-last where
// the integer kernel runs (oneDNN with VNNI), and every output equals the reference's bit
// for bit (the op's arithmetic is exact). The chain: a 3x3 conv with an odd y zero point,
// a strided depthwise conv writing i8 with per-channel w scales, a 1x1 conv; b is also a
// graph output, so it stays row-major; d's w zero point is not 0, which only the f32 path
// takes.
Tensor Bytes(DType dtype, Shape shape, uint32_t seed, int lo, int hi) {
  Tensor t = *Tensor::Allocate(dtype, std::move(shape));
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> uniform(lo, hi);
  std::byte* data = t.mutable_data();
  for (int64_t i = 0; i < ElementCount(t.shape()); ++i) {
    data[i] = static_cast<std::byte>(static_cast<uint8_t>(uniform(rng)));
  }
  return t;
}

Tensor Scalar(DType dtype, double v) {
  Tensor t = *Tensor::Allocate(dtype, {});
  if (dtype == DType::kF32) {
    t.mutable_values<float>()[0] = static_cast<float>(v);
  } else {
    t.mutable_data()[0] = static_cast<std::byte>(static_cast<uint8_t>(static_cast<int>(v)));
  }
  return t;
}

Tensor Floats(std::vector<float> values) {
  Tensor t = *Tensor::Allocate(DType::kF32, {static_cast<int64_t>(values.size())});
  std::copy(values.begin(), values.end(), t.mutable_values<float>().begin());
  return t;
}

TEST_P(CpuExecutableLayoutTest, QLinearConvChainKeepsCodesChannelsLast) {
  GraphBuilder g;
  const ValueId x = g.Input("x", DType::kU8, {2, 8, 9, 9});
  auto qconv = [&](const std::string& name, ValueId in, DType in_type, DType w_type, Shape w_shape,
                   DType out_type, Shape out_shape, double y_zero, Attrs attrs, uint32_t seed,
                   bool w_zero_nonzero = false) {
    const int64_t m = w_shape[0];
    std::vector<float> scales;
    for (int64_t c = 0; c < m; ++c) scales.push_back(0.002f + 0.0005f * static_cast<float>(c % 5));
    Tensor w_zero = Bytes(w_type, {m}, seed + 1, w_zero_nonzero ? 1 : 0, w_zero_nonzero ? 3 : 0);
    Tensor bias = *Tensor::Allocate(DType::kI32, {m});
    std::mt19937 rng(seed + 2);
    for (int32_t& b : bias.mutable_values<int32_t>())
      b = std::uniform_int_distribution<int>(-3000, 3000)(rng);
    const bool in_signed = in_type == DType::kI8;
    const ValueId out = g.Value(name, out_type, std::move(out_shape));
    g.Node("qlinear_conv",
           {in, g.Const(name + "_xs", Scalar(DType::kF32, 0.05)),
            g.Const(name + "_xz", Scalar(in_type, in_signed ? -3 : 7)),
            g.Const(name + "_w", Bytes(w_type, std::move(w_shape), seed, -100, 100)),
            g.Const(name + "_ws", Floats(scales)), g.Const(name + "_wz", std::move(w_zero)),
            g.Const(name + "_ys", Scalar(DType::kF32, 0.03)),
            g.Const(name + "_yz", Scalar(out_type, y_zero)), g.Const(name + "_b", std::move(bias))},
           {out}, std::move(attrs), name);
    return out;
  };
  const ValueId a = qconv("a", x, DType::kU8, DType::kI8, {16, 8, 3, 3}, DType::kU8, {2, 16, 9, 9},
                          131, ConvAttrs({1, 1, 1, 1}), 10);
  const ValueId b = qconv("b", a, DType::kU8, DType::kI8, {16, 1, 3, 3}, DType::kI8, {2, 16, 5, 5},
                          -5, ConvAttrs({1, 1, 1, 1}, {2, 2}, 16), 20);
  const ValueId c = qconv("c", b, DType::kI8, DType::kI8, {8, 16, 1, 1}, DType::kU8, {2, 8, 5, 5},
                          128, ConvAttrs({}), 30);
  const ValueId d = qconv("d", c, DType::kU8, DType::kI8, {4, 8, 3, 3}, DType::kU8, {2, 4, 3, 3}, 9,
                          ConvAttrs({}), 40, /*w_zero_nonzero=*/true);
  g.Output(b);
  g.Output(d);
  const Graph graph = g.Build();
  const WholeGraphPartition p(graph, {});
  std::unique_ptr<CpuExecutable> fast = Fast(p);
  const std::vector<uint32_t> layouts = fast->channels_last_values();
  // a flows from the integer kernel to the integer kernel; c is read by d, which takes the
  // f32 path (row-major only); b is a graph output.
  if (!layouts.empty()) {
    EXPECT_EQ(layouts, std::vector<uint32_t>{p.Local(a)});
  }
  for (uint32_t seed : {1u, 2u}) {
    const std::map<ValueId, Tensor> feeds = {{x, Bytes(DType::kU8, {2, 8, 9, 9}, seed, 0, 255)}};
    const std::vector<Tensor> got = p.Run(*fast, feeds);
    const std::vector<Tensor> want = p.Run(*Ref(p), feeds);
    ASSERT_EQ(got.size(), want.size());
    for (size_t k = 0; k < got.size(); ++k) {
      EXPECT_TRUE(got[k].BitwiseEquals(want[k])) << "output " << k << ", seed " << seed;
    }
  }
}

// A squeeze-excite scale between two convs: mul by a per-sample, per-channel [N, C, 1, 1]
// (either operand order) takes its full-size operand and output channels-last together,
// so neither conv reorders; where the product is also a graph output both stay
// row-major. Every result equals the reference's.
TEST_P(CpuExecutableLayoutTest, PerChannelScaleKeepsAConvChainChannelsLast) {
  for (const bool product_is_output : {false, true}) {
    for (const bool scale_first : {false, true}) {
      GraphBuilder g;
      const ValueId x = g.Input("x", DType::kF32, {2, 4, 9, 9});
      const ValueId se = g.Input("se", DType::kF32, {2, 8, 1, 1});
      const ValueId a =
          ConvNode(g, "fused_conv", {x, g.Const("wa", RandomF32({8, 4, 3, 3}, 0.5, 1))},
                   {2, 8, 9, 9}, "a", ConvAttrs({1, 1, 1, 1}, {}, 1, "relu"));
      const ValueId m = g.Value("m", DType::kF32, {2, 8, 9, 9});
      g.Node("mul", {scale_first ? se : a, scale_first ? a : se}, {m}, {}, "m");
      const ValueId b = ConvNode(g, "conv", {m, g.Const("wb", RandomF32({6, 8, 1, 1}, 0.5, 2))},
                                 {2, 6, 9, 9}, "b", ConvAttrs({}));
      g.Output(b);
      if (product_is_output) g.Output(m);
      const Graph graph = g.Build();
      const WholeGraphPartition p(graph, {});
      std::unique_ptr<CpuExecutable> fast = Fast(p);
      if (OneDnnRuns()) {
        // mul joins a and m into one layout: a bound m keeps both row-major.
        std::vector<uint32_t> want;
        if (!product_is_output) want = {p.Local(a), p.Local(m)};
        std::sort(want.begin(), want.end());
        EXPECT_EQ(fast->channels_last_values(), want);
      }
      const std::map<ValueId, Tensor> feeds = {{x, RandomF32({2, 4, 9, 9}, 1.0, 3)},
                                               {se, RandomF32({2, 8, 1, 1}, 1.0, 4)}};
      ExpectClose(p.Run(*fast, feeds), p.Run(*Ref(p), feeds),
                  std::string("per-channel scale") + (product_is_output ? ", product bound" : "") +
                      (scale_first ? ", scale first" : ""));
    }
  }
}

// A ghost module and a dense block: two convs concatenated along the channels, sliced, a
// batch_norm and a conv after them. concat, slice and batch_norm take their tensors in
// either layout, all in one, so the chain stays channels-last; where a value of it is
// also a graph output, all of it stays row-major. Every result equals the reference's.
TEST_P(CpuExecutableLayoutTest, ConcatSliceAndBatchNormKeepAConvChainChannelsLast) {
  for (const bool bound : {false, true}) {
    GraphBuilder g;
    const ValueId x = g.Input("x", DType::kF32, {2, 4, 7, 9});
    const ValueId a = ConvNode(g, "conv", {x, g.Const("wa", RandomF32({6, 4, 1, 1}, 0.5, 1))},
                               {2, 6, 7, 9}, "a", ConvAttrs({}));
    const ValueId b = ConvNode(g, "conv", {a, g.Const("wb", RandomF32({6, 1, 3, 3}, 0.5, 2))},
                               {2, 6, 7, 9}, "b", ConvAttrs({1, 1, 1, 1}, {}, 6));
    const ValueId c = g.Value("c", DType::kF32, {2, 12, 7, 9});
    Attrs axis;
    axis.Set("axis", int64_t{1});
    g.Node("concat", {a, b}, {c}, axis, "c");
    const ValueId s = g.Value("s", DType::kF32, {2, 10, 7, 8});
    Attrs window;
    window.Set("starts", std::vector<int64_t>{0, 1, 0, 1});
    window.Set("ends", std::vector<int64_t>{2, 11, 7, 9});
    window.Set("axes", std::vector<int64_t>{0, 1, 2, 3});
    window.Set("steps", std::vector<int64_t>{1, 1, 1, 1});
    g.Node("slice", {c}, {s}, window, "s");
    const ValueId n = g.Value("n", DType::kF32, {2, 10, 7, 8});
    g.Node("batch_norm",
           {s, g.Const("scale", RandomF32({10}, 1.0, 3)), g.Const("bias", RandomF32({10}, 1.0, 4)),
            g.Const("mean", RandomF32({10}, 1.0, 5)),
            g.Const("var",
                    [] {
                      Tensor v = RandomF32({10}, 1.0, 6);
                      for (float& f : v.mutable_values<float>()) f = std::fabs(f) + 0.5f;
                      return v;
                    }())},
           {n}, {}, "n");
    g.Output(ConvNode(g, "conv", {n, g.Const("wd", RandomF32({3, 10, 1, 1}, 0.5, 7))}, {2, 3, 7, 8},
                      "d", ConvAttrs({})));
    if (bound) {
      g.Output(c);
      g.Output(n);
    }
    const Graph graph = g.Build();
    const WholeGraphPartition p(graph, {});
    std::unique_ptr<CpuExecutable> fast = Fast(p);
    if (OneDnnRuns()) {
      // concat, slice and batch_norm join a, b, c, s and n into one layout, which the
      // bound c and n keep row-major.
      std::vector<uint32_t> want;
      if (!bound) want = {p.Local(a), p.Local(b), p.Local(c), p.Local(s), p.Local(n)};
      std::sort(want.begin(), want.end());
      EXPECT_EQ(fast->channels_last_values(), want);
    }
    const std::map<ValueId, Tensor> feeds = {{x, RandomF32({2, 4, 7, 9}, 1.0, 8)}};
    ExpectClose(p.Run(*fast, feeds), p.Run(*Ref(p), feeds),
                bound ? "concat and norm bound" : "all internal");
  }
}

INSTANTIATE_TEST_SUITE_P(Threads, CpuExecutableLayoutTest, testing::Values(0, 2),
                         [](const testing::TestParamInfo<int>& threads) {
                           return threads.param == 0 ? std::string("NoPool")
                                                     : std::to_string(threads.param) + "Threads";
                         });

}  // namespace
}  // namespace sy::cpu::test
