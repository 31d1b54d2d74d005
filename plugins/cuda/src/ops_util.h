// Small host-side helpers shared by the op families' ops_*.cpp files (shape arithmetic,
// attribute defaults, launch checks). Header-only.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "cu_op.h"

namespace sy::cuda {

inline int64_t Product(const Shape& s, size_t begin, size_t end) {
  int64_t p = 1;
  for (size_t i = begin; i < end && i < s.size(); ++i) p *= s[i];
  return p;
}

inline int64_t NormAxis(int64_t axis, size_t rank) {
  return axis < 0 ? axis + static_cast<int64_t>(rank) : axis;
}

inline std::vector<int64_t> RowMajorStrides(const Shape& s) {
  std::vector<int64_t> strides(s.size(), 1);
  for (size_t d = s.size(); d-- > 1;) strides[d - 1] = strides[d] * s[d];
  return strides;
}

inline uint64_t Bytes(const TensorType& t) {
  return static_cast<uint64_t>(ElementCount(t.shape)) * DTypeSize(t.dtype);
}

// An optional ints attribute with `fill` in every entry when absent (strides, pads, ...).
inline std::vector<int64_t> IntsOr(const Attrs& attrs, std::string_view name, size_t size,
                                   int64_t fill) {
  if (!attrs.Has(name)) return std::vector<int64_t>(size, fill);
  std::vector<int64_t> values = attrs.GetInts(name);
  values.resize(size, fill);
  return values;
}

// x seen as [outer, n, inner] around `axis` (negative counts from the end).
struct AxisSplit {
  int64_t outer = 1, n = 1, inner = 1;
};
inline AxisSplit SplitAxis(const Shape& s, int64_t axis) {
  axis = NormAxis(axis, s.size());
  AxisSplit v;
  for (int64_t d = 0; d < static_cast<int64_t>(s.size()); ++d) {
    const int64_t dim = s[static_cast<size_t>(d)];
    if (d < axis) {
      v.outer *= dim;
    } else if (d == axis) {
      v.n = dim;
    } else {
      v.inner *= dim;
    }
  }
  return v;
}

// Bit patterns of doubles for PrepareContext::Upload (which takes int64 values).
inline int64_t DoubleBits(double v) {
  int64_t bits;
  static_assert(sizeof bits == sizeof v);
  __builtin_memcpy(&bits, &v, sizeof bits);
  return bits;
}

// The reason for a dtype an op's family does not implement.
inline bool DeclineDType(const NodeInfo& node, DType dtype, std::string& reason,
                         std::string_view what) {
  reason = node.op + " on " + std::string(DTypeName(dtype)) + " is not implemented by the CUDA " +
           "plugin (" + std::string(what) + ")";
  return false;
}

// f16/bf16 need nothing special; bf16 arithmetic is emulated in f32 on every device, so
// no op of these families needs DeviceCaps::bf16. Kept for symmetry with other families.
inline bool AllFloat(const std::vector<TensorType>& types) {
  for (const TensorType& t : types) {
    if (!IsFloat(t.dtype)) return false;
  }
  return true;
}

// Every input and output of the node of one float dtype (the schemas' rule for these ops;
// checked again so that a kernel never reads a tensor as the wrong type).
inline bool SameFloat(const NodeInfo& node, std::string& reason, size_t inputs_checked = SIZE_MAX) {
  if (node.inputs.empty() || node.outputs.empty()) {
    reason = node.op + ": missing inputs or outputs";
    return false;
  }
  const DType dt = node.inputs[0].dtype;
  if (!IsFloat(dt)) return DeclineDType(node, dt, reason, "float dtypes only");
  for (size_t i = 0; i < node.inputs.size() && i < inputs_checked; ++i) {
    if (node.inputs[i].dtype != dt) {
      reason = node.op + " needs its inputs in one dtype";
      return false;
    }
  }
  for (const TensorType& t : node.outputs) {
    if (t.dtype != dt) {
      reason = node.op + " needs its output in the input's dtype";
      return false;
    }
  }
  return true;
}

// Throws on a failed kernel launch (a launch function's result).
inline void CheckLaunch(cudaError_t err, std::string_view kernel) {
  CheckCuda(err, std::string("launch of ") + std::string(kernel));
}

}  // namespace sy::cuda
