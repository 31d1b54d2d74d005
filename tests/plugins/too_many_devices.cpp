// Hostile plugins: "too_many_devices" reports 2^32 - 1 devices (the host must refuse it
// without allocating per device); "long_names" (SY_TEST_ONE_DEVICE) one device whose name
// is 100000 characters long (the host keeps the first 4096).
#include <string>

#include "test_plugin.h"

#ifdef SY_TEST_ONE_DEVICE
#define SY_TEST_PLUGIN_NAME "long_names"
#else
#define SY_TEST_PLUGIN_NAME "too_many_devices"
#endif

namespace {

constexpr sy_plugin_info kInfo = {sizeof(sy_plugin_info), SY_PLUGIN_ABI_VERSION,
                                  SY_TEST_PLUGIN_NAME,    "0.0.1",
                                  "Switchyard tests",     "reports 2^32 - 1 devices"};

std::unique_ptr<sy_context> Create(const sy_init_options&) {
#ifdef SY_TEST_ONE_DEVICE
  const uint32_t devices = 1;
#else
  const uint32_t devices = 0xffffffffu;
#endif
  return std::make_unique<sy_test_plugin::TestContext>(devices, "", std::string(100000, 'x'));
}

}  // namespace

SY_SDK_DEFINE_PLUGIN(kInfo, Create)
