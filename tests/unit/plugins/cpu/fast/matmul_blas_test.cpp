// The OpenBLAS matmul and gemm kernels of the `cpu` device (fast/matmul_blas.cpp),
// compared with the reference kernels on seeded random inputs over many shapes: 1-D
// promotion, batch broadcasting (and the folded single-call path), empty dims, sizes of
// 1 and odd sizes, transposes and every broadcast shape of gemm's c. Dtypes the BLAS path
// does not take (integers, f16, bf16) must still work through the reference fallback.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "fast/fast_kernels.h"
#include "kernel_test_util.h"
#include "ref/ref_kernels.h"
#include "thread_pool.h"

namespace sy::cpu::test {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

Tensor Random(DType dtype, const Shape& shape, std::mt19937& rng) {
  std::uniform_real_distribution<double> dist(-1.0, 1.0);
  std::vector<double> values(static_cast<size_t>(ElementCount(shape)));
  for (double& v : values) v = dist(rng);
  return Make(dtype, shape, values);
}

// Integer-valued random data in [-8, 8] (exact in every dtype).
Tensor RandomInts(DType dtype, const Shape& shape, std::mt19937& rng) {
  std::uniform_int_distribution<int> dist(-8, 8);
  std::vector<double> values(static_cast<size_t>(ElementCount(shape)));
  for (double& v : values) v = dist(rng);
  return Make(dtype, shape, values);
}

// Tolerance for a sum of k products of values in [-1, 1], times `scale`.
double Tolerance(DType dtype, int64_t k, double scale) {
  const double per = dtype == DType::kF64 ? 1e-12 : 1e-4;
  return per * std::sqrt(static_cast<double>(std::max<int64_t>(k, 1))) * scale;
}

// Runs `op` on the fast and the reference kernels and compares shapes and values (NaN
// matches NaN, infinities match exactly, finite values within `tol`). f32 cases without
// empty dims must run on the oneDNN kernel where the plugin has it.
void ExpectMatchesRefOnce(const std::string& op, const std::vector<Tensor>& inputs,
                          const Attrs& attrs, double tol, const std::vector<bool>& constant) {
  bool prepared = false;
  Expected<std::vector<Tensor>> fast =
      RunPrepared(FastKernels(), op, inputs, constant, attrs, 1, nullptr, &prepared);
  Expected<std::vector<Tensor>> ref = RunRef(op, inputs, attrs);
  ASSERT_TRUE(fast.ok()) << fast.status().ToString();
  ASSERT_TRUE(ref.ok()) << ref.status().ToString();
#if SY_CPU_HAS_ONEDNN
  bool empty = false;
  for (const Tensor& t : inputs) empty = empty || t.element_count() == 0;
  const bool zero_alpha = attrs.Has("alpha") && attrs.GetFloat("alpha") == 0.0;
  if (inputs[0].dtype() == DType::kF32 && !empty && !zero_alpha) {
    EXPECT_TRUE(prepared) << "the oneDNN kernel declined the case";
  }
#endif
  const Tensor& got = (*fast)[0];
  const Tensor& want = (*ref)[0];
  ASSERT_EQ(got.dtype(), want.dtype());
  ASSERT_EQ(got.shape(), want.shape());
  const std::vector<double> g = Values(got);
  const std::vector<double> w = Values(want);
  double max_diff = 0.0;
  for (size_t i = 0; i < w.size(); ++i) {
    if (std::isnan(w[i]) || std::isinf(w[i])) {
      if (std::isnan(w[i])) {
        EXPECT_TRUE(std::isnan(g[i])) << "element " << i << ": got " << g[i];
      } else {
        EXPECT_EQ(g[i], w[i]) << "element " << i;
      }
      continue;
    }
    max_diff = std::max(max_diff, std::fabs(g[i] - w[i]));
  }
  EXPECT_LE(max_diff, tol) << op << " on " << ShapeToString(inputs[0].shape()) << " x "
                           << ShapeToString(inputs[1].shape());
}

// Twice: with b as a graph input, and as a constant of the model (the oneDNN kernel then
// prepacks it at prepare).
void ExpectMatchesRef(const std::string& op, const std::vector<Tensor>& inputs, const Attrs& attrs,
                      double tol) {
  for (const bool constant : {false, true}) {
    SCOPED_TRACE(constant ? "b constant" : "b an input");
    ExpectMatchesRefOnce(op, inputs, attrs, tol, {false, constant});
  }
}

TEST(MatmulBlasTest, FastTableHasTunedMatmulAndGemm) {
  EXPECT_NE(FastKernels().Find("matmul"), nullptr);
  EXPECT_NE(FastKernels().Find("matmul"), RefKernels().Find("matmul"));
  EXPECT_NE(FastKernels().Find("gemm"), RefKernels().Find("gemm"));
}

struct MatmulCase {
  Shape a, b;
};

// K of a matmul case: a's last dim.
int64_t KOf(const MatmulCase& c) { return c.a.back(); }

const std::vector<MatmulCase>& MatmulCases() {
  static const std::vector<MatmulCase> cases = {
      // plain 2-D, sizes of 1, odd sizes
      {{1, 1}, {1, 1}},
      {{7, 13}, {13, 5}},
      {{1, 13}, {13, 5}},
      {{7, 1}, {1, 5}},
      {{7, 13}, {13, 1}},
      {{64, 96}, {96, 80}},
      {{33, 257}, {257, 17}},
      // 1-D promotion, each side and both
      {{13}, {13, 5}},
      {{7, 13}, {13}},
      {{13}, {13}},
      {{1}, {1}},
      {{13}, {3, 13, 5}},
      {{2, 3, 7, 13}, {13}},
      // batches: b without batch dims (folded into M), a broadcast, both broadcast
      {{3, 7, 13}, {13, 5}},
      {{2, 3, 7, 13}, {13, 5}},
      {{2, 3, 7, 13}, {1, 13, 5}},
      {{7, 13}, {3, 13, 5}},
      {{1, 7, 13}, {3, 13, 5}},
      {{3, 7, 13}, {3, 13, 5}},
      {{2, 1, 7, 13}, {4, 13, 5}},
      {{4, 1, 7, 13}, {1, 3, 13, 5}},
      {{5, 1, 1, 13}, {2, 13, 1}},
      {{3, 40, 129}, {129, 65}},
      // empty dims: M, N, K, batch
      {{0, 13}, {13, 5}},
      {{7, 13}, {13, 0}},
      {{7, 0}, {0, 5}},
      {{0}, {0}},
      {{0}, {0, 5}},
      {{3, 7, 0}, {0, 5}},
      {{0, 7, 13}, {13, 5}},
      {{0, 7, 13}, {1, 13, 5}},
      {{2, 0, 7, 13}, {2, 1, 13, 5}},
  };
  return cases;
}

TEST(MatmulBlasTest, F32MatchesReference) {
  std::mt19937 rng(1234);
  for (const MatmulCase& c : MatmulCases()) {
    SCOPED_TRACE(ShapeToString(c.a) + " x " + ShapeToString(c.b));
    ExpectMatchesRef("matmul", {Random(DType::kF32, c.a, rng), Random(DType::kF32, c.b, rng)}, {},
                     Tolerance(DType::kF32, KOf(c), 1.0));
  }
}

TEST(MatmulBlasTest, F64MatchesReference) {
  std::mt19937 rng(99);
  for (const MatmulCase& c : MatmulCases()) {
    SCOPED_TRACE(ShapeToString(c.a) + " x " + ShapeToString(c.b));
    ExpectMatchesRef("matmul", {Random(DType::kF64, c.a, rng), Random(DType::kF64, c.b, rng)}, {},
                     Tolerance(DType::kF64, KOf(c), 1.0));
  }
}

TEST(MatmulBlasTest, LargeF32MatchesReference) {
  std::mt19937 rng(7);
  // Big enough for OpenBLAS to use its threads; the batched case is folded into M.
  for (const MatmulCase& c : std::vector<MatmulCase>{
           {{200, 300}, {300, 150}}, {{4, 100, 300}, {300, 150}}, {{2, 100, 300}, {2, 300, 150}}}) {
    SCOPED_TRACE(ShapeToString(c.a) + " x " + ShapeToString(c.b));
    ExpectMatchesRef("matmul", {Random(DType::kF32, c.a, rng), Random(DType::kF32, c.b, rng)}, {},
                     Tolerance(DType::kF32, KOf(c), 1.0));
  }
}

// Up to 8 rows times constant weights (a decoder's tokens) run PanelGemv over the
// weights oneDNN packed (panel_gemv.h) where the CPU has AVX2: K and N that are not
// multiples of the packing's blocks (16, 64), batches folded into the rows, fused_matmul's
// row bias and residual; the reference computes in double.
TEST(MatmulBlasTest, OneRowTimesConstantWeightsTakesPanelGemv) {
#if SY_CPU_HAS_ONEDNN
  std::mt19937 rng(33);
  ThreadPool pool(2);
  for (const auto& [a, b] : std::vector<std::pair<Shape, Shape>>{{{1, 100}, {100, 70}},
                                                                 {{1, 1, 768}, {768, 130}},
                                                                 {{1, 3}, {3, 64}},
                                                                 {{1, 17}, {17, 1}}}) {
    SCOPED_TRACE(ShapeToString(a) + " x " + ShapeToString(b));
    const Tensor ta = Random(DType::kF32, a, rng), tb = Random(DType::kF32, b, rng);
    std::string implementation;
    Expected<std::vector<Tensor>> fast = RunPrepared(
        FastKernels(), "matmul", {ta, tb}, {false, true}, {}, 1, &pool, nullptr, &implementation);
    ASSERT_TRUE(fast.ok()) << fast.status().ToString();
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
      EXPECT_EQ(implementation, "panel_gemv");
    }
    ExpectMatchesRefOnce("matmul", {ta, tb}, {}, Tolerance(DType::kF32, b[0], 1.0), {false, true});
    // fused_matmul with a row bias and a residual, as a decoder's projection and its add.
    const int64_t n = b[1];
    Shape out = a;
    out.back() = n;
    const Tensor bias = Random(DType::kF32, {n}, rng), residual = Random(DType::kF32, out, rng);
    ExpectMatchesRefOnce("fused_matmul", {ta, tb, bias, residual}, {},
                         Tolerance(DType::kF32, b[0], 1.0) + 1e-6, {false, true, true, false});
  }
#endif
}

