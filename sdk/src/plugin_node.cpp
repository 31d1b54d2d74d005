#include "switchyard/plugin_node.h"

#include <string>
#include <utility>

namespace sy::plugin {
namespace {

[[noreturn]] void Invalid(const std::string& message) {
  throw sy_sdk::Error(SY_ERROR_INVALID_ARGUMENT, message);
}

}  // namespace

const TensorType& TypeList::at_checked(size_t k) const {
  if (k >= size()) {
    Invalid("the node has " + std::to_string(size()) + " operand(s) of this kind; operand " +
            std::to_string(k) +
            " was read (the host sends canonical nodes only: " + "docs/plugin-abi.md)");
  }
  return data()[k];
}

void RequireCanonicalNodes(const sy_init_options& options, const char* plugin_name) {
  if ((options.flags & SY_INIT_FLAG_CANONICAL_NODES) == 0) {
    throw sy_sdk::Error(SY_ERROR_UNSUPPORTED,
                        std::string("plugin ") + plugin_name +
                            " needs a host that sends canonical nodes "
                            "(SY_INIT_FLAG_CANONICAL_NODES; docs/plugin-abi.md): this host "
                            "does not say it does");
  }
}

SliceWindow CanonicalSlice(const Attrs& attrs, std::span<const int64_t> x,
                           std::span<const int64_t> y) {
  SliceWindow window{attrs.GetInts("starts"), attrs.GetInts("steps")};
  const std::vector<int64_t> axes = attrs.GetInts("axes");
  const size_t rank = x.size();
  auto refuse = [](const std::string& why) {
    Invalid("slice: " + why + " (not a canonical node: docs/plugin-abi.md)");
  };
  if (window.starts.size() != rank || window.steps.size() != rank || axes.size() != rank ||
      y.size() != rank) {
    refuse("starts, steps and axes must give each of the " + std::to_string(rank) + " axes of x");
  }
  for (size_t a = 0; a < rank; ++a) {
    const int64_t start = window.starts[a], step = window.steps[a];
    if (axes[a] != static_cast<int64_t>(a)) refuse("axes must be 0, 1, ... in order");
    if (step == 0) refuse("a step is 0");
    if (y[a] == 0) continue;  // nothing read on this axis
    int64_t span = 0, last = 0;
    if (y[a] < 0 || start < 0 || start >= x[a] || __builtin_mul_overflow(y[a] - 1, step, &span) ||
        __builtin_add_overflow(start, span, &last) || last < 0 || last >= x[a]) {
      refuse("axis " + std::to_string(a) + " reads outside x");
    }
  }
  return window;
}

std::string NodeInfo::Describe() const {
  std::string s = op;
  if (!name.empty()) s += " \"" + name + "\"";
  return s;
}

Expected<AttrValue> AttrFromC(const sy_attr& a) {
  switch (a.kind) {
    case SY_ATTR_INT:
      return AttrValue(a.i);
    case SY_ATTR_FLOAT:
      return AttrValue(a.f);
    case SY_ATTR_STRING:
      return AttrValue(std::string(a.s ? a.s : ""));
    case SY_ATTR_INTS:
      if (a.count && a.ints == nullptr) break;
      return AttrValue(std::vector<int64_t>(a.ints, a.ints + a.count));
    case SY_ATTR_FLOATS:
      if (a.count && a.floats == nullptr) break;
      return AttrValue(std::vector<double>(a.floats, a.floats + a.count));
    case SY_ATTR_STRINGS: {
      if (a.count && a.strings == nullptr) break;
      std::vector<std::string> out;
      for (uint32_t i = 0; i < a.count; ++i) out.emplace_back(a.strings[i] ? a.strings[i] : "");
      return AttrValue(std::move(out));
    }
    default:
      break;
  }
  return InvalidArgument("malformed attribute");
}

Expected<TensorType> TensorTypeFromC(const sy_tensor_type& t) {
  if (t.dtype >= static_cast<uint32_t>(kNumDTypes) || (t.rank && t.dims == nullptr)) {
    return InvalidArgument("malformed tensor type");
  }
  TensorType type{static_cast<DType>(t.dtype), Shape(t.dims, t.dims + t.rank)};
  SY_RETURN_IF_ERROR(CheckedElementCount(type.shape).status());
  return type;
}

NodeInfo DecodeNode(const sy_node& node) {
  if (const char* why = sy_sdk::MalformedNodeReason(node)) {
    Invalid(std::string("malformed node: ") + why);
  }
  NodeInfo info;
  info.op = node.op;
  info.name = node.name != nullptr ? node.name : "";
  auto decode_type = [](const sy_tensor_type& t) {
    Expected<TensorType> type = TensorTypeFromC(t);
    if (!type.ok()) Invalid(type.status().message());
    return std::move(*type);
  };
  for (uint32_t i = 0; i < node.num_inputs; ++i) info.inputs.push_back(decode_type(node.inputs[i]));
  for (uint32_t i = 0; i < node.num_outputs; ++i) {
    info.outputs.push_back(decode_type(node.outputs[i]));
  }
  for (uint32_t a = 0; a < node.num_attrs; ++a) {
    Expected<AttrValue> value = AttrFromC(node.attrs[a]);
    if (!value.ok()) Invalid(value.status().message());
    info.attrs.Set(node.attrs[a].name, std::move(*value));
  }
  return info;
}

}  // namespace sy::plugin
