// The optimization pass's working graph: index, edits and compaction.
#include "opt/graph_editor.h"

#include <gtest/gtest.h>

#include "graph_builder.h"

namespace sy::opt {
namespace {

using test::GraphBuilder;

TEST(GraphEditor, IndexesProducersConsumersAndConstants) {
  GraphBuilder b;
  const ValueId x = b.Input("x", DType::kF32, {4});
  const ValueId c = b.Const("c", test::MakeTensor<float>(DType::kF32, {}, {2.0f}));
  const ValueId y = b.Binary("mul", x, c, "y");
  const ValueId z = b.Unary("relu", y, "z");
  const ValueId w = b.Binary("add", z, y, "w");
  b.Output(w);
  GraphEditor e(b.Build(), {nullptr, nullptr, nullptr});
  EXPECT_EQ(e.Producer(y), std::optional<size_t>(0));
  EXPECT_EQ(e.Producer(x), std::nullopt);
  EXPECT_EQ(e.Consumers(y).size(), 2u);
  EXPECT_FALSE(e.SingleUse(y));
  EXPECT_TRUE(e.SingleUse(z));
  EXPECT_FALSE(e.SingleUse(w));  // a graph output
  EXPECT_EQ(e.OnlyConsumerIf(z, "add"), std::optional<size_t>(2));
  EXPECT_EQ(e.OnlyConsumerIf(z, "mul"), std::nullopt);
  EXPECT_EQ(e.ScalarConstant(c), std::optional<double>(2.0));
  EXPECT_EQ(e.ScalarConstant(x), std::nullopt);
}

TEST(GraphEditor, ReplaceKeepsOrderAndDropsWhatNothingUses) {
  GraphBuilder b;
  const ValueId x = b.Input("x", DType::kF32, {4});
  const ValueId c = b.Const("c", test::MakeTensor<float>(DType::kF32, {}, {2.0f}));
  const ValueId y = b.Binary("mul", x, c, "y");
  const ValueId z = b.Unary("neg", y, "z");
  const ValueId w = b.Unary("relu", z, "w");
  b.Output(w);
  GraphEditor e(b.Build(), {nullptr, nullptr, nullptr});
  Node sigmoid{"sigmoid", {x}, {z}, {}, "s", ""};
  const size_t matched[] = {0, 1};
  e.Replace(matched, {sigmoid}, nullptr);
  EXPECT_TRUE(e.Taken(0));
  EXPECT_TRUE(e.Commit());
  const Graph& g = e.graph();
  ASSERT_EQ(g.nodes.size(), 2u);
  EXPECT_EQ(g.nodes[0].op, "sigmoid");
  EXPECT_EQ(g.nodes[1].op, "relu");
  EXPECT_TRUE(g.constants.empty());  // c was read only by the mul
  ASSERT_EQ(g.values.size(), 3u);    // x, z, w
  EXPECT_EQ(g.values[g.nodes[1].inputs[0]].name, "z");
  EXPECT_EQ(g.values[g.outputs[0]].name, "w");
  EXPECT_FALSE(e.Commit());  // nothing pending
}

TEST(GraphEditor, FoldToConstantTurnsOutputsIntoConstants) {
  GraphBuilder b;
  const ValueId x = b.Input("x", DType::kF32, {2});
  const ValueId c = b.Const("c", test::MakeTensor<float>(DType::kF32, {2}, {1, 2}));
  const ValueId n = b.Unary("neg", c, "n");
  b.Output(b.Binary("add", x, n, "y"));
  GraphEditor e(b.Build(), {nullptr, nullptr});
  e.FoldToConstant(0, {test::MakeTensor<float>(DType::kF32, {2}, {-1, -2})});
  ASSERT_NE(e.Constant(n), nullptr);  // visible before the commit
  e.Commit();
  ASSERT_EQ(e.graph().nodes.size(), 1u);
  ASSERT_EQ(e.graph().constants.size(), 1u);
  EXPECT_EQ(e.graph().constants[0].data.values<float>()[1], -2.0f);
  EXPECT_EQ(e.graph().values[e.graph().constants[0].value].name, "n");
}

TEST(GraphEditor, NewValuesGetUniqueNames) {
  GraphBuilder b;
  const ValueId x = b.Input("x", DType::kF32, {2});
  b.Output(b.Unary("relu", x, "y"));
  GraphEditor e(b.Build(), {nullptr});
  const ValueId a = e.AddValue("y", {DType::kF32, {2}});
  const ValueId c = e.AddValue("y", {DType::kF32, {2}});
  EXPECT_EQ(e.graph().values[a].name, "y_1");
  EXPECT_EQ(e.graph().values[c].name, "y_2");
}

}  // namespace
}  // namespace sy::opt