TEST(MatmulBlasTest, NonFiniteValuesPropagate) {
  const Tensor a = Make(DType::kF32, {2, 2}, {kInf, 1.0, kNaN, 2.0});
  const Tensor b = Make(DType::kF32, {2, 2}, {1.0, 0.0, 1.0, 3.0});
  ExpectMatchesRef("matmul", {a, b}, {}, 1e-6);
}

// Integer matmul runs on float BLAS where that is exact (f32 below a bound of 2^24 on
// K * max|a| * max|b|, f64 below 2^53) and must equal the reference exactly, wrap-around
// included; f16/bf16 take the reference through the dispatcher.
TEST(MatmulBlasTest, IntegersOnBlasEqualTheReference) {
  const Tensor a = Make(DType::kI32, {2, 3}, {1, 2, 3, 4, 5, 6});
  const Tensor b = Make(DType::kI32, {3, 2}, {7, 8, 9, 10, 11, 12});
  Expected<std::vector<Tensor>> out = test::Run(FastKernels(), "matmul", {a, b});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ((*out)[0].dtype(), DType::kI32);
  EXPECT_EQ((*out)[0].shape(), (Shape{2, 2}));
  EXPECT_EQ(Values((*out)[0]), (std::vector<double>{58, 64, 139, 154}));

  std::mt19937 rng(5);
  for (DType dtype : {DType::kI8, DType::kU8, DType::kI32, DType::kI64}) {
    for (const MatmulCase& c : MatmulCases()) {
      SCOPED_TRACE(ShapeToString(c.a) + " x " + ShapeToString(c.b));
      ExpectMatchesRef("matmul", {RandomInts(dtype, c.a, rng), RandomInts(dtype, c.b, rng)}, {},
                       0.0);
    }
  }
}

