// Plan::Build on crafted graphs: placement (hints, order, fallback, strict mode,
// errors), partitions and copies, the island pass and the memory limits.
#include "switchyard/plan.h"

#include "scheduling_fixture.h"
#include "test_util.h"

namespace sy {
namespace {

using test::GraphBuilder;

class PlanTest : public test::SchedulingTest {};

// x -> add(x, x) -> relu -> tanh -> add(., x): four f32 [4, 8] nodes; the partial device
// (default subset: add, mul, relu, sigmoid, matmul, softmax) lacks tanh.
Graph Chain(const std::string& tanh_hint = "", const std::string& last_hint = "",
            const std::string& first_hint = "") {
  GraphBuilder g;
  const ValueId x = g.Input("x", DType::kF32, {4, 8});
  const ValueId a = g.Binary("add", x, x, "a", first_hint);
  const ValueId r = g.Unary("relu", a, "r");
  const ValueId t = g.Unary("tanh", r, "t", tanh_hint);
  const ValueId y = g.Binary("add", t, x, "y", last_hint);
  g.Output(y);
  return g.Build();
}

TEST_F(PlanTest, DefaultOrderPutsGpusThenAcceleratorsThenCpuAndNeverCpuRef) {
  Load(kAll);
  Expected<Plan> plan = Plan::Build(Chain(), host_.get(), {});
  SY_ASSERT_OK(plan);
  std::vector<std::string> order;
  for (const Device* d : plan->devices) order.push_back(d->name);
  EXPECT_EQ(order,
            (std::vector<std::string>{"remote-gpu0", "remote-gpu1", "partial-accel", "cpu"}));
  for (size_t n = 0; n < 4; ++n) {
    EXPECT_EQ(DeviceOf(*plan, n), "remote:0");
    EXPECT_EQ(plan->nodes[n].reason, PlacementReason::kOrder);
  }
  EXPECT_EQ(plan->partitions.size(), 1u);
  EXPECT_TRUE(plan->copies.empty());
}

TEST_F(PlanTest, DeclinedNodesFallBackWithTheReason) {
  Load(kCpu | kPartial);
  PlanOptions options;
  options.devices = {Find("partial")};
  options.merge_islands = false;
  Expected<Plan> plan = Plan::Build(Chain(), host_.get(), options);
  SY_ASSERT_OK(plan);
  EXPECT_EQ(DeviceOf(*plan, 0), "partial:0");
  EXPECT_EQ(DeviceOf(*plan, 1), "partial:0");
  EXPECT_EQ(DeviceOf(*plan, 2), "cpu:0");  // tanh: cpu:0 is the fallback
  EXPECT_EQ(DeviceOf(*plan, 3), "partial:0");
  EXPECT_EQ(plan->nodes[2].reason, PlacementReason::kFallback);
  EXPECT_NE(plan->nodes[2].detail.find("partial:0 declined"), std::string::npos)
      << plan->nodes[2].detail;
  EXPECT_NE(plan->nodes[2].detail.find("tanh"), std::string::npos) << plan->nodes[2].detail;
  EXPECT_NE(plan->nodes[2].detail.find("fallback"), std::string::npos) << plan->nodes[2].detail;
  // Three partitions; r goes to the CPU and t comes back.
  ASSERT_EQ(plan->partitions.size(), 3u);
  ASSERT_EQ(plan->copies.size(), 2u);
  EXPECT_EQ(plan->copies[0].bytes, 4u * 8 * 4);
  // r reaches the CPU by pointer (both address host memory and the CPU plugin wraps host
  // memory); t goes back by copy (the test accelerator does not wrap host memory).
  EXPECT_TRUE(plan->copies[0].shared);
  EXPECT_FALSE(plan->copies[1].shared);
  EXPECT_EQ(plan->CopyBytes(), 4u * 8 * 4);
  const std::string text = plan->Explain(Chain());
  EXPECT_NE(text.find("partitions: 3"), std::string::npos) << text;
  EXPECT_NE(text.find("copies: 2"), std::string::npos) << text;
}

TEST_F(PlanTest, StrictModeRejectsAFallback) {
  Load(kCpu | kPartial);
  PlanOptions options;
  options.devices = {Find("partial")};
  options.strict = true;
  Expected<Plan> plan = Plan::Build(Chain(), host_.get(), options);
  ASSERT_FALSE(plan.ok());
  EXPECT_NE(plan.status().message().find("node 2 (tanh)"), std::string::npos)
      << plan.status().message();
  EXPECT_NE(plan.status().message().find("strict"), std::string::npos);
}

TEST_F(PlanTest, HintsAreHonouredWhenSupported) {
  Load(kAll);
  Expected<Plan> plan = Plan::Build(Chain("cpu", "partial"), host_.get(), {});
  SY_ASSERT_OK(plan);
  EXPECT_EQ(DeviceOf(*plan, 2), "cpu:0");
  EXPECT_EQ(plan->nodes[2].reason, PlacementReason::kHint);
  EXPECT_EQ(DeviceOf(*plan, 3), "partial:0");
  EXPECT_EQ(plan->nodes[3].reason, PlacementReason::kHint);
  // Nodes 0 and 1 went to remote:0 (first in the order), then the island pass moved them
  // next to the CPU node they feed: tiny tensors are not worth two copies.
  EXPECT_EQ(DeviceOf(*plan, 0), "cpu:0");
  EXPECT_EQ(plan->nodes[0].reason, PlacementReason::kIsland);
  EXPECT_EQ(plan->partitions.size(), 2u);
}

TEST_F(PlanTest, AnUnhonouredHintFallsThroughAndSaysWhy) {
  Load(kCpu | kPartial);
  // partial declines tanh; "cuda" is not loaded.
  Graph graph = Chain("partial", "cuda");
  Expected<Plan> plan = Plan::Build(graph, host_.get(), {});
  SY_ASSERT_OK(plan);
  EXPECT_EQ(plan->nodes[2].reason, PlacementReason::kFallback);
  EXPECT_NE(plan->nodes[2].detail.find("hint \"partial\" not honoured"), std::string::npos)
      << plan->nodes[2].detail;
  EXPECT_EQ(plan->nodes[3].reason, PlacementReason::kFallback);
  EXPECT_NE(plan->nodes[3].detail.find("hint \"cuda\" not honoured"), std::string::npos);

  PlanOptions strict;
  strict.strict = true;
  Expected<Plan> rejected = Plan::Build(graph, host_.get(), strict);
  ASSERT_FALSE(rejected.ok());
  EXPECT_NE(rejected.status().message().find("hint \"partial\""), std::string::npos)
      << rejected.status().message();
}

// The fallback is whichever loaded device declares SY_DEVICE_FLAG_FALLBACK, not a plugin
// of a given name: here the test accelerator, with no CPU plugin loaded.
TEST_F(PlanTest, TheFallbackIsTheDeviceThatDeclaresIt) {
  Load(kPartial | kRemote, {{"SY_TEST_PARTIAL_FALLBACK", "1"}, {"SY_TEST_REMOTE_OPS", "add,tanh"}});
  PlanOptions options;
  options.devices = {Find("remote:0")};
  options.merge_islands = false;
  Expected<Plan> plan = Plan::Build(Chain(), host_.get(), options);
  SY_ASSERT_OK(plan);
  EXPECT_EQ(DeviceOf(*plan, 0), "remote:0");
  EXPECT_EQ(DeviceOf(*plan, 1), "partial:0");  // relu: remote declines
  EXPECT_EQ(plan->nodes[1].reason, PlacementReason::kFallback);
  EXPECT_NE(plan->nodes[1].detail.find("partial:0 is the fallback"), std::string::npos)
      << plan->nodes[1].detail;
  EXPECT_EQ(DeviceOf(*plan, 2), "remote:0");
}

TEST_F(PlanTest, ANodeNoDeviceRunsIsAnErrorListingEveryAnswer) {
  Load(kPartial);  // no CPU plugin: no fallback
  Expected<Plan> plan = Plan::Build(Chain(), host_.get(), {});
  ASSERT_FALSE(plan.ok());
  const std::string m = plan.status().message();
  EXPECT_NE(m.find("no device can run node 2 (tanh) \"t\" on f32 [4, 8]"), std::string::npos) << m;
  EXPECT_NE(m.find("partial:0 declined"), std::string::npos) << m;
  EXPECT_NE(m.find("no fallback device is loaded"), std::string::npos) << m;
}

TEST_F(PlanTest, DtypeSubsetsAreRespected) {
  Load(kCpu | kPartial);
  GraphBuilder g;
  const ValueId x = g.Input("x", DType::kF64, {3});
  g.Output(g.Unary("relu", x, "y"));
  PlanOptions options;
  options.devices = {Find("partial")};
  Expected<Plan> plan = Plan::Build(g.Build(), host_.get(), options);
  SY_ASSERT_OK(plan);
  EXPECT_EQ(DeviceOf(*plan, 0), "cpu:0");
  EXPECT_NE(plan->nodes[0].detail.find("f64"), std::string::npos) << plan->nodes[0].detail;
}

TEST_F(PlanTest, TheIslandPassPullsAShortRunBackToSaveCopies) {
  // remote runs add and relu only; tanh falls back to the CPU; the last add alone on
  // remote would need a copy in and the output back: it moves to the CPU. (The first
  // node's hint pins the first run to remote.)
  Load(kCpu | kRemote, {{"SY_TEST_REMOTE_OPS", "add,relu"}});
  PlanOptions options;
  options.devices = {Find("remote:0"), Find("cpu")};
  Expected<Plan> merged = Plan::Build(Chain("", "", "remote"), host_.get(), options);
  SY_ASSERT_OK(merged);
  EXPECT_EQ(DeviceOf(*merged, 3), "cpu:0");
  EXPECT_EQ(merged->nodes[3].reason, PlacementReason::kIsland);
  EXPECT_NE(merged->nodes[3].detail.find("saves"), std::string::npos) << merged->nodes[3].detail;
  EXPECT_EQ(merged->partitions.size(), 2u);
  EXPECT_EQ(merged->copies.size(), 1u);

  options.merge_islands = false;
  Expected<Plan> unmerged = Plan::Build(Chain("", "", "remote"), host_.get(), options);
  SY_ASSERT_OK(unmerged);
  EXPECT_EQ(DeviceOf(*unmerged, 3), "remote:0");
  EXPECT_EQ(unmerged->partitions.size(), 3u);
  EXPECT_EQ(unmerged->copies.size(), 2u);

  // An honoured hint keeps the node where it asked to be.
  options.merge_islands = true;
  Expected<Plan> hinted = Plan::Build(Chain("", "remote:0", "remote"), host_.get(), options);
  SY_ASSERT_OK(hinted);
  EXPECT_EQ(DeviceOf(*hinted, 3), "remote:0");
  EXPECT_EQ(hinted->nodes[3].reason, PlacementReason::kHint);
}

TEST_F(PlanTest, TheIslandPassLeavesHeavyNodesAndLargeRuns) {
  // matmul is where a preferred device earns its place: never moved.
  Load(kCpu | kRemote, {{"SY_TEST_REMOTE_OPS", "matmul"}});
  GraphBuilder g;
  const ValueId x = g.Input("x", DType::kF32, {4, 4});
  const ValueId t = g.Unary("tanh", x, "t");
  const ValueId m = g.Value("m", DType::kF32, {4, 4});
  g.Node("matmul", {t, t}, {m}, {}, "mm");
  g.Output(g.Unary("tanh", m, "y"));
  PlanOptions options;
  options.devices = {Find("remote:0"), Find("cpu")};
  Expected<Plan> plan = Plan::Build(g.Build(), host_.get(), options);
  SY_ASSERT_OK(plan);
  EXPECT_EQ(DeviceOf(*plan, 1), "remote:0");
  EXPECT_EQ(plan->partitions.size(), 3u);
}

TEST_F(PlanTest, ValuesCrossEachDeviceOnceAndWeightsUploadOncePerDevice) {
  Load(kCpu | kRemote, {{"SY_TEST_REMOTE_OPS", "add,mul"}});
  GraphBuilder g;
  const ValueId x = g.Input("x", DType::kF32, {2, 2});
  const ValueId w = g.Const("w", test::MakeTensor<float>(DType::kF32, {2, 2}, {1, 2, 3, 4}));
  const ValueId a = g.Binary("add", x, w, "a");  // remote
  const ValueId t = g.Unary("tanh", a, "t");     // cpu (fallback)
  const ValueId b = g.Binary("mul", t, w, "b");  // remote
  const ValueId c = g.Binary("mul", b, a, "c");  // remote, reads a again (already there)
  const ValueId s = g.Unary("sigmoid", c, "s");  // cpu
  const ValueId y = g.Binary("add", s, w, "y", "cpu");
  g.Output(y);
  PlanOptions options;
  options.devices = {Find("remote:0")};
  options.merge_islands = false;
  Expected<Plan> plan = Plan::Build(g.Build(), host_.get(), options);
  SY_ASSERT_OK(plan);
  ASSERT_EQ(plan->partitions.size(), 4u);
  // a -> cpu, t -> remote, c -> cpu: three copies, each of 16 bytes.
  ASSERT_EQ(plan->copies.size(), 3u);
  for (const PlanCopy& copy : plan->copies) EXPECT_EQ(copy.bytes, 16u);
  // w is uploaded once to each device that reads it.
  size_t uploads = 0;
  for (const auto& per_device : plan->weights) uploads += per_device.size();
  EXPECT_EQ(uploads, 2u);
}

TEST_F(PlanTest, CopiesBetweenTwoDeviceMemoriesAreStagedWithoutADirectPath) {
  Load(kRemote, {{"SY_TEST_REMOTE_OPS", "add"}, {"SY_TEST_REMOTE_NO_D2D", "1"}});
  GraphBuilder g;
  const ValueId x = g.Input("x", DType::kF32, {2});
  const ValueId a = g.Binary("add", x, x, "a", "remote:0");
  g.Output(g.Binary("add", a, a, "b", "remote:1"));
  Expected<Plan> plan = Plan::Build(g.Build(), host_.get(), {});
  SY_ASSERT_OK(plan);
  ASSERT_EQ(plan->copies.size(), 1u);
  EXPECT_TRUE(plan->copies[0].staged);
}

TEST_F(PlanTest, TheMemoryPlanMustFitTheDevice) {
  Load(kCpu | kPartial, {{"SY_TEST_PARTIAL_MEMORY", "500"}});
  PlanOptions options;
  options.devices = {Find("partial")};
  Expected<Plan> plan = Plan::Build(Chain(), host_.get(), options);
  ASSERT_FALSE(plan.ok());
  EXPECT_EQ(plan.status().code(), StatusCode::kResourceExhausted);
  EXPECT_NE(plan.status().message().find("partial:0 (partial-accel) cannot hold the plan"),
            std::string::npos)
      << plan.status().message();
  EXPECT_NE(plan.status().message().find("declares only 500 B"), std::string::npos)
      << plan.status().message();

  PlanOptions limited;
  limited.devices = {Find("cpu")};
  limited.memory_limits[Find("cpu")] = 256;
  Expected<Plan> too_small = Plan::Build(Chain(), host_.get(), limited);
  ASSERT_FALSE(too_small.ok());
  EXPECT_NE(too_small.status().message().find("the memory limit set for it is 256 B"),
            std::string::npos)
      << too_small.status().message();
}

TEST(ByteSizeTest, ParsesUnitsAndRejectsGarbage) {
  EXPECT_EQ(*ParseByteSize("1048576"), 1048576u);
  EXPECT_EQ(*ParseByteSize("64MiB"), 64u << 20);
  EXPECT_EQ(*ParseByteSize("64M"), 64u << 20);
  EXPECT_EQ(*ParseByteSize("1.5GiB"), 3u << 29);
  EXPECT_EQ(*ParseByteSize("2GB"), 2000000000u);
  EXPECT_EQ(*ParseByteSize("4 KiB"), 4096u);
  for (const char* bad : {"", "MiB", "-1", "12XB", "1e3", "1.2.3", "99999999999999999999TiB"}) {
    EXPECT_FALSE(ParseByteSize(bad).ok()) << bad;
  }
  EXPECT_EQ(FormatBytes(1536), "1.5 KiB");
  EXPECT_EQ(FormatBytes(100), "100 B");
}

}  // namespace
}  // namespace sy
