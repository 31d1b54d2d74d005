// The host side of the plugin ABI: finding plugin shared objects, negotiating the ABI,
// and wrapping each loaded plugin's C function table in Status-returning C++.
//
// Discovery (docs/plugin-abi.md): every *.so in the directories of
// SWITCHYARD_PLUGIN_PATH (colon-separated), then the installed plugin directory
// (<prefix>/lib/switchyard/plugins, found relative to the executable as
// ../lib/switchyard/plugins, or under DiscoveryOptions::prefix), then the executable's own
// directory (not with a prefix), plus any path the host names explicitly. A candidate that
// fails during a scan is kept with its reason; an explicitly named plugin that fails is an
// error. Plugins are unloaded in the safe
// order: executables and buffers (owned by sessions, which must be gone first), then
// each plugin's context, then its library.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "switchyard/plugin.h"
#include "switchyard/status.h"

namespace sy {

enum class DeviceKind : uint32_t {
  kCpu = 0,
  kDiscreteGpu = 1,
  kIntegratedGpu = 2,
  kAccelerator = 3
};
std::string_view DeviceKindName(DeviceKind kind);  // "cpu", "gpu", "igpu", "accelerator"

class Plugin;

struct Device {
  Plugin* plugin = nullptr;  // owned by the PluginHost; lives as long as it does
  uint32_t index = 0;        // within its plugin
  std::string name;          // "cpu", "cpu-ref", "NVIDIA H200"
  std::string vendor;
  DeviceKind kind = DeviceKind::kCpu;
  uint32_t flags = 0;  // SY_DEVICE_FLAG_*
  uint64_t memory_bytes = 0;
  std::string details;  // how the device computes, free form ("" when the plugin says nothing)
  // The device reads host memory in place: it declares SY_DEVICE_FLAG_HOST_MEMORY and
  // its buffer_wrap_host accepted a probe when the plugin was loaded. Values produced on
  // another host-memory device then reach it by pointer, not by copy (docs/scheduling.md).
  bool wraps_host = false;

  bool host_memory() const { return flags & 0x1u; }
  bool reference() const { return flags & 0x2u; }
  // Declares SY_DEVICE_FLAG_FALLBACK: runs every catalogue op (docs/scheduling.md).
  bool fallback() const { return flags & 0x10u; }
  // Declares SY_DEVICE_FLAG_RESHAPE_IN_PLACE: a reshape's output may share its input's
  // buffer (docs/scheduling.md, "Memory").
  bool reshape_in_place() const { return flags & 0x20u; }
  // Declares SY_DEVICE_FLAG_RESIZABLE: its executables may run at other sizes, through
  // execute_resized where the plugin's table has it (docs/plugin-abi.md).
  bool resizable() const { return flags & 0x40u; }
  // Declares SY_DEVICE_FLAG_CACHE_WRITE_IN_PLACE: cache_write's output may be bound to its
  // cache input's buffer (decoding state written in place; docs/decoding.md).
  bool cache_write_in_place() const { return flags & 0x80u; }
  // "cpu:1"
  std::string Spec() const;
};

// One loaded plugin: the library, its function table and its initialised context.
class Plugin {
 public:
  ~Plugin();
  Plugin(const Plugin&) = delete;
  Plugin& operator=(const Plugin&) = delete;

  const std::string& name() const { return name_; }
  const std::string& version() const { return version_; }
  const std::string& vendor() const { return vendor_; }
  const std::filesystem::path& path() const { return path_; }
  uint32_t abi_version() const;
  const sy_plugin_api* api() const { return api_; }
  sy_context* context() const { return context_; }
  const std::vector<Device>& devices() const { return devices_; }
  // Why the plugin has no devices ("" when it has some).
  const std::string& status() const { return status_; }
  // Runs in a worker process (DiscoveryOptions::isolate); its pid, 0 when in-process.
  bool isolated() const { return worker_pid_ != 0; }
  int worker_pid() const { return worker_pid_; }

  // Converts an sy_error from this plugin to a Status (destroying the error); ok for null.
  Status TakeError(sy_error* error, std::string_view context) const;

