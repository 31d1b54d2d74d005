// The fast f32 elementwise kernels against the reference kernels, on the shapes they
// take (equal shapes, a one-element side, one side repeating along leading axes) and on
// shapes they hand back to the reference; threaded with 1, 2 and 4 threads.
#include <cmath>
#include <limits>
#include <random>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "fast/fast_kernels.h"
#include "fast_test_util.h"
#include "kernel_test_util.h"
#include "test_util.h"

namespace sy::cpu {
namespace {

using test::Make;
using test::Values;

std::vector<double> Random(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(-4, 4);
  std::vector<double> v(n);
  for (double& x : v) x = u(rng);
  return v;
}

void ExpectSameAsRef(const char* op, const std::vector<Tensor>& inputs) {
  Expected<std::vector<Tensor>> fast = test::Run(FastKernels(), op, inputs);
  Expected<std::vector<Tensor>> ref = test::RunRef(op, inputs);
  SY_ASSERT_OK(fast);
  SY_ASSERT_OK(ref);
  const std::vector<double> a = Values((*fast)[0]), b = Values((*ref)[0]);
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    if (std::isnan(b[i])) {
      EXPECT_TRUE(std::isnan(a[i])) << op << " element " << i;
    } else if (std::isinf(b[i])) {
      EXPECT_EQ(a[i], b[i]) << op << " element " << i;
    } else {
      // Reference computes in double then rounds; f32 arithmetic rounds once too.
      EXPECT_NEAR(a[i], b[i], 1e-6 * std::max(1.0, std::fabs(b[i]))) << op << " element " << i;
    }
  }
}

// where: each input whole, one element, or a repeating suffix (an attention mask over
// the keys, scores per head, one fill value), checked element by element against the
// reference kernel, which runs the general broadcasting cursor.
TEST(ElementwiseFast, WhereMatchesReference) {
  const auto bools = [](size_t n, uint32_t seed) {
    std::vector<double> v = Random(n, seed);
    for (double& x : v) x = x > 0 ? 1 : 0;
    return v;
  };
  const double inf = std::numeric_limits<double>::infinity();
  ExpectSameAsRef(
      "where", {Make(DType::kBool, {1, 1, 1, 37}, bools(37, 1)),
                Make(DType::kF32, {2, 12, 1, 37}, Random(888, 2)), Make(DType::kF32, {}, {-inf})});
  ExpectSameAsRef("where",
                  {Make(DType::kBool, {5, 7}, bools(35, 3)), Make(DType::kF32, {7}, Random(7, 4)),
                   Make(DType::kF32, {5, 7}, Random(35, 5))});
  ExpectSameAsRef("where", {Make(DType::kBool, {}, {1}), Make(DType::kF32, {3, 4}, Random(12, 6)),
                            Make(DType::kF32, {4}, Random(4, 7))});
  ExpectSameAsRef("where", {Make(DType::kBool, {3, 4}, bools(12, 8)),
                            Make(DType::kI32, {3, 4}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}),
                            Make(DType::kI32, {1}, {-1})});
  // Threads: long enough to be split, with a period that does not divide the split.
  test::ExpectMatchesReference(
      "where",
      {Make(DType::kBool, {1, 1, 1, 1000}, bools(1000, 9)),
       Make(DType::kF32, {3, 7, 1, 1000}, Random(21000, 10)), Make(DType::kF32, {}, {-3.5})},
      test::Tolerance{0, 0});
  // General broadcasting (a column), other dtypes and empty outputs: the reference.
  ExpectSameAsRef("where",
                  {Make(DType::kBool, {3, 1}, {1, 0, 1}), Make(DType::kF32, {3, 4}, Random(12, 11)),
                   Make(DType::kF32, {3, 4}, Random(12, 12))});
  ExpectSameAsRef("where", {Make(DType::kBool, {2}, {1, 0}), Make(DType::kF64, {2}, {1, 2}),
                            Make(DType::kF64, {2}, {3, 4})});
  ExpectSameAsRef("where", {Make(DType::kBool, {0, 3}, {}), Make(DType::kF32, {0, 3}, {}),
                            Make(DType::kF32, {}, {1})});
}

