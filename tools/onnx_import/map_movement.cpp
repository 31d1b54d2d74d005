// Shape and data movement ops. Static parameters that ONNX passes as inputs (Reshape's
// shape, Slice's starts, Tile's repeats, ...) become the catalogue op's attributes.
#include <algorithm>
#include <limits>

#include "host_tensor_ops.h"
#include "op_mapping.h"
#include "switchyard/shape.h"

namespace sy::onnx_import {
namespace {

Status Emit1To(NodeContext& ctx, std::string_view op, std::vector<ValueId> inputs, Attrs attrs) {
  SY_ASSIGN_OR_RETURN(ValueId out, ctx.Emit1(op, std::move(inputs), std::move(attrs)));
  ctx.SetOutput(0, out);
  return Status::Ok();
}

// Reshape, Flatten, Squeeze, Unsqueeze: a catalogue reshape to the fully resolved shape.
// With run-time sizes (docs/dynamic-shapes.md) the catalogue reshape gets what the
// specialisation can compute for any size: Reshape's target as given (0 copies a dim, -1
// is inferred) or as size expressions; Flatten's two products of the input's dims.
Status MapSymbolicReshape(NodeContext& ctx, Expected<Shape> (*shape_fn)(NodeContext&)) {
  SY_ASSIGN_OR_RETURN(ValueId x, ctx.Input(0));
  const std::string& type = ctx.node().op_type();
  const bool flatten = type == "Flatten";
  std::vector<DimExpr> target;
  if (type == "Squeeze" || type == "Unsqueeze") {
    // The input's dims in order, with 1s inserted or removed at `axes`.
    const std::vector<DimExpr> dims = ctx.state().DimsOf(ctx.node().input(0));
    SY_ASSIGN_OR_RETURN(std::vector<int64_t> axes, AxesParam(ctx, 1, 13));
    const int64_t rank = static_cast<int64_t>(dims.size());
    const int64_t out_rank = type == "Unsqueeze" ? rank + static_cast<int64_t>(axes.size()) : rank;
    for (int64_t& a : axes) {
      if (a < 0) a += out_rank;
    }
    auto listed = [&](int64_t a) { return std::find(axes.begin(), axes.end(), a) != axes.end(); };
    if (type == "Unsqueeze") {
      size_t next = 0;
      for (int64_t d = 0; d < out_rank; ++d) {
        if (listed(d)) {
          target.emplace_back(1);
        } else if (next < dims.size()) {
          target.push_back(dims[next++]);
        }
      }
    } else {
      const Shape& example = ctx.InputType(0).shape;
      for (int64_t d = 0; d < rank; ++d) {
        const bool squeezed = axes.empty() ? example[d] == 1 : listed(d);
        if (!squeezed) target.push_back(dims[d]);
      }
    }
  } else if (flatten) {
    const int64_t rank = ctx.InputType(0).rank();
    int64_t axis = ctx.AttrInt("axis", 1);
    if (axis < 0) axis += rank;
    if (axis < 0 || axis > rank) return ctx.Invalid("axis is out of range");
    const std::vector<DimExpr> dims = ctx.state().DimsOf(ctx.node().input(0));
    DimExpr outer(1), inner(1);
    for (int64_t d = 0; d < rank; ++d)
      (d < axis ? outer : inner) = (d < axis ? outer : inner) * dims[d];
    target = {outer, inner};
  } else {
    target = ctx.SymbolicInts(1);
    if (target.empty()) {
      SY_ASSIGN_OR_RETURN(std::vector<int64_t> given, ctx.StaticInts(1, "shape"));
      for (int64_t d : given) target.emplace_back(d);
    }
  }
  SY_ASSIGN_OR_RETURN(Shape example, shape_fn(ctx));
  Attrs attrs;
  attrs.Set("shape", std::vector<int64_t>(example.begin(), example.end()));
  // The dynamo exporter writes allowzero = 1: a size that is 0 at run time stays 0.
  if (type == "Reshape" && ctx.since_version() >= 14 && ctx.AttrInt("allowzero", 0) == 1) {
    attrs.Set("allowzero", int64_t{1});
  }
  SY_ASSIGN_OR_RETURN(ValueId out, ctx.Emit1("reshape", {x}, std::move(attrs)));
  ctx.AttachAttrExpr("shape", std::move(target));
  ctx.SetOutput(0, out);
  return Status::Ok();
}

template <Expected<Shape> (*ShapeFn)(NodeContext&)>
Status MapReshapeLike(NodeContext& ctx) {
  const std::string& type = ctx.node().op_type();
  const bool is_reshape = type == "Reshape" && ctx.since_version() >= 5;
  if (ctx.state().symbolic() && (type != "Reshape" || is_reshape)) {
    return MapSymbolicReshape(ctx, ShapeFn);
  }
  SY_ASSIGN_OR_RETURN(Shape shape, ShapeFn(ctx));
  if (ElementCount(shape) == 0) {
    // An empty result has no data: a constant of that shape says it exactly (the
    // catalogue's reshape reads a 0 as "copy the input dim").
    SY_ASSIGN_OR_RETURN(Tensor empty, Tensor::Allocate(ctx.InputType(0).dtype, shape));
    ctx.SetOutputConstant(0, std::move(empty));
    return Status::Ok();
  }
  SY_ASSIGN_OR_RETURN(ValueId x, ctx.Input(0));
  if (ctx.TypeOf(x).shape == shape) {
    ctx.SetOutput(0, x);
    return Status::Ok();
  }
  Attrs attrs;
  attrs.Set("shape", std::vector<int64_t>(shape.begin(), shape.end()));
  return Emit1To(ctx, "reshape", {x}, std::move(attrs));
}

Status MapTranspose(NodeContext& ctx) {
  SY_ASSIGN_OR_RETURN(ValueId x, ctx.Input(0));
  Attrs attrs;
  if (auto perm = ctx.AttrInts("perm")) attrs.Set("perm", *perm);
  return Emit1To(ctx, "transpose", {x}, std::move(attrs));
}

// Emits `op` and makes each listed attribute a size expression where its input had one.
Status Emit1WithSizes(NodeContext& ctx, std::string_view op, std::vector<ValueId> inputs,
                      Attrs attrs,
                      const std::vector<std::pair<std::string, std::vector<DimExpr>>>& sizes) {
  SY_ASSIGN_OR_RETURN(ValueId out, ctx.Emit1(op, std::move(inputs), std::move(attrs)));
  for (const auto& [name, items] : sizes) {
    if (!items.empty()) ctx.AttachAttrExpr(name, items);
  }
  ctx.SetOutput(0, out);
  return Status::Ok();
}

Status MapExpand(NodeContext& ctx) {
  SY_ASSIGN_OR_RETURN(ValueId x, ctx.Input(0));
  std::vector<DimExpr> sizes = ctx.SymbolicInts(1);
  SY_ASSIGN_OR_RETURN(std::vector<int64_t> shape, ctx.StaticInts(1, "shape"));
  Attrs attrs;
  attrs.Set("shape", shape);
  return Emit1WithSizes(ctx, "expand", {x}, std::move(attrs), {{"shape", std::move(sizes)}});
}

Status MapConcat(NodeContext& ctx) {
  std::vector<ValueId> inputs;
  for (size_t i = 0; i < ctx.num_inputs(); ++i) {
    if (!ctx.HasInput(i)) continue;
    SY_ASSIGN_OR_RETURN(ValueId id, ctx.Input(i));
    inputs.push_back(id);
  }
  // One input is the identity (DynamicCache's first update exports as one): no node, so
  // that what reads the input sees it directly (a decoder's past, docs/decoding.md).
  if (inputs.size() == 1) {
    const int64_t rank = ctx.TypeOf(inputs[0]).rank();
    const int64_t axis = ctx.AttrInt("axis", 0);
    if (axis < -rank || axis >= rank) {
      return ctx.Fail(
          ImportProblem::kInvalidModel,
          "axis " + std::to_string(axis) + " is outside a rank-" + std::to_string(rank) + " input");
    }
    ctx.SetOutput(0, inputs[0]);
    return Status::Ok();
  }
  Attrs attrs;
  attrs.Set("axis", ctx.AttrInt("axis", 0));
  return Emit1To(ctx, "concat", std::move(inputs), std::move(attrs));
}

Status MapSplit(NodeContext& ctx) {
  SY_ASSIGN_OR_RETURN(ValueId x, ctx.Input(0));
  Attrs attrs;
  const int64_t axis = ctx.AttrInt("axis", 0);
  attrs.Set("axis", axis);
  std::optional<std::vector<int64_t>> sizes;
  std::vector<DimExpr> symbolic_sizes;
  if (ctx.since_version() >= 13) {
    if (ctx.HasInput(1)) {
      symbolic_sizes = ctx.SymbolicInts(1);
      SY_ASSIGN_OR_RETURN(std::vector<int64_t> s, ctx.StaticInts(1, "split"));
      sizes = std::move(s);
    }
  } else {
    sizes = ctx.AttrInts("split");
  }
  if (sizes) attrs.Set("sizes", *sizes);
  const int outputs = static_cast<int>(ctx.num_outputs());
  SY_ASSIGN_OR_RETURN(std::vector<ValueId> out, ctx.Emit("split", {x}, std::move(attrs), outputs));
  if (!symbolic_sizes.empty()) ctx.AttachAttrExpr("sizes", std::move(symbolic_sizes));
  for (size_t i = 0; i < out.size(); ++i) ctx.SetOutput(i, out[i]);
  return Status::Ok();
}

Status MapSlice(NodeContext& ctx) {
  SY_ASSIGN_OR_RETURN(ValueId x, ctx.Input(0));
  std::vector<DimExpr> starts, ends;
  if (ctx.since_version() >= 10) {
    starts = ctx.SymbolicInts(1);
    ends = ctx.SymbolicInts(2);
  }
  SY_ASSIGN_OR_RETURN(SliceParams p, SliceParamsOf(ctx));
  Attrs attrs;
  attrs.Set("starts", p.starts);
  attrs.Set("ends", p.ends);
  attrs.Set("axes", p.axes);
  attrs.Set("steps", p.steps);
  return Emit1WithSizes(ctx, "slice", {x}, std::move(attrs),
                        {{"starts", std::move(starts)}, {"ends", std::move(ends)}});
}

Status MapGatherLike(NodeContext& ctx) {
  const std::string& type = ctx.node().op_type();
  SY_ASSIGN_OR_RETURN(ValueId data, ctx.Input(0));
  SY_ASSIGN_OR_RETURN(ValueId indices, ctx.Input(1));
  Attrs attrs;
  attrs.Set("axis", ctx.AttrInt("axis", 0));
  if (type == "Gather") return Emit1To(ctx, "gather", {data, indices}, std::move(attrs));
  if (type == "GatherElements") {
    return Emit1To(ctx, "gather_elements", {data, indices}, std::move(attrs));
  }
  SY_ASSIGN_OR_RETURN(ValueId updates, ctx.Input(2));
  attrs.Set("reduction", ctx.AttrString("reduction", "none"));
  return Emit1To(ctx, "scatter_elements", {data, indices, updates}, std::move(attrs));
}

// GatherND (batch_dims from opset 12) and ScatterND (reduction from opset 16; max and
// min from 18): the catalogue's gather_nd and scatter_nd, whose schemas check the shapes.
Status MapGatherScatterND(NodeContext& ctx) {
  SY_ASSIGN_OR_RETURN(ValueId data, ctx.Input(0));
  SY_ASSIGN_OR_RETURN(ValueId indices, ctx.Input(1));
  Attrs attrs;
  if (ctx.node().op_type() == "GatherND") {
    attrs.Set("batch_dims", ctx.AttrInt("batch_dims", 0));
    return Emit1To(ctx, "gather_nd", {data, indices}, std::move(attrs));
  }
  SY_ASSIGN_OR_RETURN(ValueId updates, ctx.Input(2));
  attrs.Set("reduction", ctx.AttrString("reduction", "none"));
  return Emit1To(ctx, "scatter_nd", {data, indices, updates}, std::move(attrs));
}

// Pad-19's `wrap` (np.pad's): each axis padded with its own far end, as slices of x
// concatenated around it; pads may not exceed the dim (np.pad would wrap again), and a
// negative pad crops, as in the other modes.
Status EmitWrapPad(NodeContext& ctx, ValueId x, const std::vector<int64_t>& pads) {
  const size_t rank = ctx.TypeOf(x).shape.size();
  if (pads.size() != 2 * rank) return ctx.Invalid("pads must hold 2 * rank entries");
  const std::vector<DimExpr> dims = ctx.state().DimsOf(ctx.node().input(0));
  const auto slice = [&](ValueId in, size_t axis, int64_t start, int64_t end) {
    Attrs attrs;
    attrs.Set("starts", std::vector<int64_t>{start});
    attrs.Set("ends", std::vector<int64_t>{end});
    attrs.Set("axes", std::vector<int64_t>{static_cast<int64_t>(axis)});
    return ctx.Emit1("slice", {in}, std::move(attrs));
  };
  constexpr int64_t kEnd = std::numeric_limits<int64_t>::max();
  ValueId out = x;
  for (size_t a = 0; a < rank; ++a) {
    const int64_t before = pads[a], after = pads[a + rank];
    if (before == 0 && after == 0) continue;
    const int64_t dim = ctx.TypeOf(x).shape[a];
    if (!dims[a].is_const() || before > dim || after > dim) {
      return ctx.UnsupportedOp(
          "mode 'wrap' needs each axis's pads within its size, fixed at "
          "import (axis " +
          std::to_string(a) + ": size " + dims[a].ToString() + ", pads " + std::to_string(before) +
          " and " + std::to_string(after) + ")");
    }
    // Crops first (negative pads), then the wrapped ends of what is left.
    const int64_t lo = std::max<int64_t>(-before, 0), hi = dim - std::max<int64_t>(-after, 0);
    if (lo > 0 || hi < dim) {
      SY_ASSIGN_OR_RETURN(out, slice(out, a, lo, hi));
    }
    std::vector<ValueId> parts;
    if (before > 0) {
      SY_ASSIGN_OR_RETURN(ValueId head, slice(out, a, -before, kEnd));
      parts.push_back(head);
    }
    parts.push_back(out);
    if (after > 0) {
      SY_ASSIGN_OR_RETURN(ValueId tail, slice(out, a, 0, after));
      parts.push_back(tail);
    }
    if (parts.size() > 1) {
      Attrs attrs;
      attrs.Set("axis", static_cast<int64_t>(a));
      SY_ASSIGN_OR_RETURN(out, ctx.Emit1("concat", std::move(parts), std::move(attrs)));
    }
  }
  ctx.SetOutput(0, out);
  return Status::Ok();
}

// CenterCropPad-18: each listed axis cropped or zero-padded to its target size about the
// centre (the odd element goes to the end), as ONNX's reference does; sizes fixed at import.
Status MapCenterCropPad(NodeContext& ctx) {
  SY_ASSIGN_OR_RETURN(ValueId x, ctx.Input(0));
  SY_ASSIGN_OR_RETURN(std::vector<int64_t> target, ctx.StaticInts(1, "shape"));
  const int64_t rank = static_cast<int64_t>(ctx.TypeOf(x).shape.size());
  std::vector<int64_t> axes;
  if (auto given = ctx.AttrInts("axes")) {
    for (int64_t a : *given) {
      Expected<int64_t> n = NormalizeAxis(a, rank);
      if (!n.ok()) return ctx.Invalid(n.status().message());
      axes.push_back(*n);
    }
  } else {
    for (int64_t a = 0; a < rank; ++a) axes.push_back(a);
  }
  if (target.size() != axes.size()) {
    return ctx.Invalid("shape has " + std::to_string(target.size()) + " entries for " +
                       std::to_string(axes.size()) + " axes");
  }
  const std::vector<DimExpr> dims = ctx.state().DimsOf(ctx.node().input(0));
  std::vector<int64_t> starts, ends, slice_axes, pads(static_cast<size_t>(2 * rank), 0);
  bool padded = false;
  for (size_t i = 0; i < axes.size(); ++i) {
    const int64_t a = axes[i], want = target[i];
    if (!dims[a].is_const()) {
      return ctx.UnsupportedOp("axis " + std::to_string(a) + " is a run-time size (" +
                               dims[a].ToString() + "); CenterCropPad needs it fixed at import");
    }
    if (want < 0) return ctx.Invalid("shape holds a negative size");
    const int64_t dim = dims[a].value();
    if (want < dim) {
      starts.push_back((dim - want) / 2);
      ends.push_back((dim - want) / 2 + want);
      slice_axes.push_back(a);
    } else if (want > dim) {
      pads[a] = (want - dim) / 2;
      pads[a + rank] = want - dim - (want - dim) / 2;
      padded = true;
    }
  }
  ValueId out = x;
  if (!slice_axes.empty()) {
    Attrs attrs;
    attrs.Set("starts", starts);
    attrs.Set("ends", ends);
    attrs.Set("axes", slice_axes);
    SY_ASSIGN_OR_RETURN(out, ctx.Emit1("slice", {out}, std::move(attrs)));
  }
  if (padded) {
    Attrs attrs;
    attrs.Set("pads", pads);
    SY_ASSIGN_OR_RETURN(out, ctx.Emit1("pad", {out}, std::move(attrs)));
  }
  if (out == x) {
    SY_ASSIGN_OR_RETURN(out, ctx.Emit1("reshape", {x}, [&] {
      Attrs attrs;
      attrs.Set("shape",
                std::vector<int64_t>(ctx.TypeOf(x).shape.begin(), ctx.TypeOf(x).shape.end()));
      return attrs;
    }()));
  }
  ctx.SetOutput(0, out);
  return Status::Ok();
}

Status MapPad(NodeContext& ctx) {
  SY_ASSIGN_OR_RETURN(ValueId x, ctx.Input(0));
  const int64_t rank = static_cast<int64_t>(ctx.TypeOf(x).shape.size());
  std::vector<int64_t> pads;
  double value = 0;
  if (ctx.since_version() < 11) {
    pads = ctx.AttrInts("pads").value_or(std::vector<int64_t>{});
    value = ctx.AttrFloat("value", 0.0);
  } else {
    SY_ASSIGN_OR_RETURN(pads, ctx.StaticInts(1, "pads"));
    if (ctx.HasInput(2)) {
      SY_ASSIGN_OR_RETURN(value, ctx.StaticScalar(2, "constant_value"));
    }
    if (ctx.HasInput(3)) {  // opset 18: pads for the listed axes only
      SY_ASSIGN_OR_RETURN(std::vector<int64_t> axes, ctx.StaticInts(3, "axes"));
      if (pads.size() != 2 * axes.size()) return ctx.Invalid("pads must be twice as long as axes");
      std::vector<int64_t> full(static_cast<size_t>(2 * rank), 0);
      for (size_t i = 0; i < axes.size(); ++i) {
        Expected<int64_t> a = NormalizeAxis(axes[i], rank);
        if (!a.ok()) return ctx.Invalid(a.status().message());
        full[*a] = pads[i];
        full[*a + rank] = pads[i + axes.size()];
      }
      pads = std::move(full);
    }
  }
  const std::string mode = ctx.AttrString("mode", "constant");
  if (mode == "wrap") return EmitWrapPad(ctx, x, pads);
  if (mode != "constant" && mode != "reflect" && mode != "edge") {
    return ctx.UnsupportedOp("mode '" + mode +
                             "' is outside the catalogue (constant reflect edge wrap)");
  }
  Attrs attrs;
  attrs.Set("pads", pads);
  attrs.Set("mode", mode);
  attrs.Set("value", value);
  return Emit1To(ctx, "pad", {x}, std::move(attrs));
}

Status MapTile(NodeContext& ctx) {
  SY_ASSIGN_OR_RETURN(ValueId x, ctx.Input(0));
  std::vector<DimExpr> sizes = ctx.SymbolicInts(1);
  SY_ASSIGN_OR_RETURN(std::vector<int64_t> repeats, ctx.StaticInts(1, "repeats"));
  Attrs attrs;
  attrs.Set("repeats", repeats);
  return Emit1WithSizes(ctx, "tile", {x}, std::move(attrs), {{"repeats", std::move(sizes)}});
}

Status MapRange(NodeContext& ctx) {
  SY_ASSIGN_OR_RETURN(Tensor start, ctx.StaticInput(0, "start"));
  SY_ASSIGN_OR_RETURN(double limit, ctx.StaticScalar(1, "limit"));
  SY_ASSIGN_OR_RETURN(double delta, ctx.StaticScalar(2, "delta"));
  if (start.element_count() != 1) return ctx.Invalid("start must hold one element");
  Attrs attrs;
  attrs.Set("start", ToDoubles(start)[0]);
  attrs.Set("limit", limit);
  attrs.Set("delta", delta);
  attrs.Set("dtype", std::string(DTypeName(start.dtype())));
  return Emit1To(ctx, "range", {}, std::move(attrs));
}

Status MapTrilu(NodeContext& ctx) {
  SY_ASSIGN_OR_RETURN(ValueId x, ctx.Input(0));
  Attrs attrs;
  attrs.Set("upper", ctx.AttrInt("upper", 1));
  if (ctx.HasInput(1)) {
    SY_ASSIGN_OR_RETURN(double k, ctx.StaticScalar(1, "k"));
    attrs.Set("k", static_cast<int64_t>(k));
  }
  return Emit1To(ctx, "trilu", {x}, std::move(attrs));
}

Status MapDepthSpace(NodeContext& ctx) {
  SY_ASSIGN_OR_RETURN(ValueId x, ctx.Input(0));
  Attrs attrs;
  attrs.Set("blocksize", ctx.AttrInt("blocksize", 0));
  if (ctx.node().op_type() == "DepthToSpace") {
    attrs.Set("mode", ctx.AttrString("mode", "DCR"));
    return Emit1To(ctx, "depth_to_space", {x}, std::move(attrs));
  }
  const std::string mode = ctx.AttrString("mode", "DCR");
  if (mode == "DCR") return Emit1To(ctx, "space_to_depth", {x}, std::move(attrs));
  if (mode != "CRD") return ctx.Invalid("mode must be DCR or CRD, not '" + mode + "'");
  // SpaceToDepth-28's CRD order: [N, C, H/b, b, W/b, b] -> [N, C, b, b, H/b, W/b] ->
  // [N, C*b*b, H/b, W/b] (DCR puts the two block axes before C).
  const Shape in = ctx.TypeOf(x).shape;  // a copy: emitting nodes grows the value table
  const int64_t b = ctx.AttrInt("blocksize", 0);
  if (in.size() != 4 || b <= 0 || in[2] % b != 0 || in[3] % b != 0) {
    return ctx.Invalid("expected a rank-4 input whose H and W the blocksize divides, got " +
                       ShapeToString(in) + " and blocksize " + std::to_string(b));
  }
  Attrs split;
  split.Set("shape", std::vector<int64_t>{in[0], in[1], in[2] / b, b, in[3] / b, b});
  SY_ASSIGN_OR_RETURN(ValueId blocks, ctx.Emit1("reshape", {x}, std::move(split)));
  Attrs perm;
  perm.Set("perm", std::vector<int64_t>{0, 1, 3, 5, 2, 4});
  SY_ASSIGN_OR_RETURN(ValueId moved, ctx.Emit1("transpose", {blocks}, std::move(perm)));
  Attrs merge;
  merge.Set("shape", std::vector<int64_t>{in[0], in[1] * b * b, in[2] / b, in[3] / b});
  return Emit1To(ctx, "reshape", {moved}, std::move(merge));
}

// OneHot(indices, depth, values [off, on], axis): equal(indices inserted at `axis`, an
// iota of `depth` along `axis`) selects between on and off. Negative indices count from
// the end; indices outside [-depth, depth) match nothing (all off), as ONNX says.
Status MapOneHot(NodeContext& ctx) {
  SY_ASSIGN_OR_RETURN(ValueId indices, ctx.Input(0));
  SY_ASSIGN_OR_RETURN(double depth_value, ctx.StaticScalar(1, "depth"));
  SY_ASSIGN_OR_RETURN(ValueId values, ctx.Input(2));
  const int64_t depth = static_cast<int64_t>(depth_value);
  if (depth <= 0) return ctx.Invalid("depth must be positive, not " + std::to_string(depth));
  const Shape in_shape = ctx.TypeOf(indices).shape;
  const int64_t out_rank = static_cast<int64_t>(in_shape.size()) + 1;
  Expected<int64_t> axis = NormalizeAxis(ctx.AttrInt("axis", -1), out_rank);
  if (!axis.ok()) return ctx.Invalid(axis.status().message());
  if (ctx.TypeOf(indices).dtype != DType::kI64) {
    Attrs cast;
    cast.Set("to", std::string("i64"));
    SY_ASSIGN_OR_RETURN(indices, ctx.Emit1("cast", {indices}, std::move(cast)));
  }
  SY_ASSIGN_OR_RETURN(ValueId zero, ctx.Scalar(DType::kI64, 0));
  SY_ASSIGN_OR_RETURN(ValueId d, ctx.Scalar(DType::kI64, static_cast<double>(depth)));
  SY_ASSIGN_OR_RETURN(ValueId negative, ctx.Emit1("less", {indices, zero}));
  SY_ASSIGN_OR_RETURN(ValueId wrapped, ctx.Emit1("add", {indices, d}));
  SY_ASSIGN_OR_RETURN(indices, ctx.Emit1("where", {negative, wrapped, indices}));
  Shape expanded = in_shape;
  expanded.insert(expanded.begin() + *axis, 1);
  Attrs reshape;
  reshape.Set("shape", std::vector<int64_t>(expanded.begin(), expanded.end()));
  SY_ASSIGN_OR_RETURN(indices, ctx.Emit1("reshape", {indices}, std::move(reshape)));
  Attrs range;
  range.Set("start", 0.0);
  range.Set("limit", static_cast<double>(depth));
  range.Set("delta", 1.0);
  range.Set("dtype", std::string("i64"));
  SY_ASSIGN_OR_RETURN(ValueId iota, ctx.Emit1("range", {}, std::move(range)));
  Shape iota_shape(static_cast<size_t>(out_rank), 1);
  iota_shape[*axis] = depth;
  Attrs iota_reshape;
  iota_reshape.Set("shape", std::vector<int64_t>(iota_shape.begin(), iota_shape.end()));
  SY_ASSIGN_OR_RETURN(iota, ctx.Emit1("reshape", {iota}, std::move(iota_reshape)));
  SY_ASSIGN_OR_RETURN(ValueId hit, ctx.Emit1("equal", {indices, iota}));
  Attrs pick;
  pick.Set("starts", std::vector<int64_t>{0});
  pick.Set("ends", std::vector<int64_t>{1});
  SY_ASSIGN_OR_RETURN(ValueId off, ctx.Emit1("slice", {values}, pick));
  pick.Set("starts", std::vector<int64_t>{1});
  pick.Set("ends", std::vector<int64_t>{2});
  SY_ASSIGN_OR_RETURN(ValueId on, ctx.Emit1("slice", {values}, pick));
  return Emit1To(ctx, "where", {hit, on, off}, {});
}

}  // namespace

void AddMovementMappings(MappingTable& table) {
  table.At("Reshape").map = MapReshapeLike<ReshapeShape>;
  table.At("Flatten").map = MapReshapeLike<FlattenShape>;
  table.At("Squeeze").map = MapReshapeLike<SqueezeShape>;
  table.At("Unsqueeze").map = MapReshapeLike<UnsqueezeShape>;
  table.At("Transpose").map = MapTranspose;
  table.At("Expand").map = MapExpand;
  table.At("Concat").map = MapConcat;
  table.At("Split").map = MapSplit;
  table.At("Slice").map = MapSlice;
  for (const char* op : {"Gather", "GatherElements", "ScatterElements", "Scatter"}) {
    table.At(op).map = MapGatherLike;
  }
  table.At("GatherND").map = MapGatherScatterND;
  table.At("ScatterND").map = MapGatherScatterND;
  table.At("Pad").map = MapPad;
  table.At("CenterCropPad").map = MapCenterCropPad;
  table.At("Tile").map = MapTile;
  table.At("Range").map = MapRange;
  table.At("Trilu").map = MapTrilu;
  table.At("OneHot").map = MapOneHot;
  table.At("DepthToSpace").map = MapDepthSpace;
  table.At("SpaceToDepth").map = MapDepthSpace;
}

}  // namespace sy::onnx_import
