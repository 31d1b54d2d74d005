// Sessions on the CPU plugin's two devices (cpu and cpu-ref), loaded as a real shared
// object: graphs built in code checked against hand-computed values, repeated runs,
// errors that leave the session usable, outputs that are inputs or constants,
// concurrent sessions, the bundled examples against their NumPy references, and a chain
// of conv blocks on cpu against cpu-ref.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <filesystem>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "exec/cpu_host_suite.h"
#include "graph_builder.h"
#include "switchyard/graph.h"
#include "switchyard/model_io.h"
#include "switchyard/npy.h"
#include "switchyard/plugin_host.h"
#include "switchyard/session.h"
#include "test_util.h"

namespace sy {
namespace {

namespace fs = std::filesystem;
using Feeds = std::map<std::string, Tensor>;

// ---- building graphs and tensors ----

using test::GraphBuilder;

template <typename T>
Tensor Make(DType dtype, Shape shape, std::vector<T> values) {
  Tensor t = *Tensor::Allocate(dtype, std::move(shape));
  EXPECT_EQ(static_cast<size_t>(t.element_count()), values.size());
  for (size_t i = 0; i < values.size(); ++i) t.mutable_values<T>()[i] = values[i];
  return t;
}
Tensor F32(Shape shape, std::vector<float> values) {
  return Make<float>(DType::kF32, std::move(shape), std::move(values));
}
Tensor I32(Shape shape, std::vector<int32_t> values) {
  return Make<int32_t>(DType::kI32, std::move(shape), std::move(values));
}
Tensor I64(Shape shape, std::vector<int64_t> values) {
  return Make<int64_t>(DType::kI64, std::move(shape), std::move(values));
}

template <typename T>
std::vector<T> ValuesOf(const Tensor& t) {
  return {t.values<T>().begin(), t.values<T>().end()};
}

// ---- the fixture: the CPU plugin, loaded once for the suite ----

class SessionTest : public test::CpuHostSuite<testing::TestWithParam<std::string>> {
 protected:
  // The device of this parameter: "cpu" or "cpu-ref".
  static const Device& DeviceFor(const std::string& spec) {
    Expected<const Device*> device = host_->FindDevice(spec);
    EXPECT_TRUE(device.ok()) << device.status().ToString();
    return **device;
  }
  const Device& device() const { return DeviceFor(GetParam()); }

