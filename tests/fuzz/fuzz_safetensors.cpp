// libFuzzer target: arbitrary bytes as a safetensors file.
//
// FromBuffer must either reject the input with an error or accept it; for an accepted
// file, Get must succeed for every entry and every byte of every tensor must be readable
// (AddressSanitizer catches a view that points outside the input).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <span>

#include "switchyard/safetensors.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // The input outlives this call's use of it, so the keep-alive owns nothing.
  std::shared_ptr<const void> keep_alive(data, [](const void*) {});
  const std::span<const std::byte> bytes(reinterpret_cast<const std::byte*>(data), size);
  auto file = sy::SafetensorsFile::FromBuffer(keep_alive, bytes, "fuzz.safetensors");
  if (!file.ok()) return 0;

  uint8_t checksum = 0;
  for (const sy::SafetensorsFile::Entry& entry : (*file)->entries()) {
    if (entry.begin > entry.end || entry.end > size) std::abort();
    if ((*file)->Find(entry.name) != &entry) std::abort();
    auto tensor = (*file)->Get(entry.name);
    if (!tensor.ok()) std::abort();  // every listed entry must be readable
    if (tensor->byte_size() != entry.end - entry.begin) std::abort();
    if (tensor->dtype() != entry.dtype || tensor->shape() != entry.shape) std::abort();
    const std::byte* p = tensor->data();
    for (size_t i = 0; i < tensor->byte_size(); ++i) checksum ^= static_cast<uint8_t>(p[i]);
  }
  for (const auto& [key, value] : (*file)->metadata()) {
    for (char c : key) checksum ^= static_cast<uint8_t>(c);
    for (char c : value) checksum ^= static_cast<uint8_t>(c);
  }
  // Keep the reads from being optimised away.
  volatile uint8_t sink = checksum;
  (void)sink;
  return 0;
}
