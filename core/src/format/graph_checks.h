// Internal: the checks of pass 1 that the JSON reader (graph_json_reader.cpp) and the
// binary reader (graph_binary_reader.cpp) share, so that a graph means the same and is
// refused for the same reasons whichever encoding it comes in. Each reader reports where
// in its own encoding a problem is (a JSON path, a byte offset); these say what.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "switchyard/graph.h"
#include "switchyard/status.h"

namespace sy::format {

// The most end-of-sequence ids a decoding state may list.
inline constexpr size_t kMaxEndTokens = 1024;

// A node's backend hint: empty, or a lower-case plugin name ([a-z0-9_.-]+) optionally
// followed by ':' and a device index of at most 9 digits.
Status CheckBackendHint(const std::string& hint, const std::string& where);

// Builds a value's recorded shape one dim at a time: a constant (>= 0), or an expression
// (docs/dynamic-shapes.md). FinishShape then drops the symbolic form when every dim is a
// constant ("3" written as an expression is the constant 3) and checks the element count
// of a static shape; its errors start with `described` unless that is empty.
void AppendConstantDim(Value& value, int64_t dim);
void AppendExprDim(Value& value, DimExpr expr);
Status FinishShape(Value& value, const std::string& described);

// Values are defined exactly once (a graph input, a constant or a node output) and read
// only after their definition; graph outputs are listed once each.
class DefinitionOrder {
 public:
  explicit DefinitionOrder(const Graph& graph)
      : graph_(graph), defined_(graph.values.size(), false), output_(graph.values.size(), false) {}

  // `by` says what defines it ("graph inputs[2]", "node 3 (add) output 0").
  Status Define(ValueId id, const std::string& by) {
    return TryDefine(id) ? Status::Ok() : DefinedTwice(id, by);
  }
  // Define without a description: false when `id` was defined already, and then
  // DefinedTwice gives the message (for readers that describe only what is wrong).
  bool TryDefine(ValueId id) {
    if (defined_[id]) return false;
    defined_[id] = true;
    return true;
  }
  Status DefinedTwice(ValueId id, const std::string& by) const;
  bool IsDefined(ValueId id) const { return defined_[id]; }
  // Input `k` of the node `where` reads `id`.
  Status CheckRead(ValueId id, const std::string& where, size_t k) const;
  // Graph output `i` is `id`.
  Status AddGraphOutput(ValueId id, const std::string& where);
  // After everything is read: every value was defined.
  Status CheckAllDefined() const;

 private:
  const Graph& graph_;
  std::vector<bool> defined_;
  std::vector<bool> output_;
};

}  // namespace sy::format
