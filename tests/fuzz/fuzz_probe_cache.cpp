// libFuzzer target: arbitrary bytes as the plugin probe's verdict cache
// (core/src/plugin/plugin_probe.cpp; docs/security.md, "Plugins").
//
// The parser must take any text without reading outside it (AddressSanitizer) and keep
// only entries whose path is one line and one field: a path holding a tab or a newline
// could not have been written by the host and would misread the fields after it.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "plugin/plugin_probe.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  for (const std::string& path : sy::ProbeCachePaths(text)) {
    if (path.find_first_of("\t\n") != std::string::npos) std::abort();
  }
  return 0;
}
