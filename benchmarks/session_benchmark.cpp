// Session-level benchmarks of the CPU plugin (issue 3's targets):
//   BM_AddChain/N      run a chain of N `add` nodes on f32 [1, 8]: the per-node dispatch
//                      cost is the slope between N=10 and N=1000 (target < 100 ns/node)
//   BM_AddChainProfiled/N  the same with profiling on (docs/profiling.md): the cost of
//                      recording; BM_AddChain is the cost with it off
//   BM_PrepareChain/N/L  Session::Create for the same chain with the graph optimization pass
//                      at level L (0: off; target < 2 us/node, plus the pass at L = 1)
//   BM_MatmulSession   1024^3 f32 matmul through a session on `cpu`
//   BM_MatmulDirect    the same product with one direct cblas_sgemm call (target: the
//                      session reaches >= 95% of its throughput)
//   BM_MatmulSessionConstB  the same with b a constant of the model (weights: the cpu
//                      device prepacks it once at prepare)
//   BM_MatmulDirectOneDnn  dnnl_sgemm, and BM_MatmulDirectOneDnnPacked a oneDNN matmul
//                      primitive on prepacked weights (where oneDNN is built): the best
//                      sgemm on this CPU is the largest of the direct rows
//   BM_IsolatedRun/N/E/I  Session::Run of a chain of N `add` nodes on f32 [1, E], the cpu
//                      plugin in this process (I = 0) or in a worker process (I = 1,
//                      --isolate cpu; docs/plugin-isolation.md): the difference is the
//                      isolation's cost per run. Wall time (the worker's CPU time is not
//                      this process's).
//   BM_DynamicRun/N/D  Session::Run of the add chain at a seen shape, the graph static
//                      (D = 0) or with a run-time batch size (D = 1, docs/dynamic-shapes.md):
//                      the difference is a dynamic session's cost per run on a cache hit
//                      (target: at most 1 us)
//   BM_Specialize/N    a run that specialises: the chain with a run-time batch, two shapes
//                      taking turns in a cache of one, so that every run builds one
//   BM_DecodeStep/L    one token's run of the toy decoder (tests/data/decoder/, decoding
//                      state of capacity 32; docs/decoding.md) with L positions already in
//                      its state: how a token's cost grows as the past does
//   BM_BoundRun/B/D    Session::Run of a 2-add chain on 16 MiB tensors on cpu (D = 0) or
//                      opencl:0 (D = 1) with host tensors (B = 0) or DeviceTensors bound
//                      on the device (B = 1, IoBinding; docs/host-api.md)
//   BM_MlpRun          Session::Run of examples/mlp on `cpu` with its bundled input: the
//                      C++ side of benchmarks/python_overhead.py, which times the same run
//                      through the Python module (docs/performance.md, "Python")
// Run: build/release/bin/sy_session_benchmark --benchmark_repetitions=3
// The summary line printed last states the ratios.
#include <cblas.h>
#if SY_BENCH_HAS_ONEDNN
#include <dnnl.hpp>
#endif

#include <cstdio>
#include <random>

#include <benchmark/benchmark.h>

#include "switchyard/model_io.h"
#include "switchyard/npy.h"
#include "switchyard/plugin_host.h"
#include "switchyard/session.h"