// A constant integer b (a dynamically quantized model's weights) is widened once, at
// prepare; each run scans a, and one whose bound reaches 2^24 takes the unprepared path.
// Either way the result equals the reference exactly.
TEST(MatmulBlasTest, IntegersWithConstantBPreparedEqualTheReference) {
  std::mt19937 rng(11);
  for (DType dtype : {DType::kI8, DType::kU8, DType::kI32}) {
    for (const MatmulCase& c : MatmulCases()) {
      if (ElementCount(c.a) == 0 || ElementCount(c.b) == 0) continue;
      SCOPED_TRACE(ShapeToString(c.a) + " x " + ShapeToString(c.b));
      const std::vector<Tensor> inputs = {RandomInts(dtype, c.a, rng), RandomInts(dtype, c.b, rng)};
      bool prepared = false;
      Expected<std::vector<Tensor>> fast =
          RunPrepared(FastKernels(), "matmul", inputs, {false, true}, {}, 1, nullptr, &prepared);
      Expected<std::vector<Tensor>> ref = RunRef("matmul", inputs);
      ASSERT_TRUE(fast.ok() && ref.ok());
      EXPECT_TRUE(prepared);
      EXPECT_EQ(Values((*fast)[0]), Values((*ref)[0]));
    }
  }
  // a of 2^22 and 2^22 - 1 against b = [3, 1]: a bound of 2 * 2^22 * 3 is past 2^24, so
  // the run leaves the prepared f32 path; 3 * 2^22 + 2^22 - 1 = 2^24 - 1 exactly.
  const double big = std::ldexp(1.0, 22);
  const std::vector<Tensor> wide = {Make(DType::kI32, {1, 2}, {big, big - 1}),
                                    Make(DType::kI32, {2, 1}, {3, 1})};
  bool prepared = false;
  Expected<std::vector<Tensor>> out =
      RunPrepared(FastKernels(), "matmul", wide, {false, true}, {}, 1, nullptr, &prepared);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_TRUE(prepared);
  EXPECT_EQ(Values((*out)[0]), (std::vector<double>{std::ldexp(1.0, 24) - 1}));
}

