// A plugin whose initialize fails with a message (as one whose runtime is broken would).
#include "test_plugin.h"

namespace {

constexpr sy_plugin_info kInfo = {sizeof(sy_plugin_info), SY_PLUGIN_ABI_VERSION,
                                  "init_fails",           "0.0.1",
                                  "Switchyard tests",     "initialize always fails"};

std::unique_ptr<sy_context> Create(const sy_init_options&) {
  throw sy_sdk::Error(SY_ERROR_INTERNAL, "the accelerator runtime refused to start (code 42)");
}

}  // namespace

SY_SDK_DEFINE_PLUGIN(kInfo, Create)
