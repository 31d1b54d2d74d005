// The movement family's reference kernels against NumPy reference files
// (tools/kernel_refs/movement.py -> tests/data/kernels/movement/; depth_to_space and
// space_to_depth from tools/kernel_refs/neural.py) and hand-derived cases:
// empty tensors, scalars, bf16, NaN/inf, extreme attributes and every data-dependent
// error.
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "movement_test_util.h"
#include "neural_test_util.h"

namespace sy::cpu::test {
namespace {

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

// IEEE 754: 1.0f is 0x3f800000, -2.0f 0xc0000000; 0x3c00 is f16 1.0.
TEST(MovementRef, BitcastKeepsTheBytes) {
  ExpectValues(
      RunRef1("bitcast", {Make(DType::kF32, {2}, {1, -2})}, A({{"to", std::string("i32")}})),
      DType::kI32, {2}, {1065353216, -1073741824});
  ExpectValues(
      RunRef1("bitcast", {Make(DType::kU16, {1}, {0x3c00})}, A({{"to", std::string("f16")}})),
      DType::kF16, {1}, {1});
  ExpectValues(
      RunRef1("bitcast", {Make(DType::kBool, {2}, {1, 0})}, A({{"to", std::string("u8")}})),
      DType::kU8, {2}, {1, 0});
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

// ---- depth_to_space, space_to_depth (NumPy references of tools/kernel_refs/neural.py) ----

constexpr DType kAllDTypes[] = {DType::kF32, DType::kF64, DType::kF16, DType::kBF16, DType::kI8,
                                DType::kU8,  DType::kI32, DType::kI64, DType::kBool};

TEST(MovementRefDepthToSpace, MatchesNumPyForEveryDTypeAndMode) {
  struct Case {
    const char* x;
    int64_t blocksize;
    const char* mode;
    const char* y;
  };
  for (const Case& c :
       {Case{"d2s_x", 2, "DCR", "d2s_dcr_y"}, Case{"d2s_x", 2, "CRD", "d2s_crd_y"},
        Case{"d2s_b3_x", 3, "DCR", "d2s_b3_dcr_y"}, Case{"d2s_b3_x", 3, "CRD", "d2s_b3_crd_y"}}) {
    for (DType dt : kAllDTypes) {
      const Tensor y = RunRef1("depth_to_space", {As(Ref(c.x), dt)},
                               MakeAttrs({{"blocksize", c.blocksize}, {"mode", c.mode}}));
      EXPECT_EQ(y.dtype(), dt);
      test::ExpectClose(y, As(Ref(c.y), dt), 0,
                        std::string(c.y) + " " + std::string(DTypeName(dt)));
    }
  }
}

TEST(MovementRefSpaceToDepth, MatchesNumPyForEveryDType) {
  for (const auto& [x, b, y] : {std::tuple{"s2d_x", int64_t{2}, "s2d_b2_y"},
                                std::tuple{"s2d_b3_x", int64_t{3}, "s2d_b3_y"}}) {
    for (DType dt : kAllDTypes) {
      const Tensor out = RunRef1("space_to_depth", {As(Ref(x), dt)}, MakeAttrs({{"blocksize", b}}));
      test::ExpectClose(out, As(Ref(y), dt), 0, std::string(y) + " " + std::string(DTypeName(dt)));
    }
  }
}

TEST(MovementRefDepthToSpace, HandValuesRoundTripAndEmpty) {
  // [1, 4, 1, 1] -> [1, 1, 2, 2]: DCR takes channels in order, CRD too when C' = 1.
  const Tensor x = Make(DType::kI32, {1, 4, 1, 1}, {1, 2, 3, 4});
  for (const char* mode : {"DCR", "CRD"}) {
    test::ExpectValues(
        RunRef1("depth_to_space", {x}, MakeAttrs({{"blocksize", int64_t{2}}, {"mode", mode}})),
        {1, 1, 2, 2}, {1, 2, 3, 4}, 0, mode);
  }
  // space_to_depth inverts DCR depth_to_space.
  const Tensor d = Ref("d2s_x");
  const Tensor up =
      RunRef1("depth_to_space", {d}, MakeAttrs({{"blocksize", int64_t{2}}, {"mode", "DCR"}}));
  test::ExpectClose(RunRef1("space_to_depth", {up}, MakeAttrs({{"blocksize", int64_t{2}}})), d, 0);
  EXPECT_EQ(RunRef1("depth_to_space", {Make(DType::kBool, {0, 4, 2, 2}, {})},
                    MakeAttrs({{"blocksize", int64_t{2}}}))
                .shape(),
            (Shape{0, 1, 4, 4}));
  EXPECT_EQ(RunRef1("space_to_depth", {Make(DType::kU8, {1, 0, 2, 4}, {})},
                    MakeAttrs({{"blocksize", int64_t{2}}}))
                .shape(),
            (Shape{1, 0, 1, 2}));
  SY_EXPECT_ERROR(RunRef("depth_to_space", {Make(DType::kF32, {1, 3, 1, 1}, {1, 2, 3})},
                         MakeAttrs({{"blocksize", int64_t{2}}})),
                  "divisible");
}

}  // namespace
}  // namespace sy::cpu::test
