// Shape rules of the shape and data movement ops (core/src/ops/movement_schemas.cpp).
// Expected shapes are derived by hand from the ONNX operator definitions.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "switchyard/op_schema.h"
#include "test_util.h"

namespace sy {
namespace {

using test::F32;
using test::Infer;
using test::MakeAttrs;
using test::Outputs;
using test::T;

constexpr int64_t kI64Max = std::numeric_limits<int64_t>::max();
constexpr int64_t kI64Min = std::numeric_limits<int64_t>::min();

AttrValue I(int64_t v) { return v; }
AttrValue Ints(std::initializer_list<int64_t> v) { return std::vector<int64_t>(v); }
AttrValue F(double v) { return v; }
AttrValue S(const char* v) { return std::string(v); }

// One f32 input, one f32 output of shape `want`.
::testing::AssertionResult F32Out(std::string_view op, Shape in, Attrs attrs, Shape want) {
  return Outputs(Infer(op, {F32(std::move(in))}, std::move(attrs)), {F32(std::move(want))});
}

// ---- registration, dtypes, defaults ----

TEST(MovementSchemas, AllRegisteredWithOnnxNames) {
  const std::vector<std::pair<const char*, const char*>> ops = {{"reshape", "Reshape"},
                                                                {"transpose", "Transpose"},
                                                                {"expand", "Expand"},
                                                                {"concat", "Concat"},
                                                                {"split", "Split"},
                                                                {"slice", "Slice"},
                                                                {"pad", "Pad"},
                                                                {"tile", "Tile"},
                                                                {"range", "Range"},
                                                                {"trilu", "Trilu"},
                                                                {"depth_to_space", "DepthToSpace"},
                                                                {"space_to_depth", "SpaceToDepth"}};
  for (const auto& [name, onnx] : ops) {
    const OpSchema* s = OpRegistry::Global().Find(name);
    ASSERT_NE(s, nullptr) << name;
    EXPECT_EQ(s->onnx_name, onnx);
    EXPECT_EQ(s->family, "movement") << name;
  }
}

TEST(MovementSchemas, TakeEveryDType) {
  for (DType d : {DType::kF32, DType::kF16, DType::kBF16, DType::kF64, DType::kI8, DType::kU8,
                  DType::kI32, DType::kI64, DType::kBool}) {
    SCOPED_TRACE(std::string(DTypeName(d)));
    EXPECT_TRUE(
        Outputs(Infer("reshape", {T(d, {2, 3})}, MakeAttrs({{"shape", Ints({6})}})), {T(d, {6})}));
    EXPECT_TRUE(Outputs(Infer("transpose", {T(d, {2, 3})}), {T(d, {3, 2})}));
    EXPECT_TRUE(
        Outputs(Infer("concat", {T(d, {2}), T(d, {3})}, MakeAttrs({{"axis", I(0)}})), {T(d, {5})}));
    EXPECT_TRUE(Outputs(Infer("gather", {T(d, {4}), T(DType::kI32, {2})}), {T(d, {2})}));
    EXPECT_TRUE(
        Outputs(Infer("gather_nd", {T(d, {4, 3}), T(DType::kI64, {2, 1})}), {T(d, {2, 3})}));
    EXPECT_TRUE(Outputs(Infer("scatter_nd", {T(d, {4, 3}), T(DType::kI32, {2, 2}), T(d, {2})}),
                        {T(d, {4, 3})}));
    EXPECT_TRUE(
        Outputs(Infer("pad", {T(d, {2})}, MakeAttrs({{"pads", Ints({1, 1})}})), {T(d, {4})}));
    EXPECT_TRUE(Outputs(Infer("trilu", {T(d, {2, 2})}), {T(d, {2, 2})}));
  }
}

TEST(MovementSchemas, DefaultsAreFilledIn) {
  const OpSchema* pad = OpRegistry::Global().Find("pad");
  ASSERT_NE(pad, nullptr);
  const std::vector<TensorType> in = {F32({2})};
  Attrs attrs = MakeAttrs({{"pads", Ints({0, 0})}});
  SY_ASSERT_OK(InferOutputTypes(*pad, in, attrs, 1));
  EXPECT_EQ(attrs.GetString("mode"), "constant");
  EXPECT_EQ(attrs.GetFloat("value", -1.0), 0.0);

  const OpSchema* scatter = OpRegistry::Global().Find("scatter_elements");
  ASSERT_NE(scatter, nullptr);
  const std::vector<TensorType> sin = {F32({3}), T(DType::kI64, {2}), F32({2})};
  Attrs sattrs;
  SY_ASSERT_OK(InferOutputTypes(*scatter, sin, sattrs, 1));
  EXPECT_EQ(sattrs.GetString("reduction"), "none");
  EXPECT_EQ(sattrs.GetInt("axis", -1), 0);

  const OpSchema* gather_nd = OpRegistry::Global().Find("gather_nd");
  ASSERT_NE(gather_nd, nullptr);
  const std::vector<TensorType> gin = {F32({3}), T(DType::kI64, {1})};
  Attrs gattrs;
  SY_ASSERT_OK(InferOutputTypes(*gather_nd, gin, gattrs, 1));
  EXPECT_EQ(gattrs.GetInt("batch_dims", -1), 0);

  const OpSchema* scatter_nd = OpRegistry::Global().Find("scatter_nd");
  ASSERT_NE(scatter_nd, nullptr);
  const std::vector<TensorType> ndin = {F32({3}), T(DType::kI64, {2, 1}), F32({2})};
  Attrs ndattrs;
  SY_ASSERT_OK(InferOutputTypes(*scatter_nd, ndin, ndattrs, 1));
  EXPECT_EQ(ndattrs.GetString("reduction"), "none");

  const OpSchema* trilu = OpRegistry::Global().Find("trilu");
  ASSERT_NE(trilu, nullptr);
  const std::vector<TensorType> tin = {F32({2, 2})};
  Attrs tattrs;
  SY_ASSERT_OK(InferOutputTypes(*trilu, tin, tattrs, 1));
  EXPECT_EQ(tattrs.GetInt("upper", -1), 1);
  EXPECT_EQ(tattrs.GetInt("k", -1), 0);
}

TEST(MovementSchemas, BitcastKeepsTheElementSize) {
  SY_EXPECT_ERROR(Infer("bitcast", {F32({2})}, MakeAttrs({{"to", std::string("i64")}})),
                  "bitcast keeps the element size");
  SY_EXPECT_ERROR(Infer("bitcast", {T(DType::kU8, {2})}, MakeAttrs({{"to", std::string("bool")}})),
                  "must be one of");
}

TEST(MovementSchemas, SingleInputOpsRejectWrongArity) {
  SY_EXPECT_ERROR(Infer("reshape", {F32({2}), F32({2})}, MakeAttrs({{"shape", Ints({2})}})),
                  "takes 1 input but has 2");
  SY_EXPECT_ERROR(Infer("transpose", {}), "takes 1 input but has 0");
  SY_EXPECT_ERROR(Infer("transpose", {F32({2})}, {}, 2), "produces 1 output but the node lists 2");
  SY_EXPECT_ERROR(Infer("transpose", {F32({2})}, MakeAttrs({{"axis", I(0)}})),
                  "unknown attribute axis");
}

// ---- reshape ----

TEST(MovementReshape, InfersMinusOneAndCopiesZeros) {
  EXPECT_TRUE(F32Out("reshape", {2, 3, 4}, MakeAttrs({{"shape", Ints({4, -1})}}), {4, 6}));
  EXPECT_TRUE(F32Out("reshape", {2, 3, 4}, MakeAttrs({{"shape", Ints({0, -1})}}), {2, 12}));
  EXPECT_TRUE(F32Out("reshape", {2, 3, 4}, MakeAttrs({{"shape", Ints({-1})}}), {24}));
  EXPECT_TRUE(F32Out("reshape", {2, 3, 4}, MakeAttrs({{"shape", Ints({0, 0, 4})}}), {2, 3, 4}));
  EXPECT_TRUE(F32Out("reshape", {2, 3, 4}, MakeAttrs({{"shape", Ints({-1, 0, 2})}}), {4, 3, 2}));
  EXPECT_TRUE(F32Out("reshape", {2, 3, 4}, MakeAttrs({{"shape", Ints({6, 2, 2})}}), {6, 2, 2}));
}

TEST(MovementReshape, Scalars) {
  EXPECT_TRUE(F32Out("reshape", {}, MakeAttrs({{"shape", Ints({})}}), {}));
  EXPECT_TRUE(F32Out("reshape", {}, MakeAttrs({{"shape", Ints({1, 1})}}), {1, 1}));
  EXPECT_TRUE(F32Out("reshape", {1, 1}, MakeAttrs({{"shape", Ints({})}}), {}));
  EXPECT_TRUE(F32Out("reshape", {}, MakeAttrs({{"shape", Ints({-1})}}), {1}));
}

TEST(MovementReshape, EmptyTensors) {
  EXPECT_TRUE(F32Out("reshape", {0, 3}, MakeAttrs({{"shape", Ints({-1, 3})}}), {0, 3}));
  // Index 1 copies 3; the -1 is 0 / 9 = 0.
  EXPECT_TRUE(F32Out("reshape", {0, 3}, MakeAttrs({{"shape", Ints({3, 0, -1})}}), {3, 3, 0}));
}

// allowzero = 1 (ONNX's, as the dynamo exporter writes it): a 0 is a dim of 0.
TEST(MovementReshape, AllowZeroKeepsZeros) {
  EXPECT_TRUE(
      F32Out("reshape", {0, 3}, MakeAttrs({{"shape", Ints({3, 0})}, {"allowzero", I(1)}}), {3, 0}));
  EXPECT_TRUE(F32Out("reshape", {2, 0, 4},
                     MakeAttrs({{"shape", Ints({0, 2, 4})}, {"allowzero", I(1)}}), {0, 2, 4}));
  EXPECT_TRUE(
      F32Out("reshape", {2, 3}, MakeAttrs({{"shape", Ints({3, 2})}, {"allowzero", I(0)}}), {3, 2}));
  SY_EXPECT_ERROR(
      Infer("reshape", {F32({2, 3})}, MakeAttrs({{"shape", Ints({0, 6})}, {"allowzero", I(1)}})),
      "gives 0 elements");
  SY_EXPECT_ERROR(
      Infer("reshape", {F32({2, 3})}, MakeAttrs({{"shape", Ints({6})}, {"allowzero", I(2)}})),
      "allowzero");
}

TEST(MovementReshape, Errors) {
  SY_EXPECT_ERROR(Infer("reshape", {F32({2, 3})}, MakeAttrs({{"shape", Ints({5})}})),
                  "gives 5 elements but input x of shape [2, 3] has 6");
  SY_EXPECT_ERROR(Infer("reshape", {F32({2, 3})}, MakeAttrs({{"shape", Ints({-1, -1})}})),
                  "more than one -1");
  SY_EXPECT_ERROR(Infer("reshape", {F32({2, 3})}, MakeAttrs({{"shape", Ints({4, -1})}})),
                  "cannot reshape input x of shape [2, 3]");
  SY_EXPECT_ERROR(Infer("reshape", {F32({2, 3})}, MakeAttrs({{"shape", Ints({-2, 3})}})),
                  "entries must be >= -1");
  SY_EXPECT_ERROR(Infer("reshape", {F32({6})}, MakeAttrs({{"shape", Ints({3, 0})}})),
                  "has 0 at index 1");
  SY_EXPECT_ERROR(Infer("reshape", {F32({6})}), "missing required attribute shape");
  // 0 copies the input dim, so [0, 3] -> [3, 0] means [3, 3]: 9 elements, not 0.
  SY_EXPECT_ERROR(Infer("reshape", {F32({0, 3})}, MakeAttrs({{"shape", Ints({3, 0})}})),
                  "gives 9 elements");
  // The -1 of an empty tensor is ambiguous when the other dims multiply to 0.
  SY_EXPECT_ERROR(Infer("reshape", {F32({0, 3})}, MakeAttrs({{"shape", Ints({0, -1})}})),
                  "does not determine the -1");
}

// ---- transpose ----

TEST(MovementTranspose, DefaultReversesAndPermIsApplied) {
  EXPECT_TRUE(F32Out("transpose", {2, 3, 4}, {}, {4, 3, 2}));
  EXPECT_TRUE(F32Out("transpose", {2, 3, 4}, MakeAttrs({{"perm", Ints({1, 0, 2})}}), {3, 2, 4}));
  EXPECT_TRUE(F32Out("transpose", {2, 3, 4}, MakeAttrs({{"perm", Ints({2, 0, 1})}}), {4, 2, 3}));
  EXPECT_TRUE(F32Out("transpose", {}, {}, {}));
  EXPECT_TRUE(F32Out("transpose", {}, MakeAttrs({{"perm", Ints({})}}), {}));
  EXPECT_TRUE(F32Out("transpose", {0, 5}, {}, {5, 0}));
}

TEST(MovementTranspose, Errors) {
  SY_EXPECT_ERROR(Infer("transpose", {F32({2, 3, 4})}, MakeAttrs({{"perm", Ints({0, 0, 1})}})),
                  "is not a permutation of 0..2");
  SY_EXPECT_ERROR(Infer("transpose", {F32({2, 3, 4})}, MakeAttrs({{"perm", Ints({0, 1, 3})}})),
                  "is not a permutation");
  SY_EXPECT_ERROR(Infer("transpose", {F32({2, 3, 4})}, MakeAttrs({{"perm", Ints({-1, 0, 1})}})),
                  "is not a permutation");
  SY_EXPECT_ERROR(Infer("transpose", {F32({2, 3, 4})}, MakeAttrs({{"perm", Ints({1, 0})}})),
                  "has 2 entries but input x has rank 3");
  SY_EXPECT_ERROR(Infer("transpose", {F32({2, 3})}, MakeAttrs({{"perm", S("0,1")}})),
                  "attribute perm is");
}

// ---- expand ----

TEST(MovementExpand, BroadcastsBothWays) {
  EXPECT_TRUE(F32Out("expand", {3, 1}, MakeAttrs({{"shape", Ints({2, 1, 6})}}), {2, 3, 6}));
  EXPECT_TRUE(F32Out("expand", {3, 1}, MakeAttrs({{"shape", Ints({3, 4})}}), {3, 4}));
  // shape may be shorter or have 1s where the input is larger (ONNX Expand is
  // bidirectional).
  EXPECT_TRUE(F32Out("expand", {2, 3}, MakeAttrs({{"shape", Ints({1})}}), {2, 3}));
  EXPECT_TRUE(F32Out("expand", {2, 3}, MakeAttrs({{"shape", Ints({3})}}), {2, 3}));
  EXPECT_TRUE(F32Out("expand", {2, 3}, MakeAttrs({{"shape", Ints({})}}), {2, 3}));
  EXPECT_TRUE(F32Out("expand", {}, MakeAttrs({{"shape", Ints({2, 2})}}), {2, 2}));
  EXPECT_TRUE(F32Out("expand", {1}, MakeAttrs({{"shape", Ints({0})}}), {0}));
  EXPECT_TRUE(F32Out("expand", {0, 1}, MakeAttrs({{"shape", Ints({1, 5})}}), {0, 5}));
}

TEST(MovementExpand, Errors) {
  SY_EXPECT_ERROR(Infer("expand", {F32({3})}, MakeAttrs({{"shape", Ints({4})}})),
                  "attribute shape [4] does not broadcast with input x's shape [3]");
  SY_EXPECT_ERROR(Infer("expand", {F32({1})}, MakeAttrs({{"shape", Ints({-1})}})),
                  "negative entry");
  SY_EXPECT_ERROR(Infer("expand", {F32({1})}), "missing required attribute shape");
}

// ---- concat ----

TEST(MovementConcat, JoinsOnAxis) {
  EXPECT_TRUE(Outputs(Infer("concat", {F32({2, 3}), F32({2, 5})}, MakeAttrs({{"axis", I(1)}})),
                      {F32({2, 8})}));
  EXPECT_TRUE(Outputs(Infer("concat", {F32({2, 3}), F32({2, 5})}, MakeAttrs({{"axis", I(-1)}})),
                      {F32({2, 8})}));
  EXPECT_TRUE(
      Outputs(Infer("concat", {F32({2, 3}), F32({4, 3}), F32({1, 3})}, MakeAttrs({{"axis", I(0)}})),
              {F32({7, 3})}));
  EXPECT_TRUE(Outputs(Infer("concat", {F32({2, 3})}, MakeAttrs({{"axis", I(-2)}})), {F32({2, 3})}));
  EXPECT_TRUE(Outputs(Infer("concat", {F32({0, 3}), F32({2, 3})}, MakeAttrs({{"axis", I(0)}})),
                      {F32({2, 3})}));
  EXPECT_TRUE(Outputs(Infer("concat", {F32({0, 3}), F32({0, 3})}, MakeAttrs({{"axis", I(0)}})),
                      {F32({0, 3})}));
}

TEST(MovementConcat, Errors) {
  const Attrs axis0 = MakeAttrs({{"axis", I(0)}});
  const Attrs axis1 = MakeAttrs({{"axis", I(1)}});
  SY_EXPECT_ERROR(Infer("concat", {}, axis0), "takes at least 1 input");
  SY_EXPECT_ERROR(Infer("concat", {F32({2}), F32({2})}), "missing required attribute axis");
  SY_EXPECT_ERROR(Infer("concat", {F32({}), F32({})}, axis0),
                  "input 0 has shape [] but must have rank at least 1");
  SY_EXPECT_ERROR(Infer("concat", {F32({2, 3}), F32({2, 3})}, MakeAttrs({{"axis", I(2)}})),
                  "attribute axis 2 is out of range for rank 2");
  SY_EXPECT_ERROR(Infer("concat", {F32({2, 3}), F32({2, 3})}, MakeAttrs({{"axis", I(-3)}})),
                  "out of range");
  SY_EXPECT_ERROR(Infer("concat", {F32({2, 3}), F32({2, 3, 1})}, axis1),
                  "input 1 has shape [2, 3, 1] but must match input 0's shape [2, 3] except on "
                  "axis 1");
  SY_EXPECT_ERROR(Infer("concat", {F32({2, 3}), F32({2, 3}), F32({3, 3})}, axis1),
                  "input 2 has shape [3, 3]");
  SY_EXPECT_ERROR(Infer("concat", {F32({2, 3}), T(DType::kI32, {2, 3})}, axis0),
                  "input 1 (inputs) has dtype i32 but must match input 0 (f32)");
}

// ---- split ----

TEST(MovementSplit, EvenAndUnevenByOutputCount) {
  EXPECT_TRUE(
      Outputs(Infer("split", {F32({6, 4})}, {}, 3), {F32({2, 4}), F32({2, 4}), F32({2, 4})}));
  // 7 into 3: chunks of ceil(7/3) = 3, the last smaller: 3, 3, 1.
  EXPECT_TRUE(
      Outputs(Infer("split", {F32({7, 4})}, {}, 3), {F32({3, 4}), F32({3, 4}), F32({1, 4})}));
  // 4 into 3: 2, 2, 0 (ONNX's shape inference gives the same).
  EXPECT_TRUE(Outputs(Infer("split", {F32({4})}, {}, 3), {F32({2}), F32({2}), F32({0})}));
  EXPECT_TRUE(Outputs(Infer("split", {F32({2, 10})}, MakeAttrs({{"axis", I(-1)}}), 4),
                      {F32({2, 3}), F32({2, 3}), F32({2, 3}), F32({2, 1})}));
  EXPECT_TRUE(Outputs(Infer("split", {F32({5, 6})}), {F32({5, 6})}));
  EXPECT_TRUE(Outputs(Infer("split", {F32({0, 3})}, {}, 2), {F32({0, 3}), F32({0, 3})}));
  EXPECT_TRUE(Outputs(Infer("split", {T(DType::kBool, {1, 4})}, MakeAttrs({{"axis", I(1)}}), 2),
                      {T(DType::kBool, {1, 2}), T(DType::kBool, {1, 2})}));
}

TEST(MovementSplit, BySizes) {
  EXPECT_TRUE(Outputs(
      Infer("split", {F32({2, 10})}, MakeAttrs({{"axis", I(-1)}, {"sizes", Ints({3, 7})}}), 2),
      {F32({2, 3}), F32({2, 7})}));
  EXPECT_TRUE(Outputs(
      Infer("split", {F32({2, 10})}, MakeAttrs({{"axis", I(1)}, {"sizes", Ints({0, 10})}}), 2),
      {F32({2, 0}), F32({2, 10})}));
  EXPECT_TRUE(Outputs(Infer("split", {F32({6})}, MakeAttrs({{"sizes", Ints({1, 2, 3})}}), 3),
                      {F32({1}), F32({2}), F32({3})}));
  EXPECT_TRUE(
      Outputs(Infer("split", {F32({0})}, MakeAttrs({{"sizes", Ints({0})}}), 1), {F32({0})}));
}

TEST(MovementSplit, Errors) {
  // 5 into 4: chunks of 2 would leave -1 for the last.
  SY_EXPECT_ERROR(Infer("split", {F32({5, 6})}, {}, 4), "cannot be split into 4 chunks");
  SY_EXPECT_ERROR(Infer("split", {F32({6})}, MakeAttrs({{"sizes", Ints({1, 2, 3})}}), 2),
                  "has 3 entries but the node lists 2 outputs");
  SY_EXPECT_ERROR(Infer("split", {F32({6})}, MakeAttrs({{"sizes", Ints({})}}), 1),
                  "has 0 entries but the node lists 1 outputs");
  SY_EXPECT_ERROR(Infer("split", {F32({6})}, MakeAttrs({{"sizes", Ints({2, 3})}}), 2),
                  "sums to 5 but input x has shape [6]");
  SY_EXPECT_ERROR(Infer("split", {F32({6})}, MakeAttrs({{"sizes", Ints({-1, 7})}}), 2),
                  "negative entry");
  SY_EXPECT_ERROR(Infer("split", {F32({})}, {}, 1), "must have rank at least 1");
  SY_EXPECT_ERROR(Infer("split", {F32({2, 2})}, MakeAttrs({{"axis", I(2)}}), 2),
                  "attribute axis 2 is out of range");
  SY_EXPECT_ERROR(Infer("split", {F32({2})}, {}, 0), "produces at least 1 output");
}

// ---- slice ----

::testing::AssertionResult Slice1D(int64_t dim, int64_t start, int64_t end, int64_t step,
                                   int64_t want) {
  return F32Out(
      "slice", {dim},
      MakeAttrs({{"starts", Ints({start})}, {"ends", Ints({end})}, {"steps", Ints({step})}}),
      {want});
}

TEST(MovementSlice, PositiveSteps) {
  EXPECT_TRUE(Slice1D(10, 2, 7, 1, 5));
  EXPECT_TRUE(Slice1D(10, 0, 10, 3, 4));  // 0 3 6 9
  EXPECT_TRUE(Slice1D(10, 2, 7, 10, 1));
  EXPECT_TRUE(Slice1D(10, 0, 10, kI64Max, 1));
  EXPECT_TRUE(Slice1D(10, -3, kI64Max, 1, 3));  // 7 8 9
  EXPECT_TRUE(Slice1D(10, kI64Min, kI64Max, 1, 10));
  EXPECT_TRUE(Slice1D(10, 20, 30, 1, 0));  // start clamped to 10
  EXPECT_TRUE(Slice1D(10, -20, 3, 1, 3));  // start -10 clamped to 0
  EXPECT_TRUE(Slice1D(10, -1, -1, 1, 0));
  EXPECT_TRUE(Slice1D(10, 7, 2, 1, 0));    // end before start
  EXPECT_TRUE(Slice1D(10, 1, -20, 1, 0));  // end clamped to 0
  // Without steps: the default is 1.
  EXPECT_TRUE(F32Out("slice", {10}, MakeAttrs({{"starts", Ints({1})}, {"ends", Ints({-1})}}), {8}));
}

TEST(MovementSlice, NegativeSteps) {
  EXPECT_TRUE(Slice1D(10, -1, kI64Min, -1, 10));       // 9 down to 0
  EXPECT_TRUE(Slice1D(10, kI64Max, kI64Min, -1, 10));  // start clamped to 9, end to -1
  EXPECT_TRUE(Slice1D(10, 8, 1, -3, 3));               // 8 5 2
  EXPECT_TRUE(Slice1D(10, 20, 0, -2, 5));              // 9 7 5 3 1 (0 excluded)
  EXPECT_TRUE(Slice1D(10, 5, -1, -1, 0));              // end -1 means 9: nothing
  EXPECT_TRUE(Slice1D(10, 5, -11, -1, 6));             // end -1 after wrap: 5 down to 0
  EXPECT_TRUE(Slice1D(10, -20, kI64Min, -1, 1));       // start clamped to 0, end to -1: 0
  EXPECT_TRUE(Slice1D(10, 9, kI64Min, kI64Min, 1));    // 9 only
  EXPECT_TRUE(Slice1D(10, 3, 3, -1, 0));
}

TEST(MovementSlice, EmptyDims) {
  EXPECT_TRUE(Slice1D(0, 0, 5, 1, 0));
  EXPECT_TRUE(Slice1D(0, -1, kI64Min, -1, 0));
  EXPECT_TRUE(Slice1D(0, kI64Max, kI64Min, -2, 0));
  EXPECT_TRUE(F32Out("slice", {0, 4},
                     MakeAttrs({{"starts", Ints({1})}, {"ends", Ints({3})}, {"axes", Ints({1})}}),
                     {0, 2}));
}

TEST(MovementSlice, AxesSelectDims) {
  EXPECT_TRUE(F32Out(
      "slice", {3, 4, 5},
      MakeAttrs({{"starts", Ints({1, 0})}, {"ends", Ints({3, -1})}, {"axes", Ints({0, -1})}}),
      {2, 4, 4}));
  // Axes in any order.
  EXPECT_TRUE(F32Out("slice", {3, 4, 5},
                     MakeAttrs({{"starts", Ints({0, 1})},
                                {"ends", Ints({2, 3})},
                                {"axes", Ints({2, 1})},
                                {"steps", Ints({1, -1})}}),
                     {3, 0, 2}));
  // Without axes: the first starts.size() dims.
  EXPECT_TRUE(F32Out("slice", {3, 4, 5}, MakeAttrs({{"starts", Ints({1})}, {"ends", Ints({2})}}),
                     {1, 4, 5}));
  // Nothing to slice: identity, also for scalars.
  EXPECT_TRUE(F32Out("slice", {}, MakeAttrs({{"starts", Ints({})}, {"ends", Ints({})}}), {}));
}

TEST(MovementSlice, Errors) {
  SY_EXPECT_ERROR(
      Infer("slice", {F32({10})},
            MakeAttrs({{"starts", Ints({0})}, {"ends", Ints({5})}, {"steps", Ints({0})}})),
      "attribute steps [0] has a 0 entry");
  SY_EXPECT_ERROR(
      Infer("slice", {F32({10, 10})}, MakeAttrs({{"starts", Ints({0, 0})}, {"ends", Ints({5})}})),
      "attribute ends has 1 entries but must have 2 (one per entry of starts)");
  SY_EXPECT_ERROR(
      Infer("slice", {F32({10, 10})},
            MakeAttrs({{"starts", Ints({0})}, {"ends", Ints({5})}, {"axes", Ints({0, 1})}})),
      "attribute axes has 2 entries but must have 1");
  SY_EXPECT_ERROR(
      Infer("slice", {F32({10, 10})},
            MakeAttrs({{"starts", Ints({0})}, {"ends", Ints({5})}, {"steps", Ints({1, 1})}})),
      "attribute steps has 2 entries but must have 1");
  SY_EXPECT_ERROR(
      Infer("slice", {F32({10, 10})},
            MakeAttrs({{"starts", Ints({0, 0})}, {"ends", Ints({5, 5})}, {"axes", Ints({0, -2})}})),
      "names axis 0 twice");
  SY_EXPECT_ERROR(
      Infer("slice", {F32({10, 10})},
            MakeAttrs({{"starts", Ints({0})}, {"ends", Ints({5})}, {"axes", Ints({2})}})),
      "attribute axes entry 2 is out of range for rank 2");
  SY_EXPECT_ERROR(
      Infer("slice", {F32({10})}, MakeAttrs({{"starts", Ints({0, 0})}, {"ends", Ints({1, 1})}})),
      "attribute starts has 2 entries but input x has rank 1");
  SY_EXPECT_ERROR(Infer("slice", {F32({10})}, MakeAttrs({{"starts", Ints({0})}})),
                  "missing required attribute ends");
}

// ---- pad ----

TEST(MovementPad, BeginsThenEnds) {
  // [x1_begin, x2_begin, x1_end, x2_end]: dim 0 gets 1 + 3, dim 1 gets 2 + 4.
  EXPECT_TRUE(F32Out("pad", {2, 3}, MakeAttrs({{"pads", Ints({1, 2, 3, 4})}}), {6, 9}));
  EXPECT_TRUE(
      F32Out("pad", {2, 3}, MakeAttrs({{"pads", Ints({0, 1, 0, 1})}, {"value", F(1.5)}}), {2, 5}));
  EXPECT_TRUE(F32Out("pad", {}, MakeAttrs({{"pads", Ints({})}}), {}));
  EXPECT_TRUE(F32Out("pad", {0, 3}, MakeAttrs({{"pads", Ints({1, 0, 0, 0})}}), {1, 3}));
  // An integer value is accepted as a float.
  EXPECT_TRUE(F32Out("pad", {2}, MakeAttrs({{"pads", Ints({1, 0})}, {"value", I(3)}}), {3}));
}

TEST(MovementPad, NegativePadsCrop) {
  EXPECT_TRUE(F32Out("pad", {4, 5}, MakeAttrs({{"pads", Ints({-1, 0, -2, 1})}}), {1, 6}));
  EXPECT_TRUE(F32Out("pad", {2, 3}, MakeAttrs({{"pads", Ints({-1, 0, -1, 0})}}), {0, 3}));
}

TEST(MovementPad, ReflectAndEdge) {
  EXPECT_TRUE(F32Out("pad", {3, 3},
                     MakeAttrs({{"pads", Ints({2, 0, 2, 0})}, {"mode", S("reflect")}}), {7, 3}));
  EXPECT_TRUE(F32Out("pad", {3, 3}, MakeAttrs({{"pads", Ints({5, 0, 5, 0})}, {"mode", S("edge")}}),
                     {13, 3}));
  // Zero pads of an empty dim are fine in every mode.
  EXPECT_TRUE(F32Out("pad", {0, 3},
                     MakeAttrs({{"pads", Ints({0, 1, 0, 1})}, {"mode", S("reflect")}}), {0, 5}));
  EXPECT_TRUE(F32Out("pad", {0, 3}, MakeAttrs({{"pads", Ints({0, 1, 0, 1})}, {"mode", S("edge")}}),
                     {0, 5}));
}

TEST(MovementPad, Errors) {
  SY_EXPECT_ERROR(Infer("pad", {F32({2, 3})}, MakeAttrs({{"pads", Ints({1, 1})}})),
                  "has 2 entries but input x has rank 2 (2 per dimension");
  SY_EXPECT_ERROR(Infer("pad", {F32({2, 3})}, MakeAttrs({{"pads", Ints({-2, 0, -1, 0})}})),
                  "crops dimension 0 of input x's shape [2, 3] to -1");
  SY_EXPECT_ERROR(Infer("pad", {F32({3, 3})},
                        MakeAttrs({{"pads", Ints({3, 0, 0, 0})}, {"mode", S("reflect")}})),
                  "reflect mode needs pads smaller than the dimension");
  SY_EXPECT_ERROR(Infer("pad", {F32({3, 3})},
                        MakeAttrs({{"pads", Ints({0, 0, 0, 4})}, {"mode", S("reflect")}})),
                  "pads dimension 1 by 4");
  SY_EXPECT_ERROR(
      Infer("pad", {F32({0, 3})}, MakeAttrs({{"pads", Ints({1, 0, 0, 0})}, {"mode", S("edge")}})),
      "edge mode cannot pad an empty dimension");
  SY_EXPECT_ERROR(
      Infer("pad", {F32({2})}, MakeAttrs({{"pads", Ints({1, 1})}, {"mode", S("wrap")}})),
      "attribute mode is \"wrap\" but must be one of: constant, reflect, edge");
  SY_EXPECT_ERROR(Infer("pad", {F32({2})}), "missing required attribute pads");
  SY_EXPECT_ERROR(Infer("pad", {F32({2})}, MakeAttrs({{"pads", Ints({kI64Max, 1})}})), "overflows");
}

// ---- tile ----

TEST(MovementTile, MultipliesDims) {
  EXPECT_TRUE(F32Out("tile", {2, 3}, MakeAttrs({{"repeats", Ints({2, 2})}}), {4, 6}));
  EXPECT_TRUE(F32Out("tile", {2, 3}, MakeAttrs({{"repeats", Ints({1, 4})}}), {2, 12}));
  EXPECT_TRUE(F32Out("tile", {2, 3}, MakeAttrs({{"repeats", Ints({0, 1})}}), {0, 3}));
  EXPECT_TRUE(F32Out("tile", {0, 3}, MakeAttrs({{"repeats", Ints({5, 1})}}), {0, 3}));
  EXPECT_TRUE(F32Out("tile", {}, MakeAttrs({{"repeats", Ints({})}}), {}));
}

TEST(MovementTile, Errors) {
  SY_EXPECT_ERROR(Infer("tile", {F32({2, 3})}, MakeAttrs({{"repeats", Ints({2})}})),
                  "attribute repeats [2] has 1 entries but input x has rank 2");
  SY_EXPECT_ERROR(Infer("tile", {F32({2, 3})}, MakeAttrs({{"repeats", Ints({2, -1})}})),
                  "negative entry");
  SY_EXPECT_ERROR(Infer("tile", {F32({4})}, MakeAttrs({{"repeats", Ints({kI64Max})}})),
                  "overflows");
  SY_EXPECT_ERROR(Infer("tile", {F32({2})}), "missing required attribute repeats");
}

// ---- range ----

Attrs RangeAttrs(double start, double limit, double delta, const char* dtype) {
  return MakeAttrs(
      {{"start", F(start)}, {"limit", F(limit)}, {"delta", F(delta)}, {"dtype", S(dtype)}});
}

TEST(MovementRange, Length) {
  EXPECT_TRUE(Outputs(Infer("range", {}, RangeAttrs(0, 10, 3, "f32")), {F32({4})}));  // 0 3 6 9
  EXPECT_TRUE(Outputs(Infer("range", {}, RangeAttrs(0, 9, 3, "f32")), {F32({3})}));
  EXPECT_TRUE(
      Outputs(Infer("range", {}, RangeAttrs(10, 4, -2, "i32")), {T(DType::kI32, {3})}));  // 10 8 6
  EXPECT_TRUE(Outputs(Infer("range", {}, RangeAttrs(0, 0, 1, "i64")), {T(DType::kI64, {0})}));
  EXPECT_TRUE(Outputs(Infer("range", {}, RangeAttrs(5, 0, 1, "u8")), {T(DType::kU8, {0})}));
  EXPECT_TRUE(Outputs(Infer("range", {}, RangeAttrs(0, 5, -1, "i8")), {T(DType::kI8, {0})}));
  EXPECT_TRUE(Outputs(Infer("range", {}, RangeAttrs(1, 2, 0.3, "f64")),
                      {T(DType::kF64, {4})}));  // 1 1.3 1.6 1.9
  EXPECT_TRUE(
      Outputs(Infer("range", {}, RangeAttrs(-1.5, 1.5, 0.5, "bf16")), {T(DType::kBF16, {6})}));
  // Integer attribute values are accepted as floats.
  EXPECT_TRUE(Outputs(
      Infer("range", {},
            MakeAttrs({{"start", I(0)}, {"limit", I(4)}, {"delta", I(1)}, {"dtype", S("f16")}})),
      {T(DType::kF16, {4})}));
}

TEST(MovementRange, Errors) {
  SY_EXPECT_ERROR(Infer("range", {}, RangeAttrs(0, 10, 0, "f32")), "attribute delta is 0");
  SY_EXPECT_ERROR(Infer("range", {}, RangeAttrs(0, 10, 1, "bool")),
                  "attribute dtype is \"bool\" but must be one of");
  SY_EXPECT_ERROR(Infer("range", {}, RangeAttrs(0, 10, 1, "f8")), "attribute dtype is \"f8\"");
  SY_EXPECT_ERROR(Infer("range", {}, RangeAttrs(0, 2.5, 1, "i32")),
                  "attribute limit is 2.5 but dtype i32 needs an integer");
  SY_EXPECT_ERROR(Infer("range", {}, RangeAttrs(0, 1e30, 1e-30, "f64")), "more than 2^62");
  SY_EXPECT_ERROR(
      Infer("range", {}, RangeAttrs(0, std::numeric_limits<double>::infinity(), 1, "f32")),
      "must be finite");
  SY_EXPECT_ERROR(Infer("range", {F32({1})}, RangeAttrs(0, 10, 1, "f32")),
                  "takes 0 inputs but has 1");
  SY_EXPECT_ERROR(
      Infer("range", {}, MakeAttrs({{"start", F(0)}, {"limit", F(1)}, {"delta", F(1)}})),
      "missing required attribute dtype");
  SY_EXPECT_ERROR(
      Infer("range", {}, MakeAttrs({{"limit", F(1)}, {"delta", F(1)}, {"dtype", S("f32")}})),
      "missing required attribute start");
}

// ---- trilu ----

TEST(MovementTrilu, KeepsShape) {
  EXPECT_TRUE(F32Out("trilu", {3, 4}, {}, {3, 4}));
  EXPECT_TRUE(F32Out("trilu", {2, 3, 4}, MakeAttrs({{"upper", I(0)}, {"k", I(-1)}}), {2, 3, 4}));
  EXPECT_TRUE(F32Out("trilu", {0, 4}, MakeAttrs({{"k", I(100)}}), {0, 4}));
}

TEST(MovementTrilu, Errors) {
  SY_EXPECT_ERROR(Infer("trilu", {F32({4})}),
                  "input x has shape [4] but must have rank at least 2");
  SY_EXPECT_ERROR(Infer("trilu", {F32({})}), "must have rank at least 2");
  SY_EXPECT_ERROR(Infer("trilu", {F32({2, 2})}, MakeAttrs({{"upper", I(2)}})),
                  "attribute upper is 2; must be 0 or 1");
  SY_EXPECT_ERROR(Infer("trilu", {F32({2, 2})}, MakeAttrs({{"k", F(0.5)}})),
                  "attribute k is 0.5 (float) but must be int");
}

}  // namespace
}  // namespace sy
