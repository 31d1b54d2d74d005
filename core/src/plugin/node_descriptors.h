// The plugin host's encoding of a graph for the boundary (internal to core, not
// installed): sy_node for the support queries and sy_partition for prepare. Both point
// into storage owned here. Sessions and the scheduler use them, and so do the conformance
// suite and the plugins' tests and benchmarks, which drive plugins through the C ABI
// directly. The other direction, reading an sy_node back into
// C++ types, is the SDK's (switchyard/plugin_node.h).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "switchyard/attrs.h"
#include "switchyard/graph.h"
#include "switchyard/plugin.h"

namespace sy {

// One sy_node per graph node (input_values and output_values NULL, as support queries
// want). Borrows `graph`, which must outlive this object; not copyable (the sy_nodes
// point into it).
class NodeDescriptors {
 public:
  explicit NodeDescriptors(const Graph& graph);
  NodeDescriptors(const NodeDescriptors&) = delete;
  NodeDescriptors& operator=(const NodeDescriptors&) = delete;

  const sy_node& node(size_t index) const { return nodes_[index]; }
  const std::vector<sy_tensor_type>& value_types() const { return value_types_; }

 private:
  std::vector<sy_tensor_type> value_types_;            // per graph value
  std::vector<std::vector<sy_tensor_type>> in_types_;  // per node
  std::vector<std::vector<sy_tensor_type>> out_types_;
  // Per node, the canonical attributes where they differ from the graph's (empty
  // otherwise); the sy_attrs below point into them or into the graph.
  std::vector<Attrs> canonical_attrs_;
  std::vector<std::vector<sy_attr>> attrs_;
  std::vector<std::vector<std::vector<const char*>>> string_lists_;
  std::vector<sy_node> nodes_;
};

// The sy_partition of some nodes: a local value table holding `bound_inputs` (values
// produced elsewhere, constants included), then `bound_outputs`, then any value the
// nodes produce that is in neither list (intermediates the plugin keeps). Bound inputs
// that are constants of `graph` carry their bytes (sy_partition.constant_data), so a
// plugin can reorder weights once at prepare. Borrows `descriptors` and `graph`, which
// must outlive this object.
class PartitionDescriptor {
 public:
  PartitionDescriptor(const NodeDescriptors& descriptors, const Graph& graph,
                      const std::vector<size_t>& nodes, const std::vector<ValueId>& bound_inputs,
                      const std::vector<ValueId>& bound_outputs,
                      const std::vector<bool>& outputs_internal = {});
  PartitionDescriptor(const PartitionDescriptor&) = delete;
  PartitionDescriptor& operator=(const PartitionDescriptor&) = delete;

  const sy_partition& get() const { return partition_; }

 private:
  std::vector<sy_tensor_type> values_;
  std::vector<std::vector<uint32_t>> input_ids_, output_ids_;  // per node, local indices
  std::vector<sy_node> nodes_;
  std::vector<uint32_t> inputs_, outputs_;
  std::vector<const void*> constant_data_;  // per bound input; borrowed from the graph
  std::vector<uint8_t> outputs_internal_;   // per bound output; empty: all read outside
  sy_partition partition_{};
};

}  // namespace sy