TEST(MatmulBlasTest, IntegersBeyondF32AndF64BoundsStayExact) {
  // Hand-derived: 2^30 * 2 + 2^30 * 2 = 2^32 wraps to 0 in i32 (as NumPy's int32 matmul);
  // the bound 2 * 2^30 * 2 takes the f64 path.
  const double big = std::ldexp(1.0, 30);
  Expected<std::vector<Tensor>> wrap =
      test::Run(FastKernels(), "matmul",
                {Make(DType::kI32, {1, 2}, {big, big}), Make(DType::kI32, {2, 1}, {2, 2})});
  ASSERT_TRUE(wrap.ok()) << wrap.status().ToString();
  EXPECT_EQ(Values((*wrap)[0]), (std::vector<double>{0}));
  // 3 * 2^30 + (2^30 - 1) = 2^32 - 1 -> -1 in i32; u8: 16 * 16 * 2 = 512 -> 0.
  Expected<std::vector<Tensor>> odd =
      test::Run(FastKernels(), "matmul",
                {Make(DType::kI32, {1, 2}, {big, big - 1}), Make(DType::kI32, {2, 1}, {3, 1})});
  ASSERT_TRUE(odd.ok()) << odd.status().ToString();
  EXPECT_EQ(Values((*odd)[0]), (std::vector<double>{-1}));
  Expected<std::vector<Tensor>> u8 =
      test::Run(FastKernels(), "matmul",
                {Make(DType::kU8, {1, 2}, {16, 16}), Make(DType::kU8, {2, 1}, {16, 16})});
  ASSERT_TRUE(u8.ok()) << u8.status().ToString();
  EXPECT_EQ(Values((*u8)[0]), (std::vector<double>{0}));
  // Each side of the two bounds, over shapes with batches: values up to 2^11 with K up
  // to 257 (f32 for the small ones, f64 above), then i64 values up to 2^27 (a bound above
  // 2^53 from K = 2: the reference's int64 arithmetic).
  std::mt19937 rng(9);
  for (const int64_t limit : {int64_t{1} << 11, int64_t{1} << 20, int64_t{1} << 27}) {
    std::uniform_int_distribution<int64_t> dist(-limit, limit);
    for (const MatmulCase& c : MatmulCases()) {
      SCOPED_TRACE(ShapeToString(c.a) + " x " + ShapeToString(c.b) +
                   ", |v| <= " + std::to_string(limit));
      const DType dtype = limit > (int64_t{1} << 20) ? DType::kI64 : DType::kI32;
      const auto make = [&](const Shape& shape) {
        Tensor t = *Tensor::Allocate(dtype, shape);
        for (int64_t i = 0; i < t.element_count(); ++i) {
          StoreInt(dtype, t.mutable_data(), i, dist(rng));
        }
        return t;
      };
      const std::vector<Tensor> inputs = {make(c.a), make(c.b)};
      Expected<std::vector<Tensor>> fast = test::Run(FastKernels(), "matmul", inputs);
      Expected<std::vector<Tensor>> ref = RunRef("matmul", inputs, {});
      ASSERT_TRUE(fast.ok() && ref.ok());
      EXPECT_TRUE((*fast)[0].BitwiseEquals((*ref)[0]));
    }
  }
}

