#include "opencl_executable.h"

#include <string>

#include "switchyard/op_schema.h"

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

// The declared output types must be what the op's shape rule gives the inputs: kernels
// trust them, so a malformed partition is refused here rather than read out of bounds.
void CheckNodeTypes(uint32_t n, NodeInfo& node) {
  const OpSchema* schema = OpRegistry::Global().Find(node.op);
  if (schema == nullptr) Fail(SY_ERROR_UNSUPPORTED, "unknown op " + node.op);
  Expected<std::vector<TensorType>> inferred =
      InferOutputTypes(*schema, node.inputs, node.attrs, static_cast<int>(node.outputs.size()));
  std::string problem;
  if (!inferred.ok()) {
    problem = inferred.status().message();
  } else {
    for (size_t k = 0; k < node.outputs.size() && problem.empty(); ++k) {
      if ((*inferred)[k] != node.outputs[k]) {
        problem = "output " + std::to_string(k) + " is declared " + node.outputs[k].ToString() +
                  " but its inputs give " + (*inferred)[k].ToString();
      }
    }
  }
  if (!problem.empty()) {
    Fail(SY_ERROR_INVALID_ARGUMENT,
         "prepare: node " + std::to_string(n) + " (" + node.op + "): " + problem);
  }
}

}  // namespace

bool SupportsNode(const Device& device, const NodeInfo& node, std::string& reason) {
  const ClOpRegistry::Entry* entry = ClOpRegistry::Global().Find(node.op);
  if (entry == nullptr) {
    reason = OpRegistry::Global().Find(node.op) == nullptr
                 ? "unknown op \"" + node.op + "\" (not in the catalogue)"
                 : "not implemented in the OpenCL plugin yet";
    return false;
  }
  // A node with neither inputs nor outputs asks about the op itself (how `switchyard
  // devices` counts ops); any other node must match its op's schema before the op's own
  // checks, which index inputs and read attributes as the schema promises.
  if (node.inputs.empty() && node.outputs.empty()) return true;
  const OpSchema* schema = OpRegistry::Global().Find(node.op);
  Attrs attrs = node.attrs;
  Expected<std::vector<TensorType>> outputs =
      InferOutputTypes(*schema, node.inputs, attrs, static_cast<int>(node.outputs.size()));
  if (!outputs.ok() || *outputs != node.outputs) {
    reason =
        "the node does not match the op's schema" +
        (outputs.ok() ? std::string(" (output types differ)") : ": " + outputs.status().message());
    return false;
  }
  return entry->supports(node, CapsOf(device), reason);
}

OpenClExecutable::OpenClExecutable(Device& device, const sy_partition& p) : device_(device) {
  if ((p.num_values && p.values == nullptr) || (p.num_nodes && p.nodes == nullptr) ||
      (p.num_inputs && p.inputs == nullptr) || (p.num_outputs && p.outputs == nullptr)) {
    Fail(SY_ERROR_INVALID_ARGUMENT, "prepare: malformed partition");
  }
  cl_int err = CL_SUCCESS;
  queue_.reset(clCreateCommandQueue(device.context.get(), device.id, 0, &err));
  CheckCl(err, "clCreateCommandQueue");

  for (uint32_t v = 0; v < p.num_values; ++v) {
    const sy_tensor_type& t = p.values[v];
    if (t.dtype >= static_cast<uint32_t>(kNumDTypes) || (t.rank && t.dims == nullptr)) {
      Fail(SY_ERROR_INVALID_ARGUMENT, "prepare: malformed value type");
    }
    TensorType type{static_cast<DType>(t.dtype), Shape(t.dims, t.dims + t.rank)};
    if (!CheckedElementCount(type.shape).ok()) {
      Fail(SY_ERROR_INVALID_ARGUMENT, "prepare: bad tensor shape");
    }
    values_.push_back(std::move(type));
  }
  auto check_value = [&](uint32_t v) {
    if (v >= p.num_values) Fail(SY_ERROR_INVALID_ARGUMENT, "prepare: value index out of range");
    return v;
  };
  std::vector<bool> is_bound(values_.size(), false);
  for (uint32_t i = 0; i < p.num_inputs; ++i) bound_.push_back(check_value(p.inputs[i]));
  for (uint32_t i = 0; i < p.num_outputs; ++i) bound_.push_back(check_value(p.outputs[i]));
  for (uint32_t v : bound_) is_bound[v] = true;

  tensors_.resize(values_.size());
  bytes_.resize(values_.size());
  for (size_t v = 0; v < values_.size(); ++v) {
    tensors_[v].type = &values_[v];
    bytes_[v] = static_cast<uint64_t>(ElementCount(values_[v].shape)) * DTypeSize(values_[v].dtype);
  }

  for (uint32_t n = 0; n < p.num_nodes; ++n) {
    const sy_node& raw = p.nodes[n];
    if ((raw.num_inputs && raw.input_values == nullptr) ||
        (raw.num_outputs && raw.output_values == nullptr)) {
      Fail(SY_ERROR_INVALID_ARGUMENT, "prepare: malformed node " + std::to_string(n));
    }
    Step step;
    try {
      step.node = DecodeNode(raw);
    } catch (const sy_sdk::Error& e) {
      Fail(e.code(), "prepare: node " + std::to_string(n) + ": " + e.what());
    }
    // The partition's value table is authoritative for the types.
    step.node.inputs.clear();
    step.node.outputs.clear();
    for (uint32_t i = 0; i < raw.num_inputs; ++i) {
      step.inputs.push_back(check_value(raw.input_values[i]));
      step.node.inputs.push_back(values_[step.inputs.back()]);
    }
    for (uint32_t i = 0; i < raw.num_outputs; ++i) {
      step.outputs.push_back(check_value(raw.output_values[i]));
      step.node.outputs.push_back(values_[step.outputs.back()]);
    }
    CheckNodeTypes(n, step.node);
    std::string reason;
    const ClOpRegistry::Entry* entry = ClOpRegistry::Global().Find(step.node.op);
    if (entry == nullptr || !entry->supports(step.node, CapsOf(device), reason)) {
      Fail(SY_ERROR_UNSUPPORTED, "node " + std::to_string(n) + " (" + step.node.op + "): " +
                                     (entry == nullptr ? "not implemented in the "
                                                         "OpenCL plugin yet"
                                                       : reason));
    }
    step.op = entry->create(step.node);
    step.input_tensors.resize(step.inputs.size());
    step.output_tensors.resize(step.outputs.size());
    steps_.push_back(std::move(step));
  }
  // Prepared after every step exists, so that NodeInfo references stay put.
  for (size_t n = 0; n < steps_.size(); ++n) {
    PrepareContext ctx(device, steps_[n].node, error_messages_);
    try {
      steps_[n].op->Prepare(ctx);
    } catch (const sy_sdk::Error& e) {
      Fail(e.code(), "prepare: node " + std::to_string(n) + " (" + steps_[n].node.Describe() +
                         "): " + e.what());
    }
  }
  for (std::string& m : error_messages_) m = "execute: " + m;

  for (size_t v = 0; v < values_.size(); ++v) {
    if (is_bound[v]) continue;
    owned_.push_back(std::make_unique<ClBuffer>(device, bytes_[v]));
    tensors_[v].mem = owned_.back()->mem();
    tensors_[v].offset = 0;
  }
  flags_host_.assign(std::max<size_t>(error_messages_.size(), 1), 0);
  error_flags_.reset(clCreateBuffer(device.context.get(), CL_MEM_READ_WRITE,
                                    flags_host_.size() * sizeof(cl_int), nullptr, &err));
  CheckCl(err, "clCreateBuffer (error flags)");
}

