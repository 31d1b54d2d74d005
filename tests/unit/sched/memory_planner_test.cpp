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
  // A user's limit of 0 is a limit (it used to mean none); a device declaring 0 bytes
  // declares no size.
  options.memory_limits[&device] = 0;
  EXPECT_EQ(PlanMemory(graph, options, plan).code(), StatusCode::kResourceExhausted);
  device.memory_bytes = 0;
  SY_EXPECT_OK(PlanMemory(graph, {}, plan));
}

// Byte counts saturate instead of wrapping: nine outputs of 2^61 bytes each (f64 [2^58])
// summed to 2^61 in uint64 ("fits"); now the plan needs "more than 16 EiB".
TEST(MemoryPlannerTest, HugeSumsSaturateRatherThanWrap) {
  GraphBuilder g;
  const ValueId x = g.Input("x", DType::kF64, {int64_t{1} << 58});
  for (int i = 0; i < 9; ++i) g.Output(g.Unary("relu", x, "y" + std::to_string(i)));
  const Graph graph = g.Build();
  Device host;
  host.flags = 0x1u;  // SY_DEVICE_FLAG_HOST_MEMORY
  host.memory_bytes = uint64_t{1} << 40;
  Plan plan = OnOneDevice(graph, host);
  const Status status = PlanMemory(graph, {}, plan);
  EXPECT_EQ(status.code(), StatusCode::kResourceExhausted);
  EXPECT_NE(status.message().find("it needs more than 16 EiB"), std::string::npos)
      << status.message();
}

