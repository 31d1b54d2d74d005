// Building graphs and tensors in test code: GraphBuilder names values and nodes and runs
// pass-2 validation, so a test states a graph in a few lines.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "switchyard/graph.h"
#include "switchyard/model_io.h"
#include "switchyard/tensor.h"

namespace sy::test {

class GraphBuilder {
 public:
  ValueId Value(const std::string& name, DType dtype, Shape shape) {
    graph_.values.push_back({name, {dtype, std::move(shape)}});
    return static_cast<ValueId>(graph_.values.size() - 1);
  }
  ValueId Input(const std::string& name, DType dtype, Shape shape) {
    const ValueId id = Value(name, dtype, std::move(shape));
    graph_.inputs.push_back(id);
    return id;
  }
  ValueId Const(const std::string& name, const Tensor& data) {
    const ValueId id = Value(name, data.dtype(), data.shape());
    graph_.constants.push_back({id, "", data});
    return id;
  }
  void Node(const std::string& op, std::vector<ValueId> inputs, std::vector<ValueId> outputs,
            Attrs attrs = {}, const std::string& name = "", const std::string& backend = "") {
    graph_.nodes.push_back(
        {op, std::move(inputs), std::move(outputs), std::move(attrs), name, backend});
  }
  // A one-output node whose output (named `name`) has the type of its first input.
  ValueId Unary(const std::string& op, ValueId input, const std::string& name,
                const std::string& backend = "") {
    const ValueId out =
        Value(name, graph_.values[input].type.dtype, graph_.values[input].type.shape);
    Node(op, {input}, {out}, {}, name, backend);
    return out;
  }
  ValueId Binary(const std::string& op, ValueId a, ValueId b, const std::string& name,
                 const std::string& backend = "") {
    const ValueId out = Value(name, graph_.values[a].type.dtype, graph_.values[a].type.shape);
    Node(op, {a, b}, {out}, {}, name, backend);
    return out;
  }
  void Output(ValueId id) { graph_.outputs.push_back(id); }

  // Runs pass 2 (which must succeed) and returns the graph.
  Graph Build() {
    Status validated = ValidateGraphTypes(graph_);
    EXPECT_TRUE(validated.ok()) << validated.ToString();
    return graph_;
  }

 private:
  Graph graph_;
};

template <typename T>
Tensor MakeTensor(DType dtype, Shape shape, std::vector<T> values) {
  Tensor t = *Tensor::Allocate(dtype, std::move(shape));
  EXPECT_EQ(static_cast<size_t>(t.element_count()), values.size());
  for (size_t i = 0; i < values.size(); ++i) t.mutable_values<T>()[i] = values[i];
  return t;
}

}  // namespace sy::test
