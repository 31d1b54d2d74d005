// `switchyard plugins [--json]`: every plugin candidate found, loaded or rejected with
// the reason, and where discovery looked.
#include <iostream>
#include <map>

#include "cli.h"

namespace sy::cli {

int RunPlugins(const std::vector<std::string>& args) {
  namespace po = boost::program_options;
  po::options_description visible(
      "usage: switchyard plugins [--plugin PATH]... [--isolate PLUGIN|all]... [--json]\n\n"
      "Lists every plugin candidate: the shared objects in SWITCHYARD_PLUGIN_PATH, the\n"
      "installed plugin directory and the executable's directory, plus --plugin paths.\n"
      "Each is shown loaded (name, version, ABI version) or rejected with the reason.\n"
      "Each is first loaded in a separate process (switchyard-plugin-probe), so that one\n"
      "that crashes, exits or hangs while loading is rejected, not fatal; verdicts are\n"
      "cached by the file's identity; SWITCHYARD_PLUGIN_PROBE=0 turns this off.\n\n"
      "options");
  visible.add_options()("help,h", "show this help")("json", "print JSON");
  AddPluginOptions(visible);
  po::variables_map vm;
  int exit_code = kExitOk;
  if (!ParseArgs("plugins", args, visible, nullptr, vm, exit_code)) return exit_code;
  Expected<std::unique_ptr<PluginHost>> host = LoadPlugins(vm);
  if (!host.ok()) {
    PrintError("plugins", host.status().message());
    return kExitFailure;
  }
  if (vm.count("json")) {
    boost::json::array candidates;
    for (const PluginCandidate& c : (*host)->candidates()) {
      boost::json::object o{{"path", c.path.string()}, {"loaded", c.loaded}, {"probe", c.probe}};
      if (c.loaded) {
        o["name"] = c.name;
        o["version"] = c.version;
        o["abi_version"] = c.abi_version;
        o["isolated"] = c.worker_pid != 0;
        if (c.worker_pid != 0) o["worker_pid"] = c.worker_pid;
      } else {
        o["reason"] = c.reason;
      }
      candidates.push_back(std::move(o));
    }
    boost::json::array path;
    for (const auto& dir : PluginHost::SearchPath()) path.emplace_back(dir.string());
    std::cout << boost::json::serialize(boost::json::object{{"search_path", std::move(path)},
                                                            {"plugins", std::move(candidates)}})
              << "\n";
    return kExitOk;
  }
  std::cout << "search path:";
  for (const auto& dir : PluginHost::SearchPath()) std::cout << " " << dir.string();
  std::cout << "\n";
  for (const PluginCandidate& c : (*host)->candidates()) {
    if (c.loaded) {
      std::cout << "loaded   " << c.name << " " << c.version << " (ABI " << c.abi_version << ")  "
                << c.path.string();
      if (c.worker_pid != 0) std::cout << "  [isolated: worker pid " << c.worker_pid << "]";
      std::cout << "\n";
    } else {
      std::cout << "rejected " << c.path.string() << ": " << c.reason << "\n";
    }
  }
  if ((*host)->candidates().empty()) std::cout << "no plugin candidates found\n";
  // How the candidates were probed before loading (docs/security.md): one line, since
  // they are almost always probed alike.
  std::map<std::string, int> probes;
  for (const PluginCandidate& c : (*host)->candidates()) {
    if (!c.probe.empty()) ++probes[c.probe];
  }
  if (!probes.empty()) {
    std::cout << "probed in a separate process before loading:";
    bool first = true;
    for (const auto& [how, count] : probes) {
      std::cout << (first ? " " : ", ") << count << " " << how;
      first = false;
    }
    std::cout << "\n";
  }
  return kExitOk;
}

}  // namespace sy::cli
