// A valid plugin that is also named "cpu": whichever of the two is found first is loaded,
// and the other is kept as a rejected candidate naming the first.
#include "test_plugin.h"

namespace {

constexpr sy_plugin_info kInfo = {
    sizeof(sy_plugin_info), SY_PLUGIN_ABI_VERSION,      "cpu", "0.0.1",
    "Switchyard tests",     "a second plugin named cpu"};

std::unique_ptr<sy_context> Create(const sy_init_options&) {
  return std::make_unique<sy_test_plugin::TestContext>(1, "", "shadow-cpu");
}

}  // namespace

SY_SDK_DEFINE_PLUGIN(kInfo, Create)