  std::unique_ptr<Session> Prepare(const Graph& graph) const {
    Expected<std::unique_ptr<Session>> session = Session::Create(graph, device());
    EXPECT_TRUE(session.ok()) << session.status().ToString();
    return session.ok() ? std::move(*session) : nullptr;
  }
};

std::string PrintDevice(const testing::TestParamInfo<std::string>& info) {
  return info.param == "cpu" ? "cpu" : "cpu_ref";
}

// x f32 [2, 3] -> y = relu(matmul(x, w) + b), w [3, 2] and b [2] constants.
Graph DenseReluGraph() {
  GraphBuilder g;
  const ValueId x = g.Input("x", DType::kF32, {2, 3});
  const ValueId w = g.Const("w", F32({3, 2}, {1, 0, 0, 1, 1, -1}));
  const ValueId b = g.Const("b", F32({2}, {0.5f, 0.5f}));
  const ValueId h = g.Value("h", DType::kF32, {2, 2});
  const ValueId z = g.Value("z", DType::kF32, {2, 2});
  const ValueId y = g.Value("y", DType::kF32, {2, 2});
  g.Node("matmul", {x, w}, {h}, {}, "fc");
  g.Node("add", {h, b}, {z}, {}, "bias");
  g.Node("relu", {z}, {y}, {}, "act");
  g.Output(y);
  return g.Build();
}

// What DenseReluGraph computes, by hand: h = [x0 + x2, x1 - x2] per row.
std::vector<float> DenseRelu(const std::vector<float>& x) {
  std::vector<float> y;
  for (int r = 0; r < 2; ++r) {
    const float* row = &x[3 * r];
    y.push_back(std::max(0.0f, row[0] + row[2] + 0.5f));
    y.push_back(std::max(0.0f, row[1] - row[2] + 0.5f));
  }
  return y;
}

TEST_P(SessionTest, RunsAGraphBuiltInCode) {
  std::unique_ptr<Session> session = Prepare(DenseReluGraph());
  ASSERT_NE(session, nullptr);
  EXPECT_EQ(session->device().name, GetParam());
  ASSERT_EQ(session->input_names(), std::vector<std::string>{"x"});
  EXPECT_EQ(session->input_types()[0], (TensorType{DType::kF32, {2, 3}}));

  // h = [[1 + 3, 2 - 3], [4 + 6, 5 - 6]] = [[4, -1], [10, -1]]; + 0.5; relu.
  Expected<Feeds> out = session->Run({{"x", F32({2, 3}, {1, 2, 3, 4, 5, 6})}});
  SY_ASSERT_OK(out);
  ASSERT_EQ(out->size(), 1u);
  const Tensor& y = out->at("y");
  EXPECT_EQ(y.type(), (TensorType{DType::kF32, {2, 2}}));
  EXPECT_EQ(ValuesOf<float>(y), (std::vector<float>{4.5f, 0.0f, 10.5f, 0.0f}));
}

TEST_P(SessionTest, RepeatedRunsAreIndependentAndDeterministic) {
  std::unique_ptr<Session> session = Prepare(DenseReluGraph());
  ASSERT_NE(session, nullptr);
  const Tensor first_input = F32({2, 3}, {0.25f, -1, 2, 3, 0.5f, -0.75f});
  Expected<Feeds> first = session->Run({{"x", first_input}});
  SY_ASSERT_OK(first);
  for (int i = 0; i < 20; ++i) {
    // A different input each time: nothing of an earlier run leaks into a later one.
    std::vector<float> x = {float(i), float(-i), 1, float(2 * i), 0.5f, float(i % 3)};
    Expected<Feeds> out = session->Run({{"x", F32({2, 3}, x)}});
    SY_ASSERT_OK(out);
    EXPECT_EQ(ValuesOf<float>(out->at("y")), DenseRelu(x)) << "run " << i;
    // The same input again gives bitwise the same result.
    Expected<Feeds> again = session->Run({{"x", first_input}});
    SY_ASSERT_OK(again);
    EXPECT_TRUE(again->at("y").BitwiseEquals(first->at("y"))) << "run " << i;
  }
}

TEST_P(SessionTest, InputErrorsLeaveTheSessionUsable) {
  std::unique_ptr<Session> session = Prepare(DenseReluGraph());
  ASSERT_NE(session, nullptr);
  const Tensor good = F32({2, 3}, {1, 2, 3, 4, 5, 6});
  const std::vector<float> expected = {4.5f, 0.0f, 10.5f, 0.0f};
  auto check_usable = [&] {
    Expected<Feeds> out = session->Run({{"x", good}});
    SY_ASSERT_OK(out);
    EXPECT_EQ(ValuesOf<float>(out->at("y")), expected);
  };

  Expected<Feeds> unknown = session->Run({{"x", good}, {"nope", good}});
  SY_EXPECT_ERROR(unknown, "unknown input \"nope\"");
  SY_EXPECT_ERROR(unknown, "the model's inputs are: x");
  EXPECT_EQ(unknown.status().code(), StatusCode::kInvalidArgument);
  check_usable();

  Expected<Feeds> missing = session->Run({});
  SY_EXPECT_ERROR(missing, "missing input \"x\" (f32 [2, 3])");
  check_usable();

  Expected<Feeds> dtype = session->Run({{"x", I32({2, 3}, {1, 2, 3, 4, 5, 6})}});
  SY_EXPECT_ERROR(dtype, "input \"x\" is i32 [2, 3] but the model expects f32 [2, 3]");
  check_usable();

  Expected<Feeds> shape = session->Run({{"x", F32({3, 2}, {1, 2, 3, 4, 5, 6})}});
  SY_EXPECT_ERROR(shape, "input \"x\" is f32 [3, 2] but the model expects f32 [2, 3]");
  Expected<Feeds> rank = session->Run({{"x", F32({6}, {1, 2, 3, 4, 5, 6})}});
  SY_EXPECT_ERROR(rank, "input \"x\" is f32 [6] but the model expects f32 [2, 3]");
  check_usable();
}

TEST_P(SessionTest, GatherIndexOutOfRangeIsADataError) {
  GraphBuilder g;
  const ValueId data = g.Input("data", DType::kF32, {4});
  const ValueId indices = g.Input("indices", DType::kI64, {2});
  const ValueId y = g.Value("y", DType::kF32, {2});
  g.Node("gather", {data, indices}, {y}, {}, "pick");
  g.Output(y);
  std::unique_ptr<Session> session = Prepare(g.Build());
  ASSERT_NE(session, nullptr);
  const Tensor d = F32({4}, {10, 20, 30, 40});

  Expected<Feeds> bad = session->Run({{"data", d}, {"indices", I64({2}, {1, 7})}});
  SY_EXPECT_ERROR(bad, "plugin cpu: execute: gather: index 7 is out of range");
  SY_EXPECT_ERROR(bad, "of size 4");
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalidArgument);
  Expected<Feeds> negative = session->Run({{"data", d}, {"indices", I64({2}, {0, -5})}});
  SY_EXPECT_ERROR(negative, "gather: index -5 is out of range");

