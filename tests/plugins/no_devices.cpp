// A plugin whose runtime is absent: initialize succeeds with zero devices and says why.
#include "test_plugin.h"

namespace {

constexpr sy_plugin_info kInfo = {sizeof(sy_plugin_info), SY_PLUGIN_ABI_VERSION,
                                  "no_devices",           "0.0.1",
                                  "Switchyard tests",     "finds no device"};

std::unique_ptr<sy_context> Create(const sy_init_options&) {
  return std::make_unique<sy_test_plugin::TestContext>(0, "no GPU driver found");
}

}  // namespace

SY_SDK_DEFINE_PLUGIN(kInfo, Create)
