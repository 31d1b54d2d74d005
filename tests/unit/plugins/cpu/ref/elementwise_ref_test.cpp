// The elementwise reference kernels against NumPy / exact-arithmetic reference files
// (tools/kernel_refs/elementwise.py -> tests/data/kernels/elementwise/) and hand-derived
// cases. Unary maps, clip, not and cast; the broadcasting ops are in
// elementwise_binary_ref_test.cpp.
#include <cmath>
#include <cstdint>
#include <limits>
#include <numbers>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "elementwise_ref_test_util.h"

namespace sy::cpu::test {
namespace {

// ---- unary float ops against NumPy, in every float dtype -----------------------------

// Runs `op` on unary_x.npy converted to each float dtype and compares with
// unary_<file>.npy rounded to that dtype.
void CheckUnaryFile(const std::string& op, const std::string& file, const Attrs& attrs = {}) {
  const Tensor x64 = LoadData("kernels/elementwise/unary_x.npy");
  const Tensor want64 = LoadData("kernels/elementwise/unary_" + file + ".npy");
  ASSERT_EQ(x64.shape(), want64.shape());
  for (DType dtype : kFloatDTypes) {
    SCOPED_TRACE(op + " (" + file + ") in " + std::string(DTypeName(dtype)));
    const Tensor y = RunRef1(op, {Convert(x64, dtype)}, attrs);
    ASSERT_EQ(y.dtype(), dtype);
    ASSERT_EQ(y.shape(), x64.shape());
    ExpectClose(Values(y), Values(Convert(want64, dtype)), dtype);
  }
}

TEST(ElementwiseRefUnary, SignAndMagnitudeMatchNumpy) {
  for (const char* op : {"neg", "abs", "sign"}) CheckUnaryFile(op, op);
}

TEST(ElementwiseRefUnary, ExpLogSqrtReciprocalMatchNumpy) {
  for (const char* op : {"exp", "log", "sqrt", "reciprocal", "rsqrt"}) CheckUnaryFile(op, op);
}

TEST(ElementwiseRefUnary, TrigonometryAndErfMatchNumpy) {
  for (const char* op : {"sin", "cos", "tan", "erf", "tanh"}) CheckUnaryFile(op, op);
}

TEST(ElementwiseRefUnary, InverseTrigonometryMatchesNumpy) {
  // unary_x.npy has 13 values in [-1, 1] and 13 in [1, inf]: the rest checks the NaN
  // outside each domain.
  for (const char* op : {"asin", "acos", "atan", "asinh", "acosh", "atanh"}) {
    CheckUnaryFile(op, op);
  }
}

TEST(ElementwiseRefUnary, ActivationsMatchNumpy) {
  for (const char* op : {"sigmoid", "relu", "softplus", "silu", "gelu", "hard_swish", "softsign",
                         "mish", "selu", "leaky_relu", "elu", "hard_sigmoid"}) {
    CheckUnaryFile(op, op);
  }
}

TEST(ElementwiseRefUnary, ActivationAttributesMatchNumpy) {
  CheckUnaryFile("gelu", "gelu", A({{"approximate", "none"}}));
  CheckUnaryFile("gelu", "gelu_tanh", A({{"approximate", "tanh"}}));
  CheckUnaryFile("leaky_relu", "leaky_relu_a02", A({{"alpha", 0.2}}));
  CheckUnaryFile("elu", "elu_a05", A({{"alpha", 0.5}}));
  CheckUnaryFile("hard_sigmoid", "hard_sigmoid_a05_b025", A({{"alpha", 0.5}, {"beta", 0.25}}));
}

TEST(ElementwiseRefUnary, RoundingMatchesNumpy) {
  for (const char* op : {"floor", "ceil", "round"}) CheckUnaryFile(op, op);
}

TEST(ElementwiseRefUnary, ClipOnFloatsMatchesNumpy) {
  CheckUnaryFile("clip", "clip_m1_2p5", A({{"min", -1.0}, {"max", 2.5}}));
  CheckUnaryFile("clip", "clip_min_0p25", A({{"min", 0.25}}));
  CheckUnaryFile("clip", "clip_max_m3", A({{"max", -3.0}}));
}

// ---- hand-derived values and identities ----------------------------------------------

TEST(ElementwiseRefUnary, RoundIsHalfToEven) {
  const Tensor x = Make(DType::kF32, {10}, {-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 2.4999, -2.6, 7, 0});
  EXPECT_EQ(Values(RunRef1("round", {x})),
            (std::vector<double>{-2, -2, -0.0, 0, 2, 2, 2, -3, 7, 0}));
  const double big = 4503599627370497.0;  // 2^52 + 1: already an integer
  EXPECT_EQ(Values(RunRef1("round", {Make(DType::kF64, {}, {big})})), std::vector<double>{big});
  EXPECT_TRUE(std::signbit(Values(RunRef1("round", {Make(DType::kF64, {}, {-0.5})}))[0]));
}

TEST(ElementwiseRefUnary, ActivationsStayFiniteAtExtremes) {
  const Tensor x = Make(DType::kF64, {4}, {-1000, -800, 800, 1000});
  EXPECT_EQ(Values(RunRef1("sigmoid", {x})), (std::vector<double>{0, 0, 1, 1}));
  const std::vector<double> sp = Values(RunRef1("softplus", {x}));
  EXPECT_EQ(sp[0], 0.0);
  EXPECT_EQ(sp[3], 1000.0);
  for (const char* op : {"silu", "gelu", "mish", "elu", "selu", "hard_swish"}) {
    for (double v : Values(RunRef1(op, {x}))) EXPECT_TRUE(std::isfinite(v)) << op;
  }
  // x * g(x) at -inf is its limit 0, not NaN; softsign(+-inf) is +-1.
  const Tensor inf = Make(DType::kF32, {2}, {-kInf, kInf});
  for (const char* op : {"silu", "gelu", "mish", "hard_swish"}) {
    EXPECT_EQ(Values(RunRef1(op, {inf})), (std::vector<double>{0, kInf})) << op;
  }
  EXPECT_EQ(Values(RunRef1("gelu", {inf}, A({{"approximate", "tanh"}}))),
            (std::vector<double>{0, kInf}));
  EXPECT_EQ(Values(RunRef1("softsign", {inf})), (std::vector<double>{-1, 1}));
}

TEST(ElementwiseRefUnary, SatisfyIdentities) {
  std::vector<double> xs;
  for (int i = -40; i <= 40; ++i) xs.push_back(i * 0.37);
  const Shape shape = {static_cast<int64_t>(xs.size())};
  std::vector<double> neg_xs;
  for (double v : xs) neg_xs.push_back(-v);
  const Tensor x = Make(DType::kF64, shape, xs);
  const Tensor nx = Make(DType::kF64, shape, neg_xs);
  const std::vector<double> sig = Values(RunRef1("sigmoid", {x}));
  const std::vector<double> sig_neg = Values(RunRef1("sigmoid", {nx}));
  const std::vector<double> tanh_half = Values(RunRef1("tanh", {Make(DType::kF64, shape, [&] {
                                                         std::vector<double> h;
                                                         for (double v : xs) h.push_back(v / 2);
                                                         return h;
                                                       }())}));
  const std::vector<double> sp = Values(RunRef1("softplus", {x}));
  const std::vector<double> sp_neg = Values(RunRef1("softplus", {nx}));
  const std::vector<double> silu = Values(RunRef1("silu", {x}));
  const std::vector<double> gelu = Values(RunRef1("gelu", {x}));
  const std::vector<double> gelu_neg = Values(RunRef1("gelu", {nx}));
  const std::vector<double> sin = Values(RunRef1("sin", {x}));
  const std::vector<double> cos = Values(RunRef1("cos", {x}));
  const std::vector<double> erf = Values(RunRef1("erf", {x}));
  const std::vector<double> erf_neg = Values(RunRef1("erf", {nx}));
  for (size_t i = 0; i < xs.size(); ++i) {
    SCOPED_TRACE("x = " + std::to_string(xs[i]));
    EXPECT_NEAR(sig[i] + sig_neg[i], 1.0, 1e-15);
    EXPECT_NEAR(2 * sig[i] - 1, tanh_half[i], 1e-15);  // tanh(x/2) = 2 sigmoid(x) - 1
    EXPECT_NEAR(sp[i] - sp_neg[i], xs[i], 1e-13);      // softplus(x) - softplus(-x) = x
    EXPECT_NEAR(silu[i], xs[i] * sig[i], 1e-14);
    EXPECT_NEAR(gelu[i] - gelu_neg[i], xs[i], 1e-13);  // gelu(x) - gelu(-x) = x
    EXPECT_NEAR(sin[i] * sin[i] + cos[i] * cos[i], 1.0, 1e-15);
    EXPECT_DOUBLE_EQ(erf[i], -erf_neg[i]);
  }
}

// The inverse maps undo their forward maps, and take their values at the domain's edges
// (hand-derived; outside the domain NaN, as C and NumPy).
TEST(ElementwiseRefUnary, InverseTrigonometryInvertsAndHasItsEdges) {
  std::vector<double> unit, above;  // in [-1, 1] and in [1, 51]
  for (int i = -50; i <= 50; ++i) unit.push_back(i / 50.0);
  for (int i = 0; i <= 100; ++i) above.push_back(1 + i * 0.5);
  const Shape n = {101};
  const Tensor u = Make(DType::kF64, n, unit);
  const Tensor a = Make(DType::kF64, n, above);
  const std::vector<double> asin = Values(RunRef1("asin", {u}));
  const std::vector<double> acos = Values(RunRef1("acos", {u}));
  const std::vector<double> atan = Values(RunRef1("atan", {a}));
  const std::vector<double> asinh = Values(RunRef1("asinh", {a}));
  const std::vector<double> acosh = Values(RunRef1("acosh", {a}));
  const std::vector<double> atanh = Values(RunRef1("atanh", {u}));
  for (size_t i = 0; i < unit.size(); ++i) {
    SCOPED_TRACE("x = " + std::to_string(unit[i]) + ", " + std::to_string(above[i]));
    EXPECT_NEAR(std::sin(asin[i]), unit[i], 1e-15);
    EXPECT_NEAR(std::cos(acos[i]), unit[i], 1e-15);
    EXPECT_NEAR(asin[i] + acos[i], std::numbers::pi / 2, 1e-15);
    EXPECT_NEAR(std::tan(atan[i]), above[i], 1e-13 * above[i]);  // tan amplifies near pi/2
    EXPECT_NEAR(std::sinh(asinh[i]), above[i], 1e-14 * above[i]);
    EXPECT_NEAR(std::cosh(acosh[i]), above[i], 1e-14 * above[i]);
    if (std::fabs(unit[i]) < 1) {
      EXPECT_NEAR(std::tanh(atanh[i]), unit[i], 1e-15);
    }
  }
  const double half_pi = std::numbers::pi / 2;
  const double next = 1 + 0x1p-23;  // the f32 after 1: outside asin's domain, inside acosh's
  const Tensor edges = Make(DType::kF32, {7}, {-1, 1, -0.0, kInf, -kInf, kNaN, next});
  ExpectClose(Values(RunRef1("asin", {edges})), {-half_pi, half_pi, -0.0, kNaN, kNaN, kNaN, kNaN},
              DType::kF32);
  ExpectClose(Values(RunRef1("acos", {edges})),
              {std::numbers::pi, 0, half_pi, kNaN, kNaN, kNaN, kNaN}, DType::kF32);
  ExpectClose(
      Values(RunRef1("atan", {edges})),
      {-std::numbers::pi / 4, std::numbers::pi / 4, -0.0, half_pi, -half_pi, kNaN, std::atan(next)},
      DType::kF32);
  ExpectClose(Values(RunRef1("atanh", {edges})), {-kInf, kInf, -0.0, kNaN, kNaN, kNaN, kNaN},
              DType::kF32);
  ExpectClose(Values(RunRef1("asinh", {edges})),
              {std::asinh(-1.0), std::asinh(1.0), -0.0, kInf, -kInf, kNaN, std::asinh(next)},
              DType::kF32);
  ExpectClose(Values(RunRef1("acosh", {edges})),
              {kNaN, 0, kNaN, kInf, kNaN, kNaN, std::acosh(next)}, DType::kF32);
  // Odd functions keep the sign of zero.
  for (const char* op : {"asin", "atan", "asinh", "atanh"}) {
    EXPECT_TRUE(std::signbit(Values(RunRef1(op, {Make(DType::kF16, {}, {-0.0})}))[0])) << op;
  }
}

TEST(ElementwiseRefUnary, SeluAndHardSigmoidTakeAttributes) {
  const Tensor x = Make(DType::kF64, {3}, {-1, 0, 2});
  ExpectClose(Values(RunRef1("selu", {x}, A({{"alpha", 2.0}, {"gamma", 3.0}}))),
              {3 * 2 * (std::exp(-1.0) - 1), 0, 6}, DType::kF64);
  ExpectClose(Values(RunRef1("hard_sigmoid", {x}, A({{"alpha", 0.25}, {"beta", 0.5}}))),
              {0.25, 0.5, 1.0}, DType::kF64);
  ExpectClose(Values(RunRef1("leaky_relu", {x}, A({{"alpha", -2.0}}))), {2, 0, 2}, DType::kF64);
}

TEST(ElementwiseRefUnary, ScalarsAndEmptyTensors) {
  for (const char* op : {"exp", "neg", "sigmoid", "round", "gelu"}) {
    const Tensor empty = RunRef1(op, {Make(DType::kF32, {2, 0, 3}, {})});
    EXPECT_EQ(empty.shape(), (Shape{2, 0, 3})) << op;
    EXPECT_EQ(empty.element_count(), 0) << op;
  }
  EXPECT_EQ(RunRef1("neg", {Make(DType::kI32, {0}, {})}).shape(), Shape{0});
  EXPECT_EQ(RunRef1("not", {Make(DType::kBool, {0, 4}, {})}).shape(), (Shape{0, 4}));
  EXPECT_EQ(RunRef1("clip", {Make(DType::kI8, {0}, {})}, A({{"min", 1.0}})).shape(), Shape{0});
  const Tensor s = RunRef1("exp", {Make(DType::kF64, {}, {1.0})});
  EXPECT_EQ(s.shape(), Shape{});
  EXPECT_EQ(Values(s), std::vector<double>{std::exp(1.0)});
  EXPECT_EQ(Values(RunRef1("abs", {Make(DType::kI64, {}, {-9})})), std::vector<double>{9});
}

// ---- integer unary ops and clip ------------------------------------------------------

TEST(ElementwiseRefUnary, IntegerOpsMatchExactReference) {
  // Rows of int_y_<dt>.npy: neg abs sign, then clip with these attributes.
  const std::vector<std::pair<std::string, Attrs>> rows = {
      {"neg", {}},
      {"abs", {}},
      {"sign", {}},
      {"clip", A({{"min", -100.5}, {"max", 100.5}})},
      {"clip", A({{"min", 3.0}})},
      {"clip", A({{"max", -1e30}})},
      {"clip", A({{"min", 1e30}})},
  };
  for (const char* dt : {"i8", "u8", "i32", "i64"}) {
    const Tensor x = LoadData("kernels/elementwise/int_x_" + std::string(dt) + ".npy");
    const Tensor want = LoadData("kernels/elementwise/int_y_" + std::string(dt) + ".npy");
    ASSERT_EQ(want.shape(), (Shape{static_cast<int64_t>(rows.size()), x.element_count()}));
    const std::vector<int64_t> all = Ints(want);
    for (size_t r = 0; r < rows.size(); ++r) {
      SCOPED_TRACE(std::string(dt) + " row " + std::to_string(r) + " (" + rows[r].first + ")");
      const Tensor y = RunRef1(rows[r].first, {x}, rows[r].second);
      ASSERT_EQ(y.dtype(), x.dtype());
      const std::vector<int64_t> row(
          all.begin() + static_cast<ptrdiff_t>(r * x.element_count()),
          all.begin() + static_cast<ptrdiff_t>((r + 1) * x.element_count()));
      EXPECT_EQ(Ints(y), row);
    }
  }
}

TEST(ElementwiseRefUnary, IntegerNegAndAbsWrapAtTheMinimum) {
  const int64_t min64 = std::numeric_limits<int64_t>::min();
  EXPECT_EQ(Ints(RunRef1("neg", {Make(DType::kI8, {2}, {-128, 5})})),
            (std::vector<int64_t>{-128, -5}));
  EXPECT_EQ(Ints(RunRef1("abs", {Make(DType::kI8, {2}, {-128, -5})})),
            (std::vector<int64_t>{-128, 5}));
  EXPECT_EQ(Ints(RunRef1("neg", {Make(DType::kU8, {2}, {1, 0})})), (std::vector<int64_t>{255, 0}));
  EXPECT_EQ(Ints(RunRef1("neg", {MakeInts(DType::kI64, {1}, {min64})})),
            std::vector<int64_t>{min64});
  EXPECT_EQ(Ints(RunRef1("abs", {MakeInts(DType::kI64, {1}, {min64})})),
            std::vector<int64_t>{min64});
}

TEST(ElementwiseRefUnary, ClipHandDerived) {
  // No bounds: identity.
  EXPECT_EQ(Values(RunRef1("clip", {Make(DType::kF32, {3}, {-1e30, 0.5, kInf})})),
            (std::vector<double>{-1e30f, 0.5, kInf}));
  // Fractional bounds on integers clamp to [ceil(min), floor(max)].
  EXPECT_EQ(Ints(RunRef1("clip", {Make(DType::kI32, {5}, {-5, -2, 0, 2, 5})},
                         A({{"min", -1.5}, {"max", 1.5}}))),
            (std::vector<int64_t>{-1, -1, 0, 1, 1}));
  // Bounds beyond u8's range saturate to it.
  EXPECT_EQ(Ints(RunRef1("clip", {Make(DType::kU8, {3}, {0, 100, 255})},
                         A({{"min", -7.0}, {"max", 300.0}}))),
            (std::vector<int64_t>{0, 100, 255}));
  // Huge bounds on i64 saturate without overflow.
  const int64_t max64 = std::numeric_limits<int64_t>::max();
  EXPECT_EQ(Ints(RunRef1("clip", {MakeInts(DType::kI64, {2}, {max64, -3})},
                         A({{"min", -1e300}, {"max", 1e300}}))),
            (std::vector<int64_t>{max64, -3}));
  // min > max is rejected by the schema.
  SY_EXPECT_ERROR(RunRef("clip", {Make(DType::kF32, {1}, {0})}, A({{"min", 2.0}, {"max", 1.0}})),
                  "min");
}

TEST(ElementwiseRefUnary, Not) {
  EXPECT_EQ(Ints(RunRef1("not", {Make(DType::kBool, {2, 2}, {0, 1, 1, 0})})),
            (std::vector<int64_t>{1, 0, 0, 1}));
  EXPECT_EQ(Ints(RunRef1("not", {Make(DType::kBool, {}, {1})})), std::vector<int64_t>{0});
}

// ---- cast ----------------------------------------------------------------------------

constexpr DType kAllDTypes[] = {DType::kF32, DType::kF16, DType::kBF16, DType::kF64, DType::kI8,
                                DType::kU8,  DType::kI32, DType::kI64,  DType::kBool};
constexpr DType kIntTargets[] = {DType::kI8, DType::kU8, DType::kI32, DType::kI64, DType::kBool};

Tensor Cast(const Tensor& x, DType to) {
  return RunRef1("cast", {x}, A({{"to", std::string(DTypeName(to))}}));
}

TEST(ElementwiseRefCast, EveryPairMatchesExactReference) {
  for (DType from : kAllDTypes) {
    const std::string name(DTypeName(from));
    Tensor x = LoadData("kernels/elementwise/cast_src_" + name + ".npy");
    if (from == DType::kBF16) x = Convert(x, DType::kBF16);  // exact bf16 values stored as f64
    ASSERT_EQ(x.dtype(), from) << name;
    const int64_t n = x.element_count();
    const std::vector<double> floats =
        Values(LoadData("kernels/elementwise/cast_" + name + "_to_float.npy"));
    const std::vector<int64_t> ints =
        Ints(LoadData("kernels/elementwise/cast_" + name + "_to_int.npy"));
    ASSERT_EQ(floats.size(), static_cast<size_t>(4 * n));
    ASSERT_EQ(ints.size(), static_cast<size_t>(5 * n));
    for (size_t t = 0; t < 4; ++t) {
      SCOPED_TRACE(name + " -> " + std::string(DTypeName(kFloatDTypes[t])));
      const Tensor y = Cast(x, kFloatDTypes[t]);
      ASSERT_EQ(y.dtype(), kFloatDTypes[t]);
      ASSERT_EQ(y.shape(), x.shape());
      const std::vector<double> got = Values(y);
      for (int64_t i = 0; i < n; ++i) {
        const double want = floats[t * static_cast<size_t>(n) + static_cast<size_t>(i)];
        if (std::isnan(want)) {
          EXPECT_TRUE(std::isnan(got[i])) << "element " << i;
        } else {
          EXPECT_EQ(got[i], want) << "element " << i;
          EXPECT_EQ(std::signbit(got[i]), std::signbit(want)) << "element " << i;
        }
      }
    }
    for (size_t t = 0; t < 5; ++t) {
      SCOPED_TRACE(name + " -> " + std::string(DTypeName(kIntTargets[t])));
      const Tensor y = Cast(x, kIntTargets[t]);
      ASSERT_EQ(y.dtype(), kIntTargets[t]);
      const std::vector<int64_t> want(ints.begin() + static_cast<ptrdiff_t>(t * n),
                                      ints.begin() + static_cast<ptrdiff_t>((t + 1) * n));
      EXPECT_EQ(Ints(y), want);
    }
  }
}

TEST(ElementwiseRefCast, FloatToIntTruncatesSaturatesAndMapsNanToZero) {
  const Tensor x = Make(DType::kF32, {7}, {-1.9, 1.9, kNaN, kInf, -kInf, 1e10, -1e10});
  EXPECT_EQ(Ints(Cast(x, DType::kI32)),
            (std::vector<int64_t>{-1, 1, 0, 2147483647, -2147483648LL, 2147483647, -2147483648LL}));
  EXPECT_EQ(Ints(Cast(x, DType::kU8)), (std::vector<int64_t>{0, 1, 0, 255, 0, 255, 0}));
  EXPECT_EQ(Ints(Cast(x, DType::kBool)), (std::vector<int64_t>{1, 1, 1, 1, 1, 1, 1}));
  const Tensor big = Make(DType::kF64, {2}, {9223372036854775808.0, -9223372036854775808.0});
  EXPECT_EQ(Ints(Cast(big, DType::kI64)),
            (std::vector<int64_t>{std::numeric_limits<int64_t>::max(),
                                  std::numeric_limits<int64_t>::min()}));
}

TEST(ElementwiseRefCast, IntegersWrapAndBoolIsZeroOrOne) {
  EXPECT_EQ(Ints(Cast(Make(DType::kI32, {3}, {300, -1, 256}), DType::kU8)),
            (std::vector<int64_t>{44, 255, 0}));
  EXPECT_EQ(Ints(Cast(Make(DType::kU8, {2}, {255, 128}), DType::kI8)),
            (std::vector<int64_t>{-1, -128}));
  EXPECT_EQ(Ints(Cast(Make(DType::kI64, {3}, {0, 2, -256}), DType::kBool)),
            (std::vector<int64_t>{0, 1, 1}));
  EXPECT_EQ(Values(Cast(Make(DType::kBool, {2}, {1, 0}), DType::kF16)),
            (std::vector<double>{1, 0}));
  EXPECT_EQ(Ints(Cast(Make(DType::kBool, {2}, {1, 0}), DType::kI64)), (std::vector<int64_t>{1, 0}));
}

TEST(ElementwiseRefCast, RoundsOnceToNarrowFloats) {
  // Just above a tie in f16 and bf16: a double rounding through f32 would land on the tie
  // and go to even; a single rounding goes up.
  const Tensor x = Make(DType::kF64, {2}, {1.0 + 0x1p-11 + 0x1p-40, 1.0 + 0x1p-8 + 0x1p-40});
  EXPECT_EQ(Values(Cast(x, DType::kF16))[0], 1.0 + 0x1p-10);
  EXPECT_EQ(Values(Cast(x, DType::kBF16))[1], 1.0 + 0x1p-7);
  // 2^24 + 2^16 + 1 to bf16 rounds up to 2^24 + 2^17 (via f32 it would tie down to 2^24).
  EXPECT_EQ(Values(Cast(Make(DType::kI32, {1}, {16842753}), DType::kBF16)),
            std::vector<double>{16908288});
  EXPECT_EQ(Values(Cast(Make(DType::kF32, {1}, {65520}), DType::kF16)), std::vector<double>{kInf});
}

TEST(ElementwiseRefCast, ScalarsEmptyAndIdentity) {
  EXPECT_EQ(Cast(Make(DType::kF32, {0, 2}, {}), DType::kI8).shape(), (Shape{0, 2}));
  EXPECT_EQ(Values(Cast(Make(DType::kI8, {}, {-7}), DType::kF32)), std::vector<double>{-7});
  for (DType dtype : kAllDTypes) {
    const Tensor x = Make(dtype, {3}, {0, 1, 1});
    EXPECT_TRUE(Cast(x, dtype).BitwiseEquals(x)) << DTypeName(dtype);
  }
  SY_EXPECT_ERROR(RunRef("cast", {Make(DType::kF32, {1}, {0})}, A({{"to", "f8"}})), "to");
}

}  // namespace
}  // namespace sy::cpu::test
