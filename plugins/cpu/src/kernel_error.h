// How a kernel's Status reaches the host: the ABI error code for each StatusCode.
// Shared by the CPU executable and the test plugins built on its kernels.
#pragma once

#include "switchyard/plugin.h"
#include "switchyard/status.h"

namespace sy::cpu {

// kInvalidArgument from a kernel is a data error (an index out of range, an integer
// division by zero), not a malformed call: SY_ERROR_DATA.
inline sy_error_code KernelErrorCode(StatusCode code) {
  switch (code) {
    case StatusCode::kInvalidArgument:
      return SY_ERROR_DATA;
    case StatusCode::kUnsupported:
      return SY_ERROR_UNSUPPORTED;
    case StatusCode::kResourceExhausted:
      return SY_ERROR_RESOURCE_EXHAUSTED;
    default:
      return SY_ERROR_INTERNAL;
  }
}

}  // namespace sy::cpu
