// A partition read back from the C ABI, checked once: the second half of the SDK's plugin
// kit (libswitchyard_plugin_kit, target Switchyard::plugin_kit; C++20).
//
// prepare() hands a plugin an sy_partition borrowed for that call only. Every plugin then
// does the same bookkeeping before any op of its own: check the arrays and value indices,
// decode the value table and the nodes, find which values the host binds at execute (the
// inputs, then the outputs) and which are intermediates the plugin keeps, read the
// optional appended fields only when struct_size covers them. Partition does it once and
// keeps copies, so an executable may hold one for its whole life. HostValues is the
// execute-time half for plugins whose memory is host memory: it checks the bound buffers
// and gives every value of the partition a pointer, intermediates in scratch it owns.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "switchyard/plugin_cpp.h"
#include "switchyard/plugin_node.h"

namespace sy::plugin {

class Partition {
 public:
  // A node of the partition: its decoded form and its operands as indices into values().
  struct Node {
    NodeInfo info;
    std::vector<uint32_t> inputs;  // absent optional inputs are not listed
    std::vector<uint32_t> outputs;
  };

  // Throws sy_sdk::Error(SY_ERROR_INVALID_ARGUMENT) naming what is malformed: a NULL array
  // with a non-zero count, a value index out of range, a malformed value type or
  // attribute. A node's operand types are taken from the value table (authoritative);
  // its own `inputs` and `outputs` type arrays are not read.
  explicit Partition(const sy_partition& partition);

  const std::vector<TensorType>& values() const { return values_; }
  const std::vector<Node>& nodes() const { return nodes_; }
  // The values bound at execute, in the order of its buffers: inputs, then outputs.
  const std::vector<uint32_t>& bound() const { return bound_; }
  uint32_t num_inputs() const { return num_inputs_; }
  bool is_bound(uint32_t value) const { return is_bound_[value]; }
  // Bytes of a value (element count times element size; never overflows: 2^60 elements
  // at most, plugin_node.h).
  uint64_t bytes(uint32_t value) const { return bytes_[value]; }
  // True for a bound output nothing outside the partition reads (sy_partition's
  // outputs_internal): the plugin may keep it in a layout of its own. False for inputs,
  // other outputs, and everything when the host did not say.
  bool output_internal(uint32_t value) const { return output_internal_[value]; }
  // The host's bytes of a constant input (weights), or nullptr. Borrowed from the host:
  // valid during prepare only, so copy what a kernel keeps.
  const void* constant_data(uint32_t value) const { return constant_data_[value]; }

 private:
  std::vector<TensorType> values_;
  std::vector<Node> nodes_;
  std::vector<uint32_t> bound_;
  uint32_t num_inputs_ = 0;
  std::vector<bool> is_bound_, output_internal_;
  std::vector<uint64_t> bytes_;
  std::vector<const void*> constant_data_;
};

// Where each value of a partition lives during one execute, for host-memory plugins.
// Owns scratch for the intermediates, allocated once at construction; Bind, called by
// each execute, points the bound values at the host's buffers. The host never executes
// one executable from two threads at once, so one HostValues per executable suffices.
class HostValues {
 public:
  explicit HostValues(const Partition& partition);

  // Throws sy_sdk::Error(SY_ERROR_INVALID_ARGUMENT) when `count` is not the number of
  // bound values, a buffer is not host memory, or one is smaller than its value.
  void Bind(sy_buffer* const* buffers, uint32_t count);

  std::byte* data(uint32_t value) const { return data_[value]; }

 private:
  std::vector<uint32_t> bound_;  // copies of the partition's: no lifetime ties
  std::vector<uint64_t> bytes_;
  std::vector<std::byte*> data_;
  std::vector<std::unique_ptr<sy_sdk::HostBuffer>> scratch_;
};

}  // namespace sy::plugin
