// The attention rule: scaled dot-product attention written out as PyTorch exports it,
//   softmax(matmul(q, kT) * scale [+ mask | where(cond, ., fill)], axis -1) @ v
// with the scale on the scores, on q or on kT (a div or mul by a scalar constant), kT
// usually a transpose of k, becomes the catalogue's `attention(q, k, v[, mask])`.
// Rank-3 products ([heads, S, D], as nn.MultiheadAttention exports) are reshaped to one
// batch of heads around the attention node.
//
// A where(cond, scores, fill) mask (GPT-2's causal mask) becomes a bool mask when cond is
// a constant and fill is -inf or below -1e30. The two differ only on a row whose every
// position is masked (softmax over fill values is uniform; attention gives zeros), so at
// level 1 the rule checks that cond masks no whole row, and at level 2 it does not check.
#include <cmath>
#include <optional>

#include "opt/rules.h"

namespace sy::opt {
namespace {

// A div or mul of `v` by a scalar constant, read only there: multiplies `scale` by the
// factor it applies, appends the node and returns its other operand; else `v`.
ValueId StripScale(const GraphEditor& e, ValueId v, double& scale, std::vector<size_t>& matched) {
  const std::optional<size_t> p = e.Producer(v);
  if (!p || e.Taken(*p) || !e.SingleUse(v)) return v;
  const std::string& op = e.node(*p).op;
  if (op != "div" && op != "mul") return v;
  double c = 0;
  const int other = ScalarOperand(e, *p, &c);
  if (other < 0 || (op == "div" && other != 0) || c == 0 || !std::isfinite(c)) return v;
  scale *= op == "div" ? 1 / c : c;
  matched.push_back(*p);
  return e.node(*p).inputs[other];
}

// Whether every row (last axis) of bool constant `cond` has a true entry.
bool NoRowFullyMasked(const Tensor& cond) {
  const int64_t row = cond.shape().empty() ? 1 : cond.shape().back();
  if (row == 0) return true;
  const std::span<const uint8_t> bits = cond.values<uint8_t>();
  for (int64_t start = 0; start < cond.element_count(); start += row) {
    bool any = false;
    for (int64_t i = 0; i < row && !any; ++i) any = bits[start + i] != 0;
    if (!any) return false;
  }
  return true;
}

Shape SwapLastTwo(Shape shape) {
  std::swap(shape[shape.size() - 1], shape[shape.size() - 2]);
  return shape;
}

struct Match {
  std::vector<size_t> matched;
  ValueId q = -1, k_transposed = -1, v = -1, mask = -1;
  double scale = 1.0;
  size_t softmax = 0, output = 0;     // node indices
  std::optional<size_t> k_transpose;  // the transpose making kT, when it can be rewritten
  std::string refused;                // set when the chain matched but a level check failed
};

// Everything between the scores matmul and the softmax, walking backwards from it.
bool MatchScores(const GraphEditor& e, int level, ValueId scores, Match& m) {
  if (!e.SingleUse(scores)) return false;
  if (const std::optional<size_t> add = e.ProducerIf(scores, "add")) {
    for (int side : {0, 1}) {
      const ValueId mask = e.node(*add).inputs[side];
      const ValueId rest = e.node(*add).inputs[1 - side];
      const std::optional<size_t> p = e.Producer(rest);
      if (!p || (e.node(*p).op != "matmul" && e.node(*p).op != "div" && e.node(*p).op != "mul")) {
        continue;
      }
      if (e.type(rest) != e.type(scores) || !e.SingleUse(rest)) continue;
      m.mask = mask;
      m.matched.push_back(*add);
      scores = rest;
      break;
    }
  } else if (const std::optional<size_t> where = e.ProducerIf(scores, "where")) {
    const Node& w = e.node(*where);
    const Tensor* cond = e.Constant(w.inputs[0]);
    const std::optional<double> fill = e.ScalarConstant(w.inputs[2]);
    if (cond == nullptr || !fill || *fill > -1e30 || e.type(w.inputs[1]) != e.type(scores) ||
        !e.SingleUse(w.inputs[1])) {
      return false;
    }
    if (level < 2 && !NoRowFullyMasked(*cond)) {
      m.refused =
          "its where() mask hides a whole row (fused attention gives zeros there, the "
          "written-out softmax a uniform row); level 2 fuses it anyway";
    }
    m.mask = w.inputs[0];
    m.matched.push_back(*where);
    scores = w.inputs[1];
  }
  scores = StripScale(e, scores, m.scale, m.matched);
  const std::optional<size_t> qk = e.ProducerIf(scores, "matmul");
  if (!qk || !e.SingleUse(scores)) return false;
  m.matched.push_back(*qk);
  m.q = StripScale(e, e.node(*qk).inputs[0], m.scale, m.matched);
  m.k_transposed = StripScale(e, e.node(*qk).inputs[1], m.scale, m.matched);
  if (const std::optional<size_t> t = e.ProducerIf(m.k_transposed, "transpose");
      t && e.SingleUse(m.k_transposed)) {
    m.k_transpose = t;
    m.matched.push_back(*t);
  }
  return true;
}

}  // namespace

Status FuseAttention(RuleContext& ctx) {
  GraphEditor& e = ctx.editor();
  for (size_t n = 0; n < e.num_nodes(); ++n) {
    const Node& sm = e.node(n);
    if (sm.op != "softmax" || e.Taken(n)) continue;
    const TensorType& scores_type = e.type(sm.inputs[0]);
    const int64_t rank = scores_type.rank();
    const int64_t axis = sm.attrs.GetInt("axis", -1);
    if ((rank != 3 && rank != 4) || (axis != -1 && axis != rank - 1)) continue;
    if (!IsFloat(scores_type.dtype)) continue;
    const std::optional<size_t> pv = e.OnlyConsumerIf(sm.outputs[0], "matmul");
    if (!pv || e.node(*pv).inputs[0] != sm.outputs[0]) continue;
    Match m;
    m.softmax = n;
    m.output = *pv;
    m.v = e.node(*pv).inputs[1];
    if (!MatchScores(e, ctx.level(), sm.inputs[0], m)) continue;
    m.matched.insert(m.matched.end(), {n, *pv});
    if (e.AnyTaken(m.matched)) continue;
    // Operands: q [.., S, D], kT [.., D, T], v [.., T, Dv], one batch shape for all.
    const TensorType& q = e.type(m.q);
    const TensorType& kt = e.type(m.k_transposed);
    const TensorType& v = e.type(m.v);
    if (q.rank() != rank || kt.rank() != rank || v.rank() != rank) continue;
    if (!std::equal(q.shape.begin(), q.shape.end() - 2, kt.shape.begin()) ||
        !std::equal(q.shape.begin(), q.shape.end() - 2, v.shape.begin())) {
      continue;
    }
    if (!m.refused.empty()) {
      ctx.Refuse("attention", m.matched, m.refused);
      continue;
    }
    const std::string& name = e.node(*pv).name;
    std::vector<Node> nodes;
    // k = kT with its last two dims swapped: the transpose that made kT, permuted
    // differently, or a new one.
    ValueId k = -1;
    const TensorType k_type{kt.dtype, SwapLastTwo(kt.shape)};
    if (m.k_transpose) {
      const Node& t = e.node(*m.k_transpose);
      std::vector<int64_t> perm = t.attrs.GetInts("perm");
      if (perm.size() != static_cast<size_t>(rank)) continue;
      std::swap(perm[rank - 1], perm[rank - 2]);
      Node k_node = ctx.MakeNode("transpose", {t.inputs[0]}, k_type, t.name, &k);
      k_node.attrs.Set("perm", perm);
      nodes.push_back(std::move(k_node));
    } else {
      std::vector<int64_t> perm(rank);
      for (int64_t i = 0; i < rank; ++i) perm[i] = i;
      std::swap(perm[rank - 1], perm[rank - 2]);
      Node k_node = ctx.MakeNode("transpose", {m.k_transposed}, k_type, name + "/k", &k);
      k_node.attrs.Set("perm", perm);
      nodes.push_back(std::move(k_node));
    }
    std::vector<ValueId> operands = {m.q, k, m.v};
    if (rank == 3) {  // [N, S, D] -> [1, N, S, D]
      for (ValueId& operand : operands) {
        TensorType t = e.type(operand);
        t.shape.insert(t.shape.begin(), 1);
        Node reshape = ctx.MakeNode("reshape", {operand}, t, name + "/4d", &operand);
        reshape.attrs.Set("shape", std::vector<int64_t>(t.shape.begin(), t.shape.end()));
        nodes.push_back(std::move(reshape));
      }
    }
    if (m.mask >= 0) operands.push_back(m.mask);
    TensorType out = e.type(e.node(*pv).outputs[0]);
    if (rank == 3) out.shape.insert(out.shape.begin(), 1);
    ValueId attention_out = -1;
    Node attention = ctx.MakeNode("attention", operands, out, name, &attention_out);
    attention.attrs.Set("scale", m.scale);
    attention.attrs.Set("is_causal", int64_t{0});
    if (rank == 4) {
      attention.outputs = e.node(*pv).outputs;
      nodes.push_back(std::move(attention));
    } else {
      nodes.push_back(std::move(attention));
      Node back;
      back.op = "reshape";
      back.inputs = {attention_out};
      back.outputs = e.node(*pv).outputs;
      back.name = name;
      const Shape& s = e.type(back.outputs[0]).shape;
      back.attrs.Set("shape", std::vector<int64_t>(s.begin(), s.end()));
      nodes.push_back(std::move(back));
    }
    SY_RETURN_IF_ERROR(ctx.TryReplace("attention", m.matched, std::move(nodes)).status());
  }
  return Status::Ok();
}

namespace {

// Whether node n only relabels its input's bytes: a reshape, or a transpose whose perm
// keeps every axis in place.
bool Relabels(const GraphEditor& e, size_t n) {
  const Node& node = e.node(n);
  if (node.inputs.size() != 1 || node.outputs.size() != 1) return false;
  if (node.op == "reshape") return true;
  if (node.op != "transpose" || !node.attrs.Has("perm")) return false;
  const std::vector<int64_t> perm = node.attrs.GetInts("perm");
  for (size_t i = 0; i < perm.size(); ++i) {
    if (perm[i] != static_cast<int64_t>(i)) return false;
  }
  return true;
}

}  // namespace

// Grouped-query attention written out (transformers' repeat_kv): each key/value head
// repeated G times by reshape [B, KV, S, D] -> [B, KV, 1, S, D], expand to
// [B, KV, G, S, D] and reshape to [B, KV * G, S, D] before attention. The catalogue's
// attention reads fewer key/value heads itself, q head h using kv head h / G (the same
// pairing), so it takes [B, KV, S, D] directly and the copies go (docs/optimization.md).
Status FuseGroupedAttention(RuleContext& ctx) {
  GraphEditor& e = ctx.editor();
  for (size_t n = 0; n < e.num_nodes(); ++n) {
    const Node& att = e.node(n);
    if (att.op != "attention" || e.Taken(n) || att.inputs.size() < 3) continue;
    Node replacement = att;
    std::vector<size_t> matched = {n};
    bool changed = false;
    for (int operand : {1, 2}) {
      // From the attention outward: relabels, the expand, relabels to the source.
      std::vector<size_t> path;
      std::optional<size_t> p = e.Producer(att.inputs[operand]);
      for (; p && Relabels(e, *p) && !e.Taken(*p); p = e.Producer(e.node(*p).inputs[0])) {
        path.push_back(*p);
      }
      if (!p || e.node(*p).op != "expand" || e.Taken(*p) || e.node(*p).inputs.size() != 1) {
        continue;
      }
      const size_t expand = *p;
      path.push_back(expand);
      ValueId source = e.node(expand).inputs[0];
      for (p = e.Producer(source); p && Relabels(e, *p) && !e.Taken(*p); p = e.Producer(source)) {
        path.push_back(*p);
        source = e.node(*p).inputs[0];
        if (e.type(source).rank() == 4) break;  // the [B, KV, S, D] source
      }
      const TensorType& expanded = e.type(e.node(expand).outputs[0]);
      const Shape& src = e.type(source).shape;
      const Shape& b5 = e.type(e.node(expand).inputs[0]).shape;
      const Shape& x5 = expanded.shape;
      const Shape& out = e.type(att.inputs[operand]).shape;
      if (src.size() != 4 || b5.size() != 5 || x5.size() != 5 || out.size() != 4) continue;
      const bool unsqueezed =
          b5[0] == src[0] && b5[1] == src[1] && b5[2] == 1 && b5[3] == src[2] && b5[4] == src[3];
      const bool repeated =
          x5[0] == src[0] && x5[1] == src[1] && x5[2] >= 1 && x5[3] == src[2] && x5[4] == src[3];
      const bool merged =
          out[0] == src[0] && out[1] == src[1] * x5[2] && out[2] == src[2] && out[3] == src[3];
      if (!unsqueezed || !repeated || !merged || e.type(source).dtype != expanded.dtype) continue;
      replacement.inputs[operand] = source;
      changed = true;
      // The copies go while nothing else reads them: each node of the path is read by
      // the one before it, so the removable ones are the path's single-use prefix.
      for (size_t c : path) {
        if (!e.SingleUse(e.node(c).outputs[0])) break;
        matched.push_back(c);
      }
    }
    if (!changed) continue;
    std::vector<Node> nodes;
    nodes.push_back(std::move(replacement));
    SY_RETURN_IF_ERROR(ctx.TryReplace("grouped_attention", matched, std::move(nodes)).status());
  }
  return Status::Ok();
}

}  // namespace sy::opt
