// Reference kernels of the linalg family (matmul, gemm, det, quant_matmul): hand-derived cases and
// NumPy references written by tools/kernel_refs/linalg_conv.py into tests/data/kernels/linalg_conv/
// (each case's attributes are repeated here under the script's case name).
#include "linalg_conv_pool_test_util.h"

namespace sy::cpu::test {
namespace {

// ---------------------------------------------------------------------------------------
// matmul

TEST(LinalgRefMatmul, HandTwoByTwo) {
  const Tensor y = RunRef1("matmul", {F32({2, 2}, {1, 2, 3, 4}), F32({2, 2}, {5, 6, 7, 8})});
  ExpectExact(y, {2, 2}, {19, 22, 43, 50});
}

// matmul_integer by hand: a u8 [2, 3] less its per-row zero points (10, 200), b i8 [3, 2]
// less its per-column ones (-1, 2):
//   a' = [[2, 0, 5], [-200, 55, 0]], b' = [[4, 1], [0, -5], [-128 + 1, 125]]
//   y = [[2*4 + 5*-127, 2*1 + 5*125], [-200*4, -200*1 + 55*-5]] = [[-627, 627], [-800, -475]]
TEST(LinalgRefMatmulInteger, HandZeroPointsPerRowAndColumn) {
  const Tensor a = Make(DType::kU8, {2, 3}, {12, 10, 15, 0, 255, 200});
  const Tensor b = Make(DType::kI8, {3, 2}, {3, 3, -1, -3, -128, 127});
  const Tensor za = Make(DType::kU8, {2}, {10, 200});
  const Tensor zb = Make(DType::kI8, {2}, {-1, 2});
  const Tensor y = RunRef1("matmul_integer", {a, b, za, zb});
  EXPECT_EQ(y.dtype(), DType::kI32);
  EXPECT_EQ(Values(y), (std::vector<double>{-627, 627, -800, -475}));
  // Scalar zero points, and none (the plain integer product).
  EXPECT_EQ(Values(RunRef1("matmul_integer",
                           {a, b, Make(DType::kU8, {}, {10}), Make(DType::kI8, {1}, {0})})),
            (std::vector<double>{2 * 3 + 0 + 5 * -128, 2 * 3 + 5 * 127,
                                 -10 * 3 + 245 * -1 + 190 * -128, -10 * 3 + 245 * -3 + 190 * 127}));
  EXPECT_EQ(Values(RunRef1("matmul_integer", {a, b})),
            (std::vector<double>{12 * 3 + 10 * -1 + 15 * -128, 12 * 3 + 10 * -3 + 15 * 127,
                                 255 * -1 + 200 * -128, 255 * -3 + 200 * 127}));
}

TEST(LinalgRefMatmul, VectorPromotion) {
  // 1-D x 1-D is a dot product with a scalar result.
  ExpectExact(RunRef1("matmul", {F32({3}, {1, 2, 3}), F32({3}, {4, 5, 6})}), {}, {32});
  // [2] x [2, 3] -> [3]; [2, 3] x [3] -> [2].
  const Tensor b = F32({2, 3}, {1, 2, 3, 4, 5, 6});
  ExpectExact(RunRef1("matmul", {F32({2}, {1, -1}), b}), {3}, {-3, -3, -3});
  ExpectExact(RunRef1("matmul", {b, F32({3}, {1, 0, 2})}), {2}, {7, 16});
  // [2] x [2, 2, 1] -> [2, 1] (the batch dim survives, the promoted one does not).
  ExpectExact(RunRef1("matmul", {F32({2}, {1, 2}), F32({2, 2, 1}, {1, 1, 3, 4})}), {2, 1}, {3, 11});
}

TEST(LinalgRefMatmul, BatchBroadcastHand) {
  // a [2, 1, 1, 2] x b [3, 2, 1] -> [2, 3, 1, 1]: every a row meets every b column.
  const Tensor a = F32({2, 1, 1, 2}, {1, 2, 10, 20});
  const Tensor b = F32({3, 2, 1}, {1, 0, 0, 1, 1, 1});
  ExpectExact(RunRef1("matmul", {a, b}), {2, 3, 1, 1}, {1, 2, 3, 10, 20, 30});
}

TEST(LinalgRefMatmul, NumpyFloatCases) {
  CheckCase("mm_f32_2d", "matmul", {"a", "b"});
  CheckCase("mm_f32_batch", "matmul", {"a", "b"});
  CheckCase("mm_f32_vec_left", "matmul", {"a", "b"});
  CheckCase("mm_f32_vec_right", "matmul", {"a", "b"});
  CheckCase("mm_f64_dot", "matmul", {"a", "b"});
  CheckCase("mm_f16", "matmul", {"a", "b"});
}

TEST(LinalgRefMatmul, NumpyIntegerCasesWrap) {
  CheckCase("mm_i32", "matmul", {"a", "b"});
  CheckCase("mm_i8", "matmul", {"a", "b"});
  CheckCase("mm_u8", "matmul", {"a", "b"});
  CheckCase("mm_i64", "matmul", {"a", "b"});
}

TEST(LinalgRefMatmul, IntegerWrapHand) {
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

TEST(LinalgRefMatmul, BFloat16) {
  const Tensor a = Make(DType::kBF16, {2, 2}, {1, 2, 3, 4});
  const Tensor b = Make(DType::kBF16, {2, 2}, {0.5, -1, 2, 8});
  const Tensor y = RunRef1("matmul", {a, b});
  EXPECT_EQ(y.dtype(), DType::kBF16);
  ExpectExact(y, {2, 2}, {4.5, 15, 9.5, 29});
}

TEST(LinalgRefMatmul, EmptyTensors) {
  ExpectExact(RunRef1("matmul", {F32({2, 0}, {}), F32({0, 3}, {})}), {2, 3}, {0, 0, 0, 0, 0, 0});
  ExpectExact(RunRef1("matmul", {F32({0, 2, 3}, {}), F32({3, 4}, std::vector<double>(12, 1))}),
              {0, 2, 4}, {});
  ExpectExact(RunRef1("matmul", {F32({2, 0}, {}), F32({0}, {})}), {2}, {0, 0});
  ExpectExact(RunRef1("matmul", {Make(DType::kI32, {1, 0}, {}), Make(DType::kI32, {0, 2}, {})}),
              {1, 2}, {0, 0});
}

TEST(LinalgRefMatmul, NanAndInfPropagate) {
  // inf * 0 is NaN; a NaN in a row of a poisons that row only.
  ExpectExact(RunRef1("matmul", {F32({2}, {kInf, 1}), F32({2}, {0, 1})}), {}, {kNaN});
  ExpectExact(RunRef1("matmul", {F32({2}, {kInf, 1}), F32({2}, {1, 1})}), {}, {kInf});
  ExpectExact(RunRef1("matmul", {F32({2, 2}, {kNaN, 0, 1, 2}), F32({2, 1}, {1, 1})}), {2, 1},
              {kNaN, 3});
}

// ---------------------------------------------------------------------------------------
// gemm

TEST(LinalgRefGemm, Hand) {
  // 2 * [[19, 22], [43, 50]] + 3 * c, c [2, 1] broadcast across columns.
  const Tensor y =
      RunRef1("gemm", {F32({2, 2}, {1, 2, 3, 4}), F32({2, 2}, {5, 6, 7, 8}), F32({2, 1}, {1, 2})},
              AttrsOf({{"alpha", 2.0}, {"beta", 3.0}}));
  ExpectExact(y, {2, 2}, {41, 47, 92, 106});
}

TEST(LinalgRefGemm, HandTransposes) {
  // a^T b^T with a = [[1, 3], [2, 4]] (so a^T = [[1, 2], [3, 4]]) and b^T = [[5, 6], [7, 8]].
  const Tensor y = RunRef1("gemm", {F32({2, 2}, {1, 3, 2, 4}), F32({2, 2}, {5, 7, 6, 8})},
                           AttrsOf({{"trans_a", int64_t{1}}, {"trans_b", int64_t{1}}}));
  ExpectExact(y, {2, 2}, {19, 22, 43, 50});
}

TEST(LinalgRefGemm, NumpyCases) {
  CheckCase("gemm_nn", "gemm", {"a", "b", "c"}, AttrsOf({{"alpha", 0.5}, {"beta", 2.0}}));
  CheckCase("gemm_tt", "gemm", {"a", "b", "c"},
            AttrsOf({{"alpha", -1.5}, {"trans_a", int64_t{1}}, {"trans_b", int64_t{1}}}));
  CheckCase("gemm_tn", "gemm", {"a", "b", "c"},
            AttrsOf({{"beta", -0.25}, {"trans_a", int64_t{1}}}));
  CheckCase("gemm_nt_f64", "gemm", {"a", "b", "c"}, AttrsOf({{"trans_b", int64_t{1}}}));
  CheckCase("gemm_noc_f16", "gemm", {"a", "b"}, AttrsOf({{"alpha", 2.0}}));
}

TEST(LinalgRefGemm, BFloat16WithScalarC) {
  const Tensor y =
      RunRef1("gemm",
              {Make(DType::kBF16, {1, 2}, {1, 2}), Make(DType::kBF16, {2, 2}, {1, 2, 3, 4}),
               Make(DType::kBF16, {}, {0.5})},
              AttrsOf({{"beta", 2.0}}));
  EXPECT_EQ(y.dtype(), DType::kBF16);
  ExpectExact(y, {1, 2}, {8, 11});
}

TEST(LinalgRefGemm, EmptyTensors) {
  // K = 0: y is beta * c alone.
  const Tensor y = RunRef1("gemm", {F32({2, 0}, {}), F32({0, 3}, {}), F32({3}, {1, 2, 3})},
                           AttrsOf({{"beta", 2.0}}));
  ExpectExact(y, {2, 3}, {2, 4, 6, 2, 4, 6});
  ExpectExact(RunRef1("gemm", {F32({0, 2}, {}), F32({2, 3}, std::vector<double>(6, 1))}), {0, 3},
              {});
}

TEST(LinalgRefGemm, NanAndInfPropagate) {
  // The formula as written: beta * c with beta = 0 and c = inf is NaN (as in NumPy and
  // ONNX's reference); a NaN in a's first row reaches that row only.
  const Tensor y =
      RunRef1("gemm", {F32({2, 1}, {kNaN, 1}), F32({1, 2}, {1, 1}), F32({2, 2}, {0, 0, kInf, 0})},
              AttrsOf({{"beta", 0.0}}));
  ExpectExact(y, {2, 2}, {kNaN, kNaN, kNaN, 1});
}

// det: hand-derived determinants; a 3 x 3 whose first pivot is 0 (a row swap flips the
// sign); singular and batched matrices; the 0 x 0 matrix (determinant 1, as NumPy).
TEST(LinalgRefDet, HandDerived) {
  ExpectExact(RunRef1("det", {F32({2, 2}, {1, 2, 3, 4})}), {}, {-2});
  // [[0, 1, 2], [1, 0, 3], [4, -3, 8]]: 0 * (0 - -9) - 1 * (8 - 12) + 2 * (-3 - 0) = -2.
  ExpectClose(RunRef1("det", {F32({3, 3}, {0, 1, 2, 1, 0, 3, 4, -3, 8})}), {}, {-2}, 1e-6, 1e-6);
  ExpectExact(RunRef1("det", {F32({2, 2, 2}, {1, 2, 2, 4, 2, 0, 0, 3})}), {2}, {0, 6});
  ExpectExact(RunRef1("det", {F32({3, 0, 0}, {})}), {3}, {1, 1, 1});
  ExpectExact(RunRef1("det", {F32({1, 1}, {-7})}), {}, {-7});
}

// quant_matmul: two weight rows of K = 20 in 4-bit blocks of 16 (the second block
// partial: its last 6 bytes are padding the kernel must not read as codes), derived by
// hand from docs/ops.md's layout: code 2j in byte j's low nibble, 2j + 1 in its high one.
//   row 0: block 0 all 0x99 (codes 9); block 1 bytes 0xC3, 0x08 (codes 3, 12, 8, 0).
//   row 1: block 0 all 0x21 (codes 1, 2, 1, 2, ...); block 1 bytes 0xF0, 0x0F (0, 15, 15, 0).
// scales [[0.5, 2], [1, -1]]. a's first row is 16 ones then 1, 2, 3, 4; its second is
// twice the first.
std::vector<Tensor> QuantMatmulHandInputs() {
  std::vector<double> a(40, 1.0);
  for (int i = 0; i < 4; ++i) a[16 + i] = i + 1;
  for (int i = 0; i < 20; ++i) a[20 + i] = 2 * a[i];
  std::vector<double> codes;
  for (int i = 0; i < 8; ++i) codes.push_back(0x99);
  for (double v : {0xC3, 0x08, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF}) codes.push_back(v);
  for (int i = 0; i < 8; ++i) codes.push_back(0x21);
  for (double v : {0xF0, 0x0F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF}) codes.push_back(v);
  return {F32({2, 1, 20}, a), Make(DType::kU8, {2, 2, 8}, codes), F32({2, 2}, {0.5, 2, 1, -1})};
}

TEST(LinalgRefQuantMatmul, FourBitBlocksWithZeroPoints) {
  // zero points [[8, 8], [0, 15]]:
  //   row 0: 16 * (9 - 8) * 0.5 + 2 * ((3 - 8) * 1 + (12 - 8) * 2 + 0 * 3 + (0 - 8) * 4) = -50
  //   row 1: (8 * 1 + 8 * 2) * 1 + -1 * ((0 - 15) * 1 + 0 + 0 + (0 - 15) * 4) = 24 + 75 = 99
  std::vector<Tensor> inputs = QuantMatmulHandInputs();
  inputs.push_back(Make(DType::kU8, {2, 2}, {8, 8, 0, 15}));
  const Tensor y =
      RunRef1("quant_matmul", inputs, AttrsOf({{"bits", int64_t{4}}, {"block_size", int64_t{16}}}));
  ExpectExact(y, {2, 1, 2}, {-50, 99, -100, 198});
}

TEST(LinalgRefQuantMatmul, FourBitBlocksDefaultZeroPointIsEight) {
  //   row 1: (8 * -7 + 8 * -6) * 1 + -1 * ((0 - 8) * 1 + 7 * 2 + 7 * 3 + (0 - 8) * 4) = -104 + 5
  const Tensor y = RunRef1("quant_matmul", QuantMatmulHandInputs(),
                           AttrsOf({{"bits", int64_t{4}}, {"block_size", int64_t{16}}}));
  ExpectExact(y, {2, 1, 2}, {-50, -99, -100, -198});
}

TEST(LinalgRefQuantMatmul, EightBitCodesAroundDefaultZeroPoint128) {
  // codes 0..15 with zero point 128 and scale 0.25, a all ones: (120 - 16 * 128) / 4.
  std::vector<double> codes(16);
  for (int i = 0; i < 16; ++i) codes[i] = i;
  const Tensor y = RunRef1("quant_matmul",
                           {F32({16}, std::vector<double>(16, 1.0)),
                            Make(DType::kU8, {1, 1, 16}, codes), F32({1, 1}, {0.25})},
                           AttrsOf({{"bits", int64_t{8}}, {"block_size", int64_t{16}}}));
  ExpectExact(y, {1}, {-482});
}

}  // namespace
}  // namespace sy::cpu::test
