// The CPU plugin's fast kernels called directly (no session), on f32 [4096, 1024]:
//   BM_<op>/0   the reference kernel (RefKernels(), one thread)
//   BM_<op>/T   the fast kernel (FastKernels()) with a ThreadPool of T threads
// Times are wall-clock (the workers' time is not the caller's CPU time). The summary
// printed last gives, per op, fast(1 thread) over reference and the threading speed-up
// fast(1) / fast(T), from the fastest repetition of each.
//
// BM_Matmul, BM_MatmulAddGelu, BM_FusedMatmul*: a BERT feed-forward layer's first product,
// x [128, 384] by constant weights [384, 1536] plus a bias [1536], through GELU: the
// three-kernel chain (oneDNN matmul, add, gelu) against fused_matmul (one oneDNN primitive
// with post-ops), both prepared as a session prepares them (weights prepacked); the
// argument is the thread count. BM_Matmul is the product alone. FusedMatmulRelu scans its
// inputs for NaN and infinities (relu's post-op would map NaN to 0); FusedMatmulLeakyRelu,
// the same work otherwise, does not: the difference is that guard's cost.
// BM_Sample: `sample` on one row of GPT-2's vocabulary (50257), reference against fast.
// Run: build/release/bin/sy_cpu_kernels_benchmark --benchmark_repetitions=3
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
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

// ---- fused_matmul against its chain ------------------------------------------------

constexpr int64_t kTokens = 128, kHidden = 384, kInner = 1536;

// `op` prepared for these types (constants marked), or the plain kernel when the prepare
// declines; runs it on `inputs` into `out`.
class PreparedOp {
 public:
  PreparedOp(const char* op, const std::vector<sy::Tensor>& inputs,
             const std::vector<bool>& constant, sy::Tensor& out, const sy::Attrs& attrs,
             int threads)
      : op_(op), attrs_(attrs), pool_(Pool(threads)) {
    std::vector<sy::TensorType> types;
    std::vector<const std::byte*> constants;
    for (size_t i = 0; i < inputs.size(); ++i) {
      types.push_back(inputs[i].type());
      in_.push_back({inputs[i].type(), inputs[i].data()});
      constants.push_back(constant[i] ? inputs[i].data() : nullptr);
    }
    const std::vector<sy::TensorType> out_types = {out.type()};
    out_.push_back({out.type(), out.mutable_data()});
    const sy::cpu::KernelTable::Entry* entry = sy::cpu::FastKernels().FindEntry(op);
    fn_ = entry->fn;
    if (entry->prepare != nullptr) {
      prepared_ = entry->prepare({op, types, out_types, attrs_, constants, threads});
    }
  }
  bool prepared() const { return prepared_ != nullptr; }
  bool Run() {
    const KernelContext ctx{op_, in_, out_, attrs_, pool_};
    return (prepared_ ? prepared_->Run(ctx) : fn_(ctx)).ok();
  }

 private:
  const char* op_;
  sy::Attrs attrs_;
  sy::cpu::ThreadPool* pool_;
  std::vector<ConstTensorView> in_;
  std::vector<TensorView> out_;
  sy::cpu::KernelFn fn_ = nullptr;
  std::unique_ptr<sy::cpu::PreparedKernel> prepared_;
};

struct FeedForward {
  sy::Tensor x = Random({kTokens, kHidden}, 1), w = Random({kHidden, kInner}, 2),
             bias = Random({kInner}, 3);
};
const FeedForward& Layer() {
  static const FeedForward layer;
  return layer;
}

void SetMatmulCounters(benchmark::State& state) {
  state.counters["GFLOP/s"] = benchmark::Counter(
      static_cast<double>(state.iterations()) * 2.0 * kTokens * kHidden * kInner / 1e9,
      benchmark::Counter::kIsRate);
}

