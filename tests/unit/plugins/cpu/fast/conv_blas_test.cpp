// The im2col + OpenBLAS conv kernel of the `cpu` device (fast/conv_blas.cpp), compared
// with the reference kernel on seeded random inputs: strides, symmetric and asymmetric
// pads, dilations, groups (depthwise too), with and without bias, 1x1 kernels (the direct
// path), empty dims, and an image large enough to be processed in several im2col bands.
// 1-D and 3-D convs and other dtypes go to the reference kernel.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <span>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "fast/fast_kernels.h"
#include "kernel_test_util.h"
#include "ref/ref_kernels.h"
#include "thread_pool.h"

namespace sy::cpu::test {
namespace {

Tensor Random(DType dtype, const Shape& shape, std::mt19937& rng) {
  std::uniform_real_distribution<double> dist(-1.0, 1.0);
  std::vector<double> values(static_cast<size_t>(ElementCount(shape)));
  for (double& v : values) v = dist(rng);
  return Make(dtype, shape, values);
}

struct ConvCase {
  Shape x;               // [N, C, spatial...]
  int64_t out_channels;  // M
  Shape kernel;          // spatial kernel dims
  int64_t group = 1;
  std::vector<int64_t> strides, pads, dilations;  // empty: attribute absent
  bool bias = true;
};

std::string Describe(const ConvCase& c) {
  auto list = [](const std::vector<int64_t>& v) { return ShapeToString(v); };
  return "x " + ShapeToString(c.x) + " m " + std::to_string(c.out_channels) + " k " +
         ShapeToString(c.kernel) + " group " + std::to_string(c.group) + " strides " +
         list(c.strides) + " pads " + list(c.pads) + " dilations " + list(c.dilations) +
         (c.bias ? " bias" : " no bias");
}

// Runs conv on the fast and reference kernels and compares (finite values within a
// tolerance for a sum of C/g * taps products of values in [-1, 1], plus the bias).
void CheckConv(DType dtype, const ConvCase& c, std::mt19937& rng) {
  SCOPED_TRACE(Describe(c));
  const int64_t channels = c.x[1];
  Shape w_shape = {c.out_channels, channels / c.group};
  w_shape.insert(w_shape.end(), c.kernel.begin(), c.kernel.end());
  std::vector<Tensor> inputs = {Random(dtype, c.x, rng), Random(dtype, w_shape, rng)};
  if (c.bias) inputs.push_back(Random(dtype, {c.out_channels}, rng));
  Attrs attrs;
  if (!c.strides.empty()) attrs.Set("strides", c.strides);
  if (!c.pads.empty()) attrs.Set("pads", c.pads);
  if (!c.dilations.empty()) attrs.Set("dilations", c.dilations);
  attrs.Set("group", c.group);
  Expected<std::vector<Tensor>> ref = RunRef("conv", inputs, attrs);
  ASSERT_TRUE(ref.ok()) << ref.status().ToString();
  const std::vector<double> want = Values((*ref)[0]);
  const int64_t depth = ElementCount(std::span<const int64_t>(w_shape).subspan(1));
  // f64 on BLAS: sums in another order (1e-12); the other dtypes are the reference itself.
  const double per = dtype == DType::kF32 ? 1e-4 : dtype == DType::kF64 ? 1e-12 : 0.0;
  const double tol = per * std::sqrt(static_cast<double>(std::max<int64_t>(depth, 1)) + 1.0);
  // The weights as a graph input, and as a constant of the model (the oneDNN kernel then
  // reorders them once at prepare); on one thread and on two.
  ThreadPool pool(2);
  for (const bool constant : {false, true}) {
    for (ThreadPool* threads : {static_cast<ThreadPool*>(nullptr), &pool}) {
      SCOPED_TRACE(std::string(constant ? "constant" : "input") + " weights, " +
                   (threads ? "2 threads" : "1 thread"));
      bool prepared = false;
      Expected<std::vector<Tensor>> fast = RunPrepared(
          FastKernels(), "conv", inputs, {false, constant}, attrs, 1, threads, &prepared);
      ASSERT_TRUE(fast.ok()) << fast.status().ToString();
      ASSERT_EQ((*fast)[0].shape(), (*ref)[0].shape());
#if SY_CPU_HAS_ONEDNN
      // Every non-empty f32 case runs on oneDNN (nothing is declined silently).
      if (dtype == DType::kF32 && (*fast)[0].element_count() > 0 && depth > 0 &&
          inputs[0].element_count() > 0) {
        EXPECT_TRUE(prepared) << "the oneDNN kernel declined the case";
      }
#endif
      const std::vector<double> got = Values((*fast)[0]);
      double max_diff = 0.0;
      for (size_t i = 0; i < want.size(); ++i) {
        max_diff = std::max(max_diff, std::fabs(got[i] - want[i]));
      }
      EXPECT_LE(max_diff, tol);
    }
  }
}

TEST(ConvBlasTest, FastTableHasTunedConv) {
  EXPECT_NE(FastKernels().Find("conv"), nullptr);
  EXPECT_NE(FastKernels().Find("conv"), RefKernels().Find("conv"));
}

const std::vector<ConvCase>& Conv2dCases() {
  static const std::vector<ConvCase> cases = {
      {{1, 1, 5, 5}, 1, {3, 3}},
      {{2, 3, 7, 9}, 4, {3, 3}},
      {{2, 3, 7, 9}, 4, {3, 3}, 1, {}, {}, {}, false},
      {{1, 3, 13, 7}, 5, {3, 2}, 1, {2, 1}},
      {{1, 3, 13, 7}, 5, {3, 3}, 1, {2, 3}, {1, 1, 1, 1}},
      {{2, 4, 11, 10}, 6, {3, 3}, 1, {1, 1}, {1, 2, 0, 3}},
      {{1, 2, 12, 12}, 3, {3, 3}, 1, {1, 1}, {2, 2, 2, 2}, {2, 3}},
      {{1, 2, 12, 12}, 3, {2, 3}, 1, {3, 2}, {0, 1, 2, 0}, {3, 2}},
      {{1, 4, 6, 6}, 4, {5, 5}, 1, {}, {4, 4, 4, 4}},  // windows mostly in the padding
      // groups, depthwise, channel multiplier
      {{2, 4, 8, 8}, 6, {3, 3}, 2, {1, 1}, {1, 1, 1, 1}},
      {{1, 6, 9, 9}, 6, {3, 3}, 6, {2, 2}, {1, 1, 1, 1}},
      {{1, 3, 9, 9}, 6, {3, 3}, 3, {}, {}, {}, false},
      // 1x1: the direct path, and with strides or pads (im2col)
      {{2, 8, 5, 7}, 3, {1, 1}},
      {{2, 8, 5, 7}, 4, {1, 1}, 2, {}, {}, {}, false},
      {{1, 8, 5, 7}, 3, {1, 1}, 1, {2, 2}},
      {{1, 8, 5, 7}, 3, {1, 1}, 1, {}, {1, 0, 0, 1}},
      {{1, 8, 5, 7}, 3, {1, 1}, 1, {}, {}, {2, 2}},
      // sizes of 1, kernel as big as the image
      {{1, 1, 1, 1}, 1, {1, 1}},
      {{3, 1, 1, 9}, 2, {1, 3}},
      {{1, 2, 4, 4}, 3, {4, 4}},
      // empty dims: batch, spatial (padded, so the output is not empty), out channels
      {{0, 3, 5, 5}, 2, {3, 3}},
      {{2, 3, 0, 4}, 2, {1, 1}, 1, {}, {1, 0, 1, 0}},
      {{2, 3, 0, 0}, 2, {1, 1}},
      {{1, 3, 5, 5}, 0, {3, 3}},
  };
  return cases;
}

TEST(ConvBlasTest, F32Conv2dMatchesReference) {
  std::mt19937 rng(2024);
  for (const ConvCase& c : Conv2dCases()) CheckConv(DType::kF32, c, rng);
}

// f64 (ONNX ConvInteger and QLinearConv import to it) on cblas_dgemm.
TEST(ConvBlasTest, F64Conv2dMatchesReference) {
  std::mt19937 rng(2027);
  for (const ConvCase& c : Conv2dCases()) CheckConv(DType::kF64, c, rng);
}

// depth * OW * OH is over the im2col budget, so the output rows come in several bands.
TEST(ConvBlasTest, F32Conv2dInBandsMatchesReference) {
  std::mt19937 rng(2025);
  CheckConv(DType::kF32, {{1, 64, 130, 130}, 2, {3, 3}, 1, {}, {1, 0, 0, 1}}, rng);
}

TEST(ConvBlasTest, OtherCasesUseReferenceFallback) {
  std::mt19937 rng(2026);
  // 1-D and 3-D f32
  CheckConv(DType::kF32, {{2, 3, 11}, 4, {3}, 1, {2}, {1, 2}, {1}}, rng);
  CheckConv(DType::kF32, {{1, 2, 5, 6, 4}, 3, {3, 2, 2}, 1, {}, {1, 0, 1, 1, 0, 1}}, rng);
  // other dtypes, 2-D
  for (DType dtype : {DType::kF16, DType::kBF16}) {
    CheckConv(dtype, {{2, 4, 7, 6}, 4, {3, 3}, 2, {2, 1}, {1, 1, 0, 0}}, rng);
  }
}

}  // namespace
}  // namespace sy::cpu::test
