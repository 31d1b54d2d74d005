// Running one node on one device through the plugin ABI (exec/node_runner.h).
#include "exec/node_runner.h"

#include <cstring>
#include <memory>

#include "plugin/node_descriptors.h"

namespace sy {
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
  run.status = status;
  run.error_code = status.code() == StatusCode::kUnsupported       ? SY_ERROR_UNSUPPORTED
                   : status.code() == StatusCode::kInvalidArgument ? SY_ERROR_DATA
                                                                   : SY_ERROR_INTERNAL;
  return run;
}

}  // namespace

NodeRun RunNode(const Device& device, const Graph& graph, const std::vector<Tensor>& inputs,
                uint64_t guard_bytes) {
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
  // at offset 0 and only the trailing guard is checked. No guard: the output alone.
  const Node& node = graph.nodes[0];
  const bool guarded = guard_bytes > 0;
  const bool views = guarded && api->buffer_view != nullptr;
  std::vector<sy_buffer*> parents;
  std::vector<uint64_t> sizes;
  for (ValueId id : node.outputs) {
    const TensorType& t = graph.values[id].type;
    const uint64_t bytes = static_cast<uint64_t>(ElementCount(t.shape)) * DTypeSize(t.dtype);
    const uint64_t total = bytes + (views ? 2 : 1) * guard_bytes;
    sy_buffer* parent = nullptr;
    Status s = resources.Allocate(total, &parent);
    if (s.ok() && guarded) {
      const std::vector<std::byte> pattern(total, kGuard);
      s = plugin.TakeError(api->copy_host_to_device(parent, 0, pattern.data(), total),
                           "copy_host_to_device");
    }
    sy_buffer* output = parent;
    if (s.ok() && views) s = resources.View(parent, guard_bytes, bytes, &output);
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
    const uint64_t lead = views ? guard_bytes : 0;
    std::vector<std::byte> all(sizes[k] + lead + guard_bytes);
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

}  // namespace sy
