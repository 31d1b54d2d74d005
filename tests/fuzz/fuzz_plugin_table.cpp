// Fuzzes the plugin host's handling of what a plugin reports and returns: the plugin
// (fuzzed_plugin.cpp, a real shared object) answers every call from the fuzzer's bytes.
// Each input loads it through PluginHost (as `switchyard` does, the probe off: it would
// load the plugin in a child with other bytes), describes its devices, and, where one
// loads with a device, plans and runs `neg` on it through a Session. A finding is a
// sanitizer report or a crash in the host; refusals with errors are the expected outcome.
#include <dlfcn.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <string>

#include "switchyard/graph.h"
#include "switchyard/model_io.h"
#include "switchyard/plugin_host.h"
#include "switchyard/session.h"

namespace {

using SetInput = void (*)(const uint8_t*, size_t);

SetInput Setter() {
  // Held open for the fuzzer's lifetime, so that each PluginHost's load and unload of
  // the same file is cheap and the setter stays valid.
  static void* library = dlopen(SY_FUZZED_PLUGIN_PATH, RTLD_NOW | RTLD_LOCAL);
  if (library == nullptr) {
    std::fprintf(stderr, "cannot load %s: %s\n", SY_FUZZED_PLUGIN_PATH, dlerror());
    std::abort();
  }
  static auto setter = reinterpret_cast<SetInput>(dlsym(library, "sy_fuzz_set_input"));
  if (setter == nullptr) std::abort();
  return setter;
}

sy::Graph Neg() {
  sy::Graph g;
  g.values = {{"x", {sy::DType::kF32, {4}}}, {"y", {sy::DType::kF32, {4}}}};
  g.inputs = {0};
  g.outputs = {1};
  g.nodes.push_back({"neg", {0}, {1}, {}, "n", ""});
  return g;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Setter()(data, size);
  sy::DiscoveryOptions options;
  options.scan_default_paths = false;
  options.probe_plugins = false;
  options.explicit_plugins = {SY_FUZZED_PLUGIN_PATH};
  sy::Expected<std::unique_ptr<sy::PluginHost>> host = sy::PluginHost::Create(options);
  if (!host.ok()) return 0;
  for (const sy::Device* device : (*host)->devices()) {
    const std::string spec = device->Spec() + device->name + device->vendor + device->details;
    (void)spec;
  }
  static const sy::Graph graph = Neg();
  for (const sy::Device* device : (*host)->devices()) {
    sy::Expected<std::unique_ptr<sy::Session>> session = sy::Session::Create(graph, *device);
    if (!session.ok()) continue;
    sy::Tensor x = *sy::Tensor::Allocate(sy::DType::kF32, {4});
    for (int run = 0; run < 2; ++run) {
      sy::Expected<std::map<std::string, sy::Tensor>> out = (*session)->Run({{"x", x}});
      (void)out;
    }
  }
  return 0;
}
