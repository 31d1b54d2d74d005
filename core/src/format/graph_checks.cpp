// The shared checks of pass 1 (format/graph_checks.h).
#include "format/graph_checks.h"

#include <algorithm>

namespace sy::format {

Status CheckBackendHint(const std::string& hint, const std::string& where) {
  if (hint.empty()) return Status::Ok();
  const size_t colon = hint.find(':');
  const std::string name = hint.substr(0, colon);
  const std::string index = colon == std::string::npos ? "" : hint.substr(colon + 1);
  auto name_ok = !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-' || c == '.';
  });
  auto index_ok =
      colon == std::string::npos ||
      (!index.empty() && index.size() <= 9 &&
       std::all_of(index.begin(), index.end(), [](char c) { return c >= '0' && c <= '9'; }));
  if (!name_ok || !index_ok) {
    return InvalidModel(where + ": backend hint \"" + hint.substr(0, 200) +
                        "\" is malformed (expected a plugin name such as \"cuda\", optionally "
                        "with a device index such as \"cuda:1\")");
  }
  return Status::Ok();
}

void AppendConstantDim(Value& value, int64_t dim) {
  value.type.shape.push_back(dim);
  if (value.is_symbolic()) value.symbolic_shape.emplace_back(dim);
}

void AppendExprDim(Value& value, DimExpr expr) {
  if (value.symbolic_shape.empty()) {
    for (int64_t known : value.type.shape) value.symbolic_shape.emplace_back(known);
  }
  value.type.shape.push_back(expr.is_const() ? expr.value() : -1);
  value.symbolic_shape.push_back(std::move(expr));
}

Status FinishShape(Value& value, const std::string& described) {
  if (value.is_symbolic() &&
      std::all_of(value.symbolic_shape.begin(), value.symbolic_shape.end(),
                  [](const DimExpr& e) { return e.is_const() && e.value() >= 0; })) {
    value.symbolic_shape.clear();
  }
  if (!value.is_symbolic()) {
    Status count = CheckedElementCount(value.type.shape).status();
    if (!count.ok()) {
      return InvalidModel(described.empty() ? count.message()
                                            : count.WithContext(described).message());
    }
  }
  return Status::Ok();
}

Status DefinitionOrder::DefinedTwice(ValueId id, const std::string& by) const {
  return InvalidModel(graph_.DescribeValue(id) + " is defined twice: again as " + by +
                      " (expected every value to be produced exactly once)");
}

Status DefinitionOrder::CheckRead(ValueId id, const std::string& where, size_t k) const {
  if (defined_[id]) return Status::Ok();
  return InvalidModel(where + ": input " + std::to_string(k) + " reads " +
                      graph_.DescribeValue(id) +
                      " before it is defined (expected nodes in topological order)");
}

Status DefinitionOrder::AddGraphOutput(ValueId id, const std::string& where) {
  if (output_[id]) {
    return InvalidModel(where + ": " + graph_.DescribeValue(id) +
                        " is listed twice as a graph output");
  }
  output_[id] = true;
  return Status::Ok();
}

Status DefinitionOrder::CheckAllDefined() const {
  for (size_t id = 0; id < defined_.size(); ++id) {
    if (!defined_[id]) {
      return InvalidModel(graph_.DescribeValue(static_cast<ValueId>(id)) +
                          " is never produced (expected a graph input, a constant or a node "
                          "output)");
    }
  }
  return Status::Ok();
}

}  // namespace sy::format
