// CUDA plugin benchmarks (issue 8's targets; docs/performance.md, "CUDA"):
//   BM_DirectCublas/{f32,f16}   one cublasGemmEx 4096x4096x4096 (f32: CUBLAS_COMPUTE_32F,
//                               no TF32; f16: f16 in and out, f32 compute), timed per
//                               iteration with CUDA events: the baseline
//   BM_SessionMatmul/{f32,f16}  the same product as a one-node graph run by sy::Session
//                               on `cuda`: Session::Run, host-to-device copies of both
//                               inputs and the copy of the output back included
//   BM_BoundSessionMatmul/{f32,f16}  the same session run with inputs and output bound as
//                               DeviceTensors on the GPU (IoBinding): no host copies
//   BM_ExecuteMatmul/{f32,f16}  the same partition prepared and executed through the
//                               plugin's C ABI (what a session's Run does between its
//                               copies): device buffers bound once, each iteration one
//                               `execute` (a CUDA-graph replay and one synchronisation).
//                               Target: >= 80% of BM_DirectCublas's TFLOP/s
//   BM_DispatchChain/N/graphs:G a chain of N `add` nodes on f32 [1, 8] through a session
//                               on `cuda`, CUDA graphs on (G=1, the default) or off (G=0,
//                               SWITCHYARD_CUDA_GRAPHS=0 at prepare); per node: the slope
//                               between N=10 and N=1000 (the summary prints it)
// Every benchmark reports wall time per iteration as manual time (CUDA events for the
// direct call) and, after its timed loop, checks its result (64 sampled elements of the
// products against a double-precision dot product; the chain's exact sum).
// Without a CUDA device every benchmark is skipped with "no CUDA device: <reason>" and the
// program exits 0; with one, it exits 1 when a benchmark failed (an error, a wrong result).
// Run from a build tree with the CUDA plugin (the binary finds the plugins as the CLI does),
// as tools/cuda_gpu_check.sh does:
//   build/cuda-check/bin/sy_cuda_benchmark --benchmark_min_time=0.2
// The summary printed last states the ratios and the per-node slopes.
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include "plugin/node_descriptors.h"
#include "switchyard/half.h"
#include "switchyard/model_io.h"
#include "switchyard/plugin_host.h"
#include "switchyard/session.h"

namespace {

using Clock = std::chrono::steady_clock;

constexpr int64_t kN = 4096;
constexpr double kMatmulFlops = 2.0 * kN * kN * kN;

// The host and its plugins; destroyed at the end of main, before the CUDA runtime's own
// exit handlers run.
std::unique_ptr<sy::PluginHost> g_host;

sy::PluginHost& Host() {
  if (!g_host) {
    auto h = sy::PluginHost::Create(sy::DiscoveryOptions{});
    if (!h.ok()) {
      std::fprintf(stderr, "%s\n", h.status().message().c_str());
      std::exit(1);
    }
    g_host = std::move(*h);
  }
  return *g_host;
}

// The `cuda` device, or why there is none ("no CUDA device: <reason>").
struct CudaLookup {
  const sy::Device* device = nullptr;
  std::string why_not;
};

const CudaLookup& Cuda() {
  static const CudaLookup lookup = [] {
    CudaLookup l;
    auto d = Host().FindDevice("cuda");
    if (d.ok()) {
      l.device = *d;
      return l;
    }
    // The plugin loaded but found no device: its scan candidate says why ("no devices: no
    // CUDA device: CUDA driver version is insufficient ..."). Otherwise the host's message
    // (the plugin is not built or not on the search path).
    std::string reason = d.status().message();
    for (const sy::PluginCandidate& c : Host().candidates()) {
      if (!c.loaded && c.path.filename() == "libswitchyard_cuda.so") {
        reason = c.reason;
        break;
      }
    }
    const std::string prefix = "no CUDA device: ";
    const size_t at = reason.find(prefix);
    if (at != std::string::npos) reason = reason.substr(at + prefix.size());
    l.why_not = prefix + reason;
    return l;
  }();
  return lookup;
}

// Why the CUDA runtime itself sees no device ("" when it sees one), for the direct calls.
std::string RuntimeWhyNot() {
  int count = 0;
  const cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess) {
    (void)cudaGetLastError();
    return std::string("no CUDA device: ") + cudaGetErrorString(err) + " (" +
           cudaGetErrorName(err) + " from cudaGetDeviceCount)";
  }
  if (count == 0) return "no CUDA device: cudaGetDeviceCount found none";
  return "";
}