TEST(ElementwiseFast, BinaryMatchesReference) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (const char* op : {"add", "sub", "mul", "div"}) {
    ExpectSameAsRef(
        op, {Make(DType::kF32, {3, 5}, Random(15, 1)), Make(DType::kF32, {3, 5}, Random(15, 2))});
    ExpectSameAsRef(op, {Make(DType::kF32, {7}, Random(7, 3)), Make(DType::kF32, {}, {1.5})});
    ExpectSameAsRef(op, {Make(DType::kF32, {1}, {-2.0}), Make(DType::kF32, {2, 2}, Random(4, 4))});
    ExpectSameAsRef(op, {Make(DType::kF32, {0, 3}, {}), Make(DType::kF32, {0, 3}, {})});
    ExpectSameAsRef(op, {Make(DType::kF32, {2}, {nan, 1.0}), Make(DType::kF32, {2}, {1.0, 0.0})});
    // General broadcasting and other dtypes go to the reference kernel.
    ExpectSameAsRef(
        op, {Make(DType::kF32, {2, 3}, Random(6, 5)), Make(DType::kF32, {3}, Random(3, 6))});
    ExpectSameAsRef(op,
                    {Make(DType::kF64, {4}, Random(4, 7)), Make(DType::kF64, {4}, Random(4, 8))});
  }
  ExpectSameAsRef("add", {Make(DType::kI32, {3}, {1, 2, 3}), Make(DType::kI32, {3}, {4, 5, 6})});
}

TEST(ElementwiseFast, ReluMatchesReference) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  ExpectSameAsRef("relu", {Make(DType::kF32, {6}, {-1.0, 0.0, 2.5, nan, -0.0, 1e30})});
  ExpectSameAsRef("relu", {Make(DType::kF16, {2}, {-1.0, 3.0})});
}

TEST(ElementwiseFast, ThreadedAndBroadcastMatchReference) {
  // Sizes below and above two chunks (2 x 16384 elements), odd sizes; the repeating side
  // is one block of the output's dims: a suffix ([C] or [1, C] against [N, C]) or a run
  // with 1s after it ([C, 1, 1] against [N, C, H, W], [N, 1] against [N, C]), either side.
  struct Shapes {
    Shape a, b;
  };
  const Shapes cases[] = {
      {{100003}, {100003}},
      {{40001}, {}},
      {{1}, {70001}},
      {{4096, 1024}, {1024}},
      {{3, 5}, {5}},
      {{5}, {3, 5}},
      {{999, 67}, {1, 67}},
      {{2, 3, 7001}, {3, 7001}},
      {{1, 16}, {5000, 16}},
      {{70000, 1}, {1}},
      {{33, 2048}, {1, 1, 2048}},
      {{2, 96, 17, 19}, {96, 1, 1}},
      {{1, 7, 1, 1}, {3, 7, 150, 150}},
      {{300, 1}, {300, 200}},
      {{4, 5, 6, 7}, {1, 5, 6, 1}},
  };
  for (const char* op : {"add", "sub", "mul", "div"}) {
    for (const Shapes& c : cases) {
      const auto na = static_cast<size_t>(ElementCount(c.a));
      const auto nb = static_cast<size_t>(ElementCount(c.b));
      const Tensor a = Make(DType::kF32, c.a, test::WithSpecials(test::Uniform(na, -4, 4, 1)));
      const Tensor b = Make(DType::kF32, c.b, test::WithSpecials(test::Uniform(nb, -4, 4, 2)));
      // f32 arithmetic on f32 values rounds exactly like the reference's double result.
      test::ExpectMatchesReference(op, {a, b}, {0, 0});
    }
  }
  // Broadcasting of both sides, or of a side in two blocks ([C, 1, W]), goes to the
  // reference.
  test::ExpectMatchesReference("add",
                               {Make(DType::kF32, {300, 1}, test::Uniform(300, -1, 1, 3)),
                                Make(DType::kF32, {1, 200}, test::Uniform(200, -1, 1, 4))},
                               {0, 0});
  test::ExpectMatchesReference("mul",
                               {Make(DType::kF32, {5, 1, 7}, test::Uniform(35, -1, 1, 5)),
                                Make(DType::kF32, {2, 5, 3, 7}, test::Uniform(210, -1, 1, 6))},
                               {0, 0});
}

// i32 add, sub and mul on the vector loops (every reading: full, scalar, repeating
// suffix) wrap around exactly as the reference; the values include both extremes, so
// that each op overflows somewhere.
TEST(ElementwiseFast, Int32WrapsAsTheReference) {
  std::mt19937 rng(12);
  std::uniform_int_distribution<int64_t> dist(std::numeric_limits<int32_t>::min(),
                                              std::numeric_limits<int32_t>::max());
  const auto ints = [&](const Shape& shape) {
    std::vector<double> v(static_cast<size_t>(ElementCount(shape)));
    for (double& x : v) x = static_cast<double>(dist(rng));
    if (!v.empty()) v[0] = std::numeric_limits<int32_t>::max();
    if (v.size() > 1) v[1] = std::numeric_limits<int32_t>::min();
    return Make(DType::kI32, shape, v);
  };
  for (const char* op : {"add", "sub", "mul"}) {
    for (const auto& [sa, sb] : std::vector<std::pair<Shape, Shape>>{
             {{40001}, {40001}}, {{7001}, {}}, {{1}, {7001}}, {{99, 67}, {67}}, {{5}, {3, 5}}}) {
      test::ExpectMatchesReference(op, {ints(sa), ints(sb)}, {0, 0});
    }
  }
}

