#include "cli.h"

#include <sstream>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>

#include "host_options.h"
#include "switchyard/half.h"
#include "switchyard/value_names.h"

namespace sy::cli {

namespace po = boost::program_options;

boost::json::object TypeToJson(std::string_view name, const TensorType& type) {
  boost::json::array shape;
  for (int64_t d : type.shape) shape.emplace_back(d);
  return {{"name", name}, {"dtype", DTypeName(type.dtype)}, {"shape", std::move(shape)}};
}

void PrintError(std::string_view command, std::string_view message) {
  std::cerr << "switchyard " << command << ": " << message << "\n";
}

void CheckThreadCount(int64_t threads) {
  if (threads < 0 || threads > kMaxThreads) {
    throw po::error("--threads " + std::to_string(threads) +
                    ": expected 0 (the number of cores) to " + std::to_string(kMaxThreads));
  }
}

void CheckTimeout(double seconds) {
  if (!std::isfinite(seconds) || seconds <= 0 || seconds > kMaxTimeoutSeconds) {
    throw po::error("--timeout " + std::to_string(seconds) +
                    ": expected seconds above 0, at most " +
                    std::to_string(static_cast<int64_t>(kMaxTimeoutSeconds)));
  }
}

void AddPluginOptions(po::options_description& options) {
  options.add_options()("plugin", po::value<std::vector<std::string>>()->composing(),
                        "load this plugin shared object too (repeatable); failure is an error")(
      "threads", po::value<int64_t>()->default_value(0)->notifier(CheckThreadCount),
      "threads for CPU work (0 = the number of cores)")(
      "isolate", po::value<std::vector<std::string>>()->composing(),
      "run this plugin (a name such as cpu, a path, or all) in a worker process, so that its "
      "crash or hang fails the call instead of this process (repeatable; "
      "docs/plugin-isolation.md)")(
      "timeout", po::value<double>()->notifier(CheckTimeout),
      "with --isolate: fail any call to an isolated plugin (a run included) that takes longer "
      "than this many seconds, and kill its worker");
}

Expected<std::unique_ptr<PluginHost>> LoadPlugins(const po::variables_map& vm) {
  DiscoveryOptions options;
  if (vm.count("plugin")) {
    for (const std::string& p : vm["plugin"].as<std::vector<std::string>>()) {
      options.explicit_plugins.emplace_back(p);
    }
  }
  if (vm.count("threads")) options.num_threads = static_cast<uint32_t>(vm["threads"].as<int64_t>());
  if (vm.count("isolate")) options.isolate = vm["isolate"].as<std::vector<std::string>>();
  if (vm.count("timeout")) options.call_timeout_seconds = vm["timeout"].as<double>();
  SY_ASSIGN_OR_RETURN(std::unique_ptr<PluginHost> host, PluginHost::Create(options));
  if (Status isolated = host_options::CheckIsolated(*host, options.isolate); !isolated.ok()) {
    return InvalidArgument("--isolate " + isolated.message());
  }
  return host;
}

bool ParseArgs(std::string_view command, const std::vector<std::string>& args,
               const po::options_description& visible, const char* positional_name,
               po::variables_map& vm, int& exit_code, const po::options_description* hidden) {
  po::options_description all;
  all.add(visible);
  if (hidden != nullptr) all.add(*hidden);
  po::positional_options_description positional;
  if (positional_name != nullptr) {
    all.add_options()(positional_name, po::value<std::vector<std::string>>(), "");
    positional.add(positional_name, -1);
  }
  try {
    po::store(po::command_line_parser(args).options(all).positional(positional).run(), vm);
    po::notify(vm);
    // (conformance has a --timeout of its own, for its child processes)
    if (visible.find_nothrow("isolate", false) != nullptr && vm.count("timeout") &&
        !vm.count("isolate")) {
      throw po::error(
          "--timeout needs --isolate: a plugin running inside this process cannot be stopped "
          "(give --isolate all, or the plugin's name)");
    }
  } catch (const po::error& e) {
    PrintError(command,
               std::string(e.what()) + " (see 'switchyard " + std::string(command) + " --help')");
    exit_code = kExitUsage;
    return false;
  }
  if (vm.count("help")) {
    std::cout << visible << "\n";
    exit_code = kExitOk;
    return false;
  }
  return true;
}

std::string Preview(const Tensor& tensor, size_t limit) {
  std::string text = "[";
  const size_t n = static_cast<size_t>(tensor.element_count());
  for (size_t i = 0; i < n && i < limit; ++i) {
    if (i) text += ", ";
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.6g", ElementAsDouble(tensor, static_cast<int64_t>(i)));
    text += buf;
  }
  if (n > limit) text += ", ...";
  return text + "]";
}

boost::json::array PreviewJson(const Tensor& tensor, size_t limit) {
  boost::json::array out;
  const size_t n = static_cast<size_t>(tensor.element_count());
  for (size_t i = 0; i < n && i < limit; ++i) {
    const double v = ElementAsDouble(tensor, static_cast<int64_t>(i));
    if (std::isfinite(v)) {
      out.emplace_back(v);
    } else {
      out.emplace_back(std::isnan(v) ? "nan" : v > 0 ? "inf" : "-inf");
    }
  }
  return out;
}

Expected<std::vector<int64_t>> ParseIds(const std::string& text, std::string_view option) {
  std::vector<int64_t> ids;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    size_t used = 0;
    long long v = 0;
    try {
      v = std::stoll(item, &used);
    } catch (...) {
      used = 0;
    }
    if (used == 0 || used != item.size()) {
      return InvalidArgument(std::string(option) + ": \"" + item.substr(0, 40) +
                             "\" is not a token id (expected comma-separated integers)");
    }
    ids.push_back(v);
  }
  if (ids.empty()) {
    return InvalidArgument(std::string(option) + " is empty (expected token ids: 1,2,3)");
  }
  return ids;
}

}  // namespace sy::cli
