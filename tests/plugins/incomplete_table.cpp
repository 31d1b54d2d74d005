// A plugin whose function table has a null entry (execute).
#include "test_plugin.h"

namespace {

constexpr sy_plugin_info kInfo = {sizeof(sy_plugin_info), SY_PLUGIN_ABI_VERSION,
                                  "incomplete_table",     "0.0.1",
                                  "Switchyard tests",     "leaves execute null"};

std::unique_ptr<sy_context> Create(const sy_init_options&) {
  return std::make_unique<sy_test_plugin::TestContext>(1, "");
}

}  // namespace

extern "C" SY_PLUGIN_EXPORT const sy_plugin_api* sy_plugin_query(uint32_t) {
  static const sy_plugin_api api = [] {
    sy_plugin_api a = *sy_sdk::Trampolines<&kInfo, Create>::Api();
    a.execute = nullptr;
    return a;
  }();
  return &api;
}
