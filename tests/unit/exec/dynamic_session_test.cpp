// Dynamic sessions (docs/dynamic-shapes.md): one session runs a graph with run-time sizes
// at several shapes, specialising once per set of input shapes. The expected outputs are
// computed here from the graph's definition (relu(x @ w) flattened).
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>

#include "exec/cpu_host_suite.h"
#include "switchyard/half.h"
#include "switchyard/model_io.h"
#include "switchyard/plugin_host.h"
#include "switchyard/session.h"
#include "test_util.h"

namespace sy {
namespace {

constexpr const char* kGraph = R"json({
  "format": "rml-graph", "version": 1,
  "symbols": [{"name": "batch", "example": 2}, {"name": "seq", "example": 3}],
  "values": [
    {"name": "x", "dtype": "f32", "shape": ["batch", "seq", 4]},
    {"name": "w", "dtype": "f32", "shape": [4, 2]},
    {"name": "h", "dtype": "f32", "shape": ["batch", "seq", 2]},
    {"name": "r", "dtype": "f32", "shape": ["batch*seq", 2]},
    {"name": "y", "dtype": "f32", "shape": ["batch*seq", 2]}
  ],
  "inputs": [0], "outputs": [4],
  "constants": [{"value": 1, "data": [1, 0, 0, 1, 1, 1, -1, 2]}],
  "nodes": [
    {"op": "matmul", "inputs": [0, 1], "outputs": [2]},
    {"op": "reshape", "inputs": [2], "outputs": [3], "attr_exprs": {"shape": ["batch*seq", 2]}},
    {"op": "relu", "inputs": [3], "outputs": [4]}
  ]
})json";

class DynamicSessionTest : public test::CpuHostSuite<> {
 protected:
  std::unique_ptr<Session> Create(size_t max_specializations, const char* device = "cpu") {
    Expected<Graph> graph = ParseGraphJson(kGraph, nullptr);
    EXPECT_TRUE(graph.ok()) << graph.status().ToString();
    PlanOptions options;
    options.devices = {*host_->FindDevice(device)};
    options.max_specializations = max_specializations;
    Expected<std::unique_ptr<Session>> s = Session::Create(*graph, *host_, options);
    EXPECT_TRUE(s.ok()) << s.status().ToString();
    return s.ok() ? std::move(*s) : nullptr;
  }

  // A session for `json` with the CPU as its only device; null on failure.
  std::unique_ptr<Session> CreateOnCpu(const std::string& json) {
    Expected<Graph> graph = ParseGraphJson(json, nullptr);
    EXPECT_TRUE(graph.ok()) << graph.status().ToString();
    if (!graph.ok()) return nullptr;
    PlanOptions options;
    options.devices = {*host_->FindDevice("cpu")};
    Expected<std::unique_ptr<Session>> s = Session::Create(*graph, *host_, options);
    EXPECT_TRUE(s.ok()) << s.status().ToString();
    return s.ok() ? std::move(*s) : nullptr;
  }

  // ResizedMatMulsMatchTheReference's graph and checks, with `dtype` for every f32.
  void CheckResizedMatMuls(DType dtype);

  // Runs at [batch, seq, 4] with x[i] = (i % 7) - 3 and checks y = relu(x @ w).
  static void RunAndCheck(Session& session, int64_t batch, int64_t seq) {
    Tensor x = *Tensor::Allocate(DType::kF32, {batch, seq, 4});
    std::span<float> xs = x.mutable_values<float>();
    for (int64_t i = 0; i < x.element_count(); ++i) xs[i] = static_cast<float>(i % 7 - 3);
    Expected<std::map<std::string, Tensor>> out = session.Run({{"x", x}});
    ASSERT_TRUE(out.ok()) << out.status().ToString();
    const Tensor& y = out->at("y");
    ASSERT_EQ(y.type().ToString(), TensorType(DType::kF32, {batch * seq, 2}).ToString());
    const float w[4][2] = {{1, 0}, {0, 1}, {1, 1}, {-1, 2}};
    for (int64_t r = 0; r < batch * seq; ++r) {
      for (int c = 0; c < 2; ++c) {
        float sum = 0;
        for (int k = 0; k < 4; ++k) sum += xs[r * 4 + k] * w[k][c];
        EXPECT_FLOAT_EQ(y.values<float>()[r * 2 + c], std::max(sum, 0.0f)) << r << "," << c;
      }
    }
  }
};