namespace {

sy::PluginHost& Host() {
  static std::unique_ptr<sy::PluginHost> host = [] {
    sy::DiscoveryOptions options;
    options.num_threads = 1;
    auto h = sy::PluginHost::Create(options);
    if (!h.ok()) {
      std::fprintf(stderr, "%s\n", h.status().message().c_str());
      std::exit(1);
    }
    return std::move(*h);
  }();
  return *host;
}

const sy::Device& Cpu() {
  auto d = Host().FindDevice("cpu");
  if (!d.ok()) {
    std::fprintf(stderr, "%s\n", d.status().message().c_str());
    std::exit(1);
  }
  return **d;
}

// The cpu plugin alone, in a worker process.
sy::PluginHost& IsolatedHost() {
  static std::unique_ptr<sy::PluginHost> host = [] {
    sy::DiscoveryOptions options;
    options.num_threads = 1;
    options.isolate = {"cpu"};
    auto h = sy::PluginHost::Create(options);
    if (!h.ok()) {
      std::fprintf(stderr, "%s\n", h.status().message().c_str());
      std::exit(1);
    }
    return std::move(*h);
  }();
  return *host;
}

// x -> add(x, c) -> add(., c) ... N times; x and c f32 [1, E], c a constant.
sy::Graph AddChain(int n, int64_t elements = 8) {
  sy::Graph g;
  g.values.push_back({"x", {sy::DType::kF32, {1, elements}}});
  g.values.push_back({"c", {sy::DType::kF32, {1, elements}}});
  g.inputs = {0};
  sy::Tensor c = *sy::Tensor::Allocate(sy::DType::kF32, {1, elements});
  for (float& v : c.mutable_values<float>()) v = 0.5f;
  g.constants.push_back({1, "", c});
  sy::ValueId last = 0;
  for (int i = 0; i < n; ++i) {
    g.values.push_back({"h" + std::to_string(i), {sy::DType::kF32, {1, elements}}});
    const sy::ValueId out = static_cast<sy::ValueId>(g.values.size() - 1);
    g.nodes.push_back({"add", {last, 1}, {out}, {}, "", ""});
    last = out;
  }
  g.outputs = {last};
  if (!sy::ValidateGraphTypes(g).ok()) std::exit(1);
  return g;
}

// Runs `g` (an add chain) on `cpu` with x f32 [1, 8], once per iteration.
void RunChain(benchmark::State& state, const sy::Graph& g) {
  auto session = sy::Session::Create(g, Cpu());
  if (!session.ok()) {
    state.SkipWithError(session.status().message().c_str());
    return;
  }
  std::map<std::string, sy::Tensor> inputs{{"x", *sy::Tensor::Allocate(sy::DType::kF32, {1, 8})}};
  for (auto _ : state) {
    auto out = (*session)->Run(inputs);
    benchmark::DoNotOptimize(out);
  }
}

void BM_AddChain(benchmark::State& state) {
  RunChain(state, AddChain(static_cast<int>(state.range(0))));
  state.counters["per_node"] = benchmark::Counter(
      static_cast<double>(state.range(0)),
      benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_AddChain)->Arg(10)->Arg(1000);

// The chain with a run-time batch: x [batch, 8], every other value [?, 8].
sy::Graph DynamicAddChain(int n) {
  sy::Graph g = AddChain(n);
  g.symbols = {{"batch", 1, -1}};
  for (size_t id = 0; id < g.values.size(); ++id) {
    if (id == 1) continue;  // the constant
    sy::Value& v = g.values[id];
    v.symbolic_shape = {id == 0 ? sy::DimExpr::Symbol("batch") : sy::DimExpr::Unknown(),
                        sy::DimExpr(8)};
    v.type.shape[0] = -1;
  }
  return g;
}

void BM_DynamicRun(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  RunChain(state, state.range(1) != 0 ? DynamicAddChain(n) : AddChain(n));
}
BENCHMARK(BM_DynamicRun)->Args({10, 0})->Args({10, 1})->Args({100, 0})->Args({100, 1});

void BM_Specialize(benchmark::State& state) {
  const sy::Graph g = DynamicAddChain(static_cast<int>(state.range(0)));
  sy::PlanOptions options;
  options.devices = {&Cpu()};
  options.max_specializations = 1;
  auto session = sy::Session::Create(g, Host(), options);
  if (!session.ok()) {
    state.SkipWithError(session.status().message().c_str());
    return;
  }
  std::map<std::string, sy::Tensor> inputs[2] = {
      {{"x", *sy::Tensor::Allocate(sy::DType::kF32, {2, 8})}},
      {{"x", *sy::Tensor::Allocate(sy::DType::kF32, {3, 8})}}};
  int turn = 0;
  const sy::Session::Stats before = (*session)->stats();
  for (auto _ : state) {
    auto out = (*session)->Run(inputs[turn]);
    turn ^= 1;
    benchmark::DoNotOptimize(out);
  }
  state.counters["per_node"] = benchmark::Counter(
      static_cast<double>(state.range(0)),
      benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
  // cpu declares SY_DEVICE_FLAG_RESIZABLE and the chain's kernels take their sizes at run
  // time: each specialisation runs the previous one's executable instead of preparing.
  const sy::Session::Stats& after = (*session)->stats();
  state.counters["prepares"] = static_cast<double>(after.prepares - before.prepares);
  state.counters["resized"] =
      static_cast<double>(after.executables_resized - before.executables_resized);
}
BENCHMARK(BM_Specialize)->Arg(10)->Arg(100);

void BM_DecodeStep(benchmark::State& state) {
  auto graph = sy::LoadModel(std::string(SY_SOURCE_DIR) + "/tests/data/decoder/model.json");
  if (!graph.ok()) {
    state.SkipWithError(graph.status().message().c_str());
    return;
  }
  sy::PlanOptions options;
  options.devices = {&Cpu()};
  auto session = sy::Session::Create(*graph, Host(), options);
  if (!session.ok()) {
    state.SkipWithError(session.status().message().c_str());
    return;
  }
  const int64_t held = state.range(0);
  auto ids = [](int64_t n) {
    std::map<std::string, sy::Tensor> in{
        {"input_ids", *sy::Tensor::Allocate(sy::DType::kI64, {1, n})}};
    for (int64_t i = 0; i < n; ++i) in["input_ids"].mutable_values<int64_t>()[i] = i % 16;
    return in;
  };
  const auto prompt = ids(held), token = ids(1);
  for (auto _ : state) {
    state.PauseTiming();  // back to `held` positions: a new sequence and its prompt
    (void)(*session)->Reset();
    if (held > 0) (void)(*session)->Run(prompt);
    state.ResumeTiming();
    auto out = (*session)->Run(token);
    benchmark::DoNotOptimize(out);
  }
}
BENCHMARK(BM_DecodeStep)->Arg(0)->Arg(8)->Arg(16)->Arg(31);

// Session::Run of a chain of 2 `add` nodes on f32 [1, 4M] (16 MiB a tensor) on `cpu`
// (D = 0) or `opencl:0` (D = 1, skipped without one), with the input and output as host
// tensors (B = 0: on opencl the input is copied in and the output out, 32 MiB a run; on cpu
// the input is read in place and the output copied out) or as DeviceTensors bound on the
// device (B = 1, IoBinding: nothing through host memory).
void BM_BoundRun(benchmark::State& state) {
  const bool bound = state.range(0) != 0;
  auto device = Host().FindDevice(state.range(1) != 0 ? "opencl:0" : "cpu");
  if (!device.ok()) return state.SkipWithError(device.status().message().c_str());
  constexpr int64_t kElements = int64_t{1} << 22;
  auto session = sy::Session::Create(AddChain(2, kElements), **device);
  if (!session.ok()) return state.SkipWithError(session.status().message().c_str());
  const sy::Tensor x = *sy::Tensor::Allocate(sy::DType::kF32, {1, kElements});
  const std::map<std::string, sy::Tensor> inputs{{"x", x}};
  sy::IoBinding io;
  io.BindInput("x", *sy::DeviceTensor::FromHost(**device, x));
  io.BindOutput((*session)->output_names()[0], **device);
  for (auto _ : state) {
    const sy::Status ran = bound ? (*session)->Run(io) : (*session)->Run(inputs).status();
    if (!ran.ok()) return state.SkipWithError(ran.message().c_str());
  }
  const sy::Session::Stats& st = (*session)->stats();
  state.counters["host_MiB_per_run"] = static_cast<double>(st.host_bytes_in + st.host_bytes_out) /
                                       (1 << 20) / static_cast<double>(state.iterations());
}
BENCHMARK(BM_BoundRun)
    ->ArgsProduct({{0, 1}, {0, 1}})
    ->ArgNames({"bound", "opencl"})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();  // PoCL computes on threads of its own

void BM_MlpRun(benchmark::State& state) {
  auto graph = sy::LoadModel(SY_SOURCE_DIR "/examples/mlp");
  if (!graph.ok()) {
    state.SkipWithError(graph.status().message().c_str());
    return;
  }
  auto session = sy::Session::Create(*graph, Cpu());
  auto x = sy::ReadNpy(SY_SOURCE_DIR "/examples/mlp/inputs/x.npy");
  if (!session.ok() || !x.ok()) {
    state.SkipWithError("examples/mlp: no session or no input");
    return;
  }
  const std::map<std::string, sy::Tensor> inputs{{"x", *x}};
  for (auto _ : state) {
    auto out = (*session)->Run(inputs);
    benchmark::DoNotOptimize(out);
  }
}
BENCHMARK(BM_MlpRun);

// The same chain with profiling on (docs/profiling.md): each node timed by the cpu
// plugin and recorded by the session. The profile is cleared every 100 runs (outside
// the timing) so that it does not grow without bound.
void BM_AddChainProfiled(benchmark::State& state) {
  const sy::Graph g = AddChain(static_cast<int>(state.range(0)));
  auto session = sy::Session::Create(g, Cpu());
  if (!session.ok()) {
    state.SkipWithError(session.status().message().c_str());
    return;
  }
  (*session)->set_profiling(true);
  std::map<std::string, sy::Tensor> inputs{{"x", *sy::Tensor::Allocate(sy::DType::kF32, {1, 8})}};
  int64_t runs = 0;
  for (auto _ : state) {
    auto out = (*session)->Run(inputs);
    benchmark::DoNotOptimize(out);
    if (++runs % 100 == 0) {
      state.PauseTiming();
      (*session)->profile().Clear();
      state.ResumeTiming();
    }
  }
  state.counters["per_node"] = benchmark::Counter(
      static_cast<double>(state.range(0)),
      benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_AddChainProfiled)->Arg(10)->Arg(1000);

void BM_IsolatedRun(benchmark::State& state) {
  const int64_t elements = state.range(1);
  const sy::Graph g = AddChain(static_cast<int>(state.range(0)), elements);
  auto device = (state.range(2) != 0 ? IsolatedHost() : Host()).FindDevice("cpu");
  if (!device.ok()) {
    state.SkipWithError(device.status().message().c_str());
    return;
  }
  auto session = sy::Session::Create(g, **device);
  if (!session.ok()) {
    state.SkipWithError(session.status().message().c_str());
    return;
  }
  std::map<std::string, sy::Tensor> inputs{
      {"x", *sy::Tensor::Allocate(sy::DType::kF32, {1, elements})}};
  for (auto _ : state) {
    auto out = (*session)->Run(inputs);
    if (!out.ok()) {
      state.SkipWithError(out.status().message().c_str());
      return;
    }
    benchmark::DoNotOptimize(out);
  }
}
BENCHMARK(BM_IsolatedRun)
    ->ArgsProduct({{1, 100}, {8, 1 << 20}, {0, 1}})
    ->UseRealTime()
    ->Unit(benchmark::kMicrosecond);

void BM_PrepareChain(benchmark::State& state) {
  const sy::Graph g = AddChain(static_cast<int>(state.range(0)));
  for (auto _ : state) {
    auto session = sy::Session::Create(g, Cpu(), static_cast<int>(state.range(1)));
    benchmark::DoNotOptimize(session);
  }
  state.counters["per_node"] = benchmark::Counter(
      static_cast<double>(state.range(0)),
      benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_PrepareChain)->Args({1000, 0})->Args({1000, 1});

constexpr int kN = 1024;

sy::Tensor RandomMatrix(uint32_t seed) {
  sy::Tensor t = *sy::Tensor::Allocate(sy::DType::kF32, {kN, kN});
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-1, 1);
  for (float& v : t.mutable_values<float>()) v = u(rng);
  return t;
}

void SetFlops(benchmark::State& state) {
  state.counters["GFLOPS"] =
      benchmark::Counter(2.0 * kN * kN * kN * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
}

// a [kN, kN] x b [kN, kN] through a session on `cpu`; b is a graph input or, with
// `b_constant`, a constant of the model (weights: prepacked at prepare).
void RunMatmulSession(benchmark::State& state, bool b_constant) {
  sy::Graph g;
  g.values = {{"a", {sy::DType::kF32, {kN, kN}}},
              {"b", {sy::DType::kF32, {kN, kN}}},
              {"c", {sy::DType::kF32, {kN, kN}}}};
  g.inputs = b_constant ? std::vector<sy::ValueId>{0} : std::vector<sy::ValueId>{0, 1};
  if (b_constant) g.constants.push_back({1, "", RandomMatrix(2)});
  g.outputs = {2};
  g.nodes.push_back({"matmul", {0, 1}, {2}, {}, "", ""});
  if (!sy::ValidateGraphTypes(g).ok()) std::exit(1);
  auto session = sy::Session::Create(g, Cpu());
  if (!session.ok()) {
    state.SkipWithError(session.status().message().c_str());
    return;
  }
  std::map<std::string, sy::Tensor> inputs{{"a", RandomMatrix(1)}};
  if (!b_constant) inputs["b"] = RandomMatrix(2);
  for (auto _ : state) {
    auto out = (*session)->Run(inputs);
    benchmark::DoNotOptimize(out);
  }
  SetFlops(state);
  // Inputs passed in place per run (all of them when the CPU plugin wraps them: no copies).
  state.counters["inputs_in_place"] = static_cast<double>((*session)->stats().inputs_in_place) /
                                      static_cast<double>(state.iterations());
}

void BM_MatmulSession(benchmark::State& state) { RunMatmulSession(state, false); }
BENCHMARK(BM_MatmulSession)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_MatmulDirect(benchmark::State& state) {
  const sy::Tensor a = RandomMatrix(1), b = RandomMatrix(2);
  sy::Tensor c = *sy::Tensor::Allocate(sy::DType::kF32, {kN, kN});
  for (auto _ : state) {
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, kN, kN, kN, 1.0f,
                a.values<float>().data(), kN, b.values<float>().data(), kN, 0.0f,
                c.mutable_values<float>().data(), kN);
    benchmark::DoNotOptimize(c.mutable_data());
  }
  SetFlops(state);
}
BENCHMARK(BM_MatmulDirect)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_MatmulSessionConstB(benchmark::State& state) { RunMatmulSession(state, true); }
BENCHMARK(BM_MatmulSessionConstB)->Unit(benchmark::kMillisecond)->UseRealTime();

#if SY_BENCH_HAS_ONEDNN
void BM_MatmulDirectOneDnn(benchmark::State& state) {
  const sy::Tensor a = RandomMatrix(1), b = RandomMatrix(2);
  sy::Tensor c = *sy::Tensor::Allocate(sy::DType::kF32, {kN, kN});
  for (auto _ : state) {
    dnnl_sgemm('N', 'N', kN, kN, kN, 1.0f, a.values<float>().data(), kN, b.values<float>().data(),
               kN, 0.0f, c.mutable_values<float>().data(), kN);
    benchmark::DoNotOptimize(c.mutable_data());
  }
  SetFlops(state);
}
BENCHMARK(BM_MatmulDirectOneDnn)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_MatmulDirectOneDnnPacked(benchmark::State& state) {
  using dnnl::memory;
  const sy::Tensor a = RandomMatrix(1), b = RandomMatrix(2);
  sy::Tensor c = *sy::Tensor::Allocate(sy::DType::kF32, {kN, kN});
  const dnnl::engine eng(dnnl::engine::kind::cpu, 0);
  dnnl::stream stream(eng);
  const memory::desc plain({kN, kN}, memory::data_type::f32, memory::format_tag::ab);
  const memory::desc any({kN, kN}, memory::data_type::f32, memory::format_tag::any);
  const dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(plain, any, plain), eng);
  const dnnl::matmul matmul(pd);
  memory ma(plain, eng, const_cast<float*>(a.values<float>().data()));
  memory mb(plain, eng, const_cast<float*>(b.values<float>().data()));
  memory mc(plain, eng, c.mutable_values<float>().data());
  memory packed(pd.weights_desc(), eng);
  dnnl::reorder(mb, packed).execute(stream, mb, packed);
  stream.wait();
  for (auto _ : state) {
    matmul.execute(stream, {{DNNL_ARG_SRC, ma}, {DNNL_ARG_WEIGHTS, packed}, {DNNL_ARG_DST, mc}});
    stream.wait();
  }
  SetFlops(state);
}
BENCHMARK(BM_MatmulDirectOneDnnPacked)->Unit(benchmark::kMillisecond)->UseRealTime();
#endif

}  // namespace

BENCHMARK_MAIN();
