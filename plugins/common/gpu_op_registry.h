// The op table of a GPU plugin, shared by OpenCL and CUDA: per catalogue op, whether a
// device can run a node (supports, cheap, from the device's capabilities) and how to make
// the plugin's op object for one node of a partition (create). Each plugin derives its
// registry from it and fills it once, family by family (op_registry.cpp).
#pragma once

#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "switchyard/plugin_node.h"

namespace sy::plugin {

template <typename Caps, typename Op>
class GpuOpRegistry {
 public:
  using SupportsFn = bool (*)(const NodeInfo& node, const Caps& device, std::string& reason);
  using CreateFn = std::unique_ptr<Op> (*)(const NodeInfo& node);
  struct Entry {
    std::string_view op;
    SupportsFn supports;
    CreateFn create;
    std::string_view family;  // the core family it was registered under (AddFamily)
  };
  // Registers the ops of one family: `add` (the family file's Register*Ops) calls Add for
  // each. `family` is core's name for it (OpSchema::family), so that a test can check that
  // each plugin groups its ops as the catalogue does.
  template <typename Derived>
  void AddFamily(std::string_view family, void (*add)(Derived& registry)) {
    family_ = family;
    add(static_cast<Derived&>(*this));
    family_ = {};
  }
  void Add(std::string_view op, SupportsFn supports, CreateFn create) {
    entries_.push_back({op, supports, create, family_});
  }
  const Entry* Find(std::string_view op) const {
    for (const Entry& e : entries_) {
      if (e.op == op) return &e;
    }
    return nullptr;
  }
  std::span<const Entry> entries() const { return entries_; }

 private:
  std::vector<Entry> entries_;
  std::string_view family_;  // while AddFamily runs
};

// The steps of a GPU executable, one per node of `partition` in order: its decoded node,
// operand indices, the op object `registry` creates, tensor slots sized for execute.
// Throws sy_sdk::Error(SY_ERROR_UNSUPPORTED) naming the node when the registry lacks its
// op or declines it on `caps` (the host prepares only what supports_node accepted, so
// this is a host error). `Step` has members node, op, inputs, outputs, input_tensors,
// output_tensors.
template <typename Step, typename Registry, typename Caps, typename PartitionT>
std::vector<Step> CreateSteps(const PartitionT& partition, const Registry& registry,
                              const Caps& caps, std::string_view plugin_name) {
  std::vector<Step> steps;
  steps.reserve(partition.nodes().size());
  for (size_t n = 0; n < partition.nodes().size(); ++n) {
    const auto& node = partition.nodes()[n];
    Step step;
    step.node = node.info;
    step.inputs = node.inputs;
    step.outputs = node.outputs;
    std::string reason;
    const auto* entry = registry.Find(step.node.op);
    if (entry == nullptr) reason = "not implemented in the " + std::string(plugin_name) + " plugin";
    if (entry == nullptr || !entry->supports(step.node, caps, reason)) {
      throw sy_sdk::Error(SY_ERROR_UNSUPPORTED,
                          "node " + std::to_string(n) + " (" + step.node.op + "): " + reason);
    }
    step.op = entry->create(step.node);
    step.input_tensors.resize(step.inputs.size());
    step.output_tensors.resize(step.outputs.size());
    steps.push_back(std::move(step));
  }
  return steps;
}

// Execute's `buffers` as the plugin's own Buffer type, calling bind(value, buffer) for each
// in bound order. Checks the count (one per entry of `bound`), that each is a Buffer of
// the executable's device (`same_device(buffer)`) and holds bytes[value]; throws
// sy_sdk::Error(SY_ERROR_INVALID_ARGUMENT) naming the buffer otherwise.
template <typename Buffer, typename SameDevice, typename Bind>
void BindBuffers(sy_buffer* const* buffers, uint32_t count, const std::vector<uint32_t>& bound,
                 const std::vector<uint64_t>& bytes, std::string_view device_kind,
                 SameDevice same_device, Bind bind) {
  if (count != bound.size()) {
    throw sy_sdk::Error(SY_ERROR_INVALID_ARGUMENT, "execute: expected " +
                                                       std::to_string(bound.size()) +
                                                       " buffers, got " + std::to_string(count));
  }
  for (uint32_t i = 0; i < count; ++i) {
    const uint32_t v = bound[i];
    auto* buffer = dynamic_cast<Buffer*>(buffers[i]);
    if (buffer == nullptr || !same_device(*buffer)) {
      throw sy_sdk::Error(SY_ERROR_INVALID_ARGUMENT, "execute: buffer " + std::to_string(i) +
                                                         " is not memory of this " +
                                                         std::string(device_kind) + " device");
    }
    if (buffer->size() < bytes[v]) {
      throw sy_sdk::Error(SY_ERROR_INVALID_ARGUMENT,
                          "execute: buffer " + std::to_string(i) + " holds " +
                              std::to_string(buffer->size()) + " bytes, needs " +
                              std::to_string(bytes[v]));
    }
    bind(v, *buffer);
  }
}

}  // namespace sy::plugin