TEST_F(DynamicSessionTest, RunsEveryShapeAndReusesSeenOnes) {
  std::unique_ptr<Session> session = Create(8);
  ASSERT_TRUE(session && session->dynamic());
  // Created at the symbols' examples: plan() has something to show before any run.
  EXPECT_EQ(session->stats().specializations, 1u);
  EXPECT_FALSE(session->plan().partitions.empty());
  RunAndCheck(*session, 2, 3);  // the examples: a hit
  RunAndCheck(*session, 1, 9);
  RunAndCheck(*session, 4, 1);
  EXPECT_EQ(session->stats().specializations, 3u);
  const Session::Stats before = session->stats();
  RunAndCheck(*session, 1, 9);
  RunAndCheck(*session, 2, 3);
  EXPECT_EQ(session->stats().specializations, 3u);
  EXPECT_EQ(session->stats().specialization_hits, before.specialization_hits + 2);
  // A seen shape allocates nothing and prepares nothing.
  EXPECT_EQ(session->stats().buffer_allocations, before.buffer_allocations);
  EXPECT_EQ(session->stats().prepares, before.prepares);
  EXPECT_EQ(session->graph().values[session->graph().inputs[0]].type.ToString(), "f32 [2, 3, 4]");
}

// cpu-ref declares SY_DEVICE_FLAG_RESIZABLE and none of its kernels is prepared for
// sizes: every specialisation after the first runs the first one's executable through
// execute_resized, with its own sizes, and prepares nothing.
TEST_F(DynamicSessionTest, ResizableDevicesRunOneExecutableAtEverySize) {
  std::unique_ptr<Session> session = Create(8, "cpu-ref");
  ASSERT_TRUE(session);
  EXPECT_EQ(session->stats().prepares, 1u);
  RunAndCheck(*session, 1, 9);
  RunAndCheck(*session, 4, 1);
  RunAndCheck(*session, 2, 3);  // back to the sizes it was prepared for
  RunAndCheck(*session, 1, 9);  // and to another set: the executable alternates
  RunAndCheck(*session, 3, 3);
  EXPECT_EQ(session->stats().specializations, 4u);
  EXPECT_EQ(session->stats().prepares, 1u);
  EXPECT_EQ(session->stats().executables_resized, 3u);
}

// What the optimizer does at one specialisation's sizes must give the graph every other
// specialisation gets, or each set of sizes prepares anew: a transpose of axes that are 1
// at these sizes only stays a transpose (Value::run_time_dims), and a constant folded
// from sizes that do not change (a range of dim(x, 2)) takes the storage an earlier
// specialisation's equal constant had (ExecutableShelf::InternConstants). Expected:
// y[s, b, k] = x[b, s, k] + k.
TEST_F(DynamicSessionTest, SizeIndependentRewritesKeepOneExecutable) {
  for (const char* device : {"cpu-ref", "cpu"}) {
    SCOPED_TRACE(device);
    Expected<Graph> graph = ParseGraphJson(R"json({
      "format": "rml-graph", "version": 1,
      "symbols": [{"name": "batch", "example": 2}, {"name": "seq", "example": 3}],
      "values": [
        {"name": "x", "dtype": "f32", "shape": ["batch", "seq", 4]},
        {"name": "t", "dtype": "f32", "shape": ["seq", "batch", 4]},
        {"name": "k", "dtype": "f32", "shape": [4]},
        {"name": "y", "dtype": "f32", "shape": ["seq", "batch", 4]}
      ],
      "inputs": [0], "outputs": [3],
      "nodes": [
        {"op": "transpose", "inputs": [0], "outputs": [1], "attrs": {"perm": [1, 0, 2]}},
        {"op": "range", "inputs": [], "outputs": [2],
         "attrs": {"start": 0.0, "delta": 1.0, "dtype": "f32"}, "attr_exprs": {"limit": "dim(0,2)"}},
        {"op": "add", "inputs": [1, 2], "outputs": [3]}
      ]})json",
                                           nullptr);
    SY_ASSERT_OK(graph);
    PlanOptions options;
    options.devices = {*host_->FindDevice(device)};
    Expected<std::unique_ptr<Session>> session = Session::Create(*graph, *host_, options);
    SY_ASSERT_OK(session);
    for (const auto& [batch, seq] : {std::pair<int64_t, int64_t>{1, 1}, {2, 3}, {1, 1}, {3, 1}}) {
      Tensor x = *Tensor::Allocate(DType::kF32, {batch, seq, 4});
      std::span<float> xs = x.mutable_values<float>();
      for (int64_t i = 0; i < x.element_count(); ++i) xs[i] = static_cast<float>(i);
      Expected<std::map<std::string, Tensor>> out = (*session)->Run({{"x", x}});
      SY_ASSERT_OK(out);
      std::span<const float> y = out->at("y").values<float>();
      ASSERT_EQ(y.size(), static_cast<size_t>(batch * seq * 4));
      for (int64_t s = 0; s < seq; ++s) {
        for (int64_t b = 0; b < batch; ++b) {
          for (int64_t k = 0; k < 4; ++k) {
            EXPECT_EQ(y[(s * batch + b) * 4 + k], xs[(b * seq + s) * 4 + k] + k);
          }
        }
      }
    }
    // The examples' specialisation prepared; [1, 1] and [3, 1] ran its executable.
    EXPECT_EQ((*session)->stats().prepares, 1u);
    EXPECT_EQ((*session)->stats().executables_resized, 2u);
  }
}

