#include "opencl_executable.h"

#include <chrono>
#include <string>

#include "resized_partition.h"
#include "switchyard/plugin_partition.h"

namespace sy::opencl {
namespace {

[[noreturn]] void Fail(sy_error_code code, const std::string& message) {
  throw sy_sdk::Error(code, message);
}

DeviceCaps CapsOf(const Device& device) {
  DeviceCaps caps;
  caps.fp16 = device.fp16;
  caps.fp64 = device.fp64;
  caps.max_work_group_size = device.max_work_group_size;
  return caps;
}

}  // namespace

bool SupportsNode(const Device& device, const NodeInfo& node, std::string& reason) {
  const ClOpRegistry::Entry* entry = ClOpRegistry::Global().Find(node.op);
  if (entry == nullptr) {
    reason = "not implemented in the OpenCL plugin";
    return false;
  }
  // A node with neither inputs nor outputs asks about the op itself (how `switchyard
  // devices` counts ops). Any other is canonical (docs/plugin-abi.md): the host has
  // checked it against the op's schema, so the op's own checks only ask what this device
  // can do; NodeInfo's checked operand access refuses a node with too few operands.
  if (node.inputs.empty() && node.outputs.empty()) return true;
  return entry->supports(node, CapsOf(device), reason);
}

OpenClExecutable::OpenClExecutable(Device& device, const sy_partition& p) : device_(device) {
  // Checks and decodes the partition (the SDK's plugin kit); its value table is
  // authoritative for the types.
  const plugin::Partition partition(p);
  cl_int err = CL_SUCCESS;
  queue_.reset(clCreateCommandQueue(device.context.get(), device.id, 0, &err));
  CheckCl(err, "clCreateCommandQueue");
  bound_ = partition.bound();
  Build(partition);
}

void OpenClExecutable::Build(const plugin::Partition& partition) {
  // Everything that depends on the sizes is built aside and swapped in at the end, so that
  // a resize that fails (a node the device declines at the new sizes, an allocation)
  // leaves the executable as it was, still right for the sizes it last ran.
  std::vector<TensorType> values = partition.values();
  std::vector<uint64_t> bytes(values.size());
  for (uint32_t v = 0; v < values.size(); ++v) bytes[v] = partition.bytes(v);
  std::vector<Step> steps =
      plugin::CreateSteps<Step>(partition, ClOpRegistry::Global(), CapsOf(device_), "OpenCL");
  // Prepared after every step exists, so that NodeInfo references stay put. Programs come
  // from the device's program cache (program_cache.h): a resize compiles nothing that an
  // earlier prepare compiled.
  std::vector<std::string> error_messages;
  for (size_t n = 0; n < steps.size(); ++n) {
    PrepareContext ctx(device_, steps[n].node, error_messages);
    steps[n].first_slot = error_messages.size();
    try {
      steps[n].op->Prepare(ctx);
    } catch (const sy_sdk::Error& e) {
      Fail(e.code(), "prepare: node " + std::to_string(n) + " (" + steps[n].node.Describe() +
                         "): " + e.what());
    }
    steps[n].num_slots = error_messages.size() - steps[n].first_slot;
  }
  for (std::string& m : error_messages) m = "execute: " + m;
  // Intermediates: an earlier buffer is kept where it holds the new size.
  std::vector<std::unique_ptr<ClBuffer>> fresh(values.size());
  for (uint32_t v = 0; v < values.size(); ++v) {
    if (partition.is_bound(v)) continue;
    const bool fits = v < owned_.size() && owned_[v] != nullptr && owned_[v]->size() >= bytes[v];
    if (!fits) fresh[v] = std::make_unique<ClBuffer>(device_, bytes[v]);
  }
  const size_t slots = std::max<size_t>(error_messages.size(), 1);
  UniqueMem flags;
  if (!error_flags_ || slots != flags_host_.size()) {
    cl_int err = CL_SUCCESS;
    flags.reset(clCreateBuffer(device_.context.get(), CL_MEM_READ_WRITE, slots * sizeof(cl_int),
                               nullptr, &err));
    CheckCl(err, "clCreateBuffer (error flags)");
  }

  // Nothing below throws.
  values_.swap(values);
  bytes_.swap(bytes);
  steps_.swap(steps);
  error_messages_.swap(error_messages);
  owned_.resize(values_.size());
  for (uint32_t v = 0; v < values_.size(); ++v) {
    if (fresh[v] != nullptr) owned_[v] = std::move(fresh[v]);
    if (partition.is_bound(v)) owned_[v].reset();
  }
  tensors_.assign(values_.size(), ClTensor{});
  for (uint32_t v = 0; v < values_.size(); ++v) {
    tensors_[v].type = &values_[v];
    if (owned_[v] != nullptr) tensors_[v].mem = owned_[v]->mem();
  }
  if (flags) {
    error_flags_ = std::move(flags);
    flags_host_.assign(slots, 0);
  }
}

void OpenClExecutable::CheckSameStructure(const plugin::Partition& partition) const {
  plugin::CheckSameStructure(partition, values_, steps_, bound_,
                             [](const Step& step) -> const std::string& { return step.node.op; });
}

bool OpenClExecutable::SameSizes(const plugin::Partition& partition) const {
  if (partition.values() != values_) return false;
  for (size_t n = 0; n < steps_.size(); ++n) {
    if (!(partition.nodes()[n].info.attrs == steps_[n].node.attrs)) return false;
  }
  return true;
}

void OpenClExecutable::ExecuteResized(const sy_partition& p, sy_buffer* const* buffers,
                                      uint32_t count) {
  const plugin::Partition partition(p);
  CheckSameStructure(partition);
  if (!SameSizes(partition)) Build(partition);
  Run(buffers, count, nullptr);
}

void OpenClExecutable::Execute(sy_buffer* const* buffers, uint32_t count) {
  Run(buffers, count, nullptr);
}

void OpenClExecutable::ExecuteTimed(sy_buffer* const* buffers, uint32_t count, sy_node_time* times,
                                    uint32_t num_times) {
  Run(buffers, count, num_times == steps_.size() ? times : nullptr);
}

void OpenClExecutable::Run(sy_buffer* const* buffers, uint32_t count, sy_node_time* times) {
  using Clock = std::chrono::steady_clock;
  const Clock::time_point start = Clock::now();
  const auto since_start = [&start] {
    return static_cast<uint64_t>(
        std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - start).count());
  };
  plugin::BindBuffers<ClBuffer>(
      buffers, count, bound_, bytes_, "OpenCL",
      [&](const ClBuffer& b) { return b.device().context.get() == device_.context.get(); },
      [&](uint32_t v, const ClBuffer& b) {
        tensors_[v].mem = b.mem();
        tensors_[v].offset = b.offset();
      });
  cl_command_queue queue = queue_.get();
  const bool checks_errors = !error_messages_.empty();
  if (checks_errors) {
    std::fill(flags_host_.begin(), flags_host_.end(), 0);
    CheckCl(clEnqueueWriteBuffer(queue, error_flags_.get(), CL_FALSE, 0,
                                 flags_host_.size() * sizeof(cl_int), flags_host_.data(), 0,
                                 nullptr, nullptr),
            "clEnqueueWriteBuffer (error flags)");
  }
  if (times != nullptr) CheckCl(clFinish(queue), "clFinish");  // the flags' write first
  for (size_t s = 0; s < steps_.size(); ++s) {
    Step& step = steps_[s];
    const uint64_t step_start = times != nullptr ? since_start() : 0;
    for (size_t i = 0; i < step.inputs.size(); ++i)
      step.input_tensors[i] = tensors_[step.inputs[i]];
    for (size_t i = 0; i < step.outputs.size(); ++i) {
      step.output_tensors[i] = tensors_[step.outputs[i]];
    }
    step.op->Enqueue({queue, step.input_tensors, step.output_tensors, error_flags_.get()});
    if (times != nullptr) {
      CheckCl(clFinish(queue), "clFinish");
      times[s] = sy_node_time{step_start, since_start()};
    }
  }
  if (checks_errors) {
    CheckCl(clEnqueueReadBuffer(queue, error_flags_.get(), CL_TRUE, 0,
                                flags_host_.size() * sizeof(cl_int), flags_host_.data(), 0, nullptr,
                                nullptr),
            "clEnqueueReadBuffer (error flags)");
  }
  CheckCl(clFinish(queue), "clFinish");
  CheckErrors();
}

void OpenClExecutable::CheckErrors() const {
  for (const Step& step : steps_) {
    for (size_t s = step.first_slot; s < step.first_slot + step.num_slots; ++s) {
      if (flags_host_[s] != 0) Fail(SY_ERROR_DATA, error_messages_[s]);
    }
    try {
      step.op->CheckData();
    } catch (const sy_sdk::Error& e) {
      Fail(e.code(), std::string("execute: ") + e.what());
    }
  }
}

}  // namespace sy::opencl
