// Running one node on one device through the plugin C ABI directly, without a session:
// supports_node, buffers, prepare, execute, read back. Two users need exactly that and
// nothing more: constant folding (opt/optimize.cpp evaluates a node whose inputs are all
// constants; a Session there would make the optimiser depend on the session, which itself
// runs the optimiser), and the conformance suite, which must see what the plugin does
// itself: its support answer, its errors, and any write outside an output buffer, caught
// by guard bytes around every output.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "switchyard/graph.h"
#include "switchyard/plugin_host.h"
#include "switchyard/tensor.h"

namespace sy {

struct NodeRun {
  enum class Kind { kOk, kDeclined, kError };
  Kind kind = Kind::kOk;
  uint32_t error_code = 0;  // sy_error_code when kError
  Status status;            // the error when kError
  std::string message;      // the decline reason or the error
  std::vector<Tensor> outputs;
  std::string guard_violation;  // "" when every guard byte survived
};

// Runs the single node of `graph` (whose inputs are all graph inputs, fed `inputs` in
// order) on `device`. With `guard_bytes` > 0 each output lies between that many bytes of
// a known pattern, checked after the run (guard_violation).
NodeRun RunNode(const Device& device, const Graph& graph, const std::vector<Tensor>& inputs,
                uint64_t guard_bytes = 0);

}  // namespace sy
