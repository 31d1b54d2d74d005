// The CPU plugin's fast kernels called directly (no session), on f32 [4096, 1024]:
//   BM_<op>/0   the reference kernel (RefKernels(), one thread)
//   BM_<op>/T   the fast kernel (FastKernels()) with a ThreadPool of T threads
// Times are wall-clock (the workers' time is not the caller's CPU time). The summary
// printed last gives, per op, fast(1 thread) over reference and the threading speed-up
// fast(1) / fast(T), from the fastest repetition of each.
// Run: build/release/bin/sy_cpu_kernels_benchmark --benchmark_repetitions=3
#include <cstdio>
#include <map>
#include <random>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include "fast/fast_kernels.h"
#include "ref/ref_kernels.h"
#include "switchyard/tensor.h"
#include "thread_pool.h"

namespace {

using sy::cpu::ConstTensorView;
using sy::cpu::KernelContext;
using sy::cpu::TensorView;

constexpr int64_t kRows = 4096, kCols = 1024;

sy::Tensor Random(sy::Shape shape, uint32_t seed) {
  sy::Tensor t = *sy::Tensor::Allocate(sy::DType::kF32, std::move(shape));
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-4, 4);
  for (float& v : t.mutable_values<float>()) v = u(rng);
  return t;
}

sy::cpu::ThreadPool* Pool(int threads) {
  static std::map<int, std::unique_ptr<sy::cpu::ThreadPool>> pools;  // built before timing
  auto& p = pools[threads];
  if (!p) p = std::make_unique<sy::cpu::ThreadPool>(threads);
  return p.get();
}

// Runs `op` on `inputs` into a fresh output of `out_shape`; range(0) picks the kernel.
void RunKernel(benchmark::State& state, const char* op, const std::vector<sy::Tensor>& inputs,
               sy::Shape out_shape, const sy::Attrs& attrs) {
  const int threads = static_cast<int>(state.range(0));
  const sy::cpu::KernelFn fn =
      (threads == 0 ? sy::cpu::RefKernels() : sy::cpu::FastKernels()).Find(op);
  std::vector<ConstTensorView> in;
  for (const sy::Tensor& t : inputs) in.push_back({t.type(), t.data()});
  sy::Tensor out = *sy::Tensor::Allocate(sy::DType::kF32, std::move(out_shape));
  const std::vector<TensorView> outs = {{out.type(), out.mutable_data()}};
  const KernelContext ctx{op, in, outs, attrs, threads == 0 ? nullptr : Pool(threads)};
  for (auto _ : state) {
    if (!fn(ctx).ok()) state.SkipWithError("kernel failed");
    benchmark::DoNotOptimize(out.mutable_data());
  }
  state.SetBytesProcessed(state.iterations() * kRows * kCols * 4 * 2);  // read x, write y
}

void BM_Add(benchmark::State& state) {
  static const std::vector<sy::Tensor> in = {Random({kRows, kCols}, 1), Random({kRows, kCols}, 2)};
  RunKernel(state, "add", in, {kRows, kCols}, {});
}
void BM_AddBias(benchmark::State& state) {
  static const std::vector<sy::Tensor> in = {Random({kRows, kCols}, 1), Random({kCols}, 2)};
  RunKernel(state, "add", in, {kRows, kCols}, {});
}
void BM_Gelu(benchmark::State& state) {
  static const std::vector<sy::Tensor> in = {Random({kRows, kCols}, 1)};
  sy::Attrs attrs;
  attrs.Set("approximate", sy::AttrValue(std::string("none")));
  RunKernel(state, "gelu", in, {kRows, kCols}, attrs);
}
void BM_Tanh(benchmark::State& state) {
  static const std::vector<sy::Tensor> in = {Random({kRows, kCols}, 1)};
  RunKernel(state, "tanh", in, {kRows, kCols}, {});
}
void BM_Softmax(benchmark::State& state) {
  static const std::vector<sy::Tensor> in = {Random({kRows, kCols}, 1)};
  sy::Attrs attrs;
  attrs.Set("axis", sy::AttrValue(int64_t{-1}));
  RunKernel(state, "softmax", in, {kRows, kCols}, attrs);
}
void BM_LayerNorm(benchmark::State& state) {
  static const std::vector<sy::Tensor> in = {Random({kRows, kCols}, 1), Random({kCols}, 2),
                                             Random({kCols}, 3)};
  sy::Attrs attrs;
  attrs.Set("axis", sy::AttrValue(int64_t{-1}));
  attrs.Set("epsilon", sy::AttrValue(1e-5));
  RunKernel(state, "layer_norm", in, {kRows, kCols}, attrs);
}
void BM_ReduceSum(benchmark::State& state) {
  static const std::vector<sy::Tensor> in = {Random({kRows, kCols}, 1)};
  sy::Attrs attrs;
  attrs.Set("axes", sy::AttrValue(std::vector<int64_t>{-1}));
  attrs.Set("keepdims", sy::AttrValue(int64_t{1}));
  RunKernel(state, "reduce_sum", in, {kRows, 1}, attrs);
}

#define SY_KERNEL_BENCHMARK(fn) \
  BENCHMARK(fn)->Arg(0)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime()
SY_KERNEL_BENCHMARK(BM_Add);
SY_KERNEL_BENCHMARK(BM_AddBias);
SY_KERNEL_BENCHMARK(BM_Gelu);
SY_KERNEL_BENCHMARK(BM_Tanh);
SY_KERNEL_BENCHMARK(BM_Softmax);
SY_KERNEL_BENCHMARK(BM_LayerNorm);
SY_KERNEL_BENCHMARK(BM_ReduceSum);

// Console output as usual, plus the fastest wall time of each benchmark for the summary.
class RatioReporter : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    ConsoleReporter::ReportRuns(runs);
    for (const Run& r : runs) {
      if (r.run_type != Run::RT_Iteration || r.error_occurred) continue;
      const std::string name = r.benchmark_name();
      const double t = r.GetAdjustedRealTime();
      if (!best_.count(name) || t < best_[name]) best_[name] = t;
    }
  }
  void PrintSummary() const {
    std::printf("\nratios (fastest repetition; wall time):\n");
    for (const char* op : {"BM_Add", "BM_AddBias", "BM_Gelu", "BM_Tanh", "BM_Softmax",
                           "BM_LayerNorm", "BM_ReduceSum"}) {
      const std::string base(op);
      auto at = [&](int arg) {
        auto it = best_.find(base + "/" + std::to_string(arg) + "/real_time");
        return it == best_.end() ? 0.0 : it->second;
      };
      if (at(0) <= 0 || at(1) <= 0 || at(2) <= 0) continue;
      std::printf("  %-13s ref / fast(1) = %6.1fx   fast(1) / fast(2) = %4.2fx\n", op,
                  at(0) / at(1), at(1) / at(2));
    }
  }

 private:
  std::map<std::string, double> best_;
};

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  RatioReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  reporter.PrintSummary();
  benchmark::Shutdown();
  return 0;
}