// The executable outlives the specialisation that prepared it while others run it.
TEST_F(DynamicSessionTest, ASharedExecutableOutlivesItsFirstSpecialization) {
  std::unique_ptr<Session> session = Create(1, "cpu-ref");
  ASSERT_TRUE(session);
  RunAndCheck(*session, 1, 9);  // evicts the examples' specialisation, which prepared it
  RunAndCheck(*session, 5, 2);
  EXPECT_EQ(session->stats().specializations_evicted, 2u);
  EXPECT_EQ(session->stats().prepares, 1u);
}

// On "cpu" the matmul runs a oneDNN primitive over weights packed at prepare: at other
// sizes (other rows M) the kernel builds a primitive for them over the same packed
// weights (PreparedKernel::Resized), so one prepare serves every specialisation.
TEST_F(DynamicSessionTest, PackedMatMulsRunAtEverySizeOverOnePack) {
  std::unique_ptr<Session> session = Create(8, "cpu");
  ASSERT_TRUE(session);
  RunAndCheck(*session, 1, 9);
  RunAndCheck(*session, 4, 1);
  RunAndCheck(*session, 1, 9);
  RunAndCheck(*session, 2, 3);
  EXPECT_EQ(session->stats().specializations, 3u);
  EXPECT_EQ(session->stats().prepares, 1u);
  EXPECT_EQ(session->stats().executables_resized, 2u);
}

// Numbers for a constant's "data": a deterministic spread over [-1, 1).
std::string Numbers(int count, int seed) {
  std::string out;
  for (int i = 0; i < count; ++i) {
    out += (i ? ", " : "") + std::to_string(((i * 37 + seed * 11) % 23) / 11.5 - 1.0);
  }
  return out;
}

