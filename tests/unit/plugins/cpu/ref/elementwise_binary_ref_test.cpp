// The broadcasting elementwise reference kernels (add sub mul div pow max min mod prelu,
// comparisons, and or xor, where) against NumPy / exact-integer reference files
// (tools/kernel_refs/elementwise.py) and hand-derived cases.
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "elementwise_ref_test_util.h"

namespace sy::cpu::test {
namespace {

constexpr int64_t kMin64 = std::numeric_limits<int64_t>::min();
constexpr int64_t kMax64 = std::numeric_limits<int64_t>::max();

std::string File(const std::string& name) { return "kernels/elementwise/" + name + ".npy"; }

// Row `r` of a [rows, ...] tensor's integer values.
std::vector<int64_t> Row(const std::vector<int64_t>& all, size_t rows, size_t r) {
  const size_t n = all.size() / rows;
  return {all.begin() + static_cast<ptrdiff_t>(r * n),
          all.begin() + static_cast<ptrdiff_t>((r + 1) * n)};
}

// ---- floats against NumPy ------------------------------------------------------------

TEST(ElementwiseRefBinary, FloatArithmeticMatchesNumpyWithBroadcasting) {
  const Tensor a64 = LoadData(File("bin_a"));  // [2, 1, 6]
  const Tensor b64 = LoadData(File("bin_b"));  // [7, 1]
  const std::vector<std::pair<std::string, std::pair<std::string, Attrs>>> cases = {
      {"add", {"add", {}}}, {"sub", {"sub", {}}}, {"mul", {"mul", {}}},
      {"div", {"div", {}}}, {"pow", {"pow", {}}}, {"max", {"max", {}}},
      {"min", {"min", {}}}, {"mod", {"mod", {}}}, {"fmod", {"mod", A({{"fmod", int64_t{1}}})}},
  };
  for (DType dtype : kFloatDTypes) {
    for (const auto& [file, run] : cases) {
      SCOPED_TRACE(file + " in " + std::string(DTypeName(dtype)));
      const Tensor y = RunRef1(run.first, {Convert(a64, dtype), Convert(b64, dtype)}, run.second);
      ASSERT_EQ(y.dtype(), dtype);
      ASSERT_EQ(y.shape(), (Shape{2, 7, 6}));
      ExpectClose(Values(y), Values(Convert(LoadData(File("bin_" + file)), dtype)), dtype);
    }
  }
}

TEST(ElementwiseRefBinary, FloatComparisonsMatchNumpy) {
  const Tensor a64 = LoadData(File("bin_a"));
  const Tensor b64 = LoadData(File("bin_b"));
  for (DType dtype : kFloatDTypes) {
    for (const char* op : {"equal", "less", "less_equal", "greater", "greater_equal"}) {
      SCOPED_TRACE(std::string(op) + " in " + std::string(DTypeName(dtype)));
      const Tensor y = RunRef1(op, {Convert(a64, dtype), Convert(b64, dtype)});
      ASSERT_EQ(y.dtype(), DType::kBool);
      ASSERT_EQ(y.shape(), (Shape{2, 7, 6}));
      EXPECT_EQ(Ints(y), Ints(LoadData(File("bin_" + std::string(op)))));
    }
  }
}

// ---- integers against exact Python arithmetic ----------------------------------------

TEST(ElementwiseRefBinary, IntegerArithmeticMatchesExactReference) {
  // Rows of ibin_arith_<dt>.npy.
  const std::vector<std::pair<std::string, Attrs>> rows = {
      {"add", {}}, {"sub", {}}, {"mul", {}},
      {"div", {}}, {"mod", {}}, {"mod", A({{"fmod", int64_t{1}}})},
      {"max", {}}, {"min", {}},
  };
  for (const char* dt : {"i8", "u8", "i32", "i64"}) {
    const Tensor a = LoadData(File("ibin_a_" + std::string(dt)));  // [2, 1, 5]
    const Tensor b = LoadData(File("ibin_b_" + std::string(dt)));  // [4, 1]
    const std::vector<int64_t> all = Ints(LoadData(File("ibin_arith_" + std::string(dt))));
    for (size_t r = 0; r < rows.size(); ++r) {
      SCOPED_TRACE(std::string(dt) + " row " + std::to_string(r) + " (" + rows[r].first + ")");
      const Tensor y = RunRef1(rows[r].first, {a, b}, rows[r].second);
      ASSERT_EQ(y.dtype(), a.dtype());
      ASSERT_EQ(y.shape(), (Shape{2, 4, 5}));
      EXPECT_EQ(Ints(y), Row(all, rows.size(), r));
    }
  }
}

TEST(ElementwiseRefBinary, IntegerComparisonsMatchExactReference) {
  const std::vector<std::string> ops = {"equal", "less", "less_equal", "greater", "greater_equal"};
  for (const char* dt : {"i8", "u8", "i32", "i64"}) {
    const Tensor a = LoadData(File("ibin_a_" + std::string(dt)));
    const Tensor b = LoadData(File("ibin_b_" + std::string(dt)));
    const std::vector<int64_t> all = Ints(LoadData(File("ibin_cmp_" + std::string(dt))));
    for (size_t r = 0; r < ops.size(); ++r) {
      SCOPED_TRACE(std::string(dt) + " " + ops[r]);
      const Tensor y = RunRef1(ops[r], {a, b});
      ASSERT_EQ(y.dtype(), DType::kBool);
      EXPECT_EQ(Ints(y), Row(all, ops.size(), r));
    }
  }
}

// ---- hand-derived --------------------------------------------------------------------

TEST(ElementwiseRefBinary, IntegerDivTruncatesAndModFollowsTheDivisor) {
  const Tensor a = Make(DType::kI32, {4}, {7, -7, 7, -7});
  const Tensor b = Make(DType::kI32, {4}, {3, 3, -3, -3});
  EXPECT_EQ(Ints(RunRef1("div", {a, b})), (std::vector<int64_t>{2, -2, -2, 2}));
  EXPECT_EQ(Ints(RunRef1("mod", {a, b})), (std::vector<int64_t>{1, 2, -2, -1}));
  EXPECT_EQ(Ints(RunRef1("mod", {a, b}, A({{"fmod", int64_t{1}}}))),
            (std::vector<int64_t>{1, -1, 1, -1}));
  const Tensor fa = Make(DType::kF64, {4}, {7.5, -7.5, 7.5, -7.5});
  const Tensor fb = Make(DType::kF64, {4}, {2, 2, -2, -2});
  EXPECT_EQ(Values(RunRef1("mod", {fa, fb})), (std::vector<double>{1.5, 0.5, -0.5, -1.5}));
  EXPECT_EQ(Values(RunRef1("mod", {fa, fb}, A({{"fmod", int64_t{1}}}))),
            (std::vector<double>{1.5, -1.5, 1.5, -1.5}));
  // A zero remainder takes the divisor's sign with fmod 0.
  EXPECT_TRUE(std::signbit(
      Values(RunRef1("mod", {Make(DType::kF32, {}, {4}), Make(DType::kF32, {}, {-2})}))[0]));
}

TEST(ElementwiseRefBinary, Int64MinByMinusOneDoesNotTrap) {
  const Tensor a = MakeInts(DType::kI64, {2}, {kMin64, kMax64});
  const Tensor b = MakeInts(DType::kI64, {1}, {-1});
  EXPECT_EQ(Ints(RunRef1("div", {a, b})), (std::vector<int64_t>{kMin64, -kMax64}));
  EXPECT_EQ(Ints(RunRef1("mod", {a, b})), (std::vector<int64_t>{0, 0}));
  EXPECT_EQ(Ints(RunRef1("mod", {a, b}, A({{"fmod", int64_t{1}}}))), (std::vector<int64_t>{0, 0}));
  EXPECT_EQ(Ints(RunRef1("mul", {a, b})), (std::vector<int64_t>{kMin64, -kMax64}));
  EXPECT_EQ(Ints(RunRef1("add", {a, MakeInts(DType::kI64, {1}, {1})})),
            (std::vector<int64_t>{kMin64 + 1, kMin64}));
  EXPECT_EQ(Ints(RunRef1("sub", {a, MakeInts(DType::kI64, {1}, {1})})),
            (std::vector<int64_t>{kMax64, kMax64 - 1}));
}

TEST(ElementwiseRefBinary, IntegerDivisionByZeroIsAnError) {
  const Tensor a = Make(DType::kI32, {2, 3}, {1, 2, 3, 4, 5, 6});
  const Tensor b = Make(DType::kI32, {3}, {1, 0, 2});
  SY_EXPECT_ERROR(RunRef("div", {a, b}), "div: integer division by zero");
  SY_EXPECT_ERROR(RunRef("div", {a, b}), "element 1 of input b");
  SY_EXPECT_ERROR(RunRef("div", {a, b}), "at output element 1 ");
  SY_EXPECT_ERROR(RunRef("div", {a, b}), "expected a nonzero divisor");
  SY_EXPECT_ERROR(RunRef("mod", {a, b}), "mod: integer modulo by zero");
  SY_EXPECT_ERROR(RunRef("mod", {a, b}, A({{"fmod", int64_t{1}}})), "mod: integer modulo by zero");
  for (DType dtype : {DType::kI8, DType::kU8, DType::kI64}) {
    SY_EXPECT_ERROR(RunRef("div", {Make(dtype, {}, {5}), Make(dtype, {}, {0})}), "by zero");
  }
  // Floats divide by zero the IEEE way.
  EXPECT_EQ(Values(RunRef1("div", {Make(DType::kF32, {2}, {1, -1}), Make(DType::kF32, {}, {0})})),
            (std::vector<double>{kInf, -kInf}));
}

TEST(ElementwiseRefBinary, MaxMinPropagateNan) {
  const Tensor a = Make(DType::kF32, {3}, {kNaN, 1, 2});
  const Tensor b = Make(DType::kF32, {3}, {1, kNaN, 3});
  for (const char* op : {"max", "min"}) {
    const std::vector<double> y = Values(RunRef1(op, {a, b}));
    EXPECT_TRUE(std::isnan(y[0]) && std::isnan(y[1])) << op;
    EXPECT_EQ(y[2], std::string(op) == "max" ? 3 : 2) << op;
  }
}

TEST(ElementwiseRefBinary, PowHandDerived) {
  const Tensor a = Make(DType::kF64, {5}, {2, -8, 9, 0, kNaN});
  const Tensor b = Make(DType::kF64, {5}, {10, 1.0 / 3, 0.5, -1, 0});
  const std::vector<double> y = Values(RunRef1("pow", {a, b}));
  EXPECT_EQ(y[0], 1024);
  EXPECT_TRUE(std::isnan(y[1]));
  EXPECT_EQ(y[2], 3);
  EXPECT_EQ(y[3], kInf);
  EXPECT_EQ(y[4], 1);
}

TEST(ElementwiseRefBinary, BroadcastingScalarsAndEmptyTensors) {
  // [3, 1] with [1, 4] -> [3, 4]
  const Tensor a = Make(DType::kI64, {3, 1}, {0, 10, 20});
  const Tensor b = Make(DType::kI64, {1, 4}, {1, 2, 3, 4});
  const Tensor y = RunRef1("add", {a, b});
  EXPECT_EQ(y.shape(), (Shape{3, 4}));
  EXPECT_EQ(Ints(y), (std::vector<int64_t>{1, 2, 3, 4, 11, 12, 13, 14, 21, 22, 23, 24}));
  // Rank 0 with rank 0, and a scalar on either side.
  const Tensor s = RunRef1("mul", {Make(DType::kF32, {}, {3}), Make(DType::kF32, {}, {-2})});
  EXPECT_EQ(s.shape(), Shape{});
  EXPECT_EQ(Values(s), std::vector<double>{-6});
  EXPECT_EQ(Values(RunRef1("sub", {Make(DType::kF32, {}, {10}), Make(DType::kF32, {2}, {1, 2})})),
            (std::vector<double>{9, 8}));
  EXPECT_EQ(Ints(RunRef1("less", {Make(DType::kU8, {3}, {1, 5, 9}), Make(DType::kU8, {}, {5})})),
            (std::vector<int64_t>{1, 0, 0}));
  // A zero dim broadcasts to an empty output (and is no division by zero).
  for (const char* op : {"add", "div", "mod", "equal", "max"}) {
    const Tensor e =
        RunRef1(op, {Make(DType::kI32, {0, 3}, {}), Make(DType::kI32, {3}, {0, 0, 0})});
    EXPECT_EQ(e.shape(), (Shape{0, 3})) << op;
  }
  EXPECT_EQ(RunRef1("add", {Make(DType::kF32, {2, 0}, {}), Make(DType::kF32, {1}, {1})}).shape(),
            (Shape{2, 0}));
}

TEST(ElementwiseRefBinary, BoolComparisons) {
  const Tensor a = Make(DType::kBool, {4}, {0, 0, 1, 1});
  const Tensor b = Make(DType::kBool, {4}, {0, 1, 0, 1});
  EXPECT_EQ(Ints(RunRef1("equal", {a, b})), (std::vector<int64_t>{1, 0, 0, 1}));
  EXPECT_EQ(Ints(RunRef1("less", {a, b})), (std::vector<int64_t>{0, 1, 0, 0}));
  EXPECT_EQ(Ints(RunRef1("less_equal", {a, b})), (std::vector<int64_t>{1, 1, 0, 1}));
  EXPECT_EQ(Ints(RunRef1("greater", {a, b})), (std::vector<int64_t>{0, 0, 1, 0}));
  EXPECT_EQ(Ints(RunRef1("greater_equal", {a, b})), (std::vector<int64_t>{1, 0, 1, 1}));
}

TEST(ElementwiseRefBinary, LogicTruthTablesAndBroadcasting) {
  const Tensor a = Make(DType::kBool, {4}, {0, 0, 1, 1});
  const Tensor b = Make(DType::kBool, {4}, {0, 1, 0, 1});
  EXPECT_EQ(Ints(RunRef1("and", {a, b})), (std::vector<int64_t>{0, 0, 0, 1}));
  EXPECT_EQ(Ints(RunRef1("or", {a, b})), (std::vector<int64_t>{0, 1, 1, 1}));
  EXPECT_EQ(Ints(RunRef1("xor", {a, b})), (std::vector<int64_t>{0, 1, 1, 0}));
  // [2, 1] with [3] -> [2, 3]
  const Tensor c = Make(DType::kBool, {2, 1}, {0, 1});
  const Tensor d = Make(DType::kBool, {3}, {1, 0, 1});
  const Tensor y = RunRef1("xor", {c, d});
  EXPECT_EQ(y.shape(), (Shape{2, 3}));
  EXPECT_EQ(Ints(y), (std::vector<int64_t>{1, 0, 1, 0, 1, 0}));
  EXPECT_EQ(Ints(RunRef1("and", {Make(DType::kBool, {}, {1}), Make(DType::kBool, {0}, {})})),
            std::vector<int64_t>{});
}

// ---- bitwise ------------------------------------------------------------------------

TEST(ElementwiseRefBinary, BitwiseOpsOnTwosComplementBits) {
  const Tensor a = Make(DType::kI8, {4}, {12, -1, -128, 5});
  const Tensor b = Make(DType::kI8, {4}, {10, 85, 127, -6});
  EXPECT_EQ(Ints(RunRef1("bitwise_and", {a, b})), (std::vector<int64_t>{8, 85, 0, 0}));
  EXPECT_EQ(Ints(RunRef1("bitwise_or", {a, b})), (std::vector<int64_t>{14, -1, -1, -1}));
  EXPECT_EQ(Ints(RunRef1("bitwise_xor", {a, b})), (std::vector<int64_t>{6, -86, -1, -1}));
  EXPECT_EQ(Ints(RunRef1("bitwise_not", {a})), (std::vector<int64_t>{-13, 0, 127, -6}));
  EXPECT_EQ(Ints(RunRef1("bitwise_not", {Make(DType::kU8, {2}, {0, 200})})),
            (std::vector<int64_t>{255, 55}));
  // [2, 1] with [3] -> [2, 3]
  const Tensor y = RunRef1("bitwise_and",
                           {Make(DType::kI32, {2, 1}, {6, 3}), Make(DType::kI32, {3}, {1, 2, 4})});
  EXPECT_EQ(y.shape(), (Shape{2, 3}));
  EXPECT_EQ(Ints(y), (std::vector<int64_t>{0, 2, 4, 1, 2, 0}));
}

TEST(ElementwiseRefBinary, BitShiftWrapsAndFillsOutOfRangeShifts) {
  const Attrs left = A({{"direction", std::string("left")}});
  const Attrs right = A({{"direction", std::string("right")}});
  // u8: 200 << 1 wraps to 144; shifts of 8 or more, or negative, give 0.
  const Tensor u = Make(DType::kU8, {5}, {200, 1, 255, 16, 3});
  const Tensor us = Make(DType::kU8, {5}, {1, 7, 8, 2, 0});
  EXPECT_EQ(Ints(RunRef1("bit_shift", {u, us}, left)), (std::vector<int64_t>{144, 128, 0, 64, 3}));
  EXPECT_EQ(Ints(RunRef1("bit_shift", {u, us}, right)), (std::vector<int64_t>{100, 0, 0, 4, 3}));
  // i8: right shifts are arithmetic; out of range gives -1 for a negative, else 0.
  const Tensor i = Make(DType::kI8, {5}, {-128, -7, 64, -1, 5});
  const Tensor is = Make(DType::kI8, {5}, {1, 1, 1, 9, -1});
  EXPECT_EQ(Ints(RunRef1("bit_shift", {i, is}, right)), (std::vector<int64_t>{-64, -4, 32, -1, 0}));
  EXPECT_EQ(Ints(RunRef1("bit_shift", {i, is}, left)), (std::vector<int64_t>{0, -14, -128, 0, 0}));
  // i64: 1 << 63 is the most negative value.
  EXPECT_EQ(
      Ints(RunRef1("bit_shift", {Make(DType::kI64, {1}, {1}), Make(DType::kI64, {1}, {63})}, left)),
      (std::vector<int64_t>{std::numeric_limits<int64_t>::min()}));
}

// ---- prelu and where -----------------------------------------------------------------

TEST(ElementwiseRefBinary, PreluMatchesNumpy) {
  const Tensor x = LoadData(File("prelu_x"));          // [2, 3, 4]
  const Tensor slope = LoadData(File("prelu_slope"));  // [3, 1]
  const Tensor want = LoadData(File("prelu_y"));
  for (DType dtype : kFloatDTypes) {
    SCOPED_TRACE(DTypeName(dtype));
    const Tensor y = RunRef1("prelu", {Convert(x, dtype), Convert(slope, dtype)});
    ASSERT_EQ(y.shape(), x.shape());
    ExpectClose(Values(y), Values(Convert(want, dtype)), dtype);
  }
  // Slope along the last axis, and a scalar slope.
  const Tensor x2 = Make(DType::kF32, {2, 2}, {-1, 2, -3, 4});
  EXPECT_EQ(Values(RunRef1("prelu", {x2, Make(DType::kF32, {2}, {0.5, 7})})),
            (std::vector<double>{-0.5, 2, -1.5, 4}));
  EXPECT_EQ(Values(RunRef1("prelu", {x2, Make(DType::kF32, {}, {-2})})),
            (std::vector<double>{2, 2, 6, 4}));
  EXPECT_EQ(
      RunRef1("prelu", {Make(DType::kF32, {0, 2}, {}), Make(DType::kF32, {2}, {1, 1})}).shape(),
      (Shape{0, 2}));
}

TEST(ElementwiseRefWhere, MatchesNumpyWithThreeWayBroadcasting) {
  const Tensor cond = LoadData(File("where_cond"));  // [2, 1, 3]
  const Tensor a = LoadData(File("where_a"));        // [4, 1]
  const Tensor b = LoadData(File("where_b"));        // [3]
  const Tensor want = LoadData(File("where_y"));     // [2, 4, 3]
  for (DType dtype : kFloatDTypes) {
    SCOPED_TRACE(DTypeName(dtype));
    const Tensor y = RunRef1("where", {cond, Convert(a, dtype), Convert(b, dtype)});
    ASSERT_EQ(y.dtype(), dtype);
    ASSERT_EQ(y.shape(), (Shape{2, 4, 3}));
    ExpectClose(Values(y), Values(Convert(want, dtype)), dtype);
  }
}

TEST(ElementwiseRefWhere, IntegerAndBoolValuesAreCopiedExactly) {
  const Tensor cond = Make(DType::kBool, {2, 1}, {1, 0});
  const Tensor a = MakeInts(DType::kI64, {2}, {kMin64, 5});
  const Tensor b = MakeInts(DType::kI64, {}, {kMax64});
  const Tensor y = RunRef1("where", {cond, a, b});
  EXPECT_EQ(y.shape(), (Shape{2, 2}));
  EXPECT_EQ(Ints(y), (std::vector<int64_t>{kMin64, 5, kMax64, kMax64}));
  EXPECT_EQ(
      Ints(RunRef1("where", {Make(DType::kBool, {3}, {1, 0, 1}), Make(DType::kBool, {3}, {0, 0, 0}),
                             Make(DType::kBool, {}, {1})})),
      (std::vector<int64_t>{0, 1, 0}));
  EXPECT_EQ(Ints(RunRef1("where", {Make(DType::kBool, {}, {0}), Make(DType::kU8, {2}, {1, 2}),
                                   Make(DType::kU8, {2}, {200, 255})})),
            (std::vector<int64_t>{200, 255}));
  EXPECT_EQ(RunRef1("where", {Make(DType::kBool, {0, 1}, {}), Make(DType::kI8, {3}, {1, 2, 3}),
                              Make(DType::kI8, {}, {0})})
                .shape(),
            (Shape{0, 3}));
  const Tensor s = RunRef1("where", {Make(DType::kBool, {}, {1}), Make(DType::kF16, {}, {1.5}),
                                     Make(DType::kF16, {}, {2})});
  EXPECT_EQ(s.shape(), Shape{});
  EXPECT_EQ(Values(s), std::vector<double>{1.5});
}

}  // namespace
}  // namespace sy::cpu::test
