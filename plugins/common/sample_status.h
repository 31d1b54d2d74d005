// The per-row status the bundled GPU plugins' `sample` kernels write (kernels/sampling.cl,
// kernels/sampling.cu): two int64 per row, a code (0 fine, 1 a NaN logit, 2 a uniform
// number outside [0, 1)) and its detail (the NaN's index, or the number's bits). Read on
// the host once the device has finished.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>

#include "switchyard/plugin_cpp.h"
#include "switchyard/sample_errors.h"

namespace sy::plugin {

// Throws SY_ERROR_DATA with the reference's message for the first row at fault, in row
// order (within a row the kernel records a NaN before a bad uniform number).
inline void ThrowSampleStatus(const std::string& op, const int64_t* status, int64_t rows) {
  for (int64_t r = 0; r < rows; ++r) {
    const int64_t code = status[2 * r];
    const int64_t detail = status[2 * r + 1];
    if (code == 1) throw sy_sdk::Error(SY_ERROR_DATA, SampleNanMessage(op, r, detail));
    if (code == 2) {
      double u = 0;
      std::memcpy(&u, &detail, sizeof u);
      throw sy_sdk::Error(SY_ERROR_DATA, SampleUniformMessage(op, r, u));
    }
  }
}

}  // namespace sy::plugin