// pow by one exponent from -4 to 4 or 1/2: the reference's f32 results bit for bit on
// random values and every special value (NaN, +-inf, +-0, negatives, tiny and huge
// values); other exponents, and an exponent tensor, run the reference.
TEST(ElementwiseFast, PowBySmallIntegersAndHalfIsTheReferences) {
  std::vector<double> x = test::Uniform(50000, -30, 30, 5);
  const double inf = std::numeric_limits<double>::infinity();
  const double specials[] = {std::nan(""), inf,    -inf, 0.0,   -0.0,  -1.0,    1.0,
                             1e-30,        -1e-30, 3e38, -3e38, 1e-45, 65504.0, -2.5};
  for (size_t i = 0; i < std::size(specials); ++i) x[i * 97] = specials[i];
  const Tensor base = Make(DType::kF32, {50000}, x);
  for (const double e : {-4.0, -3.0, -2.0, -1.0, 0.0, 1.0, 2.0, 3.0, 4.0, 0.5, 1.5, 7.0, -0.5}) {
    SCOPED_TRACE(::testing::Message() << "exponent " << e);
    test::ExpectMatchesReference("pow", {base, Make(DType::kF32, {}, {e})}, {0, 0});
    test::ExpectMatchesReference("pow", {base, Make(DType::kF32, {1}, {e})}, {0, 0});
  }
  test::ExpectMatchesReference(
      "pow", {base, Make(DType::kF32, {50000}, test::Uniform(50000, -3, 3, 6))}, {0, 0});
}

// The comparisons (f32 with NaN, infinities and signed zeros; i32; i64) and and/or/xor/not
// on bool: the reference's bools exactly, on every shape the fast loops take and one they
// pass back; bool inputs holding bytes other than 0 and 1 count as true.
TEST(ElementwiseFast, ComparisonsAndLogicAreTheReferences) {
  std::mt19937 rng(31);
  std::uniform_int_distribution<int> small(-3, 3);
  const auto values = [&](DType dtype, const Shape& shape) {
    std::vector<double> v(static_cast<size_t>(ElementCount(shape)));
    for (double& x : v) x = small(rng);
    if (dtype == DType::kF32 && v.size() > 6) {
      const double inf = std::numeric_limits<double>::infinity();
      v[0] = std::nan("");
      v[1] = inf;
      v[2] = -inf;
      v[3] = -0.0;
      v[4] = 0.0;
      v[5] = 0.5;
    }
    if (dtype == DType::kI64 && !v.empty()) v[0] = 9007199254740993.0;  // above 2^53
    return Make(dtype, shape, v);
  };
  const std::vector<std::pair<Shape, Shape>> shapes = {
      {{40001}, {40001}}, {{7001}, {}}, {{1}, {7001}}, {{99, 67}, {67}}, {{5, 1}, {3, 5, 7}}};
  for (const char* op : {"equal", "less", "less_equal", "greater", "greater_equal"}) {
    for (const DType dtype : {DType::kF32, DType::kI32, DType::kI64}) {
      for (const auto& [sa, sb] : shapes) {
        SCOPED_TRACE(::testing::Message() << op << " " << DTypeName(dtype));
        test::ExpectMatchesReference(op, {values(dtype, sa), values(dtype, sb)}, {0, 0});
      }
    }
  }
  std::uniform_int_distribution<int> byte(0, 3);  // 2 and 3: true too
  const auto bools = [&](const Shape& shape) {
    Tensor t = *Tensor::Allocate(DType::kBool, shape);
    auto* bytes = reinterpret_cast<uint8_t*>(t.mutable_data());
    for (int64_t i = 0; i < ElementCount(shape); ++i) bytes[i] = static_cast<uint8_t>(byte(rng));
    return t;
  };
  for (const char* op : {"and", "or", "xor"}) {
    for (const auto& [sa, sb] : shapes) {
      SCOPED_TRACE(op);
      test::ExpectMatchesReference(op, {bools(sa), bools(sb)}, {0, 0});
    }
  }
  test::ExpectMatchesReference("not", {bools({40001})}, {0, 0});
  test::ExpectMatchesReference("not", {bools({3, 0})}, {0, 0});
}

TEST(ElementwiseFast, IntegerDivisionByZeroStillReported) {
  Expected<std::vector<Tensor>> out = test::Run(
      FastKernels(), "div", {Make(DType::kI32, {2}, {1, 2}), Make(DType::kI32, {2}, {1, 0})});
  EXPECT_FALSE(out.ok());
}

}  // namespace
}  // namespace sy::cpu
