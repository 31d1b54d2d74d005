#include "switchyard/plugin_partition.h"

#include <cstddef>
#include <string>
#include <utility>

namespace sy::plugin {
namespace {

[[noreturn]] void Invalid(const std::string& message) {
  throw sy_sdk::Error(SY_ERROR_INVALID_ARGUMENT, "prepare: " + message);
}

// True when the host's struct reaches past `field` (a field appended after the first
// release): older hosts send the shorter struct.
template <typename Field>
bool Covers(const sy_partition& p, const Field& field) {
  const auto offset =
      reinterpret_cast<const std::byte*>(&field) - reinterpret_cast<const std::byte*>(&p);
  return p.struct_size >= static_cast<size_t>(offset) + sizeof(Field);
}

}  // namespace

Partition::Partition(const sy_partition& p) {
  if (p.struct_size < SY_PARTITION_V1_SIZE) Invalid("sy_partition's struct_size is too small");
  if ((p.num_values && p.values == nullptr) || (p.num_nodes && p.nodes == nullptr) ||
      (p.num_inputs && p.inputs == nullptr) || (p.num_outputs && p.outputs == nullptr)) {
    Invalid("malformed partition (a NULL array with a non-zero count)");
  }
  values_.reserve(p.num_values);
  for (uint32_t v = 0; v < p.num_values; ++v) {
    Expected<TensorType> type = TensorTypeFromC(p.values[v]);
    if (!type.ok()) Invalid("value " + std::to_string(v) + ": " + type.status().message());
    bytes_.push_back(static_cast<uint64_t>(ElementCount(type->shape)) * DTypeSize(type->dtype));
    values_.push_back(std::move(*type));
  }
  auto check_value = [&](uint32_t v, const char* what) {
    if (v >= p.num_values) {
      Invalid(std::string(what) + " names value " + std::to_string(v) + " of " +
              std::to_string(p.num_values));
    }
    return v;
  };

  num_inputs_ = p.num_inputs;
  for (uint32_t i = 0; i < p.num_inputs; ++i) bound_.push_back(check_value(p.inputs[i], "input"));
  for (uint32_t i = 0; i < p.num_outputs; ++i) {
    bound_.push_back(check_value(p.outputs[i], "output"));
  }
  is_bound_.assign(values_.size(), false);
  for (uint32_t v : bound_) is_bound_[v] = true;

  constant_data_.assign(values_.size(), nullptr);
  if (Covers(p, p.constant_data) && p.constant_data != nullptr) {
    for (uint32_t i = 0; i < p.num_inputs; ++i) constant_data_[p.inputs[i]] = p.constant_data[i];
  }
  output_internal_.assign(values_.size(), false);
  if (Covers(p, p.outputs_internal) && p.outputs_internal != nullptr) {
    for (uint32_t i = 0; i < p.num_outputs; ++i) {
      if (p.outputs_internal[i] != 0) output_internal_[p.outputs[i]] = true;
    }
    // A value both read from outside and written here keeps the host's layout.
    for (uint32_t i = 0; i < p.num_inputs; ++i) output_internal_[p.inputs[i]] = false;
  }

  nodes_.reserve(p.num_nodes);
  for (uint32_t n = 0; n < p.num_nodes; ++n) {
    const sy_node& c = p.nodes[n];
    if ((c.num_inputs && c.input_values == nullptr) ||
        (c.num_outputs && c.output_values == nullptr)) {
      Invalid("node " + std::to_string(n) + ": input_values or output_values is NULL");
    }
    if (c.op == nullptr || (c.num_attrs && c.attrs == nullptr)) {
      Invalid("node " + std::to_string(n) + " is malformed (op or attrs is NULL)");
    }
    Node node;
    node.info.op = c.op;
    node.info.name = c.name != nullptr ? c.name : "";
    for (uint32_t a = 0; a < c.num_attrs; ++a) {
      Expected<AttrValue> value = AttrFromC(c.attrs[a]);
      if (!value.ok() || c.attrs[a].name == nullptr) {
        Invalid("node " + std::to_string(n) + " (" + node.info.op + "): attribute " +
                std::to_string(a) + " is malformed");
      }
      node.info.attrs.Set(c.attrs[a].name, std::move(*value));
    }
    // Operand types come from the value table, which is authoritative: the node's own
    // `inputs` and `outputs` type arrays are not read.
    for (uint32_t i = 0; i < c.num_inputs; ++i) {
      node.inputs.push_back(check_value(c.input_values[i], "an input of a node"));
      node.info.inputs.push_back(values_[node.inputs.back()]);
    }
    for (uint32_t i = 0; i < c.num_outputs; ++i) {
      node.outputs.push_back(check_value(c.output_values[i], "an output of a node"));
      node.info.outputs.push_back(values_[node.outputs.back()]);
    }
    nodes_.push_back(std::move(node));
  }
}

HostValues::HostValues(const Partition& partition) : bound_(partition.bound()) {
  const size_t n = partition.values().size();
  bytes_.reserve(n);
  for (uint32_t v = 0; v < n; ++v) bytes_.push_back(partition.bytes(v));
  data_.assign(n, nullptr);
  for (uint32_t v = 0; v < n; ++v) {
    if (partition.is_bound(v)) continue;
    scratch_.push_back(std::make_unique<sy_sdk::HostBuffer>(bytes_[v]));
    data_[v] = static_cast<std::byte*>(scratch_.back()->host_pointer());
  }
}

void HostValues::Bind(sy_buffer* const* buffers, uint32_t count) {
  if (count != bound_.size()) {
    throw sy_sdk::Error(SY_ERROR_INVALID_ARGUMENT,
                        "execute: " + std::to_string(count) + " buffers for " +
                            std::to_string(bound_.size()) + " bound values");
  }
  for (uint32_t i = 0; i < count; ++i) {
    const uint32_t v = bound_[i];
    if (buffers[i]->size() < bytes_[v]) {
      throw sy_sdk::Error(SY_ERROR_INVALID_ARGUMENT,
                          "execute: buffer " + std::to_string(i) + " holds " +
                              std::to_string(buffers[i]->size()) + " bytes, needs " +
                              std::to_string(bytes_[v]));
    }
    void* host = buffers[i]->host_pointer();
    if (host == nullptr && bytes_[v] != 0) {
      throw sy_sdk::Error(SY_ERROR_INVALID_ARGUMENT,
                          "execute: buffer " + std::to_string(i) + " is not host memory");
    }
    data_[v] = static_cast<std::byte*>(host);
  }
}

}  // namespace sy::plugin
