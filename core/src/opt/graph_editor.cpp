#include "opt/graph_editor.h"

#include <algorithm>

namespace sy::opt {

GraphEditor::GraphEditor(Graph graph, std::vector<const Device*> devices)
    : graph_(std::move(graph)), devices_(std::move(devices)) {
  devices_.resize(graph_.nodes.size(), nullptr);
  Index();
}

void GraphEditor::Index() {
  const size_t num_values = graph_.values.size();
  producer_.assign(num_values, std::nullopt);
  consumers_.assign(num_values, {});
  for (size_t n = 0; n < graph_.nodes.size(); ++n) {
    for (ValueId v : graph_.nodes[n].outputs) producer_[v] = n;
    for (ValueId v : graph_.nodes[n].inputs) consumers_[v].push_back(n);
  }
  constant_.clear();
  for (size_t c = 0; c < graph_.constants.size(); ++c) constant_[graph_.constants[c].value] = c;
  outputs_ = {graph_.outputs.begin(), graph_.outputs.end()};
  names_.clear();
  for (const Value& v : graph_.values) names_.insert(v.name);
  taken_.assign(graph_.nodes.size(), false);
  removed_.assign(graph_.nodes.size(), false);
  inserted_.clear();
}

std::optional<size_t> GraphEditor::Producer(ValueId v) const {
  if (v < 0 || static_cast<size_t>(v) >= producer_.size()) return std::nullopt;
  return producer_[v];
}

std::optional<size_t> GraphEditor::ProducerIf(ValueId v, std::string_view op) const {
  const std::optional<size_t> p = Producer(v);
  if (!p || taken_[*p] || graph_.nodes[*p].op != op) return std::nullopt;
  return p;
}

const std::vector<size_t>& GraphEditor::Consumers(ValueId v) const {
  static const std::vector<size_t> kNone;
  if (v < 0 || static_cast<size_t>(v) >= consumers_.size()) return kNone;
  return consumers_[v];
}

std::optional<size_t> GraphEditor::OnlyConsumerIf(ValueId v, std::string_view op) const {
  if (!SingleUse(v)) return std::nullopt;
  const size_t c = Consumers(v)[0];
  if (taken_[c] || graph_.nodes[c].op != op) return std::nullopt;
  return c;
}

const Tensor* GraphEditor::Constant(ValueId v) const {
  const auto it = constant_.find(v);
  return it == constant_.end() ? nullptr : &graph_.constants[it->second].data;
}

std::optional<double> GraphEditor::ScalarConstant(ValueId v) const {
  const Tensor* t = Constant(v);
  if (t == nullptr || t->element_count() != 1 || !IsFloat(t->dtype())) return std::nullopt;
  return ElementAsDouble(*t, 0);
}

ValueId GraphEditor::AddValue(const std::string& name_hint, TensorType type) {
  std::string name = name_hint;
  for (int i = 1; names_.count(name) > 0; ++i) name = name_hint + "_" + std::to_string(i);
  names_.insert(name);
  graph_.values.push_back({name, std::move(type)});
  producer_.push_back(std::nullopt);
  consumers_.emplace_back();
  return static_cast<ValueId>(graph_.values.size() - 1);
}

ValueId GraphEditor::AddConstant(const std::string& name_hint, Tensor data) {
  const ValueId v = AddValue(name_hint, data.type());
  graph_.constants.push_back({v, "", std::move(data)});
  constant_[v] = graph_.constants.size() - 1;
  changed_ = true;
  return v;
}

bool GraphEditor::AnyTaken(std::span<const size_t> nodes) const {
  return std::any_of(nodes.begin(), nodes.end(), [&](size_t n) { return taken_[n]; });
}

void GraphEditor::Replace(std::span<const size_t> nodes, std::vector<Node> replacement,
                          const Device* device) {
  const size_t last = *std::max_element(nodes.begin(), nodes.end());
  for (size_t n : nodes) {
    taken_[n] = true;
    removed_[n] = true;
  }
  auto& slot = inserted_[last];
  for (Node& node : replacement) slot.emplace_back(std::move(node), device);
  changed_ = true;
}

void GraphEditor::FoldToConstant(size_t n, std::vector<Tensor> outputs) {
  taken_[n] = true;
  removed_[n] = true;
  const Node& node = graph_.nodes[n];
  for (size_t i = 0; i < node.outputs.size() && i < outputs.size(); ++i) {
    const ValueId v = node.outputs[i];
    graph_.constants.push_back({v, "", std::move(outputs[i])});
    constant_[v] = graph_.constants.size() - 1;
    producer_[v] = std::nullopt;
  }
  changed_ = true;
}

bool GraphEditor::Commit() {
  if (!changed_) return false;
  changed_ = false;
  std::vector<Node> nodes;
  std::vector<const Device*> devices;
  for (size_t n = 0; n < graph_.nodes.size(); ++n) {
    if (const auto it = inserted_.find(n); it != inserted_.end()) {
      for (auto& [node, device] : it->second) {
        nodes.push_back(std::move(node));
        devices.push_back(device);
      }
    }
    if (!removed_[n]) {
      nodes.push_back(std::move(graph_.nodes[n]));
      devices.push_back(devices_[n]);
    }
  }

  // Keep the graph's interface and every value a node touches; renumber in order.
  std::vector<bool> used(graph_.values.size(), false);
  for (ValueId v : graph_.inputs) used[v] = true;
  for (ValueId v : graph_.outputs) used[v] = true;
  for (const Node& node : nodes) {
    for (ValueId v : node.inputs) used[v] = true;
    for (ValueId v : node.outputs) used[v] = true;
  }
  std::vector<ValueId> remap(graph_.values.size(), -1);
  std::vector<Value> values;
  for (size_t v = 0; v < graph_.values.size(); ++v) {
    if (!used[v]) continue;
    remap[v] = static_cast<ValueId>(values.size());
    values.push_back(std::move(graph_.values[v]));
  }
  auto renumber = [&](std::vector<ValueId>& ids) {
    for (ValueId& id : ids) id = remap[id];
  };
  for (Node& node : nodes) {
    renumber(node.inputs);
    renumber(node.outputs);
  }
  renumber(graph_.inputs);
  renumber(graph_.outputs);
  // Decoding state names graph inputs and outputs, which are all kept.
  for (StateValue& v : graph_.state.values) {
    v.input = remap[v.input];
    v.output = remap[v.output];
  }
  if (graph_.state.position >= 0) graph_.state.position = remap[graph_.state.position];
  if (graph_.state.advance_input >= 0) {
    graph_.state.advance_input = remap[graph_.state.advance_input];
  }
  std::vector<sy::Constant> constants;
  for (sy::Constant& c : graph_.constants) {
    if (!used[c.value]) continue;
    c.value = remap[c.value];
    constants.push_back(std::move(c));
  }
  graph_.values = std::move(values);
  graph_.nodes = std::move(nodes);
  graph_.constants = std::move(constants);
  devices_ = std::move(devices);
  Index();
  return true;
}

}  // namespace sy::opt
