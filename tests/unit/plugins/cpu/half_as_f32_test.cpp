// Half-precision steps on the f32 kernels (half_as_f32.h): the vector conversions against
// half.h's scalar ones over every f16 and the f32 cases that round; f16 graphs prepared on
// the `cpu` device's kernels (through f32) and on the reference kernels (in double,
// rounded once per op), compared; a cast between float types keeps its own kernel.
#include "half_as_f32.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "cpu_executable.h"
#include "fast/fast_kernels.h"
#include "graph_builder.h"
#include "kernel_test_util.h"
#include "ref/ref_kernels.h"
#include "whole_graph_partition.h"

namespace sy::cpu::test {
namespace {

using sy::test::GraphBuilder;

uint32_t Bits(float f) { return FloatBits(f); }

TEST(HalfConversionTest, EveryHalfWidensExactlyAndRoundTrips) {
  std::vector<uint16_t> halves(65536);
  for (uint32_t h = 0; h < 65536; ++h) halves[h] = static_cast<uint16_t>(h);
  std::vector<float> widened(halves.size());
  HalfToF32(halves.data(), widened.data(), static_cast<int64_t>(halves.size()));
  std::vector<uint16_t> back(halves.size());
  F32ToHalf(widened.data(), back.data(), static_cast<int64_t>(widened.size()));
  for (uint32_t h = 0; h < 65536; ++h) {
    const float want = HalfToFloat(static_cast<uint16_t>(h));
    if (std::isnan(want)) {
      EXPECT_TRUE(std::isnan(widened[h])) << h;
      EXPECT_EQ(back[h] & 0x7c00u, 0x7c00u) << h;  // still NaN
      EXPECT_NE(back[h] & 0x03ffu, 0u) << h;
      continue;
    }
    ASSERT_EQ(Bits(widened[h]), Bits(want)) << "half bits " << h;
    ASSERT_EQ(back[h], h) << "half bits " << h;
  }
}

TEST(HalfConversionTest, NarrowingRoundsToNearestEvenAsTheScalarConversion) {
  // Exact ties between halves (normal and subnormal), values just either side of them,
  // the overflow threshold, the smallest subnormal's half, infinities; then random bits.
  std::vector<float> values = {
      0.0f,       -0.0f,     1.0f + 0x1p-11f, 1.0f + 0x3p-11f, 0x1p-25f,     0x3p-25f,
      0x1.8p-24f, 65504.0f,  65519.99f,       65520.0f,        -65520.0f,    1e30f,
      INFINITY,   -INFINITY, 0x1p-14f,        0x1.ffcp-15f,    0x1.ffep-15f, 0x1.0002p-14f};
  for (const float tie : {1.0f + 0x1p-11f, 2048.0f + 1.0f, 0x1p-24f * 3.0f}) {
    values.push_back(std::nextafter(tie, 0.0f));
    values.push_back(std::nextafter(tie, INFINITY));
  }
  std::mt19937 rng(7);
  for (int k = 0; k < 100000; ++k) {
    const float f = BitsToFloat(static_cast<uint32_t>(rng()));
    if (!std::isnan(f)) values.push_back(f);
  }
  std::vector<uint16_t> got(values.size());
  F32ToHalf(values.data(), got.data(), static_cast<int64_t>(values.size()));
  for (size_t i = 0; i < values.size(); ++i) {
    ASSERT_EQ(got[i], FloatToHalf(values[i])) << "f32 bits " << std::hex << Bits(values[i]);
  }
}

TEST(HalfConversionTest, FastCastBetweenF32AndF16EqualsTheReference) {
  // Random f32 bits (NaN aside: the payloads may differ), then every f16.
  std::mt19937 rng(11);
  Tensor f = *Tensor::Allocate(DType::kF32, {100003});
  for (float& v : f.mutable_values<float>()) {
    do {
      v = BitsToFloat(static_cast<uint32_t>(rng()));
    } while (std::isnan(v));
  }
  Tensor h = *Tensor::Allocate(DType::kF16, {65536 - 2048});
  uint16_t next = 0;
  for (uint16_t& v : h.mutable_values<uint16_t>()) {
    while (std::isnan(HalfToFloat(next))) ++next;
    v = next++;
  }
  for (const auto& [input, to] : {std::pair{f, "f16"}, std::pair{h, "f32"}}) {
    Attrs attrs;
    attrs.Set("to", std::string(to));
    Expected<std::vector<Tensor>> fast = sy::cpu::test::Run(FastKernels(), "cast", {input}, attrs);
    Expected<std::vector<Tensor>> ref = RunRef("cast", {input}, attrs);
    ASSERT_TRUE(fast.ok() && ref.ok());
    EXPECT_TRUE((*fast)[0].BitwiseEquals((*ref)[0])) << "to " << to;
  }
}

TEST(HalfAsF32Test, AppliesWhenEveryFloatValueIsHalf) {
  const TensorType h{DType::kF16, {2, 3}}, f{DType::kF32, {2, 3}}, i{DType::kI64, {2}};
  EXPECT_TRUE(HalfAsF32::Applies(std::vector{h, h}, std::vector{h}));
  EXPECT_TRUE(HalfAsF32::Applies(std::vector{h, i}, std::vector{h}));  // indices stay
  EXPECT_TRUE(HalfAsF32::Applies(std::vector{h}, std::vector{i}));     // an argmax
  EXPECT_FALSE(HalfAsF32::Applies(std::vector{f}, std::vector{h}));    // a cast rounds
  EXPECT_FALSE(HalfAsF32::Applies(std::vector{h}, std::vector{f}));
  EXPECT_FALSE(HalfAsF32::Applies(std::vector{i}, std::vector{i}));
  EXPECT_TRUE(ComputesInItsFloatType("conv_pool"));
  EXPECT_FALSE(ComputesInItsFloatType("movement"));
  EXPECT_FALSE(ComputesInItsFloatType("sampling"));
}

Tensor RandomHalf(Shape shape, double scale, uint32_t seed) {
  Tensor t = *Tensor::Allocate(DType::kF16, std::move(shape));
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> uniform(-scale, scale);
  for (uint16_t& v : t.mutable_values<uint16_t>()) v = FloatToHalf(uniform(rng));
  return t;
}

// Each output of `got` within `relative` of the largest magnitude of `want`'s (both read
// as f16 or f32, by their dtype).
void ExpectClose(const std::vector<Tensor>& got, const std::vector<Tensor>& want, double relative) {
  ASSERT_EQ(got.size(), want.size());
  const auto read = [](const Tensor& t, size_t i) {
    return t.dtype() == DType::kF16 ? HalfToFloat(t.values<uint16_t>()[i]) : t.values<float>()[i];
  };
  for (size_t k = 0; k < got.size(); ++k) {
    ASSERT_EQ(got[k].type(), want[k].type());
    const auto n = static_cast<size_t>(got[k].element_count());
    double scale = 0, worst = 0;
    for (size_t i = 0; i < n; ++i) scale = std::max(scale, std::fabs(double{read(want[k], i)}));
    for (size_t i = 0; i < n; ++i) {
      worst = std::max(worst, std::fabs(double{read(got[k], i)} - read(want[k], i)));
    }
    EXPECT_GT(scale, 0.0) << "output " << k;
    EXPECT_LE(worst, relative * scale) << "output " << k << " (scale " << scale << ")";
  }
}

// conv (f16 weights) -> relu -> add a second input -> matmul by f16 weights -> softmax,
// and the conv's output bound too.
struct HalfChain {
  Graph graph;
  ValueId x, y;
};

HalfChain BuildHalfChain() {
  GraphBuilder g;
  HalfChain c;
  c.x = g.Input("x", DType::kF16, {2, 8, 10, 10});
  c.y = g.Input("y", DType::kF16, {2, 16, 10, 10});
  const ValueId w = g.Const("w", RandomHalf({16, 8, 3, 3}, 0.3, 1));
  const ValueId b = g.Const("b", RandomHalf({16}, 0.3, 2));
  const ValueId conv = g.Value("conv", DType::kF16, {2, 16, 10, 10});
  Attrs pads;
  pads.Set("pads", std::vector<int64_t>{1, 1, 1, 1});
  g.Node("conv", {c.x, w, b}, {conv}, pads, "conv");
  const ValueId relu = g.Unary("relu", conv, "relu");
  const ValueId sum = g.Binary("add", relu, c.y, "sum");
  const ValueId m = g.Const("m", RandomHalf({10, 6}, 0.5, 3));
  const ValueId mm = g.Value("mm", DType::kF16, {2, 16, 10, 6});
  g.Node("matmul", {sum, m}, {mm}, {}, "mm");
  g.Output(g.Unary("softmax", mm, "softmax"));
  g.Output(conv);
  c.graph = g.Build();
  return c;
}

TEST(HalfAsF32Test, HalfChainOnTheF32KernelsMatchesTheReference) {
  const HalfChain c = BuildHalfChain();
  const WholeGraphPartition p(c.graph, {});
  CpuExecutable fast(FastKernels(), p.get(), nullptr);
  CpuExecutable ref(RefKernels(), p.get(), nullptr);
  if (!OneDnnDescription().empty()) {
    // The conv and the matmul run oneDNN's f32 primitives, prepared over the widened
    // weights; on f16 they would have had the reference kernel only.
    EXPECT_GE(fast.prepared_step_count(), 2u);
  }
  EXPECT_EQ(ref.prepared_step_count(), 0u);
  for (uint32_t seed : {10u, 20u}) {
    const std::map<ValueId, Tensor> feeds = {{c.x, RandomHalf({2, 8, 10, 10}, 1.0, seed)},
                                             {c.y, RandomHalf({2, 16, 10, 10}, 1.0, seed + 1)}};
    // Each op rounds its output to f16 once on both sides; they differ by the f32 (not
    // double) arithmetic inside an op, and the f16 roundings that then flips: a few
    // f16 units of the largest value.
    ExpectClose(p.Run(fast, feeds), p.Run(ref, feeds), 4e-3);
  }
}

TEST(HalfAsF32Test, HalfValuesBetweenConvsAreStoredChannelsLast) {
  // x -> conv -> c1 -> conv -> y, all f16: c1 flows only between two steps on oneDNN's
  // f32 convs, so it is stored channels-last (its f16 bytes in NHWC order), as an f32
  // chain's would be; the result is the reference's within the f16 tolerance.
  GraphBuilder g;
  const ValueId x = g.Input("x", DType::kF16, {1, 8, 9, 9});
  Attrs pads;
  pads.Set("pads", std::vector<int64_t>{1, 1, 1, 1});
  const ValueId c1 = g.Value("c1", DType::kF16, {1, 16, 9, 9});
  g.Node("conv", {x, g.Const("w1", RandomHalf({16, 8, 3, 3}, 0.3, 4))}, {c1}, pads, "c1");
  const ValueId y = g.Value("y", DType::kF16, {1, 4, 9, 9});
  g.Node("conv", {c1, g.Const("w2", RandomHalf({4, 16, 3, 3}, 0.3, 5))}, {y}, pads, "y");
  g.Output(y);
  const Graph graph = g.Build();
  const WholeGraphPartition p(graph, {});
  CpuExecutable fast(FastKernels(), p.get(), nullptr);
  CpuExecutable ref(RefKernels(), p.get(), nullptr);
  if (!OneDnnDescription().empty()) {
    EXPECT_EQ(fast.channels_last_values(), std::vector<uint32_t>{p.Local(c1)});
  }
  const std::map<ValueId, Tensor> feeds = {{x, RandomHalf({1, 8, 9, 9}, 1.0, 6)}};
  ExpectClose(p.Run(fast, feeds), p.Run(ref, feeds), 4e-3);
}

TEST(HalfAsF32Test, CastsBetweenFloatTypesKeepTheirRounding) {
  // x (f32) -> cast f16 -> relu -> cast f32: the casts are not widened away, so the
  // output is x rounded to f16 (then made non-negative), exactly.
  GraphBuilder g;
  const ValueId x = g.Input("x", DType::kF32, {1000});
  const ValueId h = g.Value("h", DType::kF16, {1000});
  Attrs to_half, to_float;
  to_half.Set("to", std::string("f16"));
  to_float.Set("to", std::string("f32"));
  g.Node("cast", {x}, {h}, to_half, "to_half");
  const ValueId r = g.Unary("relu", h, "relu");
  const ValueId y = g.Value("y", DType::kF32, {1000});
  g.Node("cast", {r}, {y}, to_float, "to_float");
  g.Output(y);
  const Graph graph = g.Build();
  const WholeGraphPartition p(graph, {});
  CpuExecutable fast(FastKernels(), p.get(), nullptr);
  Tensor input = *Tensor::Allocate(DType::kF32, {1000});
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> uniform(-3, 3);
  for (float& v : input.mutable_values<float>()) v = uniform(rng);
  const std::vector<Tensor> out = p.Run(fast, {{x, input}});
  for (size_t i = 0; i < 1000; ++i) {
    const float want = std::max(0.0f, HalfToFloat(FloatToHalf(input.values<float>()[i])));
    ASSERT_EQ(out[0].values<float>()[i], want) << i;
  }
}

}  // namespace
}  // namespace sy::cpu::test
