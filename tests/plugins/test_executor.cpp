#include "test_executor.h"

#include <algorithm>
#include <cstdlib>

#include "kernel_error.h"
#include "ref/ref_kernels.h"
#include "switchyard/plugin_partition.h"

namespace sy_test_plugin {
namespace {

[[noreturn]] void Fail(sy_error_code code, const std::string& message) {
  throw sy_sdk::Error(code, message);
}

std::string NodeLabel(uint32_t n, const sy_node& node) {
  std::string label = "node " + std::to_string(n) + " (" + node.op + ")";
  if (node.name != nullptr && node.name[0] != '\0') label += std::string(" \"") + node.name + "\"";
  return label;
}

}  // namespace

RefExecutable::RefExecutable(const sy_partition& p, BufferResolver resolve,
                             const NodeFilter& filter)
    : resolve_(std::move(resolve)) {
  const sy::plugin::Partition partition(p);  // checks and decodes it (the SDK's kit)
  values_ = partition.values();
  bound_ = partition.bound();
  const sy::cpu::KernelTable& table = sy::cpu::RefKernels();
  for (uint32_t n = 0; n < p.num_nodes; ++n) {
    const sy_node& node = p.nodes[n];
    const sy::plugin::Partition::Node& decoded = partition.nodes()[n];
    // A test device is strict: a node the scheduler should not have placed here is an
    // error at prepare, not a silent success on the reference kernels.
    std::string reason;
    if (filter && !filter(node, reason)) {
      Fail(SY_ERROR_UNSUPPORTED, "prepare: " + NodeLabel(n, node) + ": " + reason);
    }
    Step step;
    step.op = node.op;
    step.kernel = table.Find(step.op);
    if (step.kernel == nullptr) {
      Fail(SY_ERROR_UNSUPPORTED, "prepare: " + NodeLabel(n, node) + ": no reference kernel");
    }
    step.attrs = decoded.info.attrs;
    step.inputs = decoded.inputs;
    step.outputs = decoded.outputs;
    for (uint32_t v : step.inputs) step.input_views.push_back({values_[v], nullptr});
    for (uint32_t v : step.outputs) step.output_views.push_back({values_[v], nullptr});
    steps_.push_back(std::move(step));
  }
  std::vector<bool> is_bound(values_.size());
  for (uint32_t v = 0; v < values_.size(); ++v) is_bound[v] = partition.is_bound(v);

  data_.assign(values_.size(), nullptr);
  bytes_.resize(values_.size());
  for (size_t v = 0; v < values_.size(); ++v) {
    bytes_[v] =
        static_cast<uint64_t>(sy::ElementCount(values_[v].shape)) * sy::DTypeSize(values_[v].dtype);
    if (is_bound[v]) continue;
    owned_.push_back(std::make_unique<sy_sdk::HostBuffer>(bytes_[v]));
    data_[v] = static_cast<std::byte*>(owned_.back()->host_pointer());
  }
}

void RefExecutable::Execute(sy_buffer* const* buffers, uint32_t count) {
  if (count != bound_.size()) {
    Fail(SY_ERROR_INVALID_ARGUMENT, "execute: expected " + std::to_string(bound_.size()) +
                                        " buffers, got " + std::to_string(count));
  }
  for (uint32_t i = 0; i < count; ++i) {
    const uint32_t v = bound_[i];
    if (buffers[i]->size() < bytes_[v]) {
      Fail(SY_ERROR_INVALID_ARGUMENT, "execute: buffer " + std::to_string(i) + " holds " +
                                          std::to_string(buffers[i]->size()) + " bytes, needs " +
                                          std::to_string(bytes_[v]));
    }
    std::byte* bytes = resolve_(*buffers[i], i);
    if (bytes == nullptr && bytes_[v] != 0) {
      Fail(SY_ERROR_INVALID_ARGUMENT, "execute: buffer " + std::to_string(i) + " has no storage");
    }
    data_[v] = bytes;
  }
  for (Step& step : steps_) {
    for (size_t i = 0; i < step.inputs.size(); ++i) {
      step.input_views[i].data = data_[step.inputs[i]];
    }
    for (size_t i = 0; i < step.outputs.size(); ++i) {
      step.output_views[i].data = data_[step.outputs[i]];
    }
    // Positional, so that members appended to KernelContext later (with defaults) keep
    // their default.
    const sy::cpu::KernelContext ctx{step.op, step.input_views, step.output_views, step.attrs};
    const sy::Status status = step.kernel(ctx);
    if (!status.ok()) Fail(sy::cpu::KernelErrorCode(status.code()), status.message());
  }
}

std::string EnvOr(const char* name, std::string_view fallback) {
  const char* value = std::getenv(name);
  return value != nullptr ? std::string(value) : std::string(fallback);
}

std::vector<std::string> SplitList(std::string_view list) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= list.size()) {
    size_t end = list.find(',', start);
    if (end == std::string_view::npos) end = list.size();
    std::string_view item = list.substr(start, end - start);
    while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
    while (!item.empty() && item.back() == ' ') item.remove_suffix(1);
    if (!item.empty()) out.emplace_back(item);
    start = end + 1;
  }
  return out;
}