void BM_MatmulAddGelu(benchmark::State& state) {
  const int threads = static_cast<int>(state.range(0));
  const FeedForward& l = Layer();
  sy::Tensor product = *sy::Tensor::Allocate(sy::DType::kF32, {kTokens, kInner});
  sy::Tensor sum = *sy::Tensor::Allocate(sy::DType::kF32, {kTokens, kInner});
  sy::Tensor out = *sy::Tensor::Allocate(sy::DType::kF32, {kTokens, kInner});
  sy::Attrs gelu;
  gelu.Set("approximate", sy::AttrValue(std::string("none")));
  PreparedOp matmul("matmul", {l.x, l.w}, {false, true}, product, {}, threads);
  PreparedOp add("add", {product, l.bias}, {false, true}, sum, {}, threads);
  PreparedOp act("gelu", {sum}, {false}, out, gelu, threads);
  if (!matmul.prepared()) state.SkipWithError("the oneDNN matmul kernel declined");
  for (auto _ : state) {
    if (!matmul.Run() || !add.Run() || !act.Run()) state.SkipWithError("kernel failed");
    benchmark::DoNotOptimize(out.mutable_data());
  }
  SetMatmulCounters(state);
}

// The chain's first kernel alone: what fusing can at best approach.
void BM_Matmul(benchmark::State& state) {
  const int threads = static_cast<int>(state.range(0));
  const FeedForward& l = Layer();
  sy::Tensor out = *sy::Tensor::Allocate(sy::DType::kF32, {kTokens, kInner});
  PreparedOp matmul("matmul", {l.x, l.w}, {false, true}, out, {}, threads);
  if (!matmul.prepared()) state.SkipWithError("the oneDNN matmul kernel declined");
  for (auto _ : state) {
    if (!matmul.Run()) state.SkipWithError("kernel failed");
    benchmark::DoNotOptimize(out.mutable_data());
  }
  SetMatmulCounters(state);
}

void FusedMatmul(benchmark::State& state, const std::string& activation) {
  const int threads = static_cast<int>(state.range(0));
  const FeedForward& l = Layer();
  sy::Tensor out = *sy::Tensor::Allocate(sy::DType::kF32, {kTokens, kInner});
  sy::Attrs attrs;
  attrs.Set("trans_b", sy::AttrValue(int64_t{0}));
  attrs.Set("activation", sy::AttrValue(activation));
  attrs.Set("activation_alpha", sy::AttrValue(0.01));
  PreparedOp fused("fused_matmul", {l.x, l.w, l.bias}, {false, true, true}, out, attrs, threads);
  if (!fused.prepared()) state.SkipWithError("the oneDNN fused_matmul kernel declined");
  for (auto _ : state) {
    if (!fused.Run()) state.SkipWithError("kernel failed");
    benchmark::DoNotOptimize(out.mutable_data());
  }
  SetMatmulCounters(state);
}
void BM_FusedMatmulGelu(benchmark::State& state) { FusedMatmul(state, "gelu"); }
void BM_FusedMatmulRelu(benchmark::State& state) { FusedMatmul(state, "relu"); }
void BM_FusedMatmulLeakyRelu(benchmark::State& state) { FusedMatmul(state, "leaky_relu"); }

#define SY_FUSED_BENCHMARK(fn) \
  BENCHMARK(fn)->Arg(1)->Arg(2)->Unit(benchmark::kMicrosecond)->UseRealTime()
SY_FUSED_BENCHMARK(BM_Matmul);
SY_FUSED_BENCHMARK(BM_MatmulAddGelu);
SY_FUSED_BENCHMARK(BM_FusedMatmulGelu);
SY_FUSED_BENCHMARK(BM_FusedMatmulRelu);
SY_FUSED_BENCHMARK(BM_FusedMatmulLeakyRelu);

// ---- attention: reference, fused (fast) kernel, and the unfused chain -------------------
//
// BM_Attention/<shape>/<threads>: threads 0 is the reference kernel, T the fused kernel on
// a pool of T threads. BM_AttentionChain/<shape>/<threads>: matmul(q scaled, k^T), softmax
// and matmul(p, v) through the fast kernels (OpenBLAS products), with k^T laid out before
// timing; it materialises the [B, H, S, T] scores. Shapes: 0 BERT-base-like (B 1, H 12,
// S = T = 128, D 32), 1 the same at B 8, S = T = 64, 2 GPT-2-like causal (B 1, H 8,
// S = T = 128, D 64), 3 a long sequence (B 1, H 12, S = T = 1024, D 64: the chain's
// scores are 48 MiB; no reference run, which would take seconds), 4 ViT-S/16 (B 1, H 6,
// S = T = 197, D 64: keys not a multiple of the kernel's blocks).

