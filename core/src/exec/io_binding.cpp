#include "switchyard/io_binding.h"

namespace sy {

void IoBinding::BindInput(const std::string& name, Tensor host) {
  device_inputs_.erase(name);
  host_inputs_.insert_or_assign(name, std::move(host));
}

void IoBinding::BindInput(const std::string& name, DeviceTensor on_device) {
  host_inputs_.erase(name);
  device_inputs_.insert_or_assign(name, std::move(on_device));
}

void IoBinding::BindOutput(const std::string& name, DeviceTensor into) {
  output_on_.erase(name);
  output_into_.insert_or_assign(name, std::move(into));
}

void IoBinding::BindOutput(const std::string& name, const Device& device) {
  output_into_.erase(name);
  output_on_.insert_or_assign(name, &device);
}

void IoBinding::ClearInputs() {
  host_inputs_.clear();
  device_inputs_.clear();
}

void IoBinding::ClearOutputs() {
  output_into_.clear();
  output_on_.clear();
  device_outputs_.clear();
  host_outputs_.clear();
}

Expected<std::map<std::string, Tensor>> IoBinding::CopyOutputsToHost() const {
  std::map<std::string, Tensor> all = host_outputs_;
  for (const auto& [name, tensor] : device_outputs_) {
    SY_ASSIGN_OR_RETURN(Tensor host, tensor.ToHost());
    all.insert_or_assign(name, std::move(host));
  }
  return all;
}

}  // namespace sy
