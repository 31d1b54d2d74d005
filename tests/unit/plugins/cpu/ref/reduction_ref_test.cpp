// The "Reductions and scans" reference kernels against NumPy / exact-integer reference
// files (tools/kernel_refs/reduction.py -> tests/data/kernels/reduction/) and
// hand-derived cases: empty reductions, scalars, bf16, rounding once, NaN and ties.
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "kernel_test_util.h"
#include "test_util.h"

namespace sy::cpu::test {
namespace {

using I = std::vector<int64_t>;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
constexpr int64_t kMin = std::numeric_limits<int64_t>::min();

// Attributes from a list (like sy::test::MakeAttrs, which lives outside this binary).
Attrs A(std::initializer_list<std::pair<std::string, AttrValue>> items) {
  Attrs attrs;
  for (const auto& [name, value] : items) attrs.Set(name, value);
  return attrs;
}

// Relative tolerance of a dtype's rounding (results are rounded once from double, the
// references likewise, so only the last bit may differ).
double Tolerance(DType dtype) {
  switch (dtype) {
    case DType::kF64:
      return 1e-12;
    case DType::kF32:
      return 1e-6;
    case DType::kF16:
      return 1e-3;
    case DType::kBF16:
      return 1e-2;
    default:
      return 0.0;
  }
}

std::vector<int64_t> I64Values(const Tensor& t) {
  std::vector<int64_t> out;
  for (int64_t i = 0; i < t.element_count(); ++i) out.push_back(LoadInt(t.dtype(), t.data(), i));
  return out;
}

// Same dtype and shape; NaN where expected; integers exactly (as int64), floats within
// the dtype's tolerance, infinities exactly.
void ExpectMatches(const Tensor& actual, const Tensor& expected) {
  ASSERT_EQ(DTypeName(actual.dtype()), DTypeName(expected.dtype()));
  ASSERT_EQ(actual.shape(), expected.shape());
  if (!IsFloat(expected.dtype())) {
    EXPECT_EQ(I64Values(actual), I64Values(expected));
    return;
  }
  const double rtol = Tolerance(expected.dtype());
  const std::vector<double> a = Values(actual);
  const std::vector<double> e = Values(expected);
  for (size_t i = 0; i < a.size(); ++i) {
    if (std::isnan(e[i])) {
      EXPECT_TRUE(std::isnan(a[i])) << "element " << i << " is " << a[i] << ", expected NaN";
    } else if (std::isinf(e[i])) {
      EXPECT_EQ(a[i], e[i]) << "element " << i;
    } else {
      EXPECT_NEAR(a[i], e[i], rtol * std::max(1.0, std::abs(e[i]))) << "element " << i;
    }
  }
}

void ExpectValues(const Tensor& actual, DType dtype, const Shape& shape,
                  const std::vector<double>& values) {
  ExpectMatches(actual, Make(dtype, shape, values));
}

Tensor MakeI64(Shape shape, const std::vector<int64_t>& values) {
  Expected<Tensor> t = Tensor::Allocate(DType::kI64, std::move(shape));
  EXPECT_TRUE(t.ok());
  std::span<int64_t> v = t->mutable_values<int64_t>();
  EXPECT_EQ(v.size(), values.size());
  std::copy(values.begin(), values.end(), v.begin());
  return std::move(*t);
}

Tensor Load(const std::string& file) { return LoadData("kernels/reduction/" + file + ".npy"); }

// ---- NumPy reference files ----------------------------------------------------------

struct FileCase {
  std::string name;  // <name>_in0.npy, <name>_out<i>.npy
  std::string op;
  Attrs attrs;
  int outputs = 1;
};

void RunFileCases(const std::vector<FileCase>& cases) {
  for (const FileCase& c : cases) {
    SCOPED_TRACE(c.name + " (" + c.op + ")");
    Expected<std::vector<Tensor>> out = RunRef(c.op, {Load(c.name + "_in0")}, c.attrs, c.outputs);
    SY_ASSERT_OK(out);
    ASSERT_EQ(out->size(), static_cast<size_t>(c.outputs));
    for (int i = 0; i < c.outputs; ++i) {
      SCOPED_TRACE("output " + std::to_string(i));
      ExpectMatches((*out)[i], Load(c.name + "_out" + std::to_string(i)));
    }
  }
}

Attrs Reduce(const I& axes, int64_t keepdims) {
  return A({{"axes", axes}, {"keepdims", keepdims}});
}

TEST(ReductionRef, ReduceFloatsMatchNumpy) {
  RunFileCases({
      {"reduce_sum_f32_axes", "reduce_sum", Reduce({0, -1}, 1)},
      {"reduce_sum_f32_all", "reduce_sum", A({{"keepdims", int64_t{0}}})},
      {"reduce_mean_f32_axes", "reduce_mean", Reduce({-1}, 0)},
      {"reduce_prod_f32_axes", "reduce_prod", Reduce({1}, 1)},
      {"reduce_max_f32_all_keep", "reduce_max", {}},
      {"reduce_min_f32_axes", "reduce_min", Reduce({0, 1}, 0)},
      {"reduce_sum_f16", "reduce_sum", Reduce({1}, 0)},
      {"reduce_mean_f16", "reduce_mean", Reduce({0}, 1)},
      {"reduce_max_f64_nan", "reduce_max", Reduce({1}, 0)},
      {"reduce_min_f64_nan", "reduce_min", Reduce({0}, 1)},
      {"reduce_sum_f64_nan", "reduce_sum", Reduce({-1}, 0)},
      {"reduce_prod_f64", "reduce_prod", Reduce({0}, 0)},
  });
}

TEST(ReductionRef, ReduceIntegersMatchExactArithmetic) {
  RunFileCases({
      {"reduce_sum_i8_wrap", "reduce_sum", Reduce({1}, 0)},
      {"reduce_prod_i8_wrap", "reduce_prod", Reduce({0}, 1)},
      {"reduce_mean_i8", "reduce_mean", Reduce({1}, 1)},
      {"reduce_max_i8", "reduce_max", Reduce({}, 0)},
      {"reduce_sum_u8_wrap", "reduce_sum", Reduce({0, 2}, 1)},
      {"reduce_min_u8", "reduce_min", Reduce({-1}, 0)},
      {"reduce_sum_i32_wrap", "reduce_sum", Reduce({0}, 0)},
      {"reduce_mean_i32", "reduce_mean", Reduce({1}, 0)},
      {"reduce_max_i32", "reduce_max", Reduce({1}, 1)},
      {"reduce_mean_i64_big", "reduce_mean", Reduce({1}, 0)},
      {"reduce_sum_i64_wrap", "reduce_sum", Reduce({1}, 0)},
      {"reduce_prod_i64_wrap", "reduce_prod", Reduce({1}, 0)},
      {"reduce_min_i64", "reduce_min", Reduce({0}, 0)},
  });
}

Attrs Arg(int64_t axis, int64_t keepdims, int64_t last) {
  return A({{"axis", axis}, {"keepdims", keepdims}, {"select_last_index", last}});
}

TEST(ReductionRef, ArgmaxArgminMatchNumpy) {
  std::vector<FileCase> cases;
  for (const std::string op : {"argmax", "argmin"}) {
    cases.push_back({op + "_f32_axis1", op, Arg(1, 1, 0)});
    cases.push_back({op + "_f32_axis1_last", op, Arg(1, 1, 1)});
    cases.push_back({op + "_f32_axis_neg1_nokeep", op, Arg(-1, 0, 0)});
    cases.push_back({op + "_f16_nan", op, Arg(1, 1, 0)});
    cases.push_back({op + "_f16_nan_last", op, Arg(1, 1, 1)});
    cases.push_back({op + "_i32_axis0", op, Arg(0, 0, 0)});
    cases.push_back({op + "_i32_axis0_last", op, Arg(0, 0, 1)});
  }
  cases.push_back({"argmax_u8", "argmax", Arg(1, 1, 0)});
  cases.push_back({"argmin_i64", "argmin", Arg(0, 0, 0)});
  RunFileCases(cases);
}

TEST(ReductionRef, CumsumMatchesNumpy) {
  std::vector<FileCase> cases;
  for (int64_t e : {0, 1}) {
    for (int64_t r : {0, 1}) {
      cases.push_back({"cumsum_f32_e" + std::to_string(e) + "_r" + std::to_string(r), "cumsum",
                       A({{"axis", int64_t{1}}, {"exclusive", e}, {"reverse", r}})});
    }
  }
  cases.push_back(
      {"cumsum_f16_axis0_reverse", "cumsum", A({{"axis", int64_t{0}}, {"reverse", int64_t{1}}})});
  cases.push_back({"cumsum_i8_wrap", "cumsum", A({{"axis", int64_t{-1}}})});
  cases.push_back({"cumsum_i8_exclusive_reverse", "cumsum",
                   A({{"axis", int64_t{-1}}, {"exclusive", int64_t{1}}, {"reverse", int64_t{1}}})});
  cases.push_back({"cumsum_i64_wrap", "cumsum", A({{"axis", int64_t{0}}})});
  cases.push_back({"cumsum_f64_inf", "cumsum", A({{"axis", int64_t{0}}})});
  RunFileCases(cases);
}

Attrs TopK(int64_t k, int64_t axis, int64_t largest, int64_t sorted = 1) {
  return A({{"k", k}, {"axis", axis}, {"largest", largest}, {"sorted", sorted}});
}

TEST(ReductionRef, TopkMatchesNumpy) {
  std::vector<FileCase> cases;
  for (int64_t k : {0, 3, 7}) {
    cases.push_back({"topk_f32_largest_k" + std::to_string(k), "topk", TopK(k, 1, 1), 2});
    cases.push_back({"topk_f32_smallest_k" + std::to_string(k), "topk", TopK(k, -1, 0), 2});
  }
  cases.push_back({"topk_i32_axis0_largest", "topk", TopK(4, 0, 1), 2});
  cases.push_back({"topk_i32_axis0_smallest", "topk", TopK(4, -3, 0), 2});
  cases.push_back({"topk_f16_largest", "topk", A({{"k", int64_t{2}}}), 2});  // defaults
  cases.push_back({"topk_u8_smallest", "topk", TopK(5, 0, 0, 0), 2});        // sorted = 0
  cases.push_back({"topk_i64_axis0", "topk", TopK(2, 0, 1), 2});
  RunFileCases(cases);
}

// ---- hand-derived cases ------------------------------------------------------------

TEST(ReductionRef, ReduceOverEmptyAxisGivesIdentities) {
  const Tensor x = Make(DType::kF32, {2, 0, 3}, {});
  const Attrs axis1 = Reduce({1}, 1);
  const std::vector<double> nan6(6, kNaN);
  ExpectValues(RunRef1("reduce_sum", {x}, axis1), DType::kF32, {2, 1, 3}, std::vector(6, 0.0));
  ExpectValues(RunRef1("reduce_prod", {x}, axis1), DType::kF32, {2, 1, 3}, std::vector(6, 1.0));
  ExpectValues(RunRef1("reduce_mean", {x}, axis1), DType::kF32, {2, 1, 3}, nan6);
  ExpectValues(RunRef1("reduce_max", {x}, axis1), DType::kF32, {2, 1, 3}, std::vector(6, -kInf));
  ExpectValues(RunRef1("reduce_min", {x}, axis1), DType::kF32, {2, 1, 3}, std::vector(6, kInf));
  struct IntCase {
    DType dtype;
    double lowest, highest;
  };
  for (const IntCase& c : {IntCase{DType::kI8, -128, 127}, IntCase{DType::kU8, 0, 255},
                           IntCase{DType::kI32, -2147483648.0, 2147483647.0}}) {
    SCOPED_TRACE(std::string(DTypeName(c.dtype)));
    const Tensor e = Make(c.dtype, {0, 2}, {});
    const Attrs axis0 = Reduce({0}, 0);
    ExpectValues(RunRef1("reduce_max", {e}, axis0), c.dtype, {2}, {c.lowest, c.lowest});
    ExpectValues(RunRef1("reduce_min", {e}, axis0), c.dtype, {2}, {c.highest, c.highest});
    ExpectValues(RunRef1("reduce_sum", {e}, axis0), c.dtype, {2}, {0, 0});
    ExpectValues(RunRef1("reduce_prod", {e}, axis0), c.dtype, {2}, {1, 1});
    ExpectValues(RunRef1("reduce_mean", {e}, axis0), c.dtype, {2}, {0, 0});  // documented
  }
  const Tensor e64 = MakeI64({0}, {});
  EXPECT_EQ(I64Values(RunRef1("reduce_max", {e64})), (std::vector<int64_t>{kMin}));
  EXPECT_EQ(I64Values(RunRef1("reduce_min", {e64})), (std::vector<int64_t>{kMax}));
  // Reducing every axis of an empty tensor, axes absent or empty.
  ExpectValues(
      RunRef1("reduce_sum", {Make(DType::kF16, {0, 4}, {})}, A({{"keepdims", int64_t{0}}})),
      DType::kF16, {}, {0});
  ExpectValues(RunRef1("reduce_mean", {Make(DType::kBF16, {3, 0}, {})}, Reduce({}, 1)),
               DType::kBF16, {1, 1}, {kNaN});
}

TEST(ReductionRef, ReduceHandlesScalarsAndEmptyOutputs) {
  const Tensor s = Make(DType::kF64, {}, {2.5});
  for (const char* op : {"reduce_sum", "reduce_mean", "reduce_max", "reduce_min", "reduce_prod"}) {
    SCOPED_TRACE(op);
    ExpectValues(RunRef1(op, {s}), DType::kF64, {}, {2.5});
    ExpectValues(RunRef1(op, {s}, Reduce({}, 0)), DType::kF64, {}, {2.5});
    // A kept dim of size 0: nothing to compute.
    ExpectValues(RunRef1(op, {Make(DType::kI32, {0, 3}, {})}, Reduce({1}, 0)), DType::kI32, {0},
                 {});
  }
}

TEST(ReductionRef, ReduceAccumulatesInDoubleAndRoundsOnce) {
  // bf16: 1 + 4 * 2^-8 is exactly 1.015625; rounding after each add would stay at 1.
  const double tiny = std::ldexp(1.0, -8);
  ExpectValues(RunRef1("reduce_sum", {Make(DType::kBF16, {5}, {1, tiny, tiny, tiny, tiny})}),
               DType::kBF16, {1}, {1.015625});
  // f16: 60000 + 60000 overflows f16 but not double; the sum comes back to 60000.
  ExpectValues(RunRef1("reduce_sum", {Make(DType::kF16, {3}, {60000, 60000, -60000})}), DType::kF16,
               {1}, {60000});
  ExpectValues(RunRef1("reduce_mean", {Make(DType::kF16, {2}, {60000, 60000})}), DType::kF16, {1},
               {60000});
  ExpectValues(RunRef1("reduce_sum", {Make(DType::kF16, {2}, {60000, 60000})}), DType::kF16, {1},
               {kInf});
  // Integer mean truncates toward zero.
  ExpectValues(RunRef1("reduce_mean", {Make(DType::kI32, {2}, {-7, 0})}), DType::kI32, {1}, {-3});
  ExpectValues(RunRef1("reduce_mean", {Make(DType::kI8, {2}, {7, 0})}), DType::kI8, {1}, {3});
  // NaN propagates through max / min wherever it is; inf does not hide it.
  const Tensor n = Make(DType::kBF16, {2, 2}, {kNaN, kInf, -kInf, 1});
  ExpectValues(RunRef1("reduce_max", {n}, Reduce({1}, 0)), DType::kBF16, {2}, {kNaN, 1});
  ExpectValues(RunRef1("reduce_min", {n}, Reduce({0}, 0)), DType::kBF16, {2}, {kNaN, 1});
}

TEST(ReductionRef, ArgmaxArgminHandWorkedCases) {
  // Ties: first index, or the last with select_last_index; +0 and -0 tie.
  const Tensor z = Make(DType::kBF16, {3}, {0.0, -0.0, 0.0});
  for (const char* op : {"argmax", "argmin"}) {
    SCOPED_TRACE(op);
    ExpectValues(RunRef1(op, {z}), DType::kI64, {1}, {0});
    ExpectValues(RunRef1(op, {z}, Arg(0, 0, 1)), DType::kI64, {}, {2});
  }
  // NaN is the maximum for argmax and the minimum for argmin (first NaN, or last).
  const Tensor n = Make(DType::kF32, {5}, {1, kNaN, kInf, kNaN, -kInf});
  ExpectValues(RunRef1("argmax", {n}), DType::kI64, {1}, {1});
  ExpectValues(RunRef1("argmin", {n}), DType::kI64, {1}, {1});
  ExpectValues(RunRef1("argmax", {n}, Arg(0, 1, 1)), DType::kI64, {1}, {3});
  ExpectValues(RunRef1("argmin", {n}, Arg(-1, 1, 1)), DType::kI64, {1}, {3});
  const Tensor nonan = Make(DType::kF64, {3}, {-kInf, kInf, 0});
  ExpectValues(RunRef1("argmax", {nonan}), DType::kI64, {1}, {1});
  ExpectValues(RunRef1("argmin", {nonan}), DType::kI64, {1}, {0});
  // Extremes of i64.
  const Tensor big = MakeI64({3}, {0, kMax, kMin});
  ExpectValues(RunRef1("argmax", {big}), DType::kI64, {1}, {1});
  ExpectValues(RunRef1("argmin", {big}), DType::kI64, {1}, {2});
  // Empty inputs: an empty axis only with an empty output (the shape rule rejects the
  // rest: there is no index to return).
  ExpectValues(RunRef1("argmax", {Make(DType::kI8, {0, 3}, {})}, Arg(1, 1, 0)), DType::kI64, {0, 1},
               {});
  ExpectValues(RunRef1("argmin", {Make(DType::kU8, {0, 0}, {})}, Arg(1, 0, 1)), DType::kI64, {0},
               {});
  SY_EXPECT_ERROR(RunRef("argmax", {Make(DType::kF32, {2, 0}, {})}, Arg(1, 1, 0)), "size 0");
}

TEST(ReductionRef, CumsumHandWorkedCases) {
  // Running sum in double, rounded once per output element: bf16 ties round to even.
  const double t = std::ldexp(1.0, -8);
  ExpectValues(
      RunRef1("cumsum", {Make(DType::kBF16, {5}, {1, t, t, t, t})}, A({{"axis", int64_t{0}}})),
      DType::kBF16, {5}, {1, 1, 1.0078125, 1.015625, 1.015625});
  EXPECT_EQ(
      I64Values(RunRef1("cumsum", {MakeI64({3}, {kMax, 1, kMax})}, A({{"axis", int64_t{0}}}))),
      (std::vector<int64_t>{kMax, kMin, -1}));
  ExpectValues(RunRef1("cumsum", {Make(DType::kF32, {2, 0}, {})}, A({{"axis", int64_t{1}}})),
               DType::kF32, {2, 0}, {});
  ExpectValues(RunRef1("cumsum", {Make(DType::kU8, {0, 2}, {})},
                       A({{"axis", int64_t{1}}, {"exclusive", int64_t{1}}})),
               DType::kU8, {0, 2}, {});
  ExpectValues(RunRef1("cumsum", {Make(DType::kF32, {3}, {1, kNaN, 2})},
                       A({{"axis", int64_t{0}}, {"exclusive", int64_t{1}}})),
               DType::kF32, {3}, {0, 1, kNaN});
  ExpectValues(
      RunRef1("cumsum", {Make(DType::kI32, {1}, {5})},
              A({{"axis", int64_t{0}}, {"exclusive", int64_t{1}}, {"reverse", int64_t{1}}})),
      DType::kI32, {1}, {0});
}

TEST(ReductionRef, CumprodHandWorkedCases) {
  ExpectValues(RunRef1("cumprod", {Make(DType::kF32, {2, 3}, {1, 2, 3, 4, 5, 6})},
                       A({{"axis", int64_t{1}}})),
               DType::kF32, {2, 3}, {1, 2, 6, 4, 20, 120});
  ExpectValues(RunRef1("cumprod", {Make(DType::kF32, {2, 3}, {1, 2, 3, 4, 5, 6})},
                       A({{"axis", int64_t{0}}, {"exclusive", int64_t{1}}})),
               DType::kF32, {2, 3}, {1, 1, 1, 1, 2, 3});
  ExpectValues(RunRef1("cumprod", {Make(DType::kI32, {4}, {2, 3, 0, 5})},
                       A({{"axis", int64_t{0}}, {"reverse", int64_t{1}}})),
               DType::kI32, {4}, {0, 0, 0, 5});
  ExpectValues(
      RunRef1("cumprod", {Make(DType::kI32, {3}, {2, 3, 4})},
              A({{"axis", int64_t{0}}, {"exclusive", int64_t{1}}, {"reverse", int64_t{1}}})),
      DType::kI32, {3}, {12, 4, 1});
  // Integers wrap: 2^62 * 4 is 0 in 64 bits.
  EXPECT_EQ(I64Values(RunRef1("cumprod", {MakeI64({2}, {int64_t{1} << 62, 4})},
                              A({{"axis", int64_t{0}}}))),
            (std::vector<int64_t>{int64_t{1} << 62, 0}));
}

TEST(ReductionRef, TopkHandWorkedCases) {
  // Ties (+0 / -0 included) go to the lower index; NaN is above +inf.
  const Tensor x = Make(DType::kF32, {6}, {0.0, kNaN, -0.0, kInf, kNaN, 0.0});
  Expected<std::vector<Tensor>> top = RunRef("topk", {x}, TopK(6, 0, 1), 2);
  SY_ASSERT_OK(top);
  ExpectValues((*top)[0], DType::kF32, {6}, {kNaN, kNaN, kInf, 0, 0, 0});
  EXPECT_EQ(I64Values((*top)[1]), (std::vector<int64_t>{1, 4, 3, 0, 2, 5}));
  EXPECT_TRUE(std::signbit(Values((*top)[0])[4]));  // values are copied bit for bit
  Expected<std::vector<Tensor>> bottom = RunRef("topk", {x}, TopK(4, 0, 0, 0), 2);
  SY_ASSERT_OK(bottom);
  ExpectValues((*bottom)[0], DType::kF32, {4}, {0, 0, 0, kInf});
  EXPECT_EQ(I64Values((*bottom)[1]), (std::vector<int64_t>{0, 2, 5, 3}));
  // bf16 and i64 extremes.
  Expected<std::vector<Tensor>> b =
      RunRef("topk", {Make(DType::kBF16, {2, 2}, {1.5, -2, 3, 3})}, TopK(1, -1, 1), 2);
  SY_ASSERT_OK(b);
  ExpectValues((*b)[0], DType::kBF16, {2, 1}, {1.5, 3});
  EXPECT_EQ(I64Values((*b)[1]), (std::vector<int64_t>{0, 0}));
  Expected<std::vector<Tensor>> i =
      RunRef("topk", {MakeI64({3}, {kMin, kMax, 0})}, TopK(2, 0, 0), 2);
  SY_ASSERT_OK(i);
  EXPECT_EQ(I64Values((*i)[0]), (std::vector<int64_t>{kMin, 0}));
  EXPECT_EQ(I64Values((*i)[1]), (std::vector<int64_t>{0, 2}));
  // Empty tensors.
  Expected<std::vector<Tensor>> e =
      RunRef("topk", {Make(DType::kF32, {0, 5}, {})}, TopK(2, 1, 1), 2);
  SY_ASSERT_OK(e);
  ExpectValues((*e)[0], DType::kF32, {0, 2}, {});
  ExpectValues((*e)[1], DType::kI64, {0, 2}, {});
  Expected<std::vector<Tensor>> e2 =
      RunRef("topk", {Make(DType::kI8, {3, 0}, {})}, TopK(0, 1, 0), 2);
  SY_ASSERT_OK(e2);
  ExpectValues((*e2)[0], DType::kI8, {3, 0}, {});
}

}  // namespace
}  // namespace sy::cpu::test