// ---- results for the summary -------------------------------------------------------------

// The last measurement of each benchmark (Google Benchmark calls a function several times
// while it sizes the run; the last call is the one reported).
std::map<std::string, double>& Results() {
  static std::map<std::string, double> results;
  return results;
}
std::string g_skipped;  // the reason every CUDA benchmark was skipped, if one was

// No device: the benchmark is skipped with the reason (not a failure).
void Skip(benchmark::State& state, const std::string& why) {
  g_skipped = why;
  state.SkipWithError(why.c_str());
}

// A real error on a machine with a device (a CUDA or plugin failure, a wrong result): the
// benchmark stops and the program exits 1 at the end.
int g_failures = 0;
void Fail(benchmark::State& state, const std::string& what) {
  ++g_failures;
  state.SkipWithError(what.c_str());
}

// ---- inputs ------------------------------------------------------------------------------

// A kN x kN matrix of values in [-1, 1] (rounded to the dtype), the same for every benchmark
// that asks for the same dtype and seed.
const sy::Tensor& Matrix(sy::DType dtype, uint32_t seed) {
  static std::map<std::pair<int, uint32_t>, sy::Tensor> cache;
  const auto key = std::make_pair(static_cast<int>(dtype), seed);
  auto it = cache.find(key);
  if (it != cache.end()) return it->second;
  sy::Tensor t = *sy::Tensor::Allocate(dtype, {kN, kN});
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-1, 1);
  if (dtype == sy::DType::kF16) {
    for (uint16_t& v : t.mutable_values<uint16_t>()) v = sy::FloatToHalf(u(rng));
  } else {
    for (float& v : t.mutable_values<float>()) v = u(rng);
  }
  return cache.emplace(key, std::move(t)).first->second;
}

const char* DTypeText(sy::DType dtype) { return dtype == sy::DType::kF16 ? "f16" : "f32"; }

// Checks 64 sampled elements of C = A B (row-major, `c_at(i)` reads element i of C)
// against a double-precision dot product: the error must stay within a multiple of the
// dtype's rounding of sum |a b|. Returns "" or what is wrong.
template <typename ReadC>
std::string CheckProduct(sy::DType dtype, const sy::Tensor& a, const sy::Tensor& b, ReadC c_at) {
  const double tolerance = dtype == sy::DType::kF16 ? 4e-3 : 1e-5;
  std::mt19937 rng(7);
  std::uniform_int_distribution<int64_t> pick(0, kN - 1);
  for (int s = 0; s < 64; ++s) {
    const int64_t i = pick(rng), j = pick(rng);
    double exact = 0, magnitude = 0;
    for (int64_t k = 0; k < kN; ++k) {
      const double p = sy::ElementAsDouble(a, i * kN + k) * sy::ElementAsDouble(b, k * kN + j);
      exact += p;
      magnitude += std::fabs(p);
    }
    const double got = c_at(i * kN + j);
    if (!(std::fabs(got - exact) <= tolerance * magnitude + 1e-6)) {
      return "wrong result at [" + std::to_string(i) + ", " + std::to_string(j) +
             "]: " + std::to_string(got) + ", expected " + std::to_string(exact);
    }
  }
  return "";
}

void SetTflops(benchmark::State& state, double seconds, const std::string& key) {
  if (seconds <= 0 || state.iterations() == 0) return;
  const double tflops = kMatmulFlops * static_cast<double>(state.iterations()) / seconds * 1e-12;
  state.counters["TFLOP/s"] = tflops;
  Results()[key] = tflops;
}

// ---- BM_DirectCublas ---------------------------------------------------------------------

