// The plugin host as Python sees it: switchyard._native.Host loads the plugins once (a
// scan of the package's own plugin folder and SWITCHYARD_PLUGIN_PATH, plus explicit
// paths) and is shared by the sessions made with it; each session keeps its host alive,
// so the host is destroyed only after every session of it (docs/host-api.md's order).
#pragma once

#include <nanobind/nanobind.h>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "switchyard/plugin_host.h"

namespace sy::python {

class Host {
 public:
  // `prefix`: the package folder (DiscoveryOptions::prefix). Throws StatusError.
  Host(const std::filesystem::path& prefix, uint32_t threads,
       const std::vector<std::string>& isolate, double timeout_seconds,
       const std::vector<std::string>& plugins);
  PluginHost& get() const { return *host_; }
  uint32_t threads() const { return threads_; }

 private:
  std::unique_ptr<PluginHost> host_;
  uint32_t threads_ = 0;
};

void BindHost(nanobind::module_& m);

}  // namespace sy::python
