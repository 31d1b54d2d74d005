// Fuzzes the single-file model's reader (the header, the binary graph section, the
// weights' ranges), pass 2 on whatever it accepts, and the writer: no input may crash,
// hang, leak, read out of bounds or allocate without bound; it either loads or gets an
// error. A graph that loads encodes again, and those bytes load to the same encoding.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "switchyard/model_io.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // The reader keeps views onto the bytes: give it storage that outlives the graph.
  auto bytes = std::make_shared<std::string>(reinterpret_cast<const char*>(data), size);
  const std::span<const std::byte> span(reinterpret_cast<const std::byte*>(bytes->data()),
                                        bytes->size());
  sy::Expected<sy::Graph> graph = sy::ParseSingleFileModel(span, bytes);
  if (!graph.ok()) return 0;
  (void)sy::ValidateGraphTypes(*graph);
  sy::Expected<std::string> encoded = sy::EncodeSingleFileModel(*graph);
  if (!encoded.ok()) return 0;  // an op with no tag cannot be written (pass 2 refuses it too)
  auto again = std::make_shared<std::string>(std::move(*encoded));
  const std::span<const std::byte> again_span(reinterpret_cast<const std::byte*>(again->data()),
                                              again->size());
  sy::Expected<sy::Graph> reread = sy::ParseSingleFileModel(again_span, again);
  if (!reread.ok()) __builtin_trap();
  sy::Expected<std::string> reencoded = sy::EncodeSingleFileModel(*reread);
  if (!reencoded.ok() || *reencoded != *again) __builtin_trap();
  return 0;
}
