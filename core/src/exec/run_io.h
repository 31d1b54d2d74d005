// Internal: one run's inputs and where its outputs go, as the public Session hands them to
// the session kind that runs them (exec/session_kind.h), and delivering an output there.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "switchyard/device_tensor.h"
#include "switchyard/session.h"
#include "switchyard/tensor.h"

namespace sy {

// Inputs by name in host memory and (from an IoBinding) on devices. Without a binding every
// output comes back to the host; with one, the outputs it binds go into device tensors
// (`output_into`: the caller's; `output_on`: allocated on that device, or the last run's,
// `previous`, where nobody else holds it), collected in `device_outputs`.
struct RunIo {
  const std::map<std::string, Tensor>* host = nullptr;
  const std::map<std::string, DeviceTensor>* device = nullptr;  // may be null
  const std::map<std::string, DeviceTensor>* output_into = nullptr;
  const std::map<std::string, const Device*>* output_on = nullptr;
  std::map<std::string, DeviceTensor>* device_outputs = nullptr;  // null: no binding
  std::map<std::string, DeviceTensor>* previous = nullptr;

  bool bound() const { return device_outputs != nullptr; }
  const Tensor* FindHost(const std::string& name) const;
  const DeviceTensor* FindDevice(const std::string& name) const;
  // The type of input `name` wherever it is; null when it is not given.
  const TensorType* FindType(const std::string& name) const;
};

// Output `name` of `type` in this run: the device tensor it goes into, or an invalid one
// when it comes back to the host.
Expected<DeviceTensor> OutputTarget(const RunIo& io, const std::string& name,
                                    const TensorType& type);

// Output `name`, given as a host tensor or a device tensor (one of the two), delivered
// where `io` sends it: into `results`, or into the binding's device outputs. Host traffic
// counts into `stats`; `staging` serves copies between two device memories.
Status DeliverOutput(const RunIo& io, const std::string& name, const TensorType& type,
                     const Tensor* host, const DeviceTensor* on_device,
                     std::map<std::string, Tensor>& results, Session::Stats& stats,
                     std::vector<std::byte>& staging);

}  // namespace sy