struct AttentionShape {
  int64_t b, h, s, d;
  bool causal;
};
constexpr AttentionShape kAttentionShapes[] = {{1, 12, 128, 32, false},
                                               {8, 12, 64, 32, false},
                                               {1, 8, 128, 64, true},
                                               {1, 12, 1024, 64, false},
                                               {1, 6, 197, 64, false}};  // ViT-S/16

struct AttentionInputs {
  sy::Tensor q, k, v, kt;
};
const AttentionInputs& AttentionData(int shape) {
  static std::map<int, AttentionInputs> data;  // built before timing
  auto it = data.find(shape);
  if (it != data.end()) return it->second;
  const AttentionShape& a = kAttentionShapes[shape];
  AttentionInputs in{Random({a.b, a.h, a.s, a.d}, 1), Random({a.b, a.h, a.s, a.d}, 2),
                     Random({a.b, a.h, a.s, a.d}, 3), Random({a.b, a.h, a.d, a.s}, 4)};
  // Scores of a realistic spread (|q.k| / sqrt(D) up to ~5, not ~80): inputs in [-1, 1].
  for (sy::Tensor* t : {&in.q, &in.k, &in.v}) {
    for (float& x : t->mutable_values<float>()) x *= 0.25f;
  }
  const auto k = in.k.values<float>();
  auto kt = in.kt.mutable_values<float>();
  for (int64_t bh = 0; bh < a.b * a.h; ++bh) {
    for (int64_t j = 0; j < a.s; ++j) {
      for (int64_t d = 0; d < a.d; ++d) kt[(bh * a.d + d) * a.s + j] = k[(bh * a.s + j) * a.d + d];
    }
  }
  return data.emplace(shape, std::move(in)).first->second;
}

void SetAttentionCounters(benchmark::State& state, const AttentionShape& a) {
  // q k^T and p v: 2 * 2 * B H S T D flops (half of them under a causal mask are skipped
  // by the fused kernel, but counted here, so that the rates compare).
  state.counters["GFLOP/s"] = benchmark::Counter(
      static_cast<double>(state.iterations()) * 4.0 * a.b * a.h * a.s * a.s * a.d / 1e9,
      benchmark::Counter::kIsRate);
}

void BM_Attention(benchmark::State& state) {
  const int shape = static_cast<int>(state.range(0));
  const int threads = static_cast<int>(state.range(1));
  const AttentionShape& a = kAttentionShapes[shape];
  const AttentionInputs& in = AttentionData(shape);
  sy::Attrs attrs;
  attrs.Set("is_causal", sy::AttrValue(int64_t{a.causal ? 1 : 0}));
  const sy::cpu::KernelFn fn =
      (threads == 0 ? sy::cpu::RefKernels() : sy::cpu::FastKernels()).Find("attention");
  const std::vector<ConstTensorView> inputs = {
      {in.q.type(), in.q.data()}, {in.k.type(), in.k.data()}, {in.v.type(), in.v.data()}};
  sy::Tensor out = *sy::Tensor::Allocate(sy::DType::kF32, {a.b, a.h, a.s, a.d});
  const std::vector<TensorView> outs = {{out.type(), out.mutable_data()}};
  const KernelContext ctx{"attention", inputs, outs, attrs, threads == 0 ? nullptr : Pool(threads)};
  for (auto _ : state) {
    if (!fn(ctx).ok()) state.SkipWithError("kernel failed");
    benchmark::DoNotOptimize(out.mutable_data());
  }
  SetAttentionCounters(state, a);
}