TEST(MemoryPlannerTest, OutputsCopiedToTheCallerCountOnAHostMemoryDevice) {
  // x [1024] f32 -> relu -> y: arena 8 KiB (x and y), and y's 4 KiB copied to the caller
  // at the end of a run, in host memory.
  GraphBuilder g;
  const ValueId x = g.Input("x", DType::kF32, {1024});
  g.Output(g.Unary("relu", x, "y"));
  const Graph graph = g.Build();
  Device host;
  host.flags = 0x1u;  // SY_DEVICE_FLAG_HOST_MEMORY
  host.memory_bytes = 12 * 1024;
  Plan plan = OnOneDevice(graph, host);
  SY_ASSERT_OK(PlanMemory(graph, {}, plan));
  EXPECT_EQ(plan.memory[0].arena_bytes, 8u * 1024);
  EXPECT_EQ(plan.memory[0].output_bytes, 4u * 1024);
  EXPECT_NE(plan.Explain(graph).find("peak 12.0 KiB = arena 8.0 KiB"), std::string::npos)
      << plan.Explain(graph);
  EXPECT_NE(plan.Explain(graph).find("+ outputs 4.0 KiB copied to the caller"), std::string::npos);
  host.memory_bytes = 12 * 1024 - 1;
  SY_EXPECT_ERROR(PlanMemory(graph, {}, plan),
                  "needs 12.0 KiB (arena peak 8.0 KiB + weights 0 B + outputs 4.0 KiB copied to "
                  "the caller)");
  // A device with memory of its own: the copies are not its memory.
  Device gpu;
  gpu.memory_bytes = 8 * 1024;
  Plan on_gpu = OnOneDevice(graph, gpu);
  SY_ASSERT_OK(PlanMemory(graph, {}, on_gpu));
  EXPECT_EQ(on_gpu.memory[0].output_bytes, 4u * 1024);
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

ValueId Reshape(GraphBuilder& g, ValueId x, Shape shape, const std::string& name) {
  const ValueId y = g.Value(name, DType::kF32, shape);
  Attrs attrs;
  attrs.Set("shape", std::vector<int64_t>(shape.begin(), shape.end()));
  g.Node("reshape", {x}, {y}, std::move(attrs), name);
  return y;
}

// SY_DEVICE_FLAG_RESHAPE_IN_PLACE, as core spells it (Device::reshape_in_place).
constexpr uint32_t kReshapeInPlace = 0x20u;

const ArenaSlot* SlotOf(const Plan& plan, const Graph& graph, const std::string& name) {
  for (const ArenaSlot& s : plan.slots) {
    if (graph.values[s.value].name == name) return &s;
  }
  return nullptr;
}

TEST(MemoryPlannerTest, AReshapeChainSharesItsFirstInputsBytesWhereTheDeviceTakesIt) {
  // x -> relu a -> reshape r1 -> reshape r2 -> neg n -> abs y: r1 and r2 are a's bytes,
  // so a lives until n reads r2 (time 2 * 3 + 1).
  GraphBuilder g;
  const ValueId x = g.Input("x", DType::kF32, {4, 64});
  const ValueId a = g.Unary("relu", x, "a");
  const ValueId r1 = Reshape(g, a, {256}, "r1");
  const ValueId r2 = Reshape(g, r1, {16, 16}, "r2");
  g.Output(g.Unary("abs", g.Unary("neg", r2, "n"), "y"));
  const Graph graph = g.Build();
  Device device;
  device.flags = kReshapeInPlace;
  Plan plan = OnOneDevice(graph, device);
  SY_ASSERT_OK(PlanMemory(graph, {}, plan));
  ASSERT_EQ(plan.aliases.size(), 2u);
  EXPECT_EQ(plan.aliases[0].value, r1);
  EXPECT_EQ(plan.aliases[0].source, a);
  EXPECT_EQ(plan.aliases[1].value, r2);
  EXPECT_EQ(plan.aliases[1].source, a);  // the chain ends at its first input
  EXPECT_EQ(SlotOf(plan, graph, "r1"), nullptr);
  EXPECT_EQ(SlotOf(plan, graph, "r2"), nullptr);
  const ArenaSlot* slot_a = SlotOf(plan, graph, "a");
  ASSERT_NE(slot_a, nullptr);
  EXPECT_EQ(slot_a->first, 1);
  EXPECT_EQ(slot_a->last, 2 * 3 + 1);
  EXPECT_EQ(plan.memory[0].reshape_in_place_bytes, 2u * 1024);
  // Nothing alive at the same time as a overlaps it.
  for (const ArenaSlot& s : plan.slots) {
    if (&s == slot_a || s.last < slot_a->first || slot_a->last < s.first) continue;
    EXPECT_TRUE(s.offset + s.bytes <= slot_a->offset || slot_a->offset + slot_a->bytes <= s.offset)
        << graph.DescribeValue(s.value);
  }
  EXPECT_NE(plan.Explain(graph).find("2 reshapes in place (2.0 KiB not copied per run)"),
            std::string::npos)
      << plan.Explain(graph);
}

TEST(MemoryPlannerTest, NoReshapeInPlaceOfAGraphInputAConstantOrOnADeviceWithoutTheFlag) {
  GraphBuilder g;
  const ValueId x = g.Input("x", DType::kF32, {4, 64});
  const ValueId w = g.Const("w", *Tensor::Allocate(DType::kF32, {4, 64}));
  const ValueId rx = Reshape(g, x, {256}, "rx");
  const ValueId rw = Reshape(g, w, {256}, "rw");
  const ValueId s = g.Binary("add", rx, rw, "s");
  g.Output(Reshape(g, s, {4, 64}, "y"));
  const Graph graph = g.Build();
  Device with_flag;
  with_flag.flags = kReshapeInPlace;
  Plan plan = OnOneDevice(graph, with_flag);
  SY_ASSERT_OK(PlanMemory(graph, {}, plan));
  ASSERT_EQ(plan.aliases.size(), 1u);  // only y, a graph output: s's slot lives to the end
  EXPECT_EQ(graph.values[plan.aliases[0].value].name, "y");
  EXPECT_EQ(SlotOf(plan, graph, "s")->last, 2 * 4 + 1);

  const Device without_flag;
  Plan plain = OnOneDevice(graph, without_flag);
  SY_ASSERT_OK(PlanMemory(graph, {}, plain));
  EXPECT_TRUE(plain.aliases.empty());
  EXPECT_NE(SlotOf(plain, graph, "y"), nullptr);
  EXPECT_EQ(plain.Explain(graph).find("in place"), std::string::npos);
}

}  // namespace
}  // namespace sy::sched
