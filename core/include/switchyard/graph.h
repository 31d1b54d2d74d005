// The graph IR of rml-graph v1 (spec/graph-format.md): values, constants, nodes, and the
// graph's inputs and outputs. A Graph is plain data that owns its constants' storage
// (through Tensor handles, possibly views onto a mapped safetensors file).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "switchyard/attrs.h"
#include "switchyard/shape.h"
#include "switchyard/tensor.h"

namespace sy {

// A value's id is its index in Graph::values.
using ValueId = int32_t;

struct Value {
  std::string name;
  TensorType type;
};

struct Constant {
  ValueId value = -1;
  // The safetensors tensor it was stored as; empty for inline `data` constants. The
  // writer stores named constants in the safetensors file and the rest inline.
  std::string tensor_name;
  Tensor data;  // dtype and shape equal the value's type
};

struct Node {
  std::string op;
  std::vector<ValueId> inputs;
  std::vector<ValueId> outputs;
  Attrs attrs;
  std::string name;     // optional label for messages and plans
  std::string backend;  // optional hint: "cuda", "opencl:1", a vendor plugin's name
};

struct Graph {
  std::string producer;
  std::vector<Value> values;
  std::vector<ValueId> inputs;
  std::vector<ValueId> outputs;
  std::vector<Constant> constants;
  std::vector<Node> nodes;

  // Total bytes held by constants (inline and stored).
  uint64_t ConstantBytes() const;
  // `node 3 (matmul) "fc0"`: how messages refer to a node.
  std::string DescribeNode(size_t index) const;
  // `value 12 "h1"`: how messages refer to a value.
  std::string DescribeValue(ValueId id) const;
};

}  // namespace sy
