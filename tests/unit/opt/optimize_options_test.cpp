// PlanOptions that OptimizeGraph applies before its rules, at every level:
// quant_matmul_accuracy_level sets every quant_matmul's accuracy_level (the session
// option of docs/ops.md), -1 keeps each node's own, anything else is refused.
#include <cstdint>
#include <vector>

#include "optimize_fixture.h"

namespace sy::test {
namespace {

class OptimizeOptions : public OptimizeTest {};

// One quant_matmul at accuracy_level 1 (a [1, 32], 4-bit codes in one block of 32).
Graph QuantGraph() {
  GraphBuilder b;
  const ValueId a = b.Input("a", DType::kF32, {1, 32});
  const ValueId codes =
      b.Const("b", MakeTensor<uint8_t>(DType::kU8, {2, 1, 16}, std::vector<uint8_t>(32, 0x37)));
  const ValueId scales = b.Const("s", MakeTensor<float>(DType::kF32, {2, 1}, {0.5f, 0.25f}));
  const ValueId y = b.Value("y", DType::kF32, {1, 2});
  Attrs attrs;
  attrs.Set("accuracy_level", int64_t{1});
  b.Node("quant_matmul", {a, codes, scales}, {y}, attrs, "qm");
  b.Output(y);
  return b.Build();
}

int64_t LevelOf(const Graph& graph) {
  for (const Node& node : graph.nodes) {
    if (node.op == "quant_matmul") return node.attrs.GetInt("accuracy_level", -1);
  }
  return -2;
}

TEST_F(OptimizeOptions, QuantAccuracyLevelOverridesEveryQuantMatmulAtEveryLevel) {
  for (int level : {0, 1, 2}) {
    PlanOptions options = On("cpu", level);
    EXPECT_EQ(LevelOf(OptimizeGraph(QuantGraph(), host_, options, level)->graph), 1);
    options.quant_matmul_accuracy_level = 4;
    Expected<OptimizedGraph> out = OptimizeGraph(QuantGraph(), host_, options, level);
    ASSERT_TRUE(out.ok()) << out.status().ToString();
    EXPECT_EQ(LevelOf(out->graph), 4) << "optimize level " << level;
    options.quant_matmul_accuracy_level = 0;
    EXPECT_EQ(LevelOf(OptimizeGraph(QuantGraph(), host_, options, level)->graph), 0);
  }
}

TEST_F(OptimizeOptions, QuantAccuracyLevelOutsideZeroToFourIsRefused) {
  PlanOptions options = On("cpu");
  options.quant_matmul_accuracy_level = 5;
  Expected<OptimizedGraph> out = OptimizeGraph(QuantGraph(), host_, options, 1);
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.status().message().find("accuracy level 5"), std::string::npos)
      << out.status().message();
}

}  // namespace
}  // namespace sy::test
