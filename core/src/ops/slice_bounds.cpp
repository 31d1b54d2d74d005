#include "switchyard/slice_bounds.h"

#include <algorithm>

namespace sy {

SliceAxis ResolveSliceAxis(int64_t dim, int64_t start, int64_t end, int64_t step) {
  if (step == 0) return {};  // refused by validation; never divide by it
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
  if (diff == 0 || (diff > 0) != (step > 0)) return {};
  // Same signs: truncation is floor, so this is ceil(diff / step).
  SliceAxis axis;
  axis.count = diff / step + (diff % step != 0 ? 1 : 0);
  axis.start = start;
  // The end just past the last element read. From the last index (in [0, dim), so no
  // product here can overflow, whatever the step): for positive steps last + step, or dim
  // when that lies beyond it (ONNX clamps to dim and reads the same); for negative steps
  // last + step, or -dim - 1 when that passes index 0 (ONNX adds dim, giving -1).
  const int64_t last = start + (axis.count - 1) * step;
  if (step > 0) {
    axis.end = dim - last > step ? last + step : dim;
  } else {
    axis.end = last + step < 0 ? -dim - 1 : last + step;
  }
  return axis;
}

}  // namespace sy