uint64_t EnvBytes(const char* name, uint64_t fallback) {
  const char* value = std::getenv(name);
  if (value == nullptr) return fallback;
  const std::string_view text(value);
  uint64_t bytes = 0;
  bool ok = !text.empty();
  for (char c : text) {
    if (c < '0' || c > '9' || bytes > (UINT64_MAX - 9) / 10) {
      ok = false;
      break;
    }
    bytes = bytes * 10 + static_cast<uint64_t>(c - '0');
  }
  if (!ok) {
    Fail(SY_ERROR_INVALID_ARGUMENT,
         std::string(name) + "=\"" + value + "\" is not a byte count (decimal digits)");
  }
  return bytes;
}

OpFilter::OpFilter(const char* ops_var, std::string_view default_ops, const char* dtypes_var,
                   std::string_view default_dtypes) {
  ops_ = SplitList(EnvOr(ops_var, default_ops));
  if (std::getenv(ops_var) == nullptr && default_ops.empty()) {
    for (const auto& entry : sy::cpu::RefKernels().entries()) ops_.emplace_back(entry.op);
  }
  for (const std::string& name : SplitList(EnvOr(dtypes_var, default_dtypes))) {
    const std::optional<sy::DType> dtype = sy::ParseDTypeName(name);
    if (!dtype) {
      Fail(SY_ERROR_INVALID_ARGUMENT, std::string(dtypes_var) + ": unknown dtype \"" + name + "\"");
    }
    dtypes_ = dtypes_ | sy::DTypeSet{*dtype};
  }
}

bool OpFilter::Supports(const sy_node& node, std::string& reason) const {
  const std::string_view op = node.op;
  if (std::find(ops_.begin(), ops_.end(), op) == ops_.end()) {
    reason = "op \"" + std::string(op) + "\" is not in this device's subset";
    return false;
  }
  if (sy::cpu::RefKernels().Find(op) == nullptr) {
    reason = "op \"" + std::string(op) + "\" has no reference kernel";
    return false;
  }
  auto check = [&](const sy_tensor_type* types, uint32_t count, const char* what) {
    for (uint32_t i = 0; i < count; ++i) {
      const uint32_t code = types[i].dtype;
      if (code >= static_cast<uint32_t>(sy::kNumDTypes)) {
        reason = "dtype code " + std::to_string(code) + " is unknown (" + what + " " +
                 std::to_string(i) + ")";
        return false;
      }
      const sy::DType dtype = static_cast<sy::DType>(code);
      if (!dtypes_.contains(dtype)) {
        reason = "dtype " + std::string(sy::DTypeName(dtype)) + " is not supported (" + what + " " +
                 std::to_string(i) + ")";
        return false;
      }
    }
    return true;
  };
  return check(node.inputs, node.num_inputs, "input") &&
         check(node.outputs, node.num_outputs, "output");
}

}  // namespace sy_test_plugin
