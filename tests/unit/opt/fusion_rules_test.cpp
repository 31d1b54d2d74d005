// fused_matmul, fused_conv and add_layer_norm.
#include <gtest/gtest.h>

#include "optimize_fixture.h"

namespace sy::test {
namespace {

using FusionRules = OptimizeTest;

ValueId Product(GraphBuilder& b, const std::string& op, std::vector<ValueId> in, Shape out,
                const std::string& name, Attrs attrs = {}) {
  const ValueId y = b.Value(name, DType::kF32, std::move(out));
  b.Node(op, std::move(in), {y}, std::move(attrs), name);
  return y;
}

TEST_F(FusionRules, MatmulBiasAndGeluBecomeOneFusedMatmul) {
  GraphBuilder b;
  const ValueId x = b.Input("x", DType::kF32, {2, 5, 8});
  const ValueId w = b.Const("w", RandomConstant({8, 12}));
  const ValueId y = Product(b, "matmul", {x, w}, {2, 5, 12}, "fc");
  const ValueId biased =
      Product(b, "add", {b.Const("bias", RandomConstant({12})), y}, {2, 5, 12}, "fc.bias");
  b.Output(b.Unary("gelu", biased, "act"));
  const Graph graph = b.Build();
  const OptimizedGraph out = Optimize(graph);
  ASSERT_EQ(Ops(out.graph), std::vector<std::string>{"fused_matmul"}) << out.report.Explain();
  EXPECT_EQ(out.graph.nodes[0].attrs.GetString("activation"), "gelu");
  EXPECT_EQ(out.graph.nodes[0].inputs.size(), 3u);
  ExpectSameOutputs(graph, RandomInputs(graph, 2.0));
}

TEST_F(FusionRules, GemmThroughAReshapeIntoAnActivation) {
  // GPT-2's exported Conv1D: gemm [S, K] x [K, N] + c, reshape to [1, S, N], activation.
  GraphBuilder b;
  const ValueId x = b.Input("x", DType::kF32, {6, 8});
  const ValueId y = Product(
      b, "gemm", {x, b.Const("w", RandomConstant({8, 4})), b.Const("c", RandomConstant({4}))},
      {6, 4}, "gemm");
  Attrs shape;
  shape.Set("shape", std::vector<int64_t>{1, 6, 4});
  const ValueId r = Product(b, "reshape", {y}, {1, 6, 4}, "reshape", shape);
  b.Output(b.Unary("relu", r, "relu"));
  const Graph graph = b.Build();
  const OptimizedGraph out = Optimize(graph);
  EXPECT_EQ(Ops(out.graph), (std::vector<std::string>{"fused_matmul", "reshape"}));
  EXPECT_EQ(out.graph.nodes[0].attrs.GetString("activation"), "relu");
  ExpectSameOutputs(graph, RandomInputs(graph));
}

TEST_F(FusionRules, ATransposedRightOperandIsAbsorbed) {
  GraphBuilder b;
  const ValueId a = b.Input("a", DType::kF32, {2, 3, 5});
  const ValueId c = b.Input("c", DType::kF32, {2, 4, 5});
  Attrs perm;
  perm.Set("perm", std::vector<int64_t>{0, 2, 1});
  const ValueId ct = Product(b, "transpose", {c}, {2, 5, 4}, "ct", perm);
  b.Output(Product(b, "matmul", {a, ct}, {2, 3, 4}, "mm"));
  const Graph graph = b.Build();
  const OptimizedGraph out = Optimize(graph);
  ASSERT_EQ(Ops(out.graph), std::vector<std::string>{"fused_matmul"});
  EXPECT_EQ(out.graph.nodes[0].attrs.GetInt("trans_b"), 1);
  ExpectSameOutputs(graph, RandomInputs(graph));
}

TEST_F(FusionRules, ResidualAddAndLayerNormWithTheSumReadLater) {
  // Pre-norm residual stream: h2 = h + f(h) feeds the norm and the next residual.
  GraphBuilder b;
  const ValueId h = b.Input("h", DType::kF32, {4, 16});
  const ValueId f = b.Unary("tanh", h, "f");
  const ValueId sum = b.Binary("add", h, f, "sum");
  const ValueId norm =
      Product(b, "layer_norm",
              {sum, b.Const("g", RandomConstant({16})), b.Const("beta", RandomConstant({16}))},
              {4, 16}, "ln");
  b.Output(b.Binary("add", sum, norm, "next"));
  const Graph graph = b.Build();
  const OptimizedGraph out = Optimize(graph);
  EXPECT_EQ(Ops(out.graph), (std::vector<std::string>{"tanh", "add_layer_norm", "add"}));
  EXPECT_EQ(out.graph.nodes[1].outputs.size(), 2u);
  ExpectSameOutputs(graph, RandomInputs(graph, 3.0));
}

TEST_F(FusionRules, ConvResidualAndReluBecomeFusedConv) {
  // ResNet's block end: relu(conv(x) + shortcut).
  GraphBuilder b;
  const ValueId x = b.Input("x", DType::kF32, {1, 4, 6, 6});
  Attrs pads;
  pads.Set("pads", std::vector<int64_t>{1, 1, 1, 1});
  const ValueId y = Product(b, "conv", {x, b.Const("w", RandomConstant({4, 4, 3, 3}))},
                            {1, 4, 6, 6}, "conv", pads);
  b.Output(b.Unary("relu", b.Binary("add", y, x, "residual"), "relu"));
  const Graph graph = b.Build();
  const OptimizedGraph out = Optimize(graph);
  ASSERT_EQ(Ops(out.graph), std::vector<std::string>{"fused_conv"}) << out.report.Explain();
  EXPECT_EQ(out.graph.nodes[0].inputs.size(), 4u);  // x, w, a zero bias, the residual
  ExpectSameOutputs(graph, RandomInputs(graph));
}

TEST_F(FusionRules, DepthwiseConvAndClipBecomeFusedConv) {
  // MobileNet: clip(conv, 0, 6).
  GraphBuilder b;
  const ValueId x = b.Input("x", DType::kF32, {1, 6, 8, 8});
  Attrs attrs;
  attrs.Set("group", int64_t{6});
  attrs.Set("strides", std::vector<int64_t>{2, 2});
  const ValueId y = Product(
      b, "conv",
      {x, b.Const("w", RandomConstant({6, 1, 3, 3}, 4.0)), b.Const("b", RandomConstant({6}))},
      {1, 6, 3, 3}, "dw", attrs);
  Attrs bounds;
  bounds.Set("min", 0.0);
  bounds.Set("max", 6.0);
  b.Output(Product(b, "clip", {y}, {1, 6, 3, 3}, "relu6", bounds));
  const Graph graph = b.Build();
  const OptimizedGraph out = Optimize(graph);
  ASSERT_EQ(Ops(out.graph), std::vector<std::string>{"fused_conv"});
  EXPECT_EQ(out.graph.nodes[0].attrs.GetString("activation"), "clip");
  EXPECT_EQ(out.graph.nodes[0].attrs.GetFloat("clip_max"), 6.0);
  ExpectSameOutputs(graph, RandomInputs(graph, 3.0));
}

TEST_F(FusionRules, ADeviceThatDoesNotRunTheFusedOpKeepsThePlainNodes) {
  GraphBuilder b;
  const ValueId x = b.Input("x", DType::kF32, {3, 8});
  const ValueId y = Product(b, "matmul", {x, b.Const("w", RandomConstant({8, 4}))}, {3, 4}, "fc");
  b.Output(
      b.Unary("relu", b.Binary("add", y, b.Const("bias", RandomConstant({4})), "bias"), "relu"));
  const Graph graph = b.Build();
  const OptimizedGraph out = Optimize(graph, "partial-accel");
  EXPECT_EQ(Ops(out.graph), (std::vector<std::string>{"matmul", "add", "relu"}));
  ASSERT_EQ(out.report.records.size(), 1u);
  EXPECT_EQ(out.report.records[0].device, "partial:0");
  EXPECT_NE(out.report.records[0].reason.find("does not run fused_matmul"), std::string::npos)
      << out.report.records[0].reason;
  ExpectSameOutputs(graph, RandomInputs(graph), "partial-accel");
}

TEST_F(FusionRules, LevelZeroChangesNothingAndBadLevelsAreErrors) {
  GraphBuilder b;
  const ValueId x = b.Input("x", DType::kF32, {3, 8});
  const ValueId y = Product(b, "matmul", {x, b.Const("w", RandomConstant({8, 4}))}, {3, 4}, "fc");
  b.Output(b.Unary("relu", y, "relu"));
  const Graph graph = b.Build();
  EXPECT_EQ(Ops(Optimize(graph, "cpu", 0).graph), (std::vector<std::string>{"matmul", "relu"}));
  Expected<OptimizedGraph> bad = OptimizeGraph(graph, host_, On("cpu"), 3);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("optimization level 3 is not one of 0, 1, 2"),
            std::string::npos);
}

}  // namespace
}  // namespace sy::test
