// The fused attention kernel (fast/attention_fast.cpp) against the reference kernel and
// hand-derived results: S != T, Dv != D, grouped-query heads, every broadcast form of the
// mask (f32 and bool) read in place, is_causal, -inf and large finite masks, fully masked
// rows (zeros), sequences longer than one key block (T = 1000) and than one query block,
// scores that grow from block to block (the running maximum rescales), with no pool and
// with 1, 2 and 4 threads (bit-identical), with the block products on oneDNN, OpenBLAS and
// the portable loops. The inputs the kernel passes to the reference
// (NaN or infinities, other dtypes) give the reference's result exactly.
#include <cmath>
#include <filesystem>
#include <limits>
#include <string>
#include <vector>

#if SY_CPU_HAS_ONEDNN
#include <omp.h>
#endif

#include "fast_test_util.h"

namespace sy::cpu::test {
namespace {

using sy::test::MakeAttrs;

constexpr double kInf = std::numeric_limits<double>::infinity();

// q [b, hq, s, d], k [b, hkv, t, d], v [b, hkv, t, dv], uniform in [-1, 1] times `range`.
std::vector<Tensor> Qkv(int64_t b, int64_t hq, int64_t hkv, int64_t s, int64_t t, int64_t d,
                        int64_t dv, uint32_t seed, double range = 1.0) {
  auto make = [&](Shape shape, uint32_t offset) {
    const auto n = static_cast<size_t>(ElementCount(shape));
    return Make(DType::kF32, shape, Uniform(n, -range, range, seed * 7 + offset));
  };
  return {make({b, hq, s, d}, 1), make({b, hkv, t, d}, 2), make({b, hkv, t, dv}, 3)};
}

// The fused kernel (through FastKernels()) on `pool`; a free function, since inside a
// TEST body the name Run means testing::Test::Run.
Expected<std::vector<Tensor>> RunFast(const std::vector<Tensor>& inputs, const Attrs& attrs = {},
                                      ThreadPool* pool = nullptr) {
  return Run(FastKernels(), "attention", inputs, attrs, 1, pool);
}

// Whether the fused kernel computes the case itself (else these tests would only compare
// the reference with itself).
bool FusedTakes(const std::vector<Tensor>& inputs, const Attrs& attrs) {
  std::vector<ConstTensorView> in;
  for (const Tensor& x : inputs) in.push_back({x.type(), x.data()});
  const Shape& q = inputs[0].type().shape;
  Tensor y = *Tensor::Allocate(DType::kF32, {q[0], q[1], q[2], inputs[2].type().shape[3]});
  const std::vector<TensorView> out = {{y.type(), y.mutable_data()}};
  return AttentionFastTakes(KernelContext{"attention", in, out, attrs});
}

// The conformance suite's bound for attention in f32 (tools/switchyard/conformance/
// tolerance.cpp, tier kSum): per element 1e-4 + 1e-4 |ref|, and 1e-5 on the relative L2
// norm of the error.
void ExpectWithinConformance(const Tensor& fast, const Tensor& ref, const std::string& what) {
  ExpectClose(fast, ref, {1e-4, 1e-4}, what);
  const std::vector<double> a = Values(fast), b = Values(ref);
  double err = 0, norm = 0;
  for (size_t i = 0; i < a.size() && i < b.size(); ++i) {
    err += (a[i] - b[i]) * (a[i] - b[i]);
    norm += b[i] * b[i];
  }
  if (norm > 0) {
    EXPECT_LE(std::sqrt(err / norm), 1e-5) << what << ": relative L2 error";
  }
}

// Runs the fused kernel inline and with 1, 2 and 4 threads against the reference, with
// each way of computing its block products (oneDNN, OpenBLAS and the portable loops).
void ExpectAttentionMatches(const std::vector<Tensor>& inputs, const Attrs& attrs,
                            const std::string& what) {
  EXPECT_TRUE(FusedTakes(inputs, attrs)) << what << ": passed to the reference";
  Expected<std::vector<Tensor>> ref = RunRef("attention", inputs, attrs);
  SY_ASSERT_OK(ref);
  // Back to the kernel's own choice however this function is left (a failed ASSERT too).
  struct RestoreChoice {
    ~RestoreChoice() { SetAttentionProducts(AttentionProducts::kAuto); }
  } restore;
  for (const AttentionProducts products :
       {AttentionProducts::kLoops, AttentionProducts::kBlas, AttentionProducts::kOneDnn}) {
    SetAttentionProducts(products);
    const std::string how = what + (products == AttentionProducts::kBlas     ? " (blas)"
                                    : products == AttentionProducts::kOneDnn ? " (onednn)"
                                                                             : " (loops)");
    Expected<std::vector<Tensor>> inline_run = RunFast(inputs, attrs);
    SY_ASSERT_OK(inline_run);
    ExpectWithinConformance((*inline_run)[0], (*ref)[0], how);
    for (int threads : {1, 2, 4}) {
      Expected<std::vector<Tensor>> fast = RunFast(inputs, attrs, Pool(threads));
      SY_ASSERT_OK(fast);
      EXPECT_TRUE(SameValues((*fast)[0], (*inline_run)[0]))
          << how << ": " << threads << " threads changed the result";
    }
  }
}

Attrs Causal() { return MakeAttrs({{"is_causal", int64_t{1}}}); }

TEST(AttentionFast, HandDerived) {
  // Scores q.k with scale 1: row 0 [1, 0], row 1 [0, 1]; softmax weights e / (1 + e) on
  // the larger one. Causal: row 0 sees key 0 only.
  const double e = std::exp(1.0);
  const Tensor q = Make(DType::kF32, {1, 1, 2, 2}, {1, 0, 0, 1});
  const Tensor k = Make(DType::kF32, {1, 1, 2, 2}, {1, 0, 0, 1});
  const Tensor v = Make(DType::kF32, {1, 1, 2, 2}, {1, 2, 3, 4});
  const Attrs scale1 = MakeAttrs({{"scale", 1.0}});
  Expected<std::vector<Tensor>> y = RunFast({q, k, v}, scale1);
  SY_ASSERT_OK(y);
  const std::vector<double> want = {(e + 3) / (1 + e), (2 * e + 4) / (1 + e), (1 + 3 * e) / (1 + e),
                                    (2 + 4 * e) / (1 + e)};
  ExpectClose((*y)[0], Make(DType::kF64, {1, 1, 2, 2}, want), {3e-7, 0}, "hand-derived");
  const Attrs causal = MakeAttrs({{"scale", 1.0}, {"is_causal", int64_t{1}}});
  y = RunFast({q, k, v}, causal);
  SY_ASSERT_OK(y);
  ExpectClose((*y)[0], Make(DType::kF64, {1, 1, 2, 2}, {1, 2, want[2], want[3]}), {3e-7, 0},
              "hand-derived, causal");
  // The default scale is 1 / sqrt(D) = 1 / sqrt(2); a bool mask hiding key 1 from row 0.
  const Tensor mask = Make(DType::kBool, {2, 2}, {1, 0, 1, 1});
  y = RunFast({q, k, v, mask});
  SY_ASSERT_OK(y);
  const double w = std::exp(1 / std::sqrt(2.0));
  ExpectClose((*y)[0],
              Make(DType::kF64, {1, 1, 2, 2}, {1, 2, (1 + 3 * w) / (1 + w), (2 + 4 * w) / (1 + w)}),
              {3e-7, 0}, "hand-derived, bool mask");
}

TEST(AttentionFast, ShapesAndHeads) {
  struct Case {
    int64_t b, hq, hkv, s, t, d, dv;
  };
  // S != T both ways, Dv != D, odd sizes (no whole tiles), grouped-query heads (Hq / Hkv
  // = 3 and 6), one query row, one key.
  const Case cases[] = {{2, 3, 3, 5, 7, 8, 6},     {1, 6, 2, 9, 4, 16, 33},
                        {2, 6, 1, 3, 11, 5, 1},    {1, 2, 2, 1, 40, 64, 64},
                        {1, 1, 1, 17, 1, 3, 7},    {3, 4, 2, 70, 66, 32, 32},
                        {1, 2, 1, 130, 129, 7, 20}};
  for (const Case& c : cases) {
    const std::vector<Tensor> in = Qkv(c.b, c.hq, c.hkv, c.s, c.t, c.d, c.dv, 1);
    const std::string what = "q " + in[0].type().ToString() + " k " + in[1].type().ToString() +
                             " v " + in[2].type().ToString();
    ExpectAttentionMatches(in, {}, what);
    ExpectAttentionMatches(in, Causal(), what + " causal");
    ExpectAttentionMatches(in, MakeAttrs({{"scale", -0.7}}), what + " scale -0.7");
  }
}

TEST(AttentionFast, MaskBroadcastForms) {
  const int64_t b = 2, h = 3, s = 5, t = 7;
  const std::vector<Tensor> qkv = Qkv(b, h, h, s, t, 8, 6, 2);
  const Shape shapes[] = {{b, h, s, t},
                          {1, h, s, t},
                          {b, 1, s, t},
                          {b, h, 1, t},
                          {b, 1, 1, t},
                          {1, 1, s, t},
                          {s, t},
                          {t},
                          {1, 1, 1, t},
                          {b, h, s, 1},
                          {s, 1},
                          {1},
                          {}};
  for (const Shape& shape : shapes) {
    const auto n = static_cast<size_t>(ElementCount(shape));
    // f32: values in [-3, 3] with some -inf; bool: about 70% true.
    std::vector<double> additive = Uniform(n, -3, 3, static_cast<uint32_t>(n));
    for (size_t i = 3; i < n; i += 5) additive[i] = -kInf;
    std::vector<double> keep = Uniform(n, 0, 1, static_cast<uint32_t>(n) + 1);
    for (double& x : keep) x = x < 0.7 ? 1 : 0;
    for (const bool causal : {false, true}) {
      const Attrs attrs = causal ? Causal() : Attrs{};
      const std::string what = "mask " + ShapeToString(shape) + (causal ? " causal" : "");
      std::vector<Tensor> in = qkv;
      in.push_back(Make(DType::kF32, shape, additive));
      ExpectAttentionMatches(in, attrs, what + " f32");
      in.back() = Make(DType::kBool, shape, keep);
      ExpectAttentionMatches(in, attrs, what + " bool");
    }
  }
}

// Rows whose every key is masked (a bool false, -inf, or the causal future together with
// either) give exact zeros; so do rows when T = 0.
TEST(AttentionFast, FullyMaskedRowsAreZero) {
  const int64_t s = 4, t = 6, dv = 5;
  const std::vector<Tensor> qkv = Qkv(1, 2, 1, s, t, 8, dv, 3);
  // Row 1 all -inf; row 2 only key 0 open (and causal row 0 sees just key 0, so with key 0
  // masked in row 0 that row is fully masked too).
  std::vector<double> additive(s * t, 0.5);
  for (int64_t j = 0; j < t; ++j) additive[1 * t + j] = -kInf;
  for (int64_t j = 1; j < t; ++j) additive[2 * t + j] = -kInf;
  additive[0] = -kInf;
  std::vector<double> keep(s * t, 1);
  for (int64_t j = 0; j < t; ++j) keep[1 * t + j] = 0;
  keep[0] = 0;
  for (const bool causal : {false, true}) {
    const Attrs attrs = causal ? Causal() : Attrs{};
    for (const Tensor& mask :
         {Make(DType::kF32, {s, t}, additive), Make(DType::kBool, {s, t}, keep)}) {
      std::vector<Tensor> in = qkv;
      in.push_back(mask);
      const std::string what =
          std::string(DTypeName(mask.type().dtype)) + (causal ? " causal" : "");
      ExpectAttentionMatches(in, attrs, what);
      Expected<std::vector<Tensor>> y = RunFast(in, attrs, Pool(2));
      SY_ASSERT_OK(y);
      const std::vector<double> out = Values((*y)[0]);
      for (int64_t head = 0; head < 2; ++head) {
        for (int64_t e = 0; e < dv; ++e) {
          EXPECT_EQ(out[(head * s + 1) * dv + e], 0.0) << what << " row 1";
          if (causal) {
            EXPECT_EQ(out[(head * s + 0) * dv + e], 0.0) << what << " causal row 0";
          }
        }
      }
    }
  }
  // No keys at all: every row is zeros.
  const std::vector<Tensor> empty = Qkv(1, 1, 1, 3, 0, 4, 2, 4);
  ExpectAttentionMatches(empty, {}, "T = 0");
}

// Large finite masks: -1e4 on every key of some rows (the softmax of those rows is that of
// the plain scores, which an f32 sum score + bias would round away), finfo(f32).min as
// Hugging Face models use it, and -1e30 next to open keys.
TEST(AttentionFast, LargeFiniteMasks) {
  const int64_t s = 6, t = 40;
  const std::vector<Tensor> qkv = Qkv(2, 2, 2, s, t, 16, 8, 5, 2.0);
  const double lowest = std::numeric_limits<float>::lowest();
  std::vector<double> mask(2 * s * t, 0.0);
  for (int64_t j = 0; j < t; ++j) {
    mask[0 * t + j] = -1e4;                 // batch 0 row 0: every key -1e4
    mask[1 * t + j] = j < 30 ? lowest : 0;  // row 1: padding as finfo.min
    mask[2 * t + j] = j % 3 == 0 ? -1e30 : -1e4 + j;
    mask[(s + 3) * t + j] = lowest;  // batch 1 row 3: all finfo.min
  }
  std::vector<Tensor> in = qkv;
  in.push_back(Make(DType::kF32, {2, 1, s, t}, mask));
  ExpectAttentionMatches(in, {}, "large finite mask");
  ExpectAttentionMatches(in, Causal(), "large finite mask, causal");
}

// T = 1000 (eight key blocks), S over one query block, causal, masks; and keys whose
// scores grow (or shrink) along T, so that later key blocks raise the running maximum
// and the accumulated rows are rescaled.
TEST(AttentionFast, LongSequences) {
  std::vector<Tensor> in = Qkv(1, 4, 2, 70, 1000, 64, 40, 6);
  ExpectAttentionMatches(in, {}, "T = 1000");
  ExpectAttentionMatches(in, Causal(), "T = 1000 causal");
  std::vector<double> pad = Uniform(1000, 0, 1, 7);
  for (double& x : pad) x = x < 0.2 ? 0 : 1;
  in.push_back(Make(DType::kBool, {1, 1, 1, 1000}, pad));
  ExpectAttentionMatches(in, Causal(), "T = 1000 bool padding mask, causal");

  const std::vector<Tensor> square = Qkv(1, 2, 2, 300, 300, 32, 32, 8);
  ExpectAttentionMatches(square, Causal(), "S = T = 300 causal");
  ExpectAttentionMatches(Qkv(1, 3, 1, 1, 1000, 64, 64, 9), {}, "one query row, T = 1000");

  // A jump: keys from 500 on score 240 against 0.8 before, so the earlier blocks' weights
  // drop to e^-239 = 0 (in f32) when the maximum moves.
  {
    std::vector<Tensor> jump = Qkv(1, 1, 1, 3, 1000, 8, 4, 11);
    jump[0] = Make(DType::kF32, {1, 1, 3, 8}, std::vector<double>(24, 1.0));
    std::vector<double> k(8000, 0.1);
    for (size_t i = 4000; i < k.size(); ++i) k[i] = 30.0;
    jump[1] = Make(DType::kF32, {1, 1, 1000, 8}, k);
    ExpectAttentionMatches(jump, MakeAttrs({{"scale", 1.0}}), "score jump");
  }
  for (const bool growing : {true, false}) {
    std::vector<Tensor> ramp = Qkv(1, 2, 2, 20, 1000, 32, 16, 10);
    const std::vector<double> base = Values(ramp[1]);
    std::vector<double> k(base.size());
    for (size_t i = 0; i < k.size(); ++i) {
      const double j = static_cast<double>((i / 32) % 1000) / 1000.0;
      k[i] = base[i] * 8.0 * (growing ? j : 1.0 - j);
    }
    ramp[1] = Make(DType::kF32, {1, 2, 1000, 32}, k);
    ExpectAttentionMatches(ramp, MakeAttrs({{"scale", 1.0}}), growing ? "growing" : "shrinking");
  }
}

// Inputs the kernel leaves to the reference: NaN or infinities in q, k or v, NaN or +inf
// in the mask (they poison whole rows, causal future included), other dtypes, D = 0.
// The result is then the reference's, bit for bit.
TEST(AttentionFast, OtherCasesUseTheReference) {
  const double nan = std::nan("");
  auto expect_reference = [](const std::vector<Tensor>& in, const Attrs& attrs,
                             const std::string& what) {
    EXPECT_FALSE(FusedTakes(in, attrs)) << what;
    Expected<std::vector<Tensor>> ref = RunRef("attention", in, attrs);
    Expected<std::vector<Tensor>> fast = RunFast(in, attrs, Pool(2));
    SY_ASSERT_OK(ref);
    SY_ASSERT_OK(fast);
    EXPECT_TRUE(SameValues((*fast)[0], (*ref)[0])) << what;
  };
  const std::vector<Tensor> qkv = Qkv(1, 2, 2, 3, 5, 4, 4, 11);
  for (int which = 0; which < 3; ++which) {
    for (const double bad : {nan, kInf, -kInf}) {
      std::vector<Tensor> in = qkv;
      std::vector<double> values = Values(in[which]);
      values[values.size() / 2 + 1] = bad;  // head 1, key 0 (row 1 of q): read by row 1 on
      in[which] = Make(DType::kF32, in[which].type().shape, values);
      expect_reference(in, Causal(), "input " + std::to_string(which) + " " + std::to_string(bad));
    }
  }
  for (const double bad : {nan, kInf}) {
    std::vector<Tensor> in = qkv;
    std::vector<double> mask(15, 0.0);
    mask[14] = bad;
    in.push_back(Make(DType::kF32, {3, 5}, mask));
    expect_reference(in, Causal(), "mask " + std::to_string(bad));
  }
  // Scores beyond f32's range.
  std::vector<Tensor> huge = qkv;
  huge[0] = Make(DType::kF32, {1, 2, 3, 4}, std::vector<double>(24, 1e20));
  huge[1] = Make(DType::kF32, {1, 2, 5, 4}, std::vector<double>(40, -1e20));
  expect_reference(huge, {}, "huge scores");
  for (const DType dt : {DType::kF16, DType::kBF16, DType::kF64}) {
    std::vector<Tensor> in;
    for (const Tensor& x : qkv) in.push_back(Make(dt, x.type().shape, Values(x)));
    expect_reference(in, {}, std::string(DTypeName(dt)));
  }
  expect_reference(Qkv(1, 1, 1, 2, 3, 0, 2, 12), {}, "D = 0");
}

// Keys a row excludes (plugins/common/attention_mask.h) are never read: NaN and infinities
// there (a decoder's cache past its length; the causal future beyond the last query) leave
// the kernel computing the case itself, and the result is that of the keys it reads.
// Exporters' finfo(f32).min fill beside open keys excludes; a row of nothing but fill does
// not (every key weighs the same, as the reference's double sum gives).
TEST(AttentionFast, ExcludedKeysAreNotRead) {
  const int64_t s = 2, t = 12, open = 5;
  const double lowest = std::numeric_limits<float>::lowest();
  const std::vector<Tensor> qkv = Qkv(1, 2, 1, s, t, 8, 4, 21);
  std::vector<Tensor> poisoned = qkv;
  for (int which : {1, 2}) {  // k and v past the open keys: NaN, +inf, -inf
    std::vector<double> values = Values(poisoned[which]);
    const int64_t width = poisoned[which].type().shape[3];
    for (int64_t j = open; j < t; ++j) {
      for (int64_t e = 0; e < width; ++e)
        values[j * width + e] = j % 3 == 0 ? std::nan("") : (j % 3 == 1 ? kInf : -kInf);
    }
    poisoned[which] = Make(DType::kF32, poisoned[which].type().shape, values);
  }
  // The same case with the excluded keys cut off: what the result must be.
  std::vector<Tensor> cut;
  cut.push_back(qkv[0]);
  for (int which : {1, 2}) {
    const int64_t width = qkv[which].type().shape[3];
    std::vector<double> values = Values(qkv[which]);
    values.resize(open * width);
    cut.push_back(Make(DType::kF32, {1, 1, open, width}, values));
  }
  for (const double fill : {-kInf, lowest, -1e30}) {
    std::vector<double> mask(s * t, 0.0);
    for (int64_t i = 0; i < s; ++i) {
      for (int64_t j = open; j < t; ++j) mask[i * t + j] = fill;
    }
    std::vector<Tensor> in = poisoned;
    in.push_back(Make(DType::kF32, {1, 1, s, t}, mask));
    const std::string what = "fill " + std::to_string(fill);
    ExpectAttentionMatches(in, {}, what);
    std::vector<Tensor> want_in = cut;
    want_in.push_back(Make(DType::kF32, {1, 1, s, open}, std::vector<double>(s * open, 0.0)));
    const Tensor want = RunRef1("attention", want_in);
    Expected<std::vector<Tensor>> got = RunFast(in, {}, Pool(2));
    SY_ASSERT_OK(got);
    ExpectWithinConformance((*got)[0], want, what + " against the keys it reads");
  }
  // A bool mask, the same.
  std::vector<double> keep(s * t, 1.0);
  for (int64_t i = 0; i < s; ++i) {
    for (int64_t j = open; j < t; ++j) keep[i * t + j] = 0;
  }
  std::vector<Tensor> in = poisoned;
  in.push_back(Make(DType::kBool, {s, t}, keep));
  ExpectAttentionMatches(in, {}, "bool mask");
  // is_causal with fewer queries than keys: keys past the last query are never read.
  ExpectAttentionMatches({qkv[0], poisoned[1], poisoned[2]}, Causal(), "causal");
  // A row of nothing but finfo.min fill: no key excluded, all weigh the same.
  std::vector<double> all_fill(s * t, lowest);
  std::vector<Tensor> uniform = qkv;
  uniform.push_back(Make(DType::kF32, {1, 1, s, t}, all_fill));
  ExpectAttentionMatches(uniform, {}, "all fill");
  const std::vector<double> out = Values(RunRef1("attention", uniform)), v = Values(qkv[2]);
  for (int64_t e = 0; e < 4; ++e) {
    double mean = 0;
    for (int64_t j = 0; j < t; ++j) mean += v[j * 4 + e] / t;
    EXPECT_NEAR(out[e], mean, 1e-7) << "row 0, column " << e;  // f32 output
  }
}

#if SY_CPU_HAS_ONEDNN
// With its block products on oneDNN, the kernel run inline (a one-thread context) starts
// no OpenMP team, whatever count the host left on its thread (a team's idle threads would
// spin and double a one-thread run's CPU time), and gives the host its count back. The
// products are large enough (64 x 256 x 64) for oneDNN to split them if it were let.
// (ctest runs each test in its own process, so no earlier test has started a team.)
TEST(AttentionFast, OneDnnProductsStartNoOpenMpTeam) {
  struct RestoreChoice {
    ~RestoreChoice() { SetAttentionProducts(AttentionProducts::kAuto); }
  } restore;
  SetAttentionProducts(AttentionProducts::kOneDnn);
  auto threads_of_this_process = [] {
    int count = 0;
    for ([[maybe_unused]] const auto& entry :
         std::filesystem::directory_iterator("/proc/self/task")) {
      ++count;
    }
    return count;
  };
  omp_set_num_threads(4);
  const int threads_before = threads_of_this_process();
  const std::vector<Tensor> in = Qkv(1, 2, 2, 256, 256, 64, 64, 29);
  ASSERT_TRUE(FusedTakes(in, {}));
  Expected<std::vector<Tensor>> ref = RunRef("attention", in, {});
  SY_ASSERT_OK(ref);
  Expected<std::vector<Tensor>> y = RunFast(in);
  SY_ASSERT_OK(y);
  ExpectWithinConformance((*y)[0], (*ref)[0], "oneDNN products, inline");
  EXPECT_EQ(threads_of_this_process(), threads_before) << "an OpenMP team was started";
  EXPECT_EQ(omp_get_max_threads(), 4) << "the host's OpenMP thread count was not given back";
}
#endif

}  // namespace
}  // namespace sy::cpu::test
