// Reference kernels of the movement family (spec/ops.md, "Shape and data movement"):
// reshape transpose expand concat split slice pad tile range trilu, and depth_to_space and
// space_to_depth (listed under "Neural network" there, but they only move elements).
//
// They take every dtype. Pure data movement copies whole elements as bytes (exact for
// every dtype, NaN payloads included); only pad's constant and range compute values
// (floats in double, integers in int64_t, bool as 0/1).
//
// Semantics decisions beyond ONNX's text:
// - pad: negative pads crop. A position maps to the uncropped input, i.e. the input is
//   padded first and cropped afterwards (which is why the schema bounds reflect pads by
//   the uncropped dim). `value` is stored like a cast: integers truncate toward zero and
//   saturate to int64 then wrap to the dtype (NaN gives 0); bool stores value != 0.
// - range: element i is start + i * delta, in double for floats and in int64_t
//   (wrapping) for integers.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "ref/movement_helpers.h"
#include "ref/ref_kernels.h"
#include "switchyard/plugin_node.h"

namespace sy::cpu {

// double -> int64_t like a non-trapping cast: truncate toward zero, saturate, NaN -> 0.
int64_t SaturatingToInt(double v) {
  if (std::isnan(v)) return 0;
  if (v >= 9223372036854775808.0) return INT64_MAX;
  if (v < -9223372036854775808.0) return INT64_MIN;
  return static_cast<int64_t>(v);
}

std::vector<std::byte> ElementBytes(DType dtype, double value) {
  std::vector<std::byte> bytes(DTypeSize(dtype));
  if (IsFloat(dtype)) {
    StoreFloat(dtype, bytes.data(), 0, value);
  } else if (dtype == DType::kBool) {
    StoreInt(dtype, bytes.data(), 0, value != 0.0 ? 1 : 0);
  } else {
    StoreInt(dtype, bytes.data(), 0, SaturatingToInt(value));
  }
  return bytes;
}

namespace {

using namespace movement;  // NOLINT(build/namespaces): this family's own helpers

// y[i] = x[base + sum_d i_d * strides[d]] over y's shape: transpose, expand and slice.
// The offsets' range is checked once, before anything is copied (a failed check is a bug,
// not a user error). Dims that are contiguous in both x and y are merged, and the innermost
// dim is copied as one block when it is contiguous in x: transposes of transformer heads
// ([S, H, D] -> [H, S, D]) move D elements at a time instead of one.
Status StridedCopy(const KernelContext& ctx, int64_t base, std::span<const int64_t> strides) {
  const ConstTensorView& x = ctx.inputs[0];
  const TensorView& y = ctx.outputs[0];
  const size_t es = ElemSize(y.dtype());
  const int64_t n = y.count();
  if (n == 0) return Status::Ok();
  const Shape& shape = y.shape();
  // Merge dims (outermost first), dropping size-1 dims.
  std::vector<int64_t> dims, steps;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] == 1) continue;
    if (!dims.empty() && steps.back() == strides[d] * shape[d]) {
      dims.back() *= shape[d];
      steps.back() = strides[d];
      continue;
    }
    dims.push_back(shape[d]);
    steps.push_back(strides[d]);
  }
  int64_t low = base, high = base;
  for (size_t d = 0; d < dims.size(); ++d) {
    (steps[d] < 0 ? low : high) += steps[d] * (dims[d] - 1);
  }
  const int64_t x_count = x.count();
  if (low < 0 || high >= x_count) {
    return Internal(std::string(ctx.op) + ": computed input offsets [" + Str(low) + ", " +
                    Str(high) + "] outside input of " + Str(x_count) + " elements");
  }
  // The innermost dim: one block when contiguous, else element by element.
  const int64_t inner = dims.empty() ? 1 : dims.back();
  const int64_t inner_step = dims.empty() ? 1 : steps.back();
  if (!dims.empty()) {
    dims.pop_back();
    steps.pop_back();
  }
  std::vector<int64_t> index(dims.size(), 0);
  int64_t offset = base;
  std::byte* out = y.data;
  for (int64_t row = 0; row < n / inner; ++row) {
    if (inner_step == 1) {
      std::memcpy(out, x.data + offset * es, static_cast<size_t>(inner) * es);
      out += inner * es;
    } else if (es == 4) {  // f32, i32: a typed loop the compiler can unroll
      const std::byte* in = x.data + offset * 4;
      for (int64_t i = 0; i < inner; ++i, out += 4) std::memcpy(out, in + i * inner_step * 4, 4);
    } else {
      for (int64_t i = 0; i < inner; ++i, out += es) {
        std::memcpy(out, x.data + (offset + i * inner_step) * es, es);
      }
    }
    for (size_t d = dims.size(); d-- > 0;) {
      offset += steps[d];
      if (++index[d] < dims[d]) break;
      offset -= steps[d] * dims[d];
      index[d] = 0;
    }
  }
  return Status::Ok();
}

