// execute_resized (docs/plugin-abi.md, "Executables that run at other sizes"): the check
// every plugin that declares SY_DEVICE_FLAG_RESIZABLE makes before it runs an executable
// at another partition's sizes, that the partition has the structure of the one the
// executable was prepared from. Only dims and attribute values may change: the values'
// count, dtypes and ranks, the nodes' ops and operands and the bound values may not.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "switchyard/plugin_cpp.h"
#include "switchyard/plugin_partition.h"

namespace sy::plugin {

// `values`: the prepared partition's value types; `steps`: one per node, each with
// `inputs` and `outputs` operand indices and the op `op_of(step)`; `bound`: its bound
// values. Throws sy_sdk::Error(SY_ERROR_INVALID_ARGUMENT) naming the first difference.
template <typename Step, typename OpOf>
void CheckSameStructure(const Partition& partition, const std::vector<TensorType>& values,
                        const std::vector<Step>& steps, const std::vector<uint32_t>& bound,
                        OpOf op_of) {
  const auto refuse = [](const std::string& what) {
    throw sy_sdk::Error(SY_ERROR_INVALID_ARGUMENT,
                        "execute_resized: the partition differs from the one prepared in " + what +
                            " (only dims and attribute values may change)");
  };
  if (partition.values().size() != values.size()) refuse("its number of values");
  if (partition.nodes().size() != steps.size()) refuse("its number of nodes");
  for (uint32_t v = 0; v < values.size(); ++v) {
    const TensorType& now = partition.values()[v];
    if (now.dtype != values[v].dtype || now.rank() != values[v].rank()) {
      refuse("the dtype or rank of value " + std::to_string(v));
    }
  }
  for (size_t n = 0; n < steps.size(); ++n) {
    const Partition::Node& node = partition.nodes()[n];
    if (node.info.op != op_of(steps[n]) || node.inputs != steps[n].inputs ||
        node.outputs != steps[n].outputs) {
      refuse("node " + std::to_string(n));
    }
  }
  if (partition.bound() != bound) refuse("the values it binds");
}

}  // namespace sy::plugin
