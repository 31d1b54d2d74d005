// libFuzzer target: arbitrary bytes as a .npy file.
//
// ParseNpy must either reject the input with an error or return a tensor whose bytes are
// exactly what its dtype and shape need, every one of them readable (AddressSanitizer
// catches a read outside), and whose serialisation parses back to the same tensor.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <span>

#include "switchyard/npy.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::span<const std::byte> bytes(reinterpret_cast<const std::byte*>(data), size);
  sy::Expected<sy::Tensor> tensor = sy::ParseNpy(bytes, "fuzz.npy");
  if (!tensor.ok()) return 0;
  if (tensor->byte_size() !=
      static_cast<size_t>(sy::ElementCount(tensor->shape())) * sy::DTypeSize(tensor->dtype())) {
    std::abort();
  }
  uint8_t checksum = 0;
  for (size_t i = 0; i < tensor->byte_size(); ++i) {
    checksum ^= static_cast<uint8_t>(tensor->data()[i]);
  }
  sy::Expected<std::string> again = sy::SerializeNpy(*tensor);
  if (!again.ok()) std::abort();  // every dtype the reader returns, the writer writes
  sy::Expected<sy::Tensor> back =
      sy::ParseNpy(std::as_bytes(std::span(again->data(), again->size())), "again.npy");
  if (!back.ok() || !back->BitwiseEquals(*tensor)) std::abort();
  volatile uint8_t sink = checksum;
  (void)sink;
  return 0;
}