// ---- reshape, transpose, expand, bitcast ----

// The same bytes under another dtype of the same size (the shape rule checked the sizes).
Status Bitcast(const KernelContext& ctx) {
  const ConstTensorView& x = ctx.inputs[0];
  CopyBytes(ctx.outputs[0].data, x.data, static_cast<size_t>(x.count()) * ElemSize(x.dtype()));
  return Status::Ok();
}

Status Reshape(const KernelContext& ctx) {
  const ConstTensorView& x = ctx.inputs[0];
  // Bound in place (SY_DEVICE_FLAG_RESHAPE_IN_PLACE): the bytes already are the output.
  if (ctx.outputs[0].data == x.data) return Status::Ok();
  CopyBytes(ctx.outputs[0].data, x.data, static_cast<size_t>(x.count()) * ElemSize(x.dtype()));
  return Status::Ok();
}

Status Transpose(const KernelContext& ctx) {
  const ConstTensorView& x = ctx.inputs[0];
  const int64_t rank = x.rank();
  std::vector<int64_t> perm;
  if (ctx.attrs.Has("perm")) {
    perm = ctx.attrs.GetInts("perm");
  } else {
    for (int64_t i = rank - 1; i >= 0; --i) perm.push_back(i);
  }
  const std::vector<int64_t> in_strides = Strides(x.shape());
  std::vector<int64_t> strides(static_cast<size_t>(rank));
  for (size_t i = 0; i < strides.size(); ++i) strides[i] = in_strides[perm[i]];
  return StridedCopy(ctx, 0, strides);
}

Status Expand(const KernelContext& ctx) {
  const ConstTensorView& x = ctx.inputs[0];
  const Shape& out = ctx.outputs[0].shape();
  const std::vector<int64_t> in_strides = Strides(x.shape());
  std::vector<int64_t> strides(out.size(), 0);
  const size_t lead = out.size() - x.shape().size();
  for (size_t d = 0; d < x.shape().size(); ++d) {
    strides[lead + d] = x.shape()[d] == 1 ? 0 : in_strides[d];
  }
  return StridedCopy(ctx, 0, strides);
}

// ---- concat, split ----

Status Concat(const KernelContext& ctx) {
  const TensorView& y = ctx.outputs[0];
  const int64_t axis = Axis(ctx.attrs.GetInt("axis"), y.rank());
  const size_t es = ElemSize(y.dtype());
  const int64_t outer = Product(y.shape(), 0, static_cast<size_t>(axis));
  std::byte* dst = y.data;
  for (int64_t o = 0; o < outer; ++o) {
    for (const ConstTensorView& in : ctx.inputs) {
      const size_t chunk =
          static_cast<size_t>(Product(in.shape(), static_cast<size_t>(axis), in.shape().size())) *
          es;
      CopyBytes(dst, in.data + static_cast<size_t>(o) * chunk, chunk);
      dst += chunk;
    }
  }
  return Status::Ok();
}

Status Split(const KernelContext& ctx) {
  const ConstTensorView& x = ctx.inputs[0];
  const int64_t axis = Axis(ctx.attrs.GetInt("axis"), x.rank());
  const size_t es = ElemSize(x.dtype());
  const int64_t outer = Product(x.shape(), 0, static_cast<size_t>(axis));
  const std::byte* src = x.data;
  for (int64_t o = 0; o < outer; ++o) {
    for (const TensorView& out : ctx.outputs) {
      const size_t chunk =
          static_cast<size_t>(Product(out.shape(), static_cast<size_t>(axis), out.shape().size())) *
          es;
      CopyBytes(out.data + static_cast<size_t>(o) * chunk, src, chunk);
      src += chunk;
    }
  }
  return Status::Ok();
}

// ---- slice ----

