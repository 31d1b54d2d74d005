#include "sched/state_planner.h"

#include <algorithm>
#include <string>

namespace sy::sched {

Status PlanStates(const Graph& graph, Plan& plan) {
  plan.states.clear();
  for (size_t i = 0; i < graph.state.values.size(); ++i) {
    const StateValue& v = graph.state.values[i];
    const std::string what = "state " + graph.DescribeValue(v.input);
    std::vector<size_t> readers;
    size_t reads = 0;  // how often, counting a node that reads it twice twice
    int64_t producer = -1;
    for (size_t n = 0; n < graph.nodes.size(); ++n) {
      const Node& node = graph.nodes[n];
      const auto count = std::count(node.inputs.begin(), node.inputs.end(), v.input);
      if (count > 0) readers.push_back(n);
      reads += static_cast<size_t>(count);
      if (std::find(node.outputs.begin(), node.outputs.end(), v.output) != node.outputs.end()) {
        producer = static_cast<int64_t>(n);
      }
    }
    if (readers.empty()) {
      return InvalidArgument(what +
                             " is read by no node (expected the cache_write that appends "
                             "to it, or the nodes that read it)");
    }
    if (producer < 0) {
      return InvalidArgument(what + ": its next contents, " + graph.DescribeValue(v.output) +
                             ", are produced by no node");
    }
    const int32_t device = plan.nodes[readers.front()].device;
    for (size_t n : readers) {
      if (plan.nodes[n].device != device) {
        return InvalidArgument(
            what + " is read on " + plan.devices[device]->Spec() + " (" +
            graph.DescribeNode(readers.front()) + ") and on " +
            plan.devices[plan.nodes[n].device]->Spec() + " (" + graph.DescribeNode(n) +
            "); a state value lives on one device: give its readers the same backend hint");
      }
    }
    const Node& writer = graph.nodes[static_cast<size_t>(producer)];
    PlanState st;
    st.index = i;
    st.device = device;
    st.in_place = reads == 1 && readers.front() == static_cast<size_t>(producer) &&
                  writer.op == "cache_write" && writer.inputs.size() == 3 &&
                  writer.inputs[0] == v.input && writer.outputs.size() == 1 &&
                  plan.devices[device]->cache_write_in_place();
    plan.states.push_back(st);
  }
  return Status::Ok();
}

}  // namespace sy::sched