void DynamicSessionTest::CheckResizedMatMuls(DType dtype) {
  const std::string json =
      R"json({
    "format": "rml-graph", "version": 1,
    "symbols": [{"name": "batch", "example": 2}],
    "values": [
      {"name": "x", "dtype": "f32", "shape": ["batch", 8]},
      {"name": "w", "dtype": "f32", "shape": [8, 6]},
      {"name": "b", "dtype": "f32", "shape": [6]},
      {"name": "h", "dtype": "f32", "shape": ["batch", 6]},
      {"name": "hb", "dtype": "f32", "shape": ["batch", 6]},
      {"name": "g", "dtype": "f32", "shape": ["batch", 6]},
      {"name": "v", "dtype": "f32", "shape": [5, 6]},
      {"name": "c", "dtype": "f32", "shape": [1, 5]},
      {"name": "y", "dtype": "f32", "shape": ["batch", 5]}
    ],
    "inputs": [0], "outputs": [8],
    "constants": [{"value": 1, "data": [)json" +
      Numbers(48, 1) + R"json(]}, {"value": 2, "data": [)json" + Numbers(6, 2) + R"json(]},
                  {"value": 6, "data": [)json" +
      Numbers(30, 3) + R"json(]}, {"value": 7, "data": [)json" + Numbers(5, 4) + R"json(]}],
    "nodes": [
      {"op": "matmul", "inputs": [0, 1], "outputs": [3]},
      {"op": "add", "inputs": [3, 2], "outputs": [4]},
      {"op": "gelu", "inputs": [4], "outputs": [5]},
      {"op": "gemm", "inputs": [5, 6, 7], "outputs": [8],
       "attrs": {"trans_b": 1, "alpha": 0.5, "beta": 2.0}}
    ]
  })json";
  std::string typed = json;
  const std::string name = "\"" + std::string(DTypeName(dtype)) + "\"";
  for (size_t at = typed.find("\"f32\""); at != std::string::npos;
       at = typed.find("\"f32\"", at + name.size())) {
    typed.replace(at, 5, name);
  }
  Expected<Graph> graph = ParseGraphJson(typed, nullptr);
  ASSERT_TRUE(graph.ok()) << graph.status().ToString();
  std::map<std::string, std::unique_ptr<Session>> sessions;
  for (const char* device : {"cpu", "cpu-ref"}) {
    PlanOptions options;
    options.devices = {*host_->FindDevice(device)};
    Expected<std::unique_ptr<Session>> made = Session::Create(*graph, *host_, options);
    ASSERT_TRUE(made.ok()) << made.status().ToString();
    sessions[device] = std::move(*made);
  }
  for (int64_t batch : {1, 7, 2, 33}) {
    Tensor x = *Tensor::Allocate(dtype, {batch, 8});
    for (int64_t i = 0; i < x.element_count(); ++i) {
      const float v = static_cast<float>(i % 9) / 4 - 1;  // exact in f16 too
      if (dtype == DType::kF16) {
        x.mutable_values<uint16_t>()[i] = FloatToHalf(v);
      } else {
        x.mutable_values<float>()[i] = v;
      }
    }
    Expected<std::map<std::string, Tensor>> got = sessions["cpu"]->Run({{"x", x}});
    Expected<std::map<std::string, Tensor>> want = sessions["cpu-ref"]->Run({{"x", x}});
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    ASSERT_TRUE(want.ok()) << want.status().ToString();
    const Tensor& a = got->at("y");
    const Tensor& b = want->at("y");
    ASSERT_EQ(a.type(), b.type());
    // f16: both round each op's output to f16 (values near 1: units of 2^-10), the
    // reference from double, `cpu` from f32 (half_as_f32.h).
    const double tolerance = dtype == DType::kF16 ? 4e-3 : 1e-5;
    for (int64_t i = 0; i < a.element_count(); ++i) {
      EXPECT_NEAR(ElementAsDouble(a, i), ElementAsDouble(b, i), tolerance) << "batch " << batch;
    }
  }
  const Session::Stats& stats = sessions["cpu"]->stats();
  EXPECT_EQ(stats.specializations, 4u);  // the example's and 3 more (batch 2 is the example)
  EXPECT_EQ(stats.prepares, 1u);
  EXPECT_EQ(stats.executables_resized, 3u);
  // The optimizer fused what it could: the fused kernels resized, not only plain matmul.
  bool fused = false;
  for (const Node& node : sessions["cpu"]->graph().nodes) fused |= node.op == "fused_matmul";
  EXPECT_TRUE(fused);
}

// The fused forms the optimizer makes of a decoder's projections (fused_matmul with a
// bias and an activation; gemm with alpha, beta, a transposed b and a c row), at batch
// sizes other than the prepared one on "cpu" (resized over the packed weights), against
// cpu-ref's reference kernels at the same sizes; in f32, and in f16, whose steps run on
// the f32 kernels (the widened weights packed once, resized like f32 ones).
TEST_F(DynamicSessionTest, ResizedMatMulsMatchTheReference) { CheckResizedMatMuls(DType::kF32); }

TEST_F(DynamicSessionTest, ResizedHalfMatMulsMatchTheReference) {
  CheckResizedMatMuls(DType::kF16);
}

// A run that resizes a shared executable and then fails in a kernel (a gather index out
// of range) leaves the executable at sizes nobody recorded: the specialisation it ran
// before must resize it back, not execute it as it is (which would read and write its
// buffers at the failed run's sizes).
TEST_F(DynamicSessionTest, AFailedResizedRunLeavesNoStaleSizes) {
  std::unique_ptr<Session> made = CreateOnCpu(R"json({
    "format": "rml-graph", "version": 1,
    "symbols": [{"name": "seq", "example": 7}],
    "values": [
      {"name": "x", "dtype": "f32", "shape": ["seq", 4]},
      {"name": "i", "dtype": "i64", "shape": [1]},
      {"name": "w", "dtype": "f32", "shape": [4, 2]},
      {"name": "y", "dtype": "f32", "shape": ["seq", 2]},
      {"name": "z", "dtype": "f32", "shape": [1, 2]}
    ],
    "inputs": [0, 1], "outputs": [3, 4],
    "constants": [{"value": 2, "data": [1, 0, 0, 1, 1, 1, -1, 2]}],
    "nodes": [
      {"op": "matmul", "inputs": [0, 2], "outputs": [3]},
      {"op": "gather", "inputs": [3, 1], "outputs": [4], "attrs": {"axis": 0}}
    ]
  })json");
  ASSERT_NE(made, nullptr);
  Session& session = *made;
  const float w[4][2] = {{1, 0}, {0, 1}, {1, 1}, {-1, 2}};
  const auto run = [&](int64_t seq, int64_t index) {
    Tensor x = *Tensor::Allocate(DType::kF32, {seq, 4});
    std::span<float> xs = x.mutable_values<float>();
    for (int64_t k = 0; k < x.element_count(); ++k) xs[k] = static_cast<float>(k % 5 - 2);
    Tensor i = *Tensor::Allocate(DType::kI64, {1});
    i.mutable_values<int64_t>()[0] = index;
    Expected<std::map<std::string, Tensor>> out = session.Run({{"x", x}, {"i", i}});
    if (!out.ok()) return out.status();
    for (int64_t r = 0; r < seq; ++r) {
      for (int c = 0; c < 2; ++c) {
        float sum = 0;
        for (int k = 0; k < 4; ++k) sum += xs[r * 4 + k] * w[k][c];
        EXPECT_FLOAT_EQ(out->at("y").values<float>()[r * 2 + c], sum) << seq << " " << r;
      }
    }
    return Status::Ok();
  };
  SY_EXPECT_OK(run(7, 0));
  SY_EXPECT_OK(run(1, 0));
  SY_EXPECT_ERROR(run(3, 5), "out of range");  // resized to 3 rows, then the gather fails
  SY_EXPECT_OK(run(1, 0));                     // 1 row again: resized back first
  SY_EXPECT_OK(run(3, 2));
  SY_EXPECT_OK(run(7, 6));
  EXPECT_EQ(session.stats().prepares, 1u);
}

