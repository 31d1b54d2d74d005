// What the oneDNN kernels of the `cpu` device share: the engine, the thread count
// handed to oneDNN's OpenMP runtime, memory descriptors for the catalogue's row-major
// tensors, and the instruction set oneDNN chose for this CPU.
//
// Why oneDNN (docs/cpu-kernels.md has the measurements): its kernels are JIT-compiled
// for the instruction set the CPU reports (AVX2, AVX-512, AMX) when a primitive is
// created, so a CPU newer than the library still gets its best code path; Debian's
// OpenBLAS 0.3.21 picks its kernel from a table of CPU models and falls back to its
// oldest one on CPUs it does not know.
//
// Lifetime: the engine is a process-wide static (oneDNN's CPU engine holds no device
// state); primitives and memory objects belong to the prepared kernels that create them.
#pragma once

#include <algorithm>
#include <dnnl.hpp>
#include <limits>
#include <span>
#include <string>

#include "kernel.h"
#include "thread_pool.h"

namespace sy::cpu::onednn {

// The CPU engine, created on first use.
const dnnl::engine& Engine();

// Sets, for its lifetime, the thread count of the OpenMP team oneDNN uses on this thread,
// and gives the thread back the count it had (the host's OMP_NUM_THREADS or its own
// omp_set_num_threads) when it ends. Held around primitive creation as well as execution:
// oneDNN sizes some primitives' teams (reorders among them) when they are created, so a
// primitive created under the default count later wakes a team that large; its idle
// threads then spin in libgomp between runs and double the CPU time of a one-thread run.
class ScopedThreads {
 public:
  explicit ScopedThreads(int num_threads);
  ~ScopedThreads();
  ScopedThreads(const ScopedThreads&) = delete;
  ScopedThreads& operator=(const ScopedThreads&) = delete;

