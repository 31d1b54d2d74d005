// A prepared partition: the plugin's sy_executable.
//
// prepare() hands the plugin an sy_partition that is borrowed for that call only, so the
// executable copies what it needs (op, value indices, shapes) into its own members and
// works out everything that does not depend on the data (broadcast strides, scratch for
// intermediates) once, leaving execute() nothing to do but run loops.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "kernels.h"
#include "switchyard/plugin_cpp.h"

namespace vendor {

// Whether vendor-accel runs `node`: true, or false with a short reason for the host
// (`switchyard plan` prints it). Used by both supports_node and prepare, so the two can
// never disagree.
bool CheckNode(const sy_node& node, std::string& reason);

class VendorExecutable : public sy_executable {
 public:
  // Throws sy_sdk::Error: SY_ERROR_INVALID_ARGUMENT for a malformed partition,
  // SY_ERROR_UNSUPPORTED for a node CheckNode declines (the host should never send one).
  explicit VendorExecutable(const sy_partition& partition);

  // `buffers`: the partition's inputs then its outputs, in sy_partition's order. The
  // trampoline in plugin_cpp.h has checked that none is null, not their count.
  void Execute(sy_buffer* const* buffers, uint32_t count) override;

 private:
  struct Step {
    Op op;
    std::vector<uint32_t> inputs;  // partition-local value indices
    uint32_t output;
    int64_t count;        // output elements
    BinaryLayout layout;  // binary ops only
  };

  std::vector<uint64_t> value_bytes_;  // per value
  std::vector<uint32_t> bound_;        // values bound at execute: inputs, then outputs
  // Per value: storage the executable owns for an intermediate (a value the host does
  // not bind); null for bound values. Touched only by Execute, which the host never
  // calls from two threads at once on one executable.
  std::vector<std::unique_ptr<sy_sdk::HostBuffer>> scratch_;
  std::vector<Step> steps_;
};

}  // namespace vendor
