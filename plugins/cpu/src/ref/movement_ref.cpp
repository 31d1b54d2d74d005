// Reference kernels of "Shape and data movement" (spec/ops.md): reshape transpose expand
// concat split slice gather gather_elements scatter_elements pad tile range trilu, and
// the extensions gather_nd and scatter_nd (docs/ops.md).
//
// They take every dtype. Pure data movement copies whole elements as bytes (exact for
// every dtype, NaN payloads included); only the scatters' reductions, pad's constant
// and range compute values (floats in double, integers in int64_t, bool as 0/1).
//
// Semantics decisions beyond ONNX's text:
// - gather, gather_elements, scatter_elements, gather_nd, scatter_nd: an index outside
//   [-size, size) of the axis it indexes is a run-time error; negative indices count
//   from the end. Every index is checked before anything is written, even when the
//   output is empty.
// - scatter_elements and scatter_nd with reduction "none" and duplicate indices
//   (undefined in ONNX): the last write in row-major order of `indices` wins. Reductions
//   accumulate in double (floats) or int64_t (integers, wrapping) and round once on
//   store; max/min propagate NaN (like np.maximum / np.minimum). On bool, add/max act as
//   "or" and mul/min as "and".
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

#include "ref/ref_kernels.h"
#include "switchyard/plugin_node.h"

namespace sy::cpu {
namespace {

std::string Str(int64_t v) { return std::to_string(v); }

int64_t Product(std::span<const int64_t> dims, size_t begin, size_t end) {
  int64_t p = 1;
  for (size_t i = begin; i < end; ++i) p *= dims[i];
  return p;
}

size_t ElemSize(DType dtype) { return DTypeSize(dtype); }

// memcpy that tolerates n == 0 with null pointers (empty tensors have no buffer).
void CopyBytes(std::byte* dst, const std::byte* src, size_t n) {
  if (n != 0) std::memcpy(dst, src, n);
}

// Maps axis in [-rank, rank) to [0, rank); shapes were validated, so it is in range.
int64_t Axis(int64_t axis, int64_t rank) { return axis < 0 ? axis + rank : axis; }

// Row-major multi-index over a shape.
class Odometer {
 public:
  explicit Odometer(std::span<const int64_t> shape)
      : shape_(shape.begin(), shape.end()), index_(shape.size(), 0) {}
  const std::vector<int64_t>& index() const { return index_; }
  void Next() {
    for (size_t d = shape_.size(); d-- > 0;) {
      if (++index_[d] < shape_[d]) return;
      index_[d] = 0;
    }
  }

