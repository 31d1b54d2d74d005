// `switchyard devices [--json]`: every device of every loaded plugin, with how many ops
// of the catalogue it supports (asked per op with f32 inputs of a representative shape).
#include <iostream>
#include <string>

#include "cli.h"
#include "switchyard/op_schema.h"

namespace sy::cli {
namespace {

// What the op-level queries of one device gave.
struct OpCount {
  int supported = 0;
  int errors = 0;           // queries answered with an error instead of yes or no
  std::string first_error;  // the first such error's message
};

// Counts catalogue ops the device's plugin runs at all: each query names the op only,
// with no inputs and no outputs (the op-level question of docs/plugin-abi.md), so it
// measures breadth, not every dtype and shape. A plugin that answers that query with an
// error (it expected inputs, say) is counted, so that the listing can say so rather than
// show a device that runs nothing.
OpCount CountSupportedOps(const Device& device) {
  const sy_plugin_api* api = device.plugin->api();
  OpCount count;
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
      if (count.errors++ == 0) {
        const char* message = api->error_message(error);
        count.first_error =
            std::string(op) + ": " + (message != nullptr ? message : "(no message)");
      }
      api->error_destroy(error);
      continue;
    }
    count.supported += supported ? 1 : 0;
  }
  return count;
}

// The warning for a device whose op-level answers look wrong; empty when they look right.
std::string OpQueryWarning(const Device& device, const OpCount& count, size_t catalogue) {
  if (count.errors > 0) {
    return device.Spec() + ": " + std::to_string(count.errors) + " of " +
           std::to_string(catalogue) +
           " op-level supports_node queries (a node naming the op only, no inputs or "
           "outputs) returned an error instead of an answer, so its op count is too low; "
           "first: " +
           count.first_error + " (docs/plugin-abi.md)";
  }
  if (count.supported == 0) {
    return device.Spec() + ": supports none of the catalogue's " + std::to_string(catalogue) +
           " ops; does its supports_node answer the op-level query (a node naming the op "
           "only, no inputs or outputs)? (docs/plugin-abi.md)";
  }
  return "";
}

}  // namespace

int RunDevices(const std::vector<std::string>& args) {
  namespace po = boost::program_options;
  po::options_description visible(
      "usage: switchyard devices [--plugin PATH]... [--isolate PLUGIN|all]... [--json]\n\n"
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
    const OpCount count = CountSupportedOps(*d);
    const int ops = count.supported;
    const std::string warning = OpQueryWarning(*d, count, catalogue);
    if (!warning.empty()) std::cerr << "switchyard devices: warning: " << warning << "\n";
    if (vm.count("json")) {
      out.push_back({{"spec", d->Spec()},
                     {"plugin", d->plugin->name()},
                     {"index", d->index},
                     {"name", d->name},
                     {"kind", DeviceKindName(d->kind)},
                     {"memory_bytes", d->memory_bytes},
                     {"reference", d->reference()},
                     {"fallback", d->fallback()},
                     {"ops_supported", ops},
                     {"ops_in_catalogue", catalogue},
                     {"op_query_errors", count.errors},
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
