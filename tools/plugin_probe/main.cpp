// switchyard-plugin-probe [--threads N] PLUGIN.so: loads one plugin as the host would
// (core/src/plugin/plugin_probe.h) and reports on file descriptor 3, one line each: "step
// NAME" before each step of the load, then "ok" or "error MESSAGE" once the plugin is
// loaded and shut down again. The host runs it before loading a plugin into its own
// process; a crash, an exit or a hang here is then the probe's, not the host's. Without
// descriptor 3 (run by hand) the report goes to stdout.
#include <fcntl.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>

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
  Report("step shutdown");
  host->reset();  // each plugin's shutdown, then its library unloaded
  Report("ok");
  return 0;
}
