// transpose_as_reshape: a transpose that moves only axes of size 1 becomes a reshape (the
// same row-major bytes); one that reorders two axes of size above 1 stays.
#include <gtest/gtest.h>

#include "optimize_fixture.h"

namespace sy::test {
namespace {

using LayoutRules = OptimizeTest;

ValueId Transpose(GraphBuilder& b, ValueId x, std::vector<int64_t> perm, Shape out,
                  const std::string& name) {
  Attrs attrs;
  attrs.Set("perm", std::move(perm));
  const ValueId y = b.Value(name, DType::kF32, std::move(out));
  b.Node("transpose", {x}, {y}, std::move(attrs), name);
  return y;
}

TEST_F(LayoutRules, ATransposeOfABatchOfOneIsAReshape) {
  // nn.MultiheadAttention's [1, S, D] -> [S, 1, D], and the way back.
  GraphBuilder b;
  const ValueId x = b.Input("x", DType::kF32, {1, 5, 8});
  const ValueId t = Transpose(b, x, {1, 0, 2}, {5, 1, 8}, "to_seq_first");
  const ValueId r = b.Unary("relu", t, "relu");
  b.Output(Transpose(b, r, {1, 0, 2}, {1, 5, 8}, "to_batch_first"));
  const Graph graph = b.Build();
  const OptimizedGraph out = Optimize(graph);
  ASSERT_EQ(Ops(out.graph), (std::vector<std::string>{"reshape", "relu", "reshape"}))
      << out.report.Explain();
  EXPECT_EQ(out.graph.nodes[0].attrs.GetInts("shape"), (std::vector<int64_t>{5, 1, 8}));
  EXPECT_EQ(out.graph.nodes[2].attrs.GetInts("shape"), (std::vector<int64_t>{1, 5, 8}));
  EXPECT_NE(out.report.Explain().find("transpose_as_reshape"), std::string::npos);
  ExpectSameOutputs(graph, RandomInputs(graph));
}

TEST_F(LayoutRules, UnitAxesMayMoveAnywhereWhileTheOthersKeepTheirOrder) {
  GraphBuilder b;
  const ValueId x = b.Input("x", DType::kF32, {3, 1, 4, 1});
  b.Output(Transpose(b, x, {3, 0, 2, 1}, {1, 3, 4, 1}, "t"));
  const Graph graph = b.Build();
  const OptimizedGraph out = Optimize(graph);
  EXPECT_EQ(Ops(out.graph), std::vector<std::string>{"reshape"});
  ExpectSameOutputs(graph, RandomInputs(graph));
}

TEST_F(LayoutRules, ATransposeThatReordersDataStays) {
  GraphBuilder b;
  const ValueId x = b.Input("x", DType::kF32, {2, 1, 3});
  b.Output(Transpose(b, x, {2, 1, 0}, {3, 1, 2}, "t"));
  const Graph graph = b.Build();
  EXPECT_EQ(Ops(Optimize(graph).graph), std::vector<std::string>{"transpose"});
}

TEST_F(LayoutRules, WithoutPermATransposeReversesTheAxes) {
  GraphBuilder b;
  const ValueId x = b.Input("x", DType::kF32, {1, 6});
  const ValueId y = b.Value("t", DType::kF32, {6, 1});
  b.Node("transpose", {x}, {y}, {}, "t");
  b.Output(y);
  const Graph graph = b.Build();
  EXPECT_EQ(Ops(Optimize(graph).graph), std::vector<std::string>{"reshape"});
  ExpectSameOutputs(graph, RandomInputs(graph));
}

}  // namespace
}  // namespace sy::test
