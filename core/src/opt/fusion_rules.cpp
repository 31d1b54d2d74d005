// Fusion rules that write the fused ops of core/src/ops/fused_schemas.cpp:
// - add_layer_norm: add(a, b) -> layer_norm, with the sum as a second output when
//   something else reads it (pre-norm transformers' residual stream);
// - fused_matmul: matmul or gemm, absorbing a transpose of b that swaps its last two dims,
//   a bias add, a residual add and an activation (through a reshape between the product
//   and the activation, as GPT-2's exported Conv1D layers have);
// - fused_conv: conv with a residual add and an activation (ResNet's blocks, MobileNet's
//   clip(0, 6)).
#include "opt/rules.h"

namespace sy::opt {
namespace {

// The operand of binary node n that is not `v`.
ValueId OtherOperand(const Node& node, ValueId v) {
  return node.inputs[0] == v ? node.inputs[1] : node.inputs[0];
}

// The tail a product or a conv can absorb: a bias add, a residual add, an activation.
struct Tail {
  std::vector<size_t> nodes;
  ValueId bias = -1, residual = -1;
  Attrs activation;  // empty: none
  ValueId output = -1;
  std::optional<size_t> reshape;  // between the product and the activation
};

// From the product's output `y`: [bias add] [residual add] [[reshape] activation].
Tail MatchTail(const GraphEditor& e, ValueId y, bool take_bias, bool allow_reshape) {
  Tail tail;
  tail.output = y;
  const TensorType& type = e.type(y);
  auto add_operand = [&](bool residual) -> bool {
    const std::optional<size_t> add = e.OnlyConsumerIf(tail.output, "add");
    if (!add || e.node(*add).inputs.size() != 2) return false;
    const ValueId other = OtherOperand(e.node(*add), tail.output);
    if (other == tail.output || e.type(e.node(*add).outputs[0]) != type) return false;
    // A bias is a constant that broadcasts along the rows; a residual is a whole tensor of
    // the product's type.
    if (residual ? e.type(other) != type || e.Constant(other) != nullptr
                 : e.Constant(other) == nullptr || e.type(other).rank() >= type.rank()) {
      return false;
    }
    (residual ? tail.residual : tail.bias) = other;
    tail.nodes.push_back(*add);
    tail.output = e.node(*add).outputs[0];
    return true;
  };
  if (take_bias) add_operand(false);
  add_operand(true);
  // An activation, possibly behind a reshape (elementwise, so it commutes with it).
  ValueId act_input = tail.output;
  std::optional<size_t> reshape;
  if (allow_reshape) {
    reshape = e.OnlyConsumerIf(act_input, "reshape");
    if (reshape) act_input = e.node(*reshape).outputs[0];
  }
  if (!e.SingleUse(act_input)) return tail;
  const size_t act = e.Consumers(act_input)[0];
  Attrs attrs;
  if (e.Taken(act) || !ActivationAttrs(e, act, &attrs)) return tail;
  tail.activation = std::move(attrs);
  if (reshape) tail.nodes.push_back(*reshape);
  tail.reshape = reshape;
  tail.nodes.push_back(act);
  tail.output = e.node(act).outputs[0];
  return tail;
}

// The inputs (bias, residual) with a zero bias of [channels] when only a residual is
// there: optional inputs are trailing.
Status AppendBiasAndResidual(GraphEditor& e, const Tail& tail, ValueId bias, DType dtype,
                             int64_t channels, const std::string& name,
                             std::vector<ValueId>& inputs) {
  if (bias < 0 && tail.residual >= 0) {
    SY_ASSIGN_OR_RETURN(Tensor zeros, Tensor::Allocate(dtype, Shape{channels}));
    bias = e.AddConstant(name + "/zero_bias", std::move(zeros));
  }
  if (bias >= 0) inputs.push_back(bias);
  if (tail.residual >= 0) inputs.push_back(tail.residual);
  return Status::Ok();
}

// The fused node writes tail.output; with a reshape in the tail it writes the product's
// shape and a reshape follows.
void EmitFused(RuleContext& ctx, Node fused, const TensorType& product_type, const Tail& tail,
               std::vector<Node>& nodes) {
  GraphEditor& e = ctx.editor();
  if (!tail.reshape) {
    fused.outputs = {tail.output};
    nodes.push_back(std::move(fused));
    return;
  }
  ValueId inner = -1;
  Node made = ctx.MakeNode(fused.op, fused.inputs, product_type, fused.name, &inner);
  made.attrs = std::move(fused.attrs);
  nodes.push_back(std::move(made));
  Node reshape = e.node(*tail.reshape);
  reshape.inputs = {inner};
  reshape.outputs = {tail.output};
  nodes.push_back(std::move(reshape));
}

bool SwapsLastTwo(const std::vector<int64_t>& perm) {
  const size_t r = perm.size();
  if (r < 2) return false;
  for (size_t i = 0; i + 2 < r; ++i) {
    if (perm[i] != static_cast<int64_t>(i)) return false;
  }
  return perm[r - 2] == static_cast<int64_t>(r - 1) && perm[r - 1] == static_cast<int64_t>(r - 2);
}

}  // namespace

Status FuseAddLayerNorm(RuleContext& ctx) {
  GraphEditor& e = ctx.editor();
  for (size_t n = 0; n < e.num_nodes(); ++n) {
    const Node& ln = e.node(n);
    if (ln.op != "layer_norm" || e.Taken(n)) continue;
    const ValueId sum = ln.inputs[0];
    const std::optional<size_t> add = e.ProducerIf(sum, "add");
    if (!add || e.node(*add).inputs.size() != 2) continue;
    ValueId a = e.node(*add).inputs[0], b = e.node(*add).inputs[1];
    if (e.type(a) != e.type(sum)) std::swap(a, b);
    if (e.type(a) != e.type(sum)) continue;
    // Other readers of the sum must come after the fused node, which takes ln's place.
    bool later = true;
    for (size_t c : e.Consumers(sum)) later = later && c >= n;
    if (!later) continue;
    Node fused;
    fused.op = "add_layer_norm";
    fused.inputs = {a, b};
    fused.inputs.insert(fused.inputs.end(), ln.inputs.begin() + 1, ln.inputs.end());
    fused.outputs = {ln.outputs[0]};
    if (!e.SingleUse(sum)) fused.outputs.push_back(sum);
    fused.name = ln.name;
    fused.attrs.Set("axis", ln.attrs.GetInt("axis", -1));
    fused.attrs.Set("epsilon", ln.attrs.GetFloat("epsilon", 1e-5));
    const size_t matched[] = {*add, n};
    std::vector<Node> nodes;
    nodes.push_back(std::move(fused));
    SY_RETURN_IF_ERROR(ctx.TryReplace("add_layer_norm", matched, std::move(nodes)).status());
  }
  return Status::Ok();
}

Status FuseMatmul(RuleContext& ctx) {
  GraphEditor& e = ctx.editor();
  for (size_t n = 0; n < e.num_nodes(); ++n) {
    const Node& mm = e.node(n);
    if ((mm.op != "matmul" && mm.op != "gemm") || e.Taken(n)) continue;
    const ValueId y = mm.outputs[0];
    const TensorType product_type = e.type(y);
    if (!IsFloat(product_type.dtype)) continue;
    std::vector<size_t> matched = {n};
    ValueId a = mm.inputs[0], b = mm.inputs[1], bias = -1;
    int64_t trans_b = 0;
    if (mm.op == "gemm") {
      if (mm.attrs.GetFloat("alpha", 1) != 1 || mm.attrs.GetInt("trans_a", 0) != 0 ||
          (mm.inputs.size() > 2 && mm.attrs.GetFloat("beta", 1) != 1)) {
        continue;
      }
      trans_b = mm.attrs.GetInt("trans_b", 0);
      if (mm.inputs.size() > 2) bias = mm.inputs[2];
    } else if (const std::optional<size_t> t = e.ProducerIf(b, "transpose");
               t && e.SingleUse(b) && SwapsLastTwo(e.node(*t).attrs.GetInts("perm"))) {
      b = e.node(*t).inputs[0];
      trans_b = 1;
      matched.push_back(*t);
    }
    const Tail tail = MatchTail(e, y, /*take_bias=*/bias < 0, /*allow_reshape=*/true);
    if (tail.bias >= 0) bias = tail.bias;
    // A gemm gains nothing from becoming a fused_matmul by itself.
    if (tail.nodes.empty() && (mm.op == "gemm" || trans_b == 0)) continue;
    matched.insert(matched.end(), tail.nodes.begin(), tail.nodes.end());
    if (e.AnyTaken(matched)) continue;
    Node fused;
    fused.op = "fused_matmul";
    fused.name = e.node(matched.back()).name;
    fused.inputs = {a, b};
    SY_RETURN_IF_ERROR(AppendBiasAndResidual(e, tail, bias, product_type.dtype,
                                             product_type.shape.back(), fused.name, fused.inputs));
    fused.attrs = tail.activation;
    fused.attrs.Set("trans_b", trans_b);
    std::vector<Node> nodes;
    EmitFused(ctx, std::move(fused), product_type, tail, nodes);
    SY_RETURN_IF_ERROR(ctx.TryReplace("fused_matmul", matched, std::move(nodes)).status());
  }
  return Status::Ok();
}

Status FuseConv(RuleContext& ctx) {
  GraphEditor& e = ctx.editor();
  for (size_t n = 0; n < e.num_nodes(); ++n) {
    const Node& conv = e.node(n);
    if (conv.op != "conv" || e.Taken(n)) continue;
    const TensorType product_type = e.type(conv.outputs[0]);
    if (!IsFloat(product_type.dtype) || product_type.rank() < 3) continue;
    const Tail tail = MatchTail(e, conv.outputs[0], /*take_bias=*/false, /*allow_reshape=*/false);
    if (tail.nodes.empty()) continue;
    std::vector<size_t> matched = {n};
    matched.insert(matched.end(), tail.nodes.begin(), tail.nodes.end());
    if (e.AnyTaken(matched)) continue;
    Node fused;
    fused.op = "fused_conv";
    fused.name = conv.name;
    fused.inputs = {conv.inputs[0], conv.inputs[1]};
    const ValueId bias = conv.inputs.size() > 2 ? conv.inputs[2] : -1;
    SY_RETURN_IF_ERROR(AppendBiasAndResidual(e, tail, bias, product_type.dtype,
                                             product_type.shape[1], fused.name, fused.inputs));
    fused.attrs = tail.activation;
    for (const char* attr : {"strides", "pads", "dilations", "group"}) {
      if (const AttrValue* value = conv.attrs.Find(attr)) fused.attrs.Set(attr, *value);
    }
    std::vector<Node> nodes;
    EmitFused(ctx, std::move(fused), product_type, tail, nodes);
    SY_RETURN_IF_ERROR(ctx.TryReplace("fused_conv", matched, std::move(nodes)).status());
  }
  return Status::Ok();
}

}  // namespace sy::opt
