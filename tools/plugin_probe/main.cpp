// switchyard-plugin-probe [--threads N] PLUGIN.so: loads one plugin as the host would
// (core/src/plugin/plugin_probe.h) and reports on file descriptor 3, one line each: "step
// NAME" before each step of the load and of the op-level supports_node queries that
// follow it, then "ok" or "error MESSAGE" once the plugin is loaded, asked and shut down
// again. The host runs it before loading a plugin into its own
// process; a crash, an exit or a hang here is then the probe's, not the host's. Without
// descriptor 3 (run by hand) the report goes to stdout.
#include <fcntl.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>

#include "switchyard/op_schema.h"
#include "switchyard/plugin.h"
#include "switchyard/plugin_host.h"

namespace {

int report_fd = 3;

void Report(std::string_view line) {
  std::string text(line);
  text += '\n';
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(report_fd, text.data() + done, text.size() - done);
    if (n <= 0) return;
    done += static_cast<size_t>(n);
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (::fcntl(report_fd, F_GETFD) < 0) report_fd = STDOUT_FILENO;
  uint32_t threads = 0;
  const char* plugin = nullptr;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--threads") == 0 && i + 1 < argc) {
      threads = static_cast<uint32_t>(std::strtoul(argv[++i], nullptr, 10));
    } else if (plugin == nullptr && argv[i][0] != '-') {
      plugin = argv[i];
    } else {
      Report("error usage: switchyard-plugin-probe [--threads N] PLUGIN.so");
      return 2;
    }
  }
  if (plugin == nullptr) {
    Report("error usage: switchyard-plugin-probe [--threads N] PLUGIN.so");
    return 2;
  }
  sy::DiscoveryOptions options;
  options.scan_default_paths = false;
  options.probe_plugins = false;  // this is the probe
  options.explicit_plugins = {plugin};
  options.num_threads = threads;
  options.on_load_step = [](std::string_view step) { Report("step " + std::string(step)); };
  Report("step start");
  sy::Expected<std::unique_ptr<sy::PluginHost>> host = sy::PluginHost::Create(options);
  if (!host.ok()) {
    std::string message = host.status().message();
    for (char& c : message) c = c == '\n' ? ' ' : c;
    Report("error " + message);
    return 0;
  }
  // The op-level query of every catalogue op on every device, as `switchyard devices`
  // and placement ask: a plugin that crashes answering it is caught here too.
  for (const auto& loaded : (*host)->plugins()) {
    const sy_plugin_api* api = loaded->api();
    for (const sy::Device& device : loaded->devices()) {
      for (const sy::OpSchema& schema : sy::OpRegistry::Global().schemas()) {
        const std::string op(schema.name);
        Report("step supports_node (op " + op + ")");
        sy_node node{};
        node.struct_size = sizeof node;
        node.abi_version = SY_PLUGIN_ABI_VERSION;
        node.op = op.c_str();
        node.name = "";
        uint32_t supported = 0;
        char reason[128];
        sy_error* error = api->supports_node(loaded->context(), device.index, &node, &supported,
                                             reason, sizeof reason);
        if (error != nullptr) api->error_destroy(error);
      }
    }
  }
  Report("step shutdown");
  host->reset();  // each plugin's shutdown, then its library unloaded
  Report("ok");
  return 0;
}
