// switchyard-plugin-probe [--threads N] PLUGIN.so: loads one plugin as the host would
// (core/src/plugin/plugin_probe.h) and reports on file descriptor 3, a socket to the host,
// one line each (core/src/plugin/probe_report.h): "step NAME" before each step of the load
// and of the op-level supports_node queries that follow it; "ready" once the plugin is
// shut down and unloaded; then, given the host's nonce in answer, "ok NONCE" or "error
// NONCE MESSAGE". The host runs it before loading a plugin into its own process; a crash,
// an exit or a hang here is then the probe's, not the host's. Without descriptor 3 (run
// by hand) the report goes to stdout and the nonce is read from stdin ("-" at its end).
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>

#include "plugin/probe_report.h"
#include "switchyard/op_schema.h"
#include "switchyard/plugin.h"
#include "switchyard/plugin_host.h"

namespace {

int report_fd = sy::kProbeReportFd;
int nonce_fd = sy::kProbeReportFd;

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

// The host's nonce: read only now, after the plugin is shut down and unloaded, so that none
// of its code that ran while the probe had it loaded could have seen it. Up to a newline,
// at most kNonceHexDigits characters kept; "-" when the host (or a person at a terminal)
// sends nothing.
std::string ReadNonce() {
  std::string nonce;
  char c;
  while (true) {
    const ssize_t n = ::read(nonce_fd, &c, 1);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0 || c == '\n') break;
    if (nonce.size() < sy::kNonceHexDigits) nonce += c;
  }
  return nonce.empty() ? "-" : nonce;
}

// The end: the request for the nonce, then the verdict carrying it (`error`: why loading
// failed cleanly; null: it loaded, answered and shut down).
int Verdict(const std::string* error) {
  Report("ready");
  Report(sy::ProbeVerdictLine(ReadNonce(), error));
  return 0;
}

void Usage() {
  static constexpr char kUsage[] = "usage: switchyard-plugin-probe [--threads N] PLUGIN.so\n";
  if (::write(STDERR_FILENO, kUsage, sizeof kUsage - 1) < 0) return;
}

}  // namespace

int main(int argc, char** argv) {
  if (::fcntl(report_fd, F_GETFD) < 0) {
    report_fd = STDOUT_FILENO;
    nonce_fd = STDIN_FILENO;
  }
  uint32_t threads = 0;
  const char* plugin = nullptr;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--threads") == 0 && i + 1 < argc) {
      threads = static_cast<uint32_t>(std::strtoul(argv[++i], nullptr, 10));
    } else if (plugin == nullptr && argv[i][0] != '-') {
      plugin = argv[i];
    } else {
      Usage();
      return 2;
    }
  }
  if (plugin == nullptr) {
    Usage();
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
    const std::string message = host.status().message();
    return Verdict(&message);  // a failed load has already unloaded the plugin
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
  return Verdict(nullptr);
}