 private:
  friend class PluginHost;
  Plugin() = default;
  struct Library;
  std::unique_ptr<Library> library_;    // destroyed last
  sy_plugin_api table_{};               // the plugin's table, copied; members it lacks are NULL
  const sy_plugin_api* api_ = nullptr;  // &table_ once loaded
  sy_context* context_ = nullptr;
  std::filesystem::path path_;
  std::string name_, version_, vendor_, status_;
  std::vector<Device> devices_;
  int worker_pid_ = 0;
};

struct PluginCandidate {
  std::filesystem::path path;
  bool loaded = false;
  std::string reason;  // why it was rejected; "" when loaded
  std::string name, version;
  uint32_t abi_version = 0;
  bool explicit_request = false;
  // How it was probed in a separate process before loading (docs/security.md): "probed",
  // "probed earlier (cached)", or "not probed: <why>".
  std::string probe;
  int worker_pid = 0;  // loaded into a worker process (isolated): its pid
};

struct DiscoveryOptions {
  bool scan_default_paths = true;  // SWITCHYARD_PLUGIN_PATH, installed dir, exe dir
  std::vector<std::filesystem::path>
      explicit_plugins;      // loaded after the scan; failures are errors
  uint32_t num_threads = 0;  // passed to plugins; 0 = their default
  // Load each candidate in a separate process first (the switchyard-plugin-probe
  // program), so that one that crashes, exits or hangs while loading is rejected with the
  // reason instead of taking the host down; verdicts are cached by the file's identity.
  bool probe_plugins = true;
  double probe_timeout_seconds = 10;
  // Called before each step of loading a plugin ("dlopen", "sy_plugin_query",
  // "initialize", "device_count", "device_info"); the probe program reports them.
  std::function<void(std::string_view step)> on_load_step;
  // Plugins to run in a worker process each (docs/plugin-isolation.md), by name ("cpu")
  // or path, or "all": a crash or hang of theirs then fails the call, not the host.
  std::vector<std::string> isolate;
  // Isolated plugins only: the longest any call may take (a run's execute included)
  // before the worker is killed and the call fails; 0 = no bound.
  double call_timeout_seconds = 0;
  // The installation prefix this host belongs to, for a host inside another program (the
  // Python module names its package folder, since the running program is the
  // interpreter): plugins in prefix/lib/switchyard/plugins, the probe and worker programs
  // in prefix/libexec/switchyard. Empty: the running program's (<exe>/.. and <exe>'s own
  // folder).
  std::filesystem::path prefix;
};

class PluginHost {
 public:
  // Scans and loads. Fails only when an explicit plugin fails (naming it and the reason).
  static Expected<std::unique_ptr<PluginHost>> Create(const DiscoveryOptions& options);
  ~PluginHost();

  const std::vector<PluginCandidate>& candidates() const { return candidates_; }
  const std::vector<std::unique_ptr<Plugin>>& plugins() const { return plugins_; }
  // Every device of every loaded plugin, in load order.
  std::vector<const Device*> devices() const;

  // "cpu" (the plugin's first non-reference device), "cpu:1" (by index), or a device
  // name such as "cpu-ref". Errors list what is available.
  Expected<const Device*> FindDevice(std::string_view spec) const;

  // The directories a scan looks in, in order (existing or not); `prefix` as
  // DiscoveryOptions::prefix.
  static std::vector<std::filesystem::path> SearchPath(const std::filesystem::path& prefix = {});

 private:
  PluginHost() = default;
  // Loads one candidate; on failure returns the reason.
  Expected<std::unique_ptr<Plugin>> Load(const std::filesystem::path& path,
                                         const DiscoveryOptions& options);
  // The same in a worker process (plugin/isolation/isolated_plugin.h).
  Expected<std::unique_ptr<Plugin>> LoadIsolated(const std::filesystem::path& path,
                                                 const DiscoveryOptions& options);
  std::vector<PluginCandidate> candidates_;
  std::vector<std::unique_ptr<Plugin>> plugins_;
};

}  // namespace sy
