// One run's inputs and outputs (exec/run_io.h).
#include "exec/run_io.h"

#include "exec/transfers.h"
#include "switchyard/value_names.h"

namespace sy {

const Tensor* RunIo::FindHost(const std::string& name) const {
  auto it = host->find(name);
  return it == host->end() ? nullptr : &it->second;
}

const DeviceTensor* RunIo::FindDevice(const std::string& name) const {
  if (device == nullptr) return nullptr;
  auto it = device->find(name);
  return it == device->end() ? nullptr : &it->second;
}

const TensorType* RunIo::FindType(const std::string& name) const {
  if (const Tensor* t = FindHost(name)) return &t->type();
  if (const DeviceTensor* t = FindDevice(name)) return &t->type();
  return nullptr;
}

Expected<DeviceTensor> OutputTarget(const RunIo& io, const std::string& name,
                                    const TensorType& type) {
  if (!io.bound()) return DeviceTensor();
  if (auto into = io.output_into->find(name); into != io.output_into->end()) {
    const DeviceTensor& t = into->second;
    if (t.type() != type) {
      return InvalidArgument("output \"" + PrintableName(name) + "\" is " + type.ToString() +
                             " but the device tensor bound for it on " + t.device().Spec() +
                             " is " + t.type().ToString());
    }
    return t;
  }
  auto on = io.output_on->find(name);
  if (on == io.output_on->end()) return DeviceTensor();
  if (io.previous != nullptr) {
    auto last = io.previous->find(name);
    if (last != io.previous->end() && last->second.use_count() == 1 &&
        last->second.type() == type && &last->second.device() == on->second) {
      return last->second;
    }
  }
  return DeviceTensor::Allocate(*on->second, type);
}

Status DeliverOutput(const RunIo& io, const std::string& name, const TensorType& type,
                     const Tensor* host, const DeviceTensor* on_device,
                     std::map<std::string, Tensor>& results, Session::Stats& stats,
                     std::vector<std::byte>& staging) {
  SY_ASSIGN_OR_RETURN(DeviceTensor target, OutputTarget(io, name, type));
  if (!target.valid()) {
    if (host != nullptr) {
      results[name] = *host;
      return Status::Ok();
    }
    SY_ASSIGN_OR_RETURN(Tensor copy, on_device->ToHost());
    stats.host_bytes_out += copy.byte_size();
    results[name] = std::move(copy);
    return Status::Ok();
  }
  if (host != nullptr) {
    SY_RETURN_IF_ERROR(target.CopyFrom(*host));
    stats.host_bytes_out += host->byte_size();
  } else if (!target.SharesStorageWith(*on_device)) {
    SY_RETURN_IF_ERROR(CopyBuffers(on_device->device(), on_device->buffer(), target.device(),
                                   target.buffer(), target.byte_size(),
                                   "copying output \"" + PrintableName(name) + "\" from " +
                                       on_device->device().Spec() + " to " + target.device().Spec(),
                                   stats.host_bytes_out, staging));
  }
  io.device_outputs->insert_or_assign(name, std::move(target));
  return Status::Ok();
}

}  // namespace sy
