// Reference kernels for matmul, gemm, conv, conv_transpose, max_pool, avg_pool and
// global_avg_pool: hand-derived cases (including the ONNX operator examples), identities
// (conv_transpose is conv's adjoint), and NumPy references written by
// tools/kernel_refs/linalg_conv.py into tests/data/kernels/linalg_conv/ (each case's
// attributes are repeated here under the script's case name).
#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "kernel_test_util.h"
#include "test_util.h"

namespace sy::cpu::test {
namespace {

// Attributes from name/value pairs (local: test_util.cpp is not part of this binary).
Attrs AttrsOf(std::initializer_list<std::pair<std::string, AttrValue>> items) {
  Attrs attrs;
  for (const auto& [name, value] : items) attrs.Set(name, value);
  return attrs;
}

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

std::vector<int64_t> Ints(std::initializer_list<int64_t> v) { return v; }

// Expects `got` to have `shape` and `want` within atol + rtol * |want| (NaN matches NaN,
// infinities match exactly). Reports at most a few mismatching elements.
void ExpectClose(const Tensor& got, const Shape& shape, const std::vector<double>& want,
                 double rtol, double atol) {
  ASSERT_EQ(got.shape(), shape);
  const std::vector<double> values = Values(got);
  ASSERT_EQ(values.size(), want.size());
  int failures = 0;
  for (size_t i = 0; i < want.size() && failures < 5; ++i) {
    const double g = values[i];
    const double w = want[i];
    bool ok = false;
    if (std::isnan(w)) {
      ok = std::isnan(g);
    } else if (std::isinf(w)) {
      ok = g == w;
    } else {
      ok = std::fabs(g - w) <= atol + rtol * std::fabs(w);
    }
    if (!ok) {
      ++failures;
      ADD_FAILURE() << "element " << i << ": got " << g << ", want " << w;
    }
  }
}

void ExpectExact(const Tensor& got, const Shape& shape, const std::vector<double>& want) {
  ExpectClose(got, shape, want, 0.0, 0.0);
}

// Tolerance for a float result rounded once from a double accumulation.
double RelTol(DType dtype) {
  switch (dtype) {
    case DType::kF64:
      return 1e-12;
    case DType::kF32:
      return 1e-6;
    default:
      return 2e-3;  // f16, bf16
  }
}

Tensor Data(std::string_view name, std::string_view role) {
  return LoadData("kernels/linalg_conv/" + std::string(name) + "_" + std::string(role) + ".npy");
}

// Runs `op` on the inputs `roles` of NumPy case `name` and compares with its `y`.
void CheckCase(std::string_view name, std::string_view op, std::initializer_list<const char*> roles,
               Attrs attrs = {}) {
  SCOPED_TRACE("case " + std::string(name));
  std::vector<Tensor> inputs;
  for (const char* role : roles) inputs.push_back(Data(name, role));
  const Tensor want = Data(name, "y");
  const Tensor got = RunRef1(op, inputs, std::move(attrs));
  ASSERT_EQ(got.dtype(), inputs[0].dtype());
  const double rtol = IsFloat(got.dtype()) ? RelTol(got.dtype()) : 0.0;
  ExpectClose(got, want.shape(), Values(want), rtol, rtol * 1e-6);
}

Tensor F32(Shape shape, const std::vector<double>& values) {
  return Make(DType::kF32, std::move(shape), values);
}

// ---------------------------------------------------------------------------------------
// matmul

TEST(LinalgConvRefMatmul, HandTwoByTwo) {
  const Tensor y = RunRef1("matmul", {F32({2, 2}, {1, 2, 3, 4}), F32({2, 2}, {5, 6, 7, 8})});
  ExpectExact(y, {2, 2}, {19, 22, 43, 50});
}

TEST(LinalgConvRefMatmul, VectorPromotion) {
  // 1-D x 1-D is a dot product with a scalar result.
  ExpectExact(RunRef1("matmul", {F32({3}, {1, 2, 3}), F32({3}, {4, 5, 6})}), {}, {32});
  // [2] x [2, 3] -> [3]; [2, 3] x [3] -> [2].
  const Tensor b = F32({2, 3}, {1, 2, 3, 4, 5, 6});
  ExpectExact(RunRef1("matmul", {F32({2}, {1, -1}), b}), {3}, {-3, -3, -3});
  ExpectExact(RunRef1("matmul", {b, F32({3}, {1, 0, 2})}), {2}, {7, 16});
  // [2] x [2, 2, 1] -> [2, 1] (the batch dim survives, the promoted one does not).
  ExpectExact(RunRef1("matmul", {F32({2}, {1, 2}), F32({2, 2, 1}, {1, 1, 3, 4})}), {2, 1}, {3, 11});
}

TEST(LinalgConvRefMatmul, BatchBroadcastHand) {
  // a [2, 1, 1, 2] x b [3, 2, 1] -> [2, 3, 1, 1]: every a row meets every b column.
  const Tensor a = F32({2, 1, 1, 2}, {1, 2, 10, 20});
  const Tensor b = F32({3, 2, 1}, {1, 0, 0, 1, 1, 1});
  ExpectExact(RunRef1("matmul", {a, b}), {2, 3, 1, 1}, {1, 2, 3, 10, 20, 30});
}

TEST(LinalgConvRefMatmul, NumpyFloatCases) {
  CheckCase("mm_f32_2d", "matmul", {"a", "b"});
  CheckCase("mm_f32_batch", "matmul", {"a", "b"});
  CheckCase("mm_f32_vec_left", "matmul", {"a", "b"});
  CheckCase("mm_f32_vec_right", "matmul", {"a", "b"});
  CheckCase("mm_f64_dot", "matmul", {"a", "b"});
  CheckCase("mm_f16", "matmul", {"a", "b"});
}

TEST(LinalgConvRefMatmul, NumpyIntegerCasesWrap) {
  CheckCase("mm_i32", "matmul", {"a", "b"});
  CheckCase("mm_i8", "matmul", {"a", "b"});
  CheckCase("mm_u8", "matmul", {"a", "b"});
  CheckCase("mm_i64", "matmul", {"a", "b"});
}

TEST(LinalgConvRefMatmul, IntegerWrapHand) {
  // 100 + 100 = 200 wraps to -56 in i8; 16 * 16 = 256 wraps to 0 in u8.
  ExpectExact(
      RunRef1("matmul", {Make(DType::kI8, {1, 2}, {100, 100}), Make(DType::kI8, {2, 1}, {1, 1})}),
      {1, 1}, {-56});
  ExpectExact(RunRef1("matmul", {Make(DType::kU8, {1}, {16}), Make(DType::kU8, {1}, {16})}), {},
              {0});
  ExpectExact(RunRef1("matmul", {Make(DType::kI32, {1}, {65536}), Make(DType::kI32, {1}, {65537})}),
              {}, {65536});
  // i64: INT64_MAX * 2 + 1 wraps to -1 (no signed-overflow UB: checked under UBSan).
  Tensor a = Make(DType::kI64, {2}, {0, 1});
  a.mutable_values<int64_t>()[0] = std::numeric_limits<int64_t>::max();
  const Tensor y = RunRef1("matmul", {a, Make(DType::kI64, {2}, {2, 1})});
  ASSERT_EQ(y.element_count(), 1);
  EXPECT_EQ(y.values<int64_t>()[0], -1);
  // INT64_MIN * -1 wraps to INT64_MIN.
  Tensor m = Make(DType::kI64, {1}, {0});
  m.mutable_values<int64_t>()[0] = std::numeric_limits<int64_t>::min();
  const Tensor z = RunRef1("matmul", {m, Make(DType::kI64, {1, 1}, {-1})});
  ASSERT_EQ(z.element_count(), 1);
  EXPECT_EQ(z.values<int64_t>()[0], std::numeric_limits<int64_t>::min());
}

TEST(LinalgConvRefMatmul, BFloat16) {
  const Tensor a = Make(DType::kBF16, {2, 2}, {1, 2, 3, 4});
  const Tensor b = Make(DType::kBF16, {2, 2}, {0.5, -1, 2, 8});
  const Tensor y = RunRef1("matmul", {a, b});
  EXPECT_EQ(y.dtype(), DType::kBF16);
  ExpectExact(y, {2, 2}, {4.5, 15, 9.5, 29});
}

TEST(LinalgConvRefMatmul, EmptyTensors) {
  ExpectExact(RunRef1("matmul", {F32({2, 0}, {}), F32({0, 3}, {})}), {2, 3}, {0, 0, 0, 0, 0, 0});
  ExpectExact(RunRef1("matmul", {F32({0, 2, 3}, {}), F32({3, 4}, std::vector<double>(12, 1))}),
              {0, 2, 4}, {});
  ExpectExact(RunRef1("matmul", {F32({2, 0}, {}), F32({0}, {})}), {2}, {0, 0});
  ExpectExact(RunRef1("matmul", {Make(DType::kI32, {1, 0}, {}), Make(DType::kI32, {0, 2}, {})}),
              {1, 2}, {0, 0});
}

TEST(LinalgConvRefMatmul, NanAndInfPropagate) {
  // inf * 0 is NaN; a NaN in a row of a poisons that row only.
  ExpectExact(RunRef1("matmul", {F32({2}, {kInf, 1}), F32({2}, {0, 1})}), {}, {kNaN});
  ExpectExact(RunRef1("matmul", {F32({2}, {kInf, 1}), F32({2}, {1, 1})}), {}, {kInf});
  ExpectExact(RunRef1("matmul", {F32({2, 2}, {kNaN, 0, 1, 2}), F32({2, 1}, {1, 1})}), {2, 1},
              {kNaN, 3});
}

// ---------------------------------------------------------------------------------------
// gemm

TEST(LinalgConvRefGemm, Hand) {
  // 2 * [[19, 22], [43, 50]] + 3 * c, c [2, 1] broadcast across columns.
  const Tensor y =
      RunRef1("gemm", {F32({2, 2}, {1, 2, 3, 4}), F32({2, 2}, {5, 6, 7, 8}), F32({2, 1}, {1, 2})},
              AttrsOf({{"alpha", 2.0}, {"beta", 3.0}}));
  ExpectExact(y, {2, 2}, {41, 47, 92, 106});
}

TEST(LinalgConvRefGemm, HandTransposes) {
  // a^T b^T with a = [[1, 3], [2, 4]] (so a^T = [[1, 2], [3, 4]]) and b^T = [[5, 6], [7, 8]].
  const Tensor y = RunRef1("gemm", {F32({2, 2}, {1, 3, 2, 4}), F32({2, 2}, {5, 7, 6, 8})},
                           AttrsOf({{"trans_a", int64_t{1}}, {"trans_b", int64_t{1}}}));
  ExpectExact(y, {2, 2}, {19, 22, 43, 50});
}

TEST(LinalgConvRefGemm, NumpyCases) {
  CheckCase("gemm_nn", "gemm", {"a", "b", "c"}, AttrsOf({{"alpha", 0.5}, {"beta", 2.0}}));
  CheckCase("gemm_tt", "gemm", {"a", "b", "c"},
            AttrsOf({{"alpha", -1.5}, {"trans_a", int64_t{1}}, {"trans_b", int64_t{1}}}));
  CheckCase("gemm_tn", "gemm", {"a", "b", "c"},
            AttrsOf({{"beta", -0.25}, {"trans_a", int64_t{1}}}));
  CheckCase("gemm_nt_f64", "gemm", {"a", "b", "c"}, AttrsOf({{"trans_b", int64_t{1}}}));
  CheckCase("gemm_noc_f16", "gemm", {"a", "b"}, AttrsOf({{"alpha", 2.0}}));
}

TEST(LinalgConvRefGemm, BFloat16WithScalarC) {
  const Tensor y =
      RunRef1("gemm",
              {Make(DType::kBF16, {1, 2}, {1, 2}), Make(DType::kBF16, {2, 2}, {1, 2, 3, 4}),
               Make(DType::kBF16, {}, {0.5})},
              AttrsOf({{"beta", 2.0}}));
  EXPECT_EQ(y.dtype(), DType::kBF16);
  ExpectExact(y, {1, 2}, {8, 11});
}

TEST(LinalgConvRefGemm, EmptyTensors) {
  // K = 0: y is beta * c alone.
  const Tensor y = RunRef1("gemm", {F32({2, 0}, {}), F32({0, 3}, {}), F32({3}, {1, 2, 3})},
                           AttrsOf({{"beta", 2.0}}));
  ExpectExact(y, {2, 3}, {2, 4, 6, 2, 4, 6});
  ExpectExact(RunRef1("gemm", {F32({0, 2}, {}), F32({2, 3}, std::vector<double>(6, 1))}), {0, 3},
              {});
}

TEST(LinalgConvRefGemm, NanAndInfPropagate) {
  // The formula as written: beta * c with beta = 0 and c = inf is NaN (as in NumPy and
  // ONNX's reference); a NaN in a's first row reaches that row only.
  const Tensor y =
      RunRef1("gemm", {F32({2, 1}, {kNaN, 1}), F32({1, 2}, {1, 1}), F32({2, 2}, {0, 0, kInf, 0})},
              AttrsOf({{"beta", 0.0}}));
  ExpectExact(y, {2, 2}, {kNaN, kNaN, kNaN, 1});
}

// ---------------------------------------------------------------------------------------
// conv

TEST(LinalgConvRefConv, Hand1d) {
  // w = [1, 0, -1] with pads 1: y[i] = x[i - 1] - x[i + 1] (+ bias 10).
  const Tensor y =
      RunRef1("conv", {F32({1, 1, 5}, {1, 2, 3, 4, 5}), F32({1, 1, 3}, {1, 0, -1}), F32({1}, {10})},
              AttrsOf({{"pads", Ints({1, 1})}}));
  ExpectExact(y, {1, 1, 5}, {8, 8, 8, 8, 14});
}

TEST(LinalgConvRefConv, Hand2dStridesDilations) {
  // 4x4 input 0..15, 2x2 ones kernel dilated by 2, stride 2 in height, 1 in width.
  std::vector<double> x(16);
  for (int i = 0; i < 16; ++i) x[static_cast<size_t>(i)] = i;
  const Tensor y = RunRef1("conv", {F32({1, 1, 4, 4}, x), F32({1, 1, 2, 2}, {1, 1, 1, 1})},
                           AttrsOf({{"strides", Ints({2, 1})}, {"dilations", Ints({2, 2})}}));
  // Windows start at rows {0} (only one: (4 - 3) / 2 + 1 = 1) and columns {0, 1}:
  // x[0,0] + x[0,2] + x[2,0] + x[2,2] = 0 + 2 + 8 + 10 = 20; shifted right by one: 24.
  ExpectExact(y, {1, 1, 1, 2}, {20, 24});
}

TEST(LinalgConvRefConv, NumpyCases) {
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

TEST(LinalgConvRefConv, BFloat16) {
  const Tensor y = RunRef1(
      "conv", {Make(DType::kBF16, {1, 1, 2, 2}, {1, 2, 3, 4}),
               Make(DType::kBF16, {1, 1, 2, 2}, {1, 1, 1, 1}), Make(DType::kBF16, {1}, {-2})});
  EXPECT_EQ(y.dtype(), DType::kBF16);
  ExpectExact(y, {1, 1, 1, 1}, {8});
}

TEST(LinalgConvRefConv, EmptyTensors) {
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

TEST(LinalgConvRefConv, NanAndInfPropagate) {
  // Only the windows that contain the NaN are NaN; inf * 0 is NaN.
  ExpectExact(RunRef1("conv", {F32({1, 1, 5}, {1, kNaN, 3, 4, 5}), F32({1, 1, 2}, {1, 1})}),
              {1, 1, 4}, {kNaN, kNaN, 7, 9});
  ExpectExact(RunRef1("conv", {F32({1, 1, 3}, {kInf, 1, 2}), F32({1, 1, 2}, {0, 1})}), {1, 1, 2},
              {kNaN, 2});
}

// ---------------------------------------------------------------------------------------
// conv_transpose

TEST(LinalgConvRefConvTranspose, Hand1d) {
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

TEST(LinalgConvRefConvTranspose, HandGroups) {
  // Two groups of one channel each, two outputs per group: w [2, 2, 1].
  const Tensor y =
      RunRef1("conv_transpose", {F32({1, 2, 2}, {1, 2, 3, 4}), F32({2, 2, 1}, {1, 10, 100, 1000})},
              AttrsOf({{"group", int64_t{2}}}));
  ExpectExact(y, {1, 4, 2}, {1, 2, 10, 20, 300, 400, 3000, 4000});
}

TEST(LinalgConvRefConvTranspose, NumpyCases) {
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
TEST(LinalgConvRefConvTranspose, AdjointOfConv) {
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

TEST(LinalgConvRefConvTranspose, BFloat16AndEmpty) {
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

TEST(LinalgConvRefConvTranspose, NanPropagates) {
  ExpectExact(RunRef1("conv_transpose", {F32({1, 1, 3}, {1, kNaN, 1}), F32({1, 1, 1}, {2})}),
              {1, 1, 3}, {2, kNaN, 2});
}

// ---------------------------------------------------------------------------------------
// max_pool

TEST(LinalgConvRefMaxPool, Hand) {
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

TEST(LinalgConvRefMaxPool, PaddingNeverWins) {
  // All negative: a zero pad would win if padding took part.
  const Tensor y = RunRef1("max_pool", {F32({1, 1, 3}, {-3, -1, -2})},
                           AttrsOf({{"kernel_shape", Ints({2})}, {"pads", Ints({1, 1})}}));
  ExpectExact(y, {1, 1, 4}, {-3, -1, -1, -2});
}

TEST(LinalgConvRefMaxPool, NanAndInf) {
  const Attrs k2 = AttrsOf({{"kernel_shape", Ints({2})}});
  // NaN wins wherever it is in the window, first or later.
  ExpectExact(RunRef1("max_pool", {F32({1, 1, 4}, {1, kNaN, 3, 4})}, k2), {1, 1, 3},
              {kNaN, kNaN, 4});
  ExpectExact(RunRef1("max_pool", {F32({1, 1, 3}, {kNaN, 5, kInf})}, k2), {1, 1, 2}, {kNaN, kInf});
  ExpectExact(RunRef1("max_pool", {F32({1, 1, 3}, {-kInf, -kInf, 1})}, k2), {1, 1, 2}, {-kInf, 1});
}

TEST(LinalgConvRefMaxPool, NumpyCases) {
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
TEST(LinalgConvRefMaxPool, WindowWithoutInputElements) {
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

TEST(LinalgConvRefMaxPool, OtherDTypesAndEmpty) {
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

TEST(LinalgConvRefAvgPool, OnnxExamples) {
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

TEST(LinalgConvRefAvgPool, CeilModeOverhangIsNotCounted) {
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
TEST(LinalgConvRefAvgPool, PyTorchCeilModeExample) {
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

TEST(LinalgConvRefAvgPool, NumpyCases) {
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

TEST(LinalgConvRefAvgPool, NanInfOtherDTypesAndEmpty) {
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

TEST(LinalgConvRefGlobalAvgPool, Hand) {
  const Tensor y = RunRef1("global_avg_pool", {F32({1, 2, 2, 2}, {1, 2, 3, 4, -1, -1, 5, 9})});
  ExpectExact(y, {1, 2, 1, 1}, {2.5, 3});
}

TEST(LinalgConvRefGlobalAvgPool, NumpyCases) {
  CheckCase("gap2d", "global_avg_pool", {"x"});
  CheckCase("gap1d_f64", "global_avg_pool", {"x"});
  CheckCase("gap3d_f16", "global_avg_pool", {"x"});
}

TEST(LinalgConvRefGlobalAvgPool, NanBFloat16AndEmpty) {
  ExpectExact(RunRef1("global_avg_pool", {F32({1, 2, 2}, {kNaN, 1, 2, 4})}), {1, 2, 1}, {kNaN, 3});
  const Tensor y = RunRef1("global_avg_pool", {Make(DType::kBF16, {1, 1, 4}, {1, 2, 3, 6})});
  EXPECT_EQ(y.dtype(), DType::kBF16);
  ExpectExact(y, {1, 1, 1}, {3});
  // Mean of nothing is NaN (as in NumPy); an empty batch gives an empty output.
  ExpectExact(RunRef1("global_avg_pool", {F32({1, 2, 0}, {})}), {1, 2, 1}, {kNaN, kNaN});
  ExpectExact(RunRef1("global_avg_pool", {F32({0, 3, 4, 4}, {})}), {0, 3, 1, 1}, {});
}

// ---------------------------------------------------------------------------------------
// These kernels have no data-dependent errors; shape errors come from the schemas and
// reach the caller before the kernel runs.

TEST(LinalgConvRefErrors, SchemaErrorsReachTheCaller) {
  SY_EXPECT_ERROR(RunRef("matmul", {F32({2, 3}, std::vector<double>(6)), F32({2}, {1, 2})}),
                  "must equal input a's last dimension (3)");
  SY_EXPECT_ERROR(RunRef("avg_pool", {F32({1, 1, 4}, {1, 2, 3, 4})},
                         AttrsOf({{"kernel_shape", Ints({2})}, {"pads", Ints({2, 0})}})),
                  "pads");
}

}  // namespace
}  // namespace sy::cpu::test
