// Shape rules of the selection ops (core/src/ops/selection_schemas.cpp): each writes a
// fixed-capacity output and an i64 scalar count last. Capacities are derived by hand
// from the ONNX operator definitions (the most elements the data could select).
#include <gtest/gtest.h>

#include <cmath>
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

AttrValue I(int64_t v) { return v; }
AttrValue D(double v) { return v; }

const TensorType kCount = T(DType::kI64, {});

TensorType I64(Shape shape) { return T(DType::kI64, std::move(shape)); }
TensorType Bool(Shape shape) { return T(DType::kBool, std::move(shape)); }

TEST(SelectionSchemas, AllRegisteredWithOnnxNamesInTheSelectionFamily) {
  const std::vector<std::pair<const char*, const char*>> ops = {
      {"non_zero", "NonZero"},
      {"compress", "Compress"},
      {"unique", "Unique"},
      {"non_max_suppression", "NonMaxSuppression"}};
  for (const auto& [name, onnx] : ops) {
    const OpSchema* s = OpRegistry::Global().Find(name);
    ASSERT_NE(s, nullptr) << name;
    EXPECT_EQ(s->onnx_name, onnx);
    EXPECT_EQ(s->family, "selection") << name;
    EXPECT_EQ(s->min_outputs, s->max_outputs) << name;  // every output, the count last
    EXPECT_EQ(s->cost, OpCost::kMemory) << name;
  }
  EXPECT_EQ(OpRegistry::Global().Find("non_zero")->type_vars[0].allowed, DTypeSet::All());
  EXPECT_EQ(OpRegistry::Global().Find("non_max_suppression")->type_vars[0].allowed,
            DTypeSet::Float());
}

// ---- non_zero ----

TEST(SelectionNonZero, IndicesHaveARowPerDimAndAColumnPerElement) {
  EXPECT_TRUE(Outputs(Infer("non_zero", {F32({2, 3})}, {}, 2), {I64({2, 6}), kCount}));
  EXPECT_TRUE(Outputs(Infer("non_zero", {Bool({4, 1, 5})}, {}, 2), {I64({3, 20}), kCount}));
  EXPECT_TRUE(Outputs(Infer("non_zero", {T(DType::kBF16, {7})}, {}, 2), {I64({1, 7}), kCount}));
  // A scalar: one possible element, an index tuple without entries.
  EXPECT_TRUE(Outputs(Infer("non_zero", {T(DType::kU8, {})}, {}, 2), {I64({0, 1}), kCount}));
  EXPECT_TRUE(Outputs(Infer("non_zero", {F32({0, 4})}, {}, 2), {I64({2, 0}), kCount}));
}

TEST(SelectionNonZero, Errors) {
  SY_EXPECT_ERROR(Infer("non_zero", {F32({2})}), "produces 2 outputs but the node lists 1");
  SY_EXPECT_ERROR(Infer("non_zero", {F32({2}), F32({2})}, {}, 2), "takes 1 input but has 2");
  SY_EXPECT_ERROR(Infer("non_zero", {F32({2})}, MakeAttrs({{"axis", I(0)}}), 2),
                  "unknown attribute");
}

// ---- compress ----

TEST(SelectionCompress, CapacityIsTheShorterOfConditionAndAxis) {
  const TensorType x = F32({3, 2});
  EXPECT_TRUE(Outputs(Infer("compress", {x, Bool({2})}, MakeAttrs({{"axis", I(0)}}), 2),
                      {F32({2, 2}), kCount}));
  EXPECT_TRUE(Outputs(Infer("compress", {x, Bool({3})}, MakeAttrs({{"axis", I(0)}}), 2),
                      {F32({3, 2}), kCount}));
  EXPECT_TRUE(Outputs(Infer("compress", {x, Bool({2})}, MakeAttrs({{"axis", I(-1)}}), 2),
                      {F32({3, 2}), kCount}));
  // A longer condition is accepted and its extra entries ignored (onnxruntime).
  EXPECT_TRUE(Outputs(Infer("compress", {x, Bool({5})}, MakeAttrs({{"axis", I(1)}}), 2),
                      {F32({3, 2}), kCount}));
  // Without axis, x is flattened.
  EXPECT_TRUE(Outputs(Infer("compress", {x, Bool({5})}, {}, 2), {F32({5}), kCount}));
  EXPECT_TRUE(Outputs(Infer("compress", {x, Bool({9})}, {}, 2), {F32({6}), kCount}));
  EXPECT_TRUE(Outputs(Infer("compress", {T(DType::kI8, {}), Bool({1})}, {}, 2),
                      {T(DType::kI8, {1}), kCount}));
  EXPECT_TRUE(Outputs(Infer("compress", {x, Bool({0})}, MakeAttrs({{"axis", I(0)}}), 2),
                      {F32({0, 2}), kCount}));
  EXPECT_TRUE(
      Outputs(Infer("compress", {Bool({2, 0, 3}), Bool({2})}, MakeAttrs({{"axis", I(1)}}), 2),
              {Bool({2, 0, 3}), kCount}));
}