// A prepared kernel whose node reads one value several times (more inputs than the
// partition has values) resizes: y = x @ x + x + x at three sizes.
TEST_F(DynamicSessionTest, ANodeReadingOneValueSeveralTimesResizes) {
  std::unique_ptr<Session> made = CreateOnCpu(R"json({
    "format": "rml-graph", "version": 1,
    "symbols": [{"name": "n", "example": 2}],
    "values": [
      {"name": "x", "dtype": "f32", "shape": ["n", "n"]},
      {"name": "y", "dtype": "f32", "shape": ["n", "n"]}
    ],
    "inputs": [0], "outputs": [1],
    "nodes": [{"op": "fused_matmul", "inputs": [0, 0, 0, 0], "outputs": [1]}]
  })json");
  ASSERT_NE(made, nullptr);
  for (int64_t n : {3, 5, 2, 3}) {
    Tensor x = *Tensor::Allocate(DType::kF32, {n, n});
    std::span<float> xs = x.mutable_values<float>();
    for (int64_t k = 0; k < x.element_count(); ++k) xs[k] = static_cast<float>(k % 3) - 1;
    Expected<std::map<std::string, Tensor>> out = made->Run({{"x", x}});
    ASSERT_TRUE(out.ok()) << out.status().ToString();
    for (int64_t r = 0; r < n; ++r) {
      for (int64_t c = 0; c < n; ++c) {
        float sum = 2 * xs[r * n + c];
        for (int64_t k = 0; k < n; ++k) sum += xs[r * n + k] * xs[k * n + c];
        EXPECT_FLOAT_EQ(out->at("y").values<float>()[r * n + c], sum) << n;
      }
    }
  }
  EXPECT_EQ(made->stats().prepares, 1u);
}

