#include "errors.h"

#include <nanobind/stl/string.h>

#include <string>

namespace sy::python {
namespace nb = nanobind;
namespace {

// The classes, created once per process by RegisterErrors; module state owns them.
PyObject* g_error = nullptr;
PyObject* g_invalid_argument = nullptr;
PyObject* g_invalid_model = nullptr;
PyObject* g_not_found = nullptr;
PyObject* g_unsupported = nullptr;

PyObject* NewClass(nb::module_& m, const char* name, const char* doc, nb::handle bases) {
  const std::string qualified = std::string("switchyard.") + name;
  PyObject* cls = PyErr_NewExceptionWithDoc(qualified.c_str(), doc, bases.ptr(), nullptr);
  if (cls == nullptr) throw nb::python_error();
  m.attr(name) = nb::handle(cls);  // the module keeps a reference; so does g_*
  return cls;
}

PyObject* ClassFor(StatusCode code) {
  switch (code) {
    case StatusCode::kInvalidArgument:
      return g_invalid_argument;
    case StatusCode::kInvalidModel:
      return g_invalid_model;
    case StatusCode::kNotFound:
      return g_not_found;
    case StatusCode::kUnsupported:
      return g_unsupported;
    default:
      return g_error;
  }
}

}  // namespace

void RegisterErrors(nb::module_& m) {
  nb::handle runtime_error(PyExc_RuntimeError);
  g_error = NewClass(m, "Error",
                     "An error of the Switchyard runtime; str() is the message the CLI prints, "
                     ".code names the kind.",
                     nb::make_tuple(runtime_error));
  nb::handle error(g_error);
  g_invalid_argument =
      NewClass(m, "InvalidArgumentError",
               "A bad argument: an unknown device, a wrong dtype or shape, a missing input.",
               nb::make_tuple(error, nb::handle(PyExc_ValueError)));
  g_invalid_model = NewClass(m, "InvalidModelError", "A malformed or inconsistent model.",
                             nb::make_tuple(error, nb::handle(PyExc_ValueError)));
  g_not_found = NewClass(m, "NotFoundError", "A file, plugin, device or name that is not there.",
                         nb::make_tuple(error, nb::handle(PyExc_LookupError)));
  g_unsupported =
      NewClass(m, "UnsupportedError", "Well-formed, but not implemented by this build or device.",
               nb::make_tuple(error));
  nb::register_exception_translator([](const std::exception_ptr& p, void*) {
    try {
      std::rethrow_exception(p);
    } catch (const StatusError& e) {
      PyObject* cls = ClassFor(e.status().code());
      nb::object instance = nb::steal(PyObject_CallFunction(cls, "s", e.what()));
      if (!instance.is_valid()) return;  // the call raised; that error stands
      instance.attr("code") = std::string(StatusCodeName(e.status().code()));
      PyErr_SetObject(cls, instance.ptr());
    }
  });
}

}  // namespace sy::python
