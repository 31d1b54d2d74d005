// Nodes read back from the C ABI into C++ types: the first half of the SDK's plugin kit
// (libswitchyard_plugin_kit, target Switchyard::plugin_kit; C++20). The second half,
// plugin_partition.h, does the same for a whole partition.
//
// What a plugin receives is a canonical node (docs/plugin-abi.md, "Canonical nodes"):
// the host has validated it against the op catalogue, filled in every defaulted
// attribute and inferred the output types. So a plugin built on the kit needs no copy of
// the catalogue and runs no shape rule; it checks what it itself needs (dtypes, ranks,
// the attributes it supports) and trusts the rest.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "switchyard/attrs.h"
#include "switchyard/plugin_cpp.h"
#include "switchyard/shape.h"
#include "switchyard/status.h"

namespace sy::plugin {

// The input or output types of a node. A std::vector whose element access is checked:
// reading type k of a node that has fewer throws sy_sdk::Error(SY_ERROR_INVALID_ARGUMENT),
// which plugin_cpp.h's trampolines hand the host as an error. So an op's code may index
// the inputs its op has without first counting them, and a node with the wrong number
// (which the host never sends) is refused rather than read past the end.
class TypeList : public std::vector<TensorType> {
 public:
  using std::vector<TensorType>::vector;
  const TensorType& operator[](size_t k) const { return at_checked(k); }
  TensorType& operator[](size_t k) {
    return const_cast<TensorType&>(static_cast<const TypeList&>(*this).at_checked(k));
  }
  const TensorType& front() const { return at_checked(0); }
  const TensorType& back() const { return at_checked(size() - 1); }

 private:
  const TensorType& at_checked(size_t k) const;
};

// A node decoded from the ABI: op, label, input and output types, attributes (canonical:
// every defaulted attribute is present with its schema's kind).
struct NodeInfo {
  std::string op;
  std::string name;
  TypeList inputs;
  TypeList outputs;
  Attrs attrs;

  // `add "h"` style label for messages.
  std::string Describe() const;
};

// A canonical slice (docs/plugin-abi.md, "Canonical nodes"): per axis of x, in order, the
// first index read and the step; the output's dims (`y`) are the counts. Checked, so that
// a kernel reading from it stays inside x: throws sy_sdk::Error(SY_ERROR_INVALID_ARGUMENT)
// unless starts, steps and axes give every axis in order, no step is 0 and every index
// read, start + k * step for k < y[a], lies in [0, x[a]).
struct SliceWindow {
  std::vector<int64_t> starts;
  std::vector<int64_t> steps;
};
SliceWindow CanonicalSlice(const Attrs& attrs, std::span<const int64_t> x,
                           std::span<const int64_t> y);

// Throws sy_sdk::Error(SY_ERROR_UNSUPPORTED) unless the host declares that it sends
// canonical nodes (SY_INIT_FLAG_CANONICAL_NODES): for the initialize of a plugin that
// relies on them, so that a host of the first release gets a clear refusal.
void RequireCanonicalNodes(const sy_init_options& options, const char* plugin_name);

// Throws sy_sdk::Error(SY_ERROR_INVALID_ARGUMENT) on a malformed node (the definition of
// docs/plugin-abi.md, sy_sdk::MalformedNodeReason) or an impossible element count.
NodeInfo DecodeNode(const sy_node& node);

// One attribute or tensor type; kInvalidArgument for a malformed one (a NULL array with
// a non-zero count, an unknown kind or dtype, NULL dims, an impossible size).
Expected<AttrValue> AttrFromC(const sy_attr& attr);
Expected<TensorType> TensorTypeFromC(const sy_tensor_type& type);

}  // namespace sy::plugin
