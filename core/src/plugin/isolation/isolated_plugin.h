// Running a plugin in a worker process (docs/plugin-isolation.md). The host starts the
// program `switchyard-plugin-worker` (tools/plugin_worker/), which loads the plugin as
// the host would and serves the plugin ABI's calls over a socket. On the host's side the
// plugin is represented by a proxy function table with the same C ABI, so placement,
// planning and sessions use an isolated plugin exactly as a loaded one.
//
// Buffers of a device with host memory that wraps host pointers are shared memory: the
// host maps the region, the worker wraps the same pages with buffer_wrap_host, so inputs
// and outputs cross by a memcpy on the host's side and a partition's data never passes
// through the socket; executing a partition is one round trip. Other devices' buffers
// live in the worker, and copies go through a shared staging region.
//
// When the worker crashes, exits or does not answer within the call timeout, the call
// fails with an error naming the plugin, the device and what it was doing; the worker is
// killed, and every later call to that plugin fails the same way. The host is unaffected.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "switchyard/plugin.h"
#include "switchyard/status.h"

namespace sy::isolation {

struct StartOptions {
  uint32_t num_threads = 0;           // passed to the plugin's initialize
  double start_timeout_seconds = 30;  // loading the plugin in the worker
  double call_timeout_seconds = 0;    // every later call; 0 = no bound
  std::filesystem::path prefix;       // where to find the worker (DiscoveryOptions::prefix)
};

struct IsolatedDevice {
  std::string name, vendor, details;
  uint32_t kind = 0, flags = 0;
  uint64_t memory_bytes = 0;
};

// What the worker reported, and the proxy through which the host calls it. `api` has
// static lifetime; `context` is the proxy's, ended (and the worker with it) by
// api->shutdown(context).
struct IsolatedPlugin {
  const sy_plugin_api* api = nullptr;
  sy_context* context = nullptr;
  uint32_t abi_version = 0;
  std::string name, version, vendor, status;
  std::vector<IsolatedDevice> devices;
  int pid = 0;
  // Which optional functions the plugin itself has (kHas*): the proxy's table has them
  // all, so the host nulls those the plugin lacks to keep its own fallbacks.
  uint32_t optional_functions = 0;
};

inline constexpr uint32_t kHasBufferView = 1u << 0;
inline constexpr uint32_t kHasCopyDeviceToDevice = 1u << 1;
inline constexpr uint32_t kHasExecuteProfiled = 1u << 2;

// Starts a worker for `plugin` and waits for its report. Fails when the worker program is
// missing, or the plugin fails to load there (crashing, exiting or hanging included).
Expected<IsolatedPlugin> StartIsolated(const std::filesystem::path& plugin,
                                       const StartOptions& options);

// The worker program's name, and where StartIsolated looks for it: SWITCHYARD_PLUGIN_WORKER
// (a path), else next to the running program, else <prefix>/libexec/switchyard; with
// `prefix` given, prefix/libexec/switchyard only (install_layout.h). An error
// says what was looked for when it is not there (or not executable).
inline constexpr char kWorkerProgram[] = "switchyard-plugin-worker";
Expected<std::filesystem::path> FindWorkerProgram(const std::filesystem::path& prefix = {});

// The worker's end of the socket.
inline constexpr int kWorkerSocketFd = 3;

}  // namespace sy::isolation