TEST(MatmulBlasTest, HalfTypesUseReferenceFallback) {
  std::mt19937 rng(6);
  for (DType dtype : {DType::kF16, DType::kBF16}) {
    for (const MatmulCase& c : MatmulCases()) {
      SCOPED_TRACE(ShapeToString(c.a) + " x " + ShapeToString(c.b));
      ExpectMatchesRef("matmul", {Random(dtype, c.a, rng), Random(dtype, c.b, rng)}, {}, 0.0);
    }
  }
}

// A buffer not aligned for f32 (possible for caller-bound buffers) is not handed to BLAS.
TEST(MatmulBlasTest, MisalignedBufferUsesReferenceFallback) {
  std::mt19937 rng(8);
  const Tensor a = Random(DType::kF32, {3, 4}, rng);
  const Tensor b = Random(DType::kF32, {4, 5}, rng);
  const Tensor want = RunRef1("matmul", {a, b});
  std::vector<std::byte> a_bytes(48 + 1);
  std::vector<std::byte> y_bytes(60 + 1);
  std::memcpy(a_bytes.data() + 1, a.data(), 48);
  const ConstTensorView inputs[] = {{a.type(), a_bytes.data() + 1}, {b.type(), b.data()}};
  const TensorView outputs[] = {{want.type(), y_bytes.data() + 1}};
  const Attrs attrs;
  const KernelContext ctx{"matmul", inputs, outputs, attrs};
  ASSERT_TRUE(FastKernels().Find("matmul")(ctx).ok());
  EXPECT_EQ(std::memcmp(y_bytes.data() + 1, want.data(), 60), 0);
}

// ---------------------------------------------------------------------------------------
// gemm

Attrs GemmAttrs(double alpha, double beta, int64_t trans_a, int64_t trans_b) {
  Attrs attrs;
  attrs.Set("alpha", alpha);
  attrs.Set("beta", beta);
  attrs.Set("trans_a", trans_a);
  attrs.Set("trans_b", trans_b);
  return attrs;
}

struct GemmSize {
  int64_t m, n, k;
};

