// The cpu device's fast `sample` (fast/sampling_fast.cpp) against the reference kernel:
// the same token on every row, bit for bit, since docs/ops.md defines every operation.
// Random rows over the vocabularies that matter (up to GPT-2's 50257), logits in wide and
// narrow ranges and with ties, infinite logits, every method and dtype, temperatures small
// enough that the kernel's first floors of p hold too few tokens, top_k above V, top_p near
// and at 1; and the data errors, whose messages must be the reference's, with several rows
// on 1, 2 and 4 threads.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "fast/fast_kernels.h"
#include "fast_test_util.h"
#include "ref/ref_kernels.h"
#include "switchyard/op_schema.h"

namespace sy::cpu::test {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
const double kBelowOne = std::nextafter(1.0, 0.0);

Attrs M(const std::string& method, const std::vector<std::pair<std::string, AttrValue>>& more) {
  Attrs a;
  a.Set("method", AttrValue(method));
  for (const auto& [name, value] : more) a.Set(name, value);
  return a;
}
Attrs TopK(int64_t k, double t = 1.0) {
  return M("top_k", {{"top_k", AttrValue(k)}, {"temperature", AttrValue(t)}});
}
Attrs TopP(double p, double t = 1.0) {
  return M("top_p", {{"top_p", AttrValue(p)}, {"temperature", AttrValue(t)}});
}
Attrs MinP(double p, double t = 1.0) {
  return M("min_p", {{"min_p", AttrValue(p)}, {"temperature", AttrValue(t)}});
}
Attrs Temp(double t) { return M("temperature", {{"temperature", AttrValue(t)}}); }

std::vector<int64_t> Tokens(const Tensor& t) {
  std::vector<int64_t> v;
  for (double x : Values(t)) v.push_back(static_cast<int64_t>(x));
  return v;
}

// Runs both kernels on the same inputs (the fast one inline and on pools of 1, 2 and 4
// threads) and expects the same tokens, or the same error.
void ExpectSame(const std::vector<Tensor>& inputs, const Attrs& attrs, const std::string& what) {
  Expected<std::vector<Tensor>> ref = RunRef("sample", inputs, attrs);
  for (int threads : {0, 1, 2, 4}) {
    SCOPED_TRACE(what + ", threads " + std::to_string(threads));
    Expected<std::vector<Tensor>> fast =
        Run(FastKernels(), "sample", inputs, attrs, 1, threads == 0 ? nullptr : Pool(threads));
    ASSERT_EQ(fast.ok(), ref.ok()) << (ref.ok() ? fast.status() : ref.status()).ToString();
    if (!ref.ok()) {
      EXPECT_EQ(fast.status().code(), ref.status().code());
      EXPECT_EQ(fast.status().message(), ref.status().message());
      continue;
    }
    EXPECT_EQ(Tokens((*fast)[0]), Tokens((*ref)[0]));
  }
}

// How a row's logits are drawn.
enum class Kind {
  kGpt2,     // normal, sd 2.5, a few large spikes: most mass on a few dozen tokens
  kWide,     // uniform in [-40, 40]
  kNarrow,   // uniform in [-1e-3, 1e-3]: nearly flat, every token a candidate
  kTies,     // integers in [-3, 3]: p ties everywhere
  kSpecial,  // gpt2 with -inf (masked) tokens and, on some rows, +inf ones
};

std::vector<double> Logits(Kind kind, int64_t n, int64_t v, std::mt19937& rng) {
  std::vector<double> x(static_cast<size_t>(n * v));
  std::normal_distribution<double> normal(0.0, 2.5);
  std::uniform_real_distribution<double> wide(-40.0, 40.0), narrow(-1e-3, 1e-3);
  std::uniform_int_distribution<int> small(-3, 3);
  std::uniform_int_distribution<int64_t> at(0, v - 1);
  for (double& e : x) {
    switch (kind) {
      case Kind::kWide:
        e = wide(rng);
        break;
      case Kind::kNarrow:
        e = narrow(rng);
        break;
      case Kind::kTies:
        e = small(rng);
        break;
      default:
        e = normal(rng);
        break;
    }
  }
  for (int64_t r = 0; r < n; ++r) {
    double* row = x.data() + r * v;
    if (kind == Kind::kGpt2 || kind == Kind::kSpecial) {
      for (int s = 0; s < 5; ++s) row[at(rng)] = 12.0 + s;
    }
    if (kind == Kind::kSpecial) {
      for (int64_t s = 0; s < v / 3; ++s) row[at(rng)] = -kInf;
      if (r % 2 == 1) {
        row[at(rng)] = kInf;
        row[at(rng)] = kInf;
      }
    }
  }
  return x;
}

std::vector<double> Uniforms(int64_t n, std::mt19937& rng) {
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::vector<double> v(static_cast<size_t>(n));
  for (double& e : v) e = u(rng);
  if (n > 1) v[0] = 0.0;
  if (n > 2) v[1] = kBelowOne;
  return v;
}

void CompareRandom(Kind kind, DType dtype, int64_t n, int64_t v, const std::vector<Attrs>& methods,
                   uint32_t seed) {
  std::mt19937 rng(seed);
  const Tensor logits = Make(dtype, {n, v}, Logits(kind, n, v, rng));
  for (const Attrs& attrs : methods) {
    const Tensor u = Make(DType::kF64, {n}, Uniforms(n, rng));
    ExpectSame({logits, u}, attrs,
               "kind " + std::to_string(static_cast<int>(kind)) + " " +
                   std::string(DTypeName(dtype)) + " V " + std::to_string(v) + " " +
                   attrs.GetString("method"));
  }
}

std::vector<Attrs> EveryMethod(int64_t v) {
  return {M("greedy", {}),
          Temp(1.0),
          Temp(0.3),
          TopK(1),
          TopK(40),
          TopK(600),
          TopK(v - 1 > 0 ? v - 1 : 1),
          TopK(v),
          TopK(v + 7),
          TopK(40, 0.05),
          TopP(0.9),
          TopP(0.1),
          TopP(kBelowOne),
          TopP(1.0),
          TopP(0.9, 0.02),
          TopP(0.999999),
          MinP(0.05),
          MinP(0.0),
          MinP(1.0),
          MinP(1e-310),
          MinP(1e-12, 0.1),
          TopP(0.95, 40.0),
          TopK(40, 40.0)};
}

TEST(SamplingFast, MatchesTheReferenceOnSmallVocabularies) {
  uint32_t seed = 1;
  for (int64_t v : {1, 2, 3, 7, 64, 1000}) {
    for (Kind kind : {Kind::kGpt2, Kind::kWide, Kind::kNarrow, Kind::kTies, Kind::kSpecial}) {
      CompareRandom(kind, DType::kF32, 9, v, EveryMethod(v), seed++);
    }
  }
}

TEST(SamplingFast, MatchesTheReferenceAtGpt2Vocabulary) {
  // Few rows each (the reference sorts every token: ~5 ms a row for top_k and top_p).
  const int64_t v = 50257;
  const std::vector<Attrs> methods = {M("greedy", {}),     Temp(1.0),       TopK(40),
                                      TopK(40, 0.02),      TopK(600, 0.2),  TopK(v + 1),
                                      TopP(0.9),           TopP(0.9, 0.01), TopP(1.0),
                                      TopP(0.999999, 3.0), MinP(0.05),      MinP(0.02, 0.2)};
  uint32_t seed = 100;
  for (Kind kind : {Kind::kGpt2, Kind::kWide, Kind::kNarrow, Kind::kTies, Kind::kSpecial}) {
    CompareRandom(kind, DType::kF32, 3, v, methods, seed++);
  }
}

TEST(SamplingFast, MatchesTheReferenceOnEveryDType) {
  uint32_t seed = 200;
  for (DType d : {DType::kF16, DType::kBF16, DType::kF64}) {
    for (Kind kind : {Kind::kGpt2, Kind::kTies, Kind::kSpecial}) {
      CompareRandom(kind, d, 5, 3001, EveryMethod(3001), seed++);
    }
  }
  // f32 uniform numbers, read as the reference reads them.
  std::mt19937 rng(7);
  const Tensor logits = Make(DType::kF32, {4, 500}, Logits(Kind::kGpt2, 4, 500, rng));
  const Tensor u = Make(DType::kF32, {4}, {0.0, 0.25, 0.5, std::nextafter(1.0f, 0.0f)});
  for (const Attrs& a : EveryMethod(500)) ExpectSame({logits, u}, a, "f32 uniform");
}

// Rows whose tokens above the first floor (2^-10) are too few or carry too little mass:
// the kernel must lower the floor, as the OpenCL and CUDA tests check theirs.
TEST(SamplingFast, RowsThatNeedTheLowerFloors) {
  // 999 logits at -7.5 beside one at 0: p = 5.5e-4 < 2^-10 for all but one, which holds
  // 1 / 1.55 of the mass.
  std::vector<double> x(1000, -7.5);
  x[417] = 0.0;
  const Tensor logits = Make(DType::kF32, {1, 1000}, x);
  for (double u : {0.0, 0.3, 0.7, 0.95, kBelowOne}) {
    const Tensor ut = Make(DType::kF64, {1}, {u});
    for (const Attrs& a : {TopK(600), TopK(2), TopP(0.9), TopP(0.5), TopP(1.0), MinP(1e-4)}) {
      ExpectSame({logits, ut}, a, "-7.5 row");
    }
  }
  // Levels 2^-20, 2^-40 and 0 each: the second token sits just below each floor.
  for (double d : {-6.95, -13.9, -27.8, -40.0, -800.0}) {
    std::vector<double> y(300, d);
    y[0] = 0.0;
    const Tensor l = Make(DType::kF64, {1, 300}, y);
    for (double u : {0.0, 0.5, kBelowOne}) {
      const Tensor ut = Make(DType::kF64, {1}, {u});
      for (const Attrs& a : {TopK(5), TopK(299), TopP(0.99), TopP(1.0)}) {
        ExpectSame({l, ut}, a, "floor row at " + std::to_string(d));
      }
    }
  }
  // GPT-2-like rows at small temperatures: a handful of tokens above 2^-10.
  uint32_t seed = 300;
  for (double t : {0.05, 0.01, 0.003, 0.0005}) {
    std::mt19937 rng(seed++);
    const Tensor l = Make(DType::kF32, {6, 5000}, Logits(Kind::kGpt2, 6, 5000, rng));
    const Tensor u = Make(DType::kF64, {6}, Uniforms(6, rng));
    for (const Attrs& a : {TopK(40, t), TopK(600, t), TopP(0.9, t), TopP(0.999999, t), TopP(1.0, t),
                           MinP(1e-9, t)}) {
      ExpectSame({l, u}, a, "temperature " + std::to_string(t));
    }
  }
}

TEST(SamplingFast, TiesAndBoundaries) {
  // Four equal logits: a uniform number on a boundary picks the later token.
  const Tensor equal = Make(DType::kF32, {4, 4}, std::vector<double>(16, 0.5));
  const Tensor u = Make(DType::kF64, {4}, {0.25, 0.5, 0.75, std::nextafter(0.25, 0.0)});
  for (const Attrs& a : {Temp(1.0), TopK(2), TopK(3), TopP(0.5), TopP(0.51), MinP(1.0)}) {
    ExpectSame({equal, u}, a, "equal logits");
  }
  // Greedy: the first of tied maxima; +inf the largest; a row all -inf gives 0; -0 == +0.
  const Tensor g =
      Make(DType::kF32, {4, 3}, {1, 3, 3, -kInf, kInf, kInf, -kInf, -kInf, -kInf, -0.0, 0.0, -1});
  for (DType d : {DType::kF32, DType::kF16, DType::kBF16, DType::kF64}) {
    ExpectSame({Make(d, {4, 3}, Values(g))}, M("greedy", {}), "greedy ties");
  }
  // f16 makes 1000.3 and 1000.4 one value: greedy must not see them as different.
  ExpectSame({Make(DType::kF16, {1, 2}, {1000.3, 1000.4})}, M("greedy", {}), "f16 tie");
  // +inf logits share the mass; -inf ones are never picked.
  const Tensor inf = Make(DType::kF32, {3, 4},
                          {kInf, 0, kInf, -kInf, 0, -kInf, 0, -kInf, -kInf, -kInf, -kInf, -kInf});
  const Tensor u3 = Make(DType::kF64, {3}, {0.5, 0.5, 0.5});
  for (const Attrs& a : {Temp(1.0), TopK(1), TopK(2), TopP(0.5), TopP(1.0), MinP(0.5)}) {
    ExpectSame({inf, u3}, a, "infinite logits");
  }
  // A quotient that overflows to +inf at a small temperature.
  const Tensor big = Make(DType::kF64, {1, 3}, {1e300, 2e300, -1e300});
  for (const Attrs& a : {Temp(1e-10), TopK(2, 1e-10), TopP(0.9, 1e-10), MinP(0.5, 1e-10)}) {
    ExpectSame({big, Make(DType::kF64, {1}, {0.7})}, a, "overflowing quotient");
  }
}

TEST(SamplingFast, DataErrorsAreTheReferences) {
  std::mt19937 rng(11);
  std::vector<double> x = Logits(Kind::kGpt2, 6, 700, rng);
  const std::vector<double> good = {0.1, 0.2, 0.3, 0.4, 0.5, 0.6};
  auto with = [](std::vector<double> v, size_t at, double value) {
    v[at] = value;
    return v;
  };
  std::vector<double> nan_row4 = x;
  nan_row4[4 * 700 + 123] = kNaN;
  nan_row4[4 * 700 + 500] = kNaN;
  nan_row4[5 * 700 + 3] = kNaN;
  for (DType d : {DType::kF32, DType::kF16, DType::kBF16, DType::kF64}) {
    const Tensor clean = Make(d, {6, 700}, x), nan = Make(d, {6, 700}, nan_row4);
    for (const Attrs& a : {M("greedy", {}), Temp(1.0), TopK(40), TopP(0.9), MinP(0.05)}) {
      const std::string m = a.GetString("method") + " " + std::string(DTypeName(d));
      // A NaN in row 4 (the first of two), and another in row 5.
      ExpectSame({nan, Make(DType::kF64, {6}, good)}, a, "NaN, " + m);
      // A bad uniform number in row 2 comes first; in row 4 the NaN wins over one.
      ExpectSame({nan, Make(DType::kF64, {6}, with(good, 2, 1.0))}, a, "u 1, " + m);
      ExpectSame({nan, Make(DType::kF64, {6}, with(good, 4, -0.5))}, a, "u at the NaN, " + m);
      for (double bad : {kNaN, kInf, -kInf, 1.0000000000000002, -0.0 - 1e-300}) {
        ExpectSame({clean, Make(DType::kF64, {6}, with(good, 3, bad))}, a, "bad u, " + m);
      }
      ExpectSame({clean, Make(DType::kF32, {6}, with(good, 5, 1.0))}, a, "f32 u 1, " + m);
    }
  }
  // Greedy reads no uniform number, even an invalid one.
  ExpectSame({Make(DType::kF32, {1, 3}, {0, 1, 0}), Make(DType::kF64, {1}, {5.0})}, M("greedy", {}),
             "greedy ignores u");
  // No rows at all.
  ExpectSame({Make(DType::kF32, {0, 5}, {}), Make(DType::kF64, {0}, {})}, TopP(0.9), "N = 0");
}

// The cpu device runs this kernel, registered under the catalogue's family for it.
TEST(SamplingFast, IsTheCpuDevicesKernel) {
  const KernelTable::Entry* e = FastKernels().FindEntry("sample");
  ASSERT_NE(e, nullptr);
  EXPECT_NE(e->fn, RefKernels().Find("sample"));
  const OpSchema* schema = OpRegistry::Global().Find("sample");
  ASSERT_NE(schema, nullptr);
  EXPECT_EQ(e->family, schema->family);
}

}  // namespace
}  // namespace sy::cpu::test
