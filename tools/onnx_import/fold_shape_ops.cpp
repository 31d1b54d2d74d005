// Folds: ONNX ops evaluated on the host when their inputs are known at import time. These
// are the shape computations that exporters emit (Shape -> Gather -> Concat -> Reshape)
// and constant producers; folding them is what gives the imported graph static shapes.
#include <algorithm>
#include <cmath>

#include "host_tensor_ops.h"
#include "onnx_tensor.h"
#include "op_mapping.h"
#include "switchyard/shape.h"

namespace sy::onnx_import {
namespace {

// Inputs are constants whenever a fold with fold_needs_values runs, and present where the
// op's schema requires them (CheckArity in onnx_importer.cpp); for an op the linked ONNX
// library does not describe, an absent input reads as an empty tensor, never as null.
const Tensor& In(NodeContext& ctx, size_t i) {
  static const Tensor kAbsent;
  const Tensor* t = ctx.ConstantInput(i);
  return t != nullptr ? *t : kAbsent;
}

Status Bind(NodeContext& ctx, Expected<Tensor> result, size_t output = 0) {
  if (!result.ok()) return ctx.Invalid(result.status().message());
  ctx.SetOutputConstant(output, std::move(result).value());
  return Status::Ok();
}

// Refuses a fold whose result, `dtype` over `shape`, is larger than the import's bound.
// Every fold whose result can outgrow its inputs checks it before computing anything
// (broadcasting ops, Concat, Gather, Cast, Expand, ConstantOfShape, Range, EyeLike).
Status CheckFoldSize(NodeContext& ctx, DType dtype, const std::vector<int64_t>& shape) {
  const uint64_t limit = ctx.state().options().max_fold_bytes;
  for (int64_t d : shape) {
    if (d < 0) return ctx.Invalid("shape " + ShapeToString(shape) + " has a negative dim");
  }
  // Past kMaxElementCount (2^60) the count is an error, and so past any limit.
  const Expected<int64_t> count = CheckedElementCount(shape);
  if (!count.ok() || static_cast<uint64_t>(*count) > limit / DTypeSize(dtype)) {
    return ctx.Invalid("folding it would make a constant " + std::string(DTypeName(dtype)) + " " +
                       ShapeToString(shape) + " larger than the import's limit of " +
                       std::to_string(limit) + " bytes (switchyard import --max-fold-bytes)");
  }
  return Status::Ok();
}

// The same for a result whose shape is the broadcast of `shapes` (shapes that do not
// broadcast are left to the op's own message).
Status CheckBroadcastFoldSize(NodeContext& ctx, DType dtype, const std::vector<Shape>& shapes) {
  Shape out;
  for (const Shape& s : shapes) {
    Expected<Shape> b = BroadcastShapes(out, s);
    if (!b.ok()) return Status::Ok();
    out = std::move(*b);
  }
  return CheckFoldSize(ctx, dtype, out);
}

Status FoldConstant(NodeContext& ctx) {
  for (const auto& attr : ctx.node().attribute()) {
    const std::string& name = attr.name();
    if (name == "value") {
      Expected<Tensor> t = TensorFromProto(attr.t(), ctx.state().base_dir());
      if (!t.ok()) {
        return ctx.Fail(t.status().code() == StatusCode::kUnsupported
                            ? ImportProblem::kUnsupportedType
                            : ImportProblem::kInvalidModel,
                        t.status().message());
      }
      return Bind(ctx, std::move(t));
    }
    if (name == "value_float") {
      const double v = attr.f();
      return Bind(ctx, FromDoubles(DType::kF32, {}, std::span(&v, 1)));
    }
    if (name == "value_floats") {
      std::vector<double> v(attr.floats().begin(), attr.floats().end());
      return Bind(ctx, FromDoubles(DType::kF32, {static_cast<int64_t>(v.size())}, v));
    }
    if (name == "value_int") {
      const int64_t v = attr.i();
      return Bind(ctx, FromInt64s(DType::kI64, {}, std::span(&v, 1)));
    }
    if (name == "value_ints") {
      std::vector<int64_t> v(attr.ints().begin(), attr.ints().end());
      return Bind(ctx, FromInt64s(DType::kI64, {static_cast<int64_t>(v.size())}, v));
    }
    if (name == "value_string" || name == "value_strings") {
      return ctx.Fail(ImportProblem::kUnsupportedType,
                      "holds strings, which rml-graph v1 has no dtype for");
    }
    if (name == "sparse_value") {
      return ctx.UnsupportedOp("holds a sparse tensor, which the importer does not read");
    }
  }
  return ctx.Invalid("has no value attribute");
}

Status FoldIdentity(NodeContext& ctx) {
  ctx.SetOutputConstant(0, In(ctx, 0));
  return Status::Ok();
}

Status FoldShape(NodeContext& ctx) {
  const Shape& shape = ctx.InputType(0).shape;
  const int64_t rank = static_cast<int64_t>(shape.size());
  int64_t start = ctx.AttrInt("start", 0), end = ctx.AttrInt("end", rank);
  if (start < 0) start += rank;
  if (end < 0) end += rank;
  start = std::clamp<int64_t>(start, 0, rank);
  end = std::clamp<int64_t>(end, start, rank);
  ctx.SetOutputConstant(0, Int64Vector(std::span(shape).subspan(start, end - start)));
  return Status::Ok();
}

Status FoldSize(NodeContext& ctx) {
  const int64_t count = ElementCount(ctx.InputType(0).shape);
  return Bind(ctx, FromInt64s(DType::kI64, {}, std::span(&count, 1)));
}

Status FoldCast(NodeContext& ctx) {
  SY_ASSIGN_OR_RETURN(DType to, DTypeParam(ctx, ctx.AttrInt("to", 0), "Cast's target type"));
  SY_RETURN_IF_ERROR(CheckFoldSize(ctx, to, In(ctx, 0).shape()));
  return Bind(ctx, CastHost(In(ctx, 0), to));
}

Status FoldCastLike(NodeContext& ctx) {
  return Bind(ctx, CastHost(In(ctx, 0), ctx.InputType(1).dtype));
}

Status FoldConstantOfShape(NodeContext& ctx) {
  const std::vector<int64_t> shape = ToInt64s(In(ctx, 0));
  Tensor fill;
  if (const auto* attr = ctx.Attr("value")) {
    Expected<Tensor> t = TensorFromProto(attr->t(), ctx.state().base_dir());
    if (!t.ok()) {
      return ctx.Fail(t.status().code() == StatusCode::kUnsupported
                          ? ImportProblem::kUnsupportedType
                          : ImportProblem::kInvalidModel,
                      t.status().message());
    }
    if (t.value().element_count() != 1) return ctx.Invalid("value must hold one element");
    fill = std::move(t).value();
  } else {
    const double zero = 0.0;
    SY_ASSIGN_OR_RETURN(fill, FromDoubles(DType::kF32, {}, std::span(&zero, 1)));
  }
  SY_RETURN_IF_ERROR(CheckFoldSize(ctx, fill.dtype(), shape));
  return Bind(ctx, ExpandHost(fill, Shape(shape.begin(), shape.end())));
}

Status FoldEyeLike(NodeContext& ctx) {
  const TensorType& type = ctx.InputType(0);
  if (type.shape.size() != 2) return ctx.Invalid("input must be 2-D");
  DType dtype = type.dtype;
  if (const auto* attr = ctx.Attr("dtype")) {
    SY_ASSIGN_OR_RETURN(dtype, DTypeParam(ctx, attr->i(), "dtype"));
  }
  const int64_t k = ctx.AttrInt("k", 0);
  SY_RETURN_IF_ERROR(CheckFoldSize(ctx, dtype, type.shape));
  const int64_t rows = type.shape[0], cols = type.shape[1];
  std::vector<int64_t> v(static_cast<size_t>(rows * cols), 0);
  for (int64_t r = 0; r < rows; ++r) {
    if (r + k >= 0 && r + k < cols) v[r * cols + r + k] = 1;
  }
  return Bind(ctx, FromInt64s(dtype, type.shape, v));
}

Status FoldGather(NodeContext& ctx) {
  // Indices may repeat: the result [data before axis, indices, data after axis] can be far
  // larger than the data.
  const Shape& data = In(ctx, 0).shape();
  const int64_t rank = static_cast<int64_t>(data.size());
  int64_t axis = ctx.AttrInt("axis", 0);
  if (axis < 0) axis += rank;
  if (axis >= 0 && axis < rank) {
    Shape out(data.begin(), data.begin() + axis);
    for (int64_t d : In(ctx, 1).shape()) out.push_back(d);
    out.insert(out.end(), data.begin() + axis + 1, data.end());
    SY_RETURN_IF_ERROR(CheckFoldSize(ctx, In(ctx, 0).dtype(), out));
  }
  return Bind(ctx, GatherHost(In(ctx, 0), In(ctx, 1), ctx.AttrInt("axis", 0)));
}

Status FoldSlice(NodeContext& ctx) {
  SY_ASSIGN_OR_RETURN(SliceParams p, SliceParamsOf(ctx));
  return Bind(ctx, SliceHost(In(ctx, 0), p.starts, p.ends, p.axes, p.steps));
}

Status FoldConcat(NodeContext& ctx) {
  std::vector<Tensor> inputs;
  for (size_t i = 0; i < ctx.num_inputs(); ++i) {
    if (ctx.HasInput(i)) inputs.push_back(In(ctx, i));
  }
  // A chain of concats doubles at each step: the sum along the axis is checked first.
  if (!inputs.empty()) {
    const int64_t rank = static_cast<int64_t>(inputs[0].shape().size());
    int64_t axis = ctx.AttrInt("axis", 0);
    if (axis < 0) axis += rank;
    if (axis >= 0 && axis < rank) {
      Shape out = inputs[0].shape();
      int64_t along = 0;
      for (const Tensor& t : inputs) {
        if (static_cast<int64_t>(t.shape().size()) == rank) along += t.shape()[axis];
      }
      out[axis] = along;
      SY_RETURN_IF_ERROR(CheckFoldSize(ctx, inputs[0].dtype(), out));
    }
  }
  return Bind(ctx, ConcatHost(inputs, ctx.AttrInt("axis", 0)));
}

template <Expected<Shape> (*ShapeFn)(NodeContext&)>
Status FoldReshapeLike(NodeContext& ctx) {
  SY_ASSIGN_OR_RETURN(Shape shape, ShapeFn(ctx));
  return Bind(ctx, ReshapeHost(In(ctx, 0), shape));
}

Status FoldTranspose(NodeContext& ctx) {
  const int64_t rank = static_cast<int64_t>(ctx.InputType(0).shape.size());
  std::vector<int64_t> perm = ctx.AttrInts("perm").value_or(std::vector<int64_t>{});
  if (perm.empty()) {
    for (int64_t d = rank; d-- > 0;) perm.push_back(d);
  }
  return Bind(ctx, TransposeHost(In(ctx, 0), perm));
}

Status FoldExpand(NodeContext& ctx) {
  const std::vector<int64_t> shape = ToInt64s(In(ctx, 1));
  // The result's size: the larger dim at each aligned position (a mismatch that does not
  // broadcast is ExpandHost's error).
  const Tensor& x = In(ctx, 0);
  std::vector<int64_t> out(std::max(shape.size(), x.shape().size()), 1);
  for (size_t i = 0; i < out.size(); ++i) {
    const size_t from_end = out.size() - 1 - i;
    const int64_t a = from_end < shape.size() ? shape[shape.size() - 1 - from_end] : 1;
    const int64_t b = from_end < x.shape().size() ? x.shape()[x.shape().size() - 1 - from_end] : 1;
    out[i] = a == 1 ? b : a;
  }
  SY_RETURN_IF_ERROR(CheckFoldSize(ctx, x.dtype(), out));
  return Bind(ctx, ExpandHost(x, Shape(shape.begin(), shape.end())));
}

Status FoldBinary(NodeContext& ctx) {
  const std::string& op = ctx.node().op_type();
  if (op == "Mod" && ctx.AttrInt("fmod", 0) == 0 && IsFloat(ctx.InputType(0).dtype)) {
    return ctx.UnsupportedOp("float Mod needs fmod=1");
  }
  SY_RETURN_IF_ERROR(
      CheckBroadcastFoldSize(ctx, In(ctx, 0).dtype(), {In(ctx, 0).shape(), In(ctx, 1).shape()}));
  return Bind(ctx, BinaryHost(op, In(ctx, 0), In(ctx, 1)));
}

// Variadic Max/Min/Sum of constants (one input: itself).
Status FoldVariadic(NodeContext& ctx) {
  const std::string& op = ctx.node().op_type();
  const std::string binary = op == "Sum" ? "Add" : op;
  std::vector<Shape> shapes;
  for (size_t i = 0; i < ctx.num_inputs(); ++i) shapes.push_back(In(ctx, i).shape());
  SY_RETURN_IF_ERROR(CheckBroadcastFoldSize(ctx, In(ctx, 0).dtype(), shapes));
  Tensor acc = In(ctx, 0);
  for (size_t i = 1; i < ctx.num_inputs(); ++i) {
    Expected<Tensor> next = BinaryHost(binary, acc, In(ctx, i));
    if (!next.ok()) return ctx.Invalid(next.status().message());
    acc = std::move(next).value();
  }
  ctx.SetOutputConstant(0, acc);
  return Status::Ok();
}

Status FoldUnary(NodeContext& ctx) {
  return Bind(ctx, UnaryHost(ctx.node().op_type(), In(ctx, 0)));
}

// Split of a constant: the sizes given (input or attribute), else equal parts (opset
// 18's num_outputs: parts of ceil(dim / n), the last one smaller).
Status FoldSplit(NodeContext& ctx) {
  const Tensor& x = In(ctx, 0);
  const auto rank = static_cast<int64_t>(x.shape().size());
  int64_t axis = ctx.AttrInt("axis", 0);
  if (axis < 0) axis += rank;
  if (axis < 0 || axis >= rank) return ctx.Invalid("axis is out of range");
  const int64_t dim = x.shape()[static_cast<size_t>(axis)];
  const auto n = static_cast<int64_t>(ctx.num_outputs());
  std::vector<int64_t> sizes;
  if (ctx.since_version() >= 13) {
    if (ctx.HasInput(1)) sizes = ToInt64s(In(ctx, 1));
  } else {
    sizes = ctx.AttrInts("split").value_or(std::vector<int64_t>());
  }
  if (sizes.empty()) {
    const int64_t chunk = (dim + n - 1) / n;
    for (int64_t k = 0; k < n; ++k)
      sizes.push_back(std::max<int64_t>(0, std::min(chunk, dim - k * chunk)));
  }
  int64_t total = 0;
  for (int64_t s : sizes) total += s < 0 ? dim + 1 : s;
  if (static_cast<int64_t>(sizes.size()) != n || total != dim) {
    return ctx.Invalid("split sizes do not add up to dim " + std::to_string(dim) + " in " +
                       std::to_string(n) + " outputs");
  }
  int64_t offset = 0;
  for (int64_t k = 0; k < n; ++k) {
    const int64_t start = offset, end = offset + sizes[static_cast<size_t>(k)];
    SY_ASSIGN_OR_RETURN(Tensor part,
                        SliceHost(x, std::vector<int64_t>{start}, std::vector<int64_t>{end},
                                  std::vector<int64_t>{axis}, {}));
    ctx.SetOutputConstant(static_cast<size_t>(k), std::move(part));
    offset = end;
  }
  return Status::Ok();
}

Status FoldWhere(NodeContext& ctx) {
  SY_RETURN_IF_ERROR(CheckBroadcastFoldSize(
      ctx, In(ctx, 1).dtype(), {In(ctx, 0).shape(), In(ctx, 1).shape(), In(ctx, 2).shape()}));
  return Bind(ctx, WhereHost(In(ctx, 0), In(ctx, 1), In(ctx, 2)));
}

Status FoldReduce(NodeContext& ctx) {
  SY_ASSIGN_OR_RETURN(auto axes, AxesParam(ctx, 1, ctx.node().op_type() == "ReduceSum" ? 13 : 18));
  if (axes.empty() && ctx.AttrInt("noop_with_empty_axes", 0) != 0) {
    ctx.SetOutputConstant(0, In(ctx, 0));
    return Status::Ok();
  }
  return Bind(ctx,
              ReduceHost(ctx.node().op_type(), In(ctx, 0), axes, ctx.AttrInt("keepdims", 1) != 0));
}

Status FoldRange(NodeContext& ctx) {
  const Tensor& start = In(ctx, 0);
  const DType dtype = start.dtype();
  const double s = ToDoubles(start)[0], l = ToDoubles(In(ctx, 1))[0], d = ToDoubles(In(ctx, 2))[0];
  if (d == 0) return ctx.Invalid("delta is 0");
  const double n = std::ceil((l - s) / d);
  if (!(n < 1e8)) return ctx.Invalid("the range is too long to fold");
  const int64_t count = n > 0 ? static_cast<int64_t>(n) : 0;
  SY_RETURN_IF_ERROR(CheckFoldSize(ctx, dtype, {count}));
  if (IsInteger(dtype)) {
    const int64_t is = ToInt64s(start)[0], id = ToInt64s(In(ctx, 2))[0];
    std::vector<int64_t> v(static_cast<size_t>(count));
    for (int64_t i = 0; i < count; ++i) v[i] = is + i * id;
    return Bind(ctx, FromInt64s(dtype, {count}, v));
  }
  std::vector<double> v(static_cast<size_t>(count));
  for (int64_t i = 0; i < count; ++i) v[i] = s + static_cast<double>(i) * d;
  return Bind(ctx, FromDoubles(dtype, {count}, v));
}

Status FoldDropout(NodeContext& ctx) {
  // Training mode draws random drops: mapped onto catalogue ops instead of folded.
  if (ctx.HasInput(2) && ToInt64s(In(ctx, 2))[0] != 0) return MapAlias(ctx);
  ctx.SetOutputConstant(0, In(ctx, 0));
  if (ctx.OutputWanted(1)) {
    std::vector<int64_t> ones(static_cast<size_t>(In(ctx, 0).element_count()), 1);
    return Bind(ctx, FromInt64s(DType::kBool, In(ctx, 0).shape(), ones), 1);
  }
  return Status::Ok();
}

// HannWindow, HammingWindow, BlackmanWindow (opset 17): generators whose only input is
// the window length, evaluated like ONNX's reference.
Status FoldWindow(NodeContext& ctx) {
  const std::vector<int64_t> size = ToInt64s(In(ctx, 0));
  if (size.size() != 1 || size[0] < 0 || size[0] > (int64_t{1} << 26)) {
    return ctx.Invalid("size must be one non-negative length (at most 2^26)");
  }
  SY_ASSIGN_OR_RETURN(DType dtype,
                      DTypeParam(ctx, ctx.AttrInt("output_datatype", 1), "output_datatype"));
  const int64_t n = size[0];
  const double denominator = static_cast<double>(ctx.AttrInt("periodic", 1) != 0 ? n : n - 1);
  const std::string& op = ctx.node().op_type();
  const double pi = 3.14159265358979323846;
  std::vector<double> w(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    const double x = 2.0 * pi * static_cast<double>(i) / denominator;
    if (op == "HannWindow") {
      const double s = std::sin(pi * static_cast<double>(i) / denominator);
      w[i] = s * s;
    } else if (op == "HammingWindow") {
      w[i] = 25.0 / 46.0 - (21.0 / 46.0) * std::cos(x);
    } else {
      w[i] = 0.42 - 0.5 * std::cos(x) + 0.08 * std::cos(2.0 * x);
    }
  }
  return Bind(ctx, FromDoubles(dtype, {n}, w));
}

}  // namespace

void AddShapeFolds(MappingTable& table) {
  table.At("Constant").fold = FoldConstant;
  table.At("Constant").fold_needs_values = false;
  table.At("Shape").fold = FoldShape;
  table.At("Shape").fold_needs_values = false;
  table.At("Size").fold = FoldSize;
  table.At("Size").fold_needs_values = false;
  table.At("EyeLike").fold = FoldEyeLike;
  table.At("EyeLike").fold_needs_values = false;
  table.At("Identity").fold = FoldIdentity;
  table.At("Dropout").fold = FoldDropout;
  table.At("Cast").fold = FoldCast;
  table.At("CastLike").fold = FoldCastLike;
  table.At("ConstantOfShape").fold = FoldConstantOfShape;
  table.At("Gather").fold = FoldGather;
  table.At("Slice").fold = FoldSlice;
  table.At("Concat").fold = FoldConcat;
  table.At("Split").fold = FoldSplit;
  table.At("Squeeze").fold = FoldReshapeLike<SqueezeShape>;
  table.At("Unsqueeze").fold = FoldReshapeLike<UnsqueezeShape>;
  table.At("Flatten").fold = FoldReshapeLike<FlattenShape>;
  table.At("Reshape").fold = FoldReshapeLike<ReshapeShape>;
  table.At("Transpose").fold = FoldTranspose;
  table.At("Expand").fold = FoldExpand;
  table.At("Range").fold = FoldRange;
  for (const char* op : {"HannWindow", "HammingWindow", "BlackmanWindow"})
    table.At(op).fold = FoldWindow;
  table.At("Where").fold = FoldWhere;
  for (const char* op : {"Add", "Sub", "Mul", "Div", "Mod", "Equal", "Less", "Greater",
                         "LessOrEqual", "GreaterOrEqual", "And", "Or", "Xor"}) {
    table.At(op).fold = FoldBinary;
  }
  for (const char* op : {"Max", "Min", "Sum"}) table.At(op).fold = FoldVariadic;
  for (const char* op :
       {"Neg", "Abs", "Floor", "Ceil", "Sqrt", "Not", "Reciprocal", "Sign", "Relu"}) {
    table.At(op).fold = FoldUnary;
  }
  for (const char* op : {"ReduceProd", "ReduceSum", "ReduceMax", "ReduceMin"}) {
    table.At(op).fold = FoldReduce;
  }
}

}  // namespace sy::onnx_import
