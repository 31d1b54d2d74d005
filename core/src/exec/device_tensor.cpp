#include "switchyard/device_tensor.h"

#include "switchyard/plan.h"  // FormatBytes

namespace sy {

// The buffer and the device it lives on; freed with the plugin's buffer_free when the last
// DeviceTensor handle goes.
struct DeviceTensor::Storage {
  const Device* device = nullptr;
  sy_buffer* handle = nullptr;
  void* host = nullptr;
  ~Storage() {
    if (handle != nullptr) device->plugin->api()->buffer_free(handle);
  }
};

Expected<DeviceTensor> DeviceTensor::Allocate(const Device& device, const TensorType& type) {
  SY_ASSIGN_OR_RETURN(int64_t count, CheckedElementCount(type.shape));
  const uint64_t bytes = static_cast<uint64_t>(count) * DTypeSize(type.dtype);
  auto storage = std::make_shared<Storage>();
  storage->device = &device;
  const Plugin& plugin = *device.plugin;
  SY_RETURN_IF_ERROR(plugin.TakeError(
      plugin.api()->buffer_alloc(plugin.context(), device.index, bytes, &storage->handle),
      "allocating " + FormatBytes(bytes) + " on " + device.Spec() + " for a device tensor " +
          type.ToString()));
  if (storage->handle == nullptr) {
    return Internal("plugin " + plugin.name() + ": buffer_alloc returned no buffer");
  }
  storage->host = plugin.api()->buffer_host_pointer(storage->handle);
  DeviceTensor t;
  t.storage_ = std::move(storage);
  t.type_ = type;
  t.byte_size_ = bytes;
  return t;
}

Expected<DeviceTensor> DeviceTensor::FromHost(const Device& device, const Tensor& host) {
  if (!host.valid()) return InvalidArgument("DeviceTensor::FromHost: the host tensor is empty");
  SY_ASSIGN_OR_RETURN(DeviceTensor t, Allocate(device, host.type()));
  SY_RETURN_IF_ERROR(t.CopyFrom(host));
  return t;
}

const Device& DeviceTensor::device() const { return *storage_->device; }

sy_buffer* DeviceTensor::buffer() const { return storage_ ? storage_->handle : nullptr; }

void* DeviceTensor::host_data() const { return storage_ ? storage_->host : nullptr; }

Status DeviceTensor::CopyFrom(const Tensor& host) {
  if (!valid()) return InvalidArgument("CopyFrom: the device tensor has no storage");
  if (!host.valid() || host.type() != type_) {
    return InvalidArgument("CopyFrom: the host tensor is " +
                           (host.valid() ? host.type().ToString() : std::string("empty")) +
                           " but the device tensor on " + storage_->device->Spec() + " is " +
                           type_.ToString());
  }
  if (byte_size_ == 0) return Status::Ok();
  const Plugin& plugin = *storage_->device->plugin;
  return plugin.TakeError(
      plugin.api()->copy_host_to_device(storage_->handle, 0, host.data(), byte_size_),
      "copying " + FormatBytes(byte_size_) + " to " + storage_->device->Spec());
}

Expected<Tensor> DeviceTensor::ToHost() const {
  if (!valid()) return InvalidArgument("ToHost: the device tensor has no storage");
  SY_ASSIGN_OR_RETURN(Tensor host, Tensor::Allocate(type_.dtype, type_.shape));
  SY_RETURN_IF_ERROR(CopyTo(host));
  return host;
}

Status DeviceTensor::CopyTo(Tensor& host) const {
  if (!valid()) return InvalidArgument("CopyTo: the device tensor has no storage");
  if (!host.valid() || host.type() != type_ || !host.writable()) {
    return InvalidArgument("CopyTo: the host tensor is " +
                           (host.valid() ? host.type().ToString() : std::string("empty")) +
                           (host.valid() && !host.writable() ? " (read-only)" : "") +
                           " but the device tensor on " + storage_->device->Spec() + " is " +
                           type_.ToString() + " (a writable tensor of that type is expected)");
  }
  if (byte_size_ == 0) return Status::Ok();
  const Plugin& plugin = *storage_->device->plugin;
  return plugin.TakeError(
      plugin.api()->copy_device_to_host(storage_->handle, 0, host.mutable_data(), byte_size_),
      "copying " + FormatBytes(byte_size_) + " from " + storage_->device->Spec());
}

}  // namespace sy
