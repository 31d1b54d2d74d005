// The indexing family's reference kernels (gather, gather_elements, scatter_elements,
// gather_nd, scatter_nd) against NumPy reference files (tools/kernel_refs/movement.py ->
// tests/data/kernels/movement/) and hand-derived cases: empty tensors, scalars, bf16,
// NaN/inf and every out-of-range index.
#include <gtest/gtest.h>

#include "movement_test_util.h"
#include "ref/ref_kernels.h"

namespace sy::cpu::test {
namespace {

TEST(IndexingRef, GatherMatchesNumpy) {
  const FileCase cases[] = {
      {"gather_f32_axis0", "gather", A({{"axis", int64_t{0}}}), 2},
      {"gather_bool_axis1", "gather", A({{"axis", int64_t{1}}}), 2},
      {"gather_f16_scalar_index", "gather", A({{"axis", int64_t{-1}}}), 2},
      {"gather_i32_empty_indices", "gather", A({{"axis", int64_t{0}}}), 2},
      {"gather_elements_i32_axis1", "gather_elements", A({{"axis", int64_t{1}}}), 2},
      {"gather_elements_f32_axis0", "gather_elements", A({{"axis", int64_t{0}}}), 2},
      {"gather_elements_bool_axis_neg1", "gather_elements", A({{"axis", int64_t{-1}}}), 2},
  };
  for (const FileCase& c : cases) RunFileCase(c);
}

TEST(IndexingRef, ScatterElementsMatchesNumpy) {
  std::vector<FileCase> cases = {
      {"scatter_elements_f32_none", "scatter_elements", A({{"axis", int64_t{1}}}), 3},
      {"scatter_elements_f32_none_duplicates", "scatter_elements", A({{"axis", int64_t{1}}}), 3},
      {"scatter_elements_f16_add", "scatter_elements",
       A({{"axis", int64_t{0}}, {"reduction", "add"}}), 3},
  };
  for (const char* red : {"add", "mul", "max", "min"}) {
    cases.push_back({"scatter_elements_f64_" + std::string(red), "scatter_elements",
                     A({{"axis", int64_t{0}}, {"reduction", std::string(red)}}), 3, 1, 1e-15});
    cases.push_back({"scatter_elements_i8_" + std::string(red), "scatter_elements",
                     A({{"axis", int64_t{-1}}, {"reduction", std::string(red)}}), 3});
  }
  for (const char* red : {"add", "mul"}) {
    cases.push_back({"scatter_elements_bool_" + std::string(red), "scatter_elements",
                     A({{"axis", int64_t{1}}, {"reduction", std::string(red)}}), 3});
  }
  for (const FileCase& c : cases) RunFileCase(c);
}

TEST(IndexingRef, GatherHandlesScalarsBf16AndSpecialValues) {
  const Tensor f = Make(DType::kF32, {4}, {kNaN, kInf, -kInf, -0.0});
  const Tensor g = RunRef1("gather", {f, MakeI64({4}, {3, 2, 1, 0})});
  ExpectValues(g, DType::kF32, {4}, {-0.0, -kInf, kInf, kNaN});
  EXPECT_TRUE(std::signbit(Values(g)[0]));
  ExpectValues(RunRef1("gather", {Make(DType::kI8, {3}, {5, 6, 7}), Make(DType::kI32, {}, {-3})}),
               DType::kI8, {}, {5});
  ExpectValues(
      RunRef1("gather",
              {Make(DType::kBF16, {2, 2}, {1, 2, 3, 4}), Make(DType::kI32, {3}, {-1, 0, 1})},
              A({{"axis", int64_t{1}}})),
      DType::kBF16, {2, 3}, {2, 1, 2, 4, 3, 4});
}

TEST(IndexingRef, GatherRejectsOutOfRangeIndices) {
  const Tensor x = Make(DType::kF32, {5, 2}, std::vector<double>(10, 1.0));
  SY_EXPECT_ERROR(RunRef("gather", {x, MakeI64({2}, {0, 5})}),
                  "gather: index 5 is out of range for axis 0 of size 5 (expected -5 to 4)");
  SY_EXPECT_ERROR(RunRef("gather", {x, Make(DType::kI32, {1}, {-6})}),
                  "gather: index -6 is out of range for axis 0 of size 5 (expected -5 to 4)");
  SY_EXPECT_ERROR(RunRef("gather", {x, MakeI64({1}, {kMin})}, A({{"axis", int64_t{-1}}})),
                  "index -9223372036854775808 is out of range for axis 1 of size 2");
  // Checked even when the output is empty.
  SY_EXPECT_ERROR(RunRef("gather", {Make(DType::kF32, {0, 4}, {}), MakeI64({1}, {9})},
                         A({{"axis", int64_t{1}}})),
                  "gather: index 9 is out of range for axis 1 of size 4");
  SY_EXPECT_ERROR(RunRef("gather", {Make(DType::kBool, {3, 0}, {}), MakeI64({1}, {0})},
                         A({{"axis", int64_t{1}}})),
                  "index 0 is out of range for axis 1 of size 0 (the axis is empty");
}

TEST(IndexingRef, GatherElementsHandlesEmptyBf16AndErrors) {
  const Tensor b = Make(DType::kBF16, {2, 2}, {1, 2, 3, 4});
  ExpectValues(
      RunRef1("gather_elements", {b, MakeI64({2, 2}, {1, -2, 0, 0})}, A({{"axis", int64_t{-1}}})),
      DType::kBF16, {2, 2}, {2, 1, 3, 3});
  ExpectValues(RunRef1("gather_elements", {b, MakeI64({0, 2}, {})}), DType::kBF16, {0, 2}, {});
  SY_EXPECT_ERROR(
      RunRef("gather_elements", {b, MakeI64({1, 2}, {0, 2})}),
      "gather_elements: index 2 is out of range for axis 0 of size 2 (expected -2 to 1)");
  SY_EXPECT_ERROR(
      RunRef("gather_elements", {b, Make(DType::kI32, {1, 1}, {-3})}, A({{"axis", int64_t{1}}})),
      "gather_elements: index -3 is out of range for axis 1 of size 2");
}

TEST(IndexingRef, ScatterElementsHandWorkedCases) {
  // reduction none with duplicates: the last write in index order wins.
  ExpectValues(
      RunRef1("scatter_elements", {Make(DType::kI32, {3}, {0, 0, 0}), MakeI64({3}, {1, 1, -2}),
                                   Make(DType::kI32, {3}, {5, 6, 7})}),
      DType::kI32, {3}, {0, 7, 0});
  // Empty indices leave data as it is.
  ExpectValues(RunRef1("scatter_elements",
                       {Make(DType::kU8, {2}, {3, 4}), MakeI64({0}, {}), Make(DType::kU8, {0}, {})},
                       A({{"reduction", "mul"}})),
               DType::kU8, {2}, {3, 4});
  // max / min / add propagate NaN.
  const Tensor data = Make(DType::kF32, {3}, {1, 2, kNaN});
  const Tensor idx = MakeI64({4}, {0, 0, 1, 2});
  const Tensor upd = Make(DType::kF32, {4}, {kNaN, 5, 7, 1});
  ExpectValues(RunRef1("scatter_elements", {data, idx, upd}, A({{"reduction", "max"}})),
               DType::kF32, {3}, {kNaN, 7, kNaN});
  ExpectValues(RunRef1("scatter_elements", {data, idx, upd}, A({{"reduction", "min"}})),
               DType::kF32, {3}, {kNaN, 2, kNaN});
  ExpectValues(RunRef1("scatter_elements", {data, idx, upd}, A({{"reduction", "add"}})),
               DType::kF32, {3}, {kNaN, 9, kNaN});
  // bf16 accumulates in double and rounds once: 1 + 4 * 2^-8 = 1.015625 exactly, whereas
  // rounding after every add would stay at 1 (1 + 2^-8 is a tie that rounds to even).
  const double tiny = std::ldexp(1.0, -8);
  ExpectValues(RunRef1("scatter_elements",
                       {Make(DType::kBF16, {1}, {1}), MakeI64({4}, {0, 0, 0, 0}),
                        Make(DType::kBF16, {4}, {tiny, tiny, tiny, tiny})},
                       A({{"reduction", "add"}})),
               DType::kBF16, {1}, {1.015625});
  // i64 wraps like NumPy.
  const Tensor wrapped_add = RunRef1(
      "scatter_elements", {MakeI64({2}, {kMax, 1}), MakeI64({2}, {0, 1}), MakeI64({2}, {1, 2})},
      A({{"reduction", "add"}}));
  EXPECT_EQ(I64Values(wrapped_add), (std::vector<int64_t>{kMin, 3}));
  const Tensor wrapped_mul =
      RunRef1("scatter_elements",
              {MakeI64({2}, {int64_t{1} << 62, kMin}), MakeI64({2}, {0, 1}), MakeI64({2}, {4, -1})},
              A({{"reduction", "mul"}}));
  EXPECT_EQ(I64Values(wrapped_mul), (std::vector<int64_t>{0, kMin}));
}

TEST(IndexingRef, ScatterElementsRejectsOutOfRangeIndices) {
  const Tensor data = Make(DType::kF32, {2, 3}, {1, 2, 3, 4, 5, 6});
  SY_EXPECT_ERROR(
      RunRef("scatter_elements", {data, MakeI64({1, 2}, {0, 3}), Make(DType::kF32, {1, 2}, {0, 0})},
             A({{"axis", int64_t{1}}})),
      "scatter_elements: index 3 is out of range for axis 1 of size 3 (expected -3 to 2)");
  SY_EXPECT_ERROR(
      RunRef("scatter_elements",
             {data, Make(DType::kI32, {1, 1}, {-3}), Make(DType::kF32, {1, 1}, {0})},
             A({{"reduction", "add"}})),
      "scatter_elements: index -3 is out of range for axis 0 of size 2 (expected -2 to 1)");
}

// ---- gather_nd, scatter_nd ----

// The five examples of the ONNX GatherND operator's documentation.
TEST(IndexingRef, GatherNDOnnxExamples) {
  const Tensor d2 = Make(DType::kI32, {2, 2}, {0, 1, 2, 3});
  ExpectValues(RunRef1("gather_nd", {d2, MakeI64({2, 2}, {0, 0, 1, 1})}), DType::kI32, {2}, {0, 3});
  ExpectValues(RunRef1("gather_nd", {d2, MakeI64({2, 1}, {1, 0})}), DType::kI32, {2, 2},
               {2, 3, 0, 1});
  const Tensor d3 = Make(DType::kF32, {2, 2, 2}, {0, 1, 2, 3, 4, 5, 6, 7});
  ExpectValues(RunRef1("gather_nd", {d3, MakeI64({2, 2}, {0, 1, 1, 0})}), DType::kF32, {2, 2},
               {2, 3, 4, 5});
  ExpectValues(RunRef1("gather_nd", {d3, MakeI64({2, 1, 2}, {0, 1, 1, 0})}), DType::kF32, {2, 1, 2},
               {2, 3, 4, 5});
  ExpectValues(RunRef1("gather_nd", {d3, MakeI64({2, 1}, {1, 0})}, A({{"batch_dims", int64_t{1}}})),
               DType::kF32, {2, 2}, {2, 3, 4, 5});
}

TEST(IndexingRef, GatherNDHandWorkedCases) {
  // data [2, 3, 4] = 0..23. batch_dims 1, k 2: element data[b, i, j] = 12b + 4i + j, with
  // negative indices wrapping per axis ([-1, -4] in batch 0 is [2, 0]).
  std::vector<double> iota(24);
  for (size_t i = 0; i < iota.size(); ++i) iota[i] = static_cast<double>(i);
  const Tensor x = Make(DType::kI64, {2, 3, 4}, iota);
  ExpectValues(RunRef1("gather_nd",
                       {x, Make(DType::kI32, {2, 3, 2},
                                {-1, -4, 0, 3, 1, 1,  //
                                 2, 2, -3, -1, 0, 0})},
                       A({{"batch_dims", int64_t{1}}})),
               DType::kI64, {2, 3}, {8, 3, 5, 22, 15, 12});
  // batch_dims 2, k 1: rows of x picked per (b, i).
  ExpectValues(RunRef1("gather_nd", {x, MakeI64({2, 3, 1}, {3, 0, -1, 1, 2, 0})},
                       A({{"batch_dims", int64_t{2}}})),
               DType::kI64, {2, 3}, {3, 4, 11, 13, 18, 20});
  // batch_dims 0, k 1 on [2, 3, 4]: whole [3, 4] blocks; k 3: single elements.
  ExpectValues(RunRef1("gather_nd", {x, MakeI64({1, 1}, {-1})}), DType::kI64, {1, 3, 4},
               std::vector<double>(iota.begin() + 12, iota.end()));
  ExpectValues(RunRef1("gather_nd", {x, MakeI64({2, 3}, {1, 2, 3, 0, -3, -4})}), DType::kI64, {2},
               {23, 0});
  // A rank-1 indices is one tuple; bf16 and special values move bit for bit.
  const Tensor f = Make(DType::kF32, {2, 2}, {kNaN, kInf, -kInf, -0.0});
  const Tensor g = RunRef1("gather_nd", {f, MakeI64({2}, {1, 1})});
  ExpectValues(g, DType::kF32, {}, {-0.0});
  EXPECT_TRUE(std::signbit(Values(g)[0]));
  ExpectValues(RunRef1("gather_nd", {Make(DType::kBF16, {3, 2}, {1, 2, 3, 4, 5, 6}),
                                     Make(DType::kI32, {2, 1}, {2, -3})}),
               DType::kBF16, {2, 2}, {5, 6, 1, 2});
  // Empty indices, empty slices.
  ExpectValues(RunRef1("gather_nd", {x, MakeI64({0, 2}, {})}), DType::kI64, {0, 4}, {});
  ExpectValues(RunRef1("gather_nd", {Make(DType::kBool, {3, 0}, {}), MakeI64({2, 1}, {2, 0})}),
               DType::kBool, {2, 0}, {});
}

TEST(IndexingRef, GatherNDRejectsOutOfRangeIndices) {
  const Tensor x = Make(DType::kF32, {2, 3, 4}, std::vector<double>(24, 1.0));
  SY_EXPECT_ERROR(RunRef("gather_nd", {x, MakeI64({2, 2}, {0, 0, 1, 3})}),
                  "gather_nd: index 3 is out of range for axis 1 of size 3 (expected -3 to 2)");
  SY_EXPECT_ERROR(RunRef("gather_nd", {x, Make(DType::kI32, {1, 3}, {-3, 0, 0})}),
                  "gather_nd: index -3 is out of range for axis 0 of size 2 (expected -2 to 1)");
  // With batch_dims the tuple indexes the dims after the batch dims.
  SY_EXPECT_ERROR(
      RunRef("gather_nd", {x, MakeI64({2, 2}, {0, 0, 2, 4})}, A({{"batch_dims", int64_t{1}}})),
      "gather_nd: index 4 is out of range for axis 2 of size 4 (expected -4 to 3)");
  SY_EXPECT_ERROR(RunRef("gather_nd", {x, MakeI64({1, 1}, {kMin})}),
                  "index -9223372036854775808 is out of range for axis 0 of size 2");
  // Checked even when the output is empty.
  SY_EXPECT_ERROR(RunRef("gather_nd", {Make(DType::kF32, {3, 0}, {}), MakeI64({1, 1}, {3})}),
                  "gather_nd: index 3 is out of range for axis 0 of size 3");
  SY_EXPECT_ERROR(RunRef("gather_nd", {Make(DType::kF32, {3, 0}, {}), MakeI64({1, 2}, {0, 0})}),
                  "index 0 is out of range for axis 1 of size 0 (the axis is empty");
}

// The two examples of the ONNX ScatterND operator's documentation, and its reduction
// examples (test_scatternd_add / _multiply: both updates land on slot 0).
TEST(IndexingRef, ScatterNDOnnxExamples) {
  ExpectValues(RunRef1("scatter_nd",
                       {Make(DType::kF32, {8}, {1, 2, 3, 4, 5, 6, 7, 8}),
                        MakeI64({4, 1}, {4, 3, 1, 7}), Make(DType::kF32, {4}, {9, 10, 11, 12})}),
               DType::kF32, {8}, {1, 11, 3, 10, 9, 6, 7, 12});
  const std::vector<double> data = {1, 2, 3, 4, 5, 6, 7, 8, 8, 7, 6, 5, 4, 3, 2, 1,  //
                                    1, 2, 3, 4, 5, 6, 7, 8, 8, 7, 6, 5, 4, 3, 2, 1,  //
                                    8, 7, 6, 5, 4, 3, 2, 1, 1, 2, 3, 4, 5, 6, 7, 8,  //
                                    8, 7, 6, 5, 4, 3, 2, 1, 1, 2, 3, 4, 5, 6, 7, 8};
  const std::vector<double> updates = {5, 5, 5, 5, 6, 6, 6, 6, 7, 7, 7, 7, 8, 8, 8, 8,  //
                                       1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4};
  const std::vector<double> want = {5, 5, 5, 5, 6, 6, 6, 6, 7, 7, 7, 7, 8, 8, 8, 8,  //
                                    1, 2, 3, 4, 5, 6, 7, 8, 8, 7, 6, 5, 4, 3, 2, 1,  //
                                    1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4,  //
                                    8, 7, 6, 5, 4, 3, 2, 1, 1, 2, 3, 4, 5, 6, 7, 8};
  const Tensor x = Make(DType::kF32, {4, 4, 4}, data);
  const Tensor u = Make(DType::kF32, {2, 4, 4}, updates);
  ExpectValues(RunRef1("scatter_nd", {x, MakeI64({2, 1}, {0, 2}), u}), DType::kF32, {4, 4, 4},
               want);
  // Reductions: both updates go to slot 0.
  std::vector<double> added = data, multiplied = data;
  for (size_t i = 0; i < 16; ++i) {
    added[i] += updates[i] + updates[16 + i];
    multiplied[i] *= updates[i] * updates[16 + i];
  }
  ExpectValues(RunRef1("scatter_nd", {x, MakeI64({2, 1}, {0, 0}), u}, A({{"reduction", "add"}})),
               DType::kF32, {4, 4, 4}, added);
  ExpectValues(RunRef1("scatter_nd", {x, MakeI64({2, 1}, {0, 0}), u}, A({{"reduction", "mul"}})),
               DType::kF32, {4, 4, 4}, multiplied);
}

TEST(IndexingRef, ScatterNDHandWorkedCases) {
  // data [2, 3] = 0..5, k 2 (single elements) with negative indices; duplicates with
  // reduction none: the last write in index order wins.
  const Tensor x = Make(DType::kI32, {2, 3}, {0, 1, 2, 3, 4, 5});
  ExpectValues(RunRef1("scatter_nd", {x, Make(DType::kI32, {2, 2, 2}, {-1, -1, 0, 1, 1, 2, 0, -2}),
                                      Make(DType::kI32, {2, 2}, {10, 20, 30, 40})}),
               DType::kI32, {2, 3}, {0, 40, 2, 3, 4, 30});
  ExpectValues(RunRef1("scatter_nd", {x, MakeI64({3, 1}, {1, -1, 0}),
                                      Make(DType::kI32, {3, 3}, {7, 7, 7, 8, 8, 8, 9, 9, 9})}),
               DType::kI32, {2, 3}, {9, 9, 9, 8, 8, 8});
  // max / min over duplicates, starting from data; NaN propagates.
  const Tensor f = Make(DType::kF32, {3}, {1, 2, kNaN});
  const Tensor idx = MakeI64({4, 1}, {0, 0, 1, 2});
  const Tensor upd = Make(DType::kF32, {4}, {kNaN, 5, 7, 1});
  ExpectValues(RunRef1("scatter_nd", {f, idx, upd}, A({{"reduction", "max"}})), DType::kF32, {3},
               {kNaN, 7, kNaN});
  ExpectValues(RunRef1("scatter_nd", {f, idx, upd}, A({{"reduction", "min"}})), DType::kF32, {3},
               {kNaN, 2, kNaN});
  ExpectValues(
      RunRef1("scatter_nd", {f, MakeI64({3, 1}, {1, 1, 1}), Make(DType::kF32, {3}, {1, 2, 3})},
              A({{"reduction", "mul"}})),
      DType::kF32, {3}, {1, 12, kNaN});
  // bf16 accumulates in double and rounds once (see ScatterElementsHandWorkedCases).
  const double tiny = std::ldexp(1.0, -8);
  ExpectValues(RunRef1("scatter_nd",
                       {Make(DType::kBF16, {1}, {1}), MakeI64({4, 1}, {0, 0, 0, 0}),
                        Make(DType::kBF16, {4}, {tiny, tiny, tiny, tiny})},
                       A({{"reduction", "add"}})),
               DType::kBF16, {1}, {1.015625});
  // Integers wrap; bool add is "or", mul is "and".
  const Tensor wrapped = RunRef1(
      "scatter_nd", {MakeI64({2}, {kMax, 5}), MakeI64({2, 1}, {0, 0}), MakeI64({2}, {1, 1})},
      A({{"reduction", "add"}}));
  EXPECT_EQ(I64Values(wrapped), (std::vector<int64_t>{kMin + 1, 5}));
  const Tensor bools = Make(DType::kBool, {3}, {0, 1, 1});
  ExpectValues(
      RunRef1("scatter_nd", {bools, MakeI64({2, 1}, {0, 2}), Make(DType::kBool, {2}, {1, 0})},
              A({{"reduction", "add"}})),
      DType::kBool, {3}, {1, 1, 1});
  ExpectValues(
      RunRef1("scatter_nd", {bools, MakeI64({2, 1}, {0, 2}), Make(DType::kBool, {2}, {1, 0})},
              A({{"reduction", "mul"}})),
      DType::kBool, {3}, {0, 1, 0});
  // Empty indices leave data as it is; empty slices write nothing.
  ExpectValues(RunRef1("scatter_nd", {x, MakeI64({0, 1}, {}), Make(DType::kI32, {0, 3}, {})}),
               DType::kI32, {2, 3}, {0, 1, 2, 3, 4, 5});
  ExpectValues(RunRef1("scatter_nd", {Make(DType::kU8, {2, 0}, {}), MakeI64({3, 1}, {1, 0, 1}),
                                      Make(DType::kU8, {3, 0}, {})}),
               DType::kU8, {2, 0}, {});
}

TEST(IndexingRef, ScatterNDRejectsOutOfRangeIndices) {
  const Tensor x = Make(DType::kF32, {2, 3}, {1, 2, 3, 4, 5, 6});
  SY_EXPECT_ERROR(
      RunRef("scatter_nd", {x, MakeI64({2, 2}, {0, 0, 1, 3}), Make(DType::kF32, {2}, {0, 0})}),
      "scatter_nd: index 3 is out of range for axis 1 of size 3 (expected -3 to 2)");
  SY_EXPECT_ERROR(RunRef("scatter_nd",
                         {x, Make(DType::kI32, {1, 1}, {-3}), Make(DType::kF32, {1, 3}, {0, 0, 0})},
                         A({{"reduction", "add"}})),
                  "scatter_nd: index -3 is out of range for axis 0 of size 2 (expected -2 to 1)");
  // Checked even when nothing would be written.
  SY_EXPECT_ERROR(RunRef("scatter_nd", {Make(DType::kF32, {2, 0}, {}), MakeI64({1, 1}, {2}),
                                        Make(DType::kF32, {1, 0}, {})}),
                  "scatter_nd: index 2 is out of range for axis 0 of size 2");
}

TEST(IndexingRef, CacheWriteMatchesNumpy) {
  const FileCase cases[] = {
      {"cache_write_f32_axis2", "cache_write", A({{"axis", int64_t{2}}}), 3},
      {"cache_write_f32_prefill", "cache_write", A({{"axis", int64_t{2}}}), 3},
      {"cache_write_f16_at_end", "cache_write", A({{"axis", int64_t{1}}}), 3},
      {"cache_write_i64_axis0", "cache_write", A({{"axis", int64_t{0}}}), 3},
      {"cache_write_bool_axis_neg1", "cache_write", A({{"axis", int64_t{-1}}}), 3},
      {"cache_write_f32_empty_update", "cache_write", A({{"axis", int64_t{1}}}), 3},
  };
  for (const FileCase& c : cases) RunFileCase(c);
}

TEST(IndexingRef, CacheWriteHandDerivedAndOffsetsOutOfRange) {
  // cache [2, 3] (rows of a capacity of 3 per batch row), one entry at offset 1 of axis 1.
  const Tensor cache = Make(DType::kF32, {2, 3}, {1, 2, 3, 4, 5, 6});
  const Tensor update = Make(DType::kF32, {2, 1}, {-1, -2});
  ExpectValues(RunRef1("cache_write", {cache, update, MakeI64({}, {1})}, A({{"axis", int64_t{1}}})),
               DType::kF32, {2, 3}, {1, -1, 3, 4, -2, 6});
  // An i32 offset of shape [1], two entries ending at the capacity.
  ExpectValues(
      RunRef1("cache_write",
              {cache, Make(DType::kF32, {2, 2}, {7, 8, 9, 10}), Make(DType::kI32, {1}, {1})},
              A({{"axis", int64_t{-1}}})),
      DType::kF32, {2, 3}, {1, 7, 8, 4, 9, 10});
  SY_EXPECT_ERROR(
      RunRef("cache_write", {cache, update, MakeI64({}, {3})}, A({{"axis", int64_t{1}}})),
      "cache_write: offset 3 writing 1 entries along axis 1 needs a capacity of at least offset "
      "+ 1, and the cache holds 3");
  SY_EXPECT_ERROR(
      RunRef("cache_write", {cache, update, MakeI64({}, {-1})}, A({{"axis", int64_t{1}}})),
      "(a negative offset is never valid)");
  SY_EXPECT_ERROR(
      RunRef("cache_write", {cache, update, MakeI64({}, {kMax})}, A({{"axis", int64_t{1}}})),
      "offset 9223372036854775807 writing 1 entries");
}

TEST(IndexingRef, CacheWriteSchemaNamesWhatDoesNotFit) {
  const Tensor cache = Make(DType::kF32, {2, 3}, std::vector<double>(6, 0.0));
  SY_EXPECT_ERROR(
      RunRef("cache_write",
             {cache, Make(DType::kF32, {2, 4}, std::vector<double>(8)), MakeI64({}, {0})},
             A({{"axis", int64_t{1}}})),
      "input update writes 4 entries along axis 1 but input cache holds 3 there");
  SY_EXPECT_ERROR(RunRef("cache_write", {cache, Make(DType::kF32, {1, 1}, {0}), MakeI64({}, {0})},
                         A({{"axis", int64_t{1}}})),
                  "input update has shape [1, 1] but must equal input cache's shape [2, 3] on "
                  "every dim but axis 1 (dim 0)");
  SY_EXPECT_ERROR(
      RunRef("cache_write", {cache, Make(DType::kF32, {2, 1}, {0, 0}), MakeI64({2}, {0, 1})},
             A({{"axis", int64_t{1}}})),
      "input offset has shape [2] but must hold one integer");
  SY_EXPECT_ERROR(
      RunRef("cache_write", {cache, Make(DType::kF32, {2, 1}, {0, 0}), MakeI64({}, {0})}), "axis");
}

// Bound to the cache's own bytes (a session's state written in place), the kernel moves
// only the update's entries and leaves the rest as they were.
TEST(IndexingRef, CacheWriteInPlaceWritesOnlyTheUpdate) {
  Tensor cache = Make(DType::kI32, {2, 4}, {1, 2, 3, 4, 5, 6, 7, 8});
  const Tensor update = Make(DType::kI32, {2, 2}, {-1, -2, -3, -4});
  const Tensor offset = MakeI64({}, {2});
  const ConstTensorView in[] = {
      {cache.type(), cache.data()}, {update.type(), update.data()}, {offset.type(), offset.data()}};
  const TensorView out[] = {{cache.type(), cache.mutable_data()}};
  const Attrs attrs = A({{"axis", int64_t{1}}});
  const KernelTable::Entry* entry = RefKernels().FindEntry("cache_write");
  ASSERT_NE(entry, nullptr);
  SY_ASSERT_OK(entry->fn(KernelContext{"cache_write", in, out, attrs}));
  ExpectValues(cache, DType::kI32, {2, 4}, {1, 2, -1, -2, 5, 6, -3, -4});
}

// tfidf_vectorizer, hand-derived: tokens [1, 2, 1, 3, 1, 2] with the pool's unigrams {1},
// {2} and bigrams {1, 2}, {2, 1} at output slots 0 .. 3. Without skips: 1 three times, 2
// twice, (1, 2) twice, (2, 1) once. With max_skip_count 1 the bigrams two apart count too:
// (1, 1) no, (2, 3) no, (1, 1) no, (3, 2) no; so only the contiguous ones. Rows [2, 9, 1]
// and [1, 2, 2]: (2, 1) and a second (1, 2) are two apart, counted with a skip only.
TEST(IndexingRef, TfIdfVectorizerCountsNgramsWithSkips) {
  auto attrs = [](std::string mode, int64_t skip, std::vector<double> weights) {
    Attrs a = sy::test::MakeAttrs({{"mode", std::move(mode)},
                                   {"min_gram_length", int64_t{1}},
                                   {"max_gram_length", int64_t{2}},
                                   {"max_skip_count", skip},
                                   {"ngram_counts", std::vector<int64_t>{0, 2}},
                                   {"ngram_indexes", std::vector<int64_t>{0, 1, 2, 3}},
                                   {"pool", std::vector<int64_t>{1, 2, 1, 2, 2, 1}}});
    if (!weights.empty()) a.Set("weights", std::move(weights));
    return a;
  };
  const Tensor x = MakeI64({6}, {1, 2, 1, 3, 1, 2});
  ExpectValues(RunRef1("tfidf_vectorizer", {x}, attrs("TF", 0, {})), DType::kF32, {4},
               {3, 2, 2, 1});
  ExpectValues(RunRef1("tfidf_vectorizer", {x}, attrs("TF", 1, {})), DType::kF32, {4},
               {3, 2, 2, 1});
  ExpectValues(RunRef1("tfidf_vectorizer", {x}, attrs("IDF", 0, {0.5, 1, 2, 4})), DType::kF32, {4},
               {0.5, 1, 2, 4});
  ExpectValues(RunRef1("tfidf_vectorizer", {x}, attrs("TFIDF", 0, {0.5, 1, 2, 4})), DType::kF32,
               {4}, {1.5, 2, 4, 4});
  const Tensor rows = Make(DType::kI32, {2, 3}, {2, 9, 1, 1, 2, 2});
  ExpectValues(RunRef1("tfidf_vectorizer", {rows}, attrs("TF", 1, {})), DType::kF32, {2, 4},
               {1, 1, 0, 1, 1, 2, 2, 0});
  ExpectValues(RunRef1("tfidf_vectorizer", {rows}, attrs("TF", 0, {})), DType::kF32, {2, 4},
               {1, 1, 0, 0, 1, 2, 1, 0});
}

}  // namespace
}  // namespace sy::cpu::test