  Expected<Feeds> ok = session->Run({{"data", d}, {"indices", I64({2}, {3, -4})}});
  SY_ASSERT_OK(ok);
  EXPECT_EQ(ValuesOf<float>(ok->at("y")), (std::vector<float>{40, 10}));
}

TEST_P(SessionTest, IntegerDivisionByZeroIsADataError) {
  GraphBuilder g;
  const ValueId a = g.Input("a", DType::kI32, {3});
  const ValueId b = g.Input("b", DType::kI32, {3});
  const ValueId y = g.Value("y", DType::kI32, {3});
  g.Node("div", {a, b}, {y}, {}, "ratio");
  g.Output(y);
  std::unique_ptr<Session> session = Prepare(g.Build());
  ASSERT_NE(session, nullptr);

  Expected<Feeds> bad = session->Run({{"a", I32({3}, {7, 8, 9})}, {"b", I32({3}, {1, 0, 2})}});
  SY_EXPECT_ERROR(bad, "plugin cpu: execute: div: integer division by zero");
  SY_EXPECT_ERROR(bad, "element 1 of input b");
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalidArgument);

  Expected<Feeds> ok = session->Run({{"a", I32({3}, {7, 8, 9})}, {"b", I32({3}, {2, 4, 3})}});
  SY_ASSERT_OK(ok);
  EXPECT_EQ(ValuesOf<int32_t>(ok->at("y")), (std::vector<int32_t>{3, 2, 3}));
}

TEST_P(SessionTest, OutputsThatAreInputsOrConstants) {
  GraphBuilder g;
  const ValueId x = g.Input("x", DType::kF32, {3});
  const ValueId c = g.Const("c", F32({2}, {1.5f, -2.5f}));
  const ValueId n = g.Value("n", DType::kF32, {3});
  g.Node("neg", {x}, {n});
  g.Output(x);
  g.Output(c);
  g.Output(n);
  std::unique_ptr<Session> session = Prepare(g.Build());
  ASSERT_NE(session, nullptr);
  for (int run = 0; run < 3; ++run) {
    const float v = static_cast<float>(run);
    Expected<Feeds> out = session->Run({{"x", F32({3}, {v, 2, -3})}});
    SY_ASSERT_OK(out);
    ASSERT_EQ(out->size(), 3u);
    EXPECT_EQ(ValuesOf<float>(out->at("x")), (std::vector<float>{v, 2, -3}));
    EXPECT_EQ(ValuesOf<float>(out->at("c")), (std::vector<float>{1.5f, -2.5f}));
    EXPECT_EQ(ValuesOf<float>(out->at("n")), (std::vector<float>{-v, -2, 3}));
  }
}

