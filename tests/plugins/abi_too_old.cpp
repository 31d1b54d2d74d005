// A plugin whose table claims ABI version 0, older than the oldest a host accepts.
#include "test_plugin.h"

namespace {

constexpr sy_plugin_info kInfo = {sizeof(sy_plugin_info), SY_PLUGIN_ABI_VERSION,
                                  "abi_too_old",          "0.0.1",
                                  "Switchyard tests",     "claims ABI version 0"};

std::unique_ptr<sy_context> Create(const sy_init_options&) {
  return std::make_unique<sy_test_plugin::TestContext>(1, "");
}

}  // namespace

extern "C" SY_PLUGIN_EXPORT const sy_plugin_api* sy_plugin_query(uint32_t) {
  static const sy_plugin_api api = [] {
    sy_plugin_api a = *sy_sdk::Trampolines<&kInfo, Create>::Api();
    a.abi_version = 0;
    return a;
  }();
  return &api;
}
