// ONNX ops that move elements to or from computed positions, mapped onto the catalogue's
// gather_elements / scatter_elements with index tensors built from ranges:
// - ReverseSequence: element t of batch b along the time axis reads t' = len[b] - 1 - t
//   where t < len[b], else t (gather_elements);
// - TensorScatter (opset 24, the KV-cache write): update's position s along `axis` of
//   batch b goes to write_indices[b] + s (mod the cache length when `circular`)
//   (scatter_elements into the past cache);
// - MaxUnpool: each value to its flat index (MaxPool's Indices) in zeros of the unpooled
//   size (scatter_elements on the flattened tensor), padded or cropped at the end to
//   output_shape.
#include "host_tensor_ops.h"
#include "op_mapping.h"
#include "switchyard/shape.h"

namespace sy::onnx_import {
namespace {

// x broadcast to the shape of `like` (run-time sizes kept as expressions).
Expected<ValueId> ExpandLike(NodeContext& ctx, ValueId x, ValueId like) {
  const Shape& shape = ctx.TypeOf(like).shape;
  Attrs attrs;
  attrs.Set("shape", std::vector<int64_t>(shape.begin(), shape.end()));
  SY_ASSIGN_OR_RETURN(ValueId out, ctx.Emit1("expand", {x}, std::move(attrs)));
  const std::vector<DimExpr> dims = ctx.state().DimsOfValue(like);
  for (const DimExpr& d : dims) {
    if (!d.is_const()) {
      ctx.AttachAttrExpr("shape", dims);
      break;
    }
  }
  return out;
}

// i64 range(0, dim `axis` of x), shaped to lie along `axis` of a tensor of rank `rank`.
Expected<ValueId> IotaAlong(NodeContext& ctx, ValueId x, size_t axis, size_t rank) {
  const DimExpr dim = ctx.state().DimsOfValue(x)[axis];
  Attrs attrs;
  attrs.Set("start", 0.0);
  attrs.Set("limit", static_cast<double>(ctx.TypeOf(x).shape[axis]));
  attrs.Set("delta", 1.0);
  attrs.Set("dtype", std::string("i64"));
  SY_ASSIGN_OR_RETURN(ValueId iota, ctx.Emit1("range", {}, std::move(attrs)));
  if (!dim.is_const()) ctx.AttachAttrExpr("limit", {dim}, false);
  std::vector<int64_t> shape(rank, 1);
  shape[axis] = -1;
  return EmitReshape(ctx, iota, std::move(shape));
}

// A [n] integer vector as i64 shaped to lie along `axis` of a tensor of rank `rank`.
Expected<ValueId> VectorAlong(NodeContext& ctx, ValueId v, size_t axis, size_t rank) {
  SY_ASSIGN_OR_RETURN(v, CastTo(ctx, v, DType::kI64));
  std::vector<int64_t> shape(rank, 1);
  shape[axis] = -1;
  return EmitReshape(ctx, v, std::move(shape));
}

Status MapReverseSequence(NodeContext& ctx) {
  SY_ASSIGN_OR_RETURN(ValueId x, ctx.Input(0));
  SY_ASSIGN_OR_RETURN(ValueId lens, ctx.Input(1));
  const size_t rank = ctx.TypeOf(x).shape.size();
  const int64_t time_axis = ctx.AttrInt("time_axis", 0);
  const int64_t batch_axis = ctx.AttrInt("batch_axis", 1);
  if (rank < 2 || !((time_axis == 0 && batch_axis == 1) || (time_axis == 1 && batch_axis == 0))) {
    return ctx.Invalid("needs rank >= 2 and time_axis, batch_axis 0 and 1 (either order)");
  }
  const auto time = static_cast<size_t>(time_axis), batch = static_cast<size_t>(batch_axis);
  SY_ASSIGN_OR_RETURN(ValueId t, IotaAlong(ctx, x, time, rank));
  SY_ASSIGN_OR_RETURN(ValueId len, VectorAlong(ctx, lens, batch, rank));
  SY_ASSIGN_OR_RETURN(ValueId one, ctx.Scalar(DType::kI64, 1.0));
  SY_ASSIGN_OR_RETURN(ValueId last, ctx.Emit1("sub", {len, one}));
  SY_ASSIGN_OR_RETURN(ValueId reversed, ctx.Emit1("sub", {last, t}));
  SY_ASSIGN_OR_RETURN(ValueId inside, ctx.Emit1("less", {t, len}));
  SY_ASSIGN_OR_RETURN(ValueId source, ctx.Emit1("where", {inside, reversed, t}));
  SY_ASSIGN_OR_RETURN(ValueId indices, ExpandLike(ctx, source, x));
  Attrs attrs;
  attrs.Set("axis", time_axis);
  SY_ASSIGN_OR_RETURN(ValueId out, ctx.Emit1("gather_elements", {x, indices}, std::move(attrs)));
  ctx.SetOutput(0, out);
  return Status::Ok();
}

Status MapTensorScatter(NodeContext& ctx) {
  SY_ASSIGN_OR_RETURN(ValueId cache, ctx.Input(0));
  SY_ASSIGN_OR_RETURN(ValueId update, ctx.Input(1));
  const int64_t rank = static_cast<int64_t>(ctx.TypeOf(cache).shape.size());
  if (rank < 2 || static_cast<int64_t>(ctx.TypeOf(update).shape.size()) != rank) {
    return ctx.Invalid("past_cache and update must have one rank, at least 2");
  }
  Expected<int64_t> axis = NormalizeAxis(ctx.AttrInt("axis", -2), rank);
  if (!axis.ok()) return ctx.Invalid(axis.status().message());
  if (*axis == 0) return ctx.Invalid("axis may not be the batch axis 0");
  const std::string mode = ctx.AttrString("mode", "linear");
  if (mode != "linear" && mode != "circular") {
    return ctx.Invalid("mode must be linear or circular, not '" + mode + "'");
  }
  const auto r = static_cast<size_t>(rank), a = static_cast<size_t>(*axis);
  SY_ASSIGN_OR_RETURN(ValueId position, IotaAlong(ctx, update, a, r));
  if (ctx.HasInput(2)) {
    SY_ASSIGN_OR_RETURN(ValueId w, ctx.Input(2));
    SY_ASSIGN_OR_RETURN(ValueId start, VectorAlong(ctx, w, 0, r));
    SY_ASSIGN_OR_RETURN(position, ctx.Emit1("add", {position, start}));
  }
  if (mode == "circular") {
    const DimExpr length = ctx.state().DimsOfValue(cache)[a];
    if (!length.is_const()) {
      return ctx.UnsupportedOp("circular mode needs the cache length fixed at import, not " +
                               length.ToString());
    }
    SY_ASSIGN_OR_RETURN(ValueId n, ctx.Scalar(DType::kI64, static_cast<double>(length.value())));
    SY_ASSIGN_OR_RETURN(position, ctx.Emit1("mod", {position, n}));
  }
  SY_ASSIGN_OR_RETURN(ValueId indices, ExpandLike(ctx, position, update));
  Attrs attrs;
  attrs.Set("axis", *axis);
  SY_ASSIGN_OR_RETURN(ValueId out,
                      ctx.Emit1("scatter_elements", {cache, indices, update}, std::move(attrs)));
  ctx.SetOutput(0, out);
  return Status::Ok();
}

Status MapMaxUnpool(NodeContext& ctx) {
  SY_ASSIGN_OR_RETURN(ValueId x, ctx.Input(0));
  SY_ASSIGN_OR_RETURN(ValueId indices, ctx.Input(1));
  const TensorType type = ctx.TypeOf(x);
  const size_t rank = type.shape.size();
  const std::vector<DimExpr> dims = ctx.state().DimsOfValue(x);
  for (const DimExpr& d : dims) {
    if (!d.is_const()) {
      return ctx.UnsupportedOp("MaxUnpool needs its input's sizes fixed at import, not " +
                               d.ToString());
    }
  }
  auto kernel = ctx.AttrInts("kernel_shape");
  if (rank < 3 || !kernel || kernel->size() != rank - 2) {
    return ctx.Invalid("needs an input of rank >= 3 and a kernel_shape for its spatial dims");
  }
  const size_t spatial = rank - 2;
  const std::vector<int64_t> strides =
      ctx.AttrInts("strides").value_or(std::vector<int64_t>(spatial, 1));
  const std::vector<int64_t> pads =
      ctx.AttrInts("pads").value_or(std::vector<int64_t>(2 * spatial, 0));
  if (strides.size() != spatial || pads.size() != 2 * spatial) {
    return ctx.Invalid("strides or pads do not match the spatial dims");
  }
  std::vector<int64_t> unpooled{type.shape[0], type.shape[1]};
  for (size_t d = 0; d < spatial; ++d) {
    unpooled.push_back((type.shape[d + 2] - 1) * strides[d] - (pads[d] + pads[d + spatial]) +
                       (*kernel)[d]);
    if (unpooled.back() < 0) return ctx.Invalid("the unpooled size is negative");
  }
  SY_ASSIGN_OR_RETURN(const int64_t total, CheckedElementCount(unpooled));
  SY_ASSIGN_OR_RETURN(ValueId zero, ctx.Scalar(type.dtype, 0.0, {1}));
  Attrs expand;
  expand.Set("shape", std::vector<int64_t>{total});
  SY_ASSIGN_OR_RETURN(ValueId zeros, ctx.Emit1("expand", {zero}, std::move(expand)));
  SY_ASSIGN_OR_RETURN(ValueId flat_x, EmitReshape(ctx, x, {-1}));
  SY_ASSIGN_OR_RETURN(ValueId flat_i, EmitReshape(ctx, indices, {-1}));
  SY_ASSIGN_OR_RETURN(ValueId flat,
                      ctx.Emit1("scatter_elements", {zeros, flat_i, flat_x}, Attrs{}));
  SY_ASSIGN_OR_RETURN(ValueId out, EmitReshape(ctx, flat, unpooled));
  if (ctx.HasInput(2)) {
    SY_ASSIGN_OR_RETURN(std::vector<int64_t> wanted, ctx.StaticInts(2, "output_shape"));
    if (wanted.size() != rank) return ctx.Invalid("output_shape must have the input's rank");
    std::vector<int64_t> pad(2 * rank, 0);
    bool any = false;
    for (size_t d = 0; d < rank; ++d) {
      pad[rank + d] = wanted[d] - unpooled[d];
      any = any || pad[rank + d] != 0;
    }
    if (any) {
      Attrs attrs;
      attrs.Set("pads", pad);
      SY_ASSIGN_OR_RETURN(out, ctx.Emit1("pad", {out}, std::move(attrs)));
    }
  }
  ctx.SetOutput(0, out);
  return Status::Ok();
}

}  // namespace

void AddScatterLikeMappings(MappingTable& table) {
  table.At("ReverseSequence").map = MapReverseSequence;
  table.At("TensorScatter").map = MapTensorScatter;
  table.At("MaxUnpool").map = MapMaxUnpool;
}

}  // namespace sy::onnx_import
