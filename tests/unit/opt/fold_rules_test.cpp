// Constant folding and batch_norm folded into the conv before it.
#include <gtest/gtest.h>

#include "optimize_fixture.h"

namespace sy::test {
namespace {

using FoldRules = OptimizeTest;

Attrs With(const std::string& name, AttrValue value) {
  Attrs attrs;
  attrs.Set(name, std::move(value));
  return attrs;
}

TEST_F(FoldRules, NodesReadingOnlyConstantsBecomeConstants) {
  GraphBuilder b;
  const ValueId x = b.Input("x", DType::kF32, {2});
  const ValueId c1 = b.Const("c1", MakeTensor<float>(DType::kF32, {2}, {1, 2}));
  const ValueId c2 = b.Const("c2", MakeTensor<float>(DType::kF32, {2}, {10, 20}));
  const ValueId sum = b.Binary("add", c1, c2, "sum");
  const ValueId neg = b.Unary("neg", sum, "neg");
  b.Output(b.Binary("mul", x, neg, "y"));
  const OptimizedGraph out = Optimize(b.Build());
  EXPECT_EQ(Ops(out.graph), std::vector<std::string>{"mul"});
  ASSERT_EQ(out.graph.constants.size(), 1u);
  const Tensor& folded = out.graph.constants[0].data;
  EXPECT_EQ(folded.values<float>()[0], -11.0f);  // -(1 + 10)
  EXPECT_EQ(folded.values<float>()[1], -22.0f);
  EXPECT_EQ(out.report.Applied(), 2u);
}

TEST_F(FoldRules, FoldingThatWouldGrowTheWeightsIsLeftToLevelTwo) {
  GraphBuilder b;
  const ValueId x = b.Input("x", DType::kF32, {1024, 1024});
  const ValueId c = b.Const("c", MakeTensor<float>(DType::kF32, {1, 1}, {3}));
  const ValueId big = b.Value("big", DType::kF32, {1024, 1024});
  b.Node("expand", {c}, {big}, With("shape", std::vector<int64_t>{1024, 1024}), "expand");
  b.Output(b.Binary("add", x, big, "y"));
  const Graph graph = b.Build();
  const OptimizedGraph level1 = Optimize(graph, "cpu", 1);
  EXPECT_EQ(Ops(level1.graph), (std::vector<std::string>{"expand", "add"}));
  ASSERT_EQ(level1.report.records.size(), 1u);
  EXPECT_NE(level1.report.records[0].reason.find("would grow the weights by more than 1"),
            std::string::npos)
      << level1.report.records[0].reason;
  EXPECT_EQ(Ops(Optimize(graph, "cpu", 2).graph), std::vector<std::string>{"add"});
}

// A quantized weight's DequantizeLinear, as the importer writes it: cast (i8 -> f32, 4x
// the bytes: 3 MiB more for 1M weights), sub the zero point, mul the scale. Nothing is
// broadcast beyond an input, so it folds at level 1, whatever the size. Hand-derived:
// (q - zp) * s = (-3 - 1) * 0.5 = -2 and (5 - 1) * 0.5 = 2.
TEST_F(FoldRules, WeightConversionsFoldWhateverTheirSize) {
  GraphBuilder b;
  const int64_t n = 1 << 20;
  std::vector<int8_t> q(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) q[static_cast<size_t>(i)] = i % 2 == 0 ? -3 : 5;
  const ValueId x = b.Input("x", DType::kF32, {n});
  const ValueId w = b.Const("w", MakeTensor<int8_t>(DType::kI8, {n}, q));
  const ValueId wf = b.Value("wf", DType::kF32, {n});
  b.Node("cast", {w}, {wf}, With("to", std::string("f32")), "cast");
  const ValueId zp = b.Const("zp", MakeTensor<float>(DType::kF32, {1}, {1}));
  const ValueId scale = b.Const("s", MakeTensor<float>(DType::kF32, {1}, {0.5f}));
  const ValueId shifted = b.Binary("sub", wf, zp, "shifted");
  b.Output(b.Binary("add", x, b.Binary("mul", shifted, scale, "dq"), "y"));
  const OptimizedGraph out = Optimize(b.Build(), "cpu", 1);
  EXPECT_EQ(Ops(out.graph), std::vector<std::string>{"add"});
  ASSERT_EQ(out.graph.constants.size(), 1u);
  const Tensor& folded = out.graph.constants[0].data;
  EXPECT_EQ(folded.values<float>()[0], -2.0f);
  EXPECT_EQ(folded.values<float>()[1], 2.0f);
}

TEST_F(FoldRules, AFailingConstantNodeStaysForTheRunToReport) {
  GraphBuilder b;
  const ValueId data = b.Const("data", MakeTensor<float>(DType::kF32, {3}, {1, 2, 3}));
  const ValueId index = b.Const("index", MakeTensor<int64_t>(DType::kI64, {1}, {7}));
  const ValueId picked = b.Value("picked", DType::kF32, {1});
  b.Node("gather", {data, index}, {picked}, With("axis", int64_t{0}), "g");
  const ValueId x = b.Input("x", DType::kF32, {1});
  b.Output(b.Binary("add", x, picked, "y"));
  const OptimizedGraph out = Optimize(b.Build());
  EXPECT_EQ(Ops(out.graph), (std::vector<std::string>{"gather", "add"}));
  ASSERT_EQ(out.report.records.size(), 1u);
  EXPECT_FALSE(out.report.records[0].applied);
  EXPECT_NE(out.report.records[0].reason.find("evaluating it failed"), std::string::npos);
}

// Hand-derived: one channel, w = 2, b = 1; scale 3, bias 0.5, mean 1, var 3, epsilon 1:
// s = 3 / sqrt(4) = 1.5, w' = 3, b' = (1 - 1) * 1.5 + 0.5 = 0.5.
TEST_F(FoldRules, BatchNormFoldsIntoTheConvWeights) {
  GraphBuilder b;
  const ValueId x = b.Input("x", DType::kF32, {1, 1, 2, 2});
  const ValueId w = b.Const("w", MakeTensor<float>(DType::kF32, {1, 1, 1, 1}, {2}));
  const ValueId bias = b.Const("b", MakeTensor<float>(DType::kF32, {1}, {1}));
  const ValueId conv = b.Value("conv", DType::kF32, {1, 1, 2, 2});
  b.Node("conv", {x, w, bias}, {conv}, {}, "conv");
  std::vector<ValueId> params;
  for (float v : {3.0f, 0.5f, 1.0f, 3.0f}) {
    params.push_back(
        b.Const("p" + std::to_string(params.size()), MakeTensor<float>(DType::kF32, {1}, {v})));
  }
  const ValueId y = b.Value("y", DType::kF32, {1, 1, 2, 2});
  b.Node("batch_norm", {conv, params[0], params[1], params[2], params[3]}, {y},
         With("epsilon", 1.0), "bn");
  b.Output(y);
  const Graph graph = b.Build();
  const OptimizedGraph out = Optimize(graph);
  ASSERT_EQ(Ops(out.graph), std::vector<std::string>{"conv"});
  const Node& folded = out.graph.nodes[0];
  auto constant = [&](ValueId v) -> const Tensor& {
    for (const Constant& c : out.graph.constants) {
      if (c.value == v) return c.data;
    }
    static const Tensor none;
    ADD_FAILURE() << "no constant";
    return none;
  };
  EXPECT_EQ(constant(folded.inputs[1]).values<float>()[0], 3.0f);
  EXPECT_EQ(constant(folded.inputs[2]).values<float>()[0], 0.5f);
  ExpectSameOutputs(graph, RandomInputs(graph));
}

TEST_F(FoldRules, BatchNormOnAConvWithoutBiasAndSeveralChannels) {
  GraphBuilder b;
  const ValueId x = b.Input("x", DType::kF32, {2, 3, 5, 5});
  const ValueId w = b.Const("w", RandomConstant({4, 3, 3, 3}));
  const ValueId conv = b.Value("conv", DType::kF32, {2, 4, 3, 3});
  b.Node("conv", {x, w}, {conv}, {}, "conv");
  std::vector<ValueId> params;
  for (uint32_t seed : {1u, 2u, 3u}) {
    params.push_back(b.Const("p" + std::to_string(seed), RandomConstant({4}, 1.0, seed)));
  }
  params.push_back(b.Const("var", MakeTensor<float>(DType::kF32, {4}, {0.5f, 1, 2, 4})));
  const ValueId y = b.Value("y", DType::kF32, {2, 4, 3, 3});
  b.Node("batch_norm", {conv, params[0], params[1], params[2], params[3]}, {y}, {}, "bn");
  b.Output(y);
  const Graph graph = b.Build();
  EXPECT_EQ(Ops(Optimize(graph).graph), std::vector<std::string>{"conv"});
  ExpectSameOutputs(graph, RandomInputs(graph));
}

}  // namespace
}  // namespace sy::test
