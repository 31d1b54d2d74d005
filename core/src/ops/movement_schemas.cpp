// Shape and data movement ops of the catalogue (spec/ops.md, "Shape and data movement"):
// reshape, transpose, expand, concat, split, slice, pad, tile, range, trilu; and
// depth_to_space, space_to_depth (spec/ops.md lists them under "Neural network", but they
// only move elements). They take every dtype; shapes follow the ONNX operators of the same names
// with the static attributes of the catalogue. The ops that move data by index tensors (gather,
// scatter) are the indexing family (indexing_schemas.cpp).
#include <algorithm>
#include <cmath>

#include "ops/op_families.h"
#include "ops/shape_rule_helpers.h"
#include "switchyard/slice_bounds.h"

namespace sy::ops {
namespace {

constexpr DTypeSet kAll = DTypeSet::All();

OpSchema Movement(std::string_view name, std::string_view onnx, ShapeRule rule,
                  std::vector<AttrSpec> attrs = {}) {
  return MakeSchema(name, onnx, kAll, {{"x", 0}}, std::move(attrs), rule);
}

AttrSpec Int(std::string_view name, int64_t value) { return {name, AttrKind::kInt, value}; }
AttrSpec RequiredInt(std::string_view name) { return {name, AttrKind::kInt, std::nullopt, true}; }
AttrSpec RequiredInts(std::string_view name) { return {name, AttrKind::kInts, std::nullopt, true}; }
AttrSpec OptionalInts(std::string_view name) { return {name, AttrKind::kInts, std::nullopt}; }
AttrSpec RequiredFloat(std::string_view name) {
  return {name, AttrKind::kFloat, std::nullopt, true};
}

std::string Str(int64_t v) { return std::to_string(v); }

// "attribute axis 3 is out of range for rank 2 (expected -2 to 1)".
Expected<int64_t> NormalizeAttrAxis(const InferContext& ctx, std::string_view attr, int64_t rank) {
  return NormalizeAxis(ctx.attrs.GetInt(attr), rank, "attribute " + std::string(attr));
}

// a + b and a * b for dims, with an error instead of int64 overflow. Results up to
// 2^63 pass here; the element-count check on the outputs then rejects them.
Status CheckedAdd(int64_t a, int64_t b, int64_t& out) {
  if (__builtin_add_overflow(a, b, &out)) {
    return ResourceExhausted("dimension " + Str(a) + " + " + Str(b) + " overflows int64");
  }
  return Status::Ok();
}
Status CheckedMul(int64_t a, int64_t b, int64_t& out) {
  if (__builtin_mul_overflow(a, b, &out)) {
    return ResourceExhausted("dimension " + Str(a) + " * " + Str(b) + " overflows int64");
  }
  return Status::Ok();
}

// ---- reshape, transpose, expand ----

// ONNX Reshape: with allowzero = 0 (the default) a 0 copies the input dim at the same
// index, with allowzero = 1 it is a dim of 0; one -1 is inferred from the element count.
Expected<std::vector<TensorType>> InferReshape(const InferContext& ctx) {
  const TensorType& x = ctx.input(0);
  const std::vector<int64_t> spec = ctx.attrs.GetInts("shape");
  const int64_t allow_zero = ctx.attrs.GetInt("allowzero", 0);
  if (allow_zero != 0 && allow_zero != 1) {
    return AttrError("allowzero", "is " + Str(allow_zero) + " (expected 0 or 1)");
  }
  Shape shape(spec.size());
  std::optional<size_t> inferred;
  for (size_t i = 0; i < spec.size(); ++i) {
    const int64_t d = spec[i];
    if (d == -1) {
      if (inferred) {
        return AttrError("shape", ShapeToString(spec) + " has more than one -1");
      }
      inferred = i;
      shape[i] = 1;
    } else if (d == 0 && allow_zero == 1) {
      shape[i] = 0;
    } else if (d == 0) {
      if (static_cast<int64_t>(i) >= x.rank()) {
        return AttrError("shape", ShapeToString(spec) + " has 0 at index " + Str(i) +
                                      ", which copies a dimension of input x, but x has shape " +
                                      ShapeToString(x.shape));
      }
      shape[i] = x.shape[i];
    } else if (d < 0) {
      return AttrError("shape", ShapeToString(spec) + " has " + Str(d) + " at index " + Str(i) +
                                    "; entries must be >= -1");
    } else {
      shape[i] = d;
    }
  }
  SY_ASSIGN_OR_RETURN(const int64_t in_count, CheckedElementCount(x.shape));
  SY_ASSIGN_OR_RETURN(const int64_t known, CheckedElementCount(shape));
  if (inferred) {
    if (known == 0 || in_count % known != 0) {
      return AttrError("shape", ShapeToString(spec) + " cannot reshape input x of shape " +
                                    ShapeToString(x.shape) + " (" + Str(in_count) +
                                    " elements): the other dimensions' product " + Str(known) +
                                    " does not determine the -1");
    }
    shape[*inferred] = in_count / known;
  } else if (known != in_count) {
    return AttrError("shape", ShapeToString(spec) + " gives " + Str(known) +
                                  " elements but input x of shape " + ShapeToString(x.shape) +
                                  " has " + Str(in_count));
  }
  return std::vector<TensorType>{{x.dtype, std::move(shape)}};
}

// ONNX Transpose: perm must be a permutation of 0..rank-1 (non-negative, as in ONNX).
Expected<std::vector<TensorType>> InferTranspose(const InferContext& ctx) {
  const TensorType& x = ctx.input(0);
  const int64_t rank = x.rank();
  std::vector<int64_t> perm;
  if (ctx.attrs.Has("perm")) {
    perm = ctx.attrs.GetInts("perm");
  } else {
    for (int64_t i = rank - 1; i >= 0; --i) perm.push_back(i);
  }
  if (static_cast<int64_t>(perm.size()) != rank) {
    return AttrError("perm", ShapeToString(perm) + " has " + Str(perm.size()) +
                                 " entries but input x has rank " + Str(rank));
  }
  std::vector<bool> seen(rank, false);
  Shape shape(rank);
  for (int64_t i = 0; i < rank; ++i) {
    const int64_t p = perm[i];
    if (p < 0 || p >= rank || seen[p]) {
      return AttrError("perm",
                       ShapeToString(perm) + " is not a permutation of 0.." + Str(rank - 1));
    }
    seen[p] = true;
    shape[i] = x.shape[p];
  }
  return std::vector<TensorType>{{x.dtype, std::move(shape)}};
}

// ONNX Expand: the input and `shape` broadcast bidirectionally (NumPy rules).
Expected<std::vector<TensorType>> InferExpand(const InferContext& ctx) {
  const TensorType& x = ctx.input(0);
  const std::vector<int64_t> target = ctx.attrs.GetInts("shape");
  for (int64_t d : target) {
    if (d < 0) return AttrError("shape", ShapeToString(target) + " has a negative entry");
  }
  Expected<Shape> shape = BroadcastShapes(x.shape, target);
  if (!shape.ok()) {
    return AttrError("shape", ShapeToString(target) + " does not broadcast with input x's shape " +
                                  ShapeToString(x.shape));
  }
  return std::vector<TensorType>{{x.dtype, std::move(*shape)}};
}

// ---- concat, split ----

Expected<std::vector<TensorType>> InferConcat(const InferContext& ctx) {
  const TensorType& first = ctx.input(0);
  SY_RETURN_IF_ERROR(RequireMinRank(first, "0", 1));
  SY_ASSIGN_OR_RETURN(const int64_t axis, NormalizeAttrAxis(ctx, "axis", first.rank()));
  Shape shape = first.shape;
  for (size_t i = 1; i < ctx.num_inputs(); ++i) {
    const TensorType& in = ctx.input(i);
    bool match = in.rank() == first.rank();
    for (int64_t d = 0; match && d < first.rank(); ++d) {
      match = d == axis || in.shape[d] == first.shape[d];
    }
    if (!match) {
      return InvalidModel("input " + Str(i) + " has shape " + ShapeToString(in.shape) +
                          " but must match input 0's shape " + ShapeToString(first.shape) +
                          " except on axis " + Str(axis));
    }
    SY_RETURN_IF_ERROR(CheckedAdd(shape[axis], in.shape[axis], shape[axis]));
  }
  return std::vector<TensorType>{{first.dtype, std::move(shape)}};
}

// ONNX Split: `sizes` (the `split` input) when given, else the node's output count in
// chunks of ceil(dim / n) with the last one smaller (ONNX's num_outputs rule).
Expected<std::vector<TensorType>> InferSplit(const InferContext& ctx) {
  const TensorType& x = ctx.input(0);
  SY_RETURN_IF_ERROR(RequireMinRank(x, "x", 1));
  SY_ASSIGN_OR_RETURN(const int64_t axis, NormalizeAttrAxis(ctx, "axis", x.rank()));
  const int64_t dim = x.shape[axis];
  const int64_t n = ctx.num_outputs;
  std::vector<int64_t> sizes;
  if (ctx.attrs.Has("sizes")) {
    sizes = ctx.attrs.GetInts("sizes");
    if (static_cast<int64_t>(sizes.size()) != n) {
      return AttrError("sizes", ShapeToString(sizes) + " has " + Str(sizes.size()) +
                                    " entries but the node lists " + Str(n) + " outputs");
    }
    int64_t total = 0;
    for (int64_t s : sizes) {
      if (s < 0) return AttrError("sizes", ShapeToString(sizes) + " has a negative entry");
      SY_RETURN_IF_ERROR(CheckedAdd(total, s, total));
    }
    if (total != dim) {
      return AttrError("sizes", ShapeToString(sizes) + " sums to " + Str(total) +
                                    " but input x has shape " + ShapeToString(x.shape) + " with " +
                                    Str(dim) + " on axis " + Str(axis));
    }
  } else {
    const int64_t chunk = dim / n + (dim % n != 0 ? 1 : 0);
    const int64_t last = dim - chunk * (n - 1);
    if (last < 0) {
      return InvalidModel("input x has shape " + ShapeToString(x.shape) + " whose axis " +
                          Str(axis) + " (" + Str(dim) + ") cannot be split into " + Str(n) +
                          " chunks of " + Str(chunk) + " with a smaller last chunk");
    }
    sizes.assign(n - 1, chunk);
    sizes.push_back(last);
  }
  std::vector<TensorType> outputs;
  for (int64_t s : sizes) {
    outputs.push_back({x.dtype, x.shape});
    outputs.back().shape[axis] = s;
  }
  return outputs;
}

// ---- slice ----

Expected<std::vector<TensorType>> InferSlice(const InferContext& ctx) {
  const TensorType& x = ctx.input(0);
  const int64_t rank = x.rank();
  const std::vector<int64_t> starts = ctx.attrs.GetInts("starts");
  const std::vector<int64_t> ends = ctx.attrs.GetInts("ends");
  const size_t n = starts.size();
  for (std::string_view attr : {"ends", "axes", "steps"}) {
    if (Status s = RequireListSize(ctx.attrs, attr, n); !s.ok()) {
      return InvalidModel(s.message() + " (one per entry of starts)");
    }
  }
  std::vector<int64_t> axes;
  if (ctx.attrs.Has("axes")) {
    std::vector<bool> seen(rank, false);
    for (int64_t a : ctx.attrs.GetInts("axes")) {
      SY_ASSIGN_OR_RETURN(const int64_t axis, NormalizeAxis(a, rank, "attribute axes entry"));
      if (seen[axis]) {
        return AttrError("axes", ShapeToString(ctx.attrs.GetInts("axes")) + " names axis " +
                                     Str(axis) + " twice");
      }
      seen[axis] = true;
      axes.push_back(axis);
    }
  } else {
    if (static_cast<int64_t>(n) > rank) {
      return AttrError("starts", "has " + Str(n) + " entries but input x has rank " + Str(rank) +
                                     " (and no axes are given)");
    }
    for (size_t i = 0; i < n; ++i) axes.push_back(static_cast<int64_t>(i));
  }
  const std::vector<int64_t> steps =
      ctx.attrs.Has("steps") ? ctx.attrs.GetInts("steps") : std::vector<int64_t>(n, 1);
  Shape shape = x.shape;
  for (size_t i = 0; i < n; ++i) {
    if (steps[i] == 0) return AttrError("steps", ShapeToString(steps) + " has a 0 entry");
    shape[axes[i]] = ResolveSliceAxis(x.shape[axes[i]], starts[i], ends[i], steps[i]).count;
  }
  return std::vector<TensorType>{{x.dtype, std::move(shape)}};
}

// ---- pad, tile ----

// ONNX Pad: pads = [x1_begin, x2_begin, ..., x1_end, x2_end, ...]; negative pads crop.
// reflect needs each positive pad smaller than the (uncropped) dim, edge a non-empty dim.
Expected<std::vector<TensorType>> InferPad(const InferContext& ctx) {
  const TensorType& x = ctx.input(0);
  const int64_t rank = x.rank();
  const std::vector<int64_t> pads = ctx.attrs.GetInts("pads");
  const std::string mode = ctx.attrs.GetString("mode");
  if (static_cast<int64_t>(pads.size()) != 2 * rank) {
    return AttrError("pads", ShapeToString(pads) + " has " + Str(pads.size()) +
                                 " entries but input x has rank " + Str(rank) +
                                 " (2 per dimension: all begins, then all ends)");
  }
  Shape shape = x.shape;
  for (int64_t d = 0; d < rank; ++d) {
    const int64_t dim = x.shape[d];
    for (int64_t pad : {pads[d], pads[d + rank]}) {
      if (pad <= 0) continue;
      if (mode == "reflect" && pad >= dim) {
        return AttrError("pads", ShapeToString(pads) + " pads dimension " + Str(d) + " by " +
                                     Str(pad) + " but reflect mode needs pads smaller than " +
                                     "the dimension (input x has shape " + ShapeToString(x.shape) +
                                     ")");
      }
      if (mode == "edge" && dim == 0) {
        return AttrError("pads", ShapeToString(pads) + " pads dimension " + Str(d) +
                                     " but edge mode cannot pad an empty dimension (input x "
                                     "has shape " +
                                     ShapeToString(x.shape) + ")");
      }
    }
    SY_RETURN_IF_ERROR(CheckedAdd(shape[d], pads[d], shape[d]));
    SY_RETURN_IF_ERROR(CheckedAdd(shape[d], pads[d + rank], shape[d]));
    if (shape[d] < 0) {
      return AttrError("pads", ShapeToString(pads) + " crops dimension " + Str(d) +
                                   " of input x's shape " + ShapeToString(x.shape) + " to " +
                                   Str(shape[d]));
    }
  }
  return std::vector<TensorType>{{x.dtype, std::move(shape)}};
}

Expected<std::vector<TensorType>> InferTile(const InferContext& ctx) {
  const TensorType& x = ctx.input(0);
  const std::vector<int64_t> repeats = ctx.attrs.GetInts("repeats");
  if (static_cast<int64_t>(repeats.size()) != x.rank()) {
    return AttrError("repeats", ShapeToString(repeats) + " has " + Str(repeats.size()) +
                                    " entries but input x has rank " + Str(x.rank()));
  }
  Shape shape = x.shape;
  for (size_t d = 0; d < repeats.size(); ++d) {
    if (repeats[d] < 0) {
      return AttrError("repeats", ShapeToString(repeats) + " has a negative entry");
    }
    SY_RETURN_IF_ERROR(CheckedMul(shape[d], repeats[d], shape[d]));
  }
  return std::vector<TensorType>{{x.dtype, std::move(shape)}};
}

// ---- range, trilu ----

// bitcast (extension, docs/ops.md): x's bits as dtype `to`, of the same element size;
// bool is not a target (its bytes must be 0 or 1).
Expected<std::vector<TensorType>> InferBitcast(const InferContext& ctx) {
  const TensorType& x = ctx.input(0);
  const std::string name = ctx.attrs.GetString("to");
  const std::optional<DType> to = ParseDTypeName(name);
  if (!to || *to == DType::kBool) {
    return AttrError("to", "is \"" + name + "\" but must be a dtype other than bool");
  }
  if (DTypeSize(*to) != DTypeSize(x.dtype)) {
    return AttrError("to", "is " + name + " (" + std::to_string(8 * DTypeSize(*to)) +
                               " bits) but input x is " + std::string(DTypeName(x.dtype)) + " (" +
                               std::to_string(8 * DTypeSize(x.dtype)) +
                               " bits); bitcast keeps the element size");
  }
  return std::vector<TensorType>{{*to, x.shape}};
}

std::vector<std::string_view> RangeDTypeNames() {
  return {"f32", "f16", "bf16", "f64", "i8", "u8", "i16", "u16", "i32", "u32", "i64"};
}

// ONNX Range: [max(ceil((limit - start) / delta), 0)], computed in double from the
// attributes. Integer dtypes need integral start, limit and delta.
Expected<std::vector<TensorType>> InferRange(const InferContext& ctx) {
  const std::string dtype_name = ctx.attrs.GetString("dtype");
  const std::optional<DType> dtype = ParseDTypeName(dtype_name);
  if (!dtype) return AttrError("dtype", "is \"" + dtype_name + "\" which is not a dtype");
  for (std::string_view attr : {"start", "limit", "delta"}) {
    const double v = ctx.attrs.GetFloat(attr);
    if (!std::isfinite(v)) return AttrError(attr, "is " + std::to_string(v) + "; must be finite");
    if (IsInteger(*dtype) && v != std::trunc(v)) {
      return AttrError(
          attr, "is " + AttrValueToString(v) + " but dtype " + dtype_name + " needs an integer");
    }
  }
  const double start = ctx.attrs.GetFloat("start");
  const double limit = ctx.attrs.GetFloat("limit");
  const double delta = ctx.attrs.GetFloat("delta");
  if (delta == 0) return AttrError("delta", "is 0");
  const double count = std::ceil((limit - start) / delta);
  if (!(count <= static_cast<double>(kMaxElementCount))) {
    return ResourceExhausted("range from " + AttrValueToString(start) + " to " +
                             AttrValueToString(limit) + " by " + AttrValueToString(delta) +
                             " has more than 2^62 elements");
  }
  const int64_t length = count > 0 ? static_cast<int64_t>(count) : 0;
  return std::vector<TensorType>{{*dtype, Shape{length}}};
}

Expected<std::vector<TensorType>> InferTrilu(const InferContext& ctx) {
  SY_RETURN_IF_ERROR(RequireMinRank(ctx.input(0), "x", 2));
  const int64_t upper = ctx.attrs.GetInt("upper");
  if (upper != 0 && upper != 1) return AttrError("upper", "is " + Str(upper) + "; must be 0 or 1");
  return std::vector<TensorType>{ctx.input(0)};
}

// ---- depth_to_space, space_to_depth ----

Expected<int64_t> ReadBlocksize(const Attrs& attrs) {
  const int64_t b = attrs.GetInt("blocksize");
  // Bounded so that b * b and the scaled dims below cannot overflow int64.
  if (b < 1 || b > (int64_t{1} << 31)) {
    return AttrError("blocksize", "is " + Str(b) + " but must be between 1 and 2^31");
  }
  return b;
}

// [N, C, H, W] -> [N, C / (b * b), H * b, W * b]
Expected<std::vector<TensorType>> InferDepthToSpace(const InferContext& ctx) {
  const TensorType& x = ctx.input(0);
  SY_RETURN_IF_ERROR(RequireRank(x, "x", 4));
  SY_ASSIGN_OR_RETURN(const int64_t b, ReadBlocksize(ctx.attrs));
  if (x.shape[1] % (b * b) != 0) {
    return DimError("x", x, 1,
                    "be divisible by blocksize * blocksize (" + Str(b) + " * " + Str(b) + ")");
  }
  int64_t h = 0;
  int64_t w = 0;
  if (__builtin_mul_overflow(x.shape[2], b, &h) || __builtin_mul_overflow(x.shape[3], b, &w)) {
    return AttrError("blocksize", "is " + Str(b) + " which makes the output too large");
  }
  return std::vector<TensorType>{{x.dtype, {x.shape[0], x.shape[1] / (b * b), h, w}}};
}

// [N, C, H, W] -> [N, C * b * b, H / b, W / b]
Expected<std::vector<TensorType>> InferSpaceToDepth(const InferContext& ctx) {
  const TensorType& x = ctx.input(0);
  SY_RETURN_IF_ERROR(RequireRank(x, "x", 4));
  SY_ASSIGN_OR_RETURN(const int64_t b, ReadBlocksize(ctx.attrs));
  for (int64_t d : {2, 3}) {
    if (x.shape[d] % b != 0)
      return DimError("x", x, d, "be divisible by blocksize (" + Str(b) + ")");
  }
  int64_t c = 0;
  if (__builtin_mul_overflow(x.shape[1], b * b, &c)) {
    return AttrError("blocksize", "is " + Str(b) + " which makes the output too large");
  }
  return std::vector<TensorType>{{x.dtype, {x.shape[0], c, x.shape[2] / b, x.shape[3] / b}}};
}

}  // namespace

void AddMovementSchemas(std::vector<OpSchema>& out) {
  out.push_back(
      Movement("reshape", "Reshape", InferReshape, {RequiredInts("shape"), Int("allowzero", 0)}));
  out.push_back(Movement("transpose", "Transpose", InferTranspose, {OptionalInts("perm")}));
  out.push_back(Movement("expand", "Expand", InferExpand, {RequiredInts("shape")}));
  {
    OpSchema s = Movement("concat", "Concat", InferConcat, {RequiredInt("axis")});
    s.inputs = {{"inputs", 0, false, true}};
    out.push_back(std::move(s));
  }
  {
    OpSchema s = Movement("split", "Split", InferSplit, {Int("axis", 0), OptionalInts("sizes")});
    s.max_outputs = OpSchema::kVariadic;
    out.push_back(std::move(s));
  }
  out.push_back(Movement(
      "slice", "Slice", InferSlice,
      {RequiredInts("starts"), RequiredInts("ends"), OptionalInts("axes"), OptionalInts("steps")}));
  out.push_back(
      Movement("pad", "Pad", InferPad,
               {RequiredInts("pads"),
                {"mode", AttrKind::kString, "constant", false, {"constant", "reflect", "edge"}},
                {"value", AttrKind::kFloat, 0.0}}));
  out.push_back(Movement("tile", "Tile", InferTile, {RequiredInts("repeats")}));
  {
    // No inputs; the type variable is unused but a schema always has one.
    OpSchema s = Movement("range", "Range", InferRange,
                          {RequiredFloat("start"),
                           RequiredFloat("limit"),
                           RequiredFloat("delta"),
                           {"dtype", AttrKind::kString, std::nullopt, true, RangeDTypeNames()}});
    s.type_vars = OneTypeVar(DTypeSet::Numeric());
    s.inputs = {};
    out.push_back(std::move(s));
  }
  out.push_back(Movement("trilu", "Trilu", InferTrilu, {Int("upper", 1), Int("k", 0)}));
  const AttrSpec blocksize = RequiredInt("blocksize");
  out.push_back(Movement("depth_to_space", "DepthToSpace", InferDepthToSpace,
                         {blocksize, {"mode", AttrKind::kString, "DCR", false, {"DCR", "CRD"}}}));
  out.push_back(Movement("space_to_depth", "SpaceToDepth", InferSpaceToDepth, {blocksize}));
  out.push_back(
      Movement("bitcast", "BitCast", InferBitcast,
               {{"to",
                 AttrKind::kString,
                 std::nullopt,
                 true,
                 {"f32", "f16", "bf16", "f64", "i8", "u8", "i16", "u16", "i32", "u32", "i64"}}}));
}

}  // namespace sy::ops
