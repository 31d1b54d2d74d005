#include "host.h"

#include <nanobind/stl/filesystem.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "errors.h"
#include "host_options.h"

namespace sy::python {
namespace nb = nanobind;

Host::Host(const std::filesystem::path& prefix, uint32_t threads,
           const std::vector<std::string>& isolate, double timeout_seconds,
           const std::vector<std::string>& plugins)
    : threads_(threads) {
  DiscoveryOptions options;
  options.prefix = prefix;
  options.num_threads = threads;
  options.isolate = isolate;
  options.call_timeout_seconds = timeout_seconds;
  for (const std::string& p : plugins) options.explicit_plugins.emplace_back(p);
  if (timeout_seconds > 0 && isolate.empty()) {
    Throw(InvalidArgument(
        "timeout needs isolate: a plugin running inside this process cannot be stopped "
        "(give isolate=\"all\", or the plugin's name)"));
  }
  {
    // Loading probes each plugin in a child process and may start workers: seconds, with
    // no Python object touched.
    nb::gil_scoped_release released;
    Expected<std::unique_ptr<PluginHost>> host = PluginHost::Create(options);
    if (host.ok()) {
      if (Status isolated = host_options::CheckIsolated(**host, isolate); !isolated.ok()) {
        host = InvalidArgument("isolate " + isolated.message());
      }
    }
    if (!host.ok()) {
      nb::gil_scoped_acquire gil;
      Throw(host.status());
    }
    host_ = std::move(*host);
  }
}

namespace {

nb::dict CandidateDict(const PluginCandidate& c) {
  nb::dict d;
  d["path"] = c.path.string();
  d["loaded"] = c.loaded;
  d["reason"] = c.reason;
  d["name"] = c.name;
  d["version"] = c.version;
  d["abi_version"] = c.abi_version;
  d["explicit"] = c.explicit_request;
  d["probe"] = c.probe;
  d["isolated"] = c.worker_pid != 0;
  return d;
}

nb::dict DeviceDict(const Device& device) {
  nb::dict d;
  d["spec"] = device.Spec();
  d["name"] = device.name;
  d["plugin"] = device.plugin->name();
  d["vendor"] = device.vendor;
  d["kind"] = std::string(DeviceKindName(device.kind));
  d["memory_bytes"] = device.memory_bytes;
  d["host_memory"] = device.host_memory();
  d["reads_host_memory_in_place"] = device.wraps_host;
  d["reference"] = device.reference();
  d["fallback"] = device.fallback();
  d["details"] = device.details;
  return d;
}

}  // namespace

void BindHost(nb::module_& m) {
  // Weakly referenceable: the package keeps its hosts in a WeakValueDictionary, so that a
  // host, and the worker processes of its isolated plugins, goes with its last session.
  nb::class_<Host>(m, "Host",
                   "Loaded plugins (the plugin host). Made by switchyard's module functions "
                   "and shared by the sessions made with the same plugin options while any "
                   "of them lives.",
                   nb::is_weak_referenceable())
      .def(nb::init<const std::filesystem::path&, uint32_t, const std::vector<std::string>&, double,
                    const std::vector<std::string>&>(),
           nb::arg("prefix"), nb::arg("threads") = 0,
           nb::arg("isolate") = std::vector<std::string>{}, nb::arg("timeout") = 0.0,
           nb::arg("plugins") = std::vector<std::string>{})
      .def_prop_ro("threads", &Host::threads)
      .def(
          "plugins",
          [](const Host& h) {
            nb::list out;
            for (const PluginCandidate& c : h.get().candidates()) out.append(CandidateDict(c));
            return out;
          },
          "Every plugin candidate: path, loaded, reason (why it was rejected), name, version, "
          "abi_version, explicit, probe, isolated.")
      .def(
          "devices",
          [](const Host& h) {
            nb::list out;
            for (const Device* d : h.get().devices()) out.append(DeviceDict(*d));
            return out;
          },
          "Every device of every loaded plugin, in load order: spec (\"cpu:0\"), name, plugin, "
          "vendor, kind, memory_bytes, host_memory, reads_host_memory_in_place, reference, "
          "fallback, details.")
      .def_static(
          "search_path",
          [](const std::filesystem::path& prefix) {
            std::vector<std::string> out;
            for (const auto& dir : PluginHost::SearchPath(prefix)) out.push_back(dir.string());
            return out;
          },
          nb::arg("prefix"), "The folders a scan looks in, in order.");
}

}  // namespace sy::python