#define SY_CHECK_CUDA(expr)                                                      \
  do {                                                                           \
    const cudaError_t sy_err_ = (expr);                                          \
    if (sy_err_ != cudaSuccess) {                                                \
      Fail(state, std::string(#expr) + ": " + cudaGetErrorName(sy_err_) + " (" + \
                      cudaGetErrorString(sy_err_) + ")");                        \
      return;                                                                    \
    }                                                                            \
  } while (0)

#define SY_CHECK_CUBLAS(expr)                                               \
  do {                                                                      \
    const cublasStatus_t sy_st_ = (expr);                                   \
    if (sy_st_ != CUBLAS_STATUS_SUCCESS) {                                  \
      Fail(state, std::string(#expr) + ": " + cublasGetStatusName(sy_st_)); \
      return;                                                               \
    }                                                                       \
  } while (0)

// Device resources of one BM_DirectCublas call, freed on every exit.
struct DirectResources {
  cudaStream_t stream = nullptr;
  cudaEvent_t start = nullptr, stop = nullptr;
  cublasHandle_t handle = nullptr;
  void* a = nullptr;
  void* b = nullptr;
  void* c = nullptr;
  ~DirectResources() {
    if (stream != nullptr) (void)cudaStreamSynchronize(stream);
    if (handle != nullptr) cublasDestroy(handle);
    if (start != nullptr) cudaEventDestroy(start);
    if (stop != nullptr) cudaEventDestroy(stop);
    for (void* p : {a, b, c}) {
      if (p != nullptr) cudaFree(p);
    }
    if (stream != nullptr) cudaStreamDestroy(stream);
  }
};

void BM_DirectCublas(benchmark::State& state, sy::DType dtype) {
  const std::string why_not = RuntimeWhyNot();
  if (!why_not.empty()) return Skip(state, why_not);
  const sy::Tensor& a = Matrix(dtype, 1);
  const sy::Tensor& b = Matrix(dtype, 2);
  const size_t bytes = a.byte_size();
  const cudaDataType type = dtype == sy::DType::kF16 ? CUDA_R_16F : CUDA_R_32F;

  DirectResources r;
  SY_CHECK_CUDA(cudaSetDevice(0));
  SY_CHECK_CUDA(cudaStreamCreateWithFlags(&r.stream, cudaStreamNonBlocking));
  SY_CHECK_CUDA(cudaEventCreate(&r.start));
  SY_CHECK_CUDA(cudaEventCreate(&r.stop));
  SY_CHECK_CUDA(cudaMalloc(&r.a, bytes));
  SY_CHECK_CUDA(cudaMalloc(&r.b, bytes));
  SY_CHECK_CUDA(cudaMalloc(&r.c, bytes));
  SY_CHECK_CUDA(cudaMemcpy(r.a, a.data(), bytes, cudaMemcpyHostToDevice));
  SY_CHECK_CUDA(cudaMemcpy(r.b, b.data(), bytes, cudaMemcpyHostToDevice));
  SY_CHECK_CUBLAS(cublasCreate(&r.handle));
  SY_CHECK_CUBLAS(cublasSetStream(r.handle, r.stream));
  // The plugin's settings (plugins/cuda/src/cublas_util.cpp): no TF32 (the compute type
  // says so too), split-K reductions in the compute type. Workspace: cuBLAS's default.
  SY_CHECK_CUBLAS(cublasSetMathMode(
      r.handle, static_cast<cublasMath_t>(CUBLAS_DEFAULT_MATH |
                                          CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION)));
  const float alpha = 1, beta = 0;
  const int n = static_cast<int>(kN);
  // Row-major C = A B is column-major C^T = B^T A^T: B first.
  auto gemm = [&] {
    return cublasGemmEx(r.handle, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &alpha, r.b, type, n, r.a,
                        type, n, &beta, r.c, type, n, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
  };
  // Warm-up: cuBLAS picks and loads its kernel on the first call.
  for (int i = 0; i < 2; ++i) SY_CHECK_CUBLAS(gemm());
  SY_CHECK_CUDA(cudaStreamSynchronize(r.stream));

  double seconds = 0;
  for (auto _ : state) {
    SY_CHECK_CUDA(cudaEventRecord(r.start, r.stream));
    SY_CHECK_CUBLAS(gemm());
    SY_CHECK_CUDA(cudaEventRecord(r.stop, r.stream));
    SY_CHECK_CUDA(cudaEventSynchronize(r.stop));
    float ms = 0;
    SY_CHECK_CUDA(cudaEventElapsedTime(&ms, r.start, r.stop));
    state.SetIterationTime(ms * 1e-3);
    seconds += ms * 1e-3;
  }
  SetTflops(state, seconds, std::string("direct/") + DTypeText(dtype));

  sy::Tensor c = *sy::Tensor::Allocate(dtype, {kN, kN});
  SY_CHECK_CUDA(cudaMemcpy(c.mutable_data(), r.c, bytes, cudaMemcpyDeviceToHost));
  const std::string wrong =
      CheckProduct(dtype, a, b, [&](int64_t i) { return sy::ElementAsDouble(c, i); });
  if (!wrong.empty()) Fail(state, wrong);
}
BENCHMARK_CAPTURE(BM_DirectCublas, f32, sy::DType::kF32)
    ->Unit(benchmark::kMillisecond)
    ->UseManualTime();
BENCHMARK_CAPTURE(BM_DirectCublas, f16, sy::DType::kF16)
    ->Unit(benchmark::kMillisecond)
    ->UseManualTime();

// ---- the matmul through the stack --------------------------------------------------------

// a [kN, kN] x b [kN, kN] -> c, one node.
sy::Graph MatmulGraph(sy::DType dtype) {
  sy::Graph g;
  g.values = {{"a", {dtype, {kN, kN}}}, {"b", {dtype, {kN, kN}}}, {"c", {dtype, {kN, kN}}}};
  g.inputs = {0, 1};
  g.outputs = {2};
  g.nodes.push_back({"matmul", {0, 1}, {2}, {}, "", ""});
  if (!sy::ValidateGraphTypes(g).ok()) std::exit(1);
  return g;
}

void BM_SessionMatmul(benchmark::State& state, sy::DType dtype) {
  const CudaLookup& cuda = Cuda();
  if (cuda.device == nullptr) return Skip(state, cuda.why_not);
  const sy::Graph g = MatmulGraph(dtype);
  auto session = sy::Session::Create(g, *cuda.device);
  if (!session.ok()) return Fail(state, session.status().message());
  // The inputs are made once; each Run copies them to the device and the output back.
  const std::map<std::string, sy::Tensor> inputs{{"a", Matrix(dtype, 1)}, {"b", Matrix(dtype, 2)}};
  // Warm-up: the first Run captures the CUDA graph.
  auto first = (*session)->Run(inputs);
  if (!first.ok()) return Fail(state, first.status().message());

  double seconds = 0;
  for (auto _ : state) {
    const auto t0 = Clock::now();
    auto out = (*session)->Run(inputs);
    const double s = std::chrono::duration<double>(Clock::now() - t0).count();
    if (!out.ok()) return Fail(state, out.status().message());
    benchmark::DoNotOptimize(out);
    state.SetIterationTime(s);
    seconds += s;
  }
  SetTflops(state, seconds, std::string("session/") + DTypeText(dtype));

  const sy::Tensor& c = first->at("c");
  const std::string wrong = CheckProduct(dtype, inputs.at("a"), inputs.at("b"),
                                         [&](int64_t i) { return sy::ElementAsDouble(c, i); });
  if (!wrong.empty()) Fail(state, wrong);
}
BENCHMARK_CAPTURE(BM_SessionMatmul, f32, sy::DType::kF32)
    ->Unit(benchmark::kMillisecond)
    ->UseManualTime();
BENCHMARK_CAPTURE(BM_SessionMatmul, f16, sy::DType::kF16)
    ->Unit(benchmark::kMillisecond)
    ->UseManualTime();

// The same session run with its inputs and output bound as DeviceTensors on the GPU
// (switchyard/io_binding.h): no copy through host memory, so the figure is the execute's
// plus the session's bookkeeping. Target: close to BM_ExecuteMatmul.
void BM_BoundSessionMatmul(benchmark::State& state, sy::DType dtype) {
  const CudaLookup& cuda = Cuda();
  if (cuda.device == nullptr) return Skip(state, cuda.why_not);
  const sy::Graph g = MatmulGraph(dtype);
  auto session = sy::Session::Create(g, *cuda.device);
  if (!session.ok()) return Fail(state, session.status().message());
  const sy::Tensor a = Matrix(dtype, 1), b = Matrix(dtype, 2);
  auto a_dev = sy::DeviceTensor::FromHost(*cuda.device, a);
  auto b_dev = sy::DeviceTensor::FromHost(*cuda.device, b);
  auto c_dev = sy::DeviceTensor::Allocate(*cuda.device, {dtype, {kN, kN}});
  if (!a_dev.ok() || !b_dev.ok() || !c_dev.ok()) return Fail(state, "device tensors");
  sy::IoBinding io;
  io.BindInput("a", *a_dev);
  io.BindInput("b", *b_dev);
  io.BindOutput("c", *c_dev);
  const sy::Status first = (*session)->Run(io);  // warm-up: captures the CUDA graph
  if (!first.ok()) return Fail(state, first.message());
  double seconds = 0;
  for (auto _ : state) {
    const auto t0 = Clock::now();
    const sy::Status ran = (*session)->Run(io);
    const double s = std::chrono::duration<double>(Clock::now() - t0).count();
    if (!ran.ok()) return Fail(state, ran.message());
    state.SetIterationTime(s);
    seconds += s;
  }
  SetTflops(state, seconds, std::string("bound/") + DTypeText(dtype));
  const sy::Session::Stats& st = (*session)->stats();
  if (st.host_bytes_in != 0 || st.host_bytes_out != 0) {
    return Fail(state, "a bound run copied through host memory");
  }
  auto c = c_dev->ToHost();
  if (!c.ok()) return Fail(state, c.status().message());
  const std::string wrong =
      CheckProduct(dtype, a, b, [&](int64_t i) { return sy::ElementAsDouble(*c, i); });
  if (!wrong.empty()) Fail(state, wrong);
}
BENCHMARK_CAPTURE(BM_BoundSessionMatmul, f32, sy::DType::kF32)
    ->Unit(benchmark::kMillisecond)
    ->UseManualTime();
BENCHMARK_CAPTURE(BM_BoundSessionMatmul, f16, sy::DType::kF16)
    ->Unit(benchmark::kMillisecond)
    ->UseManualTime();

// A partition prepared on one device through the plugin's C ABI, with its bound buffers;
// everything released on destruction (buffers after the executable).
class AbiPartition {
 public:
  explicit AbiPartition(const sy::Device& device)
      : plugin_(*device.plugin), api_(device.plugin->api()), device_(device.index) {}
  ~AbiPartition() {
    if (executable_ != nullptr) api_->release(executable_);
    for (sy_buffer* b : buffers_) api_->buffer_free(b);
  }
  AbiPartition(const AbiPartition&) = delete;
  AbiPartition& operator=(const AbiPartition&) = delete;

  sy::Status Prepare(const sy_partition& partition) {
    return plugin_.TakeError(api_->prepare(plugin_.context(), device_, &partition, &executable_),
                             "prepare");
  }
  // Appends a bound buffer of `bytes`, filled from `host` when it is not null.
  sy::Status Bind(uint64_t bytes, const void* host) {
    sy_buffer* b = nullptr;
    sy::Status s = plugin_.TakeError(api_->buffer_alloc(plugin_.context(), device_, bytes, &b),
                                     "buffer_alloc");
    if (!s.ok()) return s;
    buffers_.push_back(b);
    if (host == nullptr) return sy::Status::Ok();
    return plugin_.TakeError(api_->copy_host_to_device(b, 0, host, bytes), "copy_host_to_device");
  }
  sy::Status Execute() {
    return plugin_.TakeError(
        api_->execute(executable_, static_cast<uint32_t>(buffers_.size()), buffers_.data()),
        "execute");
  }
  sy::Status Read(size_t index, void* host, uint64_t bytes) const {
    return plugin_.TakeError(api_->copy_device_to_host(buffers_[index], 0, host, bytes),
                             "copy_device_to_host");
  }

 private:
  const sy::Plugin& plugin_;
  const sy_plugin_api* api_;
  uint32_t device_;
  sy_executable* executable_ = nullptr;
  std::vector<sy_buffer*> buffers_;
};

void BM_ExecuteMatmul(benchmark::State& state, sy::DType dtype) {
  const CudaLookup& cuda = Cuda();
  if (cuda.device == nullptr) return Skip(state, cuda.why_not);
  const sy::Graph g = MatmulGraph(dtype);
  const sy::NodeDescriptors descriptors(g);
  const sy::PartitionDescriptor partition(descriptors, g, {0}, {0, 1}, {2});
  const sy::Tensor& a = Matrix(dtype, 1);
  const sy::Tensor& b = Matrix(dtype, 2);
  AbiPartition p(*cuda.device);
  sy::Status s = p.Prepare(partition.get());
  if (s.ok()) s = p.Bind(a.byte_size(), a.data());
  if (s.ok()) s = p.Bind(b.byte_size(), b.data());
  if (s.ok()) s = p.Bind(a.byte_size(), nullptr);
  if (s.ok()) s = p.Execute();  // warm-up: the first execute captures the CUDA graph
  if (!s.ok()) return Fail(state, s.message());

  double seconds = 0;
  for (auto _ : state) {
    const auto t0 = Clock::now();
    s = p.Execute();  // returns when the product is complete
    const double elapsed = std::chrono::duration<double>(Clock::now() - t0).count();
    if (!s.ok()) return Fail(state, s.message());
    state.SetIterationTime(elapsed);
    seconds += elapsed;
  }
  SetTflops(state, seconds, std::string("execute/") + DTypeText(dtype));

  sy::Tensor c = *sy::Tensor::Allocate(dtype, {kN, kN});
  const sy::Status read = p.Read(2, c.mutable_data(), c.byte_size());
  if (!read.ok()) return Fail(state, read.message());
  const std::string wrong =
      CheckProduct(dtype, a, b, [&](int64_t i) { return sy::ElementAsDouble(c, i); });
  if (!wrong.empty()) Fail(state, wrong);
}
BENCHMARK_CAPTURE(BM_ExecuteMatmul, f32, sy::DType::kF32)
    ->Unit(benchmark::kMillisecond)
    ->UseManualTime();
BENCHMARK_CAPTURE(BM_ExecuteMatmul, f16, sy::DType::kF16)
    ->Unit(benchmark::kMillisecond)
    ->UseManualTime();

// ---- BM_DispatchChain --------------------------------------------------------------------

// x -> add(x, c) -> add(., c) ... N times; c a [1, 8] constant of 0.5.
sy::Graph AddChain(int n) {
  sy::Graph g;
  g.values.push_back({"x", {sy::DType::kF32, {1, 8}}});
  g.values.push_back({"c", {sy::DType::kF32, {1, 8}}});
  g.inputs = {0};
  sy::Tensor c = *sy::Tensor::Allocate(sy::DType::kF32, {1, 8});
  for (float& v : c.mutable_values<float>()) v = 0.5f;
  g.constants.push_back({1, "", c});
  sy::ValueId last = 0;
  for (int i = 0; i < n; ++i) {
    std::string name = "h";  // not "h" + to_string(i): a false -Wrestrict in GCC 12
    name += std::to_string(i);
    g.values.push_back({std::move(name), {sy::DType::kF32, {1, 8}}});
    const sy::ValueId out = static_cast<sy::ValueId>(g.values.size() - 1);
    g.nodes.push_back({"add", {last, 1}, {out}, {}, "", ""});
    last = out;
  }
  g.outputs = {last};
  if (!sy::ValidateGraphTypes(g).ok()) std::exit(1);
  return g;
}

// Sets an environment variable for its lifetime, then restores the previous value.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    setenv(name, value, 1);
  }
  ~ScopedEnv() {
    if (old_) {
      setenv(name_, old_->c_str(), 1);
    } else {
      unsetenv(name_);
    }
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  const char* name_;
  std::optional<std::string> old_;
};

void BM_DispatchChain(benchmark::State& state) {
  const CudaLookup& cuda = Cuda();
  if (cuda.device == nullptr) return Skip(state, cuda.why_not);
  const int n = static_cast<int>(state.range(0));
  const bool graphs = state.range(1) != 0;
  const sy::Graph g = AddChain(n);
  // The plugin reads SWITCHYARD_CUDA_GRAPHS when it prepares (in Session::Create).
  auto session = [&] {
    ScopedEnv env("SWITCHYARD_CUDA_GRAPHS", graphs ? "1" : "0");
    return sy::Session::Create(g, *cuda.device);
  }();
  if (!session.ok()) return Fail(state, session.status().message());
  const std::map<std::string, sy::Tensor> inputs{
      {"x", *sy::Tensor::Allocate(sy::DType::kF32, {1, 8})}};
  // Warm-up (the first Run captures the CUDA graph) and a check: 0 + N * 0.5.
  auto first = (*session)->Run(inputs);
  if (!first.ok()) return Fail(state, first.status().message());
  for (float v : first->begin()->second.values<float>()) {
    if (v != 0.5f * static_cast<float>(n)) {
      return Fail(state,
                  "wrong result: " + std::to_string(v) + ", expected " + std::to_string(0.5 * n));
    }
  }

  double seconds = 0;
  for (auto _ : state) {
    const auto t0 = Clock::now();
    auto out = (*session)->Run(inputs);
    const double s = std::chrono::duration<double>(Clock::now() - t0).count();
    if (!out.ok()) return Fail(state, out.status().message());
    benchmark::DoNotOptimize(out);
    state.SetIterationTime(s);
    seconds += s;
  }
  if (state.iterations() == 0) return;
  const double per_run = seconds / static_cast<double>(state.iterations());
  // The whole Run (input and output copies included) divided by N; the summary's slope
  // between N=10 and N=1000 is the cost of one more node.
  state.counters["ns_per_node"] = per_run * 1e9 / n;
  Results()["chain/" + std::to_string(n) + "/" + (graphs ? "1" : "0")] = per_run;
}
BENCHMARK(BM_DispatchChain)
    ->ArgsProduct({{10, 100, 1000}, {1, 0}})
    ->ArgNames({"", "graphs"})
    ->Unit(benchmark::kMicrosecond)
    ->UseManualTime();

// ---- summary -----------------------------------------------------------------------------

void PrintSummary() {
  const auto& r = Results();
  auto get = [&](const std::string& key) -> std::optional<double> {
    auto it = r.find(key);
    return it == r.end() ? std::nullopt : std::optional<double>(it->second);
  };
  std::printf("\nsummary:\n");
  if (r.empty()) {
    std::printf("  nothing measured%s%s\n", g_skipped.empty() ? "" : ": ", g_skipped.c_str());
    return;
  }
  for (const char* dtype : {"f32", "f16"}) {
    const auto direct = get(std::string("direct/") + dtype);
    for (const char* via : {"execute", "bound", "session"}) {
      const auto tflops = get(std::string(via) + "/" + dtype);
      if (!direct || !tflops) continue;
      std::printf("  matmul 4096^3 %s, %-7s %7.2f TFLOP/s = %5.1f%% of direct cuBLAS (%.2f)%s\n",
                  dtype, via, *tflops, 100 * *tflops / *direct, *direct,
                  std::string(via) == "execute" ? "  target >= 80%"
                  : std::string(via) == "bound" ? "  (session, device tensors bound)"
                                                : "  (host copies included)");
    }
  }
  for (const char* graphs : {"1", "0"}) {
    const auto t10 = get(std::string("chain/10/") + graphs);
    const auto t1000 = get(std::string("chain/1000/") + graphs);
    if (!t10 || !t1000) continue;
    std::printf(
        "  add chain, CUDA graphs %s: %.1f us per Run at N=10, %.1f us at N=1000: "
        "%.1f ns per node (slope)\n",
        graphs[0] == '1' ? "on " : "off", *t10 * 1e6, *t1000 * 1e6, (*t1000 - *t10) / 990 * 1e9);
  }
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  PrintSummary();
  benchmark::Shutdown();
  g_host.reset();  // sessions are gone; the plugins shut down before the CUDA runtime
  return g_failures == 0 ? 0 : 1;
}
