// ONNX Slice on one axis, resolved in one place: the catalogue's shape rule counts the
// elements with it, the canonical form plugins receive (op_schema.h, CanonicalAttrs) is
// written from it, and the ONNX importer folds constant slices with it. No plugin
// resolves negative or out-of-range bounds itself.
#pragma once

#include <cstdint>

namespace sy {

struct SliceAxis {
  int64_t start = 0;  // the first index read, in [0, dim) when count > 0; 0 when empty
  int64_t end = 0;    // exclusive, canonical: ONNX Slice on (start, end, step) reads the
                      // same elements again (for a negative step that reaches index 0 it
                      // is -dim - 1, ONNX's "before the first element")
  int64_t count = 0;  // elements read: the output's dim
};

// Negative starts and ends count from the end, then both are clamped ([0, dim] for
// positive steps, [0, dim-1] and [-1, dim-1] for negative ones). `step` is not 0.
SliceAxis ResolveSliceAxis(int64_t dim, int64_t start, int64_t end, int64_t step);

}  // namespace sy
