// Folding rules: nodes whose results nothing reads are removed, nodes whose inputs are all
// constants become constants, and a batch_norm after a conv is folded into the conv's
// weights and bias.
#include <algorithm>
#include <cmath>

#include "opt/rules.h"

namespace sy::opt {
namespace {

uint64_t Bytes(const TensorType& type) {
  return static_cast<uint64_t>(ElementCount(type.shape)) * DTypeSize(type.dtype);
}

// How much a folded node may grow the model: a constant `expand` or `tile` must not turn
// a few bytes of weights into megabytes.
uint64_t GrowthLimit(int level) { return level >= 2 ? (64u << 20) : (1u << 20); }

// Writes double `value` as element i of an f32 or f64 tensor.
void Store(Tensor& t, int64_t i, double value) {
  if (t.dtype() == DType::kF32) {
    t.mutable_values<float>()[i] = static_cast<float>(value);
  } else {
    t.mutable_values<double>()[i] = value;
  }
}

}  // namespace

// Nodes are in topological order, so one walk from the last node back finds every node
// that some graph output (decoding state's outputs among them) depends on; the rest go.
Status RemoveDeadNodes(RuleContext& ctx) {
  GraphEditor& e = ctx.editor();
  const Graph& g = e.graph();
  std::vector<bool> needed(g.values.size(), false);
  for (ValueId v : g.outputs) needed[static_cast<size_t>(v)] = true;
  std::vector<size_t> dead;
  for (size_t n = e.num_nodes(); n-- > 0;) {
    const Node& node = e.node(n);
    bool live = false;
    for (ValueId v : node.outputs) live = live || needed[static_cast<size_t>(v)];
    if (!live) {
      dead.push_back(n);
      continue;
    }
    for (ValueId v : node.inputs) needed[static_cast<size_t>(v)] = true;
  }
  for (size_t n : dead) {
    const size_t matched[] = {n};
    e.Replace(matched, {}, nullptr);
    ctx.RecordApplied("dead_node", matched, "removed: no output of the graph depends on it");
  }
  return Status::Ok();
}

Status FoldConstants(RuleContext& ctx) {
  GraphEditor& e = ctx.editor();
  for (size_t n = 0; n < e.num_nodes(); ++n) {
    const Node& node = e.node(n);
    if (node.inputs.empty() || e.Taken(n) || e.device(n) == nullptr) continue;
    uint64_t in_bytes = 0, out_bytes = 0;
    int64_t largest_input = 0, largest_output = 0;  // in elements
    bool all_constant = true;
    for (ValueId v : node.inputs) {
      all_constant = all_constant && e.Constant(v) != nullptr;
      in_bytes += Bytes(e.type(v));
      largest_input = std::max(largest_input, ElementCount(e.type(v).shape));
    }
    if (!all_constant) continue;
    for (ValueId v : node.outputs) {
      out_bytes += Bytes(e.type(v));
      largest_output = std::max(largest_output, ElementCount(e.type(v).shape));
    }
    const size_t matched[] = {n};
    // The limit is for outputs with more elements than any input (a broadcast made
    // real). One no larger than an input converts weights: a quantized model's
    // DequantizeLinear (cast, sub, mul) grows them by its dtype's width, at most 8x, and
    // is folded whatever the size, so that it runs once, at prepare, not every run.
    if (largest_output > largest_input && out_bytes > in_bytes + GrowthLimit(ctx.level())) {
      ctx.Refuse("fold_constant", matched,
                 "its outputs (" + FormatBytes(out_bytes) +
                     ") would grow the weights by more than " +
                     FormatBytes(GrowthLimit(ctx.level())));
      continue;
    }
    Expected<std::vector<Tensor>> outputs = ctx.queries().Evaluate(*e.device(n), e.graph(), n);
    if (!outputs.ok()) {
      // Left in place: the run reports the same error where it happens.
      ctx.Refuse("fold_constant", matched, "evaluating it failed: " + outputs.status().message());
      continue;
    }
    e.FoldToConstant(n, std::move(*outputs));
    ctx.RecordApplied("fold_constant", matched, "constant");
  }
  return Status::Ok();
}

// conv(x, w[, b]) -> batch_norm(., scale, bias, mean, var) with every parameter constant:
// w'[o] = w[o] * s[o], b'[o] = (b[o] - mean[o]) * s[o] + bias[o], s = scale / sqrt(var +
// epsilon), computed in double and rounded once.
Status FoldBatchNorm(RuleContext& ctx) {
  GraphEditor& e = ctx.editor();
  for (size_t bn = 0; bn < e.num_nodes(); ++bn) {
    const Node& norm = e.node(bn);
    if (norm.op != "batch_norm" || e.Taken(bn) || norm.inputs.size() != 5) continue;
    const std::optional<size_t> conv = e.ProducerIf(norm.inputs[0], "conv");
    if (!conv || !e.SingleUse(norm.inputs[0])) continue;
    const Node& c = e.node(*conv);
    const DType dtype = e.type(c.outputs[0]).dtype;
    if (dtype != DType::kF32 && dtype != DType::kF64) continue;
    const Tensor* w = e.Constant(c.inputs[1]);
    const Tensor* b = c.inputs.size() > 2 ? e.Constant(c.inputs[2]) : nullptr;
    const Tensor* p[4];
    bool constant = w != nullptr && (c.inputs.size() < 3 || b != nullptr);
    for (int i = 0; i < 4; ++i) {
      p[i] = e.Constant(norm.inputs[1 + i]);
      constant = constant && p[i] != nullptr;
    }
    if (!constant) continue;
    const int64_t channels = w->shape()[0];
    const int64_t per_channel = channels > 0 ? w->element_count() / channels : 0;
    const double epsilon = norm.attrs.GetFloat("epsilon", 1e-5);
    Expected<Tensor> new_w = Tensor::Allocate(dtype, w->shape());
    Expected<Tensor> new_b = Tensor::Allocate(dtype, Shape{channels});
    if (!new_w.ok()) return new_w.status();
    if (!new_b.ok()) return new_b.status();
    for (int64_t o = 0; o < channels; ++o) {
      const double s = ElementAsDouble(*p[0], o) / std::sqrt(ElementAsDouble(*p[3], o) + epsilon);
      for (int64_t i = 0; i < per_channel; ++i) {
        Store(*new_w, o * per_channel + i, ElementAsDouble(*w, o * per_channel + i) * s);
      }
      const double bias = b != nullptr ? ElementAsDouble(*b, o) : 0.0;
      Store(*new_b, o, (bias - ElementAsDouble(*p[2], o)) * s + ElementAsDouble(*p[1], o));
    }
    Node folded = c;
    folded.inputs = {
        c.inputs[0],
        e.AddConstant(e.graph().values[c.inputs[1]].name + "/bn_folded", std::move(*new_w)),
        e.AddConstant(norm.name.empty() ? "bn_folded_bias" : norm.name + "/bias",
                      std::move(*new_b))};
    folded.outputs = norm.outputs;
    const size_t matched[] = {*conv, bn};
    std::vector<Node> replacement;
    replacement.push_back(std::move(folded));
    SY_RETURN_IF_ERROR(
        ctx.TryReplace("batch_norm_into_conv", matched, std::move(replacement)).status());
  }
  return Status::Ok();
}

}  // namespace sy::opt