 private:
  int previous_;
};

// The threads a primitive of `work` multiply-adds (or element visits) gets: one below
// kSmallPrimitiveWork, else `num_threads`. oneDNN splits even a 3 us convolution over its
// OpenMP team, and the team's barrier then waits for every thread: 2.5 us a run on a quiet
// machine, and a whole time slice (milliseconds) when the OS has descheduled one on a
// busy one (docs/performance.md, "Tail latency with a competing load"). Below this size
// one thread finishes before a split would pay for itself (about 10 us at 1 thread here).
inline constexpr int64_t kSmallPrimitiveWork = int64_t{1} << 19;
inline int ThreadsFor(int64_t work, int num_threads) {
  return work < kSmallPrimitiveWork ? 1 : num_threads;
}

// oneDNN's version and the instruction set its kernels are generated for
// ("oneDNN 2.6.3, isa avx512_core_amx").
std::string Description();

// Whether oneDNN generates VNNI code here (vpdpbusd: four u8 x s8 products a 32-bit lane,
// exact). Without it its u8 x s8 kernels add pairs of products in 16 bits with saturation
// (vpmaddubsw), so the integer kernels (matmul_integer, qlinear_conv) keep them off those.
bool HasVnni();

// f32 row-major dims of a shape (as oneDNN's int64 dims).
dnnl::memory::dims Dims(const Shape& shape);

// oneDNN's channels-last tag for a tensor of `rank` 3 to 5 (nwc, nhwc, ndhwc).
dnnl::memory::format_tag ChannelsLast(size_t rank);

// A plain (row-major) descriptor of `dims` in `type`; PlainF32 in f32.
dnnl::memory::desc Plain(const dnnl::memory::dims& dims, dnnl::memory::data_type type);
dnnl::memory::desc PlainF32(const dnnl::memory::dims& dims);

// A convolution's geometry as oneDNN takes it (conv, fused_conv and qlinear_conv): x and
// y's dims, the weights [M, C/g, k...] as oneDNN's [g, M/g, C/g, k...] when grouped (the
// same bytes), dilations as gaps between taps, pads split into begins and ends.
struct ConvGeometry {
  dnnl::memory::dims x, y, w, strides, dilations, pad_l, pad_r;
  int64_t group = 1;
};
ConvGeometry ConvGeometryOf(const Shape& x, const Shape& w, const Shape& y, const Attrs& attrs);

// A convolution's multiply-adds (for ThreadsFor): each output element sums C/g * k...
// products, as many as the weights [M, C/g, k...] hold per output channel (in double:
// no overflow).
int64_t ConvWork(const Shape& w, const Shape& y);

// The eltwise post-op that computes fused_matmul's and fused_conv's `activation` (with
// activation_alpha, clip_min, clip_max), appended to `ops`; nothing for "none". Returns
// false for a case whose post-op would not compute what the reference does (clip with
// clip_min > clip_max: oneDNN then gives clip_min below clip_max, the reference clip_max).
// *non_finite_differs says whether oneDNN's post-op departs from the reference on NaN or
// infinite inputs (relu and clip map NaN to a number; gelu, gelu_tanh and silu give NaN
// at -inf where the reference gives -0): such kernels send inputs holding a non-finite
// value to the reference kernel (AllFinite).
bool AppendActivation(const Attrs& attrs, dnnl::post_ops& ops, bool* non_finite_differs);

// True when none of the `count` f32 values at `data` is NaN or infinite.
bool AllFinite(const std::byte* data, int64_t count);

// The f32 tensor of `shape` [N, C, spatial...] at `src` copied into `dst`, from row-major
// (NCHW) to channels-last (NHWC) or back. Only fallback paths use it; the primitives' own
// reorders are oneDNN's.
void PermuteChannels(const std::byte* src, std::byte* dst, const Shape& shape,
                     bool to_channels_last);

// Runs `fallback` (a plain kernel of the table, which reads and writes row-major tensors)
// for a prepared kernel whose inputs marked in `inputs_channels_last` and whose output 0
// (when `output_channels_last`) the executable stores channels-last: those go through
// row-major copies made for this call. For the rare runs a prepared kernel hands back (an
// operand not aligned for f32, a value its primitive would treat differently from the
// reference).
Status RunOnRowMajorCopies(KernelFn fallback, const KernelContext& ctx,
                           std::span<const bool> inputs_channels_last, bool output_channels_last);

// ---- magnitude bounds (KernelContext::input_bounds): guards skipped on bounded values ----
//
// A guard that would scan an operand first asks the run's bound of it: a finite bound
// means every element is finite (another oneDNN kernel produced it on its fast path from
// bounded operands), so the scan is skipped. Otherwise it scans with MaxAbs, which both
// finds NaN and infinities and bounds the operand. After its fast path a conv bounds its
// output by |x| * WeightBound + |bias| + |residual| through its activation, when that
// stays far enough below FLT_MAX that no partial sum can overflow; a pool by its input's.

// The largest |v| of the `count` f32 values at `data`, or +inf when one of them is NaN or
// infinite; split over `pool` (nullptr: the calling thread).
double MaxAbs(ThreadPool* pool, const std::byte* data, int64_t count);

// Bounds at or above this are not passed on: a product of bounded operands summed in f32
// stays below FLT_MAX whatever the order of the sum (each partial sum is within a factor
// (1 + 2^-24)^terms of the exact one, and terms are far fewer than 2^24).
inline constexpr double kLargestBound = 1e37;

// The largest sum of |w| over one output channel of conv weights [M, C/g, k...] (+inf if
// one is not finite): |conv(x)| <= |x| * this.
double WeightBound(const std::byte* weights, const Shape& shape);

// How fused_conv's `activation` (none for conv) bounds its output, read from the node's
// attributes once at prepare: Of(pre) bounds the activation of any value of magnitude at
// most `pre`, 1% wide for the post-op's own rounding (+inf when unknown).
struct ActivationBound {
  double scale = 1.0;                                    // |f(x)| <= scale * |x| ...
  double cap = std::numeric_limits<double>::infinity();  // ... and <= cap
  bool constant = false;  // f's range alone bounds it: cap, whatever pre is

  static ActivationBound FromAttrs(const Attrs& attrs);
  double Of(double pre) const { return (constant ? cap : std::min(pre * scale, cap)) * 1.01; }
};

// True when `pd` chose a JIT-compiled implementation: oneDNN falls back to its scalar
// reference one ("ref:any") for argument shapes or post-ops its fast kernels lack; the
// fused kernels decline those, and the entry's plain kernel runs them.
bool IsJit(const dnnl::primitive_desc_base& pd);

// True when every kernel of this file may run: oneDNN is selected (SWITCHYARD_CPU_GEMM is
// unset or "onednn"; "openblas" keeps matmul, gemm and conv on OpenBLAS).
bool Selected();

}  // namespace sy::cpu::onednn
