#include "plugin_node.h"

#include <algorithm>

#include "switchyard/node_descriptors.h"

namespace sy::plugin {

std::string NodeInfo::Describe() const {
  std::string s = op;
  if (!name.empty()) s += " \"" + name + "\"";
  return s;
}

namespace {

[[noreturn]] void Invalid(const std::string& message) {
  throw sy_sdk::Error(SY_ERROR_INVALID_ARGUMENT, message);
}

AttrValue DecodeAttr(const sy_attr& a) {
  Expected<AttrValue> value = AttrFromC(a);
  if (!value.ok()) Invalid(value.status().message());
  return std::move(*value);
}

TensorType DecodeType(const sy_tensor_type& t) {
  Expected<TensorType> type = TensorTypeFromC(t);
  if (!type.ok()) Invalid(type.status().message());
  return std::move(*type);
}

}  // namespace

NodeInfo DecodeNode(const sy_node& node) {
  if (node.op == nullptr || (node.num_inputs && node.inputs == nullptr) ||
      (node.num_outputs && node.outputs == nullptr) || (node.num_attrs && node.attrs == nullptr)) {
    Invalid("malformed node");
  }
  NodeInfo info;
  info.op = node.op;
  info.name = node.name != nullptr ? node.name : "";
  for (uint32_t i = 0; i < node.num_inputs; ++i) info.inputs.push_back(DecodeType(node.inputs[i]));
  for (uint32_t i = 0; i < node.num_outputs; ++i) {
    info.outputs.push_back(DecodeType(node.outputs[i]));
  }
  for (uint32_t a = 0; a < node.num_attrs; ++a) {
    if (node.attrs[a].name == nullptr) Invalid("malformed attribute (no name)");
    info.attrs.Set(node.attrs[a].name, DecodeAttr(node.attrs[a]));
  }
  return info;
}

int CollapseBroadcast(std::span<const int64_t> out, std::span<const Shape> inputs,
                      std::vector<int64_t>& meta) {
  const size_t rank = out.size();
  const size_t k = inputs.size();
  // Per input, the element stride of each output dim (0 where it broadcasts).
  std::vector<std::vector<int64_t>> strides(k, std::vector<int64_t>(rank, 0));
  for (size_t j = 0; j < k; ++j) {
    const Shape& in = inputs[j];
    const size_t lead = rank - in.size();
    int64_t stride = 1;
    for (size_t d = in.size(); d-- > 0;) {
      strides[j][lead + d] = in[d] == 1 ? 0 : stride;
      stride *= in[d];
    }
  }
  std::vector<int64_t> dims;
  std::vector<std::vector<int64_t>> merged(k);
  for (size_t d = 0; d < rank; ++d) {
    if (out[d] == 1) continue;
    bool merge = !dims.empty();
    for (size_t j = 0; j < k && merge; ++j) {
      merge = merged[j].back() == strides[j][d] * out[d];
    }
    if (merge) {
      dims.back() *= out[d];
      for (size_t j = 0; j < k; ++j) merged[j].back() = strides[j][d];
    } else {
      dims.push_back(out[d]);
      for (size_t j = 0; j < k; ++j) merged[j].push_back(strides[j][d]);
    }
  }
  if (dims.empty()) {
    dims.push_back(1);
    for (size_t j = 0; j < k; ++j) merged[j].push_back(0);
  }
  meta = dims;
  for (size_t j = 0; j < k; ++j) meta.insert(meta.end(), merged[j].begin(), merged[j].end());
  return static_cast<int>(dims.size());
}

}  // namespace sy::plugin