TEST(SelectionCompress, Errors) {
  const TensorType x = F32({3, 2});
  SY_EXPECT_ERROR(Infer("compress", {x, Bool({2, 1})}, {}, 2),
                  "input condition has shape [2, 1] but must have rank 1");
  SY_EXPECT_ERROR(Infer("compress", {x, T(DType::kU8, {2})}, {}, 2),
                  "input 1 (condition) has dtype u8 but compress accepts bool");
  SY_EXPECT_ERROR(Infer("compress", {x, Bool({2})}, MakeAttrs({{"axis", I(2)}}), 2),
                  "attribute axis 2 is out of range for rank 2");
  SY_EXPECT_ERROR(Infer("compress", {F32({}), Bool({1})}, MakeAttrs({{"axis", I(0)}}), 2),
                  "attribute axis 0 is out of range for rank 0");
  SY_EXPECT_ERROR(Infer("compress", {x, Bool({2})}), "produces 2 outputs but the node lists 1");
}

// ---- unique ----

TEST(SelectionUnique, EverySliceCouldBeUnique) {
  const TensorType x = T(DType::kI32, {3, 4});
  const std::vector<TensorType> flat = {T(DType::kI32, {12}), I64({12}), I64({12}), I64({12}),
                                        kCount};
  EXPECT_TRUE(Outputs(Infer("unique", {x}, {}, 5), flat));
  EXPECT_TRUE(Outputs(Infer("unique", {x}, MakeAttrs({{"sorted", I(0)}}), 5), flat));
  EXPECT_TRUE(Outputs(Infer("unique", {x}, MakeAttrs({{"axis", I(0)}}), 5),
                      {x, I64({3}), I64({3}), I64({3}), kCount}));
  EXPECT_TRUE(Outputs(Infer("unique", {x}, MakeAttrs({{"axis", I(-1)}}), 5),
                      {x, I64({4}), I64({4}), I64({4}), kCount}));
  EXPECT_TRUE(
      Outputs(Infer("unique", {F32({})}, {}, 5), {F32({1}), I64({1}), I64({1}), I64({1}), kCount}));
  EXPECT_TRUE(Outputs(Infer("unique", {F32({0, 3})}, MakeAttrs({{"axis", I(1)}}), 5),
                      {F32({0, 3}), I64({3}), I64({3}), I64({3}), kCount}));
}

TEST(SelectionUnique, Errors) {
  SY_EXPECT_ERROR(Infer("unique", {F32({4})}, MakeAttrs({{"sorted", I(2)}}), 5),
                  "attribute sorted is 2 but must be 0 or 1");
  SY_EXPECT_ERROR(Infer("unique", {F32({4})}, MakeAttrs({{"axis", I(1)}}), 5),
                  "attribute axis 1 is out of range for rank 1");
  SY_EXPECT_ERROR(Infer("unique", {F32({})}, MakeAttrs({{"axis", I(0)}}), 5),
                  "out of range for rank 0");
  // Every output is produced; the count is the fifth.
  SY_EXPECT_ERROR(Infer("unique", {F32({4})}, {}, 4), "produces 5 outputs but the node lists 4");
  SY_EXPECT_ERROR(Infer("unique", {F32({4})}), "produces 5 outputs but the node lists 1");
}

// ---- non_max_suppression ----

TEST(SelectionNonMaxSuppression, CapacityIsEveryBatchAndClassAtMostNBoxes) {
  const TensorType boxes = F32({2, 6, 4});
  const TensorType scores = F32({2, 3, 6});
  auto nms = [&](Attrs attrs) {
    return Infer("non_max_suppression", {boxes, scores}, std::move(attrs), 2);
  };
  // The default max_output_boxes_per_class, 0, selects nothing.
  EXPECT_TRUE(Outputs(nms({}), {I64({0, 3}), kCount}));
  EXPECT_TRUE(
      Outputs(nms(MakeAttrs({{"max_output_boxes_per_class", I(4)}})), {I64({24, 3}), kCount}));
  // At most N boxes per class however many are asked for; negative asks for none.
  EXPECT_TRUE(
      Outputs(nms(MakeAttrs({{"max_output_boxes_per_class", I(100)}})), {I64({36, 3}), kCount}));
  EXPECT_TRUE(Outputs(
      nms(MakeAttrs({{"max_output_boxes_per_class", I(std::numeric_limits<int64_t>::max())}})),
      {I64({36, 3}), kCount}));
  EXPECT_TRUE(
      Outputs(nms(MakeAttrs({{"max_output_boxes_per_class", I(-1)}})), {I64({0, 3}), kCount}));
  EXPECT_TRUE(
      Outputs(nms(MakeAttrs({{"max_output_boxes_per_class", I(2)},
                             {"iou_threshold", D(1.0)},
                             {"score_threshold", D(-std::numeric_limits<double>::infinity())},
                             {"center_point_box", I(1)}})),
              {I64({12, 3}), kCount}));
  EXPECT_TRUE(
      Outputs(Infer("non_max_suppression", {T(DType::kF16, {1, 0, 4}), T(DType::kF16, {1, 5, 0})},
                    MakeAttrs({{"max_output_boxes_per_class", I(3)}}), 2),
              {I64({0, 3}), kCount}));
}