void BM_AttentionChain(benchmark::State& state) {
  const int shape = static_cast<int>(state.range(0));
  const int threads = static_cast<int>(state.range(1));
  const AttentionShape& a = kAttentionShapes[shape];
  if (a.causal) {
    state.SkipWithError("no causal mask in the chain");
    return;
  }
  const AttentionInputs& in = AttentionData(shape);
  sy::Tensor scores = *sy::Tensor::Allocate(sy::DType::kF32, {a.b, a.h, a.s, a.s});
  sy::Tensor probs = *sy::Tensor::Allocate(sy::DType::kF32, {a.b, a.h, a.s, a.s});
  sy::Tensor out = *sy::Tensor::Allocate(sy::DType::kF32, {a.b, a.h, a.s, a.d});
  // q scaled by 1 / sqrt(D) beforehand (a model folds it into the q projection).
  sy::Tensor qs = *sy::Tensor::Allocate(sy::DType::kF32, in.q.type().shape);
  const float scale = 1.0f / std::sqrt(static_cast<float>(a.d));
  for (int64_t i = 0; i < in.q.element_count(); ++i) {
    qs.mutable_values<float>()[i] = in.q.values<float>()[i] * scale;
  }
  sy::Attrs softmax_attrs;
  softmax_attrs.Set("axis", sy::AttrValue(int64_t{-1}));
  const sy::Attrs none;
  const sy::cpu::KernelTable& t = sy::cpu::FastKernels();
  const std::vector<ConstTensorView> in1 = {{qs.type(), qs.data()}, {in.kt.type(), in.kt.data()}};
  const std::vector<TensorView> out1 = {{scores.type(), scores.mutable_data()}};
  const std::vector<ConstTensorView> in2 = {{scores.type(), scores.data()}};
  const std::vector<TensorView> out2 = {{probs.type(), probs.mutable_data()}};
  const std::vector<ConstTensorView> in3 = {{probs.type(), probs.data()},
                                            {in.v.type(), in.v.data()}};
  const std::vector<TensorView> out3 = {{out.type(), out.mutable_data()}};
  sy::cpu::ThreadPool* pool = Pool(threads);
  const KernelContext c1{"matmul", in1, out1, none, pool};
  const KernelContext c2{"softmax", in2, out2, softmax_attrs, pool};
  const KernelContext c3{"matmul", in3, out3, none, pool};
  for (auto _ : state) {
    if (!t.Find("matmul")(c1).ok() || !t.Find("softmax")(c2).ok() || !t.Find("matmul")(c3).ok()) {
      state.SkipWithError("kernel failed");
    }
    benchmark::DoNotOptimize(out.mutable_data());
  }
  SetAttentionCounters(state, a);
}

BENCHMARK(BM_Attention)
    ->ArgsProduct({{0, 1, 2}, {0, 1, 2}})
    ->Args({3, 1})
    ->Args({3, 2})
    ->Args({4, 1})
    ->Args({4, 2})
    ->Unit(benchmark::kMicrosecond)
    ->UseRealTime();
BENCHMARK(BM_AttentionChain)
    ->ArgsProduct({{0, 1, 3, 4}, {1, 2}})
    ->Unit(benchmark::kMicrosecond)
    ->UseRealTime();

// ---- sample at GPT-2's vocabulary ------------------------------------------------------

// BM_Sample/<method>/<kernel>: one row of 50257 f32 logits (the next token of a decoding
// step), method 0 greedy, 1 temperature, 2 top_k (40), 3 top_p (0.9), 4 min_p (0.05);
// kernel 0 the reference, 1 the fast kernel (one thread: a single row is not split).
// The logits are normal (sd 2.5) with five spikes at 12-16, roughly the shape of a
// language model's: a few tokens hold most of the mass, a long tail the rest.
constexpr int64_t kVocab = 50257;
const char* const kSampleMethods[] = {"greedy", "temperature", "top_k", "top_p", "min_p"};

