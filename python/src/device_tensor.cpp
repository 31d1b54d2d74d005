#include "device_tensor.h"

#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "arrays.h"
#include "errors.h"
#include "host.h"

namespace sy::python {
namespace nb = nanobind;

const Device& FindDeviceOrThrow(nb::handle host, const std::string& spec) {
  Expected<const Device*> found = nb::cast<Host&>(host).get().FindDevice(spec);
  if (!found.ok()) Throw(found.status().WithContext("device"));
  return **found;
}

namespace {

std::string Repr(const DeviceTensor& t) {
  return "DeviceTensor(" + t.type().ToString() + " on " + t.device().Spec() + ")";
}

}  // namespace

void BindDeviceTensor(nb::module_& m) {
  nb::class_<PyDeviceTensor>(m, "DeviceTensor",
                             "A tensor in one device's memory, read and written by runs where "
                             "it is (docs/python.md, \"Values that stay on a device\").")
      .def_static(
          "from_array",
          [](nb::object host, const std::string& device, nb::handle array) {
            const Device& d = FindDeviceOrThrow(host, device);
            InputTensor input = TensorFromPython(array, "array", std::nullopt);
            Expected<DeviceTensor> t = Internal("not run");
            {
              nb::gil_scoped_release released;
              t = DeviceTensor::FromHost(d, input.tensor);
            }
            return PyDeviceTensor(std::move(host), ValueOrThrow(std::move(t)));
          },
          nb::arg("host"), nb::arg("device"), nb::arg("array"))
      .def_static(
          "empty",
          [](nb::object host, const std::string& device, const std::string& dtype,
             const std::vector<int64_t>& shape) {
            const Device& d = FindDeviceOrThrow(host, device);
            const std::optional<DType> parsed = ParseDTypeName(dtype);
            if (!parsed) {
              Throw(InvalidArgument("dtype \"" + dtype +
                                    "\": expected one of f32, f16, bf16, f64, i8, u8, i32, "
                                    "i64, bool"));
            }
            return PyDeviceTensor(std::move(host),
                                  ValueOrThrow(DeviceTensor::Allocate(d, {*parsed, shape})));
          },
          nb::arg("host"), nb::arg("device"), nb::arg("dtype"), nb::arg("shape"))
      .def(
          "numpy",
          [](const PyDeviceTensor& self) {
            Expected<Tensor> host = Internal("not run");
            {
              nb::gil_scoped_release released;
              host = self.get().ToHost();
            }
            return ArrayFromTensor(ValueOrThrow(std::move(host)));
          },
          "A copy in host memory, as a NumPy array.")
      .def(
          "copy_from",
          [](PyDeviceTensor& self, nb::handle array) {
            InputTensor input = TensorFromPython(array, "array", self.get().dtype());
            Status copied;
            {
              nb::gil_scoped_release released;
              copied = self.get_mutable().CopyFrom(input.tensor);
            }
            ThrowIfError(copied);
          },
          nb::arg("array"), "Copies an array of this dtype and shape into the tensor.")
      .def_prop_ro("device", [](const PyDeviceTensor& self) { return self.get().device().Spec(); })
      .def_prop_ro(
          "dtype",
          [](const PyDeviceTensor& self) { return std::string(DTypeName(self.get().dtype())); })
      .def_prop_ro("shape",
                   [](const PyDeviceTensor& self) {
                     nb::list dims;
                     for (int64_t d : self.get().shape()) dims.append(d);
                     return nb::tuple(dims);
                   })
      .def_prop_ro("nbytes", [](const PyDeviceTensor& self) { return self.get().byte_size(); })
      .def("__repr__", [](const PyDeviceTensor& self) { return Repr(self.get()); });
}

}  // namespace sy::python
