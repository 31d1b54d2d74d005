// The fast quant_matmul kernel (fast/quant_matmul_fast.cpp) against the reference kernel
// on seeded random weights: both paths (few rows fused, more rows on dequantized tiles),
// 4 and 8 bits, block sizes 16 to 256, K filling its last block or not, with and without
// zero points, batch dims, and the reference fallback for f64.
#include <cstdint>
#include <random>
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

}  // namespace
}  // namespace sy::cpu::test
