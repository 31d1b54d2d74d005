// Matching helpers the optimization rules share (rules.h).
#include <cmath>

#include "opt/rules.h"
#include "switchyard/half.h"

namespace sy::opt {

bool Near(double value, double expected, double relative) {
  return std::fabs(value - expected) <= relative * std::fabs(expected);
}

double AsStored(double value, DType dtype) {
  const auto f = static_cast<float>(value);
  switch (dtype) {
    case DType::kF32:
      return f;
    case DType::kF16:
      return HalfToFloat(FloatToHalf(f));
    case DType::kBF16:
      return BFloat16ToFloat(FloatToBFloat16(f));
    default:
      return value;
  }
}

int ScalarOperand(const GraphEditor& editor, size_t n, double* scalar) {
  const Node& node = editor.node(n);
  if (node.inputs.size() != 2 || node.outputs.size() != 1) return -1;
  const TensorType& out = editor.type(node.outputs[0]);
  for (int other : {0, 1}) {
    const std::optional<double> c = editor.ScalarConstant(node.inputs[1 - other]);
    if (c && editor.type(node.inputs[other]) == out) {
      *scalar = *c;
      return other;
    }
  }
  return -1;
}

bool ActivationAttrs(const GraphEditor& editor, size_t n, Attrs* attrs) {
  const Node& node = editor.node(n);
  const std::string& op = node.op;
  if (node.inputs.size() != 1 || node.outputs.size() != 1) return false;
  if (!IsFloat(editor.type(node.inputs[0]).dtype)) return false;
  if (op == "relu" || op == "silu" || op == "sigmoid" || op == "tanh") {
    attrs->Set("activation", op);
  } else if (op == "leaky_relu") {
    attrs->Set("activation", op);
    attrs->Set("activation_alpha", node.attrs.GetFloat("alpha", 0.01));
  } else if (op == "gelu") {
    attrs->Set("activation", node.attrs.GetString("approximate", "none") == "tanh"
                                 ? std::string("gelu_tanh")
                                 : std::string("gelu"));
  } else if (op == "clip") {
    attrs->Set("activation", op);
    if (node.attrs.Has("min")) attrs->Set("clip_min", node.attrs.GetFloat("min"));
    if (node.attrs.Has("max")) attrs->Set("clip_max", node.attrs.GetFloat("max"));
  } else {
    return false;
  }
  return true;
}

}  // namespace sy::opt
