// Scaled dot-product attention written out as PyTorch exports it becomes `attention`.
#include <gtest/gtest.h>

#include "optimize_fixture.h"

namespace sy::test {
namespace {

using AttentionRule = OptimizeTest;

Attrs Perm(std::vector<int64_t> perm) {
  Attrs attrs;
  attrs.Set("perm", std::move(perm));
  return attrs;
}

ValueId Transpose(GraphBuilder& b, ValueId x, Shape out, std::vector<int64_t> perm,
                  const std::string& name) {
  const ValueId y = b.Value(name, DType::kF32, std::move(out));
  b.Node("transpose", {x}, {y}, Perm(std::move(perm)), name);
  return y;
}

ValueId Matmul(GraphBuilder& b, ValueId a, ValueId c, Shape out, const std::string& name) {
  const ValueId y = b.Value(name, DType::kF32, std::move(out));
  b.Node("matmul", {a, c}, {y}, {}, name);
  return y;
}

// BERT's self-attention: q, k, v [B, S, H, D] -> heads; kT by perm [0, 2, 3, 1]; scores
// divided by sqrt(D); an additive [B, 1, 1, S] mask from the input.
TEST_F(AttentionRule, BertStyleAttentionWithAnAdditiveMask) {
  const int64_t B = 2, S = 5, H = 3, D = 4;
  GraphBuilder b;
  const ValueId q_in = b.Input("q", DType::kF32, {B, S, H, D});
  const ValueId k_in = b.Input("k", DType::kF32, {B, S, H, D});
  const ValueId v_in = b.Input("v", DType::kF32, {B, S, H, D});
  const ValueId mask = b.Input("mask", DType::kF32, {B, 1, 1, S});
  const ValueId q = Transpose(b, q_in, {B, H, S, D}, {0, 2, 1, 3}, "qh");
  const ValueId kt = Transpose(b, k_in, {B, H, D, S}, {0, 2, 3, 1}, "kt");
  const ValueId v = Transpose(b, v_in, {B, H, S, D}, {0, 2, 1, 3}, "vh");
  const ValueId scores = Matmul(b, q, kt, {B, H, S, S}, "scores");
  const ValueId scaled = b.Binary("div", scores, b.Const("root_d", Scalar(2.0f)), "scaled");
  const ValueId masked = b.Binary("add", scaled, mask, "masked");
  const ValueId probs = b.Unary("softmax", masked, "probs");
  b.Output(Matmul(b, probs, v, {B, H, S, D}, "context"));
  const Graph graph = b.Build();
  const OptimizedGraph out = Optimize(graph);
  EXPECT_EQ(Ops(out.graph),
            (std::vector<std::string>{"transpose", "transpose", "transpose", "attention"}));
  const Node* attention = FindOp(out.graph, "attention");
  ASSERT_NE(attention, nullptr);
  EXPECT_EQ(attention->inputs.size(), 4u);
  EXPECT_DOUBLE_EQ(attention->attrs.GetFloat("scale"), 0.5);
  // k's transpose now makes [B, H, S, D].
  EXPECT_EQ(out.graph.values[attention->inputs[1]].type.shape, (Shape{B, H, S, D}));
  std::map<std::string, Tensor> inputs = RandomInputs(graph, 2.0);
  Tensor m = inputs["mask"];
  for (int64_t i = 0; i < m.element_count(); ++i) {
    m.mutable_values<float>()[i] = i % 4 == 3 ? -3.4e38f : 0.0f;  // finfo.min, as BERT's
  }
  ExpectSameOutputs(graph, inputs);
}

// GPT-2's causal mask: where(constant bool [1, 1, S, S], scores, finfo.min).
Graph CausalGraph(bool mask_first_row) {
  const int64_t H = 2, S = 6, D = 8;
  GraphBuilder b;
  const ValueId q = b.Input("q", DType::kF32, {1, H, S, D});
  const ValueId kt = b.Input("kt", DType::kF32, {1, H, D, S});
  const ValueId v = b.Input("v", DType::kF32, {1, H, S, D});
  Tensor cond = *Tensor::Allocate(DType::kBool, {1, 1, S, S});
  for (int64_t i = 0; i < S; ++i) {
    for (int64_t j = 0; j < S; ++j) {
      cond.mutable_values<uint8_t>()[i * S + j] = j <= i && !(mask_first_row && i == 0);
    }
  }
  const ValueId scores = Matmul(b, q, kt, {1, H, S, S}, "scores");
  const ValueId scaled = b.Binary("div", scores, b.Const("root_d", Scalar(2.828427f)), "scaled");
  const ValueId masked = b.Value("masked", DType::kF32, {1, H, S, S});
  b.Node("where", {b.Const("causal", cond), scaled, b.Const("min", Scalar(-3.4028235e38f))},
         {masked}, {}, "mask");
  const ValueId probs = b.Unary("softmax", masked, "probs");
  b.Output(Matmul(b, probs, v, {1, H, S, D}, "context"));
  return b.Build();
}

TEST_F(AttentionRule, Gpt2StyleCausalWhereBecomesABoolMask) {
  const Graph graph = CausalGraph(false);
  const OptimizedGraph out = Optimize(graph);
  EXPECT_EQ(Ops(out.graph), (std::vector<std::string>{"transpose", "attention"}));
  const Node* attention = FindOp(out.graph, "attention");
  ASSERT_NE(attention, nullptr);
  ASSERT_EQ(attention->inputs.size(), 4u);
  EXPECT_EQ(out.graph.values[attention->inputs[3]].type.dtype, DType::kBool);
  ExpectSameOutputs(graph, RandomInputs(graph, 2.0));
}

TEST_F(AttentionRule, AWhereMaskHidingAWholeRowIsFusedAtLevelTwoOnly) {
  const Graph graph = CausalGraph(true);
  const OptimizedGraph level1 = Optimize(graph, "cpu", 1);
  EXPECT_EQ(FindOp(level1.graph, "attention"), nullptr);
  bool explained = false;
  for (const RewriteRecord& r : level1.report.records) {
    explained = explained || (r.rule == "attention" && !r.applied &&
                              r.reason.find("hides a whole row") != std::string::npos);
  }
  EXPECT_TRUE(explained) << level1.report.Explain();
  EXPECT_NE(FindOp(Optimize(graph, "cpu", 2).graph, "attention"), nullptr);
}

// nn.MultiheadAttention: [heads, S, D] products with q scaled before the product.
TEST_F(AttentionRule, RankThreeHeadsWithAScaledQuery) {
  const int64_t N = 3, S = 7, D = 4;
  GraphBuilder b;
  const ValueId q_in = b.Input("q", DType::kF32, {N, S, D});
  const ValueId k_in = b.Input("k", DType::kF32, {S, N, D});
  const ValueId v = b.Input("v", DType::kF32, {N, S, D});
  const ValueId q = b.Binary("div", q_in, b.Const("root_d", Scalar(2.0f)), "q_scaled");
  const ValueId kt = Transpose(b, k_in, {N, D, S}, {1, 2, 0}, "kt");
  const ValueId probs = b.Unary("softmax", Matmul(b, q, kt, {N, S, S}, "scores"), "probs");
  b.Output(Matmul(b, probs, v, {N, S, D}, "context"));
  const Graph graph = b.Build();
  const OptimizedGraph out = Optimize(graph);
  const Node* attention = FindOp(out.graph, "attention");
  ASSERT_NE(attention, nullptr) << out.report.Explain();
  EXPECT_DOUBLE_EQ(attention->attrs.GetFloat("scale"), 0.5);
  EXPECT_EQ(out.graph.nodes.back().op, "reshape");
  ExpectSameOutputs(graph, RandomInputs(graph, 2.0));
}

// transformers' repeat_kv before attention (grouped-query: 2 key/value heads, 6 query
// heads): reshape [B, 2, T, D] -> [B, 2, 1, T, D], expand [B, 2, 3, T, D], reshape
// [B, 6, T, D]. The attention takes the 2 heads itself (q head h reads kv head h / 3),
// so the copies go; the outputs stay those of the written-out graph.
TEST_F(AttentionRule, RepeatedKeyValueHeadsBecomeGroupedAttention) {
  const int64_t B = 1, KV = 2, G = 3, S = 4, T = 5, D = 8;
  GraphBuilder b;
  const ValueId q = b.Input("q", DType::kF32, {B, KV * G, S, D});
  const auto repeat = [&](ValueId x, const std::string& name) {
    const ValueId u = b.Value(name + "/unsqueeze", DType::kF32, {B, KV, 1, T, D});
    Attrs us;
    us.Set("shape", std::vector<int64_t>{B, KV, 1, T, D});
    b.Node("reshape", {x}, {u}, us, name + "/unsqueeze");
    const ValueId e = b.Value(name + "/expand", DType::kF32, {B, KV, G, T, D});
    Attrs es;
    es.Set("shape", std::vector<int64_t>{B, KV, G, T, D});
    b.Node("expand", {u}, {e}, es, name + "/expand");
    const ValueId r = b.Value(name + "/merge", DType::kF32, {B, KV * G, T, D});
    Attrs rs;
    rs.Set("shape", std::vector<int64_t>{B, KV * G, T, D});
    b.Node("reshape", {e}, {r}, rs, name + "/merge");
    return r;
  };
  const ValueId k = repeat(b.Input("k", DType::kF32, {B, KV, T, D}), "k");
  const ValueId v = repeat(b.Input("v", DType::kF32, {B, KV, T, D}), "v");
  const ValueId kt = Transpose(b, k, {B, KV * G, D, T}, {0, 1, 3, 2}, "kt");
  const ValueId scores = Matmul(b, q, kt, {B, KV * G, S, T}, "scores");
  const ValueId scaled = b.Binary("mul", scores, b.Const("scale", Scalar(0.25f)), "scaled");
  const ValueId probs = b.Unary("softmax", scaled, "probs");
  b.Output(Matmul(b, probs, v, {B, KV * G, S, D}, "context"));
  const Graph graph = b.Build();
  const OptimizedGraph out = Optimize(graph);
  const Node* attention = FindOp(out.graph, "attention");
  ASSERT_NE(attention, nullptr) << out.report.Explain();
  EXPECT_EQ(FindOp(out.graph, "expand"), nullptr) << out.report.Explain();
  EXPECT_EQ(out.graph.values[attention->inputs[1]].type.shape, (Shape{B, KV, T, D}));
  EXPECT_EQ(out.graph.values[attention->inputs[2]].type.shape, (Shape{B, KV, T, D}));
  ExpectSameOutputs(graph, RandomInputs(graph, 2.0));
}

TEST_F(AttentionRule, ScoresReadElsewhereAreNotFused) {
  const int64_t S = 4, D = 4;
  GraphBuilder b;
  const ValueId q = b.Input("q", DType::kF32, {1, 1, S, D});
  const ValueId kt = b.Input("kt", DType::kF32, {1, 1, D, S});
  const ValueId v = b.Input("v", DType::kF32, {1, 1, S, D});
  const ValueId scores = Matmul(b, q, kt, {1, 1, S, S}, "scores");
  const ValueId probs = b.Unary("softmax", scores, "probs");
  b.Output(Matmul(b, probs, v, {1, 1, S, D}, "context"));
  b.Output(scores);
  EXPECT_EQ(FindOp(Optimize(b.Build()).graph, "attention"), nullptr);
}

}  // namespace
}  // namespace sy::test
