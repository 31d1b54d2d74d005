// qlinear_conv's cpu kernels (fast/onednn/onednn_qlinear_conv.cpp) against the reference
// kernel, bit for bit, with the weights, scales, zero points and bias constants of the
// model (the prepared kernels; otherwise the reference runs): the integer path (oneDNN,
// on CPUs with VNNI) for w zero points of 0 (128 for u8 weights), the widened f32 path for
// other zero points where no sum can reach 2^24, and the widened f64 path where one can
// (a bias near 2^30). Every pairing of u8/i8 x, w and y; 1 to 3 spatial dims, pads,
// strides, dilations, groups and depthwise; odd and even y zero points; multipliers that
// make exact ties (1/2, 1/16) and saturate.
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "fast/fast_kernels.h"
#include "fast_test_util.h"
#include "kernel_test_util.h"

namespace sy::cpu::test {
namespace {

Tensor Random(DType dtype, const Shape& shape, uint32_t seed, int lo, int hi) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> value(lo, hi);
  std::vector<double> v(static_cast<size_t>(ElementCount(shape)));
  for (double& x : v) x = value(rng);
  return Make(dtype, shape, v);
}

int Lowest(DType d) { return d == DType::kU8 ? 0 : -128; }
int Highest(DType d) { return d == DType::kU8 ? 255 : 127; }

struct Case {
  Shape x, w;
  std::vector<int64_t> pads, strides, dilations;
  int64_t group = 1;
  bool per_channel = true;
};

enum class Path { kInteger, kWidenedF32, kWidenedF64 };

// The node's inputs for `path`: the w zero point decides between the integer and widened
// paths, the bias between f32 and f64.
std::vector<Tensor> Inputs(const Case& c, DType tx, DType tw, DType ty, Path path, float multiplier,
                           uint32_t seed) {
  const int64_t m = c.w[0];
  const int64_t params = c.per_channel ? m : 1;
  const Shape param_shape = c.per_channel ? Shape{m} : Shape{};
  std::vector<double> w_scale, w_zero, bias;
  for (int64_t i = 0; i < params; ++i) {
    w_scale.push_back(i % 2 == 0 ? 1.0 : 0.5);  // multipliers `multiplier` and half of it
    const int integer_zero = tw == DType::kU8 ? 128 : 0;
    w_zero.push_back(path == Path::kInteger ? integer_zero : integer_zero + 1 + i % 3);
  }
  std::mt19937 rng(seed);
  for (int64_t i = 0; i < m; ++i) {
    bias.push_back(path == Path::kWidenedF64
                       ? (1 << 30) + std::uniform_int_distribution<int>(-999, 999)(rng)
                       : std::uniform_int_distribution<int>(-500, 500)(rng));
  }
  // w's values stay where no sum reaches 2^24 on the f32 path.
  return {Random(tx, c.x, seed + 1, Lowest(tx), Highest(tx)),
          Make(DType::kF32, {}, {1.0}),
          Make(tx, {}, {tx == DType::kU8 ? 131.0 : -7.0}),
          Random(tw, c.w, seed + 2, tw == DType::kU8 ? 28 : -100, tw == DType::kU8 ? 228 : 100),
          Make(DType::kF32, param_shape, w_scale),
          Make(tw, param_shape, w_zero),
          Make(DType::kF32, {}, {1.0 / multiplier}),
          Make(ty, {}, {ty == DType::kU8 ? 127.0 : 3.0}),
          Make(DType::kI32, {m}, bias)};
}

Attrs AttrsOf(const Case& c) {
  Attrs a;
  if (!c.pads.empty()) a.Set("pads", c.pads);
  if (!c.strides.empty()) a.Set("strides", c.strides);
  if (!c.dilations.empty()) a.Set("dilations", c.dilations);
  a.Set("group", c.group);
  return a;
}

TEST(QLinearConvFast, EveryPathEqualsTheReferenceBitForBit) {
  const Case cases[] = {
      {{1, 8, 9, 9}, {16, 8, 3, 3}, {1, 1, 1, 1}, {}, {}, 1, true},
      {{2, 16, 11, 7}, {16, 1, 3, 3}, {1, 1, 1, 1}, {2, 2}, {}, 16, true},
      {{1, 12, 10, 10}, {24, 6, 1, 1}, {}, {}, {}, 2, false},
      {{1, 4, 13, 13}, {8, 4, 3, 3}, {2, 0, 1, 2}, {1, 2}, {2, 2}, 1, true},
      {{1, 6, 17}, {10, 6, 5}, {2, 2}, {3}, {}, 1, true},
      {{1, 4, 5, 6, 7}, {8, 4, 3, 3, 3}, {1, 1, 1, 1, 1, 1}, {}, {}, 1, true},
  };
  uint32_t seed = 1;
  const bool vnni = OneDnnHasVnni();
  for (const Case& c : cases) {
    for (const DType tx : {DType::kU8, DType::kI8}) {
      for (const DType tw : {DType::kU8, DType::kI8}) {
        const DType ty = tx == tw ? DType::kU8 : DType::kI8;
        for (const Path path : {Path::kInteger, Path::kWidenedF32, Path::kWidenedF64}) {
          for (const float multiplier : {0.5f, 0.0625f, 0.0123f, 3.0f}) {
            const std::vector<Tensor> in = Inputs(c, tx, tw, ty, path, multiplier, seed += 5);
            SCOPED_TRACE(::testing::Message()
                         << ShapeToString(c.x) << " * " << ShapeToString(c.w) << ", "
                         << DTypeName(tx) << " x " << DTypeName(tw) << " -> " << DTypeName(ty)
                         << ", path " << static_cast<int>(path) << ", multiplier " << multiplier);
            const Tensor want = RunRef1("qlinear_conv", in, AttrsOf(c));
            std::vector<bool> constant(in.size(), true);
            constant[0] = false;
            for (int threads : {1, 2}) {
              bool prepared = false;
              std::string implementation;
              Expected<std::vector<Tensor>> run =
                  RunPrepared(FastKernels(), "qlinear_conv", in, constant, AttrsOf(c), 1,
                              Pool(threads), &prepared, &implementation);
              SY_ASSERT_OK(run);
              EXPECT_TRUE(SameValues((*run)[0], want)) << implementation;
              if (OneDnnDescription().empty()) continue;  // no oneDNN: the reference runs
              EXPECT_TRUE(prepared);
              if (path == Path::kWidenedF64) {
                EXPECT_EQ(implementation, "widened_f64_conv");
              } else if (path == Path::kWidenedF32 || !vnni) {
                EXPECT_EQ(implementation, "widened_f32_conv");
              } else {
                // oneDNN's ("brgconv:avx512_core_vnni", "x64:gemm_s8u8s32:jit", ...).
                EXPECT_EQ(implementation.find("widened"), std::string::npos) << implementation;
              }
            }
          }
        }
      }
    }
  }
}

// Scales that are graph inputs (not constants) leave the node to the reference kernel,
// which also reports a bad scale.
TEST(QLinearConvFast, ScalesThatAreNotConstantsRunOnTheReference) {
  const Case c = {{1, 2, 4, 4}, {2, 2, 1, 1}, {}, {}, {}, 1, true};
  std::vector<Tensor> in = Inputs(c, DType::kU8, DType::kI8, DType::kU8, Path::kInteger, 0.5f, 3);
  std::vector<bool> constant(in.size(), true);
  constant[0] = constant[1] = false;
  bool prepared = true;
  Expected<std::vector<Tensor>> run =
      RunPrepared(FastKernels(), "qlinear_conv", in, constant, AttrsOf(c), 1, nullptr, &prepared);
  SY_ASSERT_OK(run);
  EXPECT_FALSE(prepared);
  EXPECT_TRUE(SameValues((*run)[0], RunRef1("qlinear_conv", in, AttrsOf(c))));
  in[1] = Make(DType::kF32, {}, {0.0});
  run = RunPrepared(FastKernels(), "qlinear_conv", in, constant, AttrsOf(c));
  ASSERT_FALSE(run.ok());
  EXPECT_NE(run.status().message().find("x_scale is 0"), std::string::npos)
      << run.status().message();
}

}  // namespace
}  // namespace sy::cpu::test
