// The scheduler's tests load the CPU plugin and the test plugins of tests/plugins
// (partial: an accelerator that runs a subset of ops and dtypes over host memory;
// remote: two GPUs whose memory the host cannot address) as real shared objects. Each
// test sets the plugins' environment knobs first, then loads a fresh host.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "graph_builder.h"
#include "switchyard/plan.h"
#include "switchyard/plugin_host.h"

namespace sy::test {

class SchedulingTest : public testing::Test {
 protected:
  enum Plugins : unsigned { kCpu = 1, kPartial = 2, kRemote = 4, kAll = 7 };

  // Sets the environment variables (restored in TearDown) and loads the plugins.
  PluginHost& Load(unsigned plugins, const std::map<std::string, std::string>& env = {}) {
    for (const auto& [name, value] : env) {
      setenv(name.c_str(), value.c_str(), 1);
      set_.push_back(name);
    }
    DiscoveryOptions options;
    options.scan_default_paths = false;
    const std::filesystem::path dir = SY_TEST_PLUGIN_DIR;
    if (plugins & kCpu) options.explicit_plugins.push_back(SY_CPU_PLUGIN_PATH);
    if (plugins & kPartial) {
      options.explicit_plugins.push_back(dir / "partial" / "libswitchyard_test_partial.so");
    }
    if (plugins & kRemote) {
      options.explicit_plugins.push_back(dir / "remote" / "libswitchyard_test_remote.so");
    }
    Expected<std::unique_ptr<PluginHost>> host = PluginHost::Create(options);
    EXPECT_TRUE(host.ok()) << host.status().ToString();
    host_ = std::move(*host);
    return *host_;
  }
  void TearDown() override {
    host_.reset();
    for (const std::string& name : set_) unsetenv(name.c_str());
  }

  const Device* Find(const std::string& spec) const {
    Expected<const Device*> d = host_->FindDevice(spec);
    EXPECT_TRUE(d.ok()) << d.status().ToString();
    return d.ok() ? *d : nullptr;
  }
  // The Spec() of the device node `n` is placed on.
  static std::string DeviceOf(const Plan& plan, size_t n) {
    return plan.devices[plan.nodes[n].device]->Spec();
  }

  std::unique_ptr<PluginHost> host_;
  std::vector<std::string> set_;
};

}  // namespace sy::test
