// What every front end of the runtime does with the names a user gives (the CLI's
// --plugin/--threads/--isolate/--device/--memory-limit, the Python module's keyword
// arguments): load the plugins, turn device specs and memory limits into PlanOptions, and
// write an imported model where the user said.
// One implementation, so that both accept the same specs and fail with the same messages.
// Messages name no option: each front end prefixes its own spelling ("--device: ",
// "device: ").
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "switchyard/graph.h"
#include "switchyard/plan.h"
#include "switchyard/plugin_host.h"
#include "switchyard/status.h"

namespace sy::host_options {

// After PluginHost::Create: every plugin named in `isolate` (other than "all") must be
// running isolated, since a misspelt name would otherwise leave the plugin in this process
// without a word. kInvalidArgument "NAME: no plugin of that name or path was loaded ...".
Status CheckIsolated(const PluginHost& host, const std::vector<std::string>& isolate);

// Device specs in order of preference ("opencl:0", "cpu", "cpu-ref"), each found with
// PluginHost::FindDevice; a device named twice is an error. kInvalidArgument errors.
Expected<std::vector<const Device*>> FindDevices(const PluginHost& host,
                                                 const std::vector<std::string>& specs);

// "cpu" and "64MiB" (ParseByteSize's forms): the device and its limit in bytes.
// kInvalidArgument errors.
Expected<std::pair<const Device*, uint64_t>> MemoryLimit(const PluginHost& host,
                                                         const std::string& device,
                                                         const std::string& bytes);

// Writes `graph` as STEM.json (+ STEM.safetensors) for an output named STEM or STEM.json,
// or as the single file STEM.symodel for an output so named, making STEM's folder first
// (as `switchyard import -o` and the Python import_onnx do). Returns the model file
// written: STEM.json or STEM.symodel.
Expected<std::filesystem::path> SaveModelAt(const Graph& graph, std::filesystem::path stem);

}  // namespace sy::host_options
