// Static shapes, the (dtype, shape) pair every value carries, and the shape arithmetic
// that op shape rules share: overflow-checked element counts, axis normalisation and
// NumPy broadcasting.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "switchyard/dtype.h"
#include "switchyard/status.h"

namespace sy {

// Dims are non-negative; 0 is legal (an empty tensor); rank 0 is a scalar.
using Shape = std::vector<int64_t>;

// Largest element count any tensor may have: 2^60, so that byte sizes of every dtype
// (at most 8 bytes) still fit in int64_t with room to add offsets.
inline constexpr int64_t kMaxElementCount = int64_t{1} << 60;

// product(dims), or kResourceExhausted when it exceeds kMaxElementCount; kInvalidModel
// when a dim is negative.
Expected<int64_t> CheckedElementCount(std::span<const int64_t> dims);

// product(dims) for a shape already known to be valid (no overflow check).
int64_t ElementCount(std::span<const int64_t> dims);

// "[2, 16]"; "[]" for a scalar.
std::string ShapeToString(std::span<const int64_t> dims);

struct TensorType {
  DType dtype = DType::kF32;
  Shape shape;

  int64_t rank() const { return static_cast<int64_t>(shape.size()); }
  bool operator==(const TensorType&) const = default;
  // "f32 [2, 16]"
  std::string ToString() const;
};

// Maps axis in [-rank, rank) to [0, rank); an error naming the attribute otherwise.
Expected<int64_t> NormalizeAxis(int64_t axis, int64_t rank, std::string_view what = "axis");

// NumPy broadcasting of two shapes: right-aligned, each pair of dims equal or one is 1.
Expected<Shape> BroadcastShapes(std::span<const int64_t> a, std::span<const int64_t> b);

// True when `from` broadcasts to exactly `to` (the unidirectional rule of ONNX Expand's
// inputs, PRelu's slope and Gemm's C).
bool BroadcastsTo(std::span<const int64_t> from, std::span<const int64_t> to);

}  // namespace sy
