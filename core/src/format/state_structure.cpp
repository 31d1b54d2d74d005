#include "format/state_structure.h"

#include <algorithm>
#include <string>

namespace sy {
namespace {

bool Contains(const std::vector<ValueId>& ids, ValueId id) {
  return std::find(ids.begin(), ids.end(), id) != ids.end();
}

bool InRange(const Graph& graph, ValueId id) {
  return id >= 0 && static_cast<size_t>(id) < graph.values.size();
}

}  // namespace

Status CheckStateStructure(const Graph& graph) {
  const DecodingState& state = graph.state;
  if (state.empty()) {
    if (state.position >= 0 || state.advance_input >= 0) {
      return InvalidModel("state: a position or advance is given but no state values");
    }
    return Status::Ok();
  }
  for (const DimSymbol& symbol : graph.symbols) {
    if (symbol.from_data()) {
      return InvalidModel(
          "state: a graph with decoding state cannot also have sizes decided "
          "by data (symbol " +
          symbol.name + "): not supported yet");
    }
  }
  std::vector<ValueId> seen;
  for (size_t i = 0; i < state.values.size(); ++i) {
    const StateValue& s = state.values[i];
    const std::string where = "state.values[" + std::to_string(i) + "]";
    if (!InRange(graph, s.input) || !Contains(graph.inputs, s.input)) {
      return InvalidModel(where + ": input " + std::to_string(s.input) +
                          " is not a graph input (expected the id of one)");
    }
    if (!InRange(graph, s.output) || !Contains(graph.outputs, s.output)) {
      return InvalidModel(where + ": output " + std::to_string(s.output) +
                          " is not a graph output (expected the id of one)");
    }
    for (ValueId id : {s.input, s.output}) {
      if (Contains(seen, id)) {
        return InvalidModel(where + ": " + graph.DescribeValue(id) +
                            " is already part of another state value");
      }
      seen.push_back(id);
    }
    const Value& in = graph.values[s.input];
    const Value& out = graph.values[s.output];
    if (in.is_symbolic() || out.is_symbolic()) {
      return InvalidModel(where + ": " + graph.DescribeValue(s.input) + " is " +
                          ValueTypeString(in) + " and " + graph.DescribeValue(s.output) + " is " +
                          ValueTypeString(out) +
                          " (state has a fixed size: its capacity is part of the model)");
    }
    if (in.type != out.type) {
      return InvalidModel(where + ": " + graph.DescribeValue(s.input) + " is " +
                          in.type.ToString() + " but " + graph.DescribeValue(s.output) + " is " +
                          out.type.ToString() +
                          " (expected one type: the output is the "
                          "input's next contents)");
    }
    if (s.axis < 0 || s.axis >= in.type.rank()) {
      return InvalidModel(where + ": axis " + std::to_string(s.axis) + " is not an axis of " +
                          in.type.ToString() + " (expected 0 to " +
                          std::to_string(in.type.rank() - 1) + ")");
    }
  }
  if (state.position >= 0) {
    if (!InRange(graph, state.position) || !Contains(graph.inputs, state.position)) {
      return InvalidModel("state.position " + std::to_string(state.position) +
                          " is not a graph input");
    }
    if (Contains(seen, state.position)) {
      return InvalidModel("state.position: " + graph.DescribeValue(state.position) +
                          " is also a state value");
    }
    const Value& p = graph.values[state.position];
    if (p.is_symbolic() || (p.type.dtype != DType::kI64 && p.type.dtype != DType::kI32) ||
        p.type.rank() > 1 || ElementCount(p.type.shape) != 1) {
      return InvalidModel("state.position: " + graph.DescribeValue(state.position) + " is " +
                          ValueTypeString(p) + " (expected i32 or i64 of shape [] or [1])");
    }
    seen.push_back(state.position);
  }
  if (!InRange(graph, state.advance_input) || !Contains(graph.inputs, state.advance_input) ||
      Contains(seen, state.advance_input)) {
    return InvalidModel("state.advance: value " + std::to_string(state.advance_input) +
                        " is not a graph input other than the state and position inputs "
                        "(expected the input whose size along an axis is the positions each "
                        "run adds, such as input_ids)");
  }
  const Value& a = graph.values[state.advance_input];
  const int64_t rank = static_cast<int64_t>(a.type.shape.size());
  if (state.advance_axis < 0 || state.advance_axis >= rank) {
    return InvalidModel("state.advance: axis " + std::to_string(state.advance_axis) +
                        " is not an axis of " + graph.DescribeValue(state.advance_input) + " " +
                        ValueTypeString(a));
  }
  return Status::Ok();
}

}  // namespace sy
