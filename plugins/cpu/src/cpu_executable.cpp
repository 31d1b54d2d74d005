#include "cpu_executable.h"

#include <algorithm>
#include <cstddef>
#include <limits>
#include <string>
#include <vector>

#include "node_types.h"
#include "thread_pool.h"

namespace sy::cpu {
namespace {

[[noreturn]] void Fail(sy_error_code code, const std::string& message) {
  throw sy_sdk::Error(code, message);
}

}  // namespace

void CpuExecutable::CheckTypes(uint32_t n, Step& step) const {
  std::vector<TensorType> inputs, outputs;
  for (uint32_t v : step.inputs) inputs.push_back(values_[v]);
  for (uint32_t v : step.outputs) outputs.push_back(values_[v]);
  const Status status = CheckNodeTypes(step.op, inputs, outputs, step.attrs);
  if (!status.ok()) {
    Fail(status.code() == StatusCode::kUnsupported ? SY_ERROR_UNSUPPORTED
                                                   : SY_ERROR_INVALID_ARGUMENT,
         "prepare: node " + std::to_string(n) + " (" + step.op + "): " + status.message());
  }
}

CpuExecutable::CpuExecutable(const KernelTable& table, const sy_partition& p, ThreadPool* pool)
    : pool_(pool) {
  if ((p.num_values && p.values == nullptr) || (p.num_nodes && p.nodes == nullptr) ||
      (p.num_inputs && p.inputs == nullptr) || (p.num_outputs && p.outputs == nullptr)) {
    Fail(SY_ERROR_INVALID_ARGUMENT, "prepare: malformed partition");
  }
  for (uint32_t v = 0; v < p.num_values; ++v) {
    auto type = TensorTypeFromC(p.values[v]);
    if (!type.ok())
      Fail(SY_ERROR_INVALID_ARGUMENT,
           "prepare: value " + std::to_string(v) + ": " + type.status().message());
    values_.push_back(std::move(*type));
  }
  auto check_value = [&](uint32_t v) {
    if (v >= p.num_values) Fail(SY_ERROR_INVALID_ARGUMENT, "prepare: value index out of range");
    return v;
  };
  std::vector<bool> is_bound(values_.size(), false);
  // Constant bytes per value, where the host passed them (a host of this ABI version or
  // later does; valid during this constructor only).
  std::vector<const std::byte*> constant(values_.size(), nullptr);
  const bool has_constants =
      p.struct_size >= offsetof(sy_partition, constant_data) + sizeof(p.constant_data) &&
      p.constant_data != nullptr;
  for (uint32_t i = 0; i < p.num_inputs; ++i) {
    bound_.push_back(check_value(p.inputs[i]));
    if (has_constants) constant[p.inputs[i]] = static_cast<const std::byte*>(p.constant_data[i]);
  }
  for (uint32_t i = 0; i < p.num_outputs; ++i) bound_.push_back(check_value(p.outputs[i]));
  for (uint32_t v : bound_) is_bound[v] = true;
  // Bound values keep the catalogue's layout (the host or another partition may read
  // them), except outputs the host marks as read by nobody outside the partition.
  std::vector<bool> layout_fixed = is_bound;
  if (p.struct_size >= offsetof(sy_partition, outputs_internal) + sizeof(p.outputs_internal) &&
      p.outputs_internal != nullptr) {
    for (uint32_t i = 0; i < p.num_outputs; ++i) {
      if (p.outputs_internal[i] != 0) layout_fixed[p.outputs[i]] = false;
    }
    for (uint32_t i = 0; i < p.num_inputs; ++i) layout_fixed[p.inputs[i]] = true;
  }

  for (uint32_t n = 0; n < p.num_nodes; ++n) {
    const sy_node& node = p.nodes[n];
    if (node.op == nullptr || (node.num_inputs && node.input_values == nullptr) ||
        (node.num_outputs && node.output_values == nullptr) ||
        (node.num_attrs && node.attrs == nullptr)) {
      Fail(SY_ERROR_INVALID_ARGUMENT, "prepare: malformed node " + std::to_string(n));
    }
    Step step;
    step.op = node.op;
    const KernelTable::Entry* entry = table.FindEntry(step.op);
    if (entry == nullptr) Fail(SY_ERROR_UNSUPPORTED, "no kernel for op " + step.op);
    step.kernel = entry->fn;
    for (uint32_t a = 0; a < node.num_attrs; ++a) {
      Expected<AttrValue> value = AttrFromC(node.attrs[a]);
      if (!value.ok() || node.attrs[a].name == nullptr) {
        Fail(SY_ERROR_INVALID_ARGUMENT,
             "prepare: malformed attribute of node " + std::to_string(n));
      }
      step.attrs.Set(node.attrs[a].name, std::move(*value));
    }
    for (uint32_t i = 0; i < node.num_inputs; ++i) {
      step.inputs.push_back(check_value(node.input_values[i]));
      step.input_views.push_back({values_[step.inputs.back()], nullptr});
    }
    for (uint32_t i = 0; i < node.num_outputs; ++i) {
      step.outputs.push_back(check_value(node.output_values[i]));
      step.output_views.push_back({values_[step.outputs.back()], nullptr});
    }
    CheckTypes(n, step);
    if (entry->prepare != nullptr) {
      std::vector<TensorType> in_types, out_types;
      std::vector<const std::byte*> in_constants;
      for (uint32_t v : step.inputs) {
        in_types.push_back(values_[v]);
        in_constants.push_back(constant[v]);
      }
      for (uint32_t v : step.outputs) out_types.push_back(values_[v]);
      step.prepared = entry->prepare({step.op, in_types, out_types, step.attrs, in_constants,
                                      pool_ != nullptr ? pool_->num_threads() : 1});
    }
    step.input_bounds.assign(step.inputs.size(), std::numeric_limits<double>::infinity());
    step.output_bounds.assign(step.outputs.size(), std::numeric_limits<double>::infinity());
    steps_.push_back(std::move(step));
  }
  ChooseLayouts(layout_fixed);

  data_.assign(values_.size(), nullptr);
  bounds_.assign(values_.size(), std::numeric_limits<double>::infinity());
  bytes_.resize(values_.size());
  for (size_t v = 0; v < values_.size(); ++v) {
    bytes_[v] = static_cast<uint64_t>(ElementCount(values_[v].shape)) * DTypeSize(values_[v].dtype);
    if (is_bound[v]) continue;
    owned_.push_back(std::make_unique<sy_sdk::HostBuffer>(bytes_[v]));
    data_[v] = static_cast<std::byte*>(owned_.back()->host_pointer());
  }
}

void CpuExecutable::ChooseLayouts(const std::vector<bool>& layout_fixed) {
  layouts_.assign(values_.size(), Layout::kRowMajor);
  // Candidates: values produced by exactly one step that accepts writing them
  // channels-last, whose layout the host does not fix, and of a type for which the
  // layout means something.
  std::vector<int> producers(values_.size(), 0);
  std::vector<bool> candidate(values_.size(), false);
  for (const Step& step : steps_) {
    for (size_t j = 0; j < step.outputs.size(); ++j) {
      const uint32_t v = step.outputs[j];
      ++producers[v];
      const TensorType& type = values_[v];
      candidate[v] = !layout_fixed[v] && type.dtype == DType::kF32 && type.rank() >= 3 &&
                     type.rank() <= 5 && step.prepared != nullptr &&
                     step.prepared->AcceptsChannelsLastOutput(j);
    }
  }
  // Every reader must accept it too; one that does not (another op, a conv's weights, a
  // kernel that declined) keeps the value row-major.
  for (const Step& step : steps_) {
    for (size_t i = 0; i < step.inputs.size(); ++i) {
      const uint32_t v = step.inputs[i];
      if (step.prepared == nullptr || !step.prepared->AcceptsChannelsLastInput(i)) {
        candidate[v] = false;
      }
    }
  }
  for (size_t v = 0; v < values_.size(); ++v) {
    if (candidate[v] && producers[v] == 1) layouts_[v] = Layout::kChannelsLast;
  }
  // Commit: each kernel learns the layouts of its own tensors.
  std::vector<Layout> in, out;
  for (Step& step : steps_) {
    if (step.prepared == nullptr) continue;
    in.clear();
    out.clear();
    bool any = false;
    for (uint32_t v : step.inputs) {
      in.push_back(layouts_[v]);
      any |= layouts_[v] == Layout::kChannelsLast;
    }
    for (uint32_t v : step.outputs) {
      out.push_back(layouts_[v]);
      any |= layouts_[v] == Layout::kChannelsLast;
    }
    if (any) step.prepared->UseLayouts(in, out);
  }
}

void CpuExecutable::Execute(sy_buffer* const* buffers, uint32_t count) {
  if (count != bound_.size()) {
    Fail(SY_ERROR_INVALID_ARGUMENT, "execute: expected " + std::to_string(bound_.size()) +
                                        " buffers, got " + std::to_string(count));
  }
  for (uint32_t i = 0; i < count; ++i) {
    const uint32_t v = bound_[i];
    void* host = buffers[i]->host_pointer();
    if (host == nullptr) Fail(SY_ERROR_INVALID_ARGUMENT, "execute: buffer is not host memory");
    if (buffers[i]->size() < bytes_[v]) {
      Fail(SY_ERROR_INVALID_ARGUMENT, "execute: buffer " + std::to_string(i) + " holds " +
                                          std::to_string(buffers[i]->size()) + " bytes, needs " +
                                          std::to_string(bytes_[v]));
    }
    data_[v] = static_cast<std::byte*>(host);
  }
  // Nothing is known of the inputs' magnitudes; each step's kernel may bound its outputs.
  constexpr double kUnknown = std::numeric_limits<double>::infinity();
  std::fill(bounds_.begin(), bounds_.end(), kUnknown);
  for (Step& step : steps_) {
    for (size_t i = 0; i < step.inputs.size(); ++i) {
      step.input_views[i].data = data_[step.inputs[i]];
      step.input_bounds[i] = bounds_[step.inputs[i]];
    }
    for (size_t i = 0; i < step.outputs.size(); ++i) {
      step.output_views[i].data = data_[step.outputs[i]];
      step.output_bounds[i] = kUnknown;
    }
    const KernelContext ctx{step.op, step.input_views,  step.output_views, step.attrs,
                            pool_,   step.input_bounds, step.output_bounds};
    const Status status = step.prepared ? step.prepared->Run(ctx) : step.kernel(ctx);
    if (!status.ok()) Fail(KernelErrorCode(status.code()), status.message());
    for (size_t i = 0; i < step.outputs.size(); ++i) {
      bounds_[step.outputs[i]] = step.output_bounds[i];
    }
  }
}

}  // namespace sy::cpu

namespace sy::cpu {

size_t CpuExecutable::prepared_step_count() const {
  size_t count = 0;
  for (const Step& step : steps_) count += step.prepared != nullptr ? 1 : 0;
  return count;
}

std::vector<uint32_t> CpuExecutable::channels_last_values() const {
  std::vector<uint32_t> values;
  for (uint32_t v = 0; v < layouts_.size(); ++v) {
    if (layouts_[v] == Layout::kChannelsLast) values.push_back(v);
  }
  return values;
}

}  // namespace sy::cpu