void CheckGemm(DType dtype, uint32_t seed) {
  std::mt19937 rng(seed);
  const std::vector<GemmSize> sizes = {{1, 1, 1},  {7, 5, 13},   {1, 5, 13},    {7, 1, 13},
                                       {7, 5, 1},  {64, 48, 96}, {33, 17, 257}, {0, 5, 13},
                                       {7, 0, 13}, {7, 5, 0}};
  for (const GemmSize& s : sizes) {
    const std::vector<Shape> c_shapes = {{}, {1}, {s.n}, {1, 1}, {1, s.n}, {s.m, 1}, {s.m, s.n}};
    for (int64_t ta = 0; ta <= 1; ++ta) {
      for (int64_t tb = 0; tb <= 1; ++tb) {
        const Shape sa = ta ? Shape{s.k, s.m} : Shape{s.m, s.k};
        const Shape sb = tb ? Shape{s.n, s.k} : Shape{s.k, s.n};
        const Tensor a = Random(dtype, sa, rng);
        const Tensor b = Random(dtype, sb, rng);
        const std::string trace = "m=" + std::to_string(s.m) + " n=" + std::to_string(s.n) +
                                  " k=" + std::to_string(s.k) + " ta=" + std::to_string(ta) +
                                  " tb=" + std::to_string(tb);
        {
          SCOPED_TRACE(trace + " no c");
          ExpectMatchesRef("gemm", {a, b}, GemmAttrs(1.5, 0.5, ta, tb), Tolerance(dtype, s.k, 1.5));
        }
        for (const Shape& cs : c_shapes) {
          SCOPED_TRACE(trace + " c " + ShapeToString(cs));
          const Tensor c = Random(dtype, cs, rng);
          for (auto [alpha, beta] : {std::pair{1.0, 1.0}, {2.0, -0.5}, {-1.0, 0.0}}) {
            ExpectMatchesRef("gemm", {a, b, c}, GemmAttrs(alpha, beta, ta, tb),
                             Tolerance(dtype, s.k, std::fabs(alpha) + std::fabs(beta)));
          }
        }
      }
    }
  }
}

TEST(GemmBlasTest, F32MatchesReference) { CheckGemm(DType::kF32, 42); }
TEST(GemmBlasTest, F64MatchesReference) { CheckGemm(DType::kF64, 43); }

TEST(GemmBlasTest, DefaultsMatchReference) {
  std::mt19937 rng(44);
  const Tensor a = Random(DType::kF32, {6, 9}, rng);
  const Tensor b = Random(DType::kF32, {9, 4}, rng);
  const Tensor c = Random(DType::kF32, {4}, rng);
  ExpectMatchesRef("gemm", {a, b, c}, {}, Tolerance(DType::kF32, 9, 2.0));
  ExpectMatchesRef("gemm", {a, b}, {}, Tolerance(DType::kF32, 9, 1.0));
}

// beta = 0 still adds 0 * c (NaN where c is infinite or NaN), and alpha = 0 still
// multiplies op(a) * op(b) (NaN where it is), as the reference does.
TEST(GemmBlasTest, NonFiniteValuesMatchReference) {
  const Tensor a = Make(DType::kF32, {2, 2}, {kInf, 1.0, kNaN, 2.0});
  const Tensor b = Make(DType::kF32, {2, 2}, {1.0, 0.0, 1.0, 3.0});
  const Tensor finite_a = Make(DType::kF32, {2, 2}, {1.0, 2.0, 3.0, 4.0});
  const Tensor c = Make(DType::kF32, {2}, {kInf, 1.0});
  for (auto [alpha, beta] : {std::pair{1.0, 1.0}, {1.0, 0.0}, {0.0, 1.0}, {0.0, 0.0}}) {
    SCOPED_TRACE("alpha " + std::to_string(alpha) + " beta " + std::to_string(beta));
    ExpectMatchesRef("gemm", {a, b, c}, GemmAttrs(alpha, beta, 0, 0), 1e-6);
    ExpectMatchesRef("gemm", {finite_a, b, c}, GemmAttrs(alpha, beta, 0, 1), 1e-6);
    ExpectMatchesRef("gemm", {a, b}, GemmAttrs(alpha, beta, 1, 0), 1e-6);
  }
}

TEST(GemmBlasTest, HalfTypesUseReferenceFallback) {
  std::mt19937 rng(45);
  for (DType dtype : {DType::kF16, DType::kBF16}) {
    const Tensor a = Random(dtype, {5, 7}, rng);
    const Tensor b = Random(dtype, {3, 7}, rng);
    const Tensor c = Random(dtype, {5, 1}, rng);
    ExpectMatchesRef("gemm", {a, b, c}, GemmAttrs(0.5, 2.0, 0, 1), 0.0);
  }
}

}  // namespace
}  // namespace sy::cpu::test
