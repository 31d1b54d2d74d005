// switchyard._native: the extension module under the switchyard package
// (python/switchyard/__init__.py is the public face; docs/python.md).
#include <nanobind/nanobind.h>

#include "device_tensor.h"
#include "errors.h"
#include "host.h"
#include "session.h"

namespace sy::python {
void BindDecoder(nanobind::module_& m);
void BindOnnx(nanobind::module_& m);
void BindQuantize(nanobind::module_& m);
void BindConvert(nanobind::module_& m);
}  // namespace sy::python

NB_MODULE(_native, m) {
  m.doc() = "Switchyard's native module (use the switchyard package).";
  sy::python::RegisterErrors(m);
  sy::python::BindHost(m);
  sy::python::BindDeviceTensor(m);
  sy::python::BindSession(m);
  sy::python::BindDecoder(m);
  sy::python::BindOnnx(m);
  sy::python::BindQuantize(m);
  sy::python::BindConvert(m);
}
