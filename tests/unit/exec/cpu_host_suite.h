// A test suite whose tests share one PluginHost holding the CPU plugin alone (loaded by
// path), made before the suite's first test and destroyed after its last: derive the suite's
// fixture from CpuHostSuite<> (or CpuHostSuite<testing::TestWithParam<P>>) and use host_.
#pragma once

#include <gtest/gtest.h>

#include <memory>

#include "switchyard/plugin_host.h"

namespace sy::test {

template <typename Base = testing::Test>
class CpuHostSuite : public Base {
 protected:
  static void SetUpTestSuite() {
    DiscoveryOptions options;
    options.scan_default_paths = false;
    options.explicit_plugins = {SY_CPU_PLUGIN_PATH};
    Expected<std::unique_ptr<PluginHost>> host = PluginHost::Create(options);
    ASSERT_TRUE(host.ok()) << host.status().ToString();
    host_ = std::move(*host).release();
  }
  static void TearDownTestSuite() {
    delete host_;
    host_ = nullptr;
  }
  // Suites run one after another, so those of one Base may share the pointer.
  static inline PluginHost* host_ = nullptr;
};

}  // namespace sy::test
