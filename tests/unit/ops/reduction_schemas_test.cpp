// Schemas of the reductions and scans (core/src/ops/reduction_schemas.cpp). Expected
// shapes are derived by hand from the ONNX Reduce*, ArgMax/ArgMin, CumSum and TopK
// specifications.
#include <gtest/gtest.h>

#include "test_util.h"

namespace sy {
namespace {

using test::F32;
using test::Infer;
using test::MakeAttrs;
using test::T;

using Ints = std::vector<int64_t>;

::testing::AssertionResult Produces(const Expected<std::vector<TensorType>>& got,
                                    const std::vector<TensorType>& want) {
  if (!got.ok()) return ::testing::AssertionFailure() << got.status().ToString();
  if (*got == want) return ::testing::AssertionSuccess();
  auto render = [](const std::vector<TensorType>& types) {
    std::string text;
    for (const TensorType& t : types) text += (text.empty() ? "" : ", ") + t.ToString();
    return "{" + text + "}";
  };
  return ::testing::AssertionFailure() << "got " << render(*got) << ", want " << render(want);
}

TensorType I64(Shape shape) { return {DType::kI64, std::move(shape)}; }

const std::vector<std::string_view> kReduceOps = {"reduce_sum", "reduce_mean", "reduce_max",
                                                  "reduce_min", "reduce_prod"};

// ---- reduce_* -----------------------------------------------------------------------

TEST(ReductionSchemas, ReduceOpsAreRegisteredWithDefaults) {
  const std::vector<std::string_view> onnx = {"ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin",
                                              "ReduceProd"};
  for (size_t i = 0; i < kReduceOps.size(); ++i) {
    const OpSchema* s = OpRegistry::Global().Find(kReduceOps[i]);
    ASSERT_NE(s, nullptr) << kReduceOps[i];
    EXPECT_EQ(s->onnx_name, onnx[i]);
    Attrs attrs;
    const std::vector<TensorType> inputs{F32({2, 3})};
    SY_ASSERT_OK(InferOutputTypes(*s, inputs, attrs, 1));
    EXPECT_EQ(attrs.GetInt("keepdims", -1), 1);
    EXPECT_FALSE(attrs.Has("axes"));  // absent means all axes; no default is filled in
  }
}

TEST(ReductionSchemas, ReduceAllAxesByDefault) {
  for (std::string_view op : kReduceOps) {
    EXPECT_TRUE(Produces(Infer(op, {F32({2, 3, 4})}), {F32({1, 1, 1})})) << op;
    EXPECT_TRUE(
        Produces(Infer(op, {F32({2, 3, 4})}, MakeAttrs({{"keepdims", int64_t{0}}})), {F32({})}))
        << op;
  }
}

TEST(ReductionSchemas, ReduceEmptyAxesListMeansAllAxes) {
  EXPECT_TRUE(
      Produces(Infer("reduce_sum", {F32({2, 3})}, MakeAttrs({{"axes", Ints{}}})), {F32({1, 1})}));
  // An empty JSON array may arrive as any list kind.
  EXPECT_TRUE(
      Produces(Infer("reduce_sum", {F32({2, 3})},
                     MakeAttrs({{"axes", std::vector<std::string>{}}, {"keepdims", int64_t{0}}})),
               {F32({})}));
}

TEST(ReductionSchemas, ReduceChosenAxes) {
  const TensorType x = F32({2, 3, 4});
  EXPECT_TRUE(Produces(Infer("reduce_sum", {x}, MakeAttrs({{"axes", Ints{1}}})), {F32({2, 1, 4})}));
  EXPECT_TRUE(
      Produces(Infer("reduce_mean", {x}, MakeAttrs({{"axes", Ints{1}}, {"keepdims", int64_t{0}}})),
               {F32({2, 4})}));
  EXPECT_TRUE(Produces(
      Infer("reduce_max", {x}, MakeAttrs({{"axes", Ints{0, 2}}, {"keepdims", int64_t{0}}})),
      {F32({3})}));
  EXPECT_TRUE(
      Produces(Infer("reduce_min", {x}, MakeAttrs({{"axes", Ints{0, 2}}})), {F32({1, 3, 1})}));
  // Order of axes does not matter.
  EXPECT_TRUE(Produces(
      Infer("reduce_prod", {x}, MakeAttrs({{"axes", Ints{2, 0}}, {"keepdims", int64_t{0}}})),
      {F32({3})}));
  // All axes named explicitly.
  EXPECT_TRUE(
      Produces(Infer("reduce_sum", {x}, MakeAttrs({{"axes", Ints{0, 1, 2}}})), {F32({1, 1, 1})}));
}

TEST(ReductionSchemas, ReduceNegativeAxes) {
  const TensorType x = F32({2, 3, 4});
  EXPECT_TRUE(
      Produces(Infer("reduce_sum", {x}, MakeAttrs({{"axes", Ints{-1}}})), {F32({2, 3, 1})}));
  EXPECT_TRUE(Produces(
      Infer("reduce_sum", {x}, MakeAttrs({{"axes", Ints{-3, -2}}, {"keepdims", int64_t{0}}})),
      {F32({4})}));
  EXPECT_TRUE(Produces(
      Infer("reduce_sum", {x}, MakeAttrs({{"axes", Ints{0, -1}}, {"keepdims", int64_t{0}}})),
      {F32({3})}));
}

TEST(ReductionSchemas, ReduceAxesGivenAsIntegralFloatsAreCoerced) {
  EXPECT_TRUE(
      Produces(Infer("reduce_sum", {F32({2, 3})}, MakeAttrs({{"axes", std::vector<double>{1.0}}})),
               {F32({2, 1})}));
}

TEST(ReductionSchemas, ReduceScalar) {
  for (std::string_view op : kReduceOps) {
    EXPECT_TRUE(Produces(Infer(op, {F32({})}), {F32({})})) << op;
    EXPECT_TRUE(Produces(Infer(op, {F32({})}, MakeAttrs({{"keepdims", int64_t{0}}})), {F32({})}))
        << op;
    EXPECT_TRUE(Produces(Infer(op, {F32({})}, MakeAttrs({{"axes", Ints{}}})), {F32({})})) << op;
  }
  SY_EXPECT_ERROR(Infer("reduce_sum", {F32({})}, MakeAttrs({{"axes", Ints{0}}})),
                  "attribute axes has entry 0 but input x is a scalar (shape []), which has no "
                  "axes");
}

TEST(ReductionSchemas, ReduceOverEmptyAxesIsAllowed) {
  // ONNX defines these (sum 0, prod 1, mean NaN, max/min the lowest/highest value).
  for (std::string_view op : kReduceOps) {
    EXPECT_TRUE(
        Produces(Infer(op, {F32({0, 3})}, MakeAttrs({{"axes", Ints{0}}, {"keepdims", int64_t{0}}})),
                 {F32({3})}))
        << op;
    EXPECT_TRUE(Produces(Infer(op, {F32({2, 0})}), {F32({1, 1})})) << op;
    // Reducing a non-empty axis of an empty tensor keeps it empty.
    EXPECT_TRUE(Produces(Infer(op, {F32({0, 3})}, MakeAttrs({{"axes", Ints{1}}})), {F32({0, 1})}))
        << op;
  }
}

TEST(ReductionSchemas, ReduceKeepsTheInputDtype) {
  for (DType d : {DType::kF32, DType::kF16, DType::kBF16, DType::kF64, DType::kI8, DType::kU8,
                  DType::kI32, DType::kI64}) {
    for (std::string_view op : kReduceOps) {
      EXPECT_TRUE(
          Produces(Infer(op, {T(d, {2, 3})}, MakeAttrs({{"axes", Ints{0}}})), {T(d, {1, 3})}))
          << op << " " << DTypeName(d);
    }
  }
}

TEST(ReductionSchemas, ReduceRejectsOutOfRangeAxes) {
  const TensorType x = F32({2, 3, 4});
  SY_EXPECT_ERROR(Infer("reduce_sum", {x}, MakeAttrs({{"axes", Ints{3}}})),
                  "attribute axes has entry 3 but input x has shape [2, 3, 4] (rank 3), so it "
                  "must be in -3 to 2");
  SY_EXPECT_ERROR(Infer("reduce_max", {x}, MakeAttrs({{"axes", Ints{0, -4}}})),
                  "attribute axes has entry -4 but input x has shape [2, 3, 4]");
}

TEST(ReductionSchemas, ReduceRejectsDuplicateAxes) {
  const TensorType x = F32({2, 3, 4});
  SY_EXPECT_ERROR(Infer("reduce_sum", {x}, MakeAttrs({{"axes", Ints{1, 1}}})),
                  "attribute axes is [1, 1] which names axis 1 of input x (shape [2, 3, 4]) more "
                  "than once");
  // The same axis spelled two ways.
  SY_EXPECT_ERROR(Infer("reduce_min", {x}, MakeAttrs({{"axes", Ints{2, 0, -1}}})),
                  "attribute axes is [2, 0, -1] which names axis 2");
}

TEST(ReductionSchemas, ReduceRejectsBadAttributes) {
  const TensorType x = F32({2, 3});
  SY_EXPECT_ERROR(Infer("reduce_sum", {x}, MakeAttrs({{"keepdims", int64_t{2}}})),
                  "attribute keepdims is 2 but must be 0 or 1");
  SY_EXPECT_ERROR(Infer("reduce_prod", {x}, MakeAttrs({{"keepdims", int64_t{-1}}})),
                  "attribute keepdims is -1 but must be 0 or 1");
  SY_EXPECT_ERROR(Infer("reduce_sum", {x}, MakeAttrs({{"axes", int64_t{1}}})),
                  "attribute axes is 1 (int) but must be ints");
  SY_EXPECT_ERROR(Infer("reduce_sum", {x}, MakeAttrs({{"axes", std::vector<double>{0.5}}})),
                  "attribute axes is [0.5] (floats) but must be ints");
  SY_EXPECT_ERROR(Infer("reduce_mean", {x}, MakeAttrs({{"axis", int64_t{1}}})),
                  "unknown attribute axis (reduce_mean takes axes, keepdims)");
  SY_EXPECT_ERROR(Infer("reduce_sum", {x}, MakeAttrs({{"noop_with_empty_axes", int64_t{1}}})),
                  "unknown attribute noop_with_empty_axes");
}

TEST(ReductionSchemas, ReduceRejectsBadDtypesAndArity) {
  SY_EXPECT_ERROR(Infer("reduce_sum", {T(DType::kBool, {2})}),
                  "input 0 (x) has dtype bool but reduce_sum accepts");
  SY_EXPECT_ERROR(Infer("reduce_max", {F32({2}), F32({1})}), "takes 1 input but has 2");
  SY_EXPECT_ERROR(Infer("reduce_max", {}), "takes 1 input but has 0");
  SY_EXPECT_ERROR(Infer("reduce_min", {F32({2})}, {}, 2), "produces 1 output but the node lists 2");
}

// ---- argmax / argmin ----------------------------------------------------------------

TEST(ReductionSchemas, ArgOpsAreRegisteredWithDefaults) {
  for (auto [op, onnx] : {std::pair{"argmax", "ArgMax"}, {"argmin", "ArgMin"}}) {
    const OpSchema* s = OpRegistry::Global().Find(op);
    ASSERT_NE(s, nullptr) << op;
    EXPECT_EQ(s->onnx_name, onnx);
    Attrs attrs;
    const std::vector<TensorType> inputs{F32({2, 3})};
    SY_ASSERT_OK(InferOutputTypes(*s, inputs, attrs, 1));
    EXPECT_EQ(attrs.GetInt("axis", -1), 0);
    EXPECT_EQ(attrs.GetInt("keepdims", -1), 1);
    EXPECT_EQ(attrs.GetInt("select_last_index", -1), 0);
  }
}

TEST(ReductionSchemas, ArgOpsOutputI64) {
  const TensorType x = F32({2, 3, 4});
  for (std::string_view op : {"argmax", "argmin"}) {
    // Default axis 0, keepdims 1.
    EXPECT_TRUE(Produces(Infer(op, {x}), {I64({1, 3, 4})})) << op;
    EXPECT_TRUE(Produces(
        Infer(op, {x}, MakeAttrs({{"axis", int64_t{1}}, {"keepdims", int64_t{0}}})), {I64({2, 4})}))
        << op;
    EXPECT_TRUE(Produces(Infer(op, {x}, MakeAttrs({{"axis", int64_t{-1}}})), {I64({2, 3, 1})}))
        << op;
    EXPECT_TRUE(Produces(Infer(op, {x},
                               MakeAttrs({{"axis", int64_t{-3}},
                                          {"keepdims", int64_t{0}},
                                          {"select_last_index", int64_t{1}}})),
                         {I64({3, 4})}))
        << op;
  }
  for (DType d :
       {DType::kF16, DType::kBF16, DType::kF64, DType::kI8, DType::kU8, DType::kI32, DType::kI64}) {
    EXPECT_TRUE(Produces(Infer("argmax", {T(d, {5, 2})}), {I64({1, 2})})) << DTypeName(d);
  }
}

TEST(ReductionSchemas, ArgOpsOnOneDInput) {
  EXPECT_TRUE(Produces(Infer("argmin", {F32({5})}), {I64({1})}));
  EXPECT_TRUE(
      Produces(Infer("argmin", {F32({5})}, MakeAttrs({{"keepdims", int64_t{0}}})), {I64({})}));
}

TEST(ReductionSchemas, ArgOpsEmptyTensors) {
  // The output is empty too, so there is nothing to return: fine.
  EXPECT_TRUE(
      Produces(Infer("argmax", {F32({0, 3})}, MakeAttrs({{"axis", int64_t{1}}})), {I64({0, 1})}));
  EXPECT_TRUE(
      Produces(Infer("argmax", {F32({3, 0})}, MakeAttrs({{"keepdims", int64_t{0}}})), {I64({0})}));
  EXPECT_TRUE(Produces(Infer("argmin", {F32({0, 0})}), {I64({1, 0})}));
  // Each output element would be the index of an empty axis: rejected.
  SY_EXPECT_ERROR(Infer("argmax", {F32({3, 0})}, MakeAttrs({{"axis", int64_t{1}}})),
                  "attribute axis is 1 but that dimension of input x (shape [3, 0]) has size 0, "
                  "so there is no index to return");
  SY_EXPECT_ERROR(Infer("argmin", {F32({0})}, MakeAttrs({{"keepdims", int64_t{0}}})),
                  "has size 0, so there is no index to return");
}

TEST(ReductionSchemas, ArgOpsRejectBadAxes) {
  SY_EXPECT_ERROR(Infer("argmax", {F32({2, 3})}, MakeAttrs({{"axis", int64_t{2}}})),
                  "attribute axis is 2 but input x has shape [2, 3] (rank 2), so it must be in "
                  "-2 to 1");
  SY_EXPECT_ERROR(Infer("argmin", {F32({2, 3})}, MakeAttrs({{"axis", int64_t{-3}}})),
                  "attribute axis is -3 but input x has shape [2, 3]");
  // A scalar has no axis 0 (numpy.argmax(x, axis=0) rejects it too).
  SY_EXPECT_ERROR(Infer("argmax", {F32({})}),
                  "attribute axis is 0 but input x is a scalar (shape []), which has no axes");
  SY_EXPECT_ERROR(Infer("argmax", {F32({2})}, MakeAttrs({{"axis", Ints{0}}})),
                  "attribute axis is [0] (ints) but must be int");
}

TEST(ReductionSchemas, ArgOpsRejectBadFlags) {
  SY_EXPECT_ERROR(Infer("argmax", {F32({2, 3})}, MakeAttrs({{"keepdims", int64_t{3}}})),
                  "attribute keepdims is 3 but must be 0 or 1");
  SY_EXPECT_ERROR(Infer("argmin", {F32({2, 3})}, MakeAttrs({{"select_last_index", int64_t{2}}})),
                  "attribute select_last_index is 2 but must be 0 or 1");
}

TEST(ReductionSchemas, ArgOpsRejectBadDtypesAndArity) {
  SY_EXPECT_ERROR(Infer("argmax", {T(DType::kBool, {2})}),
                  "input 0 (x) has dtype bool but argmax accepts");
  SY_EXPECT_ERROR(Infer("argmin", {F32({2}), F32({2})}), "takes 1 input but has 2");
  SY_EXPECT_ERROR(Infer("argmax", {F32({2})}, {}, 2), "produces 1 output but the node lists 2");
}

// ---- cumsum -------------------------------------------------------------------------

TEST(ReductionSchemas, CumsumKeepsTheInputType) {
  const OpSchema* s = OpRegistry::Global().Find("cumsum");
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->onnx_name, "CumSum");
  EXPECT_TRUE(
      Produces(Infer("cumsum", {F32({2, 3})}, MakeAttrs({{"axis", int64_t{1}}})), {F32({2, 3})}));
  EXPECT_TRUE(Produces(
      Infer("cumsum", {F32({2, 3})},
            MakeAttrs({{"axis", int64_t{-2}}, {"exclusive", int64_t{1}}, {"reverse", int64_t{1}}})),
      {F32({2, 3})}));
  EXPECT_TRUE(Produces(Infer("cumsum", {F32({5})}, MakeAttrs({{"axis", int64_t{0}}})), {F32({5})}));
  for (DType d :
       {DType::kF16, DType::kBF16, DType::kF64, DType::kI8, DType::kU8, DType::kI32, DType::kI64}) {
    EXPECT_TRUE(Produces(Infer("cumsum", {T(d, {4, 2})}, MakeAttrs({{"axis", int64_t{0}}})),
                         {T(d, {4, 2})}))
        << DTypeName(d);
  }
}

TEST(ReductionSchemas, CumsumEmptyTensors) {
  EXPECT_TRUE(
      Produces(Infer("cumsum", {F32({0, 3})}, MakeAttrs({{"axis", int64_t{0}}})), {F32({0, 3})}));
  EXPECT_TRUE(
      Produces(Infer("cumsum", {F32({0, 3})}, MakeAttrs({{"axis", int64_t{1}}})), {F32({0, 3})}));
}

TEST(ReductionSchemas, CumsumRejectsMissingOrBadAxis) {
  SY_EXPECT_ERROR(Infer("cumsum", {F32({2, 3})}), "missing required attribute axis (int)");
  SY_EXPECT_ERROR(Infer("cumsum", {F32({2, 3})}, MakeAttrs({{"axis", int64_t{2}}})),
                  "attribute axis is 2 but input x has shape [2, 3] (rank 2), so it must be in "
                  "-2 to 1");
  SY_EXPECT_ERROR(Infer("cumsum", {F32({2, 3})}, MakeAttrs({{"axis", int64_t{-3}}})),
                  "attribute axis is -3");
  SY_EXPECT_ERROR(Infer("cumsum", {F32({})}, MakeAttrs({{"axis", int64_t{0}}})),
                  "attribute axis is 0 but input x is a scalar (shape []), which has no axes");
}

TEST(ReductionSchemas, CumsumRejectsBadFlags) {
  SY_EXPECT_ERROR(
      Infer("cumsum", {F32({2})}, MakeAttrs({{"axis", int64_t{0}}, {"exclusive", int64_t{2}}})),
      "attribute exclusive is 2 but must be 0 or 1");
  SY_EXPECT_ERROR(
      Infer("cumsum", {F32({2})}, MakeAttrs({{"axis", int64_t{0}}, {"reverse", int64_t{-1}}})),
      "attribute reverse is -1 but must be 0 or 1");
}

TEST(ReductionSchemas, CumsumRejectsBadDtypesAndArity) {
  const Attrs axis0 = MakeAttrs({{"axis", int64_t{0}}});
  SY_EXPECT_ERROR(Infer("cumsum", {T(DType::kBool, {2})}, axis0),
                  "input 0 (x) has dtype bool but cumsum accepts");
  // ONNX passes the axis as a second input; here it is an attribute.
  SY_EXPECT_ERROR(Infer("cumsum", {F32({2}), I64({})}, axis0), "takes 1 input but has 2");
  SY_EXPECT_ERROR(Infer("cumsum", {F32({2})}, axis0, 2), "produces 1 output but the node lists 2");
}

// ---- topk ---------------------------------------------------------------------------

TEST(ReductionSchemas, TopkIsRegisteredWithDefaults) {
  const OpSchema* s = OpRegistry::Global().Find("topk");
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->onnx_name, "TopK");
  EXPECT_EQ(s->min_outputs, 2);
  EXPECT_EQ(s->max_outputs, 2);
  Attrs attrs = MakeAttrs({{"k", int64_t{1}}});
  const std::vector<TensorType> inputs{F32({2, 3})};
  SY_ASSERT_OK(InferOutputTypes(*s, inputs, attrs, 2));
  EXPECT_EQ(attrs.GetInt("axis", 0), -1);
  EXPECT_EQ(attrs.GetInt("largest", -1), 1);
  EXPECT_EQ(attrs.GetInt("sorted", -1), 1);
}

