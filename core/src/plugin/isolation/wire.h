// The messages between the host and an isolated plugin's worker process
// (docs/plugin-isolation.md): a request is an operation code and its arguments, a reply a
// status (0 or an sy_error_code), a message and the results. Both ends are built from the
// same source and run on the same machine, so numbers travel in the machine's own byte
// order; every read is bounds-checked all the same, because a worker is by definition a
// process we do not trust (a plugin may have scribbled over its memory).
//
// Lifetime: a MessageReader borrows its bytes; DecodedNode and DecodedPartition own every
// array and string their sy_node / sy_partition views point into, and must outlive them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <deque>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "switchyard/plugin.h"
#include "switchyard/status.h"

namespace sy::isolation {

enum class Op : uint32_t {
  kHello = 1,   // worker -> host, once: the plugin's identity and devices
  kSupports,    // supports_node
  kAlloc,       // buffer_alloc in the worker's own (device) memory
  kShare,       // a shared-memory region (fd attached) wrapped with buffer_wrap_host
  kView,        // buffer_view
  kFree,        // buffer_free
  kCopyIn,      // copy_host_to_device from the staging region
  kCopyOut,     // copy_device_to_host into the staging region
  kCopyWithin,  // copy_device_to_device
  kStaging,     // a new staging region (fd attached)
  kPrepare,     // prepare; constants in a shared-memory region (fd attached)
  kExecute,     // execute, or execute_profiled with node times asked for
  kRelease,     // release
  kShutdown,    // shutdown, then the worker exits
};

class MessageWriter {
 public:
  template <typename T>
  MessageWriter& Put(T value) {
    static_assert(std::is_trivially_copyable_v<T>);
    const size_t at = bytes_.size();
    bytes_.resize(at + sizeof(T));
    std::memcpy(bytes_.data() + at, &value, sizeof(T));
    return *this;
  }
  MessageWriter& PutString(std::string_view s);
  MessageWriter& PutBytes(const void* data, size_t size);
  const std::string& bytes() const { return bytes_; }

 private:
  std::string bytes_;
};

// Reads what a MessageWriter wrote. A read past the end, or a count that could not fit in
// what is left, fails the reader (ok() false) and yields zeros and empty strings, so a
// caller checks once at the end.
class MessageReader {
 public:
  explicit MessageReader(std::string_view bytes) : bytes_(bytes) {}
  template <typename T>
  T Get() {
    static_assert(std::is_trivially_copyable_v<T>);
    T value{};
    if (!Take(sizeof(T))) return value;
    std::memcpy(&value, bytes_.data() + at_ - sizeof(T), sizeof(T));
    return value;
  }
  std::string GetString();
  std::string_view GetBytes();
  // A count of items of `item_size` bytes each that are still to come: fails the reader
  // when they cannot all be there (so that no caller reserves memory on a lie).
  uint32_t GetCount(size_t item_size);
  bool ok() const { return ok_; }
  bool done() const { return ok_ && at_ == bytes_.size(); }
  // What has not been read yet.
  std::string_view rest() const { return ok_ ? bytes_.substr(at_) : std::string_view(); }

 private:
  bool Take(size_t n);
  std::string_view bytes_;
  size_t at_ = 0;
  bool ok_ = true;
};

// ---- nodes and partitions ----------------------------------------------------------------

void PutTensorType(MessageWriter& w, const sy_tensor_type& t);
// `with_values`: a partition's node (input_values / output_values present).
void PutNode(MessageWriter& w, const sy_node& node, bool with_values);

// A node read back, owning everything its `node` view points into.
struct DecodedNode {
  sy_node node{};
  std::string op, name;
  std::deque<std::vector<int64_t>> dims;  // deque: growing it keeps earlier pointers valid
  std::vector<sy_tensor_type> inputs, outputs;
  std::vector<sy_attr> attrs;
  std::deque<std::string> strings;
  std::deque<std::vector<int64_t>> int_lists;
  std::deque<std::vector<double>> float_lists;
  std::deque<std::vector<const char*>> string_lists;
  std::vector<uint32_t> input_values, output_values;
};

// Reads a node PutNode wrote into `out` (which must not move afterwards). Errors name
// what was malformed; `num_values` bounds the value indices of a partition's node.
Status GetNode(MessageReader& r, bool with_values, uint32_t num_values, DecodedNode& out);

// A partition, without its constants' bytes (those travel in shared memory).
void PutPartition(MessageWriter& w, const sy_partition& partition);

struct DecodedPartition {
  sy_partition partition{};
  std::deque<std::vector<int64_t>> dims;
  std::vector<sy_tensor_type> values;
  std::deque<DecodedNode> node_storage;
  std::vector<sy_node> nodes;
  std::vector<uint32_t> inputs, outputs;
  std::vector<const void*> constant_data;  // filled by the worker from shared memory
  std::vector<uint8_t> outputs_internal;
};

Status GetPartition(MessageReader& r, DecodedPartition& out);

}  // namespace sy::isolation
