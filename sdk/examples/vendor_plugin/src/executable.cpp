#include "executable.h"

namespace vendor {

bool CheckNode(const sy::plugin::NodeInfo& node, std::string& reason) {
  const std::optional<Op> op = OpFromName(node.op);
  if (!op) {
    reason = "vendor-accel does not run \"" + node.op +
             "\" (it runs add, sub, mul, relu, sigmoid, tanh)";
    return false;
  }
  // The node is canonical (docs/plugin-abi.md): the host has checked it against the op
  // catalogue, so its operand count and output shape are right. What is left to check is
  // what this device can do: f32 only.
  for (size_t i = 0; i < node.inputs.size(); ++i) {
    if (node.inputs[i].dtype != sy::DType::kF32) {
      reason = "vendor-accel runs f32 only; input " + std::to_string(i) + " is " +
               std::string(sy::DTypeName(node.inputs[i].dtype));
      return false;
    }
  }
  if (node.outputs[0].dtype != sy::DType::kF32) {
    reason = "vendor-accel runs f32 only; the output is " +
             std::string(sy::DTypeName(node.outputs[0].dtype));
    return false;
  }
  return true;
}

VendorExecutable::VendorExecutable(const sy_partition& p)
    : VendorExecutable(sy::plugin::Partition(p)) {}

VendorExecutable::VendorExecutable(const sy::plugin::Partition& partition) : values_(partition) {
  for (const sy::plugin::Partition::Node& node : partition.nodes()) {
    // prepare is strict: a node supports_node would decline is an error, not a
    // surprise at execute time. (plugin_cpp.h's trampolines turn sy_sdk::Error into the
    // sy_error the host gets; no exception ever crosses the C ABI.)
    std::string reason;
    if (!CheckNode(node.info, reason)) {
      throw sy_sdk::Error(SY_ERROR_UNSUPPORTED, "prepare: " + reason);
    }
    const sy::TensorType& out = node.info.outputs[0];
    Step step{
        *OpFromName(node.info.op), node.inputs, node.outputs[0], sy::ElementCount(out.shape), {}};
    if (IsBinary(step.op)) {
      step.layout =
          MakeBinaryLayout(node.info.inputs[0].shape, node.info.inputs[1].shape, out.shape);
    }
    steps_.push_back(std::move(step));
  }
}

void VendorExecutable::Execute(sy_buffer* const* buffers, uint32_t count) {
  // Checks the count and sizes and that each buffer is host memory: ours, views of ours
  // (the host plans one arena per device and binds views of it), or host memory we
  // wrapped (buffer_wrap_host: graph inputs, values the CPU produced).
  values_.Bind(buffers, count);
  auto floats = [&](uint32_t v) { return reinterpret_cast<float*>(values_.data(v)); };
  for (const Step& step : steps_) {
    if (IsBinary(step.op)) {
      RunBinary(step.op, step.layout, floats(step.inputs[0]), floats(step.inputs[1]),
                floats(step.output));
    } else {
      RunUnary(step.op, floats(step.inputs[0]), floats(step.output), step.count);
    }
  }
}

}  // namespace vendor
