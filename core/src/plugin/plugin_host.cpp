#include "switchyard/plugin_host.h"

#define BOOST_DLL_USE_STD_FS
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <map>

#include <boost/dll/shared_library.hpp>

#include "plugin/install_layout.h"
#include "plugin/isolation/isolated_plugin.h"
#include "plugin/plugin_probe.h"
#include "switchyard/plugin.h"

namespace sy {

struct Plugin::Library {
  boost::dll::shared_library lib;
};

std::string_view DeviceKindName(DeviceKind kind) {
  switch (kind) {
    case DeviceKind::kCpu:
      return "cpu";
    case DeviceKind::kDiscreteGpu:
      return "gpu";
    case DeviceKind::kIntegratedGpu:
      return "igpu";
    case DeviceKind::kAccelerator:
      return "accelerator";
  }
  return "unknown";
}

std::string Device::Spec() const {
  return (plugin ? plugin->name() : std::string("?")) + ":" + std::to_string(index);
}

uint32_t Plugin::abi_version() const { return api_ ? api_->abi_version : 0; }

Plugin::~Plugin() {
  // The context goes before the library that holds its code.
  if (context_ != nullptr && api_ != nullptr) api_->shutdown(context_);
  context_ = nullptr;
  library_.reset();
}

namespace {

// Strings a plugin reports, read up to this many bytes (a plugin that forgets the
// terminator must not have the host read, or copy, without end).
constexpr size_t kMaxPluginString = 4096;

std::string SafeString(const char* s) {
  return s ? std::string(s, strnlen(s, kMaxPluginString)) : std::string();
}

}  // namespace

Status Plugin::TakeError(sy_error* error, std::string_view context) const {
  if (error == nullptr) return Status::Ok();
  const char* message = api_->error_message(error);
  const uint32_t code = api_->error_code(error);
  std::string text = "plugin " + name_ + ": " + std::string(context) + ": " +
                     (message ? SafeString(message) : std::string("(no message)"));
  api_->error_destroy(error);
  switch (code) {
    case SY_ERROR_INVALID_ARGUMENT:
    case SY_ERROR_DATA:
      return InvalidArgument(std::move(text));
    case SY_ERROR_NOT_FOUND:
      return NotFound(std::move(text));
    case SY_ERROR_UNSUPPORTED:
      return Unsupported(std::move(text));
    case SY_ERROR_RESOURCE_EXHAUSTED:
      return ResourceExhausted(std::move(text));
    default:
      return Internal(std::move(text));
  }
}

namespace {

// The functions every ABI 1 table has; later members are optional (read only when
// struct_size covers them, which Plugin's zero-filled copy of the table takes care of).
constexpr uint32_t kRequiredTableSize = offsetof(sy_plugin_api, release) + sizeof(void*);

// The table must be long enough to hold every required function.
bool TableCovers(const sy_plugin_api* api) {
  return api->struct_size >= kRequiredTableSize && api->info != nullptr && api->error_message &&
         api->error_code && api->error_destroy && api->initialize && api->shutdown &&
         api->context_status && api->device_count && api->device_info && api->supports_node &&
         api->buffer_alloc && api->buffer_free && api->buffer_host_pointer &&
         api->copy_host_to_device && api->copy_device_to_host && api->prepare && api->execute &&
         api->release;
}

// Devices one plugin may report: far above any machine's, far below what a plugin that
// reports garbage (2^32 - 1) would make the host allocate.
constexpr uint32_t kMaxDevicesPerPlugin = 1024;

}  // namespace

std::vector<std::filesystem::path> PluginHost::SearchPath(const std::filesystem::path& prefix) {
  std::vector<std::filesystem::path> dirs;
  if (const char* env = std::getenv("SWITCHYARD_PLUGIN_PATH")) {
    std::string_view rest(env);
    while (!rest.empty()) {
      const size_t colon = rest.find(':');
      const std::string_view part = rest.substr(0, colon);
      if (!part.empty()) dirs.emplace_back(std::string(part));
      if (colon == std::string_view::npos) break;
      rest.remove_prefix(colon + 1);
    }
  }
  for (std::filesystem::path& dir : InstallDirsFor(prefix).plugins) dirs.push_back(std::move(dir));
  return dirs;
}

Expected<std::unique_ptr<Plugin>> PluginHost::Load(const std::filesystem::path& path,
                                                   const DiscoveryOptions& options) {
  const auto step = [&options](std::string_view name) {
    if (options.on_load_step) options.on_load_step(name);
  };
  auto plugin = std::unique_ptr<Plugin>(new Plugin());
  plugin->path_ = path;
  plugin->library_ = std::make_unique<Plugin::Library>();
  std::error_code ec;
  // RTLD_LOCAL: plugins' symbols never satisfy each other's.
  step("dlopen");
  plugin->library_->lib.load(
      path, boost::dll::load_mode::rtld_local | boost::dll::load_mode::rtld_now, ec);
  if (ec)
    return Unsupported("cannot load: " + ec.message() +
                       " (not a shared object, or a library it needs is missing)");
  if (!plugin->library_->lib.has(SY_PLUGIN_QUERY_SYMBOL)) {
    return Unsupported("no entry symbol sy_plugin_query (not a Switchyard plugin)");
  }
  auto query = plugin->library_->lib.get<const sy_plugin_api*(uint32_t)>(SY_PLUGIN_QUERY_SYMBOL);
  step("sy_plugin_query");
  const sy_plugin_api* api = query(SY_PLUGIN_ABI_VERSION);
  if (api == nullptr) {
    return Unsupported("sy_plugin_query(" + std::to_string(SY_PLUGIN_ABI_VERSION) +
                       ") returned null: the plugin cannot serve this host's ABI version");
  }
  if (api->abi_version > SY_PLUGIN_ABI_VERSION) {
    return Unsupported("ABI version " + std::to_string(api->abi_version) +
                       " is newer than this host's " + std::to_string(SY_PLUGIN_ABI_VERSION) +
                       " (upgrade Switchyard)");
  }
  if (api->abi_version < SY_PLUGIN_ABI_MIN_VERSION) {
    return Unsupported("ABI version " + std::to_string(api->abi_version) +
                       " is older than the oldest this host accepts (" +
                       std::to_string(SY_PLUGIN_ABI_MIN_VERSION) + "); rebuild the plugin");
  }
  if (!TableCovers(api)) {
    return Unsupported("function table is incomplete for ABI version " +
                       std::to_string(api->abi_version));
  }
  // A copy as long as this host's table, zero beyond what the plugin provided, so that
  // optional members appended later read as NULL for older plugins. Whole members only:
  // a struct_size that ends inside a function pointer (found by fuzz_plugin_table) must
  // not leave half of one in the copy.
  const size_t provided =
      std::min<size_t>(api->struct_size, sizeof(sy_plugin_api)) / alignof(void*) * alignof(void*);
  std::memcpy(&plugin->table_, api, provided);
  plugin->api_ = &plugin->table_;
  plugin->name_ = SafeString(api->info->name);
  plugin->version_ = SafeString(api->info->version);
  plugin->vendor_ = SafeString(api->info->vendor);
  if (plugin->name_.empty()) return Unsupported("plugin info has no name");

  // Every node this host sends comes from NodeDescriptors, which makes it canonical.
  sy_init_options init_options{sizeof(sy_init_options), SY_PLUGIN_ABI_VERSION, options.num_threads,
                               SY_INIT_FLAG_CANONICAL_NODES};
  sy_context* context = nullptr;
  step("initialize");
  Status init = plugin->TakeError(api->initialize(&init_options, &context), "initialize");
  if (!init.ok()) return Unsupported("initialisation failed: " + init.message());
  if (context == nullptr) return Unsupported("initialize returned no context");
  plugin->context_ = context;
  step("context_status");
  plugin->status_ = SafeString(api->context_status(context));
  step("device_count");
  const uint32_t count = api->device_count(context);
  if (count > kMaxDevicesPerPlugin) {
    return Unsupported("device_count reports " + std::to_string(count) + " devices (at most " +
                       std::to_string(kMaxDevicesPerPlugin) + " are accepted)");
  }
  for (uint32_t i = 0; i < count; ++i) {
    sy_device_info info{};
    info.struct_size = sizeof info;
    info.abi_version = SY_PLUGIN_ABI_VERSION;
    step("device_info");
    Status described = plugin->TakeError(api->device_info(context, i, &info), "device_info");
    if (!described.ok()) return Unsupported(described.message());
    Device device;
    device.plugin = plugin.get();
    device.index = i;
    device.name = SafeString(info.name);
    device.vendor = SafeString(info.vendor);
    device.kind = info.kind <= 3 ? static_cast<DeviceKind>(info.kind) : DeviceKind::kAccelerator;
    device.flags = info.flags;
    device.memory_bytes = info.memory_bytes;
    device.details = SafeString(info.details);
    if (device.host_memory() && plugin->api()->buffer_wrap_host != nullptr) {
      // Probed once here, so that plans can count on it: a plugin may decline
      // buffer_wrap_host (SY_ERROR_UNSUPPORTED) although its table has the function.
      step("buffer_wrap_host");
      alignas(256) static std::byte probe[256];
      sy_buffer* wrapped = nullptr;
      sy_error* error = plugin->api()->buffer_wrap_host(context, i, probe, sizeof probe, &wrapped);
      if (error != nullptr) {
        plugin->api()->error_destroy(error);
      } else if (wrapped != nullptr) {
        device.wraps_host = true;
        plugin->api()->buffer_free(wrapped);
      }
    }
    plugin->devices_.push_back(std::move(device));
  }
  if (plugin->devices_.empty()) {
    return Unsupported("no devices" + (plugin->status_.empty() ? "" : ": " + plugin->status_));
  }
  return plugin;
}

Expected<std::unique_ptr<Plugin>> PluginHost::LoadIsolated(const std::filesystem::path& path,
                                                           const DiscoveryOptions& options) {
  isolation::StartOptions start;
  start.num_threads = options.num_threads;
  start.start_timeout_seconds = std::max(30.0, options.probe_timeout_seconds);
  start.call_timeout_seconds = options.call_timeout_seconds;
  start.prefix = options.prefix;
  SY_ASSIGN_OR_RETURN(isolation::IsolatedPlugin isolated, isolation::StartIsolated(path, start));
  auto plugin = std::unique_ptr<Plugin>(new Plugin());
  plugin->path_ = path;
  // What the worker reports is checked as a plugin's own answers are (Load).
  if (isolated.abi_version > SY_PLUGIN_ABI_VERSION ||
      isolated.abi_version < SY_PLUGIN_ABI_MIN_VERSION) {
    isolated.api->shutdown(isolated.context);
    return Unsupported("ABI version " + std::to_string(isolated.abi_version) +
                       " is outside what this host accepts (" +
                       std::to_string(SY_PLUGIN_ABI_MIN_VERSION) + " to " +
                       std::to_string(SY_PLUGIN_ABI_VERSION) + ")");
  }
  if (isolated.devices.size() > kMaxDevicesPerPlugin) {
    isolated.api->shutdown(isolated.context);
    return Unsupported("its worker reports " + std::to_string(isolated.devices.size()) +
                       " devices (at most " + std::to_string(kMaxDevicesPerPlugin) +
                       " are accepted)");
  }
  plugin->table_ = *isolated.api;
  plugin->table_.abi_version = isolated.abi_version;
  // The proxy has every optional function; those the plugin lacks read as NULL, so that
  // the host takes its own path (separate buffers, staged copies, whole partitions).
  if ((isolated.optional_functions & isolation::kHasBufferView) == 0) {
    plugin->table_.buffer_view = nullptr;
  }
  if ((isolated.optional_functions & isolation::kHasCopyDeviceToDevice) == 0) {
    plugin->table_.copy_device_to_device = nullptr;
  }
  if ((isolated.optional_functions & isolation::kHasExecuteProfiled) == 0) {
    plugin->table_.execute_profiled = nullptr;
  }
  plugin->api_ = &plugin->table_;
  plugin->context_ = isolated.context;  // its shutdown stops the worker
  plugin->worker_pid_ = isolated.pid;
  plugin->name_ = std::move(isolated.name);
  plugin->version_ = std::move(isolated.version);
  plugin->vendor_ = std::move(isolated.vendor);
  plugin->status_ = std::move(isolated.status);
  for (size_t i = 0; i < isolated.devices.size(); ++i) {
    const isolation::IsolatedDevice& d = isolated.devices[i];
    Device device;
    device.plugin = plugin.get();
    device.index = static_cast<uint32_t>(i);
    device.name = d.name;
    device.vendor = d.vendor;
    device.kind = d.kind <= 3 ? static_cast<DeviceKind>(d.kind) : DeviceKind::kAccelerator;
    device.flags = d.flags;
    device.memory_bytes = d.memory_bytes;
    device.details = d.details;
    plugin->devices_.push_back(std::move(device));
  }
  if (plugin->devices_.empty()) {
    return Unsupported("no devices" + (plugin->status_.empty() ? "" : ": " + plugin->status_));
  }
  return plugin;
}

namespace {

// Whether two spellings of a path name the same file ("./lib.so" and "/abs/lib.so").
bool SamePath(const std::filesystem::path& a, const std::filesystem::path& b) {
  std::error_code ec;
  return a == b || std::filesystem::equivalent(a, b, ec);
}

// Whether the user asked for `plugin` (loaded from `path`) to run in a worker process.
bool IsolationWanted(const std::vector<std::string>& isolate, const std::string& name,
                     const std::filesystem::path& path) {
  for (const std::string& wanted : isolate) {
    if (wanted == "all" || wanted == name || SamePath(wanted, path)) return true;
  }
  return false;
}

// Whether `path` is named by path (not by "all" or a plugin name) in `isolate`.
bool IsolationAskedByPath(const std::vector<std::string>& isolate,
                          const std::filesystem::path& path) {
  for (const std::string& wanted : isolate) {
    if (wanted == "all" || SamePath(wanted, path)) return true;
  }
  return false;
}

}  // namespace

Expected<std::unique_ptr<PluginHost>> PluginHost::Create(const DiscoveryOptions& options) {
  auto host = std::unique_ptr<PluginHost>(new PluginHost());
  if (!options.isolate.empty()) {
    // Isolation was asked for: without the worker program no plugin can have it.
    if (Expected<std::filesystem::path> worker = isolation::FindWorkerProgram(options.prefix);
        !worker.ok()) {
      return Unsupported("cannot isolate plugins: " + worker.status().message());
    }
  }
  std::map<std::filesystem::path, size_t> seen;  // canonical path -> index in candidates_
  auto consider = [&](const std::filesystem::path& path, bool is_explicit) -> Status {
    std::error_code ec;
    const std::filesystem::path canonical = std::filesystem::weakly_canonical(path, ec);
    const std::filesystem::path key = ec ? path : canonical;
    if (const auto it = seen.find(key); it != seen.end()) {
      // Already considered (found by the scan, or named twice). A plugin the user asked
      // for by name that the scan rejected is still an error.
      PluginCandidate& earlier = host->candidates_[it->second];
      if (!is_explicit) return Status::Ok();
      earlier.explicit_request = true;
      if (earlier.loaded) return Status::Ok();
      return Unsupported(earlier.reason).WithContext("plugin " + path.string());
    }
    seen.emplace(key, host->candidates_.size());
    PluginCandidate candidate;
    candidate.path = path;
    candidate.explicit_request = is_explicit;
    Expected<std::unique_ptr<Plugin>> plugin =
        Expected<std::unique_ptr<Plugin>>(NotFound("no such file"));
    if (std::filesystem::exists(path, ec)) {
      // First in a separate process (plugin_probe.h): what crashes, exits or hangs there
      // is rejected without being loaded here.
      ProbeResult probe;
      if (options.probe_plugins) {
        probe =
            ProbePlugin(path, options.num_threads, options.probe_timeout_seconds, options.prefix);
      } else {
        probe.reason = "probing turned off by the host";
      }
      candidate.probe = probe.kind == ProbeResult::Kind::kSkipped ? "not probed: " + probe.reason
                        : probe.cached                            ? "probed earlier (cached)"
                                                                  : "probed";
      if (probe.kind == ProbeResult::Kind::kRejected) {
        plugin = Unsupported(probe.reason + (probe.cached ? " (when probed earlier; the file "
                                                            "has not changed since)"
                                                          : ""));
      } else if (!options.isolate.empty()) {
        // The plugin's name is known once it is loaded, so it is loaded in a worker first;
        // one the user did not ask to isolate then moves into this process.
        plugin = host->LoadIsolated(path, options);
        if (plugin.ok() && !IsolationWanted(options.isolate, (*plugin)->name(), path)) {
          plugin->reset();
          plugin = host->Load(path, options);
        } else if (!plugin.ok() && !IsolationAskedByPath(options.isolate, path)) {
          // Perhaps a plugin nobody asked to isolate, which fails only in a worker (or
          // whose name the failure leaves unknown): loaded as without --isolate. One
          // asked for by name that loads here is still an error (LoadPlugins' check).
          plugin = host->Load(path, options);
        }
      } else {
        plugin = host->Load(path, options);
      }
    }
    if (plugin.ok()) {
      const auto same_name =
          std::find_if(host->plugins_.begin(), host->plugins_.end(),
                       [&](const auto& p) { return p->name() == (*plugin)->name(); });
      if (same_name != host->plugins_.end()) {
        plugin = Unsupported("a plugin named \"" + (*plugin)->name() +
                             "\" is already loaded from " + (*same_name)->path().string());
      }
    }
    if (plugin.ok()) {
      candidate.loaded = true;
      candidate.name = (*plugin)->name();
      candidate.version = (*plugin)->version();
      candidate.abi_version = (*plugin)->abi_version();
      candidate.worker_pid = (*plugin)->worker_pid();
      host->plugins_.push_back(std::move(*plugin));
    } else {
      candidate.reason = plugin.status().message();
    }
    host->candidates_.push_back(candidate);
    if (!candidate.loaded && is_explicit) {
      return plugin.status().WithContext("plugin " + path.string());
    }
    return Status::Ok();
  };
  if (options.scan_default_paths) {
    for (const std::filesystem::path& dir : SearchPath(options.prefix)) {
      std::error_code ec;
      if (!std::filesystem::is_directory(dir, ec)) continue;
      std::vector<std::filesystem::path> files;
      for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
        if (entry.path().extension() == ".so" && entry.is_regular_file(ec)) {
          files.push_back(entry.path());
        }
      }
      std::sort(files.begin(), files.end());
      for (const auto& file : files) SY_RETURN_IF_ERROR(consider(file, false));
    }
  }
  for (const auto& path : options.explicit_plugins) SY_RETURN_IF_ERROR(consider(path, true));
  return host;
}

