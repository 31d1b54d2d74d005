// Activation rules: silu written out as x * sigmoid(x) (PyTorch's SiLU and Swish export as
// Sigmoid then Mul) becomes the catalogue's `silu`, and gelu written out as arithmetic, as
// PyTorch and transformers export it, becomes the catalogue's `gelu`:
//   erf form:   x * 0.5 * (1 + erf(x / sqrt(2)))                      (or x * (1 / sqrt 2))
//   tanh form:  x * 0.5 * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 * x^3)))
// in the association orders exporters write: (x * t) * 0.5, (x * 0.5) * t, (t * 0.5) * x.
#include <cmath>
#include <numbers>

#include "opt/rules.h"

namespace sy::opt {
namespace {

double Tolerance(int level) { return level >= 2 ? 1e-3 : 1e-6; }

// `n` is a binary `op` node with a scalar constant near `expected` and the other operand
// `*other` (set on success).
bool ScalarNode(const GraphEditor& e, size_t n, std::string_view op, double expected,
                double tolerance, ValueId* other) {
  if (e.node(n).op != op || e.Taken(n)) return false;
  double c = 0;
  const int index = ScalarOperand(e, n, &c);
  // Compared with the constant as the graph's dtype can hold it: an f16 graph's 0.5 is
  // exact, its 1/sqrt(2) the nearest f16.
  if (index < 0 || !Near(c, AsStored(expected, e.type(e.node(n).outputs[0]).dtype), tolerance)) {
    return false;
  }
  if (op == "div" && index != 0) return false;  // c / x is not x / c
  *other = e.node(n).inputs[index];
  return true;
}

// The outer product x * 0.5 * t, from t's only consumer; on success appends the nodes to
// `matched` and returns the node that produces the result.
std::optional<size_t> MatchHalfProduct(const GraphEditor& e, ValueId x, ValueId t, double tolerance,
                                       std::vector<size_t>& matched) {
  const std::optional<size_t> m1 = e.OnlyConsumerIf(t, "mul");
  if (!m1) return std::nullopt;
  const Node& first = e.node(*m1);
  if (first.inputs.size() != 2) return std::nullopt;
  const ValueId a = first.inputs[0] == t ? first.inputs[1] : first.inputs[0];
  const ValueId result = first.outputs[0];
  ValueId other = -1;
  if (a == x) {  // (x * t) * 0.5
    const std::optional<size_t> m2 = e.OnlyConsumerIf(result, "mul");
    if (!m2 || !ScalarNode(e, *m2, "mul", 0.5, tolerance, &other) || other != result) {
      return std::nullopt;
    }
    matched.insert(matched.end(), {*m1, *m2});
    return m2;
  }
  if (const std::optional<size_t> h = e.ProducerIf(a, "mul");
      h && e.SingleUse(a) && ScalarNode(e, *h, "mul", 0.5, tolerance, &other) && other == x) {
    matched.insert(matched.end(), {*h, *m1});  // (x * 0.5) * t
    return m1;
  }
  if (ScalarNode(e, *m1, "mul", 0.5, tolerance, &other) && other == t) {  // (t * 0.5) * x
    const std::optional<size_t> m2 = e.OnlyConsumerIf(result, "mul");
    if (!m2) return std::nullopt;
    const Node& second = e.node(*m2);
    if (second.inputs.size() != 2 ||
        (second.inputs[0] == result ? second.inputs[1] : second.inputs[0]) != x) {
      return std::nullopt;
    }
    matched.insert(matched.end(), {*m1, *m2});
    return m2;
  }
  return std::nullopt;
}

// 1 + f(...): the add after erf or tanh; returns the sum.
std::optional<ValueId> MatchPlusOne(const GraphEditor& e, ValueId f, double tolerance,
                                    std::vector<size_t>& matched) {
  const std::optional<size_t> add = e.OnlyConsumerIf(f, "add");
  ValueId other = -1;
  if (!add || !ScalarNode(e, *add, "add", 1.0, tolerance, &other) || other != f) {
    return std::nullopt;
  }
  matched.push_back(*add);
  return e.node(*add).outputs[0];
}

// The erf form around erf node n: the x it reads and the nodes before the outer product.
std::optional<ValueId> MatchErfArgument(const GraphEditor& e, size_t n, double tolerance,
                                        std::vector<size_t>& matched) {
  const ValueId arg = e.node(n).inputs[0];
  const std::optional<size_t> scale = e.Producer(arg);
  if (!scale || !e.SingleUse(arg)) return std::nullopt;
  ValueId x = -1;
  if (!ScalarNode(e, *scale, "div", std::numbers::sqrt2, tolerance, &x) &&
      !ScalarNode(e, *scale, "mul", 1 / std::numbers::sqrt2, tolerance, &x)) {
    return std::nullopt;
  }
  matched.insert(matched.end(), {*scale, n});
  return x;
}

// The tanh form's argument sqrt(2 / pi) * (x + 0.044715 * x^3) around tanh node n.
std::optional<ValueId> MatchTanhArgument(const GraphEditor& e, size_t n, double tolerance,
                                         std::vector<size_t>& matched) {
  const ValueId arg = e.node(n).inputs[0];
  const std::optional<size_t> scale = e.ProducerIf(arg, "mul");
  ValueId inner = -1;
  if (!scale || !e.SingleUse(arg) ||
      !ScalarNode(e, *scale, "mul", std::sqrt(2 / std::numbers::pi), tolerance, &inner)) {
    return std::nullopt;
  }
  const std::optional<size_t> sum = e.ProducerIf(inner, "add");
  if (!sum || !e.SingleUse(inner) || e.node(*sum).inputs.size() != 2) return std::nullopt;
  for (int side : {0, 1}) {
    const ValueId x = e.node(*sum).inputs[side];
    const ValueId cubic = e.node(*sum).inputs[1 - side];
    const std::optional<size_t> cubic_scale = e.ProducerIf(cubic, "mul");
    ValueId power = -1, base = -1;
    if (!cubic_scale || !e.SingleUse(cubic) ||
        !ScalarNode(e, *cubic_scale, "mul", 0.044715, tolerance, &power)) {
      continue;
    }
    const std::optional<size_t> pow = e.ProducerIf(power, "pow");
    if (!pow || !e.SingleUse(power) || !ScalarNode(e, *pow, "pow", 3.0, 0.0, &base) ||
        e.node(*pow).inputs[0] != base || base != x) {
      continue;
    }
    matched.insert(matched.end(), {*pow, *cubic_scale, *sum, *scale, n});
    return x;
  }
  return std::nullopt;
}

}  // namespace

Status FuseGelu(RuleContext& ctx) {
  GraphEditor& e = ctx.editor();
  const double tolerance = Tolerance(ctx.level());
  for (size_t n = 0; n < e.num_nodes(); ++n) {
    const std::string& op = e.node(n).op;
    if ((op != "erf" && op != "tanh") || e.Taken(n)) continue;
    std::vector<size_t> matched;
    const std::optional<ValueId> x = op == "erf" ? MatchErfArgument(e, n, tolerance, matched)
                                                 : MatchTanhArgument(e, n, tolerance, matched);
    if (!x || !IsFloat(e.type(*x).dtype)) continue;
    const std::optional<ValueId> t = MatchPlusOne(e, e.node(n).outputs[0], tolerance, matched);
    if (!t) continue;
    const std::optional<size_t> last = MatchHalfProduct(e, *x, *t, tolerance, matched);
    if (!last || e.AnyTaken(matched) || e.type(e.node(*last).outputs[0]) != e.type(*x)) continue;
    Node gelu;
    gelu.op = "gelu";
    gelu.inputs = {*x};
    gelu.outputs = e.node(*last).outputs;
    gelu.name = e.node(*last).name;
    gelu.attrs.Set("approximate", std::string(op == "erf" ? "none" : "tanh"));
    std::vector<Node> replacement;
    replacement.push_back(std::move(gelu));
    SY_RETURN_IF_ERROR(ctx.TryReplace("gelu", matched, std::move(replacement)).status());
  }
  return Status::Ok();
}

Status FuseSilu(RuleContext& ctx) {
  GraphEditor& e = ctx.editor();
  for (size_t n = 0; n < e.num_nodes(); ++n) {
    if (e.node(n).op != "sigmoid" || e.Taken(n) || e.node(n).inputs.size() != 1) continue;
    const ValueId x = e.node(n).inputs[0];
    const ValueId s = e.node(n).outputs[0];
    if (!IsFloat(e.type(x).dtype)) continue;
    // x * sigmoid(x) in either order, sigmoid(x) read by the mul alone.
    const std::optional<size_t> m = e.OnlyConsumerIf(s, "mul");
    if (!m) continue;
    const Node& mul = e.node(*m);
    if (mul.inputs.size() != 2 || (mul.inputs[0] == s ? mul.inputs[1] : mul.inputs[0]) != x ||
        e.type(mul.outputs[0]) != e.type(x)) {
      continue;
    }
    Node silu;
    silu.op = "silu";
    silu.inputs = {x};
    silu.outputs = mul.outputs;
    silu.name = mul.name;
    std::vector<Node> replacement;
    replacement.push_back(std::move(silu));
    const size_t matched[] = {n, *m};
    SY_RETURN_IF_ERROR(ctx.TryReplace("silu", matched, std::move(replacement)).status());
  }
  return Status::Ok();
}

}  // namespace sy::opt
