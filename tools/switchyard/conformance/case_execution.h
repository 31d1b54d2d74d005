// Running one op case on a device through the plugin C ABI directly (not through a
// session), so that the suite sees exactly what the plugin does: its support answer,
// its errors, and any write outside an output buffer, caught by guard bytes around
// every output.
#pragma once

#include <string>
#include <vector>

#include "conformance/op_cases.h"
#include "switchyard/graph.h"
#include "switchyard/plugin_host.h"
#include "switchyard/tensor.h"

namespace sy::conformance {

// Bytes of guard pattern before and after every output.
inline constexpr uint64_t kGuardBytes = 256;

struct NodeRun {
  enum class Kind { kOk, kDeclined, kError };
  Kind kind = Kind::kOk;
  uint32_t error_code = 0;  // sy_error_code when kError
  std::string message;      // the decline reason or the error
  std::vector<Tensor> outputs;
  std::string guard_violation;  // "" when every guard byte survived
};

// Runs the single node of `graph` (whose inputs are all graph inputs, fed `inputs`) on
// `device`: support query, buffers, prepare, execute, read back.
NodeRun RunNode(const Device& device, const Graph& graph, const std::vector<Tensor>& inputs);

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
