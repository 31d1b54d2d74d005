#include "switchyard/shape.h"

#include <algorithm>

namespace sy {

Expected<int64_t> CheckedElementCount(std::span<const int64_t> dims) {
  int64_t count = 1;
  bool has_zero = false;
  for (int64_t d : dims) {
    if (d < 0) return InvalidModel("negative dimension " + std::to_string(d));
    if (d == 0) has_zero = true;
  }
  if (has_zero) return int64_t{0};
  for (int64_t d : dims) {
    if (count > kMaxElementCount / d) {
      return ResourceExhausted("element count of shape " + ShapeToString(dims) +
                               " overflows the limit of 2^60 elements");
    }
    count *= d;
  }
  return count;
}

int64_t ElementCount(std::span<const int64_t> dims) {
  // A zero dim makes the count 0 whatever the others are (they may be huge: a parsed shape
  // with a 0 passes CheckedElementCount), so the product is not formed at all; otherwise
  // it is formed unsigned, where an unchecked shape that overflows wraps instead of being
  // undefined.
  for (int64_t d : dims) {
    if (d == 0) return 0;
  }
  uint64_t count = 1;
  for (int64_t d : dims) count *= static_cast<uint64_t>(d);
  return static_cast<int64_t>(count);
}

std::string ShapeToString(std::span<const int64_t> dims) {
  std::string text = "[";
  for (size_t i = 0; i < dims.size(); ++i) {
    if (i) text += ", ";
    text += std::to_string(dims[i]);
  }
  return text + "]";
}

std::string TensorType::ToString() const {
  return std::string(DTypeName(dtype)) + " " + ShapeToString(shape);
}

Expected<int64_t> NormalizeAxis(int64_t axis, int64_t rank, std::string_view what) {
  if (axis < -rank || axis >= rank) {
    return InvalidModel(std::string(what) + " " + std::to_string(axis) +
                        " is out of range for rank " + std::to_string(rank) + " (expected " +
                        std::to_string(-rank) + " to " + std::to_string(rank - 1) + ")");
  }
  return axis < 0 ? axis + rank : axis;
}

Expected<Shape> BroadcastShapes(std::span<const int64_t> a, std::span<const int64_t> b) {
  const size_t rank = std::max(a.size(), b.size());
  Shape out(rank);
  for (size_t i = 0; i < rank; ++i) {
    const int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    const int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (da == db || db == 1) {
      out[i] = da;
    } else if (da == 1) {
      out[i] = db;
    } else {
      return InvalidModel("shapes " + ShapeToString(a) + " and " + ShapeToString(b) +
                          " do not broadcast (dimension " + std::to_string(i) + ": " +
                          std::to_string(da) + " vs " + std::to_string(db) + ")");
    }
  }
  return out;
}

bool BroadcastsTo(std::span<const int64_t> from, std::span<const int64_t> to) {
  if (from.size() > to.size()) return false;
  const size_t offset = to.size() - from.size();
  for (size_t i = 0; i < from.size(); ++i) {
    if (from[i] != 1 && from[i] != to[offset + i]) return false;
  }
  return true;
}

}  // namespace sy
