#include "session.h"

#include <nanobind/stl/map.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <algorithm>

#include "arrays.h"
#include "device_tensor.h"
#include "errors.h"
#include "host_options.h"
#include "switchyard/model_io.h"
#include "switchyard/optimize.h"

namespace sy::python {
namespace nb = nanobind;
namespace {

int64_t SteadyNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// ("f32", (2, None)): a dim that is a symbol (-1 in a dynamic session's types) is None.
nb::tuple TypeTuple(const TensorType& type) {
  nb::list dims;
  for (int64_t d : type.shape) {
    if (d < 0) {
      dims.append(nb::none());
    } else {
      dims.append(d);
    }
  }
  return nb::make_tuple(std::string(DTypeName(type.dtype)), nb::tuple(dims));
}

}  // namespace

PySession::PySession(nb::object host, const std::string& model,
                     const std::vector<std::string>& devices, bool strict,
                     const std::map<std::string, std::string>& memory_limits, int optimize,
                     int max_specializations, bool merge_islands, int quant_accuracy_level)
    : host_(std::move(host)), model_(model) {
  const PluginHost& plugins = nb::cast<Host&>(host_).get();
  if (optimize < 0 || optimize > kMaxOptimizeLevel) {
    Throw(InvalidArgument("optimize " + std::to_string(optimize) +
                          ": expected 0 (none), 1 (default) or 2"));
  }
  if (max_specializations < 1 || max_specializations > 1024) {
    Throw(InvalidArgument("max_specializations " + std::to_string(max_specializations) +
                          ": expected 1 to 1024"));
  }
  if (quant_accuracy_level < -1 || quant_accuracy_level > 4) {
    Throw(InvalidArgument("quant_accuracy_level " + std::to_string(quant_accuracy_level) +
                          ": expected 0 to 4 (4: int8 activations), or None"));
  }
  PlanOptions options;
  options.strict = strict;
  options.optimize_level = optimize;
  options.quant_matmul_accuracy_level = quant_accuracy_level;
  options.max_specializations = static_cast<size_t>(max_specializations);
  options.merge_islands = merge_islands;
  Expected<std::vector<const Device*>> found = host_options::FindDevices(plugins, devices);
  if (!found.ok()) Throw(found.status().WithContext("device"));
  options.devices = std::move(*found);
  for (const auto& [device, bytes] : memory_limits) {
    Expected<std::pair<const Device*, uint64_t>> limit =
        host_options::MemoryLimit(plugins, device, bytes);
    if (!limit.ok()) Throw(limit.status().WithContext("memory_limit " + device));
    options.memory_limits[limit->first] = limit->second;
  }
  // Loading, planning and preparing take from milliseconds to minutes (a GPU plugin
  // compiling kernels): other Python threads run meanwhile.
  Status failed;
  {
    nb::gil_scoped_release released;
    Expected<Graph> graph = LoadModel(model);
    if (!graph.ok()) {
      failed = graph.status();
    } else {
      Expected<std::unique_ptr<Session>> session = Session::Create(*graph, plugins, options);
      if (session.ok()) {
        session_ = std::move(*session);
        for (size_t k = 0; k < session_->output_names().size(); ++k) {
          outputs_.emplace_back(session_->output_names()[k], session_->output_types()[k]);
        }
      } else {
        failed = session.status();
      }
    }
  }
  ThrowIfError(failed);
}

// No lock: a thread inside a call holds a reference to the session, so none is running.
PySession::~PySession() { session_.reset(); }

nb::dict PySession::Run(nb::handle inputs, nb::handle outputs) {
  if (!nb::isinstance<nb::dict>(inputs) && !nb::hasattr(inputs, "items")) {
    Throw(InvalidArgument("inputs must be a mapping of input names to arrays"));
  }
  const std::vector<std::string>& names = session_->input_names();
  const std::vector<TensorType>& types = session_->input_types();
  std::map<std::string, Tensor> tensors;
  IoBinding binding;
  bool bound = !outputs.is_none();
  const auto name_of = [](nb::handle key, const char* what) {
    if (!nb::isinstance<nb::str>(key)) {
      Throw(InvalidArgument(std::string(what) + " names must be strings, not " +
                            nb::cast<std::string>(nb::str(key.type().attr("__name__")))));
    }
    return nb::cast<std::string>(key);
  };
  const auto add = [&](nb::handle key, nb::handle value) {
    std::string name = name_of(key, "input");
    if (nb::isinstance<PyDeviceTensor>(value)) {
      binding.BindInput(name, nb::cast<PyDeviceTensor&>(value).get());
      bound = true;
      return;
    }
    const auto it = std::find(names.begin(), names.end(), name);
    const std::optional<DType> dtype =
        it == names.end() ? std::nullopt : std::optional<DType>(types[it - names.begin()].dtype);
    InputTensor input = TensorFromPython(value, name, dtype);
    inputs_copied_ += input.copied ? 1 : 0;
    tensors.emplace(std::move(name), std::move(input.tensor));
  };
  if (nb::isinstance<nb::dict>(inputs)) {
    for (auto [key, value] : nb::borrow<nb::dict>(inputs)) add(key, value);
  } else {
    for (nb::handle item : inputs.attr("items")()) {
      add(item[nb::int_(0)], item[nb::int_(1)]);
    }
  }
  if (!bound) {
    Expected<std::map<std::string, Tensor>> result = Internal("not run");
    {
      nb::gil_scoped_release released;
      std::lock_guard<std::mutex> lock(mutex_);
      const int64_t start = SteadyNs();
      result = session_->Run(tensors);
      last_run_ = {start, SteadyNs()};
    }
    if (!result.ok()) Throw(result.status());
    nb::dict out;
    for (auto& [name, tensor] : *result) out[name.c_str()] = ArrayFromTensor(std::move(tensor));
    return out;
  }
  // Device tensors in or out (docs/python.md, "Values that stay on a device").
  for (auto& [name, tensor] : tensors) binding.BindInput(name, std::move(tensor));
  std::map<std::string, nb::object> given;  // the caller's DeviceTensor objects, returned as such
  if (!outputs.is_none()) {
    if (!nb::isinstance<nb::dict>(outputs)) {
      Throw(
          InvalidArgument("outputs must be a dict of output names to a DeviceTensor or a "
                          "device spec (\"opencl:0\")"));
    }
    for (auto [key, value] : nb::borrow<nb::dict>(outputs)) {
      const std::string name = name_of(key, "output");
      if (nb::isinstance<PyDeviceTensor>(value)) {
        binding.BindOutput(name, nb::cast<PyDeviceTensor&>(value).get());
        given[name] = nb::borrow(value);
      } else if (nb::isinstance<nb::str>(value)) {
        binding.BindOutput(name, FindDeviceOrThrow(host_, nb::cast<std::string>(value)));
      } else {
        Throw(InvalidArgument("output \"" + name +
                              "\": expected a DeviceTensor or a device "
                              "spec such as \"opencl:0\", not " +
                              nb::cast<std::string>(nb::str(value.type().attr("__name__")))));
      }
    }
  }
  Status ran;
  {
    nb::gil_scoped_release released;
    std::lock_guard<std::mutex> lock(mutex_);
    const int64_t start = SteadyNs();
    ran = session_->Run(binding);
    last_run_ = {start, SteadyNs()};
  }
  ThrowIfError(ran);
  nb::dict out;
  for (const auto& [name, tensor] : binding.host_outputs()) {
    out[name.c_str()] = ArrayFromTensor(tensor);
  }
  for (const auto& [name, tensor] : binding.device_outputs()) {
    auto it = given.find(name);
    out[name.c_str()] = it != given.end() ? it->second : nb::cast(PyDeviceTensor(host_, tensor));
  }
  return out;
}

namespace {

struct PlanRow {
  size_t index;
  std::string op, name, hint, device, reason, detail;
};

// Copied under the session's lock (a dynamic session's plan changes with each new shape),
// turned into Python objects after it.
std::vector<PlanRow> PlanRows(const Session& s) {
  const Plan& plan = s.plan();
  const Graph& graph = s.graph();
  std::vector<PlanRow> rows;
  for (size_t n = 0; n < plan.nodes.size(); ++n) {
    const NodePlacement& p = plan.nodes[n];
    rows.push_back({n, graph.nodes[n].op, graph.nodes[n].name, graph.nodes[n].backend,
                    p.device >= 0 ? plan.devices[p.device]->Spec() : std::string(),
                    std::string(PlacementReasonName(p.reason)), p.detail});
  }
  return rows;
}

}  // namespace

void BindSession(nb::module_& m) {
  nb::class_<PySession>(m, "Session",
                        "A model planned and prepared on devices, run many times "
                        "(docs/python.md).")
      .def(nb::init<nb::object, const std::string&, const std::vector<std::string>&, bool,
                    const std::map<std::string, std::string>&, int, int, bool, int>(),
           nb::arg("host"), nb::arg("model"), nb::arg("devices"), nb::arg("strict"),
           nb::arg("memory_limits"), nb::arg("optimize"), nb::arg("max_specializations"),
           nb::arg("merge_islands"), nb::arg("quant_accuracy_level"))
      .def("run", &PySession::Run, nb::arg("inputs"), nb::arg("outputs") = nb::none(),
           "Runs with inputs by name (arrays, zero-copy where the device reads host memory, "
           "or DeviceTensors read where they are); returns every output by name as a NumPy "
           "array over the result's memory, except those `outputs` binds: name -> a "
           "DeviceTensor to write, or a device spec to leave it on (a new DeviceTensor).")
      .def_prop_ro("input_names", &PySession::input_names,
                   "The inputs a caller passes (not the decoding state's).")
      .def_prop_ro(
          "input_types",
          [](const PySession& s) {
            nb::dict d;
            for (size_t k = 0; k < s.input_names().size(); ++k) {
              d[s.input_names()[k].c_str()] = TypeTuple(s.input_types()[k]);
            }
            return d;
          },
          "name -> (dtype, shape); a run-time size is None.")
      .def_prop_ro(
          "output_names",
          [](const PySession& s) {
            std::vector<std::string> names;
            for (const auto& [name, type] : s.outputs()) names.push_back(name);
            return names;
          },
          "The outputs run returns.")
      .def_prop_ro(
          "output_types",
          [](const PySession& s) {
            nb::dict d;
            for (const auto& [name, type] : s.outputs()) d[name.c_str()] = TypeTuple(type);
            return d;
          },
          "name -> (dtype, shape); a run-time size is None.")
      .def_prop_ro(
          "plan",
          [](PySession& s) {
            nb::list nodes;
            for (const PlanRow& r : s.Locked([](Session& x) { return PlanRows(x); })) {
              nb::dict d;
              d["index"] = r.index;
              d["op"] = r.op;
              d["name"] = r.name;
              d["hint"] = r.hint;
              d["device"] = r.device;
              d["reason"] = r.reason;
              d["detail"] = r.detail;
              nodes.append(d);
            }
            return nodes;
          },
          "Per node of the planned graph: index, op, name, hint, device, reason (hint, order, "
          "fallback, island) and detail, as `switchyard plan --json` gives them.")
      .def_prop_ro(
          "plan_text",
          [](PySession& s) {
            return s.Locked(
                [](Session& session) { return session.plan().Explain(session.graph()); });
          },
          "The plan as `switchyard plan` prints it: node -> device -> reason, copies, memory.")
      .def_prop_ro(
          "devices",
          [](PySession& s) {
            return s.Locked([](Session& session) {
              std::vector<std::string> used;
              const Plan& plan = session.plan();
              for (const PlanPartition& p : plan.partitions) {
                const std::string spec = plan.devices[p.device]->Spec();
                if (std::find(used.begin(), used.end(), spec) == used.end()) used.push_back(spec);
              }
              return used;
            });
          },
          "The devices the plan runs on, in first-use order.")
      .def_prop_ro(
          "stats",
          [](PySession& s) {
            const Session::Stats st = s.Locked([](Session& session) { return session.stats(); });
            nb::dict d;
            d["buffer_allocations"] = st.buffer_allocations;
            d["buffer_views"] = st.buffer_views;
            d["prepares"] = st.prepares;
            d["inputs_in_place"] = st.inputs_in_place;
            d["values_shared"] = st.values_shared;
            d["specializations"] = st.specializations;
            d["specialization_hits"] = st.specialization_hits;
            d["specializations_evicted"] = st.specializations_evicted;
            d["executables_resized"] = st.executables_resized;
            d["host_bytes_in"] = st.host_bytes_in;
            d["host_bytes_out"] = st.host_bytes_out;
            d["outputs_in_place"] = st.outputs_in_place;
            d["inputs_copied_by_python"] = s.inputs_copied();
            return d;
          },
          "Session::Stats, and inputs_copied_by_python: inputs this module had to copy "
          "(strided, unaligned, or not arrays).")
      .def_prop_ro("last_run_span", &PySession::last_run_span,
                   "(start, end) of the last run inside the runtime, in time.monotonic_ns() "
                   "nanoseconds.")
      .def_prop_ro("dynamic",
                   [](PySession& s) { return s.Locked([](Session& x) { return x.dynamic(); }); })
      .def_prop_ro("has_state",
                   [](PySession& s) { return s.Locked([](Session& x) { return x.has_state(); }); })
      .def_prop_ro(
          "state_length",
          [](PySession& s) { return s.Locked([](Session& x) { return x.state_length(); }); },
          "Positions the decoding state holds (0 without state).")
      .def_prop_ro(
          "state_capacity",
          [](PySession& s) { return s.Locked([](Session& x) { return x.state_capacity(); }); },
          "Positions the decoding state can hold (0 without state).")
      .def(
          "reset",
          [](PySession& s) { ThrowIfError(s.Locked([](Session& x) { return x.Reset(); })); },
          "Empties the decoding state: a new sequence.");
}

}  // namespace sy::python
