// Running one op case on a device through the plugin C ABI directly (not through a
// session), so that the suite sees exactly what the plugin does: its support answer,
// its errors, and any write outside an output buffer, caught by guard bytes around
// every output.
#pragma once

#include <string>
#include <vector>

#include "conformance/op_cases.h"
#include "exec/node_runner.h"
#include "switchyard/graph.h"
#include "switchyard/plugin_host.h"
#include "switchyard/tensor.h"

namespace sy::conformance {

// Bytes of guard pattern before and after every output.
inline constexpr uint64_t kGuardBytes = 256;

// Each op case runs through core's RunNode (exec/node_runner.h) with this guard.
using ::sy::NodeRun;

enum class Outcome {
  kPass,
  kFail,
  kUnsupported,
  kExpectedFailure,
  kUnexpectedPass,
  kCrashed,
  kHung
};
std::string_view OutcomeName(Outcome outcome);  // "pass", "fail", ...

struct CaseResult {
  Outcome outcome = Outcome::kPass;
  std::string detail;  // why it failed, or the plugin's reason for declining
};

// Runs `c` on `under_test` and on `reference` and compares (before expectations apply).
CaseResult RunOpCase(const OpCase& c, const Device& under_test, const Device& reference);

}  // namespace sy::conformance