 private:
  std::vector<int64_t> shape_, index_;
};

// An index into an axis of `size`: negative counts from the end; out of range is an error
// naming the op, the index and the accepted range.
Status NormalizeIndex(std::string_view op, int64_t index, int64_t axis, int64_t size,
                      int64_t& out) {
  if (index < -size || index >= size) {
    std::string expected = size == 0 ? "the axis is empty, so no index is valid"
                                     : "expected " + Str(-size) + " to " + Str(size - 1);
    return InvalidArgument(std::string(op) + ": index " + Str(index) +
                           " is out of range for axis " + Str(axis) + " of size " + Str(size) +
                           " (" + expected + ")");
  }
  out = index < 0 ? index + size : index;
  return Status::Ok();
}

// Reads every element of an index tensor (i32 / i64) and normalises it for an axis.
Status LoadIndices(std::string_view op, const ConstTensorView& indices, int64_t axis, int64_t size,
                   std::vector<int64_t>& out) {
  out.resize(static_cast<size_t>(indices.count()));
  for (int64_t i = 0; i < indices.count(); ++i) {
    SY_RETURN_IF_ERROR(NormalizeIndex(op, LoadInt(indices.dtype(), indices.data, i), axis, size,
                                      out[static_cast<size_t>(i)]));
  }
  return Status::Ok();
}

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

// ---- reshape, transpose, expand ----

Status Reshape(const KernelContext& ctx) {
  const ConstTensorView& x = ctx.inputs[0];
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

// ---- gather, gather_elements, scatter_elements ----

Status Gather(const KernelContext& ctx) {
  const ConstTensorView& data = ctx.inputs[0];
  const ConstTensorView& indices = ctx.inputs[1];
  const TensorView& y = ctx.outputs[0];
  const int64_t axis = Axis(ctx.attrs.GetInt("axis"), data.rank());
  const size_t a = static_cast<size_t>(axis);
  const int64_t size = data.shape()[a];
  std::vector<int64_t> idx;
  SY_RETURN_IF_ERROR(LoadIndices(ctx.op, indices, axis, size, idx));
  const int64_t outer = Product(data.shape(), 0, a);
  const size_t chunk = static_cast<size_t>(Product(data.shape(), a + 1, data.shape().size())) *
                       ElemSize(data.dtype());
  const size_t m = idx.size();
  for (int64_t o = 0; o < outer; ++o) {
    for (size_t j = 0; j < m; ++j) {
      CopyBytes(y.data + (static_cast<size_t>(o) * m + j) * chunk,
                data.data + static_cast<size_t>(o * size + idx[j]) * chunk, chunk);
    }
  }
  return Status::Ok();
}

// For gather_elements / scatter_elements: the element offset into data of each entry of
// indices (row-major), with the index replacing the coordinate on `axis`.
Status ElementOffsets(const KernelContext& ctx, std::vector<int64_t>& offsets) {
  const ConstTensorView& data = ctx.inputs[0];
  const ConstTensorView& indices = ctx.inputs[1];
  const int64_t axis = Axis(ctx.attrs.GetInt("axis"), data.rank());
  const size_t a = static_cast<size_t>(axis);
  SY_RETURN_IF_ERROR(LoadIndices(ctx.op, indices, axis, data.shape()[a], offsets));
  const std::vector<int64_t> strides = Strides(data.shape());
  Odometer it(indices.shape());
  for (int64_t& offset : offsets) {
    int64_t off = 0;
    for (size_t d = 0; d < strides.size(); ++d) {
      off += (d == a ? offset : it.index()[d]) * strides[d];
    }
    offset = off;
    it.Next();
  }
  return Status::Ok();
}

Status GatherElements(const KernelContext& ctx) {
  const ConstTensorView& data = ctx.inputs[0];
  const TensorView& y = ctx.outputs[0];
  std::vector<int64_t> offsets;
  SY_RETURN_IF_ERROR(ElementOffsets(ctx, offsets));
  const size_t es = ElemSize(data.dtype());
  for (size_t i = 0; i < offsets.size(); ++i) {
    std::memcpy(y.data + i * es, data.data + static_cast<size_t>(offsets[i]) * es, es);
  }
  return Status::Ok();
}

double FloatReduce(const std::string& reduction, double acc, double v) {
  if (reduction == "add") return acc + v;
  if (reduction == "mul") return acc * v;
  if (std::isnan(acc) || std::isnan(v)) return std::nan("");
  return reduction == "max" ? std::max(acc, v) : std::min(acc, v);
}

int64_t IntReduce(const std::string& reduction, int64_t acc, int64_t v) {
  const auto ua = static_cast<uint64_t>(acc);
  const auto uv = static_cast<uint64_t>(v);
  if (reduction == "add") return static_cast<int64_t>(ua + uv);
  if (reduction == "mul") return static_cast<int64_t>(ua * uv);
  return reduction == "max" ? std::max(acc, v) : std::min(acc, v);
}

// y = data, then updates[i] written to (or reduced into) y[offsets[i]] in order of i:
// scatter_elements and scatter_nd once their (checked) offsets are known.
Status ScatterByOffsets(const KernelContext& ctx, const std::vector<int64_t>& offsets) {
  const ConstTensorView& data = ctx.inputs[0];
  const ConstTensorView& updates = ctx.inputs[2];
  const TensorView& y = ctx.outputs[0];
  const DType dt = data.dtype();
  const size_t es = ElemSize(dt);
  CopyBytes(y.data, data.data, static_cast<size_t>(data.count()) * es);
  const std::string reduction = ctx.attrs.GetString("reduction");
  if (reduction == "none") {
    for (size_t i = 0; i < offsets.size(); ++i) {  // later writes win
      std::memcpy(y.data + static_cast<size_t>(offsets[i]) * es, updates.data + i * es, es);
    }
    return Status::Ok();
  }
  // Accumulate each touched element in double / int64_t, then round once on store.
  std::vector<bool> touched(static_cast<size_t>(data.count()), false);
  if (IsFloat(dt)) {
    std::vector<double> acc(touched.size());
    for (size_t i = 0; i < offsets.size(); ++i) {
      const auto o = static_cast<size_t>(offsets[i]);
      const double v = LoadFloat(dt, updates.data, static_cast<int64_t>(i));
      acc[o] =
          FloatReduce(reduction, touched[o] ? acc[o] : LoadFloat(dt, data.data, offsets[i]), v);
      touched[o] = true;
    }
    for (size_t o = 0; o < acc.size(); ++o) {
      if (touched[o]) StoreFloat(dt, y.data, static_cast<int64_t>(o), acc[o]);
    }
  } else {
    std::vector<int64_t> acc(touched.size());
    for (size_t i = 0; i < offsets.size(); ++i) {
      const auto o = static_cast<size_t>(offsets[i]);
      const int64_t v = LoadInt(dt, updates.data, static_cast<int64_t>(i));
      acc[o] = IntReduce(reduction, touched[o] ? acc[o] : LoadInt(dt, data.data, offsets[i]), v);
      touched[o] = true;
    }
    for (size_t o = 0; o < acc.size(); ++o) {
      if (touched[o]) StoreInt(dt, y.data, static_cast<int64_t>(o), acc[o]);
    }
  }
  return Status::Ok();
}

Status ScatterElements(const KernelContext& ctx) {
  std::vector<int64_t> offsets;
  SY_RETURN_IF_ERROR(ElementOffsets(ctx, offsets));  // before any write
  return ScatterByOffsets(ctx, offsets);
}

// ---- gather_nd, scatter_nd ----

// The tuples of the last dim of `indices` (k entries each), naming positions in data's
// dims first .. first + k - 1, as row-major slot numbers over those dims: slots[t] for
// tuple t. Negative entries count from the end; every entry is checked.
Status LoadIndexTuples(std::string_view op, const ConstTensorView& data,
                       const ConstTensorView& indices, size_t first, std::vector<int64_t>& slots) {
  const Shape& ds = data.shape();
  const int64_t k = indices.shape().back();  // >= 1 (the schema)
  slots.assign(static_cast<size_t>(indices.count() / k), 0);
  for (size_t t = 0; t < slots.size(); ++t) {
    int64_t slot = 0;
    for (int64_t c = 0; c < k; ++c) {
      const size_t axis = first + static_cast<size_t>(c);
      int64_t v = 0;
      SY_RETURN_IF_ERROR(NormalizeIndex(
          op, LoadInt(indices.dtype(), indices.data, static_cast<int64_t>(t) * k + c),
          static_cast<int64_t>(axis), ds[axis], v));
      slot = slot * ds[axis] + v;
    }
    slots[t] = slot;
  }
  return Status::Ok();
}

// data [B..., S..., R...] (batch_dims dims B, k dims S named by each tuple, the rest R),
// indices [B..., J..., k]: y[b, j, r] = data[b, slot(indices[b, j]), r].
Status GatherND(const KernelContext& ctx) {
  const ConstTensorView& data = ctx.inputs[0];
  const ConstTensorView& indices = ctx.inputs[1];
  const TensorView& y = ctx.outputs[0];
  const Shape& ds = data.shape();
  const auto b = static_cast<size_t>(ctx.attrs.GetInt("batch_dims"));
  const auto k = static_cast<size_t>(indices.shape().back());
  std::vector<int64_t> slots;
  SY_RETURN_IF_ERROR(LoadIndexTuples(ctx.op, data, indices, b, slots));  // before any write
  if (slots.empty()) return Status::Ok();
  const int64_t batches = Product(ds, 0, b);  // > 0: indices shares these dims
  const auto per_batch = slots.size() / static_cast<size_t>(batches);
  const int64_t slots_per_batch = Product(ds, b, b + k);
  const size_t chunk = static_cast<size_t>(Product(ds, b + k, ds.size())) * ElemSize(data.dtype());
  for (size_t t = 0; t < slots.size(); ++t) {
    const auto batch = static_cast<int64_t>(t / per_batch);
    CopyBytes(y.data + t * chunk,
              data.data + static_cast<size_t>(batch * slots_per_batch + slots[t]) * chunk, chunk);
  }
  return Status::Ok();
}

// data [S..., R...] (k dims S named by each tuple), indices [J..., k], updates [J..., R...]:
// updates[j, r] goes to y[slot(indices[j]), r], in order of j.
Status ScatterND(const KernelContext& ctx) {
  const ConstTensorView& data = ctx.inputs[0];
  const ConstTensorView& indices = ctx.inputs[1];
  std::vector<int64_t> slots;
  SY_RETURN_IF_ERROR(LoadIndexTuples(ctx.op, data, indices, 0, slots));  // before any write
  const Shape& ds = data.shape();
  const auto k = static_cast<size_t>(indices.shape().back());
  const int64_t inner = Product(ds, k, ds.size());
  std::vector<int64_t> offsets(slots.size() * static_cast<size_t>(inner));
  for (size_t t = 0; t < slots.size(); ++t) {
    for (int64_t r = 0; r < inner; ++r) {
      offsets[t * static_cast<size_t>(inner) + static_cast<size_t>(r)] = slots[t] * inner + r;
    }
  }
  return ScatterByOffsets(ctx, offsets);
}

// ---- pad, tile ----

// double -> int64_t like a non-trapping cast: truncate toward zero, saturate, NaN -> 0.
int64_t SaturatingToInt(double v) {
  if (std::isnan(v)) return 0;
  if (v >= 9223372036854775808.0) return INT64_MAX;
  if (v < -9223372036854775808.0) return INT64_MIN;
  return static_cast<int64_t>(v);
}

// One element of `dtype` holding `value` (float attributes stored into any dtype).
std::vector<std::byte> ElementBytes(DType dtype, double value) {
  std::vector<std::byte> bytes(ElemSize(dtype));
  if (IsFloat(dtype)) {
    StoreFloat(dtype, bytes.data(), 0, value);
  } else if (dtype == DType::kBool) {
    StoreInt(dtype, bytes.data(), 0, value != 0.0 ? 1 : 0);
  } else {
    StoreInt(dtype, bytes.data(), 0, SaturatingToInt(value));
  }
  return bytes;
}

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

}  // namespace

void AddMovementRefKernels(KernelTable& table) {
  table.Add("reshape", Reshape);
  table.Add("transpose", Transpose);
  table.Add("expand", Expand);
  table.Add("concat", Concat);
  table.Add("split", Split);
  table.Add("slice", Slice);
  table.Add("gather", Gather);
  table.Add("gather_elements", GatherElements);
  table.Add("scatter_elements", ScatterElements);
  table.Add("gather_nd", GatherND);
  table.Add("scatter_nd", ScatterND);
  table.Add("pad", Pad);
  table.Add("tile", Tile);
  table.Add("range", Range);
  table.Add("trilu", Trilu);
}

}  // namespace sy::cpu
