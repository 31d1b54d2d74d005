// Device-resident inputs and outputs on the CUDA plugin: the check every GPU plugin runs
// (tests/unit/plugins/device_io_binding_check.h) on cuda:0, where the plugin's CUDA graph
// must follow bound tensors that change between runs. Skipped without a GPU
// (tools/cuda_gpu_check.sh runs it on one).
#include <gtest/gtest.h>

#include <string>

#include "plugins/device_io_binding_check.h"

namespace sy {
namespace {

TEST(CudaIoBindingTest, DeviceTensorsStayOnTheDevice) {
  DiscoveryOptions options;
  options.scan_default_paths = false;
  options.explicit_plugins = {SY_CUDA_PLUGIN_PATH, SY_CPU_PLUGIN_PATH};
  Expected<std::unique_ptr<PluginHost>> host = PluginHost::Create(options);
  // An explicit plugin without devices fails the host: no GPU here.
  if (!host.ok() && host.status().message().find("no devices") != std::string::npos) {
    GTEST_SKIP() << host.status().message();
  }
  SY_ASSERT_OK(host);
  Expected<const Device*> gpu = (*host)->FindDevice("cuda:0");
  SY_ASSERT_OK(gpu);
  Expected<const Device*> cpu = (*host)->FindDevice("cpu");
  SY_ASSERT_OK(cpu);
  test::CheckDeviceTensorsStayOnTheDevice(**gpu, **cpu);
}

}  // namespace
}  // namespace sy