TEST(SelectionNonMaxSuppression, Errors) {
  const TensorType boxes = F32({2, 6, 4});
  const TensorType scores = F32({2, 3, 6});
  SY_EXPECT_ERROR(Infer("non_max_suppression", {F32({2, 6, 5}), scores}, {}, 2),
                  "input boxes has shape [2, 6, 5] but its dimension 2 (5) must be 4");
  SY_EXPECT_ERROR(Infer("non_max_suppression", {F32({6, 4}), scores}, {}, 2),
                  "input boxes has shape [6, 4] but must have rank 3");
  SY_EXPECT_ERROR(Infer("non_max_suppression", {boxes, F32({2, 6})}, {}, 2),
                  "input scores has shape [2, 6] but must have rank 3");
  SY_EXPECT_ERROR(Infer("non_max_suppression", {boxes, F32({1, 3, 6})}, {}, 2),
                  "input scores has shape [1, 3, 6] but its dimension 0 (1) must equal input "
                  "boxes' dimension 0 (2, the batch)");
  SY_EXPECT_ERROR(
      Infer("non_max_suppression", {boxes, F32({2, 3, 5})}, {}, 2),
      "its dimension 2 (5) must equal input boxes' dimension 1 (6, the number of boxes)");
  SY_EXPECT_ERROR(Infer("non_max_suppression", {boxes, T(DType::kF64, {2, 3, 6})}, {}, 2),
                  "input 1 (scores) has dtype f64 but must match input 0 (f32)");
  SY_EXPECT_ERROR(
      Infer("non_max_suppression", {T(DType::kI32, {2, 6, 4}), T(DType::kI32, {2, 3, 6})}, {}, 2),
      "has dtype i32 but non_max_suppression accepts f32 f16 bf16 f64");
  SY_EXPECT_ERROR(
      Infer("non_max_suppression", {boxes, scores}, MakeAttrs({{"iou_threshold", D(1.5)}}), 2),
      "attribute iou_threshold is 1.5 but must be in [0, 1]");
  SY_EXPECT_ERROR(
      Infer("non_max_suppression", {boxes, scores}, MakeAttrs({{"iou_threshold", D(-0.1)}}), 2),
      "attribute iou_threshold is -0.1 but must be in [0, 1]");
  SY_EXPECT_ERROR(Infer("non_max_suppression", {boxes, scores},
                        MakeAttrs({{"iou_threshold", D(std::nan(""))}}), 2),
                  "attribute iou_threshold is");
  SY_EXPECT_ERROR(Infer("non_max_suppression", {boxes, scores},
                        MakeAttrs({{"score_threshold", D(std::nan(""))}}), 2),
                  "attribute score_threshold is NaN");
  SY_EXPECT_ERROR(
      Infer("non_max_suppression", {boxes, scores}, MakeAttrs({{"center_point_box", I(2)}}), 2),
      "attribute center_point_box is 2 but must be 0 or 1");
  SY_EXPECT_ERROR(Infer("non_max_suppression", {boxes, scores}),
                  "produces 2 outputs but the node lists 1");
}

// The canonical form (what plugins see): an axis made non-negative, an absent one left
// absent (x flattened).
TEST(SelectionSchemas, CanonicalAxes) {
  const OpSchema& unique = *OpRegistry::Global().Find("unique");
  const std::vector<TensorType> x = {F32({3, 4})};
  Attrs attrs = MakeAttrs({{"axis", I(-1)}});
  SY_ASSERT_OK(InferOutputTypes(unique, x, attrs, 5));
  EXPECT_EQ(CanonicalAttrs(unique, x, attrs).GetInt("axis"), 1);
  Attrs flat;
  SY_ASSERT_OK(InferOutputTypes(unique, x, flat, 5));
  EXPECT_FALSE(CanonicalAttrs(unique, x, flat).Has("axis"));
  EXPECT_EQ(CanonicalAttrs(unique, x, flat).GetInt("sorted"), 1);
}

}  // namespace
}  // namespace sy
