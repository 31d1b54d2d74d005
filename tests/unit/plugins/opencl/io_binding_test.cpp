// Device-resident inputs and outputs on the OpenCL plugin: the check every GPU plugin runs
// (tests/unit/plugins/device_io_binding_check.h) on opencl:0. Skipped without an OpenCL
// device.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "opencl_test_util.h"
#include "plugins/device_io_binding_check.h"

namespace sy {
namespace {

TEST(OpenclIoBindingTest, DeviceTensorsStayOnTheDevice) {
  SY_REQUIRE_OPENCL_DEVICE();
  if (std::getenv("POCL_CACHE_DIR") == nullptr) {
    setenv("POCL_CACHE_DIR", (testing::TempDir() + "sy_pocl_cache").c_str(), 0);
  }
  DiscoveryOptions options;
  options.scan_default_paths = false;
  options.explicit_plugins = {SY_OPENCL_PLUGIN_PATH, SY_CPU_PLUGIN_PATH};
  Expected<std::unique_ptr<PluginHost>> host = PluginHost::Create(options);
  SY_ASSERT_OK(host);
  Expected<const Device*> gpu = (*host)->FindDevice("opencl:0");
  SY_ASSERT_OK(gpu);
  Expected<const Device*> cpu = (*host)->FindDevice("cpu");
  SY_ASSERT_OK(cpu);
  test::CheckDeviceTensorsStayOnTheDevice(**gpu, **cpu);
}

}  // namespace
}  // namespace sy