Status Slice(const KernelContext& ctx) {
  const ConstTensorView& x = ctx.inputs[0];
  // Canonical (docs/plugin-abi.md): per axis, the first index read and the step; the
  // host resolved ONNX's negative and out-of-range bounds, and the output's dims are the
  // counts.
  const plugin::SliceWindow window =
      plugin::CanonicalSlice(ctx.attrs, x.shape(), ctx.outputs[0].shape());
  const std::vector<int64_t> in_strides = Strides(x.shape());
  std::vector<int64_t> strides = in_strides;
  int64_t base = 0;
  for (size_t a = 0; a < x.shape().size(); ++a) {
    if (ctx.outputs[0].shape()[a] == 0) return Status::Ok();  // empty output: nothing to read
    base += window.starts[a] * in_strides[a];
    strides[a] = window.steps[a] * in_strides[a];
  }
  return StridedCopy(ctx, base, strides);
}

// ---- pad, tile ----

Status Pad(const KernelContext& ctx) {
  const ConstTensorView& x = ctx.inputs[0];
  const TensorView& y = ctx.outputs[0];
  const size_t rank = static_cast<size_t>(x.rank());
  const std::vector<int64_t> pads = ctx.attrs.GetInts("pads");
  const std::string mode = ctx.attrs.GetString("mode");
  const std::vector<std::byte> fill = ElementBytes(x.dtype(), ctx.attrs.GetFloat("value"));
  const size_t es = ElemSize(x.dtype());
  const std::vector<int64_t> strides = Strides(x.shape());
  Odometer it(y.shape());
  for (int64_t i = 0; i < y.count(); ++i, it.Next()) {
    int64_t offset = 0;
    bool inside = true;
    for (size_t d = 0; d < rank; ++d) {
      const int64_t dim = x.shape()[d];
      // The input coordinate; saturates when a huge negative begin pad would overflow
      // (the position then lies far past the end).
      int64_t c;
      if (__builtin_sub_overflow(it.index()[d], pads[d], &c)) c = INT64_MAX;
      if (c < 0 || c >= dim) {
        if (mode == "constant") {
          inside = false;
          break;
        }
        if (mode == "edge") {
          c = c < 0 ? 0 : dim - 1;
        } else {  // reflect, without repeating the edge; the schema keeps pads < dim
          c = c < 0 ? -c : 2 * (dim - 1) - c;
        }
        if (c < 0 || c >= dim) {
          return Internal("pad: " + mode + " position " + Str(it.index()[d]) + " of dimension " +
                          Str(static_cast<int64_t>(d)) + " maps outside the input");
        }
      }
      offset += c * strides[d];
    }
    std::memcpy(y.data + static_cast<size_t>(i) * es,
                inside ? x.data + static_cast<size_t>(offset) * es : fill.data(), es);
  }
  return Status::Ok();
}

Status Tile(const KernelContext& ctx) {
  const ConstTensorView& x = ctx.inputs[0];
  const TensorView& y = ctx.outputs[0];
  const size_t es = ElemSize(x.dtype());
  const std::vector<int64_t> strides = Strides(x.shape());
  Odometer it(y.shape());
  for (int64_t i = 0; i < y.count(); ++i, it.Next()) {
    int64_t offset = 0;
    for (size_t d = 0; d < strides.size(); ++d) {
      offset += (it.index()[d] % x.shape()[d]) * strides[d];  // dims > 0: y is not empty
    }
    std::memcpy(y.data + static_cast<size_t>(i) * es, x.data + static_cast<size_t>(offset) * es,
                es);
  }
  return Status::Ok();
}

// ---- range, trilu ----

Status Range(const KernelContext& ctx) {
  const TensorView& y = ctx.outputs[0];
  const double start = ctx.attrs.GetFloat("start");
  const double delta = ctx.attrs.GetFloat("delta");
  if (IsFloat(y.dtype())) {
    for (int64_t i = 0; i < y.count(); ++i) {
      StoreFloat(y.dtype(), y.data, i, start + static_cast<double>(i) * delta);
    }
  } else {
    const auto s = static_cast<uint64_t>(SaturatingToInt(start));
    const auto d = static_cast<uint64_t>(SaturatingToInt(delta));
    for (int64_t i = 0; i < y.count(); ++i) {
      StoreInt(y.dtype(), y.data, i, static_cast<int64_t>(s + static_cast<uint64_t>(i) * d));
    }
  }
  return Status::Ok();
}

