// Plugins whose answers end where they should not, both found by fuzz_plugin_table:
//   ragged_table (SY_TEST_RAGGED_TABLE): struct_size ends halfway through buffer_view, so
//     the host must treat that member (and buffer_wrap_host after it) as absent rather
//     than copy half a pointer.
//   unterminated_error (SY_TEST_UNTERMINATED_ERROR): initialize fails with a message of
//     8 KiB and no terminator; the host reads at most 4096 bytes of it.
#include <cstddef>
#include <cstring>

#include "test_plugin.h"

namespace {

constexpr sy_plugin_info kInfo = {
    sizeof(sy_plugin_info), SY_PLUGIN_ABI_VERSION,   "ragged", "0.0.1",
    "Switchyard tests",     "answers that end badly"};

std::unique_ptr<sy_context> Create(const sy_init_options&) {
  return std::make_unique<sy_test_plugin::TestContext>(1, "");
}

#if defined(SY_TEST_UNTERMINATED_ERROR)
char message[8192];  // filled with 'e', no terminator
const char* Message(const sy_error*) { return message; }
uint32_t Code(const sy_error*) { return SY_ERROR_INTERNAL; }
void Destroy(sy_error*) {}
sy_error* FailInitialize(const sy_init_options*, sy_context**) {
  std::memset(message, 'e', sizeof message);
  static int token;
  return reinterpret_cast<sy_error*>(&token);
}
#endif

}  // namespace

extern "C" SY_PLUGIN_EXPORT const sy_plugin_api* sy_plugin_query(uint32_t) {
  static const sy_plugin_api api = [] {
    sy_plugin_api a = *sy_sdk::Trampolines<&kInfo, Create>::Api();
#if defined(SY_TEST_RAGGED_TABLE)
    a.struct_size = static_cast<uint32_t>(offsetof(sy_plugin_api, buffer_view) + 4);
#else
    a.error_message = Message;
    a.error_code = Code;
    a.error_destroy = Destroy;
    a.initialize = FailInitialize;
#endif
    return a;
  }();
  return &api;
}
