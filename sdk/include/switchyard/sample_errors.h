// The data errors of the catalogue's `sample` op, worded as docs/ops.md ("Sampling") gives
// them: every backend that runs the op (the CPU reference and fast kernels, the bundled
// GPU plugins, a vendor's) reports the same text for the same input.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

namespace sy::plugin {

// "sample: row 1 of logits has a NaN at index 3"
inline std::string SampleNanMessage(std::string_view op, int64_t row, int64_t index) {
  return std::string(op) + ": row " + std::to_string(row) + " of logits has a NaN at index " +
         std::to_string(index);
}

// "sample: uniform[2] (row 2) is 1, outside [0, 1)", the number with 17 significant digits.
inline std::string SampleUniformMessage(std::string_view op, int64_t row, double u) {
  char number[32];
  std::snprintf(number, sizeof number, "%.17g", u);
  return std::string(op) + ": uniform[" + std::to_string(row) + "] (row " + std::to_string(row) +
         ") is " + number + ", outside [0, 1)";
}

}  // namespace sy::plugin
