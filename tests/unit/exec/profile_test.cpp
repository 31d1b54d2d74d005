// Profiles of session runs (switchyard/profile.h, docs/profiling.md): with profiling on,
// each run records a run event, an event per partition and copy, and an event per node
// where the plugin times its nodes (the cpu plugin does; the remote test plugin, built on
// the SDK without ExecuteTimed, does not and shows as whole partitions, with the copies
// into and out of its device memory). Node events lie
// inside their partition's span, the Chrome trace parses as JSON with named tracks, and
// the time by op counts every node of every run. Off, nothing is recorded.
#include "switchyard/profile.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <map>
#include <random>
#include <set>
#include <string>

#include "sched/scheduling_fixture.h"
#include "switchyard/session.h"
#include "test_util.h"

namespace sy {
namespace {

using test::GraphBuilder;

Tensor Random(Shape shape, uint32_t seed) {
  Tensor t = *Tensor::Allocate(DType::kF32, std::move(shape));
  std::mt19937 rng(seed);
  for (float& v : t.mutable_values<float>()) v = std::uniform_real_distribution<float>(-1, 1)(rng);
  return t;
}

// x [4, 6] -> matmul -> add -> relu -> tanh -> softmax ("sm" pinned to cpu by its hint).
Graph Chain() {
  GraphBuilder g;
  const ValueId x = g.Input("x", DType::kF32, {4, 6});
  const ValueId w = g.Const("w", Random({6, 5}, 1));
  const ValueId b = g.Const("b", Random({5}, 2));
  const ValueId m = g.Value("m", DType::kF32, {4, 5});
  g.Node("matmul", {x, w}, {m}, {}, "mm");
  const ValueId a = g.Binary("add", m, b, "bias");
  const ValueId r = g.Unary("relu", a, "act");
  const ValueId t = g.Unary("tanh", r, "squash");
  const ValueId z = g.Value("z", DType::kF32, {4, 5});
  g.Node("softmax", {t}, {z}, {}, "sm", "cpu");
  g.Output(z);
  return g.Build();
}

class ProfileTest : public test::SchedulingTest {};

TEST_F(ProfileTest, CpuRunsRecordEveryNodeInsideItsPartition) {
  Load(kCpu);
  PlanOptions options;
  options.devices = {Find("cpu")};
  options.optimize_level = 0;  // keep the five nodes
  Expected<std::unique_ptr<Session>> session = Session::Create(Chain(), *host_, options);
  SY_ASSERT_OK(session);
  const std::map<std::string, Tensor> feeds = {{"x", Random({4, 6}, 3)}};
  SY_ASSERT_OK((*session)->Run(feeds));
  EXPECT_TRUE((*session)->profile().events().empty()) << "recorded with profiling off";
  (*session)->set_profiling(true);
  for (int i = 0; i < 2; ++i) SY_ASSERT_OK((*session)->Run(feeds));
  const Profile& profile = (*session)->profile();
  EXPECT_EQ(profile.runs(), 2);
  int runs = 0, partitions = 0, nodes = 0;
  std::set<std::string> names;
  const ProfileEvent* partition = nullptr;
  for (const ProfileEvent& e : profile.events()) {
    EXPECT_LE(e.start_ns, e.end_ns);
    switch (e.kind) {
      case ProfileEvent::Kind::kRun:
        ++runs;
        break;
      case ProfileEvent::Kind::kPartition:
        ++partitions;
        EXPECT_TRUE(e.nodes_timed);
        EXPECT_EQ(e.device, "cpu:0 (cpu)");
        partition = &e;
        break;
      case ProfileEvent::Kind::kNode:
        ++nodes;
        names.insert(e.name);
        if (e.name == "mm") {
          EXPECT_EQ(e.op, "matmul");
          EXPECT_EQ(e.detail, "f32 [4, 6], f32 [6, 5] -> f32 [4, 5]");
        }
        break;
      case ProfileEvent::Kind::kCopy:
        ADD_FAILURE() << "a copy on a one-device plan";
        break;
    }
  }
  EXPECT_EQ(runs, 2);
  EXPECT_EQ(partitions, 2);
  EXPECT_EQ(nodes, 10);
  EXPECT_EQ(names, (std::set<std::string>{"mm", "bias", "act", "squash", "sm"}));
  // Node events of the last run lie inside its partition.
  ASSERT_NE(partition, nullptr);
  for (const ProfileEvent& e : profile.events()) {
    if (e.kind != ProfileEvent::Kind::kNode || e.run != partition->run) continue;
    EXPECT_GE(e.start_ns, partition->start_ns) << e.name;
    EXPECT_LE(e.end_ns, partition->end_ns) << e.name;
  }
  // By op: each op twice (two runs).
  const std::vector<Profile::OpTotal> by_op = profile.ByOp();
  ASSERT_EQ(by_op.size(), 5u);
  for (const Profile::OpTotal& t : by_op) EXPECT_EQ(t.count, 2) << t.op;
  EXPECT_NE(profile.SummaryText().find("matmul"), std::string::npos);
  // The trace: JSON, complete events and named tracks.
  const boost::json::value trace = boost::json::parse(profile.ToChromeTrace());
  const boost::json::array& events = trace.at("traceEvents").as_array();
  int complete = 0;
  std::set<std::string> tracks;
  for (const boost::json::value& v : events) {
    const boost::json::object& o = v.as_object();
    if (o.at("ph").as_string() == "X") ++complete;
    if (o.at("name").as_string() == "thread_name") {
      tracks.insert(std::string(o.at("args").at("name").as_string()));
    }
  }
  EXPECT_EQ(complete, 14);  // 2 runs + 2 partitions + 10 nodes
  EXPECT_TRUE(tracks.count("cpu:0 (cpu)"));
  EXPECT_TRUE(tracks.count("runs"));
  (*session)->profile().Clear();
  EXPECT_TRUE((*session)->profile().events().empty());
}

TEST_F(ProfileTest, PluginsThatDoNotTimeNodesShowWholePartitionsAndCopies) {
  Load(kCpu | kRemote);
  PlanOptions options;
  options.devices = {Find("remote")};
  options.merge_islands = false;
  options.optimize_level = 0;
  Expected<std::unique_ptr<Session>> session = Session::Create(Chain(), *host_, options);
  SY_ASSERT_OK(session);
  (*session)->set_profiling(true);
  SY_ASSERT_OK((*session)->Run({{"x", Random({4, 6}, 3)}}));
  bool untimed_partition = false, copy = false, cpu_node = false;
  for (const ProfileEvent& e : (*session)->profile().events()) {
    if (e.kind == ProfileEvent::Kind::kPartition && e.device.rfind("remote:0", 0) == 0) {
      untimed_partition = untimed_partition || !e.nodes_timed;
    }
    if (e.kind == ProfileEvent::Kind::kCopy) {
      copy = true;
      EXPECT_NE(e.detail.find("bytes"), std::string::npos);
    }
    if (e.kind == ProfileEvent::Kind::kNode) {
      EXPECT_EQ(e.device, "cpu:0 (cpu)") << e.name;  // only the cpu plugin times nodes
      cpu_node = cpu_node || e.name == "sm";
    }
  }
  EXPECT_TRUE(untimed_partition);
  EXPECT_TRUE(copy);
  EXPECT_TRUE(cpu_node);
  bool partial_row = false;
  for (const Profile::OpTotal& t : (*session)->profile().ByOp()) {
    partial_row = partial_row || t.op.find("(partition on remote:0") == 0;
  }
  EXPECT_TRUE(partial_row);
}

}  // namespace
}  // namespace sy