TEST_P(SessionTest, GraphWithoutNodes) {
  // Every output is an input or a constant: the partition is empty.
  GraphBuilder g;
  const ValueId x = g.Input("x", DType::kI64, {2});
  const ValueId c = g.Const("c", I32({1}, {9}));
  g.Output(c);
  g.Output(x);
  std::unique_ptr<Session> session = Prepare(g.Build());
  ASSERT_NE(session, nullptr);
  Expected<Feeds> out = session->Run({{"x", I64({2}, {5, 6})}});
  SY_ASSERT_OK(out);
  EXPECT_EQ(ValuesOf<int64_t>(out->at("x")), (std::vector<int64_t>{5, 6}));
  EXPECT_EQ(ValuesOf<int32_t>(out->at("c")), (std::vector<int32_t>{9}));
}

TEST_P(SessionTest, ConcurrentSessionsOnSeparateThreads) {
  const Graph graph = DenseReluGraph();
  constexpr int kThreads = 4;
  constexpr int kRuns = 50;
  std::vector<std::unique_ptr<Session>> sessions;
  for (int t = 0; t < kThreads; ++t) {
    sessions.push_back(Prepare(graph));
    ASSERT_NE(sessions.back(), nullptr);
  }
  std::atomic<int> failures{0};
  std::vector<std::string> first_error(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int r = 0; r < kRuns; ++r) {
        const std::vector<float> x = {float(t),     float(r), float(-t),
                                      float(r - t), 1.0f,     float(t * r % 7)};
        Expected<Feeds> out = sessions[t]->Run({{"x", F32({2, 3}, x)}});
        std::string error;
        if (!out.ok()) {
          error = out.status().ToString();
        } else if (ValuesOf<float>(out->at("y")) != DenseRelu(x)) {
          error = "wrong result in run " + std::to_string(r);
        }
        if (!error.empty()) {
          if (failures.fetch_add(1) == 0 || first_error[t].empty()) first_error[t] = error;
        }
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(failures.load(), 0);
  for (int t = 0; t < kThreads; ++t) EXPECT_EQ(first_error[t], "") << "thread " << t;
}

TEST(SessionMixedDevices, ConcurrentSessionsOnBothDevices) {
  // cpu and cpu-ref sessions of one plugin context, run at the same time.
  DiscoveryOptions options;
  options.scan_default_paths = false;
  options.explicit_plugins = {SY_CPU_PLUGIN_PATH};
  Expected<std::unique_ptr<PluginHost>> host = PluginHost::Create(options);
  SY_ASSERT_OK(host);
  const Graph graph = DenseReluGraph();
  std::vector<std::unique_ptr<Session>> sessions;
  for (const char* spec : {"cpu", "cpu-ref", "cpu", "cpu-ref"}) {
    Expected<const Device*> device = (*host)->FindDevice(spec);
    SY_ASSERT_OK(device);
    Expected<std::unique_ptr<Session>> session = Session::Create(graph, **device);
    SY_ASSERT_OK(session);
    sessions.push_back(std::move(*session));
  }
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (size_t t = 0; t < sessions.size(); ++t) {
    threads.emplace_back([&, t] {
      for (int r = 0; r < 50; ++r) {
        const std::vector<float> x = {float(r), 1, float(t), -2, float(r * t), 3};
        Expected<Feeds> out = sessions[t]->Run({{"x", F32({2, 3}, x)}});
        if (!out.ok() || ValuesOf<float>(out->at("y")) != DenseRelu(x)) failures.fetch_add(1);
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(failures.load(), 0);
  sessions.clear();  // before the host
}

TEST(SessionCreate, DeclinedNodeNamesTheNodeAndTheReason) {
  // The test plugin "dup" (tests/plugins/duplicate.cpp) declines every op.
  DiscoveryOptions options;
  options.scan_default_paths = false;
  options.explicit_plugins = {fs::path(SY_TEST_PLUGIN_DIR) / "duplicate" /
                              "libswitchyard_test_dup_a.so"};
  Expected<std::unique_ptr<PluginHost>> host = PluginHost::Create(options);
  SY_ASSERT_OK(host);
  Expected<const Device*> device = (*host)->FindDevice("dup");
  SY_ASSERT_OK(device);
  Expected<std::unique_ptr<Session>> session = Session::Create(DenseReluGraph(), **device);
  SY_EXPECT_ERROR(session, "node 0 (matmul) \"fc\"");
  SY_EXPECT_ERROR(session, "dup:0 declined");
  SY_EXPECT_ERROR(session, "test plugin runs no op (asked for matmul)");
}

INSTANTIATE_TEST_SUITE_P(Session, SessionTest, testing::Values("cpu", "cpu-ref"), PrintDevice);

// ---- the bundled examples against their NumPy references ----

struct ExampleCase {
  std::string model;
  std::string device;
};

// Keeps gtest from printing the parameter as raw bytes in test listings.
void PrintTo(const ExampleCase& c, std::ostream* os) { *os << c.model << " on " << c.device; }

class SessionExample : public testing::TestWithParam<ExampleCase> {};

// Every <dir>/<name>.npy, by name.
Expected<Feeds> ReadNpyFolder(const fs::path& dir) {
  Feeds out;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    if (entry.path().extension() != ".npy") continue;
    SY_ASSIGN_OR_RETURN(Tensor t, ReadNpy(entry.path()));
    out[entry.path().stem().string()] = std::move(t);
  }
  if (ec) return NotFound("cannot list " + dir.string() + ": " + ec.message());
  return out;
}

double AsDouble(const Tensor& t, int64_t i) {
  switch (t.dtype()) {
    case DType::kF32:
      return t.values<float>()[i];
    case DType::kF64:
      return t.values<double>()[i];
    case DType::kI32:
      return t.values<int32_t>()[i];
    case DType::kI64:
      return static_cast<double>(t.values<int64_t>()[i]);
    default:
      ADD_FAILURE() << "unexpected dtype in a reference";
      return 0;
  }
}

TEST_P(SessionExample, MatchesNumPyReference) {
  const ExampleCase& c = GetParam();
  const fs::path dir = fs::path(SY_SOURCE_DIR) / "examples" / c.model;
  Expected<Graph> graph = LoadModel(dir);
  SY_ASSERT_OK(graph);
  Expected<Feeds> inputs = ReadNpyFolder(dir / "inputs");
  SY_ASSERT_OK(inputs);
  Expected<Feeds> expected = ReadNpyFolder(dir / "expected");
  SY_ASSERT_OK(expected);
  ASSERT_FALSE(expected->empty());

  DiscoveryOptions options;
  options.scan_default_paths = false;
  options.explicit_plugins = {SY_CPU_PLUGIN_PATH};
  Expected<std::unique_ptr<PluginHost>> host = PluginHost::Create(options);
  SY_ASSERT_OK(host);
  Expected<const Device*> device = (*host)->FindDevice(c.device);
  SY_ASSERT_OK(device);
  Expected<std::unique_ptr<Session>> session = Session::Create(*graph, **device);
  SY_ASSERT_OK(session);
  // Both CPU devices read the weights where the model file's mapping holds them: no copy
  // (but of the constants the optimizer computed, such as a batch_norm folded into a conv,
  // which are writable tensors and copied).
  EXPECT_LE((*session)->stats().weights_in_place, (*session)->plan().weights[0].size());
  EXPECT_GT((*session)->stats().weights_in_place, 0u);

  for (int run = 0; run < 2; ++run) {  // a second run must agree as well
    Expected<Feeds> out = (*session)->Run(*inputs);
    SY_ASSERT_OK(out);
    ASSERT_EQ(out->size(), expected->size());
    for (const auto& [name, want] : *expected) {
      SCOPED_TRACE(c.model + " output " + name + " on " + c.device);
      ASSERT_TRUE(out->count(name));
      const Tensor& got = out->at(name);
      ASSERT_EQ(got.shape(), want.shape());
      int mismatches = 0;
      double max_diff = 0;
      for (int64_t i = 0; i < want.element_count(); ++i) {
        const double a = AsDouble(got, i), b = AsDouble(want, i);
        const double diff = std::fabs(a - b);
        max_diff = std::max(max_diff, diff);
        if (!(diff <= 1e-5 + 1e-4 * std::fabs(b)) && mismatches++ < 5) {
          ADD_FAILURE() << "element " << i << ": got " << a << ", expected " << b;
        }
      }
      EXPECT_EQ(mismatches, 0) << "max |diff| " << max_diff;
    }
  }
  session->reset();
}

std::string PrintExample(const testing::TestParamInfo<ExampleCase>& info) {
  return info.param.model + "_" + (info.param.device == "cpu" ? "cpu" : "cpu_ref");
}

INSTANTIATE_TEST_SUITE_P(Session, SessionExample,
                         testing::Values(ExampleCase{"mlp", "cpu"}, ExampleCase{"mlp", "cpu-ref"},
                                         ExampleCase{"cnn", "cpu"}, ExampleCase{"cnn", "cpu-ref"},
                                         ExampleCase{"transformer", "cpu"},
                                         ExampleCase{"transformer", "cpu-ref"}),
                         PrintExample);

}  // namespace
}  // namespace sy

namespace sy {
namespace {

// Host-memory devices read graph inputs where the caller keeps them (buffer_wrap_host):
// no copy, and the caller's tensor is unchanged.
// Weights the caller allocated (writable) are copied at Create: changing them afterwards
// does not change what the session computes. Read-only ones (a model file's mapping) are
// read in place (SessionExample checks those).
TEST_P(SessionTest, WritableWeightsAreCopied) {
  GraphBuilder g;
  const ValueId x = g.Input("x", DType::kF32, {1, 2});
  const ValueId w = g.Const("w", F32({2, 1}, {1, 2}));
  const ValueId y = g.Value("y", DType::kF32, {1, 1});
  g.Node("matmul", {x, w}, {y});
  g.Output(y);
  Graph graph = g.Build();
  std::unique_ptr<Session> session = Prepare(graph);
  ASSERT_NE(session, nullptr);
  EXPECT_EQ(session->stats().weights_in_place, 0u);
  graph.constants[0].data.mutable_values<float>()[0] = 100;  // the caller's storage
  Expected<Feeds> out = session->Run({{"x", F32({1, 2}, {3, 4})}});
  SY_ASSERT_OK(out);
  EXPECT_EQ(ValuesOf<float>(out->at("y")), std::vector<float>{11});  // 3*1 + 4*2
}

TEST_P(SessionTest, GraphInputsArePassedInPlace) {
  std::unique_ptr<Session> session = Prepare(DenseReluGraph());
  ASSERT_NE(session, nullptr);
  const Tensor x = F32({2, 3}, {1, 2, 3, 4, 5, 6});
  for (int run = 1; run <= 3; ++run) {
    Expected<Feeds> out = session->Run({{"x", x}});
    SY_ASSERT_OK(out);
    EXPECT_EQ(ValuesOf<float>(out->at("y")), DenseRelu(ValuesOf<float>(x)));
    EXPECT_EQ(session->stats().inputs_in_place, static_cast<uint64_t>(run));
  }
  EXPECT_EQ(ValuesOf<float>(x), (std::vector<float>{1, 2, 3, 4, 5, 6}));
}

// Both CPU devices take reshapes in place (SY_DEVICE_FLAG_RESHAPE_IN_PLACE): a chain of
// reshapes reads its first input's bytes, read by other nodes and as a graph output too.
TEST_P(SessionTest, ReshapesRunInPlace) {
  GraphBuilder g;
  const ValueId x = g.Input("x", DType::kF32, {2, 3});
  const ValueId a = g.Unary("neg", x, "a");
  auto reshape = [&g](ValueId in, Shape shape, const std::string& name) {
    const ValueId out = g.Value(name, DType::kF32, shape);
    Attrs attrs;
    attrs.Set("shape", std::vector<int64_t>(shape.begin(), shape.end()));
    g.Node("reshape", {in}, {out}, std::move(attrs), name);
    return out;
  };
  const ValueId r1 = reshape(a, {3, 2}, "r1");
  const ValueId r2 = reshape(r1, {6}, "r2");
  g.Output(r2);
  g.Output(g.Unary("abs", r1, "b"));
  g.Output(g.Binary("add", a, a, "c"));
  std::unique_ptr<Session> session = Prepare(g.Build());
  ASSERT_NE(session, nullptr);
  ASSERT_EQ(session->plan().aliases.size(), 2u);
  for (int run = 0; run < 3; ++run) {
    const std::vector<float> xs = {1, -2, 3, -4, 5, float(run)};
    Expected<Feeds> out = session->Run({{"x", F32({2, 3}, xs)}});
    SY_ASSERT_OK(out);
    std::vector<float> neg, abs, twice;
    for (float v : xs) {
      neg.push_back(-v);
      abs.push_back(std::fabs(v));
      twice.push_back(-2 * v);
    }
    EXPECT_EQ(out->at("r2").type(), (TensorType{DType::kF32, {6}}));
    EXPECT_EQ(ValuesOf<float>(out->at("r2")), neg);
    EXPECT_EQ(out->at("b").type(), (TensorType{DType::kF32, {3, 2}}));
    EXPECT_EQ(ValuesOf<float>(out->at("b")), abs);
    EXPECT_EQ(ValuesOf<float>(out->at("c")), twice);
  }
}

}  // namespace
}  // namespace sy

namespace sy {
namespace {

// A MobileNetV2 inverted residual then a ResNet basic block and a strided conv, written
// unfused: the optimization pass turns them into fused_convs (residuals from a graph
// input, from a conv output and from a value read by two convs), which the `cpu` device
// runs on oneDNN. The results must match cpu-ref. The `cpu` executable may keep values
// that flow only between convs channels-last (plugins/cpu/src/cpu_executable.h; which
// values is checked in tests/unit/plugins/cpu/cpu_executable_layout_test.cpp).
Graph ConvBlocksGraph() {
  GraphBuilder g;
  std::mt19937 rng(11);
  auto constant = [&](const std::string& name, Shape shape) {
    Tensor t = *Tensor::Allocate(DType::kF32, std::move(shape));
    std::uniform_real_distribution<float> uniform(-0.3f, 0.3f);
    for (float& v : t.mutable_values<float>()) v = uniform(rng);
    return g.Const(name, t);
  };
  auto node = [&](const std::string& op, std::vector<ValueId> in, Shape shape,
                  const std::string& name, Attrs attrs = {}) {
    const ValueId out = g.Value(name, DType::kF32, std::move(shape));
    g.Node(op, std::move(in), {out}, std::move(attrs), name);
    return out;
  };
  Attrs relu6, pad1, dw, down;
  relu6.Set("min", 0.0);
  relu6.Set("max", 6.0);
  pad1.Set("pads", std::vector<int64_t>{1, 1, 1, 1});
  dw = pad1;
  dw.Set("group", int64_t{24});
  down = pad1;
  down.Set("strides", std::vector<int64_t>{2, 2});
  const Shape s8 = {1, 8, 14, 14}, s24 = {1, 24, 14, 14};
  const ValueId x = g.Input("x", DType::kF32, s8);
  // Inverted residual: 1x1 expand, relu6, depthwise 3x3, relu6, 1x1 project, + x.
  ValueId h = node("conv", {x, constant("w1", {24, 8, 1, 1}), constant("b1", {24})}, s24, "h1");
  h = node("clip", {h}, s24, "r1", relu6);
  h = node("conv", {h, constant("w2", {24, 1, 3, 3}), constant("b2", {24})}, s24, "h2", dw);
  h = node("clip", {h}, s24, "r2", relu6);
  h = node("conv", {h, constant("w3", {8, 24, 1, 1}), constant("b3", {8})}, s8, "h3");
  const ValueId y1 = node("add", {h, x}, s8, "y1");
  // Basic block: conv, relu, conv, + y1, relu (y2 is a graph output too).
  h = node("conv", {y1, constant("w4", {8, 8, 3, 3}), constant("b4", {8})}, s8, "h4", pad1);
  h = node("relu", {h}, s8, "r4");
  h = node("conv", {h, constant("w5", {8, 8, 3, 3}), constant("b5", {8})}, s8, "h5", pad1);
  const ValueId y2 = node("relu", {node("add", {h, y1}, s8, "a5")}, s8, "y2");
  g.Output(y2);
  h = node("conv", {y2, constant("w6", {16, 8, 3, 3})}, {1, 16, 7, 7}, "h6", down);
  h = node("relu", {h}, {1, 16, 7, 7}, "y3");
  g.Output(node("global_avg_pool", {h}, {1, 16, 1, 1}, "pooled"));
  return g.Build();
}

TEST(SessionConvChain, CpuMatchesTheReferenceDevice) {
  DiscoveryOptions options;
  options.scan_default_paths = false;
  options.explicit_plugins = {SY_CPU_PLUGIN_PATH};
  Expected<std::unique_ptr<PluginHost>> host = PluginHost::Create(options);
  SY_ASSERT_OK(host);
  const Graph graph = ConvBlocksGraph();
  Tensor x = *Tensor::Allocate(DType::kF32, {1, 8, 14, 14});
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  for (float& v : x.mutable_values<float>()) v = uniform(rng);
  std::map<std::string, Feeds> results;
  for (const char* spec : {"cpu", "cpu-ref"}) {
    Expected<const Device*> device = (*host)->FindDevice(spec);
    SY_ASSERT_OK(device);
    Expected<std::unique_ptr<Session>> session = Session::Create(graph, **device);
    SY_ASSERT_OK(session);
    for (int run = 0; run < 2; ++run) {  // a second run reuses the kernels' buffers
      Expected<Feeds> out = (*session)->Run({{"x", x}});
      SY_ASSERT_OK(out);
      results[spec] = std::move(*out);
    }
  }
  for (const std::string name : {"y2", "pooled"}) {
    const Tensor& got = results["cpu"].at(name);
    const Tensor& want = results["cpu-ref"].at(name);
    ASSERT_EQ(got.type(), want.type()) << name;
    double scale = 0, worst = 0;
    for (size_t i = 0; i < want.values<float>().size(); ++i) {
      const double w = want.values<float>()[i], v = got.values<float>()[i];
      scale = std::max(scale, std::fabs(w));
      worst = std::max(worst, std::fabs(v - w));
    }
    EXPECT_GT(scale, 0.0) << name;
    EXPECT_LE(worst, 1e-5 * scale + 1e-6) << name << ": max |diff| " << worst;
  }
}

}  // namespace
}  // namespace sy