void BM_Sample(benchmark::State& state) {
  const int method = static_cast<int>(state.range(0));
  const bool fast = state.range(1) != 0;
  static const sy::Tensor logits = [] {
    sy::Tensor t = *sy::Tensor::Allocate(sy::DType::kF32, {1, kVocab});
    std::mt19937 rng(5);
    std::normal_distribution<float> normal(0.0f, 2.5f);
    for (float& v : t.mutable_values<float>()) v = normal(rng);
    for (int s = 0; s < 5; ++s) t.mutable_values<float>()[(s * 7919 + 11) % kVocab] = 12.0f + s;
    return t;
  }();
  static const sy::Tensor uniform = [] {
    sy::Tensor t = *sy::Tensor::Allocate(sy::DType::kF64, {1});
    t.mutable_values<double>()[0] = 0.5;
    return t;
  }();
  // Every attribute present, as validation leaves them; the method's own set, the rest at
  // their defaults.
  sy::Attrs attrs;
  attrs.Set("method", sy::AttrValue(std::string(kSampleMethods[method])));
  attrs.Set("temperature", sy::AttrValue(1.0));
  attrs.Set("top_k", sy::AttrValue(int64_t{method == 2 ? 40 : 0}));
  attrs.Set("top_p", sy::AttrValue(method == 3 ? 0.9 : 1.0));
  attrs.Set("min_p", sy::AttrValue(method == 4 ? 0.05 : 0.0));
  const sy::cpu::KernelFn fn =
      (fast ? sy::cpu::FastKernels() : sy::cpu::RefKernels()).Find("sample");
  const std::vector<ConstTensorView> in = {{logits.type(), logits.data()},
                                           {uniform.type(), uniform.data()}};
  sy::Tensor token = *sy::Tensor::Allocate(sy::DType::kI64, {1});
  const std::vector<TensorView> outs = {{token.type(), token.mutable_data()}};
  const KernelContext ctx{"sample", in, outs, attrs, fast ? Pool(1) : nullptr};
  for (auto _ : state) {
    if (!fn(ctx).ok()) state.SkipWithError("kernel failed");
    benchmark::DoNotOptimize(token.mutable_data());
  }
  state.SetLabel(kSampleMethods[method]);
}
BENCHMARK(BM_Sample)
    ->ArgsProduct({{0, 1, 2, 3, 4}, {0, 1}})
    ->Unit(benchmark::kMicrosecond)
    ->UseRealTime();

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
    for (int shape = 0; shape < 4; ++shape) {
      auto at = [&](const char* name, int threads) {
        auto it = best_.find(std::string(name) + "/" + std::to_string(shape) + "/" +
                             std::to_string(threads) + "/real_time");
        return it == best_.end() ? 0.0 : it->second;
      };
      const double fused = at("BM_Attention", 1);
      if (fused <= 0) continue;
      std::printf("  attention shape %d:", shape);
      if (at("BM_Attention", 0) > 0)
        std::printf(" ref / fused(1) = %5.1fx", at("BM_Attention", 0) / fused);
      if (at("BM_Attention", 2) > 0)
        std::printf("  fused(1) / fused(2) = %4.2fx", fused / at("BM_Attention", 2));
      if (at("BM_AttentionChain", 1) > 0)
        std::printf("  chain(1) / fused(1) = %4.2fx", at("BM_AttentionChain", 1) / fused);
      std::printf("\n");
    }
    for (int method = 0; method < 5; ++method) {
      auto at = [&](int kernel) {
        auto it = best_.find("BM_Sample/" + std::to_string(method) + "/" + std::to_string(kernel) +
                             "/real_time");
        return it == best_.end() ? 0.0 : it->second;
      };
      if (at(0) <= 0 || at(1) <= 0) continue;
      std::printf("  sample %-11s ref / fast = %6.1fx\n", kSampleMethods[method], at(0) / at(1));
    }
    for (int threads : {1, 2}) {
      auto at = [&](const char* name) {
        auto it = best_.find(std::string(name) + "/" + std::to_string(threads) + "/real_time");
        return it == best_.end() ? 0.0 : it->second;
      };
      const double chain = at("BM_MatmulAddGelu"), fused = at("BM_FusedMatmulGelu");
      if (chain <= 0 || fused <= 0) continue;
      std::printf("  matmul+add+gelu / fused_matmul(gelu), %d thread(s) = %4.2fx\n", threads,
                  chain / fused);
    }
  }

 private:
  std::map<std::string, double> best_;
};

}  // namespace

int main(int argc, char** argv) {
  // SY_ATTENTION_PRODUCTS=onednn, blas or loops: how the fused attention kernel computes
  // its block products (default: the kernel's own choice for this CPU and build).
  if (const char* products = std::getenv("SY_ATTENTION_PRODUCTS"); products != nullptr) {
    const std::string choice = products;
    sy::cpu::SetAttentionProducts(choice == "onednn"  ? sy::cpu::AttentionProducts::kOneDnn
                                  : choice == "blas"  ? sy::cpu::AttentionProducts::kBlas
                                  : choice == "loops" ? sy::cpu::AttentionProducts::kLoops
                                                      : sy::cpu::AttentionProducts::kAuto);
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  RatioReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  reporter.PrintSummary();
  benchmark::Shutdown();
  return 0;
}
