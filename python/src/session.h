// switchyard._native.Session: a Session (switchyard/session.h) with the plugin host it
// was made with, for Python.
//
// Threads: Python code may call one session from several threads; a mutex makes its
// calls take turns (a Session runs on one thread at a time). Every call into the session
// is made with the GIL released, the mutex taken after the GIL is let go and given back
// before the GIL is taken again, so that no thread holds one while waiting for the other.
// Separate sessions run in parallel.
#pragma once

#include <nanobind/nanobind.h>

#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "host.h"
#include "switchyard/session.h"

namespace sy::python {

class PySession {
 public:
  // `host` is a Host; the session keeps it alive. Throws StatusError.
  PySession(nanobind::object host, const std::string& model,
            const std::vector<std::string>& devices, bool strict,
            const std::map<std::string, std::string>& memory_limits, int optimize,
            int max_specializations, bool merge_islands, int quant_accuracy_level);
  ~PySession();

  // `outputs`: None, or name -> DeviceTensor / device spec (IoBinding::BindOutput).
  nanobind::dict Run(nanobind::handle inputs, nanobind::handle outputs);
  // `f(Session&)` with the GIL released and the session's mutex held.
  template <typename F>
  auto Locked(F&& f) {
    nanobind::gil_scoped_release released;
    std::lock_guard<std::mutex> lock(mutex_);
    return f(*session_);
  }

  const std::vector<std::string>& input_names() const { return session_->input_names(); }
  const std::vector<TensorType>& input_types() const { return session_->input_types(); }
  const std::vector<std::pair<std::string, TensorType>>& outputs() const { return outputs_; }
  uint64_t inputs_copied() const { return inputs_copied_; }
  const PluginHost& host() const { return nanobind::cast<Host&>(host_).get(); }
  const nanobind::object& host_object() const { return host_; }
  const std::string& model() const { return model_; }  // as given: messages name it
  std::pair<int64_t, int64_t> last_run_span() const { return last_run_; }

 private:
  nanobind::object host_;  // a Host, destroyed after session_
  std::string model_;
  std::unique_ptr<Session> session_;
  std::mutex mutex_;
  std::vector<std::pair<std::string, TensorType>> outputs_;  // what Run returns, in order
  uint64_t inputs_copied_ = 0;  // inputs this module copied (strided, unaligned, lists)
  std::pair<int64_t, int64_t> last_run_{0, 0};  // steady-clock ns around the last Run
};

void BindSession(nanobind::module_& m);

}  // namespace sy::python
