// The graph IR of rml-graph v1 (spec/graph-format.md): values, constants, nodes, and the
// graph's inputs and outputs. A Graph is plain data that owns its constants' storage
// (through Tensor handles, possibly views onto a mapped safetensors file).
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "switchyard/attrs.h"
#include "switchyard/dim_expr.h"
#include "switchyard/shape.h"
#include "switchyard/tensor.h"

namespace sy {

// A value's id is its index in Graph::values.
using ValueId = int32_t;

struct Value {
  std::string name;
  TensorType type;
  // A graph with run-time sizes (docs/dynamic-shapes.md): the value's dims as recorded,
  // one per axis, where some are not constants (a symbol, an expression, "?"); empty
  // when every dim is the constant in type.shape. type.shape holds -1 for the dims that
  // are not constants: such a value has no size until the graph is specialised.
  std::vector<DimExpr> symbolic_shape;
  // Set by Specialize (not saved): bit d for each axis d that was not a constant before
  // (bit 63 stands for every axis from 63 on). A specialisation's sizes there are one
  // run's, so a rewrite that depends on such a size (a transpose of a dim that is 1 now)
  // would give each set of sizes its own graph structure and defeat executables shared
  // across sizes (docs/dynamic-shapes.md); rules ask RunTimeDim before they do.
  uint64_t run_time_dims = 0;

  bool is_symbolic() const { return !symbolic_shape.empty(); }
  bool RunTimeDim(size_t axis) const { return (run_time_dims >> std::min<size_t>(axis, 63)) & 1; }
};

// An integer (or float) attribute, or an integer list, whose value is computed from the
// input sizes when the graph is specialised: reshape's `shape` [batch, seq, 12, 64].
struct AttrExpr {
  bool is_list = true;  // ints; else one int or float
  std::vector<DimExpr> items;
};

// A size symbol, with an example size at which loading checks the graph (and the importer
// traced it); example < 0: none given. Most are bound by graph inputs' dims; a data
// symbol (value >= 0) is bound at run time by the contents of an integer value with one
// element: the count of an op whose output size the data decides (non_zero, unique, ...),
// or a graph input such as TopK's k. A session runs the nodes that need a data symbol in
// a later stage, once the value is known (docs/dynamic-shapes.md).
struct DimSymbol {
  std::string name;
  int64_t example = -1;
  int32_t value = -1;  // ValueId of a data symbol's value; -1 for a size of the inputs

  bool from_data() const { return value >= 0; }
};

// Decoding state (docs/decoding.md): graph inputs whose contents a session keeps on the
// device between runs, each fed by a graph output of the same type (a key or value cache
// of fixed capacity, written by cache_write), and the bookkeeping of how many positions
// they hold. Empty for a graph without state.
struct StateValue {
  ValueId input = -1;   // a graph input the caller never passes
  ValueId output = -1;  // a graph output the caller never receives: the input's next contents
  int64_t axis = 0;     // the sequence axis; its size is the capacity
};
struct DecodingState {
  std::vector<StateValue> values;
  // A graph input (i32 or i64, shape [] or [1]) the session fills with the number of
  // positions the state holds before the run; -1: none.
  ValueId position = -1;
  // Each run adds as many positions as graph input `advance_input` has along
  // `advance_axis` (input_ids [batch, seq]: axis 1).
  ValueId advance_input = -1;
  int64_t advance_axis = 0;
  // Token ids that end a sequence (a model's EOS ids, from its generation config): a
  // decoder stops once it picks one. Empty: it stops at its token budget only.
  std::vector<int64_t> end_tokens;

  bool empty() const { return values.empty(); }
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
  // Attributes computed at specialisation, by name; never also in `attrs`.
  std::map<std::string, AttrExpr> attr_exprs;
};

struct Graph {
  std::string producer;
  std::vector<Value> values;
  std::vector<ValueId> inputs;
  std::vector<ValueId> outputs;
  std::vector<Constant> constants;
  std::vector<Node> nodes;
  // The size symbols of a graph with run-time sizes, in order of first use by an input.
  std::vector<DimSymbol> symbols;
  // What a session keeps between runs (docs/decoding.md); empty for most graphs.
  DecodingState state;

  // True when some value has a dim that is not a constant or some node an attribute
  // computed from sizes: the graph must be specialised (switchyard/specialize.h) before
  // it is planned.
  bool IsSymbolic() const;

  // Total bytes held by constants (inline and stored).
  uint64_t ConstantBytes() const;
  // `node 3 (matmul) "fc0"`: how messages refer to a node.
  std::string DescribeNode(size_t index) const;
  // `value 12 "h1"`: how messages refer to a value.
  std::string DescribeValue(ValueId id) const;
};

// "f32 [batch, seq, 768]": the value's type as recorded, symbols included.
std::string ValueTypeString(const Value& value);

}  // namespace sy