// A convolution's oneDNN primitive is prepared for its sizes and cannot take others: the
// plugin declines execute_resized once, the specialisation prepares its own, and later
// specialisations prepare without asking again. y = 3x3 window sums of x (w all ones).
TEST_F(DynamicSessionTest, ADeclinedResizePreparesAndIsNotAskedAgain) {
  std::string ones = "1";
  for (int i = 1; i < 16 * 16 * 9; ++i) ones += ", 1";
  std::unique_ptr<Session> made = CreateOnCpu(R"json({
    "format": "rml-graph", "version": 1,
    "symbols": [{"name": "batch", "example": 2}],
    "values": [
      {"name": "x", "dtype": "f32", "shape": ["batch", 16, 4, 4]},
      {"name": "w", "dtype": "f32", "shape": [16, 16, 3, 3]},
      {"name": "y", "dtype": "f32", "shape": ["batch", 16, 2, 2]}
    ],
    "inputs": [0], "outputs": [2],
    "constants": [{"value": 1, "data": [)json" +
                                              ones + R"json(]}],
    "nodes": [{"op": "conv", "inputs": [0, 1], "outputs": [2]}]
  })json");
  ASSERT_NE(made, nullptr);
  Session& session = *made;
  for (int64_t batch : {1, 3, 1}) {
    Tensor x = *Tensor::Allocate(DType::kF32, {batch, 16, 4, 4});
    std::span<float> xs = x.mutable_values<float>();
    for (int64_t i = 0; i < x.element_count(); ++i) xs[i] = static_cast<float>(i % 5);
    Expected<std::map<std::string, Tensor>> out = session.Run({{"x", x}});
    ASSERT_TRUE(out.ok()) << out.status().ToString();
    const Tensor& y = out->at("y");
    for (int64_t b = 0; b < batch; ++b) {
      for (int64_t i = 0; i < 2; ++i) {
        for (int64_t j = 0; j < 2; ++j) {
          float sum = 0;  // every output channel sums every input channel's window
          for (int64_t c = 0; c < 16; ++c) {
            for (int64_t di = 0; di < 3; ++di) {
              for (int64_t dj = 0; dj < 3; ++dj)
                sum += xs[((b * 16 + c) * 4 + i + di) * 4 + j + dj];
            }
          }
          for (int64_t o = 0; o < 16; ++o) {
            EXPECT_FLOAT_EQ(y.values<float>()[((b * 16 + o) * 2 + i) * 2 + j], sum);
          }
        }
      }
    }
  }
  EXPECT_EQ(session.stats().specializations, 3u);
  EXPECT_EQ(session.stats().prepares, 3u);
  EXPECT_EQ(session.stats().executables_resized, 0u);
}

TEST_F(DynamicSessionTest, KeepsAtMostTheConfiguredNumber) {
  std::unique_ptr<Session> session = Create(2);
  ASSERT_TRUE(session);
  RunAndCheck(*session, 1, 1);
  RunAndCheck(*session, 1, 2);  // evicts the examples' specialisation
  RunAndCheck(*session, 1, 1);
  RunAndCheck(*session, 1, 3);  // evicts [1, 2], the least recently used
  EXPECT_EQ(session->stats().specializations, 4u);
  EXPECT_EQ(session->stats().specializations_evicted, 2u);
  RunAndCheck(*session, 1, 2);  // built again
  EXPECT_EQ(session->stats().specializations, 5u);
}

TEST_F(DynamicSessionTest, MemoryLimitsAreCheckedPerSpecialization) {
  Expected<Graph> graph = ParseGraphJson(kGraph, nullptr);
  ASSERT_TRUE(graph.ok());
  PlanOptions options;
  const Device* cpu = *host_->FindDevice("cpu");
  options.devices = {cpu};
  options.memory_limits[cpu] = 64 << 10;  // 64 KiB: batch*seq up to about 2000
  Expected<std::unique_ptr<Session>> made = Session::Create(*graph, *host_, options);
  ASSERT_TRUE(made.ok()) << made.status().ToString();
  Session& session = **made;
  RunAndCheck(session, 4, 8);
  Tensor big = *Tensor::Allocate(DType::kF32, {100, 100, 4});
  // Refused before anything runs, with the sizes and the numbers; the session goes on.
  SY_EXPECT_ERROR(session.Run({{"x", big}}), "with batch=100, seq=100: ");
  SY_EXPECT_ERROR(session.Run({{"x", big}}), "cannot hold the plan: it needs");
  RunAndCheck(session, 2, 5);
}

TEST_F(DynamicSessionTest, BadInputsAreErrorsAndTheSessionStaysUsable) {
  std::unique_ptr<Session> session = Create(8);
  ASSERT_TRUE(session);
  SY_EXPECT_ERROR(session->Run({}), "missing input \"x\" (f32 [batch, seq, 4])");
  Tensor wrong_dtype = *Tensor::Allocate(DType::kI64, {1, 1, 4});
  SY_EXPECT_ERROR(session->Run({{"x", wrong_dtype}}),
                  "input \"x\" is i64 [1, 1, 4] but the model expects f32 [batch, seq, 4]");
  Tensor wrong_dim = *Tensor::Allocate(DType::kF32, {1, 1, 5});
  SY_EXPECT_ERROR(session->Run({{"x", wrong_dim}}), "dim 2 must be 4");
  RunAndCheck(*session, 3, 2);
}

// A size decided by data: n = sum(counts), computed by the graph, then y = x[:n] * 2 in
// a second stage specialised once n is known; and k, a data symbol read from an input.
constexpr const char* kStagedGraph = R"json({
  "format": "rml-graph", "version": 1,
  "symbols": [{"name": "len", "example": 8}, {"name": "n", "example": 3, "value": 3},
              {"name": "k", "example": 2, "value": 2}],
  "values": [
    {"name": "x", "dtype": "f32", "shape": ["len"]},
    {"name": "counts", "dtype": "i64", "shape": [3]},
    {"name": "kk", "dtype": "i64", "shape": [1]},
    {"name": "n_value", "dtype": "i64", "shape": []},
    {"name": "head", "dtype": "f32", "shape": ["?"]},
    {"name": "two", "dtype": "f32", "shape": []},
    {"name": "y", "dtype": "f32", "shape": ["?"]},
    {"name": "top", "dtype": "f32", "shape": ["k"]},
    {"name": "top_i", "dtype": "i64", "shape": ["k"]}
  ],
  "inputs": [0, 1, 2], "outputs": [6, 7],
  "constants": [{"value": 5, "data": [2.0]}],
  "nodes": [
    {"op": "reduce_sum", "inputs": [1], "outputs": [3], "attrs": {"keepdims": 0}},
    {"op": "slice", "inputs": [0], "outputs": [4],
     "attrs": {"starts": [0], "axes": [0], "steps": [1]}, "attr_exprs": {"ends": ["n"]}},
    {"op": "mul", "inputs": [4, 5], "outputs": [6]},
    {"op": "topk", "inputs": [0], "outputs": [7, 8], "attr_exprs": {"k": "k"}}
  ]
})json";

