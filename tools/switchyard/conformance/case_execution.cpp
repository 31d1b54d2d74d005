#include "conformance/case_execution.h"

#include <cstring>
#include <memory>

#include "conformance/compare.h"
#include "conformance/input_generator.h"
#include "switchyard/model_io.h"
#include "switchyard/op_schema.h"

namespace sy::conformance {

std::string_view OutcomeName(Outcome outcome) {
  switch (outcome) {
    case Outcome::kPass:
      return "pass";
    case Outcome::kFail:
      return "fail";
    case Outcome::kUnsupported:
      return "unsupported";
    case Outcome::kExpectedFailure:
      return "expected failure";
    case Outcome::kUnexpectedPass:
      return "unexpected pass";
    case Outcome::kCrashed:
      return "crashed";
    case Outcome::kHung:
      return "hung";
  }
  return "?";
}

CaseResult RunOpCase(const OpCase& c, const Device& under_test, const Device& reference) {
  Expected<Graph> graph = CaseGraph(c);
  if (!graph.ok())
    return {Outcome::kFail, "the case itself is invalid: " + graph.status().message()};
  std::vector<Tensor> inputs;
  for (size_t i = 0; i < c.inputs.size(); ++i) {
    Expected<Tensor> t = GenerateInput(c.inputs[i], CaseSeed(c.op, c.label, i), c.special_values);
    if (!t.ok())
      return {Outcome::kFail,
              "generating input " + std::to_string(i) + ": " + t.status().message()};
    inputs.push_back(std::move(*t));
  }
  const NodeRun want = RunNode(reference, *graph, inputs, kGuardBytes);
  const NodeRun got = RunNode(under_test, *graph, inputs, kGuardBytes);
  if (got.kind == NodeRun::Kind::kDeclined) return {Outcome::kUnsupported, got.message};
  if (want.kind == NodeRun::Kind::kDeclined) {
    return {Outcome::kUnsupported, "the reference declines it: " + want.message};
  }
  if (want.kind == NodeRun::Kind::kError) {
    if (want.error_code == SY_ERROR_DATA) {
      // A data error (index out of range, integer division by zero): the plugin must
      // report an error too, not produce numbers.
      if (got.kind == NodeRun::Kind::kError) return {Outcome::kPass, ""};
      return {Outcome::kFail, "the reference reports a data error (" + want.message +
                                  ") but the plugin returned a result"};
    }
    return {Outcome::kFail, "the reference failed: " + want.message};
  }
  if (got.kind == NodeRun::Kind::kError) {
    if (got.error_code == SY_ERROR_UNSUPPORTED) return {Outcome::kUnsupported, got.message};
    return {Outcome::kFail, got.message};
  }
  if (!got.guard_violation.empty()) {
    return {Outcome::kFail, "wrote outside its output buffer: " + got.guard_violation};
  }
  if (got.outputs.size() != want.outputs.size()) {
    return {Outcome::kFail, "produced " + std::to_string(got.outputs.size()) +
                                " outputs, expected " + std::to_string(want.outputs.size())};
  }
  for (size_t k = 0; k < want.outputs.size(); ++k) {
    const std::string problem =
        Compare(got.outputs[k], want.outputs[k],
                c.tolerance ? *c.tolerance : ToleranceFor(c.op, want.outputs[k].dtype()));
    if (!problem.empty()) {
      return {Outcome::kFail,
              (want.outputs.size() > 1 ? "output " + std::to_string(k) + ": " : std::string()) +
                  problem};
    }
  }
  return {Outcome::kPass, ""};
}

}  // namespace sy::conformance
