// The memory plan from liveness: values whose lifetimes do not overlap share arena
// bytes, offsets are aligned, graph outputs live to the end of the run, and a device's
// limit is checked with the numbers in the message.
#include "sched/memory_planner.h"

#include <gtest/gtest.h>

#include "graph_builder.h"
#include "sched/partitioner.h"
#include "test_util.h"

namespace sy::sched {
namespace {

using test::GraphBuilder;

// A plan of `graph` with every node on one fake device (no plugin is needed to plan
// memory).
Plan OnOneDevice(const Graph& graph, const Device& device) {
  Plan plan;
  plan.devices = {&device};
  plan.nodes.assign(graph.nodes.size(), NodePlacement{0, PlacementReason::kOrder, ""});
  BuildPartitions(graph, plan);
  return plan;
}

// x -> relu -> relu -> ... (`length` nodes) on f32 [4, 256] (4 KiB per value).
Graph ReluChain(int length) {
  GraphBuilder g;
  ValueId v = g.Input("x", DType::kF32, {4, 256});
  for (int i = 0; i < length; ++i) v = g.Unary("relu", v, "r" + std::to_string(i));
  g.Output(v);
  return g.Build();
}

TEST(MemoryPlannerTest, AChainNeedsTwoValuesAtATime) {
  const Device device;
  const Graph graph = ReluChain(10);
  Plan plan = OnOneDevice(graph, device);
  SY_ASSERT_OK(PlanMemory(graph, {}, plan));
  EXPECT_EQ(plan.slots.size(), 11u);
  EXPECT_EQ(plan.memory[0].unshared_bytes, 11u * 4096);
  EXPECT_EQ(plan.memory[0].arena_bytes, 2u * 4096);  // a node's input and output
  EXPECT_EQ(plan.memory[0].weight_bytes, 0u);
}

TEST(MemoryPlannerTest, LiveValuesNeverOverlapAndOffsetsAreAligned) {
  // A diamond with a long-lived value: x -> a -> b -> c; y = c + a (a lives to the end).
  GraphBuilder g;
  const ValueId x = g.Input("x", DType::kF32, {3, 7});  // 84 bytes: not a multiple of 256
  const ValueId a = g.Unary("relu", x, "a");
  const ValueId b = g.Unary("neg", a, "b");
  const ValueId c = g.Unary("abs", b, "c");
  g.Output(g.Binary("add", c, a, "y"));
  const Graph graph = g.Build();
  const Device device;
  Plan plan = OnOneDevice(graph, device);
  SY_ASSERT_OK(PlanMemory(graph, {}, plan));
  for (const ArenaSlot& s : plan.slots) {
    EXPECT_EQ(s.offset % kArenaAlignment, 0u);
    EXPECT_LE(s.offset + s.bytes, plan.memory[0].arena_bytes);
    for (const ArenaSlot& t : plan.slots) {
      if (&s == &t || s.last < t.first || t.last < s.first) continue;
      const bool apart = s.offset + s.bytes <= t.offset || t.offset + t.bytes <= s.offset;
      EXPECT_TRUE(apart) << graph.DescribeValue(s.value) << " and " << graph.DescribeValue(t.value);
    }
  }
  // a, and at most two of x/b/c/y around it: three 256-byte slots.
  EXPECT_EQ(plan.memory[0].arena_bytes, 3u * 256);
  // The output lives to the end of the run.
  for (const ArenaSlot& s : plan.slots) {
    if (graph.values[s.value].name == "y") {
      EXPECT_EQ(s.last, 2 * 4 + 1);
    }
  }
}

TEST(MemoryPlannerTest, WeightsCountAgainstTheLimit) {
  GraphBuilder g;
  const ValueId x = g.Input("x", DType::kF32, {256});
  const ValueId w = g.Const("w", *Tensor::Allocate(DType::kF32, {256}));
  g.Output(g.Binary("add", x, w, "y"));
  const Graph graph = g.Build();
  Device device;
  device.memory_bytes = 3 * 1024;  // arena 2 KiB + weights 1 KiB fit exactly
  Plan plan = OnOneDevice(graph, device);
  SY_ASSERT_OK(PlanMemory(graph, {}, plan));
  EXPECT_EQ(plan.memory[0].weight_bytes, 1024u);
  EXPECT_EQ(plan.memory[0].arena_bytes, 2048u);
  EXPECT_FALSE(plan.memory[0].user_limit);

  PlanOptions options;
  options.memory_limits[&device] = 3 * 1024 - 1;
  const Status status = PlanMemory(graph, options, plan);
  EXPECT_EQ(status.code(), StatusCode::kResourceExhausted);
  EXPECT_NE(status.message().find("needs 3.0 KiB (arena peak 2.0 KiB + weights 1.0 KiB)"),
            std::string::npos)
      << status.message();
}

TEST(MemoryPlannerTest, ZeroSizedValuesAreFine) {
  GraphBuilder g;
  const ValueId x = g.Input("x", DType::kF32, {0, 4});
  g.Output(g.Unary("relu", x, "y"));
  const Graph graph = g.Build();
  const Device device;
  Plan plan = OnOneDevice(graph, device);
  SY_ASSERT_OK(PlanMemory(graph, {}, plan));
  EXPECT_EQ(plan.memory[0].arena_bytes, 0u);
}

}  // namespace
}  // namespace sy::sched
