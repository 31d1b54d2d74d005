// A PlannedSession's profile (docs/profiling.md): the events of each step of a profiled run.
#include "exec/planned_session_parts.h"

namespace sy {

void PlannedSession::RecordStep(const Step& step, std::chrono::steady_clock::time_point start,
                                std::chrono::steady_clock::time_point end, bool nodes_timed) {
  const auto ns = [this](std::chrono::steady_clock::time_point t) {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(t - profile_.origin_).count();
  };
  ProfileEvent e;
  e.run = profile_.runs_;
  e.start_ns = ns(start);
  e.end_ns = ns(end);
  if (step.is_copy()) {
    e.kind = ProfileEvent::Kind::kCopy;
    e.name = step.copy.what;
    e.op = "copy";
    e.device = step.copy.from->device->Spec() + " -> " + step.copy.to->device->Spec();
    e.detail = std::to_string(step.copy.bytes) + " bytes";
    profile_.events_.push_back(std::move(e));
    return;
  }
  const PlanPartition& part = plan_.partitions[step.partition];
  const Device& device = *plan_.devices[part.device];
  e.kind = ProfileEvent::Kind::kPartition;
  e.name = "partition " + std::to_string(step.partition);
  e.op = "partition";
  e.device = device.Spec() + " (" + device.name + ")";
  bool any_node = false;
  if (nodes_timed) {
    if (node_shapes_.empty()) {
      for (const Node& node : graph_.nodes) {
        std::string text;
        for (size_t i = 0; i < node.inputs.size(); ++i) {
          text += (i ? ", " : "") + graph_.values[node.inputs[i]].type.ToString();
        }
        text += " ->";
        for (size_t i = 0; i < node.outputs.size(); ++i) {
          text += (i ? ", " : " ") + graph_.values[node.outputs[i]].type.ToString();
        }
        node_shapes_.push_back(std::move(text));
      }
    }
    for (size_t i = 0; i < part.nodes.size() && i < step.node_times.size(); ++i) {
      const sy_node_time& t = step.node_times[i];
      if (t.start_ns == 0 && t.end_ns == 0) continue;  // not measured
      const size_t n = part.nodes[i];
      ProfileEvent node;
      node.kind = ProfileEvent::Kind::kNode;
      node.run = e.run;
      node.name = graph_.nodes[n].name.empty() ? "node " + std::to_string(n) : graph_.nodes[n].name;
      node.op = graph_.nodes[n].op;
      node.device = e.device;
      node.detail = node_shapes_[n];
      // On the plugin's clock from the call's start; kept inside the partition's span
      // (clamped as unsigned first: a plugin may report anything).
      const uint64_t span = static_cast<uint64_t>(e.end_ns - e.start_ns);
      node.start_ns = e.start_ns + static_cast<int64_t>(std::min<uint64_t>(t.start_ns, span));
      node.end_ns = std::max(node.start_ns,
                             e.start_ns + static_cast<int64_t>(std::min<uint64_t>(t.end_ns, span)));
      profile_.events_.push_back(std::move(node));
      any_node = true;
    }
  }
  e.nodes_timed = any_node;
  profile_.events_.push_back(std::move(e));
}

}  // namespace sy
