// Shared by the test plugins: a minimal context over host memory whose devices support
// no op, so that a plugin that gets past loading has something to enumerate. Each test
// plugin's .cpp includes this and then breaks one thing about itself.
#pragma once

#include <memory>
#include <string>

#include "switchyard/plugin_cpp.h"

namespace sy_test_plugin {

class TestContext : public sy_context {
 public:
  TestContext(uint32_t devices, std::string status, std::string device_name = "test-device")
      : devices_(devices), status_(std::move(status)), device_name_(std::move(device_name)) {}

  uint32_t device_count() const override { return devices_; }
  void DescribeDevice(uint32_t, sy_device_info& info) const override {
    info.name = device_name_.c_str();
    info.vendor = "Switchyard tests";
    info.kind = SY_DEVICE_ACCELERATOR;
    info.flags = SY_DEVICE_FLAG_HOST_MEMORY;
    info.memory_bytes = 1 << 20;
  }
  bool Supports(uint32_t, const sy_node& node, std::string& reason) const override {
    reason = std::string("test plugin runs no op (asked for ") + node.op + ")";
    return false;
  }
  std::unique_ptr<sy_buffer> Allocate(uint32_t, uint64_t bytes) override {
    return std::make_unique<sy_sdk::HostBuffer>(bytes);
  }
  std::unique_ptr<sy_executable> Prepare(uint32_t, const sy_partition&) override {
    throw sy_sdk::Error(SY_ERROR_UNSUPPORTED, "test plugin prepares nothing");
  }
  const char* status() const override { return status_.c_str(); }

 private:
  uint32_t devices_;
  std::string status_;
  std::string device_name_;
};

}  // namespace sy_test_plugin
