// Selection ops of the catalogue (docs/ops.md, "Selection"): non_zero, compress, unique and
// non_max_suppression, with the semantics of the ONNX operators of the same names. How
// many elements they produce depends on the data, but a specialisation's shapes are
// static, so each writes a fixed-capacity output (the most the data could select) and, as
// its LAST output, an i64 scalar `count` of how many leading entries along the capacity
// dim are real; the entries past the count are zero, so results compare exactly. The
// session (or the importer) slices the capacity buffers to the count at run time.
#include <algorithm>
#include <cmath>
#include <optional>

#include "ops/op_families.h"
#include "ops/shape_rule_helpers.h"

namespace sy::ops {
namespace {

constexpr DTypeSet kAll = DTypeSet::All();

AttrSpec Int(std::string_view name, int64_t value) { return {name, AttrKind::kInt, value}; }
AttrSpec OptionalInt(std::string_view name) { return {name, AttrKind::kInt, std::nullopt}; }

std::string Str(int64_t v) { return std::to_string(v); }

// The last output of every selection op: how many leading entries are real.
TensorType Count() { return {DType::kI64, {}}; }

// A 0/1 attribute (sorted, center_point_box): anything else is an error naming it.
Status RequireFlag(const Attrs& attrs, std::string_view name) {
  const int64_t v = attrs.GetInt(name);
  if (v == 0 || v == 1) return Status::Ok();
  return AttrError(name, "is " + Str(v) + " but must be 0 or 1");
}

// The optional `axis` of compress and unique: nullopt when absent (x is flattened), else
// the axis in [0, rank); rank-0 x has no axis to name.
Expected<std::optional<int64_t>> OptionalAxis(const InferContext& ctx, const TensorType& x) {
  if (!ctx.attrs.Has("axis")) return std::optional<int64_t>();
  SY_ASSIGN_OR_RETURN(const int64_t axis,
                      NormalizeAxis(ctx.attrs.GetInt("axis"), x.rank(), "attribute axis"));
  return std::optional<int64_t>(axis);
}

// ---- non_zero ----

// ONNX NonZero: indices [rank(x), numel(x)], column j < count the index tuple of the j-th
// non-zero element in row-major order. A rank-0 x gives [0, 1]: one possible non-zero
// element, whose index tuple has no entries (ONNX's shape inference says rank(x) rows;
// onnxruntime writes one row of zeros instead).
Expected<std::vector<TensorType>> InferNonZero(const InferContext& ctx) {
  const TensorType& x = ctx.input(0);
  return std::vector<TensorType>{{DType::kI64, {x.rank(), ElementCount(x.shape)}}, Count()};
}

// ---- compress ----

// ONNX Compress: condition (1-D bool) selects slices of x along `axis` (elements of the
// flattened x when absent). Capacity: min(len(condition), that dim). A condition longer
// than the axis is accepted and its extra entries ignored, as onnxruntime does.
Expected<std::vector<TensorType>> InferCompress(const InferContext& ctx) {
  const TensorType& x = ctx.input(0);
  const TensorType& condition = ctx.input(1);
  SY_RETURN_IF_ERROR(RequireRank(condition, "condition", 1));
  SY_ASSIGN_OR_RETURN(const std::optional<int64_t> axis, OptionalAxis(ctx, x));
  const int64_t length = condition.shape[0];
  if (!axis.has_value()) {
    return std::vector<TensorType>{{x.dtype, {std::min(length, ElementCount(x.shape))}}, Count()};
  }
  Shape shape = x.shape;
  shape[static_cast<size_t>(*axis)] = std::min(length, shape[static_cast<size_t>(*axis)]);
  return std::vector<TensorType>{{x.dtype, std::move(shape)}, Count()};
}

// ---- unique ----

// ONNX Unique: y, indices, inverse_indices, counts, then count. Capacity: the number of
// slices along `axis` (elements of the flattened x when absent), every one of which could
// be unique; inverse_indices has one entry per slice.
Expected<std::vector<TensorType>> InferUnique(const InferContext& ctx) {
  const TensorType& x = ctx.input(0);
  SY_RETURN_IF_ERROR(RequireFlag(ctx.attrs, "sorted"));
  SY_ASSIGN_OR_RETURN(const std::optional<int64_t> axis, OptionalAxis(ctx, x));
  const int64_t n = axis.has_value() ? x.shape[static_cast<size_t>(*axis)] : ElementCount(x.shape);
  const TensorType y = axis.has_value() ? x : TensorType{x.dtype, {n}};
  const TensorType per_slice{DType::kI64, {n}};
  return std::vector<TensorType>{y, per_slice, per_slice, per_slice, Count()};
}

// ---- non_max_suppression ----

// ONNX NonMaxSuppression with its optional inputs as attributes: boxes [B, N, 4], scores
// [B, C, N]; selected_indices [B * C * min(N, max_output_boxes_per_class), 3] (rows of
// batch, class, box), then count. A negative max_output_boxes_per_class selects nothing,
// as onnxruntime clamps it to 0; iou_threshold must lie in [0, 1], as onnxruntime checks.
Expected<std::vector<TensorType>> InferNonMaxSuppression(const InferContext& ctx) {
  const TensorType& boxes = ctx.input(0);
  const TensorType& scores = ctx.input(1);
  SY_RETURN_IF_ERROR(RequireRank(boxes, "boxes", 3));
  SY_RETURN_IF_ERROR(RequireRank(scores, "scores", 3));
  if (boxes.shape[2] != 4) {
    return DimError("boxes", boxes, 2, "be 4 (the coordinates of each box)");
  }
  if (scores.shape[0] != boxes.shape[0]) {
    return DimError("scores", scores, 0,
                    "equal input boxes' dimension 0 (" + Str(boxes.shape[0]) + ", the batch)");
  }
  if (scores.shape[2] != boxes.shape[1]) {
    return DimError(
        "scores", scores, 2,
        "equal input boxes' dimension 1 (" + Str(boxes.shape[1]) + ", the number of boxes)");
  }
  SY_RETURN_IF_ERROR(RequireFlag(ctx.attrs, "center_point_box"));
  const double iou = ctx.attrs.GetFloat("iou_threshold");
  if (!(iou >= 0.0 && iou <= 1.0)) {
    return AttrError("iou_threshold", "is " + AttrValueToString(iou) + " but must be in [0, 1]");
  }
  if (ctx.attrs.Has("score_threshold") && std::isnan(ctx.attrs.GetFloat("score_threshold"))) {
    return AttrError("score_threshold", "is NaN");
  }
  const int64_t per_class =
      std::clamp<int64_t>(ctx.attrs.GetInt("max_output_boxes_per_class"), 0, boxes.shape[1]);
  // B * C * per_class <= the element count of scores, which validation has bounded.
  const int64_t capacity = scores.shape[0] * scores.shape[1] * per_class;
  return std::vector<TensorType>{{DType::kI64, {capacity, 3}}, Count()};
}

OpSchema Selection(std::string_view name, std::string_view onnx, DTypeSet allowed,
                   std::vector<InputSpec> inputs, std::vector<AttrSpec> attrs, ShapeRule rule,
                   int num_outputs) {
  OpSchema s = MakeSchema(name, onnx, allowed, std::move(inputs), std::move(attrs), rule);
  s.min_outputs = num_outputs;
  s.max_outputs = num_outputs;
  return s;
}

}  // namespace

void AddSelectionSchemas(std::vector<OpSchema>& out) {
  out.push_back(Selection("non_zero", "NonZero", kAll, {{"x", 0}}, {}, InferNonZero, 2));
  {
    OpSchema s = Selection("compress", "Compress", kAll, {{"x", 0}, {"condition", 1}},
                           {OptionalInt("axis")}, InferCompress, 2);
    s.type_vars = {{"T", kAll}, {"B", DTypeSet::Bool()}};
    out.push_back(std::move(s));
  }
  out.push_back(Selection("unique", "Unique", kAll, {{"x", 0}},
                          {OptionalInt("axis"), Int("sorted", 1)}, InferUnique, 5));
  out.push_back(Selection("non_max_suppression", "NonMaxSuppression", DTypeSet::Float(),
                          {{"boxes", 0}, {"scores", 0}},
                          {Int("max_output_boxes_per_class", 0),
                           {"iou_threshold", AttrKind::kFloat, 0.0},
                           {"score_threshold", AttrKind::kFloat, std::nullopt},
                           Int("center_point_box", 0)},
                          InferNonMaxSuppression, 2));
}

}  // namespace sy::ops
