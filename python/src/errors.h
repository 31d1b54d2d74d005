// Python exceptions for the runtime's errors. Every Status that reaches Python becomes an
// exception whose message is the Status's message, the text the CLI prints after
// "switchyard COMMAND: ". The classes (created in RegisterErrors, exported by the package):
//
//   switchyard.Error(RuntimeError)                      every runtime error; .code names it
//   switchyard.InvalidArgumentError(Error, ValueError)  a bad argument: an unknown device,
//                                                       a wrong dtype or shape, a missing input
//   switchyard.InvalidModelError(Error, ValueError)     a malformed or inconsistent model
//   switchyard.NotFoundError(Error, LookupError)        a file, plugin or name that is not there
//   switchyard.UnsupportedError(Error)                  not implemented by this build or device
//
// other codes (I/O, resources, internal) raise Error itself.
#pragma once

#include <nanobind/nanobind.h>

#include <exception>
#include <utility>

#include "switchyard/status.h"

namespace sy::python {

// Thrown by binding code; nanobind's translator (RegisterErrors) raises the Python class
// for its code. Only ever thrown with the GIL held or into code that holds it.
class StatusError : public std::exception {
 public:
  explicit StatusError(Status status) : status_(std::move(status)) {}
  const char* what() const noexcept override { return status_.message().c_str(); }
  const Status& status() const { return status_; }

 private:
  Status status_;
};

void RegisterErrors(nanobind::module_& m);

// Raises `status` (not ok) as its Python exception.
[[noreturn]] inline void Throw(Status status) { throw StatusError(std::move(status)); }
inline void ThrowIfError(Status status) {
  if (!status.ok()) Throw(std::move(status));
}
template <typename T>
T ValueOrThrow(Expected<T>&& expected) {
  if (!expected.ok()) Throw(expected.status());
  return std::move(expected).value();
}

}  // namespace sy::python
