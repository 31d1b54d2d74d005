// silu and gelu written out as arithmetic become the catalogue's silu and gelu.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

#include "optimize_fixture.h"
#include "switchyard/half.h"

namespace sy::test {
namespace {

using ActivationRules = OptimizeTest;

enum class Order { kXThenHalf, kHalfXThenT, kTHalfThenX };

// x * 0.5 * (1 + erf(x / sqrt 2)) in one of the association orders exporters write.
// `dtype` f16: the graph and its constants in f16 (as onnxconverter-common writes them).
Graph ErfGelu(Order order, float root = static_cast<float>(std::numbers::sqrt2),
              bool expose_erf = false, DType dtype = DType::kF32) {
  const auto constant = [dtype](float v) {
    return dtype == DType::kF16 ? MakeTensor<uint16_t>(DType::kF16, {}, {FloatToHalf(v)})
                                : Scalar(v);
  };
  GraphBuilder b;
  const ValueId x = b.Input("x", dtype, {4, 16});
  const ValueId scaled = b.Binary("div", x, b.Const("root", constant(root)), "scaled");
  const ValueId erf = b.Unary("erf", scaled, "erf");
  const ValueId t = b.Binary("add", erf, b.Const("one", constant(1)), "t");
  const ValueId half = b.Const("half", constant(0.5f));
  ValueId y = -1;
  switch (order) {
    case Order::kXThenHalf:
      y = b.Binary("mul", b.Binary("mul", x, t, "xt"), half, "y");
      break;
    case Order::kHalfXThenT:
      y = b.Binary("mul", b.Binary("mul", x, half, "xh"), t, "y");
      break;
    case Order::kTHalfThenX:
      y = b.Binary("mul", b.Binary("mul", t, half, "th"), x, "y");
      break;
  }
  b.Output(y);
  if (expose_erf) b.Output(erf);
  return b.Build();
}

TEST_F(ActivationRules, ErfGeluInEveryOrderBecomesGelu) {
  for (Order order : {Order::kXThenHalf, Order::kHalfXThenT, Order::kTHalfThenX}) {
    const Graph graph = ErfGelu(order);
    const OptimizedGraph out = Optimize(graph);
    ASSERT_EQ(Ops(out.graph), std::vector<std::string>{"gelu"}) << static_cast<int>(order);
    EXPECT_EQ(out.graph.nodes[0].attrs.GetString("approximate"), "none");
    EXPECT_EQ(out.graph.values[out.graph.outputs[0]].name, "y");  // the output keeps its name
    ExpectSameOutputs(graph, RandomInputs(graph, 4.0));
  }
}

// In an f16 graph sqrt(2) is the nearest f16 (1.4140625, 1.6e-4 off): the constant as the
// graph's dtype holds it, so gelu at level 1; 1.5 is still not.
TEST_F(ActivationRules, HalfGraphsWithTheirDtypesConstantsBecomeGelu) {
  const Graph graph =
      ErfGelu(Order::kXThenHalf, static_cast<float>(std::numbers::sqrt2), false, DType::kF16);
  EXPECT_EQ(Ops(Optimize(graph, "cpu", 1).graph), std::vector<std::string>{"gelu"});
  EXPECT_EQ(
      Ops(Optimize(ErfGelu(Order::kXThenHalf, 1.5f, false, DType::kF16), "cpu", 1).graph).size(),
      5u);
}

TEST_F(ActivationRules, OtherConstantsOrSharedIntermediatesAreNotGelu) {
  EXPECT_EQ(Ops(Optimize(ErfGelu(Order::kXThenHalf, 1.5f)).graph).size(), 5u);
  // A constant off by 1e-4 relative is gelu at level 2 only.
  const Graph near = ErfGelu(Order::kXThenHalf, static_cast<float>(std::numbers::sqrt2 * 1.0001));
  EXPECT_EQ(Ops(Optimize(near, "cpu", 1).graph).size(), 5u);
  EXPECT_EQ(Ops(Optimize(near, "cpu", 2).graph), std::vector<std::string>{"gelu"});
  // erf's output is also a graph output: nothing may be removed.
  EXPECT_EQ(Ops(Optimize(ErfGelu(Order::kXThenHalf, 1.41421356f, true)).graph).size(), 5u);
}

TEST_F(ActivationRules, TanhGeluBecomesGeluTanh) {
  // 0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3))), as GPT-2 exports it.
  GraphBuilder b;
  const ValueId x = b.Input("x", DType::kF32, {3, 8});
  const ValueId half_x = b.Binary("mul", x, b.Const("half", Scalar(0.5f)), "half_x");
  const ValueId cube = b.Binary("pow", x, b.Const("three", Scalar(3)), "cube");
  const ValueId scaled_cube = b.Binary("mul", cube, b.Const("c", Scalar(0.044715f)), "sc");
  const ValueId inner = b.Binary("add", x, scaled_cube, "inner");
  const ValueId arg =
      b.Binary("mul", inner,
               b.Const("k", Scalar(static_cast<float>(std::sqrt(2 / std::numbers::pi)))), "arg");
  const ValueId t = b.Binary("add", b.Unary("tanh", arg, "tanh"), b.Const("one", Scalar(1)), "t");
  b.Output(b.Binary("mul", half_x, t, "y"));
  const Graph graph = b.Build();
  const OptimizedGraph out = Optimize(graph);
  ASSERT_EQ(Ops(out.graph), std::vector<std::string>{"gelu"});
  EXPECT_EQ(out.graph.nodes[0].attrs.GetString("approximate"), "tanh");
  ExpectSameOutputs(graph, RandomInputs(graph, 5.0));
}

TEST_F(ActivationRules, ADeviceWithoutGeluKeepsTheArithmetic) {
  // partial-accel runs add, mul, relu, sigmoid, matmul and softmax: not erf, so the graph
  // falls back to the CPU for erf: the matched nodes run on two devices.
  const Graph graph = ErfGelu(Order::kXThenHalf);
  PlanOptions options;
  options.devices = {&DeviceNamed("partial-accel")};
  options.merge_islands = false;  // else the island pass moves the small nodes to the CPU
  Expected<OptimizedGraph> out = OptimizeGraph(graph, host_, options, 1);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(out->graph.nodes.size(), 5u);
  ASSERT_EQ(out->report.records.size(), 1u);
  EXPECT_NE(out->report.records[0].reason.find("different devices"), std::string::npos)
      << out->report.records[0].reason;
}

// x * sigmoid(x), in either operand order, becomes silu; a sigmoid that something else
// reads too, or a product with another value, stays.
TEST_F(ActivationRules, XTimesSigmoidOfXBecomesSilu) {
  for (const bool sigmoid_first : {false, true}) {
    GraphBuilder b;
    const ValueId x = b.Input("x", DType::kF32, {4, 16});
    const ValueId s = b.Unary("sigmoid", x, "s");
    b.Output(sigmoid_first ? b.Binary("mul", s, x, "y") : b.Binary("mul", x, s, "y"));
    const Graph graph = b.Build();
    const OptimizedGraph out = Optimize(graph);
    ASSERT_EQ(Ops(out.graph), std::vector<std::string>{"silu"});
    EXPECT_EQ(out.graph.values[out.graph.outputs[0]].name, "y");
    ExpectSameOutputs(graph, RandomInputs(graph, 6.0));
  }
  GraphBuilder b;
  const ValueId x = b.Input("x", DType::kF32, {4, 16});
  const ValueId z = b.Input("z", DType::kF32, {4, 16});
  const ValueId s = b.Unary("sigmoid", x, "s");
  b.Output(b.Binary("mul", x, s, "y"));
  b.Output(s);
  b.Output(b.Binary("mul", z, b.Unary("sigmoid", x, "s2"), "w"));
  EXPECT_EQ(Ops(Optimize(b.Build()).graph),
            (std::vector<std::string>{"sigmoid", "mul", "sigmoid", "mul"}));
}

}  // namespace
}  // namespace sy::test
