#include <algorithm>

#include "host_tensor_ops.h"
#include "onnx_tensor.h"
#include "op_mapping.h"
#include "switchyard/shape.h"

namespace sy::onnx_import {

Expected<ValueId> EmitReshape(NodeContext& ctx, ValueId x, std::vector<int64_t> shape) {
  if (ctx.TypeOf(x).shape == shape) return x;
  Attrs attrs;
  attrs.Set("shape", std::move(shape));
  return ctx.Emit1("reshape", {x}, std::move(attrs));
}

Expected<ValueId> EmitTranspose(NodeContext& ctx, ValueId x, std::vector<int64_t> perm) {
  Attrs attrs;
  attrs.Set("perm", std::move(perm));
  return ctx.Emit1("transpose", {x}, std::move(attrs));
}

Expected<std::vector<int64_t>> AxesParam(NodeContext& ctx, size_t input, int64_t input_since) {
  if (ctx.since_version() >= input_since) {
    if (!ctx.HasInput(input)) return std::vector<int64_t>();
    return ctx.StaticInts(input, "axes");
  }
  return ctx.AttrInts("axes").value_or(std::vector<int64_t>());
}

Expected<Shape> SqueezeShape(NodeContext& ctx) {
  const Shape& in = ctx.InputType(0).shape;
  const int64_t rank = static_cast<int64_t>(in.size());
  SY_ASSIGN_OR_RETURN(auto axes, AxesParam(ctx, 1, 13));
  std::vector<bool> drop(in.size(), false);
  if (axes.empty()) {
    for (size_t d = 0; d < in.size(); ++d) drop[d] = in[d] == 1;
  } else {
    for (int64_t a : axes) {
      Expected<int64_t> axis = NormalizeAxis(a, rank);
      if (!axis.ok()) return ctx.Invalid(axis.status().message());
      if (in[*axis] != 1) {
        return ctx.Invalid("cannot squeeze axis " + std::to_string(a) + " of shape " +
                           ShapeToString(in) + ": its size is not 1");
      }
      drop[*axis] = true;
    }
  }
  Shape out;
  for (size_t d = 0; d < in.size(); ++d) {
    if (!drop[d]) out.push_back(in[d]);
  }
  return out;
}

Expected<Shape> UnsqueezeShape(NodeContext& ctx) {
  const Shape& in = ctx.InputType(0).shape;
  SY_ASSIGN_OR_RETURN(auto axes, AxesParam(ctx, 1, 13));
  if (axes.empty()) return ctx.Invalid("Unsqueeze needs axes");
  const int64_t rank = static_cast<int64_t>(in.size() + axes.size());
  std::vector<bool> inserted(static_cast<size_t>(rank), false);
  for (int64_t a : axes) {
    Expected<int64_t> axis = NormalizeAxis(a, rank);
    if (!axis.ok()) return ctx.Invalid(axis.status().message());
    if (inserted[*axis]) return ctx.Invalid("axis " + std::to_string(a) + " repeats");
    inserted[*axis] = true;
  }
  Shape out;
  size_t next = 0;
  for (int64_t d = 0; d < rank; ++d) out.push_back(inserted[d] ? 1 : in[next++]);
  return out;
}

Expected<Shape> FlattenShape(NodeContext& ctx) {
  const Shape& in = ctx.InputType(0).shape;
  const int64_t rank = static_cast<int64_t>(in.size());
  int64_t axis = ctx.AttrInt("axis", 1);
  if (axis < 0) axis += rank;
  if (axis < 0 || axis > rank) {
    return ctx.Invalid("axis " + std::to_string(ctx.AttrInt("axis", 1)) +
                       " is out of range for rank " + std::to_string(rank));
  }
  return Shape{ElementCount(std::span(in).subspan(0, axis)),
               ElementCount(std::span(in).subspan(axis))};
}

Expected<Shape> ReshapeShape(NodeContext& ctx) {
  const Shape& in = ctx.InputType(0).shape;
  std::vector<int64_t> target;
  if (ctx.since_version() < 5) {
    target = ctx.AttrInts("shape").value_or(std::vector<int64_t>{});
  } else {
    SY_ASSIGN_OR_RETURN(target, ctx.StaticInts(1, "shape"));
  }
  const bool allow_zero = ctx.AttrInt("allowzero", 0) != 0;
  Shape out(target.size());
  int64_t known = 1;
  int infer_at = -1;
  for (size_t i = 0; i < target.size(); ++i) {
    int64_t d = target[i];
    if (d == 0 && !allow_zero) {
      if (i >= in.size()) {
        return ctx.Invalid("shape entry " + std::to_string(i) + " is 0 (copy) but the input " +
                           ShapeToString(in) + " has no dim " + std::to_string(i));
      }
      d = in[i];
    }
    if (d == -1) {
      if (infer_at >= 0) return ctx.Invalid("shape has more than one -1");
      infer_at = static_cast<int>(i);
      continue;
    }
    if (d < 0) return ctx.Invalid("shape entry " + std::to_string(d) + " is negative");
    out[i] = d;
    if (__builtin_mul_overflow(known, d, &known)) {
      return ctx.Invalid("shape " + ShapeToString(target) + " has more elements than int64 holds");
    }
  }
  const int64_t count = ElementCount(in);
  if (infer_at >= 0) {
    if (known == 0 || count % known != 0) {
      return ctx.Invalid("cannot reshape " + ShapeToString(in) + " to " + ShapeToString(target) +
                         ": -1 cannot be inferred");
    }
    out[infer_at] = count / known;
  } else if (known != count) {
    return ctx.Invalid("cannot reshape " + ShapeToString(in) + " (" + std::to_string(count) +
                       " elements) to " + ShapeToString(out));
  }
  return out;
}

Expected<SliceParams> SliceParamsOf(NodeContext& ctx) {
  SliceParams p;
  if (ctx.since_version() < 10) {
    p.starts = ctx.AttrInts("starts").value_or(std::vector<int64_t>{});
    p.ends = ctx.AttrInts("ends").value_or(std::vector<int64_t>{});
    p.axes = ctx.AttrInts("axes").value_or(std::vector<int64_t>{});
  } else {
    SY_ASSIGN_OR_RETURN(p.starts, ctx.StaticInts(1, "starts"));
    SY_ASSIGN_OR_RETURN(p.ends, ctx.StaticInts(2, "ends"));
    if (ctx.HasInput(3)) {
      SY_ASSIGN_OR_RETURN(p.axes, ctx.StaticInts(3, "axes"));
    }
    if (ctx.HasInput(4)) {
      SY_ASSIGN_OR_RETURN(p.steps, ctx.StaticInts(4, "steps"));
    }
  }
  if (p.starts.size() != p.ends.size() || (!p.axes.empty() && p.axes.size() != p.starts.size()) ||
      (!p.steps.empty() && p.steps.size() != p.starts.size())) {
    return ctx.Invalid("starts, ends, axes and steps must have the same length");
  }
  if (p.axes.empty()) {
    for (size_t i = 0; i < p.starts.size(); ++i) p.axes.push_back(static_cast<int64_t>(i));
  }
  if (p.steps.empty()) p.steps.assign(p.starts.size(), 1);
  return p;
}

Expected<DType> DTypeParam(NodeContext& ctx, int64_t onnx_type, std::string_view what) {
  const std::optional<DType> dtype = DTypeFromOnnx(static_cast<int32_t>(onnx_type));
  if (!dtype) {
    return ctx.Fail(ImportProblem::kUnsupportedType,
                    std::string(what) + " is " + OnnxTypeName(static_cast<int32_t>(onnx_type)) +
                        ", which rml-graph v1 has no dtype for");
  }
  return *dtype;
}

}  // namespace sy::onnx_import
