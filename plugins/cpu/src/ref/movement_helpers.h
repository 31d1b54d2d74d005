// Helpers shared by the reference kernels of the movement and indexing families
// (movement_ref.cpp, indexing_ref.cpp): element copies, axes, row-major iteration and
// index reading. Internal to the cpu plugin.
#pragma once

#include <cstring>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "kernel.h"

namespace sy::cpu::movement {

inline std::string Str(int64_t v) { return std::to_string(v); }

inline int64_t Product(std::span<const int64_t> dims, size_t begin, size_t end) {
  int64_t p = 1;
  for (size_t i = begin; i < end; ++i) p *= dims[i];
  return p;
}

inline size_t ElemSize(DType dtype) { return DTypeSize(dtype); }

// memcpy that tolerates n == 0 with null pointers (empty tensors have no buffer).
inline void CopyBytes(std::byte* dst, const std::byte* src, size_t n) {
  if (n != 0) std::memcpy(dst, src, n);
}

// Maps axis in [-rank, rank) to [0, rank); shapes were validated, so it is in range.
inline int64_t Axis(int64_t axis, int64_t rank) { return axis < 0 ? axis + rank : axis; }

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
inline Status NormalizeIndex(std::string_view op, int64_t index, int64_t axis, int64_t size,
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
inline Status LoadIndices(std::string_view op, const ConstTensorView& indices, int64_t axis,
                          int64_t size, std::vector<int64_t>& out) {
  out.resize(static_cast<size_t>(indices.count()));
  for (int64_t i = 0; i < indices.count(); ++i) {
    SY_RETURN_IF_ERROR(NormalizeIndex(op, LoadInt(indices.dtype(), indices.data, i), axis, size,
                                      out[static_cast<size_t>(i)]));
  }
  return Status::Ok();
}

}  // namespace sy::cpu::movement
