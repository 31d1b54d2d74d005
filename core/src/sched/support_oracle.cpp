#include "sched/support_oracle.h"

namespace sy::sched {

Expected<bool> SupportOracle::Supports(size_t node, size_t device, std::string* reason) {
  if (answers_.size() <= device) answers_.resize(device + 1);
  std::vector<Answer>& per_node = answers_[device];
  if (per_node.size() <= node) per_node.resize(node + 1);
  Answer& answer = per_node[node];
  if (answer.supported < 0) {
    const Device& d = *devices_[device];
    const Plugin& plugin = *d.plugin;
    uint32_t supported = 0;
    char text[256] = {0};
    SY_RETURN_IF_ERROR(plugin.TakeError(
        plugin.api()->supports_node(plugin.context(), d.index, &descriptors_.node(node), &supported,
                                    text, sizeof text),
        "supports_node"));
    text[sizeof text - 1] = '\0';  // a plugin that forgot the terminator
    answer.supported = supported ? 1 : 0;
    if (!supported) answer.reason = text[0] ? text : "declined without a reason";
  }
  if (reason != nullptr) *reason = answer.reason;
  return answer.supported == 1;
}

}  // namespace sy::sched
