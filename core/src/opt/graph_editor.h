// The optimization pass's working graph: the graph being rewritten, an index of who
// produces and who reads each value, the device each node would run on, and edits that
// are collected during a sweep and applied together by Commit().
//
// Rules match on the committed graph and record edits (Replace, FoldToConstant); a node
// matched once is taken for the rest of the sweep, so matches never overlap. Commit()
// rebuilds the node list (each replacement sits where the last node it replaces was, so
// the order stays topological), drops values and constants nothing uses any more, and
// renumbers values.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "switchyard/graph.h"
#include "switchyard/plugin_host.h"

namespace sy::opt {

class GraphEditor {
 public:
  // `devices[n]` runs node n (nullptr: unknown, and then nothing is fused there).
  GraphEditor(Graph graph, std::vector<const Device*> devices);

  const Graph& graph() const { return graph_; }
  size_t num_nodes() const { return graph_.nodes.size(); }
  const Node& node(size_t n) const { return graph_.nodes[n]; }
  const Device* device(size_t n) const { return devices_[n]; }
  const TensorType& type(ValueId v) const { return graph_.values[v].type; }
  const Value& value(ValueId v) const { return graph_.values[v]; }

  // The node producing `v`, or nullopt for graph inputs and constants.
  std::optional<size_t> Producer(ValueId v) const;
  // The node producing `v` when its op is `op` and it is not taken.
  std::optional<size_t> ProducerIf(ValueId v, std::string_view op) const;
  // Live nodes reading `v` (a node reading it twice is listed twice).
  const std::vector<size_t>& Consumers(ValueId v) const;
  bool IsGraphOutput(ValueId v) const { return outputs_.count(v) > 0; }
  // Read by exactly one node and not a graph output: the producer may be fused away.
  bool SingleUse(ValueId v) const { return Consumers(v).size() == 1 && !IsGraphOutput(v); }
  // The only consumer of `v` when SingleUse(v), it has op `op` and it is not taken.
  std::optional<size_t> OnlyConsumerIf(ValueId v, std::string_view op) const;

  const Tensor* Constant(ValueId v) const;
  // The value of a one-element float constant (any rank), else nullopt.
  std::optional<double> ScalarConstant(ValueId v) const;

  // Edits, applied by Commit().
  ValueId AddValue(const std::string& name_hint, TensorType type);
  ValueId AddConstant(const std::string& name_hint, Tensor data);
  // Removes `nodes` and puts `replacement` where the last of them was; the replacement
  // runs on `device`. Every node in `nodes` becomes taken.
  void Replace(std::span<const size_t> nodes, std::vector<Node> replacement, const Device* device);
  // Removes node n; its outputs become the constants `outputs` (same value ids).
  void FoldToConstant(size_t n, std::vector<Tensor> outputs);
  bool Taken(size_t n) const { return taken_[n]; }
  bool AnyTaken(std::span<const size_t> nodes) const;

  // Applies the edits; returns whether anything changed.
  bool Commit();
  Graph Take() && { return std::move(graph_); }

 private:
  void Index();

  Graph graph_;
  std::vector<const Device*> devices_;  // per node
  std::vector<bool> taken_;             // per node, this sweep
  std::vector<bool> removed_;           // per node, this sweep
  // Per node: the replacement nodes to put at its position (before it when it stays).
  std::unordered_map<size_t, std::vector<std::pair<Node, const Device*>>> inserted_;
  std::vector<std::optional<size_t>> producer_;   // per value
  std::vector<std::vector<size_t>> consumers_;    // per value
  std::unordered_map<ValueId, size_t> constant_;  // value -> index in graph_.constants
  std::unordered_set<ValueId> outputs_;
  std::unordered_set<std::string> names_;
  bool changed_ = false;
};

}  // namespace sy::opt
