// Internal: device buffers a session owns and the copies between them (the steps of a
// plan that move a value from one device to another, and the inputs and outputs a run
// moves), resolved to the cheapest path the two plugins offer.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "switchyard/plugin_host.h"
#include "switchyard/status.h"

namespace sy {

// A device buffer, freed with its plugin's buffer_free unless borrowed.
struct SessionBuffer {
  const Device* device = nullptr;
  sy_buffer* handle = nullptr;
  uint64_t bytes = 0;
  void* host = nullptr;  // buffer_host_pointer, or null for device memory
  bool owned = true;     // false: another's (a decoding state buffer, the StateStore's)
  ~SessionBuffer() {
    if (handle != nullptr && owned) device->plugin->api()->buffer_free(handle);
  }
};

// A copy between two buffers of different devices, resolved at creation to the cheapest
// path the plugins offer.
struct Transfer {
  enum class Path { kDirect, kIntoHostDestination, kFromHostSource, kStaged };
  const SessionBuffer* from = nullptr;
  const SessionBuffer* to = nullptr;
  uint64_t bytes = 0;
  Path path = Path::kStaged;
  std::string what;  // for error messages
};

// The copy of `bytes` from `from` to `to`; a staged one (through host memory) raises
// `staging_bytes` to its size.
Transfer Route(const SessionBuffer* from, const SessionBuffer* to, uint64_t bytes, std::string what,
               uint64_t& staging_bytes);

// Carries out `t`; `staging` is host memory of at least a staged copy's size.
Status RunTransfer(const Transfer& t, std::vector<std::byte>& staging);

// Copies `bytes` between two device buffers of any plugins (through `staging`, grown as
// needed, when neither has host memory), counting host traffic into `host_bytes`.
Status CopyBuffers(const Device& from, sy_buffer* from_buffer, const Device& to,
                   sy_buffer* to_buffer, uint64_t bytes, std::string what, uint64_t& host_bytes,
                   std::vector<std::byte>& staging);

}  // namespace sy