TEST_F(DynamicSessionTest, StagesRunOnceADataSizeIsKnown) {
  Expected<Graph> graph = ParseGraphJson(kStagedGraph, nullptr);
  ASSERT_TRUE(graph.ok()) << graph.status().ToString();
  ASSERT_TRUE(ValidateGraphTypes(*graph).ok());
  Expected<std::unique_ptr<Session>> made = Session::Create(*graph, **host_->FindDevice("cpu"));
  ASSERT_TRUE(made.ok()) << made.status().ToString();
  Session& session = **made;
  auto run = [&](std::vector<int64_t> counts, int64_t k) {
    Tensor x = *Tensor::Allocate(DType::kF32, {8});
    for (int i = 0; i < 8; ++i) x.mutable_values<float>()[i] = static_cast<float>(i);
    Tensor c = *Tensor::Allocate(DType::kI64, {3});
    std::copy(counts.begin(), counts.end(), c.mutable_values<int64_t>().begin());
    Tensor kt = *Tensor::Allocate(DType::kI64, {1});
    kt.mutable_values<int64_t>()[0] = k;
    return session.Run({{"x", x}, {"counts", c}, {"kk", kt}});
  };
  for (const auto& [counts, k] : std::vector<std::pair<std::vector<int64_t>, int64_t>>{
           {{1, 2, 0}, 2}, {{0, 0, 0}, 1}, {{2, 2, 4}, 3}, {{1, 2, 0}, 2}}) {
    auto out = run(counts, k);
    ASSERT_TRUE(out.ok()) << out.status().ToString();
    const int64_t n = std::min<int64_t>(8, counts[0] + counts[1] + counts[2]);
    const Tensor& y = out->at("y");
    ASSERT_EQ(y.element_count(), n);
    for (int64_t i = 0; i < n; ++i) EXPECT_EQ(y.values<float>()[i], 2.0f * static_cast<float>(i));
    const Tensor& top = out->at("top");
    ASSERT_EQ(top.element_count(), k);
    for (int64_t i = 0; i < k; ++i) EXPECT_EQ(top.values<float>()[i], 7.0f - static_cast<float>(i));
  }
  // Stage 0 (the sum, topk) specialised for 3 k's, stage 1 for n = 3, 0 and 8; the last
  // run found both of its in the cache.
  EXPECT_EQ(session.stats().specializations, 6u);
  EXPECT_EQ(session.stats().specialization_hits, 2u);
  SY_EXPECT_ERROR(run({-5, 0, 0}, 2), "symbol n takes its size from 'n_value', which holds -5");
}

// TopK with k a graph input, as the ONNX importer writes it: the input only gives data
// symbol k its value and no node reads it, so the graph runs in one stage whose graph
// must still take every graph input (it once took only x, and every run failed with
// "expected shapes for 1 graph inputs, got 2").
constexpr const char* kTopKOfInputK = R"json({
  "format": "rml-graph", "version": 1,
  "symbols": [{"name": "k", "example": 3, "value": 1}],
  "values": [
    {"name": "x", "dtype": "f32", "shape": [2, 5]},
    {"name": "k", "dtype": "i64", "shape": [1]},
    {"name": "v", "dtype": "f32", "shape": ["?", "?"]},
    {"name": "i", "dtype": "i64", "shape": ["?", "?"]}
  ],
  "inputs": [0, 1], "outputs": [2, 3],
  "nodes": [
    {"op": "topk", "inputs": [0], "outputs": [2, 3], "attrs": {"axis": 1},
     "attr_exprs": {"k": "k"}}
  ]
})json";

