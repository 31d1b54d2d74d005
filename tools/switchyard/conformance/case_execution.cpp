#include "conformance/case_execution.h"

#include <cstring>
#include <memory>

#include "conformance/compare.h"
#include "conformance/input_generator.h"
#include "plugin/node_descriptors.h"
#include "switchyard/model_io.h"
#include "switchyard/op_schema.h"

namespace sy::conformance {
namespace {

constexpr std::byte kGuard{0xA5};

// Buffers and the executable of one NodeRun, given back to the plugin in a safe order
// (views before their parents).
class DeviceResources {
 public:
  explicit DeviceResources(const Device& device) : device_(device), api_(device.plugin->api()) {}
  ~DeviceResources() {
    if (executable_ != nullptr) api_->release(executable_);
    for (auto it = buffers_.rbegin(); it != buffers_.rend(); ++it) api_->buffer_free(*it);
  }
  DeviceResources(const DeviceResources&) = delete;
  DeviceResources& operator=(const DeviceResources&) = delete;

  Status Allocate(uint64_t bytes, sy_buffer** out) {
    *out = nullptr;
    SY_RETURN_IF_ERROR(device_.plugin->TakeError(
        api_->buffer_alloc(device_.plugin->context(), device_.index, bytes, out), "buffer_alloc"));
    if (*out == nullptr) return Internal("buffer_alloc returned no buffer");
    buffers_.push_back(*out);
    return Status::Ok();
  }
  Status View(sy_buffer* parent, uint64_t offset, uint64_t bytes, sy_buffer** out) {
    *out = nullptr;
    SY_RETURN_IF_ERROR(
        device_.plugin->TakeError(api_->buffer_view(parent, offset, bytes, out), "buffer_view"));
    if (*out == nullptr) return Internal("buffer_view returned no buffer");
    buffers_.push_back(*out);
    return Status::Ok();
  }
  sy_executable** executable() { return &executable_; }

 private:
  const Device& device_;
  const sy_plugin_api* api_;
  std::vector<sy_buffer*> buffers_;
  sy_executable* executable_ = nullptr;
};

NodeRun Error(const Status& status) {
  NodeRun run;
  run.kind = NodeRun::Kind::kError;
  run.message = status.message();
  run.error_code = status.code() == StatusCode::kUnsupported       ? SY_ERROR_UNSUPPORTED
                   : status.code() == StatusCode::kInvalidArgument ? SY_ERROR_DATA
                                                                   : SY_ERROR_INTERNAL;
  return run;
}

}  // namespace

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

NodeRun RunNode(const Device& device, const Graph& graph, const std::vector<Tensor>& inputs) {
  const Plugin& plugin = *device.plugin;
  const sy_plugin_api* api = plugin.api();
  NodeDescriptors descriptors(graph);
  uint32_t supported = 0;
  char reason[256] = {0};
  Status asked =
      plugin.TakeError(api->supports_node(plugin.context(), device.index, &descriptors.node(0),
                                          &supported, reason, sizeof reason),
                       "supports_node");
  if (!asked.ok()) return Error(asked);
  reason[sizeof reason - 1] = '\0';
  if (!supported) {
    NodeRun run;
    run.kind = NodeRun::Kind::kDeclined;
    run.message = reason;
    return run;
  }

  DeviceResources resources(device);
  std::vector<sy_buffer*> bound;
  for (size_t i = 0; i < inputs.size(); ++i) {
    sy_buffer* buffer = nullptr;
    Status s = resources.Allocate(inputs[i].byte_size(), &buffer);
    if (s.ok()) {
      s = plugin.TakeError(
          api->copy_host_to_device(buffer, 0, inputs[i].data(), inputs[i].byte_size()),
          "copy_host_to_device");
    }
    if (!s.ok()) return Error(s);
    bound.push_back(buffer);
  }
  // Outputs: [guard][output][guard] in one buffer; without buffer_view the output starts
  // at offset 0 and only the trailing guard is checked.
  const Node& node = graph.nodes[0];
  const bool views = api->buffer_view != nullptr;
  std::vector<sy_buffer*> parents;
  std::vector<uint64_t> sizes;
  for (ValueId id : node.outputs) {
    const TensorType& t = graph.values[id].type;
    const uint64_t bytes = static_cast<uint64_t>(ElementCount(t.shape)) * DTypeSize(t.dtype);
    const uint64_t total = bytes + (views ? 2 : 1) * kGuardBytes;
    sy_buffer* parent = nullptr;
    Status s = resources.Allocate(total, &parent);
    if (s.ok()) {
      const std::vector<std::byte> pattern(total, kGuard);
      s = plugin.TakeError(api->copy_host_to_device(parent, 0, pattern.data(), total),
                           "copy_host_to_device");
    }
    sy_buffer* output = parent;
    if (s.ok() && views) s = resources.View(parent, kGuardBytes, bytes, &output);
    if (!s.ok()) return Error(s);
    parents.push_back(parent);
    sizes.push_back(bytes);
    bound.push_back(output);
  }

  PartitionDescriptor partition(descriptors, graph, {0}, graph.inputs, node.outputs);
  Status prepared = plugin.TakeError(
      api->prepare(plugin.context(), device.index, &partition.get(), resources.executable()),
      "prepare");
  if (prepared.ok() && *resources.executable() == nullptr) {
    prepared = Internal("prepare returned no executable");
  }
  if (!prepared.ok()) return Error(prepared);
  const Status executed = plugin.TakeError(
      api->execute(*resources.executable(), static_cast<uint32_t>(bound.size()), bound.data()),
      "execute");
  if (!executed.ok()) return Error(executed);

  NodeRun run;
  for (size_t k = 0; k < parents.size(); ++k) {
    const uint64_t lead = views ? kGuardBytes : 0;
    std::vector<std::byte> all(sizes[k] + lead + kGuardBytes);
    const Status read = plugin.TakeError(
        api->copy_device_to_host(parents[k], 0, all.data(), all.size()), "copy_device_to_host");
    if (!read.ok()) return Error(read);
    for (uint64_t i = 0; i < all.size(); ++i) {
      if (i >= lead && i < lead + sizes[k]) continue;
      if (all[i] != kGuard && run.guard_violation.empty()) {
        run.guard_violation = "output " + std::to_string(k) + ": byte " +
                              std::to_string(static_cast<int64_t>(i) - static_cast<int64_t>(lead)) +
                              " (relative to the output's start, size " + std::to_string(sizes[k]) +
                              ") was overwritten";
      }
    }
    const TensorType& t = graph.values[node.outputs[k]].type;
    Expected<Tensor> tensor = Tensor::Allocate(t.dtype, t.shape);
    if (!tensor.ok()) return Error(tensor.status());
    if (sizes[k]) std::memcpy(tensor->mutable_data(), all.data() + lead, sizes[k]);
    run.outputs.push_back(std::move(*tensor));
  }
  return run;
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
  const NodeRun want = RunNode(reference, *graph, inputs);
  const NodeRun got = RunNode(under_test, *graph, inputs);
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
