// `switchyard devices [--json]`: every device of every loaded plugin, with how many ops
// of the catalogue it supports (asked per op with f32 inputs of a representative shape).
#include <iostream>

#include "cli.h"
#include "switchyard/op_schema.h"

namespace sy::cli {
namespace {

// Counts catalogue ops the device's plugin runs at all: each query names the op only,
// with no inputs and no outputs (the op-level question of docs/plugin-abi.md), so it
// measures breadth, not every dtype and shape.
int CountSupportedOps(const Device& device) {
  const sy_plugin_api* api = device.plugin->api();
  int count = 0;
  for (const OpSchema& schema : OpRegistry::Global().schemas()) {
    sy_node node{};
    node.struct_size = sizeof node;
    node.abi_version = SY_PLUGIN_ABI_VERSION;
    std::string op(schema.name);
    node.op = op.c_str();
    node.name = "";
    uint32_t supported = 0;
    char reason[128];
    sy_error* error = api->supports_node(device.plugin->context(), device.index, &node, &supported,
                                         reason, sizeof reason);
    if (error != nullptr) {
      api->error_destroy(error);
      continue;
    }
    count += supported ? 1 : 0;
  }
  return count;
}

}  // namespace

int RunDevices(const std::vector<std::string>& args) {
  namespace po = boost::program_options;
  po::options_description visible(
      "usage: switchyard devices [--plugin PATH]... [--json]\n\n"
      "Lists every device of every loaded plugin: its spec (plugin:index) for --device,\n"
      "name, kind, memory, how many catalogue ops it supports, and what the plugin says of\n"
      "how the device computes (its kernels and the instruction set they use).\n\n"
      "options");
  visible.add_options()("help,h", "show this help")("json", "print JSON");
  AddPluginOptions(visible);
  po::variables_map vm;
  int exit_code = kExitOk;
  if (!ParseArgs("devices", args, visible, nullptr, vm, exit_code)) return exit_code;
  Expected<std::unique_ptr<PluginHost>> host = LoadPlugins(vm);
  if (!host.ok()) {
    PrintError("devices", host.status().message());
    return kExitFailure;
  }
  const size_t catalogue = OpRegistry::Global().schemas().size();
  boost::json::array out;
  for (const Device* d : (*host)->devices()) {
    const int ops = CountSupportedOps(*d);
    if (vm.count("json")) {
      out.push_back({{"spec", d->Spec()},
                     {"plugin", d->plugin->name()},
                     {"index", d->index},
                     {"name", d->name},
                     {"kind", DeviceKindName(d->kind)},
                     {"memory_bytes", d->memory_bytes},
                     {"reference", d->reference()},
                     {"ops_supported", ops},
                     {"ops_in_catalogue", catalogue},
                     {"details", d->details}});
    } else {
      std::cout << d->Spec() << "  " << d->name << "  kind " << DeviceKindName(d->kind)
                << "  memory " << (d->memory_bytes >> 20) << " MiB  ops " << ops << "/" << catalogue
                << (d->reference() ? "  (reference: used only when asked for)" : "") << "\n";
      if (!d->details.empty()) std::cout << "    " << d->details << "\n";
    }
  }
  if (vm.count("json")) {
    std::cout << boost::json::serialize(out) << "\n";
    return kExitOk;
  }
  if ((*host)->devices().empty()) {
    std::cout << "no devices (see 'switchyard plugins' for why)\n";
  }
  // Plugins that load but find no device (the CUDA plugin without a GPU or driver), with
  // their reason; 'switchyard plugins' lists every other rejected candidate.
  for (const PluginCandidate& c : (*host)->candidates()) {
    if (!c.loaded && c.reason.rfind("no devices", 0) == 0) {
      std::cout << c.path.filename().string() << ": " << c.reason << "\n";
    }
  }
  return kExitOk;
}

}  // namespace sy::cli
