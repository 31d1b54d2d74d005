#include "plugin/node_descriptors.h"

#include <unordered_map>

#include "switchyard/op_schema.h"

namespace sy {
namespace {

sy_tensor_type ToC(const TensorType& t) {
  return {static_cast<uint32_t>(t.dtype), static_cast<uint32_t>(t.shape.size()), t.shape.data()};
}

// Appends views of `attrs` (which must outlive `out`) to `out`; string lists keep their
// pointer arrays in `string_lists`, reserved by the caller so that they never move.
void AttrsToC(const Attrs& attrs, std::vector<sy_attr>& out,
              std::vector<std::vector<const char*>>& string_lists) {
  for (const auto& [name, value] : attrs) {
    sy_attr a{};
    a.name = name.c_str();
    a.kind = static_cast<uint32_t>(KindOf(value));
    switch (KindOf(value)) {
      case AttrKind::kInt:
        a.i = std::get<int64_t>(value);
        break;
      case AttrKind::kFloat:
        a.f = std::get<double>(value);
        break;
      case AttrKind::kString:
        a.s = std::get<std::string>(value).c_str();
        break;
      case AttrKind::kInts: {
        const auto& v = std::get<std::vector<int64_t>>(value);
        a.count = static_cast<uint32_t>(v.size());
        a.ints = v.data();
        break;
      }
      case AttrKind::kFloats: {
        const auto& v = std::get<std::vector<double>>(value);
        a.count = static_cast<uint32_t>(v.size());
        a.floats = v.data();
        break;
      }
      case AttrKind::kStrings: {
        const auto& v = std::get<std::vector<std::string>>(value);
        std::vector<const char*> ptrs;
        for (const std::string& s : v) ptrs.push_back(s.c_str());
        string_lists.push_back(std::move(ptrs));
        a.count = static_cast<uint32_t>(v.size());
        a.strings = string_lists.back().data();
        break;
      }
    }
    out.push_back(a);
  }
}

}  // namespace

NodeDescriptors::NodeDescriptors(const Graph& graph) {
  value_types_.reserve(graph.values.size());
  for (const Value& v : graph.values) value_types_.push_back(ToC(v.type));
  const size_t n = graph.nodes.size();
  in_types_.resize(n);
  out_types_.resize(n);
  attrs_.resize(n);
  canonical_attrs_.resize(n);  // never resized again: the sy_attrs point into it
  string_lists_.resize(n);
  nodes_.resize(n);
  for (size_t i = 0; i < n; ++i) {
    const Node& node = graph.nodes[i];
    for (ValueId id : node.inputs) in_types_[i].push_back(value_types_[id]);
    for (ValueId id : node.outputs) out_types_[i].push_back(value_types_[id]);
    // Canonical attributes (op_schema.h): what every plugin may rely on. Most ops have none
    // to resolve: their attributes are sent from the graph as they are, without a copy.
    const Attrs* attrs = &node.attrs;
    const OpSchema* schema = OpRegistry::Global().Find(node.op);
    if (schema != nullptr && HasCanonicalForm(*schema)) {
      std::vector<TensorType> input_types;
      for (ValueId id : node.inputs) input_types.push_back(graph.values[id].type);
      canonical_attrs_[i] = CanonicalAttrs(*schema, input_types, node.attrs);
      attrs = &canonical_attrs_[i];
    }
    string_lists_[i].reserve(attrs->size());
    AttrsToC(*attrs, attrs_[i], string_lists_[i]);
    sy_node& c = nodes_[i];
    c.struct_size = sizeof(sy_node);
    c.abi_version = SY_PLUGIN_ABI_VERSION;
    c.op = node.op.c_str();
    c.name = node.name.c_str();
    c.num_inputs = static_cast<uint32_t>(node.inputs.size());
    c.num_outputs = static_cast<uint32_t>(node.outputs.size());
    c.inputs = in_types_[i].data();
    c.outputs = out_types_[i].data();
    c.num_attrs = static_cast<uint32_t>(attrs_[i].size());
    c.attrs = attrs_[i].data();
  }
}

PartitionDescriptor::PartitionDescriptor(const NodeDescriptors& descriptors, const Graph& graph,
                                         const std::vector<size_t>& nodes,
                                         const std::vector<ValueId>& bound_inputs,
                                         const std::vector<ValueId>& bound_outputs,
                                         const std::vector<bool>& outputs_internal) {
  std::unordered_map<ValueId, uint32_t> local;
  auto add = [&](ValueId id) {
    auto [it, inserted] = local.emplace(id, static_cast<uint32_t>(values_.size()));
    if (inserted) values_.push_back(descriptors.value_types()[id]);
    return it->second;
  };
  std::unordered_map<ValueId, const void*> constant_bytes;
  for (const Constant& c : graph.constants) constant_bytes[c.value] = c.data.data();
  for (ValueId id : bound_inputs) {
    inputs_.push_back(add(id));
    const auto it = constant_bytes.find(id);
    constant_data_.push_back(it != constant_bytes.end() ? it->second : nullptr);
  }
  for (ValueId id : bound_outputs) outputs_.push_back(add(id));
  input_ids_.resize(nodes.size());
  output_ids_.resize(nodes.size());
  nodes_.reserve(nodes.size());
  for (size_t k = 0; k < nodes.size(); ++k) {
    const Node& node = graph.nodes[nodes[k]];
    for (ValueId id : node.inputs) input_ids_[k].push_back(add(id));
    for (ValueId id : node.outputs) output_ids_[k].push_back(add(id));
    sy_node c = descriptors.node(nodes[k]);
    c.input_values = input_ids_[k].data();
    c.output_values = output_ids_[k].data();
    nodes_.push_back(c);
  }
  partition_.struct_size = sizeof partition_;
  partition_.abi_version = SY_PLUGIN_ABI_VERSION;
  partition_.num_values = static_cast<uint32_t>(values_.size());
  partition_.values = values_.data();
  partition_.num_nodes = static_cast<uint32_t>(nodes_.size());
  partition_.nodes = nodes_.data();
  partition_.num_inputs = static_cast<uint32_t>(inputs_.size());
  partition_.inputs = inputs_.data();
  partition_.num_outputs = static_cast<uint32_t>(outputs_.size());
  partition_.outputs = outputs_.data();
  partition_.constant_data = constant_data_.data();
  if (outputs_internal.size() == bound_outputs.size() && !bound_outputs.empty()) {
    outputs_internal_.assign(outputs_internal.begin(), outputs_internal.end());
    partition_.outputs_internal = outputs_internal_.data();
  }
}

}  // namespace sy
