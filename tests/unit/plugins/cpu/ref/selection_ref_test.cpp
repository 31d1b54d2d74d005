// The selection family's reference kernels (non_zero, compress, unique,
// non_max_suppression) against NumPy reference files (tools/kernel_refs/selection.py ->
// tests/data/kernels/selection/), the examples of the ONNX operator definitions, and
// hand-derived cases: the count as the last output, zeros past it (whatever the buffers
// held), NaN and signed zeros, ties, scalars and empty tensors.
#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <optional>

#include "fast/fast_kernels.h"
#include "movement_test_util.h"
#include "ref/ref_kernels.h"
#include "switchyard/op_schema.h"

namespace sy::cpu::test {
namespace {

// ---- NumPy reference files ----------------------------------------------------------

struct SelectionFile {
  std::string name;  // <name>_in<i>.npy, <name>_out<i>.npy
  std::string op;
  Attrs attrs;
  int inputs;
};

int Outputs(const std::string& op) {
  return op == "unique" ? 5 : 2;  // the count last
}

void RunSelectionFile(const SelectionFile& c) {
  SCOPED_TRACE(c.name + " (" + c.op + ")");
  auto load = [](const std::string& file) {
    return LoadData("kernels/selection/" + file + ".npy");
  };
  std::vector<Tensor> inputs;
  for (int i = 0; i < c.inputs; ++i) inputs.push_back(load(c.name + "_in" + std::to_string(i)));
  const int outputs = Outputs(c.op);
  Expected<std::vector<Tensor>> out = RunRef(c.op, inputs, c.attrs, outputs);
  SY_ASSERT_OK(out);
  ASSERT_EQ(out->size(), static_cast<size_t>(outputs));
  for (int i = 0; i < outputs; ++i) {
    SCOPED_TRACE("output " + std::to_string(i));
    ExpectMatches((*out)[i], load(c.name + "_out" + std::to_string(i)));
  }
}

Attrs Axis(int64_t axis) { return A({{"axis", axis}}); }

TEST(SelectionRef, NonZeroMatchesNumpy) {
  for (const char* name : {"non_zero_f32", "non_zero_i32_3d", "non_zero_bool", "non_zero_f16_4d",
                           "non_zero_u8_scalar", "non_zero_i64_all_zero", "non_zero_f64_empty"}) {
    RunSelectionFile({name, "non_zero", {}, 1});
  }
}

TEST(SelectionRef, CompressMatchesNumpy) {
  const SelectionFile cases[] = {
      {"compress_f32_axis0", "compress", Axis(0), 2},
      {"compress_i64_axis1_short", "compress", Axis(1), 2},
      {"compress_i8_axis_neg1_long", "compress", Axis(-1), 2},
      {"compress_bool_flat", "compress", {}, 2},
      {"compress_f16_none_selected", "compress", Axis(0), 2},
      {"compress_f64_scalar", "compress", {}, 2},
  };
  for (const SelectionFile& c : cases) RunSelectionFile(c);
}

TEST(SelectionRef, UniqueMatchesNumpy) {
  const Attrs unsorted = A({{"sorted", int64_t{0}}});
  const SelectionFile cases[] = {
      {"unique_i64_sorted", "unique", {}, 1},
      {"unique_i64_unsorted", "unique", unsorted, 1},
      {"unique_i8_2d", "unique", {}, 1},
      {"unique_i8_2d_unsorted", "unique", unsorted, 1},
      {"unique_f32_special", "unique", {}, 1},
      {"unique_f32_special_unsorted", "unique", unsorted, 1},
      {"unique_u8", "unique", {}, 1},
      {"unique_bool", "unique", {}, 1},
      {"unique_i32_scalar", "unique", {}, 1},
      {"unique_f32_empty", "unique", {}, 1},
      {"unique_i32_axis0", "unique", Axis(0), 1},
      {"unique_i32_axis0_unsorted", "unique", A({{"axis", int64_t{0}}, {"sorted", int64_t{0}}}), 1},
      {"unique_f64_axis1", "unique", Axis(1), 1},
      {"unique_f64_axis1_unsorted", "unique", A({{"axis", int64_t{1}}, {"sorted", int64_t{0}}}), 1},
      {"unique_f16_axis_neg1", "unique", Axis(-1), 1},
  };
  for (const SelectionFile& c : cases) RunSelectionFile(c);
}

TEST(SelectionRef, NonMaxSuppressionMatchesNumpy) {
  auto nms = [](int64_t max, double iou) {
    return A({{"max_output_boxes_per_class", max}, {"iou_threshold", iou}});
  };
  Attrs with_score = nms(5, 0.3);
  with_score.Set("score_threshold", 0.25);
  Attrs center = nms(10, 0.2);
  center.Set("score_threshold", 0.1);
  center.Set("center_point_box", int64_t{1});
  const SelectionFile cases[] = {
      {"nms_f32", "non_max_suppression", with_score, 2},
      {"nms_f32_no_score_threshold", "non_max_suppression", nms(100, 0.5), 2},
      {"nms_f32_iou0", "non_max_suppression", nms(4, 0.0), 2},
      {"nms_f64_center_point_box", "non_max_suppression", center, 2},
      {"nms_f16_iou1", "non_max_suppression", nms(9, 1.0), 2},
  };
  for (const SelectionFile& c : cases) RunSelectionFile(c);
}

// ---- the ONNX operator definitions' examples ------------------------------------------

std::vector<Tensor> RunSel(std::string_view op, const std::vector<Tensor>& inputs,
                           Attrs attrs = {}) {
  Expected<std::vector<Tensor>> out =
      RunRef(op, inputs, std::move(attrs), Outputs(std::string(op)));
  EXPECT_TRUE(out.ok()) << out.status().ToString();
  return out.ok() ? std::move(*out)
                  : std::vector<Tensor>(static_cast<size_t>(Outputs(std::string(op))));
}

void ExpectI64(const Tensor& t, const Shape& shape, const std::vector<int64_t>& values) {
  ASSERT_EQ(t.dtype(), DType::kI64);
  ASSERT_EQ(t.shape(), shape);
  EXPECT_EQ(I64Values(t), values);
}

void ExpectCount(const Tensor& t, int64_t count) { ExpectI64(t, {}, {count}); }

TEST(SelectionRef, NonZeroOnnxExample) {
  // ONNX NonZero: [[1, 0], [1, 1]] -> [[0, 1, 1], [0, 0, 1]].
  const std::vector<Tensor> out = RunSel("non_zero", {Make(DType::kBool, {2, 2}, {1, 0, 1, 1})});
  ExpectI64(out[0], {2, 4}, {0, 1, 1, 0, 0, 0, 1, 0});
  ExpectCount(out[1], 3);
}

TEST(SelectionRef, NonZeroScalarsAndSpecialValues) {
  // A scalar has one possible element and an index tuple without entries.
  std::vector<Tensor> out = RunSel("non_zero", {Make(DType::kF32, {}, {kNaN})});
  ExpectI64(out[0], {0, 1}, {});
  ExpectCount(out[1], 1);
  out = RunSel("non_zero", {Make(DType::kBF16, {}, {-0.0})});
  ExpectCount(out[1], 0);
  // NaN and infinities are non-zero, -0 is zero; 1-D indices are one row.
  out = RunSel("non_zero", {Make(DType::kF64, {5}, {-0.0, kNaN, 0.0, -kInf, 1e-300})});
  ExpectI64(out[0], {1, 5}, {1, 3, 4, 0, 0});
  ExpectCount(out[1], 3);
  out = RunSel("non_zero", {Make(DType::kI8, {0, 3}, {})});
  ExpectI64(out[0], {2, 0}, {});
  ExpectCount(out[1], 0);
}

TEST(SelectionRef, CompressOnnxExamples) {
  const Tensor x = Make(DType::kF32, {3, 2}, {1, 2, 3, 4, 5, 6});
  auto cond = [](std::vector<double> v) {
    return Make(DType::kBool, {static_cast<int64_t>(v.size())}, v);
  };
  // compress_0: condition [0, 1, 1] along axis 0 -> [[3, 4], [5, 6]].
  std::vector<Tensor> out = RunSel("compress", {x, cond({0, 1, 1})}, Axis(0));
  ExpectValues(out[0], DType::kF32, {3, 2}, {3, 4, 5, 6, 0, 0});
  ExpectCount(out[1], 2);
  // compress_1: condition [0, 1] along axis 1 -> [[2], [4], [6]].
  out = RunSel("compress", {x, cond({0, 1})}, Axis(1));
  ExpectValues(out[0], DType::kF32, {3, 2}, {2, 0, 4, 0, 6, 0});
  ExpectCount(out[1], 1);
  // compress_default_axis: condition [0, 1, 0, 0, 1] over the flattened x -> [2, 5].
  out = RunSel("compress", {x, cond({0, 1, 0, 0, 1})});
  ExpectValues(out[0], DType::kF32, {5}, {2, 5, 0, 0, 0});
  ExpectCount(out[1], 2);
  // compress_negative_axis: condition [0, 1] along axis -1 -> [[2], [4], [6]].
  out = RunSel("compress", {x, cond({0, 1})}, Axis(-1));
  ExpectValues(out[0], DType::kF32, {3, 2}, {2, 0, 4, 0, 6, 0});
  ExpectCount(out[1], 1);
  // A condition longer than the axis: the extra entries are ignored (onnxruntime).
  out = RunSel("compress", {x, cond({1, 0, 1, 1, 1})}, Axis(1));
  ExpectValues(out[0], DType::kF32, {3, 2}, {1, 0, 3, 0, 5, 0});
  ExpectCount(out[1], 1);
}

TEST(SelectionRef, UniqueOnnxExamples) {
  const Tensor x = Make(DType::kF32, {6}, {2, 1, 1, 3, 4, 3});
  // unique_not_sorted_without_axis.
  std::vector<Tensor> out = RunSel("unique", {x}, A({{"sorted", int64_t{0}}}));
  ExpectValues(out[0], DType::kF32, {6}, {2, 1, 3, 4, 0, 0});
  ExpectI64(out[1], {6}, {0, 1, 3, 4, 0, 0});
  ExpectI64(out[2], {6}, {0, 1, 1, 2, 3, 2});
  ExpectI64(out[3], {6}, {1, 2, 2, 1, 0, 0});
  ExpectCount(out[4], 4);
  // unique_sorted_without_axis.
  out = RunSel("unique", {x});
  ExpectValues(out[0], DType::kF32, {6}, {1, 2, 3, 4, 0, 0});
  ExpectI64(out[1], {6}, {1, 0, 3, 4, 0, 0});
  ExpectI64(out[2], {6}, {1, 0, 0, 2, 3, 2});
  ExpectI64(out[3], {6}, {2, 1, 2, 1, 0, 0});
  ExpectCount(out[4], 4);
  // unique_sorted_with_axis: [[1, 0, 0], [1, 0, 0], [2, 3, 4]] along axis 0.
  out = RunSel("unique", {Make(DType::kF32, {3, 3}, {1, 0, 0, 1, 0, 0, 2, 3, 4})}, Axis(0));
  ExpectValues(out[0], DType::kF32, {3, 3}, {1, 0, 0, 2, 3, 4, 0, 0, 0});
  ExpectI64(out[1], {3}, {0, 2, 0});
  ExpectI64(out[2], {3}, {0, 0, 1});
  ExpectI64(out[3], {3}, {2, 1, 0});
  ExpectCount(out[4], 2);
  // unique_sorted_with_axis_3d: [2, 4, 2] along axis 1.
  out = RunSel("unique",
               {Make(DType::kF32, {2, 4, 2}, {1, 1, 0, 1, 2, 1, 0, 1, 1, 1, 0, 1, 2, 1, 0, 1})},
               Axis(1));
  ExpectValues(out[0], DType::kF32, {2, 4, 2}, {0, 1, 1, 1, 2, 1, 0, 0, 0, 1, 1, 1, 2, 1, 0, 0});
  ExpectI64(out[1], {4}, {1, 0, 2, 0});
  ExpectI64(out[2], {4}, {1, 0, 2, 0});
  ExpectI64(out[3], {4}, {2, 1, 1, 0});
  ExpectCount(out[4], 3);
  // unique_sorted_with_negative_axis: [[1, 0, 0], [1, 0, 0], [2, 3, 3]] along axis -1.
  out = RunSel("unique", {Make(DType::kF32, {3, 3}, {1, 0, 0, 1, 0, 0, 2, 3, 3})}, Axis(-1));
  ExpectValues(out[0], DType::kF32, {3, 3}, {0, 1, 0, 0, 1, 0, 3, 2, 0});
  ExpectI64(out[1], {3}, {1, 0, 0});
  ExpectI64(out[2], {3}, {1, 0, 0});
  ExpectI64(out[3], {3}, {2, 1, 0});
  ExpectCount(out[4], 2);
}

TEST(SelectionRef, UniqueNanSignedZerosAndEmptySlices) {
  // NaNs are one value, after +inf; -0 equals +0, and y keeps the first occurrence's bits.
  const Tensor x = Make(DType::kF32, {6}, {kNaN, 0.0, -0.0, kNaN, kInf, 0.0});
  std::vector<Tensor> out = RunSel("unique", {x});
  ExpectValues(out[0], DType::kF32, {6}, {0.0, kInf, kNaN, 0, 0, 0});
  EXPECT_FALSE(std::signbit(Values(out[0])[0]));
  ExpectI64(out[1], {6}, {1, 4, 0, 0, 0, 0});
  ExpectI64(out[2], {6}, {2, 0, 0, 2, 1, 0});
  ExpectI64(out[3], {6}, {3, 1, 2, 0, 0, 0});
  ExpectCount(out[4], 3);
  out = RunSel("unique", {Make(DType::kBF16, {2}, {-0.0, 0.0})});
  EXPECT_TRUE(std::signbit(Values(out[0])[0]));
  ExpectCount(out[4], 1);
  // Slices with no elements are all equal: one unique slice.
  out = RunSel("unique", {Make(DType::kI32, {3, 0}, {})}, Axis(0));
  ExpectI64(out[1], {3}, {0, 0, 0});
  ExpectI64(out[2], {3}, {0, 0, 0});
  ExpectI64(out[3], {3}, {3, 0, 0});
  ExpectCount(out[4], 1);
  // No slices at all.
  out = RunSel("unique", {Make(DType::kI32, {0, 2}, {})}, Axis(0));
  ExpectCount(out[4], 0);
  // Integers compare as integers (beyond 2^53, where doubles could not tell them apart).
  out = RunSel("unique", {MakeI64({3}, {kMax, kMax - 1, kMax})});
  ExpectI64(out[0], {3}, {kMax - 1, kMax, 0});
  ExpectCount(out[4], 2);
}

// ONNX NonMaxSuppression's examples: six boxes, three near (0, 0), two near (0, 10) and
// one at (0, 100), with these scores.
Tensor OnnxBoxes(DType dtype = DType::kF32) {
  return Make(dtype, {1, 6, 4}, {0, 0,  1, 1,  0, 0.1,  1, 1.1,  0, -0.1, 1, 0.9,
                                 0, 10, 1, 11, 0, 10.1, 1, 11.1, 0, 100,  1, 101});
}
const std::vector<double> kOnnxScores = {0.9, 0.75, 0.6, 0.95, 0.5, 0.3};

Attrs Nms(int64_t max, double iou, std::optional<double> score = std::nullopt) {
  Attrs a = A({{"max_output_boxes_per_class", max}, {"iou_threshold", iou}});
  if (score) a.Set("score_threshold", *score);
  return a;
}

void ExpectSelected(const std::vector<Tensor>& out, int64_t capacity,
                    const std::vector<int64_t>& rows) {
  std::vector<int64_t> padded = rows;
  padded.resize(static_cast<size_t>(capacity * 3), 0);
  ExpectI64(out[0], {capacity, 3}, padded);
  ExpectCount(out[1], static_cast<int64_t>(rows.size() / 3));
}

TEST(SelectionRef, NonMaxSuppressionOnnxExamples) {
  const Tensor boxes = OnnxBoxes();
  const Tensor scores = Make(DType::kF32, {1, 1, 6}, kOnnxScores);
  const std::vector<int64_t> three = {0, 0, 3, 0, 0, 0, 0, 0, 5};
  // suppress_by_IOU.
  ExpectSelected(RunSel("non_max_suppression", {boxes, scores}, Nms(3, 0.5, 0.0)), 3, three);
  // suppress_by_IOU_and_scores.
  ExpectSelected(RunSel("non_max_suppression", {boxes, scores}, Nms(3, 0.5, 0.4)), 3,
                 {0, 0, 3, 0, 0, 0});
  // limit_output_size.
  ExpectSelected(RunSel("non_max_suppression", {boxes, scores}, Nms(2, 0.5, 0.0)), 2,
                 {0, 0, 3, 0, 0, 0});
  // flipped_coordinates: the same boxes with their corners in the other order.
  const Tensor flipped =
      Make(DType::kF32, {1, 6, 4}, {1, 1,  0, 0,  0, 0.1,  1, 1.1,  0, 0.9, 1, -0.1,
                                    0, 10, 1, 11, 1, 10.1, 0, 11.1, 1, 101, 0, 100});
  ExpectSelected(RunSel("non_max_suppression", {flipped, scores}, Nms(3, 0.5, 0.0)), 3, three);
  // center_point_box.
  const Tensor centers =
      Make(DType::kF32, {1, 6, 4}, {0.5, 0.5,  1, 1, 0.5, 0.6,  1, 1, 0.5, 0.4,   1, 1,
                                    0.5, 10.5, 1, 1, 0.5, 10.6, 1, 1, 0.5, 100.5, 1, 1});
  Attrs center = Nms(3, 0.5, 0.0);
  center.Set("center_point_box", int64_t{1});
  ExpectSelected(RunSel("non_max_suppression", {centers, scores}, center), 3, three);
  // identical_boxes: ten of [0, 0, 1, 1], all scored 0.9.
  std::vector<double> same;
  for (int i = 0; i < 10; ++i) same.insert(same.end(), {0, 0, 1, 1});
  ExpectSelected(RunSel("non_max_suppression",
                        {Make(DType::kF32, {1, 10, 4}, same),
                         Make(DType::kF32, {1, 1, 10}, std::vector<double>(10, 0.9))},
                        Nms(3, 0.5, 0.0)),
                 3, {0, 0, 0});
  // single_box.
  ExpectSelected(
      RunSel("non_max_suppression",
             {Make(DType::kF32, {1, 1, 4}, {0, 0, 1, 1}), Make(DType::kF32, {1, 1, 1}, {0.9})},
             Nms(3, 0.5, 0.0)),
      1, {0, 0, 0});
  // two_batches.
  std::vector<double> two_boxes = Values(boxes), two_scores = kOnnxScores;
  two_boxes.insert(two_boxes.end(), two_boxes.begin(), two_boxes.end());
  two_scores.insert(two_scores.end(), kOnnxScores.begin(), kOnnxScores.end());
  ExpectSelected(
      RunSel("non_max_suppression",
             {Make(DType::kF32, {2, 6, 4}, two_boxes), Make(DType::kF32, {2, 1, 6}, two_scores)},
             Nms(2, 0.5, 0.0)),
      4, {0, 0, 3, 0, 0, 0, 1, 0, 3, 1, 0, 0});
  // two_classes.
  ExpectSelected(RunSel("non_max_suppression", {boxes, Make(DType::kF32, {1, 2, 6}, two_scores)},
                        Nms(2, 0.5, 0.0)),
                 4, {0, 0, 3, 0, 0, 0, 0, 1, 3, 0, 1, 0});
}

TEST(SelectionRef, NonMaxSuppressionTiesNanAndLimits) {
  // Equal scores: the lower box index first (onnxruntime); far apart, so none suppressed.
  const Tensor apart = Make(DType::kF64, {1, 3, 4}, {0, 0, 1, 1, 5, 5, 6, 6, 9, 9, 10, 10});
  ExpectSelected(RunSel("non_max_suppression",
                        {apart, Make(DType::kF64, {1, 1, 3}, {0.5, 0.7, 0.5})}, Nms(3, 0.5)),
                 3, {0, 0, 1, 0, 0, 0, 0, 0, 2});
  // A NaN score ranks first; with a score threshold it is never above it.
  const Tensor nan_scores = Make(DType::kF64, {1, 1, 3}, {0.5, kNaN, 0.9});
  ExpectSelected(RunSel("non_max_suppression", {apart, nan_scores}, Nms(3, 0.5)), 3,
                 {0, 0, 1, 0, 0, 2, 0, 0, 0});
  ExpectSelected(RunSel("non_max_suppression", {apart, nan_scores}, Nms(3, 0.5, -kInf)), 3,
                 {0, 0, 2, 0, 0, 0});
  // A box with a NaN coordinate overlaps nothing; identical boxes at iou_threshold 1 are
  // not suppressed (IoU 1 is not above 1).
  const Tensor overlapping = Make(DType::kF32, {1, 3, 4}, {0, 0, 1, 1, 0, 0, 1, kNaN, 0, 0, 1, 1});
  const Tensor scores = Make(DType::kF32, {1, 1, 3}, {0.9, 0.8, 0.7});
  ExpectSelected(RunSel("non_max_suppression", {overlapping, scores}, Nms(3, 0.5)), 3,
                 {0, 0, 0, 0, 0, 1});
  ExpectSelected(RunSel("non_max_suppression", {overlapping, scores}, Nms(3, 1.0)), 3,
                 {0, 0, 0, 0, 0, 1, 0, 0, 2});
  // iou_threshold 0: any overlap with a positive area suppresses; touching edges do not.
  const Tensor touching = Make(DType::kF32, {1, 3, 4}, {0, 0, 1, 1, 0, 1, 1, 2, 0, 0.99, 1, 2});
  ExpectSelected(RunSel("non_max_suppression", {touching, scores}, Nms(3, 0.0)), 3,
                 {0, 0, 0, 0, 0, 1});
  // Capacity per class is min(N, max_output_boxes_per_class); negative and 0 select none.
  ExpectSelected(RunSel("non_max_suppression", {apart, nan_scores}, Nms(-5, 0.5)), 0, {});
  ExpectSelected(RunSel("non_max_suppression", {apart, nan_scores}, Nms(0, 0.5)), 0, {});
  ExpectSelected(
      RunSel("non_max_suppression",
             {Make(DType::kBF16, {2, 0, 4}, {}), Make(DType::kBF16, {2, 3, 0}, {})}, Nms(4, 0.5)),
      0, {});
}

// ---- zeros past the count, and the cpu device ----------------------------------------

// Runs `op`'s reference kernel on output buffers filled with 0xA5 bytes first, as the
// conformance suite's guard pattern leaves them; returns every output.
std::vector<std::vector<std::byte>> RunOnGarbage(std::string_view op,
                                                 const std::vector<Tensor>& inputs, Attrs attrs) {
  const OpSchema& schema = *OpRegistry::Global().Find(op);
  std::vector<TensorType> types;
  std::vector<ConstTensorView> in;
  for (const Tensor& t : inputs) {
    types.push_back(t.type());
    in.push_back({t.type(), t.data()});
  }
  Expected<std::vector<TensorType>> out_types =
      InferOutputTypes(schema, types, attrs, Outputs(std::string(op)));
  EXPECT_TRUE(out_types.ok()) << out_types.status().ToString();
  if (!out_types.ok()) return {};
  attrs = CanonicalAttrs(schema, types, attrs);
  std::vector<std::vector<std::byte>> buffers;
  std::vector<TensorView> out;
  for (const TensorType& t : *out_types) {
    buffers.emplace_back(static_cast<size_t>(ElementCount(t.shape)) * DTypeSize(t.dtype),
                         std::byte{0xA5});
  }
  for (size_t i = 0; i < buffers.size(); ++i) out.push_back({(*out_types)[i], buffers[i].data()});
  KernelContext ctx{op, in, out, attrs};
  const Status s = RefKernels().Find(op)(ctx);
  EXPECT_TRUE(s.ok()) << s.ToString();
  return buffers;
}

std::vector<int64_t> AsI64(const std::vector<std::byte>& bytes) {
  std::vector<int64_t> v(bytes.size() / 8);
  if (!v.empty()) std::memcpy(v.data(), bytes.data(), bytes.size());
  return v;
}

TEST(SelectionRef, EverythingPastTheCountIsZero) {
  std::vector<std::vector<std::byte>> out =
      RunOnGarbage("non_zero", {Make(DType::kI32, {2, 2}, {0, 3, 0, 0})}, {});
  EXPECT_EQ(AsI64(out[0]), (std::vector<int64_t>{0, 0, 0, 0, 1, 0, 0, 0}));
  EXPECT_EQ(AsI64(out[1]), (std::vector<int64_t>{1}));
  out = RunOnGarbage(
      "compress",
      {Make(DType::kU8, {2, 3}, {1, 2, 3, 4, 5, 6}), Make(DType::kBool, {3}, {0, 0, 1})}, Axis(1));
  EXPECT_EQ(out[0], (std::vector<std::byte>{std::byte{3}, std::byte{0}, std::byte{0}, std::byte{6},
                                            std::byte{0}, std::byte{0}}));
  out = RunOnGarbage("unique", {Make(DType::kI8, {4}, {7, 7, 7, 7})}, {});
  EXPECT_EQ(out[0],
            (std::vector<std::byte>{std::byte{7}, std::byte{0}, std::byte{0}, std::byte{0}}));
  EXPECT_EQ(AsI64(out[1]), (std::vector<int64_t>{0, 0, 0, 0}));
  EXPECT_EQ(AsI64(out[3]), (std::vector<int64_t>{4, 0, 0, 0}));
  EXPECT_EQ(AsI64(out[4]), (std::vector<int64_t>{1}));
  out = RunOnGarbage("non_max_suppression",
                     {OnnxBoxes(), Make(DType::kF32, {1, 1, 6}, kOnnxScores)}, Nms(5, 0.5));
  EXPECT_EQ(AsI64(out[0]), (std::vector<int64_t>{0, 0, 3, 0, 0, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0}));
  EXPECT_EQ(AsI64(out[1]), (std::vector<int64_t>{3}));
}

// The cpu device has no tuned kernels for the family: it runs the reference ones.
TEST(SelectionRef, TheCpuDeviceRunsTheReferenceKernels) {
  for (const char* op : {"non_zero", "compress", "unique", "non_max_suppression"}) {
    ASSERT_NE(RefKernels().Find(op), nullptr) << op;
    EXPECT_EQ(FastKernels().Find(op), RefKernels().Find(op)) << op;
  }
}

}  // namespace
}  // namespace sy::cpu::test
