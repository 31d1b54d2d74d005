// Device discovery. A machine without an OpenCL platform is simulated by pointing the
// ICD loader (ocl-icd) at an empty vendor directory, in a child process: the loader
// reads OCL_ICD_VENDORS once per process.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "cl_runtime.h"
#include "opencl_test_util.h"

namespace sy::opencl {
namespace {

TEST(DeviceDiscoveryDeathTest, NoPlatformMeansNoDevicesAndAReason) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");  // a fresh process: a fresh loader
  const std::filesystem::path empty =
      std::filesystem::temp_directory_path() / "sy-opencl-tests-no-icd";
  std::filesystem::create_directories(empty);
  EXPECT_EXIT(
      {
        setenv("OCL_ICD_VENDORS", empty.c_str(), 1);
        const Discovery d = DiscoverDevices();
        std::fprintf(stderr, "devices=%zu status=%s\n", d.devices.size(), d.status.c_str());
        std::exit(
            d.devices.empty() && d.status.find("no OpenCL platform") != std::string::npos ? 0 : 1);
      },
      testing::ExitedWithCode(0), "devices=0 status=no OpenCL platform found");
}

TEST(DeviceDiscovery, DevicesHaveTheirProperties) {
  SY_REQUIRE_OPENCL_DEVICE();
  const Discovery d = DiscoverDevices();
  ASSERT_FALSE(d.devices.empty()) << d.status;
  for (const auto& device : d.devices) {
    EXPECT_FALSE(device->name.empty());
    EXPECT_LE(device->kind, 3u);
    EXPECT_GT(device->memory_bytes, 0u);
    EXPECT_GT(device->max_alloc_bytes, 0u);
    EXPECT_NE(device->context.get(), nullptr);
    EXPECT_NE(device->queue.get(), nullptr);
    EXPECT_NE(device->Identity().find(device->driver_version), std::string::npos);
  }
}

}  // namespace
}  // namespace sy::opencl
