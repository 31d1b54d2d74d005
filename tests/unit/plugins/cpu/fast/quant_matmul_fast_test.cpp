// The fast quant_matmul kernel (fast/quant_matmul_fast.cpp) against the reference kernel
// on seeded random weights: both paths (few rows fused, more rows on dequantized tiles),
// 4 and 8 bits, block sizes 16 to 256, K filling its last block or not, with and without
// zero points, batch dims, and the reference fallback for f64. At accuracy_level 4 the
// kernel quantizes a to int8 per block, whatever the rows,: checked on every instruction set this
// CPU has against a float64 evaluation of that arithmetic written here, and against the exact
// product within the bound docs/ops.md states.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "fast_test_util.h"

namespace sy::cpu::test {
namespace {

struct Case {
  int64_t rows, k, n, bits, block_size;
  bool zero_points;
};

std::vector<Tensor> RandomInputs(const Case& c, DType dtype, uint32_t seed) {
  const int64_t n_blocks = (c.k + c.block_size - 1) / c.block_size;
  const int64_t block_bytes = c.block_size * c.bits / 8;
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> byte(0, 255);
  std::vector<double> codes(static_cast<size_t>(c.n * n_blocks * block_bytes));
  for (double& v : codes) v = byte(rng);
  std::vector<Tensor> inputs = {
      Make(dtype, {c.rows, c.k}, Uniform(static_cast<size_t>(c.rows * c.k), -1, 1, seed + 1)),
      Make(DType::kU8, {c.n, n_blocks, block_bytes}, codes),
      Make(dtype, {c.n, n_blocks},
           Uniform(static_cast<size_t>(c.n * n_blocks), -0.05, 0.05, seed + 2))};
  if (c.zero_points) {
    std::uniform_int_distribution<int> zero(0, (1 << c.bits) - 1);
    std::vector<double> zeros(static_cast<size_t>(c.n * n_blocks));
    for (double& v : zeros) v = zero(rng);
    inputs.push_back(Make(DType::kU8, {c.n, n_blocks}, zeros));
  }
  return inputs;
}

Attrs QuantAttrs(const Case& c) {
  Attrs attrs;
  attrs.Set("bits", c.bits);
  attrs.Set("block_size", c.block_size);
  return attrs;
}

TEST(QuantMatmulFast, MatchesReferenceOnBothPaths) {
  const Case cases[] = {
      {1, 64, 7, 4, 32, false},   {1, 70, 5, 4, 32, true},     {3, 256, 33, 4, 128, true},
      {4, 100, 9, 8, 16, false},  {1, 512, 65, 4, 256, false}, {5, 96, 17, 4, 16, true},
      {33, 200, 40, 4, 64, true}, {64, 128, 130, 8, 32, true}, {9, 48, 3, 8, 16, false},
      {1, 16, 1, 8, 16, true},    {2, 96, 17, 4, 16, true},    {1, 128, 9, 8, 16, true},
      {3, 200, 6, 8, 64, false},  {4, 1000, 5, 4, 32, true},
  };
  uint32_t seed = 1;
  for (const Case& c : cases) {
    SCOPED_TRACE(::testing::Message()
                 << "rows " << c.rows << " k " << c.k << " n " << c.n << " bits " << c.bits
                 << " block " << c.block_size << (c.zero_points ? " zero points" : ""));
    // Codes are at most 255 and scales 0.05 in size: a sum of k products of at most ~13.
    ExpectMatchesReference("quant_matmul", RandomInputs(c, DType::kF32, seed++),
                           {1e-5, 2e-5 * static_cast<double>(c.k)}, QuantAttrs(c));
  }
}

TEST(QuantMatmulFast, BatchDimsAndOtherDtypesThroughTheReference) {
  const Case c{6, 64, 8, 4, 32, true};
  std::vector<Tensor> inputs = RandomInputs(c, DType::kF32, 77);
  // a [2, 3, 64]: the rows of a rank-3 a are its leading dims flattened.
  inputs[0] = Make(DType::kF32, {2, 3, 64}, Values(inputs[0]));
  ExpectMatchesReference("quant_matmul", inputs, {1e-5, 1e-3}, QuantAttrs(c));
  ExpectMatchesReference("quant_matmul", RandomInputs(c, DType::kF64, 78), {0, 0}, QuantAttrs(c));
}

// quant_matmul at accuracy_level 4 as docs/ops.md defines it, in float64 from the
// tensors: per row of a and block, s = max|a| / 127 and q = a * (127 / max|a|) rounded
// to nearest even (both in f32, as the definition says), y = sum over blocks of
// s * scale * sum q * (code - zero). *bound gets, per output, the documented distance
// from the exact product: sum over blocks of s / 2 * sum |w|. *magnitude the sum of the
// terms' sizes (the scale of f32 rounding).
std::vector<double> Int8Reference(const Case& c, const std::vector<Tensor>& in,
                                  std::vector<double>* bound, std::vector<double>* magnitude) {
  const std::vector<double> a = Values(in[0]), codes = Values(in[1]), scales = Values(in[2]);
  const std::vector<double> zeros = c.zero_points ? Values(in[3]) : std::vector<double>{};
  const int64_t n_blocks = (c.k + c.block_size - 1) / c.block_size;
  const int64_t block_bytes = c.block_size * c.bits / 8;
  const auto code = [&](int64_t j, int64_t k) {
    const double byte = codes[static_cast<size_t>((j * n_blocks + k / c.block_size) * block_bytes +
                                                  (k % c.block_size) * c.bits / 8)];
    if (c.bits == 8) return byte;
    const int b = static_cast<int>(byte);
    return static_cast<double>(k % 2 == 0 ? b & 0xF : b >> 4);
  };
  std::vector<double> y(static_cast<size_t>(c.rows * c.n));
  bound->assign(y.size(), 0.0);
  magnitude->assign(y.size(), 0.0);
  for (int64_t r = 0; r < c.rows; ++r) {
    for (int64_t b = 0; b < n_blocks; ++b) {
      const int64_t begin = b * c.block_size, end = std::min(c.k, begin + c.block_size);
      float amax = 0;
      for (int64_t k = begin; k < end; ++k) {
        amax = std::max(amax, std::fabs(static_cast<float>(a[static_cast<size_t>(r * c.k + k)])));
      }
      const float inverse = amax > 0 ? 127.0f / amax : 0.0f;
      const double s = static_cast<double>(amax / 127.0f);
      for (int64_t j = 0; j < c.n; ++j) {
        const double zero = c.zero_points ? zeros[static_cast<size_t>(j * n_blocks + b)]
                                          : static_cast<double>(1 << (c.bits - 1));
        const double scale = scales[static_cast<size_t>(j * n_blocks + b)];
        double dot = 0, size = 0, weights = 0;
        for (int64_t k = begin; k < end; ++k) {
          const float av = static_cast<float>(a[static_cast<size_t>(r * c.k + k)]);
          const double q = std::nearbyint(static_cast<double>(av * inverse));
          dot += q * (code(j, k) - zero);
          size += std::fabs(q * (code(j, k) - zero));
          weights += std::fabs((code(j, k) - zero) * scale);
        }
        const size_t at = static_cast<size_t>(r * c.n + j);
        y[at] += s * scale * dot;
        (*magnitude)[at] += std::fabs(s * scale) * size;
        (*bound)[at] += s / 2 * weights;
      }
    }
  }
  return y;
}

// The instruction sets quant_matmul's vector paths can be limited to here, each once.
std::vector<std::string> QuantIsas() {
  std::set<std::string> seen;
  std::vector<std::string> isas;
  for (const char* cap : {"baseline", "avx2", "avxvnni", "best"}) {
    const std::string isa = LimitQuantMatmulIsaForTesting(cap);
    if (seen.insert(isa).second) isas.push_back(cap);
  }
  LimitQuantMatmulIsaForTesting("best");
  return isas;
}

TEST(QuantMatmulFast, Int8ActivationsAtAccuracyLevel4) {
  const Case cases[] = {
      {1, 64, 7, 4, 32, false},
      {1, 70, 5, 4, 32, true},
      {3, 256, 33, 4, 128, true},
      {4, 100, 9, 8, 16, false},
      {1, 512, 65, 4, 256, true},
      {2, 96, 17, 4, 16, true},
      {1, 128, 9, 8, 16, true},
      {3, 200, 6, 8, 64, false},
      {4, 1000, 5, 4, 32, true},
      {1, 2048, 40, 8, 32, true},
      {1, 16, 1, 8, 16, true},
      {2, 33, 3, 4, 16, false},
      // Prompts: rows in groups of four against blocks of 32 weight rows.
      {9, 96, 5, 4, 32, true},
      {33, 200, 70, 4, 64, true},
      {64, 128, 40, 8, 32, false},
  };
  uint32_t seed = 100;
  for (const std::string& isa : QuantIsas()) {
    const std::string running = LimitQuantMatmulIsaForTesting(isa);
    for (const Case& c : cases) {
      SCOPED_TRACE(::testing::Message()
                   << running << ": rows " << c.rows << " k " << c.k << " n " << c.n << " bits "
                   << c.bits << " block " << c.block_size << (c.zero_points ? " zero points" : ""));
      std::vector<Tensor> inputs = RandomInputs(c, DType::kF32, seed++);
      // An all-zero block of a: scale 0, codes 0.
      if (c.k >= 2 * c.block_size) {
        std::vector<double> a = Values(inputs[0]);
        std::fill(a.begin() + c.block_size, a.begin() + 2 * c.block_size, 0.0);
        inputs[0] = Make(DType::kF32, {c.rows, c.k}, a);
      }
      Attrs attrs = QuantAttrs(c);
      attrs.Set("accuracy_level", int64_t{4});
      std::vector<double> bound, magnitude;
      const std::vector<double> want = Int8Reference(c, inputs, &bound, &magnitude);
      const Tensor exact = RunRef1("quant_matmul", inputs, QuantAttrs(c));
      Expected<std::vector<Tensor>> inline_run =
          test::Run(FastKernels(), "quant_matmul", inputs, attrs);
      SY_ASSERT_OK(inline_run);
      const std::vector<double> got = Values((*inline_run)[0]), best = Values(exact);
      for (size_t i = 0; i < got.size(); ++i) {
        EXPECT_LE(std::fabs(got[i] - want[i]), 1e-6 * magnitude[i] + 1e-7) << "element " << i;
        EXPECT_LE(std::fabs(got[i] - best[i]), bound[i] * 1.0001 + 1e-5 * magnitude[i] + 1e-7)
            << "element " << i << ": further from the exact product than the bound";
      }
      for (int threads : {1, 2, 4}) {
        Expected<std::vector<Tensor>> fast =
            test::Run(FastKernels(), "quant_matmul", inputs, attrs, 1, Pool(threads));
        SY_ASSERT_OK(fast);
        EXPECT_TRUE(SameValues((*fast)[0], (*inline_run)[0]))
            << threads << " threads changed the result";
      }
    }
  }
  LimitQuantMatmulIsaForTesting("best");
}

TEST(QuantMatmulFast, AccuracyLevel4KeepsF32WhereInt8CannotServe) {
  Case c{2, 96, 5, 4, 32, true};
  std::vector<Tensor> inputs = RandomInputs(c, DType::kF32, 500);
  Attrs attrs = QuantAttrs(c);
  attrs.Set("accuracy_level", int64_t{4});
  // A non-finite a has no int8 scale: the f32 path runs and a NaN reaches y as in f32.
  // (An infinity comes out NaN or infinite: the vector paths take the zero point off
  // through sum(a), as ONNX Runtime's do.)
  std::vector<double> a = Values(inputs[0]);
  a[3] = std::nan("");
  a[c.k + 40] = std::nan("");
  inputs[0] = Make(DType::kF32, {c.rows, c.k}, a);
  ExpectMatchesReference("quant_matmul", inputs, {1e-5, 1e-4}, attrs);
}

}  // namespace
}  // namespace sy::cpu::test