void OpenClExecutable::Execute(sy_buffer* const* buffers, uint32_t count) {
  if (count != bound_.size()) {
    Fail(SY_ERROR_INVALID_ARGUMENT, "execute: expected " + std::to_string(bound_.size()) +
                                        " buffers, got " + std::to_string(count));
  }
  for (uint32_t i = 0; i < count; ++i) {
    const uint32_t v = bound_[i];
    auto* buffer = dynamic_cast<ClBuffer*>(buffers[i]);
    if (buffer == nullptr || buffer->device().context.get() != device_.context.get()) {
      Fail(SY_ERROR_INVALID_ARGUMENT,
           "execute: buffer " + std::to_string(i) + " is not memory of this OpenCL device");
    }
    if (buffer->size() < bytes_[v]) {
      Fail(SY_ERROR_INVALID_ARGUMENT, "execute: buffer " + std::to_string(i) + " holds " +
                                          std::to_string(buffer->size()) + " bytes, needs " +
                                          std::to_string(bytes_[v]));
    }
    tensors_[v].mem = buffer->mem();
    tensors_[v].offset = buffer->offset();
  }
  cl_command_queue queue = queue_.get();
  const bool checks_errors = !error_messages_.empty();
  if (checks_errors) {
    std::fill(flags_host_.begin(), flags_host_.end(), 0);
    CheckCl(clEnqueueWriteBuffer(queue, error_flags_.get(), CL_FALSE, 0,
                                 flags_host_.size() * sizeof(cl_int), flags_host_.data(), 0,
                                 nullptr, nullptr),
            "clEnqueueWriteBuffer (error flags)");
  }
  for (Step& step : steps_) {
    for (size_t i = 0; i < step.inputs.size(); ++i)
      step.input_tensors[i] = tensors_[step.inputs[i]];
    for (size_t i = 0; i < step.outputs.size(); ++i) {
      step.output_tensors[i] = tensors_[step.outputs[i]];
    }
    step.op->Enqueue({queue, step.input_tensors, step.output_tensors, error_flags_.get()});
  }
  if (checks_errors) {
    CheckCl(clEnqueueReadBuffer(queue, error_flags_.get(), CL_TRUE, 0,
                                flags_host_.size() * sizeof(cl_int), flags_host_.data(), 0, nullptr,
                                nullptr),
            "clEnqueueReadBuffer (error flags)");
  }
  CheckCl(clFinish(queue), "clFinish");
  for (size_t s = 0; s < error_messages_.size(); ++s) {
    if (flags_host_[s] != 0) Fail(SY_ERROR_DATA, error_messages_[s]);
  }
}

}  // namespace sy::opencl