Status Trilu(const KernelContext& ctx) {
  const ConstTensorView& x = ctx.inputs[0];
  const TensorView& y = ctx.outputs[0];
  const size_t es = ElemSize(x.dtype());
  const bool upper = ctx.attrs.GetInt("upper") == 1;
  const int64_t k = ctx.attrs.GetInt("k");
  const size_t r = x.shape().size();
  const int64_t rows = x.shape()[r - 2];
  const int64_t cols = x.shape()[r - 1];
  const int64_t batch = Product(x.shape(), 0, r - 2);
  int64_t i = 0;
  for (int64_t b = 0; b < batch; ++b) {
    for (int64_t row = 0; row < rows; ++row) {
      for (int64_t col = 0; col < cols; ++col, ++i) {
        // Kept: on or above diagonal k (upper), on or below it (lower). All-zero bytes
        // are zero in every dtype.
        const bool keep = upper ? col - row >= k : col - row <= k;
        std::byte* dst = y.data + static_cast<size_t>(i) * es;
        if (keep) {
          std::memcpy(dst, x.data + static_cast<size_t>(i) * es, es);
        } else {
          std::memset(dst, 0, es);
        }
      }
    }
  }
  return Status::Ok();
}

// ---- depth_to_space and space_to_depth: [N, C, H, W] <-> [N, C / (b * b), H * b, W * b]

void CopyElement(const ConstTensorView& x, int64_t from, const TensorView& y, int64_t to) {
  const size_t size = DTypeSize(x.dtype());
  std::memcpy(y.data + to * static_cast<int64_t>(size), x.data + from * static_cast<int64_t>(size),
              size);
}

// DCR: y[n, c, h*b + i, w*b + j] = x[n, (i*b + j) * C' + c, h, w];
// CRD: y[n, c, h*b + i, w*b + j] = x[n, c*b*b + i*b + j, h, w]   (C' = C / (b * b))
Status DepthToSpace(const KernelContext& ctx) {
  const ConstTensorView& x = ctx.inputs[0];
  const TensorView& y = ctx.outputs[0];
  const int64_t b = ctx.attrs.GetInt("blocksize", 1);
  const bool crd = ctx.attrs.GetString("mode", "DCR") == "CRD";
  const int64_t batch = y.shape()[0], oc = y.shape()[1], oh = y.shape()[2], ow = y.shape()[3];
  const int64_t ic = x.shape()[1], ih = x.shape()[2], iw = x.shape()[3];
  int64_t to = 0;
  for (int64_t n = 0; n < batch; ++n) {
    for (int64_t c = 0; c < oc; ++c) {
      for (int64_t r = 0; r < oh; ++r) {
        for (int64_t s = 0; s < ow; ++s, ++to) {
          const int64_t h = r / b, i = r % b, w = s / b, j = s % b;
          const int64_t channel = crd ? c * b * b + i * b + j : (i * b + j) * oc + c;
          CopyElement(x, ((n * ic + channel) * ih + h) * iw + w, y, to);
        }
      }
    }
  }
  return Status::Ok();
}

// y[n, (i*b + j) * C + c, h, w] = x[n, c, h*b + i, w*b + j]  (ONNX SpaceToDepth)
Status SpaceToDepth(const KernelContext& ctx) {
  const ConstTensorView& x = ctx.inputs[0];
  const TensorView& y = ctx.outputs[0];
  const int64_t b = ctx.attrs.GetInt("blocksize", 1);
  const int64_t batch = y.shape()[0], oc = y.shape()[1], oh = y.shape()[2], ow = y.shape()[3];
  const int64_t ic = x.shape()[1], ih = x.shape()[2], iw = x.shape()[3];
  int64_t to = 0;
  for (int64_t n = 0; n < batch; ++n) {
    for (int64_t k = 0; k < oc; ++k) {
      const int64_t block = k / ic, c = k % ic, i = block / b, j = block % b;
      for (int64_t h = 0; h < oh; ++h) {
        for (int64_t w = 0; w < ow; ++w, ++to) {
          CopyElement(x, ((n * ic + c) * ih + h * b + i) * iw + w * b + j, y, to);
        }
      }
    }
  }
  return Status::Ok();
}

}  // namespace

void AddMovementRefKernels(KernelTable& table) {
  table.Add("reshape", Reshape);
  table.Add("bitcast", Bitcast);
  table.Add("transpose", Transpose);
  table.Add("expand", Expand);
  table.Add("concat", Concat);
  table.Add("split", Split);
  table.Add("slice", Slice);
  table.Add("pad", Pad);
  table.Add("tile", Tile);
  table.Add("range", Range);
  table.Add("trilu", Trilu);
  table.Add("depth_to_space", DepthToSpace);
  table.Add("space_to_depth", SpaceToDepth);
}

}  // namespace sy::cpu
