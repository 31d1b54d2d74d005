#include "opencl_test_util.h"

#include <cstdlib>
#include <filesystem>
#include <vector>

namespace sy::opencl::test {
namespace {

// PoCL reports no device when its kernel cache (POCL_CACHE_DIR, default under $HOME) is
// not writable; tests run where $HOME may not be. Set before main, so before any
// OpenCL call.
const bool kPoclCacheSet = [] {
  if (std::getenv("POCL_CACHE_DIR") == nullptr) {
    const std::filesystem::path dir =
        std::filesystem::temp_directory_path() / "sy-opencl-tests-pocl";
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    setenv("POCL_CACHE_DIR", dir.c_str(), 0);
  }
  return true;
}();

}  // namespace

std::pair<cl_platform_id, cl_device_id> FirstDevice() {
  (void)kPoclCacheSet;
  cl_uint num_platforms = 0;
  if (clGetPlatformIDs(0, nullptr, &num_platforms) != CL_SUCCESS || num_platforms == 0) {
    return {nullptr, nullptr};
  }
  std::vector<cl_platform_id> platforms(num_platforms);
  clGetPlatformIDs(num_platforms, platforms.data(), nullptr);
  for (cl_platform_id platform : platforms) {
    cl_device_id device = nullptr;
    if (clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &device, nullptr) == CL_SUCCESS &&
        device != nullptr) {
      return {platform, device};
    }
  }
  return {nullptr, nullptr};
}

std::unique_ptr<Device> OpenFirstDevice(const std::string& cache_dir) {
  const auto [platform, device] = FirstDevice();
  if (device == nullptr) return nullptr;
  return OpenDevice(platform, device, cache_dir);
}

}  // namespace sy::opencl::test
