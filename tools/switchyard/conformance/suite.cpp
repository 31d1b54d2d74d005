#include "conformance/suite.h"

#include <fnmatch.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>

#include "conformance/api_cases.h"
#include "switchyard/op_schema.h"

namespace sy::conformance {
namespace {

// Writes all of `text` to `fd` (a pipe to the parent).
void WriteAll(int fd, const std::string& text) {
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = write(fd, text.data() + done, text.size() - done);
    if (n <= 0) return;
    done += static_cast<size_t>(n);
  }
}

std::string OneLine(std::string text) {
  for (char& c : text) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  return text;
}

}  // namespace

Expected<std::vector<SuiteCase>> BuildSuite(const SuiteOptions& options) {
  const OpRegistry& registry = OpRegistry::Global();
  for (const std::string& op : options.ops) {
    if (op != "api" && registry.Find(op) == nullptr) {
      return InvalidArgument("--ops: unknown op \"" + op + "\" (see 'switchyard ops')");
    }
  }
  auto label_ok = [&](const std::string& label) {
    return options.label_glob.empty() || fnmatch(options.label_glob.c_str(), label.c_str(), 0) == 0;
  };
  auto wanted = [&](std::string_view op) {
    return options.ops.empty() ||
           std::find(options.ops.begin(), options.ops.end(), op) != options.ops.end();
  };
  std::vector<SuiteCase> suite;
  if (wanted("api")) {
    for (size_t i = 0; i < ApiCases().size(); ++i) {
      if (label_ok(ApiCases()[i].name)) {
        suite.push_back({"api", ApiCases()[i].name, static_cast<int>(i), {}});
      }
    }
  }
  for (const OpSchema& schema : registry.schemas()) {
    if (!wanted(schema.name)) continue;
    for (OpCase& c : CasesFor(schema.name)) {
      if ((options.mandatory_only && !c.mandatory) || !label_ok(c.label)) continue;
      std::string label = c.label;
      suite.push_back({std::string(schema.name), std::move(label), -1, std::move(c)});
    }
  }
  return suite;
}

int RunWorker(const WorkerOptions& options, const std::vector<SuiteCase>& suite, size_t start,
              int out_fd) {
  auto fail_all = [&](const std::string& why) {
    // The plugin cannot even be loaded: every remaining case fails with the reason.
    for (size_t k = start; k < suite.size(); ++k) {
      WriteAll(out_fd, "B " + std::to_string(k) + "\nR " + std::to_string(k) + " " +
                           std::to_string(static_cast<int>(Outcome::kFail)) + " " + OneLine(why) +
                           "\n");
    }
    return 0;
  };
  DiscoveryOptions dut_options;
  dut_options.scan_default_paths = false;
  dut_options.explicit_plugins = {options.plugin};
  dut_options.num_threads = options.threads;
  Expected<std::unique_ptr<PluginHost>> dut_host = PluginHost::Create(dut_options);
  if (!dut_host.ok() && dut_host.status().code() == StatusCode::kUnsupported &&
      dut_host.status().message().find(": no devices") != std::string::npos) {
    // The plugin loads but has no device here (no GPU, no driver): nothing can be tested.
    // Every case is skipped with the plugin's reason, and the parent says so.
    const std::string why = OneLine(dut_host.status().message());
    WriteAll(out_fd, "N " + why + "\n");
    for (size_t k = start; k < suite.size(); ++k) {
      WriteAll(out_fd, "B " + std::to_string(k) + "\nR " + std::to_string(k) + " " +
                           std::to_string(static_cast<int>(Outcome::kUnsupported)) + " " + why +
                           "\n");
    }
    return 0;
  }
  if (!dut_host.ok()) return fail_all("loading the plugin: " + dut_host.status().message());
  const Plugin& plugin = *(*dut_host)->plugins().front();
  const Device* device = nullptr;
  for (const Device& d : plugin.devices()) {
    if (options.device >= 0 ? d.index == static_cast<uint32_t>(options.device) : !d.reference()) {
      device = &d;
      break;
    }
  }
  if (device == nullptr && options.device < 0 && !plugin.devices().empty()) {
    device = &plugin.devices().front();
  }
  if (device == nullptr) {
    return fail_all("plugin " + plugin.name() + " has no device " +
                    (options.device >= 0 ? std::to_string(options.device) : std::string()) +
                    " (it has " + std::to_string(plugin.devices().size()) + ")");
  }
  DiscoveryOptions ref_options;
  ref_options.scan_default_paths = false;
  ref_options.explicit_plugins = {options.cpu_plugin};
  Expected<std::unique_ptr<PluginHost>> ref_host = PluginHost::Create(ref_options);
  if (!ref_host.ok()) return fail_all("loading the reference: " + ref_host.status().message());
  Expected<const Device*> reference = (*ref_host)->FindDevice("cpu-ref");
  if (!reference.ok()) return fail_all(reference.status().message());

  for (size_t k = start; k < suite.size(); ++k) {
    WriteAll(out_fd, "B " + std::to_string(k) + "\n");
    const SuiteCase& c = suite[k];
    const CaseResult result =
        c.api_index >= 0 ? ApiCases()[c.api_index].run(options.plugin, *device, **reference)
                         : RunOpCase(c.op_case, *device, **reference);
    WriteAll(out_fd, "R " + std::to_string(k) + " " +
                         std::to_string(static_cast<int>(result.outcome)) + " " +
                         OneLine(result.detail) + "\n");
  }
  return 0;
}

}  // namespace sy::conformance
