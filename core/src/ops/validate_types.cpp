// Pass 2 of loading: every node is checked against its op's schema, and the types its
// shape rule infers must equal the types recorded for its output values.
#include <algorithm>
#include <cctype>

#include "ops/node_inference.h"
#include "ops/symbolic_shapes.h"
#include "switchyard/model_io.h"
#include "switchyard/op_schema.h"
#include "switchyard/specialize.h"

namespace sy {
namespace {

char ToLower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

// The catalogue op `op` most likely means, for "did you mean": the op whose ONNX name it
// is ("MatMul", "LeakyRelu": exporters often write those), else the op closest to it by
// edit distance, ignoring case ("Relu" is "relu", not "elu").
std::string_view ClosestOp(std::string_view op) {
  std::string_view best;
  if (op.size() > 64) return best;  // no op name is that long; skip the quadratic search
  std::string lower(op);
  for (char& c : lower) c = ToLower(c);
  for (const OpSchema& schema : OpRegistry::Global().schemas()) {
    if (!schema.onnx_name.empty() && schema.onnx_name == op) return schema.name;
  }
  size_t best_distance = 3;  // suggest only near misses
  for (const OpSchema& schema : OpRegistry::Global().schemas()) {
    const std::string_view name = schema.name;
    std::vector<size_t> row(name.size() + 1);
    for (size_t j = 0; j <= name.size(); ++j) row[j] = j;
    for (size_t i = 1; i <= lower.size(); ++i) {
      size_t diagonal = row[0];
      row[0] = i;
      for (size_t j = 1; j <= name.size(); ++j) {
        const size_t above = row[j];
        row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (lower[i - 1] != name[j - 1])});
        diagonal = above;
      }
    }
    if (row[name.size()] < best_distance) {
      best_distance = row[name.size()];
      best = name;
    }
  }
  return best;
}

}  // namespace

Expected<std::vector<TensorType>> InferNodeTypes(Graph& graph, size_t index,
                                                 std::vector<TensorType>& scratch) {
  Node& node = graph.nodes[index];
  const OpSchema* schema = OpRegistry::Global().Find(node.op);
  if (schema == nullptr) {
    std::string message = graph.DescribeNode(index) + ": unknown op \"" + node.op + "\"";
    const std::string_view suggestion = ClosestOp(node.op);
    if (!suggestion.empty()) message += " (did you mean \"" + std::string(suggestion) + "\"?)";
    return InvalidModel(message + "; see docs/ops.md for the catalogue");
  }
  // Pass 1 guarantees ids in range; a graph built in code may not have been through it.
  for (const auto* ids : {&node.inputs, &node.outputs}) {
    for (ValueId id : *ids) {
      if (id < 0 || static_cast<size_t>(id) >= graph.values.size()) {
        return InvalidModel(graph.DescribeNode(index) + ": " +
                            (ids == &node.inputs ? "input" : "output") + " value id " +
                            std::to_string(id) + " is out of range [0, " +
                            std::to_string(graph.values.size()) + ")");
      }
    }
  }
  scratch.clear();
  for (ValueId id : node.inputs) scratch.push_back(graph.values[id].type);
  Expected<std::vector<TensorType>> inferred =
      InferOutputTypes(*schema, scratch, node.attrs, static_cast<int>(node.outputs.size()));
  if (!inferred.ok()) return inferred.status().WithContext(graph.DescribeNode(index));
  return inferred;
}

Status ValidateGraphTypes(Graph& graph) {
  if (graph.IsSymbolic()) {
    // A graph with run-time sizes is checked symbolically, for every size at once, then by
    // specialising it at its symbols' examples (docs/dynamic-shapes.md), which checks what
    // the symbolic pass leaves undecided; without examples each specialisation checks its
    // own sizes.
    SY_RETURN_IF_ERROR(CheckSymbolicShapes(graph));
    Expected<SymbolBinding> examples = ExampleBinding(graph);
    if (!examples.ok()) return Status::Ok();
    return Specialize(graph, *examples).status();
  }
  std::vector<TensorType> scratch;
  for (size_t index = 0; index < graph.nodes.size(); ++index) {
    SY_ASSIGN_OR_RETURN(std::vector<TensorType> inferred, InferNodeTypes(graph, index, scratch));
    const Node& node = graph.nodes[index];
    for (size_t k = 0; k < node.outputs.size(); ++k) {
      const ValueId id = node.outputs[k];
      const TensorType& recorded = graph.values[id].type;
      if (inferred[k] != recorded) {
        return InvalidModel(graph.DescribeNode(index) + " produces " + inferred[k].ToString() +
                            (node.outputs.size() > 1 ? " as output " + std::to_string(k) : "") +
                            " but " + graph.DescribeValue(id) + " is recorded as " +
                            recorded.ToString());
      }
    }
  }
  return Status::Ok();
}

Expected<Graph> LoadModel(const std::filesystem::path& model) {
  SY_ASSIGN_OR_RETURN(Graph graph, ReadModel(model));
  Status types = ValidateGraphTypes(graph);
  if (!types.ok()) return types.WithContext(ResolveModelPaths(model).file().string());
  return graph;
}

}  // namespace sy
