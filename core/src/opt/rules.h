// The optimization pass's rules and what they share. Each rule sweeps the committed
// graph once, records its rewrites in the editor and a RewriteRecord per candidate; the
// driver (optimize.cpp) commits after each rule, in the order listed in
// docs/optimization.md.
#pragma once

#include <functional>
#include <span>
#include <string>
#include <vector>

#include "opt/graph_editor.h"
#include "switchyard/optimize.h"

namespace sy::opt {

// What rules ask the world: whether a device runs a node, and what a node computes.
class DeviceQueries {
 public:
  virtual ~DeviceQueries() = default;
  // Whether `device` supports `node`, whose inputs and outputs have the types given (the
  // node's attributes are normalised). When not, `reason` says why.
  virtual Expected<bool> Supports(const Device& device, const Node& node,
                                  std::span<const TensorType> inputs,
                                  std::span<const TensorType> outputs, std::string* reason) = 0;
  // The outputs of `node` (of `graph`), whose inputs are all constants, computed on
  // `device`.
  virtual Expected<std::vector<Tensor>> Evaluate(const Device& device, const Graph& graph,
                                                 size_t node) = 0;
};

class RuleContext {
 public:
  RuleContext(GraphEditor& editor, DeviceQueries& queries, int level,
              std::vector<RewriteRecord>& records)
      : editor_(editor), queries_(queries), level_(level), records_(records) {}

  GraphEditor& editor() { return editor_; }
  DeviceQueries& queries() { return queries_; }
  int level() const { return level_; }

  // Rewrites `matched` into `replacement` when the device that runs the matched nodes
  // supports every replacement node (a node whose op is already among the matched ones,
  // a transpose or a reshape say, is not asked about: the device runs it today). The
  // matched nodes must share one device and one backend hint. Records the outcome under
  // `rule`; returns whether it was applied. Normalises the replacement's attributes.
  Expected<bool> TryReplace(std::string_view rule, std::span<const size_t> matched,
                            std::vector<Node> replacement);
  // Records a rewrite a rule made itself (constant folding).
  void RecordApplied(std::string_view rule, std::span<const size_t> matched, std::string result);
  // Records a candidate that a rule refused by itself (a level-2-only case, say).
  void Refuse(std::string_view rule, std::span<const size_t> matched, std::string reason);

  // A node of the replacement, with `op`, `inputs` and one new output of `type` named
  // after `name` (returned in *output).
  Node MakeNode(std::string op, std::vector<ValueId> inputs, const TensorType& type,
                const std::string& name, ValueId* output);

 private:
  RewriteRecord Record(std::string_view rule, std::span<const size_t> matched) const;

  GraphEditor& editor_;
  DeviceQueries& queries_;
  int level_;
  std::vector<RewriteRecord>& records_;
};

// Rules, in the order the driver runs them.
Status RemoveDeadNodes(RuleContext& ctx);   // fold_rules.cpp: nodes no graph output needs
Status FoldConstants(RuleContext& ctx);     // fold_rules.cpp: nodes whose inputs are constants
Status FoldBatchNorm(RuleContext& ctx);     // fold_rules.cpp: conv -> batch_norm into the conv
Status FuseSilu(RuleContext& ctx);          // activation_rules.cpp: x * sigmoid(x)
Status FuseGelu(RuleContext& ctx);          // activation_rules.cpp: erf and tanh forms
Status FuseAttention(RuleContext& ctx);     // attention_rule.cpp
Status FuseAddLayerNorm(RuleContext& ctx);  // fusion_rules.cpp: residual add + layer_norm
Status FuseMatmul(RuleContext& ctx);        // fusion_rules.cpp: transpose/bias/activation/residual
Status FuseConv(RuleContext& ctx);          // fusion_rules.cpp: activation and residual add
Status TransposeAsReshape(RuleContext& ctx);    // layout_rules.cpp: moves only axes of size 1
Status FuseGroupedAttention(RuleContext& ctx);  // attention_rule.cpp: repeat_kv into attention

// Shared matching helpers (rule_helpers.cpp).
// |value - expected| within `relative` of |expected|.
bool Near(double value, double expected, double relative = 1e-6);
// `value` as a constant of `dtype` holds it: rounded to nearest for f32, f16 and bf16 (an
// f16 model's 1/sqrt(2) is the nearest f16, 1.4e-4 from the real one), as is for f64.
double AsStored(double value, DType dtype);
// For a binary node `n` with one scalar-constant operand: the other operand's index in
// the node's inputs (0 or 1), else -1. The node's output must have the other operand's
// type (the scalar does not broadcast it to a larger shape).
int ScalarOperand(const GraphEditor& editor, size_t n, double* scalar);
// The activations fused_matmul and fused_conv take: sets `attrs` (activation and its
// parameters) for node n when its op is one, else false.
bool ActivationAttrs(const GraphEditor& editor, size_t n, Attrs* attrs);

}  // namespace sy::opt