TEST(ReductionSchemas, TopkResizesTheAxisToK) {
  const TensorType x = F32({3, 4});
  // Default axis -1.
  EXPECT_TRUE(
      Produces(Infer("topk", {x}, MakeAttrs({{"k", int64_t{2}}}), 2), {F32({3, 2}), I64({3, 2})}));
  EXPECT_TRUE(Produces(Infer("topk", {x}, MakeAttrs({{"k", int64_t{1}}, {"axis", int64_t{0}}}), 2),
                       {F32({1, 4}), I64({1, 4})}));
  EXPECT_TRUE(Produces(Infer("topk", {x}, MakeAttrs({{"k", int64_t{3}}, {"axis", int64_t{-2}}}), 2),
                       {F32({3, 4}), I64({3, 4})}));
  // k = 0 and k = the dim size are both in range.
  EXPECT_TRUE(
      Produces(Infer("topk", {x}, MakeAttrs({{"k", int64_t{0}}}), 2), {F32({3, 0}), I64({3, 0})}));
  EXPECT_TRUE(Produces(
      Infer("topk", {x},
            MakeAttrs({{"k", int64_t{4}}, {"largest", int64_t{0}}, {"sorted", int64_t{0}}}), 2),
      {F32({3, 4}), I64({3, 4})}));
  EXPECT_TRUE(Produces(
      Infer("topk", {F32({2, 5, 3})}, MakeAttrs({{"k", int64_t{2}}, {"axis", int64_t{1}}}), 2),
      {F32({2, 2, 3}), I64({2, 2, 3})}));
}

