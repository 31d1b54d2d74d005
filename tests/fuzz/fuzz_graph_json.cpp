// Fuzzes pass 1 and pass 2 of loading, and the writer on whatever loads: no input may
// crash, hang, leak or read out of bounds; it either loads or gets an error.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "switchyard/model_io.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  sy::Expected<sy::Graph> graph = sy::ParseGraphJson(text, nullptr);
  if (!graph.ok()) return 0;
  if (!sy::ValidateGraphTypes(*graph).ok()) return 0;
  // A graph that validated and serialises must parse back. (Serialising may fail: an
  // inline 1e39 is infinity once stored as f32, and JSON cannot hold infinity.)
  sy::Expected<std::string> json = sy::SerializeGraphJson(*graph);
  if (!json.ok()) return 0;
  if (!sy::ParseGraphJson(*json, nullptr).ok()) __builtin_trap();
  return 0;
}
