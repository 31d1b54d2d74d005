// A prepared partition: the plugin's sy_executable.
//
// prepare() hands the plugin an sy_partition borrowed for that call only. The SDK's plugin
// kit (switchyard/plugin_partition.h) checks it and copies it into C++ types; from that
// the executable works out everything that does not depend on the data (broadcast
// strides) once, leaving execute() nothing to do but run loops.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "kernels.h"
#include "switchyard/plugin_cpp.h"
#include "switchyard/plugin_partition.h"

namespace vendor {

// Whether vendor-accel runs `node`: true, or false with a short reason for the host
// (`switchyard plan` prints it). Used by both supports_node and prepare, so the two can
// never disagree.
bool CheckNode(const sy::plugin::NodeInfo& node, std::string& reason);

class VendorExecutable : public sy_executable {
 public:
  // Throws sy_sdk::Error: SY_ERROR_INVALID_ARGUMENT for a malformed partition (the kit's
  // checks), SY_ERROR_UNSUPPORTED for a node CheckNode declines (the host never sends
  // one).
  explicit VendorExecutable(const sy_partition& partition);

  // `buffers`: the partition's inputs then its outputs, in sy_partition's order. The
  // trampoline in plugin_cpp.h has checked that none is null; HostValues checks the rest.
  void Execute(sy_buffer* const* buffers, uint32_t count) override;

 private:
  explicit VendorExecutable(const sy::plugin::Partition& partition);

  struct Step {
    Op op;
    std::vector<uint32_t> inputs;  // partition-local value indices
    uint32_t output;
    int64_t count;        // output elements
    BinaryLayout layout;  // binary ops only
  };

  // Every value's floats this run: the host's buffers for bound values, scratch the kit
  // allocated once for intermediates. Touched only by Execute, which the host never
  // calls from two threads at once on one executable.
  sy::plugin::HostValues values_;
  std::vector<Step> steps_;
};

}  // namespace vendor