TEST(ReductionSchemas, TopkValuesKeepTheInputDtype) {
  for (DType d :
       {DType::kF16, DType::kBF16, DType::kF64, DType::kI8, DType::kU8, DType::kI32, DType::kI64}) {
    EXPECT_TRUE(Produces(Infer("topk", {T(d, {6})}, MakeAttrs({{"k", int64_t{2}}}), 2),
                         {T(d, {2}), I64({2})}))
        << DTypeName(d);
  }
}

TEST(ReductionSchemas, TopkEmptyTensors) {
  EXPECT_TRUE(Produces(Infer("topk", {F32({0, 4})}, MakeAttrs({{"k", int64_t{2}}}), 2),
                       {F32({0, 2}), I64({0, 2})}));
  EXPECT_TRUE(Produces(Infer("topk", {F32({3, 0})}, MakeAttrs({{"k", int64_t{0}}}), 2),
                       {F32({3, 0}), I64({3, 0})}));
  SY_EXPECT_ERROR(Infer("topk", {F32({3, 0})}, MakeAttrs({{"k", int64_t{1}}}), 2),
                  "attribute k is 1 but input x (shape [3, 0]) has 0 elements along axis 1, so "
                  "it must be in 0 to 0");
}

TEST(ReductionSchemas, TopkRejectsBadK) {
  const TensorType x = F32({3, 4});
  SY_EXPECT_ERROR(Infer("topk", {x}, {}, 2), "missing required attribute k (int)");
  SY_EXPECT_ERROR(Infer("topk", {x}, MakeAttrs({{"k", int64_t{5}}}), 2),
                  "attribute k is 5 but input x (shape [3, 4]) has 4 elements along axis 1, so "
                  "it must be in 0 to 4");
  SY_EXPECT_ERROR(Infer("topk", {x}, MakeAttrs({{"k", int64_t{-1}}}), 2),
                  "attribute k is -1 but input x (shape [3, 4])");
  SY_EXPECT_ERROR(Infer("topk", {x}, MakeAttrs({{"k", int64_t{4}}, {"axis", int64_t{0}}}), 2),
                  "has 3 elements along axis 0, so it must be in 0 to 3");
  SY_EXPECT_ERROR(Infer("topk", {x}, MakeAttrs({{"k", Ints{2}}}), 2),
                  "attribute k is [2] (ints) but must be int");
}

