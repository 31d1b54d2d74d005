#include "executable.h"

namespace vendor {
namespace {

const char* DTypeName(uint32_t dtype) {
  static const char* const kNames[] = {"f32", "f16", "bf16", "f64", "i8",
                                       "u8",  "i32", "i64",  "bool"};
  return dtype < sizeof kNames / sizeof kNames[0] ? kNames[dtype] : "an unknown dtype";
}

Dims DimsOf(const sy_tensor_type& type) {
  if (type.rank == 0) return {};  // a scalar; dims may be NULL
  return Dims(type.dims, type.dims + type.rank);
}

std::string DimsText(const Dims& dims) {
  std::string text = "[";
  for (size_t i = 0; i < dims.size(); ++i) text += (i ? ", " : "") + std::to_string(dims[i]);
  return text + "]";
}

[[noreturn]] void Fail(sy_error_code code, const std::string& message) {
  // plugin_cpp.h's trampolines catch this and hand the host an sy_error; no exception
  // ever crosses the C ABI.
  throw sy_sdk::Error(code, message);
}

}  // namespace

bool CheckNode(const sy_node& node, std::string& reason) {
  const std::optional<Op> op = OpFromName(node.op);
  if (!op) {
    reason = std::string("vendor-accel does not run \"") + node.op +
             "\" (it runs add, sub, mul, relu, sigmoid, tanh)";
    return false;
  }
  const uint32_t arity = IsBinary(*op) ? 2 : 1;
  if (node.num_inputs != arity || node.num_outputs != 1) {
    reason = std::string(node.op) + " takes " + std::to_string(arity) + " input(s) and 1 output";
    return false;
  }
  // One dtype: every input and the output must be f32.
  for (uint32_t i = 0; i < node.num_inputs; ++i) {
    if (node.inputs[i].dtype != SY_DTYPE_F32) {
      reason = std::string("vendor-accel runs f32 only; input ") + std::to_string(i) + " is " +
               DTypeName(node.inputs[i].dtype);
      return false;
    }
  }
  if (node.outputs[0].dtype != SY_DTYPE_F32) {
    reason = std::string("vendor-accel runs f32 only; the output is ") +
             DTypeName(node.outputs[0].dtype);
    return false;
  }
  // The host has validated the graph, so the output shape is right; checking it anyway
  // costs nothing and keeps prepare safe against a malformed partition.
  const Dims out = DimsOf(node.outputs[0]);
  const std::optional<Dims> expected =
      IsBinary(*op) ? BroadcastDims(DimsOf(node.inputs[0]), DimsOf(node.inputs[1]))
                    : std::optional<Dims>(DimsOf(node.inputs[0]));
  if (!expected || *expected != out) {
    reason = std::string(node.op) + ": the output " + DimsText(out) +
             " is not the (broadcast) shape of the inputs";
    return false;
  }
  return true;
}

VendorExecutable::VendorExecutable(const sy_partition& p) {
  if ((p.num_values && p.values == nullptr) || (p.num_nodes && p.nodes == nullptr) ||
      (p.num_inputs && p.inputs == nullptr) || (p.num_outputs && p.outputs == nullptr)) {
    Fail(SY_ERROR_INVALID_ARGUMENT, "prepare: malformed partition");
  }
  auto check_value = [&](uint32_t v) {
    if (v >= p.num_values) Fail(SY_ERROR_INVALID_ARGUMENT, "prepare: value index out of range");
    return v;
  };

  // The value table: only byte sizes are needed at run time (every value is f32).
  std::vector<Dims> dims;
  for (uint32_t v = 0; v < p.num_values; ++v) {
    if (p.values[v].rank && p.values[v].dims == nullptr) {
      Fail(SY_ERROR_INVALID_ARGUMENT, "prepare: malformed value type");
    }
    dims.push_back(DimsOf(p.values[v]));
    value_bytes_.push_back(static_cast<uint64_t>(ElementCount(dims.back())) * sizeof(float));
  }

  // Bound values, in the order execute's buffers will come.
  std::vector<bool> is_bound(p.num_values, false);
  for (uint32_t i = 0; i < p.num_inputs; ++i) bound_.push_back(check_value(p.inputs[i]));
  for (uint32_t i = 0; i < p.num_outputs; ++i) bound_.push_back(check_value(p.outputs[i]));
  for (uint32_t v : bound_) is_bound[v] = true;

  for (uint32_t n = 0; n < p.num_nodes; ++n) {
    const sy_node& node = p.nodes[n];
    if (node.op == nullptr ||
        (node.num_inputs && (node.inputs == nullptr || node.input_values == nullptr)) ||
        (node.num_outputs && (node.outputs == nullptr || node.output_values == nullptr))) {
      Fail(SY_ERROR_INVALID_ARGUMENT, "prepare: malformed node " + std::to_string(n));
    }
    // prepare is strict: a node supports_node would decline is an error, not a
    // surprise at execute time.
    std::string reason;
    if (!CheckNode(node, reason)) Fail(SY_ERROR_UNSUPPORTED, "prepare: " + reason);

    Step step{*OpFromName(node.op), {}, check_value(node.output_values[0]), 0, {}};
    for (uint32_t i = 0; i < node.num_inputs; ++i) {
      step.inputs.push_back(check_value(node.input_values[i]));
    }
    step.count = ElementCount(dims[step.output]);
    if (IsBinary(step.op)) {
      step.layout = MakeBinaryLayout(dims[step.inputs[0]], dims[step.inputs[1]], dims[step.output]);
    }
    steps_.push_back(std::move(step));
  }

  // Intermediates get storage of their own, allocated once here rather than per run.
  // (Switchyard's scheduler binds every value a partition produces, so this is usually
  // empty; a plugin must not rely on that.)
  scratch_.resize(p.num_values);
  for (uint32_t v = 0; v < p.num_values; ++v) {
    if (!is_bound[v]) scratch_[v] = std::make_unique<sy_sdk::HostBuffer>(value_bytes_[v]);
  }
}

void VendorExecutable::Execute(sy_buffer* const* buffers, uint32_t count) {
  if (count != bound_.size()) {
    Fail(SY_ERROR_INVALID_ARGUMENT, "execute: " + std::to_string(count) + " buffers for " +
                                        std::to_string(bound_.size()) + " bound values");
  }
  // Where each value's floats are for this run. The buffers are ours (or views of ours:
  // the host plans its memory as one arena per device and binds views of it), so they
  // are host memory; anything else is a host bug worth a clear error.
  std::vector<float*> data(value_bytes_.size(), nullptr);
  for (uint32_t i = 0; i < count; ++i) {
    const uint32_t v = bound_[i];
    if (buffers[i]->size() < value_bytes_[v]) {
      Fail(SY_ERROR_INVALID_ARGUMENT, "execute: buffer " + std::to_string(i) + " holds " +
                                          std::to_string(buffers[i]->size()) + " bytes, needs " +
                                          std::to_string(value_bytes_[v]));
    }
    data[v] = static_cast<float*>(buffers[i]->host_pointer());
    if (data[v] == nullptr && value_bytes_[v] != 0) {
      Fail(SY_ERROR_INVALID_ARGUMENT,
           "execute: buffer " + std::to_string(i) + " is not vendor-accel memory");
    }
  }
  for (size_t v = 0; v < scratch_.size(); ++v) {
    if (scratch_[v]) data[v] = static_cast<float*>(scratch_[v]->host_pointer());
  }

  for (const Step& step : steps_) {
    float* y = data[step.output];
    if (IsBinary(step.op)) {
      RunBinary(step.op, step.layout, data[step.inputs[0]], data[step.inputs[1]], y);
    } else {
      RunUnary(step.op, data[step.inputs[0]], y, step.count);
    }
  }
}

}  // namespace vendor
