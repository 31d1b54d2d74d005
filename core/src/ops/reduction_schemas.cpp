// Reductions and scans of the catalogue (spec/ops.md, "Reductions and scans"):
// reduce_sum/mean/max/min/prod over a set of axes, argmax/argmin over one axis (i64
// indices), cumsum (same shape) and topk (values and i64 indices, axis resized to k).
#include <algorithm>

#include "ops/op_families.h"
#include "ops/shape_rule_helpers.h"

namespace sy::ops {
namespace {

constexpr DTypeSet kFI = DTypeSet::Numeric();

AttrSpec Int(std::string_view name, int64_t value) { return {name, AttrKind::kInt, value}; }
AttrSpec RequiredInt(std::string_view name) {
  return {name, AttrKind::kInt, std::nullopt, /*required=*/true};
}

OpSchema Unary(std::string_view name, std::string_view onnx, ShapeRule rule,
               std::vector<AttrSpec> attrs) {
  OpSchema s;
  s.name = name;
  s.onnx_name = onnx;
  s.type_vars = OneTypeVar(kFI);
  s.inputs = {{"x", 0}};
  s.attrs = std::move(attrs);
  s.infer = rule;
  return s;
}

// A 0/1 attribute (keepdims, exclusive, ...): anything else is an error naming it.
Status RequireFlag(const Attrs& attrs, std::string_view name) {
  const int64_t v = attrs.GetInt(name);
  if (v == 0 || v == 1) return Status::Ok();
  return AttrError(name, "is " + std::to_string(v) + " but must be 0 or 1");
}

// Maps one axis of input x, given by attribute `attr`, to [0, rank); the error names the
// attribute, the input's shape and the accepted range.
Expected<int64_t> InputAxis(int64_t axis, const TensorType& x, std::string_view attr,
                            std::string_view what = "is ") {
  const int64_t rank = x.rank();
  if (rank == 0) {
    return AttrError(attr, std::string(what) + std::to_string(axis) +
                               " but input x is a scalar (shape []), which has no axes");
  }
  if (axis < -rank || axis >= rank) {
    return AttrError(attr, std::string(what) + std::to_string(axis) + " but input x has shape " +
                               ShapeToString(x.shape) + " (rank " + std::to_string(rank) +
                               "), so it must be in " + std::to_string(-rank) + " to " +
                               std::to_string(rank - 1));
  }
  return axis < 0 ? axis + rank : axis;
}

// reduce_*: `axes` absent or empty reduces every axis (ONNX, noop_with_empty_axes = 0).
Expected<std::vector<TensorType>> InferReduce(const InferContext& ctx) {
  SY_RETURN_IF_ERROR(RequireFlag(ctx.attrs, "keepdims"));
  const TensorType& x = ctx.input(0);
  const bool keepdims = ctx.attrs.GetInt("keepdims") == 1;
  std::vector<bool> reduced(x.shape.size(), false);
  const std::vector<int64_t> axes = ctx.attrs.GetInts("axes");
  if (axes.empty()) {
    std::fill(reduced.begin(), reduced.end(), true);
  }
  for (int64_t axis : axes) {
    SY_ASSIGN_OR_RETURN(int64_t a, InputAxis(axis, x, "axes", "has entry "));
    if (reduced[a]) {
      return AttrError("axes", "is " + AttrValueToString(axes) + " which names axis " +
                                   std::to_string(a) + " of input x (shape " +
                                   ShapeToString(x.shape) + ") more than once");
    }
    reduced[a] = true;
  }
  Shape shape;
  for (size_t i = 0; i < x.shape.size(); ++i) {
    if (!reduced[i]) {
      shape.push_back(x.shape[i]);
    } else if (keepdims) {
      shape.push_back(1);
    }
  }
  return std::vector<TensorType>{{x.dtype, std::move(shape)}};
}

// argmax / argmin: one axis reduced to its index (i64), kept as 1 or removed.
Expected<std::vector<TensorType>> InferArgReduce(const InferContext& ctx) {
  SY_RETURN_IF_ERROR(RequireFlag(ctx.attrs, "keepdims"));
  SY_RETURN_IF_ERROR(RequireFlag(ctx.attrs, "select_last_index"));
  const TensorType& x = ctx.input(0);
  SY_ASSIGN_OR_RETURN(int64_t axis, InputAxis(ctx.attrs.GetInt("axis"), x, "axis"));
  Shape shape = x.shape;
  if (ctx.attrs.GetInt("keepdims") == 1) {
    shape[axis] = 1;
  } else {
    shape.erase(shape.begin() + axis);
  }
  // An empty axis has no index to return, unless there is nothing to return at all.
  if (x.shape[axis] == 0 && ElementCount(shape) != 0) {
    return AttrError("axis", "is " + std::to_string(ctx.attrs.GetInt("axis")) +
                                 " but that dimension of input x (shape " + ShapeToString(x.shape) +
                                 ") has size 0, so there is no index to return");
  }
  return std::vector<TensorType>{{DType::kI64, std::move(shape)}};
}

Expected<std::vector<TensorType>> InferCumsum(const InferContext& ctx) {
  SY_RETURN_IF_ERROR(RequireFlag(ctx.attrs, "exclusive"));
  SY_RETURN_IF_ERROR(RequireFlag(ctx.attrs, "reverse"));
  SY_RETURN_IF_ERROR(InputAxis(ctx.attrs.GetInt("axis"), ctx.input(0), "axis").status());
  return std::vector<TensorType>{ctx.input(0)};
}

// topk: values (x's dtype) and i64 indices, both x's shape with `axis` resized to k.
Expected<std::vector<TensorType>> InferTopk(const InferContext& ctx) {
  SY_RETURN_IF_ERROR(RequireFlag(ctx.attrs, "largest"));
  SY_RETURN_IF_ERROR(RequireFlag(ctx.attrs, "sorted"));
  const TensorType& x = ctx.input(0);
  SY_ASSIGN_OR_RETURN(int64_t axis, InputAxis(ctx.attrs.GetInt("axis"), x, "axis"));
  const int64_t k = ctx.attrs.GetInt("k");
  if (k < 0 || k > x.shape[axis]) {
    return AttrError("k", "is " + std::to_string(k) + " but input x (shape " +
                              ShapeToString(x.shape) + ") has " + std::to_string(x.shape[axis]) +
                              " elements along axis " + std::to_string(axis) +
                              ", so it must be in 0 to " + std::to_string(x.shape[axis]));
  }
  Shape shape = x.shape;
  shape[axis] = k;
  return std::vector<TensorType>{{x.dtype, shape}, {DType::kI64, shape}};
}

}  // namespace

void AddReductionSchemas(std::vector<OpSchema>& out) {
  for (auto [name, onnx] : {std::pair{"reduce_sum", "ReduceSum"},
                            {"reduce_mean", "ReduceMean"},
                            {"reduce_max", "ReduceMax"},
                            {"reduce_min", "ReduceMin"},
                            {"reduce_prod", "ReduceProd"}}) {
    out.push_back(Unary(name, onnx, InferReduce,
                        {{"axes", AttrKind::kInts, std::nullopt}, Int("keepdims", 1)}));
  }
  for (auto [name, onnx] : {std::pair{"argmax", "ArgMax"}, {"argmin", "ArgMin"}}) {
    out.push_back(Unary(name, onnx, InferArgReduce,
                        {Int("axis", 0), Int("keepdims", 1), Int("select_last_index", 0)}));
  }
  for (auto [name, onnx] : {std::pair{"cumsum", "CumSum"}, {"cumprod", "CumProd"}}) {
    out.push_back(Unary(name, onnx, InferCumsum,
                        {RequiredInt("axis"), Int("exclusive", 0), Int("reverse", 0)}));
  }
  {
    OpSchema s = Unary("topk", "TopK", InferTopk,
                       {RequiredInt("k"), Int("axis", -1), Int("largest", 1), Int("sorted", 1)});
    s.min_outputs = 2;
    s.max_outputs = 2;
    out.push_back(std::move(s));
  }
}

}  // namespace sy::ops
