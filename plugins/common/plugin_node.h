// What the bundled GPU plugins (OpenCL, CUDA) share on the host side: a node decoded from
// the C ABI into C++ types, and the collapsing of NumPy broadcasts into few dims for
// kernels. A static library linked into each plugin; not part of the installed SDK.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "switchyard/attrs.h"
#include "switchyard/plugin_cpp.h"
#include "switchyard/shape.h"

namespace sy::plugin {

// A node decoded from the ABI: op, label, input and output types, attributes (normalised
// by the host: every defaulted attribute is present).
struct NodeInfo {
  std::string op;
  std::string name;
  std::vector<TensorType> inputs;
  std::vector<TensorType> outputs;
  Attrs attrs;

  // "node 3 (add) \"h\"" style prefix for messages.
  std::string Describe() const;
};

// Throws sy_sdk::Error(SY_ERROR_INVALID_ARGUMENT) on a malformed node.
NodeInfo DecodeNode(const sy_node& node);

// NumPy broadcasting of several inputs to `out`: the output dims and each input's element
// strides (0 along broadcast dims), with dims of size 1 dropped and adjacent dims merged
// where every input allows. Returns rank r >= 1 and fills meta = dims[r], then each
// input's strides[r].
int CollapseBroadcast(std::span<const int64_t> out, std::span<const Shape> inputs,
                      std::vector<int64_t>& meta);

}  // namespace sy::plugin
