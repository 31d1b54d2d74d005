// Helpers for the OpenCL plugin's tests: the first OpenCL device of the machine (tests
// skip without one), with PoCL's cache redirected to a writable place.
#pragma once

#include <CL/cl.h>

#include <memory>
#include <string>
#include <utility>

#include "cl_runtime.h"

namespace sy::opencl::test {

// The first device of the first platform that has one: (platform, device), or nulls.
std::pair<cl_platform_id, cl_device_id> FirstDevice();

// OpenDevice for FirstDevice() with its program cache in `cache_dir`; nullptr without one.
std::unique_ptr<Device> OpenFirstDevice(const std::string& cache_dir);

}  // namespace sy::opencl::test

// Skips the test on a machine without an OpenCL device.
#define SY_REQUIRE_OPENCL_DEVICE()                                                  \
  do {                                                                              \
    if (::sy::opencl::test::FirstDevice().second == nullptr) {                      \
      GTEST_SKIP() << "no OpenCL device on this machine (install pocl-opencl-icd)"; \
    }                                                                               \
  } while (0)
