// Copies between device buffers (exec/transfers.h).
#include "exec/transfers.h"

#include <algorithm>

namespace sy {

Transfer Route(const SessionBuffer* from, const SessionBuffer* to, uint64_t bytes, std::string what,
               uint64_t& staging_bytes) {
  Transfer t;
  t.from = from;
  t.to = to;
  t.bytes = bytes;
  t.what = std::move(what);
  if (from->device->plugin == to->device->plugin &&
      to->device->plugin->api()->copy_device_to_device != nullptr) {
    t.path = Transfer::Path::kDirect;
  } else if (to->host != nullptr) {
    t.path = Transfer::Path::kIntoHostDestination;
  } else if (from->host != nullptr) {
    t.path = Transfer::Path::kFromHostSource;
  } else {
    t.path = Transfer::Path::kStaged;
    staging_bytes = std::max(staging_bytes, bytes);
  }
  return t;
}

Status RunTransfer(const Transfer& t, std::vector<std::byte>& staging) {
  const sy_plugin_api* from = t.from->device->plugin->api();
  const sy_plugin_api* to = t.to->device->plugin->api();
  const Plugin& from_plugin = *t.from->device->plugin;
  const Plugin& to_plugin = *t.to->device->plugin;
  switch (t.path) {
    case Transfer::Path::kDirect:
      return to_plugin.TakeError(
          to->copy_device_to_device(t.to->handle, 0, t.from->handle, 0, t.bytes), t.what);
    case Transfer::Path::kIntoHostDestination:
      return from_plugin.TakeError(
          from->copy_device_to_host(t.from->handle, 0, t.to->host, t.bytes), t.what);
    case Transfer::Path::kFromHostSource:
      return to_plugin.TakeError(to->copy_host_to_device(t.to->handle, 0, t.from->host, t.bytes),
                                 t.what);
    case Transfer::Path::kStaged:
      SY_RETURN_IF_ERROR(from_plugin.TakeError(
          from->copy_device_to_host(t.from->handle, 0, staging.data(), t.bytes), t.what));
      return to_plugin.TakeError(to->copy_host_to_device(t.to->handle, 0, staging.data(), t.bytes),
                                 t.what);
  }
  return Internal("unknown copy path");
}

Status CopyBuffers(const Device& from, sy_buffer* from_buffer, const Device& to,
                   sy_buffer* to_buffer, uint64_t bytes, std::string what, uint64_t& host_bytes,
                   std::vector<std::byte>& staging) {
  if (bytes == 0) return Status::Ok();
  // Borrowed handles: these buffers free nothing.
  const auto borrowed = [bytes](const Device& device, sy_buffer* handle) {
    return SessionBuffer{&device, handle, bytes, device.plugin->api()->buffer_host_pointer(handle),
                         /*owned=*/false};
  };
  const SessionBuffer source = borrowed(from, from_buffer);
  const SessionBuffer destination = borrowed(to, to_buffer);
  uint64_t staging_bytes = 0;
  const Transfer t = Route(&source, &destination, bytes, std::move(what), staging_bytes);
  if (t.path == Transfer::Path::kStaged) {
    host_bytes += bytes;
    // Host memory for the first such copy of this size; reused by later runs.
    if (staging.size() < staging_bytes) staging.resize(staging_bytes);
  }
  return RunTransfer(t, staging);
}

}  // namespace sy
