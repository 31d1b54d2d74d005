// Shared pieces of the `switchyard` subcommands.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <boost/json.hpp>

#include <boost/program_options.hpp>

#include "switchyard/plugin_host.h"
#include "switchyard/shape.h"
#include "switchyard/tensor.h"

namespace sy::cli {

// Exit codes: 0 success, 1 the input (model, tensor, plugin) was bad or the work failed,
// 2 the command line itself was wrong.
inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;
inline constexpr int kExitUsage = 2;
// The most threads --threads accepts (far above any CPU's core count; a typo such as -1
// must not become 4294967295 threads).
inline constexpr int64_t kMaxThreads = 4096;
// --timeout's bound (a day): beyond it a hang is better ended by hand.
inline constexpr double kMaxTimeoutSeconds = 86400;
// --threads' notifier: throws a usage error outside [0, kMaxThreads].
void CheckThreadCount(int64_t threads);

struct Subcommand {
  std::string_view name;
  std::string_view summary;
  // args excludes the program and subcommand names.
  int (*run)(const std::vector<std::string>& args);
};

int RunCheck(const std::vector<std::string>& args);
int RunOps(const std::vector<std::string>& args);
int RunPlugins(const std::vector<std::string>& args);
int RunDevices(const std::vector<std::string>& args);
int RunPlan(const std::vector<std::string>& args);
int RunConformance(const std::vector<std::string>& args);
int RunRun(const std::vector<std::string>& args);
int RunBench(const std::vector<std::string>& args);
int RunGenerate(const std::vector<std::string>& args);
int RunCompare(const std::vector<std::string>& args);
int RunImport(const std::vector<std::string>& args);
int RunQuantize(const std::vector<std::string>& args);
int RunConvert(const std::vector<std::string>& args);

// {"name": ..., "dtype": "f32", "shape": [2, 12]}
boost::json::object TypeToJson(std::string_view name, const TensorType& type);

// Prints "switchyard <command>: <message>" to stderr.
void PrintError(std::string_view command, std::string_view message);

// --plugin PATH (repeatable) and --threads N, shared by every command that loads plugins.
void AddPluginOptions(boost::program_options::options_description& options);
Expected<std::unique_ptr<PluginHost>> LoadPlugins(const boost::program_options::variables_map& vm);

// Parses `args` against `visible` plus hidden positionals named `positional_name`.
// Returns false (after printing help or the error, setting `exit_code`) when the caller
// should stop.
bool ParseArgs(std::string_view command, const std::vector<std::string>& args,
               const boost::program_options::options_description& visible,
               const char* positional_name, boost::program_options::variables_map& vm,
               int& exit_code, const boost::program_options::options_description* hidden = nullptr);

// The first `limit` elements as text: "[0.5, -1, 2, ...]".
std::string Preview(const Tensor& tensor, size_t limit = 8);
boost::json::array PreviewJson(const Tensor& tensor, size_t limit = 8);

// Comma-separated token ids ("1,2,3"); errors name `option` ("--prompt").
Expected<std::vector<int64_t>> ParseIds(const std::string& text, std::string_view option);

}  // namespace sy::cli
