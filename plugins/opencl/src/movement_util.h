// Shape arithmetic and the raw element type shared by the movement and indexing families
// (ops_movement.cpp, ops_indexing.cpp), whose kernels move elements bit for bit.
// Header-only, internal to the OpenCL plugin.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cl_op.h"

namespace sy::opencl {

// "#define RT <unsigned type of the element's size>": the kernels move elements as RT.
inline std::string RawDefine(DType dtype) {
  switch (DTypeSize(dtype)) {
    case 1:
      return "#define RT uchar\n";
    case 2:
      return "#define RT ushort\n";
    case 4:
      return "#define RT uint\n";
    default:
      return "#define RT ulong\n";
  }
}

inline std::vector<int64_t> RowMajorStrides(const Shape& s) {
  std::vector<int64_t> strides(s.size(), 1);
  for (size_t d = s.size(); d-- > 1;) strides[d - 1] = strides[d] * s[d];
  return strides;
}

// The product of dims [begin, end) of `s`.
inline int64_t Product(const Shape& s, size_t begin, size_t end) {
  int64_t p = 1;
  for (size_t d = begin; d < end; ++d) p *= s[d];
  return p;
}

// Maps axis in [-rank, rank) to [0, rank); shapes were validated, so it is in range.
inline int64_t NormAxis(int64_t axis, size_t rank) {
  return axis < 0 ? axis + static_cast<int64_t>(rank) : axis;
}

}  // namespace sy::opencl
