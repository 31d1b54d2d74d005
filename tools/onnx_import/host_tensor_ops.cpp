#include "host_tensor_ops.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <limits>

#include "switchyard/half.h"
#include "switchyard/shape.h"
#include "switchyard/slice_bounds.h"

namespace sy::onnx_import {
namespace {

double GetDouble(const Tensor& t, int64_t i) { return ElementAsDouble(t, i); }

int64_t SaturateToInt64(double v) {
  if (std::isnan(v)) return 0;
  if (v >= 9.2233720368547758e18) return std::numeric_limits<int64_t>::max();
  if (v <= -9.2233720368547758e18) return std::numeric_limits<int64_t>::min();
  return static_cast<int64_t>(v);
}

int64_t GetInt64(const Tensor& t, int64_t i) {
  const std::byte* p = t.data();
  switch (t.dtype()) {
    case DType::kI8:
      return reinterpret_cast<const int8_t*>(p)[i];
    case DType::kU8:
      return reinterpret_cast<const uint8_t*>(p)[i];
    case DType::kI32:
      return reinterpret_cast<const int32_t*>(p)[i];
    case DType::kI64:
      return reinterpret_cast<const int64_t*>(p)[i];
    case DType::kBool:
      return reinterpret_cast<const uint8_t*>(p)[i] != 0 ? 1 : 0;
    case DType::kI16:
      return reinterpret_cast<const int16_t*>(p)[i];
    case DType::kU16:
      return reinterpret_cast<const uint16_t*>(p)[i];
    case DType::kU32:
      return reinterpret_cast<const uint32_t*>(p)[i];
    default:
      return SaturateToInt64(GetDouble(t, i));
  }
}

template <typename T>
T SaturateInt(int64_t v) {
  return static_cast<T>(
      std::clamp<int64_t>(v, std::numeric_limits<T>::min(), std::numeric_limits<T>::max()));
}

// Stores an integer; narrowing wraps like a C cast would not, so saturate instead (these
// are shapes and indices: saturation only ever shows on values that are already wrong).
void SetInt64(Tensor& t, int64_t i, int64_t v) {
  std::byte* p = t.mutable_data();
  switch (t.dtype()) {
    case DType::kI8:
      reinterpret_cast<int8_t*>(p)[i] = SaturateInt<int8_t>(v);
      break;
    case DType::kU8:
      reinterpret_cast<uint8_t*>(p)[i] = SaturateInt<uint8_t>(v);
      break;
    case DType::kI32:
      reinterpret_cast<int32_t*>(p)[i] = SaturateInt<int32_t>(v);
      break;
    case DType::kI64:
      reinterpret_cast<int64_t*>(p)[i] = v;
      break;
    case DType::kBool:
      reinterpret_cast<uint8_t*>(p)[i] = v != 0 ? 1 : 0;
      break;
    case DType::kI16:
      reinterpret_cast<int16_t*>(p)[i] = SaturateInt<int16_t>(v);
      break;
    case DType::kU16:
      reinterpret_cast<uint16_t*>(p)[i] = SaturateInt<uint16_t>(v);
      break;
    case DType::kU32:
      reinterpret_cast<uint32_t*>(p)[i] = SaturateInt<uint32_t>(v);
      break;
    case DType::kF32:
      reinterpret_cast<float*>(p)[i] = static_cast<float>(v);
      break;
    case DType::kF64:
      reinterpret_cast<double*>(p)[i] = static_cast<double>(v);
      break;
    case DType::kF16:
      reinterpret_cast<uint16_t*>(p)[i] = FloatToHalf(static_cast<float>(v));
      break;
    case DType::kBF16:
      reinterpret_cast<uint16_t*>(p)[i] = FloatToBFloat16(static_cast<float>(v));
      break;
  }
}

void SetDouble(Tensor& t, int64_t i, double v) {
  std::byte* p = t.mutable_data();
  switch (t.dtype()) {
    case DType::kF32:
      reinterpret_cast<float*>(p)[i] = static_cast<float>(v);
      break;
    case DType::kF64:
      reinterpret_cast<double*>(p)[i] = v;
      break;
    case DType::kF16:
      reinterpret_cast<uint16_t*>(p)[i] = FloatToHalf(static_cast<float>(v));
      break;
    case DType::kBF16:
      reinterpret_cast<uint16_t*>(p)[i] = FloatToBFloat16(static_cast<float>(v));
      break;
    case DType::kBool:
      reinterpret_cast<uint8_t*>(p)[i] = v != 0.0 ? 1 : 0;
      break;
    default:
      SetInt64(t, i, SaturateToInt64(v));
      break;
  }
}

Shape StridesOf(const Shape& shape) {
  Shape strides(shape.size(), 1);
  for (size_t i = shape.size(); i-- > 1;) strides[i - 1] = strides[i] * shape[i];
  return strides;
}

// Strides of `in` broadcast to `out_rank` dims of `out` (0 where the dim is broadcast).
Shape BroadcastStrides(const Shape& in, const Shape& out) {
  Shape strides(out.size(), 0);
  const Shape own = StridesOf(in);
  const size_t offset = out.size() - in.size();
  for (size_t i = 0; i < in.size(); ++i) {
    strides[offset + i] = in[i] == 1 && out[offset + i] != 1 ? 0 : own[i];
  }
  return strides;
}

// Calls fn(out_index, in_offsets...) over every element of `out_shape`.
template <size_t N, typename Fn>
void ForEachBroadcast(const Shape& out_shape, const std::array<Shape, N>& strides, Fn fn) {
  const int64_t count = ElementCount(out_shape);
  if (count == 0) return;
  const size_t rank = out_shape.size();
  Shape index(rank, 0);
  std::array<int64_t, N> offsets{};
  for (int64_t o = 0; o < count; ++o) {
    fn(o, offsets);
    for (size_t d = rank; d-- > 0;) {
      ++index[d];
      for (size_t k = 0; k < N; ++k) offsets[k] += strides[k][d];
      if (index[d] < out_shape[d]) break;
      for (size_t k = 0; k < N; ++k) offsets[k] -= strides[k][d] * index[d];
      index[d] = 0;
    }
  }
}

void CopyElement(const Tensor& from, int64_t from_index, Tensor& to, int64_t to_index) {
  const size_t size = DTypeSize(from.dtype());
  std::memcpy(to.mutable_data() + to_index * size, from.data() + from_index * size, size);
}

bool IsIntegral(DType d) { return IsInteger(d) || d == DType::kBool; }

}  // namespace

std::vector<int64_t> ToInt64s(const Tensor& tensor) {
  std::vector<int64_t> out(static_cast<size_t>(tensor.element_count()));
  for (int64_t i = 0; i < tensor.element_count(); ++i) out[i] = GetInt64(tensor, i);
  return out;
}

std::vector<double> ToDoubles(const Tensor& tensor) {
  std::vector<double> out(static_cast<size_t>(tensor.element_count()));
  for (int64_t i = 0; i < tensor.element_count(); ++i) out[i] = GetDouble(tensor, i);
  return out;
}

Expected<Tensor> FromInt64s(DType dtype, const Shape& shape, std::span<const int64_t> values) {
  SY_ASSIGN_OR_RETURN(Tensor t, Tensor::Allocate(dtype, shape));
  if (static_cast<int64_t>(values.size()) != t.element_count()) {
    return Internal("FromInt64s: value count does not match the shape");
  }
  for (size_t i = 0; i < values.size(); ++i) SetInt64(t, static_cast<int64_t>(i), values[i]);
  return t;
}

Expected<Tensor> FromDoubles(DType dtype, const Shape& shape, std::span<const double> values) {
  SY_ASSIGN_OR_RETURN(Tensor t, Tensor::Allocate(dtype, shape));
  if (static_cast<int64_t>(values.size()) != t.element_count()) {
    return Internal("FromDoubles: value count does not match the shape");
  }
  for (size_t i = 0; i < values.size(); ++i) SetDouble(t, static_cast<int64_t>(i), values[i]);
  return t;
}

Tensor Int64Vector(std::span<const int64_t> values) {
  Expected<Tensor> t = FromInt64s(DType::kI64, Shape{static_cast<int64_t>(values.size())}, values);
  return t.ok() ? std::move(t).value() : Tensor();
}

Expected<Tensor> CastHost(const Tensor& x, DType to) {
  SY_ASSIGN_OR_RETURN(Tensor out, Tensor::Allocate(to, x.shape()));
  const bool exact_ints = IsIntegral(x.dtype());
  for (int64_t i = 0; i < x.element_count(); ++i) {
    if (exact_ints) {
      SetInt64(out, i, GetInt64(x, i));
    } else if (to == DType::kBool) {
      const double v = GetDouble(x, i);
      SetInt64(out, i, v != 0.0 || std::isnan(v) ? 1 : 0);
    } else {
      SetDouble(out, i, GetDouble(x, i));
    }
  }
  return out;
}

Expected<Tensor> ReshapeHost(const Tensor& x, const Shape& shape) {
  SY_ASSIGN_OR_RETURN(const int64_t count, CheckedElementCount(shape));
  if (count != x.element_count()) {
    return InvalidModel("cannot reshape " + ShapeToString(x.shape()) + " to " +
                        ShapeToString(shape));
  }
  SY_ASSIGN_OR_RETURN(Tensor out, Tensor::Allocate(x.dtype(), shape));
  if (x.byte_size() > 0) std::memcpy(out.mutable_data(), x.data(), x.byte_size());
  return out;
}

Expected<Tensor> TransposeHost(const Tensor& x, std::span<const int64_t> perm) {
  const Shape& in = x.shape();
  if (perm.size() != in.size()) return InvalidModel("perm has the wrong length");
  Shape out_shape(in.size());
  Shape in_strides = StridesOf(in);
  Shape strides(in.size());
  for (size_t i = 0; i < perm.size(); ++i) {
    if (perm[i] < 0 || perm[i] >= static_cast<int64_t>(in.size())) {
      return InvalidModel("perm entry out of range");
    }
    out_shape[i] = in[perm[i]];
    strides[i] = in_strides[perm[i]];
  }
  SY_ASSIGN_OR_RETURN(Tensor out, Tensor::Allocate(x.dtype(), out_shape));
  ForEachBroadcast<1>(out_shape, {strides}, [&](int64_t o, const std::array<int64_t, 1>& off) {
    CopyElement(x, off[0], out, o);
  });
  return out;
}

Expected<Tensor> GatherHost(const Tensor& data, const Tensor& indices, int64_t axis) {
  const int64_t rank = static_cast<int64_t>(data.shape().size());
  SY_ASSIGN_OR_RETURN(axis, NormalizeAxis(axis, rank));
  const Shape& ds = data.shape();
  Shape out_shape(ds.begin(), ds.begin() + axis);
  out_shape.insert(out_shape.end(), indices.shape().begin(), indices.shape().end());
  out_shape.insert(out_shape.end(), ds.begin() + axis + 1, ds.end());
  SY_ASSIGN_OR_RETURN(Tensor out, Tensor::Allocate(data.dtype(), out_shape));
  const int64_t outer = ElementCount(std::span(ds).subspan(0, axis));
  const int64_t inner = ElementCount(std::span(ds).subspan(axis + 1));
  const int64_t dim = ds[axis];
  const std::vector<int64_t> idx = ToInt64s(indices);
  int64_t o = 0;
  for (int64_t a = 0; a < outer; ++a) {
    for (int64_t j : idx) {
      if (j < -dim || j >= dim) {
        return InvalidModel("Gather index " + std::to_string(j) + " is out of range for a dim of " +
                            std::to_string(dim));
      }
      if (j < 0) j += dim;
      for (int64_t b = 0; b < inner; ++b) CopyElement(data, (a * dim + j) * inner + b, out, o++);
    }
  }
  return out;
}

Expected<Tensor> SliceHost(const Tensor& x, std::span<const int64_t> starts,
                           std::span<const int64_t> ends, std::span<const int64_t> axes_in,
                           std::span<const int64_t> steps_in) {
  const Shape& in = x.shape();
  const int64_t rank = static_cast<int64_t>(in.size());
  if (starts.size() != ends.size() || (!axes_in.empty() && axes_in.size() != starts.size()) ||
      (!steps_in.empty() && steps_in.size() != starts.size())) {
    return InvalidModel("Slice starts, ends, axes and steps differ in length");
  }
  Shape begin(rank, 0), step(rank, 1), out_shape = in;
  for (size_t i = 0; i < starts.size(); ++i) {
    int64_t axis = axes_in.empty() ? static_cast<int64_t>(i) : axes_in[i];
    SY_ASSIGN_OR_RETURN(axis, NormalizeAxis(axis, rank));
    const int64_t s = steps_in.empty() ? 1 : steps_in[i];
    if (s == 0) return InvalidModel("Slice step 0");
    // The catalogue's resolution (switchyard/slice_bounds.h), as the graph's slice gets.
    const SliceAxis resolved = ResolveSliceAxis(in[axis], starts[i], ends[i], s);
    out_shape[axis] = resolved.count;
    begin[axis] = resolved.start;
    step[axis] = s;
  }
  SY_ASSIGN_OR_RETURN(Tensor out, Tensor::Allocate(x.dtype(), out_shape));
  const Shape in_strides = StridesOf(in);
  Shape strides(rank);
  int64_t base = 0;
  for (int64_t d = 0; d < rank; ++d) {
    strides[d] = in_strides[d] * step[d];
    base += begin[d] * in_strides[d];
  }
  ForEachBroadcast<1>(out_shape, {strides}, [&](int64_t o, const std::array<int64_t, 1>& off) {
    CopyElement(x, base + off[0], out, o);
  });
  return out;
}

Expected<Tensor> ConcatHost(std::span<const Tensor> inputs, int64_t axis) {
  if (inputs.empty()) return InvalidModel("Concat of no inputs");
  const int64_t rank = static_cast<int64_t>(inputs[0].shape().size());
  SY_ASSIGN_OR_RETURN(axis, NormalizeAxis(axis, rank));
  Shape out_shape = inputs[0].shape();
  out_shape[axis] = 0;
  for (const Tensor& t : inputs) {
    if (t.dtype() != inputs[0].dtype() || static_cast<int64_t>(t.shape().size()) != rank) {
      return InvalidModel("Concat inputs differ in dtype or rank");
    }
    for (int64_t d = 0; d < rank; ++d) {
      if (d != axis && t.shape()[d] != inputs[0].shape()[d]) {
        return InvalidModel("Concat inputs differ off the axis");
      }
    }
    out_shape[axis] += t.shape()[axis];
  }
  SY_ASSIGN_OR_RETURN(Tensor out, Tensor::Allocate(inputs[0].dtype(), out_shape));
  const int64_t outer = ElementCount(std::span(out_shape).subspan(0, axis));
  const size_t esize = DTypeSize(out.dtype());
  std::byte* dst = out.mutable_data();
  for (int64_t a = 0; a < outer; ++a) {
    for (const Tensor& t : inputs) {
      const int64_t chunk = ElementCount(std::span(t.shape()).subspan(axis));
      const size_t bytes = static_cast<size_t>(chunk) * esize;
      if (bytes > 0) std::memcpy(dst, t.data() + a * bytes, bytes);
      dst += bytes;
    }
  }
  return out;
}

Expected<Tensor> ExpandHost(const Tensor& x, const Shape& shape) {
  SY_ASSIGN_OR_RETURN(Shape out_shape, BroadcastShapes(x.shape(), shape));
  SY_ASSIGN_OR_RETURN(Tensor out, Tensor::Allocate(x.dtype(), out_shape));
  ForEachBroadcast<1>(
      out_shape, {BroadcastStrides(x.shape(), out_shape)},
      [&](int64_t o, const std::array<int64_t, 1>& off) { CopyElement(x, off[0], out, o); });
  return out;
}

Expected<Tensor> BinaryHost(std::string_view op, const Tensor& a, const Tensor& b) {
  if (a.dtype() != b.dtype()) {
    return InvalidModel(std::string(op) + " inputs have different dtypes");
  }
  SY_ASSIGN_OR_RETURN(Shape out_shape, BroadcastShapes(a.shape(), b.shape()));
  const bool compare = op == "Equal" || op == "Less" || op == "Greater" || op == "LessOrEqual" ||
                       op == "GreaterOrEqual";
  const bool logic = op == "And" || op == "Or" || op == "Xor";
  const DType out_dtype = compare || logic ? DType::kBool : a.dtype();
  SY_ASSIGN_OR_RETURN(Tensor out, Tensor::Allocate(out_dtype, out_shape));
  const bool ints = IsIntegral(a.dtype());
  Status status;
  const std::array<Shape, 2> strides{BroadcastStrides(a.shape(), out_shape),
                                     BroadcastStrides(b.shape(), out_shape)};
  ForEachBroadcast<2>(out_shape, strides, [&](int64_t o, const std::array<int64_t, 2>& off) {
    if (ints) {
      const int64_t x = GetInt64(a, off[0]), y = GetInt64(b, off[1]);
      int64_t r = 0;
      if (op == "Add")
        r = static_cast<int64_t>(static_cast<uint64_t>(x) + static_cast<uint64_t>(y));
      else if (op == "Sub")
        r = static_cast<int64_t>(static_cast<uint64_t>(x) - static_cast<uint64_t>(y));
      else if (op == "Mul")
        r = static_cast<int64_t>(static_cast<uint64_t>(x) * static_cast<uint64_t>(y));
      else if (op == "Div" || op == "Mod") {
        if (y == 0) {
          status = InvalidModel(std::string(op) + " by zero in a shape computation");
          return;
        }
        if (op == "Div")
          r = (x == std::numeric_limits<int64_t>::min() && y == -1) ? x : x / y;
        else {
          r = (y == -1) ? 0 : x % y;
          if (r != 0 && ((r < 0) != (y < 0))) r += y;  // sign of the divisor
        }
      } else if (op == "Max")
        r = std::max(x, y);
      else if (op == "Min")
        r = std::min(x, y);
      else if (op == "Pow")
        r = static_cast<int64_t>(std::pow(static_cast<double>(x), static_cast<double>(y)));
      else if (op == "Equal")
        r = x == y;
      else if (op == "Less")
        r = x < y;
      else if (op == "Greater")
        r = x > y;
      else if (op == "LessOrEqual")
        r = x <= y;
      else if (op == "GreaterOrEqual")
        r = x >= y;
      else if (op == "And")
        r = (x != 0) && (y != 0);
      else if (op == "Or")
        r = (x != 0) || (y != 0);
      else if (op == "Xor")
        r = (x != 0) != (y != 0);
      SetInt64(out, o, r);
    } else {
      const double x = GetDouble(a, off[0]), y = GetDouble(b, off[1]);
      double r = 0;
      if (op == "Add")
        r = x + y;
      else if (op == "Sub")
        r = x - y;
      else if (op == "Mul")
        r = x * y;
      else if (op == "Div")
        r = x / y;
      else if (op == "Mod")
        r = std::fmod(x, y);
      else if (op == "Pow")
        r = std::pow(x, y);
      else if (op == "Max")
        r = std::isnan(x) || std::isnan(y) ? NAN : std::max(x, y);
      else if (op == "Min")
        r = std::isnan(x) || std::isnan(y) ? NAN : std::min(x, y);
      else if (op == "Equal")
        r = x == y;
      else if (op == "Less")
        r = x < y;
      else if (op == "Greater")
        r = x > y;
      else if (op == "LessOrEqual")
        r = x <= y;
      else if (op == "GreaterOrEqual")
        r = x >= y;
      if (compare)
        SetInt64(out, o, r != 0.0 ? 1 : 0);
      else
        SetDouble(out, o, r);
    }
  });
  if (!status.ok()) return status;
  return out;
}

Expected<Tensor> UnaryHost(std::string_view op, const Tensor& x) {
  SY_ASSIGN_OR_RETURN(Tensor out, Tensor::Allocate(x.dtype(), x.shape()));
  const bool ints = IsIntegral(x.dtype());
  for (int64_t i = 0; i < x.element_count(); ++i) {
    if (ints) {
      const int64_t v = GetInt64(x, i);
      int64_t r = v;
      if (op == "Neg")
        r = static_cast<int64_t>(0 - static_cast<uint64_t>(v));
      else if (op == "Abs")
        r = v < 0 ? static_cast<int64_t>(0 - static_cast<uint64_t>(v)) : v;
      else if (op == "Not")
        r = v == 0;
      else if (op == "Sign")
        r = (v > 0) - (v < 0);
      else if (op == "Sqrt")
        r = static_cast<int64_t>(std::sqrt(static_cast<double>(v)));
      else if (op == "Relu")
        r = v < 0 ? 0 : v;
      SetInt64(out, i, r);
    } else {
      const double v = GetDouble(x, i);
      double r = v;
      if (op == "Neg")
        r = -v;
      else if (op == "Abs")
        r = std::fabs(v);
      else if (op == "Floor")
        r = std::floor(v);
      else if (op == "Ceil")
        r = std::ceil(v);
      else if (op == "Sqrt")
        r = std::sqrt(v);
      else if (op == "Relu")
        r = v < 0 ? 0.0 : v;  // NaN stays NaN
      else if (op == "Reciprocal")
        r = 1.0 / v;
      else if (op == "Sign")
        r = std::isnan(v) ? v : (v > 0) - (v < 0);
      SetDouble(out, i, r);
    }
  }
  return out;
}

Expected<Tensor> WhereHost(const Tensor& cond, const Tensor& a, const Tensor& b) {
  if (a.dtype() != b.dtype()) return InvalidModel("Where inputs have different dtypes");
  SY_ASSIGN_OR_RETURN(Shape ab, BroadcastShapes(a.shape(), b.shape()));
  SY_ASSIGN_OR_RETURN(Shape out_shape, BroadcastShapes(cond.shape(), ab));
  SY_ASSIGN_OR_RETURN(Tensor out, Tensor::Allocate(a.dtype(), out_shape));
  const std::array<Shape, 3> strides{BroadcastStrides(cond.shape(), out_shape),
                                     BroadcastStrides(a.shape(), out_shape),
                                     BroadcastStrides(b.shape(), out_shape)};
  ForEachBroadcast<3>(out_shape, strides, [&](int64_t o, const std::array<int64_t, 3>& off) {
    if (GetInt64(cond, off[0]) != 0)
      CopyElement(a, off[1], out, o);
    else
      CopyElement(b, off[2], out, o);
  });
  return out;
}

Expected<Tensor> ReduceHost(std::string_view op, const Tensor& x, std::span<const int64_t> axes_in,
                            bool keepdims) {
  const int64_t rank = static_cast<int64_t>(x.shape().size());
  std::vector<bool> reduced(rank, axes_in.empty());
  for (int64_t a : axes_in) {
    SY_ASSIGN_OR_RETURN(a, NormalizeAxis(a, rank));
    reduced[a] = true;
  }
  Shape kept_shape = x.shape(), out_shape;
  for (int64_t d = 0; d < rank; ++d) {
    if (reduced[d]) kept_shape[d] = 1;
    if (!reduced[d] || keepdims) out_shape.push_back(kept_shape[d]);
  }
  const int64_t out_count = ElementCount(kept_shape);
  const bool ints = IsIntegral(x.dtype());
  const double init = op == "ReduceProd"  ? 1.0
                      : op == "ReduceMax" ? -std::numeric_limits<double>::infinity()
                      : op == "ReduceMin" ? std::numeric_limits<double>::infinity()
                                          : 0.0;
  std::vector<double> acc(static_cast<size_t>(out_count), init);
  std::vector<int64_t> iacc(static_cast<size_t>(out_count),
                            op == "ReduceProd"  ? 1
                            : op == "ReduceMax" ? std::numeric_limits<int64_t>::min()
                            : op == "ReduceMin" ? std::numeric_limits<int64_t>::max()
                                                : 0);
  const Shape out_strides = BroadcastStrides(kept_shape, x.shape());
  ForEachBroadcast<1>(x.shape(), {out_strides}, [&](int64_t i, const std::array<int64_t, 1>& off) {
    if (ints) {
      const int64_t v = GetInt64(x, i);
      int64_t& r = iacc[off[0]];
      if (op == "ReduceProd")
        r *= v;
      else if (op == "ReduceMax")
        r = std::max(r, v);
      else if (op == "ReduceMin")
        r = std::min(r, v);
      else
        r += v;
    } else {
      const double v = GetDouble(x, i);
      double& r = acc[off[0]];
      if (op == "ReduceProd")
        r *= v;
      else if (op == "ReduceMax")
        r = std::max(r, v);
      else if (op == "ReduceMin")
        r = std::min(r, v);
      else
        r += v;
    }
  });
  if (ints) return FromInt64s(x.dtype(), out_shape, iacc);
  return FromDoubles(x.dtype(), out_shape, acc);
}

}  // namespace sy::onnx_import
