// Layout rules: a transpose that moves only axes of size 1 (torch's nn.MultiheadAttention
// swaps batch 1 and the sequence before and after every attention) moves no bytes, so it
// becomes a reshape, which a device that takes reshapes in place runs without a copy
// (docs/scheduling.md, "The memory plan").
#include "opt/rules.h"

namespace sy::opt {
namespace {

// Whether permuting `value` by `perm` keeps the axes of size other than 1 in order: then
// the row-major bytes of input and output are the same. An axis whose size is 1 only in
// this specialisation (a decoder's seq at one token) counts as any other: the rewrite
// must give every set of sizes the same graph (Value::run_time_dims).
bool MovesOnlyUnitAxes(const Value& value, const std::vector<int64_t>& perm) {
  const Shape& shape = value.type.shape;
  int64_t last = -1;
  for (int64_t axis : perm) {
    if (axis < 0 || axis >= static_cast<int64_t>(shape.size())) return false;
    if (shape[axis] == 1 && !value.RunTimeDim(static_cast<size_t>(axis))) continue;
    if (axis < last) return false;
    last = axis;
  }
  return true;
}

}  // namespace

Status TransposeAsReshape(RuleContext& ctx) {
  GraphEditor& e = ctx.editor();
  for (size_t n = 0; n < e.num_nodes(); ++n) {
    const Node& t = e.node(n);
    if (t.op != "transpose" || e.Taken(n) || t.inputs.size() != 1 || t.outputs.size() != 1) {
      continue;
    }
    const Value& input = e.value(t.inputs[0]);
    const Shape& shape = input.type.shape;
    // Without perm, a transpose reverses the axes.
    std::vector<int64_t> perm;
    if (t.attrs.Has("perm")) {
      perm = t.attrs.GetInts("perm");
    } else {
      for (int64_t a = static_cast<int64_t>(shape.size()) - 1; a >= 0; --a) perm.push_back(a);
    }
    if (perm.size() != shape.size() || !MovesOnlyUnitAxes(input, perm)) continue;
    Node reshape;
    reshape.op = "reshape";
    reshape.name = t.name;
    reshape.inputs = t.inputs;
    reshape.outputs = t.outputs;
    const Shape& out = e.type(t.outputs[0]).shape;
    reshape.attrs.Set("shape", std::vector<int64_t>(out.begin(), out.end()));
    const size_t matched[] = {n};
    std::vector<Node> nodes;
    nodes.push_back(std::move(reshape));
    SY_RETURN_IF_ERROR(ctx.TryReplace("transpose_as_reshape", matched, std::move(nodes)).status());
  }
  return Status::Ok();
}

}  // namespace sy::opt