PluginHost::~PluginHost() {
  // Later plugins first, mirroring load order; each unloads its context then library.
  while (!plugins_.empty()) plugins_.pop_back();
}

std::vector<const Device*> PluginHost::devices() const {
  std::vector<const Device*> out;
  for (const auto& p : plugins_) {
    for (const Device& d : p->devices()) out.push_back(&d);
  }
  return out;
}

Expected<const Device*> PluginHost::FindDevice(std::string_view spec) const {
  const size_t colon = spec.find(':');
  const std::string_view name = spec.substr(0, colon);
  std::string available;
  for (const Device* d : devices())
    available += (available.empty() ? "" : ", ") + d->Spec() + " (" + d->name + ")";
  if (available.empty()) available = "none";
  for (const auto& p : plugins_) {
    if (p->name() != name) continue;
    if (colon == std::string_view::npos) {
      for (const Device& d : p->devices()) {
        if (!d.reference()) return &d;
      }
      return &p->devices().front();
    }
    const std::string index(spec.substr(colon + 1));
    char* end = nullptr;
    const unsigned long i = std::strtoul(index.c_str(), &end, 10);
    if (index.empty() || *end != '\0' || i >= p->devices().size()) {
      return NotFound("device \"" + std::string(spec) + "\": plugin " + p->name() + " has " +
                      std::to_string(p->devices().size()) + " devices (available: " + available +
                      ")");
    }
    return &p->devices()[i];
  }
  if (colon == std::string_view::npos) {
    for (const Device* d : devices()) {
      if (d->name == name) return d;
    }
  }
  // A plugin of that name that the scan rejected (one that loaded but found no device, as
  // a GPU plugin on a machine without the GPU, or one whose initialisation failed) has no
  // name on record: find it by file name to say why.
  const std::string file = "libswitchyard_" + std::string(name) + ".so";
  for (const PluginCandidate& c : candidates_) {
    if (c.loaded || c.path.filename() != file) continue;
    const std::string why =
        c.reason.rfind("no devices", 0) == 0 ? " has " + c.reason : " was not loaded: " + c.reason;
    return NotFound("no device \"" + std::string(spec) + "\": plugin " + std::string(name) + why +
                    " (available: " + available + ")");
  }
  return NotFound("no device \"" + std::string(spec) + "\" (available: " + available + ")");
}

}  // namespace sy
