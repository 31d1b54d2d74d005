// A whole test graph as one partition of a CpuExecutable, bound and run as a session
// would (the CPU plugin's executable tests).
#pragma once

#include <cstring>
#include <map>
#include <memory>
#include <unordered_map>
#include <vector>

#include "cpu_executable.h"
#include "plugin/node_descriptors.h"
#include "switchyard/graph.h"
#include "switchyard/plugin_cpp.h"
#include "switchyard/tensor.h"

namespace sy::cpu::test {

// All of a graph's nodes as one partition, as a session would prepare it: the graph's
// inputs and constants bound as inputs, its outputs and `read_elsewhere` (values another
// partition would read) bound as outputs.
class WholeGraphPartition {
 public:
  WholeGraphPartition(const Graph& graph, const std::vector<ValueId>& read_elsewhere)
      : graph_(graph), descriptors_(graph) {
    inputs_ = graph.inputs;
    for (const Constant& c : graph.constants) inputs_.push_back(c.value);
    outputs_ = graph.outputs;
    outputs_.insert(outputs_.end(), read_elsewhere.begin(), read_elsewhere.end());
    std::vector<size_t> nodes(graph.nodes.size());
    for (size_t n = 0; n < nodes.size(); ++n) nodes[n] = n;
    partition_ =
        std::make_unique<PartitionDescriptor>(descriptors_, graph, nodes, inputs_, outputs_);
    // The local value table's order (PartitionDescriptor): bound inputs, bound outputs,
    // then the rest as the nodes produce them.
    auto add = [&](ValueId id) { local_.emplace(id, static_cast<uint32_t>(local_.size())); };
    for (ValueId id : inputs_) add(id);
    for (ValueId id : outputs_) add(id);
    for (const Node& node : graph.nodes) {
      for (ValueId id : node.inputs) add(id);
      for (ValueId id : node.outputs) add(id);
    }
  }

  const sy_partition& get() const { return partition_->get(); }
  uint32_t Local(ValueId id) const { return local_.at(id); }

  // Runs `exe` with the graph inputs `feeds` (by value id), the first of them `misalign`
  // bytes past an aligned address; returns the bound outputs in order.
  std::vector<Tensor> Run(CpuExecutable& exe, const std::map<ValueId, Tensor>& feeds,
                          size_t misalign = 0) const {
    std::vector<std::unique_ptr<sy_buffer>> buffers;
    std::vector<std::vector<std::byte>> shifted;  // misaligned copies
    for (ValueId id : inputs_) {
      const Tensor* t = nullptr;
      for (const Constant& c : graph_.constants) {
        if (c.value == id) t = &c.data;
      }
      if (t == nullptr) t = &feeds.at(id);
      void* data = const_cast<std::byte*>(t->data());
      if (misalign != 0 && id == inputs_.front()) {
        shifted.emplace_back(t->byte_size() + misalign);
        std::memcpy(shifted.back().data() + misalign, t->data(), t->byte_size());
        data = shifted.back().data() + misalign;
      }
      buffers.push_back(std::make_unique<sy_sdk::WrappedHostBuffer>(data, t->byte_size()));
    }
    std::vector<Tensor> outputs;
    for (ValueId id : outputs_) {
      const TensorType& type = graph_.values[id].type;
      outputs.push_back(*Tensor::Allocate(type.dtype, type.shape));
      buffers.push_back(std::make_unique<sy_sdk::WrappedHostBuffer>(outputs.back().mutable_data(),
                                                                    outputs.back().byte_size()));
    }
    std::vector<sy_buffer*> raw;
    for (auto& b : buffers) raw.push_back(b.get());
    exe.Execute(raw.data(), static_cast<uint32_t>(raw.size()));
    return outputs;
  }

 private:
  const Graph& graph_;
  NodeDescriptors descriptors_;
  std::vector<ValueId> inputs_, outputs_;
  std::unique_ptr<PartitionDescriptor> partition_;
  std::unordered_map<ValueId, uint32_t> local_;
};

}  // namespace sy::cpu::test
