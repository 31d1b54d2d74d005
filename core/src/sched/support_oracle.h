// Asks plugins whether a device supports a node, once per (node, device): the
// placement and the island pass both ask, and a plugin's answer cannot change while
// the plan is built.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "plugin/node_descriptors.h"
#include "switchyard/plugin_host.h"
#include "switchyard/status.h"

namespace sy::sched {

class SupportOracle {
 public:
  // Borrows both; they must outlive the oracle.
  SupportOracle(const NodeDescriptors& descriptors, const std::vector<const Device*>& devices)
      : descriptors_(descriptors), devices_(devices) {}

  // Whether devices[device] supports graph node `node`; when not, `reason` (if given)
  // gets the plugin's reason. A plugin error (a malformed query) is an error.
  Expected<bool> Supports(size_t node, size_t device, std::string* reason = nullptr);

 private:
  struct Answer {
    int8_t supported = -1;  // -1 = not asked yet
    std::string reason;
  };
  const NodeDescriptors& descriptors_;
  const std::vector<const Device*>& devices_;  // may grow while the plan is built
  std::vector<std::vector<Answer>> answers_;   // [device][node]
};

}  // namespace sy::sched
