// The "Shape and data movement" reference kernels against NumPy reference files
// (tools/kernel_refs/movement.py -> tests/data/kernels/movement/) and hand-derived cases:
// empty tensors, scalars, bf16, NaN/inf, extreme attributes and every data-dependent
// error.
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

// Element-for-element: same dtype and shape, NaN where expected, exact unless rtol > 0.
void ExpectMatches(const Tensor& actual, const Tensor& expected, double rtol = 0.0) {
  ASSERT_EQ(DTypeName(actual.dtype()), DTypeName(expected.dtype()));
  ASSERT_EQ(actual.shape(), expected.shape());
  const std::vector<double> a = Values(actual);
  const std::vector<double> e = Values(expected);
  for (size_t i = 0; i < a.size(); ++i) {
    if (std::isnan(e[i])) {
      EXPECT_TRUE(std::isnan(a[i])) << "element " << i << " is " << a[i] << ", expected NaN";
    } else if (rtol == 0.0 || std::isinf(e[i])) {
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

Tensor Load(const std::string& file) { return LoadData("kernels/movement/" + file + ".npy"); }

// ---- NumPy reference files ----------------------------------------------------------

struct FileCase {
  std::string name;  // <name>_in<i>.npy, <name>_out<i>.npy
  std::string op;
  Attrs attrs;
  int inputs;
  int outputs = 1;
  double rtol = 0.0;
};

void RunFileCase(const FileCase& c) {
  SCOPED_TRACE(c.name + " (" + c.op + ")");
  std::vector<Tensor> inputs;
  for (int i = 0; i < c.inputs; ++i) {
    inputs.push_back(Load(c.name + "_in" + std::to_string(i)));
  }
  Expected<std::vector<Tensor>> out = RunRef(c.op, inputs, c.attrs, c.outputs);
  SY_ASSERT_OK(out);
  ASSERT_EQ(out->size(), static_cast<size_t>(c.outputs));
  for (int i = 0; i < c.outputs; ++i) {
    SCOPED_TRACE("output " + std::to_string(i));
    ExpectMatches((*out)[i], Load(c.name + "_out" + std::to_string(i)), c.rtol);
  }
}

// Attributes from a list (like sy::test::MakeAttrs, which lives outside this binary).
Attrs A(std::initializer_list<std::pair<std::string, AttrValue>> items) {
  Attrs attrs;
  for (const auto& [name, value] : items) attrs.Set(name, value);
  return attrs;
}

TEST(MovementRef, ReshapeTransposeExpandMatchNumpy) {
  const FileCase cases[] = {
      {"reshape_f32", "reshape", A({{"shape", I{4, 6}}}), 1},
      {"reshape_i8", "reshape", A({{"shape", I{0, -1, 2}}}), 1},
      {"transpose_f32", "transpose", A({{"perm", I{1, 2, 0}}}), 1},
      {"transpose_i8_default", "transpose", {}, 1},
      {"transpose_bool", "transpose", {}, 1},
      {"transpose_f16", "transpose", A({{"perm", I{3, 1, 0, 2}}}), 1},
      {"expand_f32", "expand", A({{"shape", I{2, 1, 4}}}), 1},
      {"expand_i64_smaller", "expand", A({{"shape", I{4, 1}}}), 1},
      {"expand_u8_scalar", "expand", A({{"shape", I{2, 2}}}), 1},
  };
  for (const FileCase& c : cases) RunFileCase(c);
}

TEST(MovementRef, ConcatSplitSliceMatchNumpy) {
  const FileCase cases[] = {
      {"concat_i32", "concat", A({{"axis", int64_t{-1}}}), 3},
      {"concat_f16", "concat", A({{"axis", int64_t{0}}}), 2},
      {"concat_bool", "concat", A({{"axis", int64_t{1}}}), 2},
      {"split_f64_sizes", "split", A({{"axis", int64_t{0}}, {"sizes", I{2, 0, 3}}}), 1, 3},
      {"split_u8_even", "split", A({{"axis", int64_t{-1}}}), 1, 3},
      {"slice_f32_basic", "slice",
       A({{"starts", I{1, 0}}, {"ends", I{4, 5}}, {"axes", I{0, 2}}, {"steps", I{1, 2}}}), 1},
      {"slice_f32_negative_steps", "slice",
       A({{"starts", I{-1, 100, 5}},
          {"ends", I{-100, 1, 0}},
          {"axes", I{0, 1, -1}},
          {"steps", I{-2, -1, -3}}}),
       1},
      {"slice_f32_clamped", "slice",
       A({{"starts", I{kMin, -3}}, {"ends", I{kMax, kMax}}, {"axes", I{1, 0}}, {"steps", I{1, 1}}}),
       1},
      {"slice_f32_reverse_all", "slice",
       A({{"starts", I{kMax}}, {"ends", I{kMin}}, {"axes", I{2}}, {"steps", I{-1}}}), 1},
      {"slice_i64_default_axes", "slice", A({{"starts", I{1, -4}}, {"ends", I{3, 1000}}}), 1},
      {"slice_bool_empty", "slice",
       A({{"starts", I{4}}, {"ends", I{2}}, {"axes", I{0}}, {"steps", I{1}}}), 1},
  };
  for (const FileCase& c : cases) RunFileCase(c);
}

TEST(MovementRef, GatherMatchesNumpy) {
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

TEST(MovementRef, ScatterElementsMatchesNumpy) {
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

TEST(MovementRef, PadTileRangeTriluMatchNumpy) {
  std::vector<FileCase> cases = {
      {"pad_f32_constant", "pad", A({{"pads", I{1, 0, 2, 3}}, {"value", 1.5}}), 1},
      {"pad_f32_reflect", "pad", A({{"pads", I{1, 2, 1, 2}}, {"mode", "reflect"}}), 1},
      {"pad_f32_edge", "pad", A({{"pads", I{2, 1, 0, 4}}, {"mode", "edge"}}), 1},
      {"pad_i32_constant_crop", "pad", A({{"pads", I{-1, 2, 1, -3}}, {"value", -7.0}}), 1},
      {"pad_i32_reflect_crop", "pad", A({{"pads", I{-2, 3, 2, -4}}, {"mode", "reflect"}}), 1},
      {"pad_i32_edge_crop", "pad", A({{"pads", I{2, -5, -3, 2}}, {"mode", "edge"}}), 1},
      {"pad_bool_constant", "pad", A({{"pads", I{0, 1, 0, 1, 0, 1}}, {"value", 1.0}}), 1},
      {"pad_f16_reflect", "pad", A({{"pads", I{2, 1, 2, 1}}, {"mode", "reflect"}}), 1},
      {"tile_f32", "tile", A({{"repeats", I{2, 3}}}), 1},
      {"tile_bool", "tile", A({{"repeats", I{2}}}), 1},
      {"tile_i64_zero_repeat", "tile", A({{"repeats", I{1, 0, 2}}}), 1},
      {"range_f32", "range", A({{"start", 1.0}, {"limit", 3.2}, {"delta", 0.3}, {"dtype", "f32"}}),
       0},
      {"range_f64_negative", "range",
       A({{"start", 5.0}, {"limit", -2.5}, {"delta", -1.25}, {"dtype", "f64"}}), 0},
      {"range_f16", "range",
       A({{"start", -1.0}, {"limit", 1.0}, {"delta", 0.125}, {"dtype", "f16"}}), 0},
      {"range_i32", "range",
       A({{"start", -3.0}, {"limit", 10.0}, {"delta", 4.0}, {"dtype", "i32"}}), 0},
      {"range_i8_wraps", "range",
       A({{"start", 120.0}, {"limit", 140.0}, {"delta", 5.0}, {"dtype", "i8"}}), 0},
      {"range_u8_empty", "range",
       A({{"start", 5.0}, {"limit", 5.0}, {"delta", 1.0}, {"dtype", "u8"}}), 0},
      {"trilu_i8_lower", "trilu", A({{"upper", int64_t{0}}}), 1},
      {"trilu_bool_upper_k1", "trilu", A({{"k", int64_t{1}}}), 1},
  };
  for (int64_t k : {0, 1, -1, 5, -5}) {
    // (Not "m" + std::to_string(-k): GCC 12 warns falsely on it, -Wrestrict.)
    std::string suffix = std::to_string(k < 0 ? -k : k);
    if (k < 0) suffix.insert(0, 1, 'm');
    for (int64_t upper : {1, 0}) {
      cases.push_back({"trilu_f32_" + std::string(upper ? "upper" : "lower") + "_k" + suffix,
                       "trilu", A({{"upper", upper}, {"k", k}}), 1});
    }
  }
  for (const FileCase& c : cases) RunFileCase(c);
}

// ---- hand-derived cases ------------------------------------------------------------

Tensor MakeI64(Shape shape, const std::vector<int64_t>& values) {
  Expected<Tensor> t = Tensor::Allocate(DType::kI64, std::move(shape));
  EXPECT_TRUE(t.ok());
  std::span<int64_t> v = t->mutable_values<int64_t>();
  EXPECT_EQ(v.size(), values.size());
  std::copy(values.begin(), values.end(), v.begin());
  return std::move(*t);
}

std::vector<int64_t> I64Values(const Tensor& t) {
  std::vector<int64_t> out;
  for (int64_t i = 0; i < t.element_count(); ++i) out.push_back(LoadInt(t.dtype(), t.data(), i));
  return out;
}

TEST(MovementRef, ReshapeHandlesScalarsEmptyAndBf16) {
  const Tensor b = Make(DType::kBF16, {2, 3}, {1, 2, 3, 4, 5, 6});
  ExpectValues(RunRef1("reshape", {b}, A({{"shape", I{3, -1}}})), DType::kBF16, {3, 2},
               {1, 2, 3, 4, 5, 6});
  const Tensor s = Make(DType::kF64, {}, {2.5});
  ExpectValues(RunRef1("reshape", {s}, A({{"shape", I{1, 1}}})), DType::kF64, {1, 1}, {2.5});
  ExpectValues(RunRef1("reshape", {Make(DType::kI32, {1}, {-4})}, A({{"shape", I{}}})), DType::kI32,
               {}, {-4});
  ExpectValues(RunRef1("reshape", {Make(DType::kF32, {0, 3}, {})}, A({{"shape", I{0, 1, 3}}})),
               DType::kF32, {0, 1, 3}, {});
}

TEST(MovementRef, TransposeHandlesScalarsEmptyBf16AndSpecialValues) {
  ExpectValues(RunRef1("transpose", {Make(DType::kI8, {}, {-3})}), DType::kI8, {}, {-3});
  ExpectValues(RunRef1("transpose", {Make(DType::kU8, {0, 2}, {})}), DType::kU8, {2, 0}, {});
  const Tensor b = Make(DType::kBF16, {2, 3}, {1, 2, 3, 4, 5, 6});
  ExpectValues(RunRef1("transpose", {b}, A({{"perm", I{1, 0}}})), DType::kBF16, {3, 2},
               {1, 4, 2, 5, 3, 6});
  const Tensor f = Make(DType::kF32, {2, 2}, {kNaN, kInf, -kInf, -0.0});
  const Tensor t = RunRef1("transpose", {f});
  ExpectValues(t, DType::kF32, {2, 2}, {kNaN, -kInf, kInf, -0.0});
  EXPECT_TRUE(std::signbit(Values(t)[3]));
}

TEST(MovementRef, ExpandHandlesEmptyAndBf16) {
  ExpectValues(RunRef1("expand", {Make(DType::kF32, {1, 3}, {1, 2, 3})}, A({{"shape", I{0, 1}}})),
               DType::kF32, {0, 3}, {});
  ExpectValues(RunRef1("expand", {Make(DType::kBF16, {2, 1}, {0.5, -8})}, A({{"shape", I{3}}})),
               DType::kBF16, {2, 3}, {0.5, 0.5, 0.5, -8, -8, -8});
  ExpectValues(RunRef1("expand", {Make(DType::kBool, {}, {1})}, A({{"shape", I{}}})), DType::kBool,
               {}, {1});
}

TEST(MovementRef, ConcatHandlesOneInputEmptyPiecesAndBf16) {
  ExpectValues(RunRef1("concat", {Make(DType::kI64, {2}, {7, 8})}, A({{"axis", int64_t{0}}})),
               DType::kI64, {2}, {7, 8});
  ExpectValues(RunRef1("concat", {Make(DType::kF32, {0, 2}, {}), Make(DType::kF32, {0, 2}, {})},
                       A({{"axis", int64_t{0}}})),
               DType::kF32, {0, 2}, {});
  ExpectValues(RunRef1("concat",
                       {Make(DType::kBF16, {1, 2}, {1, 2}), Make(DType::kBF16, {0, 2}, {}),
                        Make(DType::kBF16, {2, 2}, {3, 4, 5, 6})},
                       A({{"axis", int64_t{-2}}})),
               DType::kBF16, {3, 2}, {1, 2, 3, 4, 5, 6});
  // Empty outer dims: nothing to copy, shape still combines.
  ExpectValues(RunRef1("concat", {Make(DType::kU8, {0, 1}, {}), Make(DType::kU8, {0, 2}, {})},
                       A({{"axis", int64_t{1}}})),
               DType::kU8, {0, 3}, {});
}

TEST(MovementRef, SplitHandlesOneOutputEmptyPiecesAndBf16) {
  Expected<std::vector<Tensor>> one = RunRef("split", {Make(DType::kI8, {3}, {1, 2, 3})}, {}, 1);
  SY_ASSERT_OK(one);
  ExpectValues((*one)[0], DType::kI8, {3}, {1, 2, 3});
  Expected<std::vector<Tensor>> empty =
      RunRef("split", {Make(DType::kI32, {3, 0}, {})}, A({{"axis", int64_t{1}}}), 2);
  SY_ASSERT_OK(empty);
  ExpectValues((*empty)[0], DType::kI32, {3, 0}, {});
  ExpectValues((*empty)[1], DType::kI32, {3, 0}, {});
  Expected<std::vector<Tensor>> b =
      RunRef("split", {Make(DType::kBF16, {2, 3}, {1, 2, 3, 4, 5, 6})},
             A({{"axis", int64_t{1}}, {"sizes", I{1, 2}}}), 2);
  SY_ASSERT_OK(b);
  ExpectValues((*b)[0], DType::kBF16, {2, 1}, {1, 4});
  ExpectValues((*b)[1], DType::kBF16, {2, 2}, {2, 3, 5, 6});
}

TEST(MovementRef, SliceHandlesExtremeStepsEmptyScalarsAndBf16) {
  const Tensor x = Make(DType::kF32, {5}, {0, 1, 2, 3, 4});
  // start 4 (clamped), end -1 (clamped): one element with the most negative step.
  ExpectValues(
      RunRef1("slice", {x}, A({{"starts", I{kMax}}, {"ends", I{kMin}}, {"steps", I{kMin}}})),
      DType::kF32, {1}, {4});
  ExpectValues(RunRef1("slice", {x}, A({{"starts", I{0}}, {"ends", I{5}}, {"steps", I{kMax}}})),
               DType::kF32, {1}, {0});
  ExpectValues(RunRef1("slice", {x}, A({{"starts", I{-2}}, {"ends", I{-6}}, {"steps", I{-2}}})),
               DType::kF32, {2}, {3, 1});
  ExpectValues(RunRef1("slice", {Make(DType::kF32, {0}, {})},
                       A({{"starts", I{-1}}, {"ends", I{kMin}}, {"steps", I{-1}}})),
               DType::kF32, {0}, {});
  ExpectValues(RunRef1("slice", {Make(DType::kF32, {0, 3}, {})},
                       A({{"starts", I{1}}, {"ends", I{3}}, {"axes", I{1}}})),
               DType::kF32, {0, 2}, {});
  ExpectValues(RunRef1("slice", {Make(DType::kI64, {}, {9})}, A({{"starts", I{}}, {"ends", I{}}})),
               DType::kI64, {}, {9});
  ExpectValues(RunRef1("slice", {Make(DType::kBF16, {2, 3}, {1, 2, 3, 4, 5, 6})},
                       A({{"starts", I{-1, -1}}, {"ends", I{kMin, kMin}}, {"steps", I{-1, -2}}})),
               DType::kBF16, {2, 2}, {6, 4, 3, 1});
}

TEST(MovementRef, GatherHandlesScalarsBf16AndSpecialValues) {
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

TEST(MovementRef, GatherRejectsOutOfRangeIndices) {
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

TEST(MovementRef, GatherElementsHandlesEmptyBf16AndErrors) {
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

TEST(MovementRef, ScatterElementsHandWorkedCases) {
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

TEST(MovementRef, ScatterElementsRejectsOutOfRangeIndices) {
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
TEST(MovementRef, GatherNDOnnxExamples) {
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

TEST(MovementRef, GatherNDHandWorkedCases) {
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

TEST(MovementRef, GatherNDRejectsOutOfRangeIndices) {
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
TEST(MovementRef, ScatterNDOnnxExamples) {
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

TEST(MovementRef, ScatterNDHandWorkedCases) {
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

TEST(MovementRef, ScatterNDRejectsOutOfRangeIndices) {
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

TEST(MovementRef, PadHandlesScalarsEmptyHugePadsAndBf16) {
  ExpectValues(RunRef1("pad", {Make(DType::kF32, {}, {4})}, A({{"pads", I{}}})), DType::kF32, {},
               {4});
  ExpectValues(
      RunRef1("pad", {Make(DType::kF32, {0, 2}, {})}, A({{"pads", I{1, 0, 1, 0}}, {"value", 3.0}})),
      DType::kF32, {2, 2}, {3, 3, 3, 3});
  ExpectValues(RunRef1("pad", {Make(DType::kI8, {3}, {1, 2, 3})},
                       A({{"pads", I{2, 2}}, {"mode", "reflect"}})),
               DType::kI8, {7}, {3, 2, 1, 2, 3, 2, 1});
  ExpectValues(RunRef1("pad", {Make(DType::kBF16, {2}, {1.5, -2})},
                       A({{"pads", I{1, 2}}, {"mode", "edge"}})),
               DType::kBF16, {5}, {1.5, 1.5, -2, -2, -2});
  // A huge negative begin pad with a huge positive end pad: every position lies past the
  // end of the input (no overflow on the way).
  const Tensor x = Make(DType::kF32, {3}, {1, 2, 3});
  ExpectValues(RunRef1("pad", {x}, A({{"pads", I{kMin, kMax}}, {"mode", "edge"}})), DType::kF32,
               {2}, {3, 3});
  ExpectValues(RunRef1("pad", {x}, A({{"pads", I{kMin, kMax}}, {"value", -1.0}})), DType::kF32, {2},
               {-1, -1});
  ExpectValues(RunRef1("pad", {x}, A({{"pads", I{kMax - 4, 3 - kMax}}, {"value", 7.0}})),
               DType::kF32, {2}, {7, 7});
}

TEST(MovementRef, PadValueIsStoredLikeACast) {
  auto padded = [](DType dtype, double value) {
    return Values(RunRef1("pad", {Make(dtype, {0}, {})}, A({{"pads", I{1, 0}}, {"value", value}})))
        .at(0);
  };
  EXPECT_EQ(padded(DType::kI32, 2.9), 2);
  EXPECT_EQ(padded(DType::kI32, -2.9), -2);
  EXPECT_EQ(padded(DType::kU8, 300), 44);  // wraps
  EXPECT_EQ(padded(DType::kI8, kNaN), 0);
  EXPECT_EQ(padded(DType::kBool, 0.5), 1);
  EXPECT_EQ(padded(DType::kBool, 0.0), 0);
  EXPECT_EQ(padded(DType::kF16, -kInf), -kInf);
  EXPECT_TRUE(std::isnan(padded(DType::kBF16, kNaN)));
  const Tensor big = RunRef1("pad", {MakeI64({0}, {})}, A({{"pads", I{1, 0}}, {"value", 1e30}}));
  EXPECT_EQ(I64Values(big), (std::vector<int64_t>{kMax}));  // saturates
}

TEST(MovementRef, TileHandlesScalarsEmptyAndBf16) {
  ExpectValues(RunRef1("tile", {Make(DType::kF64, {}, {1.25})}, A({{"repeats", I{}}})), DType::kF64,
               {}, {1.25});
  ExpectValues(RunRef1("tile", {Make(DType::kI32, {0, 2}, {})}, A({{"repeats", I{3, 1}}})),
               DType::kI32, {0, 2}, {});
  ExpectValues(RunRef1("tile", {Make(DType::kBF16, {2, 1}, {1, 2})}, A({{"repeats", I{2, 2}}})),
               DType::kBF16, {4, 2}, {1, 1, 2, 2, 1, 1, 2, 2});
}

TEST(MovementRef, RangeHandWorkedCases) {
  ExpectValues(
      RunRef1("range", {}, A({{"start", 0.0}, {"limit", 2.0}, {"delta", 0.5}, {"dtype", "bf16"}})),
      DType::kBF16, {4}, {0, 0.5, 1, 1.5});
  ExpectValues(
      RunRef1("range", {}, A({{"start", 3.0}, {"limit", -3.0}, {"delta", -2.0}, {"dtype", "i64"}})),
      DType::kI64, {3}, {3, 1, -1});
  ExpectValues(
      RunRef1("range", {}, A({{"start", 1.0}, {"limit", 0.0}, {"delta", 1.0}, {"dtype", "f32"}})),
      DType::kF32, {0}, {});
  const double two53 = std::ldexp(1.0, 53);
  const Tensor big = RunRef1(
      "range", {}, A({{"start", two53}, {"limit", two53 + 4}, {"delta", 1.0}, {"dtype", "i64"}}));
  const int64_t b = int64_t{1} << 53;
  EXPECT_EQ(I64Values(big), (std::vector<int64_t>{b, b + 1, b + 2, b + 3}));
  // A start below int64's range saturates (unspecified, but it must not trap).
  const Tensor low =
      RunRef1("range", {},
              A({{"start", -1e19}, {"limit", -1e19 + 4096}, {"delta", 2048.0}, {"dtype", "i64"}}));
  EXPECT_EQ(I64Values(low), (std::vector<int64_t>{kMin, kMin + 2048}));
}

TEST(MovementRef, TriluHandlesEmptyExtremeKAndBf16) {
  ExpectValues(RunRef1("trilu", {Make(DType::kF32, {0, 3, 3}, {})}), DType::kF32, {0, 3, 3}, {});
  ExpectValues(RunRef1("trilu", {Make(DType::kF32, {2, 0, 3}, {})}), DType::kF32, {2, 0, 3}, {});
  const Tensor x = Make(DType::kI64, {2, 3}, {1, 2, 3, 4, 5, 6});
  ExpectValues(RunRef1("trilu", {x}, A({{"k", kMax}})), DType::kI64, {2, 3}, {0, 0, 0, 0, 0, 0});
  ExpectValues(RunRef1("trilu", {x}, A({{"k", kMin}})), DType::kI64, {2, 3}, {1, 2, 3, 4, 5, 6});
  ExpectValues(RunRef1("trilu", {x}, A({{"k", kMax}, {"upper", int64_t{0}}})), DType::kI64, {2, 3},
               {1, 2, 3, 4, 5, 6});
  ExpectValues(RunRef1("trilu", {x}, A({{"k", kMin}, {"upper", int64_t{0}}})), DType::kI64, {2, 3},
               {0, 0, 0, 0, 0, 0});
  ExpectValues(RunRef1("trilu", {Make(DType::kBF16, {2, 2}, {kNaN, 2, kInf, 4})}), DType::kBF16,
               {2, 2}, {kNaN, 2, 0, 4});
  ExpectValues(RunRef1("trilu", {Make(DType::kBF16, {2, 2}, {kNaN, 2, kInf, 4})},
                       A({{"upper", int64_t{0}}})),
               DType::kBF16, {2, 2}, {kNaN, 0, kInf, 4});
}

}  // namespace
}  // namespace sy::cpu::test
