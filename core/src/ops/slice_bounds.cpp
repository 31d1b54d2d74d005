#include "switchyard/slice_bounds.h"

#include <algorithm>

namespace sy {

SliceAxis ResolveSliceAxis(int64_t dim, int64_t start, int64_t end, int64_t step) {
  if (start < 0) start += dim;
  if (end < 0) end += dim;
  if (step > 0) {
    start = std::clamp<int64_t>(start, 0, dim);
    end = std::clamp<int64_t>(end, 0, dim);
  } else {
    // Upper bound last, so that an empty dim gives start = end = -1 (length 0).
    start = std::min<int64_t>(std::max<int64_t>(start, 0), dim - 1);
    end = std::min<int64_t>(std::max<int64_t>(end, -1), dim - 1);
  }
  const int64_t diff = end - start;
  if (diff == 0 || (diff > 0) != (step > 0)) return {0, 0, 0};
  // Same signs: truncation is floor, so this is ceil(diff / step).
  SliceAxis axis;
  axis.count = diff / step + (diff % step != 0 ? 1 : 0);
  axis.start = start;
  // The end just past the last element read: start + count * step, which stays in
  // [start, dim] for positive steps (clamped to dim, where ONNX reads the same), and for
  // negative steps is -dim - 1 when it passes index 0 (ONNX adds dim, giving -1).
  const int64_t past = start + axis.count * step;
  axis.end = step > 0 ? std::min(past, dim) : (past < 0 ? -dim - 1 : past);
  return axis;
}

}  // namespace sy
