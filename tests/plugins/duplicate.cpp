// A valid plugin built twice (libswitchyard_test_dup_a.so, ..._b.so), both named "dup":
// a scan loads the first it sees and rejects the second, naming the first.
#include "test_plugin.h"

namespace {

constexpr sy_plugin_info kInfo = {sizeof(sy_plugin_info), SY_PLUGIN_ABI_VERSION,  "dup", "0.0.1",
                                  "Switchyard tests",     SY_TEST_DUP_DESCRIPTION};

std::unique_ptr<sy_context> Create(const sy_init_options&) {
  return std::make_unique<sy_test_plugin::TestContext>(1, "", "dup-device");
}

}  // namespace

SY_SDK_DEFINE_PLUGIN(kInfo, Create)