TEST(ReductionSchemas, TopkRejectsBadAxis) {
  SY_EXPECT_ERROR(
      Infer("topk", {F32({3, 4})}, MakeAttrs({{"k", int64_t{1}}, {"axis", int64_t{2}}}), 2),
      "attribute axis is 2 but input x has shape [3, 4] (rank 2), so it must be in -2 to 1");
  // The default axis -1 does not exist in a scalar.
  SY_EXPECT_ERROR(Infer("topk", {F32({})}, MakeAttrs({{"k", int64_t{0}}}), 2),
                  "attribute axis is -1 but input x is a scalar (shape []), which has no axes");
}

TEST(ReductionSchemas, TopkRejectsBadFlags) {
  const TensorType x = F32({3, 4});
  SY_EXPECT_ERROR(Infer("topk", {x}, MakeAttrs({{"k", int64_t{1}}, {"largest", int64_t{2}}}), 2),
                  "attribute largest is 2 but must be 0 or 1");
  SY_EXPECT_ERROR(Infer("topk", {x}, MakeAttrs({{"k", int64_t{1}}, {"sorted", int64_t{-1}}}), 2),
                  "attribute sorted is -1 but must be 0 or 1");
}

TEST(ReductionSchemas, TopkRejectsWrongOutputCountDtypesAndArity) {
  const Attrs k1 = MakeAttrs({{"k", int64_t{1}}});
  SY_EXPECT_ERROR(Infer("topk", {F32({3, 4})}, k1, 1), "produces 2 outputs but the node lists 1");
  SY_EXPECT_ERROR(Infer("topk", {F32({3, 4})}, k1, 3), "produces 2 outputs but the node lists 3");
  SY_EXPECT_ERROR(Infer("topk", {T(DType::kBool, {3})}, k1, 2),
                  "input 0 (x) has dtype bool but topk accepts");
  // ONNX passes K as a second input; here it is an attribute.
  SY_EXPECT_ERROR(Infer("topk", {F32({3, 4}), I64({1})}, k1, 2), "takes 1 input but has 2");
}

}  // namespace
}  // namespace sy