TEST_F(DynamicSessionTest, AnInputThatOnlyGivesADataSymbolItsValueIsTaken) {
  Expected<Graph> graph = ParseGraphJson(kTopKOfInputK, nullptr);
  ASSERT_TRUE(graph.ok()) << graph.status().ToString();
  ASSERT_TRUE(ValidateGraphTypes(*graph).ok());
  Expected<std::unique_ptr<Session>> made = Session::Create(*graph, **host_->FindDevice("cpu"));
  ASSERT_TRUE(made.ok()) << made.status().ToString();
  Tensor x = *Tensor::Allocate(DType::kF32, {2, 5});
  const float data[10] = {3, 9, 1, 7, 5, 0, 2, 8, 6, 4};
  std::copy(data, data + 10, x.mutable_values<float>().begin());
  for (int64_t k : {3, 1, 5}) {
    Tensor kt = *Tensor::Allocate(DType::kI64, {1});
    kt.mutable_values<int64_t>()[0] = k;
    auto out = (*made)->Run({{"x", x}, {"k", kt}});
    ASSERT_TRUE(out.ok()) << out.status().ToString();
    const Tensor& v = out->at("v");
    ASSERT_EQ(v.shape()[1], k);
    // Row 0 sorted descending: 9 7 5 3 1; row 1: 8 6 4 2 0.
    for (int64_t j = 0; j < k; ++j) {
      EXPECT_EQ(v.values<float>()[j], 9.0f - 2.0f * static_cast<float>(j));
      EXPECT_EQ(v.values<float>()[k + j], 8.0f - 2.0f * static_cast<float>(j));
    }
  }
}

// A later stage that uses an input's symbol (len) without reading that input: its cache
// key must still tell len = 4 from len = 5.
constexpr const char* kLaterStageUsesLen = R"json({
  "format": "rml-graph", "version": 1,
  "symbols": [{"name": "len", "example": 4}, {"name": "n", "example": 3, "value": 2}],
  "values": [
    {"name": "x", "dtype": "f32", "shape": ["len"]},
    {"name": "counts", "dtype": "i64", "shape": [3]},
    {"name": "n_value", "dtype": "i64", "shape": []},
    {"name": "r", "dtype": "f32", "shape": ["n+len"]}
  ],
  "inputs": [0, 1], "outputs": [3],
  "nodes": [
    {"op": "reduce_sum", "inputs": [1], "outputs": [2], "attrs": {"keepdims": 0}},
    {"op": "range", "inputs": [], "outputs": [3], "attrs": {"start": 0.0, "delta": 1.0,
     "dtype": "f32"}, "attr_exprs": {"limit": "n+len"}}
  ]
})json";

TEST_F(DynamicSessionTest, LaterStagesAreKeyedByEverySizeTheyUse) {
  Expected<Graph> graph = ParseGraphJson(kLaterStageUsesLen, nullptr);
  ASSERT_TRUE(graph.ok()) << graph.status().ToString();
  Expected<std::unique_ptr<Session>> made = Session::Create(*graph, **host_->FindDevice("cpu"));
  ASSERT_TRUE(made.ok()) << made.status().ToString();
  Tensor counts = *Tensor::Allocate(DType::kI64, {3});
  counts.mutable_values<int64_t>()[0] = 3;  // n = 3
  for (int64_t len : {4, 5, 4}) {
    Tensor x = *Tensor::Allocate(DType::kF32, {len});
    auto out = (*made)->Run({{"x", x}, {"counts", counts}});
    ASSERT_TRUE(out.ok()) << out.status().ToString();
    EXPECT_EQ(out->at("r").element_count(), 3 + len);
  }
}

TEST(SpecializingSessionStructure, DataSymbolsNeedARunTimeValueDefinedBeforeUse) {
  std::string text = kLaterStageUsesLen;
  // Bound by a constant: no run-time size.
  std::string constant = text;
  constant.replace(constant.find(R"("outputs": [3],)"), 15,
                   R"("outputs": [3], "constants": [{"value": 2, "data": [3]}],)");
  constant.replace(
      constant.find(
          R"({"op": "reduce_sum", "inputs": [1], "outputs": [2], "attrs": {"keepdims": 0}},)"),
      78, "");
  SY_EXPECT_ERROR(ParseGraphJson(constant, nullptr),
                  "symbol n is bound by value 2 \"n_value\", which is not a graph input or a node "
                  "output");
}

}  // namespace
}  // namespace sy
