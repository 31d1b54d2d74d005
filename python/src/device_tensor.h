// switchyard._native.DeviceTensor: a DeviceTensor (switchyard/device_tensor.h) for Python,
// holding the Host that loaded its device's plugin so that the plugin outlives the buffer
// (docs/python.md, "Values that stay on a device").
#pragma once

#include <nanobind/nanobind.h>

#include <string>

#include "switchyard/device_tensor.h"

namespace sy::python {

class PyDeviceTensor {
 public:
  PyDeviceTensor(nanobind::object host, DeviceTensor tensor)
      : host_(std::move(host)), tensor_(std::move(tensor)) {}
  const DeviceTensor& get() const { return tensor_; }
  DeviceTensor& get_mutable() { return tensor_; }
  const nanobind::object& host() const { return host_; }

 private:
  nanobind::object host_;  // a Host; released after tensor_
  DeviceTensor tensor_;
};

// The device `spec` names on `host` (a Host). Throws StatusError.
const Device& FindDeviceOrThrow(nanobind::handle host, const std::string& spec);

void BindDeviceTensor(nanobind::module_& m);

}  // namespace sy::python
