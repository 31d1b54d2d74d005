// Shared pieces of the `switchyard` subcommands.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <boost/json.hpp>

#include "switchyard/shape.h"

namespace sy::cli {

// Exit codes: 0 success, 1 the input (model, tensor, plugin) was bad or the work failed,
// 2 the command line itself was wrong.
inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;
inline constexpr int kExitUsage = 2;

struct Subcommand {
  std::string_view name;
  std::string_view summary;
  // args excludes the program and subcommand names.
  int (*run)(const std::vector<std::string>& args);
};

int RunCheck(const std::vector<std::string>& args);
int RunOps(const std::vector<std::string>& args);

// {"name": ..., "dtype": "f32", "shape": [2, 12]}
boost::json::object TypeToJson(std::string_view name, const TensorType& type);

// Prints "switchyard <command>: <message>" to stderr.
void PrintError(std::string_view command, std::string_view message);

}  // namespace sy::cli
