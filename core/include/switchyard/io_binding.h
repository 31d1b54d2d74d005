// IoBinding: a run's inputs and outputs bound ahead of it, on the host or on a device
// (docs/host-api.md, "Device-resident inputs and outputs"), as ONNX Runtime's I/O binding.
//
//   sy::IoBinding io;
//   io.BindInput("x", x_on_gpu);        // a DeviceTensor on the session's device: read there
//   io.BindInput("mask", host_tensor);  // a host Tensor: copied in as Session::Run does
//   io.BindOutput("y", y_on_gpu);       // the run writes the output into this DeviceTensor
//   io.BindOutput("logits", gpu);       // the run leaves it on this device
//   SY_RETURN_IF_ERROR(session->Run(io));
//   const sy::DeviceTensor& logits = io.device_outputs().at("logits");
//
// A device input on the device that reads it is read in place; an output bound on the device
// that produces it is written in place where the plan lets it (else copied there on the
// device). Values bound on another device than the one that reads or writes them are copied
// between the devices, through host memory only when the two plugins have no direct path.
// Outputs bound nowhere come back as host tensors (host_outputs()), as from Session::Run.
//
// A binding is reused across runs: bindings stay until replaced or cleared, and the results
// of a run replace the previous run's. An output bound to a device gets a new DeviceTensor
// for each run, except that the previous run's is reused when nobody else holds a handle to
// it and the output's type has not changed: a loop that drops its handles allocates nothing.
#pragma once

#include <map>
#include <string>

#include "switchyard/device_tensor.h"
#include "switchyard/tensor.h"

namespace sy {

class Session;

class IoBinding {
 public:
  // An input from host memory, or one already on a device. Binding a name again replaces
  // the earlier binding of that name, host or device.
  void BindInput(const std::string& name, Tensor host);
  void BindInput(const std::string& name, DeviceTensor on_device);
  // The run writes output `name` into `into`, which must have the output's type (checked
  // by the run). It may not share storage with a bound input or another bound output.
  void BindOutput(const std::string& name, DeviceTensor into);
  // The run leaves output `name` on `device` (device_outputs()).
  void BindOutput(const std::string& name, const Device& device);
  void ClearInputs();
  void ClearOutputs();  // bindings of outputs, and the last run's results

  const std::map<std::string, Tensor>& host_inputs() const { return host_inputs_; }
  const std::map<std::string, DeviceTensor>& device_inputs() const { return device_inputs_; }

  // The last successful run's outputs: those bound to a device (the tensor given, or one
  // on the device named), and every other output as a host tensor. Both empty after a
  // failed run.
  const std::map<std::string, DeviceTensor>& device_outputs() const { return device_outputs_; }
  const std::map<std::string, Tensor>& host_outputs() const { return host_outputs_; }
  // Every output of the last run in host memory (device ones copied), as ONNX Runtime's
  // copy_outputs_to_cpu.
  Expected<std::map<std::string, Tensor>> CopyOutputsToHost() const;

 private:
  friend class Session;
  std::map<std::string, Tensor> host_inputs_;
  std::map<std::string, DeviceTensor> device_inputs_;
  std::map<std::string, DeviceTensor> output_into_;     // BindOutput(name, DeviceTensor)
  std::map<std::string, const Device*> output_on_;      // BindOutput(name, Device)
  std::map<std::string, DeviceTensor> device_outputs_;  // results
  std::map<std::string, Tensor> host_outputs_;          // results
};

}  // namespace sy
