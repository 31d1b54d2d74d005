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
    text += " (" + nodes[index].op + ")";
    if (!nodes[index].name.empty()) text += " \"" + nodes[index].name + "\"";
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

}  // namespace sy
