// Sessions across several devices: every heterogeneous run equals the CPU-only run
// (exactly for integer ops and data movement, within a tolerance for floats), whichever
// copy path the plan needs: host memory to host memory (partial), into and out of
// device memory (remote), direct device to device, and staged through host memory
// (remote with SY_TEST_REMOTE_NO_D2D=1). Preparation allocates; runs never do.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <map>
#include <random>
#include <string>

#include "sched/scheduling_fixture.h"
#include "switchyard/session.h"
#include "test_util.h"

namespace sy {
namespace {

using Feeds = std::map<std::string, Tensor>;
using test::GraphBuilder;

Tensor Random(DType dtype, Shape shape, uint32_t seed) {
  Tensor t = *Tensor::Allocate(dtype, std::move(shape));
  std::mt19937 rng(seed);
  for (int64_t i = 0; i < t.element_count(); ++i) {
    if (dtype == DType::kF32) {
      t.mutable_values<float>()[i] = std::uniform_real_distribution<float>(-2, 2)(rng);
    } else {
      t.mutable_values<int32_t>()[i] = std::uniform_int_distribution<int32_t>(-50, 50)(rng);
    }
  }
  return t;
}

// x [4, 6] -> matmul w [6, 5] -> + b -> relu / tanh / sigmoid / mul -> softmax; outputs
// the softmax and the relu (a value that also feeds later nodes).
Graph FloatGraph(const std::map<std::string, std::string>& hints = {}) {
  auto hint = [&](const std::string& name) {
    auto it = hints.find(name);
    return it == hints.end() ? std::string() : it->second;
  };
  GraphBuilder g;
  const ValueId x = g.Input("x", DType::kF32, {4, 6});
  const ValueId w = g.Const("w", Random(DType::kF32, {6, 5}, 7));
  const ValueId b = g.Const("b", Random(DType::kF32, {5}, 8));
  const ValueId m = g.Value("m", DType::kF32, {4, 5});
  g.Node("matmul", {x, w}, {m}, {}, "m", hint("m"));
  const ValueId a = g.Binary("add", m, b, "a", hint("a"));
  const ValueId r = g.Unary("relu", a, "r", hint("r"));
  const ValueId t = g.Unary("tanh", r, "t", hint("t"));
  const ValueId s = g.Unary("sigmoid", a, "s", hint("s"));
  const ValueId y = g.Binary("mul", t, s, "y", hint("y"));
  const ValueId z = g.Value("z", DType::kF32, {4, 5});
  g.Node("softmax", {y}, {z}, {}, "z", hint("z"));
  g.Output(z);
  g.Output(r);
  return g.Build();
}

// i32 [3, 4]: ((x + x) * c - x) with a constant c, then a transpose (data movement).
Graph IntGraph(const std::map<std::string, std::string>& hints = {}) {
  auto hint = [&](const std::string& name) {
    auto it = hints.find(name);
    return it == hints.end() ? std::string() : it->second;
  };
  GraphBuilder g;
  const ValueId x = g.Input("x", DType::kI32, {3, 4});
  const ValueId c = g.Const("c", Random(DType::kI32, {3, 4}, 9));
  const ValueId a = g.Binary("add", x, x, "a", hint("a"));
  const ValueId m = g.Binary("mul", a, c, "m", hint("m"));
  const ValueId s = g.Binary("sub", m, x, "s", hint("s"));
  const ValueId t = g.Value("t", DType::kI32, {4, 3});
  g.Node("transpose", {s}, {t}, test::MakeAttrs({{"perm", std::vector<int64_t>{1, 0}}}), "t",
         hint("t"));
  g.Output(t);
  return g.Build();
}

class MultiDeviceSessionTest : public test::SchedulingTest {
 protected:
  // Runs `graph` three times with the same feeds: on the CPU alone, then as `options`
  // plan it; returns both results of the last run, checking the plan used more than one
  // device and that runs allocate nothing.
  void ExpectSameAsCpu(const Graph& graph, const PlanOptions& options, const Feeds& feeds,
                       size_t expected_partitions) {
    PlanOptions cpu_only;
    cpu_only.devices = {Find("cpu")};
    Expected<std::unique_ptr<Session>> reference = Session::Create(graph, *host_, cpu_only);
    SY_ASSERT_OK(reference);
    Expected<Feeds> want = (*reference)->Run(feeds);
    SY_ASSERT_OK(want);

    Expected<std::unique_ptr<Session>> session = Session::Create(graph, *host_, options);
    SY_ASSERT_OK(session);
    EXPECT_EQ((*session)->plan().partitions.size(), expected_partitions)
        << (*session)->plan().Explain(graph);
    const Session::Stats prepared = (*session)->stats();
    for (int run = 0; run < 3; ++run) {
      Expected<Feeds> got = (*session)->Run(feeds);
      SY_ASSERT_OK(got);
      ASSERT_EQ(got->size(), want->size());
      for (const auto& [name, tensor] : *want) {
        const Tensor& other = got->at(name);
        ASSERT_EQ(other.type(), tensor.type()) << name;
        if (tensor.dtype() == DType::kF32) {
          for (int64_t i = 0; i < tensor.element_count(); ++i) {
            EXPECT_NEAR(other.values<float>()[i], tensor.values<float>()[i], 1e-5f)
                << name << "[" << i << "]";
          }
        } else {
          EXPECT_EQ(0, std::memcmp(other.data(), tensor.data(), tensor.byte_size())) << name;
        }
      }
    }
    // Everything was allocated and prepared once, at creation.
    EXPECT_EQ((*session)->stats().buffer_allocations, prepared.buffer_allocations);
    EXPECT_EQ((*session)->stats().buffer_views, prepared.buffer_views);
    EXPECT_EQ((*session)->stats().prepares, expected_partitions);
    size_t arenas = 0, weights = 0;
    for (size_t d = 0; d < (*session)->plan().devices.size(); ++d) {
      arenas += (*session)->plan().memory[d].arena_bytes > 0;
      weights += (*session)->plan().weights[d].size();
    }
    // One arena per device, and a buffer per weight but those read in place.
    EXPECT_EQ(prepared.buffer_allocations + prepared.weights_in_place, arenas + weights);
    // Only host-memory devices read weights in place (those whose plugin wraps host memory).
    size_t host_weights = 0;
    for (size_t d = 0; d < (*session)->plan().devices.size(); ++d) {
      if ((*session)->plan().devices[d]->host_memory()) {
        host_weights += (*session)->plan().weights[d].size();
      }
    }
    EXPECT_LE(prepared.weights_in_place, host_weights);
  }
};

TEST_F(MultiDeviceSessionTest, HostMemoryAcceleratorWithCpuFallback) {
  Load(kCpu | kPartial);
  PlanOptions options;
  options.devices = {Find("partial")};
  options.merge_islands = false;  // keep the tanh island: more copies to check
  // matmul add relu | tanh | sigmoid mul softmax
  ExpectSameAsCpu(FloatGraph(), options, {{"x", Random(DType::kF32, {4, 6}, 1)}}, 3);
  // partial runs f32 only: the whole integer graph falls back.
  ExpectSameAsCpu(IntGraph(), options, {{"x", Random(DType::kI32, {3, 4}, 2)}}, 1);
}

// Two devices that both address host memory and both wrap it exchange pointers: every
// planned copy is shared, no bytes move, no destination slot is planned, and results are
// those of the CPU alone.
TEST_F(MultiDeviceSessionTest, HostMemoryDevicesShareValuesWithoutCopies) {
  Load(kCpu | kPartial, {{"SY_TEST_PARTIAL_WRAP_HOST", "1"}});
  PlanOptions options;
  options.devices = {Find("partial")};
  options.merge_islands = false;
  const Graph graph = FloatGraph();
  Expected<Plan> plan = Plan::Build(graph, host_.get(), options);
  SY_ASSERT_OK(plan);
  ASSERT_EQ(plan->copies.size(), 2u) << plan->Explain(graph);  // into and out of the tanh island
  for (const PlanCopy& c : plan->copies) {
    EXPECT_TRUE(c.shared);
    for (const ArenaSlot& slot : plan->slots) {
      EXPECT_FALSE(slot.value == c.value && slot.device == c.to_device)
          << "a slot was planned for the shared copy of value " << c.value;
    }
  }
  EXPECT_EQ(plan->CopyBytes(), 0u);
  EXPECT_NE(plan->Explain(graph).find("shared: host memory read in place"), std::string::npos);
  ExpectSameAsCpu(graph, options, {{"x", Random(DType::kF32, {4, 6}, 7)}}, 3);
  Expected<std::unique_ptr<Session>> session = Session::Create(graph, *host_, options);
  SY_ASSERT_OK(session);
  EXPECT_EQ((*session)->stats().values_shared, 2u);
}

TEST_F(MultiDeviceSessionTest, DeviceMemoryWithCopiesBothWays) {
  Load(kCpu | kRemote, {{"SY_TEST_REMOTE_OPS", "matmul,add,relu,mul,sub"}});
  PlanOptions options;
  options.devices = {Find("remote:0")};
  options.merge_islands = false;
  // matmul add relu | tanh sigmoid | mul | softmax
  ExpectSameAsCpu(FloatGraph(), options, {{"x", Random(DType::kF32, {4, 6}, 3)}}, 4);
  // add mul sub | transpose
  ExpectSameAsCpu(IntGraph(), options, {{"x", Random(DType::kI32, {3, 4}, 4)}}, 2);
}

TEST_F(MultiDeviceSessionTest, TwoDeviceMemoriesDirectAndStaged) {
  const std::map<std::string, std::string> hints = {
      {"m", "remote:0"}, {"a", "remote:1"}, {"r", "remote:0"}, {"t", "remote:1"},
      {"s", "cpu"},      {"y", "remote:0"}, {"z", "remote:1"}};
  for (const char* no_d2d : {"0", "1"}) {
    SCOPED_TRACE(std::string("SY_TEST_REMOTE_NO_D2D=") + no_d2d);
    Load(kCpu | kRemote, {{"SY_TEST_REMOTE_NO_D2D", no_d2d}});
    Expected<Plan> plan = Plan::Build(FloatGraph(hints), host_.get(), {});
    SY_ASSERT_OK(plan);
    bool staged = false;
    for (const PlanCopy& c : plan->copies) staged = staged || c.staged;
    EXPECT_EQ(staged, no_d2d[0] == '1');
    ExpectSameAsCpu(FloatGraph(hints), {}, {{"x", Random(DType::kF32, {4, 6}, 5)}}, 7);
    ExpectSameAsCpu(IntGraph({{"a", "remote:1"}, {"m", "remote:0"}, {"t", "remote:1"}}), {},
                    {{"x", Random(DType::kI32, {3, 4}, 6)}}, 3);
    TearDown();
  }
}

TEST_F(MultiDeviceSessionTest, AMemoryPlanThatDoesNotFitFailsBeforeAnythingRuns) {
  Load(kCpu | kRemote, {{"SY_TEST_REMOTE_MEMORY", "300"}});
  PlanOptions options;
  options.devices = {Find("remote:0")};
  Expected<std::unique_ptr<Session>> session = Session::Create(FloatGraph(), *host_, options);
  ASSERT_FALSE(session.ok());
  EXPECT_EQ(session.status().code(), StatusCode::kResourceExhausted);
  EXPECT_NE(session.status().message().find("remote:0 (remote-gpu0) cannot hold the plan"),
            std::string::npos)
      << session.status().message();
}

TEST_F(MultiDeviceSessionTest, RunErrorsOnADeviceLeaveTheSessionUsable) {
  Load(kCpu | kRemote);
  GraphBuilder g;
  const ValueId data = g.Const("data", Random(DType::kF32, {4, 3}, 10));
  const ValueId index = g.Input("index", DType::kI64, {2});
  const ValueId out = g.Value("out", DType::kF32, {2, 3});
  g.Node("gather", {data, index}, {out}, {}, "g", "remote:0");
  g.Output(g.Unary("tanh", out, "y", "cpu"));
  Expected<std::unique_ptr<Session>> session = Session::Create(g.Build(), *host_, {});
  SY_ASSERT_OK(session);
  Tensor bad = test::MakeTensor<int64_t>(DType::kI64, {2}, {0, 9});
  Expected<Feeds> failed = (*session)->Run({{"index", bad}});
  ASSERT_FALSE(failed.ok());
  EXPECT_NE(failed.status().message().find("partition 0"), std::string::npos)
      << failed.status().message();
  Tensor good = test::MakeTensor<int64_t>(DType::kI64, {2}, {3, 0});
  SY_EXPECT_OK((*session)->Run({{"index", good}}));
}

}  // namespace
}  // namespace sy
