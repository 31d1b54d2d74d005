#include "switchyard/graph.h"

#include "switchyard/value_names.h"

namespace sy {

uint64_t Graph::ConstantBytes() const {
  uint64_t total = 0;
  for (const Constant& c : constants) total += c.data.byte_size();
  return total;
}

std::string Graph::DescribeNode(size_t index) const {
  std::string text = "node " + std::to_string(index);
  if (index < nodes.size()) {
    // Names and op names come from the model: printed escaped, so that a control
    // character in one cannot forge a line of output.
    text += " (" + PrintableName(nodes[index].op) + ")";
    if (!nodes[index].name.empty()) text += " \"" + PrintableName(nodes[index].name) + "\"";
  }
  return text;
}

std::string Graph::DescribeValue(ValueId id) const {
  std::string text = "value " + std::to_string(id);
  if (id >= 0 && static_cast<size_t>(id) < values.size()) {
    text += " \"" + PrintableName(values[id].name) + "\"";
  }
  return text;
}

bool Graph::IsSymbolic() const {
  for (const Value& v : values) {
    if (v.is_symbolic()) return true;
  }
  for (const Node& n : nodes) {
    if (!n.attr_exprs.empty()) return true;
  }
  return false;
}

std::string ValueTypeString(const Value& value) {
  if (!value.is_symbolic()) return value.type.ToString();
  std::string text = std::string(DTypeName(value.type.dtype)) + " [";
  for (size_t i = 0; i < value.symbolic_shape.size(); ++i) {
    if (i > 0) text += ", ";
    text += value.symbolic_shape[i].ToString();
  }
  return text + "]";
}

}  // namespace sy
