// DeviceTensor: a dtype, a static shape and a buffer in one device's memory (docs/host-api.md,
// "Device-resident inputs and outputs").
//
// A host allocates these on a session's device, fills them once (or has a run write them),
// and binds them to runs (switchyard/io_binding.h) so that values stay on the device between
// runs: no copy through host memory, as ONNX Runtime's I/O binding does.
//
// Storage is shared and reference counted like Tensor's: copying a DeviceTensor copies the
// handle, not the bytes, and the buffer goes back to its plugin (buffer_free) when the last
// handle goes. Like a session, every DeviceTensor must be destroyed before the PluginHost
// that loaded its device's plugin. One thread at a time may use a buffer.
#pragma once

#include <cstdint>
#include <memory>

#include "switchyard/plugin_host.h"
#include "switchyard/tensor.h"

namespace sy {

class DeviceTensor {
 public:
  DeviceTensor() = default;  // no device, no storage; valid() is false

  // A buffer for `type` on `device`. Its contents are unspecified until something writes
  // them (CopyFrom, or a run it is bound to as an output), as with cudaMalloc. Fails on an
  // invalid or too large shape and when the plugin cannot allocate (the message names the
  // device and the size).
  static Expected<DeviceTensor> Allocate(const Device& device, const TensorType& type);
  // Allocate, then CopyFrom(host).
  static Expected<DeviceTensor> FromHost(const Device& device, const Tensor& host);

  bool valid() const { return storage_ != nullptr; }
  const Device& device() const;  // valid() only
  const TensorType& type() const { return type_; }
  DType dtype() const { return type_.dtype; }
  const Shape& shape() const { return type_.shape; }
  uint64_t byte_size() const { return byte_size_; }

  // Host to device: `host` must have this tensor's dtype and shape.
  Status CopyFrom(const Tensor& host);
  // Device to host, into a new tensor.
  Expected<Tensor> ToHost() const;
  // Device to host into `host`, which must be writable with this tensor's dtype and shape.
  Status CopyTo(Tensor& host) const;

  // The plugin's buffer, for hosts that call the plugin's table themselves; owned by this
  // tensor's storage.
  sy_buffer* buffer() const;
  // The bytes themselves where the device's memory is the host's (buffer_host_pointer);
  // null on a device with memory of its own.
  void* host_data() const;
  // True when both handles name the same storage.
  bool SharesStorageWith(const DeviceTensor& other) const {
    return storage_ != nullptr && storage_ == other.storage_;
  }
  // How many DeviceTensor handles share this storage (0 for an invalid one).
  long use_count() const { return storage_.use_count(); }

 private:
  struct Storage;
  std::shared_ptr<Storage> storage_;
  TensorType type_;
  uint64_t byte_size_ = 0;
};

}  // namespace sy
