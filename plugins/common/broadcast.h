// Collapsing NumPy broadcasts into few dims for GPU kernels, shared by the bundled GPU
// plugins (OpenCL, CUDA). Part of sy_plugin_common, which sees only the SDK.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "switchyard/shape.h"

namespace sy::plugin {

// NumPy broadcasting of several inputs to `out`: the output dims and each input's element
// strides (0 along broadcast dims), with dims of size 1 dropped and adjacent dims merged
// where every input allows. Returns rank r >= 1 and fills meta = dims[r], then each
// input's strides[r].
int CollapseBroadcast(std::span<const int64_t> out, std::span<const Shape> inputs,
                      std::vector<int64_t>& meta);

}  // namespace sy::plugin
